package io.gradscope.app.layout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds repeated structure in a sequence of items (a container's vertices and child groups, in
 * program order): runs of consecutive blocks with the same ops, the same shapes and the same
 * wiring, as TensorBoard's graph finds repeated layers. 150 residual blocks, or the layers of a
 * transformer written one after another, are one run each.
 *
 * <p>Two blocks are the same when their {@link #signature signatures} are equal: the items' tokens
 * (op and shape, or a group's own signature), each input edge either to an item of the block (by
 * position) or to an outside value, numbered in order of first use. So the first block, fed by the
 * program's input, equals the second, fed by the first. Among the ways to cut a periodic stretch
 * into blocks, the cut crossed by the fewest edges that does not split a statement wins.
 */
public final class RepeatFinder {
    /** A run is folded only when it holds at least this many vertices. */
    public static final int MIN_VERTICES = 24;
    /** The longest block looked for, in items. */
    static final int MAX_PERIOD = 256;

    /** An item: a token for what it is, its vertices, and the program lines it spans. */
    public record Item(String token, int[] vertices, int firstLine, int lastLine) {
    }

    /** Where the input edges of a vertex come from: {@code {from, input}} pairs. */
    public interface Inputs {
        int[][] of(int vertex);
    }

    /** A run: {@code count} blocks of {@code period} items starting at item {@code start}. */
    public record Run(int start, int period, int count) {
        public int end() {
            return start + period * count;
        }
    }

    private final List<Item> items;
    private final Inputs inputs;
    private final Map<Integer, Integer> itemOf = new HashMap<>();
    private final Map<Integer, Integer> ordinalOf = new HashMap<>();
    private final long[] coverPrefix;

    private RepeatFinder(List<Item> items, Inputs inputs) {
        this.items = items;
        this.inputs = inputs;
        coverPrefix = new long[items.size() + 1];
        for (int i = 0; i < items.size(); i++) {
            int[] vs = items.get(i).vertices();
            for (int k = 0; k < vs.length; k++) {
                itemOf.put(vs[k], i);
                ordinalOf.put(vs[k], k);
            }
            coverPrefix[i + 1] = coverPrefix[i] + vs.length;
        }
    }

    /** The runs in {@code items}, in order, none overlapping, each holding at least {@link #MIN_VERTICES} vertices. */
    public static List<Run> find(List<Item> items, Inputs inputs) {
        return new RepeatFinder(items, inputs).find();
    }

    /** The signature of items {@code [from, to)} taken as one block (also a group's token in its parent). */
    public static String signature(List<Item> items, Inputs inputs) {
        return new RepeatFinder(items, inputs).signature(0, items.size());
    }

    private record Candidate(int period, int start, int end, long cover) {
    }

    private List<Run> find() {
        int n = items.size();
        Map<String, Integer> ids = new HashMap<>();
        int[] tok = new int[n];
        for (int i = 0; i < n; i++) {
            tok[i] = ids.computeIfAbsent(items.get(i).token(), k -> ids.size());
        }
        List<Candidate> candidates = new ArrayList<>();
        for (int period = 1; period <= Math.min(MAX_PERIOD, n / 2); period++) {
            int i = 0;
            while (i + period < n) {
                if (tok[i] != tok[i + period]) {
                    i++;
                    continue;
                }
                int s = i;
                while (i + period < n && tok[i] == tok[i + period]) {
                    i++;
                }
                int e = i + period;
                long cover = coverPrefix[e] - coverPrefix[s];
                if ((e - s) / period >= 2 && cover >= MIN_VERTICES) {
                    candidates.add(new Candidate(period, s, e, cover));
                }
            }
        }
        candidates.sort(Comparator.comparingLong((Candidate c) -> -c.cover()).thenComparingInt(Candidate::period)
                .thenComparingInt(Candidate::start));
        boolean[] taken = new boolean[n];
        List<Run> runs = new ArrayList<>();
        for (Candidate c : candidates) {
            boolean free = true;
            for (int i = c.start(); i < c.end() && free; i++) {
                free = !taken[i];
            }
            if (!free) {
                continue;
            }
            for (Run r : split(c)) {
                runs.add(r);
                for (int i = r.start(); i < r.end(); i++) {
                    taken[i] = true;
                }
            }
        }
        runs.sort(Comparator.comparingInt(Run::start));
        return runs;
    }

    /** The runs of equal blocks in a periodic stretch, cut where the fewest edges cross. */
    private List<Run> split(Candidate c) {
        int period = c.period();
        int bestShift = 0;
        long bestCost = Long.MAX_VALUE;
        for (int r = 0; r < period && c.start() + r + 2 * period <= c.end(); r++) {
            int p = c.start() + r;
            int blocks = (c.end() - p) / period;
            // Fewest crossing edges first, then the most blocks.
            long cost = (crossings(p, period) + splitsStatement(p)) * 1_000_000L - blocks;
            if (cost < bestCost) {
                bestCost = cost;
                bestShift = r;
            }
        }
        int p = c.start() + bestShift;
        List<String> sigs = new ArrayList<>();
        for (int s = p; s + period <= c.end(); s += period) {
            sigs.add(signature(s, s + period));
        }
        List<Run> out = new ArrayList<>();
        int b = 0;
        while (b < sigs.size()) {
            int e = b + 1;
            while (e < sigs.size() && sigs.get(e).equals(sigs.get(b))) {
                e++;
            }
            int start = p + b * period;
            int count = e - b;
            if (count >= 2 && coverPrefix[start + count * period] - coverPrefix[start] >= MIN_VERTICES) {
                out.add(new Run(start, period, count));
            }
            b = e;
        }
        return out;
    }

    /** Edges from the block at {@code p} into the next one. */
    private int crossings(int p, int period) {
        int n = 0;
        for (int i = p + period; i < p + 2 * period && i < items.size(); i++) {
            for (int v : items.get(i).vertices()) {
                for (int[] in : inputs.of(v)) {
                    Integer from = itemOf.get(in[0]);
                    if (from != null && from >= p && from < p + period) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** 1 when a block starting at item {@code p} would cut a statement in two. */
    private int splitsStatement(int p) {
        if (p == 0) {
            return 0;
        }
        int line = items.get(p).firstLine();
        return line > 0 && line == items.get(p - 1).lastLine() ? 1 : 0;
    }

    /** What items {@code [from, to)} are, with their wiring: equal for blocks that differ only in which values they are. */
    private String signature(int from, int to) {
        StringBuilder sb = new StringBuilder();
        Map<Integer, Integer> outside = new HashMap<>();
        for (int i = from; i < to; i++) {
            Item item = items.get(i);
            sb.append(item.token()).append('{');
            int[] vs = item.vertices();
            for (int k = 0; k < vs.length; k++) {
                for (int[] in : inputs.of(vs[k])) {
                    Integer src = itemOf.get(in[0]);
                    if (src != null && src == i) {
                        continue; // inside the item: part of its token
                    }
                    sb.append(k).append(':').append(in[1]).append('<');
                    if (src != null && src >= from && src < to) {
                        sb.append(src - from).append('.').append(ordinalOf.get(in[0]));
                    } else {
                        sb.append('e').append(outside.computeIfAbsent(in[0], x -> outside.size()));
                    }
                    sb.append(' ');
                }
            }
            sb.append('}');
        }
        return sb.toString();
    }
}
