package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.ArrayList;
import java.util.List;

/**
 * The differentiable functions: each applies one op of the table; the {@link OpObserver}s then
 * record the output's autograd node when an input needs a gradient, publish the trace's event and
 * carry forward mode's tangents.
 *
 * <pre>{@code
 * Tensor x = Tensor.of(new double[] {1, -2, 3, -4}, 2, 2);
 * Tensor w = Tensor.of(new double[] {0.5, -1, 2, 1}, 2, 2).setRequiresGrad(true);
 * Tensor loss = Ops.sum(Ops.relu(Ops.matmul(x, w)));
 * Backward.run(loss);
 * Tensor dW = w.grad();
 * }</pre>
 */
public final class Ops {
    private Ops() {
    }

    /** Applies {@code op}: checks shapes, runs the forward, records the node, publishes the event. */
    public static Tensor apply(Op op, Tensor... inputs) {
        return run(op, inputs.clone());
    }

    /** As {@link #apply}, keeping {@code inputs} itself in the op's context: the ops here pass arrays made for the call. */
    private static Tensor run(Op op, Tensor... inputs) {
        op.check(inputs);
        for (int i = 1; i < inputs.length; i++) {
            if (inputs[i].device() != inputs[0].device()) {
                throw new GradscopeException(op.name() + ": inputs are on different devices (" + inputs[0].device() + " and "
                        + inputs[i].device() + ")");
            }
        }
        int mode = GradMode.mode();
        boolean backward = (mode & GradMode.IN_BACKWARD) != 0;
        OpContext ctx = OpContext.owning(inputs);
        Tensor out = null;
        Allocations.Scope scope = Allocations.open(backward ? MemoryCategory.GRADIENT : MemoryCategory.ACTIVATION);
        boolean closed = false;
        try {
            try (var off = GradMode.disable()) {
                out = op.forward(ctx, inputs);
                for (Tensor t : inputs) {
                    if (out == t) {
                        out = t.asStrided(t.shape(), t.strides(), t.offset());
                    }
                }
            }
            ctx.setOutput(out);
            for (OpObserver o : OpObservers.early()) {
                o.applied(op, ctx, out, mode);
            }
            closed = true;
            closeScope(scope, ctx.keptWith(out), out, StorageRole.VALUE, backward || !Recorder.active());
        } finally {
            if (!closed) {
                scope.close(ctx.keptWith(out));
            }
        }
        // Note [Op observers]: autograd recorded the node above; the trace's event and forward mode's tangent here.
        for (OpObserver o : OpObservers.late()) {
            o.applied(op, ctx, out, mode);
        }
        return out;
    }

    /**
     * Closes an op's allocation scope: the output (last of {@code keep}) announced with {@code role},
     * the saved tensors as saved, all owned by the id the trace knows the output by (in the backward
     * pass the enclosing step decides, so no id is made there; nor when nothing records: {@code byNode}).
     */
    private static void closeScope(Allocations.Scope scope, List<Tensor> keep, Tensor out, StorageRole role, boolean byNode) {
        long owner = out == null ? -1 : byNode ? out.nodeId() : Recorder.name(out);
        scope.close(keep, owner, role, true);
    }

    /**
     * Runs {@code op}'s forward again on {@code inputs}, for a checkpoint segment the backward sweep
     * has reached: no node is recorded and no forward event published; the allocations are
     * activations in the role of recomputed values, owned by {@code owner} (the id the first forward
     * pass gave the value). Returns the context: its output and saved tensors.
     */
    public static OpContext rerun(Op op, long owner, Tensor... inputs) {
        OpContext ctx = new OpContext(inputs);
        Tensor out = null;
        Allocations.Scope scope = Allocations.open(MemoryCategory.ACTIVATION);
        try (var off = GradMode.disable()) {
            out = op.forward(ctx, inputs);
            for (Tensor t : inputs) {
                if (out == t) {
                    out = t.asStrided(t.shape(), t.strides(), t.offset());
                }
            }
        } finally {
            List<Tensor> keep = ctx.keptWith(out);
            scope.close(keep, owner, StorageRole.RECOMPUTED, true);
        }
        ctx.setOutput(out);
        return ctx;
    }

