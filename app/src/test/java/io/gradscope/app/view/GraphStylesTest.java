package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import io.gradscope.app.viewmodel.Sweep;
import org.graphstream.ui.graphicGraph.stylesheet.Selector;
import org.graphstream.ui.graphicGraph.stylesheet.Style;
import org.graphstream.ui.graphicGraph.stylesheet.StyleConstants;
import org.graphstream.ui.graphicGraph.stylesheet.StyleSheet;
import org.junit.jupiter.api.Test;

/** GraphStream drops a whole stylesheet over one bad rule (and only logs it): parse ours strictly. */
class GraphStylesTest {

    @Test
    void theStylesheetParses() {
        StyleSheet sheet = new StyleSheet();
        assertDoesNotThrow(() -> sheet.parseFromString(GraphStyles.css()));
        for (String cls : new String[] {"group", "groupbox"}) {
            assertNotNull(sheet.getNodeStyleNameSpace().byClass.get(cls), "no rule for node." + cls);
        }
        assertNotNull(sheet.getEdgeStyleNameSpace().byClass.get("active"), "no rule for edge.active");
        // The per-node state styles parse too.
        for (String style : GraphPanel.KIND_STYLE.values()) {
            assertDoesNotThrow(() -> new StyleSheet().parseFromString("node#a { " + style + " }"));
        }
        for (String style : GraphPanel.STATE_STYLE.values()) {
            assertDoesNotThrow(() -> new StyleSheet().parseFromString("node#a { " + style + " }"));
        }
        assertDoesNotThrow(() -> new StyleSheet().parseFromString("node#a { " + GraphPanel.SELECTED_STYLE + " }"));
        assertDoesNotThrow(() -> new StyleSheet().parseFromString("node#a { " + GraphPanel.RESET_STYLE + " }"));
    }

    @Test
    void aNodeThatWasPendingThenCurrentIsDrawnPlainOnceVisited() throws Exception {
        // GraphStream merges each new ui.style into the node's rule: every style resets what states set.
        StyleSheet sheet = new StyleSheet();
        sheet.parseFromString(GraphStyles.css());
        Selector a = new Selector(Selector.Type.NODE, "a", null);
        String base = GraphPanel.RESET_STYLE + " " + GraphPanel.KIND_STYLE.get("op") + " ";
        for (Sweep.State s : new Sweep.State[] {Sweep.State.PENDING, Sweep.State.CURRENT, Sweep.State.VISITED}) {
            sheet.parseStyleFromString(a, base + GraphPanel.STATE_STYLE.get(s));
        }
        Style style = sheet.getNodeStyleNameSpace().byId.get("a").getStyle();
        assertEquals(StyleConstants.TextStyle.NORMAL, style.getTextStyle());
        assertEquals("#1d2433", hex(style.getTextColor(0)));
        assertEquals("#ffffff", hex(style.getFillColor(0)));
    }

    private static String hex(org.graphstream.ui.graphicGraph.stylesheet.Color c) {
        return String.format("#%02x%02x%02x", c.getRed(), c.getGreen(), c.getBlue());
    }

    @Test
    void aBadRuleIsCaught() {
        assertThrows(IOException.class, () -> new StyleSheet().parseFromString("node.a, node.b { fill-color: red; }"));
    }
}
