package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.backend.BinaryKind;
import io.gradscope.engine.backend.ReduceKind;
import io.gradscope.engine.backend.UnaryKind;
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
        Tensor x = in[0];
        int[] last = {x.rank() - 1};
        double inv = 1.0 / x.shape()[x.rank() - 1];
        Tensor mu = Raw.mulScalar(Raw.reduce(ReduceKind.SUM, x, last, true), inv);
        Tensor xc = Raw.binary(BinaryKind.SUB, x, mu);
        Tensor var = Raw.mulScalar(Raw.reduce(ReduceKind.SUM, Raw.binary(BinaryKind.MUL, xc, xc), last, true), inv);
        Tensor rstd = Raw.unary(UnaryKind.POW, -0.5, Raw.binary(BinaryKind.ADD, var, Raw.scalarLike(var, eps)));
        Tensor xhat = Raw.binary(BinaryKind.MUL, xc, rstd);
        ctx.save(xhat, rstd);
        return Raw.binary(BinaryKind.ADD, Raw.binary(BinaryKind.MUL, xhat, in[1]), in[2]);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor xhat = ctx.saved(0);
        Tensor rstd = ctx.saved(1);
        Tensor w = ctx.input(1);
        int[] last = {g.rank() - 1};
        Tensor dx = null;
        if (ctx.needsGrad(0)) {
            Tensor gw = Ops.mul(g, w);
            Tensor inner = Ops.sub(Ops.sub(gw, Ops.mean(gw, last, true)), Ops.mul(xhat, Ops.mean(Ops.mul(gw, xhat), last, true)));
            dx = Ops.mul(inner, rstd);
        }
        Tensor dw = ctx.needsGrad(1) ? Ops.sumTo(Ops.mul(g, xhat), w.shape()) : null;
        Tensor db = ctx.needsGrad(2) ? Ops.sumTo(g, ctx.input(2).shape()) : null;
        return new Tensor[] {dx, dw, db};
    }
}
