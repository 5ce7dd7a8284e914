package io.gradscope.engine.run;

import io.gradscope.engine.autograd.StepLifetimes;
import io.gradscope.engine.lang.Ast;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.tensor.Tensor;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a running program holds, when the run keeps the step's lifetimes (else every value lives as
 * long as Java refers to it and each call here does nothing).
 *
 * <p>Note [Program holds]: a program holds a value as long as it may still read it. A value an
 * expression makes is held until the op that reads it has run ({@code x @ W} in
 * {@code tanh(x @ W + b)} goes right after the add); a named value until the last statement that
 * reads the name; the objective until the step is done. What the backward pass needs is held by the
 * nodes ({@link StepLifetimes}).
 */
final class ProgramRefCounts {
    private StepLifetimes life;
    /** Values made by an expression and not yet read by an op or bound to a name. */
    private final Set<TensorVal> fresh = Collections.newSetFromMap(new IdentityHashMap<>());
    /** For each statement (in order, blocks flattened), the names whose last reader it is. */
    private List<List<String>> lastReaders = List.of();

    /** Keeps the step's lifetimes for {@code program} (call before it runs). */
    void keep(StepLifetimes lifetimes, List<Ast.Stmt> program) {
        this.life = lifetimes;
        this.lastReaders = LastReaders.of(program);
    }

    /** Whether the run keeps lifetimes. */
    boolean on() {
        return life != null;
    }

    private void hold(TensorVal v) {
        if (life != null && v.tensor() != null) {
            life.hold(v.tensor());
        }
    }

    private void drop(TensorVal v) {
        if (life != null && v.tensor() != null) {
            life.drop(v.tensor());
        }
    }

    /** A value an expression made: held until an op reads it or a name is bound to it. */
    TensorVal made(TensorVal v) {
        if (life != null && v.tensor() != null) {
            hold(v);
            fresh.add(v);
        }
        return v;
    }

    /** A name was bound to {@code t}: a value just made is the name's now; a second name for a value holds it again. */
    void bound(TensorVal t) {
        if (life != null && !fresh.remove(t)) {
            hold(t); // a second name for a value: held for this name too (a leaf was held when declared)
        }
    }

    /** The objective: held until the step is done (Program.run lets go of it); returns it. */
    TensorVal objective(TensorVal t) {
        if (!fresh.remove(t)) {
            hold(t);
        }
        return t;
    }

    /** Drops the holds of the names statement {@code at} was the last to read. */
    void statementDone(int at, Map<String, ExprValue> values) {
        if (at < lastReaders.size()) {
            for (String name : lastReaders.get(at)) {
                if (values.get(name) instanceof TensorVal t) {
                    drop(t);
                }
            }
        }
        life.holds().sweep();
    }

    /** {@code v} is about to be read by several ops in turn (the slices of a split): held until all have run. */
    void readBySeveral(TensorVal v) {
        hold(v);
    }

    /** The ops reading {@code v} (after {@link #readBySeveral}) have run. */
    void readBySeveralDone(TensorVal v) {
        drop(v);
        if (life != null) {
            life.holds().sweep();
        }
    }

    /** Op {@code op} made {@code out} from {@code in}: the values made only for it are let go. */
    void opRan(Op op, Tensor[] in, Tensor out, List<TensorVal> inputs) {
        if (life == null) {
            return;
        }
        life.forwardOp(op, in, out);
        for (TensorVal v : inputs) {
            if (fresh.remove(v)) {
                drop(v);
            }
        }
        life.holds().sweep();
    }
}
