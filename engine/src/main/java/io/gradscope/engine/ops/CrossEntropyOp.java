package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.backend.BinaryKind;
import io.gradscope.engine.backend.ReduceKind;
import io.gradscope.engine.backend.UnaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.cross_entropy(logits, labels), mean over the batch: logits {@code [N, C]} with labels {@code [N]},
 * or logits {@code [C]} with a 0-d label. Fused: the VJP is {@code (softmax(z) − onehot(t)) / N}.
 */
final class CrossEntropyOp extends Op {
    static final CrossEntropyOp INSTANCE = new CrossEntropyOp();

    @Override
    public String name() {
        return "cross_entropy";
    }

    @Override
    public String rule() {
        return "dz = g ⊙ (softmax(z) − onehot(t)) / N";
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // (softmax − onehot)/N is saved.
        return VjpReads.none(2);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("cross_entropy", shapes, 2);
        Checks.floats("cross_entropy", dtypes, 0);
        if (dtypes[1] != DType.INT64) {
            throw new GradscopeException("cross_entropy: the targets must be int64 class indices (labels), not " + dtypes[1]);
        }
        int[] z = shapes[0];
        int[] t = shapes[1];
        boolean ok = (z.length == 2 && t.length == 1 && t[0] == z[0]) || (z.length == 1 && t.length == 0);
        if (!ok) {
            throw new GradscopeException("cross_entropy: logits " + Shapes.str(z) + " and labels " + Shapes.str(t)
                    + " do not match (expected logits [N, C] with labels [N], or logits [C] with a 0-d label)");
        }
        return new int[0];
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor z = in[0];
        Tensor t = in[1];
        int c = z.shape()[z.rank() - 1];
        double[] labels = t.toDoubleArray();
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= c) {
                throw new GradscopeException("cross_entropy: label " + (long) labels[i] + " at index " + i
                        + " is out of range for " + c + " classes");
            }
        }
        int[] last = {z.rank() - 1};
        Tensor hot = Tensor.zeros(z.dtype(), z.device(), z.shape());
        z.backend().oneHot(t, hot);
        Tensor lse = Raw.logSumExpKeep(z, last);
        Tensor picked = Raw.reduce(ReduceKind.SUM, Raw.binary(BinaryKind.MUL, z, hot), last, true);
        Tensor losses = Raw.binary(BinaryKind.SUB, lse, picked);
        long n = z.rank() == 2 ? z.shape()[0] : 1;
        Tensor loss = Raw.mulScalar(Raw.reduce(ReduceKind.SUM, losses, Shapes.axes("", null, losses.rank()), false), 1.0 / n);
        Tensor p = Raw.unary(UnaryKind.EXP, Raw.binary(BinaryKind.SUB, z, lse));
        ctx.save(Raw.mulScalar(Raw.binary(BinaryKind.SUB, p, hot), 1.0 / n));
        return loss;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        if (!Ops.differentiating()) {
            return new Tensor[] {Ops.mul(g, ctx.saved(0)), null};
        }
        // Recording a graph of the gradient (for second derivatives): softmax from the logits in
        // differentiable ops, as the saved (softmax − onehot)/N is a constant.
        Tensor z = ctx.input(0);
        Tensor hot = Tensor.zeros(z.dtype(), z.device(), z.shape());
        z.backend().oneHot(ctx.input(1), hot);
        double n = z.rank() == 2 ? z.shape()[0] : 1;
        return new Tensor[] {Ops.mul(g, Ops.mul(Ops.sub(Ops.softmax(z, -1), hot), 1.0 / n)), null};
    }

    @Override
    public String jvpRule() {
        return "ẏ = Σ (softmax(z) − onehot(t)) ⊙ ż / N";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        // The saved (softmax − onehot)/N is ∂loss/∂z.
        return Ops.sum(Ops.mul(ctx.saved(0), t[0]));
    }
}
