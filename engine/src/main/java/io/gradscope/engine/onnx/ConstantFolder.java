package io.gradscope.engine.onnx;

import io.gradscope.engine.tensor.Shapes;
import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * Constant folding: the ONNX ops that PyTorch's exports use to compute shapes, masks and indices,
 * evaluated on known values ({@link Const}) so they never reach the program. Returns null for an op
 * it does not evaluate (the import then writes it into the program, or reports it).
 */
final class ConstantFolder {
    private ConstantFolder() {
    }

    /** The outputs of {@code op} on known inputs (null entries for absent optional inputs), or null. */
    static Const[] fold(String op, Attrs at, Const[] in, int opset) {
        Const x = in.length > 0 ? in[0] : null;
        Const r = switch (op) {
            case "Identity", "Dropout" -> x;
            case "Cast" -> cast(x, (int) at.i("to", Const.FLOAT));
            case "Shape" -> shape(x.shape(), at);
            case "Size" -> Const.scalar(x.numel(), Const.INT64);
            case "Neg" -> map(x, v -> -v);
            case "Sqrt" -> map(x, Math::sqrt);
            case "Abs" -> map(x, Math::abs);
            case "Reciprocal" -> map(x, v -> 1 / v);
            case "Exp" -> map(x, Math::exp);
            case "Not" -> map(x, v -> v == 0 ? 1 : 0).withType(Const.BOOL);
            case "Add" -> map2(x, in[1], x.type(), Double::sum);
            case "Sub" -> map2(x, in[1], x.type(), (a, b) -> a - b);
            case "Mul" -> map2(x, in[1], x.type(), (a, b) -> a * b);
            case "Div" -> map2(x, in[1], x.type(), x.isFloat() ? (a, b) -> a / b : (a, b) -> (long) a / (long) b);
            case "Pow" -> map2(x, in[1], x.type(), Math::pow);
            case "Mod" -> map2(x, in[1], x.type(), at.i("fmod", 0) != 0 ? (a, b) -> a % b : ConstantFolder::floorMod);
            case "Equal" -> map2(x, in[1], Const.BOOL, (a, b) -> a == b ? 1 : 0);
            case "Less" -> map2(x, in[1], Const.BOOL, (a, b) -> a < b ? 1 : 0);
            case "Greater" -> map2(x, in[1], Const.BOOL, (a, b) -> a > b ? 1 : 0);
            case "And" -> map2(x, in[1], Const.BOOL, (a, b) -> a != 0 && b != 0 ? 1 : 0);
            case "Or" -> map2(x, in[1], Const.BOOL, (a, b) -> a != 0 || b != 0 ? 1 : 0);
            case "Min", "Max" -> variadic(in, op.equals("Min") ? Math::min : Math::max);
            case "Where" -> where(in[0], in[1], in[2]);
            case "Unsqueeze" -> unsqueeze(x, opset >= 13 ? in.length > 1 ? in[1].ints() : null : at.ints("axes"));
            case "Squeeze" -> squeeze(x, opset >= 13 ? in.length > 1 && in[1] != null ? in[1].ints() : null : at.ints("axes"));
            case "Reshape" -> reshape(x, in[1], at.i("allowzero", 0) != 0);
            case "Flatten" -> flatten(x, (int) at.i("axis", 1));
            case "Concat" -> concat(in, (int) at.i("axis", 0));
            case "Gather" -> gather(x, in[1], (int) at.i("axis", 0));
            case "Transpose" -> transpose(x, at.ints("perm"));
            case "Slice" -> slice(x, in);
            case "Range" -> range(in[0].data()[0], in[1].data()[0], in[2].data()[0], in[0].type());
            case "ConstantOfShape" -> constantOfShape(in[0], at);
            case "Expand" -> expand(x, in[1]);
            case "ScatterND" -> scatterNd(x, in[1], in[2], at.s("reduction", "none"));
            default -> null;
        };
        return r == null ? null : new Const[] {r};
    }

    // ---- elementwise ------------------------------------------------------------------------

