package io.gradscope.engine.backend.cpu;

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

    /**
     * {@code V[ξ, c, t] = (Bᵀ d B)[ξ]} for the tiles t of image {@code n}, channel {@code c}: d the
     * 4x4 block of x at rows {@code 2·ty − ph ...}, columns {@code 2·tx − pw ...}, zero outside x.
     */
    static void input(Tensor x, int n, int c, int ph, int pw, int th, int tw, int tiles, float[] v, int vo) {
        int[] s = x.shape();
        int[] st = x.strides();
        int ch = s[1];
        int h = s[2];
        int w = s[3];
        int rs = st[2];
        int cs = st[3];
        float[] xf = x.storage().floats();
        int base = x.offset() + n * st[0] + c * st[1];
        int plane = ch * tiles; // the distance between two positions ξ
        float[] d = new float[16];
        int t = vo + c * tiles + n * th * tw;
        for (int ty = 0; ty < th; ty++) {
            int r0 = 2 * ty - ph;
            boolean rowsInside = r0 >= 0 && r0 + 3 < h;
            for (int tx = 0; tx < tw; tx++, t++) {
                int c0 = 2 * tx - pw;
                if (rowsInside && c0 >= 0 && c0 + 3 < w) {
                    int at = base + r0 * rs + c0 * cs;
                    for (int i = 0; i < 4; i++, at += rs) {
                        d[4 * i] = xf[at];
                        d[4 * i + 1] = xf[at + cs];
                        d[4 * i + 2] = xf[at + 2 * cs];
                        d[4 * i + 3] = xf[at + 3 * cs];
                    }
                } else {
                    for (int i = 0; i < 4; i++) {
                        int r = r0 + i;
                        for (int j = 0; j < 4; j++) {
                            int col = c0 + j;
                            d[4 * i + j] = r < 0 || r >= h || col < 0 || col >= w ? 0f : xf[base + r * rs + col * cs];
                        }
                    }
                }
                // Bᵀ d: rows
                for (int j = 0; j < 4; j++) {
                    float a0 = d[j];
                    float a1 = d[4 + j];
                    float a2 = d[8 + j];
                    float a3 = d[12 + j];
                    d[j] = a0 - a2;
                    d[4 + j] = a1 + a2;
                    d[8 + j] = a2 - a1;
                    d[12 + j] = a1 - a3;
                }
                // (Bᵀ d) B: columns, stored at ξ = 4i + j
                for (int i = 0; i < 4; i++) {
                    float a0 = d[4 * i];
                    float a1 = d[4 * i + 1];
                    float a2 = d[4 * i + 2];
                    float a3 = d[4 * i + 3];
                    int o = t + 4 * i * plane;
                    v[o] = a0 - a2;
                    v[o + plane] = a1 + a2;
                    v[o + 2 * plane] = a2 - a1;
                    v[o + 3 * plane] = a1 - a3;
                }
            }
        }
    }

    /**
     * {@code U[ξ, k, c] = (G g Gᵀ)[ξ]} for every c of output channel {@code k}; g is {@code w[k, c]},
     * or with {@code transposed} {@code w[c, k]} flipped in both axes.
     */
    static void weight(Tensor w, boolean transposed, int k, int kk, int cc, float[] u, int uo) {
        int[] st = w.strides();
        float[] wf = w.storage().floats();
        int plane = kk * cc;
        float[] g = new float[9];
        float[] t = new float[12];
        for (int c = 0; c < cc; c++) {
            if (transposed) {
                int at = w.offset() + c * st[0] + k * st[1];
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        g[3 * (2 - i) + 2 - j] = wf[at + i * st[2] + j * st[3]];
                    }
                }
            } else {
                int at = w.offset() + k * st[0] + c * st[1];
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        g[3 * i + j] = wf[at + i * st[2] + j * st[3]];
                    }
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
                int o = uo + k * cc + c + 4 * i * plane;
                u[o] = a0;
                u[o + plane] = 0.5f * (a0 + a1 + a2);
                u[o + 2 * plane] = 0.5f * (a0 - a1 + a2);
                u[o + 3 * plane] = a2;
            }
        }
    }

    /**
     * The output plane of image {@code n}, channel {@code k} (contiguous {@code oh × ow} at yo): each
     * tile's {@code Aᵀ m A} from {@code M[ξ, k, t]}, the last row or column dropped where the output
     * is odd.
     */
    static void output(float[] m, int mo, int n, int k, int kk, int th, int tw, int tiles, float[] y, int yo, int oh, int ow) {
        int plane = kk * tiles;
        int t = mo + k * tiles + n * th * tw;
        float[] r = new float[8];
        for (int ty = 0; ty < th; ty++) {
            for (int tx = 0; tx < tw; tx++, t++) {
                // Aᵀ m: 2 rows of 4
                for (int j = 0; j < 4; j++) {
                    float m0 = m[t + j * plane];
                    float m1 = m[t + (4 + j) * plane];
                    float m2 = m[t + (8 + j) * plane];
                    float m3 = m[t + (12 + j) * plane];
                    r[j] = m0 + m1 + m2;
                    r[4 + j] = m1 - m2 - m3;
                }
                int row = 2 * ty;
                int col = 2 * tx;
                for (int i = 0; i < 2 && row + i < oh; i++) {
                    int o = yo + (row + i) * ow + col;
                    y[o] = r[4 * i] + r[4 * i + 1] + r[4 * i + 2];
                    if (col + 1 < ow) {
                        y[o + 1] = r[4 * i + 1] - r[4 * i + 2] - r[4 * i + 3];
                    }
                }
            }
        }
    }
}
