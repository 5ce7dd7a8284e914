package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** sum, mean and amax over axes (null or empty: all), with or without the reduced axes kept. */
public final class ReduceOp extends Op {
    /** Which reduction. */
    public enum Kind { SUM, MEAN, AMAX }

    private final Kind kind;
    private final int[] axes;
    private final boolean keepdim;

    public ReduceOp(Kind kind, int[] axes, boolean keepdim) {
        this.kind = kind;
        // axis=() reduces every axis, as PyTorch 1.13's sum, mean and amax (NumPy's rule would reduce none).
        this.axes = axes == null || axes.length == 0 ? null : axes.clone();
        this.keepdim = keepdim;
    }

    @Override
    public String name() {
        return kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String label() {
        String a = Checks.axesText(axes);
        String k = keepdim ? "keepdim=True" : "";
        String args = a.isEmpty() ? k : (k.isEmpty() ? a : a + ", " + k);
        return args.isEmpty() ? name() : name() + "(" + args + ")";
    }

    @Override
    public String rule() {
        return switch (kind) {
            case SUM -> "dx = broadcast(g)";
            case MEAN -> "dx = broadcast(g) / n";
            // ties share the gradient evenly, as torch.amax.
            case AMAX -> "dx = broadcast(g) ⊙ [x = max] / #ties";
        };
    }

    /** Each output element depends on the elements reduced into it. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return Dependencies.reduce(shapes[0], Shapes.axes(name(), axes, shapes[0].length));
    }

    /** amax: only the elements equal to their maximum (the ties share the gradient). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        if (kind != Kind.AMAX) {
            return super.localDependencies(input, ctx);
        }
        Tensor x = ctx.input(0);
        int[] g = Dependencies.groups(x.shape(), Shapes.axes(name(), axes, x.rank()));
        double[] xv = x.toDoubleArray();
        double[] yv = ctx.output().toDoubleArray();
        int[] target = new int[xv.length];
        for (int e = 0; e < xv.length; e++) {
            target[e] = xv[e] == yv[g[e]] ? g[e] : -1;
        }
        return Pattern.scatter(target, yv.length);
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return kind == Kind.AMAX ? VjpReads.of(1, true, 0) : VjpReads.none(1);
    }

    /** One add (or comparison) per input element. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return Shapes.numel(inputs[0]);
    }

    /** sum and mean over every element (no axes, no kept dimensions). */
    @Override
    public ScalarForm scalarForm() {
        return kind != Kind.AMAX && axes == null && !keepdim ? new ScalarForm.Total(kind == Kind.MEAN) : null;
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name(), shapes, 1);
        Checks.floats(name(), dtypes, 0);
        int[] ax = Shapes.axes(name(), axes, shapes[0].length);
        if (kind == Kind.AMAX) {
            for (int a : ax) {
                if (shapes[0][a] == 0) {
                    throw new GradscopeException("amax: cannot reduce over axis " + a + " of size 0 in shape "
                            + Shapes.str(shapes[0]));
                }
            }
        }
        return keepdim ? Shapes.keepDims(shapes[0], ax) : Shapes.dropDims(shapes[0], ax);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        int[] ax = Shapes.axes(name(), axes, x.rank());
        return switch (kind) {
            case SUM -> Unrecorded.reduce(ReduceKind.SUM, x, ax, keepdim);
            case MEAN -> Unrecorded.mulScalar(Unrecorded.reduce(ReduceKind.SUM, x, ax, keepdim), 1.0 / count(x.shape(), ax));
            case AMAX -> Unrecorded.reduce(ReduceKind.MAX, x, ax, keepdim);
        };
    }

    static long count(int[] shape, int[] ax) {
        long n = 1;
        for (int a : ax) {
            n *= shape[a];
        }
        return n;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        int[] ax = Shapes.axes(name(), axes, x.rank());
        int[] keep = Shapes.keepDims(x.shape(), ax);
        Tensor gb = Ops.broadcastTo(Ops.reshape(g, keep), x.shape());
        return new Tensor[] {switch (kind) {
            case SUM -> gb;
            case MEAN -> Ops.mul(gb, 1.0 / count(x.shape(), ax));
            case AMAX -> {
                Tensor y = ctx.output().viewReshape(keep);
                Tensor mask = Unrecorded.binary(BinaryKind.EQ, x, y);
                Tensor ties = Unrecorded.reduce(ReduceKind.SUM, mask, ax, true);
                yield Ops.mul(gb, Unrecorded.binary(BinaryKind.DIV, mask, ties));
            }
        }};
    }

    @Override
    public String jvpRule() {
        return kind == Kind.AMAX ? "ẏ = Σ ẋ ⊙ [x = max] / #ties" : super.jvpRule();
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        if (kind != Kind.AMAX) {
            return super.jvp(ctx, t);
        }
        // ties share the tangent evenly, as the VJP shares the gradient (torch.amax's forward AD).
        Tensor x = ctx.input(0);
        int[] ax = Shapes.axes(name(), axes, x.rank());
        Tensor y = ctx.output().viewReshape(Shapes.keepDims(x.shape(), ax));
        Tensor mask = Unrecorded.binary(BinaryKind.EQ, x, y);
        Tensor share = Unrecorded.binary(BinaryKind.DIV, mask, Unrecorded.reduce(ReduceKind.SUM, mask, ax, true));
        return Ops.sum(Ops.mul(t[0], share), ax, keepdim);
    }
}
