package io.gradscope.engine.device.cuda;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import io.gradscope.engine.tensor.Backend;
import io.gradscope.engine.device.BatchOffsets;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.UnaryKind;
import io.gradscope.engine.device.cuda.CachingAllocator.Scratch;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import java.lang.ref.Reference;
import java.util.HashMap;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * The same engine on an NVIDIA GPU through JCuda's driver API: one context on device 0, the
 * kernels of assets/kernels/gradscope.cu loaded from their committed PTX, device memory from a
 * caching allocator whose allocations produce the same accounting events as the CPU backend.
 * Loaded by reflection from {@link io.gradscope.engine.tensor.Backends} only when asked for.
 */
public final class CudaBackend implements Backend {
    private final CUcontext context = new CUcontext();
    private final CUmodule module = new CUmodule();
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final CachingAllocator allocator;
    private final String deviceName;
    /** Serialises launches and copies (each thread makes the context current first). */
    private final Object lock = new Object();

    /** Reductions with fewer outputs than this and more elements per output than {@link #BLOCK_REDUCE_MIN} use blocks. */
    static final long BLOCK_REDUCE_OUTPUTS = 1 << 15;
    static final long BLOCK_REDUCE_MIN = 1024;
    /** Reduced elements per block at least (16 per thread), and blocks per output at most. */
    static final long BLOCK_REDUCE_CHUNK = 4096;
    static final int BLOCK_REDUCE_SPLITS = 1024;

    private CudaBackend() {
        JCudaDriver.setExceptionsEnabled(true);
        cuInit(0);
        int[] count = {0};
        cuDeviceGetCount(count);
        if (count[0] == 0) {
            throw new IllegalStateException("no CUDA device found");
        }
        CUdevice device = new CUdevice();
        cuDeviceGet(device, 0);
        byte[] name = new byte[256];
        cuDeviceGetName(name, name.length, device);
        deviceName = new String(name, java.nio.charset.StandardCharsets.US_ASCII).trim().replace("\0", "");
        cuCtxCreate(context, 0, device);
        cuModuleLoadData(module, CudaDriver.ptx());
        allocator = new CachingAllocator(this::current);
    }

