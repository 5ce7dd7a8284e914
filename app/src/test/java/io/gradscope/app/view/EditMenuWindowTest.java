package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The Edit menu is there (a new user looks for Undo in it) and acts once on the text with the focus. */
class EditMenuWindowTest extends WindowFixture {
    private MenuItem item(String name) {
        Menu edit = ((javafx.scene.control.MenuBar) window.lookup(".menu-bar")).getMenus().stream()
                .filter(m -> m.getText().equals("Edit")).findFirst().orElseThrow();
        return edit.getItems().stream().filter(i -> name.equals(i.getText())).findFirst().orElseThrow();
    }

    @Test
    void undoTakesBackOneEditWhetherFromTheKeysOrTheMenu(FxRobot robot) throws Exception {
        Path mlp = Path.of("../assets/examples/mlp.grad");
        openAndWait(robot, mlp);
        String opened = Files.readString(mlp);
        CodeArea area = window.editor().area();
        // Two edits kept apart in the history.
        robot.interact(() -> {
            area.requestFocus();
            area.insertText(area.getLength(), "a = 1\n");
            area.getUndoManager().preventMerge();
            area.insertText(area.getLength(), "b = 2\n");
            area.getUndoManager().preventMerge();
            area.insertText(area.getLength(), "c = 3\n");
            area.getUndoManager().preventMerge();
        });
        // The keys: the editor's own undo, and the menu's accelerator not a second time.
        ctrl(robot, KeyCode.Z);
        assertEquals(opened + "a = 1\nb = 2\n", area.getText());
        // The menu's item, from the graph (no text focused): the editor's undo.
        robot.interact(() -> window.graphPanel().requestFocus());
        robot.interact(() -> item("Undo").fire());
        assertEquals(opened + "a = 1\n", area.getText());
        robot.interact(() -> item("Redo").fire());
        assertEquals(opened + "a = 1\nb = 2\n", area.getText());
        // Undo never goes back past the text opened.
        for (int i = 0; i < 5; i++) {
            robot.interact(() -> item("Undo").fire());
        }
        assertEquals(opened, area.getText());
        Menu edit = item("Undo").getParentMenu();
        robot.interact(() -> edit.getOnShowing().handle(null));
        assertTrue(item("Undo").isDisable(), "nothing left to undo");
        assertFalse(item("Redo").isDisable());
    }

    @Test
    void copyAndPasteActOnTheFocusedFindFieldOrElseOnTheEditor(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        CodeArea area = window.editor().area();
        robot.interact(() -> {
            area.requestFocus();
            area.selectRange(0, 0, 0, 1);
            item("Copy").fire();
        });
        String first = area.getText(0, 1);
        TextField find = robot.lookup(".text-field").match(n -> n instanceof TextField t && "Find node by name…".equals(t.getPromptText()))
                .queryAs(TextField.class);
        robot.interact(() -> {
            find.requestFocus();
            item("Paste").fire();
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(first, find.getText(), "pasted into the Find field, which had the focus");
        assertEquals(Files.readString(Path.of("../assets/examples/mlp.grad")), area.getText(), "the editor unchanged");
    }
}
