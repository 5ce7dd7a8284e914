package io.gradscope.engine.run;

import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.alloc.RefCounts;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.autograd.StepObservers;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Recomputes what a run did not retain ({@link Retention}): the value of one vertex of its graph,
 * and, when asked, its upstream gradient and the contributions its backward step sent. The step is
 * run again as it ran (the same program, options, seed and recomputation plan, so the same kernels
 * in the same order give the same bits; the leaves' random values come from the same seed), keeping nothing
 * ({@link Retention#NONE}) but copies of what is asked, and it stops as soon as it has them: after
 * the vertex's forward op for a value, after its backward step for its gradient.
 *
 * <p>Vertices are numbered as {@link io.gradscope.engine.trace.TraceGraph} numbers them: the
 * trace's {@code Leaf} and {@code OpForward} events in order. The ids of the rerun's nodes differ
 * from the first run's; the order does not.
 *
 * <pre>{@code
 * Replay.Recomputed r = Replay.of(program, options, run, vertex, true);
 * r.value(); r.upstream(); r.contributions();
 * }</pre>
 */
public final class Replay {
    private Replay() {
    }

    /** The capture of the replay running on this thread, told when its vertex's backward step starts. */
    private static final ThreadLocal<Capture> CURRENT = new ThreadLocal<>();

    static {
        StepObservers.install((node, upstream) -> {
            Capture c = CURRENT.get();
            if (c != null && c.gradients && node == c.node) {
                c.holds.holdAll(true);
            }
        });
    }

    /**
     * What was recomputed for vertex {@code vertex}: its value; its complete upstream gradient and
     * the contributions its backward step sent (by input number), or null and an empty list when
     * gradients were not asked for or the backward pass does not reach it.
     */
    public record Recomputed(int vertex, Tensor value, Tensor upstream, List<TraceEvent.Contribution> contributions) {
    }

    /** Thrown from the run's progress once everything asked for is copied: the rest of the step is not run. */
    private static final class Done extends RuntimeException {
        Done() {
            super(null, null, false, false);
        }
    }

    /**
     * Runs {@code run}'s step again and returns copies of vertex {@code vertex}'s value and, with
     * {@code gradients}, of its upstream gradient and contributions.
     *
     * @param run the run whose step is replayed (its recomputation plan is followed)
     */
    public static Recomputed of(Program program, RunOptions options, ProgramRun run, int vertex, boolean gradients) {
        StepMemory m = run.memory();
        RematPlanner.Planned planned = m == null
                ? program.plan(options, io.gradscope.engine.recompute.RematPolicy.SEGMENTS, false)
                : new RematPlanner.Planned(m.policy(), m.plan(), m.predictedPeak(), m.fits());
        RefCounts holds = new RefCounts(Retention.NONE);
        Capture capture = new Capture(vertex, gradients, holds);
        CURRENT.set(capture);
        try (Recorder tap = Recorder.startTap(capture)) {
            program.step(options, planned, holds, false, (phase, done, total) -> {
                if (capture.done()) {
                    throw new Done();
                }
            });
        } catch (Done stopped) {
            // everything asked for is copied
        } finally {
            CURRENT.remove();
        }
        if (capture.value == null) {
            throw new IllegalArgumentException("the run has no vertex " + vertex);
        }
        return new Recomputed(vertex, capture.value, capture.upstream, List.copyOf(capture.contributions));
    }

    /** Copies what is asked for as the rerun publishes it. */
    private static final class Capture implements java.util.function.Consumer<TraceEvent> {
        final int vertex;
        final boolean gradients;
        int seen;
        long node = Long.MIN_VALUE;
        Tensor value;
        Tensor upstream;
        boolean stepped;
        final List<TraceEvent.Contribution> contributions = new ArrayList<>();

        final RefCounts holds;

        Capture(int vertex, boolean gradients, RefCounts holds) {
            this.vertex = vertex;
            this.gradients = gradients;
            this.holds = holds;
        }

        boolean done() {
            return value != null && (!gradients || stepped);
        }

        @Override
        public void accept(TraceEvent e) {
            if (e instanceof TraceEvent.Leaf || e instanceof TraceEvent.OpForward) {
                if (seen++ == vertex) {
                    node = e instanceof TraceEvent.Leaf l ? l.node() : ((TraceEvent.OpForward) e).node();
                    value = copy(e instanceof TraceEvent.Leaf l ? l.value() : ((TraceEvent.OpForward) e).value());
                }
            } else if (e instanceof TraceEvent.BackwardStep b && gradients && b.node() == node) {
                upstream = copy(b.upstream());
                for (TraceEvent.Contribution c : b.contributions()) {
                    contributions.add(new TraceEvent.Contribution(c.input(), c.toNode(), copy(c.gradient())));
                }
                stepped = true;
                holds.holdAll(false);
            }
        }
    }

    /** A copy the run does not own (neither announced nor tracked), made before the run releases the original. */
    private static Tensor copy(Tensor t) {
        if (t == null) {
            return null;
        }
        return Allocations.unannounced(() -> {
            Tensor c = Tensor.empty(t.dtype(), t.device(), t.shape());
            c.backend().copy(t, c);
            return c;
        });
    }
}
