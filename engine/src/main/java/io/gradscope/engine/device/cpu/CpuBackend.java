package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.Backend;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;
import java.util.Arrays;

/** The CPU backend: Java primitive arrays, loops over rows, matmul on the shared pool. */
public final class CpuBackend implements Backend {
    public static final CpuBackend INSTANCE = new CpuBackend();

    static {
        Backends.register(INSTANCE);
    }

    private final CpuAllocator allocator = new CpuAllocator();

    private CpuBackend() {
    }

    /**
     * Which GEMM float32 and float64 products run on, small and large (the system's BLAS or the
     * Vector API's, by measurement: Note [Which GEMM], Note [Choices by measurement]), and what the
     * system BLAS's probe found.
     */
    public static String floatGemm() {
        String why = NativeGemm.why();
        return "float32 " + gemmName(KernelChoice.SGEMM_SMALL) + " / " + gemmName(KernelChoice.SGEMM_MEDIUM) + " / "
                + gemmName(KernelChoice.SGEMM_LARGE) + ", float64 " + gemmName(KernelChoice.DGEMM_SMALL) + " / "
                + gemmName(KernelChoice.DGEMM_MEDIUM) + " / " + gemmName(KernelChoice.DGEMM_LARGE) + " (small / medium / large products"
                + (why.isEmpty() ? "" : "; " + why) + ")";
    }

    private static String gemmName(KernelChoice c) {
        if (KernelTuner.pick(c).equals("native") && NativeGemm.loaded()) {
            return "system BLAS";
        }
        return CpuMatmul.VECTOR ? "Vector API" : "plain loops";
    }

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public Storage allocate(DType dtype, long numel, MemoryCategory category) {
        return allocator.allocate(dtype, numel, category, true);
    }

    @Override
    public Storage allocateUninitialized(DType dtype, long numel, MemoryCategory category) {
        return allocator.allocate(dtype, numel, category, false);
    }

    @Override
    public long liveBytes() {
        return allocator.cache().activeBytes();
    }

    @Override
    public long peakBytes() {
        return allocator.cache().peakActiveBytes();
    }

    @Override
    public void resetPeak() {
        allocator.cache().resetPeak();
    }

    @Override
    public long reservedBytes() {
        return allocator.cache().runReservedBytes();
    }

    @Override
    public void startRun() {
        allocator.cache().startRun();
    }

    @Override
    public void freeCached() {
        allocator.cache().freeCached();
    }

    /** The allocator's cache (for tests: its reservations and cached bytes). */
    public io.gradscope.engine.alloc.BlockCache<Object> cache() {
        return allocator.cache();
    }

    @Override
    public void fill(Tensor out, double value) {
        Storage s = out.storage();
        if (s.dtype() == DType.FLOAT32) {
            float v = (float) value;
            float[] d = s.floats();
            StridedLoop.run(out.shape(), new int[][] {out.strides()}, new int[] {out.offset()}, (n, o, st, a, b, c, e) -> {
                if (st == 1) {
                    Arrays.fill(d, o, o + n, v);
                } else {
                    for (int i = 0; i < n; i++) {
                        d[o + i * st] = v;
                    }
                }
            });
            return;
        }
        StridedLoop.run(out.shape(), new int[][] {out.strides()}, new int[] {out.offset()}, (n, o, st, a, b, c, d) -> {
            double[] buf = Rows.BUFFERS.get()[0];
            for (int start = 0; start < n; start += Rows.CHUNK) {
                int len = Math.min(Rows.CHUNK, n - start);
                Arrays.fill(buf, 0, len, value);
                Rows.store(buf, len, s, o + start * st, st);
            }
        });
    }

    @Override
    public Tensor unfold(Tensor x, int[] window, double pad, int oh, int ow) {
        return Im2colKernels.unfold(x, window, pad, oh, ow);
    }

