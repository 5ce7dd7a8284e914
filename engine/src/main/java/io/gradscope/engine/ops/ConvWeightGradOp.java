package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * The weight gradient of a 3x3 convolution with stride 1, no dilation and one group, as an op of
 * its own: {@code dW[k, c, i, j] = Σₙ Σₒ g[n, k, o] · x[n, c, o + (i, j) − p]}, by the backend's 3x3
 * kernel (Winograd's F(2x2, 3x3) on the CPU, {@code ConvPath}), else im2col's product {@code G·unfold(x)ᵀ}
 * summed over the batch, as {@link ConvOp}'s VJP writes it. Bilinear in x and g: its VJP is the
 * convolution's input gradient with W̄ for x ({@code conv_transpose2d(g, W̄)}) and the convolution
 * itself for g ({@code conv2d(x, W̄)}), so it can be differentiated again.
 */
final class ConvWeightGradOp extends Op {
    private final int ph;
    private final int pw;

    ConvWeightGradOp(int ph, int pw) {
        this.ph = ph;
        this.pw = pw;
    }

    @Override
    public String name() {
        return "conv2d_weight_grad";
    }

    @Override
    public String label() {
        return name() + "(padding=" + (ph == pw ? String.valueOf(ph) : "(" + ph + ", " + pw + ")") + ")";
    }

    @Override
    public String rule() {
        return "x̄ = conv_transpose2d(g, W̄), ḡ = conv2d(x, W̄)";
    }

    private SlidingWindow window() {
        return new SlidingWindow(3, 3, 1, 1, ph, pw, 1, 1);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.floats(name(), dtypes, new int[] {0, 1});
        int[] x = shapes[0];
        int[] g = shapes[1];
        if (shapes.length != 2 || x.length != 4 || g.length != 4 || x[0] != g[0] || g[2] != x[2] + 2 * ph - 2
                || g[3] != x[3] + 2 * pw - 2) {
            throw new GradscopeException(name() + ": takes x [N, C, H, W] and g [N, K, H + 2ph − 2, W + 2pw − 2], not "
                    + Shapes.str(x) + " and " + (shapes.length > 1 ? Shapes.str(g) : "nothing"));
        }
        return new int[] {g[1], x[1], 3, 3};
    }

    @Override
    public long flops(int[][] inputs, int[] output) {
        return 2L * Shapes.numel(output) * Shapes.numel(inputs[1]) / Math.max(1, inputs[1][1]);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        Tensor g = in[1];
        Tensor direct = ConvPath.weightGrad(x, g, ph, pw);
        if (direct != null) {
            return direct;
        }
        int[] xs = x.shape();
        int[] gs = g.shape();
        int l = gs[2] * gs[3];
        Tensor cols = window().unfold(x, 0).viewReshape(new int[] {xs[0], xs[1] * 9, l});
        Tensor per = MatMulOp.batched(g.reshapeOrCopy(new int[] {gs[0], gs[1], l}), cols.viewTranspose(1, 2));
        Tensor dw = xs[0] == 1 ? per : Unrecorded.reduce(ReduceKind.SUM, per, new int[] {0}, false);
        return dw.viewReshape(new int[] {gs[1], xs[1], 3, 3});
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor wb) {
        Tensor x = ctx.input(0);
        Tensor g = ctx.input(1);
        int[] p = {ph, pw};
        Tensor xb = ctx.needsGrad(0)
                ? Ops.apply(new ConvTransposeOp(2, new int[] {1}, p, new int[] {0}, new int[] {1}, 1), g, wb) : null;
        Tensor gb = ctx.needsGrad(1) ? Ops.apply(new ConvOp(2, new int[] {1}, p, new int[] {1}, 1), x, wb) : null;
        return new Tensor[] {xb, gb};
    }

    @Override
    public String jvpRule() {
        return "Ẇ = conv2d_weight_grad(ẋ, g) + conv2d_weight_grad(x, ġ)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        Tensor g = ctx.input(1);
        Tensor a = t[0] == null ? null : Ops.apply(this, t[0], g);
        Tensor b = t[1] == null ? null : Ops.apply(this, x, t[1]);
        return a == null ? (b == null ? Ops.mul(Ops.apply(this, x, g), 0.0) : b) : (b == null ? a : Ops.add(a, b));
    }

    /**
     * dW[k, c, i, j] depends on x[n, c, o + (i, j) − p] and g[n, k, o] for every image n and output
     * position o whose input position lies inside x (not in the padding).
     */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] xs = shapes[0];
        int[] gs = shapes[1];
        int n = xs[0], c = xs[1], h = xs[2], w = xs[3], k = gs[1], oh = gs[2], ow = gs[3];
        Pattern.Builder b = new Pattern.Builder(k * c * 9, Dependencies.numel(shapes[input]));
        for (int co = 0; co < k; co++) {
            for (int ci = 0; ci < c; ci++) {
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        for (int s = 0; s < n; s++) {
                            for (int a = 0; a < oh; a++) {
                                int r = a + i - ph;
                                for (int e = 0; e < ow; e++) {
                                    int q = e + j - pw;
                                    if (r >= 0 && r < h && q >= 0 && q < w) {
                                        b.add(input == 0 ? ((s * c + ci) * h + r) * w + q : ((s * k + co) * oh + a) * ow + e);
                                    }
                                }
                            }
                        }
                        b.endRow();
                    }
                }
            }
        }
        return b.build();
    }
}
