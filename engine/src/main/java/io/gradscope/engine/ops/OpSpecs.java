package io.gradscope.engine.ops;

import static io.gradscope.engine.ops.OpSpec.fn;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.UnaryKind;
import io.gradscope.engine.ops.ScalarForm.Term;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Every op, declared once. Adding an op is one entry here (and its reference rows in
 * {@code gen_op_table.py}): the registry, the program language's function table, the function table
 * of docs/PROGRAM-FORMAT.md and the generic op tests are all derived from this list.
 *
 * <p>Elementwise functions are written out in full here (forward, derivative, rule text); other ops
 * name the class that holds their shape rule, forward and VJP.
 */
public final class OpSpecs {
    private static final Map<String, OpSpec> BY_NAME = new LinkedHashMap<>();

    private OpSpecs() {
    }

    // ---- arithmetic operators ---------------------------------------------------------------

    static {
        for (BinaryOp op : BinaryOp.ALL) {
            def(fn(op.name()).tensor("a").tensor("b").operator(op.symbol()).torch("torch." + op.name())
                    .linearIf(op == BinaryOp.ADD || op == BinaryOp.SUB).op(a -> op));
        }
        def(fn("matmul").tensor("a").tensor("b").operator("@").torch("torch.matmul").op(a -> MatMulOp.INSTANCE));
        def(fn("pow").tensor("x").number("exponent").operator("**").torch("torch.pow(x, c)")
                .reference("torch.pow(x, exponent)")
                .op(a -> new PowOp(a.number("exponent"))));
    }

    // ---- elementwise functions: forward, dy/dx, rule ------------------------------------------

    public static final UnaryOp NEG = elementwise(fn("neg").operator("-").linear().torch("torch.neg"), f -> f
            .kernel(UnaryKind.NEG).rule("dx = −g").derivative((x, y) -> Ops.constant(-1, x)).scalar(Term::neg));
    public static final UnaryOp EXP = elementwise(fn("exp").torch("torch.exp"), f -> f
            .kernel(UnaryKind.EXP).rule("dx = g ⊙ y").derivative((x, y) -> y).scalar(Term::exp));
    public static final UnaryOp LOG = elementwise(fn("log").torch("torch.log"), f -> f
            .forward(x -> Raw.unary(UnaryKind.LOG, x)).rule("dx = g / x").derivative((x, y) -> Ops.div(Ops.constant(1, x), x))
            .positiveDomain().scalar(Term::log));
    public static final UnaryOp SQRT = elementwise(fn("sqrt").torch("torch.sqrt"), f -> f
            .forward(x -> Raw.unary(UnaryKind.SQRT, x)).rule("dx = g / (2·y)").derivative((x, y) -> Ops.div(Ops.constant(0.5, x), y))
            .positiveDomain().scalar(t -> t.pow(0.5)));
    // NOTE: abs has subgradient sign(0) = 0 at 0, as in PyTorch.
    public static final UnaryOp ABS = elementwise(fn("abs").torch("torch.abs"), f -> f
            .kernel(UnaryKind.ABS).rule("dx = g ⊙ sign(x)").derivative((x, y) -> Raw.unary(UnaryKind.SIGN, x)));
    public static final UnaryOp SIN = elementwise(fn("sin").torch("torch.sin"), f -> f
            .kernel(UnaryKind.SIN).rule("dx = g ⊙ cos(x)").derivative((x, y) -> Ops.cos(x)));
    public static final UnaryOp COS = elementwise(fn("cos").torch("torch.cos"), f -> f
            .kernel(UnaryKind.COS).rule("dx = −g ⊙ sin(x)").derivative((x, y) -> Ops.neg(Ops.sin(x))));
    public static final UnaryOp TANH = elementwise(fn("tanh").torch("torch.tanh"), f -> f
            .kernel(UnaryKind.TANH).rule("dx = g ⊙ (1 − y²)").derivative((x, y) -> Ops.sub(Ops.constant(1, x), Ops.mul(y, y)))
            .scalar(Term::tanh));
    public static final UnaryOp SIGMOID = elementwise(fn("sigmoid").torch("torch.sigmoid"), f -> f
            .kernel(UnaryKind.SIGMOID).rule("dx = g ⊙ y ⊙ (1 − y)").derivative((x, y) -> Ops.mul(y, Ops.sub(Ops.constant(1, x), y)))
            .scalar(t -> t.neg().exp().add(1).pow(-1)));
    // NOTE: ReLU's subgradient at 0 is 0, as in PyTorch.
    public static final UnaryOp RELU = elementwise(fn("relu").torch("torch.relu"), f -> f
            .kernel(UnaryKind.RELU).rule("dx = g ⊙ [x > 0]").derivative((x, y) -> Raw.unary(UnaryKind.STEP, x)).scalar(Term::relu));
    public static final UnaryOp GELU = elementwise(fn("gelu").torch("F.gelu(x, approximate=\"tanh\")"), f -> f
            .forward(x -> Raw.unary(UnaryKind.GELU, x))
            .rule("dx = g ⊙ (½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²)), t = tanh(√(2/π)(x + 0.044715x³))")
            .derivative(OpSpecs::geluDerivative).fusedDerivative((x, y) -> Raw.unary(UnaryKind.GELU_GRAD, x)));
    // NOTE: above the threshold 20 softplus is x itself, so its derivative is exactly 1 there (PyTorch).
    public static final UnaryOp SOFTPLUS = elementwise(fn("softplus").torch("F.softplus(x)").note("beta 1, threshold 20"), f -> f
            .forward(x -> Raw.unary(UnaryKind.SOFTPLUS, x)).rule("dx = g ⊙ sigmoid(x)  (g where x > 20)")
            .derivative(OpSpecs::softplusDerivative).fusedDerivative((x, y) -> Raw.unary(UnaryKind.SOFTPLUS_GRAD, x)));
    // Written from primitives: x · sigmoid(x) needs no kernel of its own.
    public static final UnaryOp SILU = elementwise(fn("silu").torch("F.silu(x)"), f -> f
            .forward(x -> Raw.binary(BinaryKind.MUL, x, Raw.unary(UnaryKind.SIGMOID, x)))
            .rule("dx = g ⊙ s ⊙ (1 + x ⊙ (1 − s)), s = sigmoid(x)")
            .derivative((x, y) -> {
                Tensor s = Ops.sigmoid(x);
                return Ops.mul(s, Ops.add(Ops.mul(x, Ops.sub(Ops.constant(1, x), s)), 1));
            }));

