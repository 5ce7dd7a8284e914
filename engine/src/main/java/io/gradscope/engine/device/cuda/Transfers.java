package io.gradscope.engine.device.cuda;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * Host-device copies in chunks through one direct staging buffer, with byte offsets in longs: a
 * tensor of 2 GiB or more never needs an int-sized buffer, and an upload reads the host tensor's
 * own array (no whole {@code double[]} copy on the heap).
 */
final class Transfers {
    private Transfers() {
    }

    /** The staging buffer's size; tests make it small to cross chunk boundaries on small tensors. */
    static volatile int chunkBytes = 32 << 20;

    /** Elements per chunk for elements of {@code width} bytes. */
    static int chunkElements(int width) {
        return Math.max(1, chunkBytes / width);
    }

    /**
     * Copies the contiguous CPU tensor {@code host} (dtype {@code dtype}) to {@code dst} on the
     * device. {@code current} makes the context current; {@code lock} serialises driver calls.
     */
    static void upload(Tensor host, CUdeviceptr dst, DType dtype, Object lock, Runnable current) {
        long n = host.numel();
        int w = dtype.bytes();
        int chunk = chunkElements(w);
        ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.min(n, chunk) * w).order(ByteOrder.nativeOrder());
        Object data = host.storage().data();
        int base = host.offset();
        for (long done = 0; done < n; done += chunk) {
            int len = (int) Math.min(chunk, n - done);
            int from = base + (int) done;
            buf.clear();
            switch (dtype) {
                case FLOAT32 -> buf.asFloatBuffer().put((float[]) data, from, len);
                case FLOAT64 -> buf.asDoubleBuffer().put((double[]) data, from, len);
                case INT64 -> buf.asLongBuffer().put((long[]) data, from, len);
            }
            synchronized (lock) {
                current.run();
                cuMemcpyHtoD(dst.withByteOffset(done * w), Pointer.to(buf), (long) len * w);
            }
        }
    }

    /** Copies {@code n} contiguous elements of {@code dtype} at {@code src} into a new double array. */
    static double[] download(CUdeviceptr src, int n, DType dtype, Object lock, Runnable current) {
        double[] out = new double[n];
        if (n == 0) {
            return out;
        }
        int w = dtype.bytes();
        int chunk = chunkElements(w);
        ByteBuffer buf = ByteBuffer.allocateDirect(Math.min(n, chunk) * w).order(ByteOrder.nativeOrder());
        for (long at = 0; at < n; at += chunk) {
            int done = (int) at;
            int len = (int) Math.min(chunk, n - at);
            buf.clear();
            synchronized (lock) {
                current.run();
                cuMemcpyDtoH(Pointer.to(buf), src.withByteOffset(at * w), (long) len * w);
            }
            switch (dtype) {
                case FLOAT32 -> {
                    java.nio.FloatBuffer f = buf.asFloatBuffer();
                    for (int i = 0; i < len; i++) {
                        out[done + i] = f.get(i);
                    }
                }
                case FLOAT64 -> buf.asDoubleBuffer().get(out, done, len);
                case INT64 -> {
                    java.nio.LongBuffer l = buf.asLongBuffer();
                    for (int i = 0; i < len; i++) {
                        out[done + i] = l.get(i);
                    }
                }
            }
        }
        return out;
    }
}
