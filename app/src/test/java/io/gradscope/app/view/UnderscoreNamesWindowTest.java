package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.scene.text.Text;
import javafx.stage.PopupWindow;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** Names with underscores (input_0, layer1_0_w) read as they are in every menu that shows one: no mnemonic eats an underscore. */
class UnderscoreNamesWindowTest extends WindowFixture {
    private static final String PROGRAM = "input_0 = param(4, 3)\nlayer1_0_w = param(3, 2)\nloss = sum(input_0 @ layer1_0_w)\n";

    /** The texts drawn on screen (each label's Text node) in the showing popup menus. */
    private static List<String> menuTexts() {
        return readFx(() -> {
            List<String> out = new ArrayList<>();
            for (Window w : Window.getWindows()) {
                if (w instanceof PopupWindow && w.isShowing() && w.getScene() != null) {
                    texts(w.getScene().getRoot(), out);
                }
            }
            return out;
        });
    }

    private static void texts(Node n, List<String> out) {
        if (n instanceof Text t && t.isVisible()) {
            out.add(t.getText());
        }
        if (n instanceof Parent p) {
            for (Node c : p.getChildrenUnmodifiable()) {
                texts(c, out);
            }
        }
    }

    @Test
    void theTangentMenuAndItsButtonShowLeafNamesWithTheirUnderscores(FxRobot robot) {
        openText(robot, "underscores.grad", PROGRAM);
        robot.clickOn("#tangent-chooser");
        waitUntil("the tangent menu", () -> !menuTexts().isEmpty());
        List<String> menu = menuTexts();
        assertTrue(menu.contains("input_0") && menu.contains("layer1_0_w"), "the menu reads " + menu);
        chooseInMenu(robot, "layer1_0_w");
        waitUntil("the run with the tangent", () -> !vm().running().get() && vm().derivatives().tangent().get() != null);
        List<String> button = readFx(() -> {
            List<String> out = new ArrayList<>();
            texts(window.lookup("#tangent-chooser"), out);
            return out;
        });
        assertTrue(button.stream().anyMatch(t -> t.startsWith("tangent: layer1_0_w")), "the button reads " + button);
    }

    @Test
    void theNodeMenuNamesTheLeafWithItsUnderscores(FxRobot robot) {
        openText(robot, "underscores.grad", PROGRAM);
        int leaf = readFx(() -> sweep().recorded().get().find("input_0"));
        var graph = window.graphPanel();
        waitUntil(() -> graph.boxOnScreen("v" + leaf) != null && graph.canvas().getWidth() > 0);
        double[] box = readFx(() -> graph.boxOnScreen("v" + leaf));
        robot.clickOn(graph.canvas().localToScreen(box[0] + box[2] / 2, box[1] + box[3] / 2), MouseButton.SECONDARY);
        waitUntil("the node menu", () -> menuTexts().stream().anyMatch(t -> t.startsWith("Carry")));
        List<String> menu = menuTexts();
        assertTrue(menu.contains("Carry Tangent From input_0"), "the node menu reads " + menu);
        robot.type(KeyCode.ESCAPE);
    }

    @Test
    void openRecentShowsFileNamesWithTheirUnderscores(FxRobot robot, @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(tmp.resolve("my_first_model.grad"), PROGRAM);
        openAndWait(robot, file);
        robot.clickOn("File");
        robot.clickOn("Open Recent");
        waitUntil("the recent list", () -> menuTexts().stream().anyMatch(t -> t.endsWith(".grad")));
        List<String> menu = menuTexts();
        assertEquals(1, menu.stream().filter(t -> t.endsWith("my_first_model.grad")).count(), "Open Recent reads " + menu);
        robot.type(KeyCode.ESCAPE).type(KeyCode.ESCAPE);
    }

}
