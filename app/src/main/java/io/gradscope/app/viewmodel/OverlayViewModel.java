package io.gradscope.app.viewmodel;

import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * The graph's fill colour: each vertex by the norm of the gradient the backward pass recorded for
 * it, or by its difference from the compared run ({@link ComparisonViewModel}), on a log scale
 * with a legend. Showing a comparison turns the difference colouring on; clearing it turns it off.
 * A part of {@link DiagnosticsViewModel}.
 */
public final class OverlayViewModel {
    /** What the graph's fill colour shows. */
    public enum Overlay { NONE, GRADIENT_NORM, DIFFERENCE }

    /** A colour scale for the legend: its title, the ends (log10) and the colours from low to high. */
    public record Scale(String title, double lo, double hi, List<String> colours) {
    }

    static final List<String> NORM_COLOURS = List.of("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725");
    static final List<String> DIFF_COLOURS = List.of("#fff5f0", "#fcbba1", "#fb6a4a", "#cb181d", "#67000d");

    private final SweepViewModel sweep;
    private final ComparisonViewModel comparisons;
    private final Consumer<String> report;
    private final Runnable changed;
    private final ReadOnlyObjectWrapper<Overlay> overlay = new ReadOnlyObjectWrapper<>(this, "overlay", Overlay.NONE);
    /** log10 of each vertex's gradient norm (NaN: none), computed when the overlay is first shown. */
    private double[] logNorms;

    OverlayViewModel(SweepViewModel sweep, ComparisonViewModel comparisons, Consumer<String> report, Runnable changed) {
        this.sweep = sweep;
        this.comparisons = comparisons;
        this.report = report;
        this.changed = changed;
        comparisons.comparison().addListener((o, a, b) -> {
            if (b != null) {
                overlay.set(Overlay.DIFFERENCE);
            } else if (overlay.get() == Overlay.DIFFERENCE) {
                overlay.set(Overlay.NONE);
            }
        });
    }

    public ReadOnlyObjectProperty<Overlay> overlay() {
        return overlay.getReadOnlyProperty();
    }

    public void setOverlay(Overlay o) {
        if (o == Overlay.DIFFERENCE && comparisons.comparison().get() == null) {
            report.accept("Compare two runs first (Debug → Compare float32 with float64, or with the previous run)");
            return;
        }
        overlay.set(o);
        changed.run();
    }

    /** The fill of a vertex at overlay level {@code level} (0 to 1), with a text colour that reads on it. */
    Decorator.Paint fill(double level) {
        List<String> colours = overlay.get() == Overlay.GRADIENT_NORM ? NORM_COLOURS : DIFF_COLOURS;
        int i = (int) Math.min(colours.size() - 1, Math.floor(level * colours.size()));
        boolean dark = overlay.get() == Overlay.GRADIENT_NORM ? i <= 1 : i >= 3;
        return Decorator.Paint.fill(colours.get(i), dark ? "#ffffff" : "#1d2433");
    }

    /** The overlay's level of a vertex from 0 to 1 (its place on the legend's log scale), or NaN. */
    public double level(int vertex) {
        Scale s = scale();
        if (s == null) {
            return Double.NaN;
        }
        double x = overlay.get() == Overlay.GRADIENT_NORM ? logNorms[vertex] : logDiff(comparisons.difference(vertex));
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x == Double.NEGATIVE_INFINITY) {
            return 0;
        }
        return s.hi() <= s.lo() ? 1 : Math.max(0, Math.min(1, (x - s.lo()) / (s.hi() - s.lo())));
    }

    /** The legend of the overlay shown, or null. */
    public Scale scale() {
        Sweep s = sweep.recorded().get();
        if (s == null || overlay.get() == Overlay.NONE) {
            return null;
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        if (overlay.get() == Overlay.GRADIENT_NORM) {
            norms();
            for (double x : logNorms) {
                if (!Double.isNaN(x) && Double.isFinite(x)) {
                    lo = Math.min(lo, x);
                    hi = Math.max(hi, x);
                }
            }
        } else {
            // The scale spans the differences there are; values equal in both runs sit below its bottom.
            for (RunDiff.Row r : comparisons.differences()) {
                double x = r.score() > 0 ? logDiff(r) : Double.NaN;
                if (!Double.isNaN(x)) {
                    lo = Math.min(lo, x);
                    hi = Math.max(hi, x);
                }
            }
        }
        if (lo > hi) {
            return null;
        }
        ComparisonViewModel.Comparison c = comparisons.comparison().get();
        if (overlay.get() == Overlay.DIFFERENCE) {
            // From the coarser dtype's rounding (a relative difference there is no news) to 100%: the
            // colour says how far a value is from being equal, not how it ranks among small differences.
            lo = Math.min(lo, Math.log10(Math.max(rounding(s.run().objective()), rounding(c.other().objective()))));
            hi = Math.max(hi, 0);
        }
        return overlay.get() == Overlay.GRADIENT_NORM
                ? new Scale("gradient L2 norm (log scale)", lo, hi, NORM_COLOURS)
                : new Scale("relative difference, " + c.labelA() + " against " + c.labelB() + " (log scale)", lo, hi, DIFF_COLOURS);
    }

    /** The relative rounding of a run's dtype (its objective's): 2⁻²³ for float32, 2⁻⁵² for float64. */
    private static double rounding(Tensor objective) {
        return objective != null && objective.dtype() == DType.FLOAT32 ? Math.ulp(1f) : Math.ulp(1.0);
    }

    private static double logDiff(RunDiff.Row r) {
        if (r == null) {
            return Double.NaN;
        }
        // Exactly equal values sit at the bottom of the scale (level 0).
        return r.score() > 0 ? Math.log10(r.score()) : Double.NEGATIVE_INFINITY;
    }

    private void norms() {
        if (logNorms != null) {
            return;
        }
        Sweep s = sweep.recorded().get();
        logNorms = new double[s.graph().size()];
        int last = s.steps(Sweep.Mode.BACKWARD) - 1;
        for (int v = 0; v < logNorms.length; v++) {
            Tensor g = s.upstream(last, v);
            // A gradient the run did not retain is unknown (no colour), not a vanished one.
            if (g == null || io.gradscope.engine.trace.NotRetained.is(g)) {
                logNorms[v] = Double.NaN;
                continue;
            }
            double sum = 0;
            for (double x : g.toDoubleArray()) {
                sum += x * x;
            }
            double norm = Math.sqrt(sum);
            // A gradient that vanished entirely sits at the bottom; a non-finite one at the top.
            logNorms[v] = Double.isNaN(norm) ? Double.POSITIVE_INFINITY : norm == 0 ? Double.NEGATIVE_INFINITY : Math.log10(norm);
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double x : logNorms) {
            if (Double.isFinite(x)) {
                lo = Math.min(lo, x);
                hi = Math.max(hi, x);
            }
        }
        for (int v = 0; v < logNorms.length; v++) {
            if (logNorms[v] == Double.NEGATIVE_INFINITY) {
                logNorms[v] = lo <= hi ? lo : 0;
            } else if (logNorms[v] == Double.POSITIVE_INFINITY) {
                logNorms[v] = lo <= hi ? hi : 0;
            }
        }
    }

    /** log10 of a vertex's gradient norm (NaN: it has none). */
    public double logNorm(int vertex) {
        if (sweep.recorded().get() == null) {
            return Double.NaN;
        }
        norms();
        return vertex < 0 || vertex >= logNorms.length ? Double.NaN : logNorms[vertex];
    }

    /** A new run is on screen: its gradient norms are computed again when shown. */
    void reset() {
        logNorms = null;
    }
}
