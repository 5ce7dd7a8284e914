package io.gradscope.engine.ops;

import io.gradscope.engine.autograd.GradMode;
import io.gradscope.engine.backend.UnaryKind;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;

/**
 * An elementwise function of one tensor. It gives its derivative once, {@code dy/dx} as a tensor
 * written in differentiable {@link Ops} functions, and gets both its VJP ({@code g ⊙ dy/dx}) and its
 * JVP ({@code ẋ ⊙ dy/dx}) from it. A derivative that is slow in ops may add a fused kernel, used
 * when no graph of the gradient is recorded; a test holds the two equal. The instances are
 * declared in {@link OpSpecs}.
 */
public final class UnaryOp extends Op {
    /** {@code dy/dx} from the input and the output. */
    interface Derivative {
        Tensor of(Tensor x, Tensor y);
    }

    /** The forward in backend primitives. */
    interface Forward {
        Tensor of(Tensor x);
    }

    private final String name;
    private final String label;
    private final String rule;
    private final Forward forward;
    private final Derivative derivative;
    private final Derivative fused;
    private final boolean positiveDomain;
    private UnaryKind kind;

    /**
     * @param fused the derivative as one kernel, or null; used when no graph of the gradient is recorded
     * @param positiveDomain whether the function is defined only for positive inputs (log, sqrt)
     */
    UnaryOp(String name, String label, String rule, Forward forward, Derivative derivative, Derivative fused,
            boolean positiveDomain) {
        this.name = name;
        this.label = label;
        this.rule = rule;
        this.forward = forward;
        this.derivative = derivative;
        this.fused = fused;
        this.positiveDomain = positiveDomain;
    }

    /** A function with a kernel of its own. */
    static UnaryOp kernel(String name, UnaryKind kind, String rule, Derivative derivative) {
        UnaryOp op = new UnaryOp(name, name, rule, x -> Raw.unary(kind, x), derivative, null, false);
        op.kind = kind;
        return op;
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
        return rule;
    }

    /** Elementwise: the diagonal. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return Pattern.identity(Dependencies.numel(shapes[0]));
    }

    /** The diagonal where the derivative is not zero at these values (ReLU's negative side, hardtanh's flat parts). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        try (var off = GradMode.disable()) {
            Tensor d = derivative(ctx, false);
            return Dependencies.diagonalWhere(d.viewExpand(ctx.input(0).shape()).toDoubleArray());
        }
    }

    /** Whether the function is defined only for positive inputs. */
    public boolean positiveDomain() {
        return positiveDomain;
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name, shapes, 1);
        Checks.floats(name, dtypes, 0);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        return forward.of(in[0]);
    }

    /** {@code dy/dx} at the op's input: the fused kernel unless a graph of it is being recorded. */
    Tensor derivative(OpContext ctx, boolean differentiable) {
        Derivative d = fused != null && !differentiable ? fused : derivative;
        return d.of(ctx.input(0), ctx.output());
    }

    private volatile VjpReads reads;

    /**
     * Read off the derivative itself, once: its VJP is run on one-element stand-ins, first with the
     * input's storage released, then the output's; reading a released storage throws. So a new
     * elementwise function declares nothing and cannot declare wrong. See Note [Saved for backward].
     */
    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        VjpReads r = reads;
        if (r == null) {
            r = new VjpReads(new boolean[] {probeReads(true)}, probeReads(false));
            reads = r;
        }
        return r;
    }

    private boolean probeReads(boolean input) {
        try (var paused = io.gradscope.engine.trace.Recorder.pause();
             var off = io.gradscope.engine.autograd.GradMode.disable()) {
            return io.gradscope.engine.memory.Allocations.unannounced(() -> {
                Tensor x = Tensor.full(DType.FLOAT64, io.gradscope.engine.tensor.Device.CPU, 0.5, 1);
                Tensor y = Tensor.full(DType.FLOAT64, io.gradscope.engine.tensor.Device.CPU, 0.5, 1);
                Tensor g = Tensor.full(DType.FLOAT64, io.gradscope.engine.tensor.Device.CPU, 1, 1);
                OpContext ctx = new OpContext(x);
                ctx.setOutput(y);
                (input ? x : y).storage().release();
                try {
                    vjp(ctx, g);
                    return false;
                } catch (io.gradscope.engine.tensor.Storage.Released e) {
                    return true;
                }
            });
        }
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        boolean differentiable = Ops.differentiating();
        Tensor x = ctx.input(0);
        if (kind != null && !differentiable && java.util.Arrays.equals(g.shape(), x.shape())) {
            // One pass where the backend has it (ReLU on the CPU): the bits of g ⊙ f'(x), without f'(x) in
            // memory. The kernel writes every element, so dx comes uninitialized.
            Tensor dx = Tensor.empty(g.dtype(), g.device(), x.shape());
            if (x.backend().unaryBackward(kind, x, g, dx)) {
                return new Tensor[] {dx};
            }
            dx.storage().release();
        }
        return new Tensor[] {Ops.mul(g, derivative(ctx, differentiable))};
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... tangents) {
        return Ops.mul(tangents[0], derivative(ctx, Ops.differentiating()));
    }

    /** The VJP rule read forward: {@code dx = g ⊙ cos(x)} gives {@code ẏ = ẋ ⊙ cos(x)}. */
    @Override
    public String jvpRule() {
        return rule.replaceFirst("^dx = ", "ẏ = ").replaceAll("\\bg\\b", "ẋ");
    }
}
