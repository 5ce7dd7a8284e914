package io.gradscope.app.view;

import io.gradscope.app.viewmodel.MemoryTrack;
import io.gradscope.app.viewmodel.MemoryViewModel;
import io.gradscope.app.viewmodel.RecomputeMarks;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.recompute.RematPolicy;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Priority;

/**
 * The memory panel under the graph: the policy selector (none, segments, √n, budget with a slider)
 * and the peak in words above; the timeline ({@link MemoryChart}) and the "live at the peak" table
 * side by side. A click on the timeline moves the sweep there; a row of the table selects its node
 * (and, through the window, its line in the editor). A second row: another policy to compare with
 * (its run drawn over the timeline), the trade-off curve in place of the timeline, and the legend of
 * the graph's recomputed nodes. Renders and binds only.
 */
public final class MemoryPanel extends BorderPane {
    private final MemoryViewModel vm;
    private final MemoryChart chart;
    private final TableView<MemoryTrack.Row> table = new TableView<>();
    private final Label summary = new Label("No run yet");
    private final ComboBox<String> policy = new ComboBox<>(FXCollections.observableArrayList("none", "segments", "sqrt", "budget"));
    private final Slider budget = new Slider(0.1, 1.0, 0.6);
    /** The budget the slider stands for ("budget 40.2 KiB"): the one in force, or while dragging the one it will run. */
    private final Label budgetValue = new Label();
    private final ComboBox<String> compare = new ComboBox<>(FXCollections.observableArrayList(NO_COMPARISON, "none", "segments", "sqrt"));
    private final javafx.scene.control.ToggleButton tradeOffButton = new javafx.scene.control.ToggleButton("Trade-off curve");
    private final TradeOffChart tradeOff;
    private final Label recomputedLegend = new Label();
    private final Label busy = new Label();
    /** The table under its caption ("live at the peak"), at the timeline's right. */
    private final javafx.scene.layout.VBox tableBox = new javafx.scene.layout.VBox();
    private static final String NO_COMPARISON = "—";
    private boolean updating;

    public MemoryPanel(MemoryViewModel vm, ReadOnlyObjectProperty<RematPolicy> current) {
        this.vm = vm;
        setId("memory-panel");
        chart = new MemoryChart(vm::seek);
        summary.setId("memory-summary");
        summary.setWrapText(true);
        summary.setMinWidth(0);
        summary.setMinHeight(Label.USE_PREF_SIZE);
        policy.setId("memory-policy");
        budget.setId("memory-budget");
        budget.setPrefWidth(110);
        budget.setShowTickMarks(false);
        showPolicy(current.get());
        current.addListener((o, a, p) -> showPolicy(p));
        policy.valueProperty().addListener((o, a, b) -> {
            budget.setVisible("budget".equals(b));
            if (!updating && b != null) {
                if (b.equals("budget")) {
                    // Runs at once with the slider's budget: the curve's ring then marks the budget, not the last policy.
                    rerunWithBudget();
                } else {
                    vm.choosePolicy(RematPolicy.parse(b));
                }
            }
        });
        budgetValue.setId("memory-budget-value");
        budgetValue.setMinWidth(Label.USE_PREF_SIZE);
        budgetValue.visibleProperty().bind(budget.visibleProperty());
        budgetValue.managedProperty().bind(budget.visibleProperty());
        budget.valueProperty().addListener((o, a, b) -> {
            if (!updating) {
                budgetValue.setText("budget " + HeapLimit.human(sliderBudget()));
            }
        });
        budget.valueChangingProperty().addListener((o, was, now) -> {
            if (was && !now) {
                rerunWithBudget();
            }
        });
        budget.setOnMouseReleased(e -> rerunWithBudget());
        budget.managedProperty().bind(budget.visibleProperty());
        Label title = new Label("Memory");
        title.setMinWidth(Label.USE_PREF_SIZE);
        title.setStyle("-fx-font-weight: bold");
        policy.setMinWidth(Label.USE_PREF_SIZE);
        // The summary goes on beside the controls while it fits on that line, else on a line of its own
        // under them, wrapping only where even a whole line is too narrow (squeezed beside the controls,
        // it wrapped to a word a line and the header grew to four lines).
        javafx.scene.layout.FlowPane top = new javafx.scene.layout.FlowPane(8, 2, title, policy, budget, budgetValue, summary) {
            @Override
            protected double computeMinWidth(double height) {
                // The widest child's least width, not its preferred one (a FlowPane's own rule): the summary's
                // whole line as the least width ran the panel off both sides of its column at 1024 wide.
                double least = 0;
                for (javafx.scene.Node n : getManagedChildren()) {
                    least = Math.max(least, n.minWidth(-1));
                }
                return snappedLeftInset() + least + snappedRightInset();
            }
        };
        top.setAlignment(Pos.CENTER_LEFT);
        top.setPadding(new Insets(3, 6, 3, 6));
        summary.maxWidthProperty().bind(top.widthProperty().subtract(12));
        tradeOff = new TradeOffChart(vm::choosePolicy);
        setTop(new javafx.scene.layout.VBox(top, secondRow()));
        setCenter(chart);
        buildTable();
        setRight(tableBox);
        // The table gives way to the chart's narrowest (a BorderPane would give the chart what is left).
        tableBox.maxWidthProperty().bind(widthProperty().subtract(MemoryChart.MIN_WIDTH));
        vm.track().addListener((o, a, t) -> show(t));
        vm.readingProperty().addListener((o, a, b) -> show(vm.track().get()));
        vm.cursorEvent().addListener((o, a, b) -> chart.cursor(b.intValue()));
        show(vm.track().get());
    }

