package io.gradscope.app.view;

import io.gradscope.app.service.TangentChoice;
import io.gradscope.app.viewmodel.DerivativesViewModel;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.CustomMenuItem;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.RadioMenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;

/**
 * The tangent the runs carry, in the transport bar, as one compact menu button ("tangent: W1 ·
 * random"): a leaf (or none) and a direction in its space (ones, random, or one element). A choice
 * runs the program again carrying it; the Forward sweep then shows each value's tangent J·v beside it.
 */
public final class TangentChooser extends MenuButton {
    static final String ONES = "ones";
    static final String RANDOM = "random";
    static final String ONE = "one element";
    /** The menu lists this many leaves (and the chosen one); a model's thousands are chosen in the graph. */
    static final int MENU_LEAVES = 40;

    private final DerivativesViewModel vm;
    private final Spinner<Integer> element = new Spinner<>(0, 0, 0);
    private final ToggleGroup leaves = new ToggleGroup();
    private final ToggleGroup directions = new ToggleGroup();
    private final List<RadioMenuItem> directionItems = new ArrayList<>();
    private boolean updating;

    public TangentChooser(DerivativesViewModel vm) {
        this.vm = vm;
        setId("tangent-chooser");
        setFocusTraversable(false);
        // Names are shown as they are: a mnemonic would eat the first underscore of input_0.
        setMnemonicParsing(false);
        setTooltip(new Tooltip("The tangent v the runs carry (a leaf and a direction): the Forward sweep shows J·v beside each value, "
                + "the Backward sweep the tangent of each gradient (H·v at the leaf)"));
        element.setPrefWidth(80);
        element.setEditable(true);
        element.valueProperty().addListener((o, a, b) -> {
            if (!updating && selectedDirection().equals(ONE)) {
                apply(selectedLeaf(), "onehot:" + b);
            }
        });
        for (String d : new String[] {ONES, RANDOM, ONE}) {
            RadioMenuItem r = new RadioMenuItem(d);
            r.setId("tangent-" + d.replace(' ', '-'));
            r.setUserData(d);
            r.setToggleGroup(directions);
            r.setOnAction(e -> apply(selectedLeaf(), d.equals(ONE) ? "onehot:" + element.getValue() : d));
            directionItems.add(r);
        }
        vm.leaves().addListener((javafx.collections.ListChangeListener<DerivativesViewModel.LeafInfo>) c -> sync());
        vm.tangent().addListener((o, a, b) -> sync());
        sync();
    }

    /** Rebuilds the menu from the view-model's leaves and tangent (runs nothing). */
    private void sync() {
        updating = true;
        try {
            TangentChoice t = vm.tangent().get();
            List<MenuItem> items = new ArrayList<>();
            // The items of the last menu leave the group (else it keeps every menu's items, and each add scans them all).
            leaves.getToggles().clear();
            List<RadioMenuItem> leafItems = new ArrayList<>();
            leafItems.add(leafItem(null, t == null));
            List<DerivativesViewModel.LeafInfo> all = vm.leaves();
            for (int i = 0; i < all.size(); i++) {
                String name = all.get(i).name();
                boolean chosen = t != null && t.leaf().equals(name);
                if (i < MENU_LEAVES || chosen) {
                    leafItems.add(leafItem(name, chosen));
                }
            }
            leaves.getToggles().setAll(leafItems);
            items.addAll(leafItems);
            if (all.size() > MENU_LEAVES) {
                MenuItem more = new MenuItem("… " + (all.size() - MENU_LEAVES) + " more leaves: right-click one in the graph");
                more.setDisable(true);
                items.add(more);
            }
            items.add(new SeparatorMenuItem());
            String dir = t == null ? ONES : t.element() >= 0 ? ONE : t.direction().equals(RANDOM) ? RANDOM : ONES;
            for (RadioMenuItem r : directionItems) {
                r.setSelected(r.getUserData().equals(dir));
                r.setDisable(t == null);
                items.add(r);
            }
            DerivativesViewModel.LeafInfo info = t == null ? null : vm.leaf(t.leaf());
            int max = info == null ? 0 : (int) Math.max(0, info.numel() - 1);
            element.setValueFactory(new SpinnerValueFactory.IntegerSpinnerValueFactory(0, max,
                    t != null && t.element() >= 0 ? Math.min(t.element(), max) : 0));
            CustomMenuItem index = new CustomMenuItem(new HBox(6, new Label("element"), element), false);
            index.setDisable(t == null || !dir.equals(ONE));
            items.add(index);
            getItems().setAll(items);
            setText("tangent: " + (t == null ? "none" : t.leaf() + " · " + (t.element() >= 0 ? "element " + t.element() : t.direction())));
        } finally {
            updating = false;
        }
    }

    private RadioMenuItem leafItem(String name, boolean selected) {
        RadioMenuItem r = new RadioMenuItem(name == null ? "none" : name);
        r.setMnemonicParsing(false);
        r.setId("tangent-leaf-" + (name == null ? "none" : name));
        r.setUserData(name);
        r.setSelected(selected);
        // A new leaf starts a one-element direction at its element 0 (the old index may be past its end).
        r.setOnAction(e -> apply(name, name == null ? null : selectedDirection().equals(ONE) ? "onehot:0" : selectedDirection()));
        return r;
    }

    private String selectedLeaf() {
        return leaves.getSelectedToggle() == null ? null : (String) leaves.getSelectedToggle().getUserData();
    }

    private String selectedDirection() {
        return directions.getSelectedToggle() == null ? ONES : (String) directions.getSelectedToggle().getUserData();
    }

    private void apply(String leaf, String direction) {
        if (updating) {
            return;
        }
        vm.setTangent(leaf == null ? null : new TangentChoice(leaf, direction));
        sync();
    }
}
