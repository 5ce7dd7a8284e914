package io.gradscope.app.view;

import io.gradscope.app.viewmodel.SessionViewModel;
import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;

/**
 * The right-hand side of the window: the inspector of one node, the Hessian-vector product view,
 * and the comparison of two runs, as tabs. An H·v request (a command or an {@code # open: hvp}
 * line) shows the H·v tab; a new comparison shows the Compare tab. The tabs behind the inspector are
 * built the first time they are shown: each panel reads the view-model's state when it is built and
 * follows it from then on, so a window that never shows them never pays for their controls, their
 * styling and their layout at its start.
 */
public final class SidePanel extends TabPane {
    private final Tab node;
    private final Tab hvp;
    private final Tab compare;
    private final Tab jacobian;
    private JacobianPanel jacobianPanel;

    /** Wide enough for every tab's title (Node, H·v, Compare, Jacobian) side by side. */
    static final double MIN_WIDTH = 290;

    public SidePanel(SessionViewModel vm, Inspector inspector) {
        setId("side");
        node = tab("Node", "tab-node");
        node.setContent(inspector);
        hvp = lazyTab("H·v", "tab-hvp", () -> new HvpPanel(vm.derivatives()));
        compare = lazyTab("Compare", "tab-compare", () -> new ComparePanel(vm.sweep(), vm.diagnostics()));
        jacobian = lazyTab("Jacobian", "tab-jacobian", () -> jacobianPanel = new JacobianPanel(vm.jacobian()));
        getTabs().addAll(node, hvp, compare, jacobian);
        setPrefWidth(340);
        vm.derivatives().hvpRequests().addListener((o, a, b) -> getSelectionModel().select(hvp));
        vm.diagnostics().comparison().addListener((o, a, b) -> {
            if (b != null) {
                getSelectionModel().select(compare);
            }
        });
        // "Show Jacobian" shows the tab; while it is shown, the view computes, and a selected node becomes its value.
        vm.jacobian().requests().addListener((o, a, b) -> getSelectionModel().select(jacobian));
        jacobian.selectedProperty().addListener((o, a, b) -> {
            if (b) {
                vm.jacobian().computeIfNeeded();
            }
        });
        vm.sweep().selected().addListener((o, a, b) -> {
            if (jacobian.isSelected() && b.intValue() >= 0 && vm.jacobian().outputs().stream().anyMatch(x -> x.vertex() == b.intValue())) {
                vm.jacobian().setOutput(b.intValue());
            }
        });
        vm.jacobian().outputs().addListener((javafx.beans.InvalidationListener) c -> {
            if (jacobian.isSelected()) {
                javafx.application.Platform.runLater(vm.jacobian()::computeIfNeeded);
            }
        });
        // Jumping to a node (an origin) shows its inspector.
        vm.diagnostics().jump().addListener((o, a, b) -> getSelectionModel().select(node));
        // The tab bar, focused after a click on a tab's title, took ↑ and ↓ to pick the tab before or
        // after, wrapping round: ↓ on Jacobian showed Node, as if on its own. A tab changes when the
        // user picks one (a click, Ctrl+Tab); ← → step the sweep (MainWindow's keys), ↑ ↓ do nothing here.
        addEventFilter(javafx.scene.input.KeyEvent.KEY_PRESSED, e -> {
            if (e.getTarget() == this && !e.isShortcutDown()
                    && (e.getCode() == javafx.scene.input.KeyCode.UP || e.getCode() == javafx.scene.input.KeyCode.DOWN)) {
                e.consume();
            }
        });
    }

    private static Tab tab(String title, String id) {
        Tab t = new Tab(title);
        t.setId(id);
        t.setClosable(false);
        return t;
    }

    /** A tab whose content {@code make} builds when the tab is first shown (or first asked for: {@link #content}). */
    private static Tab lazyTab(String title, String id, Supplier<Node> make) {
        Tab t = tab(title, id);
        t.setUserData(make);
        // Added first: the panel is there when the side panel's own listeners act on the tab's selection.
        t.selectedProperty().addListener((o, a, b) -> {
            if (b) {
                content(t);
            }
        });
        return t;
    }

    /** The tab's content, built now if it was not yet. */
    @SuppressWarnings("unchecked")
    private static Node content(Tab t) {
        if (t.getContent() == null && t.getUserData() instanceof Supplier<?> make) {
            t.setUserData(null);
            t.setContent(((Supplier<Node>) make).get());
        }
        return t.getContent();
    }

    public void showNode() {
        getSelectionModel().select(node);
    }

    public void showHvp() {
        getSelectionModel().select(hvp);
    }

    public void showJacobian() {
        getSelectionModel().select(jacobian);
    }

    /** The Jacobian tab's view (built now if the tab has not been shown yet). */
    public JacobianPanel jacobianPanel() {
        content(jacobian);
        return jacobianPanel;
    }

    /** Whether a tab's content has been built ({@code tab-hvp}, {@code tab-compare}, {@code tab-jacobian}; the inspector always is). */
    public boolean built(String tabId) {
        return getTabs().stream().anyMatch(t -> t.getId().equals(tabId) && t.getContent() != null);
    }

    public void showCompare() {
        getSelectionModel().select(compare);
    }
}
