package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;
import java.util.function.UnaryOperator;

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
    private final UnaryOperator<ScalarForm.Term> scalar;
    private final UnaryKind kind;

    private UnaryOp(Builder b) {
        this.name = b.name;
        this.label = b.label != null ? b.label : b.name;
        this.rule = b.rule;
        this.forward = b.forward;
        this.derivative = b.derivative;
        this.fused = b.fused;
        this.positiveDomain = b.positiveDomain;
        this.scalar = b.scalar;
        this.kind = b.kind;
        if (rule == null || forward == null || derivative == null) {
            throw new IllegalStateException(name + ": an elementwise function needs its rule, forward and derivative");
        }
    }

    /** Starts the function {@code name}; each part is then given by its label. */
    static Builder named(String name) {
        return new Builder(name);
    }

    /** An elementwise function's parts, each given by name. */
    static final class Builder {
        private final String name;
        private String label;
        private String rule;
        private Forward forward;
        private Derivative derivative;
        private Derivative fused;
        private boolean positiveDomain;
        private UnaryOperator<ScalarForm.Term> scalar;
        private UnaryKind kind;

        private Builder(String name) {
            this.name = name;
        }

        /** The name with attributes, for display ({@code "hardtanh(min_val=0)"}); the name by default. */
        Builder label(String text) {
            this.label = text;
            return this;
        }

        /** The VJP as short text: {@code "dx = g ⊙ y"}. */
        Builder rule(String text) {
            this.rule = text;
            return this;
        }

        /** The forward is the backend's kernel {@code k}, whose fused backward is used where the backend has one. */
        Builder kernel(UnaryKind k) {
            this.kind = k;
            this.forward = x -> Unrecorded.unary(k, x);
            return this;
        }

        /** The forward in backend primitives. */
        Builder forward(Forward f) {
            this.forward = f;
            return this;
        }

        /** {@code dy/dx} from the input and the output, in differentiable {@link Ops} functions. */
        Builder derivative(Derivative d) {
            this.derivative = d;
            return this;
        }

        /** {@code dy/dx} as one kernel, used when no graph of the gradient is recorded (null: none). */
        Builder fusedDerivative(Derivative d) {
            this.fused = d;
            return this;
        }

        /** Defined only for positive inputs (log, sqrt): the sample inputs stay positive. */
        Builder positiveDomain() {
            return positiveDomainIf(true);
        }

        Builder positiveDomainIf(boolean positive) {
            this.positiveDomain = positive;
            return this;
        }

        /** The function in the scalar engine's steps ({@code t -> t.tanh()}); by default one step from the derivative. */
        Builder scalar(UnaryOperator<ScalarForm.Term> f) {
            this.scalar = f;
            return this;
        }

        UnaryOp build() {
            return new UnaryOp(this);
        }
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

    /**
     * Each element its own scalar step: as declared, else one step whose value and derivative are the
     * op's own forward and derivative at that element.
     */
    @Override
    public ScalarForm scalarForm() {
        if (scalar != null) {
            return new ScalarForm.Elementwise(scalar);
        }
        return new ScalarForm.Elementwise(t -> {
            double[] yd = valueAndDerivative(t.value());
            return t.apply(name, yd[0], yd[1]);
        });
    }

    /** f(x) and f'(x) at one float64 value, computed by the forward and derivative (nothing recorded). */
    private double[] valueAndDerivative(double at) {
        return StandIns.quietly(() -> {
            Tensor x = StandIns.of(at);
            Tensor y = forward.of(x);
            Tensor d = (fused != null ? fused : derivative).of(x, y);
            return new double[] {y.toDoubleArray()[0], d.toDoubleArray()[0]};
        });
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
        return StandIns.quietly(() -> {
            Tensor x = StandIns.of(0.5);
            Tensor y = StandIns.of(0.5);
            OpContext ctx = new OpContext(x);
            ctx.setOutput(y);
            (input ? x : y).storage().release();
            try {
                vjp(ctx, StandIns.of(1));
                return false;
            } catch (io.gradscope.engine.tensor.Storage.Released e) {
                return true;
            }
        });
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
