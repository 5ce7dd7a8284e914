package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Rows;

/**
 * The dependency rule of a convolution or a pooling given by its windows: output row
 * {@code (b, o)} ({@code b} a batch-and-channel plane of {@code l} output positions) reads the
 * window at {@code o} of {@code planes} input planes, the positions inside the input only (never
 * the padding). Holds the window table ({@link SlidingWindow#sources}, {@code k x l}), not the entries.
 */
final class WindowRows implements Rows {
    /** Which input planes output plane {@code b} reads, and how a window position becomes a column. */
    interface Planes {
        /** How many input planes one output plane reads (a convolution's input channels per group). */
        int count();

        /**
         * Where the {@code c}-th plane that output plane {@code b} reads begins: a column is this plus
         * the flat position in the plane, or plus the window offset where the rule is on a weight.
         */
        int base(int b, int c);
    }

    private final int rows;
    private final int cols;
    private final int k;
    private final int l;
    private final int[] plane;
    private final Planes planes;
    private final boolean byOffset;
    private final int[] valid;

    /** {@code byOffset}: a column is the plane's base plus the window offset (a weight's), not the position read. */
    WindowRows(int outPlanes, int cols, int[] plane, int k, Planes planes, boolean byOffset) {
        this.byOffset = byOffset;
        this.k = k;
        this.l = k == 0 ? 0 : plane.length / k;
        this.rows = Math.multiplyExact(outPlanes, l);
        this.cols = cols;
        this.plane = plane;
        this.planes = planes;
        this.valid = new int[l];
        for (int i = 0; i < k; i++) {
            for (int o = 0; o < l; o++) {
                valid[o] += plane[i * l + o] >= 0 ? 1 : 0;
            }
        }
    }

    @Override
    public int rows() {
        return rows;
    }

    @Override
    public int cols() {
        return cols;
    }

    @Override
    public int maxRowCount() {
        return Math.multiplyExact(planes.count(), k);
    }

    @Override
    public int row(int r, int[] buf) {
        int b = r / l;
        int o = r % l;
        int n = 0;
        int count = planes.count();
        for (int c = 0; c < count; c++) {
            int base = planes.base(b, c);
            for (int i = 0, at = o; i < k; i++, at += l) {
                int p = plane[at];
                if (p >= 0) {
                    buf[n++] = base + (byOffset ? i : p);
                }
            }
        }
        return n;
    }

    @Override
    public int rowCount(int r) {
        return planes.count() * valid[r % l];
    }

    @Override
    public long entries() {
        long perPlane = 0;
        for (int v : valid) {
            perPlane += v;
        }
        return (long) (l == 0 ? 0 : rows / l) * planes.count() * perPlane;
    }
}
