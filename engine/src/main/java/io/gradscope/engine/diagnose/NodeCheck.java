package io.gradscope.engine.diagnose;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.autograd.GradMode;
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

    /** One node's verdict: the largest |analytic − numeric| seen and where. */
    public record Result(Node node, boolean ok, double maxError, String worst, int checked) {
    }

    /** Checks every non-leaf node, in creation order, at up to {@code samples} elements of each input. */
    public static List<Result> all(Collection<Node> nodes, int samples) {
        List<Node> ops = new ArrayList<>(nodes.stream().filter(n -> !n.isLeaf()).toList());
        ops.sort(Comparator.comparingLong(Node::id));
        List<Result> out = new ArrayList<>();
        for (Node n : ops) {
            out.add(check(n, samples));
        }
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
                double numeric = central(op, x, i, j, u);
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
        return new Result(node, ok, worstErr, worst, checked);
    }

    /** ∂⟨op(x), u⟩/∂x[i][j] by central differences in float64. */
    private static double central(Op op, Tensor[] x, int i, int j, double[] u) {
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
            return (plus - minus) / (2 * GradCheck.EPS);
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
