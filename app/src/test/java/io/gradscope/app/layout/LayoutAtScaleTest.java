package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Layouts per container: cached, composed into routes that arrive on their target, without needless crossings. */
class LayoutAtScaleTest {

    @Test
    void collapsingOneGroupReLaysOnlyItsAncestors() {
        GraphLayout layouts = GraphLayout.of(Programs.example("transformer_block.grad"));
        layouts.layout(Set.of());
        int first = layouts.elkRuns();
        assertEquals(3, first, "the root, attention and mlp");
        layouts.layout(Set.of("mlp"));
        assertEquals(first + 1, layouts.elkRuns(), "only the root again: attention's layout is kept");
        layouts.layout(Set.of());
        assertEquals(first + 1, layouts.elkRuns(), "both layouts were kept");
        layouts.layout(Set.of("attention", "mlp"));
        assertEquals(first + 2, layouts.elkRuns());
    }

    @Test
    void equalBlocksAreLaidOutOnceAndNothingOverlaps() {
        TraceGraph g = Programs.graph("chain.grad", Programs.residualChain(150));
        GraphLayout layouts = GraphLayout.of(g);
        GraphLayout.Result folded = layouts.layout(layouts.hierarchy().runs());
        assertEquals(4, folded.nodes().size(), "x, t, block ×150, loss");
        GraphLayout.Result all = layouts.layout(Set.of());
        assertEquals(753, all.nodes().size());
        // Blocks whose labels differ by a digit share a layout: a handful of ELK runs, not 150.
        assertTrue(layouts.elkRuns() <= 6, "ELK runs: " + layouts.elkRuns());
        assertEquals(151, all.groups().size(), "the run and its 150 blocks");
        // Not one thin column: the run is a grid about as wide as tall.
        assertTrue(all.width() > all.height() / 3 && all.height() > all.width() / 3, all.width() + " x " + all.height());
        List<GraphLayout.DisplayNode> nodes = new ArrayList<>(all.nodes().values());
        nodes.sort((a, b) -> Double.compare(a.box().x(), b.box().x()));
        for (int i = 0; i < nodes.size(); i++) {
            GraphLayout.Box a = nodes.get(i).box();
            for (int j = i + 1; j < nodes.size() && nodes.get(j).box().x() < a.x() + a.w(); j++) {
                GraphLayout.Box b = nodes.get(j).box();
                assertTrue(a.y() + a.h() <= b.y() || b.y() + b.h() <= a.y(), nodes.get(i).key() + " overlaps " + nodes.get(j).key());
            }
        }
        // Every block's nodes lie in its box.
        for (GraphLayout.GroupBox box : all.groups()) {
            Hierarchy.Container c = layouts.hierarchy().container(box.path());
            for (Hierarchy.Member m : c.members()) {
                if (m.isVertex()) {
                    GraphLayout.Box b = all.nodes().get("v" + m.vertex()).box();
                    assertTrue(b.x() >= box.box().x() && b.y() >= box.box().y() && b.x() + b.w() <= box.box().x() + box.box().w()
                            && b.y() + b.h() <= box.box().y() + box.box().h(), "v" + m.vertex() + " in " + box.path());
                }
            }
        }
    }

