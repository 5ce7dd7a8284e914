package io.gradscope.engine.ops;

import io.gradscope.engine.backend.UnaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;

/**
 * Elementwise functions of one tensor. Each gives its derivative once, {@code dy/dx} as a tensor,
 * and gets both its VJP ({@code g ⊙ dy/dx}) and its JVP ({@code ẋ ⊙ dy/dx}) from it.
 */
public final class UnaryOp extends Op {
    /** {@code dy/dx} from the input and the output. */
    interface Derivative {
        Tensor of(Tensor x, Tensor y);
    }

    public static final UnaryOp NEG = new UnaryOp("neg", UnaryKind.NEG, "dx = −g",
            (x, y) -> Ops.constant(-1, x));
    public static final UnaryOp EXP = new UnaryOp("exp", UnaryKind.EXP, "dx = g ⊙ y", (x, y) -> y);
    public static final UnaryOp LOG = new UnaryOp("log", UnaryKind.LOG, "dx = g / x",
            (x, y) -> Ops.div(Ops.constant(1, x), x));
    public static final UnaryOp SQRT = new UnaryOp("sqrt", UnaryKind.SQRT, "dx = g / (2·y)",
            (x, y) -> Ops.div(Ops.constant(0.5, x), y));
    // NOTE: abs has subgradient sign(0) = 0 at 0, as in PyTorch.
    public static final UnaryOp ABS = new UnaryOp("abs", UnaryKind.ABS, "dx = g ⊙ sign(x)",
            (x, y) -> Raw.unary(UnaryKind.SIGN, x));
    public static final UnaryOp SIN = new UnaryOp("sin", UnaryKind.SIN, "dx = g ⊙ cos(x)", (x, y) -> Ops.cos(x));
    public static final UnaryOp COS = new UnaryOp("cos", UnaryKind.COS, "dx = −g ⊙ sin(x)",
            (x, y) -> Ops.neg(Ops.sin(x)));
    public static final UnaryOp TANH = new UnaryOp("tanh", UnaryKind.TANH, "dx = g ⊙ (1 − y²)",
            (x, y) -> Ops.sub(Ops.constant(1, x), Ops.mul(y, y)));
    public static final UnaryOp SIGMOID = new UnaryOp("sigmoid", UnaryKind.SIGMOID, "dx = g ⊙ y ⊙ (1 − y)",
            (x, y) -> Ops.mul(y, Ops.sub(Ops.constant(1, x), y)));
    // NOTE: ReLU's subgradient at 0 is 0, as in PyTorch.
    public static final UnaryOp RELU = new UnaryOp("relu", UnaryKind.RELU, "dx = g ⊙ [x > 0]",
            (x, y) -> Raw.unary(UnaryKind.STEP, x));
    // NOTE: the derivative is a primitive, so gelu's second derivative is not available yet.
    public static final UnaryOp GELU = new UnaryOp("gelu", UnaryKind.GELU,
            "dx = g ⊙ (½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²)), t = tanh(√(2/π)(x + 0.044715x³))",
            (x, y) -> Raw.unary(UnaryKind.GELU_GRAD, x));
    // NOTE: above the threshold 20 softplus is x itself, so its derivative is exactly 1 there (PyTorch).
    public static final UnaryOp SOFTPLUS = new UnaryOp("softplus", UnaryKind.SOFTPLUS,
            "dx = g ⊙ sigmoid(x)  (g where x > 20)", (x, y) -> Raw.unary(UnaryKind.SOFTPLUS_GRAD, x));

    /** The functions of the program format (neg is the unary minus operator). */
    public static final List<UnaryOp> ALL = List.of(NEG, EXP, LOG, SQRT, ABS, SIN, COS, TANH, SIGMOID, RELU, GELU, SOFTPLUS);

    private final String name;
    private final UnaryKind kind;
    private final String rule;
    private final Derivative derivative;

    private UnaryOp(String name, UnaryKind kind, String rule, Derivative derivative) {
        this.name = name;
        this.kind = kind;
        this.rule = rule;
        this.derivative = derivative;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String rule() {
        return rule;
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name, shapes, 1);
        Checks.floats(name, dtypes, 0);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        return Raw.unary(kind, in[0]);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        return new Tensor[] {Ops.mul(g, derivative.of(ctx.input(0), ctx.output()))};
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... tangents) {
        return Ops.mul(tangents[0], derivative.of(ctx.input(0), ctx.output()));
    }
}
