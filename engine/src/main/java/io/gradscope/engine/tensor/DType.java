package io.gradscope.engine.tensor;

/** Element types a tensor can hold. */
public enum DType {
    FLOAT32("float32", 4, true),
    FLOAT64("float64", 8, true),
    INT64("int64", 8, false);

    private final String label;
    private final int bytes;
    private final boolean floating;

    DType(String label, int bytes, boolean floating) {
        this.label = label;
        this.bytes = bytes;
        this.floating = floating;
    }

    public int bytes() {
        return bytes;
    }

    public boolean isFloating() {
        return floating;
    }

    public String label() {
        return label;
    }

    /** Parses "float32", "float64" or "int64". */
    public static DType parse(String s) {
        for (DType d : values()) {
            if (d.label.equals(s)) {
                return d;
            }
        }
        throw new io.gradscope.engine.GradscopeException("unknown dtype '" + s + "' (expected float32, float64 or int64)");
    }

    @Override
    public String toString() {
        return label;
    }
}
