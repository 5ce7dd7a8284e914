package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * Ops that keep some elements and set the others: masked_fill and tril/triu. Both select with
 * {@link WhereOp#select}, so a NaN in an element set aside does not show (x · 0 would keep it).
 */
final class MaskOps {
    private MaskOps() {
    }

    /** x.masked_fill(mask != 0, value), the int64 mask broadcast to x's shape. */
    static final class MaskedFill extends Op {
        private final double value;

        MaskedFill(double value) {
            this.value = value;
        }

        @Override
        public String name() {
            return "masked_fill";
        }

        @Override
        public String label() {
            return "masked_fill(value=" + NumberText.text(value) + ")";
        }

        @Override
        public String rule() {
            return "dx = where(mask, 0, g)";
        }

        /** Each element of x on itself (for some mask it is kept); the mask, int64, takes no derivative. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int n = Dependencies.numel(shapes[0]);
            return input == 0 ? Pattern.identity(n) : Dependencies.none(shapes[0], shapes[1]);
        }

        /** At this mask, the elements it keeps. */
        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            if (input == 1) {
                return super.localDependencies(input, ctx);
            }
            int[] x = ctx.input(0).shape();
            double[] m = ctx.input(1).toDoubleArray();
            int[] at = Dependencies.walk(x, Dependencies.broadcastStrides(ctx.input(1).shape(), x), 0);
            int[] src = new int[at.length];
            for (int e = 0; e < src.length; e++) {
                src[e] = m[at[e]] != 0 ? -1 : e;
            }
            return Pattern.gather(src, src.length);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("masked_fill", shapes, 2);
            Checks.floats("masked_fill", dtypes, 0);
            if (dtypes[1] != DType.INT64) {
                throw new GradscopeException("masked_fill: the mask must be an int64 mask (labels), not " + dtypes[1]);
            }
            if (!Shapes.broadcastsTo(shapes[1], shapes[0])) {
                throw new GradscopeException("masked_fill: a mask of shape " + Shapes.str(shapes[1]) + " does not broadcast to x's "
                        + Shapes.str(shapes[0]));
            }
            return shapes[0].clone();
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.of(2, false, 1);
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            Tensor holds = Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(x, 1),
                    Unrecorded.binary(BinaryKind.EQ, in[1].to(x.dtype()), Unrecorded.scalarLike(x, 0)));
            Tensor out = WhereOp.select(holds, Unrecorded.scalarLike(x, value), x);
            return out.hasShape(x.shape()) ? out : Unrecorded.copy(out.viewExpand(x.shape()));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.sumTo(Ops.where(ctx.input(1), Ops.constant(0, g), g), ctx.input(0)), null};
        }

        @Override
        public String jvpRule() {
            return "ẏ = where(mask, 0, ẋ)";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            return Ops.sumTo(Ops.where(ctx.input(1), Ops.constant(0, t[0]), t[0]), ctx.input(0));
        }
    }

    /** torch.tril / torch.triu over the last two axes, with a diagonal offset. */
    static final class Triangle extends MoveOps.Move {
        private final boolean lower;
        private final int diagonal;

        Triangle(boolean lower, int diagonal) {
            this.lower = lower;
            this.diagonal = diagonal;
        }

        @Override
        public String name() {
            return lower ? "tril" : "triu";
        }

        @Override
        public String label() {
            return diagonal == 0 ? name() : name() + "(diagonal=" + diagonal + ")";
        }

        @Override
        public String rule() {
            return "dx = " + name() + "(g)";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity(name(), shapes, 1);
            Checks.floats(name(), dtypes, 0);
            Checks.minRank(name(), shapes[0], 2, "x");
            return shapes[0].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            outputShape(new int[][] {x.shape()}, new DType[] {x.dtype()});
            int r = x.shape()[x.rank() - 2];
            int c = x.shape()[x.rank() - 1];
            double[] keep = new double[r * c];
            for (int i = 0; i < r; i++) {
                for (int j = 0; j < c; j++) {
                    keep[i * c + j] = (lower ? j - i <= diagonal : j - i >= diagonal) ? 1 : 0;
                }
            }
            Tensor mask = Tensor.fromDoubles(x.dtype(), x.device(), keep, r, c);
            Tensor out = WhereOp.select(mask, x, Unrecorded.scalarLike(x, 0));
            return out.hasShape(x.shape()) ? out : Unrecorded.copy(out.viewExpand(x.shape()));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.apply(this, g)};
        }
    }
}
