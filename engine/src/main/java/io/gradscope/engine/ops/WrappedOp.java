package io.gradscope.engine.ops;

/**
 * An op that runs another on reshaped views of its inputs (Unbatched, ClassesLast): the inner op's
 * name, label, rules and reads, which the views do not change.
 */
abstract class WrappedOp extends Op {
    final Op op;

    WrappedOp(Op op) {
        this.op = op;
    }

    @Override
    public String name() {
        return op.name();
    }

    @Override
    public String label() {
        return op.label();
    }

    @Override
    public String rule() {
        return op.rule();
    }

    @Override
    public String jvpRule() {
        return op.jvpRule();
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return op.vjpReads(needsGrad);
    }
}
