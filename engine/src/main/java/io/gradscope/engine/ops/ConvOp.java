package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.conv1d and F.conv2d (cross-correlation) with stride, padding, dilation and groups, written from
 * existing primitives: the input's windows are unfolded (one strided copy, im2col) and multiplied by
 * the weight as one batched matmul per group. The VJP is the same two steps transposed: {@code dW} is
 * {@code G·colsᵀ} summed over the batch, {@code dx} is the fold (col2im) of {@code Wᵀ·G}; with unfold and
 * fold being ops themselves, it can be differentiated again. A 3x3 window with stride 1, no dilation
 * and one group goes to the backend's 3x3 kernel instead where it has one ({@link ConvPath}: Winograd's
 * F(2x2, 3x3) on the CPU for float32), and its VJP then applies {@code conv_transpose2d(g, W)} for dx and
 * {@link ConvWeightGradOp} for dW, ops that take the same kernel (float64 keeps the composition above).
 */
final class ConvOp extends Op {
    private final int spatial;
    private final int[] stride;
    private final int[] padding;
    private final int[] dilation;
    private final int groups;
    /** The rows and columns of windows when the transposed convolution fixes them, else null (as many as fit). */
    private final int[] counts;

    ConvOp(int spatial, int[] stride, int[] padding, int[] dilation, int groups) {
        this(spatial, stride, padding, dilation, groups, null);
    }

    /** The convolution over only the first {@code counts} rows and columns of windows (ConvTransposeOp's VJP). */
    ConvOp(int spatial, int[] stride, int[] padding, int[] dilation, int groups, int[] counts) {
        this.counts = counts == null ? null : counts.clone();
        this.spatial = spatial;
        this.stride = stride.clone();
        this.padding = padding.clone();
        this.dilation = dilation.clone();
        this.groups = groups;
        if (groups < 1) {
            throw new GradscopeException(name() + ": groups must be at least 1, not " + groups);
        }
        window(new int[] {1, 1, 1, 1});
    }

    /** The sliding window for a weight of this shape (the kernel size is the weight's). */
    private SlidingWindow window(int[] weight) {
        int[] kernel = spatial == 1 ? new int[] {weight[weight.length - 1]}
                : new int[] {weight[weight.length - 2], weight[weight.length - 1]};
        SlidingWindow w = SlidingWindow.of(name(), spatial, kernel, stride, padding, dilation);
        return counts == null ? w : w.counts(counts[0], counts[1]);
    }

    /** Whether the backend's 3x3 kernel may take this window (it computes every window that fits). */
    private boolean fits(SlidingWindow w) {
        return !w.fixedCounts() && ConvPath.fits(w, groups);
    }

    @Override
    public String name() {
        return "conv" + spatial + "d";
    }

    /** The label, made once: every backward step records it, and resnet18's step has twenty convolutions. */
    private String label;

    @Override
    public String label() {
        if (label == null) {
            label = makeLabel();
        }
        return label;
    }

    private String makeLabel() {
        String text = window(new int[] {1, 1, 1, 1}).text(spatial, true).replaceFirst("kernel_size=[^,]*(, )?", "");
        text = text + (groups != 1 ? (text.isEmpty() ? "" : ", ") + "groups=" + groups : "");
        return text.isEmpty() ? name() : name() + "(" + text + ")";
    }

    @Override
    public String rule() {
        return "dx = fold(Wᵀ·G), dW = Σₙ G·unfold(x)ᵀ, db = Σ g";
    }

