package io.gradscope.engine.jacobian;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.sparse.IndexSets;
import io.gradscope.engine.sparse.Rows;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Why entry (i, j) of a Jacobian is nonzero: the paths, element by element, along which element j of
 * {@code wrt} reaches element i of the output through the ops' dependency rules. Counted for the
 * global rules (every value of the inputs) and the local ones (at the recorded values), with the
 * shortest local path (else the shortest global one); and for an entry the global pattern has and
 * the local one does not, the cuts: the steps at which every global path leaves the local rules
 * (a ReLU at a negative input, a max pool's loser, a masked score), each with the op and the input
 * value there.
 *
 * <pre>{@code
 * EntryPaths why = EntryPaths.of(GraphJacobian.of(h, w1), 3, 17, null);
 * why.localPaths();          // 1.0: one path, through the matmul and the ReLU
 * why.shortest();            // [w1[17], matmul[3], relu[3]] as (node, element) steps
 * }</pre>
 *
 * The search is bounded by the elements the output element depends on (found first, backwards),
 * so one entry of a large model costs its receptive field, not the model.
 *
 * @param globalPaths the number of element paths by the global rules (a double: it can be huge)
 * @param localPaths the same by the rules at the recorded values
 * @param shortest the fewest-step path, from element j of wrt to element i of the output: local when
 *     there is one, else global; empty when there is none
 * @param cuts where the global paths leave the local rules, when no local path is left (at most {@link #MAX_CUTS})
 */
public record EntryPaths(int row, int col, double globalPaths, double localPaths, List<Step> shortest, List<Cut> cuts) {
    /** The most cuts listed. */
    public static final int MAX_CUTS = 8;

    /**
     * Element {@code element} (flat, C order) of the value of {@code node} (a trace id) named {@code
     * name} (its statement's, else "#" and the id) and shaped {@code shape}, made by {@code op} ("" for wrt).
     */
    public record Step(long node, String op, String name, int[] shape, int element) {
    }

    /**
     * A step of a global path that the local rule of {@code op} does not take: output element {@code
     * element} of {@code node} does not depend, at the recorded values, on element {@code inputElement}
     * of its input {@code input} (whose value there is {@code inputValue}), though it may elsewhere.
     */
    public record Cut(long node, String op, String name, int[] shape, int element, int input, int[] inputShape, int inputElement,
                      double inputValue) {
    }

    private static String name(Node n) {
        return n.label() != null ? n.label() : "#" + n.id();
    }

    /**
     * The paths of entry ({@code i}, {@code j}) of {@code jacobian}; {@code cancelled} (null: never) is
     * asked at every node (then an {@link IndexSets.Cancelled} is thrown).
     */
    public static EntryPaths of(GraphJacobian jacobian, int i, int j, BooleanSupplier cancelled) {
        Subgraph g = jacobian.graph();
        if (i < 0 || i >= jacobian.rows() || j < 0 || j >= jacobian.cols()) {
            throw new IllegalArgumentException("entry (" + i + ", " + j + ") is outside " + jacobian.rows() + " x " + jacobian.cols());
        }
        if (g.nodes.isEmpty()) {
            return new EntryPaths(i, j, 0, 0, List.of(), List.of());
        }
        Search global = new Search(g, Sparsity.GLOBAL, i, cancelled);
        global.forward(j, null, null);
        Search local = new Search(g, Sparsity.LOCAL, i, cancelled);
        local.forward(j, null, null);
        List<Cut> cuts = new ArrayList<>();
        if (local.paths() == 0 && global.paths() > 0) {
            // Reached by the local rules, restricted to what the output element needs globally.
            Search reach = new Search(g, Sparsity.LOCAL, global, cancelled);
            reach.forward(j, global, (n, e, k, c) -> {
                if (cuts.size() < MAX_CUTS) {
                    Tensor in = n.inputs().get(k);
                    cuts.add(new Cut(n.id(), n.op().label(), name(n), n.output().shape(), e, k, in.shape(), c, in.toDoubleArray()[c]));
                }
            });
        }
        List<Step> path = local.paths() > 0 ? local.shortest() : global.shortest();
        return new EntryPaths(i, j, global.paths(), local.paths(), path, List.copyOf(cuts));
    }

    /**
     * In words: "2 paths at these values
     * (2 by the global rules); the shortest: W1[3, 5] → matmul h0[1, 5] → relu h[1, 5]", or for an
     * entry only the global pattern has, where each path is cut and the input's value there.
     */
    public String describe() {
        String entry = "entry (" + row + ", " + col + ")";
        if (globalPaths == 0) {
            return entry + " is zero for any input: no path of the ops' rules leads from the input's element to the output's";
        }
        String way = String.join(" → ", shortest.stream().map(s -> (s.op().isEmpty() ? "" : s.op() + " ")
                + at(s.name(), s.shape(), s.element())).toList());
        if (localPaths > 0) {
            return entry + ": " + paths(localPaths) + " at these values (" + paths(globalPaths) + " by the global rules); the shortest: "
                    + way;
        }
        StringBuilder b = new StringBuilder(entry + " is structurally nonzero (" + paths(globalPaths) + " by the global rules) but "
                + "zero at these values: every path is cut where");
        for (int k = 0; k < cuts.size(); k++) {
            Cut c = cuts.get(k);
            b.append(k == 0 ? " " : "; ").append(c.op()).append(' ').append(at(c.name(), c.shape(), c.element()))
                    .append(" does not depend on its input ").append(c.input()).append(" at ")
                    .append(java.util.Arrays.toString(index(c.inputShape(), c.inputElement())))
                    .append(" (value ").append(String.format(java.util.Locale.ROOT, "%.4g", c.inputValue())).append(")");
        }
        return b.append("; the shortest global path: ").append(way).toString();
    }

    private static String paths(double n) {
        String count = n < 1e15 ? String.format(java.util.Locale.ROOT, "%,d", (long) n) : String.format(java.util.Locale.ROOT, "%.3g", n);
        return count + (n == 1 ? " path" : " paths");
    }

    private static String at(String name, int[] shape, int element) {
        return name + java.util.Arrays.toString(index(shape, element));
    }

    /** A flat C-order index as one index per dimension. */
    static int[] index(int[] shape, int flat) {
        int[] at = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            at[d] = shape[d] == 0 ? 0 : flat % shape[d];
            flat = shape[d] == 0 ? flat : flat / shape[d];
        }
        return at;
    }

    /** Told of an edge a search did not take: output element e of n, input k's element c (which it reached). */
    @FunctionalInterface
    private interface Missed {
        void edge(Node n, int e, int k, int c);
    }

    /** The element paths by one kind of rule from (wrt, j) to (of, i), inside the elements (of, i) depends on. */
    private static final class Search {
        private final Subgraph g;
        private final Sparsity kind;
        private final BooleanSupplier cancelled;
        /** Per node: the sorted elements that output element i depends on (by the global search's rules when restricted). */
        private final Map<Node, int[]> back;
        private final Map<Node, double[]> count = new HashMap<>();
        private final Map<Node, int[]> dist = new HashMap<>();
        /** Per node and element (by its place in back): the input it came from on a shortest path, and that input's element. */
        private final Map<Node, int[]> fromInput = new HashMap<>();
        private final Map<Node, int[]> fromElement = new HashMap<>();
        private final Map<Node, Rows[]> rules = new HashMap<>();

        Search(Subgraph g, Sparsity kind, int i, BooleanSupplier cancelled) {
            this.g = g;
            this.kind = kind;
            this.cancelled = cancelled;
            this.back = backward(i);
        }

        /** A search by {@code kind}'s rules within the elements {@code within} found. */
        Search(Subgraph g, Sparsity kind, Search within, BooleanSupplier cancelled) {
            this.g = g;
            this.kind = kind;
            this.cancelled = cancelled;
            this.back = within.back;
        }

        private Rows rule(Node n, int k) {
            Rows[] r = rules.computeIfAbsent(n, x -> new Rows[n.inputs().size()]);
            if (r[k] == null) {
                int[][] shapes = n.inputs().stream().map(Tensor::shape).toArray(int[][]::new);
                Rows rule = kind.rule(n.op(), k, shapes, n.context());
                // an op without a dependency rule is taken as dense (as Sparsity does).
                r[k] = rule != null ? rule : io.gradscope.engine.sparse.Pattern.dense((int) n.output().numel(),
                        (int) n.inputs().get(k).numel());
            }
            return r[k];
        }

        private void check() {
            if (cancelled != null && cancelled.getAsBoolean()) {
                throw new IndexSets.Cancelled();
            }
        }

        private Map<Node, int[]> backward(int i) {
            Map<Node, java.util.BitSet> need = new HashMap<>();
            java.util.BitSet top = new java.util.BitSet();
            top.set(i);
            need.put(g.ofNode, top);
            for (int x = g.nodes.size() - 1; x >= 0; x--) {
                check();
                Node n = g.nodes.get(x);
                java.util.BitSet mine = need.get(n);
                if (mine == null || n == g.wrtNode) {
                    continue;
                }
                for (int k = 0; k < n.inputs().size(); k++) {
                    Node m = g.member(n.inputs().get(k));
                    if (m == null) {
                        continue;
                    }
                    Rows r = rule(n, k);
                    int[] buf = new int[r.maxRowCount()];
                    java.util.BitSet theirs = need.computeIfAbsent(m, z -> new java.util.BitSet());
                    for (int e = mine.nextSetBit(0); e >= 0; e = mine.nextSetBit(e + 1)) {
                        int c = r.row(e, buf);
                        for (int t = 0; t < c; t++) {
                            theirs.set(buf[t]);
                        }
                    }
                }
            }
            Map<Node, int[]> out = new HashMap<>();
            need.forEach((n, b) -> out.put(n, b.stream().toArray()));
            return out;
        }

        /**
         * Counts the paths from (wrt, j) and finds the shortest; with {@code full} (a search by the
         * global rules within the same elements, already run), tells {@code missed} of each edge of a
         * global path whose source this search reached and whose target it did not.
         */
        void forward(int j, Search full, Missed missed) {
            int[] wrtNeed = back.getOrDefault(g.wrtNode, new int[0]);
            int at = Arrays.binarySearch(wrtNeed, j);
            double[] c0 = new double[wrtNeed.length];
            int[] d0 = new int[wrtNeed.length];
            Arrays.fill(d0, Integer.MAX_VALUE);
            if (at >= 0) {
                c0[at] = 1;
                d0[at] = 0;
            }
            count.put(g.wrtNode, c0);
            dist.put(g.wrtNode, d0);
            for (Node n : g.nodes) {
                check();
                int[] mine = back.get(n);
                if (n == g.wrtNode || mine == null) {
                    continue;
                }
                double[] cn = new double[mine.length];
                int[] dn = new int[mine.length];
                int[] fk = new int[mine.length];
                int[] fe = new int[mine.length];
                Arrays.fill(dn, Integer.MAX_VALUE);
                for (int k = 0; k < n.inputs().size(); k++) {
                    Node m = g.member(n.inputs().get(k));
                    if (m == null || !count.containsKey(m)) {
                        continue;
                    }
                    int[] theirs = back.get(m);
                    double[] cm = count.get(m);
                    int[] dm = dist.get(m);
                    Rows r = rule(n, k);
                    int[] buf = new int[r.maxRowCount()];
                    for (int p = 0; p < mine.length; p++) {
                        int len = r.row(mine[p], buf);
                        for (int t = 0; t < len; t++) {
                            int q = Arrays.binarySearch(theirs, buf[t]);
                            if (q >= 0 && cm[q] > 0) {
                                cn[p] += cm[q];
                                if (dm[q] + 1 < dn[p]) {
                                    dn[p] = dm[q] + 1;
                                    fk[p] = k;
                                    fe[p] = buf[t];
                                }
                            }
                        }
                    }
                }
                if (missed != null) {
                    double[] onGlobal = full.count.get(n);
                    for (int p = 0; p < mine.length; p++) {
                        if (cn[p] == 0 && onGlobal != null && onGlobal[p] > 0) {
                            tellMissed(n, mine[p], full, missed);
                        }
                    }
                }
                count.put(n, cn);
                dist.put(n, dn);
                fromInput.put(n, fk);
                fromElement.put(n, fe);
            }
        }

        /** The inputs of (n, e) by {@code full}'s rules that this search reached: each is a missed edge. */
        private void tellMissed(Node n, int e, Search full, Missed missed) {
            for (int k = 0; k < n.inputs().size(); k++) {
                Node m = g.member(n.inputs().get(k));
                if (m == null || !count.containsKey(m)) {
                    continue;
                }
                int[] theirs = back.get(m);
                double[] cm = count.get(m);
                Rows r = full.rule(n, k);
                int[] buf = new int[r.maxRowCount()];
                int len = r.row(e, buf);
                for (int t = 0; t < len; t++) {
                    int q = Arrays.binarySearch(theirs, buf[t]);
                    if (q >= 0 && cm[q] > 0) {
                        missed.edge(n, e, k, buf[t]);
                    }
                }
            }
        }

        /** The number of paths reaching (of, i). */
        double paths() {
            double[] c = count.get(g.ofNode);
            int[] need = back.get(g.ofNode);
            return c == null || need == null || need.length == 0 ? 0 : c[0];
        }

        /** The fewest-step path, wrt first; empty when there is none. */
        List<Step> shortest() {
            List<Step> steps = new ArrayList<>();
            if (paths() == 0) {
                return steps;
            }
            Node n = g.ofNode;
            int e = back.get(n)[0];
            while (true) {
                steps.add(0, new Step(n.id(), n == g.wrtNode || n.isLeaf() ? "" : n.op().label(), name(n),
                        n == g.wrtNode ? g.wrt.shape() : n.output().shape(), e));
                if (n == g.wrtNode) {
                    return steps;
                }
                int p = Arrays.binarySearch(back.get(n), e);
                int k = fromInput.get(n)[p];
                e = fromElement.get(n)[p];
                n = g.member(n.inputs().get(k));
            }
        }
    }
}