    /** Starts the backend (called reflectively); any failure says why CUDA is unavailable. */
    public static CudaBackend start() {
        try {
            CudaDriver.loadOverride();
            return new CudaBackend();
        } catch (UnsatisfiedLinkError e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("libcuda.so")) {
                throw new IllegalStateException("libcuda.so.1 (the NVIDIA driver) is not installed on this machine");
            }
            throw new IllegalStateException("the JCuda natives could not be loaded: " + m.lines().findFirst().orElse(m));
        } catch (jcuda.CudaException e) {
            String m = String.valueOf(e.getMessage());
            throw new IllegalStateException(m.lines().findFirst().orElse(m));
        }
    }

    public String deviceName() {
        return deviceName;
    }

    void current() {
        cuCtxSetCurrent(context);
    }

    CachingAllocator allocator() {
        return allocator;
    }

    private CUfunction fn(String name) {
        synchronized (functions) {
            return functions.computeIfAbsent(name, n -> {
                CUfunction f = new CUfunction();
                current(); // the driver needs a current context on this thread, as for every call
                cuModuleGetFunction(f, module, n);
                return f;
            });
        }
    }

    private static String suffix(DType d) {
        return switch (d) {
            case FLOAT32 -> "f32";
            case FLOAT64 -> "f64";
            case INT64 -> "i64";
        };
    }

    /** Keeps the tensors (and so their storages) reachable until here: see Note [Device memory lifetimes]. */
    private static void keep(Object... alive) {
        Reference.reachabilityFence(alive);
    }

    /** A grid-stride launch over {@code work} items, 256 threads a block. */
    private void launch(String name, long work, Pointer params) {
        long grid = Math.max(1, Math.min((work + 255) / 256, 65535L * 8));
        launchGrid(name, grid, 256, 1, params);
    }

    private void launchGrid(String name, long gridX, int blockX, int blockY, Pointer params) {
        if (gridX > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": " + gridX + " blocks, over grid x's limit");
        }
        CUfunction f = fn(name);
        synchronized (lock) {
            current();
            cuLaunchKernel(f, (int) gridX, 1, 1, blockX, blockY, 1, 0, null, params, null);
            cuCtxSynchronize();
        }
    }

    private Scratch ints(int[] values) {
        Scratch s = allocator.scratch(Math.max(1, values.length) * 4L);
        copyIn(s, Pointer.to(values), values.length * 4L);
        return s;
    }

    private Scratch longs(long[] values) {
        Scratch s = allocator.scratch(Math.max(1, values.length) * 8L);
        copyIn(s, Pointer.to(values), values.length * 8L);
        return s;
    }

    private void copyIn(Scratch s, Pointer from, long bytes) {
        if (bytes == 0) {
            return;
        }
        try {
            synchronized (lock) {
                current();
                cuMemcpyHtoD(s.pointer(), from, bytes);
            }
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public Device device() {
        return Device.CUDA;
    }

    @Override
    public Storage allocate(DType dtype, long numel, MemoryCategory category) {
        return allocator.allocate(dtype, numel, category);
    }

    @Override
    public long liveBytes() {
        return allocator.liveBytes();
    }

    @Override
    public long reservedBytes() {
        return allocator.reservedBytes();
    }

    @Override
    public void freeCached() {
        allocator.freeCached();
    }

    @Override
    public long peakBytes() {
        return allocator.peakBytes();
    }

    @Override
    public void resetPeak() {
        allocator.resetPeak();
    }

    // The elementwise kernels take the storages' base pointers; offsets are in the meta.

    @Override
    public void fill(Tensor out, double value) {
        long n = out.numel();
        if (n == 0) {
            return;
        }
        try (Scratch m = ints(KernelMeta.elementwise(out.shape(), out))) {
            launch("fill_" + suffix(out.dtype()), n, LaunchArgs.of(LaunchArgs.ptr(out.storage()), m, n, value));
        } finally {
            keep(out);
        }
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
        long n = dst.numel();
        if (n == 0) {
            return;
        }
        try (Scratch m = ints(KernelMeta.elementwise(dst.shape(), dst, src))) {
            launch("copy_" + suffix(src.dtype()) + "_" + suffix(dst.dtype()), n, LaunchArgs.of(LaunchArgs.ptr(dst.storage()), LaunchArgs.ptr(src.storage()), m, n));
        } finally {
            keep(src, dst);
        }
    }

    @Override
    public void unary(UnaryKind kind, double param, Tensor x, Tensor out) {
        long n = out.numel();
        if (n == 0) {
            return;
        }
        try (Scratch m = ints(KernelMeta.elementwise(out.shape(), out, x))) {
            launch("unary_" + suffix(out.dtype()), n, LaunchArgs.of(kind.ordinal(), param, LaunchArgs.ptr(out.storage()), LaunchArgs.ptr(x.storage()), m, n));
        } finally {
            keep(x, out);
        }
    }

    @Override
    public void binary(BinaryKind kind, Tensor a, Tensor b, Tensor out) {
        long n = out.numel();
        if (n == 0) {
            return;
        }
        try (Scratch m = ints(KernelMeta.elementwise(out.shape(), out, a, b))) {
            launch("binary_" + suffix(out.dtype()), n,
                    LaunchArgs.of(kind.ordinal(), LaunchArgs.ptr(out.storage()), LaunchArgs.ptr(a.storage()), LaunchArgs.ptr(b.storage()), m, n));
        } finally {
            keep(a, b, out);
        }
    }

    /**
     * Many outputs: a thread each, looping over its elements. Few outputs with many elements each:
     * blocks of 256 threads per output (a tree in shared memory), up to
     * {@link #BLOCK_REDUCE_SPLITS} blocks per output whose partial results a second pass combines.
     * Both orders are fixed, so results are deterministic.
     */
    @Override
    public void reduce(ReduceKind kind, Tensor x, Tensor out) {
        int[] layout = KernelMeta.reduction(x, out);
        long nOut = KernelMeta.outputCount(layout);
        long m = KernelMeta.reducedCount(layout);
        if (nOut == 0) {
            return;
        }
        int k = kind == ReduceKind.SUM ? 0 : 1;
        String s = suffix(out.dtype());
        CUdeviceptr o = LaunchArgs.ptr(out.storage());
        CUdeviceptr xs = LaunchArgs.ptr(x.storage());
        try (Scratch meta = ints(layout)) {
            if (nOut >= BLOCK_REDUCE_OUTPUTS || m < BLOCK_REDUCE_MIN) {
                launch("reduce_" + s, nOut, LaunchArgs.of(k, o, xs, meta, nOut));
                return;
            }
            long chunk = Math.max(BLOCK_REDUCE_CHUNK, (m + BLOCK_REDUCE_SPLITS - 1) / BLOCK_REDUCE_SPLITS);
            int splits = (int) ((m + chunk - 1) / chunk);
            chunk = (m + splits - 1) / splits;
            if (splits == 1) {
                launchGrid("reduce_blocks_" + s, nOut, 256, 1, LaunchArgs.of(k, o, new CUdeviceptr(), xs, meta, nOut, 1, chunk));
                return;
            }
            try (Scratch partial = allocator.scratch(nOut * splits * 8)) {
                launchGrid("reduce_blocks_" + s, nOut * splits, 256, 1, LaunchArgs.of(k, o, partial, xs, meta, nOut, splits, chunk));
                launch("reduce_finish_" + s, nOut, LaunchArgs.of(k, o, partial, meta, nOut, splits));
            }
        } finally {
            keep(x, out);
        }
    }

    @Override
    public void matmul(Tensor a, Tensor b, Tensor out) {
        if (!out.isContiguous() || out.offset() != 0) {
            throw new IllegalArgumentException("matmul output must be a fresh contiguous tensor");
        }
        int rank = out.rank();
        int[] os = out.shape();
        int m = os[rank - 2];
        int n = os[rank - 1];
        int k = a.shape()[rank - 1];
        BatchOffsets offs = BatchOffsets.of(a, b, os);
        int batch = offs.count();
        if (batch == 0 || m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            fill(out, 0);
            return;
        }
        // Every tile along grid x (see matmul_t), in launches of at most 2^31 - 1 blocks.
        long tiles = (long) ((n + 63) / 64) * ((m + 63) / 64);
        int perLaunch = (int) Math.max(1, Math.min(batch, Integer.MAX_VALUE / tiles));
        try (Scratch aOff = longs(offs.a()); Scratch bOff = longs(offs.b())) {
            for (int p0 = 0; p0 < batch; p0 += perLaunch) {
                int count = Math.min(perLaunch, batch - p0);
                launchGrid("matmul_" + suffix(out.dtype()), tiles * count, 16, 16, LaunchArgs.of(LaunchArgs.ptr(a.storage()), LaunchArgs.ptr(b.storage()),
                        LaunchArgs.ptr(out.storage()), aOff, bOff, m, n, k, a.strides()[rank - 2], a.strides()[rank - 1],
                        b.strides()[rank - 2], b.strides()[rank - 1], p0));
            }
        } finally {
            keep(a, b, out);
        }
    }

    @Override
    public void oneHot(Tensor labels, Tensor out) {
        int classes = out.shape()[out.rank() - 1];
        if (labels.numel() == 0 || classes == 0) {
            return;
        }
        // A temporary contiguous copy is released here (an Alloc and its Free), not left to the collector.
        Tensor lab = labels.contiguous();
        try {
            launch("onehot_" + suffix(out.dtype()), lab.numel() * classes, LaunchArgs.of(lab, LaunchArgs.ptr(out.storage()), lab.numel(), classes));
        } finally {
            if (lab != labels) {
                lab.storage().release();
            }
            keep(labels, lab, out);
        }
    }

    private static int lastDim(Tensor t) {
        return t.rank() == 0 ? 1 : t.shape()[t.rank() - 1];
    }

    @Override
    public void softmaxLastAxis(Tensor x, Tensor out, boolean log) {
        int d = lastDim(x);
        if (d == 0 || x.numel() == 0) {
            return;
        }
        int rows = (int) (x.numel() / d);
        try {
            launchGrid("softmax_" + suffix(x.dtype()), rows, 256, 1, LaunchArgs.of(x, out, rows, d, log ? 1 : 0));
        } finally {
            keep(x, out);
        }
    }

    @Override
    public void softmaxBackwardLastAxis(Tensor y, Tensor g, Tensor dx, boolean log) {
        int d = lastDim(y);
        if (d == 0 || y.numel() == 0) {
            return;
        }
        int rows = (int) (y.numel() / d);
        try {
            launchGrid("softmax_back_" + suffix(y.dtype()), rows, 256, 1, LaunchArgs.of(y, g, dx, rows, d, log ? 1 : 0));
        } finally {
            keep(y, g, dx);
        }
    }

    @Override
    public void layerNormRows(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor xhat, Tensor rstd) {
        int d = lastDim(x);
        if (d == 0 || x.numel() == 0) {
            return;
        }
        int rows = (int) (x.numel() / d);
        try {
            launchGrid("layernorm_" + suffix(x.dtype()), rows, 256, 1, LaunchArgs.of(x, weight, bias, eps, out, xhat, rstd, rows, d));
        } finally {
            keep(x, weight, bias, out, xhat, rstd);
        }
    }

    @Override
    public void layerNormBackwardRows(Tensor g, Tensor weight, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db) {
        int d = lastDim(g);
        if (d == 0) {
            return;
        }
        int rows = (int) (g.numel() / d);
        String s = suffix(g.dtype());
        try {
            if (dx != null && rows > 0) {
                launchGrid("layernorm_back_" + s, rows, 256, 1, LaunchArgs.of(g, weight, xhat, rstd, dx, rows, d));
            }
            if (dw != null || db != null) {
                launch("column_sums_" + s, d, LaunchArgs.of(g, xhat, dw == null ? new CUdeviceptr() : LaunchArgs.at(dw),
                        db == null ? new CUdeviceptr() : LaunchArgs.at(db), rows, d));
            }
        } finally {
            keep(g, weight, xhat, rstd, dx, dw, db);
        }
    }

    @Override
    public void upload(Tensor host, Tensor dst) {
        if (host.numel() == 0) {
            return;
        }
        Tensor h = host.dtype() == dst.dtype() ? host.contiguous() : host.to(dst.dtype());
        try {
            Transfers.upload(h, LaunchArgs.at(dst), dst.dtype(), lock, this::current);
        } finally {
            if (h != host) {
                h.storage().release();
            }
            keep(host, h, dst);
        }
    }

    @Override
    public double[] toDoubles(Tensor t) {
        // A temporary contiguous copy is released here (an Alloc and its Free), not left to the collector.
        Tensor c = t.contiguous();
        try {
            return Transfers.download(LaunchArgs.at(c), (int) c.numel(), c.dtype(), lock, this::current);
        } finally {
            if (c != t) {
                c.storage().release();
            }
            keep(t, c);
        }
    }

    @Override
    public double read(Storage s, int index) {
        Tensor one = new Tensor(s, new int[0], new int[0], index);
        return toDoubles(one)[0];
    }
}
