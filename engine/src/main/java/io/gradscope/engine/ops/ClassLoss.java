package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.cross_entropy with PyTorch's options (weight, ignore_index, reduction, label_smoothing,
 * probability targets) and F.nll_loss (the same on log-probabilities given). Inputs: scores
 * {@code [N, C]} (or {@code [C]}), targets (int64 {@code [N]}, or probabilities of the scores' shape),
 * and an optional class weight {@code [C]}.
 *
 * <p>Every case is one form: with l = log_softmax(z) (or the log-probabilities themselves) and a
 * matrix Q that holds −weight ⊙ (the smoothed one-hot, or the smoothed probabilities), the loss of
 * row n is {@code L_n = Σ_c l[n,c]·Q[n,c]}, summed, averaged over D (Σ of the picked weights for
 * index targets, N for probabilities) or kept. The VJP and JVP are the row partials
 * {@code ∂L_n/∂z = Q − softmax(z)·ΣQ}, {@code ∂L_n/∂w_c = l·M}, {@code ∂L_n/∂t = −(1−ε)·w ⊙ l}
 * weighted per row (and the mean's D, which depends on the weight).
 */
final class ClassLoss extends Op {
    private final boolean logSoftmax;
    private final int ignoreIndex;
    private final String reduction;
    private final double smoothing;
    private final String label;

    ClassLoss(boolean logSoftmax, int ignoreIndex, String reduction, double smoothing, String label) {
        if (smoothing < 0 || smoothing > 1) {
            throw new GradscopeException("cross_entropy: label_smoothing must lie in [0, 1], not " + smoothing);
        }
        this.logSoftmax = logSoftmax;
        this.ignoreIndex = ignoreIndex;
        this.reduction = reduction;
        this.smoothing = smoothing;
        this.label = label;
    }

    @Override
    public String name() {
        return logSoftmax ? "cross_entropy" : "nll_loss";
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String rule() {
        return "dz = g ⊙ (Q − " + (logSoftmax ? "softmax(z)·ΣQ" : "0") + ") / D, Q = −w ⊙ (smoothed one-hot or probabilities)";
    }

    private static boolean probabilities(DType[] dtypes) {
        return dtypes[1].isFloating();
    }

    /** As cross_entropy: the log-softmax, 5 per score (nll_loss: the weighted pick and sum, 2 per score). */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return (logSoftmax ? 5 : 2) * Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        if (shapes.length != 2 && shapes.length != 3) {
            throw new GradscopeException(name() + ": takes scores, targets and an optional weight, not " + shapes.length + " tensors");
        }
        Checks.floats(name(), dtypes, 0);
        int[] z = shapes[0];
        int[] t = shapes[1];
        if (z.length != 1 && z.length != 2) {
            throw new GradscopeException(name() + ": scores must be [N, C] or [C], not shape " + Shapes.str(z));
        }
        if (probabilities(dtypes)) {
            if (!logSoftmax) {
                throw new GradscopeException("nll_loss: the targets must be int64 class indices (labels), not " + dtypes[1]);
            }
            if (!java.util.Arrays.equals(z, t)) {
                throw new GradscopeException(name() + ": float targets are class probabilities and must have the scores' shape "
                        + Shapes.str(z) + ", not " + Shapes.str(t) + " (class indices are int64 labels)");
            }
        } else {
            boolean ok = (z.length == 2 && t.length == 1 && t[0] == z[0]) || (z.length == 1 && t.length == 0);
            if (!ok) {
                throw new GradscopeException(name() + ": scores " + Shapes.str(z) + " and labels " + Shapes.str(t)
                        + " do not match (expected [N, C] with labels [N], or [C] with a 0-d label)");
            }
        }
        if (shapes.length == 3) {
            Checks.floats(name(), dtypes, 2);
            if (shapes[2].length != 1 || shapes[2][0] != z[z.length - 1]) {
                throw new GradscopeException(name() + ": weight must be [C] = " + Shapes.str(new int[] {z[z.length - 1]}) + ", not "
                        + Shapes.str(shapes[2]));
            }
        }
        return reduction.equals("none") && z.length == 2 ? new int[] {z[0]} : new int[0];
    }

    /** The constants of one call: scores as rows, the keep mask, the one-hot (index targets), M for index targets. */
    private record Parts(Tensor rows, Tensor hot, Tensor m, Tensor count, boolean probs, int n, int c) {
    }

    private Parts parts(Tensor z, Tensor t) {
        int c = z.shape()[z.rank() - 1];
        int n = z.rank() == 2 ? z.shape()[0] : 1;
        Tensor rows = z.rank() == 2 ? z : z.viewReshape(new int[] {1, c});
        if (t.dtype().isFloating()) {
            return new Parts(rows, null, null, null, true, n, c);
        }
        double[] labels = t.toDoubleArray();
        double[] keep = new double[n];
        for (int i = 0; i < labels.length; i++) {
            boolean ignored = labels[i] == ignoreIndex;
            if (!ignored && (labels[i] < 0 || labels[i] >= c)) {
                throw new GradscopeException(name() + ": label " + (long) labels[i] + " at index " + i + " is out of range for " + c
                        + " classes");
            }
            keep[i] = ignored ? 0 : 1;
        }
        Tensor keepCol = Tensor.fromDoubles(z.dtype(), z.device(), keep, n, 1);
        Tensor hot = Tensor.zeros(z.dtype(), z.device(), n, c);
        z.backend().oneHot(t.rank() == 1 ? t : t.viewReshape(new int[] {1}), hot);
        hot = Unrecorded.binary(BinaryKind.MUL, hot, keepCol);
        // M = −keep ⊙ ((1 − ε)·onehot + ε/C)
        Tensor smooth = Unrecorded.binary(BinaryKind.ADD, Unrecorded.mulScalar(hot, 1 - smoothing), Unrecorded.mulScalar(keepCol, smoothing / c));
        Tensor count = Unrecorded.reduce(ReduceKind.SUM, hot, new int[] {0}, false);
        return new Parts(rows, hot, Unrecorded.mulScalar(smooth, -1), count, false, n, c);
    }

    // ---- forward, in primitives -------------------------------------------------------------

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor z = in[0];
        Tensor w = in.length == 3 ? in[2] : null;
        int[] out = outputShape(Dependencies.shapes(new OpContext(in)), new DType[] {z.dtype(), in[1].dtype(),
            w == null ? z.dtype() : w.dtype()});
        for (Tensor x : in) {
            ctx.save(x); // the VJP reads the inputs from here (also when CrossEntropyOp hands a call over)
        }
        Parts p = parts(z, in[1]);
        Tensor logp = p.rows();
        if (logSoftmax) {
            logp = Tensor.empty(z.dtype(), z.device(), p.n(), p.c());
            z.backend().softmaxLastAxis(Unrecorded.copy(p.rows()), logp, true);
        }
        Tensor m = p.probs() ? Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.ADD, Unrecorded.mulScalar(p.rows() == z ? in[1] : in[1].viewReshape(
                new int[] {1, p.c()}), 1 - smoothing), Unrecorded.scalarLike(z, smoothing / p.c())), -1) : p.m();
        Tensor q = w == null ? m : Unrecorded.binary(BinaryKind.MUL, m, w);
        Tensor rowLoss = Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, logp, q), new int[] {1}, false);
        if (reduction.equals("none")) {
            return rowLoss.viewReshape(out);
        }
        Tensor total = Unrecorded.reduce(ReduceKind.SUM, rowLoss, new int[] {0}, false);
        if (reduction.equals("sum")) {
            return total;
        }
        return Unrecorded.binary(BinaryKind.DIV, total, rawDivisor(p, w));
    }

    private Tensor rawDivisor(Parts p, Tensor w) {
        if (p.probs()) {
            return Unrecorded.scalarLike(p.rows(), p.n());
        }
        Tensor picked = w == null ? p.count() : Unrecorded.binary(BinaryKind.MUL, p.count(), w);
        return Unrecorded.reduce(ReduceKind.SUM, picked, new int[] {0}, false);
    }

    // ---- derivatives, in differentiable ops -------------------------------------------------

    /** ∂L_n/∂z, ∂L_n/∂w, ∂L_n/∂t as [N, C] (null where that input is absent or constant), and D. */
    private record Partials(Tensor dz, Tensor dw, Tensor dt, Tensor divisor, Parts parts) {
    }

    private Partials partials(OpContext ctx) {
        Tensor z = ctx.saved(0);
        Tensor t = ctx.saved(1);
        Tensor w = ctx.inputCount() == 3 ? ctx.saved(2) : null;
        Parts p = parts(z, t);
        Tensor rows = Ops.reshape(z, p.n(), p.c());
        Tensor logp = logSoftmax ? Ops.logSoftmax(rows, -1) : rows;
        Tensor m = p.probs() ? Ops.neg(Ops.add(Ops.mul(Ops.reshape(t, p.n(), p.c()), 1 - smoothing), smoothing / p.c())) : p.m();
        Tensor q = w == null ? m : Ops.mul(m, w);
        Tensor dz = logSoftmax ? Ops.sub(q, Ops.mul(Ops.softmax(rows, -1), Ops.sum(q, new int[] {1}, true))) : q;
        Tensor dw = w == null ? null : Ops.mul(logp, m);
        Tensor dt = p.probs() ? Ops.mul(logp, w == null ? Ops.constant(-(1 - smoothing), z) : Ops.mul(w, -(1 - smoothing))) : null;
        Tensor d;
        if (p.probs()) {
            d = Ops.constant(p.n(), z);
        } else if (w == null) {
            d = Ops.sum(p.count());
        } else {
            d = Ops.sum(Ops.mul(p.count(), w));
        }
        return new Partials(dz, dw, dt, d, p);
    }

    /** The weight of each row for output gradient g, [N, 1]. */
    private Tensor rowWeights(Tensor g, Partials s) {
        return switch (reduction) {
            case "none" -> Ops.reshape(g, s.parts().n(), 1);
            case "sum" -> Ops.reshape(g, 1, 1);
            default -> Ops.reshape(Ops.div(g, s.divisor()), 1, 1);
        };
    }

    /** Whether the mean's divisor moves with the weight (index targets with a weight). */
    private boolean divisorMoves(Partials s, OpContext ctx) {
        return reduction.equals("mean") && !s.parts().probs() && ctx.inputCount() == 3;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Partials s = partials(ctx);
        Tensor r = rowWeights(g, s);
        Tensor[] out = new Tensor[ctx.inputCount()];
        if (ctx.needsGrad(0)) {
            out[0] = Ops.reshape(Ops.mul(r, s.dz()), ctx.saved(0).shape());
        }
        if (s.dt() != null && ctx.needsGrad(1)) {
            out[1] = Ops.reshape(Ops.mul(r, s.dt()), ctx.saved(1).shape());
        }
        if (s.dw() != null && ctx.needsGrad(2)) {
            Tensor dw = Ops.sum(Ops.mul(r, s.dw()), new int[] {0}, false);
            if (divisorMoves(s, ctx)) {
                // the mean divides by Σ w[t_n], so the weight also moves the divisor: − g·y/D per picked row.
                dw = Ops.sub(dw, Ops.mul(Ops.div(Ops.mul(g, ctx.output()), s.divisor()), s.parts().count()));
            }
            out[2] = dw;
        }
        return out;
    }

    /** The inputs are saved; the output only for the mean's divisor that a weight moves. */
    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(needsGrad.length, needsGrad.length == 3 && reduction.equals("mean"));
    }

    @Override
    public String jvpRule() {
        return "ẏ = reduce(Σ_c ∂L/∂z ⊙ ż + ∂L/∂w ⊙ ẇ + ∂L/∂t ⊙ ṫ)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Partials s = partials(ctx);
        int n = s.parts().n();
        int c = s.parts().c();
        Tensor dot = Ops.mul(s.dz(), Ops.reshape(t[0], n, c));
        if (s.dw() != null && t[2] != null) {
            dot = Ops.add(dot, Ops.mul(s.dw(), t[2]));
        }
        if (s.dt() != null && t[1] != null) {
            dot = Ops.add(dot, Ops.mul(s.dt(), Ops.reshape(t[1], n, c)));
        }
        Tensor rows = Ops.sum(dot, new int[] {1}, false);
        if (reduction.equals("none")) {
            return Ops.reshape(rows, ctx.output().shape());
        }
        Tensor total = Ops.sum(rows);
        if (reduction.equals("sum")) {
            return total;
        }
        Tensor y = Ops.div(total, s.divisor());
        if (divisorMoves(s, ctx) && t[2] != null) {
            y = Ops.sub(y, Ops.div(Ops.mul(ctx.output(), Ops.sum(Ops.mul(s.parts().count(), t[2]))), s.divisor()));
        }
        return y;
    }

    /** At these values, where the row partials are not zero (nll_loss's picked scores, ignored rows, zero weights). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        Partials s;
        try (var off = io.gradscope.engine.ops.GradMode.disable()) {
            s = partials(ctx);
        }
        Tensor part = switch (input) {
            case 0 -> s.dz();
            case 1 -> s.dt();
            default -> s.dw();
        };
        if (part == null) {
            return super.localDependencies(input, ctx);
        }
        int n = s.parts().n();
        int c = s.parts().c();
        double[] v = part.toDoubleArray();
        boolean reduced = !reduction.equals("none") || ctx.saved(0).rank() == 1;
        int cols = input == 2 ? c : n * c;
        java.util.List<int[]> entries = new java.util.ArrayList<>();
        for (int e = 0; e < v.length; e++) {
            if (v[e] != 0) {
                entries.add(new int[] {reduced ? 0 : e / c, input == 2 ? e % c : e});
            }
        }
        if (input == 2 && divisorMoves(s, ctx)) {
            double[] count = s.parts().count().toDoubleArray();
            for (int k = 0; k < c; k++) {
                if (count[k] != 0) {
                    entries.add(new int[] {0, k});
                }
            }
        }
        int[] ri = entries.stream().mapToInt(x -> x[0]).toArray();
        int[] ci = entries.stream().mapToInt(x -> x[1]).toArray();
        return Pattern.fromCoordinates(reduced ? 1 : n, cols, ri, ci);
    }

    /** Each row's loss on its scores (all of them with log_softmax), its targets and the weight. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        DType[] dt = {DType.FLOAT64, shapes[1].length == shapes[0].length ? DType.FLOAT64 : DType.INT64, DType.FLOAT64};
        int[] out = outputShape(shapes, java.util.Arrays.copyOf(dt, shapes.length));
        int[] z = shapes[0].length == 1 ? new int[] {1, shapes[0][0]} : shapes[0];
        if (input == 1 && dt[1] == DType.INT64) {
            return Dependencies.none(out, shapes[1]);
        }
        if (input == 2) {
            return Pattern.dense(Dependencies.numel(out), Dependencies.numel(shapes[2]));
        }
        Pattern rows = Dependencies.reduce(z, new int[] {1});
        return out.length == 0 ? Pattern.dense(1, Dependencies.numel(z)) : rows;
    }
}
