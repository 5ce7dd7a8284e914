package io.gradscope.app.launch;

import io.gradscope.app.view.MainWindow;
import io.gradscope.app.view.SpyPlot;
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
 * {@code gradscope.screenshot.zoom} (0: Fit) zooms in that many steps on the current node;
 * {@code gradscope.screenshot.tangent=LEAF:DIRECTION} runs again carrying that tangent first,
 * {@code gradscope.screenshot.select=NAME} finds a node as Find does (opening what folds it, framed
 * unless a zoom is given), {@code gradscope.screenshot.origin=true}
 * jumps to the origin of a NaN, {@code gradscope.screenshot.overlay=norm} colours by gradient norm,
 * {@code gradscope.screenshot.panel=hvp|compare} shows that tab, {@code gradscope.screenshot.hessian=true}
 * computes the H·v leaf's Hessian, {@code gradscope.screenshot.compare=dtypes} compares float32 with
 * float64 (=pytorch: PyTorch's step beside a captured step's run), {@code gradscope.screenshot.scalars=NAME} opens a node's scalar graph,
 * {@code gradscope.screenshot.remat=POLICY} runs again under that remat policy first,
 * {@code gradscope.screenshot.tradeoff=true} shows the memory panel's trade-off curve,
 * {@code gradscope.screenshot.memcompare=POLICY} draws that policy's run over the memory timeline,
 * {@code gradscope.screenshot.jacobian=OF:WRT[:local]} opens the Jacobian tab on that Jacobian and picks a nonzero
 * ({@code gradscope.screenshot.jacobian.zoom}: zooms the spy plot in about it that many times), or shows its
 * estimate where that is above the limit.
 */
final class Screenshot {
    private Screenshot() {
    }

    static void whenShown(MainWindow w, Scene scene, Path out) {
        // A file that does not open shows no run: the picture is of what is shown, the status says why, exit 2.
        w.viewModel().status().addListener((o, a, b) -> {
            if (b != null && b.startsWith("Cannot open ")) {
                System.err.println("error: cannot open " + b.substring("Cannot open ".length()));
                GradscopeApp.exitStatus = 2;
                take(scene, out);
            }
        });
        // A program that does not run: the picture shows the error beside its line, and the command says it
        // as `run` does (FILE:LINE:COL: error: ...) and exits 2.
        w.viewModel().error().addListener((o, a, b) -> {
            if (b != null) {
                if (GradscopeApp.exitStatus == 0) {
                    java.nio.file.Path file = w.viewModel().file().get();
                    System.err.println(file != null && b.line() > 0
                            ? file + ":" + b.line() + ":" + b.column() + ": error: " + b.what() : b.message());
                    GradscopeApp.exitStatus = 2;
                }
                take(scene, out);
            }
        });
        SweepViewModel sweep = w.viewModel().sweep();
        String tangent = System.getProperty("gradscope.screenshot.tangent");
        boolean[] tangentApplied = {tangent == null};
        boolean[] expanded = {!Boolean.getBoolean("gradscope.screenshot.expand")};
        String remat = System.getProperty("gradscope.screenshot.remat");
        boolean[] rematApplied = {remat == null};
        boolean[] stepped = {false};
        sweep.layout().addListener((o, a, b) -> {
            // After the steps below, a new layout (Find opening the sections round the selected node) is the
            // picture's, not a cue to step again.
            if (b == null || stepped[0]) {
                return;
            }
            if (!tangentApplied[0]) {
                tangentApplied[0] = true;
                w.viewModel().derivatives().setTangent(io.gradscope.app.service.TangentChoice.parse(tangent));
                return;
            }
            if (!rematApplied[0]) {
                rematApplied[0] = true;
                Platform.runLater(() -> w.viewModel().memory().choosePolicy(io.gradscope.engine.recompute.RematPolicy.parse(remat)));
                return;
            }
            if (!expanded[0]) {
                expanded[0] = true;
                Platform.runLater(sweep::expandAll);
                return;
            }
            stepped[0] = true;
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
            String select = System.getProperty("gradscope.screenshot.select");
            if (select != null) {
                sweep.find(select);
            }
            if ("norm".equals(System.getProperty("gradscope.screenshot.overlay"))) {
                w.viewModel().diagnostics().setOverlay(io.gradscope.app.viewmodel.OverlayViewModel.Overlay.GRADIENT_NORM);
            }
            String panel = System.getProperty("gradscope.screenshot.panel", "");
            if (panel.equals("hvp")) {
                w.side().showHvp();
            } else if (panel.equals("compare")) {
                w.side().showCompare();
            } else if (panel.equals("node")) {
                w.side().showNode();
            }
            if (Boolean.getBoolean("gradscope.screenshot.hessian")) {
                w.viewModel().derivatives().computeHessian();
            }
            if ("dtypes".equals(System.getProperty("gradscope.screenshot.compare"))) {
                w.viewModel().diagnostics().compareDTypes();
            } else if ("pytorch".equals(System.getProperty("gradscope.screenshot.compare"))) {
                w.viewModel().diagnostics().compareWithPyTorch();
            }
            String expand = System.getProperty("gradscope.screenshot.scalars");
            if (expand != null && sweep.find(expand)) {
                w.nodeMenu().expandSelected();
            }
            if (Boolean.getBoolean("gradscope.screenshot.tradeoff")) {
                w.viewModel().memory().showTradeOff(true);
            }
            String memCompare = System.getProperty("gradscope.screenshot.memcompare");
            if (memCompare != null) {
                w.viewModel().memory().compareWith(io.gradscope.engine.recompute.RematPolicy.parse(memCompare));
            }
            String jacobian = System.getProperty("gradscope.screenshot.jacobian");
            if (jacobian != null) {
                showJacobian(w, jacobian, scene, out);
                return;
            }
            if (Boolean.getBoolean("gradscope.screenshot.origin")) {
                // The origin is looked for off the UI thread: give it a moment.
                PauseTransition wait = new PauseTransition(Duration.millis(1000));
                wait.setOnFinished(e -> {
                    w.viewModel().diagnostics().jumpToOrigin();
                    fitOrZoom(w, sweep);
                    take(scene, out);
                });
                wait.play();
                return;
            }
            if (select == null || Integer.getInteger("gradscope.screenshot.zoom", 0) != 0) {
                fitOrZoom(w, sweep);
            }
            // else Find has framed the selected node (opening what folds it), as it does for the user.
            take(scene, out);
        });
    }

