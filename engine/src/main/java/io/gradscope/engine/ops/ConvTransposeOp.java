package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.conv_transpose1d/2d: the convolution's input gradient used as an op, {@code fold(Wᵀ·x)} per
 * group, from the same primitives (one batched matmul, one col2im). Its VJP is the convolution itself
 * for x, and {@code x·unfold(g)ᵀ} summed over the batch for the weight; it can be differentiated
 * again. The weight is {@code [C_in, C_out / groups, k...]}, as PyTorch's.
 */
final class ConvTransposeOp extends Op {
    private final int spatial;
    private final int[] stride;
    private final int[] padding;
    private final int[] outputPadding;
    private final int[] dilation;
    private final int groups;

    ConvTransposeOp(int spatial, int[] stride, int[] padding, int[] outputPadding, int[] dilation, int groups) {
        this.spatial = spatial;
        this.stride = stride.clone();
        this.padding = padding.clone();
        this.outputPadding = outputPadding.clone();
        this.dilation = dilation.clone();
        this.groups = groups;
        if (groups < 1) {
            throw new GradscopeException(name() + ": groups must be at least 1, not " + groups);
        }
    }

    @Override
    public String name() {
        return "conv_transpose" + spatial + "d";
    }

    @Override
    public String rule() {
        return "dx = conv(g, W), dW = Σ x · unfold(g)ᵀ, db = Σ g";
    }

    private SlidingWindow window(int[] weight) {
        int[] kernel = spatial == 1 ? new int[] {weight[weight.length - 1]}
                : new int[] {weight[weight.length - 2], weight[weight.length - 1]};
        return SlidingWindow.of(name(), spatial, kernel, stride, padding, dilation);
    }

    /**
     * Note [Output padding past the stride]: the output is {@code (L − 1)·s − 2p + d·(k − 1) + 1 + op}
     * long, over which {@code L + ⌊op / s⌋} windows fit; with {@code op ≥ s} (valid while op is below
     * the dilation) the rows past x's L windows are outputs that only the padding's crop would have
     * hidden, and no window of x starts there. So fold, unfold and the convolution of the VJP take
     * exactly x's windows ({@link SlidingWindow#counts}); below the stride the fitting count is x's already.
     */
    private int[] counts(int[] x) {
        boolean past = false;
        for (int i = 0; i < spatial; i++) {
            past |= at(outputPadding, i)[0] >= at(stride, i)[0];
        }
        if (!past) {
            return null;
        }
        return spatial == 1 ? new int[] {1, x[2]} : new int[] {x[2], x[3]};
    }

    /** The window over the output for x of this shape: {@link #counts} windows where they are fixed. */
    private SlidingWindow window(int[] weight, int[] x) {
        int[] c = counts(x);
        return c == null ? window(weight) : window(weight).counts(c[0], c[1]);
    }

    private int[] at(int[] v, int i) {
        return new int[] {v[v.length == 1 ? 0 : i]};
    }

    private ConvOp conv(int[] x) {
        return new ConvOp(spatial, stride, padding, dilation, groups, counts(x));
    }