    /** Compare with another policy; the trade-off curve; the legend of the graph's recomputed nodes; what is being worked out. */
    private javafx.scene.layout.FlowPane secondRow() {
        compare.setId("memory-compare");
        compare.setValue(NO_COMPARISON);
        compare.setTooltip(new javafx.scene.control.Tooltip("Run the program under another policy and draw its memory over this run's"));
        compare.valueProperty().addListener((o, a, b) -> {
            RematPolicy p = b == null || b.equals(NO_COMPARISON) ? null : RematPolicy.parse(b);
            if (!java.util.Objects.equals(p, vm.comparedWith().get())) {
                vm.compareWith(p);
            }
        });
        vm.comparedWith().addListener((o, a, p) -> compare.setValue(p == null ? NO_COMPARISON : p.toString()));
        vm.overlay().addListener((o, a, b) -> chart.overlay(b));
        tradeOffButton.setId("memory-tradeoff-toggle");
        // No curve to plan without a run (shown already, it can still be turned off).
        tradeOffButton.disableProperty().bind(vm.track().isNull().and(tradeOffButton.selectedProperty().not()));
        tradeOffButton.setTooltip(new javafx.scene.control.Tooltip(
                "Predicted peak against recomputed FLOPs over a range of budgets (planned on the meta device); click a point to run it"));
        tradeOffButton.selectedProperty().addListener((o, a, on) -> {
            if (on != vm.tradeOffShown().get()) {
                vm.showTradeOff(on);
            }
        });
        vm.tradeOffShown().addListener((o, a, on) -> {
            tradeOffButton.setSelected(on);
            setCenter(on ? tradeOff : chart);
            setRight(on ? null : tableBox); // the curve takes the table's room
        });
        vm.tradeOff().addListener((o, a, t) -> tradeOff.show(t, vm.busy().get()));
        vm.busy().addListener((o, a, b) -> {
            busy.setText(b == null ? "" : b);
            tradeOff.show(vm.tradeOff().get(), b);
        });
        busy.setId("memory-busy");
        recomputedLegend.setId("memory-recomputed");
        javafx.scene.shape.Rectangle swatch = new javafx.scene.shape.Rectangle(12, 9, javafx.scene.paint.Color.TRANSPARENT);
        swatch.setStroke(javafx.scene.paint.Color.web(RecomputeMarks.COLOUR));
        swatch.setStrokeWidth(2.5);
        recomputedLegend.setGraphic(swatch);
        vm.recomputed().revision().addListener((o, a, b) -> showRecomputed());
        showRecomputed();
        Label with = new Label("compare with");
        with.setMinWidth(Label.USE_PREF_SIZE);
        compare.setMinWidth(Label.USE_PREF_SIZE);
        tradeOffButton.setMinWidth(Label.USE_PREF_SIZE);
        // Narrow (a 1024-wide window), what does not fit goes onto a line of its own rather than being cut
        // ("10 recomputed" had read "10 …").
        recomputedLegend.managedProperty().bind(recomputedLegend.visibleProperty());
        javafx.scene.layout.FlowPane row = new javafx.scene.layout.FlowPane(8, 3, with, compare, tradeOffButton, recomputedLegend, busy);
        row.setAlignment(Pos.CENTER_LEFT);
        row.setPadding(new Insets(0, 6, 3, 6));
        return row;
    }

