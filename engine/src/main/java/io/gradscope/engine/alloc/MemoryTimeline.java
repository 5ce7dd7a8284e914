package io.gradscope.engine.alloc;

import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A trace's memory over time, read from its Alloc, Free and Reserved events: after each event, the
 * active bytes by category and the allocator's reserved bytes; the peak of the program's own bytes
 * (every category but what is held for inspection) and what was live at that moment. The x axis is
 * the event's index in the trace, so a sweep's step and the memory at that step line up.
 *
 * <pre>{@code
 * MemoryTimeline m = MemoryTimeline.of(run.trace(), "cpu");
 * long peak = m.peakBytes();                      // == the sum of m.liveAtPeak()'s bytes
 * }</pre>
 */
public final class MemoryTimeline {
    /** A storage live at the peak: who it belongs to and what it is. */
    public record Live(long storage, long node, StorageRole role, MemoryCategory category, int[] shape, long bytes) {
    }

    /** The memory after event {@code event}: active bytes by category (indexed by ordinal) and reserved bytes. */
    public record Sample(int event, long[] byCategory, long reserved) {
        /** Active bytes that count in the program's figures (all but held for inspection). */
        public long program() {
            long s = 0;
            for (MemoryCategory c : MemoryCategory.values()) {
                if (c.program()) {
                    s += byCategory[c.ordinal()];
                }
            }
            return s;
        }

        public long of(MemoryCategory c) {
            return byCategory[c.ordinal()];
        }
    }

    private final List<Sample> samples;
    private final int peakSample;
    private final List<Live> liveAtPeak;
    private final long peakReserved;
    private final long maxWorking;

    private MemoryTimeline(List<Sample> samples, int peakSample, List<Live> liveAtPeak, long peakReserved, long maxWorking) {
        this.samples = samples;
        this.peakSample = peakSample;
        this.liveAtPeak = liveAtPeak;
        this.peakReserved = peakReserved;
        this.maxWorking = maxWorking;
    }

    /** The timeline of the events on {@code device} ("cpu", "cuda", "meta"; null: every device). */
    public static MemoryTimeline of(Trace trace, String device) {
        List<TraceEvent> events = trace.events();
        long[] by = new long[MemoryCategory.values().length];
        Map<Long, TraceEvent.Alloc> live = new HashMap<>();
        List<Sample> samples = new ArrayList<>();
        long reserved = 0;
        long peakReserved = 0;
        long best = -1;
        int bestSample = -1;
        int bestEvent = -1;
        for (int i = 0; i < events.size(); i++) {
            TraceEvent e = events.get(i);
            if (e instanceof TraceEvent.Alloc a && (device == null || a.device().equals(device))) {
                by[a.category().ordinal()] += a.bytes();
                live.put(a.storage(), a);
                reserved = Math.max(a.reserved(), 0);
            } else if (e instanceof TraceEvent.Free f && (device == null || f.device().equals(device))) {
                TraceEvent.Alloc a = live.remove(f.storage());
                if (a == null) {
                    continue; // allocated before recording started
                }
                by[a.category().ordinal()] -= a.bytes();
                reserved = Math.max(f.reserved(), 0);
            } else if (e instanceof TraceEvent.Reserved r && (device == null || r.device().equals(device))) {
                reserved = r.reserved();
            } else {
                continue;
            }
            Sample s = new Sample(i, by.clone(), reserved);
            samples.add(s);
            peakReserved = Math.max(peakReserved, reserved);
            long p = s.program();
            if (p > best) {
                best = p;
                bestSample = samples.size() - 1;
                bestEvent = i;
            }
        }
        // What was live at the peak, replayed once it is known (a copy at each new peak was quadratic:
        // while the forward pass keeps its values, every allocation is a new peak).
        List<Live> table = new ArrayList<>();
        for (TraceEvent.Alloc a : liveAfter(events, device, bestEvent).values()) {
            if (a.category().program()) {
                table.add(new Live(a.storage(), a.node(), a.role(), a.category(), a.shape(), a.bytes()));
            }
        }
        table.sort(Comparator.comparingLong(Live::bytes).reversed().thenComparingLong(Live::storage));
        return new MemoryTimeline(List.copyOf(samples), bestSample, List.copyOf(table), peakReserved,
                maxWorking(events, device, live.keySet()));
    }

