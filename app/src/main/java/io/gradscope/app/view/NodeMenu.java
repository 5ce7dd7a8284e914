package io.gradscope.app.view;

import io.gradscope.app.viewmodel.ScalarGraph;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.SweepViewModel;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.ContextMenuEvent;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.stage.Stage;

/**
 * A graph node's context menu: "Expand to scalars" (its scalar graph in a window), and the
 * diagnoses of the whole run (jump to the NaN origin, check every gradient).
 */
public final class NodeMenu {
    private final SessionViewModel vm;
    private final GraphPanel graph;
    private final ContextMenu menu = new ContextMenu();
    private Stage scalars;

    private NodeMenu(SessionViewModel vm, GraphPanel graph) {
        this.vm = vm;
        this.graph = graph;
        menu.setId("node-menu");
    }

    /** Opens the menu on a right-click over a node of {@code graph}. */
    public static NodeMenu install(SessionViewModel vm, GraphPanel graph) {
        NodeMenu m = new NodeMenu(vm, graph);
        graph.canvas().addEventHandler(ContextMenuEvent.CONTEXT_MENU_REQUESTED, e -> {
            if (m.showAt(e.getX(), e.getY(), e.getScreenX(), e.getScreenY())) {
                e.consume();
            }
        });
        // Platforms that send no context-menu event for a right click (the headless one) still get the menu.
        graph.canvas().addEventHandler(MouseEvent.MOUSE_CLICKED, e -> {
            if (e.getButton() == MouseButton.SECONDARY && !m.menu.isShowing()) {
                m.showAt(e.getX(), e.getY(), e.getScreenX(), e.getScreenY());
            }
        });
        return m;
    }

    /** Shows the menu of the node at (x, y) in the view; false when there is none. */
    private boolean showAt(double x, double y, double screenX, double screenY) {
        String key = graph.keyAt(x, y);
        if (key == null || !key.startsWith("v")) {
            return false;
        }
        show(Integer.parseInt(key.substring(1)), screenX, screenY);
        return true;
    }

    private void show(int vertex, double x, double y) {
        SweepViewModel sweep = vm.sweep();
        sweep.select(vertex);
        MenuItem expand = new MenuItem("Expand to Scalars");
        expand.setId("expand-scalars");
        expand.setOnAction(e -> expand(vertex));
        MenuItem jacobian = new MenuItem("Show Jacobian");
        jacobian.setId("show-jacobian");
        jacobian.setOnAction(e -> vm.jacobian().show(vertex));
        MenuItem jump = new MenuItem("Jump to Origin of NaN/Inf");
        jump.setOnAction(e -> vm.diagnostics().jumpToOrigin());
        jump.setDisable(vm.diagnostics().producer() < 0);
        MenuItem check = new MenuItem("Check Gradients");
        check.setOnAction(e -> vm.diagnostics().checkGradients());
        menu.getItems().setAll(expand, jacobian, new SeparatorMenuItem(), jump, check);
        var v = sweep.vertex(vertex);
        if (v != null && v.name() != null && vm.derivatives().leaf(v.name()) != null) {
            // A leaf: the tangent can start here (the tool bar's menu lists only the first leaves of a large model).
            MenuItem tangent = new MenuItem("Carry Tangent From " + v.name());
            tangent.setId("carry-tangent");
            tangent.setMnemonicParsing(false);
            tangent.setOnAction(e -> vm.derivatives().setTangent(new io.gradscope.app.service.TangentChoice(v.name(), "ones")));
            menu.getItems().addAll(new SeparatorMenuItem(), tangent);
        }
        menu.show(graph, x, y);
    }

    /** Opens the scalar graph of a vertex (or the reason it has none) in a window. */
    public Stage expand(int vertex) {
        var sweep = vm.sweep().recorded().get();
        if (sweep == null || vertex < 0) {
            vm.report("Select a node first");
            return null;
        }
        if (scalars != null) {
            scalars.close();
        }
        ScalarGraph g = ScalarGraph.of(sweep, vertex);
        var css = getClass().getResource("/styles/app.css");
        scalars = ScalarGraphView.open(g, graph.getScene() == null ? null : graph.getScene().getWindow(),
                css == null ? null : css.toExternalForm());
        return scalars;
    }

    /** Expands the selected node (or the current one). */
    public void expandSelected() {
        expand(vm.sweep().inspectedVertex());
    }
}
