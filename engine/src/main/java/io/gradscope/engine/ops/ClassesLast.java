package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * A class loss (cross_entropy, nll_loss) over K-dimensional input, as PyTorch takes it for
 * segmentation: scores {@code [N, C, d1, ..., dk]} with labels {@code [N, d1, ..., dk]} (or
 * probabilities of the scores' shape). Every position is a row of the 2-D loss: the scores with the
 * class axis moved last, {@code [N·d1·…·dk, C]}, the labels flattened; {@code reduction="none"} gives
 * {@code [N, d1, ..., dk]} back. A mean over the rows (weighted) is PyTorch's mean over all positions.
 * Scores of rank 1 or 2 go straight to the op. One node in the graph; its VJP and JVP are the op's
 * own, read through the moved views.
 */
final class ClassesLast extends WrappedOp {
    /** For each tensor the op saved in its forward: which input it is (the op's VJP reads its inputs there), or −1. */
    private int[] savedInputs = new int[0];

    private ClassesLast(Op op) {
        super(op);
    }

    /** {@code op}, taking scores of rank 3 or more too. */
    static Op of(Op op) {
        return new ClassesLast(op);
    }

    private static boolean spatial(int[] z) {
        return z.length >= 3;
    }

    /** [N, C, d...] -> [N, d..., C]: the permutation, and its inverse. */
    private static int[] last(int rank) {
        int[] p = new int[rank];
        p[0] = 0;
        for (int i = 2; i < rank; i++) {
            p[i - 1] = i;
        }
        p[rank - 1] = 1;
        return p;
    }

    private static int[] back(int rank) {
        int[] p = last(rank);
        int[] inv = new int[rank];
        for (int i = 0; i < rank; i++) {
            inv[p[i]] = i;
        }
        return inv;
    }

    private static int rows(int[] z) {
        return Math.toIntExact(Dependencies.numel(z) / Math.max(1, z[1]));
    }

    /** The shapes as the 2-D op sees them. */
    private static int[][] flat(int[][] shapes, boolean probabilities) {
        int[][] out = shapes.clone();
        int[] z = shapes[0];
        out[0] = new int[] {rows(z), z[1]};
        out[1] = probabilities ? out[0] : new int[] {rows(z)};
        return out;
    }

    /** The labels' shape for these scores: [N, d...]. */
    private static int[] labelShape(int[] z) {
        int[] t = new int[z.length - 1];
        t[0] = z[0];
        System.arraycopy(z, 2, t, 1, z.length - 2);
        return t;
    }

    /** Input i as the 2-D op takes it: scores and probabilities with the class axis last, labels flattened. */
    private static Tensor flatInput(Tensor t, int i, int[] z, boolean recorded) {
        if (i >= 2) {
            return t;
        }
        boolean classes = i == 0 || t.dtype().isFloating();
        int[] shape = classes ? new int[] {rows(z), z[1]} : new int[] {rows(z)};
        if (recorded) {
            return Ops.reshape(classes ? Ops.permute(t, last(z.length)) : t, shape);
        }
        return (classes ? t.viewPermute(last(z.length)) : t).reshapeOrCopy(shape);
    }

    /** A gradient or tangent of input i in the 2-D op's layout, back in the input's. */
    private static Tensor unflat(Tensor g, int i, int[] z, int[] shape) {
        if (g == null || i >= 2) {
            return g;
        }
        if (g.rank() == 1) {
            return Ops.reshape(g, shape);
        }
        int[] moved = new int[z.length];
        int[] p = last(z.length);
        for (int a = 0; a < z.length; a++) {
            moved[a] = z[p[a]];
        }
        return Ops.permute(Ops.reshape(g, moved), back(z.length));
    }

    private OpContext inner(OpContext ctx, boolean recorded) {
        int[] z = ctx.inputAt(0).shape();
        Tensor[] in = new Tensor[ctx.inputCount()];
        boolean[] needs = new boolean[in.length];
        for (int i = 0; i < in.length; i++) {
            in[i] = flatInput(ctx.input(i), i, z, recorded);
            needs[i] = ctx.needsGrad(i);
        }
        OpContext c = new OpContext(in);
        c.overrideNeedsGrad(needs);
        Tensor out = ctx.output();
        if (out != null) {
            c.setOutput(out.rank() == 0 ? out : recorded ? Ops.reshape(out, rows(z)) : out.reshapeOrCopy(new int[] {rows(z)}));
        }
        // a saved input is the moved input itself, so that a graph of the gradient reaches the tensor
        for (int i = 0; i < ctx.savedTensors().size(); i++) {
            int from = i < savedInputs.length ? savedInputs[i] : -1;
            c.save(from >= 0 ? in[from] : ctx.saved(i));
        }
        return c;
    }

    /** Input i's flat index (m, c) or m in the 2-D op's layout, as an index of the input itself. */
    private static int original(int j, int i, int[] z, boolean classes) {
        if (i >= 2 || !classes) {
            return j;
        }
        int c = z[1];
        int d = rows(z) / Math.max(1, z[0]);
        int m = j / c;
        return (m / d) * c * d + (j % c) * d + m % d;
    }

    /** A pattern over the 2-D op's input i, its columns renamed to the input's own indices. */
    private static Pattern unflat(Pattern p, int i, int[] z, boolean classes) {
        if (p == null) {
            return null;
        }
        int[] ri = new int[p.nnz()];
        int[] ci = new int[p.nnz()];
        for (int r = 0, k = 0; r < p.rows(); r++) {
            for (int e = p.rowStart(r); e < p.rowEnd(r); e++, k++) {
                ri[k] = r;
                ci[k] = original(p.column(e), i, z, classes);
            }
        }
        return Pattern.fromCoordinates(p.rows(), p.cols(), ri, ci);
    }

    /** The 2-D op's rule, its columns renamed (the rows, positions in order, are the output's already). */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        if (!spatial(shapes[0])) {
            return op.dependencies(input, shapes);
        }
        boolean probabilities = shapes[1].length == shapes[0].length;
        return unflat(op.dependencies(input, flat(shapes, probabilities)), input, shapes[0], input == 0 || probabilities);
    }

    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        int[] z = ctx.inputAt(0).shape();
        if (!spatial(z)) {
            return op.localDependencies(input, ctx);
        }
        return unflat(op.localDependencies(input, inner(ctx, false)), input, z, input == 0 || ctx.inputAt(1).dtype().isFloating());
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        if (shapes.length < 2 || !spatial(shapes[0])) {
            return op.outputShape(shapes, dtypes);
        }
        int[] z = shapes[0];
        boolean probabilities = dtypes[1].isFloating();
        if (!probabilities && !Arrays.equals(shapes[1], labelShape(z))) {
            throw new io.gradscope.engine.GradscopeException(op.name() + ": scores " + io.gradscope.engine.tensor.Shapes.str(z)
                    + " take labels " + io.gradscope.engine.tensor.Shapes.str(labelShape(z)) + ", not "
                    + io.gradscope.engine.tensor.Shapes.str(shapes[1]));
        }
        if (probabilities && !Arrays.equals(shapes[1], z)) {
            throw new io.gradscope.engine.GradscopeException(op.name() + ": float targets are class probabilities and must have the "
                    + "scores' shape " + io.gradscope.engine.tensor.Shapes.str(z) + ", not " + io.gradscope.engine.tensor.Shapes.str(shapes[1]));
        }
        int[] y = op.outputShape(flat(shapes, probabilities), dtypes);
        return y.length == 0 ? y : labelShape(z);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        int[] z = in[0].shape();
        if (!spatial(z)) {
            return op.forward(ctx, in);
        }
        Tensor[] f = new Tensor[in.length];
        for (int i = 0; i < in.length; i++) {
            f[i] = flatInput(in[i], i, z, false);
        }
        OpContext c = new OpContext(f);
        Tensor y = op.forward(c, f);
        java.util.List<Tensor> saved = c.savedTensors();
        int[] from = new int[saved.size()];
        Tensor[] keep = new Tensor[saved.size()];
        for (int j = 0; j < from.length; j++) {
            from[j] = -1;
            for (int i = 0; i < f.length; i++) {
                if (saved.get(j) == f[i]) {
                    from[j] = i;
                }
            }
            keep[j] = from[j] >= 0 ? in[from[j]] : saved.get(j);
        }
        savedInputs = from;
        if (keep.length > 0) {
            ctx.save(keep);
        }
        return y.rank() == 0 ? y : y.reshapeOrCopy(labelShape(z));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        int[] z = ctx.inputAt(0).shape();
        if (!spatial(z)) {
            return op.vjp(ctx, g);
        }
        Tensor[] grads = op.vjp(inner(ctx, true), g.rank() == 0 ? g : Ops.reshape(g, rows(z)));
        for (int i = 0; i < grads.length; i++) {
            grads[i] = unflat(grads[i], i, z, ctx.inputAt(i).shape());
        }
        return grads;
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... tangents) {
        int[] z = ctx.inputAt(0).shape();
        if (!spatial(z)) {
            return op.jvp(ctx, tangents);
        }
        Tensor[] t = tangents.clone();
        for (int i = 0; i < t.length; i++) {
            t[i] = t[i] == null ? null : flatInput(t[i], i, z, true);
        }
        Tensor y = op.jvp(inner(ctx, true), t);
        return y.rank() == 0 ? y : Ops.reshape(y, labelShape(z));
    }

    @Override
    public java.util.Map<String, Tensor> shown(OpContext ctx) {
        return spatial(ctx.inputAt(0).shape()) ? super.shown(ctx) : op.shown(ctx);
    }

    @Override
    public long flops(int[][] inputs, int[] output) {
        return op.flops(spatial(inputs[0]) ? flat(inputs, inputs[1].length == inputs[0].length) : inputs, output);
    }
}
