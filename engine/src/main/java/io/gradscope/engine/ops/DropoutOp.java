package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.SplittableRandom;

/**
 * F.dropout(x, p) in training mode with a seed: each element kept with probability 1 − p and scaled
 * by 1/(1 − p), zeroed otherwise. The mask comes from the seed alone (a SplittableRandom on the host,
 * one draw per element in C order), so a run repeats exactly and the mask is saved with the op for
 * the inspector. Not PyTorch's random stream: only p = 0 and p = 1 match PyTorch value for value.
 */
final class DropoutOp extends Op {
    private final double p;
    private final long seed;
    private final String label;

    DropoutOp(double p, long seed, String label) {
        if (!(p >= 0 && p <= 1)) {
            throw new GradscopeException("dropout: p must lie in [0, 1], not " + p);
        }
        this.p = p;
        this.seed = seed;
        this.label = label;
    }

    @Override
    public String name() {
        return "dropout";
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String rule() {
        return "dx = g ⊙ mask / (1 − p)";
    }

    /** The mask scaled: 1/(1 − p) where kept, 0 where dropped. */
    double[] scaledMask(int n) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] m = new double[n];
        double keep = p >= 1 ? 0 : 1 / (1 - p);
        for (int i = 0; i < n; i++) {
            m[i] = r.nextDouble() >= p ? keep : 0;
        }
        return m;
    }

    /** Each element on itself, unless p = 1 (nothing is kept). */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int n = Dependencies.numel(shapes[0]);
        return p >= 1 ? Pattern.empty(n, n) : Pattern.identity(n);
    }

    /** The elements this seed keeps. */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        return Dependencies.diagonalWhere(ctx.saved(0).toDoubleArray());
    }

    /** The saved mask as scaled (what the value is multiplied by), its heading saying so: "Mask (kept ×2, dropped 0)". */
    @Override
    public java.util.Map<String, Tensor> shown(OpContext ctx) {
        return java.util.Map.of(maskHeading(), ctx.saved(0));
    }

    /** "Mask (kept ×1/(1−p) = ×2, dropped 0)" for p = 0.5. */
    String maskHeading() {
        return "Mask (kept ×1/(1−p)" + (p >= 1 ? "" : " = ×" + shortNumber(1 / (1 - p))) + ", dropped 0)";
    }

    /** 2, 1.111, 1.25: at most four significant digits, no trailing zeros. */
    private static String shortNumber(double x) {
        return new java.math.BigDecimal(x).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.none(1);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("dropout", shapes, 1);
        Checks.floats("dropout", dtypes, 0);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        Tensor mask = Tensor.fromDoubles(x.dtype(), x.device(), scaledMask((int) x.numel()), x.shape());
        ctx.save(mask);
        // multiplied by the mask, as PyTorch's dropout: a NaN or ∞ that is dropped still gives NaN (∞ · 0).
        return Unrecorded.binary(BinaryKind.MUL, x, mask);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        return new Tensor[] {Ops.mul(g, ctx.saved(0))};
    }

    @Override
    public String jvpRule() {
        return "ẏ = ẋ ⊙ mask / (1 − p)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        return Ops.mul(t[0], ctx.saved(0));
    }
}
