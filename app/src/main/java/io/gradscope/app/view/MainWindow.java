package io.gradscope.app.view;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.service.RunService;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.program.ProgramException;
import io.gradscope.engine.program.ProgramGraph;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.backend.Backends;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.trace.TraceJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.concurrent.Task;
import javafx.embed.swing.SwingFXUtils;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextField;
import javafx.scene.control.ToolBar;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import javafx.util.Duration;
import org.controlsfx.control.StatusBar;

/**
 * The window: editor, graph and inspector side by side, the transport bar and the status bar
 * below. It binds views to the {@link SessionViewModel}; runs go through {@link RunService}.
 */
public final class MainWindow extends BorderPane {
    private final SessionViewModel vm = new SessionViewModel();
    private final ProgramEditor editor = new ProgramEditor(vm);
    private final GraphPanel graph = new GraphPanel();
    private final Inspector inspector = new Inspector(vm);
    private final TransportBar transport = new TransportBar(vm);
    private final StatusBar status = new StatusBar();
    private final ProgressBar progress = new ProgressBar();
    private final Button runButton = new Button("Run ▶");
    private final Button cancelButton = new Button("Cancel");
    private final ComboBox<String> dtype = new ComboBox<>();
    private final ComboBox<String> deviceBox = new ComboBox<>();
    private String notice = "";
    private final TextField find = new TextField();
    private final Set<String> collapsed = new HashSet<>();
    private final Timeline player = new Timeline();
    private final Menus menus;
    private Task<RunService.Result> running;
    private Path file;

    public MainWindow() {
        setId("main");
        runButton.setId("run");
        runButton.setOnAction(e -> run());
        cancelButton.setId("cancel");
        cancelButton.setDisable(true);
        cancelButton.setOnAction(e -> cancel());
        dtype.getItems().addAll("float32", "float64");
        dtype.setValue("float64");
        deviceBox.getItems().addAll("cpu", "cuda");
        deviceBox.setValue("cpu");
        deviceBox.setId("device");
        find.setId("find");
        find.setPromptText("Find node by name…");
        find.setOnAction(e -> findNode(find.getText()));
        Button fit = new Button("Fit");
        fit.setOnAction(e -> graph.fit());
        Button zoomIn = new Button("+");
        zoomIn.setOnAction(e -> graph.zoom(0.8));
        Button zoomOut = new Button("−");
        zoomOut.setOnAction(e -> graph.zoom(1.25));
        progress.setVisible(false);
        progress.setPrefWidth(120);
        ToolBar tools = new ToolBar(runButton, cancelButton, new Label("dtype"), dtype, new Label("device"), deviceBox, progress, new Label("   "), find, fit, zoomIn, zoomOut);
        menus = new Menus(this);
        setTop(new VBox(menus.bar(), tools));
        graph.setId("graph");
        SplitPane split = new SplitPane(editor, graph, inspector);
        split.setDividerPositions(0.3, 0.74);
        setCenter(split);
        status.setId("status");
        status.setText("Ready");
        setBottom(new VBox(transport, status));

        graph.setOnNodeClicked(key -> {
            graph.requestFocus();
            vm.selected().set(vertexOfKey(key));
        });
        graph.setOnNodeDoubleClicked(this::toggleGroup);
        vm.cursor().addListener((o, a, b) -> updateGraph());
        vm.selected().addListener((o, a, b) -> updateGraph());
        vm.mode().addListener((o, a, b) -> updateGraph());
        vm.playing().addListener((o, a, b) -> play(b));
        vm.speed().addListener((o, a, b) -> {
            if (vm.playing().get()) {
                play(true);
            }
        });
    }

    public SessionViewModel viewModel() {
        return vm;
    }

    public GraphPanel graphPanel() {
        return graph;
    }

    public Inspector inspector() {
        return inspector;
    }

    public ProgramEditor editor() {
        return editor;
    }

    public TransportBar transport() {
        return transport;
    }

    public StatusBar statusBar() {
        return status;
    }

    /** Chooses the device for the next run ("cpu" or "cuda"). */
    public void setDevice(String device) {
        deviceBox.setValue(device);
    }

    public Path file() {
        return file;
    }

