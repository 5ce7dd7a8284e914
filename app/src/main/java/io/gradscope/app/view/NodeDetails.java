package io.gradscope.app.view;

import io.gradscope.app.viewmodel.DerivativesViewModel;
import io.gradscope.app.viewmodel.ComparisonViewModel;
import io.gradscope.app.viewmodel.DiagnosticsViewModel;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.diagnose.FiniteOrigin;
import io.gradscope.engine.diagnose.Health;
import io.gradscope.engine.diagnose.NodeCheck;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Locale;
import javafx.scene.control.Label;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * What the inspector shows beyond the value and the gradient, put into its slots: the tangent
 * beside the value (forward mode, with the JVP rule) and beside the upstream gradient (the second
 * sweep of an H·v run), the node's health counts, and its diagnoses (NaN origin, gradient check,
 * difference from another run). Refreshes with the inspector's subject and when a diagnosis arrives.
 */
public final class NodeDetails {
    /** The maps' side when two share a row of the inspector. */
    static final double PAIRED_SIDE = 150;
    /** The width of each of two maps in a row (their statistics wrap within it). */
    static final double PAIRED_WIDTH = 180;

    private final SessionViewModel session;
    private final SweepViewModel sweep;
    private final DerivativesViewModel derivatives;
    private final DiagnosticsViewModel diagnostics;
    private final Inspector inspector;
    private final Heatmap valueTangent = new Heatmap("Tangent J·v");
    private final Label jvpRule = new Label();
    private final VBox valueSide = new VBox(2, valueTangent, jvpRule);
    private final Heatmap upstreamTangent = new Heatmap("Tangent ġ");
    private final Label upstreamNote = new Label();
    private final VBox upstreamSide = new VBox(2, upstreamTangent, upstreamNote);
    private final Label origin = new Label();
    /** The ONNX node a statement of an imported model comes from: name · operator  attributes. */
    private final Label onnx = new Label();
    private final Label check = new Label();
    private final Label diff = new Label();
    private final GridPane health = new GridPane();

    public NodeDetails(SessionViewModel session, Inspector inspector) {
        this.session = session;
        this.sweep = session.sweep();
        this.derivatives = session.derivatives();
        this.diagnostics = session.diagnostics();
        this.inspector = inspector;
        valueTangent.setId("tangent-value");
        upstreamTangent.setId("tangent-upstream");
        jvpRule.setId("jvp-rule");
        origin.setId("origin-note");
        onnx.setId("onnx-origin");
        onnx.getStyleClass().add("onnx");
        check.setId("check-note");
        diff.setId("diff-note");
        health.setId("health");
        for (Label l : new Label[] {jvpRule, upstreamNote, onnx, origin, check, diff}) {
            l.setWrapText(true);
            l.setMaxWidth(Double.MAX_VALUE);
        }
        jvpRule.getStyleClass().add("rule");
        upstreamNote.getStyleClass().add("stats");
        origin.getStyleClass().add("finding");
        check.getStyleClass().add("diagnosis");
        diff.getStyleClass().add("diagnosis");
        health.getStyleClass().add("health");
        health.setHgap(8);
        inspector.valueRow().getChildren().add(valueSide);
        inspector.upstreamRow().getChildren().add(upstreamSide);
        inspector.notes().getChildren().addAll(onnx, origin, check, diff, health);
        sweep.inspection().addListener((o, a, b) -> refresh());
        diagnostics.revision().addListener((o, a, b) -> refresh());
        session.onDemand().onChange(x -> refresh());
        refresh();
    }

    public Heatmap valueTangentMap() {
        return valueTangent;
    }

    public Heatmap upstreamTangentMap() {
        return upstreamTangent;
    }

    public Label originNote() {
        return origin;
    }

