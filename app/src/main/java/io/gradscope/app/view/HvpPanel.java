package io.gradscope.app.view;

import io.gradscope.app.service.TangentChoice;
import io.gradscope.app.service.TangentRuns;
import io.gradscope.app.viewmodel.DerivativesViewModel;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.control.Spinner;
import javafx.scene.control.SpinnerValueFactory;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Hessian-vector product view: choose a leaf with a gradient and a vector v, and see H·v on the
 * leaf (the end of the second sweep: the backward pass carrying tangents, which the Backward sweep
 * steps); for a leaf of at most a few hundred elements, its whole Hessian, one H·v per column.
 */
public final class HvpPanel extends ScrollPane {
    private final DerivativesViewModel vm;
    private final ComboBox<String> leaf = new ComboBox<>();
    private final ComboBox<String> vector = new ComboBox<>();
    private final Spinner<Integer> element = new Spinner<>(0, 0, 0);
    private final Heatmap hvp = new Heatmap("H·v");
    private final Heatmap hessian = new Heatmap("Hessian");
    private final Label hvpNote = new Label();
    private final Label hessianNote = new Label();
    private final Button hessianButton = new Button("Compute the Hessian");

    public HvpPanel(DerivativesViewModel vm) {
        this.vm = vm;
        setId("hvp-panel");
        leaf.setId("hvp-leaf");
        Combos.measureFirstRows(leaf);
        vector.setId("hvp-vector");
        hvp.setId("hvp-map");
        hessian.setId("hessian-map");
        hessianButton.setId("hessian-compute");
        vector.getItems().addAll(TangentChooser.RANDOM, TangentChooser.ONES, TangentChooser.ONE);
        vector.setValue(TangentChooser.RANDOM);
        element.setPrefWidth(70);
        element.setEditable(true);
        vector.valueProperty().addListener((o, a, b) -> {
            element.setVisible(TangentChooser.ONE.equals(b));
            element.setManaged(TangentChooser.ONE.equals(b));
        });
        element.setVisible(false);
        element.setManaged(false);
        leaf.valueProperty().addListener((o, a, b) -> {
            refreshHessianNote();
            DerivativesViewModel.LeafInfo l = b == null ? null : vm.leaf(b);
            element.setValueFactory(new SpinnerValueFactory.IntegerSpinnerValueFactory(0, l == null ? 0 : (int) l.numel() - 1, 0));
        });
        Button show = new Button("Show H·v");
        show.setId("hvp-show");
        show.setOnAction(e -> {
            if (leaf.getValue() != null) {
                vm.showHvp(leaf.getValue(), vectorSpec());
            }
        });
        Label intro = new Label("H·v is the directional derivative of the gradient along v: the tangent v is carried "
                + "through the forward pass and then through the backward pass (forward over reverse). The Backward sweep steps "
                + "that second sweep: each node's inspector shows the tangent of its upstream gradient, and at the leaf it is H·v.");
        intro.setWrapText(true);
        intro.getStyleClass().add("stats");
        for (Label l : new Label[] {hvpNote, hessianNote}) {
            l.setWrapText(true);
            l.getStyleClass().add("stats");
        }
        ProgressBar progress = new ProgressBar();
        progress.setPrefWidth(120);
        progress.progressProperty().bind(vm.hessianProgress());
        progress.visibleProperty().bind(vm.hessianRunning());
        // The side panel at its narrowest: the progress bar gives way, the button's words never do ("Compute the Hes...").
        hessianButton.setMinWidth(Region.USE_PREF_SIZE);
        show.setMinWidth(Region.USE_PREF_SIZE);
        progress.setMinWidth(40);
        hessianButton.setOnAction(e -> {
            if (vm.hessianRunning().get()) {
                vm.cancelHessian();
            } else {
                vm.computeHessian();
            }
        });
        vm.hessianRunning().addListener((o, a, b) -> hessianButton.setText(b ? "Cancel" : "Compute the Hessian"));
        Label title = new Label("Hessian-vector product");
        title.getStyleClass().add("title");
        VBox box = new VBox(8, title, intro, new HBox(6, new Label("with respect to"), leaf),
                new HBox(6, new Label("v ="), vector, element, show), new Separator(), hvp, hvpNote, new Separator(),
                new HBox(6, hessianButton, progress), hessian, hessianNote);
        box.setPadding(new Insets(10));
        setContent(box);
        setFitToWidth(true);
        vm.leaves().addListener((javafx.collections.ListChangeListener<DerivativesViewModel.LeafInfo>) c -> syncLeaves());
        vm.hvp().addListener((o, a, b) -> showHvp());
        // The leaf alone may change (a new program clears it while H·v stays empty): the heading follows it too.
        vm.hvpLeaf().addListener((o, a, b) -> showHvp());
        vm.hessian().addListener((o, a, b) -> showHessian(b));
        vm.hessianNote().addListener((o, a, b) -> refreshHessianNote());
        // Built when its tab is first shown: what was asked for before that is shown at once.
        syncLeaves();
        showHvp();
        if (vm.hessian().get() != null) {
            showHessian(vm.hessian().get());
        }
    }

