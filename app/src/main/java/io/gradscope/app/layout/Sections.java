package io.gradscope.app.layout;

import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts a container with too many members to read at Fit (an 800-node chain with nothing repeating,
 * a wide model written statement after statement) into sections of consecutive statements, each a
 * container the graph shows collapsed ("lines 40–79 · tanh, matmul, sin"), nested again while a
 * section is still too long. At Fit the user sees a handful of boxes in program order and opens
 * any of them; the layout lays out only what is shown. A cut never splits a statement.
 */
final class Sections {
    /** A container with more members than this is cut (a few boxes read at Fit; a hundred do not). */
    static final int MAX_MEMBERS = 60;
    /** How many sections a container is cut into at most. */
    static final int MAX_SECTIONS = 16;

    private Sections() {
    }

    /** Cuts container {@code id} of {@code b} (a group or the root; runs and their blocks are left as they are). */
    static void cut(String id, Hierarchy.Builder b) {
        Hierarchy.Kind kind = b.kinds.get(id);
        if (kind != Hierarchy.Kind.ROOT && kind != Hierarchy.Kind.GROUP && kind != Hierarchy.Kind.SECTION) {
            return;
        }
        List<Hierarchy.Member> old = b.members.get(id);
        if (old.size() <= MAX_MEMBERS) {
            return;
        }
        int per = Math.max(MAX_MEMBERS / 4, (old.size() + MAX_SECTIONS - 1) / MAX_SECTIONS);
        List<Hierarchy.Member> next = new ArrayList<>();
        int start = 0;
        int count = 0;
        while (start < old.size()) {
            int end = Math.min(old.size(), start + per);
            // Not inside a statement: the next member starts a later line.
            while (end < old.size() && firstLine(b, old.get(end)) <= lastLine(b, old.get(end - 1))) {
                end++;
            }
            if (old.size() - end < per / 3) {
                end = old.size(); // no stub of a few members at the end
            }
            List<Hierarchy.Member> part = old.subList(start, end);
            String section = (id.isEmpty() ? "" : id + "/") + "§" + (++count);
            b.members.put(section, new ArrayList<>(part));
            b.parent.put(section, id);
            b.kinds.put(section, Hierarchy.Kind.SECTION);
            b.names.put(section, name(b, part));
            for (Hierarchy.Member m : part) {
                if (m.isVertex()) {
                    b.home[m.vertex()] = section;
                } else {
                    b.parent.put(m.container(), section);
                }
            }
            next.add(new Hierarchy.Member(-1, section));
            start = end;
        }
        b.members.put(id, next);
        for (Hierarchy.Member m : next) {
            cut(m.container(), b);
        }
    }

    private static int firstLine(Hierarchy.Builder b, Hierarchy.Member m) {
        return m.isVertex() ? b.g.vertex(m.vertex()).line() : b.g.vertex(vertices(b, m.container())[0]).line();
    }

    private static int lastLine(Hierarchy.Builder b, Hierarchy.Member m) {
        if (m.isVertex()) {
            return b.g.vertex(m.vertex()).line();
        }
        int[] vs = vertices(b, m.container());
        return b.g.vertex(vs[vs.length - 1]).line();
    }

    /** "lines 40–79: tanh, matmul, sin": the lines it spans and its three most frequent ops. */
    private static String name(Hierarchy.Builder b, List<Hierarchy.Member> part) {
        int from = Integer.MAX_VALUE;
        int to = 0;
        Map<String, Integer> ops = new LinkedHashMap<>();
        for (Hierarchy.Member m : part) {
            for (int v : m.isVertex() ? new int[] {m.vertex()} : vertices(b, m.container())) {
                TraceGraph.Vertex x = b.g.vertex(v);
                if (x.line() > 0) {
                    from = Math.min(from, x.line());
                    to = Math.max(to, x.line());
                }
                if (x.kind() == TraceGraph.Kind.OP) {
                    ops.merge(x.op(), 1, Integer::sum);
                }
            }
        }
        List<String> top = ops.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
                .limit(3).map(Map.Entry::getKey).toList();
        String lines = to == 0 ? "section" : from == to ? "line " + from : "lines " + from + "–" + to;
        return top.isEmpty() ? lines : lines + ": " + String.join(", ", top) + (ops.size() > 3 ? "…" : "");
    }

    /** The vertices of a container made while cutting (a section) or before (a group, a run). */
    private static int[] vertices(Hierarchy.Builder b, String container) {
        int[] vs = b.vertices.get(container);
        if (vs != null) {
            return vs;
        }
        List<Integer> out = new ArrayList<>();
        for (Hierarchy.Member m : b.members.get(container)) {
            if (m.isVertex()) {
                out.add(m.vertex());
            } else {
                for (int v : vertices(b, m.container())) {
                    out.add(v);
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
