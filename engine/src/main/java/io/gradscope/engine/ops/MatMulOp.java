package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * {@code a @ b} as torch.matmul: 1-D operands are treated as a row (left) or a column (right) and
 * that axis is dropped from the result; batch axes broadcast.
 */
public final class MatMulOp extends Op {
    public static final MatMulOp INSTANCE = new MatMulOp();

    private MatMulOp() {
    }

    @Override
    public String name() {
        return "matmul";
    }

    @Override
    public String rule() {
        return "dX = G·Wᵀ, dW = Xᵀ·G";
    }

    /** Output (b, i, j) depends on row i of A and column j of B, in the batch broadcast onto b. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] a = as2d(shapes[0], true);
        int[] b = as2d(shapes[1], false);
        int[] batch = Shapes.broadcast("'@' batch dimensions of", batchOf(a), batchOf(b));
        int m = a[a.length - 2];
        int k = a[a.length - 1];
        int n = b[b.length - 1];
        int[] operand = input == 0 ? a : b;
        int[] at = Dependencies.walk(batch, Dependencies.broadcastStrides(batchOf(operand), batch), 0);
        int per = input == 0 ? m * k : k * n;
        Pattern.Builder pb = new Pattern.Builder(at.length * m * n, Dependencies.numel(shapes[input]));
        for (int bi = 0; bi < at.length; bi++) {
            int base = at[bi] * per;
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    for (int kk = 0; kk < k; kk++) {
                        pb.add(input == 0 ? base + i * k + kk : base + kk * n + j);
                    }
                    pb.endRow();
                }
            }
        }
        return pb.build();
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // dA = G·Bᵀ reads B; dB = Aᵀ·G reads A.
        return new VjpReads(new boolean[] {needsGrad[1], needsGrad[0]}, false);
    }

    /** A multiply and an add per term: 2·k per output element, k the contracted length. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        int[] a = inputs[0];
        return 2L * Shapes.numel(output) * a[a.length - 1];
    }

    /** Vectors and matrices (not batches): each output element the sum of its products. */
    @Override
    public ScalarForm scalarForm() {
        return new ScalarForm.MatrixProduct();
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("matmul", shapes, 2);
        Checks.floats("'@'", dtypes, 0, 1);
        int[] a = shapes[0];
        int[] b = shapes[1];
        if (a.length == 0 || b.length == 0) {
            throw new GradscopeException("'@' needs tensors of rank 1 or more: " + Shapes.str(a) + " @ " + Shapes.str(b));
        }
        int ka = a[a.length - 1];
        int kb = b.length == 1 ? b[0] : b[b.length - 2];
        if (ka != kb) {
            throw new GradscopeException("'@' needs matching inner dimensions: " + Shapes.str(a) + " @ " + Shapes.str(b)
                    + " (" + ka + " != " + kb + ")");
        }
        int[] a2 = as2d(a, true);
        int[] b2 = as2d(b, false);
        int[] batch = Shapes.broadcast("'@' batch dimensions of", batchOf(a2), batchOf(b2));
        int m = a2[a2.length - 2];
        int n = b2[b2.length - 1];
        int[] out = new int[batch.length + (a.length > 1 ? 1 : 0) + (b.length > 1 ? 1 : 0)];
        System.arraycopy(batch, 0, out, 0, batch.length);
        int i = batch.length;
        if (a.length > 1) {
            out[i++] = m;
        }
        if (b.length > 1) {
            out[i] = n;
        }
        return out;
    }

    /** The operand as at least 2-D: a 1-D left operand is a row, a 1-D right operand a column. */
    static int[] as2d(int[] s, boolean left) {
        if (s.length >= 2) {
            return s;
        }
        return left ? new int[] {1, s[0]} : new int[] {s[0], 1};
    }

    private static int[] batchOf(int[] s) {
        return java.util.Arrays.copyOf(s, s.length - 2);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor a = in[0];
        Tensor b = in[1];
        int[] outShape = outputShape(new int[][] {a.shape(), b.shape()}, new DType[] {a.dtype(), b.dtype()});
        Tensor a2 = a.viewReshape(as2d(a.shape(), true));
        Tensor b2 = b.viewReshape(as2d(b.shape(), false));
        Tensor c = batched(a2, b2);
        return c.viewReshape(outShape);
    }

