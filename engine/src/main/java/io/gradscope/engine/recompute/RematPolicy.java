package io.gradscope.engine.recompute;

import io.gradscope.engine.GradscopeException;
import java.util.Locale;

/**
 * How a training step chooses what to recompute: {@code none} (keep everything the backward pass
 * reads), {@code segments} (the program's {@code with checkpoint():} blocks), {@code sqrt} (about √n
 * segments along the longest chain, after Chen et al. 2016) or {@code budget=BYTES} (recompute the
 * cheapest saved values, by recompute FLOPs, until the predicted peak fits under BYTES).
 *
 * <pre>{@code
 * RematPolicy.parse("budget=64m");    // Kind.BUDGET, 64 MiB
 * RematPolicy.parse("sqrt");
 * }</pre>
 */
public record RematPolicy(Kind kind, long budget) {
    /** The policies. */
    public enum Kind { NONE, SEGMENTS, SQRT, BUDGET }

    public static final RematPolicy NONE = new RematPolicy(Kind.NONE, 0);
    public static final RematPolicy SEGMENTS = new RematPolicy(Kind.SEGMENTS, 0);
    public static final RematPolicy SQRT = new RematPolicy(Kind.SQRT, 0);

    /** A budget policy. */
    public static RematPolicy budget(long bytes) {
        return new RematPolicy(Kind.BUDGET, bytes);
    }

    /** Reads {@code none|segments|sqrt|budget=BYTES}; BYTES takes k, m, g suffixes (powers of 1024). */
    public static RematPolicy parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        switch (t) {
            case "none":
                return NONE;
            case "segments":
                return SEGMENTS;
            case "sqrt":
                return SQRT;
            default:
                break;
        }
        if (t.startsWith("budget=")) {
            long b = bytes(t.substring("budget=".length()));
            if (b > 0) {
                return budget(b);
            }
        }
        throw new GradscopeException("--remat must be none, segments, sqrt or budget=BYTES (e.g. budget=64m), not '" + text + "'");
    }

    private static long bytes(String s) {
        if (!s.matches("[0-9]+(\\.[0-9]+)?([kmg](ib|b)?|b)?")) {
            return -1;
        }
        String digits = s.replaceAll("[a-z]+$", "");
        String unit = s.substring(digits.length());
        double scale = unit.isEmpty() || unit.equals("b") ? 1 : switch (unit.charAt(0)) {
            case 'k' -> 1024.0;
            case 'm' -> 1024.0 * 1024;
            default -> 1024.0 * 1024 * 1024;
        };
        double b = Double.parseDouble(digits) * scale;
        // Past 2^62 bytes (4 EiB) is no memory: refused rather than rounded down to Long.MAX_VALUE.
        return b < 0x1p62 ? (long) b : -1;
    }

    @Override
    public String toString() {
        return kind == Kind.BUDGET ? "budget=" + budget : kind.name().toLowerCase(Locale.ROOT);
    }
}
