package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** What an op's forward leaves for its VJP: the inputs, the output and any tensors it saved. */
public final class OpContext {
    private final List<Tensor> inputs;
    private List<Tensor> saved = List.of();
    private Tensor output;

    public OpContext(Tensor... inputs) {
        this.inputs = List.of(inputs);
    }

    public List<Tensor> inputs() {
        return inputs;
    }

    public Tensor input(int i) {
        return inputs.get(i);
    }

    public Tensor output() {
        return output;
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
        return saved.get(i);
    }

    public List<Tensor> savedTensors() {
        return List.copyOf(saved);
    }

    /** Whether input {@code i} needs a gradient. */
    public boolean needsGrad(int i) {
        return inputs.get(i).requiresGrad();
    }
}
