package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.onnx.Translator.Known;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import io.gradscope.engine.onnx.Translator.Val;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One rule per ONNX operator (opset 13-17, as PyTorch 1.13 exports them): the program statement a node
 * becomes. Shapes come from the engine's own shape rules, so the program checks as the import
 * predicted. A node the rules cannot write (an unsupported attribute value, a computed shape) is
 * reported with its name; the import lists every such node in one message.
 */
final class OpRules {
    /** Every operator type the import knows (some only when their inputs are known, i.e. folded). */
    static final Set<String> SUPPORTED = Set.of("Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
            "BatchNormalization", "LayerNormalization", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Erf", "Relu",
            "Sigmoid", "Tanh", "Exp", "Log", "Abs", "Neg", "Sin", "Cos", "Softplus", "Reciprocal", "Softmax", "LogSoftmax",
            "ReduceMean", "ReduceSum", "ReduceMax", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Expand", "Concat",
            "Split", "Slice", "Gather", "Constant", "Identity", "Dropout", "Where", "Equal", "Less", "Greater", "Not", "And", "Or",
            "Cast", "Shape", "Size", "Range", "ConstantOfShape", "Min", "Max", "Pad", "Clip", "Sum");

    private static final Map<String, String> UNARY = Map.ofEntries(Map.entry("Relu", "relu"), Map.entry("Sigmoid", "sigmoid"),
            Map.entry("Tanh", "tanh"), Map.entry("Sqrt", "sqrt"), Map.entry("Erf", "erf"), Map.entry("Exp", "exp"),
            Map.entry("Log", "log"), Map.entry("Abs", "abs"), Map.entry("Sin", "sin"), Map.entry("Cos", "cos"),
            Map.entry("Softplus", "softplus"));

    private static final Map<String, String> BINARY = Map.of("Add", "+", "Sub", "-", "Mul", "*", "Div", "/");

    private final Translator t;

    OpRules(Translator t) {
        this.t = t;
    }

    /** Writes node {@code n}; false (after reporting it) when it cannot. */
    boolean apply(OnnxMl.NodeProto n, Attrs at, Val[] in) {
        String op = n.getOpType();
        try {
            String why = write(n, op, at, in);
            if (why != null) {
                t.unsupported(n, why);
                return false;
            }
            return true;
        } catch (Unsupported u) {
            t.unsupported(n, u.getMessage());
            return false;
        }
    }

    /** A node the rules cannot write, with what about it. */
    private static final class Unsupported extends RuntimeException {
        Unsupported(String what) {
            super(what, null, false, false);
        }
    }

    /** Writes the node; returns null, or what is unsupported about it. */
    private String write(OnnxMl.NodeProto n, String op, Attrs at, Val[] in) {
        if (UNARY.containsKey(op)) {
            Tensor x = floatTensor(n, 0);
            t.emit(n, 0, UNARY.get(op) + "(" + x.name() + ")", x.shape(), false);
            return null;
        }
        if (BINARY.containsKey(op)) {
            return binary(n, BINARY.get(op));
        }
        return switch (op) {
            case "Identity" -> alias(n);
            case "Dropout" -> n.getOutputCount() > 1 && !n.getOutput(1).isEmpty() ? "Dropout with its mask output" : alias(n);
            case "Neg" -> emitSame(n, "-" + floatTensor(n, 0).name());
            case "Reciprocal" -> emitSame(n, "1 / " + floatTensor(n, 0).name());
            case "Pow" -> pow(n);
            case "Sum" -> sum(n);
            case "MatMul" -> matmul(n);
            case "Gemm" -> gemm(n, at);
            case "Conv" -> Windows.conv(this, n, at);
            case "MaxPool", "AveragePool" -> Windows.pool(this, n, at, op.equals("MaxPool"));
            case "GlobalAveragePool", "GlobalMaxPool" -> globalPool(n, op.equals("GlobalMaxPool"));
            case "BatchNormalization" -> batchNorm(n, at);
            case "LayerNormalization" -> layerNorm(n, at);
            case "Softmax", "LogSoftmax" -> softmax(n, at, op.equals("Softmax") ? "softmax" : "log_softmax");
            case "ReduceMean", "ReduceSum", "ReduceMax" -> reduce(n, at, op);
            case "Reshape" -> reshape(n, at);
            case "Flatten" -> reshapeTo(n, floatTensor(n, 0), Folder.flattened(floatTensor(n, 0).shape(), (int) at.i("axis", 1)));
            case "Squeeze", "Unsqueeze" -> squeeze(n, at, op.equals("Unsqueeze"));
            case "Transpose" -> transpose(n, at);
            case "Expand" -> expand(n);
            case "Concat" -> concat(n, at);
            case "Split" -> split(n, at);
            case "Slice" -> slice(n);
            case "Gather" -> gather(n, at);
            case "Where" -> where(n);
            case "Cast" -> Const.isFloatType((int) at.i("to", 0)) && t.value(n, 0) instanceof Tensor x && !x.isInt() ? alias(n)
                    : "Cast of a computed tensor to " + OnnxFile.typeName((int) at.i("to", 0));
            case "Pad" -> pad(n, at);
            case "Clip" -> clip(n, at);
            default -> op + " of computed tensors (the import folds it only when its inputs are known)";
        };
    }

