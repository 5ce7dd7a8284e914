package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.control.TableCell;
import javafx.scene.text.Text;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** The live-at-peak table shows names as long as a layer's ("layer1_hidden") whole, not "laye…". */
class MemoryNamesWindowTest extends WindowFixture {
    static final String PROGRAM = """
            x = input(32, 20)
            layer1_weight = param(20, 64)
            layer1_hidden = relu(x @ layer1_weight)
            layer2_weight = param(64, 10)
            layer2_logits = layer1_hidden @ layer2_weight
            loss = sum(layer2_logits)
            """;

    @Test
    void thePeakTableShowsLayerNamesWhole(FxRobot robot) {
        openText(robot, "names.grad", PROGRAM);
        waitUntil("the memory track", () -> vm().memory().track().get() != null && !window.memoryPanel().table().getItems().isEmpty());
        settleLayout(robot);
        List<String> shown = readFx(() -> {
            List<String> out = new ArrayList<>();
            for (Node n : window.memoryPanel().table().lookupAll(".table-cell")) {
                if (n instanceof TableCell<?, ?> c && c.getTableColumn() != null && "value".equals(c.getTableColumn().getText())
                        && c.getItem() instanceof String name && name.startsWith("layer")) {
                    Node text = c.lookup(".text");
                    out.add(name + "=" + (text instanceof Text t ? t.getText() : null));
                }
            }
            return out;
        });
        assertTrue(shown.size() >= 3, "rows with layer names: " + shown);
        for (String s : shown) {
            String[] p = s.split("=");
            assertEquals(p[0], p.length > 1 ? p[1] : null, "the name as drawn");
        }
    }
}
