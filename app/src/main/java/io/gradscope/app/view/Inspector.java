package io.gradscope.app.view;

import io.gradscope.app.viewmodel.OnDemandViewModel;
import io.gradscope.app.viewmodel.ShownSection;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import javafx.geometry.Insets;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * What the engine recorded for one vertex: name, op, VJP rule, shape, strides and dtype, its value
 * and its upstream gradient as heatmaps with statistics, what its op recorded beyond the value
 * (dropout's mask, {@link ShownSection}) as a map with counts each, and the contributions the current
 * backward step sends to each input. It refreshes once per change of the view-model's
 * {@link SweepViewModel#inspection() inspection}: once per step.
 */
public final class Inspector extends ScrollPane {
    private final SweepViewModel vm;
    private final OnDemandViewModel recompute;
    private int refreshes;
    private final Label name = new Label("No run yet");
    private final Label op = new Label();
    private final Label rule = new Label();
    private final Label layout = new Label();
    private final Heatmap value = new Heatmap("Value");
    private final Heatmap upstream = new Heatmap("Upstream gradient");
    private final Label contribTitle = new Label("Contributions sent");
    private final VBox contributions = new VBox(4);
    private final List<Heatmap> sent = new java.util.ArrayList<>();
    private final Label leafNote = new Label();
    /** Where other views add to the inspector: notes under the layout, a map beside the value and the gradient. */
    private final VBox notes = new VBox(4);
    private final HBox valueRow = new HBox(8, value);
    private final HBox upstreamRow = new HBox(8, upstream);
    /** What the op recorded beyond the value (dropout's mask), a map with a line of counts each; the maps are reused. */
    private final VBox shownBox = new VBox(4);
    private final List<Heatmap> shownMaps = new java.util.ArrayList<>();

    public Inspector(SweepViewModel vm) {
        this(vm, null);
    }

    /** With {@code recompute}, a value or gradient the run did not retain is recomputed when shown, and said so. */
    public Inspector(SweepViewModel vm, OnDemandViewModel recompute) {
        this.vm = vm;
        this.recompute = recompute;
        setId("inspector");
        name.setId("inspector-name");
        name.getStyleClass().add("title");
        op.setId("inspector-op");
        op.setWrapText(true);
        rule.setId("inspector-rule");
        rule.setWrapText(true);
        rule.getStyleClass().add("rule");
        layout.setId("inspector-layout");
        // a 4-d tensor's shape and strides are wider than the panel: wrap, so the dtype still shows
        layout.setWrapText(true);
        // The leaf/recompute note is a sentence: wrapped, never cut ("its value is made ag...").
        leafNote.setWrapText(true);
        leafNote.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        value.setId("inspector-value");
        upstream.setId("inspector-upstream");
        contribTitle.getStyleClass().add("heading");
        shownBox.setId("inspector-shown");
        VBox box = new VBox(6, name, op, rule, layout, notes, new Separator(), valueRow, shownBox, upstreamRow, contribTitle, contributions);
        box.setPadding(new Insets(10));
        box.setPrefWidth(300);
        setContent(box);
        setFitToWidth(true);
        setPrefWidth(320);
        vm.inspection().addListener((o, a, b) -> refresh());
        if (recompute != null) {
            recompute.onChange(x -> refresh());
        }
        refresh();
    }

    /** Where the lines of the run are in the text now (1-based; 0: changed since); the run's own until {@link #followText}. */
    private java.util.function.IntUnaryOperator textLine = java.util.function.IntUnaryOperator.identity();
    /** The vertex whose op and line are shown, or null. */
    private TraceGraph.Vertex shownLine;

    /**
     * Names a node's line where it is in the text now ({@code textLine}: 1-based, 0 for a line changed or
     * removed since the run), named again whenever {@code text} changes.
     */
    public void followText(java.util.function.IntUnaryOperator textLine, javafx.beans.Observable text) {
        this.textLine = textLine;
        text.addListener(o -> {
            if (shownLine != null) {
                showOp();
            }
        });
    }

    /** The op and its line: "op · matmul · line 14", "· line 14 (12 when run)", "· line 12 when run (edited since)". */
    private void showOp() {
        TraceGraph.Vertex v = shownLine;
        String kind = v.kind().name().toLowerCase(java.util.Locale.ROOT);
        String line = "";
        if (v.line() > 0) {
            int now = textLine.applyAsInt(v.line());
            line = now == v.line() ? " · line " + now : now > 0 ? " · line " + now + " (" + v.line() + " when run)"
                    : " · line " + v.line() + " when run (edited since)";
        }
        op.setText((kind.equals(v.op()) ? kind : kind + " · " + v.op()) + line);
    }

    /** The recomputed answer for the vertex, when the run did not retain what it shows; else null. */
    private OnDemandViewModel.Answer recomputed(int vertex) {
        return recompute == null ? null : recompute.answerFor(vertex);
    }

    /** Shows {@code t} on {@code map}, or, for a stand-in, what was recomputed for it ({@code again}), saying so. */
    private static void showKept(Heatmap map, Tensor t, Tensor again, OnDemandViewModel.Answer a) {
        if (!NotRetained.is(t)) {
            map.show(t, "");
        } else if (again != null) {
            map.show(again, OnDemandViewModel.NOTE);
        } else {
            map.show(null, a != null && a.failure() != null ? a.failure() : OnDemandViewModel.WORKING);
        }
    }

    public Heatmap valueMap() {
        return value;
    }

    public Heatmap upstreamMap() {
        return upstream;
    }

    /** Notes about the node from other views (health, diagnoses), under its shape. */
    public VBox notes() {
        return notes;
    }

    /** The row of the value map: another view may add a map beside it. */
    public HBox valueRow() {
        return valueRow;
    }

    /** The row of the upstream gradient's map: another view may add a map beside it. */
    public HBox upstreamRow() {
        return upstreamRow;
    }

    /** How many times it has refreshed (one per step: tests count). */
    public int refreshes() {
        return refreshes;
    }

    private void refresh() {
        refreshes++;
        int id = vm.inspectedVertex();
        TraceGraph.Vertex v = vm.vertex(id);
        shownLine = null;
        if (v == null) {
            if (vm.recorded().get() != null && vm.cursor().get() < 0) {
                // Before the first step: what the program computed and how to start.
                String[] first = io.gradscope.app.viewmodel.FirstView.of(vm.recorded().get(), vm.mode().get());
                name.setText(first[0]);
                op.setText(first[1]);
                layout.setText(first[2]);
            } else {
                name.setText(vm.recorded().get() == null ? "No run yet" : "Step or click a node");
                op.setText("");
                layout.setText("");
            }
            rule.setText("");
            value.show(null, "");
            upstream.show(null, "");
            shownBox.getChildren().clear();
            contributions.getChildren().clear();
            contribTitle.setVisible(false);
            return;
        }
        Tensor t = v.value();
        OnDemandViewModel.Answer again = recomputed(id);
        name.setText(v.title());
        shownLine = v;
        showOp();
        rule.setText(v.rule() == null || v.rule().isEmpty() ? "" : "VJP: " + v.rule());
        layout.setText("shape " + Shapes.str(t.shape()) + "   strides " + Shapes.str(t.strides()) + "   " + t.dtype());
        showKept(value, t, again == null ? null : again.value(), again);
        showShown(vm.shown(id));
        Sweep s = vm.recorded().get();
        if (!v.requiresGrad()) {
            upstream.show(null, "No gradient flows here (it does not need one).");
        } else if (vm.mode().get() == Sweep.Mode.FORWARD) {
            upstream.show(null, "Switch to the backward pass to see gradients.");
        } else {
            Tensor g = vm.upstream(id);
            Sweep.Received r = g == null ? vm.received(id) : null;
            if (g != null) {
                upstream.setHeading("Upstream gradient");
                showKept(upstream, g, again == null || !again.gradients() ? null : again.upstream(), again);
            } else if (r != null && r.sum() == null && r.count() > 0) {
                upstream.setHeading("Upstream gradient (so far)");
                upstream.show(null, "Received " + r.count() + " of " + r.total() + " contributions; their sum so far was not "
                        + "retained (its complete gradient is recomputed at step " + (r.completeAt() + 1) + ").");
            } else if (r != null && r.sum() != null) {
                // A value that has received some of its contributions shows their sum so far.
                upstream.setHeading("Upstream gradient (so far)");
                upstream.show(r.sum(), "Received " + r.count() + " of " + r.total() + (r.total() == 1 ? " contribution" : " contributions")
                        + (r.completeAt() >= 0 ? "; complete at step " + (r.completeAt() + 1) + "." : "."));
            } else {
                upstream.setHeading("Upstream gradient");
                int at = s.backwardStepOf(id);
                upstream.show(null, at < 0 ? "The backward pass does not reach it."
                        : "Nothing received yet: its first contribution comes " + (r != null && r.total() > 0
                        ? "before step " + (at + 1) : "at step " + (at + 1)) + ".");
            }
        }
        boolean current = vm.mode().get() == Sweep.Mode.BACKWARD && id == vm.currentVertex();
        contribTitle.setVisible(current);
        if (current) {
            List<Sweep.Contribution> cs = s.contributions(vm.cursor().get());
            String redo = s.recomputing(vm.cursor().get());
            leafNote.setText(redo != null ? capitalised(redo) + ": its value is made again from the segment's kept inputs for the "
                    + "backward steps that read it; it sends nothing." : v.kind() == TraceGraph.Kind.PARAM || v.kind() == TraceGraph.Kind.INPUT
                    ? "A leaf: this upstream gradient is its gradient." : "Nothing to send.");
            List<javafx.scene.Node> shown = new java.util.ArrayList<>();
            if (cs.isEmpty()) {
                shown.add(leafNote);
            }
            // The heatmaps are kept and reused: building one each step costs more than the rest of the step.
            for (int i = 0; i < cs.size(); i++) {
                Sweep.Contribution c = cs.get(i);
                if (i == sent.size()) {
                    sent.add(new Heatmap(""));
                }
                TraceGraph.Vertex to = vm.vertex(c.toVertex());
                Heatmap h = sent.get(i);
                h.setHeading("to input " + (c.input() + 1) + (to == null ? "" : " (" + to.title() + ")"));
                showKept(h, c.gradient(), sentAgain(again, c.input()), again);
                shown.add(h);
            }
            if (!contributions.getChildren().equals(shown)) {
                contributions.getChildren().setAll(shown);
            }
        } else {
            contributions.getChildren().clear();
        }
    }

    /** One map per section, titled with the name the engine gave the tensor, its counts under the title. */
    private void showShown(List<ShownSection> sections) {
        List<javafx.scene.Node> rows = new java.util.ArrayList<>();
        for (int i = 0; i < sections.size(); i++) {
            ShownSection s = sections.get(i);
            if (i == shownMaps.size()) {
                Heatmap h = new Heatmap("");
                h.setId("inspector-shown-" + i);
                shownMaps.add(h);
            }
            Heatmap h = shownMaps.get(i);
            h.setHeading(s.title());
            h.setCaption(s.tensor() == null ? "" : s.counts());
            h.show(s.tensor(), s.tensor() == null ? s.counts() : "");
            rows.add(h);
        }
        if (!shownBox.getChildren().equals(rows)) {
            shownBox.getChildren().setAll(rows);
        }
    }

    /** The sections shown now beyond the value (tests read them). */
    public List<Heatmap> shownMaps() {
        return shownBox.getChildren().stream().filter(n -> n instanceof Heatmap).map(n -> (Heatmap) n).toList();
    }

    /** The recomputed contribution to input number {@code input}, or null. */
    private static Tensor sentAgain(OnDemandViewModel.Answer a, int input) {
        if (a == null || !a.gradients()) {
            return null;
        }
        for (Sweep.Contribution c : a.contributions()) {
            if (c.input() == input) {
                return c.gradient();
            }
        }
        return null;
    }

    private static String capitalised(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