    /** The Jacobian tab on OF:WRT[:local], the middle nonzero picked (its paths lit), then the picture. */
    private static void showJacobian(MainWindow w, String spec, Scene scene, Path out) {
        String[] p = spec.split(":");
        var j = w.viewModel().jacobian();
        var sweep = w.viewModel().sweep();
        j.result().addListener((o, a, r) -> {
            if (r != null && r.pattern().nnz() > 0) {
                var pattern = r.pattern();
                int i = pattern.rows() / 2;
                while (pattern.rowCount(i) == 0) {
                    i = (i + 1) % pattern.rows();
                }
                int col = pattern.row(i)[pattern.rowCount(i) / 2];
                j.pick(i, col);
                fitOrZoom(w, sweep);
                double zoom = Double.parseDouble(System.getProperty("gradscope.screenshot.jacobian.zoom", "1"));
                if (zoom != 1) {
                    int row = i;
                    Platform.runLater(() -> {
                        SpyPlot spy = w.side().jacobianPanel().spy();
                        double[] at = spy.pixelOf(row, col);
                        spy.zoomAt(zoom, at[0], at[1]);
                    });
                }
                take(scene, out);
            }
        });
        // A Jacobian estimated above the limit is not started: the picture is of its estimate.
        j.aboveLimit().addListener((o, a, e) -> {
            if (e != null) {
                take(scene, out);
            }
        });
        if (p.length > 2) {
            j.setSparsity(io.gradscope.engine.jacobian.Sparsity.valueOf(p[2].toUpperCase(java.util.Locale.ROOT)));
        }
        if (p.length > 1) {
            j.setLeaf(p[1]);
        }
        w.side().showJacobian();
        int v = sweep.recorded().get().find(p[0]);
        j.show(v);
    }

    private static void fitOrZoom(MainWindow w, SweepViewModel sweep) {
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
    }

    private static void take(Scene scene, Path out) {
        // gradscope.screenshot.delay: longer, to take the whole screen meanwhile (import -window root).
        PauseTransition pause = new PauseTransition(Duration.millis(Integer.getInteger("gradscope.screenshot.delay", 1500)));
        pause.setOnFinished(e -> {
            // Written beside it and moved over it: a failed write leaves what was there.
            Path tmp = null;
            try {
                var img = scene.snapshot(null);
                Path folder = out.toAbsolutePath().getParent();
                java.nio.file.Files.createDirectories(folder);
                tmp = java.nio.file.Files.createTempFile(folder, ".gradscope-screenshot-", ".png");
                try (var stream = java.nio.file.Files.newOutputStream(tmp)) {
                    javax.imageio.ImageIO.write(SwingFXUtils.fromFXImage(img, null), "png", stream);
                }
                java.nio.file.Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                System.err.println("gradscope: wrote " + out);
            } catch (java.io.IOException | RuntimeException ex) {
                System.err.println("error: --screenshot " + out + ": cannot write it ("
                        + (ex instanceof java.io.IOException ioe ? io.gradscope.engine.InputFiles.reason(ioe) : ex.getMessage()) + ")");
                GradscopeApp.exitStatus = 2;
                if (tmp != null) {
                    try {
                        java.nio.file.Files.deleteIfExists(tmp);
                    } catch (java.io.IOException gone) {
                        // nothing more to do
                    }
                }
            }
            Platform.exit();
        });
        pause.play();
    }
}
