package io.gradscope.app.viewmodel;

import io.gradscope.app.service.StepImport;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.step.StepDiff;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run on screen of a captured step beside PyTorch's own step ({@link StepDiff}): a comparison row
 * per module output, the loss and each parameter's gradient, in topological order, on the vertices of
 * the run on screen, with PyTorch's tensors for the Compare tab's second column.
 */
final class TorchComparison {
    private TorchComparison() {
    }

    /** The comparison, and the vertex of its first divergence (-1: none). */
    record Made(ComparisonViewModel.Comparison comparison, int first) {
    }

    static Made of(StepImport.Step step, Program program, Sweep s) {
        StepDiff d = StepDiff.of(step.folder(), step.imported(), program, s.run());
        Map<String, Integer> byName = new HashMap<>();
        for (TraceGraph.Vertex v : s.graph().vertices()) {
            if (v.name() != null) {
                byName.putIfAbsent(v.name(), v.index());
            }
        }
        List<RunDiff.Row> rows = new ArrayList<>();
        Map<Integer, Tensor[]> torch = new HashMap<>();
        int first = -1;
        int diverging = 0;
        String firstText = null;
        for (StepDiff.Row r : d.rows()) {
            Integer v = byName.get(r.node());
            if (v == null) {
                continue;
            }
            boolean grad = r.kind() == StepDiff.Kind.GRADIENT;
            String op = s.graph().vertex(v).op();
            rows.add(new RunDiff.Row(r.name() + (grad ? " (gradient)" : ""), op, r.line(), grad ? Double.NaN : r.relError(),
                    grad ? r.relError() : Double.NaN, v, v));
            Tensor t = Npy.read(grad ? step.folder().torchGradients().get(r.name())
                    : r.kind() == StepDiff.Kind.LOSS ? step.folder().torchLoss() : step.folder().torchValues().get(r.name()));
            Tensor[] pair = torch.computeIfAbsent(v, k -> new Tensor[2]);
            pair[grad ? 1 : 0] = t;
            if (r.diverges()) {
                diverging++;
                if (first < 0) {
                    first = v;
                    firstText = (grad ? "the gradient of " : "") + r.name() + String.format(Locale.ROOT, " (relative error %.2e)", r.relError());
                }
            }
        }
        String ours = s.run().objective().dtype().toString().toLowerCase(Locale.ROOT);
        String summary = String.format(Locale.ROOT, "Gradscope (%s) against PyTorch's own step (float32, %s): %d module outputs, the loss "
                + "and the gradients in topological order; %d beyond float32 rounding (relative error over %.0e)%s", ours,
                step.folder().describe(), rows.size(), diverging, StepDiff.TOLERANCE,
                firstText == null ? ": no divergence." : "; the first divergence, selected: " + firstText + ".");
        return new Made(new ComparisonViewModel.Comparison("Gradscope (" + ours + ")", "PyTorch", true, s.run(), s.graph(), rows,
                torch, summary), first);
    }
}
