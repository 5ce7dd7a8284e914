package io.gradscope.engine.trace;

import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * The stand-in a trace keeps for a value or gradient the run did not retain (see
 * {@code alloc.Retention}): a tensor of the same shape, strides and dtype on the meta device,
 * with no data, so that everything that reads only a value's shape goes on working and anything
 * that wants its elements can ask {@link #is} first and recompute it ({@code run.Replay}).
 *
 * <pre>{@code
 * Tensor v = graph.vertex(i).value();
 * if (NotRetained.is(v)) { v = Replay.of(program, options, i).value(); }
 * }</pre>
 */
public final class NotRetained {
    private NotRetained() {
    }

    /** Whether {@code t} is a stand-in for a value that was not retained. */
    public static boolean is(Tensor t) {
        return t != null && t.device() == Device.META && t.storage().isQuiet() && t.storage().category() == null;
    }

    /** A stand-in for {@code t}: its shape, strides, offset and dtype, no data. */
    public static Tensor of(Tensor t) {
        Storage s = new Storage(t.dtype(), Device.META, t.storage().numel(), null, null, st -> { });
        s.quiet();
        return new Tensor(s, t.shape(), t.strides(), t.offset());
    }

    /** Whether {@code t} reads a storage that has been released (its value is gone). */
    static boolean released(Tensor t) {
        return t != null && !is(t) && t.storage().isReleased();
    }

    /** Whether the event carries a tensor whose storage has been released. */
    static boolean hasReleased(TraceEvent e) {
        if (e instanceof TraceEvent.OpForward f) {
            if (released(f.value())) {
                return true;
            }
            if (!f.shown().isEmpty()) {
                for (Tensor t : f.shown().values()) {
                    if (released(t)) {
                        return true;
                    }
                }
            }
            return false;
        }
        if (e instanceof TraceEvent.Leaf l) {
            return released(l.value());
        }
        if (e instanceof TraceEvent.Recompute r) {
            return released(r.value());
        }
        if (e instanceof TraceEvent.BackwardStep b) {
            if (released(b.upstream())) {
                return true;
            }
            for (TraceEvent.Contribution c : b.contributions()) {
                if (released(c.gradient())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code e} with each tensor whose storage has been released replaced by its stand-in. */
    static TraceEvent replaceReleased(TraceEvent e) {
        if (e instanceof TraceEvent.OpForward f && hasReleased(f)) {
            return f.withTensors(released(f.value()) ? of(f.value()) : f.value(), t -> released(t) ? of(t) : t);
        }
        if (e instanceof TraceEvent.Leaf l && released(l.value())) {
            return new TraceEvent.Leaf(l.node(), l.name(), l.kind(), of(l.value()), l.requiresGrad(), l.source());
        }
        if (e instanceof TraceEvent.Recompute r && released(r.value())) {
            return new TraceEvent.Recompute(r.node(), r.op(), r.label(), r.segment(), r.flops(), of(r.value()), r.source());
        }
        if (e instanceof TraceEvent.BackwardStep b) {
            List<TraceEvent.Contribution> cs = new ArrayList<>(b.contributions().size());
            for (TraceEvent.Contribution c : b.contributions()) {
                cs.add(released(c.gradient()) ? new TraceEvent.Contribution(c.input(), c.toNode(), of(c.gradient())) : c);
            }
            return new TraceEvent.BackwardStep(b.node(), b.op(), released(b.upstream()) ? of(b.upstream()) : b.upstream(),
                    List.copyOf(cs));
        }
        return e;
    }

    /** The storage ids of the tensors an event carries (none for most events). */
    static void storagesOf(TraceEvent e, java.util.function.LongConsumer out) {
        if (e instanceof TraceEvent.OpForward f) {
            if (f.value() != null) {
                out.accept(f.value().storage().id());
            }
            for (Tensor t : f.shown().values()) {
                out.accept(t.storage().id());
            }
        } else if (e instanceof TraceEvent.Leaf l && l.value() != null) {
            out.accept(l.value().storage().id());
        } else if (e instanceof TraceEvent.Recompute r && r.value() != null) {
            out.accept(r.value().storage().id());
        } else if (e instanceof TraceEvent.BackwardStep b) {
            if (b.upstream() != null) {
                out.accept(b.upstream().storage().id());
            }
            for (TraceEvent.Contribution c : b.contributions()) {
                if (c.gradient() != null) {
                    out.accept(c.gradient().storage().id());
                }
            }
        }
    }
}
