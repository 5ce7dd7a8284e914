package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/** {@code x * rsqrt(mean(x²) + eps) * weight} over the last axis; the saved rsqrt is reused by the VJP. */
final class RmsNormOp extends Op {
    private final double eps;

    RmsNormOp(double eps) {
        this.eps = eps;
    }

    @Override
    public String name() {
        return "rms_norm";
    }

    @Override
    public String label() {
        return "rms_norm(eps=" + eps + ")";
    }

    @Override
    public String rule() {
        return "dx = r ⊙ (ĝ − x̂ ⊙ mean(ĝ ⊙ x̂)), ĝ = g ⊙ w; dw = Σ g ⊙ x̂";
    }

    /** x: a block per row; weight: element j of the vector for column j. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] x = shapes[0];
        return input == 0 ? Dependencies.blocks(x, new int[] {x.length - 1}) : Dependencies.lastAxis(x);
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // x̂ and rstd are saved (dx reads both, dw only x̂); the weight scales g (for dx).
        return VjpReads.of(2, false, needsGrad[0] ? new int[] {1} : new int[0]).savedOnly(needsGrad[0] || needsGrad[1], needsGrad[0]);
    }

    /** Per element of x: the mean square 2, scaling 1, the weight 1: 4. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 4 * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("rms_norm", shapes, 2);
        Checks.floats("rms_norm", dtypes, 0, 1);
        Checks.minRank("rms_norm", shapes[0], 1, "x");
        LayerNormOp.checkParam("rms_norm", "weight", shapes[0], shapes[1]);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        int[] last = {x.rank() - 1};
        Tensor ms = Unrecorded.mulScalar(Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, x, x), last, true),
                1.0 / x.shape()[x.rank() - 1]);
        Tensor rstd = Unrecorded.unary(UnaryKind.POW, -0.5, Unrecorded.binary(BinaryKind.ADD, ms, Unrecorded.scalarLike(ms, eps)));
        Tensor xhat = Unrecorded.binary(BinaryKind.MUL, x, rstd);
        ctx.save(xhat, rstd);
        return Unrecorded.binary(BinaryKind.MUL, xhat, in[1]);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor xhat = ctx.saved(0);
        Tensor rstd = ctx.saved(1);
        Tensor w = ctx.input(1);
        int[] last = {g.rank() - 1};
        if (Ops.differentiating()) {
            // Recording a graph of the gradient: the statistics from x in differentiable ops (the saved ones are constants).
            Tensor x = ctx.input(0);
            rstd = Ops.pow(Ops.add(Ops.mean(Ops.mul(x, x), last, true), eps), -0.5);
            xhat = Ops.mul(x, rstd);
        }
        Tensor dx = null;
        if (ctx.needsGrad(0)) {
            Tensor gw = Ops.mul(g, w);
            dx = Ops.mul(Ops.sub(gw, Ops.mul(xhat, Ops.mean(Ops.mul(gw, xhat), last, true))), rstd);
        }
        Tensor dw = ctx.needsGrad(1) ? Ops.sumTo(Ops.mul(g, xhat), w) : null;
        return new Tensor[] {dx, dw};
    }

    @Override
    public String jvpRule() {
        return "ẏ = w ⊙ r ⊙ (ẋ − x̂ ⊙ mean(x̂ ⊙ ẋ)) + x̂ ⊙ ẇ";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor xhat = ctx.saved(0);
        Tensor rstd = ctx.saved(1);
        int[] last = {xhat.rank() - 1};
        Tensor dxhat = Ops.mul(Ops.sub(t[0], Ops.mul(xhat, Ops.mean(Ops.mul(xhat, t[0]), last, true))), rstd);
        return Ops.add(Ops.mul(dxhat, ctx.input(1)), Ops.mul(xhat, t[1]));
    }
}
