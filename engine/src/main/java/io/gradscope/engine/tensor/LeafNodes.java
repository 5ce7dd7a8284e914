package io.gradscope.engine.tensor;

import java.util.Objects;
import java.util.function.Function;

/**
 * Makes the node of a leaf that needs a gradient ({@link Tensor#setRequiresGrad}). Autograd's
 * {@code Node} registers its maker as its class starts, and is loaded by name on the first such
 * leaf, so this package names no class above it (as {@link Backends} loads the backends) and
 * autograd has started before any tensor needs a gradient.
 */
public final class LeafNodes {
    private static final String NODE_CLASS = "io.gradscope.engine.autograd.Node";
    private static Function<Tensor, GradNode> maker;

    private LeafNodes() {
    }

    /** Makes {@code leafMaker} the one that makes leaves' nodes; autograd's {@code Node} calls this once, as it starts. */
    public static void register(Function<Tensor, GradNode> leafMaker) {
        maker = leafMaker;
    }

    /** A new leaf node for {@code t}. */
    static GradNode make(Tensor t) {
        return Loaded.MAKER.apply(t);
    }

    /** The maker, read once the class that registers it has started (a constant from then on). */
    private static final class Loaded {
        static final Function<Tensor, GradNode> MAKER = load();

        private static Function<Tensor, GradNode> load() {
            try {
                Class.forName(NODE_CLASS, true, LeafNodes.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("autograd is missing: " + e.getMessage(), e);
            }
            return Objects.requireNonNull(maker, "autograd's Node did not register its leaf maker");
        }
    }
}