    private void refresh() {
        int id = sweep.inspectedVertex();
        TraceGraph.Vertex v = sweep.vertex(id);
        boolean tangentRun = !derivatives.tangents().get().isEmpty();
        showTangents(v, id, tangentRun);
        show(onnx, session.onnxOrigin(id).map(o -> "ONNX  " + o.comment())
                .or(() -> session.onnxInitializer(id).map(name -> "ONNX  initializer " + name)).orElse(null));
        if (v == null) {
            show(origin, null);
            show(check, null);
            show(diff, null);
            health.getChildren().clear();
            return;
        }
        show(origin, originText(id));
        NodeCheck.Result c = diagnostics.check(id);
        show(check, c == null ? null : !c.checkable() ? "Gradient check: not checkable here, " + c.skipReason()
                : String.format(Locale.ROOT, "Gradient check: %s, max error %.2e over %d elements%s%s",
                c.ok() ? "passes" : "FAILS", c.maxError(), c.checked(), c.ok() ? "" : "\n" + c.worst(),
                c.skipped() == 0 ? "" : "\n" + c.skipped() + " skipped: " + c.skipReason()));
        check.getStyleClass().setAll("diagnosis", c != null && !c.ok() ? "bad" : "good");
        RunDiff.Row r = diagnostics.difference(id);
        ComparisonViewModel.Comparison cmp = diagnostics.comparison().get();
        show(diff, r == null || cmp == null ? null : String.format(Locale.ROOT,
                "%s against %s: value differs by %s, gradient by %s (relative)", cmp.labelA(), cmp.labelB(), sci(r.valueDiff()),
                sci(r.gradientDiff())));
        showHealth(v, id);
    }

    private void showTangents(TraceGraph.Vertex v, int id, boolean tangentRun) {
        TraceEvent.Tangent vt = v == null ? null : derivatives.valueTangent(id);
        boolean showValue = tangentRun && v != null;
        visible(valueSide, showValue);
        Sweep.Mode mode = sweep.mode().get();
        if (showValue) {
            valueTangent.show(vt == null ? null : vt.tangent(), vt == null ? "No tangent: it does not depend on "
                    + derivatives.tangent().get().leaf() + "." : "");
            jvpRule.setText(vt == null ? "" : "JVP: " + vt.rule());
        }
        boolean showUpstream = tangentRun && v != null && mode == Sweep.Mode.BACKWARD && v.requiresGrad();
        visible(upstreamSide, showUpstream);
        if (showUpstream) {
            TraceEvent.Tangent ut = derivatives.upstreamTangent(id);
            boolean atLeaf = derivatives.tangent().get() != null && derivatives.tangent().get().leaf().equals(v.name());
            upstreamTangent.setHeading(atLeaf ? "H·v" : "Tangent ġ");
            upstreamTangent.show(ut == null ? null : ut.tangent(), ut == null ? "Not reached yet." : "");
            upstreamNote.setText(ut == null ? "" : atLeaf ? "The tangent of the leaf's gradient: H·v, the end of the second sweep"
                    : "ġ: the directional derivative of this gradient along v");
        }
        double side = showValue ? PAIRED_SIDE : 220;
        inspector.valueMap().setMaxSide(side);
        pair(inspector.valueMap(), showValue);
        pair(valueTangent, showValue);
        pair(valueSide, showValue);
        pair(upstreamSide, showUpstream);
        inspector.upstreamMap().setMaxSide(showUpstream ? PAIRED_SIDE : 220);
        pair(inspector.upstreamMap(), showUpstream);
        pair(upstreamTangent, showUpstream);
        valueTangent.setMaxSide(PAIRED_SIDE);
        upstreamTangent.setMaxSide(PAIRED_SIDE);
    }

    /** Two maps in a row share the inspector's width. */
    private static void pair(Region r, boolean paired) {
        r.setPrefWidth(paired ? PAIRED_WIDTH : Region.USE_COMPUTED_SIZE);
        r.setMaxWidth(paired ? PAIRED_WIDTH : Double.MAX_VALUE);
    }

