package io.gradscope.engine.autograd;

/**
 * Whether ops record nodes on this thread, and whether a backward pass is running.
 *
 * <pre>{@code
 * try (var off = GradMode.disable()) { ... no nodes recorded here ... }
 * }</pre>
 */
public final class GradMode {
    private static final ThreadLocal<boolean[]> STATE = ThreadLocal.withInitial(() -> new boolean[] {true, false});

    private GradMode() {
    }

    public static boolean isEnabled() {
        return STATE.get()[0];
    }

    public static boolean inBackward() {
        return STATE.get()[1];
    }

    /** Restores the previous state when closed. */
    public interface Restore extends AutoCloseable {
        @Override
        void close();
    }

    public static Restore disable() {
        return set(false, inBackward());
    }

    /** Records nodes again inside a disabled region (e.g. a gradient evaluated inside a finite difference). */
    public static Restore enable() {
        return set(true, inBackward());
    }

    static Restore set(boolean enabled, boolean backward) {
        boolean[] s = STATE.get();
        boolean e0 = s[0];
        boolean b0 = s[1];
        s[0] = enabled;
        s[1] = backward;
        return () -> {
            s[0] = e0;
            s[1] = b0;
        };
    }
}