    private void showRecomputed() {
        int n = vm.recomputed().count();
        recomputedLegend.setVisible(n > 0);
        recomputedLegend.setText(n + " recomputed");
        recomputedLegend.setTooltip(new javafx.scene.control.Tooltip(n + " ops run again in the backward sweep: outlined so in the graph"));
    }

    private void showPolicy(RematPolicy p) {
        updating = true;
        policy.setValue(p == null ? "segments" : p.kind().name().toLowerCase(java.util.Locale.ROOT));
        budget.setVisible(p != null && p.kind() == RematPolicy.Kind.BUDGET);
        budgetValue.setText(p != null && p.kind() == RematPolicy.Kind.BUDGET ? "budget " + HeapLimit.human(p.budget()) : "");
        updating = false;
    }

    /** A budget the slider's fraction of the current run's peak. */
    private void rerunWithBudget() {
        if ("budget".equals(policy.getValue()) && vm.track().get() != null) {
            vm.choosePolicy(RematPolicy.budget(sliderBudget()));
        }
    }

    /** The slider's fraction of the current run's peak, in bytes (1 with no run). */
    private long sliderBudget() {
        MemoryTrack t = vm.track().get();
        return t == null ? 1 : Math.max(1, (long) (t.timeline().peakBytes() * budget.getValue()));
    }

    /** The line column's width: "12345" and a cell's padding in the table's font. */
    static final double LINE_WIDTH = 48;

    /**
     * The bytes column's width: the widest size HeapLimit.human writes ("1023 bytes", "1023.9 KiB") and a
     * cell's padding, in the table's font, kept when the table narrows: "512 by…" says nothing.
     */
    static double bytesWidth() {
        double w = 0;
        for (String s : new String[] {"1023 bytes", "1023.9 KiB", "1023.9 MiB"}) {
            w = Math.max(w, new javafx.scene.text.Text(s).getLayoutBounds().getWidth());
        }
        return Math.ceil(w) + 16;
    }

    private final TableColumn<MemoryTrack.Row, String> nameColumn = column("value", MemoryTrack.Row::title, 62);
    private final TableColumn<MemoryTrack.Row, String> whatColumn = column("what", MemoryTrack.Row::what, 86);
    /** The widest a name gets before it is cut short (its row's tooltip has it in full). */
    static final double NAME_MAX = 170;

    /**
     * Widens the name and "what" columns to what the rows hold (a name up to {@link #NAME_MAX}), and
     * the table with them, the chart beside it giving way: names were cut to "laye…" and "mat…".
     */
    private void fitColumns() {
        double name = 62;
        double what = 62;
        for (MemoryTrack.Row r : table.getItems()) {
            name = Math.max(name, textWidth(r.title()) + 16);
            what = Math.max(what, textWidth(r.what()) + 16);
        }
        name = Math.min(NAME_MAX, Math.ceil(name));
        what = Math.ceil(what);
        nameColumn.setPrefWidth(name);
        whatColumn.setPrefWidth(what);
        // The columns, the vertical scroll bar and the table's border.
        table.setPrefWidth(name + LINE_WIDTH + what + bytesWidth() + 20);
    }

    private static double textWidth(String s) {
        return new javafx.scene.text.Text(s).getLayoutBounds().getWidth();
    }