    static {
        // NOTE: the gradient is 0 at min_val and max_val themselves, as in PyTorch's hardtanh_backward.
        def(fn("hardtanh").tensor("x").number("min_val", -1.0).number("max_val", 1.0)
                .torch("F.hardtanh(x, min_val, max_val)").elementwise().op(a -> {
                    double lo = a.number("min_val");
                    double hi = a.number("max_val");
                    return UnaryOp.named("hardtanh").label(a.label()).rule("dx = g ⊙ [min_val < x < max_val]")
                            .forward(x -> Raw.binary(BinaryKind.MIN, Raw.binary(BinaryKind.MAX, x, Raw.scalarLike(x, lo)),
                                    Raw.scalarLike(x, hi)))
                            .derivative((x, y) -> Raw.binary(BinaryKind.MUL, Raw.binary(BinaryKind.GT, x, Raw.scalarLike(x, lo)),
                                    Raw.binary(BinaryKind.GT, Raw.scalarLike(x, hi), x)))
                            .build();
                }));
    }

    // ---- reductions ---------------------------------------------------------------------------

    static {
        for (ReduceOp.Kind k : ReduceOp.Kind.values()) {
            String name = k.name().toLowerCase(java.util.Locale.ROOT);
            // A reduction over every axis keeps PyTorch's own one-call form (x.sum()), as the references were made.
            String every = k == ReduceOp.Kind.AMAX ? "" : "x." + name + "() if axis is None and not keepdim else ";
            def(fn(name).tensor("x").axes("axis", null).bool("keepdim", false).torch("torch." + name)
                    .reference(every + "torch." + name + "(x, dim=axis if axis is not None else tuple(range(x.dim())), keepdim=keepdim)")
                    .note("`axis` an int, a tuple of ints, or None for all").linearIf(k != ReduceOp.Kind.AMAX)
                    .op(a -> new ReduceOp(k, a.axes("axis"), a.bool("keepdim"))));
        }
        def(fn("logsumexp").tensor("x").axes("axis", new int[] {-1}).bool("keepdim", false).torch("torch.logsumexp")
                .op(a -> new LogSumExpOp(a.axes("axis"), a.bool("keepdim"))));
        def(fn("softmax").tensor("x").integer("axis", -1).torch("torch.softmax")
                .op(a -> new SoftmaxOp(a.integer("axis"), false)));
        def(fn("log_softmax").tensor("x").integer("axis", -1).torch("torch.log_softmax")
                .op(a -> new SoftmaxOp(a.integer("axis"), true)));
    }

