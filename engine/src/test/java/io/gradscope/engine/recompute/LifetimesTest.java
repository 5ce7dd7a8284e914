package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every activation and gradient is freed right after its last use, and never before: checked
 * against an independent record of each storage's last use (every read of its data, by any
 * thread, noted with the trace's length at that moment). "Right after" means no op, backward
 * step or recomputation runs between the work during which it was last used and its free. A value
 * a dropped (recomputed) op reads is in use as long as that op's value is (a recomputation may
 * need it); a value only a branch that never reaches the objective needs goes with the branch,
 * within the forward pass. In float32: the float64 LayerNorm kernel reads rstd only for dx, the
 * float32 one always, and the declaration follows the one that reads more.
 */
class LifetimesTest {

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void eachTensorIsFreedRightAfterItsLastUse(long seed) {
        String src = FlatPrograms.generate(seed);
        for (RematPolicy policy : List.of(RematPolicy.NONE, RematPolicy.SEGMENTS, RematPolicy.SQRT)) {
            check(src, policy, seed);
        }
    }

    private static void check(String src, RematPolicy policy, long seed) {
        check(src, policy, seed, DType.FLOAT32);
    }

    private static void check(String src, RematPolicy policy, long seed, DType dtype) {
        Map<Long, Integer> lastRead = new ConcurrentHashMap<>();
        List<TraceEvent> events;
        ProgramRun run;
        try (Recorder outer = Recorder.start()) {
            Storage.probe(s -> lastRead.merge(s.id(), outer.size(), Math::max));
            try {
                run = Program.parse("flat.grad", src).run(new RunOptions(dtype, seed, Map.of()),
                        new MemoryOptions(policy, true), (a, b, c) -> { });
            } finally {
                Storage.probe(null);
            }
            events = outer.trace().events();
        }
        Map<Long, Integer> allocAt = new HashMap<>();
        Map<Long, TraceEvent.Alloc> allocs = new HashMap<>();
        Map<Long, Integer> freeAt = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof TraceEvent.Alloc a && !allocAt.containsKey(a.storage())) {
                allocAt.put(a.storage(), i);
                allocs.put(a.storage(), a);
            } else if (events.get(i) instanceof TraceEvent.Free f && !freeAt.containsKey(f.storage())) {
                freeAt.put(f.storage(), i);
            }
        }
        long objectiveNode = events.stream().filter(e -> e instanceof TraceEvent.Objective).mapToLong(e -> ((TraceEvent.Objective) e)
                .node()).findFirst().orElse(-1);
        // A value a dropped op reads may be needed to recompute it while that op's value is in use.
        StepProfile profile = run.memory().profile();
        java.util.Set<Long> droppedIds = new java.util.HashSet<>();
        for (StepProfile.Op op : profile.ops()) {
            if (run.memory().plan().dropped(op.index())) {
                droppedIds.add(op.node());
            }
        }
        Map<Long, List<Long>> droppedReaders = new HashMap<>();
        Map<Long, List<long[]>> forwardReaders = new HashMap<>(); // value -> {event, reader}
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof TraceEvent.OpForward f) {
                for (long in : f.inputs()) {
                    forwardReaders.computeIfAbsent(in, x -> new java.util.ArrayList<>()).add(new long[] {i, f.node()});
                }
            }
        }
        for (TraceEvent e : events) {
            if (e instanceof TraceEvent.OpForward f && droppedIds.contains(f.node())) {
                for (long in : f.inputs()) {
                    // A dropped input is in the reader's own segment: recomputed, not kept for it.
                    if (!droppedIds.contains(in)) {
                        droppedReaders.computeIfAbsent(in, x -> new java.util.ArrayList<>()).add(f.node());
                    }
                }
            }
        }
        int backwardStart = events.size();
        java.util.Set<Long> stepped = new java.util.HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof TraceEvent.Objective) {
                backwardStart = Math.min(backwardStart, i);
            }
            if (events.get(i) instanceof TraceEvent.BackwardStep b) {
                stepped.add(b.node());
            }
        }
        for (TraceEvent.Alloc a : allocs.values()) {
            boolean tracked = a.category() == MemoryCategory.ACTIVATION || a.category() == MemoryCategory.GRADIENT;
            if (!tracked || a.node() == objectiveNode && a.role() == StorageRole.VALUE) {
                continue;
            }
            Integer free = freeAt.get(a.storage());
            boolean leafGradient = a.category() == MemoryCategory.GRADIENT && run.leaves().stream().anyMatch(l -> l.grad()
                    && run.gradient(l.name()).storage().id() == a.storage());
            if (leafGradient) {
                continue;
            }
            String what = policy + " seed " + seed + ": storage " + a.storage() + " (" + a.category() + " " + a.role() + " of node "
                    + a.node() + ")\n" + src;
            if (free == null) {
                fail(what + " is never freed");
            }
            int last = Math.max(lastRead.getOrDefault(a.storage(), -1), allocAt.get(a.storage()));
            for (long d : a.role() == StorageRole.SAVED ? List.<Long>of() : droppedReaders.getOrDefault(a.node(), List.<Long>of())) {
                last = Math.max(last, lastForwardUse(d, forwardReaders, droppedIds));
            }
            assertTrue(free >= last, what + " freed at " + free + " before its last read at " + last);
            int work = nextWork(events, last);
            int after = nextWork(events, work + 1);
            if (free >= after && last < backwardStart && deadBranch(events, a.node(), stepped)) {
                // Held by a node the sweep never visits (see Note [Dead branches]): it goes when its
                // branch does, which is before the backward pass.
                assertTrue(free < backwardStart, what + " is held by a dead branch past the forward pass (freed at " + free + ")");
                continue;
            }
            assertTrue(free < after, what + " last read during the work ending at event " + work + ", freed only at " + free
                    + ", after the work at " + after);
        }
    }

    /**
     * When a dropped value is last used in the forward pass: its last reader op, or the last use of
     * a dropped value made from it, whichever is later. Until then a recomputation may need it.
     */
    private static int lastForwardUse(long d, Map<Long, List<long[]>> readers, java.util.Set<Long> droppedIds) {
        int last = -1;
        for (long[] r : readers.getOrDefault(d, List.of())) {
            last = Math.max(last, (int) r[0]);
            if (droppedIds.contains(r[1])) {
                last = Math.max(last, lastForwardUse(r[1], readers, droppedIds));
            }
        }
        return last;
    }

    /** Whether the value {@code node} or an op reading it is never visited by the sweep. */
    private static boolean deadBranch(List<TraceEvent> events, long node, java.util.Set<Long> stepped) {
        if (!stepped.contains(node)) {
            return true;
        }
        for (TraceEvent e : events) {
            if (e instanceof TraceEvent.OpForward f && f.inputs().contains(node) && f.requiresGrad() && !stepped.contains(f.node())) {
                return true;
            }
        }
        return false;
    }

    /** The first op, backward step or recomputation at or after {@code from} (the trace's size when none). */
    private static int nextWork(List<TraceEvent> events, int from) {
        for (int i = Math.max(0, from); i < events.size(); i++) {
            TraceEvent e = events.get(i);
            if (e instanceof TraceEvent.OpForward || e instanceof TraceEvent.BackwardStep || e instanceof TraceEvent.Recompute) {
                return i;
            }
        }
        return events.size();
    }
}
