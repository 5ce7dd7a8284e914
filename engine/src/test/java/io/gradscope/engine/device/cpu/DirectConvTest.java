package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * The direct 3x3 kernel (Note [Flat padded rows]) against the correlation summed in float64 from the
 * same float32 values, element by element within a few float32 roundings of the sum of its terms'
 * magnitudes: planes narrower and wider than a kernel call's 64 outputs, output channels that are
 * not a multiple of the kernel's 6, padding 0, 1 and 2, batches of two, an input that is a strided
 * view, and the transposed read of the weight (conv_transpose2d's). The gradients through the whole
 * op are WinogradConvTest's, run with gradscope.conv=direct.
 */
class DirectConvTest {
    @BeforeEach
    void needsWideVectors() {
        assumeTrue(CpuMatmul.VECTOR && DirectConv.available(), "the direct kernel needs 16-lane vectors (AVX-512)");
    }

    /** {n, c_in, c_out, h, w, padding}. */
    private static final int[][] SHAPES = {{1, 3, 4, 5, 7, 1}, {2, 5, 13, 8, 9, 1}, {1, 17, 19, 11, 6, 1}, {2, 4, 3, 6, 6, 0},
        {1, 3, 2, 5, 5, 2}, {1, 1, 1, 1, 1, 1}, {1, 33, 8, 7, 7, 1}, {1, 6, 7, 30, 29, 1}, {1, 9, 12, 3, 70, 1},
        {1, 2, 6, 3, 3, 0}};

    private static final double ROUNDINGS = 16 * Math.ulp(1f);

    private static float[] random(Random r, int n) {
        return FastWindowsTest.random(r, n);
    }

    private static Tensor f32(float[] v, int... shape) {
        return Tensor.of(v, shape);
    }

    @Test
    void correlationEqualsTheFloat64Sum() {
        Random r = new Random(61);
        for (int[] sh : SHAPES) {
            for (int mode = 0; mode < 4; mode++) {
                boolean transposed = mode % 2 == 1;
                boolean inPlace = mode >= 2;
                int n = sh[0], c = sh[1], k = sh[2], h = sh[3], w = sh[4], p = sh[5];
                int oh = h + 2 * p - 2;
                int ow = w + 2 * p - 2;
                float[] x = random(r, n * c * h * w);
                float[] wt = random(r, k * c * 9);
                Tensor wtt = transposed ? f32(wt, c, k, 3, 3) : f32(wt, k, c, 3, 3);
                Tensor y = DirectConv.conv(f32(x, n, c, h, w), wtt, transposed, p, p, inPlace);
                assertNotNull(y, Arrays.toString(sh));
                assertArrayEquals(new int[] {n, k, oh, ow}, y.shape());
                double[] got = y.toDoubleArray();
                for (int b = 0; b < n; b++) {
                    for (int q = 0; q < k; q++) {
                        for (int a = 0; a < oh; a++) {
                            for (int e = 0; e < ow; e++) {
                                double sum = 0;
                                double abs = 0;
                                for (int ci = 0; ci < c; ci++) {
                                    for (int i = 0; i < 3; i++) {
                                        for (int j = 0; j < 3; j++) {
                                            int ih = a - p + i;
                                            int iw = e - p + j;
                                            if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                                                continue;
                                            }
                                            double wv = transposed ? wt[((ci * k + q) * 3 + 2 - i) * 3 + 2 - j]
                                                    : wt[((q * c + ci) * 3 + i) * 3 + j];
                                            double t = x[((b * c + ci) * h + ih) * w + iw] * wv;
                                            sum += t;
                                            abs += Math.abs(t);
                                        }
                                    }
                                }
                                int yi = ((b * k + q) * oh + a) * ow + e;
                                assertTrue(Math.abs(got[yi] - sum) <= ROUNDINGS * abs + 1e-30,
                                        Arrays.toString(sh) + (transposed ? " transposed" : "") + (inPlace ? " in place" : "") + " at " + yi + ": " + got[yi]
                                                + " against " + sum);
                            }
                        }
                    }
                }
            }
        }
    }

    /** x as a view with strides of its own (every other column of a wider array): the same values as its copy. */
    @Test
    void aStridedInputGivesTheSameValuesAsItsCopy() {
        Random r = new Random(62);
        float[] wide = random(r, 2 * 5 * 18 * 40);
        Tensor base = f32(wide, 2, 5, 18, 40);
        Tensor view = base.asStrided(new int[] {2, 5, 18, 20}, new int[] {5 * 18 * 40, 18 * 40, 40, 2}, 1);
        Tensor w = f32(random(r, 7 * 5 * 9), 7, 5, 3, 3);
        assertArrayEquals(DirectConv.conv(view.contiguous(), w, false, 1, 1).toDoubleArray(),
                DirectConv.conv(view, w, false, 1, 1).toDoubleArray());
    }

    /**
     * The backend's own choice (auto) takes the kernel measured fastest for the plane's class
     * (Note [Choices by measurement]), the times faked: the direct kernel's result, Winograd's (which
     * still declines fewer than 128 tiles: im2col's then), or none (im2col's product).
     */
    @Test
    void theBackendTakesTheKernelMeasuredFastest() {
        Random r = new Random(63);
        Tensor w = f32(random(r, 7 * 5 * 9), 7, 5, 3, 3);
        Tensor small = f32(random(r, 5 * 9 * 8), 1, 5, 9, 8);
        Tensor big = f32(random(r, 2 * 5 * 17 * 16), 2, 5, 17, 16);
        assertNull(WinogradConv.conv(small, w, false, 1, 1, false), "5 x 4 tiles");
        try {
            for (String fastest : KernelChoice.CONV_SMALL.candidates) {
                KernelTunerTest.fakeTimes(fastest);
                Tensor autoSmall = CpuBackend.INSTANCE.conv3x3(small, w, false, 1, 1, "auto");
                Tensor autoBig = CpuBackend.INSTANCE.conv3x3(big, w, false, 1, 1, "auto");
                assertTrue(CpuBackend.INSTANCE.conv3x3Choice().contains("forward " + fastest + " / " + fastest), "bench's line");
                switch (fastest) {
                    case "direct" -> {
                        assertArrayEquals(DirectConv.conv(small, w, false, 1, 1).toDoubleArray(), autoSmall.toDoubleArray());
                        assertArrayEquals(DirectConv.conv(big, w, false, 1, 1).toDoubleArray(), autoBig.toDoubleArray());
                    }
                    case "winograd" -> {
                        assertNull(autoSmall, "5 x 4 tiles, im2col's product");
                        assertArrayEquals(WinogradConv.conv(big, w, false, 1, 1, false).toDoubleArray(), autoBig.toDoubleArray());
                    }
                    default -> {
                        assertNull(autoSmall, "im2col's product");
                        assertNull(autoBig, "im2col's product");
                    }
                }
            }
        } finally {
            KernelTuner.resetToRules();
        }
    }

    @Test
    void declinesWhatItDoesNotCompute() {
        Tensor x = Tensor.zeros(DType.FLOAT32, 1, 2, 5, 5);
        Tensor w = Tensor.zeros(DType.FLOAT32, 3, 2, 3, 3);
        assertNull(DirectConv.conv(x, w, false, 3, 3), "padding 3");
        assertNull(DirectConv.conv(x.to(DType.FLOAT64), w.to(DType.FLOAT64), false, 1, 1), "float64");
        assertNull(DirectConv.conv(Tensor.zeros(DType.FLOAT32, 1, 2, 1, 1), w, false, 0, 0), "empty output");
        assertNull(DirectConv.conv(Tensor.zeros(DType.FLOAT32, 1, 2, 4, 0), w, false, 1, 2), "an image of no columns");
    }
}
