package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * Fused scaled dot-product attention: {@code softmax(q kᵀ / √d + mask) v}. The causal mask is −∞
 * above the diagonal; masked weights are exactly 0, so their gradients are 0, never NaN. An optional
 * fourth input, {@code attn_mask}, is added to the scores (broadcast to {@code [..., Tq, Tk]}; −∞
 * hides a key), and takes the scores' gradient.
 */
final class AttentionOp extends Op {
    private final boolean causal;

    AttentionOp(boolean causal) {
        this.causal = causal;
    }

    @Override
    public String name() {
        return "attention";
    }

    @Override
    public String label() {
        return causal ? "attention(causal=True)" : "attention";
    }

    @Override
    public String rule() {
        return "dV = Pᵀ·G, dP = G·Vᵀ, dS = P ⊙ (dP − rowsum(dP ⊙ P)), dQ = dS·K/√d, dK = dSᵀ·Q/√d";
    }

    /**
     * Output row i depends on the value rows its query sees (column by column), and, when it sees
     * two keys or more, on query row i and those key rows (with one key the weight is the constant
     * 1). The causal mask hides keys after i.
     */
    @Override
    public Pattern dependencies(int input, int[][] s) {
        int r = s[0].length;
        int batch = Dependencies.numel(Arrays.copyOf(s[0], r - 2));
        int tq = s[0][r - 2];
        int d = s[0][r - 1];
        int tk = s[1][r - 2];
        int dv = s[2][r - 1];
        int[] scores = Arrays.copyOf(s[0], r);
        scores[r - 1] = tk;
        int[] maskAt = input == 3 ? Dependencies.walk(scores, Dependencies.broadcastStrides(s[3], scores), 0) : null;
        Pattern.Builder b = new Pattern.Builder(batch * tq * dv, Dependencies.numel(s[input]));
        for (int bi = 0; bi < batch; bi++) {
            for (int i = 0; i < tq; i++) {
                int visible = causal ? Math.min(i + 1, tk) : tk;
                for (int c = 0; c < dv; c++) {
                    if (input == 2) {
                        for (int j = 0; j < visible; j++) {
                            b.add((bi * tk + j) * dv + c);
                        }
                    } else if (input == 3) {
                        for (int j = 0; visible >= 2 && j < visible; j++) {
                            b.add(maskAt[(bi * tq + i) * tk + j]);
                        }
                    } else if (visible >= 2) {
                        int rows = input == 0 ? 1 : visible;
                        int first = input == 0 ? bi * tq + i : bi * tk;
                        for (int e = 0; e < rows * d; e++) {
                            b.add(first * d + e);
                        }
                    }
                    b.endRow();
                }
            }
        }
        return b.build();
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        // P is saved; dV = Pᵀ·G needs nothing more; dQ = dS·K, dK = dSᵀ·Q, and dS needs V.
        boolean mask = needsGrad.length > 3;
        boolean qk = needsGrad[0] || needsGrad[1] || (mask && needsGrad[3]);
        return new VjpReads(mask ? new boolean[] {needsGrad[1], needsGrad[0], qk, true} : new boolean[] {needsGrad[1], needsGrad[0], qk},
                false);
    }

    /**
     * Per batch element: q·kᵀ 2·tq·tk·d, the scale, mask and softmax 5·tq·tk, and the product with v
     * 2·tq·tk·dv (q {@code [..., tq, d]}, k {@code [..., tk, d]}, v {@code [..., tk, dv]}).
     */
    @Override
    public long flops(int[][] inputs, int[] output) {
        int[] q = inputs[0];
        int r = q.length;
        long tq = q[r - 2];
        long tk = inputs[1][r - 2];
        long d = q[r - 1];
        long dv = inputs[2][r - 1];
        long batch = Shapes.numel(java.util.Arrays.copyOf(q, r - 2));
        return batch * tq * tk * (2 * d + 5 + 2 * dv);
    }

    @Override
    public int[] outputShape(int[][] s, DType[] dtypes) {
        if (s.length != 3 && s.length != 4) {
            throw new GradscopeException("attention: takes q, k, v and an optional attn_mask, not " + s.length + " tensors");
        }
        Checks.floats("attention", dtypes, 0, 1, 2);
        for (int i = 0; i < 3; i++) {
            Checks.minRank("attention", s[i], 2, new String[] {"q", "k", "v"}[i]);
        }
        int r = s[0].length;
        if (s[1].length != r || s[2].length != r
                || !Arrays.equals(Arrays.copyOf(s[0], r - 2), Arrays.copyOf(s[1], r - 2))
                || !Arrays.equals(Arrays.copyOf(s[0], r - 2), Arrays.copyOf(s[2], r - 2))) {
            throw new GradscopeException("attention: q, k and v need the same leading dimensions: q " + Shapes.str(s[0])
                    + ", k " + Shapes.str(s[1]) + ", v " + Shapes.str(s[2]));
        }
        if (s[0][r - 1] != s[1][r - 1]) {
            throw new GradscopeException("attention: q and k need the same last dimension: q " + Shapes.str(s[0]) + ", k "
                    + Shapes.str(s[1]));
        }
        if (s[1][r - 2] != s[2][r - 2]) {
            throw new GradscopeException("attention: k and v need the same number of keys: k " + Shapes.str(s[1]) + ", v "
                    + Shapes.str(s[2]));
        }
        if (s.length == 4) {
            Checks.floats("attention", dtypes, 3);
            int[] scores = s[0].clone();
            scores[r - 1] = s[1][r - 2];
            if (!Shapes.broadcastsTo(s[3], scores)) {
                throw new GradscopeException("attention: attn_mask of shape " + Shapes.str(s[3]) + " does not broadcast to the scores "
                        + Shapes.str(scores));
            }
        }
        int[] out = s[0].clone();
        out[r - 1] = s[2][r - 1];
        return out;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor q = in[0];
        Tensor k = in[1];
        Tensor v = in[2];
        int r = q.rank();
        double scale = 1.0 / Math.sqrt(q.shape()[r - 1]);
        Tensor s = Unrecorded.mulScalar(MatMulOp.batched(q, k.viewTranspose(r - 2, r - 1)), scale);
        if (causal) {
            s = Unrecorded.binary(BinaryKind.ADD, s, mask(q, k));
        }
        if (in.length == 4) {
            s = Unrecorded.binary(BinaryKind.ADD, s, in[3]);
        }
        // The fused row kernel (max-subtracted exp, divided by the row's sum): exp(s − logsumexp(s))
        // would carry logsumexp's rounding into every weight, which large scores make visible in float32.
        Tensor p = Tensor.empty(s.dtype(), s.device(), s.shape()); // the kernels write every row, as for SoftmaxOp
        s.backend().softmaxLastAxis(s, p, false);
        ctx.save(p);
        return MatMulOp.batched(p, v);
    }

