package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The direct kernel's weight gradient (Note [Vectors along channels]) against the sum of its
 * definition in float64 from the same float32 values, element by element within a few float32
 * roundings of the sum of its terms' magnitudes: channel counts that are not a multiple of the
 * kernel's 64 output channels or of a task's 48 window elements, padding 0, 1 and 2, batches of
 * two, planes of one column and planes of more than one block of rows, and inputs that are strided
 * views.
 */
class DirectWeightGradTest {
    @BeforeEach
    void needsWideVectors() {
        assumeTrue(CpuMatmul.VECTOR && DirectConv.available(), "the direct kernel needs 16-lane vectors (AVX-512)");
    }

    /** {n, c_in, c_out, h, w, padding}. */
    private static final int[][] SHAPES = {{1, 3, 4, 5, 7, 1}, {2, 7, 70, 8, 9, 1}, {1, 17, 19, 11, 6, 1}, {2, 4, 3, 6, 6, 0},
        {1, 3, 2, 5, 5, 2}, {1, 1, 1, 1, 1, 1}, {1, 6, 65, 30, 29, 1}, {1, 2, 5, 4, 1, 1}, {1, 9, 12, 3, 70, 1}};

    private static final double ROUNDINGS = 16 * Math.ulp(1f);

    private static float[] random(Random r, int n) {
        return FastWindowsTest.random(r, n);
    }

    @Test
    void weightGradientEqualsTheFloat64Sum() {
        Random r = new Random(71);
        for (int[] sh : SHAPES) {
            int n = sh[0], c = sh[1], k = sh[2], h = sh[3], w = sh[4], p = sh[5];
            int oh = h + 2 * p - 2;
            int ow = w + 2 * p - 2;
            float[] x = random(r, n * c * h * w);
            float[] g = random(r, n * k * oh * ow);
            check(sh, x, g, DirectWeightGrad.weightGrad(Tensor.of(x, n, c, h, w), Tensor.of(g, n, k, oh, ow), p, p, true));
        }
    }

    /**
     * An infinite input reaches only the entries whose windows read it: products with the padding's
     * columns are never formed, so it leaves no 0 · ∞ in the entries beside it (an input in the first
     * column is read by no window element dx = 2 at padding 1).
     */
    @Test
    void anInfiniteInputReachesOnlyTheEntriesThatReadIt() {
        Random r = new Random(72);
        int[] sh = {1, 2, 3, 6, 5, 1};
        float[] x = random(r, 2 * 6 * 5);
        float[] g = random(r, 3 * 6 * 5);
        x[1 * 30 + 2 * 5] = Float.POSITIVE_INFINITY; // channel 1, row 2, column 0
        Tensor dw = DirectWeightGrad.weightGrad(Tensor.of(x, 1, 2, 6, 5), Tensor.of(g, 1, 3, 6, 5), 1, 1, true);
        check(sh, x, g, dw);
        double[] got = dw.toDoubleArray();
        for (int q = 0; q < 3; q++) {
            for (int i = 0; i < 3; i++) {
                assertTrue(Double.isFinite(got[((q * 2 + 1) * 3 + i) * 3 + 2]), "dx = 2 never reads column 0");
                assertTrue(Double.isInfinite(got[((q * 2 + 1) * 3 + i) * 3 + 1]), "dx = 1 reads it");
            }
        }
    }

    /** x and g as views with strides of their own (every other column of wider arrays): the same values as their copies. */
    @Test
    void stridedInputsGiveTheSameValuesAsTheirCopies() {
        Random r = new Random(73);
        Tensor x = Tensor.of(random(r, 2 * 5 * 18 * 40), 2, 5, 18, 40)
                .asStrided(new int[] {2, 5, 18, 20}, new int[] {5 * 18 * 40, 18 * 40, 40, 2}, 1);
        Tensor g = Tensor.of(random(r, 2 * 7 * 18 * 40), 2, 7, 18, 40)
                .asStrided(new int[] {2, 7, 18, 20}, new int[] {7 * 18 * 40, 18 * 40, 40, 2}, 0);
        assertArrayEquals(DirectWeightGrad.weightGrad(x.contiguous(), g.contiguous(), 1, 1, true).toDoubleArray(),
                DirectWeightGrad.weightGrad(x, g, 1, 1, true).toDoubleArray());
    }

    /**
     * Where the direct kernel is measured fastest (the times faked), the backend's own choice takes
     * planes of 128 output positions and more (32 output channels or more), and leaves smaller ones to im2col.
     */
    @Test
    void theBackendTakesPlanesOfEnoughPositions() {
        KernelTunerTest.fakeTimes("direct");
        try {
            planesOfEnoughPositions();
        } finally {
            KernelTuner.resetToRules();
        }
    }

    private static void planesOfEnoughPositions() {
        Random r = new Random(74);
        Tensor small = Tensor.of(random(r, 5 * 9 * 8), 1, 5, 9, 8);
        Tensor gSmall = Tensor.of(random(r, 40 * 9 * 8), 1, 40, 9, 8);
        Tensor big = Tensor.of(random(r, 2 * 5 * 9 * 8), 2, 5, 9, 8);
        Tensor gBig = Tensor.of(random(r, 2 * 40 * 9 * 8), 2, 40, 9, 8);
        assertNull(CpuBackend.INSTANCE.conv3x3WeightGrad(small, gSmall, 1, 1, "auto"), "72 positions");
        assertNotNull(CpuBackend.INSTANCE.conv3x3WeightGrad(small, gSmall, 1, 1, "direct"), "asked for");
        assertArrayEquals(DirectWeightGrad.weightGrad(big, gBig, 1, 1, true).toDoubleArray(),
                CpuBackend.INSTANCE.conv3x3WeightGrad(big, gBig, 1, 1, "auto").toDoubleArray(), "2 images of 72 positions");
    }

