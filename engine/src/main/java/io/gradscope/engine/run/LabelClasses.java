package io.gradscope.engine.run;

import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.ops.Param;
import io.gradscope.engine.run.ExprValue.TensorVal;
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

    private final Map<ExprValue, Declared> declared = new IdentityHashMap<>();

    void declare(ExprValue labels, String name, int classes) {
        declared.put(labels, new Declared(name, classes));
    }

    /**
     * What is wrong with applying {@code op} to {@code inputs} (shapes already checked), or null: an
     * op whose spec says one input holds class labels (cross_entropy) meeting more declared classes
     * than the first input's last dimension has.
     */
    String problem(String op, List<TensorVal> inputs) {
        OpSpec spec = OpSpecs.get(op);
        if (spec == null || spec.classLabels() == null) {
            return null;
        }
        List<Param> tensors = spec.params().stream().filter(p -> p.kind() == Param.Kind.TENSOR).toList();
        int at = tensors.indexOf(spec.param(spec.classLabels()));
        if (at < 1 || inputs.size() <= at || inputs.get(0).shape().length == 0) {
            return null;
        }
        Declared d = declared.get(inputs.get(at));
        int[] scores = inputs.get(0).shape();
        // [N, C, d1, ...] (a K-dimensional loss) holds its classes along axis 1, [N, C] and [C] along the last
        boolean spatial = scores.length >= 3;
        int c = scores[spatial ? 1 : scores.length - 1];
        if (d == null || d.classes() <= c) {
            return null;
        }
        return op + ": the labels '" + d.name() + "' are declared with classes=" + d.classes() + " but the " + tensors.get(0).name()
                + " " + Shapes.str(scores) + " have " + c + " class" + (c == 1 ? "" : "es") + (spatial ? " (dimension 1)" : " (the last dimension)");
    }

    /** Carries a declaration from a view's input to the view (an op its spec marks a view). */
    void follow(String op, List<TensorVal> inputs, ExprValue out) {
        OpSpec spec = OpSpecs.get(op);
        if (spec != null && spec.view() && !inputs.isEmpty() && declared.containsKey(inputs.get(0))) {
            declared.put(out, declared.get(inputs.get(0)));
        }
    }
}
