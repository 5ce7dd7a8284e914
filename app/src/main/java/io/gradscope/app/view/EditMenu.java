package io.gradscope.app.view;

import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.TextInputControl;
import javafx.scene.input.KeyCombination;
import org.fxmisc.richtext.CodeArea;

/**
 * The Edit menu: undo and redo of the program's text, and the clipboard. Each item acts on the text
 * field that has the focus (the Find field), else on the program's editor; the editor's own undo
 * history is the one Ctrl+Z walks (it starts at the text opened).
 */
final class EditMenu {
    private EditMenu() {
    }

    static Menu of(CodeArea editor, Supplier<Node> focus) {
        Menu menu = new Menu("Edit");
        menu.setId("edit-menu");
        MenuItem undo = item("Undo", "Shortcut+Z", () -> on(focus, TextInputControl::undo, editor::undo));
        MenuItem redo = item("Redo", "Shortcut+Shift+Z", () -> on(focus, TextInputControl::redo, editor::redo));
        MenuItem cut = item("Cut", "Shortcut+X", () -> on(focus, TextInputControl::cut, editor::cut));
        MenuItem copy = item("Copy", "Shortcut+C", () -> on(focus, TextInputControl::copy, editor::copy));
        MenuItem paste = item("Paste", "Shortcut+V", () -> on(focus, TextInputControl::paste, editor::paste));
        MenuItem all = item("Select All", "Shortcut+A", () -> on(focus, TextInputControl::selectAll, editor::selectAll));
        // Undo and Redo are offered when there is something to take back or do again.
        menu.setOnShowing(e -> {
            TextInputControl f = field(focus);
            undo.setDisable(f != null ? !f.isUndoable() : !editor.getUndoManager().isUndoAvailable());
            redo.setDisable(f != null ? !f.isRedoable() : !editor.getUndoManager().isRedoAvailable());
        });
        // Long lines wrap under themselves by default (the examples' comments were cut at the pane's edge);
        // unchecked, they run on and the editor scrolls sideways.
        javafx.scene.control.CheckMenuItem wrap = new javafx.scene.control.CheckMenuItem("Wrap Long Lines");
        wrap.setId("wrap-lines");
        wrap.selectedProperty().bindBidirectional(editor.wrapTextProperty());
        menu.getItems().addAll(undo, redo, new SeparatorMenuItem(), cut, copy, paste, new SeparatorMenuItem(), all,
                new SeparatorMenuItem(), wrap);
        return menu;
    }

    /** The text field with the focus, or null (the editor, or no text at all). */
    private static TextInputControl field(Supplier<Node> focus) {
        return focus.get() instanceof TextInputControl f ? f : null;
    }

    private static void on(Supplier<Node> focus, java.util.function.Consumer<TextInputControl> inField, Runnable inEditor) {
        TextInputControl f = field(focus);
        if (f != null) {
            inField.accept(f);
        } else {
            inEditor.run();
        }
    }

    private static MenuItem item(String text, String keys, Runnable action) {
        MenuItem m = new MenuItem(text);
        m.setAccelerator(KeyCombination.keyCombination(keys));
        m.setOnAction(e -> action.run());
        return m;
    }
}
