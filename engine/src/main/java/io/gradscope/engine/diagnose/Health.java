package io.gradscope.engine.diagnose;

import io.gradscope.engine.tensor.Tensor;

/**
 * How many of a tensor's values are negative, zero, positive, NaN, +Inf and −Inf: the counts that
 * tell a healthy value or gradient from one that went bad (as TensorBoard Debugger V2's health pills).
 */
public record Health(long negative, long zero, long positive, long nan, long posInf, long negInf) {

    public static Health of(Tensor t) {
        return t == null ? new Health(0, 0, 0, 0, 0, 0) : of(t.toDoubleArray());
    }

    public static Health of(double[] v) {
        long neg = 0;
        long zero = 0;
        long pos = 0;
        long nan = 0;
        long pinf = 0;
        long ninf = 0;
        for (double x : v) {
            if (Double.isNaN(x)) {
                nan++;
            } else if (x == Double.POSITIVE_INFINITY) {
                pinf++;
            } else if (x == Double.NEGATIVE_INFINITY) {
                ninf++;
            } else if (x < 0) {
                neg++;
            } else if (x > 0) {
                pos++;
            } else {
                zero++;
            }
        }
        return new Health(neg, zero, pos, nan, pinf, ninf);
    }

    /** Whether every value is finite. */
    public boolean finite() {
        return nan == 0 && posInf == 0 && negInf == 0;
    }

    /** The non-finite values in words: "3 NaN, 1 +Inf" (empty when finite). */
    public String badText() {
        StringBuilder sb = new StringBuilder();
        append(sb, nan, "NaN");
        append(sb, posInf, "+Inf");
        append(sb, negInf, "−Inf");
        return sb.toString();
    }

    private static void append(StringBuilder sb, long n, String what) {
        if (n > 0) {
            sb.append(sb.length() > 0 ? ", " : "").append(n).append(' ').append(what);
        }
    }
}
