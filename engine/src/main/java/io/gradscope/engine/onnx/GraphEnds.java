package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.Translator.Known;
import io.gradscope.engine.onnx.Translator.Tensor;
import io.gradscope.engine.onnx.Translator.Val;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.List;

/**
 * The two ends of an imported graph: its inputs declared as the program's {@code input} or
 * {@code labels} (sizes from the model or --dim, checked), and its first output turned into the
 * objective by the chosen loss (sum, mean, mse against a target, cross-entropy against labels).
 */
final class GraphEnds {
    private GraphEnds() {
    }

    /** An input the model declares too large for a tensor is the model's (or --dim's) size, said as such. */
    private static void checkSize(Translator t, String onnx, int[] shape, OnnxMl.TensorShapeProto sp) {
        long n = 1;
        for (int d : shape) {
            n = Math.min(Long.MAX_VALUE / 4, n * Math.max(d, 0));
        }
        if (n > io.gradscope.engine.tensor.Shapes.MAX_NUMEL) {
            throw t.error("input '" + onnx + "' of shape " + java.util.Arrays.toString(shape) + " has " + n + " elements, more than a "
                    + "tensor can hold (" + io.gradscope.engine.tensor.Shapes.MAX_NUMEL + ")"
                    + (sp.getDimList().stream().anyMatch(d -> !d.hasDimValue()) ? "; give smaller sizes with --dim" : ""));
        }
    }

    private static String ordinal(int i) {
        return switch (i) {
            case 0 -> "first";
            case 1 -> "second";
            case 2 -> "third";
            default -> (i + 1) + "th";
        };
    }

    static void declareInput(Translator t, OnnxMl.ValueInfoProto in) {
        List<String> chosen = new ArrayList<>();
        String onnx = in.getName();
        if (!in.getType().hasTensorType()) {
            throw t.error("input '" + onnx + "' is not a tensor");
        }
        OnnxMl.TypeProto.Tensor tt = in.getType().getTensorType();
        OnnxMl.TensorShapeProto sp = tt.getShape();
        int[] shape = new int[sp.getDimCount()];
        List<String> shown = new ArrayList<>();
        for (int i = 0; i < shape.length; i++) {
            OnnxMl.TensorShapeProto.Dimension d = sp.getDim(i);
            if (d.hasDimValue() && d.getDimValue() >= 0) {
                if (d.getDimValue() > io.gradscope.engine.tensor.Shapes.MAX_NUMEL) {
                    throw t.error("input '" + onnx + "' has the dimension " + d.getDimValue() + " (its " + ordinal(i)
                            + "), more than a tensor can hold (" + io.gradscope.engine.tensor.Shapes.MAX_NUMEL + " elements)");
                }
                shape[i] = (int) d.getDimValue();
                shown.add(Long.toString(d.getDimValue()));
                continue;
            }
            String sym = d.getDimParam();
            shown.add(sym.isEmpty() ? "?" : sym);
            t.symbols.add(sym);
            String fixed = t.dims.get(sym);
            if (fixed == null && !sym.isEmpty() && t.unnamedSize > 0) {
                fixed = Integer.toString(t.unnamedSize);
                chosen.add(sym + " = " + t.unnamedSize);
            }
            if (sym.isEmpty() || fixed == null) {
                throw t.error("input '" + onnx + "' has a dynamic shape " + String.join("", "[", String.join(", ", shown), sp.getDimCount() > i + 1
                        ? ", ...]" : "]") + (sym.isEmpty() ? ": an unnamed dimension that cannot be fixed"
                        : ": give the size of '" + sym + "' with --dim " + sym + "=N"));
            }
            shape[i] = Integer.parseInt(fixed);
        }
        checkSize(t, onnx, shape, sp);
        int type = tt.getElemType();
        String name = t.text.name(onnx);
        t.inputNames.put(onnx, name);
        List<String> groups = List.of();
        String comment = "graph input '" + onnx + "'" + (chosen.isEmpty() ? ""
                : " (" + String.join(", ", chosen) + ": symbolic, chosen here; --dim NAME=N for another size)");
        if (Const.isFloatType(type)) {
            t.text.add(groups, name, "input(" + ProgramText.dimsText(shape, false) + ")", comment);
            t.values.put(onnx, new Tensor(name, shape, false));
        } else if (type == Const.INT64 || type == Const.INT32) {
            Integer classes = t.classesOf.get(onnx);
            if (classes == null) {
                throw t.error("input '" + onnx + "' holds integers, which the import supports only as the indices of an embedding "
                        + "(a Gather from an initializer)");
            }
            t.text.add(groups, name, "labels(" + ProgramText.dimsText(shape, true) + "classes=" + classes + ")", comment);
            t.values.put(onnx, new Tensor(name, shape, true));
        } else {
            throw t.error("input '" + onnx + "' has the element type " + OnnxFile.typeName(type) + ", which the import does not support");
        }
    }

    static void objective(Translator tr, String loss) {
        if (tr.graph.getOutputCount() == 0) {
            throw tr.error("the model has no outputs");
        }
        for (OnnxMl.ValueInfoProto o : tr.graph.getOutputList()) {
            if (tr.values.get(o.getName()) instanceof Tensor t) {
                tr.outputNames.put(o.getName(), t.name());
            }
        }
        String out = tr.graph.getOutput(0).getName();
        Val v = tr.values.get(out);
        if (!(v instanceof Tensor t) || t.isInt()) {
            throw tr.error("the first output '" + out + "' " + (v instanceof Known ? "is a constant: it depends on no input or parameter"
                    : "is not a float tensor the program computes"));
        }
        List<String> groups = List.of();
        String comment = "the objective: " + loss + " of the output '" + out + "'";
        String name = tr.text.name("loss");
        switch (loss) {
            case "sum", "mean" -> tr.text.add(groups, name, loss + "(" + t.name() + ")", comment);
            case "mse" -> {
                String target = tr.text.name("target");
                tr.text.add(groups, target, "input(" + ProgramText.dimsText(t.shape(), false) + ")", "the target of the mse loss");
                tr.text.add(groups, name, "mse(" + t.name() + ", " + target + ")", comment);
            }
            case "cross_entropy" -> {
                if (t.rank() != 2 && t.rank() != 1) {
                    throw tr.error("--loss cross_entropy needs the output '" + out + "' to be logits [N, C] or [C], not "
                            + Shapes.str(t.shape()));
                }
                String target = tr.text.name("target");
                int[] ts = t.rank() == 2 ? new int[] {t.shape()[0]} : new int[0];
                tr.text.add(groups, target, "labels(" + ProgramText.dimsText(ts, true) + "classes=" + t.shape()[t.rank() - 1] + ")",
                        "the class labels of the cross-entropy loss");
                tr.text.add(groups, name, "cross_entropy(" + t.name() + ", " + target + ")", comment);
            }
            default -> throw new GradscopeException("--loss must be sum, mean, mse or cross_entropy, not '" + loss + "'");
        }
    }
}