    /** {@code [..., M, K] @ [..., K, N]} with batch broadcasting, both at least 2-D; no gradient. */
    static Tensor batched(Tensor a, Tensor b) {
        int[] as = a.shape();
        int[] bs = b.shape();
        int[] batch = Shapes.broadcast("'@' batch dimensions of", batchOf(as), batchOf(bs));
        int m = as[as.length - 2];
        int k = as[as.length - 1];
        int n = bs[bs.length - 1];
        int[] ae = concat(batch, m, k);
        int[] be = concat(batch, k, n);
        // Every backend writes each element of out (Backend.matmul): no zeroing pass first.
        Tensor out = Tensor.empty(a.dtype(), a.device(), concat(batch, m, n));
        a.backend().matmul(a.viewExpand(ae), b.viewExpand(be), out);
        return out;
    }

    private static int[] concat(int[] batch, int x, int y) {
        int[] s = java.util.Arrays.copyOf(batch, batch.length + 2);
        s[batch.length] = x;
        s[batch.length + 1] = y;
        return s;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        int[] a2s = as2d(a.shape(), true);
        int[] b2s = as2d(b.shape(), false);
        Tensor a2 = a.rank() >= 2 ? a : Ops.reshape(a, a2s);
        Tensor b2 = b.rank() >= 2 ? b : Ops.reshape(b, b2s);
        // g in the 2-D form: put back the axes that 1-D operands dropped.
        int[] gs = g.shape();
        int[] g2s = java.util.Arrays.copyOf(gs, gs.length + (a.rank() == 1 ? 1 : 0) + (b.rank() == 1 ? 1 : 0));
        if (a.rank() == 1 && b.rank() == 1) {
            g2s = new int[] {1, 1};
        } else if (a.rank() == 1) {
            System.arraycopy(gs, 0, g2s, 0, gs.length - 1);
            g2s[gs.length - 1] = 1;
            g2s[gs.length] = gs[gs.length - 1];
        } else if (b.rank() == 1) {
            g2s[gs.length] = 1;
        }
        Tensor g2 = java.util.Arrays.equals(gs, g2s) ? g : Ops.reshape(g, g2s);
        Tensor da = null;
        Tensor db = null;
        if (ctx.needsGrad(0)) {
            da = Ops.sumTo(Ops.matmul(g2, Ops.transpose(b2)), a2s);
            da = a.rank() >= 2 ? da : Ops.reshape(da, a.shape());
        }
        if (ctx.needsGrad(1)) {
            if (a2.rank() > 2 && Shapes.numel(batchOf(b2s)) == 1) {
                // Note [Batch folded into rows]: B is one matrix for the whole batch, so dB = Aᵀ·G with A's
                // batch folded into its rows ([prod(batch)·M, K]ᵀ · [prod(batch)·M, N]): one product, where the
                // batched product and its sum held a temporary of prod(batch) times B's size (ViT-B/16's input
                // projection at 224x224: 1.3 GiB). The memory planner's meta run takes this same path.
                int k = a2s[a2s.length - 1];
                int rows = Math.toIntExact(Shapes.numel(batchOf(a2s)) * a2s[a2s.length - 2]);
                int n = g2.shape()[g2.rank() - 1];
                Tensor product = Ops.matmul(Ops.transpose(Ops.reshape(a2, rows, k)), Ops.reshape(g2, rows, n));
                db = Ops.reshape(product, b2s);
            } else {
                db = Ops.sumTo(Ops.matmul(Ops.transpose(a2), g2), b2s);
            }
            db = b.rank() >= 2 ? db : Ops.reshape(db, b.shape());
        }
        return new Tensor[] {da, db};
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor r = null;
        if (t[0] != null) {
            r = Ops.matmul(t[0], ctx.input(1));
        }
        if (t[1] != null) {
            Tensor s = Ops.matmul(ctx.input(0), t[1]);
            r = r == null ? s : Ops.add(r, s);
        }
        return r;
    }

    @Override
    public String jvpRule() {
        return "Ẏ = Ȧ·B + A·Ḃ";
    }
}
