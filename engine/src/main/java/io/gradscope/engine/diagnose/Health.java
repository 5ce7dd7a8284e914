package io.gradscope.engine.diagnose;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.TensorStats;

/**
 * How many of a tensor's values are negative, zero, positive, NaN, +Inf and −Inf: the counts that
 * tell a healthy value or gradient from one that went bad (as TensorBoard Debugger V2's health pills).
 */
public record Health(long negative, long zero, long positive, long nan, long posInf, long negInf) {

    public static Health of(Tensor t) {
        return t == null ? new Health(0, 0, 0, 0, 0, 0) : of(t.toDoubleArray());
    }

    public static Health of(double[] v) {
        TensorStats s = TensorStats.of(v);
        return new Health(s.negative(), s.zero(), s.positive(), s.nan(), s.posInf(), s.negInf());
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