    private void buildTable() {
        table.setId("memory-peak-table");
        table.setPrefWidth(280);
        table.setPlaceholder(new Label("Nothing live"));
        table.getColumns().add(nameColumn);
        // Five digits' room, kept when the table narrows: a line number cut to "1…" says nothing.
        // The row's line where it is in the text now (edited since the run, as the inspector names it); "–" for a changed one.
        TableColumn<MemoryTrack.Row, String> line = column("line", r -> r.line() <= 0 ? ""
                : textLine.applyAsInt(r.line()) > 0 ? Integer.toString(textLine.applyAsInt(r.line())) : "–", LINE_WIDTH);
        line.setMinWidth(LINE_WIDTH);
        table.getColumns().add(line);
        table.getColumns().add(whatColumn);
        double bytes = bytesWidth();
        TableColumn<MemoryTrack.Row, String> size = column("bytes", MemoryTrack.Row::size, bytes);
        size.setMinWidth(bytes);
        table.getColumns().add(size);
        Label caption = new Label("Live at the peak, largest first");
        caption.setStyle("-fx-font-size: 11px; -fx-text-fill: #555555");
        caption.setPadding(new Insets(0, 0, 1, 4));
        tableBox.getChildren().setAll(caption, table);
        javafx.scene.layout.VBox.setVgrow(table, Priority.ALWAYS);
        table.setRowFactory(tv -> {
            javafx.scene.control.TableRow<MemoryTrack.Row> row = new javafx.scene.control.TableRow<>();
            row.itemProperty().addListener((o, a, r) -> row.setTooltip(r == null ? null
                    : new javafx.scene.control.Tooltip(r.title() + " · " + r.what() + " · " + r.category().key().replace('_', ' ')
                    + " · " + r.shape() + " · " + r.size())));
            return row;
        });
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY);
        table.getSelectionModel().selectedIndexProperty().addListener((o, a, i) -> {
            if (!updating && i.intValue() >= 0) {
                vm.chooseRow(i.intValue());
            }
        });
    }

    private static TableColumn<MemoryTrack.Row, String> column(String name, java.util.function.Function<MemoryTrack.Row, String> f,
                                                             double width) {
        TableColumn<MemoryTrack.Row, String> c = new TableColumn<>(name);
        c.setCellValueFactory(d -> new SimpleStringProperty(f.apply(d.getValue())));
        c.setPrefWidth(width);
        c.setSortable(false);
        return c;
    }

    private void show(MemoryTrack t) {
        updating = true;
        chart.show(t);
        chart.cursor(vm.cursorEvent().get());
        table.getItems().setAll(t == null ? java.util.List.of() : t.liveAtPeak());
        fitColumns();
        // A wrapped line never parts a size from its unit.
        summary.setText(t == null ? (vm.reading() ? "Reading the memory timeline…" : vm.hasRun() ? "No memory timeline for this run" : "No run yet") : t.summary().replaceAll("(\\d) (bytes|KiB|MiB|GiB|TiB|PiB|EiB)", "$1\u00a0$2"));
        summary.setTooltip(t == null ? null : new javafx.scene.control.Tooltip(t.summary() + " · the allocator reserved at most "
                + HeapLimit.human(t.timeline().peakReserved())));
        updating = false;
    }

    MemoryChart chart() {
        return chart;
    }

    TradeOffChart tradeOffChart() {
        return tradeOff;
    }

    /** Where the lines of the run are in the text now (1-based; 0: changed since); the run's own until {@link #followText}. */
    private java.util.function.IntUnaryOperator textLine = java.util.function.IntUnaryOperator.identity();

    /** Names each row's line where it is in the text now ({@code textLine}), again whenever {@code text} changes. */
    public void followText(java.util.function.IntUnaryOperator textLine, javafx.beans.Observable text) {
        this.textLine = textLine;
        text.addListener(o -> table.refresh());
    }

    public Label recomputedLegend() {
        return recomputedLegend;
    }

    public TableView<MemoryTrack.Row> table() {
        return table;
    }

    public Label summaryLabel() {
        return summary;
    }
}
