package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * A loss of an input and a target, elementwise and then reduced (PyTorch's {@code reduction}:
 * "mean", "sum", "none", and kl_div's "batchmean"): l1_loss, smooth_l1_loss, huber_loss,
 * binary_cross_entropy_with_logits (with its optional weight and pos_weight, inputs 3 and 4), kl_div. Each
 * gives its elementwise value in primitives and a partial derivative per input in differentiable ops; the
 * VJP, JVP and dependency rule follow from them. Every input is broadcast onto the elements.
 */
final class PairLoss extends Op {
    private final String name;
    private final String label;
    private final String rule;
    private final String reduction;
    private final Function<Tensor[], Tensor> value;
    private final List<Function<Tensor[], Tensor>> partials;

    private PairLoss(String name, String label, String rule, String reduction, Function<Tensor[], Tensor> value,
                     List<Function<Tensor[], Tensor>> partials) {
        this.name = name;
        this.label = label;
        this.rule = rule;
        this.reduction = reduction;
        this.value = value;
        this.partials = partials;
    }

    private PairLoss(String name, String label, String rule, String reduction, BinaryOperator<Tensor> value,
                     BinaryOperator<Tensor> da, BinaryOperator<Tensor> db) {
        this(name, label, rule, reduction, in -> value.apply(in[0], in[1]),
                List.of(in -> da.apply(in[0], in[1]), in -> db.apply(in[0], in[1])));
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
        return Unrecorded.binary(BinaryKind.SUB, a, b);
    }

    /** sign(x), 0 at 0 and at NaN (as abs's gradient). */
    private static Tensor sign(Tensor x) {
        return Unrecorded.unary(UnaryKind.FINITE_OR_ZERO, Unrecorded.unary(UnaryKind.SIGN, x));
    }

    /** 1 where |a − b| < limit. */
    private static Tensor inside(Tensor a, Tensor b, double limit) {
        return Unrecorded.binary(BinaryKind.GT, Unrecorded.scalarLike(a, limit), Unrecorded.unary(UnaryKind.ABS, diff(a, b)));
    }

    static PairLoss l1(String reduction, String label) {
        // the subgradient at a = b is 0 (sign(0)), as PyTorch's.
        return new PairLoss("l1_loss", label, "da = g ⊙ sign(a − b), db = −da", reduction,
                (a, b) -> Unrecorded.unary(UnaryKind.ABS, diff(a, b)), (a, b) -> sign(diff(a, b)), (a, b) -> Unrecorded.mulScalar(sign(diff(a, b)), -1));
    }

    static PairLoss smoothL1(String reduction, double beta, String label) {
        BinaryOperator<Tensor> d = (a, b) -> WhereOp.of(inside(a, b, beta), Ops.mul(Ops.sub(a, b), 1 / beta), sign(diff(a, b)));
        return new PairLoss("smooth_l1_loss", label, "da = g ⊙ (|a − b| < beta ? (a − b)/beta : sign(a − b)), db = −da", reduction,
                (a, b) -> {
                    Tensor x = diff(a, b);
                    Tensor ax = Unrecorded.unary(UnaryKind.ABS, x);
                    return WhereOp.select(inside(a, b, beta), Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.MUL, x, x), 0.5 / beta),
                            Unrecorded.binary(BinaryKind.SUB, ax, Unrecorded.scalarLike(a, 0.5 * beta)));
                }, d, (a, b) -> Ops.neg(d.apply(a, b)));
    }

    static PairLoss huber(String reduction, double delta, String label) {
        BinaryOperator<Tensor> d = (a, b) -> WhereOp.of(inside(a, b, delta), Ops.sub(a, b), Unrecorded.mulScalar(sign(diff(a, b)), delta));
        return new PairLoss("huber_loss", label, "da = g ⊙ (|a − b| < delta ? a − b : delta·sign(a − b)), db = −da", reduction,
                (a, b) -> {
                    Tensor x = diff(a, b);
                    Tensor ax = Unrecorded.unary(UnaryKind.ABS, x);
                    return WhereOp.select(inside(a, b, delta), Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.MUL, x, x), 0.5),
                            Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.SUB, ax, Unrecorded.scalarLike(a, 0.5 * delta)), delta));
                }, d, (a, b) -> Ops.neg(d.apply(a, b)));
    }

    /** log(1 + exp(−x)), in primitives: max(−x, 0) + log(1 + exp(−|x|)), no overflow for large |x|. */
    private static Tensor softplusOfNeg(Tensor x) {
        Tensor relu = Unrecorded.binary(BinaryKind.MAX, Unrecorded.mulScalar(x, -1), Unrecorded.scalarLike(x, 0));
        return Unrecorded.binary(BinaryKind.ADD, relu, Unrecorded.unary(UnaryKind.SOFTPLUS, Unrecorded.mulScalar(Unrecorded.unary(UnaryKind.ABS, x), -1)));
    }

    /**
     * PyTorch's binary_cross_entropy_with_logits: l = w·((1 − y)·x + (1 + (p − 1)·y)·log(1 + exp(−x))), w the weight
     * and p the pos_weight (1 where not given; inputs 3 and 4 in that order, each only where given).
     */
    static PairLoss bceWithLogits(String reduction, boolean weighted, boolean posWeighted, String label) {
        int w = weighted ? 2 : -1;
        int p = posWeighted ? (weighted ? 3 : 2) : -1;
        // 1 + (p − 1)·y, in primitives and in differentiable ops
        Function<Tensor[], Tensor> rawScale = in -> Unrecorded.binary(BinaryKind.ADD, Unrecorded.scalarLike(in[0], 1),
                Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.SUB, in[p], Unrecorded.scalarLike(in[p], 1)), in[1]));
        Function<Tensor[], Tensor> scale = in -> Ops.add(Ops.mul(Ops.add(in[p], -1), in[1]), 1);
        Function<Tensor[], Tensor> sp = in -> Ops.softplus(Ops.neg(in[0]));
        Function<Tensor[], Tensor> value = in -> {
            Tensor x = in[0];
            Tensor y = in[1];
            Tensor l = p < 0
                    // max(x, 0) − x·y + log(1 + exp(−|x|))
                    ? Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.SUB, Unrecorded.binary(BinaryKind.MAX, x, Unrecorded.scalarLike(x, 0)),
                            Unrecorded.binary(BinaryKind.MUL, x, y)), Unrecorded.unary(UnaryKind.SOFTPLUS, Unrecorded.mulScalar(Unrecorded.unary(UnaryKind.ABS, x), -1)))
                    : Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(y, 1), y), x),
                            Unrecorded.binary(BinaryKind.MUL, rawScale.apply(in), softplusOfNeg(x)));
            return w < 0 ? l : Unrecorded.binary(BinaryKind.MUL, l, in[w]);
        };
        // the partials without the weight, then times it
        List<Function<Tensor[], Tensor>> d = new ArrayList<>();
        d.add(p < 0 ? in -> Ops.sub(Ops.sigmoid(in[0]), in[1])
                : in -> Ops.sub(Ops.sub(Ops.constant(1, in[1]), in[1]), Ops.mul(scale.apply(in), Ops.sigmoid(Ops.neg(in[0])))));
        d.add(p < 0 ? in -> Ops.neg(in[0]) : in -> Ops.add(Ops.neg(in[0]), Ops.mul(Ops.add(in[p], -1), sp.apply(in))));
        if (w >= 0) {
            // ∂l/∂w: the unweighted loss, in differentiable ops
            d.add(in -> Ops.add(Ops.mul(Ops.sub(Ops.constant(1, in[1]), in[1]), in[0]),
                    p < 0 ? sp.apply(in) : Ops.mul(scale.apply(in), sp.apply(in))));
        }
        if (p >= 0) {
            d.add(in -> Ops.mul(in[1], sp.apply(in)));
        }
        List<Function<Tensor[], Tensor>> partials = new ArrayList<>();
        for (int i = 0; i < d.size(); i++) {
            Function<Tensor[], Tensor> di = d.get(i);
            partials.add(w < 0 || i == w ? di : in -> Ops.mul(di.apply(in), in[w]));
        }
        String rule = "l = w·((1 − y)·x + (1 + (p − 1)·y)·softplus(−x)); dx = g ⊙ w·(1 − y − (1 + (p − 1)·y)·sigmoid(−x)), "
                + "dy = g ⊙ w·((p − 1)·softplus(−x) − x), dw = g ⊙ l/w, dp = g ⊙ w·y·softplus(−x)";
        return new PairLoss("binary_cross_entropy_with_logits", label,
                w < 0 && p < 0 ? "dx = g ⊙ (sigmoid(x) − y), dy = −g ⊙ x" : rule, reduction, value, partials);
    }

    static PairLoss klDiv(String reduction, boolean logTarget, String label) {
        if (logTarget) {
            return new PairLoss("kl_div", label, "dx = −g ⊙ exp(t), dt = g ⊙ exp(t)(t − x + 1)", reduction,
                    (x, t) -> Unrecorded.binary(BinaryKind.MUL, Unrecorded.unary(UnaryKind.EXP, t), diff(t, x)),
                    (x, t) -> Ops.neg(Ops.exp(t)), (x, t) -> Ops.mul(Ops.exp(t), Ops.add(Ops.sub(t, x), 1)));
        }
        // t·(log t − x) is taken as 0 where t ≤ 0 (PyTorch's where(t > 0, ...)), and so is x's gradient; t's
        // gradient is PyTorch's (log t + 1 − x)·[t > 0], NaN at t = 0 (log 0 · 0), where t has no derivative anyway.
        return new PairLoss("kl_div", label, "dx = −g ⊙ t, dt = g ⊙ (log t + 1 − x), times [t > 0]", reduction,
                (x, t) -> WhereOp.select(Unrecorded.binary(BinaryKind.GT, t, Unrecorded.scalarLike(t, 0)),
                        Unrecorded.binary(BinaryKind.MUL, t, diff(Unrecorded.unary(UnaryKind.LOG, t), x)), Unrecorded.scalarLike(t, 0)),
                (x, t) -> WhereOp.of(Unrecorded.binary(BinaryKind.GT, t, Unrecorded.scalarLike(t, 0)), Ops.neg(t), Ops.constant(0, t)),
                (x, t) -> Ops.mul(Ops.sub(Ops.add(Ops.log(t), 1), x), Unrecorded.binary(BinaryKind.GT, t, Unrecorded.scalarLike(t, 0))));
    }

    // ---- shape, forward, derivatives ----------------------------------------------------------

    /** The elements: every input broadcast together. */
    private int[] elementShape(int[][] shapes) {
        int[] e = shapes[0];
        for (int i = 1; i < shapes.length; i++) {
            e = Shapes.broadcast(name, e, shapes[i]);
        }
        return e;
    }

    private static int[][] shapes(Tensor[] in) {
        int[][] s = new int[in.length][];
        for (int i = 0; i < in.length; i++) {
            s[i] = in[i].shape();
        }
        return s;
    }

    /** Per element of the broadcast inputs: the difference or product, the loss's few steps, the sum: about 4 (2 more a weight). */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return (4 + 2L * (inputs.length - 2)) * Shapes.numel(elementShape(inputs));
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name, shapes, partials.size());
        Checks.floats(name, dtypes, java.util.stream.IntStream.range(0, shapes.length).toArray());
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
        Tensor l = value.apply(in);
        int[] e = elementShape(shapes(in));
        if (!l.hasShape(e)) {
            l = Unrecorded.copy(l.viewExpand(e));
        }
        if (reduction.equals("none")) {
            return l;
        }
        Tensor s = Unrecorded.reduce(ReduceKind.SUM, l, Shapes.axes(name, null, l.rank()), false);
        return Unrecorded.binary(BinaryKind.DIV, s, Unrecorded.scalarLike(s, divisor(e)));
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
        Tensor[] in = ctx.inputValues();
        Tensor gs = spread(g, elementShape(shapes(in)));
        Tensor[] out = new Tensor[in.length];
        for (int i = 0; i < in.length; i++) {
            out[i] = ctx.needsGrad(i) ? Ops.sumTo(Ops.mul(gs, partials.get(i).apply(in)), in[i]) : null;
        }
        return out;
    }

    @Override
    public String jvpRule() {
        return "ẏ = reduce(Σ ȧᵢ ⊙ ∂l/∂aᵢ)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor[] in = ctx.inputValues();
        int[] e = elementShape(shapes(in));
        Tensor d = null;
        for (int i = 0; i < in.length; i++) {
            if (t[i] != null) {
                Tensor ti = Ops.mul(t[i], partials.get(i).apply(in));
                d = d == null ? ti : Ops.add(d, ti);
            }
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

    /** At these values, only where the partial derivative is not 0 (kl_div's t ≤ 0, l1 at a = b, a weight of 0). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        Tensor[] in = ctx.inputValues();
        int[] e = elementShape(shapes(in));
        double[] d;
        try (var off = io.gradscope.engine.ops.GradMode.disable()) {
            d = partials.get(input).apply(in).viewExpand(e).toDoubleArray();
        }
        int[] src = Dependencies.walk(e, Dependencies.broadcastStrides(in[input].shape(), e), 0);
        for (int k = 0; k < src.length; k++) {
            if (d[k] == 0) {
                src[k] = -1;
            }
        }
        Pattern p = Pattern.gather(src, Dependencies.numel(in[input].shape()));
        return reduction.equals("none") ? p : Pattern.dense(1, Dependencies.numel(e)).times(p);
    }
}