    // ---- views and shape ----------------------------------------------------------------------

    static {
        def(fn("reshape").tensor("x").dims("shape", "d", "dimensions").torch("x.reshape(...)")
                .reference("x.reshape(shape)").note("one `-1` allowed")
                .view().linear().op(a -> new ViewOps.Reshape(a.ints("shape"))));
        def(fn("transpose").tensor("x").integer("a", -2).integer("b", -1)
                .allOrNone("transpose(x) or transpose(x, a, b)", "a", "b")
                .torch("x.transpose(-2, -1)` / `x.transpose(a, b)").reference("x.transpose(a, b)").view().linear()
                .op(a -> ViewOps.Permute.swap(a.integer("a"), a.integer("b"))));
        def(fn("permute").tensor("x").dims("perm", "p", "axes").torch("x.permute(...)")
                .reference("x.permute(*perm)").view().linear()
                .op(a -> new ViewOps.Permute(a.ints("perm"), null)));
        def(fn("slice").tensor("x").integer("axis").integer("start").integer("stop")
                .torch("x.narrow(axis, start, stop - start)").view().linear()
                .op(a -> new ViewOps.Slice(a.integer("axis"), a.integer("start"), a.integer("stop"))));
        def(fn("pad").tensor("x").integer("axis").integer("before").integer("after")
                .torch("F.pad(x, ...)")
                .reference("F.pad(x, [0, 0] * (x.dim() - 1 - axis % x.dim()) + [before, after])")
                .note("`before` and `after` zeros along `axis`").linear()
                .op(a -> new ViewOps.Pad(a.integer("axis"), a.integer("before"), a.integer("after"))));
        def(fn("concat").tensors().integer("axis", 0).torch("torch.cat([a, b, ...], dim=axis)")
                .reference("torch.cat(tensors, dim=axis)").linear()
                .op(a -> new ViewOps.Concat(a.integer("axis"))));
        def(fn("broadcast_to").tensor("x").dims("shape", "d", "dimensions").torch("x.broadcast_to(...)")
                .reference("x.broadcast_to(shape)").view().linear()
                .op(a -> new ViewOps.BroadcastTo(a.ints("shape"))));
    }

    // ---- losses, norms, attention -------------------------------------------------------------

    static {
        def(fn("cross_entropy").tensor("logits").tensor("labels").classLabels("labels").torch("F.cross_entropy(logits, labels)").note("mean over the batch")
                .op(a -> CrossEntropyOp.INSTANCE));
        def(fn("mse").tensor("a").tensor("b").torch("F.mse_loss(a, b)")
                .reference("F.mse_loss(*torch.broadcast_tensors(a, b))").note("mean").op(a -> MseOp.INSTANCE));
        def(fn("layer_norm").tensor("x").tensor("weight").tensor("bias").number("eps", 1e-5)
                .torch("F.layer_norm(x, x.shape[-1:], weight, bias, eps)").op(a -> new LayerNormOp(a.number("eps"))));
        def(fn("rms_norm").tensor("x").tensor("weight").number("eps", 1e-6)
                .torch("x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * weight").op(a -> new RmsNormOp(a.number("eps"))));
        def(fn("attention").tensor("q").tensor("k").tensor("v").bool("causal", false)
                .torch("softmax(q @ k.transpose(-2,-1) / sqrt(d) + mask, -1) @ v")
                .reference("torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (torch.triu(torch.full((q.shape[-2], "
                        + "k.shape[-2]), float(\"-inf\"), dtype=q.dtype), diagonal=1) if causal else 0), -1) @ v")
                .note("`d = q.shape[-1]`, `mask` = -inf above the diagonal when causal")
                .op(a -> new AttentionOp(a.bool("causal"))));
    }

