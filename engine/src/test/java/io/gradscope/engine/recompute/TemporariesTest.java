package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.MemoryReport;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.MemoryCategory;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An op built from many elementwise steps lets each go once read ("temporaries at once"): erf (about
 * 100 steps, Cody's rational approximations) keeps its temporaries to a few outputs' worth, where
 * holding them all until the op ended made them 100 outputs' worth at the peak.
 */
class TemporariesTest {
    @Test
    void erfsStepsAreNotLiveTogether() {
        int n = 64 * 1024;
        Program p = Program.parse("erf.grad", "x = param(" + n + ")\ny = erf(x)\nL = sum(y * y)\n");
        MemoryReport r = MemoryReport.measure(p, new RunOptions(DType.FLOAT64, 0, Map.of()), RematPolicy.NONE, 1);
        long output = 8L * n;
        long temporaries = r.peakByCategory().getOrDefault(MemoryCategory.TEMPORARY, 0L);
        assertTrue(temporaries <= 10 * output, "temporaries at the peak: " + temporaries + " bytes, " + (double) temporaries / output
                + " outputs' worth");
        // The whole peak: x, its gradient, y and what the backward pass needs, not a hundred copies.
        assertTrue(r.peakBytes() <= 16 * output, "peak " + r.peakBytes() + " bytes");
    }
}
