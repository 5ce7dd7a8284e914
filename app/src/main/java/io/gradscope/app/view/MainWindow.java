package io.gradscope.app.view;

import io.gradscope.app.export.Exporter;
import io.gradscope.app.service.RunService;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.RecentFiles;
import io.gradscope.app.viewmodel.SweepViewModel;
import java.nio.file.Path;
import java.util.function.BiFunction;
import javafx.application.Platform;
import javafx.event.EventHandler;
import javafx.scene.Scene;
import javafx.scene.control.MenuBar;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextInputControl;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.stage.WindowEvent;
import org.controlsfx.control.StatusBar;

/**
 * The window: menus and tool bar on top, editor, graph (the memory panel under it) and inspector
 * side by side, the transport bar and the status bar below. It only assembles the views and binds them to the
 * {@link SessionViewModel}; the keys and dropped files become its commands.
 */
public final class MainWindow extends BorderPane implements Menus.Actions {
    /** What to do with unsaved edits on quitting. */
    public enum Unsaved { SAVE, DISCARD, CANCEL }

    // What a shown run sets off in the background (the memory track, the diagnoses) starts after its first frame.
    private final SessionViewModel vm = new SessionViewModel(RunService.background(Platform::runLater).submittingAfter(NextFrame::after));
    private final ProgramEditor editor = new ProgramEditor(vm);
    private final GraphPanel graph = new GraphPanel(vm.sweep());
    private final Inspector inspector = new Inspector(vm.sweep(), vm.onDemand());
    private final TransportBar transport = new TransportBar(vm.sweep());
    private final MemoryPanel memory = new MemoryPanel(vm.memory(), vm.remat());
    private final StatusBar status = new StatusBar();
    private final Exporter exporter = new Exporter(vm, () -> graph.decorators());
    private final Menus menus;
    private BiFunction<String, String, Unsaved> askUnsaved = UnsavedDialog::ask;
    private Runnable exit = Platform::exit;
    private static final String CLOSE_HANDLER = "gradscope.closeHandler";
    /** The smallest window: at this size every pane, tab and control still shows whole. */
    static final double MIN_WIDTH = 1024;
    static final double MIN_HEIGHT = 700;
    private final NodeDetails details = new NodeDetails(vm, inspector);
    private final SidePanel side = new SidePanel(vm, inspector);
    private final NodeMenu nodeMenu = NodeMenu.install(vm, graph);

    /** Open Recent as the app keeps it, in the user's preferences. */
    public static RecentFiles recentInPreferences() {
        return Menus.recentInPreferences();
    }

    /** The window, with Open Recent kept in the user's preferences. */
    public MainWindow() {
        this(Menus.recentInPreferences());
    }

    public MainWindow(RecentFiles recent) {
        setId("main");
        // The first file opened is laid out by a layout engine already loaded, warmed up from here on the
        // second core. After the window's first frame instead, the window showed 0.1 s sooner but the graph
        // 0.05-0.16 s later (the layout engine still cold when the run ended: `./gradscope bench-ui --open`,
        // 10k blocks and chain, 3 fresh JVMs each alternating, quiet, 5 of 6 pairs).
        io.gradscope.app.layout.GraphLayout.warmUpInBackground();
        menus = new Menus(vm, graph, exporter, this::window, this, recent);
        menus.bar().getMenus().add(1, EditMenu.of(editor.area(), () -> getScene() == null ? null : getScene().getFocusOwner()));
        menus.bar().getMenus().add(DebugMenu.of(vm, side, nodeMenu::expandSelected));
        setTop(new VBox(menus.bar(), new RunToolBar(vm, graph), new FindingBar(vm.diagnostics(), editor::showLine)));
        // Diagnoses colour the graph: the overlay's fill, or the node's mark (NaN origin, failed check).
        graph.addDecorator(vm.memory().recomputed()); // recomputed nodes outlined; diagnoses over them
        graph.addDecorator(vm.diagnostics());
        // A nonzero picked in the Jacobian view lights its paths.
        graph.addDecorator(vm.jacobian());
        transport.addTool(new TangentChooser(vm.derivatives()));
        SplitPane graphAndMemory = new SplitPane(OverlayLegend.above(graph, vm.diagnostics()), memory);
        graphAndMemory.setOrientation(javafx.geometry.Orientation.VERTICAL);
        graphAndMemory.setDividerPositions(0.62);
        roomForTradeOff(graphAndMemory);
        inspector.followText(vm::textLine, vm.source());
        memory.followText(vm::textLine, vm.source());
        vm.memory().lineToShow().addListener((o, a, line) -> editor.showLine(line.intValue()));
        // Narrowed, the panes give way down to where they still show what matters: the editor's first
        // columns, the graph, every tab of the side panel (none in an overflow menu).
        editor.setMinWidth(160);
        graphAndMemory.setMinWidth(320);
        side.setMinWidth(SidePanel.MIN_WIDTH);
        SplitPane split = new SplitPane(editor, graphAndMemory, side);
        split.setDividerPositions(0.28, 0.68);
        setCenter(split);
        status.setId("status");
        status.textProperty().bind(vm.status());
        setBottom(new VBox(transport, status));
    }