    // ---- helpers -----------------------------------------------------------------------------------

    Translator translator() {
        return t;
    }

    /** Input {@code i} as a float program tensor (initializers become parameters). */
    Tensor floatTensor(OnnxMl.NodeProto n, int i) {
        return floatTensor(n, i, LeafKind.PARAM);
    }

    Tensor floatTensor(OnnxMl.NodeProto n, int i, LeafKind kind) {
        if (!t.present(n, i)) {
            throw new Unsupported(n.getOpType() + " without its input " + (i + 1));
        }
        Tensor x = t.tensor(n, i, kind);
        if (x.isInt()) {
            throw new Unsupported(n.getOpType() + " on integer tensors");
        }
        return x;
    }

    static Unsupported unsupported(String what) {
        return new Unsupported(what);
    }

    private String alias(OnnxMl.NodeProto n) {
        t.alias(n, 0, t.tensor(n, 0, LeafKind.PARAM));
        return null;
    }

    private String emitSame(OnnxMl.NodeProto n, String expr) {
        Tensor x = t.tensor(n, 0, LeafKind.PARAM);
        t.emit(n, 0, expr, x.shape(), false);
        return null;
    }

    /** The output shape of engine op {@code op} on these inputs, or the node reported as unsupported. */
    int[] shape(OnnxMl.NodeProto n, String op, Map<String, Object> attrs, Tensor... ins) {
        int[][] shapes = new int[ins.length][];
        DType[] types = new DType[ins.length];
        for (int i = 0; i < ins.length; i++) {
            shapes[i] = ins[i].shape();
            types[i] = ins[i].isInt() ? DType.INT64 : DType.FLOAT32;
        }
        try {
            return OpRegistry.create(op, attrs).outputShape(shapes, types);
        } catch (GradscopeException e) {
            throw new Unsupported(n.getOpType() + " (" + e.getMessage() + ")");
        }
    }

