package io.gradscope.app.viewmodel;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One thing the inspector shows of a vertex beyond its value: a tensor its op recorded
 * ({@link TraceGraph.Vertex#shown()}, dropout's mask), under the name the engine gave it, with a
 * line counting its zero and non-zero elements ("kept 2 867 · dropped 1 229 (30.0%)" for a mask).
 * {@code tensor} is null where the run did not retain it, and {@code counts} then says so. Nothing
 * here is computed but the counts of what was recorded.
 *
 * <pre>{@code
 * for (ShownSection s : ShownSection.of(vertex)) { heatmap(s.title()).show(s.tensor(), s.counts()); }
 * }</pre>
 */
public record ShownSection(String title, Tensor tensor, String counts) {
    /** What a section says of a tensor the run did not retain. */
    public static final String NOT_RETAINED = "Not retained by this run (open it retaining all values to see it).";

    /** The sections of {@code v}, in the op's order; none for a leaf or an op with nothing more to show. */
    public static List<ShownSection> of(TraceGraph.Vertex v) {
        if (v == null || v.shown().isEmpty()) {
            return List.of();
        }
        List<ShownSection> out = new ArrayList<>(v.shown().size());
        for (Map.Entry<String, Tensor> e : v.shown().entrySet()) {
            Tensor t = e.getValue();
            boolean kept = t != null && !NotRetained.is(t);
            out.add(new ShownSection(e.getKey(), kept ? t : null, kept ? counts(e.getKey(), t) : NOT_RETAINED));
        }
        return List.copyOf(out);
    }

    /** For a mask (its name says "mask"): kept and dropped; else non-zero and zero. */
    static String counts(String title, Tensor t) {
        double[] x = t.toDoubleArray();
        long zero = 0;
        for (double d : x) {
            zero += d == 0 ? 1 : 0;
        }
        long nonZero = x.length - zero;
        String share = x.length == 0 ? "" : String.format(Locale.ROOT, " (%.1f%%)", 100.0 * zero / x.length);
        return title.toLowerCase(Locale.ROOT).contains("mask")
                ? "kept " + nonZero + " · dropped " + zero + share + " of " + x.length
                : nonZero + " non-zero · " + zero + " zero" + share + " of " + x.length;
    }
}
