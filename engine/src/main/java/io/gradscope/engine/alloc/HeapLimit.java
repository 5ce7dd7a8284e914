package io.gradscope.engine.alloc;

import io.gradscope.engine.GradscopeException;
import java.util.Locale;

/**
 * The Java heap's limit, and how to raise it, for messages about memory. Sizes are printed in
 * binary units (GiB, not GB: 1 GiB = 1024³ bytes).
 *
 * <pre>{@code
 * HeapLimit.human(3L << 30);   // "3.0 GiB"
 * }</pre>
 */
public final class HeapLimit {
    private HeapLimit() {
    }

    /** The most bytes the Java heap may grow to. */
    public static long bytes() {
        return Runtime.getRuntime().maxMemory();
    }

    /** How to raise the limit. */
    public static final String RAISE = "raise it with ./gradscope --max-memory SIZE (e.g. 16g) or JAVA_OPTS=-Xmx16g";

    /** "the Java heap's limit of 3.9 GiB" */
    public static String limit() {
        return "the Java heap's limit of " + human(bytes());
    }

    /** "the Java heap's limit is 3.9 GiB; raise it with ..." */
    public static String hint() {
        return "the Java heap's limit is " + human(bytes()) + "; " + RAISE;
    }

    /** An out-of-memory failure in words, with the heap's limit and how to raise it. */
    public static OutOfMemory outOfMemory(String doing) {
        return new OutOfMemory(doing);
    }

    /** Bytes in binary units: "512 bytes", "1.5 KiB", "3.0 GiB". */
    public static String human(double b) {
        return human(b, 1);
    }

    /** As {@link #human(double)}, with {@code decimals} decimals above a KiB ("240.27 KiB"). */
    public static String human(double b, int decimals) {
        String[] u = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int i = 0;
        while (b >= 1024 && i < u.length - 1) {
            b /= 1024;
            i++;
        }
        return i == 0 ? (long) b + " bytes" : String.format(Locale.ROOT, "%." + decimals + "f %s", b, u[i]);
    }

    /** Thrown when an allocation does not fit in the heap: a user can fix it by asking for more. */
    public static final class OutOfMemory extends GradscopeException {
        private final String doing;

        OutOfMemory(String doing) {
            super("out of memory " + doing + " (" + hint() + ")");
            this.doing = doing;
        }

        /** What needed the memory: "allocating 2.0 GiB for a float32 tensor of ... elements". */
        public String doing() {
            return doing;
        }
    }
}
