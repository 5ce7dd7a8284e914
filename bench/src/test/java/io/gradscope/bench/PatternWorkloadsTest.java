package io.gradscope.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.sparse.Pattern;
import org.junit.jupiter.api.Test;

/** The bench's convnet pattern has the nonzeros a 3x3 window counts by hand. */
class PatternWorkloadsTest {
    @Test
    void convnetPatternCountsEveryWindowTapInsideTheImage() {
        Pattern p = PatternWorkloads.convnet().pattern(Sparsity.GLOBAL);
        // Taps inside a 32-wide axis over all positions: 32·3 minus the two that fall off the ends;
        // 16 output channels on 16 input channels, both axes.
        long taps = 32 * 3 - 2;
        assertEquals(16L * 16 * taps * taps, p.nnz());
        assertEquals(16 * 32 * 32, p.rows());
        assertEquals(16 * 9, p.maxRowCount());
    }
}
