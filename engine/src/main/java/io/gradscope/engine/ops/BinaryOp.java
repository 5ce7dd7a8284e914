package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * Elementwise arithmetic with NumPy broadcasting. Each VJP reduces the gradient back over the
 * broadcast axes ({@link Ops#sumTo}).
 */
public final class BinaryOp extends Op {
    /** One input's term of the VJP, before summing over its broadcast axes. */
    interface Term {
        Tensor of(Tensor a, Tensor b, Tensor y, Tensor g);
    }

    public static final BinaryOp ADD = new BinaryOp("add", "+", BinaryKind.ADD, "da = g, db = g",
            (a, b, y, g) -> g, (a, b, y, g) -> g, ScalarForm.Term::add);
    public static final BinaryOp SUB = new BinaryOp("sub", "-", BinaryKind.SUB, "da = g, db = −g",
            (a, b, y, g) -> g, (a, b, y, g) -> Ops.neg(g), ScalarForm.Term::sub);
    public static final BinaryOp MUL = new BinaryOp("mul", "*", BinaryKind.MUL, "da = g ⊙ b, db = g ⊙ a",
            (a, b, y, g) -> Ops.mul(g, b), (a, b, y, g) -> Ops.mul(g, a), ScalarForm.Term::mul);
    public static final BinaryOp DIV = new BinaryOp("div", "/", BinaryKind.DIV, "da = g / b, db = −g ⊙ a / b²",
            (a, b, y, g) -> Ops.div(g, b), (a, b, y, g) -> Ops.neg(Ops.div(Ops.mul(g, a), Ops.mul(b, b))), ScalarForm.Term::div);

    public static final List<BinaryOp> ALL = List.of(ADD, SUB, MUL, DIV);

    // torch.maximum's VJP: ties share g evenly, the smaller side gets 0, and a NaN on either side
    // sends g to both (neither is smaller, they are not equal). Its JVP (PyTorch's) takes ḃ + w·(ȧ − ḃ),
    // w = ½ at a tie and [a > b] elsewhere, so a NaN takes ḃ there: the two disagree at NaN as PyTorch's do.
    public static final BinaryOp MAXIMUM = new BinaryOp("maximum", null, BinaryKind.MAX,
            "da = g ⊙ ([a ≥ b] − ½[a = b]), db = g ⊙ ([b ≥ a] − ½[a = b])",
            (a, b, y, g) -> Ops.mul(g, share(a, b)), (a, b, y, g) -> Ops.mul(g, share(b, a)));
    public static final BinaryOp MINIMUM = new BinaryOp("minimum", null, BinaryKind.MIN,
            "da = g ⊙ ([a ≤ b] − ½[a = b]), db = g ⊙ ([b ≤ a] − ½[a = b])",
            (a, b, y, g) -> Ops.mul(g, share(b, a)), (a, b, y, g) -> Ops.mul(g, share(a, b)));

    /** 1 − [q > p] − ½[p = q]: p's share of maximum(p, q)'s gradient (a constant mask). */
    private static Tensor share(Tensor p, Tensor q) {
        Tensor notBelow = Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(p, 1), Unrecorded.binary(BinaryKind.GT, q, p));
        return Unrecorded.binary(BinaryKind.SUB, notBelow, Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.EQ, p, q), 0.5));
    }

    private final String name;
    private final String symbol;
    private final String quoted;
    private final BinaryKind kind;
    private final String rule;
    private final Term da;
    private final Term db;
    private final BinaryOperator<ScalarForm.Term> scalar;

    /** An op whose scalar form is one step from its forward and VJP terms. */
    private BinaryOp(String name, String symbol, BinaryKind kind, String rule, Term da, Term db) {
        this(name, symbol, kind, rule, da, db, null);
    }

    /** @param scalar the op in the scalar engine's steps ({@code Term::add}), or null for one step */
    private BinaryOp(String name, String symbol, BinaryKind kind, String rule, Term da, Term db,
                     BinaryOperator<ScalarForm.Term> scalar) {
        this.scalar = scalar;
        this.name = name;
        this.symbol = symbol;
        this.quoted = symbol == null ? name : "'" + symbol + "'";
        this.kind = kind;
        this.rule = rule;
        this.da = da;
        this.db = db;
    }

    @Override
    public String name() {
        return name;
    }

    /** The program operator: {@code +}. */
    String symbol() {
        return symbol;
    }

    @Override
    public String rule() {
        return rule;
    }

    /** Elementwise with broadcasting: each output element depends on the element of each input broadcast onto it. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return Dependencies.broadcast(Shapes.broadcast(quoted, shapes[0], shapes[1]), shapes[input]);
    }

    /** maximum and minimum: each output element on the side its gradient goes to (both at a tie). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        if (kind != BinaryKind.MAX && kind != BinaryKind.MIN) {
            return super.localDependencies(input, ctx);
        }
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        int[] out = ctx.output().shape();
        boolean first = input == 0;
        Tensor s = kind == BinaryKind.MAX ? (first ? share(a, b) : share(b, a)) : (first ? share(b, a) : share(a, b));
        double[] w = s.viewExpand(out).toDoubleArray();
        int[] src = Dependencies.walk(out, Dependencies.broadcastStrides(ctx.input(input).shape(), out), 0);
        for (int e = 0; e < src.length; e++) {
            if (w[e] == 0) {
                src[e] = -1;
            }
        }
        return Pattern.gather(src, Dependencies.numel(ctx.input(input).shape()));
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // add and sub pass g on. Only the terms of inputs that need a gradient are computed: mul's
        // term for a reads b and its term for b reads a; div's for a reads b, for b reads both.
        return switch (kind) {
            case ADD, SUB -> VjpReads.none(2);
            case MAX, MIN -> VjpReads.of(2, false, 0, 1);
            case MUL -> new VjpReads(new boolean[] {needsGrad[1], needsGrad[0]}, false);
            default -> new VjpReads(new boolean[] {needsGrad[1], needsGrad[0] || needsGrad[1]}, false);
        };
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name, shapes, 2);
        Checks.floats(quoted, dtypes, 0, 1);
        return Shapes.broadcast(quoted, shapes[0], shapes[1]);
    }

    /** Two float tensors of one shape and dtype pass at once; anything else goes through the shape rule. */
    @Override
    void check(Tensor[] in) {
        if (in.length == 2 && in[0].sameShape(in[1]) && in[0].dtype() == in[1].dtype() && in[0].dtype().isFloating()) {
            return;
        }
        super.check(in);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        return Unrecorded.binary(kind, in[0], in[1]);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        // Only the terms an input needs are computed (as PyTorch's needs_input_grad): x * c with a
        // constant c costs one product in the backward pass, not two.
        Tensor y = ctx.output();
        return new Tensor[] {
            ctx.needsGrad(0) ? Ops.sumTo(da.of(a, b, y, g), a) : null,
            ctx.needsGrad(1) ? Ops.sumTo(db.of(a, b, y, g), b) : null};
    }

    /** Elementwise with broadcasting: as declared, else one step from the forward and the VJP terms at g = 1. */
    @Override
    public ScalarForm scalarForm() {
        return new ScalarForm.Broadcast(scalar != null ? scalar : this::step);
    }

    private ScalarForm.Term step(ScalarForm.Term a, ScalarForm.Term b) {
        double[] v = StandIns.quietly(() -> {
            Tensor x = StandIns.of(a.value());
            Tensor z = StandIns.of(b.value());
            Tensor y = Unrecorded.binary(kind, x, z);
            Tensor one = StandIns.of(1);
            return new double[] {y.toDoubleArray()[0], da.of(x, z, y, one).toDoubleArray()[0], db.of(x, z, y, one).toDoubleArray()[0]};
        });
        return a.apply(name, v[0], v[1], b, v[2]);
    }

    @Override
    public String jvpRule() {
        return switch (name) {
            case "mul" -> "ẏ = ȧ ⊙ b + a ⊙ ḃ";
            case "div" -> "ẏ = (ȧ − y ⊙ ḃ) / b";
            case "maximum" -> "ẏ = ḃ + w ⊙ (ȧ − ḃ), w = a = b ? ½ : [a > b]";
            case "minimum" -> "ẏ = ḃ + w ⊙ (ȧ − ḃ), w = a = b ? ½ : [a < b]";
            default -> "ẏ = ȧ " + symbol + " ḃ";
        };
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        return switch (name) {
            case "mul" -> Ops.add(Ops.mul(t[0], b), Ops.mul(a, t[1]));
            case "div" -> Ops.div(Ops.sub(t[0], Ops.mul(ctx.output(), t[1])), b);
            case "maximum", "minimum" -> {
                Tensor tie = Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.EQ, a, b), 0.5);
                Tensor w = Unrecorded.binary(BinaryKind.ADD, tie, name.equals("maximum") ? Unrecorded.binary(BinaryKind.GT, a, b)
                        : Unrecorded.binary(BinaryKind.GT, b, a));
                yield Ops.add(t[1], Ops.mul(w, Ops.sub(t[0], t[1])));
            }
            default -> super.jvp(ctx, t);
        };
    }
}
