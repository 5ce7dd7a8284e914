package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.tensor.DType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs that release what they no longer need (as training does) read nothing they released: every
 * op's declaration of what its VJP reads is put to the test on the random programs, where a storage
 * released too early would throw, and the gradients equal a run that keeps everything, to the bit,
 * also when checkpoint blocks and √n segments are recomputed.
 */
class ReleasedRunsTest {

    @Test
    void randomProgramsReleasedAsTheyGoGiveTheGradientsOfRunsThatKeepEverything() {
        for (long seed = 0; seed < 300; seed++) {
            String src = ProgramGenerator.generate(seed);
            Program p = Program.parse("random.grad", src);
            RunOptions options = new RunOptions(seed % 2 == 0 ? DType.FLOAT64 : DType.FLOAT32, seed, Map.of());
            ProgramRun kept;
            try {
                kept = p.run(options, new MemoryOptions(RematPolicy.NONE, true), (a, b, c) -> { });
            } catch (io.gradscope.engine.GradscopeException e) {
                continue; // a program the generator made that the engine refuses (the random test covers those)
            }
            for (RematPolicy policy : new RematPolicy[] {RematPolicy.NONE, RematPolicy.SEGMENTS, RematPolicy.SQRT}) {
                ProgramRun released = p.run(options, new MemoryOptions(policy, false), (a, b, c) -> { });
                String what = "seed " + seed + " " + policy + "\n" + src;
                assertEquals(Double.doubleToRawLongBits(kept.objective().item()),
                        Double.doubleToRawLongBits(released.objective().item()), what);
                for (Leaf l : kept.leaves()) {
                    if (l.grad()) {
                        assertArrayEquals(kept.gradient(l.name()).toDoubleArray(), released.gradient(l.name()).toDoubleArray(), 0.0,
                                what + ": " + l.name());
                    }
                }
            }
        }
    }
}
