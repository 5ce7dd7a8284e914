package io.gradscope.engine.recompute;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.MemoryReport;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 44: the weight gradient of {@code [B, M, K] @ [K, N]} was a batched product summed over the
 * batch, a temporary of B times the weight's size (ViT-B/16's input projection: 1.3 GiB at its peak);
 * with the batch folded into the rows (Note [Batch folded into rows]) it is one [K, N] product, in the
 * run and in the memory planner's prediction (a meta-device run of the same VJP).
 */
class MatMulWeightGradTest {
    private static final int B = 256;
    private static final int M = 4;
    private static final int K = 64;
    private static final int N = 64;

    @Test
    void theWeightGradientHoldsNoBatchOfWeights() {
        Program p = Program.parse("proj.grad", "x = input(" + B + ", " + M + ", " + K + ")\nW = param(" + K + ", " + N
                + ")\nL = sum(x @ W)\n");
        RunOptions options = new RunOptions(DType.FLOAT64, 0, Map.of());
        long batchOfWeights = 8L * B * K * N; // what the batched product held, 4 times x
        long x = 8L * B * M * K;
        MemoryReport r = MemoryReport.measure(p, options, RematPolicy.NONE, 1);
        assertTrue(r.peakBytes() < batchOfWeights, "peak " + r.peakBytes() + " bytes, a batch of weights is " + batchOfWeights);
        // x, y = x @ W and its gradient, W and dW: about 2.1 times x
        assertTrue(r.peakBytes() <= 3 * x, "peak " + r.peakBytes() + " bytes against x's " + x);
        long predicted = p.plan(options, RematPolicy.NONE, true).predictedPeak();
        assertTrue(predicted <= 3 * x, "predicted peak " + predicted + " bytes against x's " + x);
    }

    @Test
    void theFoldedGradientIsTheSumOverTheBatch() {
        Random rnd = new Random(3);
        int b = 3;
        int m = 2;
        int k = 4;
        int n = 5;
        double[] xs = new double[b * m * k];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = rnd.nextGaussian();
        }
        double[] us = new double[b * m * n];
        for (int i = 0; i < us.length; i++) {
            us[i] = rnd.nextGaussian();
        }
        Program p = Program.parse("proj.grad", "x = input(1, " + b + ", " + m + ", " + k + ")\nW = param(1, 1, " + k + ", " + n
                + ")\nu = input(" + b + ", " + m + ", " + n + ")\nL = sum((x @ W) * u)\n");
        ProgramRun run = p.run(new RunOptions(DType.FLOAT64, 0, Map.of("x", Tensor.of(xs, 1, b, m, k), "u", Tensor.of(us, b, m, n))));
        // dW[i, j] = Σ over the batch and rows of x[.., r, i] · u[.., r, j], by loops
        double[] expected = new double[k * n];
        for (int r = 0; r < b * m; r++) {
            for (int i = 0; i < k; i++) {
                for (int j = 0; j < n; j++) {
                    expected[i * n + j] += xs[r * k + i] * us[r * n + j];
                }
            }
        }
        assertClose(expected, run.gradient("W").toDoubleArray(), 1e-12, 1e-12, "dW");
    }
}