    /** −∞ above the diagonal, 0 elsewhere: [Tq, Tk]. */
    private static Tensor mask(Tensor q, Tensor k) {
        int tq = q.shape()[q.rank() - 2];
        int tk = k.shape()[k.rank() - 2];
        double[] mask = new double[tq * tk];
        for (int i = 0; i < tq; i++) {
            for (int j = i + 1; j < tk; j++) {
                mask[i * tk + j] = Double.NEGATIVE_INFINITY;
            }
        }
        return Tensor.fromDoubles(q.dtype(), q.device(), mask, tq, tk);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor q = ctx.input(0);
        Tensor k = ctx.input(1);
        Tensor v = ctx.input(2);
        Tensor p = ctx.saved(0);
        int[] last = {g.rank() - 1};
        double scale = 1.0 / Math.sqrt(q.shape()[q.rank() - 1]);
        if (Ops.differentiating()) {
            // Recording a graph of the gradient: the attention weights from q and k in differentiable ops
            // (the saved ones are constants).
            Tensor s = Ops.mul(Ops.matmul(q, Ops.transpose(k)), scale);
            s = causal ? Ops.add(s, mask(q, k)) : s;
            p = Ops.softmax(ctx.inputCount() == 4 ? Ops.add(s, ctx.input(3)) : s, -1);
        }
        Tensor dv = ctx.needsGrad(2) ? Ops.matmul(Ops.transpose(p), g) : null;
        Tensor dq = null;
        Tensor dk = null;
        boolean maskGrad = ctx.inputCount() == 4 && ctx.needsGrad(3);
        Tensor dmask = null;
        if (ctx.needsGrad(0) || ctx.needsGrad(1) || maskGrad) {
            Tensor dp = Ops.matmul(g, Ops.transpose(v));
            Tensor ds;
            if (Ops.differentiating()) {
                ds = Ops.mul(Ops.mul(p, Ops.sub(dp, Ops.sum(Ops.mul(dp, p), last, true))), scale);
            } else {
                // The softmax VJP's fused row kernel: P ⊙ (dP − ⟨dP, P⟩) per row, its sum kept in the kernel.
                Tensor dsRaw = Tensor.empty(p.dtype(), p.device(), p.shape());
                p.backend().softmaxBackwardLastAxis(p.contiguous(), dp.contiguous(), dsRaw, false);
                ds = Ops.mul(dsRaw, scale);
            }
            dq = ctx.needsGrad(0) ? Ops.matmul(ds, k) : null;
            dk = ctx.needsGrad(1) ? Ops.matmul(Ops.transpose(ds), q) : null;
            // the mask is added to the scores after the scale: its gradient is dS without it
            dmask = maskGrad ? Ops.sumTo(Ops.mul(ds, 1 / scale), ctx.input(3)) : null;
        }
        return ctx.inputCount() == 4 ? new Tensor[] {dq, dk, dv, dmask} : new Tensor[] {dq, dk, dv};
    }

    @Override
    public String jvpRule() {
        return "Ṡ = (Q̇Kᵀ + QK̇ᵀ)/√d, Ṗ = P ⊙ (Ṡ − ⟨P, Ṡ⟩), Ẏ = ṖV + PV̇";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor q = ctx.input(0);
        Tensor k = ctx.input(1);
        Tensor p = ctx.saved(0);
        double scale = 1.0 / Math.sqrt(q.shape()[q.rank() - 1]);
        int[] last = {p.rank() - 1};
        Tensor ds = Ops.mul(Ops.add(Ops.matmul(t[0], Ops.transpose(k)), Ops.matmul(q, Ops.transpose(t[1]))), scale);
        if (t.length == 4 && t[3] != null) {
            ds = Ops.add(ds, t[3]);
        }
        // masked positions have P = 0, so their (finite) scores' tangents drop out.
        Tensor dp = Ops.mul(p, Ops.sub(ds, Ops.sum(Ops.mul(p, ds), last, true)));
        return Ops.add(Ops.matmul(dp, ctx.input(2)), Ops.matmul(p, t[2]));
    }
}
