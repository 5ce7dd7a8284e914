package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * At the end of a step nothing is left allocated but the parameters, their gradients (and the
 * gradients of inputs that asked for one) and what is held for inspection: on every example and
 * conformance program, under each policy, retained or not.
 */
class StepEndTest {

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Path p : Programs.all().toList()) {
            for (RematPolicy policy : List.of(RematPolicy.NONE, RematPolicy.SEGMENTS, RematPolicy.SQRT)) {
                for (boolean retain : new boolean[] {true, false}) {
                    out.add(Arguments.of(Programs.name(p), p, policy, retain));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {2} retain={3}")
    @MethodSource("cases")
    void onlyParametersTheirGradientsAndWhatIsHeldAreLeft(String name, Path file, RematPolicy policy, boolean retain) {
        ProgramRun r = Programs.run(file, DType.FLOAT64, policy, retain);
        MemoryTimeline.Sample end = r.timeline().last();
        long params = 0;
        long grads = 0;
        for (Leaf l : r.leaves()) {
            Tensor v = r.values().get(l.name());
            if (l.kind() == Leaf.Kind.PARAM) {
                params += v.storage().bytes();
            }
            if (l.grad()) {
                grads += r.gradient(l.name()).storage().bytes();
            }
        }
        assertEquals(0, end.of(MemoryCategory.ACTIVATION), name + ": activations left");
        assertEquals(0, end.of(MemoryCategory.TEMPORARY), name + ": temporaries left");
        assertEquals(params, end.of(MemoryCategory.PARAMETER), name + ": parameters");
        assertEquals(grads, end.of(MemoryCategory.GRADIENT), name + ": gradients left besides the leaves'");
        if (!retain) {
            assertEquals(0, end.of(MemoryCategory.HELD_FOR_INSPECTION), name + ": nothing held without retaining");
        }
    }
}
