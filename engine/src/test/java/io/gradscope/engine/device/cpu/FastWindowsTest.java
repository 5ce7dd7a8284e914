package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The faster window loops (Note [Strided rows by phases], Note [Vector transforms]) against float64
 * computations written from the definitions, and against the plain loops ({@code
 * -Dgradscope.windows=plain}) bit for bit: strided unfold with column strides 2-4, paddings 0-3 and
 * row lengths that are odd or no multiple of the vector width; Winograd's input transform ({@code Bᵀ d
 * B}), output transform ({@code Aᵀ m A}) and its adjoint ({@code A dy Aᵀ}) on rows of 1-38 tiles,
 * padded and strided inputs.
 */
class FastWindowsTest {
    private static final float[] BT = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
    private static final float[] AT = {1, 1, 1, 0, 0, 1, -1, -1};

    @AfterEach
    void fastAgain() {
        System.clearProperty("gradscope.windows");
    }

    /** n standard normal floats (DirectConvTest's too). */
    static float[] random(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return v;
    }

    @Test
    void stridedUnfoldReadsEachWindowElementOrThePadding() {
        Random r = new Random(3);
        // {kh, kw, sh, sw, ph, pw, dh, dw}
        int[][] windows = {{7, 7, 2, 2, 3, 3, 1, 1}, {3, 3, 2, 2, 1, 1, 1, 1}, {1, 1, 2, 2, 0, 0, 1, 1},
            {5, 4, 3, 3, 2, 0, 1, 1}, {3, 5, 1, 4, 0, 3, 2, 1}, {2, 3, 2, 3, 1, 2, 1, 1}};
        int[][] planes = {{9, 8}, {13, 17}, {5, 37}, {30, 31}};
        for (int[] g : windows) {
            for (int[] hw : planes) {
                int n = 2, c = 3, h = hw[0], w = hw[1];
                int oh = (h + 2 * g[4] - g[6] * (g[0] - 1) - 1) / g[2] + 1;
                int ow = (w + 2 * g[5] - g[7] * (g[1] - 1) - 1) / g[3] + 1;
                if (oh < 1 || ow < 1) {
                    continue;
                }
                float[] x = random(r, n * c * h * w);
                Tensor xt = Tensor.of(x, n, c, h, w);
                Tensor fast = Im2colKernels.unfold(xt, g, -7, oh, ow);
                System.setProperty("gradscope.windows", "plain");
                Tensor plain = Im2colKernels.unfold(xt, g, -7, oh, ow);
                System.clearProperty("gradscope.windows");
                double[] xd = new double[x.length];
                for (int i = 0; i < x.length; i++) {
                    xd[i] = x[i];
                }
                double[] expected = io.gradscope.engine.ops.SlidingWindowTest.unfoldByDefinition(xd, n * c, h, w, g, oh, ow, -7);
                String what = java.util.Arrays.toString(g) + " on " + h + "x" + w;
                assertArrayEquals(expected, fast.toDoubleArray(), 0, what);
                assertArrayEquals(plain.toDoubleArray(), fast.toDoubleArray(), 0, what);
            }
        }
    }

