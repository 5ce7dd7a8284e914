package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
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
    }

    @Test
    void aBadRuleIsCaught() {
        assertThrows(IOException.class, () -> new StyleSheet().parseFromString("node.a, node.b { fill-color: red; }"));
    }
}
