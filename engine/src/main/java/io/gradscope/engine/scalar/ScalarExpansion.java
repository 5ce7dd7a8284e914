package io.gradscope.engine.scalar;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * A small tensor op written out as its scalar graph: every input element a {@link Value}, every
 * output element a {@code Value} built from them, so the tensor VJP can be seen as the sum over
 * scalar paths (matmul's dA[i][k] = Σⱼ G[i][j]·B[k][j] is the sum of the paths through each
 * product). Supports the elementwise arithmetic and functions of the Value engine, matmul, and
 * sum and mean over all elements.
 *
 * <pre>{@code
 * ScalarExpansion e = ScalarExpansion.of(op, a, b);
 * Value loss = e.dot(upstream);   // Σ out ⊙ u
 * loss.backward();
 * e.inputs().get(0).get(3).grad();   // ∂/∂a element 3
 * }</pre>
 */
public record ScalarExpansion(List<List<Value>> inputs, List<Value> outputs, int[] outputShape) {
    /** The most scalars an expansion makes. */
    public static final int LIMIT = 2000;

    /** Expands {@code op} applied to {@code in} (row-major elements). */
    public static ScalarExpansion of(Op op, Tensor... in) {
        long total = 0;
        for (Tensor t : in) {
            total += t.numel();
        }
        if (total > LIMIT) {
            throw new GradscopeException(op.name() + ": too large to expand into scalars (" + total + " input elements; at most "
                    + LIMIT + ")");
        }
        List<List<Value>> vs = new ArrayList<>();
        for (int i = 0; i < in.length; i++) {
            double[] d = in[i].toDoubleArray();
            List<Value> l = new ArrayList<>(d.length);
            for (int j = 0; j < d.length; j++) {
                l.add(new Value(d[j], "x" + i + "[" + j + "]"));
            }
            vs.add(l);
        }
        String name = op.name();
        if (!op.label().equals(name)) {
            throw unsupported(op);
        }
        return switch (name) {
            case "add", "sub", "mul", "div" -> binary(name, vs, in);
            case "matmul" -> matmul(vs, in);
            case "sum", "mean" -> {
                Value s = vs.get(0).stream().reduce(Value::add).orElse(new Value(0, ""));
                yield new ScalarExpansion(vs, List.of(name.equals("sum") ? s : s.mul(1.0 / Math.max(1, vs.get(0).size()))),
                        new int[0]);
            }
            default -> new ScalarExpansion(vs, vs.get(0).stream().map(x -> unary(op, x)).toList(), in[0].shape());
        };
    }

    private static GradscopeException unsupported(Op op) {
        return new GradscopeException(op.label() + ": expanding into scalars covers + − × ÷, exp, log, tanh, relu, sigmoid, "
                + "neg, sqrt, matmul, and sum and mean over all elements");
    }

    private static Value unary(Op op, Value x) {
        return switch (op.name()) {
            case "neg" -> x.neg();
            case "exp" -> x.exp();
            case "log" -> x.log();
            case "tanh" -> x.tanh();
            case "relu" -> x.relu();
            case "sqrt" -> x.pow(0.5);
            case "sigmoid" -> x.neg().exp().add(1).pow(-1);
            default -> throw unsupported(op);
        };
    }

    /** Elementwise with NumPy broadcasting. */
    private static ScalarExpansion binary(String name, List<List<Value>> vs, Tensor[] in) {
        int[] shape = Shapes.broadcast(name, in[0].shape(), in[1].shape());
        int n = (int) Shapes.numel(shape);
        List<Value> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            int[] idx = unravel(k, shape);
            Value a = vs.get(0).get(broadcastIndex(idx, in[0].shape()));
            Value b = vs.get(1).get(broadcastIndex(idx, in[1].shape()));
            out.add(switch (name) {
                case "add" -> a.add(b);
                case "sub" -> a.sub(b);
                case "mul" -> a.mul(b);
                default -> a.div(b);
            });
        }
        return new ScalarExpansion(vs, out, shape);
    }

    private static int[] unravel(int k, int[] shape) {
        int[] idx = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = k % shape[d];
            k /= shape[d];
        }
        return idx;
    }

    /** The row-major index in {@code shape} of the broadcast position {@code idx}. */
    private static int broadcastIndex(int[] idx, int[] shape) {
        int lead = idx.length - shape.length;
        int at = 0;
        for (int d = 0; d < shape.length; d++) {
            at = at * shape[d] + (shape[d] == 1 ? 0 : idx[lead + d]);
        }
        return at;
    }

    /** 2-D by 2-D (and vectors, as matmul treats them): out[i][j] = Σₖ a[i][k]·b[k][j]. */
    private static ScalarExpansion matmul(List<List<Value>> vs, Tensor[] in) {
        int[] as = in[0].shape();
        int[] bs = in[1].shape();
        if (as.length > 2 || bs.length > 2) {
            throw new GradscopeException("matmul: expanding into scalars covers vectors and matrices, not batches");
        }
        int m = as.length == 2 ? as[0] : 1;
        int k = as[as.length - 1];
        int n = bs.length == 2 ? bs[1] : 1;
        List<Value> out = new ArrayList<>(m * n);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                Value s = null;
                for (int p = 0; p < k; p++) {
                    Value term = vs.get(0).get(i * k + p).mul(vs.get(1).get(p * n + j));
                    s = s == null ? term : s.add(term);
                }
                out.add(s == null ? new Value(0, "") : s);
            }
        }
        int[] shape = as.length == 2 && bs.length == 2 ? new int[] {m, n} : as.length == 2 ? new int[] {m}
                : bs.length == 2 ? new int[] {n} : new int[0];
        return new ScalarExpansion(vs, out, shape);
    }

    /** Σ out ⊙ u: a scalar to call {@link Value#backward()} on, so input gradients are the VJP for u. */
    public Value dot(double[] u) {
        Value s = new Value(0, "");
        for (int i = 0; i < outputs.size(); i++) {
            s = s.add(outputs.get(i).mul(u[i]));
        }
        return s;
    }
}
