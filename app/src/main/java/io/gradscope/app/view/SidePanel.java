package io.gradscope.app.view;

import io.gradscope.app.viewmodel.SessionViewModel;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;

/**
 * The right-hand side of the window: the inspector of one node, the Hessian-vector product view,
 * and the comparison of two runs, as tabs. An H·v request (a command or an {@code # open: hvp}
 * line) shows the H·v tab; a new comparison shows the Compare tab.
 */
public final class SidePanel extends TabPane {
    private final Tab node;
    private final Tab hvp;
    private final Tab compare;
    private final Tab jacobian;
    private final JacobianPanel jacobianPanel;

    public SidePanel(SessionViewModel vm, Inspector inspector, HvpPanel hvpPanel, ComparePanel comparePanel) {
        setId("side");
        node = tab("Node", inspector, "tab-node");
        hvp = tab("H·v", hvpPanel, "tab-hvp");
        compare = tab("Compare", comparePanel, "tab-compare");
        jacobianPanel = new JacobianPanel(vm.jacobian());
        jacobian = tab("Jacobian", jacobianPanel, "tab-jacobian");
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
    }

    private static Tab tab(String title, javafx.scene.Node content, String id) {
        Tab t = new Tab(title, content);
        t.setId(id);
        t.setClosable(false);
        return t;
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

    public JacobianPanel jacobianPanel() {
        return jacobianPanel;
    }

    public void showCompare() {
        getSelectionModel().select(compare);
    }
}
