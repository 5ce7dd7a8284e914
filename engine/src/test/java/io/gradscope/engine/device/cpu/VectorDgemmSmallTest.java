package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Note [Small products]: the plain loops VectorDgemm runs small products on give every element of C
 * bit for bit what the Vector API's kernel gives, on every operand layout, for row ranges of a
 * bigger C, across the k block, with zeros of both signs, exact cancellations and infinities.
 */
class VectorDgemmSmallTest {
    private static final double[] SPECIAL = {0.0, -0.0, 1.0, -1.0, 0.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};

    @Test
    void smallLoopsEqualTheVectorKernelBitForBit() {
        Random r = new Random(30);
        List<String> fails = new ArrayList<>();
        int cases = 0;
        int[][] shapes = {{1, 1, 1}, {4, 8, 8}, {8, 8, 4}, {3, 5, 7}, {9, 17, 3}, {1, 1, 600}, {2, 3, 300}, {16, 16, 16},
            {1, 40, 2}, {33, 1, 5}, {0, 4, 4}, {4, 4, 0}};
        for (int[] s : shapes) {
            for (int layoutA = 0; layoutA < 2; layoutA++) {
                for (int layoutB = 0; layoutB < 3; layoutB++) {
                    for (int values = 0; values < 3; values++) {
                        cases++;
                        String f = check(r, s[0], s[1], s[2], layoutA, layoutB, values);
                        if (f != null) {
                            fails.add(f);
                        }
                    }
                }
            }
        }
        assertTrue(fails.isEmpty(), fails.size() + " of " + cases + " failed:\n" + String.join("\n", fails));
    }

    @Test
    void dgemmTakesTheSmallPathOnlyUpToItsSize() {
        // A product one past the limit goes to the kernel: both give the same C, checked above; here the
        // limit itself is what the dispatch reads (4 × 8 @ 8 × 8 is small, 64 × 64 @ 64 × 64 is not).
        assertTrue(4L * 8 * 8 <= VectorDgemm.SMALL);
        assertTrue(64L * 64 * 64 > VectorDgemm.SMALL);
    }

    /** values: 0 Gaussian, 1 from {0, ±1} (exact cancellations, signed zeros), 2 with infinities and ±0. */
    private static double value(Random r, int values) {
        return switch (values) {
            case 0 -> r.nextGaussian();
            case 1 -> r.nextInt(3) - 1 + (r.nextBoolean() ? 0.0 : -0.0);
            default -> r.nextInt(4) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)] : r.nextGaussian();
        };
    }

    private static String check(Random r, int m, int n, int k, int layoutA, int layoutB, int values) {
        int ars = layoutA == 0 ? k + 1 : 1;
        int acs = layoutA == 0 ? 1 : m + 2;
        int brs = layoutB == 0 ? n : layoutB == 1 ? 1 : 0;
        int bcs = layoutB == 0 ? 1 : layoutB == 1 ? k + 1 : 1;
        int ao = 3;
        int bo = 2;
        double[] a = new double[ao + Math.max(0, (m + 2) * (k + 1) + 1)];
        double[] b = new double[bo + Math.max(0, (n + 1) * (k + 1) + 1)];
        for (int i = 0; i < a.length; i++) {
            a[i] = value(r, values);
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = value(r, values);
        }
        // Rows [i0, i1) of a C with two more rows, at an offset; the other rows keep their marker.
        int rows = m + 2;
        int co = 5;
        double[] small = new double[co + rows * n];
        double[] vector = new double[co + rows * n];
        java.util.Arrays.fill(small, 7.25);
        java.util.Arrays.fill(vector, 7.25);
        VectorDgemm.small(a, ao, ars, acs, b, bo, brs, bcs, small, co, 1, 1 + m, n, k);
        VectorDgemm.vector(a, ao, ars, acs, b, bo, brs, bcs, vector, co, 1, 1 + m, n, k, false);
        for (int i = 0; i < small.length; i++) {
            if (Double.doubleToLongBits(small[i]) != Double.doubleToLongBits(vector[i])) {
                return "m=" + m + " n=" + n + " k=" + k + " A" + layoutA + " B" + layoutB + " values " + values + ": at " + i
                        + " small " + small[i] + " vector " + vector[i];
            }
        }
        assertEquals(7.25, small[0]);
        return null;
    }
}
