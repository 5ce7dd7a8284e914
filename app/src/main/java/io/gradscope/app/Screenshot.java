package io.gradscope.app;

import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import java.nio.file.Path;
import javafx.animation.PauseTransition;
import javafx.application.Platform;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.Scene;
import javafx.util.Duration;

/**
 * Writes the window to a PNG once the first run is on screen (for the README and for looking at it).
 * System properties: {@code gradscope.screenshot.mode=forward} steps the forward pass,
 * {@code gradscope.screenshot.steps} (3) steps forward, then {@code gradscope.screenshot.back} (0) back;
 * {@code gradscope.screenshot.expand=true} unfolds every run and group first;
 * {@code gradscope.screenshot.zoom} (0: Fit) zooms in that many steps on the current node.
 */
final class Screenshot {
    private Screenshot() {
    }

    static void whenShown(MainWindow w, Scene scene, Path out) {
        w.viewModel().error().addListener((o, a, b) -> {
            if (b != null) {
                take(scene, out);
            }
        });
        SweepViewModel sweep = w.viewModel().sweep();
        boolean[] expanded = {!Boolean.getBoolean("gradscope.screenshot.expand")};
        sweep.layout().addListener((o, a, b) -> {
            if (b == null) {
                return;
            }
            if (!expanded[0]) {
                expanded[0] = true;
                Platform.runLater(sweep::expandAll);
                return;
            }
            // Step a few nodes into the sweep so the picture shows it, then let it draw.
            if ("forward".equals(System.getProperty("gradscope.screenshot.mode"))) {
                sweep.setMode(Sweep.Mode.FORWARD);
            }
            int steps = Integer.getInteger("gradscope.screenshot.steps", 3);
            for (int i = 0; i < steps; i++) {
                sweep.stepForward();
            }
            for (int i = Integer.getInteger("gradscope.screenshot.back", 0); i > 0; i--) {
                sweep.stepBack();
            }
            int zoom = Integer.getInteger("gradscope.screenshot.zoom", 0);
            if (zoom == 0) {
                Platform.runLater(w.graphPanel()::fit);
            } else {
                Platform.runLater(() -> {
                    w.graphPanel().fit();
                    for (int i = 0; i < zoom; i++) {
                        w.graphPanel().zoomIn();
                    }
                    w.graphPanel().centerOn(sweep.keyOf(sweep.currentVertex()));
                });
            }
            take(scene, out);
        });
    }

    private static void take(Scene scene, Path out) {
        PauseTransition pause = new PauseTransition(Duration.millis(1500));
        pause.setOnFinished(e -> {
            try {
                var img = scene.snapshot(null);
                javax.imageio.ImageIO.write(SwingFXUtils.fromFXImage(img, null), "png", out.toFile());
                System.err.println("gradscope: wrote " + out);
            } catch (Exception ex) {
                System.err.println("gradscope: cannot write " + out + ": " + ex.getMessage());
            }
            Platform.exit();
        });
        pause.play();
    }
}
