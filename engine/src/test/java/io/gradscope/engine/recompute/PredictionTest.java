package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The meta device predicts a CPU step's memory exactly: for every example and conformance program
 * and every policy, the predicted peak is the measured one; and the peak is the sum of the table
 * of tensors live at the peak.
 */
class PredictionTest {

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Path p : Programs.all().toList()) {
            out.add(Arguments.of(Programs.name(p), p));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void thePredictedPeakIsTheMeasuredOneAndTheSumOfWhatIsLiveAtIt(String name, Path file) {
        Program p = Program.load(file);
        RunOptions options = new RunOptions(DType.FLOAT32, 0, Map.of());
        for (RematPolicy policy : List.of(RematPolicy.NONE, RematPolicy.SEGMENTS, RematPolicy.SQRT)) {
            RematPlanner.Planned planned = p.plan(options, policy, true);
            for (boolean retain : new boolean[] {false, true}) {
                ProgramRun r = p.run(options, new MemoryOptions(policy, retain), (a, b, c) -> { });
                MemoryTimeline t = r.timeline();
                assertEquals(planned.predictedPeak(), t.peakBytes(), name + " " + policy + " retain=" + retain + ": predicted peak");
                long sum = t.liveAtPeak().stream().mapToLong(MemoryTimeline.Live::bytes).sum();
                assertEquals(t.peakBytes(), sum, name + " " + policy + ": the live-at-peak table adds up to the peak");
                long byCategory = t.peakByCategory().values().stream().mapToLong(Long::longValue).sum();
                assertEquals(t.peakBytes(), byCategory, name + ": categories add up to the peak");
                assertTrue(t.liveAtPeak().stream().allMatch(l -> l.category().program()), name + ": nothing held in the table");
            }
        }
    }
}
