package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * Normalisation by the statistics of the input itself, then a per-channel affine map: F.group_norm
 * (over each group of channels and the spatial axes) and F.batch_norm in training mode (over the
 * batch and the spatial axes of each channel; biased variance, as PyTorch normalises). x is
 * {@code [N, C, ...]}, seen as {@code [N, G, M]} (group) or {@code [N, C, M]} (batch). The running
 * statistics batch_norm takes are not used for the output, and their update is not part of the op.
 */
final class StatNormOp extends Op {
    private final int groups;
    private final double eps;
    private final boolean batch;
    private final String label;

    /** groups > 0: group_norm; 0: batch_norm in training mode. */
    StatNormOp(int groups, double eps, String label) {
        this.groups = groups;
        this.eps = eps;
        this.batch = groups == 0;
        this.label = label;
    }

    @Override
    public String name() {
        return batch ? "batch_norm" : "group_norm";
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String rule() {
        return "dx = rstd ⊙ (ĝ − mean(ĝ) − x̂ ⊙ mean(ĝ ⊙ x̂)), ĝ = g ⊙ w; dw = Σ g ⊙ x̂; db = Σ g";
    }

    /** Index of the weight and bias among the inputs (batch_norm has the running statistics first). */
    private int weightAt() {
        return batch ? 3 : 1;
    }

    /** Per element of x, as layer_norm: the mean 1, centring 1, the variance 2, normalizing 1, weight and bias 2: 7. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 7 * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        int[] x = shapes[0];
        if (x.length < 2) {
            throw new GradscopeException(name() + ": x must be [N, C, ...], not shape " + Shapes.str(x));
        }
        int c = x[1];
        for (int i = 0; i < dtypes.length; i++) {
            Checks.floats(name(), dtypes, i);
        }
        for (int i = 1; i < shapes.length; i++) {
            if (shapes[i].length != 1 || shapes[i][0] != c) {
                throw new GradscopeException(name() + ": the per-channel tensors must be [" + c + "], not " + Shapes.str(shapes[i]));
            }
        }
        if (!batch && c % groups != 0) {
            throw new GradscopeException("group_norm: " + c + " channels do not split into " + groups + " groups");
        }
        if (batch && Shapes.numel(x) / c <= 1) {
            throw new GradscopeException("batch_norm: training needs more than one value per channel, not shape " + Shapes.str(x));
        }
        return x.clone();
    }

    /** x as [N, G, M] or [N, C, M]. */
    private int[] view(int[] x) {
        int n = x[0];
        int g = batch ? x[1] : groups;
        long m = Shapes.numel(x) / Math.max(1, (long) n * g);
        return new int[] {n, g, (int) m};
    }

    private int[] reduced() {
        return batch ? new int[] {0, 2} : new int[] {2};
    }

    /** w or b as [1, C, 1, ...] to broadcast over x. */
    private static int[] channelShape(int rank, int c) {
        int[] s = new int[rank];
        java.util.Arrays.fill(s, 1);
        s[1] = c;
        return s;
    }

    private Tensor weight(Tensor[] in) {
        return in.length > weightAt() ? in[weightAt()] : null;
    }

    private Tensor bias(Tensor[] in) {
        return in.length > weightAt() + 1 ? in[weightAt() + 1] : null;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        outputShape(Dependencies.shapes(new OpContext(in)), java.util.Arrays.stream(in).map(Tensor::dtype).toArray(DType[]::new));
        Tensor fused = batch ? TrainingBatchNorm.forward(ctx, x, weight(in), bias(in), eps) : null;
        if (fused != null) {
            return fused;
        }
        int[] v = view(x.shape());
        Tensor xv = x.reshapeOrCopy(v);
        double count = ReduceOp.count(v, reduced());
        Tensor mean = Unrecorded.mulScalar(Unrecorded.reduce(ReduceKind.SUM, xv, reduced(), true), 1 / count);
        Tensor xc = Unrecorded.binary(BinaryKind.SUB, xv, mean);
        Tensor var = Unrecorded.mulScalar(Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, xc, xc), reduced(), true), 1 / count);
        Tensor rstd = Unrecorded.binary(BinaryKind.DIV, Unrecorded.scalarLike(x, 1),
                Unrecorded.unary(UnaryKind.SQRT, Unrecorded.binary(BinaryKind.ADD, var, Unrecorded.scalarLike(x, eps))));
        Tensor y = Unrecorded.binary(BinaryKind.MUL, xc, rstd).viewReshape(x.shape());
        int[] cs = channelShape(x.rank(), x.shape()[1]);
        Tensor w = weight(in);
        Tensor b = bias(in);
        if (w != null) {
            y = Unrecorded.binary(BinaryKind.MUL, y, w.reshapeOrCopy(cs));
        }
        if (b != null) {
            y = Unrecorded.binary(BinaryKind.ADD, y, b.reshapeOrCopy(cs));
        }
        return y;
    }

    /** x̂ and rstd in the [N, G|C, M] view, differentiable. */
    private Tensor[] normalised(Tensor x) {
        int[] v = view(x.shape());
        Tensor xv = Ops.reshape(x, v);
        Tensor xc = Ops.sub(xv, Ops.mean(xv, reduced(), true));
        Tensor var = Ops.mean(Ops.mul(xc, xc), reduced(), true);
        Tensor rstd = Ops.div(Ops.constant(1, x), Ops.sqrt(Ops.add(var, eps)));
        return new Tensor[] {Ops.mul(xc, rstd), rstd};
    }

    /** rstd ⊙ (u − mean(u) − x̂ ⊙ mean(u ⊙ x̂)) over the reduced axes: the normalisation's own VJP (and JVP). */
    private Tensor throughNorm(Tensor u, Tensor xhat, Tensor rstd) {
        Tensor centred = Ops.sub(u, Ops.mean(u, reduced(), true));
        return Ops.mul(rstd, Ops.sub(centred, Ops.mul(xhat, Ops.mean(Ops.mul(u, xhat), reduced(), true))));
    }

    private int[] allButChannel(int rank) {
        int[] ax = new int[rank - 1];
        for (int i = 0, k = 0; i < rank; i++) {
            if (i != 1) {
                ax[k++] = i;
            }
        }
        return ax;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        Tensor w = ctx.inputCount() > weightAt() ? ctx.input(weightAt()) : null;
        boolean hasB = ctx.inputCount() > weightAt() + 1;
        Tensor[] fused = batch && !Ops.differentiating() ? TrainingBatchNorm.vjp(ctx, g, w, ctx.needsGrad(0),
                w != null && ctx.needsGrad(weightAt()), hasB && ctx.needsGrad(weightAt() + 1)) : null;
        if (fused != null) {
            // in training the running statistics do not reach the output: their gradients are 0.
            Tensor[] out = {fused[0], Ops.mul(ctx.input(1), 0.0), Ops.mul(ctx.input(2), 0.0), fused[1], hasB ? fused[2] : null};
            return java.util.Arrays.copyOf(out, ctx.inputCount());
        }
        int[] cs = channelShape(x.rank(), x.shape()[1]);
        Tensor[] nr = normalised(x);
        Tensor gw = w == null ? g : Ops.mul(g, Ops.reshape(w, cs));
        Tensor[] out = new Tensor[ctx.inputCount()];
        out[0] = Ops.reshape(throughNorm(Ops.reshape(gw, view(x.shape())), nr[0], nr[1]), x.shape());
        if (batch) {
            // in training the running statistics do not reach the output: their gradients are 0.
            out[1] = Ops.mul(ctx.input(1), 0.0);
            out[2] = Ops.mul(ctx.input(2), 0.0);
        }
        Tensor xhat = Ops.reshape(nr[0], x.shape());
        if (w != null) {
            out[weightAt()] = Ops.sum(Ops.mul(g, xhat), allButChannel(x.rank()), false);
        }
        if (ctx.inputCount() > weightAt() + 1) {
            out[weightAt() + 1] = Ops.sum(g, allButChannel(x.rank()), false);
        }
        return out;
    }

    @Override
    public String jvpRule() {
        return "ẏ = rstd ⊙ (ẋ − mean(ẋ) − x̂ ⊙ mean(ẋ ⊙ x̂)) ⊙ w + x̂ ⊙ ẇ + ḃ";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        int[] cs = channelShape(x.rank(), x.shape()[1]);
        Tensor[] nr = normalised(x);
        Tensor xhat = Ops.reshape(nr[0], x.shape());
        Tensor y = Ops.reshape(throughNorm(Ops.reshape(t[0], view(x.shape())), nr[0], nr[1]), x.shape());
        Tensor w = ctx.inputCount() > weightAt() ? ctx.input(weightAt()) : null;
        if (w != null) {
            y = Ops.mul(y, Ops.reshape(w, cs));
            if (t[weightAt()] != null) {
                y = Ops.add(y, Ops.mul(xhat, Ops.reshape(t[weightAt()], cs)));
            }
        }
        if (ctx.inputCount() > weightAt() + 1 && t[weightAt() + 1] != null) {
            y = Ops.add(y, Ops.reshape(t[weightAt() + 1], cs));
        }
        return y;
    }

    /** x: each element on its group (or channel) over the batch; the weight and bias: its channel; the running statistics: nothing. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] x = shapes[0];
        int[] v = view(x);
        if (input == 0) {
            // a group of one element normalises to 0 whatever it holds
            return ReduceOp.count(v, reduced()) == 1 ? Dependencies.none(x, x) : Dependencies.blocks(v, reduced());
        }
        if ((batch && (input == 1 || input == 2)) || (input == weightAt() && ReduceOp.count(v, reduced()) == 1)) {
            // (and the weight scales x̂, which is 0 for groups of one element)
            return Dependencies.none(x, shapes[input]);
        }
        int[] src = Dependencies.walk(x, Dependencies.broadcastStrides(channelShape(x.length, x[1]), x), 0);
        return Pattern.gather(src, x[1]);
    }
}