    @Test
    void everyRouteEndsOnTheTopOfItsTargetAndIsOrthogonal() {
        for (TraceGraph g : List.of(Programs.example("transformer_block.grad"), Programs.example("mlp.grad"),
                Programs.graph("chain.grad", Programs.residualChain(40)), Programs.graph("layers.grad", Programs.layers(4)))) {
            GraphLayout layouts = GraphLayout.of(g);
            for (Set<String> collapsed : List.of(Set.<String>of(), layouts.hierarchy().runs(), layouts.hierarchy().outermost())) {
                GraphLayout.Result r = layouts.layout(collapsed);
                for (GraphLayout.DisplayEdge e : r.edges()) {
                    List<double[]> p = e.points();
                    assertTrue(p.size() >= 2, e.toString());
                    GraphLayout.Box to = r.nodes().get(e.to()).box();
                    double[] end = p.get(p.size() - 1);
                    assertEquals(to.y(), end[1], 1e-6, "arrives on the top side of " + e.to());
                    assertTrue(end[0] >= to.x() - 1e-6 && end[0] <= to.x() + to.w() + 1e-6, "within " + e.to());
                    GraphLayout.Box from = r.nodes().get(e.from()).box();
                    assertEquals(from.y() + from.h(), p.get(0)[1], 1e-6, "leaves the bottom of " + e.from());
                    for (int k = 0; k + 1 < p.size(); k++) {
                        boolean straight = Math.abs(p.get(k)[0] - p.get(k + 1)[0]) < 1e-6 || Math.abs(p.get(k)[1] - p.get(k + 1)[1]) < 1e-6;
                        assertTrue(straight || p.size() == 2, "orthogonal: " + e);
                    }
                }
            }
        }
    }

    @Test
    void attentionEdgesDoNotCrossAndTheTransformerCrossesLessThanBefore() {
        assertEquals(0, crossings(GraphLayout.layout(Programs.example("causal_attention.grad"), Set.of())),
                "x feeds q, k and v between Wq, Wk and Wv");
        // ELK's old hierarchical layout crossed 3 pairs of edges here.
        assertTrue(crossings(GraphLayout.layout(Programs.example("transformer_block.grad"), Set.of())) <= 2);
    }

    /** Pairs of edges from different values whose routes cross. */
    static int crossings(GraphLayout.Result r) {
        int n = 0;
        List<GraphLayout.DisplayEdge> es = r.edges();
        for (int i = 0; i < es.size(); i++) {
            for (int j = i + 1; j < es.size(); j++) {
                if (es.get(i).edge().from() != es.get(j).edge().from() && cross(es.get(i).points(), es.get(j).points())) {
                    n++;
                }
            }
        }
        return n;
    }

    private static boolean cross(List<double[]> a, List<double[]> b) {
        for (int p = 0; p + 1 < a.size(); p++) {
            for (int q = 0; q + 1 < b.size(); q++) {
                if (proper(a.get(p), a.get(p + 1), b.get(q), b.get(q + 1))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean proper(double[] a, double[] b, double[] c, double[] d) {
        double d1 = side(c, d, a);
        double d2 = side(c, d, b);
        double d3 = side(a, b, c);
        double d4 = side(a, b, d);
        return d1 * d2 < -1e-9 && d3 * d4 < -1e-9;
    }

    private static double side(double[] a, double[] b, double[] c) {
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    }

    @Test
    void aLongChainWithoutRepeatsIsLaidOutWhateverTheCallersStack() throws Exception {
        // Unique shapes: nothing repeats, so ELK lays out one level of 2,000 nodes. Some of its steps
        // recurse once per node along the chain: on a small stack that overflowed.
        StringBuilder sb = new StringBuilder("x = input(2, 4)\n");
        String prev = "x";
        int d = 4;
        for (int i = 0; i < 666; i++) {
            int e = 4 + (i * 7) % 97 + i / 97;
            sb.append("w").append(i).append(" = param(").append(d).append(", ").append(e).append(")\n");
            sb.append("h").append(i).append(" = tanh(").append(prev).append(" @ w").append(i).append(")\n");
            d = e;
            prev = "h" + i;
        }
        sb.append("loss = sum(").append(prev).append(")\n");
        TraceGraph g = Programs.graph("flat.grad", sb.toString());
        assertTrue(Hierarchy.of(g).runs().isEmpty());
        GraphLayout.Result[] out = new GraphLayout.Result[1];
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(null, () -> {
            try {
                out[0] = GraphLayout.layout(g, Set.of());
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join();
        assertEquals(null, failure[0]);
        assertEquals(g.size(), out[0].nodes().size());
    }
}
