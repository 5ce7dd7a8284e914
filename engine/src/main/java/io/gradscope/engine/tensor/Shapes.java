package io.gradscope.engine.tensor;

import io.gradscope.engine.GradscopeException;
import java.util.Arrays;

/** Shape arithmetic: element counts, strides, broadcasting and axis normalisation. */
public final class Shapes {
    private Shapes() {
    }

    /** Largest element count a tensor may have (Java arrays are int-indexed). */
    public static final long MAX_NUMEL = Integer.MAX_VALUE - 8;

    /** The element count; {@link Long#MAX_VALUE} when it overflows a long. */
    public static long numel(int[] shape) {
        long n = 1;
        for (int d : shape) {
            try {
                n = Math.multiplyExact(n, (long) d);
            } catch (ArithmeticException e) {
                return Long.MAX_VALUE;
            }
        }
        return n;
    }

    /** {@code a * b} for element counts, {@link Long#MAX_VALUE} when it overflows. */
    public static long timesSaturating(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The exact element count in decimal, even where it overflows a long (for messages). */
    public static String numelText(int[] shape) {
        java.math.BigInteger n = java.math.BigInteger.ONE;
        for (int d : shape) {
            n = n.multiply(java.math.BigInteger.valueOf(d));
        }
        return n.toString();
    }

    /** Row-major (C order) strides for a shape. */
    public static int[] contiguousStrides(int[] shape) {
        int[] s = new int[shape.length];
        int acc = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= Math.max(shape[i], 1);
        }
        return s;
    }

    public static String str(int[] shape) {
        return Arrays.toString(shape);
    }

    /** NumPy broadcasting of two shapes; {@code what} names the operation for the error message. */
    public static int[] broadcast(String what, int[] a, int[] b) {
        if (java.util.Arrays.equals(a, b)) {
            return a.clone();
        }
        int r = Math.max(a.length, b.length);
        int[] out = new int[r];
        for (int i = 0; i < r; i++) {
            int da = i < r - a.length ? 1 : a[i - (r - a.length)];
            int db = i < r - b.length ? 1 : b[i - (r - b.length)];
            if (da == db || db == 1) {
                out[i] = da;
            } else if (da == 1) {
                out[i] = db;
            } else {
                throw new GradscopeException(what + " cannot broadcast shapes " + str(a) + " and " + str(b)
                        + " (dimension " + (i - r) + ": " + da + " vs " + db + ")");
            }
        }
        return out;
    }

    /** True when {@code from} broadcasts to exactly {@code to}. */
    public static boolean broadcastsTo(int[] from, int[] to) {
        if (from.length > to.length) {
            return false;
        }
        int lead = to.length - from.length;
        for (int i = 0; i < from.length; i++) {
            if (from[i] != 1 && from[i] != to[lead + i]) {
                return false;
            }
        }
        return true;
    }

    /** Maps a possibly negative axis into [0, rank), or fails naming the op. */
    public static int axis(String op, int axis, int rank) {
        int r = Math.max(rank, 1);
        if (axis < -r || axis >= r) {
            throw new GradscopeException(op + ": axis " + axis + " is out of range for a tensor of rank " + rank
                    + " (expected " + (-r) + " to " + (r - 1) + ")");
        }
        return axis < 0 ? axis + r : axis;
    }

    /** Normalises a set of axes ({@code null} means all), rejecting repeats. Result is sorted. */
    public static int[] axes(String op, int[] axes, int rank) {
        if (axes == null) {
            int[] all = new int[rank];
            for (int i = 0; i < rank; i++) {
                all[i] = i;
            }
            return all;
        }
        int[] out = new int[axes.length];
        boolean[] seen = new boolean[Math.max(rank, 1)];
        for (int i = 0; i < axes.length; i++) {
            int a = axis(op, axes[i], rank);
            if (seen[a]) {
                throw new GradscopeException(op + ": axis " + axes[i] + " appears more than once");
            }
            seen[a] = true;
            out[i] = a;
        }
        Arrays.sort(out);
        if (rank == 0) {
            return new int[0];
        }
        return out;
    }

    /** The shape with the given (sorted, normalised) axes set to 1. */
    public static int[] keepDims(int[] shape, int[] axes) {
        int[] out = shape.clone();
        for (int a : axes) {
            out[a] = 1;
        }
        return out;
    }

    /** The shape with the given (sorted, normalised) axes removed. */
    public static int[] dropDims(int[] shape, int[] axes) {
        int[] out = new int[shape.length - axes.length];
        int j = 0;
        outer:
        for (int i = 0; i < shape.length; i++) {
            for (int a : axes) {
                if (a == i) {
                    continue outer;
                }
            }
            out[j++] = shape[i];
        }
        return out;
    }

    /** Checks that every dimension is non-negative and the element count fits. */
    public static void checkValid(String what, int[] shape) {
        for (int d : shape) {
            if (d < 0) {
                throw new GradscopeException(what + ": negative dimension " + d + " in shape " + str(shape));
            }
        }
        if (numel(shape) > MAX_NUMEL) {
            throw new GradscopeException(what + ": shape " + str(shape) + " has " + numel(shape)
                    + " elements, more than the " + MAX_NUMEL + " a tensor can hold");
        }
    }
}