    /**
     * out(n, co, l) depends on x[n, ci, the window of l] for the input channels ci of co's group,
     * on weight[co, ci, k] for the window positions k at l that lie inside x (not in the padding),
     * and on bias[co]. The window geometry is traced through the forward's unfold ({@link
     * SlidingWindow#sources}). Bilinear in x and the weight, with no piecewise part: the local pattern is
     * the global one (as matmul's).
     */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return Pattern.of(dependencyRows(input, shapes));
    }

    /** {@link #dependencies} from the windows, a row at a time ({@link WindowRows}). */
    @Override
    public io.gradscope.engine.sparse.Rows dependencyRows(int input, int[][] shapes) {
        int[] x4 = as4d(shapes[0]);
        int[] wt = shapes[1];
        int n = x4[0];
        int cin = x4[1];
        int hw = x4[2] * x4[3];
        int cout = wt[0];
        int perGroup = wt[1];
        int outPerGroup = cout / groups;
        SlidingWindow w = window(wt);
        int k = w.size();
        int[] plane = w.sources(x4[2], x4[3]);
        int l = plane.length / Math.max(k, 1);
        int rows = Math.multiplyExact(Math.multiplyExact(n, cout), l);
        if (input == 2) {
            int[] src = new int[rows];
            for (int r = 0; r < rows; r++) {
                src[r] = (r / l) % cout;
            }
            return Pattern.gather(src, cout);
        }
        WindowRows.Planes planes = new WindowRows.Planes() {
            @Override
            public int count() {
                return perGroup;
            }

            @Override
            public int base(int b, int ci) {
                int co = b % cout;
                return input == 0 ? ((b / cout) * cin + co / outPerGroup * perGroup + ci) * hw : (co * perGroup + ci) * k;
            }
        };
        return new WindowRows(n * cout, Dependencies.numel(shapes[input]), plane, k, planes, input == 1);
    }

    /** Bilinear, no piecewise part: the local rows are the global ones. */
    @Override
    public io.gradscope.engine.sparse.Rows localDependencyRows(int input, OpContext ctx) {
        return dependencyRows(input, Dependencies.shapes(ctx));
    }

    /**
     * A multiply and an add per weight a window meets: 2·(C_in / groups)·(kernel elements) per output
     * element (the weight's elements per output channel), and one more where a bias is added.
     */
    @Override
    public long flops(int[][] inputs, int[] output) {
        int[] wt = inputs[1];
        long perOutput = 2 * Shapes.numel(wt) / Math.max(1, wt[0]) + (inputs.length == 3 ? 1 : 0);
        return Shapes.numel(output) * perOutput;
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        String op = name();
        if (shapes.length != 2 && shapes.length != 3) {
            throw new GradscopeException(op + ": takes x, weight and an optional bias, got " + shapes.length + " tensors");
        }
        Checks.floats(op, dtypes, shapes.length == 3 ? new int[] {0, 1, 2} : new int[] {0, 1});
        int[] x = shapes[0];
        int[] wt = shapes[1];
        String axes = spatial == 1 ? "[N, C, L] or [C, L]" : "[N, C, H, W] or [C, H, W]";
        if (x.length != spatial + 2) {
            throw new GradscopeException(op + ": x must be " + axes + ", not shape " + Shapes.str(x));
        }
        if (wt.length != spatial + 2) {
            throw new GradscopeException(op + ": weight must be [C_out, C_in / groups" + (spatial == 2 ? ", kH, kW" : ", k")
                    + "], not shape " + Shapes.str(wt));
        }
        if (x[1] != wt[1] * groups || wt[0] % groups != 0) {
            throw new GradscopeException(op + ": x " + Shapes.str(x) + " has " + x[1] + " channels but weight " + Shapes.str(wt)
                    + " with groups=" + groups + " needs " + wt[1] * groups + (wt[0] % groups != 0
                    ? " (and C_out " + wt[0] + " must be divisible by groups)" : ""));
        }
        if (shapes.length == 3 && (shapes[2].length != 1 || shapes[2][0] != wt[0])) {
            throw new GradscopeException(op + ": bias must be [" + wt[0] + "], not shape " + Shapes.str(shapes[2]));
        }
        SlidingWindow w = window(wt);
        int[] x4 = as4d(x);
        int oh = w.outH(op, x4[2], x);
        int ow = w.outW(op, x4[3], x);
        return spatial == 1 ? new int[] {x[0], wt[0], ow} : new int[] {x[0], wt[0], oh, ow};
    }

    private int[] as4d(int[] s) {
        return spatial == 1 ? new int[] {s[0], s[1], 1, s[2]} : s;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = spatial == 1 ? SlidingWindow.insertAxis(in[0], 2) : in[0];
        Tensor wt = in[1];
        SlidingWindow w = window(wt.shape());
        int[] xs = x.shape();
        int cout = wt.shape()[0];
        int k = wt.shape()[1] * w.size();
        Tensor direct = spatial == 2 && !w.fixedCounts() ? ConvPath.direct(w, groups, x, wt, false, w.ph, w.pw) : null;
        if (direct != null) {
            return in.length == 3 ? Unrecorded.binary(BinaryKind.ADD, direct, bias(in[2], cout)) : direct;
        }
        // A 1x1 window with stride 1 and no padding reads x where it lies: its columns are x itself.
        Tensor cols = w.isIdentity() && x.isContiguous() ? x.viewReshape(new int[] {xs[0], xs[1], 1, 1, xs[2], xs[3]})
                : w.unfold(x, 0);
        int[] cs = cols.shape();
        int l = cs[4] * cs[5];
        Tensor y = MatMulOp.batched(wt.contiguous().viewReshape(new int[] {groups, cout / groups, k}),
                cols.viewReshape(new int[] {xs[0], groups, k, l}));
        y = y.viewReshape(new int[] {xs[0], cout, cs[4], cs[5]});
        if (in.length == 3) {
            y = Unrecorded.binary(BinaryKind.ADD, y, bias(in[2], cout));
        }
        return spatial == 1 ? y.viewReshape(new int[] {xs[0], cout, cs[5]}) : y;
    }

    /** The bias [C_out] as a [C_out, 1, 1] view that broadcasts over an output's planes. */
    private static Tensor bias(Tensor b, int cout) {
        return b.asStrided(new int[] {cout, 1, 1}, new int[] {b.strides()[0], 0, 0}, b.offset());
    }

    @Override
    public String jvpRule() {
        return "ẏ = conv(ẋ, w) + conv(x, ẇ) + ḃ";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        Tensor wt = ctx.input(1);
        Tensor dy = Ops.add(Ops.apply(this, t[0], wt), Ops.apply(this, x, t[1]));
        if (t.length == 3) {
            int[] bs = new int[spatial + 1];
            java.util.Arrays.fill(bs, 1);
            bs[0] = wt.shape()[0];
            dy = Ops.add(dy, Ops.reshape(t[2], bs));
        }
        return dy;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        Tensor wt = ctx.input(1);
        SlidingWindow w = window(wt.shape());
        int[] x4 = as4d(x.shape());
        int cout = wt.shape()[0];
        int k = wt.shape()[1] * w.size();
        int[] gs = g.shape();
        int l = gs[gs.length - 1] * (spatial == 2 ? gs[2] : 1);
        Tensor g3 = Ops.reshape(g, x4[0], groups, cout / groups, l);
        Tensor dx = null;
        Tensor dw = null;
        Tensor db = null;
        if (ctx.needsGrad(0) && Shapes.numel(x.shape()) == 0) {
            // an empty x (a plane of no rows, say, that the padding alone gives an output): nothing to send back
            dx = Tensor.zeros(x.dtype(), x.device(), x.shape());
        } else if (ctx.needsGrad(0)) {
            if (spatial == 2 && fits(w) && g.dtype() == DType.FLOAT32) {
                // stride 1, so dx is conv_transpose2d(g, W) with the same padding: the backend's 3x3
                // kernel again (W flipped and transposed; im2col's product where it declines), and the
                // transposed op's own VJP and JVP beyond.
                dx = Ops.apply(new ConvTransposeOp(2, new int[] {1}, new int[] {w.ph, w.pw}, new int[] {0}, new int[] {1}, 1),
                        g, wt);
            } else {
                Tensor w3 = Ops.reshape(wt, groups, cout / groups, k);
                Tensor dcols = Ops.reshape(Ops.matmul(Ops.transpose(w3), g3), x4[0], x4[1] * w.size(), l);
                dx = w.isIdentity() ? Ops.reshape(dcols, x4) : Ops.apply(new FoldOps.Fold(w, x4[2], x4[3]), dcols);
                dx = spatial == 1 ? Ops.reshape(dx, x.shape()) : dx;
            }
        }
        if (ctx.needsGrad(1) && spatial == 2 && fits(w) && g.dtype() == DType.FLOAT32) {
            // an op of its own, so that the backend's 3x3 kernel can take it (im2col's product where it declines).
            dw = Ops.apply(new ConvWeightGradOp(w.ph, w.pw), x, g);
        } else if (ctx.needsGrad(1)) {
            Tensor x4t = spatial == 1 ? Ops.reshape(x, x4) : x;
            Tensor cols = Ops.reshape(w.isIdentity() ? x4t : Ops.apply(new FoldOps.Unfold(w), x4t), x4[0], groups, k, l);
            Tensor perImage = Ops.matmul(g3, Ops.transpose(cols));
            // A batch of one has nothing to sum over: the one product is dW.
            dw = Ops.reshape(x4[0] == 1 ? perImage : Ops.sum(perImage, new int[] {0}, false), wt.shape());
        }
        if (ctx.inputs().size() == 3 && ctx.needsGrad(2)) {
            db = Ops.sum(g, spatial == 1 ? new int[] {0, 2} : new int[] {0, 2, 3}, false);
        }
        return ctx.inputs().size() == 3 ? new Tensor[] {dx, dw, db} : new Tensor[] {dx, dw};
    }
}
