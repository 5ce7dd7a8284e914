package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Shapes;
import java.util.Arrays;

/**
 * Building blocks of the ops' dependency rules ({@link Op#dependencies}): index maps between a
 * tensor's elements and another's, all in C order. An elementwise op is a broadcast map, a view a
 * strided map, a reduction a scatter into groups, softmax a block per group.
 */
final class Dependencies {
    private Dependencies() {
    }

    static int numel(int[] shape) {
        return (int) Shapes.numel(shape);
    }

    /** For every element of {@code shape} (C order), {@code offset + Σ coordinate·stride}. */
    static int[] walk(int[] shape, int[] strides, int offset) {
        int n = numel(shape);
        int[] out = new int[n];
        int r = shape.length;
        int[] c = new int[r];
        int pos = offset;
        for (int e = 0; e < n; e++) {
            out[e] = pos;
            for (int d = r - 1; d >= 0; d--) {
                c[d]++;
                pos += strides[d];
                if (c[d] < shape[d]) {
                    break;
                }
                pos -= strides[d] * shape[d];
                c[d] = 0;
            }
        }
        return out;
    }

    /** The strides that read {@code in} broadcast to {@code out} (0 along broadcast axes). */
    static int[] broadcastStrides(int[] in, int[] out) {
        int[] s = Shapes.contiguousStrides(in);
        int[] b = new int[out.length];
        int lead = out.length - in.length;
        for (int d = 0; d < in.length; d++) {
            b[lead + d] = in[d] == 1 && out[lead + d] != 1 ? 0 : s[d];
        }
        return b;
    }

    /** Each output element depends on the input element broadcast onto it (elementwise ops). */
    static Pattern broadcast(int[] out, int[] in) {
        return Pattern.gather(walk(out, broadcastStrides(in, out), 0), numel(in));
    }

    /** For every element of {@code shape}, the index of its group: the axes {@code ax} collapsed. */
    static int[] groups(int[] shape, int[] ax) {
        int[] kept = Shapes.keepDims(shape, ax);
        int[] s = Shapes.contiguousStrides(kept);
        for (int a : ax) {
            s[a] = 0;
        }
        return walk(shape, s, 0);
    }

    /** Each output element of a reduction over {@code ax} depends on its group's elements. */
    static Pattern reduce(int[] in, int[] ax) {
        return Pattern.scatter(groups(in, ax), numel(Shapes.keepDims(in, ax)));
    }

    /** Every element depends on every element of its own group along {@code ax} (softmax, a norm's rows). */
    static Pattern blocks(int[] shape, int[] ax) {
        int[] g = groups(shape, ax);
        return Pattern.sameGroup(g, g, numel(Shapes.keepDims(shape, ax)));
    }

    /** The output element (…, j) depends on element j of a vector along the last axis (a norm's weight). */
    static Pattern lastAxis(int[] shape) {
        int d = shape[shape.length - 1];
        int[] src = new int[numel(shape)];
        for (int e = 0; e < src.length; e++) {
            src[e] = e % d;
        }
        return Pattern.gather(src, d);
    }

    /** Every output element depends on every input element. */
    static Pattern all(int[] out, int[] in) {
        return Pattern.dense(numel(out), numel(in));
    }

    static Pattern none(int[] out, int[] in) {
        return Pattern.empty(numel(out), numel(in));
    }

    /** The local pattern of an elementwise op: its diagonal where the derivative {@code dydx} is not zero. */
    static Pattern diagonalWhere(double[] dydx) {
        int[] src = new int[dydx.length];
        for (int i = 0; i < src.length; i++) {
            src[i] = dydx[i] != 0 ? i : -1;
        }
        return Pattern.gather(src, src.length);
    }

    /**
     * The pattern of an op that only moves elements (flip, roll, repeat, tril, stack): its forward run
     * on 1, 2, 3, ... in input {@code input} (zeros in the others) says where each output element comes
     * from; a 0 is a fill, depending on nothing.
     */
    static Pattern moved(Op op, int input, int[][] shapes, io.gradscope.engine.tensor.DType[] dtypes) {
        io.gradscope.engine.tensor.Tensor[] in = new io.gradscope.engine.tensor.Tensor[shapes.length];
        for (int i = 0; i < in.length; i++) {
            double[] v = new double[numel(shapes[i])];
            if (i == input) {
                for (int e = 0; e < v.length; e++) {
                    v[e] = e + 1;
                }
            }
            in[i] = io.gradscope.engine.tensor.Tensor.fromDoubles(dtypes[i] == io.gradscope.engine.tensor.DType.INT64
                    ? io.gradscope.engine.tensor.DType.INT64 : io.gradscope.engine.tensor.DType.FLOAT64, v, shapes[i]);
        }
        double[] out;
        try (var off = io.gradscope.engine.ops.GradMode.disable()) {
            OpContext ctx = new OpContext(in);
            out = op.forward(ctx, in).toDoubleArray();
        }
        int[] src = new int[out.length];
        for (int e = 0; e < src.length; e++) {
            src[e] = (int) out[e] - 1;
        }
        return Pattern.gather(src, numel(shapes[input]));
    }

    /** The shapes of an op's inputs at a forward pass. */
    static int[][] shapes(OpContext ctx) {
        return ctx.inputs().stream().map(t -> t.shape()).toArray(int[][]::new);
    }

    /** The leading axes of {@code s} dropped to rank 2, as {@code [batch, rows, cols]}. */
    static int[] batched3(int[] s) {
        int[] lead = Arrays.copyOf(s, s.length - 2);
        return new int[] {numel(lead), s[s.length - 2], s[s.length - 1]};
    }
}