    @Override
    public Tensor fold(Tensor cols, int[] window, int h, int w) {
        return Im2colKernels.fold(cols, window, h, w);
    }

    @Override
    public Tensor conv3x3(Tensor x, Tensor w, boolean transposed, int ph, int pw, String way) {
        String k = kernel(way, transposed ? KernelChoice.Conv.INPUT_GRAD : KernelChoice.Conv.FORWARD, outputPositions(x, ph, pw));
        Tensor d = k.equals("direct") && CpuMatmul.VECTOR ? DirectConv.conv(x, w, transposed, ph, pw) : null;
        // Winograd's where it was asked for, or chosen (its own count of tiles leaving small planes to im2col),
        // or where the direct kernel declines these tensors.
        return d != null || k.equals("im2col") ? d : WinogradConv.conv(x, w, transposed, ph, pw, way.equals("winograd"));
    }

    /**
     * The kernel a 3x3 computation takes: the one {@code way} asks for, or (auto) the one {@link
     * KernelTuner} picks for its class (Note [Choices by measurement]).
     */
    private static String kernel(String way, KernelChoice.Conv kind, long positions) {
        return way.equals("direct") || way.equals("winograd") ? way : KernelTuner.pick(KernelChoice.conv(kind, positions));
    }

    /** Output positions (images times plane) of a 3x3 stride-1 window over x with padding (ph, pw). */
    private static long outputPositions(Tensor x, int ph, int pw) {
        int[] s = x.shape();
        return s.length < 4 ? 0 : (long) s[0] * Math.max(0, s[2] + 2 * ph - 2) * Math.max(0, s[3] + 2 * pw - 2);
    }

    @Override
    public String conv3x3Choice() {
        return "by measurement where not asked for (gradscope bench lists each choice): forward "
                + KernelTuner.pick(KernelChoice.CONV_SMALL) + " / " + KernelTuner.pick(KernelChoice.CONV_LARGE)
                + ", input gradient " + KernelTuner.pick(KernelChoice.CONV_INPUT_GRAD_SMALL) + " / "
                + KernelTuner.pick(KernelChoice.CONV_INPUT_GRAD_LARGE) + ", weight gradient "
                + KernelTuner.pick(KernelChoice.CONV_WEIGHT_GRAD_SMALL) + " / " + KernelTuner.pick(KernelChoice.CONV_WEIGHT_GRAD_LARGE)
                + " (small / large planes)";
    }

    @Override
    public Tensor conv3x3WeightGrad(Tensor x, Tensor g, int ph, int pw, String way) {
        int[] gs = g.shape();
        long positions = gs.length < 4 ? 0 : (long) gs[0] * gs[2] * gs[3];
        String k = kernel(way, KernelChoice.Conv.WEIGHT_GRAD, positions);
        Tensor d = k.equals("direct") && CpuMatmul.VECTOR ? DirectWeightGrad.weightGrad(x, g, ph, pw, way.equals("direct")) : null;
        return d != null || k.equals("im2col") ? d : WinogradConv.weightGrad(x, g, ph, pw, way.equals("winograd"));
    }

    @Override
    public Tensor[] maxPool(Tensor x, int[] window, int oh, int ow) {
        return PoolKernels.maxPool(x, window, oh, ow);
    }

    @Override
    public Tensor maxPoolBackward(Tensor g, Tensor index, int[] window, int oh, int ow, int h, int w) {
        return PoolKernels.maxPoolBackward(g, index, window, oh, ow, h, w);
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
        StridedOps.copy(src, dst);
    }

    @Override
    public void unary(UnaryKind kind, double param, Tensor x, Tensor out) {
        StridedOps.unary(kind, param, x, out);
    }

    @Override
    public void binary(BinaryKind kind, Tensor a, Tensor b, Tensor out) {
        StridedOps.binary(kind, a, b, out);
    }

    @Override
    public void reduce(ReduceKind kind, Tensor x, Tensor out) {
        StridedOps.reduce(kind, x, out);
    }