    /**
     * Whether a VJP must be written in differentiable ops now: a graph of the gradient is being
     * recorded, or forward mode is carrying tangents through the backward pass (forward-over-reverse).
     * Otherwise an op may use its fused kernels.
     */
    public static boolean differentiating() {
        return GradMode.isEnabled() || OpObservers.differentiating();
    }

    /** A 0-d constant of {@code like}'s dtype. */
    public static Tensor constant(double v, Tensor like) {
        return Tensor.full(like.dtype(), like.device(), v);
    }

    // ---- arithmetic -----------------------------------------------------------------------

    public static Tensor add(Tensor a, Tensor b) {
        return run(BinaryOp.ADD, a, b);
    }

    public static Tensor sub(Tensor a, Tensor b) {
        return run(BinaryOp.SUB, a, b);
    }

    public static Tensor mul(Tensor a, Tensor b) {
        return run(BinaryOp.MUL, a, b);
    }

    public static Tensor div(Tensor a, Tensor b) {
        return run(BinaryOp.DIV, a, b);
    }

    public static Tensor add(Tensor a, double b) {
        return add(a, constant(b, a));
    }

    public static Tensor mul(Tensor a, double b) {
        return mul(a, constant(b, a));
    }

    public static Tensor neg(Tensor a) {
        return unary(OpSpecs.NEG, a);
    }

    public static Tensor pow(Tensor a, double exponent) {
        return run(new PowOp(exponent), a);
    }

    public static Tensor matmul(Tensor a, Tensor b) {
        return run(MatMulOp.INSTANCE, a, b);
    }

    // ---- elementwise functions ------------------------------------------------------------

    public static Tensor unary(UnaryOp op, Tensor x) {
        return run(op, x);
    }

    public static Tensor relu(Tensor x) {
        return unary(OpSpecs.RELU, x);
    }

    public static Tensor sigmoid(Tensor x) {
        return unary(OpSpecs.SIGMOID, x);
    }

    public static Tensor tanh(Tensor x) {
        return unary(OpSpecs.TANH, x);
    }

    public static Tensor exp(Tensor x) {
        return unary(OpSpecs.EXP, x);
    }

    public static Tensor log(Tensor x) {
        return unary(OpSpecs.LOG, x);
    }

    public static Tensor sqrt(Tensor x) {
        return unary(OpSpecs.SQRT, x);
    }

    public static Tensor abs(Tensor x) {
        return unary(OpSpecs.ABS, x);
    }

    public static Tensor sin(Tensor x) {
        return unary(OpSpecs.SIN, x);
    }

    public static Tensor cos(Tensor x) {
        return unary(OpSpecs.COS, x);
    }

    public static Tensor gelu(Tensor x) {
        return unary(OpSpecs.GELU, x);
    }

    public static Tensor softplus(Tensor x) {
        return unary(OpSpecs.SOFTPLUS, x);
    }

    /** F.silu: {@code x · sigmoid(x)}. */
    public static Tensor silu(Tensor x) {
        return unary(OpSpecs.SILU, x);
    }

    /**
     * F.hardtanh: x clamped to {@code [minVal, maxVal]}; the gradient is 0 outside and at the ends.
     *
     * <pre>{@code
     * Ops.hardtanh(x, -1, 1);   // F.hardtanh(x)
     * }</pre>
     */
    public static Tensor hardtanh(Tensor x, double minVal, double maxVal) {
        return run(OpRegistry.create("hardtanh", java.util.Map.of("min_val", minVal, "max_val", maxVal)), x);
    }

    // ---- reductions -----------------------------------------------------------------------

    /** Sum over {@code axes} (null: all). */
    public static Tensor sum(Tensor x, int[] axes, boolean keepdim) {
        return run(new ReduceOp(ReduceOp.Kind.SUM, axes, keepdim), x);
    }

    public static Tensor sum(Tensor x) {
        return sum(x, null, false);
    }

    public static Tensor mean(Tensor x, int[] axes, boolean keepdim) {
        return run(new ReduceOp(ReduceOp.Kind.MEAN, axes, keepdim), x);
    }

    public static Tensor mean(Tensor x) {
        return mean(x, null, false);
    }

    public static Tensor amax(Tensor x, int[] axes, boolean keepdim) {
        return run(new ReduceOp(ReduceOp.Kind.AMAX, axes, keepdim), x);
    }