    /** Installs the keys that step (when the editor does not have the focus) and drag-and-drop. */
    public void install(Scene scene) {
        scene.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            if (e.isShortcutDown() && e.getCode() == KeyCode.ENTER) {
                run();
                e.consume();
                return;
            }
            if (scene.getFocusOwner() instanceof javafx.scene.control.TextInputControl
                    || scene.getFocusOwner() == editor.area()) {
                return;
            }
            boolean handled = true;
            switch (e.getCode()) {
                case RIGHT -> vm.stepForward();
                case LEFT -> vm.stepBack();
                case SPACE -> vm.playing().set(!vm.playing().get());
                case HOME -> vm.toStart();
                case END -> vm.toEnd();
                case ESCAPE -> vm.selected().set(-1);
                default -> handled = false;
            }
            if (handled) {
                e.consume();
            }
        });
        scene.setOnDragOver(e -> {
            if (e.getDragboard().hasFiles()) {
                e.acceptTransferModes(TransferMode.COPY);
            }
            e.consume();
        });
        scene.setOnDragDropped(e -> {
            boolean ok = e.getDragboard().hasFiles() && !e.getDragboard().getFiles().isEmpty();
            if (ok) {
                open(e.getDragboard().getFiles().get(0).toPath());
            }
            e.setDropCompleted(ok);
            e.consume();
        });
        scene.getStylesheets().add(getClass().getResource("/styles/app.css").toExternalForm());
    }

    /** Opens a program file (the text goes in the editor) and runs it. */
    public void open(Path path) {
        try {
            String text = Files.readString(path, StandardCharsets.UTF_8);
            file = path;
            vm.fileName().set(path.getFileName().toString());
            vm.source().set(text);
            menus.remember(path);
            run();
        } catch (IOException | RuntimeException e) {
            status.setText("Cannot open " + path + ": " + e.getMessage());
        }
    }

    /** Shows a program that is not from a file (the embedded default). */
    public void openText(String name, String text) {
        file = null;
        vm.fileName().set(name);
        vm.source().set(text);
        run();
    }

    public void save() {
        if (file == null) {
            menus.saveAs();
            return;
        }
        saveTo(file);
    }

    void saveTo(Path path) {
        try {
            Files.writeString(path, vm.source().get(), StandardCharsets.UTF_8);
            file = path;
            vm.fileName().set(path.getFileName().toString());
            status.setText("Saved " + path);
        } catch (IOException e) {
            status.setText("Cannot save " + path + ": " + e.getMessage());
        }
    }

    /** Runs the editor's text off the FX thread; the result (or the error) comes back to the FX thread. */
    public void run() {
        if (running != null) {
            return;
        }
        vm.playing().set(false);
        DType dt = "float32".equals(dtype.getValue()) ? DType.FLOAT32 : DType.FLOAT64;
        Device device = Device.CPU;
        notice = "";
        if ("cuda".equals(deviceBox.getValue())) {
            if (Backends.cudaAvailable()) {
                device = Device.CUDA;
            } else {
                // Fall back to the CPU, and say so.
                notice = "CUDA unavailable: " + Backends.cudaProblem() + "; ran on the CPU. ";
                deviceBox.setValue("cpu");
            }
        }
        Task<RunService.Result> task = RunService.task(vm.fileName().get(), vm.source().get(), new RunOptions(dt, 0, Map.of(), device));
        running = task;
        runButton.setDisable(true);
        cancelButton.setDisable(false);
        progress.setVisible(true);
        progress.progressProperty().bind(task.progressProperty());
        status.textProperty().bind(task.messageProperty());
        task.setOnSucceeded(e -> finished(task, task.getValue(), null));
        task.setOnFailed(e -> finished(task, null, task.getException()));
        task.setOnCancelled(e -> finished(task, null, null));
        Thread t = new Thread(task, "gradscope-run");
        t.setDaemon(true);
        t.start();
    }

    public boolean isRunning() {
        return running != null;
    }

    public void cancel() {
        if (running != null) {
            running.cancel(true);
        }
    }

    private void finished(Task<RunService.Result> task, RunService.Result result, Throwable error) {
        if (task != running) {
            return;
        }
        running = null;
        status.textProperty().unbind();
        progress.progressProperty().unbind();
        runButton.setDisable(false);
        cancelButton.setDisable(true);
        progress.setVisible(false);
        if (result != null) {
            collapsed.clear();
            vm.showRun(result.run());
            showGraph(result.layout());
            var objective = result.run().objective();
            status.setText(notice + String.format(java.util.Locale.ROOT, "Ran %s: objective %s · %d nodes · %d backward steps · run %d ms, layout %d ms",
                    vm.fileName().get(), Heatmap.num(objective.item()), result.run().programGraph().vertices().size(),
                    vm.sweep().get().steps(Sweep.Mode.BACKWARD), result.runMillis(), result.layoutMillis()));
        } else if (error instanceof ProgramException pe) {
            vm.showError(new SessionViewModel.RunError(pe.getMessage(), pe.what(), pe.line(), pe.column()));
            status.setText("Error at line " + pe.line() + ", column " + pe.column() + ": " + pe.what());
        } else if (error instanceof GradscopeException ge) {
            vm.showError(new SessionViewModel.RunError("error: " + ge.getMessage(), ge.getMessage(), 0, 0));
            status.setText("error: " + ge.getMessage());
        } else if (error != null) {
            vm.showError(new SessionViewModel.RunError("internal error: " + error, String.valueOf(error), 0, 0));
            status.setText("Internal error: " + error);
        } else {
            status.setText("Run cancelled");
        }
    }

    /** Draws a layout of the current run (the bench uses this to time layout and drawing apart from running). */
    public void showLayout(GraphLayout.Result layout) {
        collapsed.clear();
        showGraph(layout);
    }

    private void showGraph(GraphLayout.Result layout) {
        Sweep s = vm.sweep().get();
        Map<String, Integer> sizes = new HashMap<>();
        for (ProgramGraph.Vertex v : s.graph().vertices()) {
            String key = GraphLayout.keyOf(v, collapsed);
            if (key.startsWith("g:")) {
                sizes.merge(key.substring(2), 1, Integer::sum);
            }
        }
        graph.show(s.graph(), layout, sizes);
        updateGraph();
    }

    private void toggleGroup(String key) {
        Sweep s = vm.sweep().get();
        if (s == null || key == null) {
            return;
        }
        if (key.startsWith("g:")) {
            String path = key.substring(2);
            if (!collapsed.remove(path)) {
                collapsed.add(path);
            }
        } else {
            return;
        }
        showGraph(GraphLayout.layout(s.graph(), collapsed));
    }

    /** Collapses (true) or expands (false) every group. */
    public void setAllGroupsCollapsed(boolean collapse) {
        Sweep s = vm.sweep().get();
        if (s == null) {
            return;
        }
        collapsed.clear();
        if (collapse) {
            for (ProgramGraph.Vertex v : s.graph().vertices()) {
                if (!v.groups().isEmpty()) {
                    collapsed.add(v.groups().get(0));
                }
            }
        }
        showGraph(GraphLayout.layout(s.graph(), collapsed));
    }

    private int vertexOfKey(String key) {
        if (key == null || !key.startsWith("v")) {
            return -1;
        }
        return Integer.parseInt(key.substring(1));
    }

    private void findNode(String name) {
        if (vm.find(name)) {
            ProgramGraph.Vertex v = vm.vertex(vm.selected().get());
            graph.centerOn(GraphLayout.keyOf(v, collapsed));
            status.setText("Found " + v.title());
        } else {
            status.setText("No node named '" + name + "'");
        }
    }

    /** Restyles the graph for the cursor, the mode and the selection. */
    public void updateGraph() {
        Sweep s = vm.sweep().get();
        if (s == null) {
            return;
        }
        Sweep.Mode mode = vm.mode().get();
        int cursor = vm.cursor().get();
        Map<String, String> states = new HashMap<>();
        Set<ProgramGraph.Edge> pending = new HashSet<>();
        for (ProgramGraph.Vertex v : s.graph().vertices()) {
            Sweep.State st = s.state(mode, cursor, v.id());
            String key = GraphLayout.keyOf(v, collapsed);
            String cls = switch (st) {
                case CURRENT -> "current";
                case VISITED -> "visited";
                case PENDING -> "pending";
                case OUTSIDE -> null;
            };
            String prev = states.get(key);
            if (cls != null && (prev == null || rank(cls) > rank(prev))) {
                states.put(key, cls);
            }
        }
        for (ProgramGraph.Edge e : s.graph().edges()) {
            // An edge is dim until its consumer has run (forward) or sent its gradient (backward).
            if (s.state(mode, cursor, e.to()) == Sweep.State.PENDING) {
                pending.add(e);
            }
        }
        ProgramGraph.Vertex sel = vm.vertex(vm.selected().get());
        graph.setClasses(states, sel == null ? null : GraphLayout.keyOf(sel, collapsed), s.activeEdges(mode, cursor), pending);
        ProgramGraph.Vertex current = vm.vertex(vm.currentVertex());
        if (current != null) {
            graph.ensureVisible(GraphLayout.keyOf(current, collapsed));
        }
        inspector.refresh();
    }

    private static int rank(String cls) {
        return switch (cls) {
            case "current" -> 3;
            case "pending" -> 2;
            default -> 1;
        };
    }

    private void play(boolean on) {
        player.stop();
        if (!on) {
            return;
        }
        if (vm.cursor().get() >= vm.steps() - 1) {
            vm.toStart();
        }
        player.getKeyFrames().setAll(new KeyFrame(Duration.seconds(1 / Math.max(0.1, vm.speed().get())), e -> vm.stepForward()));
        player.setCycleCount(Timeline.INDEFINITE);
        player.play();
    }

    /** Writes the graph view as a PNG. */
    public void exportPng(Path path) throws IOException {
        var image = graph.snapshot(null, null);
        javax.imageio.ImageIO.write(SwingFXUtils.fromFXImage(image, null), "png", path.toFile());
        status.setText("Wrote " + path);
    }

    /** Writes the graph as SVG, as it is drawn now (states, lit edges, collapsed groups). */
    public void exportSvg(Path path) throws IOException {
        Sweep s = vm.sweep().get();
        if (s == null || graph.currentLayout() == null) {
            status.setText("Nothing to export: run a program first");
            return;
        }
        Map<String, String> styles = new HashMap<>();
        for (String key : graph.currentLayout().nodes().keySet()) {
            styles.put(key, graph.styleOf(key));
        }
        Files.writeString(path, SvgExport.svg(s.graph(), graph.currentLayout(), styles, s.activeEdges(vm.mode().get(),
                vm.cursor().get())), StandardCharsets.UTF_8);
        status.setText("Wrote " + path);
    }

    /** Writes the last run's trace as JSON. */
    public void exportTrace(Path path) throws IOException {
        Sweep s = vm.sweep().get();
        if (s == null) {
            status.setText("Nothing to export: run a program first");
            return;
        }
        try (var w = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            TraceJson.write(s.run().trace(), w);
        }
        status.setText("Wrote " + path);
    }
}
