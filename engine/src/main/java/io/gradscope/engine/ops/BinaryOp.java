package io.gradscope.engine.ops;

import io.gradscope.engine.backend.BinaryKind;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;

/**
 * Elementwise arithmetic with NumPy broadcasting. Each VJP reduces the gradient back over the
 * broadcast axes ({@link Ops#sumTo}).
 */
public final class BinaryOp extends Op {
    interface Vjp {
        Tensor[] of(Tensor a, Tensor b, Tensor y, Tensor g);
    }

    public static final BinaryOp ADD = new BinaryOp("add", "+", BinaryKind.ADD, "da = g, db = g",
            (a, b, y, g) -> new Tensor[] {g, g});
    public static final BinaryOp SUB = new BinaryOp("sub", "-", BinaryKind.SUB, "da = g, db = −g",
            (a, b, y, g) -> new Tensor[] {g, Ops.neg(g)});
    public static final BinaryOp MUL = new BinaryOp("mul", "*", BinaryKind.MUL, "da = g ⊙ b, db = g ⊙ a",
            (a, b, y, g) -> new Tensor[] {Ops.mul(g, b), Ops.mul(g, a)});
    public static final BinaryOp DIV = new BinaryOp("div", "/", BinaryKind.DIV, "da = g / b, db = −g ⊙ a / b²",
            (a, b, y, g) -> new Tensor[] {Ops.div(g, b), Ops.neg(Ops.div(Ops.mul(g, a), Ops.mul(b, b)))});

    public static final List<BinaryOp> ALL = List.of(ADD, SUB, MUL, DIV);

    private final String name;
    private final String symbol;
    private final String quoted;
    private final BinaryKind kind;
    private final String rule;
    private final Vjp vjp;

    private BinaryOp(String name, String symbol, BinaryKind kind, String rule, Vjp vjp) {
        this.name = name;
        this.symbol = symbol;
        this.quoted = "'" + symbol + "'";
        this.kind = kind;
        this.rule = rule;
        this.vjp = vjp;
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

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // add and sub pass g on; mul and div compute both inputs' terms from both inputs.
        return kind == BinaryKind.ADD || kind == BinaryKind.SUB ? VjpReads.none(2) : VjpReads.of(2, false, 0, 1);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name, shapes, 2);
        Checks.floats(quoted, dtypes, 0, 1);
        return Shapes.broadcast(quoted, shapes[0], shapes[1]);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        return Raw.binary(kind, in[0], in[1]);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        Tensor[] d = vjp.of(a, b, ctx.output(), g);
        return new Tensor[] {
            ctx.needsGrad(0) ? Ops.sumTo(d[0], a.shape()) : null,
            ctx.needsGrad(1) ? Ops.sumTo(d[1], b.shape()) : null};
    }

    @Override
    public String jvpRule() {
        return switch (name) {
            case "mul" -> "ẏ = ȧ ⊙ b + a ⊙ ḃ";
            case "div" -> "ẏ = (ȧ − y ⊙ ḃ) / b";
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
            default -> super.jvp(ctx, t);
        };
    }
}
