package io.gradscope.engine.backend.cuda;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import io.gradscope.engine.backend.Backend;
import io.gradscope.engine.backend.BatchOffsets;
import io.gradscope.engine.backend.BinaryKind;
import io.gradscope.engine.backend.ReduceKind;
import io.gradscope.engine.backend.UnaryKind;
import io.gradscope.engine.memory.MemoryCategory;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * Loaded by reflection from {@link io.gradscope.engine.backend.Backends} only when asked for.
 */
public final class CudaBackend implements Backend {
    private final CUcontext context = new CUcontext();
    private final CUmodule module = new CUmodule();
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final CachingAllocator allocator;
    private final String deviceName;

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
        cuModuleLoadData(module, ptx());
        allocator = new CachingAllocator(this::current);
    }

    /**
     * The system property naming a driver library to load in place of the system's libcuda.so.1:
     * the tests' CPU stand-in (engine/src/test/native/cuda-standin). JCuda's native library then
     * binds to it, since a library with that soname is already loaded. Unset, blank or
     * {@code system}: the system's driver.
     */
    static final String DRIVER_PROPERTY = "gradscope.cuda.driver";

    private static void loadDriverOverride() {
        String path = System.getProperty(DRIVER_PROPERTY, "");
        if (path.isBlank() || path.equals("system")) {
            return;
        }
        java.nio.file.Path p = java.nio.file.Path.of(path).toAbsolutePath();
        if (!java.nio.file.Files.isRegularFile(p)) {
            java.nio.file.Path why = p.resolveSibling("NOT-BUILT");
            String reason = "";
            try {
                reason = java.nio.file.Files.isRegularFile(why) ? ": " + java.nio.file.Files.readString(why).strip() : "";
            } catch (IOException e) {
                // no reason then
            }
            throw new IllegalStateException("the driver stand-in " + p + " is not built" + reason);
        }
        System.load(p.toString());
    }

    /** Starts the backend (called reflectively); any failure says why CUDA is unavailable. */
    public static CudaBackend start() {
        try {
            loadDriverOverride();
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

    private static byte[] ptx() {
        try (InputStream in = CudaBackend.class.getResourceAsStream("/kernels/gradscope.ptx")) {
            if (in == null) {
                throw new IllegalStateException("kernels/gradscope.ptx is missing from the class path");
            }
            byte[] b = in.readAllBytes();
            byte[] z = java.util.Arrays.copyOf(b, b.length + 1);
            return z;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the kernels: " + e.getMessage());
        }
    }

    public String deviceName() {
        return deviceName;
    }

    void current() {
        cuCtxSetCurrent(context);
    }

    private CUfunction fn(String name) {
        return functions.computeIfAbsent(name, n -> {
            CUfunction f = new CUfunction();
            cuModuleGetFunction(f, module, n);
            return f;
        });
    }

    private static String suffix(DType d) {
        return switch (d) {
            case FLOAT32 -> "f32";
            case FLOAT64 -> "f64";
            case INT64 -> "i64";
        };
    }

    private static CUdeviceptr ptr(Storage s) {
        return (CUdeviceptr) s.data();
    }

    private synchronized void launch(String name, long work, Pointer params) {
        current();
        int block = 256;
        long grid = Math.max(1, Math.min((work + block - 1) / block, 65535L * 8));
        cuLaunchKernel(fn(name), (int) grid, 1, 1, block, 1, 1, 0, null, params, null);
        cuCtxSynchronize();
    }

    private synchronized void launchRows(String name, int rows, Pointer params) {
        current();
        cuLaunchKernel(fn(name), Math.max(rows, 1), 1, 1, 256, 1, 1, 0, null, params, null);
        cuCtxSynchronize();
    }

    /** Uploads a meta array (rank, shape, then strides and offset per operand); freed by the caller. */
    private Storage meta(int[] shape, Tensor... operands) {
        int r = shape.length;
        int[] m = new int[1 + r + operands.length * (r + 1)];
        m[0] = r;
        System.arraycopy(shape, 0, m, 1, r);
        int at = 1 + r;
        for (Tensor t : operands) {
            System.arraycopy(t.strides(), 0, m, at, r);
            m[at + r] = t.offset();
            at += r + 1;
        }
        return ints(m);
    }

    private Storage ints(int[] values) {
        Storage s = allocator.raw(Math.max(1, values.length) * 4L);
        current();
        if (values.length > 0) {
            cuMemcpyHtoD(ptr(s), Pointer.to(values), values.length * 4L);
        }
        return s;
    }

    private Storage longs(long[] values) {
        Storage s = allocator.raw(Math.max(1, values.length) * 8L);
        current();
        if (values.length > 0) {
            cuMemcpyHtoD(ptr(s), Pointer.to(values), values.length * 8L);
        }
        return s;
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
    public long peakBytes() {
        return allocator.peakBytes();
    }

    @Override
    public void resetPeak() {
        allocator.resetPeak();
    }

    @Override
    public void fill(Tensor out, double value) {
        long n = out.numel();
        if (n == 0) {
            return;
        }
        Storage m = meta(out.shape(), out);
        launch("fill_" + suffix(out.dtype()), n, Pointer.to(Pointer.to(ptr(out.storage())), Pointer.to(ptr(m)),
                Pointer.to(new long[] {n}), Pointer.to(new double[] {value})));
        m.release();
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
        long n = dst.numel();
        if (n == 0) {
            return;
        }
        Storage m = meta(dst.shape(), dst, src);
        launch("copy_" + suffix(src.dtype()) + "_" + suffix(dst.dtype()), n, Pointer.to(Pointer.to(ptr(dst.storage())),
                Pointer.to(ptr(src.storage())), Pointer.to(ptr(m)), Pointer.to(new long[] {n})));
        m.release();
    }

    @Override
    public void unary(UnaryKind kind, double param, Tensor x, Tensor out) {
        long n = out.numel();
        if (n == 0) {
            return;
        }
        Storage m = meta(out.shape(), out, x);
        launch("unary_" + suffix(out.dtype()), n, Pointer.to(Pointer.to(new int[] {kind.ordinal()}),
                Pointer.to(new double[] {param}), Pointer.to(ptr(out.storage())), Pointer.to(ptr(x.storage())),
                Pointer.to(ptr(m)), Pointer.to(new long[] {n})));
        m.release();
    }

    @Override
    public void binary(BinaryKind kind, Tensor a, Tensor b, Tensor out) {
        long n = out.numel();
        if (n == 0) {
            return;
        }
        Storage m = meta(out.shape(), out, a, b);
        launch("binary_" + suffix(out.dtype()), n, Pointer.to(Pointer.to(new int[] {kind.ordinal()}),
                Pointer.to(ptr(out.storage())), Pointer.to(ptr(a.storage())), Pointer.to(ptr(b.storage())),
                Pointer.to(ptr(m)), Pointer.to(new long[] {n})));
        m.release();
    }

    @Override
    public void reduce(ReduceKind kind, Tensor x, Tensor out) {
        int[] xs = x.shape();
        int r = xs.length;
        int[] os = out.shape();
        int[] ost = out.strides();
        long nOut = 1;
        int[] m = new int[1 + r + (r + 1) + (r + 1)];
        m[0] = r;
        for (int d = 0; d < r; d++) {
            m[1 + d] = xs[d];
            m[1 + r + d] = x.strides()[d];
            boolean reduced = os[d] == 1 && xs[d] != 1;
            m[1 + r + r + 1 + d] = reduced ? -1 : ost[d];
            if (!reduced) {
                nOut *= xs[d];
            }
        }
        m[1 + r + r] = x.offset();
        m[1 + r + r + 1 + r] = out.offset();
        if (nOut == 0) {
            return;
        }
        Storage meta = ints(m);
        launch("reduce_" + suffix(out.dtype()), nOut, Pointer.to(Pointer.to(new int[] {kind == ReduceKind.SUM ? 0 : 1}),
                Pointer.to(ptr(out.storage())), Pointer.to(ptr(x.storage())), Pointer.to(ptr(meta)), Pointer.to(new long[] {nOut})));
        meta.release();
    }

    @Override
    public void matmul(Tensor a, Tensor b, Tensor out) {
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
        long[] ao = offs.a();
        long[] bo = offs.b();
        Storage aOff = longs(ao);
        Storage bOff = longs(bo);
        Pointer params = Pointer.to(Pointer.to(ptr(a.storage())), Pointer.to(ptr(b.storage())), Pointer.to(ptr(out.storage())),
                Pointer.to(ptr(aOff)), Pointer.to(ptr(bOff)), Pointer.to(new int[] {m}), Pointer.to(new int[] {n}),
                Pointer.to(new int[] {k}), Pointer.to(new int[] {a.strides()[rank - 2]}), Pointer.to(new int[] {a.strides()[rank - 1]}),
                Pointer.to(new int[] {b.strides()[rank - 2]}), Pointer.to(new int[] {b.strides()[rank - 1]}));
        synchronized (this) {
            current();
            cuLaunchKernel(fn("matmul_" + suffix(out.dtype())), (n + 63) / 64, (m + 63) / 64, batch, 16, 16, 1, 0, null, params, null);
            cuCtxSynchronize();
        }
        aOff.release();
        bOff.release();
    }

    @Override
    public void oneHot(Tensor labels, Tensor out) {
        Tensor lab = labels.contiguous();
        long n = lab.numel();
        int classes = out.shape()[out.rank() - 1];
        if (n == 0 || classes == 0) {
            return;
        }
        CUdeviceptr base = ptr(lab.storage()).withByteOffset(lab.offset() * 8L);
        launch("onehot_" + suffix(out.dtype()), n * classes, Pointer.to(Pointer.to(base), Pointer.to(ptr(out.storage())),
                Pointer.to(new long[] {n}), Pointer.to(new int[] {classes})));
    }

    private static int lastDim(Tensor t) {
        return t.rank() == 0 ? 1 : t.shape()[t.rank() - 1];
    }

    private static CUdeviceptr at(Tensor t) {
        return ptr(t.storage()).withByteOffset((long) t.offset() * t.dtype().bytes());
    }

    @Override
    public void softmaxLastAxis(Tensor x, Tensor out, boolean log) {
        int d = lastDim(x);
        if (d == 0 || x.numel() == 0) {
            return;
        }
        int rows = (int) (x.numel() / d);
        launchRows("softmax_" + suffix(x.dtype()), rows, Pointer.to(Pointer.to(at(x)), Pointer.to(at(out)),
                Pointer.to(new int[] {rows}), Pointer.to(new int[] {d}), Pointer.to(new int[] {log ? 1 : 0})));
    }

    @Override
    public void softmaxBackwardLastAxis(Tensor y, Tensor g, Tensor dx, boolean log) {
        int d = lastDim(y);
        if (d == 0 || y.numel() == 0) {
            return;
        }
        int rows = (int) (y.numel() / d);
        launchRows("softmax_back_" + suffix(y.dtype()), rows, Pointer.to(Pointer.to(at(y)), Pointer.to(at(g)), Pointer.to(at(dx)),
                Pointer.to(new int[] {rows}), Pointer.to(new int[] {d}), Pointer.to(new int[] {log ? 1 : 0})));
    }

    @Override
    public void layerNormRows(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor xhat, Tensor rstd) {
        int d = lastDim(x);
        if (d == 0 || x.numel() == 0) {
            return;
        }
        int rows = (int) (x.numel() / d);
        launchRows("layernorm_" + suffix(x.dtype()), rows, Pointer.to(Pointer.to(at(x)), Pointer.to(at(weight)), Pointer.to(at(bias)),
                Pointer.to(new double[] {eps}), Pointer.to(at(out)), Pointer.to(at(xhat)), Pointer.to(at(rstd)),
                Pointer.to(new int[] {rows}), Pointer.to(new int[] {d})));
    }

    @Override
    public void layerNormBackwardRows(Tensor g, Tensor weight, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db) {
        int d = lastDim(g);
        if (d == 0) {
            return;
        }
        int rows = (int) (g.numel() / d);
        String s = suffix(g.dtype());
        if (dx != null && rows > 0) {
            launchRows("layernorm_back_" + s, rows, Pointer.to(Pointer.to(at(g)), Pointer.to(at(weight)), Pointer.to(at(xhat)),
                    Pointer.to(at(rstd)), Pointer.to(at(dx)), Pointer.to(new int[] {rows}), Pointer.to(new int[] {d})));
        }
        if (dw != null || db != null) {
            launch("column_sums_" + s, d, Pointer.to(Pointer.to(at(g)), Pointer.to(at(xhat)),
                    Pointer.to(dw == null ? new CUdeviceptr() : at(dw)), Pointer.to(db == null ? new CUdeviceptr() : at(db)),
                    Pointer.to(new int[] {rows}), Pointer.to(new int[] {d})));
        }
    }

    @Override
    public void upload(Tensor host, Tensor dst) {
        long n = host.numel();
        if (n == 0) {
            return;
        }
        double[] v = host.toDoubleArray();
        int w = dst.dtype().bytes();
        ByteBuffer buf = ByteBuffer.allocateDirect((int) (n * w)).order(ByteOrder.nativeOrder());
        for (double x : v) {
            switch (dst.dtype()) {
                case FLOAT32 -> buf.putFloat((float) x);
                case FLOAT64 -> buf.putDouble(x);
                case INT64 -> buf.putLong((long) x);
            }
        }
        buf.flip();
        synchronized (this) {
            current();
            cuMemcpyHtoD(at(dst), Pointer.to(buf), n * w);
        }
    }

    @Override
    public double[] toDoubles(Tensor t) {
        Tensor c = t.isContiguous() ? t : t.contiguous();
        int n = (int) c.numel();
        double[] out = new double[n];
        if (n == 0) {
            return out;
        }
        int w = c.dtype().bytes();
        ByteBuffer buf = ByteBuffer.allocateDirect(n * w).order(ByteOrder.nativeOrder());
        synchronized (this) {
            current();
            cuMemcpyDtoH(Pointer.to(buf), at(c), (long) n * w);
        }
        for (int i = 0; i < n; i++) {
            out[i] = switch (c.dtype()) {
                case FLOAT32 -> buf.getFloat(i * 4);
                case FLOAT64 -> buf.getDouble(i * 8);
                case INT64 -> buf.getLong(i * 8);
            };
        }
        return out;
    }

    @Override
    public double read(Storage s, int index) {
        Tensor one = new Tensor(s, new int[0], new int[0], index);
        return toDoubles(one)[0];
    }
}