    /** The allocations on {@code device} live after event {@code last} (none for -1). */
    private static Map<Long, TraceEvent.Alloc> liveAfter(List<TraceEvent> events, String device, int last) {
        Map<Long, TraceEvent.Alloc> live = new HashMap<>();
        for (int i = 0; i <= last; i++) {
            TraceEvent e = events.get(i);
            if (e instanceof TraceEvent.Alloc a && (device == null || a.device().equals(device))) {
                live.put(a.storage(), a);
            } else if (e instanceof TraceEvent.Free f && (device == null || f.device().equals(device))) {
                live.remove(f.storage());
            }
        }
        return live;
    }

    /**
     * The most working bytes at once: the program's bytes less the parameters and the gradients that
     * outlive the step (those still allocated at the end), i.e. activations, temporaries and
     * gradients on their way. Parameters and their gradients are the same under every policy; this
     * is what recomputation trades against compute (and what PyTorch's allocations of a step show).
     */
    private static long maxWorking(List<TraceEvent> events, String device, java.util.Set<Long> outliving) {
        long working = 0;
        long max = 0;
        Map<Long, TraceEvent.Alloc> live = new HashMap<>();
        for (TraceEvent e : events) {
            if (e instanceof TraceEvent.Alloc a && (device == null || a.device().equals(device))) {
                live.put(a.storage(), a);
                if (counts(a, outliving)) {
                    working += a.bytes();
                    max = Math.max(max, working);
                }
            } else if (e instanceof TraceEvent.Free f && (device == null || f.device().equals(device))) {
                TraceEvent.Alloc a = live.remove(f.storage());
                if (a != null && counts(a, outliving)) {
                    working -= a.bytes();
                }
            }
        }
        return max;
    }

    private static boolean counts(TraceEvent.Alloc a, java.util.Set<Long> outliving) {
        return a.category().program() && a.category() != MemoryCategory.PARAMETER
                && !(a.category() == MemoryCategory.GRADIENT && outliving.contains(a.storage()));
    }

    /** The most working bytes at once (see {@link #maxWorking}): activations, temporaries, gradients on their way. */
    public long maxWorkingBytes() {
        return maxWorking;
    }

    /** Every moment memory changed, in trace order. */
    public List<Sample> samples() {
        return samples;
    }

    /** The moment of the peak (its index in {@link #samples()}), or -1 for a trace without allocations. */
    public int peakSample() {
        return peakSample;
    }

    /** The trace event after which the peak was reached, or -1. */
    public int peakEvent() {
        return peakSample < 0 ? -1 : samples.get(peakSample).event();
    }

    /** The program's active bytes at the peak (what is held for inspection excluded). */
    public long peakBytes() {
        return peakSample < 0 ? 0 : samples.get(peakSample).program();
    }

    /** The program's active bytes at the peak by category (no held for inspection). */
    public Map<MemoryCategory, Long> peakByCategory() {
        Map<MemoryCategory, Long> out = new EnumMap<>(MemoryCategory.class);
        for (MemoryCategory c : MemoryCategory.values()) {
            if (c.program()) {
                out.put(c, peakSample < 0 ? 0 : samples.get(peakSample).of(c));
            }
        }
        return out;
    }

    /** The storages live at the peak, largest first (their bytes add up to {@link #peakBytes()}). */
    public List<Live> liveAtPeak() {
        return liveAtPeak;
    }

    /** The most active bytes of one category at any moment. */
    public long maxOf(MemoryCategory c) {
        long m = 0;
        for (Sample s : samples) {
            m = Math.max(m, s.of(c));
        }
        return m;
    }

    /** The most bytes the allocator held at any moment. */
    public long peakReserved() {
        return peakReserved;
    }

    /** The memory after the last event (a step's end). */
    public Sample last() {
        return samples.isEmpty() ? new Sample(-1, new long[MemoryCategory.values().length], 0) : samples.get(samples.size() - 1);
    }

    /** The memory as it was after trace event {@code event} (before the first change: zeros). */
    public Sample at(int event) {
        int lo = 0;
        int hi = samples.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (samples.get(mid).event() <= event) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? new Sample(-1, new long[MemoryCategory.values().length], 0) : samples.get(found);
    }
}
