package io.gradscope.engine.tensor;

import java.util.function.Supplier;

/**
 * What a block of memory holds, for the memory timeline. The first four are the program's own
 * memory, what a plain training step would use; {@link #HELD_FOR_INSPECTION} is what the debugger
 * keeps past the moment a training step would free it, so the inspector can show every value and
 * gradient. It is accounted apart and never counts in the program's figures.
 */
public enum MemoryCategory {
    PARAMETER, ACTIVATION, GRADIENT, TEMPORARY, HELD_FOR_INSPECTION;

    /**
     * Where a new tensor's category comes from: the memory accounting installs its own as it starts
     * ({@code alloc.Allocations}, which lies above this package); {@link #ACTIVATION} until then,
     * which is what it says outside any scope.
     */
    private static Supplier<MemoryCategory> current = () -> ACTIVATION;

    /** The category a new storage gets if nothing else decides (the innermost open scope's). */
    public static MemoryCategory current() {
        return current.get();
    }

    /** Makes {@code source} say {@link #current()}; the memory accounting calls this once, as it starts. */
    public static void setCurrent(Supplier<MemoryCategory> source) {
        current = source;
    }

    /** Whether the bytes count in the program's own figures (everything but what is held for inspection). */
    public boolean program() {
        return this != HELD_FOR_INSPECTION;
    }

    /** The lower-case name used in JSON and on screen: "parameter", "held_for_inspection". */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
