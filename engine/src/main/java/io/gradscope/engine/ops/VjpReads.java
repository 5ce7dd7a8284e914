package io.gradscope.engine.ops;

import java.util.Arrays;

/**
 * Which values an op's VJP reads, besides the upstream gradient: its inputs by number, its output,
 * and the tensors the forward saved with {@link OpContext#save} by number ({@code saved} null: all
 * of them). A value read only for its shape is not read. What a training step keeps for the backward pass
 * follows from this (see Note [Saved for backward] in {@link Op#vjpReads}).
 *
 * <pre>{@code
 * VjpReads.of(false, 1);      // reads input 1 only (matmul's dA = G·Bᵀ)
 * VjpReads.none(2);           // reads nothing (add)
 * }</pre>
 */
public record VjpReads(boolean[] inputs, boolean output, boolean[] saved) {
    /** Reads these inputs, the output when {@code output}, and every saved tensor. */
    public VjpReads(boolean[] inputs, boolean output) {
        this(inputs, output, null);
    }

    /** The same, reading only the saved tensors numbered where {@code which} is true. */
    public VjpReads savedOnly(boolean... which) {
        return new VjpReads(inputs, output, which);
    }

    /** Whether saved tensor {@code i} is read. */
    public boolean saved(int i) {
        return saved == null || (i < saved.length && saved[i]);
    }

    /** Every input and the output: what an op that declares nothing is taken to read. */
    public static VjpReads all(int arity) {
        boolean[] in = new boolean[arity];
        Arrays.fill(in, true);
        return new VjpReads(in, true);
    }

    /** Nothing but the upstream gradient (and saved tensors). */
    public static VjpReads none(int arity) {
        return new VjpReads(new boolean[arity], false);
    }

    /** The output when {@code output}, and the inputs numbered {@code inputs}, of an op of {@code arity} inputs. */
    public static VjpReads of(int arity, boolean output, int... inputs) {
        boolean[] in = new boolean[arity];
        for (int i : inputs) {
            in[i] = true;
        }
        return new VjpReads(in, output);
    }

    /** Whether input {@code i} is read. */
    public boolean input(int i) {
        return i < inputs.length && inputs[i];
    }

    @Override
    public String toString() {
        return "VjpReads" + Arrays.toString(inputs) + (output ? "+output" : "");
    }
}
