package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The spy plot's fit: square entries, unless the matrix would be a sliver along its short side. */
class SpyPlotFitTest {
    @Test
    void aTallThinMatrixFillsTheViewAcrossAndASquareOneKeepsSquareEntries() {
        double[] tall = SpyPlot.fitScales(320, 10, 302, 302, false);
        assertEquals(300, tall[0] * 10, 1e-9, "the 10 columns across the whole width");
        assertEquals(300, tall[1] * 320, 1e-9, "the 320 rows down the whole height");
        double[] wide = SpyPlot.fitScales(10, 320, 302, 202, false);
        assertEquals(200, wide[1] * 10, 1e-9, "the 10 rows down the whole height");
        double[] square = SpyPlot.fitScales(40, 60, 302, 302, false);
        assertEquals(square[0], square[1], 1e-12, "a matrix that fills a third or more keeps square entries");
        assertEquals(300, square[0] * 60, 1e-9);
    }
}