    private String originText(int id) {
        FiniteOrigin.Report r = diagnostics.finite().get();
        if (r == null || r.origin() == null) {
            return null;
        }
        return switch (diagnostics.mark(id)) {
            case PRODUCER -> "Origin of the non-finite values (" + phase(r.origin()) + "): " + r.origin().why();
            case PROPAGATOR -> "Passes on a non-finite value born at " + r.origin().title() + " (" + phase(r.origin()) + ")";
            default -> null;
        };
    }

    private static String phase(FiniteOrigin.Finding f) {
        return f.phase() == FiniteOrigin.Phase.FORWARD ? "forward pass" : "backward pass";
    }

    private void showHealth(TraceGraph.Vertex v, int id) {
        health.getChildren().clear();
        String[] heads = {"health", "−", "0", "+", "NaN", "+Inf", "−Inf"};
        for (int c = 0; c < heads.length; c++) {
            Label h = new Label(heads[c]);
            h.getStyleClass().add(c == 0 ? "heading" : "stats");
            health.add(h, c, 0);
            // On the title's line: centred in the title's taller row, the small headings sat 3 px above it.
            GridPane.setValignment(h, javafx.geometry.VPos.BASELINE);
            if (c > 0) {
                GridPane.setHalignment(h, javafx.geometry.HPos.RIGHT);
            }
        }
        // A value or gradient the run did not retain: the health of what was recomputed on demand, once it is there.
        io.gradscope.app.viewmodel.OnDemandViewModel.Answer again = session.onDemand().answerFor(id);
        Health vh = diagnostics.valueHealth(id);
        if (vh == null && again != null && again.value() != null) {
            vh = Health.of(again.value());
        }
        if (vh != null) {
            row(1, "value", vh);
        } else {
            notRetained(1, "value");
        }
        if (v.requiresGrad()) {
            Tensor g = diagnostics.gradient(id);
            String name = sweep.mode().get() == Sweep.Mode.BACKWARD ? "gradient" : "gradient*";
            if (io.gradscope.engine.trace.NotRetained.is(g)) {
                g = again != null && again.gradients() ? again.upstream() : null;
                if (g == null) {
                    notRetained(2, "gradient");
                    return;
                }
            }
            if (g == null) {
                Label l = new Label("gradient: not reached yet");
                l.getStyleClass().add("stats");
                health.add(l, 0, 2, 7, 1);
            } else {
                row(2, name, Health.of(g));
                if (sweep.mode().get() != Sweep.Mode.BACKWARD) {
                    Label l = new Label("* as the backward pass recorded it");
                    l.getStyleClass().add("stats");
                    health.add(l, 0, 3, 7, 1);
                }
            }
        }
    }

    private void notRetained(int r, String name) {
        Label l = new Label(name + ": not retained, recomputing…");
        l.getStyleClass().add("stats");
        health.add(l, 0, r, 7, 1);
    }

    private void row(int r, String name, Health h) {
        Label n = new Label(name);
        n.getStyleClass().add("stats");
        health.add(n, 0, r);
        long[] counts = {h.negative(), h.zero(), h.positive(), h.nan(), h.posInf(), h.negInf()};
        for (int c = 0; c < counts.length; c++) {
            Label l = new Label(Long.toString(counts[c]));
            l.getStyleClass().add("stats");
            if (c >= 3 && counts[c] > 0) {
                l.getStyleClass().add("bad-count");
            }
            health.add(l, c + 1, r);
            // Right-aligned under their headings, as numbers are.
            GridPane.setHalignment(l, javafx.geometry.HPos.RIGHT);
        }
    }

    private static void show(Label l, String text) {
        l.setText(text == null ? "" : text);
        visible(l, text != null);
    }

    private static void visible(javafx.scene.Node n, boolean on) {
        n.setVisible(on);
        n.setManaged(on);
    }

    private static String sci(double x) {
        return Double.isNaN(x) ? "–" : String.format(Locale.ROOT, "%.2e", x);
    }
}
