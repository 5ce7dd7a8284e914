package io.gradscope.engine.ops;

import static io.gradscope.engine.ops.OpSpec.fn;

import io.gradscope.engine.ops.ScalarForm.Term;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
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
            .forward(x -> Unrecorded.unary(UnaryKind.LOG, x)).rule("dx = g / x").derivative((x, y) -> Ops.div(Ops.constant(1, x), x))
            .positiveDomain().scalar(Term::log));
    public static final UnaryOp SQRT = elementwise(fn("sqrt").torch("torch.sqrt"), f -> f
            .forward(x -> Unrecorded.unary(UnaryKind.SQRT, x)).rule("dx = g / (2·y)").derivative((x, y) -> Ops.div(Ops.constant(0.5, x), y))
            .positiveDomain().scalar(t -> t.pow(0.5)));
    // abs has subgradient sign(0) = 0 at 0, and 0 at NaN (sign(NaN) is 0 there), as in PyTorch.
    public static final UnaryOp ABS = elementwise(fn("abs").torch("torch.abs"), f -> f
            .kernel(UnaryKind.ABS).rule("dx = g ⊙ sign(x)")
            .derivative((x, y) -> Unrecorded.unary(UnaryKind.FINITE_OR_ZERO, Unrecorded.unary(UnaryKind.SIGN, x))));
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
    // ReLU's subgradient at 0 is 0, and a NaN passes the gradient (x ≤ 0 blocks it), as in PyTorch.
    public static final UnaryOp RELU = elementwise(fn("relu").torch("torch.relu"), f -> f
            .kernel(UnaryKind.RELU).rule("dx = g ⊙ [not x ≤ 0]")
            .derivative((x, y) -> Unrecorded.binary(BinaryKind.ADD, Unrecorded.unary(UnaryKind.STEP, x), Unrecorded.isNan(x))).scalar(Term::relu));
    /** F.gelu(x), exact (PyTorch's default, approximate="none"). */
    public static final UnaryOp GELU = Activations.geluExact(UnaryOp.named("gelu")).build();
    /** F.gelu(x, approximate="tanh"), with a kernel of its own. */
    public static final UnaryOp GELU_TANH = Activations.geluTanh(UnaryOp.named("gelu").label("gelu(approximate=\"tanh\")")).build();

    static {
        elementwise(fn("gelu").string("approximate", "none").torch("F.gelu(x, approximate=approximate)")
                .note("`approximate` \"none\" (erf) or \"tanh\""),
                (a, f) -> a.string("approximate", "none", "tanh").equals("tanh")
                        ? Activations.geluTanh(f.label(GELU_TANH.label())) : Activations.geluExact(f.label(GELU.label())));
    }
    // above the threshold 20 softplus is x itself, so its derivative is exactly 1 there (PyTorch).
    public static final UnaryOp SOFTPLUS = elementwise(fn("softplus").torch("F.softplus(x)").note("beta 1, threshold 20"), f -> f
            .forward(x -> Unrecorded.unary(UnaryKind.SOFTPLUS, x)).rule("dx = g ⊙ sigmoid(x)  (g where x > 20)")
            .derivative(OpSpecs::softplusDerivative).fusedDerivative((x, y) -> Unrecorded.unary(UnaryKind.SOFTPLUS_GRAD, x)));
    // Written from primitives: x · sigmoid(x) needs no kernel of its own.
    public static final UnaryOp SILU = elementwise(fn("silu").torch("F.silu(x)"), f -> f
            .forward(x -> Unrecorded.binary(BinaryKind.MUL, x, Unrecorded.unary(UnaryKind.SIGMOID, x)))
            .rule("dx = g ⊙ s ⊙ (1 + x ⊙ (1 − s)), s = sigmoid(x)")
            .derivative((x, y) -> {
                Tensor s = Ops.sigmoid(x);
                return Ops.mul(s, Ops.add(Ops.mul(x, Ops.sub(Ops.constant(1, x), s)), 1));
            }));

    public static final UnaryOp HARDSWISH = elementwise(fn("hardswish").torch("F.hardswish(x)"), Activations::hardswish);
    public static final UnaryOp HARDSIGMOID = elementwise(fn("hardsigmoid").torch("F.hardsigmoid(x)"), Activations::hardsigmoid);
    public static final UnaryOp MISH = elementwise(fn("mish").torch("F.mish(x)"), Activations::mish);

    static {
        elementwise(fn("leaky_relu").number("negative_slope", 0.01).torch("F.leaky_relu(x, negative_slope)"),
                (a, f) -> Activations.leakyRelu(f, a.number("negative_slope")));
        elementwise(fn("elu").number("alpha", 1.0).torch("F.elu(x, alpha)"), (a, f) -> Activations.elu(f, a.number("alpha")));
        elementwise(fn("hardtanh").number("min_val", -1.0).number("max_val", 1.0).torch("F.hardtanh(x, min_val, max_val)"),
                (a, f) -> Activations.hardtanh(f, a.number("min_val"), a.number("max_val")));
    }

    // ---- reductions ---------------------------------------------------------------------------

    static {
        for (ReduceOp.Kind k : ReduceOp.Kind.values()) {
            String name = k.name().toLowerCase(java.util.Locale.ROOT);
            // A reduction over every axis keeps PyTorch's own one-call form (x.sum()), as the references were made.
            String every = k == ReduceOp.Kind.AMAX ? "" : "x." + name + "() if axis is None and not keepdim else ";
            def(fn(name).tensor("x").axes("axis", null).bool("keepdim", false).torch("torch." + name)
                    .reference(every + "torch." + name + "(x, dim=axis if axis is not None else tuple(range(x.dim())), keepdim=keepdim)")
                    .note("`axis` an int, a tuple of ints, or None or () for all").linearIf(k != ReduceOp.Kind.AMAX)
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
        def(fn("slice").tensor("x").integer("axis").integer("start").integer("stop").integer("step", 1)
                .torch("x.narrow(axis, start, stop - start)` / `x[..., start:stop:step]")
                .reference("x[(slice(None),) * (axis % x.dim()) + (slice(start, stop, step),)]")
                .note("`step` >= 1 keeps every step-th element").view().linear()
                .op(a -> new ViewOps.Slice(a.integer("axis"), a.integer("start"), a.integer("stop"), a.integer("step"))));
        // linear as declared for zeros; a value or mode gives PadWith, whose JVP pads the tangent with zeros
        // (a constant) or in the same mode.
        def(fn("pad").tensor("x").integer("axis").integer("before").integer("after").number("value", 0.0)
                .string("mode", "constant").torch("F.pad(x, ..., mode=mode, value=value)")
                .reference("F.pad(x, [0, 0] * (x.dim() - 1 - axis % x.dim()) + [before, after], value=value) if mode == \"constant\" "
                        + "else F.pad(x.movedim(axis, -1).reshape(1, -1, x.shape[axis]), (before, after), mode=mode)"
                        + ".reshape(*x.movedim(axis, -1).shape[:-1], -1).movedim(-1, axis)")
                .note("`before` and `after` along `axis`; `mode` \"constant\", \"reflect\", \"replicate\" or \"circular\"").linear()
                .op(a -> {
                    String mode = a.string("mode", "constant", "reflect", "replicate", "circular");
                    double value = a.number("value");
                    if (mode.equals("constant") && value == 0) {
                        return new PadConcatOps.Pad(a.integer("axis"), a.integer("before"), a.integer("after"));
                    }
                    return new PadWith(a.integer("axis"), a.integer("before"), a.integer("after"), mode, value, a.label());
                }));
        def(fn("concat").tensors().integer("axis", 0).torch("torch.cat([a, b, ...], dim=axis)")
                .reference("torch.cat(tensors, dim=axis)").linear()
                .op(a -> new PadConcatOps.Concat(a.integer("axis"))));
        def(fn("broadcast_to").tensor("x").dims("shape", "d", "dimensions").torch("x.broadcast_to(...)")
                .reference("x.broadcast_to(shape)").view().linear()
                .op(a -> new ViewOps.BroadcastTo(a.ints("shape"))));
    }

    // ---- losses, norms, attention -------------------------------------------------------------

    static {
        // The fused op where no option is given; ClassLoss for a weight, ignore_index, label_smoothing, a reduction or
        // probability targets (CrossEntropyOp hands those over itself when the inputs ask for them).
        def(fn("cross_entropy").tensor("logits").tensor("labels").optionalTensor("weight").integer("ignore_index", -100)
                .string("reduction", "mean").number("label_smoothing", 0.0).classLabels("labels")
                .torch("F.cross_entropy(logits, labels, weight, ignore_index=..., reduction=..., label_smoothing=...)")
                .reference("F.cross_entropy(logits, labels, weight, ignore_index=ignore_index, reduction=reduction, "
                        + "label_smoothing=label_smoothing)")
                .note("`labels` int64 classes or probabilities of the logits' shape; logits [N, C, d1, ...] take labels [N, d1, ...]")
                .op(a -> ClassesLast.of(a.given("ignore_index") || a.given("reduction") || a.given("label_smoothing")
                        ? new ClassLoss(true, a.integer("ignore_index"), reduction(a), a.number("label_smoothing"), a.label())
                        : CrossEntropyOp.INSTANCE)));
        def(fn("nll_loss").tensor("input").tensor("target").optionalTensor("weight").integer("ignore_index", -100)
                .string("reduction", "mean").torch("F.nll_loss(input, target, weight, ignore_index=..., reduction=...)")
                .reference("F.nll_loss(input, target, weight, ignore_index=ignore_index, reduction=reduction)")
                .op(a -> ClassesLast.of(new ClassLoss(false, a.integer("ignore_index"), reduction(a), 0, a.label()))));
        def(fn("mse").tensor("a").tensor("b").torch("F.mse_loss(a, b)")
                .reference("F.mse_loss(*torch.broadcast_tensors(a, b))").note("mean").op(a -> MseOp.INSTANCE));
        def(fn("layer_norm").tensor("x").tensor("weight").tensor("bias").number("eps", 1e-5)
                .torch("F.layer_norm(x, x.shape[-1:], weight, bias, eps)").op(a -> new LayerNormOp(a.number("eps"))));
        def(fn("rms_norm").tensor("x").tensor("weight").number("eps", 1e-6)
                .torch("x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * weight").op(a -> new RmsNormOp(a.number("eps"))));
        def(fn("attention").tensor("q").tensor("k").tensor("v").optionalTensor("attn_mask").bool("causal", false)
                .torch("softmax(q @ k.transpose(-2,-1) / sqrt(d) + mask, -1) @ v")
                .reference("torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5 + (attn_mask if attn_mask is not None else 0) + "
                        + "(torch.triu(torch.full((q.shape[-2], k.shape[-2]), float(\"-inf\"), dtype=q.dtype), diagonal=1) if causal else 0), -1) @ v")
                .note("`d = q.shape[-1]`, `mask` = attn_mask (added; broadcast to the scores) plus -inf above the diagonal when causal")
                .op(a -> new AttentionOp(a.bool("causal"))));
    }

    // ---- the ops PyTorch users reach for (issue 33) ------------------------------------------

    static {
        def(fn("maximum").tensor("a").tensor("b").torch("torch.maximum(a, b)").note("ties share the gradient")
                .op(a -> BinaryOp.MAXIMUM));
        def(fn("minimum").tensor("a").tensor("b").torch("torch.minimum(a, b)").note("ties share the gradient")
                .op(a -> BinaryOp.MINIMUM));
        def(fn("masked_fill").tensor("x").tensor("mask").number("value").torch("x.masked_fill(mask != 0, value)")
                .note("`mask` an int64 mask broadcast to x").op(a -> new MaskOps.MaskedFill(a.number("value"))));
        def(fn("tril").tensor("x").integer("diagonal", 0).torch("torch.tril(x, diagonal)").linear()
                .op(a -> new MaskOps.Triangle(true, a.integer("diagonal"))));
        def(fn("triu").tensor("x").integer("diagonal", 0).torch("torch.triu(x, diagonal)").linear()
                .op(a -> new MaskOps.Triangle(false, a.integer("diagonal"))));
        def(fn("flip").tensor("x").ints("dims").torch("torch.flip(x, dims)").linear().op(a -> new MoveOps.Flip(a.ints("dims"))));
        def(fn("roll").tensor("x").ints("shifts").ints("dims", null).torch("torch.roll(x, shifts, dims)").linear()
                .op(a -> new MoveOps.Roll(a.ints("shifts"), a.intsOrNull("dims"))));
        def(fn("repeat").tensor("x").dims("sizes", "s", "sizes").torch("x.repeat(...)").reference("x.repeat(*sizes)").linear()
                .op(a -> new MoveOps.Repeat(a.ints("sizes"))));
        def(fn("stack").tensors().integer("axis", 0).torch("torch.stack([a, b, ...], dim=axis)").reference("torch.stack(tensors, dim=axis)").linear()
                .op(a -> new MoveOps.Stack(a.integer("axis"))));
        def(fn("cumsum").tensor("x").integer("axis").torch("torch.cumsum(x, dim=axis)").linear()
                .op(a -> new AxisOps.Cumsum(a.integer("axis"), false)));
        def(fn("prod").tensor("x").ints("axis", null).bool("keepdim", false).torch("torch.prod(x)` / `torch.prod(x, dim=axis, keepdim)")
                .reference("(torch.prod(x).reshape([1] * x.dim()) if keepdim else torch.prod(x)) if axis is None "
                        + "else torch.prod(x, dim=axis if isinstance(axis, int) else axis[0], keepdim=keepdim)")
                .note("`axis` one int or None").op(a -> {
                    int[] ax = a.intsOrNull("axis");
                    if (ax != null && ax.length != 1) {
                        throw new io.gradscope.engine.GradscopeException("prod: axis must be one integer or None");
                    }
                    return new AxisOps.Prod(ax == null ? null : ax[0], a.bool("keepdim"));
                }));
        for (String v : new String[] {"var", "std"}) {
            def(fn(v).tensor("x").axes("axis", null).integer("correction", 1).bool("keepdim", false)
                    .torch("torch." + v + "(x, dim=axis, correction=correction, keepdim=keepdim)").note("`axis` None or () for all")
                    .op(a -> new VarianceOp(v.equals("std"), a.axes("axis"), a.integer("correction"), a.bool("keepdim"))));
        }
        def(fn("gather").tensor("x").tensor("index").integer("axis").torch("torch.gather(x, dim=axis, index)").reference("torch.gather(x, axis, index)")
                .note("tensors first, then the axis; `index` int64, no larger than x off the axis").op(a -> new IndexOps.Gather(a.integer("axis"))));
        def(fn("scatter_add").tensor("x").tensor("index").tensor("src").integer("axis")
                .torch("torch.scatter_add(x, dim=axis, index, src)")
                .reference("torch.scatter_add(x, axis, index, src)").note("tensors first, then the axis; `index` int64, of src's shape")
                .op(a -> new IndexOps.ScatterAdd(a.integer("axis"))));
        def(fn("index_select").tensor("x").tensor("index").integer("axis").torch("torch.index_select(x, dim=axis, index)")
                .reference("torch.index_select(x, axis, index)")
                .note("tensors first, then the axis; `index` a 1-D int64 tensor").op(a -> new IndexSelectOp(a.integer("axis"))));
        def(fn("dropout").tensor("x").number("p", 0.5).integer("seed", 0).torch("F.dropout(x, p, training=True)")
                .note("the mask from `seed` alone (not PyTorch's stream), saved with the op")
                .op(a -> new DropoutOp(a.number("p"), a.integer("seed"), a.label())));
        def(fn("einsum").tensors().string("equation", null).torch("torch.einsum(equation, a, b, ...)").reference("torch.einsum(equation, *tensors)")
                .note("the tensors first, then `equation=`; `...` broadcast axes and a letter twice in an operand (a diagonal) as torch").op(a -> new EinsumOp(a.text("equation"))));
        for (String m : new String[] {"max", "min"}) {
            def(fn(m).tensor("x").ints("axis", null).bool("keepdim", false)
                    .torch("torch." + m + "(x, dim=axis, keepdim=keepdim).values` / `torch." + m + "(x)")
                    .reference("torch." + m + "(x) if axis is None else torch." + m
                            + "(x, dim=axis if isinstance(axis, int) else axis[0], keepdim=keepdim).values")
                    .note("the gradient goes to the index PyTorch returns; without an axis, shared by the ties")
                    .op(a -> {
                        int[] ax = a.intsOrNull("axis");
                        if (ax != null && ax.length != 1) {
                            throw new io.gradscope.engine.GradscopeException(m + ": axis must be one integer or None");
                        }
                        return new MaxAlongOp(m.equals("min"), ax == null ? null : ax[0], a.bool("keepdim"));
                    }));
        }
    }

    // ---- losses of an input and a target -----------------------------------------------------

    static {
        def(fn("l1_loss").tensor("input").tensor("target").string("reduction", "mean")
                .torch("F.l1_loss(input, target, reduction=reduction)").note("`reduction` \"mean\", \"sum\" or \"none\"")
                .op(a -> PairLoss.l1(reduction(a), a.label())));
        def(fn("smooth_l1_loss").tensor("input").tensor("target").string("reduction", "mean").number("beta", 1.0)
                .torch("F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)")
                .op(a -> PairLoss.smoothL1(reduction(a), a.number("beta"), a.label())));
        def(fn("huber_loss").tensor("input").tensor("target").string("reduction", "mean").number("delta", 1.0)
                .torch("F.huber_loss(input, target, reduction=reduction, delta=delta)")
                .op(a -> PairLoss.huber(reduction(a), a.number("delta"), a.label())));
        def(fn("binary_cross_entropy_with_logits").tensor("input").tensor("target").optionalTensor("weight").string("reduction", "mean")
                .optionalTensor("pos_weight")
                .torch("F.binary_cross_entropy_with_logits(input, target, weight, reduction=reduction, pos_weight=pos_weight)")
                .note("`weight` and `pos_weight` (the positives' weight: [C] for targets [..., C]) broadcast to the input")
                .op(a -> PairLoss.bceWithLogits(reduction(a), a.given("weight"), a.given("pos_weight"), a.label())));
        def(fn("kl_div").tensor("input").tensor("target").string("reduction", "mean").bool("log_target", false)
                .torch("F.kl_div(input, target, reduction=reduction, log_target=log_target)")
                .note("`reduction` also \"batchmean\"; `input` log-probabilities")
                .op(a -> PairLoss.klDiv(a.string("reduction", "mean", "sum", "none", "batchmean"), a.bool("log_target"), a.label())));
    }

    private static String reduction(OpAttrs a) {
        return a.string("reduction", "mean", "sum", "none");
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
        OpSpec[] byCount = Operators.BY_SYMBOL.get(symbol);
        return byCount == null || operands < 0 || operands >= byCount.length ? null : byCount[operands];
    }

    /** The specs of the program operators by symbol, then by their count of tensors (looked up once per op a program applies). */
    private static final class Operators {
        static final Map<String, OpSpec[]> BY_SYMBOL = new java.util.HashMap<>();

        static {
            for (OpSpec s : BY_NAME.values()) {
                if (s.operator() == null) {
                    continue;
                }
                int tensors = 0;
                for (Param p : s.params()) {
                    tensors += p.isTensor() ? 1 : 0;
                }
                OpSpec[] byCount = BY_SYMBOL.computeIfAbsent(s.operator(), k -> new OpSpec[8]);
                if (tensors < byCount.length && byCount[tensors] == null) {
                    byCount[tensors] = s; // the first declared wins, as the lookup by declaration order found it
                }
            }
        }
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

    /*
     * Every elementwise function (an activation) is declared one way: elementwise(spec, parts), the
     * spec without its tensor x (added first here), the parts (forward or kernel, rule, derivative)
     * given by label to a UnaryOp.Builder; with attributes, the parts also read the call's.
     */

    /** An elementwise function of one tensor without attributes: one instance serves every call. */
    private static UnaryOp elementwise(OpSpec.Builder b, UnaryOperator<UnaryOp.Builder> parts) {
        UnaryOp op = parts.apply(UnaryOp.named(b.name())).build();
        def(withX(b).op(a -> op));
        return op;
    }

    /** An elementwise function with attributes: its parts built per call, labelled with the call's attributes. */
    private static void elementwise(OpSpec.Builder b, BiFunction<OpAttrs, UnaryOp.Builder, UnaryOp.Builder> parts) {
        String name = b.name();
        def(withX(b).op(a -> parts.apply(a, UnaryOp.named(name).label(a.label())).build()));
    }

    /** The spec with its tensor x first and marked elementwise. */
    private static OpSpec.Builder withX(OpSpec.Builder b) {
        return b.tensorFirst("x").elementwise();
    }

    // ---- derivatives too long for one line ------------------------------------------------------

    /** sigmoid(x) where x ≤ 20, exactly 1 above (the mask is a constant: its derivative is 0). */
    private static Tensor softplusDerivative(Tensor x, Tensor y) {
        Tensor above = Unrecorded.binary(BinaryKind.GT, x, Unrecorded.scalarLike(x, UnaryKind.SOFTPLUS_THRESHOLD));
        Tensor below = Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(x, 1), above);
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
                    .note("x also without the batch axis").op(a -> Unbatched.of(new ConvOp(spatial, a.ints("stride"), a.ints("padding"),
                            a.ints("dilation"), a.integer("groups")), spatial + 2)));
            String max = "max_pool" + d + "d";
            def(fn(max).tensor("x").ints("kernel_size").ints("stride", null).ints("padding", new int[] {0})
                    .ints("dilation", new int[] {1}).bool("ceil_mode", false)
                    .torch("F." + max + "(x, kernel_size, stride, padding, dilation, ceil_mode)")
                    .note("the gradient goes to the first maximum of a window, or to its last NaN; x also without the batch axis")
                    .op(a -> Unbatched.of(new PoolOps.MaxPool(spatial, SlidingWindow.of(max, spatial, a.ints("kernel_size"), a.intsOrNull("stride"),
                            a.ints("padding"), a.ints("dilation")).ceilMode(a.bool("ceil_mode"))), spatial + 2)));
            String avg = "avg_pool" + d + "d";
            def(fn(avg).tensor("x").ints("kernel_size").ints("stride", null).ints("padding", new int[] {0})
                    .bool("ceil_mode", false).bool("count_include_pad", true)
                    .torch("F." + avg + "(x, kernel_size, stride, padding, ceil_mode, count_include_pad)")
                    .note("with ceil_mode, a window hanging past the padding divides by its part within it; x also without the batch axis")
                    .linear()
                    .op(a -> Unbatched.of(new PoolOps.AvgPool(spatial, SlidingWindow.of(avg, spatial, a.ints("kernel_size"), a.intsOrNull("stride"),
                            a.ints("padding"), new int[] {1}).ceilMode(a.bool("ceil_mode")), a.bool("count_include_pad")), spatial + 2)));
        }
        // 3-D windows as one 2-D window op over the depth taps (Conv3dPool3d), so their derivatives are the 2-D ops'
        def(fn("conv3d").tensor("x").tensor("weight").optionalTensor("bias").ints("stride", new int[] {1})
                .ints("padding", new int[] {0}).ints("dilation", new int[] {1}).integer("groups", 1)
                .torch("F.conv3d(x, weight, bias, stride, padding, dilation, groups)")
                .note("x also without the batch axis; run as one conv2d over the depth taps")
                .op(a -> Unbatched.of(new Conv3dPool3d.Conv3d(a.ints("stride"), a.ints("padding"), a.ints("dilation"), a.integer("groups")), 5)));
        def(fn("max_pool3d").tensor("x").ints("kernel_size").ints("stride", null).ints("padding", new int[] {0})
                .ints("dilation", new int[] {1}).bool("ceil_mode", false)
                .torch("F.max_pool3d(x, kernel_size, stride, padding, dilation, ceil_mode)")
                .note("the gradient goes to the first maximum of a window; x also without the batch axis")
                .op(a -> Unbatched.of(new Conv3dPool3d.Pool3d(true, a.ints("kernel_size"), a.intsOrNull("stride"), a.ints("padding"),
                        a.ints("dilation"), a.bool("ceil_mode"), true), 5)));
        def(fn("avg_pool3d").tensor("x").ints("kernel_size").ints("stride", null).ints("padding", new int[] {0})
                .bool("ceil_mode", false).bool("count_include_pad", true)
                .torch("F.avg_pool3d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)")
                .note("x also without the batch axis").linear()
                .op(a -> Unbatched.of(new Conv3dPool3d.Pool3d(false, a.ints("kernel_size"), a.intsOrNull("stride"), a.ints("padding"),
                        new int[] {1}, a.bool("ceil_mode"), a.bool("count_include_pad")), 5)));
        def(fn("adaptive_avg_pool2d").tensor("x").ints("output_size").torch("F.adaptive_avg_pool2d(x, output_size)").linear()
                .op(a -> new ResizeOps.AdaptiveAvgPool(a.ints("output_size"), 2)));
        def(fn("adaptive_avg_pool3d").tensor("x").ints("output_size").torch("F.adaptive_avg_pool3d(x, output_size)").linear()
                .note("x [N, C, D, H, W] or [C, D, H, W]").op(a -> new ResizeOps.AdaptiveAvgPool(a.ints("output_size"), 3)));
        def(fn("interpolate").tensor("x").ints("size", null).optionalNumber("scale_factor").string("mode", "nearest")
                .bool("align_corners", false).torch("F.interpolate(x, size, scale_factor, mode=mode, align_corners=...)")
                .reference("(lambda b: F.interpolate(x[None] if b else x, size, scale_factor, mode=mode, "
                        + "align_corners=align_corners if mode != \"nearest\" else None)[0 if b else slice(None)])"
                        + "(x.dim() == {\"linear\": 2, \"trilinear\": 4}.get(mode, 3))")
                .note("`size` or `scale_factor`; `mode` \"nearest\", \"bilinear\" or \"bicubic\" (planes), \"linear\" (x [N, C, L]) or "
                        + "\"trilinear\" (x [N, C, D, H, W]); x also without the batch axis")
                .linear().op(a -> new ResizeOps.Interpolate(a.intsOrNull("size"), a.numberOrNull("scale_factor") != null
                        ? a.number("scale_factor") : Double.NaN, a.string("mode", "nearest", "linear", "bilinear", "bicubic", "trilinear"),
                        a.bool("align_corners"),
                        a.label())));
        for (int d = 1; d <= 2; d++) {
            int spatial = d;
            String name = "conv_transpose" + d + "d";
            def(fn(name).tensor("x").tensor("weight").optionalTensor("bias").ints("stride", new int[] {1})
                    .ints("padding", new int[] {0}).ints("output_padding", new int[] {0}).integer("groups", 1)
                    .ints("dilation", new int[] {1})
                    .torch("F." + name + "(x, weight, bias, stride, padding, output_padding, groups, dilation)")
                    .note("x also without the batch axis")
                    .op(a -> Unbatched.of(new ConvTransposeOp(spatial, a.ints("stride"), a.ints("padding"), a.ints("output_padding"),
                            a.ints("dilation"), a.integer("groups")), spatial + 2)));
        }
        def(fn("unfold").tensor("x").ints("kernel_size").ints("dilation", new int[] {1}).ints("padding", new int[] {0})
                .ints("stride", new int[] {1}).torch("F.unfold(x, kernel_size, dilation, padding, stride)").linear()
                .op(a -> new FoldOps.Unfold(SlidingWindow.of("unfold", 2, a.ints("kernel_size"), a.ints("stride"), a.ints("padding"),
                        a.ints("dilation")))));
        def(fn("fold").tensor("x").ints("output_size").ints("kernel_size").ints("dilation", new int[] {1})
                .ints("padding", new int[] {0}).ints("stride", new int[] {1})
                .torch("F.fold(x, output_size, kernel_size, dilation, padding, stride)").linear()
                .op(a -> {
                    int[] size = a.ints("output_size");
                    SlidingWindow w = SlidingWindow.of("fold", 2, a.ints("kernel_size"), a.ints("stride"), a.ints("padding"), a.ints("dilation"));
                    if (size.length != 1 && size.length != 2) {
                        throw new io.gradscope.engine.GradscopeException("fold: output_size must be one integer or 2");
                    }
                    return new FoldOps.Fold(w, size[0], size[size.length - 1]);
                }));
        def(fn("batch_norm").tensor("x").tensor("running_mean").tensor("running_var").tensor("weight").tensor("bias")
                .number("eps", 1e-5).bool("training", false)
                .torch("F.batch_norm(x, running_mean, running_var, weight, bias, training=training, eps=eps)")
                .note("training: the batch's statistics (the running ones are not updated)")
                .op(a -> a.bool("training") ? new StatNormOp(0, a.number("eps"), a.label()) : new BatchNormOp(a.number("eps"))));
        def(fn("group_norm").tensor("x").tensor("weight").tensor("bias").integer("num_groups").number("eps", 1e-5)
                .torch("F.group_norm(x, num_groups, weight, bias, eps)").op(a -> {
                    int g = a.integer("num_groups");
                    if (g < 1) {
                        throw new io.gradscope.engine.GradscopeException("group_norm: num_groups must be at least 1, not " + g);
                    }
                    return new StatNormOp(g, a.number("eps"), a.label());
                }));
        def(fn("embedding").tensor("indices").tensor("weight").torch("F.embedding(indices, weight)")
                .note("`indices` int64 labels").op(a -> EmbeddingOps.Embedding.INSTANCE));
        def(fn("embedding_dense_backward").tensor("g").tensor("indices").integer("num_weights").internal()
                .torch("g.new_zeros(num_weights, g.shape[-1]).index_add(0, indices.flatten(), g.flatten(0, -2))")
                .op(a -> new EmbeddingOps.DenseBackward(a.integer("num_weights"))));
        def(fn("where").tensor("condition").tensor("a").tensor("b").torch("torch.where(condition != 0, a, b)")
                .note("`condition` an int64 mask, e.g. labels").op(a -> WhereOp.INSTANCE));
    }
}
