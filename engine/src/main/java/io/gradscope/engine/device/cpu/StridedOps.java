package io.gradscope.engine.device.cpu;

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

/**
 * The CPU backend's walks over strided tensors: copy (with float32 ↔ float64 conversion), the
 * elementwise unary and binary kernels, and the sum and max reductions. Float32 runs on float
 * arrays ({@link FloatKernels}, {@link FloatReduce}); every other dtype is loaded into double
 * rows ({@link Rows}) a chunk at a time, computed by {@link Elementwise} and stored back.
 */
final class StridedOps {
    private StridedOps() {
    }

    static void copy(Tensor src, Tensor dst) {
        Storage in = src.storage();
        Storage out = dst.storage();
        if (in.dtype() == DType.FLOAT32 && out.dtype() == DType.FLOAT32) {
            float[] x = in.floats();
            float[] y = out.floats();
            StridedLoop.run(dst.shape(), new int[][] {dst.strides(), src.strides()}, new int[] {dst.offset(), src.offset()},
                    (n, o0, s0, o1, s1, p, q) -> {
                        if (s0 == 1 && s1 == 1) {
                            System.arraycopy(x, o1, y, o0, n);
                        } else {
                            for (int i = 0; i < n; i++) {
                                y[o0 + i * s0] = x[o1 + i * s1];
                            }
                        }
                    }, true);
            return;
        }
        if (in.dtype() == DType.FLOAT32 && out.dtype() == DType.FLOAT64 || in.dtype() == DType.FLOAT64 && out.dtype() == DType.FLOAT32) {
            boolean widen = in.dtype() == DType.FLOAT32;
            StridedLoop.run(dst.shape(), new int[][] {dst.strides(), src.strides()}, new int[] {dst.offset(), src.offset()},
                    (n, o0, s0, o1, s1, p, q) -> {
                        if (widen) {
                            float[] x = in.floats();
                            double[] y = out.doubles();
                            for (int i = 0; i < n; i++) {
                                y[o0 + i * s0] = x[o1 + i * s1];
                            }
                        } else {
                            double[] x = in.doubles();
                            float[] y = out.floats();
                            for (int i = 0; i < n; i++) {
                                y[o0 + i * s0] = (float) x[o1 + i * s1];
                            }
                        }
                    }, true);
            return;
        }
        StridedLoop.run(dst.shape(), new int[][] {dst.strides(), src.strides()}, new int[] {dst.offset(), src.offset()},
                (n, o0, s0, o1, s1, x, y) -> {
                    double[] buf = Rows.BUFFERS.get()[0];
                    for (int start = 0; start < n; start += Rows.CHUNK) {
                        int len = Math.min(Rows.CHUNK, n - start);
                        Rows.load(in, o1 + start * s1, s1, len, buf);
                        Rows.store(buf, len, out, o0 + start * s0, s0);
                    }
                }, true);
    }

    static void unary(UnaryKind kind, double param, Tensor x, Tensor out) {
        Storage in = x.storage();
        Storage os = out.storage();
        if (in.dtype() == DType.FLOAT32 && os.dtype() == DType.FLOAT32) {
            float[] xs = in.floats();
            float[] ys = os.floats();
            int total = (int) out.numel();
            if (total < StridedLoop.PARALLEL_MIN && x.isContiguous() && out.isContiguous()) {
                // Small and contiguous: one row, no walk to set up (the per-op overhead of small graphs).
                FloatKernels.unary(kind, param, xs, x.offset(), 1, ys, out.offset(), 1, total);
                return;
            }
            StridedLoop.run(out.shape(), new int[][] {out.strides(), x.strides()}, new int[] {out.offset(), x.offset()},
                    (n, o0, s0, o1, s1, p, q) -> FloatKernels.unary(kind, param, xs, o1, s1, ys, o0, s0, n), true);
            return;
        }
        StridedLoop.run(out.shape(), new int[][] {out.strides(), x.strides()}, new int[] {out.offset(), x.offset()},
                (n, o0, s0, o1, s1, p, q) -> {
                    double[][] bufs = Rows.BUFFERS.get();
                    for (int start = 0; start < n; start += Rows.CHUNK) {
                        int len = Math.min(Rows.CHUNK, n - start);
                        Rows.load(in, o1 + start * s1, s1, len, bufs[0]);
                        Elementwise.unary(kind, param, bufs[0], bufs[1], len);
                        Rows.store(bufs[1], len, os, o0 + start * s0, s0);
                    }
                }, true);
    }

