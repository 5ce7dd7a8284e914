package io.gradscope.engine.diagnose;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.check.GradCheck;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Which node's gradient is wrong: each recorded node's VJP checked at its recorded inputs against
 * central differences in float64, with PyTorch's gradcheck tolerances (eps 1e-6, atol 1e-5,
 * rtol 1e-3). Large inputs are checked at a sample of their elements.
 *
 * <pre>{@code
 * for (NodeCheck.Result r : NodeCheck.all(run.gradients().byNode().keySet(), 64)) {
 *     if (!r.ok()) System.out.println(r.node().op().label() + ": " + r.worst());
 * }
 * }</pre>
 */
public final class NodeCheck {
    private NodeCheck() {
    }

    /**
     * One node's verdict: the largest |analytic − numeric| seen and where, over the {@code checked}
     * elements. An element where central differences say nothing (a non-finite value nearby, as at
     * a NaN input or at {@code sqrt(0)}; a kink, as {@code relu} at 0, where the one-sided slopes
     * differ) is not checked but counted in {@code skipped}, with the first such reason.
     */
    public record Result(Node node, boolean ok, double maxError, String worst, int checked, int skipped, String skipReason) {
        /** Whether at least one element could be checked. */
        public boolean checkable() {
            return checked > 0 || skipped == 0;
        }

        /** "ok", "FAIL: ..." or "not checkable: ...", with the skipped elements counted. */
        public String verdict() {
            if (!checkable()) {
                return "not checkable: " + skipReason;
            }
            String v = ok ? "ok" : "FAIL: " + worst;
            return skipped == 0 ? v : v + " (" + skipped + " skipped: " + skipReason + ")";
        }
    }

    /**
     * Elements checked per input by default: all of them up to this many (as PyTorch's gradcheck
     * checks all), then this many chosen at random, so a large input does not take minutes.
     */
    public static final int DEFAULT_SAMPLES = 4096;

    /** Checks every non-leaf node, in creation order, at up to {@code samples} elements of each input. */
    public static List<Result> all(Collection<Node> nodes, int samples) {
        return all(nodes, samples, (done, total) -> { });
    }

    /** How far {@link #all} is: told before each node and at the end; an exception it throws stops the check there (a Cancel). */
    public interface Progress {
        void update(int done, int total);
    }

    /** As {@link #all(Collection, int)}, telling {@code progress} how many nodes are checked of how many. */
    public static List<Result> all(Collection<Node> nodes, int samples, Progress progress) {
        List<Node> ops = new ArrayList<>(nodes.stream().filter(n -> !n.isLeaf()).toList());
        ops.sort(Comparator.comparingLong(Node::id));
        List<Result> out = new ArrayList<>();
        for (Node n : ops) {
            progress.update(out.size(), ops.size());
            out.add(check(n, samples));
        }
        progress.update(out.size(), ops.size());
        return out;
    }

