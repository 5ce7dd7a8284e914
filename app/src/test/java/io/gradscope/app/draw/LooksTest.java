package io.gradscope.app.draw;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.Sweep;
import org.junit.jupiter.api.Test;

/** The graph's colours read: a node not yet reached (every node before step 1) is lighter, never faint. */
class LooksTest {

    @Test
    void aNodeNotYetReachedReadsAtTheWebsNormalContrastYetStaysLighterThanAReachedOne() {
        for (String kind : new String[] {"op", "param", "input", "objective", "group"}) {
            Looks.NodeLook pending = Looks.node(kind, Sweep.State.PENDING, false);
            Looks.NodeLook reached = Looks.node(kind, Sweep.State.VISITED, false);
            double text = contrast(pending.text(), pending.fill());
            // WCAG 2's "AA" for normal text: 4.5:1.
            assertTrue(text >= 4.5, kind + ": its label " + pending.text() + " on " + pending.fill() + " is " + text + ":1");
            assertTrue(contrast(reached.text(), reached.fill()) > text + 3, kind + ": a reached node stands out more");
            assertTrue(contrast(pending.stroke(), Looks.BACKGROUND) >= 1.9, kind + ": its outline shows on the background");
        }
    }

    /** WCAG 2's contrast ratio of two #rrggbb colours. */
    static double contrast(String a, String b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(String hex) {
        double[] c = new double[3];
        for (int i = 0; i < 3; i++) {
            double x = Integer.parseInt(hex.substring(1 + 2 * i, 3 + 2 * i), 16) / 255.0;
            c[i] = x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    }
}
