package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.embedding (rows of a weight picked by integer indices) and its VJP, the scatter-add of the
 * gradient's rows into a zero weight. Both are written from existing primitives: one row copy (or
 * add) per index, in index order, so the sums are deterministic; each is linear in its tensor and
 * the other's VJP, so the pair can be differentiated again. No one-hot matmul: the cost is the
 * number of indices, not indices × vocabulary.
 */
final class EmbeddingOps {
    private EmbeddingOps() {
    }

    /** The indices as ints, each checked against the number of rows. */
    static int[] indices(String op, Tensor indices, int rows) {
        double[] v = indices.toDoubleArray();
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            if (v[i] < 0 || v[i] >= rows) {
                throw new GradscopeException(op + ": index " + (long) v[i] + " at position " + i + " is out of range for a weight of "
                        + rows + " rows");
            }
            out[i] = (int) v[i];
        }
        return out;
    }

    /** For each element of a row-major {@code [numel / d, d]}, its column (the last axis). */
    static int[] columns(int numel, int d) {
        int[] col = new int[numel];
        for (int e = 0; e < numel; e++) {
            col[e] = e % d;
        }
        return col;
    }

    static void checkIndices(String op, DType dt) {
        if (dt != DType.INT64) {
            throw new GradscopeException(op + ": the indices must be int64 (labels), not " + dt);
        }
    }

    /** {@code weight[indices]}: {@code [*I] and [V, D] -> [*I, D]}. */
    static final class Embedding extends Op {
        static final Embedding INSTANCE = new Embedding();

        @Override
        public String name() {
            return "embedding";
        }

        @Override
        public String rule() {
            return "dW = scatter-add of g's rows at the indices";
        }

        /**
         * Output element (i, j) on weight[v, j] for every row v (any index may pick it); the
         * indices, int64, take no derivative.
         */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] out = outputShape(shapes, new DType[] {DType.INT64, DType.FLOAT64});
            int[] w = shapes[1];
            if (input == 0) {
                return Dependencies.none(out, shapes[0]);
            }
            return Pattern.sameGroup(columns(Dependencies.numel(out), w[1]), columns(Dependencies.numel(w), w[1]), w[1]);
        }

        /** At these indices, output element (i, j) on weight[indices[i], j] alone. */
        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            if (input == 0) {
                return super.localDependencies(input, ctx);
            }
            int[] w = ctx.input(1).shape();
            int d = w[1];
            int[] rows = indices("embedding", ctx.input(0), w[0]);
            int[] src = new int[Math.multiplyExact(rows.length, d)];
            for (int e = 0; e < src.length; e++) {
                src[e] = rows[e / d] * d + e % d;
            }
            return Pattern.gather(src, Dependencies.numel(w));
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("embedding", shapes, 2);
            checkIndices("embedding", dtypes[0]);
            Checks.floats("embedding", dtypes, 1);
            if (shapes[1].length != 2) {
                throw new GradscopeException("embedding: weight must be [V, D], not shape " + Shapes.str(shapes[1]));
            }
            int[] out = java.util.Arrays.copyOf(shapes[0], shapes[0].length + 1);
            out[out.length - 1] = shapes[1][1];
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor w = in[1];
            int[] rows = indices("embedding", in[0], w.shape()[0]);
            int d = w.shape()[1];
            Tensor out = Tensor.zeros(w.dtype(), w.device(), rows.length, d);
            if (d > 0) {
                for (int i = 0; i < rows.length; i++) {
                    w.backend().copy(w.viewNarrow(0, rows[i], 1), out.viewNarrow(0, i, 1));
                }
            }
            return out.viewReshape(outputShape(new int[][] {in[0].shape(), w.shape()}, new DType[] {in[0].dtype(), w.dtype()}));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int v = ctx.input(1).shape()[0];
            return new Tensor[] {null, Ops.apply(new DenseBackward(v), g, ctx.input(0))};
        }

        @Override
        public String jvpRule() {
            return "ẏ = ẇ[indices] (linear in the weight)";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            return Ops.apply(this, ctx.input(0), t[1]);
        }
    }

    /** The VJP of embedding: {@code [*I, D] and [*I] -> [V, D]}, the rows of g added at their indices. */
    static final class DenseBackward extends Op {
        private final int rows;

        DenseBackward(int rows) {
            this.rows = rows;
        }

        @Override
        public String name() {
            return "embedding_dense_backward";
        }

        @Override
        public String label() {
            return "embedding_dense_backward(num_weights=" + rows + ")";
        }

        @Override
        public String rule() {
            return "dg = embedding(indices, g)";
        }

        /**
         * Output element (v, j) on g[i, j] for every index position i (any may hold v); the indices,
         * int64, take no derivative.
         */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] out = outputShape(shapes, new DType[] {DType.FLOAT64, DType.INT64});
            int d = out[1];
            if (input == 1) {
                return Dependencies.none(out, shapes[1]);
            }
            return Pattern.sameGroup(columns(Dependencies.numel(out), d), columns(Dependencies.numel(shapes[0]), d), d);
        }

        /** At these indices, output element (v, j) on g[i, j] where indices[i] = v. */
        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            if (input == 1) {
                return super.localDependencies(input, ctx);
            }
            int[] g = ctx.input(0).shape();
            int d = g[g.length - 1];
            int[] at = indices("embedding_dense_backward", ctx.input(1), rows);
            int[] target = new int[Math.multiplyExact(at.length, d)];
            for (int e = 0; e < target.length; e++) {
                target[e] = at[e / d] * d + e % d;
            }
            return Pattern.scatter(target, rows * d);
        }

        /** One add per element of g: its rows are added into the weight's. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            return Shapes.numel(inputs[0]);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("embedding_dense_backward", shapes, 2);
            Checks.floats("embedding_dense_backward", dtypes, 0);
            checkIndices("embedding_dense_backward", dtypes[1]);
            int[] g = shapes[0];
            int[] i = shapes[1];
            if (g.length != i.length + 1 || !java.util.Arrays.equals(java.util.Arrays.copyOf(g, i.length), i)) {
                throw new GradscopeException("embedding_dense_backward: g " + Shapes.str(g) + " must be the indices' shape "
                        + Shapes.str(i) + " plus one axis");
            }
            if (rows < 0) {
                throw new GradscopeException("embedding_dense_backward: num_weights must be non-negative, not " + rows);
            }
            return new int[] {rows, g[g.length - 1]};
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor g = in[0];
            int[] at = indices("embedding_dense_backward", in[1], rows);
            int d = g.shape()[g.rank() - 1];
            Tensor out = Tensor.zeros(g.dtype(), g.device(), rows, d);
            Tensor g2 = g.reshapeOrCopy(new int[] {at.length, d});
            if (d > 0) {
                for (int i = 0; i < at.length; i++) {
                    Tensor row = out.viewNarrow(0, at[i], 1);
                    g.backend().binary(BinaryKind.ADD, row, g2.viewNarrow(0, i, 1), row);
                }
            }
            return out;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.apply(Embedding.INSTANCE, ctx.input(1), g), null};
        }

        @Override
        public String jvpRule() {
            return "ẏ = rows of ġ added at their indices (linear in g)";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            return Ops.apply(this, t[0], ctx.input(1));
        }
    }
}
