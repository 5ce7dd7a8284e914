package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** pad along one axis with a value other than 0, or by reflecting, replicating or wrapping (circular) the edge (F.pad's modes). */
final class PadWith extends MoveOps.Move {
    private final int axis;
    private final int before;
    private final int after;
    private final String mode;
    private final double value;
    private final String label;

    PadWith(int axis, int before, int after, String mode, double value, String label) {
        this.axis = axis;
        this.before = before;
        this.after = after;
        this.mode = mode;
        this.value = value;
        this.label = label;
    }

    @Override
    public String name() {
        return "pad";
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String rule() {
        return switch (mode) {
            case "reflect" -> "dx = slice(g) + the padding's g flipped back onto the elements it mirrors";
            case "replicate" -> "dx = slice(g) + the padding's g summed onto the edge elements";
            case "circular" -> "dx = slice(g) + the padding's g added onto the elements it wraps from";
            default -> "dx = slice(g)";
        };
    }

    /** The padding depends on nothing for a constant, on the mirrored or edge elements otherwise. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        if (mode.equals("constant")) {
            return new PadConcatOps.Pad(axis, before, after).dependencies(input, shapes);
        }
        return super.dependencies(input, shapes);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        int[] out = new PadConcatOps.Pad(axis, before, after).outputShape(shapes, dtypes);
        int a = Shapes.axis("pad", axis, shapes[0].length);
        int n = shapes[0][a];
        if (mode.equals("reflect") && (before >= n || after >= n)) {
            throw new GradscopeException("pad: reflect padding must be smaller than the axis (" + n + "), not " + before + " and "
                    + after);
        }
        if (mode.equals("circular") && (before > n || after > n)) {
            throw new GradscopeException("pad: circular padding must be at most the axis (" + n + "), not " + before + " and " + after);
        }
        if (mode.equals("replicate") && n == 0 && before + after > 0) {
            throw new GradscopeException("pad: cannot replicate the edge of an empty axis");
        }
        return out;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        int[] shape = outputShape(new int[][] {x.shape()}, new DType[] {x.dtype()});
        int a = Shapes.axis("pad", axis, x.rank());
        int n = x.shape()[a];
        Tensor out = mode.equals("constant") ? Tensor.full(x.dtype(), x.device(), value, shape)
                : Tensor.empty(x.dtype(), x.device(), shape);
        MoveOps.Move.copy(x, out.viewNarrow(a, before, n));
        if (mode.equals("circular")) {
            // the axis wraps around: the last `before` elements before it, the first `after` after it
            MoveOps.Move.copy(x.viewNarrow(a, n - before, before), out.viewNarrow(a, 0, before));
            MoveOps.Move.copy(x.viewNarrow(a, 0, after), out.viewNarrow(a, before + n, after));
        } else if (!mode.equals("constant")) {
            for (int j = 0; j < before; j++) {
                int src = mode.equals("reflect") ? before - j : 0;
                copy(x.viewNarrow(a, src, 1), out.viewNarrow(a, j, 1));
            }
            for (int k = 0; k < after; k++) {
                int src = mode.equals("reflect") ? n - 2 - k : n - 1;
                copy(x.viewNarrow(a, src, 1), out.viewNarrow(a, before + n + k, 1));
            }
        }
        return out;
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        int a = Shapes.axis("pad", axis, g.rank());
        int n = ctx.input(0).shape()[a];
        Tensor dx = Ops.slice(g, a, before, before + n);
        if (mode.equals("constant")) {
            return new Tensor[] {dx};
        }
        if (mode.equals("circular")) {
            if (before > 0) {
                dx = Ops.add(dx, Ops.pad(Ops.slice(g, a, 0, before), a, n - before, 0));
            }
            if (after > 0) {
                dx = Ops.add(dx, Ops.pad(Ops.slice(g, a, before + n, before + n + after), a, 0, n - after));
            }
            return new Tensor[] {dx};
        }
        if (before > 0) {
            Tensor left = Ops.slice(g, a, 0, before);
            dx = Ops.add(dx, mode.equals("reflect") ? Ops.pad(Ops.apply(new MoveOps.Flip(new int[] {a}), left), a, 1, n - 1 - before)
                    : Ops.pad(Ops.sum(left, new int[] {a}, true), a, 0, n - 1));
        }
        if (after > 0) {
            Tensor right = Ops.slice(g, a, before + n, before + n + after);
            dx = Ops.add(dx, mode.equals("reflect") ? Ops.pad(Ops.apply(new MoveOps.Flip(new int[] {a}), right), a, n - 1 - after, 1)
                    : Ops.pad(Ops.sum(right, new int[] {a}, true), a, n - 1, 0));
        }
        return new Tensor[] {dx};
    }

    @Override
    public String jvpRule() {
        return mode.equals("constant") ? "ẏ = pad(ẋ) with zeros" : "ẏ = pad(ẋ, the same mode)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        return Ops.apply(mode.equals("constant") ? new PadConcatOps.Pad(axis, before, after) : this, t[0]);
    }
}
