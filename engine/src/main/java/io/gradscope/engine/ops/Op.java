package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * One entry of the op table: its shape rule, its forward in backend primitives, its closed-form
 * VJP written with differentiable {@link Ops} functions, and the rule as short text for the app.
 * An instance carries the op's attributes (axes, eps, ...).
 */
public abstract class Op {

    /** The function's name, as in the program format ({@code "matmul"}, {@code "sum"}). */
    public abstract String name();

    /** The name with attributes, for display ({@code "sum(axis=1)"}). */
    public String label() {
        return name();
    }

    /** The VJP as short text ({@code "dX = G·Wᵀ, dW = Xᵀ·G"}). */
    public abstract String rule();

    /**
     * The dependency rule: which output elements can depend on which elements of input {@code input}
     * for some input values, i.e. the global sparsity pattern of ∂output/∂input, {@code output.numel
     * x input.numel} with both flattened in C order, for inputs of these shapes. An input that takes
     * no derivative (int64 labels) gives an empty pattern. Null where the op has no rule: sparsity
     * detection then assumes every entry, and the completeness test fails.
     *
     * <pre>{@code
     * OpRegistry.create("relu", Map.of()).dependencies(0, new int[][] {{3}});   // the 3 x 3 diagonal
     * }</pre>
     */
    public Pattern dependencies(int input, int[][] shapes) {
        return null;
    }

    /**
     * The pattern at the values of one forward pass ({@code ctx}): a subset of the global one where
     * the op is piecewise (ReLU's negative side, the elements of amax that are not the maximum).
     */
    public Pattern localDependencies(int input, OpContext ctx) {
        return dependencies(input, Dependencies.shapes(ctx));
    }

    /**
     * {@link #dependencies} read a row at a time: an op made of windows (a convolution, a pooling)
     * gives its rows from the windows without listing every entry (a 3x3 convolution over 64
     * channels of 56x56 has 115 M). Null where the op has no rule.
     */
    public io.gradscope.engine.sparse.Rows dependencyRows(int input, int[][] shapes) {
        return dependencies(input, shapes);
    }

    /** {@link #localDependencies} read a row at a time (as {@link #dependencyRows}). */
    public io.gradscope.engine.sparse.Rows localDependencyRows(int input, OpContext ctx) {
        return localDependencies(input, ctx);
    }

    /**
     * The shape rule: the output shape for inputs of these shapes and dtypes, or a
     * {@link io.gradscope.engine.GradscopeException} saying which op, which shapes and why.
     */
    public abstract int[] outputShape(int[][] shapes, DType[] dtypes);

    /**
     * Checks {@code inputs} against the shape rule before the op runs (throwing as
     * {@link #outputShape} does). An op may pass its common case without building the arrays.
     */
    void check(Tensor[] inputs) {
        int[][] shapes = new int[inputs.length][];
        DType[] dtypes = new DType[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            shapes[i] = inputs[i].shape();
            dtypes[i] = inputs[i].dtype();
        }
        outputShape(shapes, dtypes);
    }

    /** Computes the output from backend primitives. Runs without recording gradients. */
    public abstract Tensor forward(OpContext ctx, Tensor... inputs);

    /**
     * The gradient for each input given the output's gradient {@code g} (null where an input needs
     * none). Written with {@link Ops} functions so it can itself be differentiated.
     */
    public abstract Tensor[] vjp(OpContext ctx, Tensor g);

    /**
     * Which of the inputs, and whether the output, the VJP reads (for inputs needing a gradient as
     * {@code needsGrad} says), when it runs in a plain backward pass (no graph of the gradient
     * recorded, no tangents carried). Tensors saved with {@link OpContext#save} are always read.
     *
     * <p>Note [Saved for backward]: a training step keeps a value for the backward pass only while
     * some node's VJP still has to read it; this declaration is what says so, like the saved
     * variables of PyTorch's derivatives.yaml. Declaring too little is caught: a run that releases
     * what it does not keep fails on reading a released storage ({@code Storage.Released}). The
     * default reads everything, which is always safe.
     */
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.all(needsGrad.length);
    }

    /** The JVP as short text ({@code "ẏ = ȧ·B + A·ḃ"}); a linear op's is itself applied to the tangents. */
    public String jvpRule() {
        return "ẏ = " + name() + "(ẋ)";
    }

    /**
     * The forward-mode derivative: the output's tangent for the inputs' tangents. A linear op (its
     * spec says so) is its own JVP; elementwise functions derive theirs from their derivative.
     */
    public Tensor jvp(OpContext ctx, Tensor... tangents) {
        if (OpRegistry.spec(name()).linear()) {
            return Ops.apply(this, tangents);
        }
        throw new UnsupportedOperationException(name() + ": forward mode is not available yet");
    }

    /**
     * The estimated floating-point operations of one forward run for inputs and output of these
     * shapes: what recomputing it costs (the remat planner and the trade-off curve read it). A
     * multiply and an add count two. The default is what the spec says: a view costs nothing,
     * anything else one per output element (an elementwise function); ops with more work per output
     * (products, convolutions, norms) override it; an op outside the table counts as elementwise. An estimate for comparing plans, not a measurement.
     *
     * <pre>{@code
     * OpRegistry.create("matmul", Map.of()).flops(new int[][] {{512, 512}, {512, 512}}, new int[] {512, 512});   // 2·512³
     * }</pre>
     */
    public long flops(int[][] inputs, int[] output) {
        OpSpec spec = OpSpecs.get(name());
        return spec != null && spec.view() ? 0 : Shapes.numel(output);
    }

    /**
     * How the op writes out as scalars (see {@link ScalarForm}), or null where it does not (or not
     * with these attributes). The default is null; elementwise functions and matrix products give one.
     */
    public ScalarForm scalarForm() {
        return null;
    }

    /**
     * What one forward run has worth showing beyond its value, by name in display order (the trace
     * records it with the op's {@code OpForward} event, the inspector shows each as a map): dropout's
     * mask. Read after {@link #forward} from what it saved; tensors computed there, never new work.
     * The default, for most ops, is empty.
     *
     * <pre>{@code
     * Map<String, Tensor> extra = op.shown(ctx);   // {"Mask (kept ×2, dropped 0)": mask} for dropout(p=0.5)
     * }</pre>
     */
    public java.util.Map<String, Tensor> shown(OpContext ctx) {
        return java.util.Map.of();
    }

    @Override
    public String toString() {
        return label();
    }
}