    public SessionViewModel viewModel() {
        return vm;
    }

    public GraphPanel graphPanel() {
        return graph;
    }

    /** The least share of the graph-and-memory column the graph keeps when the trade-off curve asks for room. */
    static final double GRAPH_LEAST_SHARE = 0.45;

    /**
     * Shown, the trade-off curve gets its preferred height where the graph can spare it (down to
     * {@link #GRAPH_LEAST_SHARE} of the column): at 1024 × 700 it had 58 px of plot between its axes'
     * labels, its current choice's label cramped against the staircase.
     */
    private void roomForTradeOff(SplitPane graphAndMemory) {
        TradeOffChart chart = memory.tradeOffChart();
        Runnable grow = () -> javafx.application.Platform.runLater(() -> {
            double lack = chart.getPrefHeight() - chart.getHeight();
            double h = graphAndMemory.getHeight();
            if (!vm.memory().tradeOffShown().get() || chart.getScene() == null || lack < 1 || h <= 0) {
                return;
            }
            double at = graphAndMemory.getDividerPositions()[0];
            double want = Math.max(GRAPH_LEAST_SHARE, at - lack / h);
            if (want < at - 0.001) {
                graphAndMemory.setDividerPositions(want);
            }
        });
        chart.heightProperty().addListener((o, a, b) -> grow.run());
        vm.memory().tradeOffShown().addListener((o, a, on) -> grow.run());
    }

    public MemoryPanel memoryPanel() {
        return memory;
    }

    public Inspector inspector() {
        return inspector;
    }

    public ProgramEditor editor() {
        return editor;
    }

    public NodeDetails details() {
        return details;
    }

    public SidePanel side() {
        return side;
    }

    public NodeMenu nodeMenu() {
        return nodeMenu;
    }

    public TransportBar transport() {
        return transport;
    }

    public StatusBar statusBar() {
        return status;
    }

    public Exporter exporter() {
        return exporter;
    }

    public MenuBar menuBar() {
        return menus.bar();
    }

    private Window window() {
        return getScene() == null ? null : getScene().getWindow();
    }

    /** How unsaved edits are asked about, given the file's name and what is about to happen (a dialog; tests answer themselves). */
    public void setAskUnsaved(BiFunction<String, String, Unsaved> ask) {
        askUnsaved = ask;
    }

    /** What quitting does once allowed (Platform.exit). */
    public void setExit(Runnable exit) {
        this.exit = exit;
    }

    /** Whether the window may close: no unsaved edits, or they were saved or discarded when asked. */
    public boolean confirmClose() {
        return mayDiscardEdits("quitting");
    }

    /** Whether another file may replace the text: no unsaved edits, or they were saved or discarded when asked. */
    @Override
    public boolean mayReplace() {
        return mayDiscardEdits("opening another file");
    }

    private boolean mayDiscardEdits(String doing) {
        if (!vm.modified().get()) {
            return true;
        }
        // An imported model's text is never written over the model: the offer is to save it as a program.
        return switch (askUnsaved.apply(vm.saveName(), doing)) {
            case SAVE -> save();
            case DISCARD -> true;
            case CANCEL -> false;
        };
    }

    /** Quits, unless unsaved edits are kept by the user's answer. */
    @Override
    public void quit() {
        if (confirmClose()) {
            exit.run();
        }
    }

