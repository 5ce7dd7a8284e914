package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each op's recompute cost ({@link Op#flops}): the figures of the ops with most work per output
 * against formulas written out here from the shapes alone, and a figure from every op in the
 * table, over its op-table rows: zero for what its spec marks a view, more than zero for anything
 * else that has elements to compute.
 */
class OpFlopsTest {

    private static long flops(String op, Map<String, Object> attrs, int[]... inputs) {
        Op o = OpRegistry.create(op, attrs);
        DType[] dtypes = new DType[inputs.length];
        java.util.Arrays.fill(dtypes, DType.FLOAT64);
        return o.flops(inputs, o.outputShape(inputs, dtypes));
    }

    @Test
    void matmulCountsAMultiplyAndAnAddPerTerm() {
        assertEquals(2L * 512 * 512 * 512, flops("matmul", Map.of(), new int[] {512, 512}, new int[] {512, 512}));
        // [2, 5, 3, 4] @ [4, 6]: 2·5 batches of 3 x 6 outputs, 4 terms each.
        assertEquals(2L * (2 * 5) * (3 * 6) * 4, flops("matmul", Map.of(), new int[] {2, 5, 3, 4}, new int[] {4, 6}));
        assertEquals(2L * 7, flops("matmul", Map.of(), new int[] {7}, new int[] {7}));
    }

    /** The output length of a convolution along one axis, as PyTorch's docs give it. */
    private static int outLength(int in, int k, int stride, int pad, int dil) {
        return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
    }

    @Test
    void conv2dCountsEachWeightAWindowMeets() {
        int n = 2, cin = 6, cout = 4, h = 11, w = 9, kh = 3, kw = 2;
        for (int groups : new int[] {1, 2}) {
            for (int stride : new int[] {1, 2}) {
                for (int dil : new int[] {1, 2}) {
                    for (boolean bias : new boolean[] {false, true}) {
                        int pad = 1;
                        long outputs = (long) n * cout * outLength(h, kh, stride, pad, dil) * outLength(w, kw, stride, pad, dil);
                        long expected = outputs * 2L * (cin / groups) * kh * kw + (bias ? outputs : 0);
                        Map<String, Object> attrs = Map.of("stride", new int[] {stride}, "padding", new int[] {pad},
                                "dilation", new int[] {dil}, "groups", groups);
                        int[] x = {n, cin, h, w};
                        int[] wt = {cout, cin / groups, kh, kw};
                        long got = bias ? flops("conv2d", attrs, x, wt, new int[] {cout}) : flops("conv2d", attrs, x, wt);
                        assertEquals(expected, got, "groups " + groups + " stride " + stride + " dilation " + dil + " bias " + bias);
                    }
                }
            }
        }
    }

    @Test
    void conv1dCountsEachWeightAWindowMeets() {
        int n = 3, cin = 4, cout = 5, len = 20, k = 3;
        long outputs = (long) n * cout * outLength(len, k, 2, 0, 1);
        assertEquals(outputs * 2 * cin * k, flops("conv1d", Map.of("stride", new int[] {2}), new int[] {n, cin, len},
                new int[] {cout, cin, k}));
    }

    /** A convolution costs what the same product written as unfold and matmul costs in its matmul. */
    @Test
    void conv2dCostsWhatItsProductAsUnfoldAndMatmulCosts() {
        int n = 2, cin = 3, cout = 8, h = 10, w = 10, k = 3;
        long conv = flops("conv2d", Map.of(), new int[] {n, cin, h, w}, new int[] {cout, cin, k, k});
        int l = (h - k + 1) * (w - k + 1);
        long product = flops("matmul", Map.of(), new int[] {cout, cin * k * k}, new int[] {n, cin * k * k, l});
        assertEquals(product, conv);
        assertTrue(conv > flops("relu", Map.of(), new int[] {n, cout, h - k + 1, w - k + 1}) * 10, "more than one per output");
    }

    @Test
    void attentionCountsBothProductsAndTheSoftmax() {
        int b = 3, tq = 5, tk = 7, d = 4, dv = 6;
        long expected = (long) b * (2L * tq * tk * d + 5L * tq * tk + 2L * tq * tk * dv);
        assertEquals(expected, flops("attention", Map.of(), new int[] {b, tq, d}, new int[] {b, tk, d}, new int[] {b, tk, dv}));
        assertEquals(expected, flops("attention", Map.of("causal", true), new int[] {b, tq, d}, new int[] {b, tk, d},
                new int[] {b, tk, dv}));
    }

