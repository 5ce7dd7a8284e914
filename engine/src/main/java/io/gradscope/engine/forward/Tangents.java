package io.gradscope.engine.forward;

import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.autograd.StepObservers;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.OpObserver;
import io.gradscope.engine.ops.OpObservers;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Forward mode: while a level is open on this thread, every op applied to a tensor that carries a
 * tangent computes its output's tangent with its JVP, in the same pass (dual tensors: each primal
 * with its tangent, kept beside it rather than inside the tensor). Inputs without a tangent count
 * as constants (tangent zero).
 *
 * <pre>{@code
 * try (Tangents.Level level = Tangents.open()) {
 *     Tangents.set(x, v);
 *     Tensor y = Ops.tanh(Ops.matmul(x, w));
 *     Tensor jv = Tangents.of(y);      // J·v
 * }
 * }</pre>
 *
 * Levels do not nest: the ops inside a JVP record no tangents of their own.
 */
public final class Tangents {
    private static final ThreadLocal<Level> CURRENT = new ThreadLocal<>();
    /** Levels opened and not yet closed, on all threads: none, and {@link #active()} looks nothing up. */
    private static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();

    static {
        // Note [Op observers] (in OpObservers): no level can be open before this class starts.
        OpObservers.install(OpObserver.FORWARD_MODE, new OpObserver() {
            @Override
            public void applied(Op op, OpContext ctx, Tensor out, int mode) {
                if (active()) {
                    propagate(op, ctx, out);
                }
            }

            @Override
            public boolean differentiating() {
                return active();
            }
        });
        StepObservers.install(Tangents::recordUpstream);
    }

    private Tangents() {
    }

    /** An open forward-mode level: the tangents of the tensors computed while it is open. */
    public static final class Level implements AutoCloseable {
        private final Map<Tensor, Tensor> tangents = new IdentityHashMap<>();
        private final Map<String, Tensor> leafSeeds = new HashMap<>();
        private final Level previous;
        private boolean suspended;
        private boolean closed;

        private Level(Level previous) {
            this.previous = previous;
        }

        /** Seeds the program leaf called {@code name} with {@code tangent} when the program creates it. */
        public Level seedLeaf(String name, Tensor tangent) {
            leafSeeds.put(name, tangent);
            return this;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                OPEN.decrementAndGet();
            }
            CURRENT.set(previous);
        }
    }

    /** Opens a level; tangents are recorded until it is closed. */
    public static Level open() {
        Level level = new Level(CURRENT.get());
        OPEN.incrementAndGet();
        CURRENT.set(level);
        return level;
    }

    /** Whether ops compute tangents on this thread now. */
    public static boolean active() {
        if (OPEN.get() == 0) {
            return false;
        }
        Level l = CURRENT.get();
        return l != null && !l.suspended;
    }

    /** Gives {@code primal} the tangent {@code tangent} (same shape). */
    public static void set(Tensor primal, Tensor tangent) {
        Level l = CURRENT.get();
        if (l == null) {
            throw new IllegalStateException("no forward-mode level is open");
        }
        if (!java.util.Arrays.equals(primal.shape(), tangent.shape())) {
            throw new IllegalArgumentException("a tangent must have its primal's shape: "
                    + java.util.Arrays.toString(primal.shape()) + " vs " + java.util.Arrays.toString(tangent.shape()));
        }
        l.tangents.put(primal, tangent);
    }

    /** The tangent of {@code primal}, or null where it has none (a constant). */
    public static Tensor of(Tensor primal) {
        Level l = CURRENT.get();
        return l == null ? null : l.tangents.get(primal);
    }

    /** Called as a program creates its leaf {@code name}: seeds its tangent if one was asked for. */
    public static Tensor leafCreated(String name, Tensor leaf) {
        Level l = CURRENT.get();
        if (l != null && l.leafSeeds.containsKey(name)) {
            Tensor seed = l.leafSeeds.get(name);
            set(leaf, seed.dtype() == leaf.dtype() && seed.device() == leaf.device() ? seed
                    : seed.to(leaf.dtype()).toDevice(leaf.device()));
        }
        return leaf;
    }

    /**
     * Forward mode's op observer, after an op ran while a level is active: when any input has a
     * tangent, the output gets {@code op.jvp} of the input tangents (zeros standing in for floating
     * inputs without one).
     */
    private static void propagate(Op op, OpContext ctx, Tensor out) {
        Level l = CURRENT.get();
        Tensor[] t = new Tensor[ctx.inputs().size()];
        boolean any = false;
        for (int i = 0; i < t.length; i++) {
            t[i] = l.tangents.get(ctx.input(i));
            any |= t[i] != null;
        }
        if (!any) {
            return;
        }
        l.suspended = true;
        try (Recorder.Paused quiet = Recorder.pause(); var off = GradMode.disable()) {
            for (int i = 0; i < t.length; i++) {
                Tensor in = ctx.input(i);
                if (t[i] == null && in.dtype().isFloating()) {
                    t[i] = Tensor.zeros(in.dtype(), in.device(), in.shape());
                }
            }
            Tensor tangent = op.jvp(ctx, t);
            if (tangent != null) {
                l.tangents.put(out, tangent);
            }
        } finally {
            l.suspended = false;
        }
        Tensor tangent = l.tangents.get(out);
        if (tangent != null && Recorder.active() && !GradMode.inBackward()) {
            Recorder.emit(new TraceEvent.Tangent(Recorder.name(out), false, tangent, op.jvpRule()));
        }
    }

    /** Records the tangent of a program leaf, after the leaf's own event. */
    public static void recordLeaf(Tensor leaf) {
        Tensor t = of(leaf);
        if (t != null && Recorder.active()) {
            Recorder.emit(new TraceEvent.Tangent(Recorder.name(leaf), false, t, "ẋ = the chosen direction"));
        }
    }

    /** Records the tangent of the upstream gradient a backward step received (forward-over-reverse). */
    public static void recordUpstream(long node, Tensor upstream) {
        if (active() && Recorder.active()) {
            Tensor t = of(upstream);
            Recorder.emit(new TraceEvent.Tangent(node, true,
                    t != null ? t : Tensor.zeros(upstream.dtype(), upstream.device(), upstream.shape()), "ġ = H·v along the sweep"));
        }
    }
}
