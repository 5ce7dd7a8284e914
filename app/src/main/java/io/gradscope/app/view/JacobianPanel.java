package io.gradscope.app.view;

import io.gradscope.app.viewmodel.JacobianResult;
import io.gradscope.app.viewmodel.JacobianViewModel;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.jacobian.VertexOrder;
import io.gradscope.engine.sparse.MatrixMarket;
import io.gradscope.engine.tensor.Shapes;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;

/**
 * The Jacobian view: choose a value and a leaf, how the pattern is found (global or local) and
 * colored (columns or rows, a vertex order); see the spy plot (nonzeros coloured by color class)
 * with the compressed matrix beside it and the summary numbers. Clicking a nonzero shows its value
 * and lights its paths in the graph. The spy plot exports as PNG, the pattern as Matrix Market.
 */
public final class JacobianPanel extends ScrollPane {
    private final JacobianViewModel vm;
    private final ComboBox<JacobianViewModel.Output> of = new ComboBox<>();
    private final ComboBox<String> wrt = new ComboBox<>();
    private final ComboBox<String> group = new ComboBox<>();
    private final ComboBox<String> pattern = new ComboBox<>();
    private final ComboBox<String> kind = new ComboBox<>();
    private final ComboBox<String> order = new ComboBox<>();
    private final SpyPlot spy = new SpyPlot();
    private final SpyPlot compressed = new SpyPlot();
    private final Label summary = new Label();
    private final Label compressedTitle = new Label();
    private final Label pick = new Label();
    /** Why the picked entry is nonzero: its paths, or where they are cut at these values. */
    private final Label why = new Label();
    private final Label note = new Label();
    private final Label saved = new Label();
    private boolean syncing;
    /** The coloring chooser's "whichever needs fewer colors". */
    static final String AUTO = "fewer colors";

