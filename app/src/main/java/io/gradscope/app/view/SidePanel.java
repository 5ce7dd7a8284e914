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

    public SidePanel(SessionViewModel vm, Inspector inspector, HvpPanel hvpPanel, ComparePanel comparePanel) {
        setId("side");
        node = tab("Node", inspector, "tab-node");
        hvp = tab("H·v", hvpPanel, "tab-hvp");
        compare = tab("Compare", comparePanel, "tab-compare");
        getTabs().addAll(node, hvp, compare);
        setPrefWidth(340);
        vm.derivatives().hvpRequests().addListener((o, a, b) -> getSelectionModel().select(hvp));
        vm.diagnostics().comparison().addListener((o, a, b) -> {
            if (b != null) {
                getSelectionModel().select(compare);
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

    public void showCompare() {
        getSelectionModel().select(compare);
    }
}
