package io.gradscope.app.launch;

import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.RecentFiles;
import java.nio.file.Path;
import java.util.function.Supplier;
import javafx.animation.AnimationTimer;
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
        // A screenshot's window opens its file without adding it to the user's Open Recent.
        MainWindow window = screenshot != null ? show(stage, MainWindow.recentInPreferences().readOnly())
                : show(stage, MainWindow::new);
        if (screenshot != null) {
            Screenshot.whenShown(window, window.getScene(), screenshot);
        }
        if (initialModel != null) {
            window.viewModel().openImported(initialModel);
        } else if (initialFile != null) {
            window.viewModel().open(initialFile);
        } else {
            window.viewModel().openText("backprop_chain.grad", DefaultProgram.text());
        }
    }

    /** The window with Open Recent in {@code recent}, shown on {@code stage}, as the app shows it (bench-ui --open). */
    public static MainWindow show(Stage stage, RecentFiles recent) {
        return show(stage, () -> new MainWindow(recent));
    }

    /** Builds the window, shows it on {@code stage} and marks the stages of the start ({@link StartTimes}). */
    private static MainWindow show(Stage stage, Supplier<MainWindow> make) {
        StartTimes.mark("fx_start");
        MainWindow window = make.get();
        StartTimes.mark("main_window");
        // -Dgradscope.window.size=1024x700: the window's size (a screenshot at the least size); 1280x820 by default.
        String[] size = System.getProperty("gradscope.window.size", "1280x820").split("x");
        Scene scene = new Scene(window, Double.parseDouble(size[0]), Double.parseDouble(size[1]));
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        StartTimes.mark("shown");
        // The pulse after the first one has run: the first frame has been rendered by then.
        new AnimationTimer() {
            private int pulses;

            @Override
            public void handle(long now) {
                if (++pulses == 2) {
                    StartTimes.mark("first_frame");
                    stop();
                }
            }
        }.start();
        return window;
    }
}
