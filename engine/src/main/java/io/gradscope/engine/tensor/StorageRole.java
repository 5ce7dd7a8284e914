package io.gradscope.engine.tensor;

/** What a storage is to the value it belongs to, for the memory timeline's "live at the peak" table. */
public enum StorageRole {
    /** A leaf's value: an input, a parameter, labels. */
    LEAF,
    /** An op's value in the forward pass (or a literal constant). */
    VALUE,
    /** A tensor an op saved for its VJP besides its inputs and output (LayerNorm's x̂, say). */
    SAVED,
    /** A gradient: the seed, a contribution, a sum of contributions, a leaf's gradient. */
    GRADIENT,
    /** Scratch an op needed while it ran. */
    TEMPORARY,
    /** A value (or saved tensor) a checkpoint segment computed again in the backward pass. */
    RECOMPUTED,
    /** Made outside any op (a tensor built by hand, a copy). */
    OTHER
}
