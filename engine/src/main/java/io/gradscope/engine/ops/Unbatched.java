package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * An op over batched input ({@code [N, C, ...]}: convolutions and pools) that also takes its first
 * input without the batch axis ({@code [C, ...]}), as PyTorch does: such an input runs as a batch of
 * one and the output loses the batch axis again. A batched input goes straight to the op. The graph
 * keeps one node (the op, on the unbatched tensor); its VJP, JVP and dependency rule are the op's
 * own, read through batch-of-one views (flattened, a leading axis of size 1 changes no index).
 */
final class Unbatched extends WrappedOp {
    private final int rank;

    private Unbatched(Op op, int batchedRank) {
        super(op);
        this.rank = batchedRank;
    }

    /** {@code op}, taking its first input also with one axis fewer than {@code batchedRank}. */
    static Op of(Op op, int batchedRank) {
        return new Unbatched(op, batchedRank);
    }

    private boolean unbatched(int[] x) {
        return x.length == rank - 1;
    }

    private static int[] withBatch(int[] s) {
        int[] out = new int[s.length + 1];
        out[0] = 1;
        System.arraycopy(s, 0, out, 1, s.length);
        return out;
    }

    private static int[][] batchedShapes(int[][] shapes) {
        int[][] out = shapes.clone();
        out[0] = withBatch(shapes[0]);
        return out;
    }

    private static int[] dropBatch(int[] s) {
        return Arrays.copyOfRange(s, 1, s.length);
    }

    /** A batch-of-one view of t (nothing recorded). */
    private static Tensor view(Tensor t) {
        return t.viewReshape(withBatch(t.shape()));
    }

    /** The same, recorded where a graph of the gradient is being made (so it reaches the tensor itself). */
    private static Tensor reshaped(Tensor t) {
        return Ops.differentiating() ? Ops.reshape(t, withBatch(t.shape())) : view(t);
    }

    /**
     * The op's own context for a forward that ran on batch-of-one views: the inputs (input 0 as a
     * batch of one), the output and the saved tensors as {@code ctx} now holds them (recomputed
     * values too), and which inputs need a gradient.
     */
    private static OpContext inner(OpContext ctx, boolean recorded) {
        Tensor[] in = new Tensor[ctx.inputCount()];
        boolean[] needs = new boolean[in.length];
        for (int i = 0; i < in.length; i++) {
            in[i] = i == 0 ? (recorded ? reshaped(ctx.input(0)) : view(ctx.input(0))) : ctx.input(i);
            needs[i] = ctx.needsGrad(i);
        }
        OpContext c = new OpContext(in);
        c.overrideNeedsGrad(needs);
        Tensor out = ctx.output();
        if (out != null) {
            c.setOutput(recorded ? reshaped(out) : view(out));
        }
        for (int i = 0; i < ctx.savedTensors().size(); i++) {
            c.save(ctx.saved(i));
        }
        return c;
    }

    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return op.dependencies(input, unbatched(shapes[0]) ? batchedShapes(shapes) : shapes);
    }

    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        return unbatched(ctx.inputAt(0).shape()) ? op.localDependencies(input, inner(ctx, false)) : op.localDependencies(input, ctx);
    }

    @Override
    public io.gradscope.engine.sparse.Rows dependencyRows(int input, int[][] shapes) {
        return op.dependencyRows(input, unbatched(shapes[0]) ? batchedShapes(shapes) : shapes);
    }

    @Override
    public io.gradscope.engine.sparse.Rows localDependencyRows(int input, OpContext ctx) {
        return unbatched(ctx.inputAt(0).shape()) ? op.localDependencyRows(input, inner(ctx, false))
                : op.localDependencyRows(input, ctx);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        if (shapes.length == 0 || !unbatched(shapes[0])) {
            return op.outputShape(shapes, dtypes);
        }
        return dropBatch(op.outputShape(batchedShapes(shapes), dtypes));
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        if (!unbatched(in[0].shape())) {
            return op.forward(ctx, in);
        }
        Tensor[] b = in.clone();
        b[0] = view(in[0]);
        OpContext c = new OpContext(b);
        Tensor y = op.forward(c, b);
        if (!c.savedTensors().isEmpty()) {
            ctx.save(c.savedTensors().toArray(new Tensor[0]));
        }
        return y.viewReshape(dropBatch(y.shape()));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        if (!unbatched(ctx.inputAt(0).shape())) {
            return op.vjp(ctx, g);
        }
        Tensor[] grads = op.vjp(inner(ctx, true), Ops.reshape(g, withBatch(g.shape())));
        if (grads[0] != null) {
            grads[0] = Ops.reshape(grads[0], ctx.inputAt(0).shape());
        }
        return grads;
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... tangents) {
        if (!unbatched(ctx.inputAt(0).shape())) {
            return op.jvp(ctx, tangents);
        }
        Tensor[] t = tangents.clone();
        if (t[0] != null) {
            t[0] = Ops.reshape(t[0], withBatch(t[0].shape()));
        }
        Tensor y = op.jvp(inner(ctx, true), t);
        return Ops.reshape(y, dropBatch(y.shape()));
    }

    @Override
    public long flops(int[][] inputs, int[] output) {
        return unbatched(inputs[0]) ? op.flops(batchedShapes(inputs), withBatch(output)) : op.flops(inputs, output);
    }
}