    public JacobianPanel(JacobianViewModel vm) {
        this.vm = vm;
        setId("jacobian-panel");
        of.setId("jacobian-of");
        wrt.setId("jacobian-wrt");
        group.setId("jacobian-group");
        group.setPromptText("a group's subgraph…");
        group.setItems(vm.groups());
        group.disableProperty().bind(javafx.beans.binding.Bindings.isEmpty(vm.groups()));
        group.valueProperty().addListener((o, a, b) -> {
            if (!syncing && b != null) {
                vm.setGroup(b);
            }
        });
        pattern.setId("jacobian-pattern");
        kind.setId("jacobian-kind");
        order.setId("jacobian-order");
        spy.setId("jacobian-spy");
        compressed.setId("jacobian-compressed");
        summary.setId("jacobian-summary");
        pick.setId("jacobian-pick");
        why.setId("jacobian-why");
        why.textProperty().bind(vm.why());
        pattern.getItems().addAll(Sparsity.GLOBAL.flag(), Sparsity.LOCAL.flag());
        kind.getItems().addAll(AUTO, Coloring.Kind.COLUMN.flag(), Coloring.Kind.ROW.flag());
        order.getItems().add("best");
        for (VertexOrder o : VertexOrder.values()) {
            order.getItems().add(o.flag());
        }
        of.setItems(vm.outputs());
        wrt.setItems(vm.leaves());
        Combos.measureFirstRows(of);
        Combos.measureFirstRows(wrt);
        Combos.measureFirstRows(group);
        of.setMaxWidth(Double.MAX_VALUE);
        wrt.setPrefWidth(180);
        // Room for its prompt, its cell's padding (about 25 px) and the arrow's button (about 29 px): at 180 it read
        // "a group's subgrap...".
        group.setPrefWidth(Math.max(180, Math.ceil(new javafx.scene.text.Text(group.getPromptText()).getLayoutBounds().getWidth()) + 60));
        of.valueProperty().addListener((o, a, b) -> {
            if (!syncing && b != null) {
                vm.setOutput(b.vertex());
            }
        });
        wrt.valueProperty().addListener((o, a, b) -> {
            if (!syncing) {
                vm.setLeaf(b);
            }
        });
        pattern.valueProperty().addListener((o, a, b) -> {
            if (!syncing) {
                vm.setSparsity(b == null ? null : Sparsity.valueOf(b.toUpperCase(Locale.ROOT)));
            }
        });
        kind.valueProperty().addListener((o, a, b) -> {
            if (!syncing && b != null) {
                vm.setKind(Coloring.Kind.byFlag(b));
            }
        });
        order.valueProperty().addListener((o, a, b) -> {
            if (!syncing) {
                vm.setOrder(b);
            }
        });
        spy.setPrefSize(300, 300);
        spy.setMinSize(120, 120);
        compressed.setPrefSize(60, 300);
        compressed.setStretch(true);
        compressed.setMinSize(20, 40);
        spy.setOnPick(vm::pick);
        for (Label l : new Label[] {summary, pick, why, note, compressedTitle, saved}) {
            l.setWrapText(true);
            l.getStyleClass().add("stats");
        }
        Label title = new Label("Jacobian and its sparsity");
        title.getStyleClass().add("title");
        // One line; the rest on its tooltip (three wrapped lines pushed the plot below the fold at 1024x700).
        Label intro = new Label("Rows: the value's elements, columns: the input's. Click a nonzero: its value, paths and why.");
        intro.setTooltip(new javafx.scene.control.Tooltip("Rows: the value's elements, columns: the input's (row-major); a value in "
                + "the middle as the input gives the Jacobian of the subgraph between the two, as does a group. A nonzero's colour "
                + "is its color class: one JVP (VJP) per class. Wheel: zoom, drag: pan, double-click: fit; click a nonzero."));
        intro.setWrapText(true);
        intro.getStyleClass().add("stats");
        GridPane choices = new GridPane();
        choices.setHgap(6);
        choices.setVgap(4);
        choices.addRow(0, new Label("of"), of);
        choices.addRow(1, new Label("w.r.t."), wrt);
        choices.addRow(2, new Label("or group"), group);
        // Pattern and coloring each on a row of their own: side by side they were cut to "...", "col..." and
        // "fewer ..." in a 1024-wide window.
        choices.addRow(3, new Label("pattern"), pattern);
        choices.addRow(4, new Label("coloring"), kind);
        choices.addRow(5, new Label("order"), order);
        GridPane.setHgrow(of, Priority.ALWAYS);
        // The labels keep their width: a long value's name in "of" shrank them to "...".
        choices.getChildren().stream().filter(n -> n instanceof Label)
                .forEach(n -> ((Label) n).setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE));
        of.setMinWidth(120);
        // Indeterminate while the pattern is found, then the products taken of all.
        ProgressBar busy = new ProgressBar();
        busy.setPrefWidth(120);
        busy.setMinWidth(60);
        busy.progressProperty().bind(vm.progress());
        busy.visibleProperty().bind(vm.running());
        busy.managedProperty().bind(vm.running());
        Button png = new Button("Export PNG…");
        png.setId("jacobian-export-png");
        png.setOnAction(e -> choose("PNG image", "*.png", "jacobian.png", this::exportPng));
        Button mtx = new Button("Export .mtx…");
        mtx.setId("jacobian-export-mtx");
        mtx.setOnAction(e -> choose("Matrix Market pattern", "*.mtx", "pattern.mtx", this::exportMtx));
        png.disableProperty().bind(vm.result().isNull());
        mtx.disableProperty().bind(vm.result().isNull());
        HBox.setHgrow(spy, Priority.ALWAYS);
        VBox compressedBox = new VBox(2, compressedTitle, compressed);
        VBox.setVgrow(compressed, Priority.ALWAYS);
        HBox plots = new HBox(8, spy, compressedBox);
        // Shown when the estimate was above the limit and nothing started: the user's word starts it.
        Button anyway = new Button("Compute anyway");
        anyway.setId("jacobian-compute-anyway");
        anyway.setOnAction(e -> vm.computeAnyway());
        // Above the limit, the other choices: the pattern alone, or a block of rows or columns within the limit.
        Button patternOnly = new Button("Pattern only");
        patternOnly.setId("jacobian-pattern-only");
        patternOnly.setOnAction(e -> vm.computePatternOnly());
        Button rows = new Button();
        rows.setId("jacobian-block-rows");
        rows.setOnAction(e -> vm.computeBlock(true));
        Button cols = new Button();
        cols.setId("jacobian-block-columns");
        cols.setOnAction(e -> vm.computeBlock(false));
        vm.aboveLimit().addListener((o, a, b) -> {
            int r = vm.blockSize(true);
            int c = vm.blockSize(false);
            rows.setText(r == 1 ? "First row" : "First " + r + " rows");
            cols.setText(c == 1 ? "First column" : "First " + c + " columns");
        });
        javafx.scene.layout.FlowPane choicesAbove = new javafx.scene.layout.FlowPane(6, 6, anyway, patternOnly, rows, cols);
        choicesAbove.visibleProperty().bind(vm.aboveLimit().isNotNull());
        choicesAbove.managedProperty().bind(vm.aboveLimit().isNotNull());
        // The plots right under the choices, the words after them: at 1024x700 the spy plot was below the fold.
        VBox box = new VBox(8, title, intro, choices, new HBox(6, busy, note), choicesAbove, plots, pick, why, summary, new Separator(),
                new HBox(6, png, mtx), saved);
        box.setPadding(new Insets(10));
        // The plots take the height left in view under the choices (160 to 300 px): at 1024x700 a 300 px plot
        // went below the fold.
        javafx.beans.InvalidationListener fit = o -> {
            double left = getViewportBounds().getHeight() - plots.getBoundsInParent().getMinY() - 10;
            double h = Math.max(160, Math.min(300, left));
            spy.setPrefHeight(h);
            compressed.setPrefHeight(h - 24);
        };
        viewportBoundsProperty().addListener(fit);
        plots.boundsInParentProperty().addListener(fit);
        setContent(box);
        setFitToWidth(true);
        note.textProperty().bind(vm.note());
        vm.result().addListener((o, a, b) -> showResult(b));
        vm.picked().addListener((o, a, b) -> showPick(b));
        vm.output().addListener((o, a, b) -> sync());
        vm.leaf().addListener((o, a, b) -> sync());
        vm.outputs().addListener((javafx.collections.ListChangeListener<JacobianViewModel.Output>) c -> sync());
        vm.leaves().addListener((javafx.collections.ListChangeListener<String>) c -> sync());
        // Built when its tab is first shown: the Jacobian and the nonzero picked so far are shown at once.
        sync();
        showResult(vm.result().get());
        if (vm.picked().get() != null) {
            showPick(vm.picked().get());
        }
    }

    /** The choosers show the view-model's choices (without choosing again). */
    private void sync() {
        syncing = true;
        try {
            Combos.show(of, vm.outputs().stream().filter(o -> o.vertex() == vm.output().get()).findFirst().orElse(null));
            Combos.show(wrt, vm.leaf().get());
            Combos.show(group, vm.currentGroup());
            pattern.setValue(vm.sparsity().get().flag());
            kind.setValue(vm.kind().get() == null ? AUTO : vm.kind().get().flag());
            order.setValue(vm.order().get());
        } finally {
            syncing = false;
        }
    }

    private void showResult(JacobianResult r) {
        sync();
        showPick(null);
        if (r == null) {
            spy.show(null, null, true);
            compressed.show(null, null, true);
            summary.setText("");
            compressedTitle.setText("");
            return;
        }
        boolean byColumn = r.coloring().kind() == Coloring.Kind.COLUMN;
        int[] colors = r.coloring().colors();
        spy.show(r.pattern(), colors, byColumn);
        int[] classes = new int[r.coloring().count()];
        for (int c = 0; c < classes.length; c++) {
            classes[c] = c;
        }
        // The compressed matrix: one column (row) per color, in that color.
        compressed.show(r.compressed(), classes, byColumn);
        compressed.setPrefWidth(Math.min(90, Math.max(30, 6.0 * r.coloring().count())));
        compressedTitle.setText(byColumn ? "J·S" : "Sᵀ·J");
        summary.setText(summaryText(r, vm.title(r.request().of())));
        // Null after a new computation; a pick made before this panel saw the result (a screenshot's) is shown.
        showPick(vm.picked().get());
    }

    /** The summary numbers of a result, as the panel shows them. */
    public static String summaryText(JacobianResult r, String of) {
        boolean byColumn = r.coloring().kind() == Coloring.Kind.COLUMN;
        String product = byColumn ? "JVP" : "VJP";
        int dense = byColumn ? r.cols() : r.rows();
        return String.format(Locale.ROOT, "∂%s %s / ∂%s %s: %d × %d, %s pattern%n%d nonzeros, density %.3g%n"
                        + "%s coloring (%s): %d colors, lower bound %d%s%n%d %ss compressed (dense: %d %ss; compressed %s: %d × %d)",
                of, Shapes.str(r.ofShape()), r.request().wrt(), Shapes.str(r.wrtShape()), r.rows(), r.cols(), r.request().sparsity().flag(), r.pattern().nnz(),
                r.pattern().density(), r.coloring().kind().flag(), r.coloring().order(), r.coloring().count(), r.lowerBound(),
                r.valid() ? "" : " (NOT valid)", r.products(), product, dense, product, byColumn ? "J·S" : "Sᵀ·J",
                r.compressed().rows(), r.compressed().cols());
    }

    private void showPick(JacobianViewModel.Pick p) {
        JacobianResult r = vm.result().get();
        if (p == null || r == null) {
            pick.setText(r == null ? "" : "Click a nonzero to see its value and light its paths in the graph.");
            spy.mark(null);
            return;
        }
        spy.mark(new int[] {p.i(), p.j()});
        String value = !r.request().part().evaluate() ? "not evaluated (pattern only)"
                : p.value() == 0 ? "0 (in the pattern, zero at these values)" : String.format(Locale.ROOT, "%.6g", p.value());
        pick.setText(String.format(Locale.ROOT, "∂%s%s / ∂%s%s = %s  (row %d, column %d)%nvia %s",
                vm.title(r.request().of()), index(p.i(), r.ofShape()), r.request().wrt(), index(p.j(), r.wrtShape()), value,
                p.i(), p.j(), p.via()));
    }

    /** A flat index as the element's indices: 7 in a 2 x 4 tensor is [1, 3]. */
    static String index(int flat, int[] shape) {
        int[] at = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            at[d] = flat % Math.max(1, shape[d]);
            flat /= Math.max(1, shape[d]);
        }
        return java.util.Arrays.toString(at);
    }

    private interface Export {
        void to(Path file) throws IOException;
    }

    private void choose(String what, String glob, String name, Export export) {
        FileChooser fc = new FileChooser();
        fc.getExtensionFilters().add(new FileChooser.ExtensionFilter(what, glob));
        fc.setInitialFileName(name);
        File f = fc.showSaveDialog(getScene() == null ? null : getScene().getWindow());
        if (f != null) {
            try {
                export.to(f.toPath());
                saved.setText("Wrote " + f);
            } catch (IOException | RuntimeException ex) {
                saved.setText("Cannot write " + f + ": " + ex.getMessage());
            }
        }
    }

    /** Writes the spy plot as it is shown, as a PNG (on the UI thread). */
    public void exportPng(Path file) throws IOException {
        spy.exportPng(file);
    }

    /** Writes the pattern as a Matrix Market pattern file. */
    public void exportMtx(Path file) throws IOException {
        JacobianResult r = vm.result().get();
        if (r == null) {
            throw new IOException("no Jacobian computed yet");
        }
        MatrixMarket.writePattern(r.pattern(), file, false);
    }

    public SpyPlot spy() {
        return spy;
    }

    public SpyPlot compressedPlot() {
        return compressed;
    }
}
