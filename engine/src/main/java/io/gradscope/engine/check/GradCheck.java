package io.gradscope.engine.check;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import java.util.function.Function;

/**
 * Compares gradients from the backward pass with central differences in float64.
 *
 * <pre>{@code
 * GradCheck.Result r = GradCheck.check(in -> Ops.sum(Ops.tanh(in[0])), x);
 * assert r.ok() : r;
 * }</pre>
 */
public final class GradCheck {
    public static final double EPS = 1e-6;
    public static final double ATOL = 1e-5;
    public static final double RTOL = 1e-3;

    private GradCheck() {
    }

    /** The worst disagreement found; {@code ok} when every element is within atol + rtol·|numeric|. */
    public record Result(boolean ok, double maxAbsError, String worst) {
    }

    /** Checks the gradient of a scalar function at {@code inputs} (float inputs are differentiated). */
    public static Result check(Function<Tensor[], Tensor> f, Tensor... inputs) {
        Tensor[] x = new Tensor[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            Tensor in = inputs[i];
            x[i] = in.dtype().isFloating()
                    ? Tensor.of(in.toDoubleArray(), in.shape()).setRequiresGrad(true)
                    : in;
        }
        Tensor y = f.apply(x);
        boolean anyGrad = y.requiresGrad();
        if (anyGrad) {
            Backward.run(y);
        }
        boolean ok = true;
        double worstErr = 0;
        String worst = "all within tolerance";
        for (int i = 0; i < x.length; i++) {
            if (!x[i].dtype().isFloating()) {
                continue;
            }
            double[] analytic = x[i].grad() == null ? new double[(int) x[i].numel()] : x[i].grad().toDoubleArray();
            double[] numeric = numericGradient(f, x, i);
            for (int j = 0; j < numeric.length; j++) {
                double err = Math.abs(analytic[j] - numeric[j]);
                boolean bad = !(err <= ATOL + RTOL * Math.abs(numeric[j]));
                String where = "input " + i + " element " + j + ": analytic " + analytic[j] + ", numeric " + numeric[j];
                if (bad && ok) {
                    worst = where;
                } else if (ok && err > worstErr) {
                    worst = where;
                }
                worstErr = Math.max(worstErr, err);
                ok &= !bad;
            }
        }
        return new Result(ok, worstErr, worst);
    }

    /** ∂f/∂inputs[i] by central differences, one element at a time. */
    public static double[] numericGradient(Function<Tensor[], Tensor> f, Tensor[] inputs, int i) {
        double[] base = inputs[i].toDoubleArray();
        double[] grad = new double[base.length];
        int[] shape = inputs[i].shape();
        try (var off = GradMode.disable()) {
            Tensor[] probe = inputs.clone();
            for (int j = 0; j < base.length; j++) {
                double[] d = base.clone();
                d[j] = base[j] + EPS;
                probe[i] = Tensor.of(d, shape);
                double plus = f.apply(probe).item();
                d[j] = base[j] - EPS;
                probe[i] = Tensor.of(d, shape);
                double minus = f.apply(probe).item();
                grad[j] = (plus - minus) / (2 * EPS);
            }
        }
        return grad;
    }

    /** Checks one op's VJP at the given inputs, through {@code sum(op(inputs) ⊙ u)} for a fixed random u. */
    public static Result checkOp(Op op, Tensor... inputs) {
        double[][] u = new double[1][];
        return check(in -> {
            Tensor y = Ops.apply(op, in);
            if (u[0] == null) {
                Random r = new Random(42);
                u[0] = new double[(int) y.numel()];
                for (int j = 0; j < u[0].length; j++) {
                    u[0][j] = r.nextGaussian();
                }
            }
            return Ops.sum(Ops.mul(y, Tensor.of(u[0], y.shape())));
        }, inputs);
    }

    /** Checks a recorded node's VJP at its captured inputs. */
    public static Result checkNode(Node node) {
        if (node.isLeaf()) {
            return new Result(true, 0, "a leaf has no VJP");
        }
        return checkOp(node.op(), node.inputs().toArray(new Tensor[0]));
    }
}
