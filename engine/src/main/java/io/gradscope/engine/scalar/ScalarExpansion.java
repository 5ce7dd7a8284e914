package io.gradscope.engine.scalar;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.ScalarForm;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * A small tensor op written out as its scalar graph: every input element a {@link Value}, every
 * output element a {@code Value} built from them, so the tensor VJP can be seen as the sum over
 * scalar paths (matmul's dA[i][k] = Σⱼ G[i][j]·B[k][j] is the sum of the paths through each
 * product). Each op says how it writes out ({@link Op#scalarForm()}): elementwise functions and
 * arithmetic, matmul of vectors and matrices, sum and mean over all elements.
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
        ScalarForm form = op.scalarForm();
        if (form instanceof ScalarForm.Elementwise e) {
            return new ScalarExpansion(vs, vs.get(0).stream().map(x -> value(e.f().apply(new Term(x)))).toList(), in[0].shape());
        }
        if (form instanceof ScalarForm.Broadcast b) {
            return broadcast(op.name(), b, vs, in);
        }
        if (form instanceof ScalarForm.MatrixProduct) {
            return matmul(vs, in);
        }
        if (form instanceof ScalarForm.Total t) {
            Value s = vs.get(0).stream().reduce(Value::add).orElse(new Value(0, ""));
            return new ScalarExpansion(vs, List.of(t.mean() ? s.mul(1.0 / Math.max(1, vs.get(0).size())) : s), new int[0]);
        }
        throw new GradscopeException(op.label() + ": expanding into scalars covers elementwise functions, + − × ÷, matmul of "
                + "vectors and matrices, and sum and mean over all elements");
    }

    /** A Value as the op's scalar form sees it. */
    private record Term(Value v) implements ScalarForm.Term {
        private static Value of(ScalarForm.Term t) {
            return ((Term) t).v;
        }

        @Override
        public double value() {
            return v.data();
        }

        @Override
        public ScalarForm.Term add(ScalarForm.Term o) {
            return new Term(v.add(of(o)));
        }

        @Override
        public ScalarForm.Term sub(ScalarForm.Term o) {
            return new Term(v.sub(of(o)));
        }

        @Override
        public ScalarForm.Term mul(ScalarForm.Term o) {
            return new Term(v.mul(of(o)));
        }

        @Override
        public ScalarForm.Term div(ScalarForm.Term o) {
            return new Term(v.div(of(o)));
        }

        @Override
        public ScalarForm.Term add(double c) {
            return new Term(v.add(c));
        }

        @Override
        public ScalarForm.Term mul(double c) {
            return new Term(v.mul(c));
        }

        @Override
        public ScalarForm.Term neg() {
            return new Term(v.neg());
        }

        @Override
        public ScalarForm.Term pow(double c) {
            return new Term(v.pow(c));
        }

        @Override
        public ScalarForm.Term exp() {
            return new Term(v.exp());
        }

        @Override
        public ScalarForm.Term log() {
            return new Term(v.log());
        }

        @Override
        public ScalarForm.Term tanh() {
            return new Term(v.tanh());
        }

        @Override
        public ScalarForm.Term relu() {
            return new Term(v.relu());
        }

        @Override
        public ScalarForm.Term apply(String name, double value, double derivative) {
            return new Term(v.apply(name, value, derivative));
        }

        @Override
        public ScalarForm.Term apply(String name, double value, double dThis, ScalarForm.Term other, double dOther) {
            return new Term(v.apply(name, value, dThis, of(other), dOther));
        }
    }

    private static Value value(ScalarForm.Term t) {
        return Term.of(t);
    }

    /** Elementwise with NumPy broadcasting. */
    private static ScalarExpansion broadcast(String name, ScalarForm.Broadcast form, List<List<Value>> vs, Tensor[] in) {
        int[] shape = Shapes.broadcast(name, in[0].shape(), in[1].shape());
        int n = (int) Shapes.numel(shape);
        List<Value> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            int[] idx = unravel(k, shape);
            Value a = vs.get(0).get(broadcastIndex(idx, in[0].shape()));
            Value b = vs.get(1).get(broadcastIndex(idx, in[1].shape()));
            out.add(value(form.f().apply(new Term(a), new Term(b))));
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
