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
 * F.cross_entropy(logits, labels), mean over the batch: logits {@code [N, C]} with labels {@code [N]},
 * or logits {@code [C]} with a 0-d label. Fused: the VJP is {@code (softmax(z) − onehot(t)) / N}.
 */
final class CrossEntropyOp extends Op {
    static final CrossEntropyOp INSTANCE = new CrossEntropyOp();
    /** Where a call gives a weight or probability targets with no option named: PyTorch's defaults, composed. */
    private static final ClassLoss GENERAL = new ClassLoss(true, -100, "mean", 0, "cross_entropy");

    private static boolean general(int[][] shapes, DType[] dtypes) {
        return shapes.length != 2 || dtypes[1].isFloating();
    }

    private static boolean general(OpContext ctx) {
        return ctx.inputCount() != 2 || ctx.inputAt(1).dtype().isFloating();
    }

    @Override
    public String name() {
        return "cross_entropy";
    }

    @Override
    public String rule() {
        return "dz = g ⊙ (softmax(z) − onehot(t)) / N";
    }

    /** The loss depends on every logit (with one class it is the constant 0); the labels take no derivative. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        if (shapes.length != 2 || (shapes[0].length > 0 && java.util.Arrays.equals(shapes[0], shapes[1]))) {
            return GENERAL.dependencies(input, shapes); // a weight, or probability targets (the logits' shape)
        }
        int[] z = shapes[0];
        boolean classes = z.length > 0 && z[z.length - 1] >= 2;
        return input == 0 && classes ? Dependencies.all(new int[0], z) : Dependencies.none(new int[0], shapes[input]);
    }

    /** At these values, the logits where softmax − onehot is not zero (a −∞ logit, or one that underflowed). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        if (general(ctx)) {
            return GENERAL.localDependencies(input, ctx);
        }
        if (input != 0) {
            return super.localDependencies(input, ctx);
        }
        double[] d = ctx.saved(0).toDoubleArray();
        int[] src = new int[d.length];
        for (int e = 0; e < d.length; e++) {
            src[e] = d[e] != 0 ? 0 : -1;
        }
        return Pattern.scatter(src, 1);
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // (softmax − onehot)/N is saved (and ClassLoss saves what it reads).
        return needsGrad.length == 2 ? VjpReads.none(2) : GENERAL.vjpReads(needsGrad);
    }

    /** The log-softmax of the logits, 5 per logit; picking and averaging the rows is small beside it. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 5 * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        if (general(shapes, dtypes)) {
            return GENERAL.outputShape(shapes, dtypes);
        }
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
        if (in.length != 2 || in[1].dtype().isFloating()) {
            return GENERAL.forward(ctx, in);
        }
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
        long n = z.rank() == 2 ? z.shape()[0] : 1;
        Tensor zc = z.contiguous();
        Tensor rows = z.rank() == 2 ? zc : zc.viewReshape(new int[] {1, c});
        Tensor lab = t.rank() == 1 ? t : t.viewReshape(new int[] {1});
        Tensor losses = Tensor.zeros(z.dtype(), z.device(), (int) n);
        Tensor dz = Tensor.zeros(z.dtype(), z.device(), rows.shape());
        Tensor all = null;
        if (z.backend().crossEntropyRows(rows, lab, 1.0 / n, losses, dz)) {
            all = Unrecorded.reduce(ReduceKind.SUM, losses, new int[] {0}, false);
        } else {
            // Composed from kernels: log-softmax and softmax by the fused row kernels (max-subtracted,
            // so large logits stay finite and float32 keeps its precision).
            Tensor hot = Tensor.zeros(z.dtype(), z.device(), rows.shape());
            z.backend().oneHot(lab, hot);
            Tensor logp = Tensor.zeros(z.dtype(), z.device(), rows.shape());
            z.backend().softmaxLastAxis(rows, logp, true);
            all = Unrecorded.unary(UnaryKind.NEG, Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, logp, hot), new int[] {0, 1}, false));
            Tensor p = Tensor.zeros(z.dtype(), z.device(), rows.shape());
            z.backend().softmaxLastAxis(rows, p, false);
            dz = Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.SUB, p, hot), 1.0 / n);
        }
        ctx.save(z.rank() == 2 ? dz : dz.viewReshape(z.shape()));
        return Unrecorded.mulScalar(all, 1.0 / n);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        if (general(ctx)) {
            return GENERAL.vjp(ctx, g);
        }
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
        if (general(ctx)) {
            return GENERAL.jvp(ctx, t);
        }
        // The saved (softmax − onehot)/N is ∂loss/∂z.
        return Ops.sum(Ops.mul(ctx.saved(0), t[0]));
    }
}
