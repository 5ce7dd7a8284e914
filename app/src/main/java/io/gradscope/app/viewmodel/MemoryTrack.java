package io.gradscope.app.viewmodel;

import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A recorded run's memory as the panel draws it, read from its trace only: the timeline (active
 * bytes by category and reserved bytes after each event), the phases (forward, backward,
 * recompute) as spans of events, the peak with the tensors live at it (each with its vertex and
 * line), and the mapping between the sweep's steps and trace events. No JavaFX.
 */
public final class MemoryTrack {
    /** What the engine was doing over a span of events. */
    public enum Phase { FORWARD, BACKWARD, RECOMPUTE }

    /** Events {@code [from, to)} were spent in {@code phase}. */
    public record Span(int from, int to, Phase phase) {
    }

    /**
     * A tensor live at the peak: its vertex in the graph (-1 when the graph does not show it), the
     * value's title, program line, what it is, category, shape (as text) and bytes.
     */
    /**
     * A row of the live-at-the-peak table: {@code count} tensors of one node, role, category and
     * shape (a node's scratch blocks, say), {@code bytes} their total.
     */
    public record Row(int vertex, String title, int line, String role, MemoryCategory category, String shape, long bytes,
                      int count) {
        /** The bytes in binary units. */
        public String size() {
            return HeapLimit.human(bytes);
        }

        /** The role in a word, with how many tensors the row stands for when more than one ("temp ×6"). */
        public String what() {
            String r = role.equals("temporary") ? "temp" : role;
            return count > 1 ? r + " ×" + count : r;
        }
    }

    private final ProgramRun run;
    private final MemoryTimeline timeline;
    private final List<Span> spans;
    private final List<Row> rows;
    private final int[] stepEvent;
    private final int[] vertexEvent;
    private final int events;

    public MemoryTrack(ProgramRun run, TraceGraph graph) {
        this.run = run;
        this.timeline = run.timeline();
        List<TraceEvent> ev = run.trace().events();
        this.events = ev.size();
        List<Integer> steps = new ArrayList<>();
        this.vertexEvent = new int[graph.size()];
        Arrays.fill(vertexEvent, -1);
        List<Span> sp = new ArrayList<>();
        Phase phase = Phase.FORWARD;
        int from = 0;
        int lastWork = -1;
        for (int i = 0; i < ev.size(); i++) {
            TraceEvent e = ev.get(i);
            Phase now;
            if (e instanceof TraceEvent.BackwardStep) {
                steps.add(i);
                now = Phase.BACKWARD;
            } else if (e instanceof TraceEvent.Recompute) {
                steps.add(i); // the backward sweep steps through recomputed ops too (see Sweep)
                now = Phase.RECOMPUTE;
            } else if (e instanceof TraceEvent.OpForward f) {
                setVertex(graph, f.node(), i);
                now = Phase.FORWARD;
            } else if (e instanceof TraceEvent.Leaf l) {
                setVertex(graph, l.node(), i);
                now = Phase.FORWARD;
            } else {
                continue;
            }
            if (now != phase) {
                // A piece of work's allocations come before its event: its span starts after the previous work.
                int at = lastWork + 1;
                if (at > from) {
                    sp.add(new Span(from, at, phase));
                }
                from = at;
                phase = now;
            }
            lastWork = i;
        }
        if (events > from) {
            sp.add(new Span(from, events, phase));
        }
        this.spans = List.copyOf(sp);
        this.stepEvent = steps.stream().mapToInt(Integer::intValue).toArray();
        // Tensors of one node, role, category and shape are one row, largest total first.
        java.util.Map<List<Object>, Row> grouped = new java.util.LinkedHashMap<>();
        for (MemoryTimeline.Live l : timeline.liveAtPeak()) {
            int v = graph.indexOf(l.node());
            TraceGraph.Vertex vx = v < 0 ? null : graph.vertex(v);
            String title = vx == null ? "–" : vx.title();
            Row one = new Row(v, title, vx == null ? 0 : vx.line(), l.role().name().toLowerCase(Locale.ROOT), l.category(),
                    Shapes.str(l.shape()), l.bytes(), 1);
            grouped.merge(List.of(v, l.node(), one.role(), one.category(), one.shape()), one, (a, b) -> new Row(a.vertex(),
                    a.title(), a.line(), a.role(), a.category(), a.shape(), a.bytes() + b.bytes(), a.count() + b.count()));
        }
        List<Row> r = new ArrayList<>(grouped.values());
        r.sort(java.util.Comparator.comparingLong(Row::bytes).reversed());
        this.rows = List.copyOf(r);
    }

