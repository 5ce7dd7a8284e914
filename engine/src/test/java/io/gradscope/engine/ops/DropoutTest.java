package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * dropout with 0 < p < 1, where PyTorch's random stream gives no reference: what the definition
 * says. Each output is 0 or x/(1 − p), about 1 − p of them kept; the gradient is the same mask; one
 * seed gives one mask, another seed another.
 */
class DropoutTest {
    private static Tensor run(double p, int seed, Tensor x) {
        return Ops.apply(OpRegistry.create("dropout", Map.of("p", p, "seed", seed)), x);
    }

    @Test
    void keptElementsAreScaledAndTheGradientIsTheMask() {
        int n = 20000;
        double p = 0.3;
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = 1 + i % 7;
        }
        Tensor x = Tensor.of(v, n).setRequiresGrad(true);
        Tensor y = run(p, 11, x);
        Backward.run(Ops.sum(y));
        double[] out = y.toDoubleArray();
        double[] g = x.grad().toDoubleArray();
        int kept = 0;
        for (int i = 0; i < n; i++) {
            boolean keep = out[i] != 0;
            kept += keep ? 1 : 0;
            assertEquals(keep ? v[i] / (1 - p) : 0, out[i], 1e-12, "element " + i);
            assertEquals(keep ? 1 / (1 - p) : 0, g[i], 1e-12, "gradient " + i);
        }
        double sigma = Math.sqrt(n * p * (1 - p));
        assertTrue(Math.abs(kept - n * (1 - p)) < 5 * sigma, kept + " kept of " + n);
    }

    @Test
    void aSeedGivesOneMask() {
        Tensor x = Tensor.of(new double[64], 64);
        java.util.Arrays.fill(x.storage().doubles(), 1.0);
        double[] a = run(0.5, 3, x).toDoubleArray();
        assertArrayEquals(a, run(0.5, 3, x).toDoubleArray(), 0);
        assertFalse(java.util.Arrays.equals(a, run(0.5, 4, x).toDoubleArray()));
    }
}
