package io.gradscope.engine.run;

import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.run.ExprValue.TupleVal;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the pieces of {@code split(x, size, axis=0)} and {@code chunk(x, chunks, axis=0)} lie along
 * their axis, as PyTorch's {@code torch.split} and {@code torch.chunk} cut them. Each piece becomes
 * one {@code slice} op, so no multi-output op is needed.
 */
final class SplitPieces {
    /** The tensor cut, its axis (from 0) and each piece's {@code [start, stop)}. */
    record Cut(TensorVal x, int axis, List<int[]> ranges) {
    }

    private SplitPieces() {
    }

    static final String SPLIT_USAGE = "split(x, size, axis=0) with size an int or a tuple of ints";
    static final String CHUNK_USAGE = "chunk(x, chunks, axis=0)";

    /** Reads the call's arguments and cuts; errors point at the argument at fault. */
    static Cut of(Args a) {
        boolean split = a.fn().equals("split");
        String what = split ? "size" : "chunks";
        a.allow(a.given(-1, what) ? 1 : 2, 3, split ? SPLIT_USAGE : CHUNK_USAGE, what, "axis");
        TensorVal x = a.tensor(0);
        if (x.shape().length == 0) {
            throw a.error(a.positionOf(0), a.fn() + "() needs a tensor of at least one dimension, not a 0-d one");
        }
        int rank = x.shape().length;
        int axisGiven = a.integer(2, "axis", 0);
        if (axisGiven < -rank || axisGiven >= rank) {
            Pos at = a.given(2, "axis") ? argOrKeyword(a, 2) : a.pos();
            throw a.error(at, a.fn() + "(): axis " + axisGiven + " is out of range for a tensor of rank " + rank
                    + " (expected " + (-rank) + " to " + (rank - 1) + ")");
        }
        int axis = Shapes.axis(a.fn(), axisGiven, rank);
        int n = x.shape()[axis];
        Pos at = argOrKeyword(a, 1);
        List<int[]> ranges;
        if (split) {
            ExprValue v = a.get(1, what);
            ranges = v instanceof TupleVal t ? sections(a, t, n, at) : bySize(a, a.asInt(v, at, "'size'"), n, at);
        } else {
            ranges = chunks(a, a.integer(1, what, null), n, at);
        }
        return new Cut(x, axis, ranges);
    }

    /** The position of positional {@code i}, or of its keyword when given by name. */
    private static Pos argOrKeyword(Args a, int i) {
        if (i < a.count()) {
            return a.positionOf(i);
        }
        String name = i == 2 ? "axis" : a.fn().equals("split") ? "size" : "chunks";
        return a.keywordPos(name);
    }

    /** torch.split(x, size): pieces of {@code size}, the last smaller; one (empty) piece when the axis is empty. */
    private static List<int[]> bySize(Args a, int size, int n, Pos at) {
        if (size < 0 || (size == 0 && n > 0)) {
            throw a.error(at, "split(): size must be positive, not " + size);
        }
        List<int[]> out = new ArrayList<>();
        if (n == 0) {
            out.add(new int[] {0, 0});
            return out;
        }
        for (int start = 0; start < n; start += size) {
            out.add(new int[] {start, Math.min(n, start + size)});
        }
        return out;
    }

    /** torch.split(x, (s0, s1, ...)): the sizes must add up to the axis's length. */
    private static List<int[]> sections(Args a, TupleVal t, int n, Pos at) {
        if (t.items().isEmpty()) {
            throw a.error(at, "split(): give at least one size");
        }
        List<int[]> out = new ArrayList<>();
        long start = 0;
        for (ExprValue v : t.items()) {
            int s = a.asInt(v, at, "each size");
            if (s < 0) {
                throw a.error(at, "split(): sizes must not be negative, not " + s);
            }
            out.add(new int[] {(int) Math.min(start, n), (int) Math.min(start + s, n)});
            start += s;
        }
        if (start != n) {
            throw a.error(at, "split(): the sizes add up to " + start + ", but the axis has length " + n);
        }
        return out;
    }

    /**
     * torch.chunk(x, chunks): pieces of ceil(n / chunks), the last smaller, so there can be fewer
     * than {@code chunks} (chunk of 5 into 4 gives 2, 2, 1); an empty axis gives {@code chunks} empty pieces.
     */
    private static List<int[]> chunks(Args a, int chunks, int n, Pos at) {
        if (chunks <= 0) {
            throw a.error(at, "chunk(): chunks must be positive, not " + chunks);
        }
        if (n == 0) {
            List<int[]> out = new ArrayList<>();
            for (int i = 0; i < chunks; i++) {
                out.add(new int[] {0, 0});
            }
            return out;
        }
        int size = (int) ((n + (long) chunks - 1) / chunks);
        return bySize(a, size, n, at);
    }
}
