package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Tensor;

/**
 * A shape seen as lines along one axis: {@code [outer, n, inner]}. The ops that work along an axis
 * (cumsum, prod, max with an axis, gather) build their dependency rules from it.
 */
record AxisLines(int outer, int n, int inner) {

    static AxisLines of(int[] shape, int axis) {
        int outer = 1;
        int inner = 1;
        for (int d = 0; d < axis; d++) {
            outer *= shape[d];
        }
        for (int d = axis + 1; d < shape.length; d++) {
            inner *= shape[d];
        }
        return new AxisLines(outer, shape.length == 0 ? 1 : shape[axis], inner);
    }

    /** The flat index of position j of line (o, i). */
    int at(int o, int j, int i) {
        return (o * n + j) * inner + i;
    }

    /** Which lines pair up: output position j of each line on the input positions {@code on(j)} of the same line. */
    interface Along {
        int[] on(int j);
    }

    /** Output lines (of length {@code outN}, this shape's outer and inner) on positions of these lines. */
    Pattern pattern(int outN, Along along) {
        int total = 0;
        for (int j = 0; j < outN; j++) {
            total += along.on(j).length;
        }
        int count = Math.multiplyExact(total, outer * inner);
        int[] ri = new int[count];
        int[] ci = new int[count];
        int k = 0;
        AxisLines out = new AxisLines(outer, outN, inner);
        for (int o = 0; o < outer; o++) {
            for (int i = 0; i < inner; i++) {
                for (int j = 0; j < outN; j++) {
                    for (int src : along.on(j)) {
                        ri[k] = out.at(o, j, i);
                        ci[k++] = at(o, src, i);
                    }
                }
            }
        }
        return Pattern.fromCoordinates(outer * outN * inner, outer * n * inner, ri, ci);
    }

    /** Positions 0..n−1. */
    static int[] range(int from, int to) {
        int[] r = new int[Math.max(0, to - from)];
        for (int k = 0; k < r.length; k++) {
            r[k] = from + k;
        }
        return r;
    }

    /** The values of a tensor as ints (int64 indices). */
    static int[] ints(Tensor t) {
        double[] v = t.toDoubleArray();
        int[] out = new int[v.length];
        for (int k = 0; k < v.length; k++) {
            out[k] = (int) v[k];
        }
        return out;
    }
}
