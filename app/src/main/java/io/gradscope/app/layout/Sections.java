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
    /**
     * How many members over {@link #MAX_MEMBERS} a section may hold before it is cut again: 1,000
     * statements in 16 sections are 63 a section (65 once a cut waits for a statement's end), which
     * opened read as well as 60, and cut again they were 4 boxes of 15 and a stub of 5 to open first.
     */
    static final int SLACK = MAX_MEMBERS / 8;
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
        if (b.members.get(id).size() <= (kind == Hierarchy.Kind.SECTION ? MAX_MEMBERS + SLACK : MAX_MEMBERS)) {
            return;
        }
        List<Hierarchy.Member> old = dissolveLongRuns(id, b);
        int per = share(old.size());
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

    /** How many members a section of a container of {@code size} members gets. */
    private static int share(int size) {
        return Math.max(MAX_MEMBERS / 4, (size + MAX_SECTIONS - 1) / MAX_SECTIONS);
    }

    /**
     * The members of container {@code id} with each run of single statements longer than a section
     * (the wide program's summing tree, 164 additions folded into "t ×164") put back as its
     * statements: folded, it was one box covering 165 lines at the end of a section of 26 lines of
     * branches, 189 lines where every other section covered 22, so it is cut into sections like the
     * rest. A run of blocks (more than one statement each) stays one box: its blocks are what it shows.
     */
    private static List<Hierarchy.Member> dissolveLongRuns(String id, Hierarchy.Builder b) {
        List<Hierarchy.Member> old = b.members.get(id);
        int statements = 0;
        for (Hierarchy.Member m : old) {
            statements += isRunOfStatements(b, m) ? b.members.get(m.container()).size() : 1;
        }
        int per = share(statements);
        List<Hierarchy.Member> out = new ArrayList<>(statements);
        for (Hierarchy.Member m : old) {
            if (!isRunOfStatements(b, m) || b.members.get(m.container()).size() <= per) {
                out.add(m);
                continue;
            }
            for (Hierarchy.Member v : b.members.remove(m.container())) {
                b.home[v.vertex()] = id;
                out.add(v);
            }
            b.kinds.remove(m.container());
            b.names.remove(m.container());
            b.parent.remove(m.container());
        }
        b.members.put(id, out);
        return out;
    }

    /** Whether {@code m} is a run whose blocks are single vertices ("t ×164", "W ×150"). */
    private static boolean isRunOfStatements(Hierarchy.Builder b, Hierarchy.Member m) {
        return !m.isVertex() && b.kinds.get(m.container()) == Hierarchy.Kind.REPEAT
                && b.members.get(m.container()).stream().allMatch(Hierarchy.Member::isVertex);
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

    /**
     * "enc_3 … enc_9 (7 groups)" when the section holds groups of the program (or an imported model's
     * modules, which are its groups), named as the program names them; else "lines 40–79: tanh,
     * matmul, sin": the lines it spans and its three most frequent ops.
     */
    private static String name(Hierarchy.Builder b, List<Hierarchy.Member> part) {
        List<String> groups = new ArrayList<>();
        for (Hierarchy.Member m : part) {
            Hierarchy.Kind kind = m.isVertex() ? null : b.kinds.get(m.container());
            if (kind == Hierarchy.Kind.GROUP || kind == Hierarchy.Kind.REPEAT) {
                groups.add(b.names.get(m.container()));
            }
        }
        if (!groups.isEmpty()) {
            String first = groups.get(0);
            String last = groups.get(groups.size() - 1);
            return switch (groups.size()) {
                case 1 -> first;
                case 2 -> first + ", " + last;
                default -> first + " … " + last + " (" + groups.size() + " groups)";
            };
        }
        return linesAndOps(b, part);
    }

    /** "lines 40–79: tanh, matmul, sin": the lines it spans and its three most frequent ops. */
    private static String linesAndOps(Hierarchy.Builder b, List<Hierarchy.Member> part) {
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