    /** A number as the program writes it, or null when it has no literal (an infinity, NaN). */
    static String number(double v) {
        if (!Double.isFinite(v)) {
            return null;
        }
        String s;
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            s = Long.toString((long) v);
        } else {
            // Python's spelling: 1e-05 rather than Java's 1.0E-5
            s = Double.toString(v);
            int e = s.indexOf('E');
            if (e > 0) {
                String mant = s.substring(0, e).replaceFirst("\\.0$", "");
                int exp = Integer.parseInt(s.substring(e + 1));
                s = mant + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
            }
        }
        return v < 0 ? "(" + s + ")" : s;
    }

    /** A float attribute as its shortest decimal (ONNX keeps 1e-5 as the float 9.99999974e-06). */
    static double floatAttr(double f) {
        return Double.parseDouble(Float.toString((float) f));
    }

    /** One integer, or a tuple where they differ: {@code 2} for (2, 2), {@code (2, 1)}. */
    static String ints(int[] v) {
        boolean same = Arrays.stream(v).allMatch(x -> x == v[0]);
        return v.length == 1 || (same && v.length > 0) ? Integer.toString(v[0]) : "(" + Arrays.stream(v).mapToObj(Integer::toString)
                .collect(Collectors.joining(", ")) + ")";
    }

    /** An axis tuple as Python writes it: {@code 2} or {@code (2, 3)} (never collapsed). */
    static String tuple(int[] axes) {
        return axes.length == 1 ? Integer.toString(axes[0]) : "(" + Arrays.stream(axes).mapToObj(Integer::toString)
                .collect(Collectors.joining(", ")) + ")";
    }

    static int axis(int a, int rank) {
        return a < 0 ? a + rank : a;
    }

    /** Known integers of input {@code i} (axes, shapes), or the node is unsupported. */
    private long[] knownInts(OnnxMl.NodeProto n, int i, String what) {
        Const c = t.known(n, i);
        if (c == null) {
            throw new Unsupported(n.getOpType() + " with a computed " + what);
        }
        return c.longs();
    }

    // ---- arithmetic ------------------------------------------------------------------------------

    /** Whether input i is written as a tensor (rather than a number literal) next to the other operand. */
    private boolean asTensor(OnnxMl.NodeProto n, int i, int otherRank) {
        Val v = t.value(n, i);
        if (v instanceof Tensor) {
            return true;
        }
        Const c = ((Known) v).c();
        boolean initializer = c.isFloat() && c.fromParams();
        return initializer || c.numel() != 1 || c.shape().length > otherRank || number(c.data()[0]) == null;
    }

    private String binary(OnnxMl.NodeProto n, String symbol) {
        Val a = t.value(n, 0);
        Val b = t.value(n, 1);
        int ra = a instanceof Tensor x ? x.rank() : ((Known) a).c().shape().length;
        int rb = b instanceof Tensor y ? y.rank() : ((Known) b).c().shape().length;
        boolean ta = asTensor(n, 0, rb);
        boolean tb = asTensor(n, 1, ra);
        if (!ta && !tb) {
            ta = true;
        }
        String left;
        String right;
        int[] sa;
        int[] sb;
        if (ta) {
            Tensor x = floatTensor(n, 0);
            left = x.name();
            sa = x.shape();
        } else {
            left = number(((Known) a).c().data()[0]);
            sa = new int[0];
        }
        if (tb) {
            Tensor y = floatTensor(n, 1);
            right = y.name();
            sb = y.shape();
        } else {
            right = number(((Known) b).c().data()[0]);
            sb = new int[0];
        }
        int[] shape;
        try {
            shape = Shapes.broadcast("'" + symbol + "'", sa, sb);
        } catch (GradscopeException e) {
            return n.getOpType() + " (" + e.getMessage() + ")";
        }
        t.emit(n, 0, left + " " + symbol + " " + right, shape, false);
        return null;
    }

    private String pow(OnnxMl.NodeProto n) {
        Tensor x = floatTensor(n, 0);
        Const e = t.known(n, 1);
        if (e == null || e.numel() != 1 || number(e.data()[0]) == null) {
            return "Pow with a tensor exponent";
        }
        t.emit(n, 0, x.name() + " ** " + number(e.data()[0]), x.shape(), false);
        return null;
    }

    private String sum(OnnxMl.NodeProto n) {
        List<String> parts = new ArrayList<>();
        int[] shape = new int[0];
        for (int i = 0; i < n.getInputCount(); i++) {
            Tensor x = floatTensor(n, i);
            parts.add(x.name());
            shape = Shapes.broadcast("Sum", shape, x.shape());
        }
        t.emit(n, 0, String.join(" + ", parts), shape, false);
        return null;
    }

    private String matmul(OnnxMl.NodeProto n) {
        Tensor a = floatTensor(n, 0);
        Tensor b = floatTensor(n, 1);
        t.emit(n, 0, a.name() + " @ " + b.name(), shape(n, "matmul", Map.of(), a, b), false);
        return null;
    }

    private String gemm(OnnxMl.NodeProto n, Attrs at) {
        Tensor a = floatTensor(n, 0);
        Tensor b = floatTensor(n, 1);
        if (a.rank() != 2 || b.rank() != 2) {
            return "Gemm of tensors that are not matrices";
        }
        String left = at.i("transA", 0) != 0 ? "transpose(" + a.name() + ")" : a.name();
        String right = at.i("transB", 0) != 0 ? "transpose(" + b.name() + ")" : b.name();
        int m = at.i("transA", 0) != 0 ? a.shape()[1] : a.shape()[0];
        int k = at.i("transA", 0) != 0 ? a.shape()[0] : a.shape()[1];
        int kb = at.i("transB", 0) != 0 ? b.shape()[1] : b.shape()[0];
        int nn = at.i("transB", 0) != 0 ? b.shape()[0] : b.shape()[1];
        if (k != kb) {
            return "Gemm (inner dimensions " + k + " and " + kb + " differ)";
        }
        double alpha = floatAttr(at.f("alpha", 1));
        double beta = floatAttr(at.f("beta", 1));
        String expr = left + " @ " + right + (alpha != 1 ? " * " + number(alpha) : "");
        int[] shape = {m, nn};
        if (t.present(n, 2) && beta != 0) {
            Tensor c = floatTensor(n, 2);
            expr += " + " + c.name() + (beta != 1 ? " * " + number(beta) : "");
            shape = Shapes.broadcast("Gemm", shape, c.shape());
        }
        t.emit(n, 0, expr, shape, false);
        return null;
    }

    // ---- normalisation, pooling, softmax, reductions ----------------------------------------------

    private String globalPool(OnnxMl.NodeProto n, boolean max) {
        Tensor x = floatTensor(n, 0);
        if (x.rank() < 3) {
            return n.getOpType() + " of a tensor of rank " + x.rank();
        }
        int[] axes = new int[x.rank() - 2];
        int[] shape = x.shape();
        for (int i = 0; i < axes.length; i++) {
            axes[i] = i + 2;
            shape[i + 2] = 1;
        }
        t.emit(n, 0, (max ? "amax(" : "mean(") + x.name() + ", axis=" + tuple(axes) + ", keepdim=True)", shape, false);
        return null;
    }

    private String batchNorm(OnnxMl.NodeProto n, Attrs at) {
        if (at.i("training_mode", 0) != 0) {
            return "BatchNormalization in training mode";
        }
        for (int i = 1; i < n.getOutputCount(); i++) {
            if (!n.getOutput(i).isEmpty()) {
                return "BatchNormalization with its running-statistics outputs";
            }
        }
        Tensor x = floatTensor(n, 0);
        Tensor scale = floatTensor(n, 1);
        Tensor bias = floatTensor(n, 2);
        Tensor mean = floatTensor(n, 3, LeafKind.CONSTANT);
        Tensor var = floatTensor(n, 4, LeafKind.CONSTANT);
        double eps = floatAttr(at.f("epsilon", 1e-5));
        Map<String, Object> attrs = Map.of("eps", eps);
        int[] shape = shape(n, "batch_norm", attrs, x, mean, var, scale, bias);
        t.emit(n, 0, "batch_norm(" + x.name() + ", " + mean.name() + ", " + var.name() + ", " + scale.name() + ", " + bias.name()
                + ", eps=" + number(eps) + ")", shape, false);
        return null;
    }

    private String layerNorm(OnnxMl.NodeProto n, Attrs at) {
        for (int i = 1; i < n.getOutputCount(); i++) {
            if (!n.getOutput(i).isEmpty()) {
                return "LayerNormalization with its mean and inverse standard deviation outputs";
            }
        }
        Tensor x = floatTensor(n, 0);
        if (axis((int) at.i("axis", -1), x.rank()) != x.rank() - 1) {
            return "LayerNormalization over more than the last axis";
        }
        Tensor scale = floatTensor(n, 1);
        int d = x.shape()[x.rank() - 1];
        Tensor bias = t.present(n, 2) ? floatTensor(n, 2) : t.constant("ln_zero_bias", Const.of(new int[] {d}, new double[d], Const.FLOAT));
        double eps = floatAttr(at.f("epsilon", 1e-5));
        int[] shape = shape(n, "layer_norm", Map.of("eps", eps), x, scale, bias);
        t.emit(n, 0, "layer_norm(" + x.name() + ", " + scale.name() + ", " + bias.name() + ", eps=" + number(eps) + ")", shape, false);
        return null;
    }

    private String softmax(OnnxMl.NodeProto n, Attrs at, String fn) {
        Tensor x = floatTensor(n, 0);
        int a = (int) at.i("axis", t.opset >= 13 ? -1 : 1);
        if (t.opset < 13 && axis(a, x.rank()) != x.rank() - 1) {
            return n.getOpType() + " (opset " + t.opset + ") over the flattened trailing axes";
        }
        t.emit(n, 0, fn + "(" + x.name() + ", axis=" + a + ")", x.shape(), false);
        return null;
    }

    private String reduce(OnnxMl.NodeProto n, Attrs at, String op) {
        Tensor x = floatTensor(n, 0);
        int[] axes = at.ints("axes");
        if (axes == null && t.present(n, 1)) {
            axes = Arrays.stream(knownInts(n, 1, "axes")).mapToInt(v -> (int) v).toArray();
        }
        boolean keep = at.i("keepdims", 1) != 0;
        if (axes == null || axes.length == 0) {
            if (at.i("noop_with_empty_axes", 0) != 0) {
                return alias(n);
            }
            axes = null;
        }
        String fn = switch (op) {
            case "ReduceMean" -> "mean";
            case "ReduceSum" -> "sum";
            default -> "amax";
        };
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("axis", axes);
        attrs.put("keepdim", keep);
        int[] shape = shape(n, fn, attrs, x);
        String args = (axes == null ? "" : ", axis=" + tuple(axes)) + (keep ? ", keepdim=True" : "");
        t.emit(n, 0, fn + "(" + x.name() + args + ")", shape, false);
        return null;
    }

    // ---- shapes and views --------------------------------------------------------------------------

    /** Output 0 is x reshaped to {@code target} (x itself when equal). */
    String reshapeTo(OnnxMl.NodeProto n, Tensor x, int[] target) {
        reshapeTo(n, 0, x.name(), x.shape(), target);
        return null;
    }

    private void reshapeTo(OnnxMl.NodeProto n, int k, String expr, int[] from, int[] target) {
        if (Arrays.equals(from, target) && expr.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            t.alias(n, k, new Tensor(expr, target, false));
            return;
        }
        String e = Arrays.equals(from, target) ? expr : target.length == 0 ? "sum(" + expr + ")"
                : "reshape(" + expr + ", " + Translator.dimsText(target, false) + ")";
        t.emit(n, k, e, target, false);
    }

    private String reshape(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = floatTensor(n, 0);
        int[] target = Folder.reshapeTarget(x.shape(), knownInts(n, 1, "shape"), at.i("allowzero", 0) != 0);
        if (target == null) {
            return "Reshape of " + Shapes.str(x.shape()) + " to " + Arrays.toString(knownInts(n, 1, "shape"));
        }
        return reshapeTo(n, x, target);
    }

    private String squeeze(OnnxMl.NodeProto n, Attrs at, boolean unsqueeze) {
        Tensor x = floatTensor(n, 0);
        int[] axes = at.ints("axes");
        if (axes == null && t.present(n, 1)) {
            axes = Arrays.stream(knownInts(n, 1, "axes")).mapToInt(v -> (int) v).toArray();
        }
        if (unsqueeze && axes == null) {
            return "Unsqueeze without axes";
        }
        return reshapeTo(n, x, unsqueeze ? Folder.unsqueezed(x.shape(), axes) : Folder.squeezed(x.shape(), axes));
    }

    private String transpose(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = floatTensor(n, 0);
        int r = x.rank();
        int[] perm = at.ints("perm");
        if (perm == null) {
            perm = new int[r];
            for (int i = 0; i < r; i++) {
                perm[i] = r - 1 - i;
            }
        }
        boolean identity = true;
        int[] shape = new int[r];
        for (int i = 0; i < r; i++) {
            identity &= axis(perm[i], r) == i;
            shape[i] = x.shape()[axis(perm[i], r)];
        }
        if (identity) {
            t.alias(n, 0, x);
            return null;
        }
        t.emit(n, 0, "permute(" + x.name() + ", " + Arrays.stream(perm).mapToObj(Integer::toString).collect(Collectors.joining(", "))
                + ")", shape, false);
        return null;
    }

    private String expand(OnnxMl.NodeProto n) {
        Tensor x = floatTensor(n, 0);
        int[] target;
        try {
            target = Shapes.broadcast("Expand", x.shape(), Arrays.stream(knownInts(n, 1, "shape")).mapToInt(v -> (int) v).toArray());
        } catch (GradscopeException e) {
            return "Expand (" + e.getMessage() + ")";
        }
        if (Arrays.equals(target, x.shape())) {
            t.alias(n, 0, x);
            return null;
        }
        t.emit(n, 0, "broadcast_to(" + x.name() + ", " + Translator.dimsText(target, false) + ")", target, false);
        return null;
    }

    private String concat(OnnxMl.NodeProto n, Attrs at) {
        List<Tensor> xs = new ArrayList<>();
        for (int i = 0; i < n.getInputCount(); i++) {
            if (t.present(n, i)) {
                xs.add(floatTensor(n, i));
            }
        }
        int a = (int) at.i("axis", 0);
        int[] shape = shape(n, "concat", Map.of("axis", a), xs.toArray(new Tensor[0]));
        t.emit(n, 0, "concat(" + xs.stream().map(Tensor::name).collect(Collectors.joining(", ")) + ", axis=" + a + ")", shape, false);
        return null;
    }

    private String split(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = floatTensor(n, 0);
        int a = axis((int) at.i("axis", 0), x.rank());
        int dim = x.shape()[a];
        int outs = n.getOutputCount();
        long[] sizes;
        if (t.present(n, 1)) {
            sizes = knownInts(n, 1, "split");
        } else if (at.ints("split") != null) {
            sizes = Arrays.stream(at.ints("split")).asLongStream().toArray();
        } else {
            sizes = new long[outs];
            long each = (dim + outs - 1) / outs;
            for (int i = 0; i < outs; i++) {
                sizes[i] = Math.min(each, Math.max(0, dim - i * each));
            }
        }
        int start = 0;
        for (int k = 0; k < outs && k < sizes.length; k++) {
            int stop = (int) (start + sizes[k]);
            int[] shape = x.shape();
            shape[a] = stop - start;
            if (!n.getOutput(k).isEmpty()) {
                if (start == 0 && stop == dim) {
                    t.alias(n, k, x);
                } else {
                    t.emit(n, k, "slice(" + x.name() + ", " + a + ", " + start + ", " + stop + ")", shape, false);
                }
            }
            start = stop;
        }
        return null;
    }

    private String slice(OnnxMl.NodeProto n) {
        Tensor x = floatTensor(n, 0);
        long[] starts = knownInts(n, 1, "start");
        long[] ends = knownInts(n, 2, "end");
        long[] axes = t.present(n, 3) ? knownInts(n, 3, "axes") : null;
        long[] steps = t.present(n, 4) ? knownInts(n, 4, "steps") : null;
        String expr = x.name();
        int[] shape = x.shape();
        for (int k = 0; k < starts.length; k++) {
            int a = axes == null ? k : axis((int) axes[k], x.rank());
            long step = steps == null ? 1 : steps[k];
            int[] r = Folder.sliceRange(shape[a], starts[k], ends[k], step);
            if (step != 1) {
                return "Slice with step " + step;
            }
            int stop = Math.max(r[0], r[1]);
            if (r[0] == 0 && stop == shape[a]) {
                continue;
            }
            expr = "slice(" + expr + ", " + a + ", " + r[0] + ", " + stop + ")";
            shape[a] = stop - r[0];
        }
        reshapeTo(n, 0, expr, shape, shape);
        return null;
    }

    private String gather(OnnxMl.NodeProto n, Attrs at) {
        Val data = t.value(n, 0);
        if (data instanceof Tensor d && d.isInt()) {
            return "Gather from an integer tensor";
        }
        int[] ds = data instanceof Tensor d ? d.shape() : ((Known) data).c().shape();
        int a = axis((int) at.i("axis", 0), ds.length);
        Const idx = t.known(n, 1);
        if (idx == null) {
            if (a != 0 || ds.length != 2) {
                return "Gather with computed indices other than rows of a matrix (an embedding)";
            }
            Tensor w = floatTensor(n, 0);
            Tensor ids = t.tensor(n, 1, LeafKind.CONSTANT);
            int[] shape = shape(n, "embedding", Map.of(), ids, w);
            t.emit(n, 0, "embedding(" + ids.name() + ", " + w.name() + ")", shape, false);
            return null;
        }
        int[] ids = idx.ints();
        for (int i = 0; i < ids.length; i++) {
            ids[i] = ids[i] < 0 ? ids[i] + ds[a] : ids[i];
            if (ids[i] < 0 || ids[i] >= ds[a]) {
                return "Gather with the index " + idx.ints()[i] + " out of range for " + ds[a];
            }
        }
        Tensor x = floatTensor(n, 0);
        int[] out = new int[ds.length - 1 + idx.shape().length];
        System.arraycopy(ds, 0, out, 0, a);
        System.arraycopy(idx.shape(), 0, out, a, idx.shape().length);
        System.arraycopy(ds, a + 1, out, a + idx.shape().length, ds.length - a - 1);
        boolean range = ids.length > 0;
        for (int i = 1; i < ids.length; i++) {
            range &= ids[i] == ids[0] + i;
        }
        if (range && idx.shape().length <= 1) {
            int[] sliced = ds.clone();
            sliced[a] = ids.length;
            String expr = ids[0] == 0 && ids.length == ds[a] ? x.name() : "slice(" + x.name() + ", " + a + ", " + ids[0] + ", "
                    + (ids[0] + ids.length) + ")";
            reshapeTo(n, 0, expr, sliced, out);
            return null;
        }
        if (a == 0 && ds.length == 2) {
            Tensor ids2 = t.constant("indices", Const.of(idx.shape(), Arrays.stream(ids).asDoubleStream().toArray(), Const.INT64));
            t.emit(n, 0, "embedding(" + ids2.name() + ", " + x.name() + ")", out, false);
            return null;
        }
        if (idx.shape().length == 1 && ids.length <= 64) {
            String parts = Arrays.stream(ids).mapToObj(i -> "slice(" + x.name() + ", " + a + ", " + i + ", " + (i + 1) + ")")
                    .collect(Collectors.joining(", "));
            t.emit(n, 0, "concat(" + parts + ", axis=" + a + ")", out, false);
            return null;
        }
        return "Gather of " + ids.length + " scattered indices along axis " + a;
    }

    private String where(OnnxMl.NodeProto n) {
        if (t.known(n, 0) == null) {
            return "Where with a computed condition";
        }
        Tensor c = t.tensor(n, 0, LeafKind.CONSTANT);
        Tensor a = floatTensor(n, 1);
        Tensor b = floatTensor(n, 2);
        int[] shape = shape(n, "where", Map.of(), c, a, b);
        t.emit(n, 0, "where(" + c.name() + ", " + a.name() + ", " + b.name() + ")", shape, false);
        return null;
    }

    private String pad(OnnxMl.NodeProto n, Attrs at) {
        if (!at.s("mode", "constant").equals("constant")) {
            return "Pad in " + at.s("mode", "constant") + " mode";
        }
        Tensor x = floatTensor(n, 0);
        long[] pads = at.ints("pads") != null ? Arrays.stream(at.ints("pads")).asLongStream().toArray() : knownInts(n, 1, "pads");
        Const value = t.known(n, 2);
        if (t.present(n, 2) && (value == null || value.data()[0] != 0) || at.f("value", 0) != 0) {
            return "Pad with a value other than 0";
        }
        if (t.present(n, 3)) {
            return "Pad of some axes only";
        }
        int r = x.rank();
        if (pads.length != 2 * r) {
            return "Pad with " + pads.length + " pads for rank " + r;
        }
        String expr = x.name();
        int[] shape = x.shape();
        for (int a = 0; a < r; a++) {
            long before = pads[a];
            long after = pads[a + r];
            if (before < 0 || after < 0) {
                return "Pad with negative pads";
            }
            if (before != 0 || after != 0) {
                expr = "pad(" + expr + ", " + a + ", " + before + ", " + after + ")";
                shape[a] += (int) (before + after);
            }
        }
        reshapeTo(n, 0, expr, shape, shape);
        return null;
    }

    private String clip(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = floatTensor(n, 0);
        Double lo = at.has("min") ? (Double) floatAttr(at.f("min", 0)) : null;
        Double hi = at.has("max") ? (Double) floatAttr(at.f("max", 0)) : null;
        if (t.present(n, 1)) {
            Const c = t.known(n, 1);
            lo = c == null ? null : c.data()[0];
        }
        if (t.present(n, 2)) {
            Const c = t.known(n, 2);
            hi = c == null ? null : c.data()[0];
        }
        if (lo != null && hi == null && lo == 0) {
            t.emit(n, 0, "relu(" + x.name() + ")", x.shape(), false);
            return null;
        }
        if (lo == null || hi == null || number(lo) == null || number(hi) == null) {
            return "Clip without both bounds known";
        }
        t.emit(n, 0, "hardtanh(" + x.name() + ", min_val=" + number(lo) + ", max_val=" + number(hi) + ")", x.shape(), false);
        return null;
    }
}
