package io.gradscope.engine.onnx;

import io.gradscope.engine.tensor.Shapes;

/**
 * A tensor whose value the import knows: an initializer, a Constant node, or something folded from
 * them (shapes, masks, indices). Values are held as doubles; {@code type} is the ONNX element type
 * (float ones are written as parameter or constant files, integer and bool ones as labels).
 *
 * @param fromParams whether a float value was computed from float initializers (then it is not
 *     folded into a file but its computation is written into the program, so the parameters keep
 *     their gradients)
 */
record Const(int[] shape, double[] data, int type, boolean fromParams) {
    Const {
        shape = shape.clone();
    }

    /** A copy (the values are shared: nothing writes them). */
    @Override
    public int[] shape() {
        return shape.clone();
    }

    static final int FLOAT = 1;
    static final int INT32 = 6;
    static final int INT64 = 7;
    static final int BOOL = 9;
    static final int FLOAT16 = 10;
    static final int DOUBLE = 11;

    static Const of(int[] shape, double[] data, int type) {
        return new Const(shape, data, type, false);
    }

    static Const ints(long... values) {
        double[] d = new double[values.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = values[i];
        }
        return of(new int[] {values.length}, d, INT64);
    }

    static Const scalar(double v, int type) {
        return of(new int[0], new double[] {v}, type);
    }

    static boolean isFloatType(int type) {
        return type == FLOAT || type == DOUBLE || type == FLOAT16;
    }

    boolean isFloat() {
        return isFloatType(type);
    }

    int numel() {
        return data.length;
    }

    /** The values as ints (shapes, axes, indices). */
    int[] ints() {
        int[] out = new int[data.length];
        for (int i = 0; i < out.length; i++) {
            double v = data[i];
            out[i] = v >= Integer.MAX_VALUE ? Integer.MAX_VALUE : v <= Integer.MIN_VALUE ? Integer.MIN_VALUE : (int) v;
        }
        return out;
    }

    /** The values as longs (slice ends are often INT64_MAX). */
    long[] longs() {
        long[] out = new long[data.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (long) data[i];
        }
        return out;
    }

    Const withType(int t) {
        return new Const(shape, data, t, fromParams);
    }

    Const withShape(int[] s) {
        return new Const(s, data, type, fromParams);
    }

    @Override
    public String toString() {
        return "Const" + Shapes.str(shape) + " type " + type;
    }
}
