package io.gradscope.engine.ops;

/**
 * Whether ops record nodes on this thread, and whether a backward pass is running.
 *
 * <pre>{@code
 * try (var off = GradMode.disable()) { ... no nodes recorded here ... }
 * }</pre>
 */
public final class GradMode {
    /** A thread's mode, and the four ways back to an earlier one (made once: entering a mode allocates nothing). */
    private static final class State {
        boolean enabled = true;
        boolean backward;
        final Restore[] back = new Restore[4];

        State() {
            for (int i = 0; i < 4; i++) {
                boolean e = (i & ENABLED) != 0;
                boolean b = (i & IN_BACKWARD) != 0;
                back[i] = () -> {
                    enabled = e;
                    backward = b;
                };
            }
        }

        /** The mode as {@link #ENABLED} and {@link #IN_BACKWARD} bits: also the index of the way back to it. */
        int bits() {
            return (enabled ? ENABLED : 0) | (backward ? IN_BACKWARD : 0);
        }

        /** Enters a mode; returns the way back to this one. */
        Restore set(boolean enabled, boolean backward) {
            Restore way = back[bits()];
            this.enabled = enabled;
            this.backward = backward;
            return way;
        }
    }

    private static final io.gradscope.engine.PerThread<State> STATE = new io.gradscope.engine.PerThread<>(State::new);

    private GradMode() {
    }

    public static boolean isEnabled() {
        return STATE.get().enabled;
    }

    public static boolean inBackward() {
        return STATE.get().backward;
    }

    /** Restores the previous state when closed. */
    public interface Restore extends AutoCloseable {
        @Override
        void close();
    }

    /** {@link #ENABLED} and {@link #IN_BACKWARD} bits of this thread's mode, read at once (an op's hot path). */
    public static int mode() {
        return STATE.get().bits();
    }

    public static final int ENABLED = 1;
    public static final int IN_BACKWARD = 2;

    public static Restore disable() {
        State s = STATE.get();
        return s.set(false, s.backward);
    }

    /** Records nodes again inside a disabled region (e.g. a gradient evaluated inside a finite difference). */
    public static Restore enable() {
        State s = STATE.get();
        return s.set(true, s.backward);
    }

    /** Sets both flags until the returned {@link Restore} is closed (the backward pass: recording only with {@code createGraph}). */
    public static Restore set(boolean enabled, boolean backward) {
        return STATE.get().set(enabled, backward);
    }
}
