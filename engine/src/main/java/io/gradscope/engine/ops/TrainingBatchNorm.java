package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.Tensor;

/**
 * batch_norm in training mode on the backend's per-channel kernels where it has them (float32
 * contiguous on the CPU): the forward in three passes over x (the mean, the variance about it, the
 * affine map {@code x·α + β} with {@code α = w·r}, {@code β = b − m·α}, as PyTorch's CPU kernel),
 * saving the batch's mean and {@code r = 1/√(var + eps)}; the backward in two (the sums
 * {@code Σ g} and {@code Σ g·(x − m)} per channel, then the input gradient). {@link StatNormOp}
 * composes ops where these answer null.
 */
final class TrainingBatchNorm {
    private TrainingBatchNorm() {
    }

    /** The output, with the mean and r ({@code [C]}) saved in ctx; null (nothing saved) where the backend has no kernels. */
    static Tensor forward(OpContext ctx, Tensor input, Tensor w, Tensor b, double eps) {
        if (input.numel() == 0 || input.rank() < 2) {
            return null;
        }
        // a strided x is copied, so that its results are bit for bit those of the same values laid out in order
        Tensor x = input.contiguous();
        int c = x.shape()[1];
        Tensor mean = Tensor.empty(x.dtype(), x.device(), c);
        Tensor rstd = Tensor.empty(x.dtype(), x.device(), c);
        if (!x.backend().channelStats(x, eps, mean, rstd)) {
            mean.storage().release();
            rstd.storage().release();
            return null;
        }
        Tensor alpha = w == null ? rstd : Unrecorded.binary(BinaryKind.MUL, rstd, w);
        Tensor shift = Unrecorded.binary(BinaryKind.MUL, mean, alpha);
        Tensor beta = b == null ? Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(shift, 0), shift) : Unrecorded.binary(BinaryKind.SUB, b, shift);
        Tensor out = Tensor.empty(x.dtype(), x.device(), x.shape());
        if (!x.backend().channelAffine(x, alpha, beta, out)) {
            out.storage().release();
            return null;
        }
        ctx.save(mean, rstd);
        return out;
    }

    /**
     * The gradients of x, the weight and the bias (each null where not needed) from the forward's
     * saved mean and r; null where the forward composed its ops (nothing saved) or the backend has
     * no kernels. With x̂ = (x − m)·r and n values per channel: {@code dw = Σ g·x̂ = r·Σ g·(x − m)},
     * {@code db = Σ g}, {@code dx = w·r·(g − Σg/n − (x − m)·r²·Σ g·(x − m)/n)}.
     */
    static Tensor[] vjp(OpContext ctx, Tensor g, Tensor w, boolean needX, boolean needW, boolean needB) {
        if (ctx.savedTensors().size() != 2) {
            return null;
        }
        Tensor x = ctx.input(0).contiguous();
        Tensor mean = ctx.saved(0);
        Tensor rstd = ctx.saved(1);
        int c = x.shape()[1];
        Tensor gc = g.contiguous();
        Tensor gsum = Tensor.zeros(x.dtype(), x.device(), c);
        Tensor gxc = Tensor.zeros(x.dtype(), x.device(), c);
        if (!x.backend().channelSums(gc, x, mean, gsum, gxc)) {
            return null;
        }
        Tensor dx = null;
        if (needX) {
            double inv = (double) c / x.numel();
            Tensor a = w == null ? rstd : Unrecorded.binary(BinaryKind.MUL, rstd, w);
            Tensor gmean = Unrecorded.mulScalar(gsum, inv);
            Tensor k = Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.MUL, rstd, rstd), gxc), inv);
            dx = Tensor.empty(x.dtype(), x.device(), x.shape());
            if (!x.backend().channelNormGrad(gc, x, a, gmean, mean, k, dx)) {
                dx.storage().release();
                return null;
            }
        }
        Tensor dw = needW ? Unrecorded.binary(BinaryKind.MUL, rstd, gxc) : null;
        return new Tensor[] {dx, dw, needB ? gsum : null};
    }
}
