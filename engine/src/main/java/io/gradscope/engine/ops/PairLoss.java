package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.UnaryKind;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.function.BinaryOperator;

/**
 * A loss of an input and a target, elementwise and then reduced (PyTorch's {@code reduction}:
 * "mean", "sum", "none", and kl_div's "batchmean"): l1_loss, smooth_l1_loss, huber_loss,
 * binary_cross_entropy_with_logits, kl_div. Each gives its elementwise value in primitives and its
 * two partial derivatives in differentiable ops; the VJP, JVP and dependency rule follow from them.
 */
final class PairLoss extends Op {
    private final String name;
    private final String label;
    private final String rule;
    private final String reduction;
    private final BinaryOperator<Tensor> value;
    private final BinaryOperator<Tensor> da;
    private final BinaryOperator<Tensor> db;

    private PairLoss(String name, String label, String rule, String reduction, BinaryOperator<Tensor> value,
                     BinaryOperator<Tensor> da, BinaryOperator<Tensor> db) {
        this.name = name;
        this.label = label;
        this.rule = rule;
        this.reduction = reduction;
        this.value = value;
        this.da = da;
        this.db = db;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String rule() {
        return rule + (reduction.equals("none") ? "" : reduction.equals("sum") ? ", times g" : ", times g / n");
    }

    // ---- the losses -------------------------------------------------------------------------

    private static Tensor diff(Tensor a, Tensor b) {
        return Raw.binary(BinaryKind.SUB, a, b);
    }

    /** sign(x), 0 at 0 and at NaN (as abs's gradient). */
    private static Tensor sign(Tensor x) {
        return Raw.unary(UnaryKind.FINITE_OR_ZERO, Raw.unary(UnaryKind.SIGN, x));
    }

    /** 1 where |a − b| < limit. */
    private static Tensor inside(Tensor a, Tensor b, double limit) {
        return Raw.binary(BinaryKind.GT, Raw.scalarLike(a, limit), Raw.unary(UnaryKind.ABS, diff(a, b)));
    }

    static PairLoss l1(String reduction, String label) {
        // the subgradient at a = b is 0 (sign(0)), as PyTorch's.
        return new PairLoss("l1_loss", label, "da = g ⊙ sign(a − b), db = −da", reduction,
                (a, b) -> Raw.unary(UnaryKind.ABS, diff(a, b)), (a, b) -> sign(diff(a, b)), (a, b) -> Raw.mulScalar(sign(diff(a, b)), -1));
    }

    static PairLoss smoothL1(String reduction, double beta, String label) {
        BinaryOperator<Tensor> d = (a, b) -> WhereOp.of(inside(a, b, beta), Ops.mul(Ops.sub(a, b), 1 / beta), sign(diff(a, b)));
        return new PairLoss("smooth_l1_loss", label, "da = g ⊙ (|a − b| < beta ? (a − b)/beta : sign(a − b)), db = −da", reduction,
                (a, b) -> {
                    Tensor x = diff(a, b);
                    Tensor ax = Raw.unary(UnaryKind.ABS, x);
                    return WhereOp.select(inside(a, b, beta), Raw.mulScalar(Raw.binary(BinaryKind.MUL, x, x), 0.5 / beta),
                            Raw.binary(BinaryKind.SUB, ax, Raw.scalarLike(a, 0.5 * beta)));
                }, d, (a, b) -> Ops.neg(d.apply(a, b)));
    }

    static PairLoss huber(String reduction, double delta, String label) {
        BinaryOperator<Tensor> d = (a, b) -> WhereOp.of(inside(a, b, delta), Ops.sub(a, b), Raw.mulScalar(sign(diff(a, b)), delta));
        return new PairLoss("huber_loss", label, "da = g ⊙ (|a − b| < delta ? a − b : delta·sign(a − b)), db = −da", reduction,
                (a, b) -> {
                    Tensor x = diff(a, b);
                    Tensor ax = Raw.unary(UnaryKind.ABS, x);
                    return WhereOp.select(inside(a, b, delta), Raw.mulScalar(Raw.binary(BinaryKind.MUL, x, x), 0.5),
                            Raw.mulScalar(Raw.binary(BinaryKind.SUB, ax, Raw.scalarLike(a, 0.5 * delta)), delta));
                }, d, (a, b) -> Ops.neg(d.apply(a, b)));
    }

    static PairLoss bceWithLogits(String reduction, String label) {
        return new PairLoss("binary_cross_entropy_with_logits", label, "dx = g ⊙ (sigmoid(x) − y), dy = −g ⊙ x", reduction,
                (x, y) -> {
                    // max(x, 0) − x·y + log(1 + exp(−|x|)): no overflow for large |x|
                    Tensor relu = Raw.binary(BinaryKind.MAX, x, Raw.scalarLike(x, 0));
                    Tensor soft = Raw.unary(UnaryKind.SOFTPLUS, Raw.mulScalar(Raw.unary(UnaryKind.ABS, x), -1));
                    return Raw.binary(BinaryKind.ADD, Raw.binary(BinaryKind.SUB, relu, Raw.binary(BinaryKind.MUL, x, y)), soft);
                }, (x, y) -> Ops.sub(Ops.sigmoid(x), y), (x, y) -> Ops.neg(x));
    }

    static PairLoss klDiv(String reduction, boolean logTarget, String label) {
        if (logTarget) {
            return new PairLoss("kl_div", label, "dx = −g ⊙ exp(t), dt = g ⊙ exp(t)(t − x + 1)", reduction,
                    (x, t) -> Raw.binary(BinaryKind.MUL, Raw.unary(UnaryKind.EXP, t), diff(t, x)),
                    (x, t) -> Ops.neg(Ops.exp(t)), (x, t) -> Ops.mul(Ops.exp(t), Ops.add(Ops.sub(t, x), 1)));
        }
        // t·(log t − x) is taken as 0 where t ≤ 0 (PyTorch's where(t > 0, ...)), and so is x's gradient; t's
        // gradient is PyTorch's (log t + 1 − x)·[t > 0], NaN at t = 0 (log 0 · 0), where t has no derivative anyway.
        return new PairLoss("kl_div", label, "dx = −g ⊙ t, dt = g ⊙ (log t + 1 − x), times [t > 0]", reduction,
                (x, t) -> WhereOp.select(Raw.binary(BinaryKind.GT, t, Raw.scalarLike(t, 0)),
                        Raw.binary(BinaryKind.MUL, t, diff(Raw.unary(UnaryKind.LOG, t), x)), Raw.scalarLike(t, 0)),
                (x, t) -> WhereOp.of(Raw.binary(BinaryKind.GT, t, Raw.scalarLike(t, 0)), Ops.neg(t), Ops.constant(0, t)),
                (x, t) -> Ops.mul(Ops.sub(Ops.add(Ops.log(t), 1), x), Raw.binary(BinaryKind.GT, t, Raw.scalarLike(t, 0))));
    }

    // ---- shape, forward, derivatives ----------------------------------------------------------

    private int[] elementShape(int[][] shapes) {
        return Shapes.broadcast(name, shapes[0], shapes[1]);
    }

    /** Per element of the broadcast pair: the difference or product, the loss's few steps, the sum: about 4. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 4 * Shapes.numel(Shapes.broadcast(name, inputs[0], inputs[1]));
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name, shapes, 2);
        Checks.floats(name, dtypes, 0, 1);
        int[] e = elementShape(shapes);
        if (reduction.equals("batchmean") && e.length == 0) {
            throw new GradscopeException(name + ": reduction=\"batchmean\" needs a batch axis, not a 0-d input");
        }
        return reduction.equals("none") ? e : new int[0];
    }

    /** What the element sum is divided by: n for mean, the batch for batchmean, 1 for sum. */
    private double divisor(int[] elements) {
        return switch (reduction) {
            case "mean" -> Shapes.numel(elements);
            case "batchmean" -> elements[0];
            default -> 1;
        };
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor l = value.apply(in[0], in[1]);
        int[] e = elementShape(new int[][] {in[0].shape(), in[1].shape()});
        if (!l.hasShape(e)) {
            l = Raw.copy(l.viewExpand(e));
        }
        if (reduction.equals("none")) {
            return l;
        }
        Tensor s = Raw.reduce(ReduceKind.SUM, l, Shapes.axes(name, null, l.rank()), false);
        return Raw.binary(BinaryKind.DIV, s, Raw.scalarLike(s, divisor(e)));
    }

    /** g spread over the elements: as is for none, divided by the divisor for the reductions. */
    private Tensor spread(Tensor g, int[] e) {
        if (reduction.equals("none")) {
            return g;
        }
        return Ops.broadcastTo(Ops.div(g, Ops.constant(divisor(e), g)), e);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        Tensor gs = spread(g, elementShape(new int[][] {a.shape(), b.shape()}));
        return new Tensor[] {
            ctx.needsGrad(0) ? Ops.sumTo(Ops.mul(gs, da.apply(a, b)), a) : null,
            ctx.needsGrad(1) ? Ops.sumTo(Ops.mul(gs, db.apply(a, b)), b) : null};
    }

    @Override
    public String jvpRule() {
        return "ẏ = reduce(ȧ ⊙ ∂l/∂a + ḃ ⊙ ∂l/∂b)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        int[] e = elementShape(new int[][] {a.shape(), b.shape()});
        Tensor d = null;
        if (t[0] != null) {
            d = Ops.mul(t[0], da.apply(a, b));
        }
        if (t[1] != null) {
            Tensor tb = Ops.mul(t[1], db.apply(a, b));
            d = d == null ? tb : Ops.add(d, tb);
        }
        d = Ops.broadcastTo(d, e);
        if (reduction.equals("none")) {
            return d;
        }
        return Ops.div(Ops.sum(d), Ops.constant(divisor(e), d));
    }

    /** Every output element on the input elements broadcast onto it (all of them when reduced). */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] e = elementShape(shapes);
        Pattern p = Dependencies.broadcast(e, shapes[input]);
        return reduction.equals("none") ? p : Pattern.dense(1, Dependencies.numel(e)).times(p);
    }

    /** At these values, only where the partial derivative is not 0 (kl_div's t ≤ 0, l1 at a = b). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        int[] e = elementShape(new int[][] {a.shape(), b.shape()});
        double[] d;
        try (var off = io.gradscope.engine.ops.GradMode.disable()) {
            d = (input == 0 ? da : db).apply(a, b).viewExpand(e).toDoubleArray();
        }
        int[] src = Dependencies.walk(e, Dependencies.broadcastStrides(ctx.input(input).shape(), e), 0);
        for (int k = 0; k < src.length; k++) {
            if (d[k] == 0) {
                src[k] = -1;
            }
        }
        Pattern p = Pattern.gather(src, Dependencies.numel(ctx.input(input).shape()));
        return reduction.equals("none") ? p : Pattern.dense(1, Dependencies.numel(e)).times(p);
    }
}
