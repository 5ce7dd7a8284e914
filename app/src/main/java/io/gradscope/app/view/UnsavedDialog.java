package io.gradscope.app.view;

import javafx.scene.control.Alert;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;

/** "Save the changes to mlp.grad before quitting?" Save, Don't Save, Cancel. */
final class UnsavedDialog {
    private UnsavedDialog() {
    }

    static MainWindow.Unsaved ask(String fileName, String doing) {
        ButtonType save = new ButtonType("Save", ButtonBar.ButtonData.YES);
        ButtonType discard = new ButtonType("Don't Save", ButtonBar.ButtonData.NO);
        Alert a = new Alert(Alert.AlertType.WARNING, "Your edits will be lost if you don't save them.", save, discard, ButtonType.CANCEL);
        a.setTitle("Unsaved edits");
        a.setHeaderText("Save the changes to " + fileName + " before " + doing + "?");
        ButtonType answer = a.showAndWait().orElse(ButtonType.CANCEL);
        return answer == save ? MainWindow.Unsaved.SAVE : answer == discard ? MainWindow.Unsaved.DISCARD : MainWindow.Unsaved.CANCEL;
    }
}