    // ---- lookups ------------------------------------------------------------------------------

    /** Every spec, in declaration order. */
    public static List<OpSpec> all() {
        return List.copyOf(BY_NAME.values());
    }

    /** The spec called {@code name}, or null. */
    public static OpSpec get(String name) {
        return BY_NAME.get(name);
    }

    /**
     * The spec a program operator applies to {@code operands} tensors ({@code "+"}; {@code "-"} with
     * one is {@code neg}; {@code "**"} has one, its exponent an attribute).
     */
    public static OpSpec byOperator(String symbol, int operands) {
        for (OpSpec s : BY_NAME.values()) {
            if (symbol.equals(s.operator()) && s.params().stream().filter(Param::isTensor).count() == operands) {
                return s;
            }
        }
        return null;
    }

    /** The names programs call, sorted. */
    public static List<String> callableNames() {
        List<String> out = new ArrayList<>();
        for (OpSpec s : BY_NAME.values()) {
            if (s.callable()) {
                out.add(s.name());
            }
        }
        Collections.sort(out);
        return out;
    }

    // ---- declaring ----------------------------------------------------------------------------

    private static OpSpec def(OpSpec.Builder b) {
        OpSpec s = b.build();
        if (BY_NAME.putIfAbsent(s.name(), s) != null) {
            throw new IllegalStateException("two ops are called " + s.name());
        }
        return s;
    }

    /** An elementwise function of one tensor without attributes: one instance serves every call. */
    private static UnaryOp def(OpSpec.Builder b, UnaryOp op) {
        def(b.tensor("x").elementwise().op(a -> op));
        return op;
    }

    /** An elementwise function of one tensor without attributes, its parts given to {@code parts} by label. */
    private static UnaryOp elementwise(OpSpec.Builder b, UnaryOperator<UnaryOp.Builder> parts) {
        return def(b, parts.apply(UnaryOp.named(b.name())).build());
    }

    /** The positional form, kept for entries written before {@link #elementwise}. */
    private static UnaryOp unary(OpSpec.Builder b, UnaryKind kind, String rule, UnaryOp.Derivative derivative) {
        return def(b, UnaryOp.kernel(b.name(), kind, rule, derivative));
    }

    // ---- derivatives too long for one line ------------------------------------------------------

    private static final double GELU_K = Math.sqrt(2 / Math.PI);
    private static final double GELU_C = 0.044715;

    /** ½(1 + t) + ½x(1 − t²)·k(1 + 3c·x²), t = tanh(k(x + c·x³)), in differentiable ops. */
    private static Tensor geluDerivative(Tensor x, Tensor y) {
        Tensor x2 = Ops.mul(x, x);
        Tensor t = Ops.tanh(Ops.mul(Ops.add(x, Ops.mul(Ops.mul(x2, x), GELU_C)), GELU_K));
        Tensor one = Ops.constant(1, x);
        Tensor left = Ops.mul(Ops.add(t, 1), 0.5);
        Tensor slope = Ops.mul(Ops.add(Ops.mul(x2, 3 * GELU_C), 1), GELU_K);
        Tensor right = Ops.mul(Ops.mul(Ops.mul(x, Ops.sub(one, Ops.mul(t, t))), slope), 0.5);
        return Ops.add(left, right);
    }

    /** sigmoid(x) where x ≤ 20, exactly 1 above (the mask is a constant: its derivative is 0). */
    private static Tensor softplusDerivative(Tensor x, Tensor y) {
        Tensor above = Raw.binary(BinaryKind.GT, x, Raw.scalarLike(x, 20));
        Tensor below = Raw.binary(BinaryKind.SUB, Raw.scalarLike(x, 1), above);
        return Ops.add(Ops.mul(Ops.sigmoid(x), below), above);
    }

    // ---- what real models need (the ONNX import): convolution, pooling, batch norm, lookups ---

