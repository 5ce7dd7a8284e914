package io.gradscope.app.layout;

import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The boxes a graph is drawn in: the program's {@code with group(...)} blocks, and the repeated
 * structure {@link RepeatFinder} detects (a run "block ×150" holding one box per block). Each box
 * is a container with an id: a group's is its path ("outer/inner"), a run's "⟳1" (under its
 * parent: "outer/⟳1"), a block's its run's id and its number ("⟳1/7"). A group that is one block
 * of a run keeps its path as its id. A container left with too many members to read at Fit (a long
 * chain with nothing repeating) is cut into {@link Sections sections} of consecutive statements ("§3"). Any container can be collapsed into one node.
 * No JavaFX: built from the graph alone, in O(vertices × depth).
 */
public final class Hierarchy {
    /** What a container is. */
    public enum Kind { ROOT, GROUP, REPEAT, BLOCK, SECTION }

    /** The root container's id. */
    public static final String ROOT = "";
    /** What a run's id starts with (after its parent's path). */
    public static final String RUN_MARK = "⟳";

    /**
     * A container: its vertices and child containers in program order ({@code members}), how many
     * vertices it holds in all, and its first vertex.
     */
    public record Container(String id, Kind kind, String name, String parent, List<Member> members, int size, int first) {
    }

    /** A vertex ({@code vertex >= 0}) or a child container. */
    public record Member(int vertex, String container) {
        public boolean isVertex() {
            return container == null;
        }
    }

    private final Map<String, Container> containers;
    /** Per vertex, the containers it is in, outermost first (the root left out). */
    private final String[][] chains;

    private Hierarchy(Map<String, Container> containers, String[][] chains) {
        this.containers = containers;
        this.chains = chains;
    }

    /** The containers of {@code g}: its groups and the runs of repeated structure found in them. */
    public static Hierarchy of(TraceGraph g) {
        return new Builder(g).build();
    }

    public Container container(String id) {
        return containers.get(id);
    }

    /** Every container but the root, parents before their children. */
    public Collection<Container> containers() {
        return containers.values().stream().filter(c -> c.kind() != Kind.ROOT).toList();
    }

    /** The containers a vertex is in, outermost first. */
    public List<String> chain(int vertex) {
        return List.of(chains[vertex]);
    }

    /** The drawn node of a vertex: its own ("v12"), or its outermost collapsed container's ("g:⟳1"). */
    public String keyOf(int vertex, Set<String> collapsed) {
        if (!collapsed.isEmpty()) {
            for (String c : chains[vertex]) {
                if (collapsed.contains(c)) {
                    return "g:" + c;
                }
            }
        }
        return "v" + vertex;
    }

    /** The runs of repeated structure: folded when a graph is first shown. */
    public Set<String> runs() {
        return ofKind(Kind.REPEAT);
    }

    /** The sections long stretches without repeats are cut into: folded when a graph is first shown. */
    public Set<String> sections() {
        return ofKind(Kind.SECTION);
    }

    private Set<String> ofKind(Kind kind) {
        Set<String> out = new LinkedHashSet<>();
        for (Container c : containers.values()) {
            if (c.kind() == kind) {
                out.add(c.id());
            }
        }
        return out;
    }

    /** The outermost containers (Collapse All). */
    public Set<String> outermost() {
        Set<String> out = new LinkedHashSet<>();
        for (Member m : containers.get(ROOT).members()) {
            if (!m.isVertex()) {
                out.add(m.container());
            }
        }
        return out;
    }

    /** The label of a collapsed container: "▸ block ×150 · 750 nodes". */
    public String collapsedLabel(String id) {
        Container c = containers.get(id);
        return "▸ " + c.name() + " · " + c.size() + " nodes";
    }

    static final class Builder {
        final TraceGraph g;
        final Map<String, String> parent = new HashMap<>();
        final Map<String, List<Member>> members = new LinkedHashMap<>();
        final Map<String, String> names = new HashMap<>();
        final Map<String, Kind> kinds = new HashMap<>();
        private final Map<String, String> tokens = new HashMap<>();
        final Map<String, int[]> vertices = new HashMap<>();
        final String[] home;
        private int runs;