    /** Each input element times the weights it meets, a multiply and an add each; the bias one per output. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        int[] wt = inputs[1];
        long perInput = 2 * Shapes.numel(wt) / Math.max(1, wt[0]);
        return Shapes.numel(inputs[0]) * perInput + (inputs.length == 3 ? Shapes.numel(output) : 0);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        if (shapes.length != 2 && shapes.length != 3) {
            throw new GradscopeException(name() + ": takes x, weight and an optional bias");
        }
        for (int i = 0; i < shapes.length; i++) {
            Checks.floats(name(), dtypes, i);
        }
        int[] x = shapes[0];
        int[] w = shapes[1];
        if (x.length != spatial + 2 || w.length != spatial + 2) {
            throw new GradscopeException(name() + ": x must have " + (spatial + 2) + " axes (or " + (spatial + 1) + " without the batch) and "
                    + "weight " + (spatial + 2) + ", not " + Shapes.str(x) + " and " + Shapes.str(w));
        }
        if (x[1] != w[0] || x[1] % groups != 0) {
            throw new GradscopeException(name() + ": x has " + x[1] + " channels, the weight " + Shapes.str(w) + " takes " + w[0]
                    + " (in " + groups + " groups)");
        }
        int cout = w[1] * groups;
        if (shapes.length == 3 && (shapes[2].length != 1 || shapes[2][0] != cout)) {
            throw new GradscopeException(name() + ": bias must be [" + cout + "], not " + Shapes.str(shapes[2]));
        }
        int[] out = x.clone();
        out[1] = cout;
        for (int i = 0; i < spatial; i++) {
            int s = at(stride, i)[0];
            int d = at(dilation, i)[0];
            int op = at(outputPadding, i)[0];
            if (op >= s && op >= d) {
                throw new GradscopeException(name() + ": output_padding must be smaller than stride or dilation, not " + op);
            }
            int k = w[2 + i];
            out[2 + i] = (x[2 + i] - 1) * s - 2 * at(padding, i)[0] + d * (k - 1) + op + 1;
            if (out[2 + i] < 1) {
                throw new GradscopeException(name() + ": the output would be empty for x " + Shapes.str(x));
            }
        }
        return out;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        Tensor wt = in[1];
        int[] out = outputShape(Dependencies.shapes(new OpContext(in)), java.util.Arrays.stream(in).map(Tensor::dtype)
                .toArray(DType[]::new));
        SlidingWindow w = window(wt.shape(), x.shape());
        int n = x.shape()[0];
        int cin = x.shape()[1];
        int cout = out[1];
        // Stride 1 and no output padding: the correlation with the flipped, transposed weight, padded 2 − p.
        Tensor direct = spatial == 2 && outputPadding[0] == 0 && outputPadding[outputPadding.length - 1] == 0
                ? ConvPath.direct(w, groups, x, wt, true, 2 - w.ph, 2 - w.pw) : null;
        if (direct != null) {
            return in.length == 3 ? Unrecorded.binary(BinaryKind.ADD, direct, in[2].reshapeOrCopy(new int[] {1, cout, 1, 1})) : direct;
        }
        // the positions of one plane (a batch or channel count of 0 leaves them as they are)
        int l = (int) Shapes.numel(java.util.Arrays.copyOfRange(x.shape(), 2, x.rank()));
        Tensor x3 = x.reshapeOrCopy(new int[] {n, groups, cin / groups, l});
        Tensor w3 = wt.reshapeOrCopy(new int[] {groups, cin / groups, (cout / groups) * w.size()});
        Tensor cols = MatMulOp.batched(w3.viewTranspose(1, 2), x3).viewReshape(new int[] {n, cout * w.size(), l});
        int oh = spatial == 2 ? out[2] : 1;
        int ow = out[out.length - 1];
        Tensor y = new FoldOps.Fold(w, oh, ow).forward(new OpContext(cols), cols);
        if (in.length == 3) {
            y = Unrecorded.binary(BinaryKind.ADD, y, in[2].reshapeOrCopy(new int[] {1, cout, 1, 1}));
        }
        return y.viewReshape(out);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        Tensor wt = ctx.input(1);
        Tensor dx = ctx.needsGrad(0) ? Ops.apply(conv(x.shape()), g, wt) : null;
        Tensor dw = null;
        if (ctx.needsGrad(1)) {
            SlidingWindow w = window(wt.shape(), x.shape());
            int n = x.shape()[0];
            int cin = x.shape()[1];
            int cout = g.shape()[1];
            // the positions of one plane (a batch or channel count of 0 leaves them as they are)
            int l = (int) Shapes.numel(java.util.Arrays.copyOfRange(x.shape(), 2, x.rank()));
            Tensor g4 = spatial == 1 ? Ops.reshape(g, n, cout, 1, g.shape()[2]) : g;
            Tensor cols = Ops.reshape(Ops.apply(new FoldOps.Unfold(w), g4), n, groups, (cout / groups) * w.size(), l);
            Tensor x3 = Ops.reshape(x, n, groups, cin / groups, l);
            dw = Ops.reshape(Ops.sum(Ops.matmul(x3, Ops.transpose(cols)), new int[] {0}, false), wt.shape());
        }
        Tensor db = null;
        if (ctx.inputs().size() == 3 && ctx.needsGrad(2)) {
            db = Ops.sum(g, spatial == 1 ? new int[] {0, 2} : new int[] {0, 2, 3}, false);
        }
        return ctx.inputs().size() == 3 ? new Tensor[] {dx, dw, db} : new Tensor[] {dx, dw};
    }

    @Override
    public String jvpRule() {
        return "ẏ = conv_transpose(ẋ, W) + conv_transpose(x, Ẇ) + ḃ";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        Tensor wt = ctx.input(1);
        Tensor y = null;
        if (t[0] != null) {
            y = Ops.apply(this, t[0], wt);
        }
        if (t[1] != null) {
            Tensor term = Ops.apply(this, x, t[1]);
            y = y == null ? term : Ops.add(y, term);
        }
        if (y == null) {
            y = Ops.mul(Ops.apply(this, x, wt), 0.0);
        }
        if (t.length == 3 && t[2] != null) {
            int[] b = new int[spatial + 2];
            java.util.Arrays.fill(b, 1);
            b[1] = t[2].shape()[0];
            y = Ops.add(y, Ops.reshape(t[2], b));
        }
        return y;
    }

    /**
     * x: the convolution's own rule read backwards (an output of the convolution on y's shape is an
     * element of x); the weight: each tap probed with x of ones (every position present, so a tap
     * reaches exactly the outputs it can); the bias: its channel.
     */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] out = outputShape(shapes, new DType[] {DType.FLOAT64, DType.FLOAT64, DType.FLOAT64});
        if (input == 0) {
            return conv(shapes[0]).dependencies(0, new int[][] {out, shapes[1]}).transpose();
        }
        if (input == 2) {
            int[] cs = new int[out.length];
            java.util.Arrays.fill(cs, 1);
            cs[1] = out[1];
            return Pattern.gather(Dependencies.walk(out, Dependencies.broadcastStrides(cs, out), 0), out[1]);
        }
        int nw = Dependencies.numel(shapes[1]);
        Tensor ones = Tensor.full(DType.FLOAT64, io.gradscope.engine.tensor.Device.CPU, 1, shapes[0]);
        int rows = Dependencies.numel(out);
        java.util.List<Integer> ri = new java.util.ArrayList<>();
        java.util.List<Integer> ci = new java.util.ArrayList<>();
        ConvTransposeOp plain = new ConvTransposeOp(spatial, stride, padding, outputPadding, dilation, groups);
        for (int j = 0; j < nw; j++) {
            double[] e = new double[nw];
            e[j] = 1;
            Tensor w = Tensor.fromDoubles(DType.FLOAT64, e, shapes[1]);
            double[] y;
            try (var off = io.gradscope.engine.ops.GradMode.disable()) {
                y = plain.forward(new OpContext(ones, w), ones, w).toDoubleArray();
            }
            for (int r = 0; r < rows; r++) {
                if (y[r] != 0) {
                    ri.add(r);
                    ci.add(j);
                }
            }
        }
        return Pattern.fromCoordinates(rows, nw, ri.stream().mapToInt(Integer::intValue).toArray(),
                ci.stream().mapToInt(Integer::intValue).toArray());
    }
}
