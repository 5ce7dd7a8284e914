package io.gradscope.app.view;

import io.gradscope.app.export.Exporter;
import io.gradscope.app.service.RunService;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.SweepViewModel;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextInputControl;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import org.controlsfx.control.StatusBar;

/**
 * The window: menus and tool bar on top, editor, graph and inspector side by side, the transport
 * bar and the status bar below. It only assembles the views and binds them to the
 * {@link SessionViewModel}; the keys and dropped files become its commands.
 */
public final class MainWindow extends BorderPane {
    private final SessionViewModel vm = new SessionViewModel(RunService.background(Platform::runLater));
    private final ProgramEditor editor = new ProgramEditor(vm);
    private final GraphPanel graph = new GraphPanel(vm.sweep());
    private final Inspector inspector = new Inspector(vm.sweep());
    private final TransportBar transport = new TransportBar(vm.sweep());
    private final StatusBar status = new StatusBar();
    private final Exporter exporter = new Exporter(vm, graph, graph::styleOf);
    private final NodeDetails details = new NodeDetails(vm, inspector);
    private final SidePanel side = new SidePanel(vm, inspector, new HvpPanel(vm.derivatives()),
            new ComparePanel(vm.sweep(), vm.diagnostics()));
    private final NodeMenu nodeMenu = NodeMenu.install(vm, graph);

    public MainWindow() {
        setId("main");
        Menus menus = new Menus(vm, graph, exporter, () -> getScene() == null ? null : getScene().getWindow());
        menus.bar().getMenus().add(DebugMenu.of(vm, side, nodeMenu::expandSelected));
        setTop(new VBox(menus.bar(), new RunToolBar(vm, graph), new FindingBar(vm.diagnostics(), editor.area())));
        // Diagnoses colour the graph: the overlay's fill, then the node's mark (NaN origin, failed check).
        graph.setDecoration(vm.diagnostics()::style);
        vm.diagnostics().revision().addListener((o, a, b) -> graph.restyleAll());
        OverlayLegend.install(graph, vm.diagnostics());
        transport.addTool(new TangentChooser(vm.derivatives()));
        SplitPane split = new SplitPane(editor, graph, side);
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

    /** Installs the stylesheet, the keys that step (when no text field has the focus) and drag-and-drop. */
    public void install(Scene scene) {
        SweepViewModel sweep = vm.sweep();
        scene.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
            if (e.isShortcutDown() && e.getCode() == KeyCode.ENTER) {
                vm.run();
                e.consume();
                return;
            }
            if (scene.getFocusOwner() instanceof TextInputControl || scene.getFocusOwner() == editor.area()) {
                return;
            }
            boolean handled = true;
            switch (e.getCode()) {
                case RIGHT -> sweep.stepForward();
                case LEFT -> sweep.stepBack();
                case SPACE -> sweep.togglePlaying();
                case HOME -> sweep.toStart();
                case END -> sweep.toEnd();
                case ESCAPE -> sweep.select(-1);
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
                vm.open(e.getDragboard().getFiles().get(0).toPath());
            }
            e.setDropCompleted(ok);
            e.consume();
        });
        scene.getStylesheets().add(getClass().getResource("/styles/app.css").toExternalForm());
    }
}
