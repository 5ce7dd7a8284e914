package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.layer_norm over the last axis with weight and bias. The mean is subtracted before the
 * variance is taken (two passes), so inputs with a mean of 1000 keep their precision; the
 * reciprocal standard deviation is saved and reused by the VJP.
 */
final class LayerNormOp extends Op {
    private final double eps;

    LayerNormOp(double eps) {
        this.eps = eps;
    }

    @Override
    public String name() {
        return "layer_norm";
    }

    @Override
    public String label() {
        return "layer_norm(eps=" + eps + ")";
    }

    @Override
    public String rule() {
        return "dx = r ⊙ (ĝ − mean(ĝ) − x̂ ⊙ mean(ĝ ⊙ x̂)), ĝ = g ⊙ w; dw = Σ g ⊙ x̂; db = Σ g";
    }

    /**
     * x: a block per row; weight and bias: element j of the vector for column j. With one column the
     * output is the bias alone (x − mean(x) = 0).
     */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] x = shapes[0];
        boolean wide = x[x.length - 1] >= 2;
        return switch (input) {
            case 0 -> wide ? Dependencies.blocks(x, new int[] {x.length - 1}) : Dependencies.none(x, x);
            case 1 -> wide ? Dependencies.lastAxis(x) : Dependencies.none(x, shapes[1]);
            default -> Dependencies.lastAxis(x);
        };
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // The saved tensors (the row statistics, rstd and x itself on the fused path, which recomputes x̂;
        // else x̂ and rstd) and the weight, which scales g.
        return VjpReads.of(3, false, 1);
    }

    /** Per element of x: the mean 1, centring 1, the variance 2, normalizing 1, weight and bias 2: 7. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 7 * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("layer_norm", shapes, 3);
        Checks.floats("layer_norm", dtypes, 0, 1, 2);
        Checks.minRank("layer_norm", shapes[0], 1, "x");
        checkParam("layer_norm", "weight", shapes[0], shapes[1]);
        checkParam("layer_norm", "bias", shapes[0], shapes[2]);
        return shapes[0].clone();
    }

    static void checkParam(String op, String what, int[] x, int[] p) {
        int d = x[x.length - 1];
        if (p.length != 1 || p[0] != d) {
            throw new GradscopeException(op + ": " + what + " has shape " + Shapes.str(p) + " but must be [" + d
                    + "] to match the last dimension of x " + Shapes.str(x));
        }
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0].contiguous();
        Tensor w = in[1].contiguous();
        Tensor b = in[2].contiguous();
        int[] shape = x.shape();
        int[] rs = shape.clone();
        rs[rs.length - 1] = 1;
        Tensor out = rowsOf(x, shape);
        Tensor rstd = Tensor.zeros(x.dtype(), x.device(), rs);
        int[] ss = shape.clone();
        ss[ss.length - 1] = 2;
        Tensor stats = Tensor.zeros(x.dtype(), x.device(), ss);
        if (x.backend().layerNormStats(x, w, b, eps, out, stats, rstd)) {
            // Only the row statistics are kept (and x, which the caller holds anyway when contiguous):
            // the VJP recomputes x̂, so no second tensor of x's size stays alive.
            ctx.save(stats, rstd, x);
            return out;
        }
        stats.storage().release();
        Tensor xhat = rowsOf(x, shape);
        x.backend().layerNormRows(x, w, b, eps, out, xhat, rstd);
        ctx.save(xhat, rstd);
        return out;
    }

    /**
     * A tensor for out, x̂ or dx, of {@code like}'s dtype and device. Every backend's row kernels write
     * each of its elements when there are features to normalize, so it comes uninitialized (no pass
     * zeroing a reused block first); with none, zeros.
     */
    private static Tensor rowsOf(Tensor like, int[] shape) {
        boolean written = shape.length > 0 && shape[shape.length - 1] > 0;
        return written ? Tensor.empty(like.dtype(), like.device(), shape) : Tensor.zeros(like.dtype(), like.device(), shape);
    }

    /** Whether the forward kept (stats, rstd, x) rather than (x̂, rstd). */
    private static boolean keptStats(OpContext ctx) {
        return ctx.savedTensors().size() == 3;
    }

    /** x̂ as a constant: saved, or recomputed from x and the statistics as the kernel does. */
    private static Tensor xhat(OpContext ctx) {
        if (!keptStats(ctx)) {
            return ctx.saved(0);
        }
        Tensor stats = ctx.saved(0);
        int last = stats.rank() - 1;
        Tensor x = ctx.saved(2);
        Tensor c = Unrecorded.binary(BinaryKind.SUB, Unrecorded.binary(BinaryKind.SUB, x, stats.viewNarrow(last, 0, 1)), stats.viewNarrow(last, 1, 1));
        return Unrecorded.binary(BinaryKind.MUL, c, ctx.saved(1));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor rstd = ctx.saved(1);
        Tensor w = ctx.input(1);
        if (!Ops.differentiating()) {
            Tensor dx = ctx.needsGrad(0) ? rowsOf(g, g.shape()) : null;
            Tensor dw = ctx.needsGrad(1) ? Tensor.zeros(g.dtype(), g.device(), w.shape()) : null;
            Tensor db = ctx.needsGrad(2) ? Tensor.zeros(g.dtype(), g.device(), w.shape()) : null;
            if (keptStats(ctx)) {
                g.backend().layerNormBackwardStats(g.contiguous(), ctx.saved(2), w.contiguous(), ctx.saved(0), rstd, dx, dw, db);
            } else {
                g.backend().layerNormBackwardRows(g.contiguous(), w.contiguous(), ctx.saved(0), rstd, dx, dw, db);
            }
            return new Tensor[] {dx, dw, db};
        }
        Tensor xhat;
        // Recording a graph of the gradient (for second derivatives): the same rule in differentiable ops,
        // with the statistics recomputed from x (the saved ones are constants).
        int[] last = {g.rank() - 1};
        Tensor x = ctx.input(0);
        Tensor centred = Ops.sub(x, Ops.mean(x, last, true));
        rstd = Ops.pow(Ops.add(Ops.mean(Ops.mul(centred, centred), last, true), eps), -0.5);
        xhat = Ops.mul(centred, rstd);
        Tensor dx = null;
        if (ctx.needsGrad(0)) {
            Tensor gw = Ops.mul(g, w);
            Tensor inner = Ops.sub(Ops.sub(gw, Ops.mean(gw, last, true)), Ops.mul(xhat, Ops.mean(Ops.mul(gw, xhat), last, true)));
            dx = Ops.mul(inner, rstd);
        }
        Tensor dw = ctx.needsGrad(1) ? Ops.sumTo(Ops.mul(g, xhat), w) : null;
        Tensor db = ctx.needsGrad(2) ? Ops.sumTo(g, ctx.input(2)) : null;
        return new Tensor[] {dx, dw, db};
    }

    @Override
    public String jvpRule() {
        return "ẏ = w ⊙ r ⊙ (ẋ − mean(ẋ) − x̂ ⊙ mean(x̂ ⊙ ẋ)) + x̂ ⊙ ẇ + ḃ";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor xhat = xhat(ctx);
        Tensor rstd = ctx.saved(1);
        int[] last = {xhat.rank() - 1};
        Tensor dx = t[0];
        Tensor dxhat = Ops.mul(Ops.sub(Ops.sub(dx, Ops.mean(dx, last, true)), Ops.mul(xhat, Ops.mean(Ops.mul(xhat, dx), last, true))),
                rstd);
        return Ops.add(Ops.add(Ops.mul(dxhat, ctx.input(1)), Ops.mul(xhat, t[1])), t[2]);
    }
}
