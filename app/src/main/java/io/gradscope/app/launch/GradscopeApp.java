package io.gradscope.app.launch;

import io.gradscope.app.view.MainWindow;
import java.nio.file.Path;
import javafx.application.Application;
import javafx.scene.Scene;
import javafx.stage.Stage;

/** The desktop app: one window on a program, already run and ready to step. */
public final class GradscopeApp extends Application {
    /** The file to open, set by the launcher before {@link Application#launch}; null for the default program. */
    static volatile Path initialFile;
    /** An ONNX model imported by the launcher, opened under its own name (instead of {@link #initialFile}). */
    static volatile io.gradscope.app.service.ModelImport.Imported initialModel;
    /** When set, the app writes a snapshot of its window here once the first run is shown, then exits. */
    static volatile Path screenshot;
    /** The launcher's exit status once the window has closed: 2 when a screenshot's file did not open. */
    static volatile int exitStatus;

    @Override
    public void start(Stage stage) {
        MainWindow window = new MainWindow();
        Scene scene = new Scene(window, 1280, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        if (screenshot != null) {
            Screenshot.whenShown(window, scene, screenshot);
        }
        if (initialModel != null) {
            window.viewModel().openImported(initialModel);
        } else if (initialFile != null) {
            window.viewModel().open(initialFile);
        } else {
            window.viewModel().openText("backprop_chain.grad", DefaultProgram.text());
        }
    }
}