    @Test
    void inputTransformIsBtDBOfEachTile() {
        Random r = new Random(5);
        // {h, w, ph, pw, strided}
        int[][] cases = {{4, 4, 0, 0, 0}, {7, 9, 1, 1, 0}, {56, 56, 1, 1, 0}, {28, 30, 1, 1, 1}, {17, 75, 2, 0, 0},
            {5, 33, 0, 2, 1}, {3, 3, 1, 1, 0}};
        for (int[] cs : cases) {
            int n = 2, c = 3, h = cs[0], w = cs[1], ph = cs[2], pw = cs[3];
            int oh = h + 2 * ph - 2;
            int ow = w + 2 * pw - 2;
            int th = (oh + 1) / 2;
            int tw = (ow + 1) / 2;
            float[] x = random(r, n * c * h * w);
            Tensor xt = view(x, n, c, h, w, cs[4] == 1);
            int tiles = th * tw;
            int plane = c * tiles + 5;
            float[] fast = new float[16 * plane];
            float[] plain = new float[16 * plane];
            for (int img = 0; img < n; img++) {
                // image by image, the tile rows in two calls (a block's rows, as the forward takes them)
                for (int ch = 0; ch < c; ch++) {
                    int split = th / 2;
                    WinogradTransforms.input(xt, img, ch, ph, pw, 0, split, tw, fast, ch * tiles, plane);
                    WinogradTransforms.input(xt, img, ch, ph, pw, split, th, tw, fast, ch * tiles + split * tw, plane);
                    System.setProperty("gradscope.windows", "plain");
                    WinogradTransforms.input(xt, img, ch, ph, pw, th, tw, plain, ch * tiles, plane);
                    System.clearProperty("gradscope.windows");
                }
                for (int ch = 0; ch < c; ch++) {
                    for (int ty = 0; ty < th; ty++) {
                        for (int tx = 0; tx < tw; tx++) {
                            for (int xi = 0; xi < 16; xi++) {
                                int a = xi / 4, b = xi % 4;
                                double sum = 0, abs = 0;
                                for (int i = 0; i < 4; i++) {
                                    for (int j = 0; j < 4; j++) {
                                        int row = 2 * ty - ph + i, col = 2 * tx - pw + j;
                                        double d = row < 0 || row >= h || col < 0 || col >= w ? 0
                                                : x[((img * c + ch) * h + row) * w + col];
                                        double term = BT[4 * a + i] * d * BT[4 * b + j];
                                        sum += term;
                                        abs += Math.abs(term);
                                    }
                                }
                                int at = xi * plane + ch * tiles + ty * tw + tx;
                                String what = java.util.Arrays.toString(cs) + " image " + img + " tile " + ty + "," + tx + " ξ " + xi;
                                assertEquals(sum, fast[at], 4 * Math.ulp((float) abs) + 1e-30, what);
                                assertEquals(plain[at], fast[at], 0, what);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void outputTransformIsAtMAOfEachTile() {
        Random r = new Random(9);
        // {oh, ow}: odd sizes drop the last row or column
        int[][] cases = {{2, 2}, {7, 9}, {56, 56}, {28, 27}, {13, 74}, {1, 33}};
        for (int[] cs : cases) {
            int oh = cs[0], ow = cs[1];
            int th = (oh + 1) / 2;
            int tw = (ow + 1) / 2;
            int plane = th * tw + 3;
            float[] m = random(r, 16 * plane);
            float[] fast = new float[oh * ow];
            float[] plain = new float[oh * ow];
            int split = th / 2;
            WinogradTransforms.output(m, 0, plane, 0, split, tw, fast, 0, oh, ow);
            WinogradTransforms.output(m, split * tw, plane, split, th, tw, fast, 0, oh, ow);
            System.setProperty("gradscope.windows", "plain");
            WinogradTransforms.output(m, 0, plane, th, tw, plain, 0, oh, ow);
            System.clearProperty("gradscope.windows");
            for (int y = 0; y < oh; y++) {
                for (int x = 0; x < ow; x++) {
                    int ty = y / 2, tx = x / 2, i = y % 2, j = x % 2;
                    double sum = 0, abs = 0;
                    for (int a = 0; a < 4; a++) {
                        for (int b = 0; b < 4; b++) {
                            double term = AT[4 * i + a] * m[(4 * a + b) * plane + ty * tw + tx] * AT[4 * j + b];
                            sum += term;
                            abs += Math.abs(term);
                        }
                    }
                    String what = oh + "x" + ow + " at " + y + "," + x;
                    assertEquals(sum, fast[y * ow + x], 8 * Math.ulp((float) abs) + 1e-30, what);
                    assertEquals(plain[y * ow + x], fast[y * ow + x], 0, what);
                }
            }
        }
        assertTrue(CpuMatmul.VECTOR, "the Vector API module is present in the tests");
    }

    @Test
    void outputAdjointIsADyAtOfEachTile() {
        Random r = new Random(13);
        // {oh, ow, strided}: odd sizes read zeros past the plane's last row or column
        int[][] cases = {{56, 56, 0}, {7, 75, 0}, {28, 33, 0}, {5, 32, 1}, {9, 9, 0}, {1, 40, 0}};
        for (int[] cs : cases) {
            int n = 2, k = 3, oh = cs[0], ow = cs[1];
            int th = (oh + 1) / 2;
            int tw = (ow + 1) / 2;
            int tiles = th * tw;
            int plane = n * k * tiles + 7;
            float[] g = random(r, n * k * oh * ow);
            Tensor gt = view(g, n, k, oh, ow, cs[2] == 1);
            float[] fast = new float[16 * plane];
            float[] plain = new float[16 * plane];
            for (int img = 0; img < n; img++) {
                for (int q = 0; q < k; q++) {
                    int at = q * n * tiles + img * tiles;
                    WinogradTransforms.outputAdjoint(gt, img, q, th, tw, fast, at, plane);
                    System.setProperty("gradscope.windows", "plain");
                    WinogradTransforms.outputAdjoint(gt, img, q, th, tw, plain, at, plane);
                    System.clearProperty("gradscope.windows");
                    for (int ty = 0; ty < th; ty++) {
                        for (int tx = 0; tx < tw; tx++) {
                            for (int xi = 0; xi < 16; xi++) {
                                int a = xi / 4, b = xi % 4;
                                double sum = 0, abs = 0;
                                for (int i = 0; i < 2; i++) {
                                    for (int j = 0; j < 2; j++) {
                                        int y = 2 * ty + i, x = 2 * tx + j;
                                        double dy = y < oh && x < ow ? g[((img * k + q) * oh + y) * ow + x] : 0;
                                        double term = AT[4 * i + a] * dy * AT[4 * j + b];
                                        sum += term;
                                        abs += Math.abs(term);
                                    }
                                }
                                int o = xi * plane + at + ty * tw + tx;
                                String what = java.util.Arrays.toString(cs) + " image " + img + " channel " + q + " tile " + ty + ","
                                        + tx + " ξ " + xi;
                                assertEquals(sum, fast[o], 2 * Math.ulp((float) abs) + 1e-30, what);
                                assertEquals(plain[o], fast[o], 0, what);
                            }
                        }
                    }
                }
            }
        }
    }

    /** x [n, c, h, w], contiguous or as the transpose of a contiguous [n, c, w, h] (columns strided). */
    private static Tensor view(float[] x, int n, int c, int h, int w, boolean strided) {
        if (!strided) {
            return Tensor.of(x, n, c, h, w);
        }
        float[] t = new float[x.length];
        for (int p = 0; p < n * c; p++) {
            for (int i = 0; i < h; i++) {
                for (int j = 0; j < w; j++) {
                    t[p * h * w + j * h + i] = x[p * h * w + i * w + j];
                }
            }
        }
        return Tensor.of(t, n, c, w, h).asStrided(new int[] {n, c, h, w}, new int[] {c * h * w, h * w, 1, h}, 0);
    }
}
