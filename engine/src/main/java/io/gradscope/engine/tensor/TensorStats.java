package io.gradscope.engine.tensor;

/**
 * Summary statistics of a tensor's values, for the inspector and reports: min, max and mean of
 * the finite values, the L2 norm, and counts of negative, zero and positive finite values, of NaN,
 * +Inf and −Inf (one pass classifies every value for all of them).
 */
public record TensorStats(long count, double min, double max, double mean, double l2, long nan, long posInf, long negInf,
                          long negative, long zero, long positive) {

    public static TensorStats of(Tensor t) {
        return of(t.toDoubleArray());
    }

    public static TensorStats of(double[] v) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double sq = 0;
        long finite = 0;
        long nan = 0;
        long pos = 0;
        long neg = 0;
        long below = 0;
        long zero = 0;
        for (double x : v) {
            if (Double.isNaN(x)) {
                nan++;
            } else if (x == Double.POSITIVE_INFINITY) {
                pos++;
            } else if (x == Double.NEGATIVE_INFINITY) {
                neg++;
            } else {
                finite++;
                if (x < 0) {
                    below++;
                } else if (x == 0) {
                    zero++;
                }
                min = Math.min(min, x);
                max = Math.max(max, x);
                sum += x;
                sq += x * x;
            }
        }
        double l2 = (pos + neg) > 0 ? Double.POSITIVE_INFINITY : Math.sqrt(sq);
        if (nan > 0) {
            l2 = Double.NaN;
        }
        return new TensorStats(v.length, finite == 0 ? Double.NaN : min, finite == 0 ? Double.NaN : max,
                finite == 0 ? Double.NaN : sum / finite, l2, nan, pos, neg, below, zero, finite - below - zero);
    }
}
