package io.gradscope.engine.tensor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A flat block of elements owned by a backend. On the CPU {@link #data()} is a {@code float[]},
 * {@code double[]} or {@code long[]} of at least {@link #numel()} elements (a large one is its
 * allocator's size class, so it may be longer); other backends keep a handle of their own.
 * {@link #release()} returns the block to the backend's allocator (once), which may hand it to
 * the next storage: reading a released storage's data is a bug, and throws {@link Released}.
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
    private volatile boolean released;
    private long owner = -1;
    private StorageRole role = StorageRole.OTHER;
    private int[] shape;
    private boolean quiet;

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

    private static volatile java.util.function.Consumer<Storage> probe;

    /**
     * Tells {@code p} of every access to any storage's data from now on, on any thread (null: no
     * one). For tests that check when a tensor was last used against when it was freed.
     */
    public static void probe(java.util.function.Consumer<Storage> p) {
        probe = p;
    }

    /** The elements (or the device's handle); a released storage throws {@link Released}. */
    public Object data() {
        if (released) {
            throw new Released(this);
        }
        java.util.function.Consumer<Storage> p = probe;
        if (p != null) {
            p.accept(this);
        }
        return data;
    }

    public float[] floats() {
        return (float[]) data();
    }

    public double[] doubles() {
        return (double[]) data();
    }

    public long[] longs() {
        return (long[]) data();
    }

    public MemoryCategory category() {
        return category;
    }

    public void setCategory(MemoryCategory category) {
        this.category = category;
    }

    /** The value this storage belongs to (a trace id), or -1; set when its allocation is announced. */
    public long owner() {
        return owner;
    }

    public StorageRole role() {
        return role;
    }

    /** The shape it was made for, or {@code [numel]} when unknown. */
    public int[] shape() {
        return shape != null ? shape.clone() : new int[] {(int) Math.min(numel, Integer.MAX_VALUE)};
    }

    /** As {@link #describe(long, StorageRole, int[])} with {@code t}'s shape. */
    public void describeAs(long owner, StorageRole role, Tensor t) {
        this.owner = owner;
        this.role = role;
        this.shape = t.shapeShared();
    }

    /** Records what the storage is, for the memory timeline (the allocation's announcer calls this). */
    public void describe(long owner, StorageRole role, int[] shape) {
        this.owner = owner;
        this.role = role;
        this.shape = shape == null ? null : shape.clone();
    }

    /** Marks a storage whose allocation and release are never reported (memory the program does not own). */
    public void quiet() {
        this.quiet = true;
    }

    /** Whether the storage's allocation and release go unreported. */
    public boolean isQuiet() {
        return quiet;
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

    /** Thrown when a released storage's data is read: its block may already hold another tensor. */
    public static final class Released extends IllegalStateException {
        Released(Storage s) {
            super("storage " + s.id + " (" + s.bytes() + " bytes, " + s.category + ") was released; its block may hold "
                    + "another tensor now (a run without retained values keeps no intermediate values)");
        }
    }
}