    @Test
    void normsCountTheirPassesOverX() {
        int[] x = {4, 6, 8};
        long n = 4 * 6 * 8;
        // layer_norm: mean, centre, variance (square and add), normalize, weight, bias.
        assertEquals(7 * n, flops("layer_norm", Map.of(), x, new int[] {8}, new int[] {8}));
        // rms_norm: mean square (square and add), scale, weight.
        assertEquals(4 * n, flops("rms_norm", Map.of(), x, new int[] {8}));
        int[] c = {6};
        assertEquals(4 * n, flops("batch_norm", Map.of(), new int[] {4, 6, 8}, c, c, c, c));
        assertEquals(5 * n, flops("softmax", Map.of(), x));
    }

    @Test
    void viewsCostNothingAndCopiesCostTheirOutput() {
        assertEquals(0, flops("reshape", Map.of("shape", new int[] {6, 4}), new int[] {4, 6}));
        assertEquals(0, flops("transpose", Map.of(), new int[] {4, 6}));
        assertEquals(0, flops("broadcast_to", Map.of("shape", new int[] {3, 4, 6}), new int[] {4, 6}));
        assertEquals(3 * 5, flops("relu", Map.of(), new int[] {3, 5}));
    }

    /** A transposed convolution costs what the convolution it is the VJP of costs (the same products, read backwards). */
    @Test
    void convTransposeCostsWhatItsConvolutionCosts() {
        int n = 2, cin = 6, cout = 4, h = 5, w = 7, k = 3;
        for (int groups : new int[] {1, 2}) {
            Map<String, Object> attrs = Map.of("stride", new int[] {2}, "padding", new int[] {1}, "groups", groups);
            int[] x = {n, cin, h, w};
            int[] wt = {cin, cout / groups, k, k};
            long t = flops("conv_transpose2d", attrs, x, wt);
            int[] y = OpRegistry.create("conv_transpose2d", attrs).outputShape(new int[][] {x, wt},
                    new DType[] {DType.FLOAT64, DType.FLOAT64});
            // conv2d from y (cout channels) back to x's shape (cin channels), weight [cin, cout/groups, k, k]
            long conv = flops("conv2d", attrs, y, wt);
            assertEquals(conv, t, "groups " + groups);
            assertEquals(t + Shapes.numel(y), flops("conv_transpose2d", attrs, x, wt, new int[] {cout}), "the bias, one per output");
        }
    }

    @Test
    void einsumCountsEveryCombinationOfLetters() {
        // "ij,jk->ik" is a matmul laid out over i, j, k: one multiply and one add per (i, j, k).
        assertEquals(flops("matmul", Map.of(), new int[] {3, 4}, new int[] {4, 5}),
                flops("einsum", Map.of("equation", "ij,jk->ik"), new int[] {3, 4}, new int[] {4, 5}));
        assertEquals(3L * 2 * 3 * 4, flops("einsum", Map.of("equation", "i,j,k->ijk"), new int[] {2}, new int[] {3}, new int[] {4}));
    }

    /** Ops that reduce or scan read every input element at least once, whatever their output's size (a loss is one number). */
    @Test
    void reductionsCountEveryInputElement() {
        List<String> reducing = List.of("sum", "mean", "amax", "logsumexp", "var", "std", "prod", "max", "min", "cumsum", "mse",
                "cross_entropy", "nll_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits", "kl_div",
                "group_norm", "layer_norm", "adaptive_avg_pool2d");
        List<String> wrong = new ArrayList<>();
        for (OpRow r : OpRow.load()) {
            if (reducing.contains(r.op())) {
                int[][] in = r.inputs().stream().map(OpRow.Arr::shape).toArray(int[][]::new);
                if (r.create().flops(in, r.output().shape()) < Shapes.numel(in[0])) {
                    wrong.add(r.toString());
                }
            }
        }
        assertTrue(wrong.isEmpty(), "fewer flops than input elements: " + wrong);
    }

    /** Every op of the table, over every row of it: a figure, zero for views, above zero for anything with work. */
    @Test
    void everyOpGivesAFigure() {
        Map<String, List<OpRow>> rows = new HashMap<>();
        for (OpRow r : OpRow.load()) {
            rows.computeIfAbsent(r.op(), k -> new ArrayList<>()).add(r);
        }
        List<String> wrong = new ArrayList<>();
        for (OpSpec s : OpSpecs.all()) {
            List<OpRow> mine = rows.getOrDefault(s.name(), List.of());
            assertTrue(!mine.isEmpty(), s.name() + " has no op-table rows");
            for (OpRow r : mine) {
                int[][] in = r.inputs().stream().map(OpRow.Arr::shape).toArray(int[][]::new);
                long f = r.create().flops(in, r.output().shape());
                boolean work = Shapes.numel(r.output().shape()) > 0 && java.util.Arrays.stream(in).allMatch(a -> Shapes.numel(a) > 0);
                if (s.view() ? f != 0 : f < 0 || (work && f == 0)) {
                    wrong.add(r + ": " + f);
                }
            }
        }
        assertTrue(wrong.isEmpty(), "flops: " + wrong);
    }
}
