package io.gradscope.engine.device.cpu;

/**
 * Walks an n-dimensional index space over up to three strided operands, one innermost row at a
 * time. Adjacent dimensions that are contiguous for every operand are merged first, so a
 * contiguous tensor is a single row. Kernels see rows, never single elements. With
 * {@code parallel} (only for kernels whose rows write disjoint outputs), large walks are split
 * over the shared pool.
 */
final class StridedLoop {
    private StridedLoop() {
    }

    /** Below this many elements a walk stays on the calling thread. */
    static final int PARALLEL_MIN = 1 << 18;

    /** Called once per innermost row: {@code len} elements starting at each operand's offset. */
    interface Row {
        void run(int len, int o0, int s0, int o1, int s1, int o2, int s2);
    }

    static void run(int[] shape, int[][] strides, int[] offsets, Row row) {
        run(shape, strides, offsets, row, false);
    }

    static void run(int[] shape, int[][] strides, int[] offsets, Row row, boolean parallel) {
        int n = strides.length;
        for (int d : shape) {
            if (d == 0) {
                return;
            }
        }
        // Drop size-1 dimensions and merge contiguous neighbours.
        int[] dims = new int[shape.length];
        int[][] st = new int[3][shape.length];
        int r = 0;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == 1) {
                continue;
            }
            if (r > 0) {
                boolean merge = true;
                for (int k = 0; k < n; k++) {
                    if (st[k][r - 1] != strides[k][i] * shape[i]) {
                        merge = false;
                        break;
                    }
                }
                if (merge) {
                    dims[r - 1] *= shape[i];
                    for (int k = 0; k < n; k++) {
                        st[k][r - 1] = strides[k][i];
                    }
                    continue;
                }
            }
            dims[r] = shape[i];
            for (int k = 0; k < n; k++) {
                st[k][r] = strides[k][i];
            }
            r++;
        }
        int o0 = offsets[0];
        int o1 = n > 1 ? offsets[1] : 0;
        int o2 = n > 2 ? offsets[2] : 0;
        if (r == 0) {
            row.run(1, o0, 0, o1, 0, o2, 0);
            return;
        }
        int len = dims[r - 1];
        int s0 = st[0][r - 1];
        int s1 = st[1][r - 1];
        int s2 = st[2][r - 1];
        int outer = r - 1;
        long rows = 1;
        for (int d = 0; d < outer; d++) {
            rows *= dims[d];
        }
        int threads = CpuThreads.THREADS;
        if (!parallel || threads == 1 || rows * len < PARALLEL_MIN) {
            walk(dims, st, outer, 0, rows, o0, o1, o2, len, s0, s1, s2, row);
        } else if (rows >= threads) {
            // Four parts per thread, handed out as threads come free (a slowed thread takes fewer).
            long total = rows;
            int parts = (int) Math.min(total, 4L * threads);
            CpuThreads.parallelFor(parts, t -> walk(dims, st, outer, total * t / parts, total * (t + 1) / parts,
                    o0, o1, o2, len, s0, s1, s2, row));
        } else {
            // Few long rows: split the rows themselves.
            int parts = 4 * threads;
            long total = rows;
            CpuThreads.parallelFor((int) (total * parts), t -> {
                int q = t % parts;
                int from = (int) ((long) len * q / parts);
                int to = (int) ((long) len * (q + 1) / parts);
                long rowIndex = t / parts;
                walk(dims, st, outer, rowIndex, rowIndex + 1, o0 + from * s0, o1 + from * s1, o2 + from * s2, to - from,
                        s0, s1, s2, row);
            });
        }
    }

    /** Rows [from, to) of the outer index space (mixed radix over dims[0..outer)). */
    private static void walk(int[] dims, int[][] st, int outer, long from, long to, int o0, int o1, int o2, int len,
                             int s0, int s1, int s2, Row row) {
        int[] idx = new int[Math.max(outer, 1)];
        long rest = from;
        for (int d = outer - 1; d >= 0; d--) {
            idx[d] = (int) (rest % dims[d]);
            rest /= dims[d];
            o0 += idx[d] * st[0][d];
            o1 += idx[d] * st[1][d];
            o2 += idx[d] * st[2][d];
        }
        for (long i = from; i < to; i++) {
            row.run(len, o0, s0, o1, s1, o2, s2);
            for (int d = outer - 1; d >= 0; d--) {
                idx[d]++;
                o0 += st[0][d];
                o1 += st[1][d];
                o2 += st[2][d];
                if (idx[d] < dims[d]) {
                    break;
                }
                o0 -= st[0][d] * dims[d];
                o1 -= st[1][d] * dims[d];
                o2 -= st[2][d] * dims[d];
                idx[d] = 0;
            }
        }
    }
}
