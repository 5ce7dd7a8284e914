package io.gradscope.engine.program;

import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.program.Value.TensorVal;
import io.gradscope.engine.tensor.Shapes;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The class count each {@code labels(..., classes=C)} leaf declares, followed through views, so that
 * the shape check can refuse labels with more classes than the logits they meet. Without it a
 * mismatch would depend on the seed: the drawn labels happen to fit, or not.
 */
final class LabelClasses {
    private record Declared(String name, int classes) {
    }

    private final Map<Value, Declared> declared = new IdentityHashMap<>();

    void declare(Value labels, String name, int classes) {
        declared.put(labels, new Declared(name, classes));
    }

    /** What is wrong with applying {@code op} to {@code inputs} (shapes already checked), or null. */
    String problem(String op, List<TensorVal> inputs) {
        if (!op.equals("cross_entropy") || inputs.size() != 2 || inputs.get(0).shape().length == 0) {
            return null;
        }
        Declared d = declared.get(inputs.get(1));
        int[] logits = inputs.get(0).shape();
        int c = logits[logits.length - 1];
        if (d == null || d.classes() <= c) {
            return null;
        }
        return "cross_entropy: the labels '" + d.name() + "' are declared with classes=" + d.classes() + " but the logits "
                + Shapes.str(logits) + " have " + c + " class" + (c == 1 ? "" : "es") + " (the last dimension)";
    }

    /** Carries a declaration from a view's input to the view (an op its spec marks a view). */
    void follow(String op, List<TensorVal> inputs, Value out) {
        OpSpec spec = OpSpecs.get(op);
        if (spec != null && spec.view() && !inputs.isEmpty() && declared.containsKey(inputs.get(0))) {
            declared.put(out, declared.get(inputs.get(0)));
        }
    }
}