    private static Const map(Const x, DoubleUnaryOperator f) {
        double[] out = new double[x.numel()];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(x.data()[i]);
        }
        return new Const(x.shape(), out, x.type(), x.fromParams());
    }

    /** Where each output element reads from an input of {@code in} shape broadcast to {@code out}. */
    static int[] broadcastIndex(int[] out, int[] in) {
        int n = (int) Shapes.numel(out);
        int[] idx = new int[n];
        int[] inStrides = Shapes.contiguousStrides(in);
        int lead = out.length - in.length;
        int[] pos = new int[out.length];
        for (int i = 0; i < n; i++) {
            int at = 0;
            for (int d = 0; d < in.length; d++) {
                at += in[d] == 1 ? 0 : pos[d + lead] * inStrides[d];
            }
            idx[i] = at;
            for (int d = out.length - 1; d >= 0; d--) {
                if (++pos[d] < out[d]) {
                    break;
                }
                pos[d] = 0;
            }
        }
        return idx;
    }

    private static Const map2(Const a, Const b, int type, DoubleBinaryOperator f) {
        int[] shape = Shapes.broadcast("fold", a.shape(), b.shape());
        int[] ia = broadcastIndex(shape, a.shape());
        int[] ib = broadcastIndex(shape, b.shape());
        double[] out = new double[ia.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(a.data()[ia[i]], b.data()[ib[i]]);
        }
        return new Const(shape, out, type, a.fromParams() || b.fromParams());
    }

    /** ONNX Mod with fmod=0: the remainder takes the divisor's sign (Python's %). */
    private static double floorMod(double a, double b) {
        double r = a % b;
        return r != 0 && (r < 0) != (b < 0) ? r + b : r + 0.0; // + 0.0: no -0 (Java's -4 % 2)
    }

    private static Const variadic(Const[] in, DoubleBinaryOperator f) {
        Const r = in[0];
        for (int i = 1; i < in.length; i++) {
            r = map2(r, in[i], r.type(), f);
        }
        return r;
    }

    private static Const where(Const c, Const a, Const b) {
        int[] shape = Shapes.broadcast("fold", Shapes.broadcast("fold", c.shape(), a.shape()), b.shape());
        int[] ic = broadcastIndex(shape, c.shape());
        int[] ia = broadcastIndex(shape, a.shape());
        int[] ib = broadcastIndex(shape, b.shape());
        double[] out = new double[ic.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = c.data()[ic[i]] != 0 ? a.data()[ia[i]] : b.data()[ib[i]];
        }
        return new Const(shape, out, a.type(), a.fromParams() || b.fromParams());
    }

    private static Const cast(Const x, int to) {
        double[] out = new double[x.numel()];
        for (int i = 0; i < out.length; i++) {
            double v = x.data()[i];
            out[i] = switch (to) {
                case Const.BOOL -> v != 0 ? 1 : 0;
                case Const.FLOAT -> (float) v;
                case Const.DOUBLE, Const.FLOAT16 -> v;
                default -> (long) v; // to an integer type: toward zero
            };
        }
        return new Const(x.shape(), out, to, x.fromParams() && Const.isFloatType(to));
    }

    // ---- shapes -----------------------------------------------------------------------------

    static Const shape(int[] s, Attrs at) {
        int r = s.length;
        int start = (int) at.i("start", 0);
        int end = (int) at.i("end", r);
        start = Math.max(0, Math.min(r, start < 0 ? start + r : start));
        end = Math.max(0, Math.min(r, end < 0 ? end + r : end));
        long[] v = new long[Math.max(0, end - start)];
        for (int i = 0; i < v.length; i++) {
            v[i] = s[start + i];
        }
        return Const.ints(v);
    }

    static int[] unsqueezed(int[] s, int[] axes) {
        int r = s.length + axes.length;
        boolean[] add = new boolean[r];
        for (int a : axes) {
            add[a < 0 ? a + r : a] = true;
        }
        int[] out = new int[r];
        for (int i = 0, j = 0; i < r; i++) {
            out[i] = add[i] ? 1 : s[j++];
        }
        return out;
    }

    static int[] squeezed(int[] s, int[] axes) {
        boolean[] drop = new boolean[s.length];
        if (axes == null) {
            for (int i = 0; i < s.length; i++) {
                drop[i] = s[i] == 1;
            }
        } else {
            for (int a : axes) {
                drop[a < 0 ? a + s.length : a] = true;
            }
        }
        return java.util.stream.IntStream.range(0, s.length).filter(i -> !drop[i]).map(i -> s[i]).toArray();
    }

    private static Const unsqueeze(Const x, int[] axes) {
        return axes == null ? null : x.withShape(unsqueezed(x.shape(), axes));
    }

    private static Const squeeze(Const x, int[] axes) {
        return x.withShape(squeezed(x.shape(), axes));
    }

    /** ONNX Reshape's target: 0 copies the input's dimension (unless allowzero), one -1 is inferred. */
    static int[] reshapeTarget(int[] in, long[] spec, boolean allowZero) {
        int[] out = new int[spec.length];
        long known = 1;
        int free = -1;
        for (int i = 0; i < spec.length; i++) {
            long v = spec[i];
            if (v == 0 && !allowZero) {
                if (i >= in.length) {
                    return null;
                }
                v = in[i];
            }
            if (v == -1) {
                if (free >= 0) {
                    return null;
                }
                free = i;
                continue;
            }
            if (v < 0 || v > Integer.MAX_VALUE) {
                return null;
            }
            out[i] = (int) v;
            known *= v;
        }
        long n = Shapes.numel(in);
        if (free >= 0) {
            if (known == 0 || n % known != 0) {
                return null;
            }
            out[free] = (int) (n / known);
        } else if (known != n) {
            return null;
        }
        return out;
    }

    private static Const reshape(Const x, Const shape, boolean allowZero) {
        int[] t = reshapeTarget(x.shape(), shape.longs(), allowZero);
        return t == null ? null : x.withShape(t);
    }

    static int[] flattened(int[] s, int axis) {
        int a = axis < 0 ? axis + s.length : axis;
        long left = 1;
        long right = 1;
        for (int i = 0; i < s.length; i++) {
            if (i < a) {
                left *= s[i];
            } else {
                right *= s[i];
            }
        }
        return new int[] {(int) left, (int) right};
    }

    private static Const flatten(Const x, int axis) {
        return x.withShape(flattened(x.shape(), axis));
    }

    private static Const concat(Const[] in, int axis) {
        int r = in[0].shape().length;
        int a = axis < 0 ? axis + r : axis;
        int[] shape = in[0].shape().clone();
        shape[a] = 0;
        boolean fromParams = false;
        for (Const c : in) {
            shape[a] += c.shape()[a];
            fromParams |= c.fromParams();
        }
        int outer = 1;
        for (int i = 0; i < a; i++) {
            outer *= shape[i];
        }
        int inner = 1;
        for (int i = a + 1; i < r; i++) {
            inner *= shape[i];
        }
        double[] out = new double[(int) Shapes.numel(shape)];
        int at = 0;
        for (int o = 0; o < outer; o++) {
            for (Const c : in) {
                int len = c.shape()[a] * inner;
                System.arraycopy(c.data(), o * len, out, at, len);
                at += len;
            }
        }
        return new Const(shape, out, in[0].type(), fromParams);
    }

    private static Const gather(Const x, Const idx, int axis) {
        int[] s = x.shape();
        int a = axis < 0 ? axis + s.length : axis;
        int[] ids = idx.ints();
        int outer = 1;
        for (int i = 0; i < a; i++) {
            outer *= s[i];
        }
        int inner = 1;
        for (int i = a + 1; i < s.length; i++) {
            inner *= s[i];
        }
        int[] shape = new int[s.length - 1 + idx.shape().length];
        System.arraycopy(s, 0, shape, 0, a);
        System.arraycopy(idx.shape(), 0, shape, a, idx.shape().length);
        System.arraycopy(s, a + 1, shape, a + idx.shape().length, s.length - a - 1);
        double[] out = new double[outer * ids.length * inner];
        int at = 0;
        for (int o = 0; o < outer; o++) {
            for (int id : ids) {
                int row = id < 0 ? id + s[a] : id;
                if (row < 0 || row >= s[a]) {
                    return null;
                }
                System.arraycopy(x.data(), (o * s[a] + row) * inner, out, at, inner);
                at += inner;
            }
        }
        return new Const(shape, out, x.type(), x.fromParams());
    }

    private static Const transpose(Const x, int[] perm) {
        int[] s = x.shape();
        int r = s.length;
        int[] p = perm;
        if (p == null) {
            p = new int[r];
            for (int i = 0; i < r; i++) {
                p[i] = r - 1 - i;
            }
        }
        int[] shape = new int[r];
        int[] st = Shapes.contiguousStrides(s);
        int[] pst = new int[r];
        for (int i = 0; i < r; i++) {
            shape[i] = s[p[i]];
            pst[i] = st[p[i]];
        }
        double[] out = new double[x.numel()];
        int[] pos = new int[r];
        for (int i = 0; i < out.length; i++) {
            int at = 0;
            for (int d = 0; d < r; d++) {
                at += pos[d] * pst[d];
            }
            out[i] = x.data()[at];
            for (int d = r - 1; d >= 0; d--) {
                if (++pos[d] < shape[d]) {
                    break;
                }
                pos[d] = 0;
            }
        }
        return new Const(shape, out, x.type(), x.fromParams());
    }

    /** Normalised [start, stop) with step for one axis, as ONNX Slice clamps them. */
    static int[] sliceRange(int dim, long start, long end, long step) {
        if (start < 0) {
            start += dim;
        }
        if (end < 0) {
            end += dim;
        }
        if (step > 0) {
            start = Math.max(0, Math.min(dim, start));
            end = Math.max(0, Math.min(dim, end));
        } else {
            start = Math.max(-1, Math.min(dim - 1, start));
            end = Math.max(-1, Math.min(dim - 1, end));
        }
        return new int[] {(int) start, (int) end, (int) step};
    }

    private static Const slice(Const x, Const[] in) {
        int[] s = x.shape();
        long[] starts = in[1].longs();
        long[] ends = in[2].longs();
        int[] axes = in.length > 3 && in[3] != null ? in[3].ints() : null;
        long[] steps = in.length > 4 && in[4] != null ? in[4].longs() : null;
        Const cur = x;
        for (int k = 0; k < starts.length; k++) {
            int a = axes == null ? k : axes[k] < 0 ? axes[k] + s.length : axes[k];
            long step = steps == null ? 1 : steps[k];
            if (step == 0) {
                return null;
            }
            int[] r = sliceRange(cur.shape()[a], starts[k], ends[k], step);
            int len = step > 0 ? Math.max(0, (r[1] - r[0] + r[2] - 1) / r[2]) : Math.max(0, (r[0] - r[1] - r[2] - 1) / -r[2]);
            long[] ids = new long[len];
            for (int i = 0; i < len; i++) {
                ids[i] = r[0] + (long) i * r[2];
            }
            cur = gather(cur, Const.ints(ids), a);
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    /**
     * ONNX ScatterND: a copy of {@code data} with the slices that {@code indices}' last axis names
     * replaced by (or, with a reduction, combined with) {@code updates}, in index order.
     */
    private static Const scatterNd(Const data, Const indices, Const updates, String reduction) {
        int[] s = data.shape();
        int[] is = indices.shape();
        int k = is[is.length - 1];
        if (k > s.length) {
            return null;
        }
        int slice = 1;
        for (int d = k; d < s.length; d++) {
            slice *= s[d];
        }
        int[] strides = Shapes.contiguousStrides(s);
        int[] ids = indices.ints();
        double[] out = data.data().clone();
        double[] up = updates.data();
        int n = k == 0 ? 0 : ids.length / k;
        if (k == 0 || up.length != n * slice) {
            return null;
        }
        for (int u = 0; u < n; u++) {
            int at = 0;
            for (int d = 0; d < k; d++) {
                int i = ids[u * k + d];
                i = i < 0 ? i + s[d] : i;
                if (i < 0 || i >= s[d]) {
                    return null;
                }
                at += i * strides[d];
            }
            for (int j = 0; j < slice; j++) {
                double v = up[u * slice + j];
                double o = out[at + j];
                out[at + j] = switch (reduction) {
                    case "add" -> o + v;
                    case "mul" -> o * v;
                    case "max" -> Math.max(o, v);
                    case "min" -> Math.min(o, v);
                    default -> v;
                };
            }
        }
        return new Const(s, out, data.type(), data.fromParams() || updates.fromParams());
    }

    private static Const range(double start, double limit, double delta, int type) {
        int n = (int) Math.max(Math.ceil((limit - start) / delta), 0);
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = start + i * delta;
        }
        return Const.of(new int[] {n}, out, type);
    }

    private static Const constantOfShape(Const shape, Attrs at) {
        int[] s = shape.ints();
        double v = 0;
        int type = Const.FLOAT;
        if (at.t("value") != null) {
            var t = at.t("value");
            type = t.getDataType();
            v = new OnnxFile(java.nio.file.Path.of("constant")).tensor(t, "ConstantOfShape's value").data()[0];
        }
        double[] out = new double[(int) Shapes.numel(s)];
        Arrays.fill(out, v);
        return Const.of(s, out, type);
    }

    private static Const expand(Const x, Const shape) {
        int[] target = Shapes.broadcast("Expand", x.shape(), shape.ints());
        int[] idx = broadcastIndex(target, x.shape());
        double[] out = new double[idx.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = x.data()[idx[i]];
        }
        return new Const(target, out, x.type(), x.fromParams());
    }
}