    @Override
    public void matmul(Tensor a, Tensor b, Tensor out) {
        if (!out.isContiguous() || out.offset() != 0) {
            throw new IllegalArgumentException("matmul output must be a fresh contiguous tensor");
        }
        CpuMatmul.run(a, b, out);
    }

    /** The plain-loop float GEMM on row-major n×n arrays: the baseline {@code gradscope bench} compares with. */
    public static void plainSgemm(float[] a, float[] b, float[] c, int n) {
        CpuMatmul.gemmF(a, 0, n, 1, b, 0, n, 1, c, 0, 0, n, n, n);
    }

    @Override
    public void oneHot(Tensor labels, Tensor out) {
        int c = out.shape()[out.rank() - 1];
        double[] lab = toDoubles(labels);
        double[] hot = new double[lab.length * c];
        for (int i = 0; i < lab.length; i++) {
            int k = (int) lab[i];
            if (k >= 0 && k < c) {
                hot[i * c + k] = 1;
            }
        }
        int[] shape = out.shape();
        Tensor src = new Tensor(new Storage(DType.FLOAT64, Device.CPU, hot.length, hot, MemoryCategory.TEMPORARY, s -> { }),
                shape, Shapes.contiguousStrides(shape), 0);
        copy(src, out);
    }

    @Override
    public void softmaxLastAxis(Tensor x, Tensor out, boolean log) {
        CpuNorms.softmax(x, out, log);
    }

    @Override
    public void softmaxBackwardLastAxis(Tensor y, Tensor g, Tensor dx, boolean log) {
        CpuNorms.softmaxBackward(y, g, dx, log);
    }

    @Override
    public void layerNormRows(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor xhat, Tensor rstd) {
        CpuNorms.layerNorm(x, weight, bias, eps, out, xhat, null, rstd);
    }

    @Override
    public void layerNormBackwardRows(Tensor g, Tensor weight, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db) {
        CpuNorms.layerNormBackward(g, weight, xhat, null, null, rstd, dx, dw, db);
    }

    @Override
    public boolean layerNormStats(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor stats, Tensor rstd) {
        CpuNorms.layerNorm(x, weight, bias, eps, out, null, stats, rstd);
        return true;
    }

    @Override
    public boolean layerNormBackwardStats(Tensor g, Tensor x, Tensor weight, Tensor stats, Tensor rstd, Tensor dx, Tensor dw,
                                          Tensor db) {
        CpuNorms.layerNormBackward(g, weight, null, x, stats, rstd, dx, dw, db);
        return true;
    }

    @Override
    public boolean channelAffine(Tensor x, Tensor alpha, Tensor beta, Tensor out) {
        if (!CpuBatchNorm.fits(x, alpha, beta, out)) {
            return false;
        }
        CpuBatchNorm.affine(x, alpha, beta, out);
        return true;
    }

    @Override
    public boolean channelStats(Tensor x, double eps, Tensor mean, Tensor rstd) {
        if (!CpuBatchNorm.fits(x, mean, rstd)) {
            return false;
        }
        CpuBatchNorm.stats(x, eps, mean, rstd);
        return true;
    }

    @Override
    public boolean channelNormGrad(Tensor g, Tensor x, Tensor a, Tensor b, Tensor m, Tensor k, Tensor out) {
        if (!CpuBatchNorm.fits(x, g, a, b, m, k, out)) {
            return false;
        }
        CpuBatchNorm.normGrad(g, x, a, b, m, k, out);
        return true;
    }

    @Override
    public boolean channelSums(Tensor g, Tensor x, Tensor mean, Tensor gsum, Tensor gxc) {
        if (!CpuBatchNorm.fits(x, g, mean, gsum, gxc)) {
            return false;
        }
        CpuBatchNorm.sums(g, x, mean, gsum, gxc);
        return true;
    }

