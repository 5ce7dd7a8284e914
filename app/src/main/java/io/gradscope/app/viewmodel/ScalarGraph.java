package io.gradscope.app.viewmodel;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.jacobian.RecordedRun;
import io.gradscope.engine.scalar.ScalarExpansion;
import io.gradscope.engine.scalar.Value;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small node of a run written out as its scalar graph, as the engine expanded it and ran its
 * backward pass ({@link RecordedRun#scalarBackward}): every input element a scalar {@link Value},
 * every output element built from them, each scalar with its value and its gradient, the inputs'
 * gradients the node's VJP summed over scalar paths. Nothing here differentiates: this lays the
 * scalars out for drawing and sets them beside the contributions the backward pass recorded.
 */
public record ScalarGraph(String title, List<Scalar> scalars, List<int[]> edges, int layers, String message,
                          double[][] recordedContribution) {
    /** The most scalars drawn. */
    public static final int DRAW_LIMIT = 600;

    /** What a scalar is in the drawing. */
    public enum Role { INPUT, INNER, OUTPUT }

    /**
     * One scalar: its label ("A[0,1]", "×", "+", "exp"), role, layer (0: inputs), value and gradient;
     * {@code input} and {@code element} place an input or output scalar in its tensor (else -1).
     */
    public record Scalar(int id, String label, Role role, int layer, double value, double grad, int input, int element) {
    }

    /** Nothing to draw, and why. */
    static ScalarGraph refused(String title, String why) {
        return new ScalarGraph(title, List.of(), List.of(), 0, why, new double[0][]);
    }

    public boolean drawn() {
        return message == null;
    }

    /**
     * Expands vertex {@code vertex} of a recorded run. Refuses, saying why, a leaf, a node the
     * backward pass did not reach, an op the expansion does not cover and a node too large to draw.
     */
    public static ScalarGraph of(Sweep sweep, int vertex) {
        TraceGraph g = sweep.graph();
        TraceGraph.Vertex v = g.vertex(vertex);
        String title = v.title() + (v.title().equals(v.op()) ? "" : " = " + v.op());
        if (v.kind() != TraceGraph.Kind.OP && v.kind() != TraceGraph.Kind.OBJECTIVE) {
            return refused(title, "'" + v.title() + "' is a leaf: there is nothing to expand (its elements are the scalars)");
        }
        int step = sweep.backwardStepOf(vertex);
        ScalarExpansion e;
        try {
            e = step < 0 ? null : RecordedRun.of(sweep.run().trace()).scalarBackward(v.id());
        } catch (GradscopeException ex) {
            return refused(title, ex.getMessage());
        }
        if (e == null) {
            return refused(title, "'" + v.title() + "' has no gradient: expanding into scalars shows each scalar's gradient, so it "
                    + "needs a node the backward pass reached");
        }
        TraceEvent.BackwardStep bs = sweep.backwardStep(step);
        double[][] sent = new double[e.inputs().size()][];
        for (TraceEvent.Contribution c : bs.contributions()) {
            if (c.input() < sent.length) {
                sent[c.input()] = c.gradient().toDoubleArray();
            }
        }
        return build(title, g, vertex, e, sent);
    }

    private static ScalarGraph build(String title, TraceGraph g, int vertex, ScalarExpansion e, double[][] sent) {
        Map<Value, Integer> ids = new IdentityHashMap<>();
        Map<Value, int[]> inputAt = new IdentityHashMap<>();
        List<Value> order = new ArrayList<>();
        for (int i = 0; i < e.inputs().size(); i++) {
            List<Value> in = e.inputs().get(i);
            for (int j = 0; j < in.size(); j++) {
                inputAt.put(in.get(j), new int[] {i, j});
            }
        }
        // Every scalar an output depends on, operands first (inputs a graph does not use are drawn too).
        for (List<Value> in : e.inputs()) {
            for (Value x : in) {
                visit(x, ids, order);
            }
        }
        for (Value out : e.outputs()) {
            visit(out, ids, order);
        }
        if (order.size() > DRAW_LIMIT) {
            return refused(title, "'" + title + "' expands into " + order.size() + " scalars: too many to draw (at most "
                    + DRAW_LIMIT + "); choose a smaller node");
        }
        Map<Value, Integer> outputAt = new IdentityHashMap<>();
        for (int k = 0; k < e.outputs().size(); k++) {
            outputAt.putIfAbsent(e.outputs().get(k), k);
        }
        int[] layer = new int[order.size()];
        List<int[]> edges = new ArrayList<>();
        List<Scalar> scalars = new ArrayList<>();
        int layers = 1;
        for (int k = 0; k < order.size(); k++) {
            Value x = order.get(k);
            for (Value o : x.operands()) {
                Integer from = ids.get(o);
                if (from != null) {
                    edges.add(new int[] {from, k});
                    layer[k] = Math.max(layer[k], layer[from] + 1);
                }
            }
            layers = Math.max(layers, layer[k] + 1);
            int[] at = inputAt.get(x);
            Integer out = outputAt.get(x);
            Role role = at != null ? Role.INPUT : out != null ? Role.OUTPUT : Role.INNER;
            String label = at != null ? inputLabel(g, vertex, e, at[0], at[1])
                    : out != null ? index(g.vertex(vertex).title(), e.outputShape(), out) + " = " + symbol(x) : symbol(x);
            scalars.add(new Scalar(k, label, role, layer[k], x.data(), x.grad(), at != null ? at[0] : -1,
                    at != null ? at[1] : out != null ? out : -1));
        }
        return new ScalarGraph(title, List.copyOf(scalars), List.copyOf(edges), layers, null, sent);
    }

    private static void visit(Value x, Map<Value, Integer> ids, List<Value> order) {
        // Iterative post-order: deep chains of sums would overflow a recursive walk.
        java.util.ArrayDeque<Object[]> stack = new java.util.ArrayDeque<>();
        stack.push(new Object[] {x, 0});
        while (!stack.isEmpty()) {
            Object[] top = stack.peek();
            Value v = (Value) top[0];
            if (ids.containsKey(v)) {
                stack.pop();
                continue;
            }
            int next = (Integer) top[1];
            if (next < v.operands().size()) {
                top[1] = next + 1;
                Value o = v.operands().get(next);
                if (!ids.containsKey(o) && !o.operands().isEmpty() || !ids.containsKey(o) && !o.label().isEmpty()) {
                    stack.push(new Object[] {o, 0});
                }
            } else {
                stack.pop();
                ids.put(v, order.size());
                order.add(v);
            }
        }
    }

    private static String symbol(Value x) {
        return switch (x.op()) {
            case "*" -> "×";
            case "+" -> "+";
            case "" -> "const";
            default -> x.op();
        };
    }

    /** "A[0,1]": the input's name (or "input 2") and the element's index in its shape. */
    private static String inputLabel(TraceGraph g, int vertex, ScalarExpansion e, int input, int element) {
        int from = g.inputOf(vertex, input);
        String name = from >= 0 ? g.vertex(from).title() : "c" + (input + 1);
        int[] shape = from >= 0 ? g.vertex(from).value().shape() : new int[] {e.inputs().get(input).size()};
        return index(name, shape, element);
    }

    /** "A[0,1]": element {@code element} (row-major) of a tensor named {@code name} of {@code shape}. */
    private static String index(String name, int[] shape, int element) {
        int[] idx = new int[shape.length];
        int k = element;
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = shape[d] == 0 ? 0 : k % shape[d];
            k = shape[d] == 0 ? 0 : k / shape[d];
        }
        StringBuilder sb = new StringBuilder(name).append('[');
        for (int d = 0; d < idx.length; d++) {
            sb.append(d > 0 ? "," : "").append(idx[d]);
        }
        return sb.append(']').toString();
    }

    /** The largest |Σ paths − the engine's VJP| over the inputs' elements (NaN: nothing to compare). */
    public double agreement() {
        double worst = Double.NaN;
        for (Scalar s : scalars) {
            if (s.role() == Role.INPUT && s.input() < recordedContribution.length && recordedContribution[s.input()] != null
                    && s.element() < recordedContribution[s.input()].length) {
                double d = Math.abs(s.grad() - recordedContribution[s.input()][s.element()]);
                worst = Double.isNaN(worst) ? d : Math.max(worst, d);
            }
        }
        return worst;
    }
}
