package io.gradscope.engine.step;

import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Gradscope's run of a step beside PyTorch's: every module's output (forward hooks), the loss and every
 * parameter's gradient, each with its normwise relative error, in topological order, and the first that
 * differs beyond float32 rounding.
 *
 * <pre>{@code
 * StepDiff d = StepDiff.of(step, imported, program, run);
 * d.first().ifPresent(r -> System.out.println("first divergence: " + r.name() + " at " + r.node()));
 * }</pre>
 *
 * Note [Step order]: module outputs come in the program's order (the forward's, topological), then the
 * loss, then the gradients in the order the backward sweep reaches their parameters (the last declared
 * first). The first divergence is the first row of that order that diverges: an export mismatch or a
 * changed weight shows at its module's output, a wrong custom backward only in gradients, nearest the loss.
 */
public final class StepDiff {
    /**
     * Note [Beyond float32 rounding]: PyTorch's values are float32; ours float64 (or float32) on the same
     * weights. A tensor diverges when ‖ours − PyTorch's‖₂ > TOLERANCE·‖PyTorch's‖₂ + FLOOR·√n: about a
     * thousand float32 roundings of relative error, with a floor for tensors that are zero up to rounding
     * (a convolution's bias before a batch norm in training mode gets no gradient but float32 noise).
     */
    public static final double TOLERANCE = 1e-4;
    static final double FLOOR = 1e-7;

    public enum Kind { VALUE, LOSS, GRADIENT }

    /**
     * One compared tensor.
     *
     * @param name the module path (values), "loss", or the PyTorch parameter name (gradients)
     * @param node the program statement or leaf ({@code "-"} where the graph does not use the parameter)
     * @param line the node's line in the program (0 where none)
     * @param relError ‖ours − PyTorch's‖₂ / ‖PyTorch's‖₂ (infinite for a shape mismatch)
     */
    public record Row(Kind kind, String name, String node, int line, double oursNorm, double torchNorm, double relError, boolean diverges) {
    }

    private final List<Row> rows;

    private StepDiff(List<Row> rows) {
        this.rows = List.copyOf(rows);
    }

    public List<Row> rows() {
        return rows;
    }

    /** The first row that diverges (Note [Step order]), if any. */
    public java.util.Optional<Row> first() {
        return rows.stream().filter(Row::diverges).findFirst();
    }

    public static StepDiff of(StepFolder step, StepFolder.Imported im, Program program, ProgramRun run) {
        Map<String, Pos> lines = program.assignedNames();
        List<Row> values = new ArrayList<>();
        for (Map.Entry<String, String> v : im.values().entrySet()) {
            Tensor ours = run.values().get(v.getValue());
            values.add(row(Kind.VALUE, v.getKey(), v.getValue(), line(lines, v.getValue()), ours,
                    Npy.read(step.torchValues().get(v.getKey()))));
        }
        values.sort(Comparator.comparingInt(Row::line));
        List<Row> out = new ArrayList<>(values);
        out.add(row(Kind.LOSS, "loss", "loss", line(lines, "loss"), run.objective(), Npy.read(step.torchLoss())));
        List<Row> grads = new ArrayList<>();
        for (Map.Entry<String, java.nio.file.Path> g : step.torchGradients().entrySet()) {
            String node = im.parameters().get(g.getKey());
            Tensor torch = Npy.read(g.getValue());
            Tensor ours = node == null ? null : run.gradient(node);
            if (node == null) {
                ours = Tensor.fromDoubles(torch.dtype(), new double[torch.toDoubleArray().length], torch.shape());
            }
            grads.add(row(Kind.GRADIENT, g.getKey(), node == null ? "-" : node, node == null ? 0 : line(lines, node), ours, torch));
        }
        grads.sort(Comparator.comparingInt(Row::line).reversed());
        out.addAll(grads);
        return new StepDiff(out);
    }

    private static int line(Map<String, Pos> lines, String name) {
        Pos p = lines.get(name);
        return p == null ? 0 : p.line();
    }

    static Row row(Kind kind, String name, String node, int line, Tensor ours, Tensor torch) {
        double[] b = torch.toDoubleArray();
        double nb = norm(b);
        if (ours == null) {
            return new Row(kind, name, node, line, Double.NaN, nb, Double.POSITIVE_INFINITY, true);
        }
        double[] a = ours.toDoubleArray();
        if (!Arrays.equals(ours.shape(), torch.shape()) && !(a.length == 1 && b.length == 1)) {
            return new Row(kind, name, node, line, norm(a), nb, Double.POSITIVE_INFINITY, true);
        }
        double d = 0;
        for (int i = 0; i < a.length; i++) {
            d += (a[i] - b[i]) * (a[i] - b[i]);
        }
        d = Math.sqrt(d);
        double rel = nb == 0 ? (d == 0 ? 0 : Double.POSITIVE_INFINITY) : d / nb;
        boolean diverges = !(d <= TOLERANCE * nb + FLOOR * Math.sqrt(a.length));
        return new Row(kind, name, node, line, norm(a), nb, rel, diverges);
    }

    private static double norm(double[] x) {
        double s = 0;
        for (double v : x) {
            s += v * v;
        }
        return Math.sqrt(s);
    }
}
