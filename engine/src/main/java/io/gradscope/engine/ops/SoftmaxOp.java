package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** softmax and log_softmax along one axis, max-subtracted. */
final class SoftmaxOp extends Op {
    private final int axis;
    private final boolean log;

    SoftmaxOp(int axis, boolean log) {
        this.axis = axis;
        this.log = log;
    }

    @Override
    public String name() {
        return log ? "log_softmax" : "softmax";
    }

    @Override
    public String label() {
        return name() + "(axis=" + axis + ")";
    }

    @Override
    public String rule() {
        return log ? "dx = g − exp(y) ⊙ Σg" : "dx = y ⊙ (g − ⟨g, y⟩)";
    }

    /** A block per slice along the axis; nothing when the axis has one element (the output is a constant). */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] s = shapes[0];
        if (s.length == 0 || s[Shapes.axis(name(), axis, s.length)] <= 1) {
            return Dependencies.none(s, s);
        }
        return Dependencies.blocks(s, new int[] {Shapes.axis(name(), axis, s.length)});
    }

    /**
     * At these values, the entries whose derivative is not zero: yᵢ(δᵢⱼ − yⱼ) for softmax, δᵢⱼ − yⱼ for
     * log_softmax. A weight of exactly 0 (a −∞ mask, or underflow) cuts its column, and its row too
     * for softmax.
     */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        Pattern global = dependencies(0, new int[][] {ctx.input(0).shape()});
        double[] p = ctx.output().toDoubleArray();
        if (log) {
            for (int e = 0; e < p.length; e++) {
                p[e] = Math.exp(p[e]);
            }
        }
        Pattern.Builder b = new Pattern.Builder(global.rows(), global.cols());
        for (int i = 0; i < global.rows(); i++) {
            for (int k = global.rowStart(i); k < global.rowEnd(i); k++) {
                int j = global.column(k);
                double d = (i == j ? 1 : 0) - p[j];
                if ((log ? d : p[i] * d) != 0) {
                    b.add(j);
                }
            }
            b.endRow();
        }
        return b.build();
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(1, true);
    }

    /** Per element: the maximum, subtracting it, exp, the sum, dividing (or subtracting the log): 5. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 5 * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name(), shapes, 1);
        Checks.floats(name(), dtypes, 0);
        Shapes.axis(name(), axis, shapes[0].length);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        return lastAxis(in[0], null);
    }

    /**
     * Runs the fused kernel over the op's axis: the axis is moved last and the input made contiguous
     * (so any layout gives the same bits), and the result is viewed back. With {@code g}, the VJP.
     */
    private Tensor lastAxis(Tensor x, Tensor g) {
        int r = x.rank();
        if (r == 0) {
            Tensor one = lastAxis(x.viewReshape(new int[] {1}), g == null ? null : g.reshapeOrCopy(new int[] {1}));
            return one.viewReshape(new int[0]);
        }
        int a = Shapes.axis(name(), axis, r);
        Tensor xc = (a == r - 1 ? x : x.viewTranspose(a, r - 1)).contiguous();
        Tensor out = Tensor.empty(x.dtype(), x.device(), xc.shape()); // the kernels write every row
        if (g == null) {
            x.backend().softmaxLastAxis(xc, out, log);
        } else {
            Tensor gc = (a == r - 1 ? g : g.viewTranspose(a, r - 1)).contiguous();
            x.backend().softmaxBackwardLastAxis(xc, gc, out, log);
        }
        return a == r - 1 ? out : out.viewTranspose(a, r - 1);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor y = ctx.output();
        if (!Ops.differentiating()) {
            return new Tensor[] {lastAxis(y, g)};
        }
        // Recording a graph of the gradient (for second derivatives): the same rule in differentiable ops.
        int[] ax = y.rank() == 0 ? new int[0] : new int[] {Shapes.axis(name(), axis, y.rank())};
        if (log) {
            return new Tensor[] {Ops.sub(g, Ops.mul(Ops.exp(y), Ops.sum(g, ax, true)))};
        }
        return new Tensor[] {Ops.mul(y, Ops.sub(g, Ops.sum(Ops.mul(g, y), ax, true)))};
    }

    @Override
    public String jvpRule() {
        return log ? "ẏ = ẋ − ⟨exp(y), ẋ⟩" : "ẏ = y ⊙ (ẋ − ⟨y, ẋ⟩)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor y = ctx.output();
        int[] ax = y.rank() == 0 ? new int[0] : new int[] {Shapes.axis(name(), axis, y.rank())};
        if (log) {
            return Ops.sub(t[0], Ops.sum(Ops.mul(Ops.exp(y), t[0]), ax, true));
        }
        return Ops.mul(y, Ops.sub(t[0], Ops.sum(Ops.mul(y, t[0]), ax, true)));
    }
}
