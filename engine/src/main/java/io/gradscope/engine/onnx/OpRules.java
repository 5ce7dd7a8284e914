package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.Translator.Known;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import io.gradscope.engine.onnx.Translator.Val;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import java.util.Arrays;
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
            "Cast", "Shape", "Size", "Range", "ConstantOfShape", "Min", "Max", "Pad", "Clip", "Sum", "LSTM", "GRU", "HardSigmoid",
            "HardSwish", "LeakyRelu", "PRelu", "Elu", "Selu", "Softsign", "Mish",
            "ConvTranspose", "CumSum", "ReduceProd", "GatherElements", "ScatterElements", "Einsum", "Trilu", "InstanceNormalization",
            "Resize", "Mod", "ScatterND");

    private static final Map<String, String> UNARY = Map.ofEntries(Map.entry("Relu", "relu"), Map.entry("Sigmoid", "sigmoid"),
            Map.entry("Tanh", "tanh"), Map.entry("Sqrt", "sqrt"), Map.entry("Erf", "erf"), Map.entry("Exp", "exp"),
            Map.entry("Log", "log"), Map.entry("Abs", "abs"), Map.entry("Sin", "sin"), Map.entry("Cos", "cos"),
            Map.entry("Softplus", "softplus"));

    private static final Map<String, String> BINARY = Map.of("Add", "+", "Sub", "-", "Mul", "*", "Div", "/");

    private final Translator t;
    private final ArithmeticRules arithmetic;
    private final NormRules norms;
    private final ShapeRules shapes;
    private final RecurrentRules recurrent;
    private final ActivationRules activations;
    private final TensorRules tensors;

    OpRules(Translator t) {
        this.t = t;
        this.arithmetic = new ArithmeticRules(this);
        this.norms = new NormRules(this);
        this.shapes = new ShapeRules(this);
        this.recurrent = new RecurrentRules(this);
        this.activations = new ActivationRules(this);
        this.tensors = new TensorRules(this);
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
    static final class Unsupported extends RuntimeException {
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
            return arithmetic.binary(n, BINARY.get(op));
        }
        return switch (op) {
            case "Identity" -> alias(n);
            case "Dropout" -> dropout(n);
            case "Neg" -> emitSame(n, "-" + floatTensor(n, 0).name());
            case "Reciprocal" -> emitSame(n, "1 / " + floatTensor(n, 0).name());
            case "Pow" -> arithmetic.pow(n);
            case "Sum" -> arithmetic.sum(n);
            case "MatMul" -> arithmetic.matmul(n);
            case "Gemm" -> arithmetic.gemm(n, at);
            case "Conv" -> ConvPoolRules.conv(this, n, at);
            case "ConvTranspose" -> ConvPoolRules.convTranspose(this, n, at);
            case "CumSum", "ReduceProd", "GatherElements", "ScatterElements", "Einsum", "Trilu", "InstanceNormalization", "Resize"
                    -> tensors.write(n, op, at);
            case "MaxPool", "AveragePool" -> ConvPoolRules.pool(this, n, at, op.equals("MaxPool"));
            case "GlobalAveragePool", "GlobalMaxPool" -> norms.globalPool(n, op.equals("GlobalMaxPool"));
            case "BatchNormalization" -> norms.batchNorm(n, at);
            case "LayerNormalization" -> norms.layerNorm(n, at);
            case "Softmax", "LogSoftmax" -> norms.softmax(n, at, op.equals("Softmax") ? "softmax" : "log_softmax");
            case "ReduceMean", "ReduceSum", "ReduceMax" -> norms.reduce(n, at, op);
            case "Reshape" -> shapes.reshape(n, at);
            case "Flatten" -> shapes.reshapeTo(n, floatTensor(n, 0), ConstantFolder.flattened(floatTensor(n, 0).shape(), (int) at.i("axis", 1)));
            case "Squeeze", "Unsqueeze" -> shapes.squeeze(n, at, op.equals("Unsqueeze"));
            case "Transpose" -> shapes.transpose(n, at);
            case "Expand" -> shapes.expand(n);
            case "Concat" -> shapes.concat(n, at);
            case "Split" -> shapes.split(n, at);
            case "Slice" -> shapes.slice(n);
            case "Gather" -> shapes.gather(n, at);
            case "Where" -> arithmetic.where(n);
            case "Cast" -> Const.isFloatType((int) at.i("to", 0)) && t.value(n, 0) instanceof Tensor x && !x.isInt() ? alias(n)
                    : "Cast of a computed tensor to " + OnnxFile.typeName((int) at.i("to", 0));
            case "Pad" -> shapes.pad(n, at);
            case "Clip" -> arithmetic.clip(n, at);
            case "LSTM", "GRU" -> recurrent.recurrent(n, at, op.equals("LSTM"));
            case "HardSigmoid", "HardSwish", "LeakyRelu", "PRelu", "Elu", "Selu", "Softsign", "Mish" -> activations.write(n, op, at);
            case "Max", "Min" -> tensors.write(n, op, at);
            default -> op + " of computed tensors (the import folds it only when its inputs are known)";
        };
    }

    /**
     * Dropout at inference (training_mode absent or false) or with ratio 0 (swin_t's attention calls
     * F.dropout(attn, p=0.0), training by default): the identity, its mask output all true. In training
     * mode with a ratio above 0 PyTorch's mask is random: refused, or with --dropout seeded the program's
     * {@code dropout(x, p, seed)}, each node its own seed (the mask is Gradscope's; its mask output unread).
     */
    private String dropout(OnnxMl.NodeProto n) {
        Const mode = t.known(n, 2);
        Const ratio = t.known(n, 1);
        boolean none = t.present(n, 1) && ratio != null && ratio.data()[0] == 0;
        boolean mask = n.getOutputCount() > 1 && !n.getOutput(1).isEmpty();
        boolean training = t.present(n, 2) && (mode == null || mode.data()[0] != 0) && !none;
        if (training && !t.seededDropout) {
            return "Dropout in training mode (PyTorch's mask is random; --dropout seeded runs Gradscope's seeded dropout)";
        }
        Tensor x = floatTensor(n, 0);
        if (training) {
            if (t.present(n, 1) && ratio == null) {
                return "Dropout in training mode with a computed ratio";
            }
            if (mask && t.isRead(n.getOutput(1))) {
                return "Dropout in training mode whose mask output is read (with --dropout seeded)";
            }
            double p = t.present(n, 1) ? ratio.data()[0] : 0.5;
            t.emit(n, 0, "dropout(" + x.name() + ", p=" + NodeOrigin.floatText((float) p) + ", seed=" + t.seededDropouts++ + ")", x.shape(),
                    false);
            return null;
        }
        t.alias(n, 0, x);
        if (mask) {
            double[] ones = new double[(int) Shapes.numel(x.shape())];
            Arrays.fill(ones, 1);
            t.set(n, 1, new Known(Const.of(x.shape(), ones, Const.BOOL)));
        }
        return null;
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

    String alias(OnnxMl.NodeProto n) {
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
    long[] knownInts(OnnxMl.NodeProto n, int i, String what) {
        Const c = t.known(n, i);
        if (c == null) {
            throw new Unsupported(n.getOpType() + " with a computed " + what);
        }
        return c.longs();
    }
}
