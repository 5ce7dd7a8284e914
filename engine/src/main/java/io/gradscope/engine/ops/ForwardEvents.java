package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;

/**
 * The trace's observer of ops: publishes an {@link TraceEvent.OpForward} for every op of the
 * forward pass while a recorder is open (none for the ops a backward step runs, which the step's
 * own event covers). It lives with the op table, not in {@code trace}, which sits below it and knows
 * no op.
 */
final class ForwardEvents implements OpObserver {
    @Override
    public void applied(Op op, OpContext ctx, Tensor out, int mode) {
        if ((mode & GradMode.IN_BACKWARD) == 0 && Recorder.active()) {
            Recorder.emit(TraceEvent.OpForward.of(op.name(), op.label(), op.rule(), ctx.inputArray(), out, op.shown(ctx)));
        }
    }
}