    /** Checks one node's VJP at its recorded inputs. */
    public static Result check(Node node, int samples) {
        Op op = node.op();
        List<Tensor> recorded = node.inputs();
        Tensor[] x = new Tensor[recorded.size()];
        for (int i = 0; i < x.length; i++) {
            Tensor in = recorded.get(i);
            x[i] = in.dtype().isFloating() ? Tensor.of(in.toDoubleArray(), in.shape()) : in;
        }
        double[] u;
        try (var off = GradMode.disable()) {
            Tensor y = Ops.apply(op, x);
            Random r = new Random(node.id());
            u = new double[(int) y.numel()];
            for (int j = 0; j < u.length; j++) {
                u[j] = r.nextGaussian();
            }
        }
        // Analytic: the op's VJP for u, through a one-node backward pass.
        Tensor[] leaves = new Tensor[x.length];
        for (int i = 0; i < x.length; i++) {
            leaves[i] = x[i].dtype().isFloating() ? Tensor.of(x[i].toDoubleArray(), x[i].shape()).setRequiresGrad(true) : x[i];
        }
        Tensor y = Ops.apply(op, leaves);
        if (y.requiresGrad()) {
            Backward.run(Ops.sum(Ops.mul(y, Tensor.of(u, y.shape()))));
        }
        boolean ok = true;
        double worstErr = 0;
        String worst = "all within tolerance";
        int checked = 0;
        int skipped = 0;
        String skipReason = null;
        double[] center;
        try (var off = GradMode.disable()) {
            center = new double[] {dot(Ops.apply(op, x), u)};
        }
        Random pick = new Random(node.id() * 31 + 7);
        for (int i = 0; i < x.length; i++) {
            if (!x[i].dtype().isFloating()) {
                continue;
            }
            double[] base = x[i].toDoubleArray();
            double[] analytic = leaves[i].grad() == null ? new double[base.length] : leaves[i].grad().toDoubleArray();
            int n = Math.min(samples, base.length);
            for (int k = 0; k < n; k++) {
                int j = base.length <= samples ? k : pick.nextInt(base.length);
                double[] slopes = slopes(op, x, i, j, u, center[0]);
                double numeric = (slopes[0] + slopes[1]) / 2;
                String skip = unusable(i, j, analytic[j], slopes);
                if (skip != null) {
                    skipReason = skipReason == null ? skip : skipReason;
                    skipped++;
                    continue;
                }
                double err = Math.abs(analytic[j] - numeric);
                boolean bad = !(err <= GradCheck.ATOL + GradCheck.RTOL * Math.abs(numeric));
                if ((bad && ok) || (ok == !bad && err > worstErr)) {
                    worst = "input " + (i + 1) + " element " + j + ": VJP " + analytic[j] + ", central differences " + numeric;
                }
                worstErr = Math.max(worstErr, err);
                ok &= !bad;
                checked++;
            }
        }
        return new Result(node, ok, worstErr, worst, checked, skipped, skipReason);
    }

    /** Why central differences cannot judge this element (null: they can). */
    private static String unusable(int i, int j, double analytic, double[] slopes) {
        String at = "input " + (i + 1) + " element " + j;
        if (!Double.isFinite(slopes[0]) || !Double.isFinite(slopes[1])) {
            return "the function is not finite next to " + at;
        }
        if (!Double.isFinite(analytic)) {
            return "the VJP is not finite at " + at;
        }
        double scale = Math.max(Math.abs(slopes[0]), Math.abs(slopes[1]));
        if (Math.abs(slopes[0] - slopes[1]) > 10 * (GradCheck.ATOL + GradCheck.RTOL * scale)) {
            return "a kink at " + at + " (one-sided slopes " + slopes[1] + " and " + slopes[0] + ")";
        }
        return null;
    }

    /**
     * The one-sided slopes of ⟨op(x), u⟩ in x[i][j], right then left, in float64; their mean is the
     * central difference.
     */
    private static double[] slopes(Op op, Tensor[] x, int i, int j, double[] u, double center) {
        double[] d = x[i].toDoubleArray();
        double keep = d[j];
        Tensor[] probe = x.clone();
        try (var off = GradMode.disable()) {
            d[j] = keep + GradCheck.EPS;
            probe[i] = Tensor.of(d.clone(), x[i].shape());
            double plus = dot(Ops.apply(op, probe), u);
            d[j] = keep - GradCheck.EPS;
            probe[i] = Tensor.of(d, x[i].shape());
            double minus = dot(Ops.apply(op, probe), u);
            return new double[] {(plus - center) / GradCheck.EPS, (center - minus) / GradCheck.EPS};
        }
    }

    private static double dot(Tensor y, double[] u) {
        double[] v = y.to(DType.FLOAT64).toDoubleArray();
        double s = 0;
        for (int k = 0; k < v.length; k++) {
            s += v[k] * u[k];
        }
        return s;
    }
}
