package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * F.batch_norm in inference mode: {@code y = (x − mean) / √(var + eps) · weight + bias} per channel
 * (axis 1) with the running statistics given as tensors. Every input gets its gradient, the
 * statistics included (they are constants in a model, but a program may ask).
 */
final class BatchNormOp extends Op {
    private final double eps;

    BatchNormOp(double eps) {
        this.eps = eps;
    }

    @Override
    public String name() {
        return "batch_norm";
    }

    @Override
    public String label() {
        return "batch_norm(eps=" + Param.valueText(eps) + ")";
    }

    @Override
    public String rule() {
        return "dx = g ⊙ w·r, dw = Σ g ⊙ (x − m)·r, db = Σ g, dm = −Σ g ⊙ w·r, dv = −½ Σ g ⊙ (x − m)·w·r³; r = 1/√(v + eps)";
    }

    /**
     * Elementwise in x (the diagonal); every element of channel c on element c of running_mean,
     * running_var, weight and bias. The statistics are given, not computed from the batch, so no
     * element depends on another.
     */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] x = shapes[0];
        int n = Dependencies.numel(x);
        if (input == 0) {
            return Pattern.identity(n);
        }
        int c = x[1];
        int inner = n == 0 ? 1 : n / (x[0] * c);
        int[] channel = new int[n];
        for (int e = 0; e < n; e++) {
            channel[e] = e / inner % c;
        }
        return Pattern.gather(channel, c);
    }

    /** Per element of x: subtract the mean, divide by the deviation, the weight, the bias: 4. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 4 * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("batch_norm", shapes, 5);
        Checks.floats("batch_norm", dtypes, 0, 1, 2, 3, 4);
        int[] x = shapes[0];
        if (x.length < 2) {
            throw new GradscopeException("batch_norm: x must be [N, C, ...], not shape " + Shapes.str(x));
        }
        String[] what = {"running_mean", "running_var", "weight", "bias"};
        for (int i = 1; i < 5; i++) {
            if (shapes[i].length != 1 || shapes[i][0] != x[1]) {
                throw new GradscopeException("batch_norm: " + what[i - 1] + " has shape " + Shapes.str(shapes[i]) + " but must be ["
                        + x[1] + "], one per channel of x " + Shapes.str(x));
            }
        }
        return x.clone();
    }

    /** A per-channel vector viewed to broadcast against x along axis 1: {@code [C, 1, ..., 1]}. */
    private static Tensor channels(Tensor v, int rank) {
        int[] shape = new int[rank - 1];
        int[] strides = new int[rank - 1];
        java.util.Arrays.fill(shape, 1);
        shape[0] = v.shape()[0];
        strides[0] = v.strides()[0];
        return v.asStrided(shape, strides, v.offset());
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        int r = in[0].rank();
        Tensor rstd = Unrecorded.binary(BinaryKind.DIV, Unrecorded.scalarLike(in[0], 1),
                Unrecorded.unary(UnaryKind.SQRT, Unrecorded.binary(BinaryKind.ADD, in[2], Unrecorded.scalarLike(in[0], eps))));
        // As PyTorch's CPU kernel: y = x·α + β with α = w·r and β = b − m·α per channel.
        Tensor alpha = Unrecorded.binary(BinaryKind.MUL, rstd, in[3]);
        Tensor beta = Unrecorded.binary(BinaryKind.SUB, in[4], Unrecorded.binary(BinaryKind.MUL, in[1], alpha));
        Tensor x = in[0];
        if (x.numel() > 0) {
            // one pass where the backend has the kernel (float32 contiguous on the CPU), the same products
            Tensor out = Tensor.empty(x.dtype(), x.device(), x.shape());
            if (x.backend().channelAffine(x, alpha.contiguous(), beta.contiguous(), out)) {
                return out;
            }
            out.storage().release();
        }
        return Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.MUL, in[0], channels(alpha, r)), channels(beta, r));
    }

    @Override
    public String jvpRule() {
        return "ẏ = ((ẋ − ṁ)·w + (x − m)·ẇ)·r − ½(x − m)·w·r³·v̇ + ḃ, r = 1/√(v + eps)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        int[] bshape = new int[x.rank() - 1];
        java.util.Arrays.fill(bshape, 1);
        bshape[0] = x.shape()[1];
        Tensor r = Ops.reshape(Ops.pow(Ops.add(ctx.input(2), eps), -0.5), bshape);
        Tensor w = Ops.reshape(ctx.input(3), bshape);
        Tensor centred = Ops.sub(x, Ops.reshape(ctx.input(1), bshape));
        Tensor lin = Ops.mul(Ops.add(Ops.mul(Ops.sub(t[0], Ops.reshape(t[1], bshape)), w), Ops.mul(centred, Ops.reshape(t[3], bshape))), r);
        Tensor dr = Ops.mul(Ops.mul(Ops.mul(centred, w), Ops.mul(Ops.mul(r, r), r)), Ops.reshape(t[2], bshape));
        return Ops.add(Ops.sub(lin, Ops.mul(dr, 0.5)), Ops.reshape(t[4], bshape));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor[] fused = Ops.differentiating() ? null : fusedVjp(ctx, g);
        if (fused != null) {
            return fused;
        }
        Tensor x = ctx.input(0);
        int r = x.rank();
        int c = x.shape()[1];
        int[] bshape = new int[r - 1];
        java.util.Arrays.fill(bshape, 1);
        bshape[0] = c;
        int[] notChannel = new int[r - 1];
        notChannel[0] = 0;
        for (int i = 2; i < r; i++) {
            notChannel[i - 1] = i;
        }
        Tensor rstd = Ops.pow(Ops.add(ctx.input(2), eps), -0.5);
        Tensor w = ctx.input(3);
        Tensor rb = Ops.reshape(rstd, bshape);
        Tensor wb = Ops.reshape(w, bshape);
        Tensor centred = ctx.needsGrad(2) || ctx.needsGrad(3) ? Ops.sub(x, Ops.reshape(ctx.input(1), bshape)) : null;
        Tensor gsum = ctx.needsGrad(1) || ctx.needsGrad(4) ? Ops.sum(g, notChannel, false) : null;
        Tensor dx = ctx.needsGrad(0) ? Ops.mul(g, Ops.mul(rb, wb)) : null;
        Tensor dm = ctx.needsGrad(1) ? Ops.neg(Ops.mul(gsum, Ops.mul(rstd, w))) : null;
        Tensor dv = null;
        if (ctx.needsGrad(2)) {
            Tensor s = Ops.sum(Ops.mul(g, Ops.mul(centred, wb)), notChannel, false);
            dv = Ops.mul(Ops.mul(s, Ops.pow(rstd, 3)), -0.5);
        }
        Tensor dw = ctx.needsGrad(3) ? Ops.sum(Ops.mul(g, Ops.mul(centred, rb)), notChannel, false) : null;
        return new Tensor[] {dx, dm, dv, dw, ctx.needsGrad(4) ? gsum : null};
    }

    /**
     * The VJP in two passes over x's size where the backend has the kernels (float32 contiguous on the
     * CPU): dx = g·(w·r)[c], and Σ g and Σ g·(x − m) per channel together; the rest is per channel.
     * Null where it has not (nothing written).
     */
    private Tensor[] fusedVjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        if (x.numel() == 0) {
            return null;
        }
        int c = x.shape()[1];
        Tensor rstd = Ops.pow(Ops.add(ctx.input(2), eps), -0.5);
        Tensor w = ctx.input(3);
        Tensor rw = Ops.mul(rstd, w).contiguous();
        Tensor gc = g.contiguous();
        Tensor dx = null;
        if (ctx.needsGrad(0)) {
            dx = Tensor.empty(g.dtype(), g.device(), g.shape());
            if (!g.backend().channelAffine(gc, rw, null, dx)) {
                dx.storage().release();
                return null;
            }
        }
        Tensor gsum = null;
        Tensor gxc = null;
        if (ctx.needsGrad(1) || ctx.needsGrad(2) || ctx.needsGrad(3) || ctx.needsGrad(4)) {
            gsum = Tensor.zeros(x.dtype(), x.device(), c);
            gxc = Tensor.zeros(x.dtype(), x.device(), c);
            if (!x.backend().channelSums(gc, x.contiguous(), ctx.input(1).contiguous(), gsum, gxc)) {
                return null;
            }
        }
        Tensor dm = ctx.needsGrad(1) ? Ops.neg(Ops.mul(gsum, rw)) : null;
        Tensor dv = ctx.needsGrad(2) ? Ops.mul(Ops.mul(gxc, Ops.mul(w, Ops.pow(rstd, 3))), -0.5) : null;
        Tensor dw = ctx.needsGrad(3) ? Ops.mul(gxc, rstd) : null;
        return new Tensor[] {dx, dm, dv, dw, ctx.needsGrad(4) ? gsum : null};
    }
}