    @Override
    public boolean crossEntropyRows(Tensor logits, Tensor labels, double scale, Tensor losses, Tensor dlogits) {
        long[] lab = new long[(int) labels.numel()];
        if (labels.dtype() == DType.INT64 && labels.isContiguous()) {
            System.arraycopy(labels.storage().longs(), labels.offset(), lab, 0, lab.length);
        } else {
            double[] d = toDoubles(labels);
            for (int i = 0; i < lab.length; i++) {
                lab[i] = (long) d[i];
            }
        }
        CpuNorms.crossEntropy(logits, lab, losses, dlogits, scale);
        return true;
    }

    @Override
    public boolean axpy(double alpha, Tensor x, Tensor y) {
        if (!x.isContiguous() || !y.isContiguous() || x.dtype() != y.dtype() || !java.util.Arrays.equals(x.shape(), y.shape())
                || (y.dtype() != DType.FLOAT32 && y.dtype() != DType.FLOAT64)) {
            return false;
        }
        boolean f32 = y.dtype() == DType.FLOAT32;
        Storage xs = x.storage();
        Storage ys = y.storage();
        // Memory-bound: large parameters are split over the pool.
        StridedLoop.run(y.shape(), new int[][] {y.strides(), x.strides()}, new int[] {y.offset(), x.offset()},
                (n, o0, s0, o1, s1, o2, s2) -> {
                    if (f32) {
                        FloatKernels.axpy((float) alpha, xs.floats(), o1, ys.floats(), o0, n);
                    } else {
                        double[] xa = xs.doubles();
                        double[] ya = ys.doubles();
                        for (int i = 0; i < n; i++) {
                            ya[o0 + i] += alpha * xa[o1 + i];
                        }
                    }
                }, true);
        return true;
    }

    @Override
    public boolean unaryBackward(UnaryKind kind, Tensor x, Tensor g, Tensor dx) {
        if (kind != UnaryKind.RELU) {
            return false;
        }
        boolean f32 = x.dtype() == DType.FLOAT32 && g.dtype() == DType.FLOAT32 && dx.dtype() == DType.FLOAT32;
        boolean f64 = x.dtype() == DType.FLOAT64 && g.dtype() == DType.FLOAT64 && dx.dtype() == DType.FLOAT64;
        if (!f32 && !f64) {
            return false;
        }
        Storage xs = x.storage();
        Storage gs = g.storage();
        Storage ds = dx.storage();
        StridedLoop.run(dx.shape(), new int[][] {dx.strides(), x.strides(), g.strides()}, new int[] {dx.offset(), x.offset(), g.offset()},
                (n, o0, s0, o1, s1, o2, s2) -> {
                    if (f32) {
                        FloatKernels.reluBackward(xs.floats(), o1, s1, gs.floats(), o2, s2, ds.floats(), o0, s0, n);
                    } else {
                        double[] xa = xs.doubles();
                        double[] ga = gs.doubles();
                        double[] da = ds.doubles();
                        for (int i = 0; i < n; i++) {
                            da[o0 + i * s0] = ga[o2 + i * s2] * (xa[o1 + i * s1] <= 0 ? 0.0 : 1.0);
                        }
                    }
                }, true);
        return true;
    }

    @Override
    public void upload(Tensor host, Tensor dst) {
        copy(host, dst);
    }

    @Override
    public double[] toDoubles(Tensor t) {
        int n = (int) t.numel();
        double[] out = new double[n];
        Tensor dst = new Tensor(new Storage(DType.FLOAT64, Device.CPU, n, out, MemoryCategory.TEMPORARY, s -> { }),
                t.shape(), Shapes.contiguousStrides(t.shape()), 0);
        copy(t, dst);
        return out;
    }

    @Override
    public double read(Storage s, int index) {
        return switch (s.dtype()) {
            case FLOAT32 -> s.floats()[index];
            case FLOAT64 -> s.doubles()[index];
            case INT64 -> s.longs()[index];
        };
    }
}
