package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** The trade-off chart's y axis reads two different peaks differently (trial 4: both ends read "240.3 KiB"). */
class TradeOffEndLabelsTest {

    @Test
    void peaksAFewBytesApartGetTheDecimalsThatTellThemApart() {
        // 240.30 KiB and 240.27 KiB: one decimal reads both as 240.3 KiB.
        double top = 240.30 * 1024;
        double bottom = 240.27 * 1024;
        String[] l = TradeOffChart.endLabels(top, bottom);
        assertNotEquals(l[0], l[1]);
        assertEquals("240.30 KiB", l[0]);
        assertEquals("240.27 KiB", l[1]);
    }

    @Test
    void peaksFarApartKeepOneDecimalAndEqualPeaksReadAlike() {
        String[] far = TradeOffChart.endLabels(2.5 * 1024 * 1024, 1.25 * 1024 * 1024);
        assertEquals("2.5 MiB", far[0]);
        assertEquals("1.3 MiB", far[1]);
        String[] same = TradeOffChart.endLabels(4096, 4096);
        assertEquals(same[0], same[1]);
        assertEquals("4.0 KiB", same[0]);
    }
}