        Builder(TraceGraph g) {
            this.g = g;
            this.home = new String[g.size()];
        }

        Hierarchy build() {
            members.put(ROOT, new ArrayList<>());
            kinds.put(ROOT, Kind.ROOT);
            names.put(ROOT, "");
            for (TraceGraph.Vertex v : g.vertices()) {
                String path = ROOT;
                for (String name : v.groups()) {
                    String next = path.isEmpty() ? name : path + "/" + name;
                    if (!members.containsKey(next)) {
                        members.put(next, new ArrayList<>());
                        members.get(path).add(new Member(-1, next));
                        parent.put(next, path);
                        kinds.put(next, Kind.GROUP);
                        names.put(next, name);
                    }
                    path = next;
                }
                members.get(path).add(new Member(v.index(), null));
                home[v.index()] = path;
            }
            // Innermost groups first: a group's token (its signature) is an item's token in its parent.
            List<String> groups = new ArrayList<>(members.keySet());
            groups.sort(Comparator.comparingInt((String p) -> -depth(p)));
            for (String id : groups) {
                collectVertices(id);
            }
            for (String id : groups) {
                List<RepeatFinder.Item> items = items(id);
                if (!id.equals(ROOT)) {
                    tokens.put(id, "G(" + RepeatFinder.signature(items, this::inputs) + ")");
                }
            }
            for (String id : groups) {
                fold(id);
            }
            for (String id : groups) {
                Sections.cut(id, this);
            }
            return assemble();
        }

        private int depth(String path) {
            return path.isEmpty() ? 0 : path.split("/").length;
        }

        private void collectVertices(String id) {
            List<Integer> out = new ArrayList<>();
            for (Member m : members.get(id)) {
                if (m.isVertex()) {
                    out.add(m.vertex());
                } else {
                    for (int v : vertices.get(m.container())) {
                        out.add(v);
                    }
                }
            }
            out.sort(Integer::compare);
            vertices.put(id, out.stream().mapToInt(Integer::intValue).toArray());
        }

        private int[][] inputs(int v) {
            List<TraceGraph.Edge> in = g.inEdges(v);
            int[][] out = new int[in.size()][];
            for (int i = 0; i < out.length; i++) {
                out[i] = new int[] {in.get(i).from(), in.get(i).input()};
            }
            return out;
        }

        private String token(TraceGraph.Vertex v) {
            return v.kind() + "|" + v.op() + "|" + Shapes.str(v.value().shape()) + "|" + v.requiresGrad();
        }

        private List<RepeatFinder.Item> items(String id) {
            List<RepeatFinder.Item> items = new ArrayList<>();
            for (Member m : members.get(id)) {
                if (m.isVertex()) {
                    TraceGraph.Vertex v = g.vertex(m.vertex());
                    items.add(new RepeatFinder.Item(token(v), new int[] {v.index()}, v.line(), v.line()));
                } else {
                    int[] vs = vertices.get(m.container());
                    items.add(new RepeatFinder.Item(tokens.get(m.container()), vs, g.vertex(vs[0]).line(),
                            g.vertex(vs[vs.length - 1]).line()));
                }
            }
            return items;
        }

