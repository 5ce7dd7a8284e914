package io.gradscope.engine.tensor;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The allocator of each device, as the backends registered them. A storage only exists once its
 * backend made it, so a storage's device always has one here.
 */
public final class Allocators {
    private static final AtomicReferenceArray<Allocator> BY_DEVICE = new AtomicReferenceArray<>(Device.values().length);

    private Allocators() {
    }

    /** Makes {@code allocator} the one of {@code device} (a backend calls this as it starts). */
    public static void register(Device device, Allocator allocator) {
        BY_DEVICE.set(device.ordinal(), allocator);
    }

    /** The allocator registered for {@code device}; an {@link IllegalStateException} when none is. */
    public static Allocator of(Device device) {
        Allocator a = BY_DEVICE.get(device.ordinal());
        if (a == null) {
            throw new IllegalStateException("no allocator is registered for " + device);
        }
        return a;
    }

    /** Starts a run on every registered allocator ({@link Allocator#startRun()}): a debugger's run, measured alone. */
    public static void startRun() {
        for (int i = 0; i < BY_DEVICE.length(); i++) {
            Allocator a = BY_DEVICE.get(i);
            if (a != null) {
                a.startRun();
            }
        }
    }
}
