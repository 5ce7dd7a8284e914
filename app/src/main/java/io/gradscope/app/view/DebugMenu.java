package io.gradscope.app.view;

import io.gradscope.app.viewmodel.DiagnosticsViewModel;
import io.gradscope.app.viewmodel.OverlayViewModel;
import io.gradscope.app.viewmodel.SessionViewModel;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.RadioMenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.KeyCombination;

/**
 * The Debug menu: where a NaN was born, checking every node's gradient, comparing with a second
 * run, the graph's colour overlays, the H·v view and a node's scalar graph. Each item is a
 * view-model command or shows a view.
 */
final class DebugMenu {
    private DebugMenu() {
    }

    static Menu of(SessionViewModel vm, SidePanel side, Runnable expandSelected) {
        DiagnosticsViewModel d = vm.diagnostics();
        Menu menu = new Menu("Debug");
        menu.setId("debug-menu");
        MenuItem jump = item("Jump to Origin of NaN/Inf", "Shortcut+J", d::jumpToOrigin);
        MenuItem check = item("Check Gradients", "Shortcut+Shift+G", d::checkGradients);
        // What needs a run is disabled without one (a program that does not parse), as the transport is.
        javafx.beans.binding.BooleanBinding noRun = vm.sweep().recorded().isNull();
        check.disableProperty().bind(d.checking().or(noRun));
        MenuItem dtypes = item("Compare float32 with float64", null, d::compareDTypes);
        MenuItem previous = item("Compare with Previous Run", null, d::compareWithPrevious);
        dtypes.disableProperty().bind(noRun);
        previous.disableProperty().bind(noRun);
        MenuItem clear = item("Clear Comparison", null, d::clearComparison);
        ToggleGroup overlays = new ToggleGroup();
        RadioMenuItem none = radio("No Colour Overlay", OverlayViewModel.Overlay.NONE, d, overlays);
        RadioMenuItem norm = radio("Colour by Gradient Norm", OverlayViewModel.Overlay.GRADIENT_NORM, d, overlays);
        RadioMenuItem diff = radio("Colour by Difference", OverlayViewModel.Overlay.DIFFERENCE, d, overlays);
        d.overlay().addListener((o, a, b) -> (b == OverlayViewModel.Overlay.GRADIENT_NORM ? norm
                : b == OverlayViewModel.Overlay.DIFFERENCE ? diff : none).setSelected(true));
        none.setSelected(true);
        menu.getItems().addAll(jump, check, new SeparatorMenuItem(), dtypes, previous, clear, new SeparatorMenuItem(), none, norm, diff,
                new SeparatorMenuItem(), item("Hessian-Vector Product…", null, side::showHvp),
                item("Expand Selected Node to Scalars", null, expandSelected));
        return menu;
    }

    private static RadioMenuItem radio(String text, OverlayViewModel.Overlay o, DiagnosticsViewModel d, ToggleGroup group) {
        RadioMenuItem r = new RadioMenuItem(text);
        r.setToggleGroup(group);
        r.setOnAction(e -> {
            d.setOverlay(o);
            if (d.overlay().get() != o) {
                // Refused (no comparison yet): show what is on.
                group.getToggles().forEach(t -> t.setSelected(t.getUserData() == d.overlay().get()));
            }
        });
        r.setUserData(o);
        return r;
    }

    private static MenuItem item(String text, String keys, Runnable action) {
        MenuItem m = new MenuItem(text);
        if (keys != null) {
            m.setAccelerator(KeyCombination.keyCombination(keys));
        }
        m.setOnAction(e -> action.run());
        return m;
    }
}