    /** Saves to the text's file, or asks where; true when nothing is left unsaved. */
    @Override
    public boolean save() {
        return vm.save() ? !vm.modified().get() : saveAs();
    }

    @Override
    public boolean saveAs() {
        FileChooser fc = new FileChooser();
        fc.setInitialFileName(vm.saveName());
        fc.setInitialDirectory(vm.dialogFolder().toFile());
        var f = fc.showSaveDialog(window());
        if (f != null) {
            vm.saveTo(f.toPath());
        }
        return f != null && !vm.modified().get();
    }

    /** Installs the stylesheet, the keys that step (when no text field has the focus) and drag-and-drop. */
    public void install(Scene scene) {
        SweepViewModel sweep = vm.sweep();
        // The stepping keys are caught on their way down (a filter), before the focused control acts on
        // them: a toggle would take → as "select the next pass", a button or combo box Space as a press.
        scene.addEventFilter(KeyEvent.KEY_PRESSED, e -> {
            if (e.isShortcutDown() || e.isAltDown() || inText(scene.getFocusOwner())) {
                return;
            }
            boolean handled = true;
            switch (e.getCode()) {
                case RIGHT -> sweep.stepForward();
                case LEFT -> sweep.stepBack();
                case SPACE -> sweep.togglePlaying();
                case HOME -> sweep.toStart();
                case END -> sweep.toEnd();
                default -> handled = false;
            }
            if (handled) {
                e.consume();
            }
        });
        scene.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            if (e.isShortcutDown() && e.getCode() == KeyCode.ENTER) {
                vm.run();
                e.consume();
                return;
            }
            if (inText(scene.getFocusOwner())) {
                return;
            }
            boolean handled = true;
            switch (e.getCode()) {
                case PLUS, EQUALS, ADD -> graph.zoomIn();
                case MINUS, SUBTRACT -> graph.zoomOut();
                case DIGIT0, NUMPAD0 -> graph.fitAsked();
                case ESCAPE -> {
                    // Esc stops what is running (as the tool bar's Cancel), else clears the selection.
                    if (vm.cancellable().get()) {
                        vm.cancel();
                    } else {
                        sweep.select(-1);
                    }
                }
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
                // Asked after the drop has finished: a dialog inside the drop handler would hold the drag open.
                Path dropped = e.getDragboard().getFiles().get(0).toPath();
                Platform.runLater(() -> {
                    if (mayReplace()) {
                        vm.open(dropped);
                    }
                });
            }
            e.setDropCompleted(ok);
            e.consume();
        });
        scene.getStylesheets().add(getClass().getResource("/styles/app.css").toExternalForm());
        // The window's title names the file and marks unsaved edits; closing it with some asks first.
        scene.windowProperty().addListener((o, a, w) -> attach(w));
        attach(scene.getWindow());
    }

    /** Whether keys typed at {@code focus} are text: the editor, the Find field, any text field or spinner's editor. */
    private boolean inText(javafx.scene.Node focus) {
        for (javafx.scene.Node n = focus; n != null; n = n.getParent()) {
            if (n instanceof TextInputControl || n == editor.area()) {
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private void attach(Window w) {
        if (w == null || w.getProperties().get(MainWindow.class) == this) {
            return;
        }
        if (w instanceof Stage stage) {
            stage.setMinWidth(MIN_WIDTH);
            stage.setMinHeight(MIN_HEIGHT);
        }
        // A window shows one MainWindow at a time: the one before lets go of it.
        Object before = w.getProperties().remove(CLOSE_HANDLER);
        if (before != null) {
            w.removeEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, (EventHandler<WindowEvent>) before);
        }
        EventHandler<WindowEvent> close = e -> {
            if (!confirmClose()) {
                e.consume();
            }
        };
        w.addEventHandler(WindowEvent.WINDOW_CLOSE_REQUEST, close);
        // The graph has the focus at first (not the tool bar's first control), so the stepping keys work at once.
        if (w.isShowing()) {
            graph.requestFocus();
        } else {
            w.addEventHandler(WindowEvent.WINDOW_SHOWN, e -> graph.requestFocus());
        }
        w.getProperties().put(CLOSE_HANDLER, close);
        w.getProperties().put(MainWindow.class, this);
        if (w instanceof Stage stage) {
            stage.titleProperty().unbind();
            stage.titleProperty().bind(vm.title());
        }
    }
}
