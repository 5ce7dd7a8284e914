package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.DType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Recomputing gives the same gradients to the bit: every example and conformance program, in
 * float32 and float64, under every policy, with values retained or released, against the plain run.
 */
class RematGradientsTest {

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Path p : Programs.all().toList()) {
            for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                out.add(Arguments.of(Programs.name(p), p, dt));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("cases")
    void recomputedGradientsAreBitIdenticalToPlain(String name, Path file, DType dt) {
        ProgramRun plain = Programs.run(file, dt, RematPolicy.NONE, true);
        List<RematPolicy> policies = List.of(RematPolicy.SEGMENTS, RematPolicy.SQRT, RematPolicy.budget(1));
        for (RematPolicy policy : policies) {
            for (boolean retain : new boolean[] {true, false}) {
                ProgramRun r = Programs.run(file, dt, policy, retain);
                String what = name + " " + policy + (retain ? "" : " --no-retain");
                assertEquals(Double.doubleToRawLongBits(plain.objective().item()), Double.doubleToRawLongBits(r.objective().item()),
                        what + ": objective");
                for (Leaf l : plain.leaves()) {
                    if (!l.grad()) {
                        continue;
                    }
                    assertNotNull(r.gradient(l.name()), what + ": " + l.name());
                    assertArrayEquals(bits(plain.gradient(l.name()).toDoubleArray()), bits(r.gradient(l.name()).toDoubleArray()),
                            what + ": gradient of " + l.name());
                }
            }
        }
    }

    private static long[] bits(double[] v) {
        long[] b = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = Double.doubleToRawLongBits(v[i]);
        }
        return b;
    }
}
