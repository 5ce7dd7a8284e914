package io.gradscope.engine.memory;

import java.util.List;

/**
 * Estimated floating-point operations of one forward op, from its shapes: what recomputing it
 * costs. Matrix products count a multiply and an add per term; the fused norms, softmax and
 * attention count their passes over the data; views cost nothing; anything else one per output
 * element. Estimates, for comparing plans, not a measurement.
 *
 * <pre>{@code
 * Flops.of("matmul", List.of(new int[] {512, 512}, new int[] {512, 512}), new int[] {512, 512});   // 2·512³
 * }</pre>
 */
public final class Flops {
    private Flops() {
    }

    /** The estimate for op {@code op} with these input and output shapes. */
    public static long of(String op, List<int[]> inputs, int[] output) {
        long out = numel(output);
        long in0 = inputs.isEmpty() ? out : numel(inputs.get(0));
        return switch (op) {
            case "matmul" -> {
                int[] a = inputs.get(0);
                int k = a.length == 0 ? 1 : a[a.length - 1];
                yield 2L * Math.max(out, 1) * k;
            }
            case "attention" -> {
                int[] q = inputs.get(0);
                int[] kk = inputs.get(1);
                int d = q[q.length - 1];
                long tq = q.length >= 2 ? q[q.length - 2] : 1;
                long tk = kk.length >= 2 ? kk[kk.length - 2] : 1;
                long batch = numel(q) / Math.max(1, tq * d);
                yield batch * (4L * tq * tk * d + 5L * tq * tk);
            }
            case "reshape", "transpose", "permute", "slice", "broadcast_to" -> 0;
            case "layer_norm", "rms_norm" -> 8L * in0;
            case "softmax", "log_softmax", "logsumexp", "cross_entropy" -> 5L * in0;
            case "sum", "mean", "amax", "mse" -> in0;
            default -> out;
        };
    }

    static long numel(int[] shape) {
        long n = 1;
        for (int d : shape) {
            n *= d;
        }
        return n;
    }
}
