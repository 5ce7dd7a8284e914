package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.Tensor;

/**
 * The three transforms of {@link WinogradConv}'s F(2x2, 3x3), one plane (or filter) at a time:
 * <pre>
 *   Bᵀ = [1  0 −1  0]     G = [ 1    0    0 ]     Aᵀ = [1  1  1  0]
 *        [0  1  1  0]         [1/2  1/2  1/2]          [0  1 −1 −1]
 *        [0 −1  1  0]         [1/2 −1/2  1/2]
 *        [0  1  0 −1]         [ 0    0    1 ]
 * </pre>
 * The transformed arrays are {@code [16, rows, cols]}: position ξ = 4a + b of the 4x4 block first,
 * so that each ξ's matrix is one contiguous operand of its product.
 */
final class WinogradTransforms {
    private WinogradTransforms() {
    }

    /** Per thread: the column transforms of a plane's rows, or an output tile row's half transform. */
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[1][0]);

    private static float[] scratch(int n) {
        float[][] s = SCRATCH.get();
        if (s[0].length < n) {
            s[0] = new float[n];
        }
        return s[0];
    }

    /**
     * {@code (Bᵀ d B)[ξ]} for the tiles of image {@code n}, channel {@code c}, written at {@code vo +
     * ξ·plane + tile} (tiles row by row): d the 4x4 block of x at rows {@code 2·ty − ph ...}, columns
     * {@code 2·tx − pw ...}, zero outside x. Each row's half of the transform ({@code d B}, its four
     * columns for every tile) is computed once, over a row of tiles at a time, and shared by the two
     * tile rows that read that row; the other half is four rows' sums, a row of tiles at a time.
     */
    static void input(Tensor x, int n, int c, int ph, int pw, int th, int tw, float[] v, int vo, int plane) {
        input(x, n, c, ph, pw, 0, th, tw, v, vo, plane);
    }

    /** {@link #input} for the tile rows {@code ty0 ≤ ty < ty1} only, the first of them at vo. */
    static void input(Tensor x, int n, int c, int ph, int pw, int ty0, int ty1, int tw, float[] v, int vo, int plane) {
        boolean vec = CpuMatmul.VECTOR && tw >= VectorTransforms.LANES && Im2colKernels.fast();
        int th = ty1 - ty0;
        int[] s = x.shape();
        int[] st = x.strides();
        int h = s[2];
        int w = s[3];
        int rs = st[2];
        int cs = st[3];
        float[] xf = x.storage().floats();
        int base = x.offset() + n * st[0] + c * st[1];
        int rows = 2 * th + 2;
        int per = rows * tw;
        float[] e = scratch(4 * per + 2 * (tw + 1));
        int ev = 4 * per;
        int od = ev + tw + 1;
        for (int rr = 0; rr < rows; rr++) {
            int r = rr + 2 * ty0 - ph;
            int at = rr * tw;
            if (r < 0 || r >= h) {
                for (int b = 0; b < 4; b++) {
                    java.util.Arrays.fill(e, b * per + at, b * per + at + tw, 0f);
                }
                continue;
            }
            evenOdd(xf, base + r * rs, cs, w, pw, tw, e, ev, od, vec);
            if (vec) {
                VectorTransforms.rowHalves(e, ev, od, at, per, tw);
                continue;
            }
            for (int tx = 0; tx < tw; tx++) {
                float d0 = e[ev + tx];
                float d1 = e[od + tx];
                float d2 = e[ev + tx + 1];
                float d3 = e[od + tx + 1];
                e[at + tx] = d0 - d2;
                e[per + at + tx] = d1 + d2;
                e[2 * per + at + tx] = d2 - d1;
                e[3 * per + at + tx] = d1 - d3;
            }
        }
        for (int ty = 0; ty < th; ty++) {
            int t = vo + ty * tw;
            for (int b = 0; b < 4; b++) {
                int r0 = b * per + 2 * ty * tw;
                int r1 = r0 + tw;
                int r2 = r1 + tw;
                int r3 = r2 + tw;
                int o0 = t + b * plane;
                int o1 = o0 + 4 * plane;
                int o2 = o1 + 4 * plane;
                int o3 = o2 + 4 * plane;
                if (vec) {
                    VectorTransforms.tileColumns(e, r0, tw, v, o0, plane);
                    continue;
                }
                for (int tx = 0; tx < tw; tx++) {
                    float a1 = e[r1 + tx];
                    float a2 = e[r2 + tx];
                    v[o0 + tx] = e[r0 + tx] - a2;
                    v[o1 + tx] = a1 + a2;
                    v[o2 + tx] = a2 - a1;
                    v[o3 + tx] = a1 - e[r3 + tx];
                }
            }
        }
    }

    /**
     * A row's even and odd padded columns, {@code x[2q − pw]} and {@code x[2q + 1 − pw]} for q ≤ tw
     * (zero outside x), at ev and od; with {@code inside} and contiguous columns, the part where both
     * lie inside x is copied without bounds tests (the same values).
     */
    private static void evenOdd(float[] xf, int row, int cs, int w, int pw, int tw, float[] e, int ev, int od, boolean inside) {
        int lo = 0;
        int hi = 0;
        if (inside && cs == 1) {
            lo = Math.min(tw + 1, (pw + 1) / 2);
            hi = Math.max(lo, Math.min(tw + 1, (w + pw) / 2));
            for (int q = lo, src = row + 2 * lo - pw; q < hi; q++, src += 2) {
                e[ev + q] = xf[src];
                e[od + q] = xf[src + 1];
            }
        }
        for (int q = 0; q <= tw; q++) {
            if (q == lo && hi > lo) {
                q = hi - 1;
                continue;
            }
            int col = 2 * q - pw;
            e[ev + q] = col >= 0 && col < w ? xf[row + col * cs] : 0f;
            e[od + q] = col + 1 >= 0 && col + 1 < w ? xf[row + (col + 1) * cs] : 0f;
        }
    }

    /**
     * {@code (G g Gᵀ)[ξ]} for every filter g of row {@code r} of the weight {@code w [R, S, 3, 3]},
     * written at {@code uo + ξ·plane + s}: g is {@code w[r, s]}, flipped in both axes with {@code
     * flipped} (conv_transpose's correlation).
     */
    static void weight(Tensor w, boolean flipped, int r, float[] u, int uo, int plane) {
        int[] st = w.strides();
        int cols = w.shape()[1];
        float[] wf = w.storage().floats();
        float[] g = new float[9];
        float[] t = new float[12];
        for (int s = 0; s < cols; s++) {
            int at = w.offset() + r * st[0] + s * st[1];
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    g[flipped ? 8 - 3 * i - j : 3 * i + j] = wf[at + i * st[2] + j * st[3]];
                }
            }
            // G g: 4 rows of 3
            for (int j = 0; j < 3; j++) {
                float a0 = g[j];
                float a1 = g[3 + j];
                float a2 = g[6 + j];
                t[j] = a0;
                t[3 + j] = 0.5f * (a0 + a1 + a2);
                t[6 + j] = 0.5f * (a0 - a1 + a2);
                t[9 + j] = a2;
            }
            // (G g) Gᵀ: 4 columns per row, stored at ξ = 4i + j
            for (int i = 0; i < 4; i++) {
                float a0 = t[3 * i];
                float a1 = t[3 * i + 1];
                float a2 = t[3 * i + 2];
                int o = uo + s + 4 * i * plane;
                u[o] = a0;
                u[o + plane] = 0.5f * (a0 + a1 + a2);
                u[o + 2 * plane] = 0.5f * (a0 - a1 + a2);
                u[o + 3 * plane] = a2;
            }
        }
    }

    /**
     * One output plane (contiguous {@code oh × ow} at yo): each tile's {@code Aᵀ m A}, m read at {@code
     * mo + ξ·plane + tile}, a row of tiles at a time, the last row or column dropped where the output
     * is odd.
     */
    static void output(float[] m, int mo, int plane, int th, int tw, float[] y, int yo, int oh, int ow) {
        output(m, mo, plane, 0, th, tw, y, yo, oh, ow);
    }

    /** {@link #output} for the tile rows {@code ty0 ≤ ty < ty1} only, the first of them at mo. */
    static void output(float[] m, int mo, int plane, int ty0, int ty1, int tw, float[] y, int yo, int oh, int ow) {
        boolean vec = CpuMatmul.VECTOR && tw >= VectorTransforms.LANES && Im2colKernels.fast();
        float[] r = scratch(8 * tw);
        for (int ty = ty0; ty < ty1; ty++) {
            int t = mo + (ty - ty0) * tw;
            // Aᵀ m: two rows of four columns, for every tile of the row
            for (int b = 0; b < 4; b++) {
                int m0 = t + b * plane;
                int m1 = m0 + 4 * plane;
                int m2 = m1 + 4 * plane;
                int m3 = m2 + 4 * plane;
                int q0 = b * tw;
                int q1 = (4 + b) * tw;
                if (vec) {
                    VectorTransforms.columnHalves(m, m0, plane, r, q0, q1, tw);
                    continue;
                }
                for (int tx = 0; tx < tw; tx++) {
                    float a1 = m[m1 + tx];
                    float a2 = m[m2 + tx];
                    r[q0 + tx] = m[m0 + tx] + a1 + a2;
                    r[q1 + tx] = a1 - a2 - m[m3 + tx];
                }
            }
            for (int i = 0; i < 2 && 2 * ty + i < oh; i++) {
                int o = yo + (2 * ty + i) * ow;
                int q = 4 * i * tw;
                int full = ow / 2;
                for (int tx = 0; tx < full; tx++) {
                    float a1 = r[q + tw + tx];
                    float a2 = r[q + 2 * tw + tx];
                    y[o + 2 * tx] = r[q + tx] + a1 + a2;
                    y[o + 2 * tx + 1] = a1 - a2 - r[q + 3 * tw + tx];
                }
                if (full < tw) {
                    y[o + 2 * full] = r[q + full] + r[q + tw + full] + r[q + 2 * tw + full];
                }
            }
        }
    }

    /**
     * The adjoint of {@link #output} for one plane of g (image {@code n}, channel {@code k}, any
     * strides): each tile's {@code A dy Aᵀ} (dy its 2x2 block of g, zero past the plane's end), written
     * at {@code d[dO + ξ·plane + tile]}.
     */
    static void outputAdjoint(Tensor g, int n, int k, int th, int tw, float[] d, int dO, int plane) {
        int[] s = g.shape();
        int[] st = g.strides();
        int oh = s[2];
        int ow = s[3];
        float[] gf = g.storage().floats();
        int base = g.offset() + n * st[0] + k * st[1];
        if (CpuMatmul.VECTOR && tw >= VectorTransforms.LANES && st[3] == 1 && Im2colKernels.fast()) {
            // a row of tiles at a time: g's two rows split into even and odd columns (zero past the plane)
            float[] e = scratch(4 * tw);
            for (int ty = 0; ty < th; ty++) {
                int r = 2 * ty;
                int row = base + r * st[2];
                for (int tx = 0; tx < tw; tx++) {
                    int col = 2 * tx;
                    boolean right = col + 1 < ow;
                    boolean down = r + 1 < oh;
                    e[tx] = gf[row + col];
                    e[tw + tx] = right ? gf[row + col + 1] : 0f;
                    e[2 * tw + tx] = down ? gf[row + st[2] + col] : 0f;
                    e[3 * tw + tx] = right && down ? gf[row + st[2] + col + 1] : 0f;
                }
                VectorTransforms.adjointRow(e, tw, d, dO + ty * tw, plane);
            }
            return;
        }
        int t = dO;
        for (int ty = 0; ty < th; ty++) {
            int r = 2 * ty;
            for (int tx = 0; tx < tw; tx++, t++) {
                int col = 2 * tx;
                int at = base + r * st[2] + col * st[3];
                boolean right = col + 1 < ow;
                boolean down = r + 1 < oh;
                float y00 = gf[at];
                float y01 = right ? gf[at + st[3]] : 0f;
                float y10 = down ? gf[at + st[2]] : 0f;
                float y11 = right && down ? gf[at + st[2] + st[3]] : 0f;
                // A dy: four rows of two, A = [1 0; 1 1; 1 −1; 0 −1]; then each row times Aᵀ
                put(d, t, plane, y00, y01);
                put(d, t + 4 * plane, plane, y00 + y10, y01 + y11);
                put(d, t + 8 * plane, plane, y00 - y10, y01 - y11);
                put(d, t + 12 * plane, plane, -y10, -y11);
            }
        }
    }

    /** One row (p, q) of {@code A dy} times Aᵀ: the four values p, p + q, p − q, −q, a plane apart. */
    private static void put(float[] d, int o, int plane, float p, float q) {
        d[o] = p;
        d[o + plane] = p + q;
        d[o + 2 * plane] = p - q;
        d[o + 3 * plane] = -q;
    }

    /**
     * The adjoint of {@link #weight} for one row k: {@code dW[k, s] = Gᵀ dU G} for every column s,
     * dU read at {@code u[uo + ξ·plane + s]}, the 3x3 result written at {@code dw[dwo + 9s ...]}.
     */
    static void weightAdjoint(float[] u, int uo, int plane, int cols, float[] dw, int dwo) {
        float[] r = new float[12];
        for (int s = 0; s < cols; s++) {
            // Gᵀ dU: three rows of four, Gᵀ = [1 ½ ½ 0; 0 ½ −½ 0; 0 ½ ½ 1]
            for (int b = 0; b < 4; b++) {
                float u0 = u[uo + s + b * plane];
                float u1 = u[uo + s + (4 + b) * plane];
                float u2 = u[uo + s + (8 + b) * plane];
                float u3 = u[uo + s + (12 + b) * plane];
                r[b] = u0 + 0.5f * (u1 + u2);
                r[4 + b] = 0.5f * (u1 - u2);
                r[8 + b] = 0.5f * (u1 + u2) + u3;
            }
            // (Gᵀ dU) G
            int o = dwo + 9 * s;
            for (int i = 0; i < 3; i++) {
                float p0 = r[4 * i];
                float p1 = r[4 * i + 1];
                float p2 = r[4 * i + 2];
                float p3 = r[4 * i + 3];
                dw[o + 3 * i] = p0 + 0.5f * (p1 + p2);
                dw[o + 3 * i + 1] = 0.5f * (p1 - p2);
                dw[o + 3 * i + 2] = 0.5f * (p1 + p2) + p3;
            }
        }
    }
}
