package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.Tensor;

/**
 * The activations beyond the plain unary ones: LeakyRelu, Elu, HardSwish, HardSigmoid (PyTorch's
 * alpha 1/6, beta 1/2) and Mish as the op table's own functions; HardSigmoid with other constants,
 * PRelu and Selu as compositions of the ops it has (so their gradients come from those ops' VJPs:
 * {@code x - relu(x)} is the negative part, {@code min(x, 0)}), and Softsign.
 */
final class ActivationRules {
    private final OpRules r;
    private final Translator t;

    ActivationRules(OpRules r) {
        this.r = r;
        this.t = r.translator();
    }

    /** Writes activation {@code op} of node {@code n}; null, or what is unsupported. */
    String write(OnnxMl.NodeProto n, String op, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        String v = x.name();
        String expr = switch (op) {
            case "HardSigmoid" -> (float) at.f("alpha", 0.2) == (float) (1.0 / 6) && at.f("beta", 0.5) == 0.5 ? "hardsigmoid(" + v + ")"
                    // hardtanh passes the gradient strictly inside (0, 1) as PyTorch's hardsigmoid does inside (-3, 3)
                    : "hardtanh(" + v + " * " + num(at.f("alpha", 0.2)) + " + " + num(at.f("beta", 0.5)) + ", min_val=0, max_val=1)";
            case "HardSwish" -> "hardswish(" + v + ")";
            case "LeakyRelu" -> "leaky_relu(" + v + ", negative_slope=" + num(at.f("alpha", 0.01)) + ")";
            case "Mish" -> "mish(" + v + ")";
            case "PRelu" -> {
                Tensor slope = r.floatTensor(n, 1);
                yield "relu(" + v + ") + (" + v + " - relu(" + v + ")) * " + slope.name();
            }
            case "Elu" -> "elu(" + v + ", alpha=" + num(at.f("alpha", 1)) + ")";
            case "Selu" -> "(relu(" + v + ") + (exp(" + v + " - relu(" + v + ")) - 1) * " + exact(at.f("alpha", SELU_ALPHA), SELU_ALPHA)
                    + ") * " + exact(at.f("gamma", SELU_GAMMA), SELU_GAMMA);
            case "Softsign" -> v + " / (1 + abs(" + v + "))";
            default -> null;
        };
        if (expr == null) {
            return op + " (no rule)";
        }
        int[] shape = x.shape();
        if (op.equals("PRelu")) {
            shape = io.gradscope.engine.tensor.Shapes.broadcast("PRelu", shape, r.floatTensor(n, 1).shape());
        }
        t.emit(n, 0, expr, shape, false);
        return null;
    }

    private static final double SELU_ALPHA = 1.6732632423543772848170429916717;
    private static final double SELU_GAMMA = 1.0507009873554804934193349852946;

    /**
     * ONNX keeps SELU's constants (and hardsigmoid's 1/6) in float32 (1.67326319...); where an attribute is the float32 of
     * the exact constant, the exact one is written, as PyTorch computes with it (the float32 one moves
     * a deep network's gradients by about 1e-6).
     */
    private static String exact(double f, double exact) {
        return (float) f == (float) exact ? OpRules.number(exact) : num(f);
    }

    private static String num(double f) {
        return OpRules.number(OpRules.floatAttr(f));
    }
}
