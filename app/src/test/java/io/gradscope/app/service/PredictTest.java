package io.gradscope.app.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.engine.tensor.DType;
import org.junit.jupiter.api.Test;

/** A long program with nothing to plan skips the meta run that only predicts its peak; a short one keeps it. */
class PredictTest {

    private static RunService.Result run(String source) {
        return DirectRun.of(source, DType.FLOAT32).result();
    }

    @Test
    void aShortProgramsPeakIsPredictedAndEqualsTheMeasuredOne() {
        RunService.Result r = run(BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 300));
        long predicted = r.run().memory().predictedPeak();
        assertTrue(predicted > 0, "predicted " + predicted);
        // The meta device allocates as the CPU does: with nothing recomputed, the prediction is the measured peak.
        assertEquals(r.run().timeline().peakBytes(), predicted);
    }

    @Test
    void aLongProgramWithNothingToPlanIsNotRunTwice() {
        String source = BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 2 * RunService.PREDICT_LINES + 100);
        assertTrue(source.split("\n").length > RunService.PREDICT_LINES);
        RunService.Result r = run(source);
        assertEquals(-1, r.run().memory().predictedPeak());
        assertTrue(r.run().timeline().peakBytes() > 0);
    }

    @Test
    void lineBreaksAreCountedExactlyAtTheBoundary() {
        for (String text : new String[] {"", "a", "\n", "a\nb", "a\n\nb\n", "\n\n\n", "x\ny\nz"}) {
            long breaks = text.chars().filter(c -> c == '\n').count();
            for (int n = 0; n <= 4; n++) {
                assertEquals(breaks <= n, RunService.atMostLines(text, n), "'" + text.replace("\n", "\\n") + "' at most " + n);
            }
        }
    }
}
