package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.Storage;

/** Moves a strided row between a storage of any dtype and a double buffer. */
final class Rows {
    private Rows() {
    }

    /** Row chunk size: kernels work on at most this many elements at a time. */
    static final int CHUNK = 1024;

    static final ThreadLocal<double[][]> BUFFERS = ThreadLocal.withInitial(() -> new double[3][CHUNK]);

    static void load(Storage s, int off, int stride, int n, double[] buf) {
        switch (s.dtype()) {
            case FLOAT32 -> {
                float[] d = s.floats();
                for (int i = 0; i < n; i++) {
                    buf[i] = d[off + i * stride];
                }
            }
            case FLOAT64 -> {
                double[] d = s.doubles();
                if (stride == 1) {
                    System.arraycopy(d, off, buf, 0, n);
                } else {
                    for (int i = 0; i < n; i++) {
                        buf[i] = d[off + i * stride];
                    }
                }
            }
            case INT64 -> {
                long[] d = s.longs();
                for (int i = 0; i < n; i++) {
                    buf[i] = d[off + i * stride];
                }
            }
        }
    }

    static void store(double[] buf, int n, Storage s, int off, int stride) {
        switch (s.dtype()) {
            case FLOAT32 -> {
                float[] d = s.floats();
                for (int i = 0; i < n; i++) {
                    d[off + i * stride] = (float) buf[i];
                }
            }
            case FLOAT64 -> {
                double[] d = s.doubles();
                if (stride == 1) {
                    System.arraycopy(buf, 0, d, off, n);
                } else {
                    for (int i = 0; i < n; i++) {
                        d[off + i * stride] = buf[i];
                    }
                }
            }
            case INT64 -> {
                long[] d = s.longs();
                for (int i = 0; i < n; i++) {
                    d[off + i * stride] = (long) buf[i];
                }
            }
        }
    }
}
