package io.gradscope.engine.tensor;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gradscope.engine.GradscopeException;
import org.junit.jupiter.api.Test;

class TensorTest {
    private final Tensor x = Tensor.of(new double[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 2, 3, 2);

    /** x[i][j][k] = 6i + 2j + k, read through any view's index map. */
    private static double expected(int i, int j, int k) {
        return 6 * i + 2 * j + k;
    }

    /** An op's fresh output has row-major strides, even from a contiguous view whose size-1 axis has another stride. */
    @Test
    void aFreshOutputHasRowMajorStrides() {
        Tensor row = Tensor.of(new double[] {1, 2, 3}, 1, 3);
        Tensor column = row.viewPermute(1, 0); // shape [3, 1], strides [1, 3]: contiguous
        assertArrayEquals(new int[] {1, 3}, column.strides());
        Tensor y = io.gradscope.engine.ops.Ops.mul(column, column);
        assertArrayEquals(new int[] {3, 1}, y.shape());
        assertArrayEquals(Shapes.contiguousStrides(new int[] {3, 1}), y.strides());
        assertArrayEquals(new double[] {1, 4, 9}, y.toDoubleArray(), 0);
    }

    @Test
    void permuteAndTransposeAreViewsOfTheSameStorage() {
        Tensor p = x.viewPermute(2, 0, 1);
        assertSame(x.storage(), p.storage());
        assertArrayEquals(new int[] {2, 2, 3}, p.shape());
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 2; b++) {
                for (int c = 0; c < 3; c++) {
                    assertEquals(expected(b, c, a), p.get(a, b, c));
                }
            }
        }
        Tensor t = x.viewTranspose(0, 2);
        assertSame(x.storage(), t.storage());
        assertEquals(expected(1, 2, 0), t.get(0, 2, 1));
    }

    @Test
    void narrowAndExpandShareStorage() {
        Tensor n = x.viewNarrow(1, 1, 2);
        assertSame(x.storage(), n.storage());
        assertClose(new double[] {2, 3, 4, 5, 8, 9, 10, 11}, n.toDoubleArray(), 0, 0, "narrow");
        Tensor row = Tensor.of(new double[] {1, 2, 3}, 3);
        Tensor e = row.viewExpand(new int[] {2, 3});
        assertSame(row.storage(), e.storage());
        assertArrayEquals(new int[] {0, 1}, e.strides());
        assertClose(new double[] {1, 2, 3, 1, 2, 3}, e.toDoubleArray(), 0, 0, "expand");
        assertThrows(GradscopeException.class, () -> row.viewExpand(new int[] {2, 4}));
    }

    @Test
    void reshapeIsAViewWhenStridesAllowElseACopy() {
        Tensor v = x.viewReshape(new int[] {6, 2});
        assertSame(x.storage(), v.storage());
        Tensor t = x.viewPermute(0, 2, 1); // [2, 2, 3], last two axes swapped
        assertNull(t.viewReshape(new int[] {2, 6}), "merging swapped axes needs a copy");
        Tensor merged = t.viewReshape(new int[] {2, 2, 3, 1});
        assertSame(x.storage(), merged.storage(), "adding a unit axis is always a view");
        Tensor c = t.reshapeOrCopy(new int[] {2, 6});
        assertNotSame(x.storage(), c.storage());
        assertClose(new double[] {0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}, c.toDoubleArray(), 0, 0, "copy in C order");
    }

    @Test
    void zeroSizeAndScalarTensorsWork() {
        Tensor empty = Tensor.zeros(DType.FLOAT32, 0, 3);
        assertEquals(0, empty.numel());
        assertEquals(0, empty.toDoubleArray().length);
        assertArrayEquals(new int[] {3, 0}, empty.viewPermute(1, 0).shape());
        Tensor s = Tensor.scalar(2.5, DType.FLOAT64);
        assertEquals(0, s.rank());
        assertEquals(2.5, s.item());
        assertEquals(2.5, s.viewReshape(new int[] {1, 1}).get(0, 0));
    }

    @Test
    void dtypeConversionAndInvalidShapes() {
        Tensor f = x.to(DType.FLOAT32);
        assertEquals(DType.FLOAT32, f.dtype());
        assertClose(x.toDoubleArray(), f.toDoubleArray(), 0, 0, "float32 copy");
        assertThrows(GradscopeException.class, () -> Tensor.zeros(DType.FLOAT32, 2, -1));
        GradscopeException e = assertThrows(GradscopeException.class, () -> Tensor.zeros(DType.FLOAT32, 100000, 100000, 100000));
        assertEquals(true, e.getMessage().contains("more than"), e.getMessage());
        assertThrows(GradscopeException.class, () -> Tensor.ofLongs(new long[] {1}, 1).setRequiresGrad(true));
    }
}
