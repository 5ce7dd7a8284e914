package io.gradscope.engine.tensor;

/**
 * What a tensor knows of the vertex of the recorded graph that made it: its id, and whether it is a
 * leaf. Autograd's {@code Node}, which lies above this package, is the one implementation; code
 * that needs the node itself asks {@code Node.of(tensor)}.
 */
public interface GradNode {
    /** The value's id: unique, growing with creation (so creation order is a topological order). */
    long id();

    /** Whether this is a leaf's node (a tensor that needs a gradient and that no op made). */
    boolean isLeaf();
}
