package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** What an op's forward leaves for its VJP: the inputs, the output and any tensors it saved. */
public final class OpContext {
    private final Tensor[] in;
    /** {@link #in} as a list, made when first asked for (an op's hot path reads the array). */
    private List<Tensor> inputs;
    private List<Tensor> saved = List.of();
    private Tensor output;
    private Tensor[] inputValues;
    private Tensor outputValue;
    private List<Tensor> savedValues;
    /** Which inputs need a gradient, where an op runs another's VJP on views of its inputs (see {@link Unbatched}). */
    private boolean[] needs;

    public OpContext(Tensor... inputs) {
        this(inputs, true);
    }

    private OpContext(Tensor[] inputs, boolean copy) {
        for (Tensor t : inputs) {
            java.util.Objects.requireNonNull(t, "an op's input");
        }
        this.in = copy ? inputs.clone() : inputs;
    }

    /** A context that keeps {@code inputs} itself: the caller made the array and never changes it. */
    static OpContext owning(Tensor[] inputs) {
        return new OpContext(inputs, false);
    }

    /**
     * The tensors the op was applied to, as recorded: the graph's edges, their shapes and whether
     * they need a gradient. A VJP reads values through {@link #input(int)}.
     */
    public List<Tensor> inputs() {
        if (inputs == null) {
            inputs = List.of(in);
        }
        return inputs;
    }

    /** How many inputs the op was applied to. */
    public int inputCount() {
        return in.length;
    }

    /** The recorded inputs' array itself, for this package: never changed, never handed out. */
    Tensor[] inputArray() {
        return in;
    }

    /** Every input's value ({@link #input(int)}: recomputed ones where rebound), as an array of the caller's. */
    Tensor[] inputValues() {
        Tensor[] v = new Tensor[in.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = input(i);
        }
        return v;
    }

    /** Recorded input {@code i} (as {@code inputs().get(i)}, without making the list). */
    public Tensor inputAt(int i) {
        return in[i];
    }

    /** Input {@code i}'s value: the recorded tensor, or its recomputed value (see {@link #rebindInput}). */
    public Tensor input(int i) {
        if (inputValues != null && inputValues[i] != null) {
            return inputValues[i];
        }
        return in[i];
    }

    /** The output's value: the recorded tensor, or its recomputed value. */
    public Tensor output() {
        return outputValue != null ? outputValue : output;
    }

    // Note [Recomputed values]: a checkpoint segment's values are released after the forward pass
    // and computed again when the backward sweep reaches it. The graph keeps the recorded tensors
    // (its edges, what the inspector shows); the VJP reads the recomputed ones, bound here until the
    // node's step is done.

    /** Has the VJP read {@code value} as input {@code i} (a recomputed value; see Note [Recomputed values]). */
    public void rebindInput(int i, Tensor value) {
        if (inputValues == null) {
            inputValues = new Tensor[in.length];
        }
        inputValues[i] = value;
    }

    /** Has the VJP read {@code value} as the output. */
    public void rebindOutput(Tensor value) {
        outputValue = value;
    }

    /** Has the VJP read {@code values} as the saved tensors. */
    public void rebindSaved(List<Tensor> values) {
        savedValues = List.copyOf(values);
    }

    /** Drops every rebinding: the VJP reads the recorded tensors again. */
    public void clearRebinds() {
        inputValues = null;
        outputValue = null;
        savedValues = null;
    }

    void setOutput(Tensor output) {
        this.output = output;
    }

    /** Keeps tensors (computed in the forward pass, without gradient) for the VJP. */
    public void save(Tensor... ts) {
        if (saved.isEmpty()) {
            saved = new ArrayList<>(ts.length);
        }
        saved.addAll(Arrays.asList(ts));
    }

    /** The saved tensors and {@code out}: what an op's allocation scope keeps. */
    List<Tensor> keptWith(Tensor out) {
        if (saved.isEmpty()) {
            return out == null ? List.of() : List.of(out);
        }
        List<Tensor> keep = new ArrayList<>(saved);
        keep.add(out);
        return keep;
    }

    public Tensor saved(int i) {
        return savedValues != null ? savedValues.get(i) : saved.get(i);
    }

    public List<Tensor> savedTensors() {
        return List.copyOf(saved);
    }

    /** Whether input {@code i} needs a gradient. */
    public boolean needsGrad(int i) {
        return needs != null ? needs[i] : in[i].requiresGrad();
    }

    /** Says which inputs need a gradient, for a context whose inputs are views of another's. */
    void overrideNeedsGrad(boolean[] which) {
        needs = which.clone();
    }
}