    /**
     * Scratch that Java's arrays cannot hold, or (by the backend's own choice) a transposed g more
     * than twice g's size, is left to im2col: one output channel on a 5800 x 5800 plane once overflowed
     * an int in the transposed copy (n·OH·OW·64), and at 4000 x 4000 that copy ran out of memory where
     * im2col's columns fit.
     */
    @Test
    void leavesScratchThatDoesNotFitToIm2col() {
        assertTrue(DirectWeightGrad.fits(1, 64, 58, 58, 56, 56, 64, false), "resnet18's first layer");
        assertTrue(DirectWeightGrad.fits(1, 64, 58, 58, 56, 56, 32, false), "32 channels in 64: twice g's size");
        assertFalse(DirectWeightGrad.fits(1, 64, 58, 58, 56, 56, 31, false), "31 channels in 64: more than twice");
        assertTrue(DirectWeightGrad.fits(1, 64, 58, 58, 56, 56, 31, true), "asked for, any size");
        assertFalse(DirectWeightGrad.fits(1, 1, 5802, 5802, 5800, 5800, 1, true), "5800² positions by 64 channels");
        assertFalse(DirectWeightGrad.fits(64, 64, 5802, 5802, 5800, 5800, 64, true), "the padded images");
        Random r = new Random(75);
        float[] xv = random(r, 20 * 20);
        float[] gv = random(r, 20 * 20);
        Tensor x = Tensor.of(xv, 1, 1, 20, 20);
        Tensor g = Tensor.of(gv, 1, 1, 20, 20);
        assertNull(DirectWeightGrad.weightGrad(x, g, 1, 1, false), "one output channel: im2col's");
        check(new int[] {1, 1, 1, 20, 20, 1}, xv, gv, DirectWeightGrad.weightGrad(x, g, 1, 1, true));
    }

    @Test
    void declinesWhatItDoesNotCompute() {
        Tensor x = Tensor.zeros(DType.FLOAT32, 1, 2, 5, 5);
        Tensor g = Tensor.zeros(DType.FLOAT32, 1, 3, 5, 5);
        assertNull(DirectWeightGrad.weightGrad(x, Tensor.zeros(DType.FLOAT32, 1, 3, 9, 9), 3, 3, true), "padding 3");
        assertNull(DirectWeightGrad.weightGrad(x.to(DType.FLOAT64), g.to(DType.FLOAT64), 1, 1, true), "float64");
        assertNull(DirectWeightGrad.weightGrad(x, Tensor.zeros(DType.FLOAT32, 1, 3, 4, 5), 1, 1, true), "g's plane is not the output's");
        assertNull(DirectWeightGrad.weightGrad(x, Tensor.zeros(DType.FLOAT32, 2, 3, 5, 5), 1, 1, true), "two images of g for one of x");
        assertNull(DirectWeightGrad.weightGrad(Tensor.zeros(DType.FLOAT32, 1, 2, 4, 0), Tensor.zeros(DType.FLOAT32, 1, 3, 6, 2), 2, 2, true),
                "an image of no columns");
    }

    /** dw against Σ g[n, k, oy, ox] · x[n, ci, oy + i − p, ox + j − p] over positions inside x, summed in float64. */
    private static void check(int[] sh, float[] x, float[] g, Tensor dw) {
        int n = sh[0], c = sh[1], k = sh[2], h = sh[3], w = sh[4], p = sh[5];
        int oh = h + 2 * p - 2;
        int ow = w + 2 * p - 2;
        assertNotNull(dw, Arrays.toString(sh));
        assertArrayEquals(new int[] {k, c, 3, 3}, dw.shape());
        assertEquals(DType.FLOAT32, dw.dtype());
        double[] got = dw.toDoubleArray();
        for (int q = 0; q < k; q++) {
            for (int ci = 0; ci < c; ci++) {
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        double sum = 0;
                        double abs = 0;
                        for (int b = 0; b < n; b++) {
                            for (int a = 0; a < oh; a++) {
                                for (int e = 0; e < ow; e++) {
                                    int ih = a - p + i;
                                    int iw = e - p + j;
                                    if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                                        continue;
                                    }
                                    double t = (double) g[((b * k + q) * oh + a) * ow + e] * x[((b * c + ci) * h + ih) * w + iw];
                                    sum += t;
                                    abs += Math.abs(t);
                                }
                            }
                        }
                        int at = ((q * c + ci) * 3 + i) * 3 + j;
                        String where = Arrays.toString(sh) + " at " + at + ": " + got[at] + " against " + sum;
                        if (!Double.isFinite(sum)) {
                            assertEquals(sum, got[at], where);
                        } else {
                            assertTrue(Math.abs(got[at] - sum) <= ROUNDINGS * abs + 1e-30, where);
                        }
                    }
                }
            }
        }
    }
}
