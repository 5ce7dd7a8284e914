package io.gradscope.app.view;

import io.gradscope.app.viewmodel.ComparisonViewModel;
import io.gradscope.app.viewmodel.DiagnosticsViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Locale;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * What changed between two runs: the values ranked by relative difference (a row selects its
 * node), and the node's value and gradient in each run side by side, following the selection.
 */
public final class ComparePanel extends VBox {
    private final SweepViewModel sweep;
    private final DiagnosticsViewModel vm;
    private final TableView<RunDiff.Row> table = new TableView<>();
    private final Label summary = new Label("Compare the run on screen with a second run.");
    private final Column current = new Column();
    private final Column other = new Column();
    private Sweep otherSweep;
    private boolean selecting;

    public ComparePanel(SweepViewModel sweep, DiagnosticsViewModel vm) {
        super(6);
        this.sweep = sweep;
        this.vm = vm;
        setId("compare-panel");
        setPadding(new Insets(8));
        Button dtypes = new Button("float32 vs float64");
        dtypes.setId("compare-dtypes");
        dtypes.setOnAction(e -> vm.compareDTypes());
        // Nothing to compare before a run, nor after another text is opened until a run of it succeeds.
        dtypes.disableProperty().bind(vm.comparing().or(sweep.recorded().isNull()));
        Button previous = new Button("vs previous run");
        previous.setId("compare-previous");
        previous.setOnAction(e -> vm.compareWithPrevious());
        previous.disableProperty().bind(sweep.recorded().isNull());
        Button torch = new Button("vs PyTorch");
        torch.setId("compare-pytorch");
        torch.setOnAction(e -> vm.compareWithPyTorch());
        torch.disableProperty().bind(sweep.recorded().isNull());
        Button clear = new Button("Clear");
        clear.setOnAction(e -> vm.clearComparison());
        summary.setWrapText(true);
        summary.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        summary.getStyleClass().add("stats");
        table.setId("compare-table");
        table.getColumns().add(column("node", r -> r.title()));
        table.getColumns().add(column("line", r -> r.line() > 0 ? Integer.toString(r.line()) : ""));
        table.getColumns().add(column("value", r -> sci(r.valueDiff())));
        table.getColumns().add(column("gradient", r -> sci(r.gradientDiff())));
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY);
        table.setPrefHeight(200);
        table.setPlaceholder(new Label("No comparison yet"));
        table.getSelectionModel().selectedItemProperty().addListener((o, a, r) -> {
            ComparisonViewModel.Comparison c = vm.comparison().get();
            if (r != null && c != null && !selecting) {
                sweep.select(c.currentVertex(r));
            }
        });
        SplitPane columns = new SplitPane(current, other);
        VBox.setVgrow(columns, Priority.ALWAYS);
        // Narrow (a 1024-wide window), a button that does not fit goes onto a second line, its words whole
        // ("float32 vs floa...", "Cl..." before).
        getChildren().addAll(new javafx.scene.layout.FlowPane(6, 6, dtypes, previous, torch, clear), summary, table, columns);
        vm.comparison().addListener((o, a, c) -> showComparison(c));
        sweep.inspection().addListener((o, a, b) -> follow());
        showComparison(vm.comparison().get());
    }

    private static TableColumn<RunDiff.Row, String> column(String name, java.util.function.Function<RunDiff.Row, String> text) {
        TableColumn<RunDiff.Row, String> c = new TableColumn<>(name);
        c.setCellValueFactory(d -> new ReadOnlyStringWrapper(text.apply(d.getValue())));
        c.setSortable(false);
        return c;
    }

    private void showComparison(ComparisonViewModel.Comparison c) {
        table.getItems().setAll(c == null ? java.util.List.of() : c.rows());
        otherSweep = c == null ? null : new Sweep(c.other(), c.otherGraph());
        summary.setText(c == null ? "Compare the run on screen with a second run: the same program in the other dtype, or the run "
                + "before the last edit; or, for a captured PyTorch step (gradscope open STEP/), with PyTorch's own values. "
                + "Nodes are coloured by their largest relative difference, max|a − b| / max|b|."
                : c.summary() != null ? c.summary() : c.labelA() + " against " + c.labelB() + " (the reference): " + c.rows().size()
                + " values, largest relative difference first. Select a row or a node to see both runs.");
        follow();
    }

    /** Both columns show the inspected node: in the run on screen and, paired, in the other run. */
    private void follow() {
        ComparisonViewModel.Comparison c = vm.comparison().get();
        int v = sweep.inspectedVertex();
        Sweep s = sweep.recorded().get();
        if (c == null || s == null || v < 0) {
            current.show("this run", null, null, null);
            other.show("the other run", null, null, null);
            return;
        }
        RunDiff.Row row = vm.difference(v);
        selecting = true;
        try {
            if (row != null) {
                table.getSelectionModel().select(row);
                table.scrollTo(row);
            } else {
                table.getSelectionModel().clearSelection();
            }
        } finally {
            selecting = false;
        }
        int last = s.steps(Sweep.Mode.BACKWARD) - 1;
        current.show(c.currentLabel(), s.graph().vertex(v), s.graph().vertex(v).value(), s.upstream(last, v));
        io.gradscope.engine.tensor.Tensor[] torch = c.pytorchOf(v);
        if (torch != null) {
            // PyTorch's step has no trace: its value (a module's output) and gradient (a parameter's), as captured
            boolean none = torch[0] == null && torch[1] == null;
            other.show(none ? "PyTorch: not captured for this node" : "PyTorch", none ? null : s.graph().vertex(v), torch[0], torch[1]);
            other.gradient.show(torch[1], none || torch[1] != null ? "" : "PyTorch's gradients are captured for the parameters");
            other.value.show(torch[0], none || torch[0] != null ? "" : "PyTorch's values are captured for the modules' outputs");
        } else if (row == null) {
            other.show(c.otherLabel() + ": no such value", null, null, null);
        } else {
            int ov = c.otherVertex(row);
            TraceGraph.Vertex vo = c.otherGraph().vertex(ov);
            other.show(c.otherLabel(), vo, vo.value(), otherSweep.upstream(otherSweep.steps(Sweep.Mode.BACKWARD) - 1, ov));
        }
    }

    private static String sci(double x) {
        return Double.isNaN(x) ? "–" : String.format(Locale.ROOT, "%.2e", x);
    }

    public TableView<RunDiff.Row> table() {
        return table;
    }

    /** The column of the run on screen, and of the other run. */
    public Column currentColumn() {
        return current;
    }

    public Column otherColumn() {
        return other;
    }

    /** One run's view of a node: its name, value and gradient. */
    public static final class Column extends ScrollPane {
        private final Label title = new Label();
        private final Label node = new Label();
        private final Heatmap value = new Heatmap("Value");
        private final Heatmap gradient = new Heatmap("Gradient");

        Column() {
            title.getStyleClass().add("heading");
            node.getStyleClass().add("title");
            value.setMaxSide(130);
            gradient.setMaxSide(130);
            VBox box = new VBox(4, title, node, value, gradient);
            box.setPadding(new Insets(4));
            setContent(box);
            setFitToWidth(true);
        }

        void show(String run, TraceGraph.Vertex v, Tensor val, Tensor grad) {
            title.setText(run);
            node.setText(v == null ? "" : v.title());
            value.show(val, v == null ? "" : "");
            gradient.show(grad, v == null || grad != null ? "" : v.requiresGrad() ? "Not reached" : "No gradient");
        }

        public Heatmap valueMap() {
            return value;
        }

        public Heatmap gradientMap() {
            return gradient;
        }
    }
}
