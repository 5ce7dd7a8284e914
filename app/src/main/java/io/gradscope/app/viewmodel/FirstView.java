package io.gradscope.app.viewmodel;

import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Locale;

/**
 * What the Node tab says before the first step, while no node is inspected: what the program
 * computed (its objective's name and value, how many nodes of each kind, how many values its
 * parameters hold) and how to start. Until then the tab only said "Step or click a node".
 */
public final class FirstView {
    private FirstView() {
    }

    /** The tab's title, its summary line and its how-to line for {@code sweep} in {@code mode}. */
    public static String[] of(Sweep sweep, Sweep.Mode mode) {
        TraceGraph g = sweep.graph();
        TraceGraph.Vertex objective = null;
        int inputs = 0;
        int params = 0;
        int ops = 0;
        long paramValues = 0;
        for (TraceGraph.Vertex v : g.vertices()) {
            switch (v.kind()) {
                case INPUT, LABELS -> inputs++;
                case PARAM -> {
                    params++;
                    paramValues += v.value().numel();
                }
                case OP -> ops++;
                case OBJECTIVE -> {
                    ops++;
                    objective = v;
                }
            }
        }
        if (objective == null && g.size() > 0) {
            objective = g.vertex(g.size() - 1);
        }
        int steps = sweep.steps(mode);
        String title = "Before step 1 of " + steps;
        String computed = objective == null ? "The program computed nothing." : String.format(Locale.ROOT,
                "The program computed %s = %s (its objective, %s) from %d nodes: %d %s, %d %s (%,d values), %d %s.",
                objective.title(), SessionViewModel.num(objective.value().item()),
                objective.value().shape().length == 0 ? "a scalar" : "shape " + Shapes.str(objective.value().shape()), g.size(),
                inputs, inputs == 1 ? "input" : "inputs", params, params == 1 ? "parameter" : "parameters", paramValues,
                ops, ops == 1 ? "op" : "ops");
        String start = mode == Sweep.Mode.BACKWARD
                ? "Step ▶ (or →) walks the backward pass, " + steps + " steps from the objective back to the parameters; "
                        + "Play runs them. Click any node to inspect its value now."
                : "Step ▶ (or →) walks the forward pass, " + steps + " steps from the inputs to the objective; "
                        + "Play runs them. Click any node to inspect its value now.";
        return new String[] {title, computed, start};
    }
}
