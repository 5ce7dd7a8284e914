package io.gradscope.engine.backend.cpu;

/**
 * Walks an n-dimensional index space over up to three strided operands, one innermost row at a
 * time. Adjacent dimensions that are contiguous for every operand are merged first, so a
 * contiguous tensor is a single row. Kernels see rows, never single elements.
 */
final class StridedLoop {
    private StridedLoop() {
    }

    /** Called once per innermost row: {@code len} elements starting at each operand's offset. */
    interface Row {
        void run(int len, int o0, int s0, int o1, int s1, int o2, int s2);
    }

    static void run(int[] shape, int[][] strides, int[] offsets, Row row) {
        int n = strides.length;
        for (int d : shape) {
            if (d == 0) {
                return;
            }
        }
        // Drop size-1 dimensions and merge contiguous neighbours.
        int[] dims = new int[shape.length];
        int[][] st = new int[n][shape.length];
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
        int s1 = n > 1 ? st[1][r - 1] : 0;
        int s2 = n > 2 ? st[2][r - 1] : 0;
        int outer = r - 1;
        int[] idx = new int[Math.max(outer, 1)];
        while (true) {
            row.run(len, o0, s0, o1, s1, o2, s2);
            int d = outer - 1;
            while (d >= 0) {
                idx[d]++;
                o0 += st[0][d];
                if (n > 1) {
                    o1 += st[1][d];
                }
                if (n > 2) {
                    o2 += st[2][d];
                }
                if (idx[d] < dims[d]) {
                    break;
                }
                o0 -= st[0][d] * dims[d];
                if (n > 1) {
                    o1 -= st[1][d] * dims[d];
                }
                if (n > 2) {
                    o2 -= st[2][d] * dims[d];
                }
                idx[d] = 0;
                d--;
            }
            if (d < 0) {
                return;
            }
        }
    }
}
