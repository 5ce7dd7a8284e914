package io.gradscope.engine.ops;

import io.gradscope.engine.backend.UnaryKind;
import io.gradscope.engine.backend.BinaryKind;
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

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name(), shapes, 1);
        Checks.floats(name(), dtypes, 0);
        Shapes.axis(name(), axis, shapes[0].length);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        int[] ax = {Shapes.axis(name(), axis, in[0].rank())};
        if (in[0].rank() == 0) {
            ax = new int[0];
        }
        Tensor lse = Raw.logSumExpKeep(in[0], ax);
        Tensor z = Raw.binary(BinaryKind.SUB, in[0], lse);
        return log ? z : Raw.unary(UnaryKind.EXP, z);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor y = ctx.output();
        int[] ax = y.rank() == 0 ? new int[0] : new int[] {Shapes.axis(name(), axis, y.rank())};
        if (log) {
            return new Tensor[] {Ops.sub(g, Ops.mul(Ops.exp(y), Ops.sum(g, ax, true)))};
        }
        return new Tensor[] {Ops.mul(y, Ops.sub(g, Ops.sum(Ops.mul(g, y), ax, true)))};
    }
}
