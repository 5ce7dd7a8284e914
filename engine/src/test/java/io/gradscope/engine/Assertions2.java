package io.gradscope.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.gradscope.engine.tensor.Tensor;

/** Closeness checks in the style of numpy.allclose, with a message naming the first bad element. */
public final class Assertions2 {
    private Assertions2() {
    }

    public static void assertClose(double[] expected, double[] actual, double rtol, double atol, String what) {
        if (expected.length != actual.length) {
            fail(what + ": expected " + expected.length + " elements, got " + actual.length);
        }
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            boolean ok = (Double.isNaN(e) && Double.isNaN(a)) || e == a || Math.abs(a - e) <= atol + rtol * Math.abs(e);
            if (!ok) {
                fail(what + ": element " + i + " expected " + e + " but got " + a + " (rtol " + rtol + ", atol " + atol + ")");
            }
        }
    }

    public static void assertClose(Tensor expected, Tensor actual, double rtol, double atol, String what) {
        assertArrayEquals(expected.shape(), actual.shape(), what + ": shape");
        assertClose(expected.toDoubleArray(), actual.toDoubleArray(), rtol, atol, what);
    }

    /** Equal to the last bit (NaN equals NaN). */
    public static void assertBitsEqual(double[] expected, double[] actual, String what) {
        if (expected.length != actual.length) {
            fail(what + ": expected " + expected.length + " elements, got " + actual.length);
        }
        for (int i = 0; i < expected.length; i++) {
            if (Double.doubleToLongBits(expected[i]) != Double.doubleToLongBits(actual[i])) {
                fail(what + ": element " + i + " differs: " + expected[i] + " vs " + actual[i]);
            }
        }
    }
}
