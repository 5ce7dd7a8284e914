package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The kernels' layouts are coalesced on the host: a contiguous operand is rank 1, so the
 * elementwise kernels' index arithmetic needs no division for it (the outermost dimension never
 * divides), and a full reduction of a contiguous tensor walks one dimension.
 */
class KernelMetaTest {

    @Test
    void contiguousOperandsCollapseToOneDimension() {
        int[] shape = {8, 16, 32};
        int[] c = {512, 32, 1};
        int[] m = KernelMeta.elementwise(shape, new int[][] {c, c, c}, new int[] {0, 5, 7});
        assertArrayEquals(new int[] {1, 4096, 1, 0, 1, 5, 1, 7}, m);
    }

    @Test
    void broadcastAndTransposedOperandsKeepWhatTheyNeed() {
        // [4, 5] + [5] (stride 0 on the first axis): two dimensions stay.
        int[] m = KernelMeta.elementwise(new int[] {4, 5}, new int[][] {{5, 1}, {5, 1}, {0, 1}}, new int[] {0, 0, 0});
        assertArrayEquals(new int[] {2, 4, 5, 5, 1, 0, 5, 1, 0, 0, 1, 0}, m);
        // A transposed input: nothing merges; size-1 dimensions go.
        m = KernelMeta.elementwise(new int[] {3, 1, 2}, new int[][] {{2, 2, 1}, {1, 9, 3}}, new int[] {0, 1});
        assertArrayEquals(new int[] {2, 3, 2, 2, 1, 0, 1, 3, 1}, m);
        // A scalar: rank 0, offsets only.
        assertArrayEquals(new int[] {0, 0, 4}, KernelMeta.elementwise(new int[] {1, 1}, new int[][] {{1, 1}, {1, 1}}, new int[] {0, 4}));
    }

    @Test
    void reductionsMergeNeighboursOfTheSameKind() {
        // A full sum of a contiguous [8, 16, 32]: one reduced dimension of 4096.
        int[] m = KernelMeta.reduction(new int[] {8, 16, 32}, new int[] {512, 32, 1}, 3, new int[] {1, 1, 1}, new int[] {1, 1, 1}, 0);
        assertArrayEquals(new int[] {1, 4096, 1, 3, -1, 0}, m);
        assertEquals(4096, KernelMeta.reducedCount(m));
        assertEquals(1, KernelMeta.outputCount(m));
        // [4, 6, 5] over axes 1 and 2 (keepdim out [4, 1, 1]): kept 4, reduced 30.
        m = KernelMeta.reduction(new int[] {4, 6, 5}, new int[] {30, 5, 1}, 0, new int[] {4, 1, 1}, new int[] {1, 1, 1}, 0);
        assertArrayEquals(new int[] {2, 4, 30, 30, 1, 0, 1, -1, 0}, m);
        // [4, 6, 5] over axes 0 and 2: nothing merges.
        m = KernelMeta.reduction(new int[] {4, 6, 5}, new int[] {30, 5, 1}, 0, new int[] {1, 6, 1}, new int[] {6, 1, 1}, 2);
        assertArrayEquals(new int[] {3, 4, 6, 5, 30, 5, 1, 0, -1, 1, -1, 2}, m);
        assertEquals(20, KernelMeta.reducedCount(m));
        assertEquals(6, KernelMeta.outputCount(m));
    }
}