    public static Tensor logsumexp(Tensor x, int[] axes, boolean keepdim) {
        return run(new LogSumExpOp(axes, keepdim), x);
    }

    public static Tensor softmax(Tensor x, int axis) {
        return run(new SoftmaxOp(axis, false), x);
    }

    public static Tensor logSoftmax(Tensor x, int axis) {
        return run(new SoftmaxOp(axis, true), x);
    }

    /** {@link #sumTo(Tensor, int[])} to the shape of {@code like} (without copying it when x has it already). */
    public static Tensor sumTo(Tensor x, Tensor like) {
        return x.sameShape(like) ? x : sumTo(x, like.shape());
    }

    /** Sums {@code x} down to {@code shape} (the inverse of broadcasting); {@code x} itself if equal. */
    public static Tensor sumTo(Tensor x, int[] shape) {
        if (x.hasShape(shape)) {
            return x;
        }
        int[] xs = x.shape();
        int lead = xs.length - shape.length;
        List<Integer> axes = new ArrayList<>();
        for (int i = 0; i < xs.length; i++) {
            if (i < lead || (shape[i - lead] == 1 && xs[i] != 1)) {
                axes.add(i);
            }
        }
        Tensor s = sum(x, axes.stream().mapToInt(Integer::intValue).toArray(), true);
        return java.util.Arrays.equals(s.shape(), shape) ? s : reshape(s, shape);
    }

    // ---- views and shape ------------------------------------------------------------------

    public static Tensor reshape(Tensor x, int... shape) {
        return run(new ViewOps.Reshape(shape), x);
    }

    /** Swaps the last two axes. */
    public static Tensor transpose(Tensor x) {
        if (x.rank() < 2) {
            throw new GradscopeException("transpose: needs a tensor of rank 2 or more, not shape " + Shapes.str(x.shape()));
        }
        return transpose(x, -2, -1);
    }

    public static Tensor transpose(Tensor x, int a, int b) {
        return run(ViewOps.Permute.swap(a, b), x);
    }

    public static Tensor permute(Tensor x, int... perm) {
        return run(new ViewOps.Permute(perm, null), x);
    }

    /** {@code x.narrow(axis, start, stop - start)}. */
    public static Tensor slice(Tensor x, int axis, int start, int stop) {
        return run(new ViewOps.Slice(axis, start, stop, 1), x);
    }

    /** Zero padding along one axis: the VJP of slice. */
    public static Tensor pad(Tensor x, int axis, int before, int after) {
        return run(new PadConcatOps.Pad(axis, before, after), x);
    }

    public static Tensor concat(int axis, Tensor... xs) {
        return run(new PadConcatOps.Concat(axis), xs.clone()); // the caller's array, kept by the op's context
    }

    public static Tensor broadcastTo(Tensor x, int... shape) {
        return run(new ViewOps.BroadcastTo(shape), x);
    }

    // ---- losses, norms, attention ---------------------------------------------------------

    public static Tensor crossEntropy(Tensor logits, Tensor labels) {
        return run(CrossEntropyOp.INSTANCE, logits, labels);
    }

    public static Tensor mse(Tensor a, Tensor b) {
        return run(MseOp.INSTANCE, a, b);
    }