    static void binary(BinaryKind kind, Tensor a, Tensor b, Tensor out) {
        Storage as = a.storage();
        Storage bs = b.storage();
        Storage os = out.storage();
        if (as.dtype() == DType.FLOAT32 && bs.dtype() == DType.FLOAT32 && os.dtype() == DType.FLOAT32) {
            float[] x = as.floats();
            float[] y = bs.floats();
            float[] z = os.floats();
            int total = (int) out.numel();
            if (total < StridedLoop.PARALLEL_MIN && a.isContiguous() && b.isContiguous() && out.isContiguous()) {
                // Small and contiguous: one row, no walk to set up (the per-op overhead of small graphs).
                FloatKernels.binary(kind, x, a.offset(), 1, y, b.offset(), 1, z, out.offset(), 1, total);
                return;
            }
            StridedLoop.run(out.shape(), new int[][] {out.strides(), a.strides(), b.strides()},
                    new int[] {out.offset(), a.offset(), b.offset()},
                    (n, o0, s0, o1, s1, o2, s2) -> FloatKernels.binary(kind, x, o1, s1, y, o2, s2, z, o0, s0, n), true);
            return;
        }
        StridedLoop.run(out.shape(), new int[][] {out.strides(), a.strides(), b.strides()},
                new int[] {out.offset(), a.offset(), b.offset()}, (n, o0, s0, o1, s1, o2, s2) -> {
                    double[][] bufs = Rows.BUFFERS.get();
                    for (int start = 0; start < n; start += Rows.CHUNK) {
                        int len = Math.min(Rows.CHUNK, n - start);
                        Rows.load(as, o1 + start * s1, s1, len, bufs[0]);
                        Rows.load(bs, o2 + start * s2, s2, len, bufs[1]);
                        Elementwise.binary(kind, bufs[0], bufs[1], bufs[2], len);
                        Rows.store(bufs[2], len, os, o0 + start * s0, s0);
                    }
                }, true);
    }

    static void reduce(ReduceKind kind, Tensor x, Tensor out) {
        if (x.numel() == out.numel() && x.numel() > 0) {
            // Every reduced axis has size 1 (a weight gradient summed over a batch of one): the sum
            // or max of one element is that element.
            copy(x, out);
            return;
        }
        if (x.dtype() == DType.FLOAT32 && out.dtype() == DType.FLOAT32) {
            FloatReduce.run(kind, x, out);
            return;
        }
        int[] outShape = out.shape();
        int n = (int) out.numel();
        double[] acc = new double[n];
        if (kind == ReduceKind.MAX) {
            Arrays.fill(acc, Double.NEGATIVE_INFINITY);
        }
        // Walk the input; the accumulator index has stride 0 on every reduced axis.
        int[] accStrides = Shapes.contiguousStrides(outShape);
        for (int i = 0; i < outShape.length; i++) {
            if (outShape[i] == 1) {
                accStrides[i] = 0;
            }
        }
        Storage in = x.storage();
        StridedLoop.run(x.shape(), new int[][] {x.strides(), accStrides}, new int[] {x.offset(), 0},
                (len, o0, s0, o1, s1, p, q) -> {
                    double[] buf = Rows.BUFFERS.get()[0];
                    for (int start = 0; start < len; start += Rows.CHUNK) {
                        int m = Math.min(Rows.CHUNK, len - start);
                        Rows.load(in, o0 + start * s0, s0, m, buf);
                        int ai = o1 + start * s1;
                        if (kind == ReduceKind.SUM) {
                            if (s1 == 0) {
                                double sum = 0;
                                for (int i = 0; i < m; i++) {
                                    sum += buf[i];
                                }
                                acc[ai] += sum;
                            } else {
                                for (int i = 0; i < m; i++) {
                                    acc[ai + i * s1] += buf[i];
                                }
                            }
                        } else {
                            for (int i = 0; i < m; i++) {
                                int j = ai + i * s1;
                                double v = buf[i];
                                // NaN wins, as in torch.amax.
                                acc[j] = (v != v || acc[j] != acc[j]) ? Double.NaN : Math.max(acc[j], v);
                            }
                        }
                    }
                });
        Tensor accT = new Tensor(new Storage(DType.FLOAT64, Device.CPU, n, acc, MemoryCategory.TEMPORARY, s -> { }),
                outShape, Shapes.contiguousStrides(outShape), 0);
        copy(accT, out);
    }
}