        /** Replaces each run among a container's members by a run container holding its blocks. */
        private void fold(String id) {
            List<RepeatFinder.Run> found = RepeatFinder.find(items(id), this::inputs);
            if (found.isEmpty()) {
                return;
            }
            List<Member> old = members.get(id);
            List<Member> next = new ArrayList<>();
            int at = 0;
            for (RepeatFinder.Run r : found) {
                next.addAll(old.subList(at, r.start()));
                String run = (id.isEmpty() ? "" : id + "/") + RUN_MARK + (++runs);
                members.put(run, new ArrayList<>());
                parent.put(run, id);
                kinds.put(run, Kind.REPEAT);
                next.add(new Member(-1, run));
                List<Member> blockOne = old.subList(r.start(), r.start() + r.period());
                boolean single = r.period() == 1;
                names.put(run, runName(blockOne, old.subList(r.start(), r.end()), single) + " ×" + r.count());
                for (int b = 0; b < r.count(); b++) {
                    List<Member> block = old.subList(r.start() + b * r.period(), r.start() + (b + 1) * r.period());
                    if (single) {
                        // A block of one item needs no box of its own: the group, or the vertex, is the block.
                        Member m = block.get(0);
                        members.get(run).add(m);
                        if (m.isVertex()) {
                            home[m.vertex()] = run;
                        } else {
                            parent.put(m.container(), run);
                        }
                        continue;
                    }
                    String blockId = run + "/" + (b + 1);
                    members.put(blockId, new ArrayList<>(block));
                    parent.put(blockId, run);
                    kinds.put(blockId, Kind.BLOCK);
                    names.put(blockId, "block " + (b + 1));
                    members.get(run).add(new Member(-1, blockId));
                    for (Member m : block) {
                        if (m.isVertex()) {
                            home[m.vertex()] = blockId;
                        } else {
                            parent.put(m.container(), blockId);
                        }
                    }
                }
                at = r.end();
            }
            next.addAll(old.subList(at, old.size()));
            members.put(id, next);
        }

        /**
         * "layer" for groups layer1..layer6 (alone, or one in each block), "W" for leaves W1..W150,
         * else the op of a one-item block, else "block".
         */
        private String runName(List<Member> blockOne, List<Member> all, boolean single) {
            if (!single) {
                List<Member> groups = all.stream().filter(m -> !m.isVertex()).toList();
                int perBlock = (int) blockOne.stream().filter(m -> !m.isVertex()).count();
                String stem = perBlock == 1 ? stem(groups) : null;
                return stem != null ? stem : "block";
            }
            String prefix = stem(all);
            if (prefix != null) {
                return prefix;
            }
            Member m = blockOne.get(0);
            return m.isVertex() ? g.vertex(m.vertex()).op() : "block";
        }

        /** The name the members share once their trailing numbers are cut ("layer" of layer1, layer2), or null. */
        private String stem(List<Member> all) {
            String prefix = null;
            for (Member m : all) {
                String name = m.isVertex() ? g.vertex(m.vertex()).name() : names.get(m.container());
                if (name == null) {
                    prefix = null;
                    break;
                }
                String stem = name.replaceAll("[0-9_]+$", "");
                if (prefix == null) {
                    prefix = stem;
                } else if (!prefix.equals(stem)) {
                    prefix = null;
                    break;
                }
            }
            return prefix == null || prefix.isEmpty() ? null : prefix;
        }

        private Hierarchy assemble() {
            Map<String, Container> out = new LinkedHashMap<>();
            Map<String, Integer> sizes = new HashMap<>();
            Map<String, Integer> firsts = new HashMap<>();
            String[][] chains = new String[g.size()][];
            for (int v = 0; v < g.size(); v++) {
                List<String> chain = new ArrayList<>();
                for (String c = home[v]; !c.equals(ROOT); c = parent.get(c)) {
                    chain.add(0, c);
                }
                chains[v] = chain.toArray(new String[0]);
                sizes.merge(ROOT, 1, Integer::sum);
                firsts.putIfAbsent(ROOT, v);
                for (String c : chains[v]) {
                    sizes.merge(c, 1, Integer::sum);
                    firsts.putIfAbsent(c, v);
                }
            }
            // Parents before children: walk down from the root.
            List<String> order = new ArrayList<>();
            order.add(ROOT);
            for (int i = 0; i < order.size(); i++) {
                for (Member m : members.get(order.get(i))) {
                    if (!m.isVertex()) {
                        order.add(m.container());
                    }
                }
            }
            for (String id : order) {
                out.put(id, new Container(id, kinds.get(id), names.get(id), parent.get(id), List.copyOf(members.get(id)),
                        sizes.getOrDefault(id, 0), firsts.getOrDefault(id, -1)));
            }
            return new Hierarchy(out, chains);
        }
    }
}