    private void setVertex(TraceGraph graph, long id, int event) {
        int v = graph.indexOf(id);
        if (v >= 0 && vertexEvent[v] < 0) {
            vertexEvent[v] = event;
        }
    }

    public ProgramRun run() {
        return run;
    }

    public MemoryTimeline timeline() {
        return timeline;
    }

    /** How many events the trace has: the x axis runs from 0 to this. */
    public int events() {
        return events;
    }

    /** The phases, in order, covering every event. */
    public List<Span> spans() {
        return spans;
    }

    /** The tensors live at the peak, largest first. */
    public List<Row> liveAtPeak() {
        return rows;
    }

    /** The trace event a step of the sweep ends at (-1 for "before the first step"). */
    public int eventOf(Sweep.Mode mode, int step) {
        if (step < 0) {
            return -1;
        }
        if (mode == Sweep.Mode.BACKWARD) {
            return step < stepEvent.length ? stepEvent[step] : events - 1;
        }
        return step < vertexEvent.length ? vertexEvent[step] : -1;
    }

    /** The pass event {@code event} falls in: the backward one from its first piece of work on. */
    public Sweep.Mode modeAt(int event) {
        return stepEvent.length > 0 && event >= firstBackwardEvent() ? Sweep.Mode.BACKWARD : Sweep.Mode.FORWARD;
    }

    private int firstBackwardEvent() {
        for (Span s : spans) {
            if (s.phase() != Phase.FORWARD) {
                return s.from();
            }
        }
        return events;
    }

    /** The step of {@code mode} whose event is the last at or before {@code event} (-1: none yet). */
    public int stepAt(Sweep.Mode mode, int event) {
        int best = -1;
        if (mode == Sweep.Mode.BACKWARD) {
            for (int i = 0; i < stepEvent.length && stepEvent[i] <= event; i++) {
                best = i;
            }
        } else {
            for (int v = 0; v < vertexEvent.length; v++) {
                if (vertexEvent[v] >= 0 && vertexEvent[v] <= event) {
                    best = v;
                }
            }
        }
        return best;
    }

    /** The peak in words: "peak 84.5 KiB (predicted 84.5 KiB) · 10 recomputed · held 124 KiB" (and the device when not the CPU). */
    public String summary() {
        var mem = run.memory();
        StringBuilder s = new StringBuilder(mem != null && !"cpu".equals(mem.device()) ? mem.device() + ": " : "");
        s.append("peak ").append(HeapLimit.human(timeline.peakBytes()));
        if (mem != null && mem.predictedPeak() >= 0) {
            // A run carrying a tangent holds J·v beside every value: the prediction is for the plain step.
            boolean tangent = !run.trace().of(io.gradscope.engine.trace.TraceEvent.Tangent.class).isEmpty();
            s.append(tangent ? " (plain step predicted " : " (predicted ").append(HeapLimit.human(mem.predictedPeak()))
                    .append(tangent ? "; the rest is the tangent's)" : ")");
        }
        if (mem != null && mem.recomputedOps() > 0) {
            s.append(" · ").append(mem.recomputedOps()).append(" recomputed");
        }
        s.append(" · held ").append(HeapLimit.human(timeline.last().of(MemoryCategory.HELD_FOR_INSPECTION)));
        return s.toString();
    }
}