    private void showHessian(io.gradscope.engine.tensor.Tensor h) {
        hessian.show(h, "");
        showHessianMap(h != null);
    }

    private String vectorSpec() {
        String v = vector.getValue();
        return TangentChooser.ONE.equals(v) ? "onehot:" + element.getValue() : v;
    }

    private void syncLeaves() {
        String keep = vm.hvpLeaf().get() != null ? vm.hvpLeaf().get() : leaf.getValue();
        java.util.List<String> names = vm.leaves().stream().filter(DerivativesViewModel.LeafInfo::grad)
                .map(DerivativesViewModel.LeafInfo::name).toList();
        if (!names.equals(leaf.getItems())) {
            leaf.getItems().setAll(names);
        }
        String want = names.contains(keep) ? keep : names.isEmpty() ? null : names.get(0);
        if (want != null) {
            leaf.getSelectionModel().select(want);
        }
    }

    private void showHvp() {
        String on = vm.hvpLeaf().get();
        TangentChoice t = vm.tangent().get();
        if (on != null && t != null) {
            leaf.getSelectionModel().select(on);
            vector.setValue(t.element() >= 0 ? TangentChooser.ONE : t.direction().equals(TangentChooser.ONES) ? TangentChooser.ONES
                    : TangentChooser.RANDOM);
        }
        hvp.setHeading(on == null ? "H·v" : "H·v on " + on + " (v: " + (t == null ? "" : t.describe()) + ")");
        hvp.show(vm.hvp().get(), on == null ? "Choose a leaf and a vector, then Show H·v." : "");
        DerivativesViewModel.LeafInfo l = on == null ? null : vm.leaf(on);
        hvpNote.setText(on == null ? "" : "The tangent of " + on + "'s gradient at the end of the second sweep.");
        hessianButton.setDisable(l == null || l.numel() > TangentRuns.HESSIAN_LIMIT);
        if (vm.hessian().get() == null) {
            showHessianMap(false);
        }
        refreshHessianNote();
    }

    /** The engine's note on the Hessian when it has one; before that, what the button will do or why it is off. */
    private void refreshHessianNote() {
        String note = vm.hessianNote().get();
        hessianNote.setText(note != null && !note.isEmpty() ? note : vm.hessian().get() == null ? hessianHint() : "");
    }

    /** Why the Hessian button is off, or what it will do, for the leaf chosen (shown or not yet). */
    private String hessianHint() {
        String chosen = vm.hvpLeaf().get() != null ? vm.hvpLeaf().get() : leaf.getValue();
        DerivativesViewModel.LeafInfo l = chosen == null ? null : vm.leaf(chosen);
        if (l == null) {
            return "";
        }
        if (l.numel() > TangentRuns.HESSIAN_LIMIT) {
            return chosen + " has " + l.numel() + " elements: the whole Hessian is shown for a leaf of at most "
                    + TangentRuns.HESSIAN_LIMIT + " (H·v works for any size).";
        }
        return vm.hvpLeaf().get() == null ? "Show H·v first; then the Hessian of " + chosen + " is one H·v per column ("
                + l.numel() + ")." : "The Hessian of " + chosen + ": one H·v per column (" + l.numel() + ").";
    }

    /** The Hessian's heatmap takes room only once there is a Hessian (or a reason there is none) to show. */
    private void showHessianMap(boolean show) {
        hessian.setVisible(show);
        hessian.setManaged(show);
    }

    public Heatmap hvpMap() {
        return hvp;
    }

    public Heatmap hessianMap() {
        return hessian;
    }
}
