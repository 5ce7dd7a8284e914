package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every double twin in the backend's sources is {@link Twins}'s output from its float method: edit
 * the float one and run this test with {@code -Dgradscope.regenerate=true} to rewrite the double
 * one. (That each computes what it should is the pooling, convolution and GEMM tests' job.)
 */
class TwinsTest {
    private static final Path SOURCES = Path.of("src/main/java/io/gradscope/engine/device/cpu");

    @Test
    void everyDoubleTwinIsWrittenFromItsFloatMethod() throws IOException {
        boolean regenerate = Boolean.getBoolean("gradscope.regenerate");
        for (Twins.Twin t : Twins.twins()) {
            Path f = SOURCES.resolve(t.file());
            String text = Files.readString(f, StandardCharsets.UTF_8);
            String made = Twins.replaced(text, t);
            if (regenerate) {
                Files.writeString(f, made, StandardCharsets.UTF_8);
            } else {
                assertTrue(made.equals(text), t.doubleStart() + " in " + f + " differs from its float twin turned double: edit "
                        + "the float method and run this test with -Dgradscope.regenerate=true");
            }
        }
    }

    @Test
    void theTypeChangeTouchesTypesAndLiteralsOnly() {
        Twins.Twin t = new Twins.Twin("X.java", "static void f(float[]", "static void f(double[]",
                List.<String[]>of(new String[] {"(F, ", "(D, "}));
        String f = "    static void f(float[] a, float k) {\n        a[0] = Float.NaN + 1f + 2.5f + 1e-3f + k * x1f;\n"
                + "        FloatVector v = FloatVector.fromArray(F, a, 0);\n    }";
        assertEquals("    static void f(double[] a, double k) {\n        a[0] = Double.NaN + 1.0 + 2.5 + 1e-3 + k * x1f;\n"
                + "        DoubleVector v = DoubleVector.fromArray(D, a, 0);\n    }", Twins.doubled(f, t));
    }

    @Test
    void aDoubleTwinEditedByHandIsFound() {
        String text = "class X {\n    static void f(float[] a) {\n        a[0] = 1f;\n    }\n\n    " + Twins.MARK
                + "\n    static void f(double[] a) {\n        a[0] = 2.0;\n    }\n}\n";
        Twins.Twin t = new Twins.Twin("X.java", "static void f(float[]", "static void f(double[]", List.of());
        String made = Twins.replaced(text, t);
        assertTrue(!made.equals(text) && made.contains("a[0] = 1.0;") && !made.contains("2.0"), made);
        assertEquals(made, Twins.replaced(made, t), "writing it again changes nothing");
    }
}