    public static final UnaryOp ERF = elementwise(fn("erf").torch("torch.erf"), f -> f
            .forward(Erf::forward).rule("dx = g ⊙ 2/√π·exp(−x²)")
            .derivative((x, y) -> Ops.mul(Ops.exp(Ops.neg(Ops.mul(x, x))), Erf.TWO_OVER_SQRT_PI)));

    static {
        for (int d = 1; d <= 2; d++) {
            int spatial = d;
            String name = "conv" + d + "d";
            def(fn(name).tensor("x").tensor("weight").optionalTensor("bias").ints("stride", new int[] {1})
                    .ints("padding", new int[] {0}).ints("dilation", new int[] {1}).integer("groups", 1)
                    .torch("F." + name + "(x, weight, bias, stride, padding, dilation, groups)")
                    .op(a -> new ConvOp(spatial, a.ints("stride"), a.ints("padding"), a.ints("dilation"), a.integer("groups"))));
            String max = "max_pool" + d + "d";
            def(fn(max).tensor("x").ints("kernel_size").ints("stride", null).ints("padding", new int[] {0})
                    .ints("dilation", new int[] {1}).torch("F." + max + "(x, kernel_size, stride, padding, dilation)")
                    .note("the gradient goes to the first maximum of a window")
                    .op(a -> new PoolOps.MaxPool(spatial, Window.of(max, spatial, a.ints("kernel_size"), a.intsOrNull("stride"),
                            a.ints("padding"), a.ints("dilation")))));
            String avg = "avg_pool" + d + "d";
            def(fn(avg).tensor("x").ints("kernel_size").ints("stride", null).ints("padding", new int[] {0})
                    .bool("count_include_pad", true).torch("F." + avg + "(x, kernel_size, stride, padding, count_include_pad=...)")
                    .reference("F." + avg + "(x, kernel_size, stride, padding, count_include_pad=count_include_pad)")
                    .linear()
                    .op(a -> new PoolOps.AvgPool(spatial, Window.of(avg, spatial, a.ints("kernel_size"), a.intsOrNull("stride"),
                            a.ints("padding"), new int[] {1}), a.bool("count_include_pad"))));
        }
        def(fn("unfold").tensor("x").ints("kernel_size").ints("dilation", new int[] {1}).ints("padding", new int[] {0})
                .ints("stride", new int[] {1}).torch("F.unfold(x, kernel_size, dilation, padding, stride)").linear()
                .op(a -> new FoldOps.Unfold(Window.of("unfold", 2, a.ints("kernel_size"), a.ints("stride"), a.ints("padding"),
                        a.ints("dilation")))));
        def(fn("fold").tensor("x").ints("output_size").ints("kernel_size").ints("dilation", new int[] {1})
                .ints("padding", new int[] {0}).ints("stride", new int[] {1})
                .torch("F.fold(x, output_size, kernel_size, dilation, padding, stride)").linear()
                .op(a -> {
                    int[] size = a.ints("output_size");
                    Window w = Window.of("fold", 2, a.ints("kernel_size"), a.ints("stride"), a.ints("padding"), a.ints("dilation"));
                    if (size.length != 1 && size.length != 2) {
                        throw new io.gradscope.engine.GradscopeException("fold: output_size must be one integer or 2");
                    }
                    return new FoldOps.Fold(w, size[0], size[size.length - 1]);
                }));
        def(fn("batch_norm").tensor("x").tensor("running_mean").tensor("running_var").tensor("weight").tensor("bias")
                .number("eps", 1e-5).torch("F.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=eps)")
                .op(a -> new BatchNormOp(a.number("eps"))));
        def(fn("embedding").tensor("indices").tensor("weight").torch("F.embedding(indices, weight)")
                .note("`indices` int64 labels").op(a -> EmbeddingOps.Embedding.INSTANCE));
        def(fn("embedding_dense_backward").tensor("g").tensor("indices").integer("num_weights").internal()
                .torch("g.new_zeros(num_weights, g.shape[-1]).index_add(0, indices.flatten(), g.flatten(0, -2))")
                .op(a -> new EmbeddingOps.DenseBackward(a.integer("num_weights"))));
        def(fn("where").tensor("condition").tensor("a").tensor("b").torch("torch.where(condition != 0, a, b)")
                .note("`condition` an int64 mask, e.g. labels").op(a -> WhereOp.INSTANCE));
    }
}
