package io.gradscope.engine.tensor;

import io.gradscope.engine.memory.MemoryCategory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A flat block of elements owned by a backend. On the CPU {@link #data()} is a {@code float[]},
 * {@code double[]} or {@code long[]}; other backends keep a handle of their own.
 * {@link #release()} returns the bytes to the backend's accounting (once).
 */
public final class Storage {
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final DType dtype;
    private final Device device;
    private final long numel;
    private final Object data;
    private final Releaser releaser;
    private MemoryCategory category;
    private boolean released;

    /** Called once when a storage is released; lets the backend account for it. */
    public interface Releaser {
        void released(Storage storage);
    }

    public Storage(DType dtype, Device device, long numel, Object data, MemoryCategory category, Releaser releaser) {
        this.dtype = dtype;
        this.device = device;
        this.numel = numel;
        this.data = data;
        this.category = category;
        this.releaser = releaser;
    }

    public long id() {
        return id;
    }

    public DType dtype() {
        return dtype;
    }

    public Device device() {
        return device;
    }

    public long numel() {
        return numel;
    }

    public long bytes() {
        return numel * dtype.bytes();
    }

    public Object data() {
        return data;
    }

    public float[] floats() {
        return (float[]) data;
    }

    public double[] doubles() {
        return (double[]) data;
    }

    public long[] longs() {
        return (long[]) data;
    }

    public MemoryCategory category() {
        return category;
    }

    public void setCategory(MemoryCategory category) {
        this.category = category;
    }

    public boolean isReleased() {
        return released;
    }

    /** Gives the bytes back to the backend's accounting; later calls do nothing. */
    public synchronized void release() {
        if (!released) {
            released = true;
            releaser.released(this);
        }
    }
}