    public static Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        return run(new LayerNormOp(eps), x, weight, bias);
    }

    public static Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        return run(new RmsNormOp(eps), x, weight);
    }

    public static Tensor attention(Tensor q, Tensor k, Tensor v, boolean causal) {
        return run(new AttentionOp(causal), q, k, v);
    }

    // ---- what real models need (the ONNX import) ---------------------------------------------

    public static Tensor erf(Tensor x) {
        return unary(OpSpecs.ERF, x);
    }

    /** Which kernel float32 3x3 stride-1 convolutions take on {@code backend}, and why, in words (bench prints it). */
    public static String conv3x3Choice(io.gradscope.engine.tensor.Backend backend) {
        return ConvPath.describe(backend);
    }

    /** F.conv2d; {@code bias} may be null. */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        Op op = Unbatched.of(new ConvOp(2, stride, padding, dilation, groups), 4);
        return bias == null ? run(op, x, weight) : run(op, x, weight, bias);
    }

    /** F.conv1d; {@code bias} may be null. */
    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        Op op = Unbatched.of(new ConvOp(1, new int[] {stride}, new int[] {padding}, new int[] {dilation}, groups), 3);
        return bias == null ? run(op, x, weight) : run(op, x, weight, bias);
    }

    /** F.max_pool2d; a null stride is the kernel size. */
    public static Tensor maxPool2d(Tensor x, int[] kernel, int[] stride, int[] padding) {
        return run(Unbatched.of(new PoolOps.MaxPool(2, SlidingWindow.of("max_pool2d", 2, kernel, stride, padding, new int[] {1})), 4), x);
    }

    /** F.avg_pool2d; a null stride is the kernel size. */
    public static Tensor avgPool2d(Tensor x, int[] kernel, int[] stride, int[] padding, boolean countIncludePad) {
        return run(Unbatched.of(new PoolOps.AvgPool(2, SlidingWindow.of("avg_pool2d", 2, kernel, stride, padding, new int[] {1}), countIncludePad), 4),
                x);
    }

    /** F.max_pool1d over {@code [N, C, L]} or {@code [C, L]} (PyTorch's default stride is the kernel size). */
    public static Tensor maxPool1d(Tensor x, int kernel, int stride, int padding, int dilation) {
        return maxPool1d(x, kernel, stride, padding, dilation, false);
    }

    /** F.max_pool1d with {@code ceil_mode}: the last window may hang past the end (never starting in the right padding). */
    public static Tensor maxPool1d(Tensor x, int kernel, int stride, int padding, int dilation, boolean ceilMode) {
        return run(Unbatched.of(new PoolOps.MaxPool(1, SlidingWindow.of("max_pool1d", 1, new int[] {kernel}, new int[] {stride},
                new int[] {padding}, new int[] {dilation}).ceilMode(ceilMode)), 3), x);
    }

    /** F.avg_pool1d over {@code [N, C, L]} or {@code [C, L]} (PyTorch's default stride is the kernel size). */
    public static Tensor avgPool1d(Tensor x, int kernel, int stride, int padding, boolean countIncludePad) {
        return avgPool1d(x, kernel, stride, padding, false, countIncludePad);
    }

    /** F.avg_pool1d with {@code ceil_mode}: a window hanging past the padding divides by its part within it. */
    public static Tensor avgPool1d(Tensor x, int kernel, int stride, int padding, boolean ceilMode, boolean countIncludePad) {
        return run(Unbatched.of(new PoolOps.AvgPool(1, SlidingWindow.of("avg_pool1d", 1, new int[] {kernel}, new int[] {stride},
                new int[] {padding}, new int[] {1}).ceilMode(ceilMode), countIncludePad), 3), x);
    }

    /**
     * F.unfold: the sliding windows of {@code [N, C, H, W]} as columns, {@code [N, C·kH·kW, L]}; each
     * attribute one integer for both axes or one per axis.
     *
     * <pre>{@code
     * Ops.unfold(x, new int[] {3}, new int[] {1}, new int[] {1}, new int[] {1});   // F.unfold(x, 3, padding=1)
     * }</pre>
     */
    public static Tensor unfold(Tensor x, int[] kernel, int[] dilation, int[] padding, int[] stride) {
        return run(new FoldOps.Unfold(SlidingWindow.of("unfold", 2, kernel, stride, padding, dilation)), x);
    }

    /**
     * F.fold: columns {@code [N, C·kH·kW, L]} summed back into {@code [N, C, height, width]}, the
     * adjoint of {@link #unfold}.
     */
    public static Tensor fold(Tensor x, int height, int width, int[] kernel, int[] dilation, int[] padding, int[] stride) {
        return run(new FoldOps.Fold(SlidingWindow.of("fold", 2, kernel, stride, padding, dilation), height, width), x);
    }

    public static Tensor batchNorm(Tensor x, Tensor runningMean, Tensor runningVar, Tensor weight, Tensor bias, double eps) {
        return run(new BatchNormOp(eps), x, runningMean, runningVar, weight, bias);
    }

    /** F.embedding: rows of {@code weight} at int64 {@code indices}. */
    public static Tensor embedding(Tensor indices, Tensor weight) {
        return run(EmbeddingOps.Embedding.INSTANCE, indices, weight);
    }

    /** torch.where(condition != 0, a, b), with an int64 condition. */
    public static Tensor where(Tensor condition, Tensor a, Tensor b) {
        return run(WhereOp.INSTANCE, condition, a, b);
    }
}
