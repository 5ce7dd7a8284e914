package io.gradscope.engine.run;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.autograd.StepLifetimes;
import io.gradscope.engine.lang.Ast;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.run.ExprValue.NumVal;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Runs a program's statements: binds names once, opens groups and checkpoint segments, takes the
 * last statement as the objective and checks it. Expressions are the {@link Evaluator}'s, leaves
 * the {@link LeafBuilder}'s, what the program holds the {@link ProgramRefCounts}' (Note [Program holds]),
 * the memory count the {@link MemoryCheck}'s. In checking mode tensors are only shapes and dtypes,
 * so every shape error (and a program too large for memory) is found before anything is allocated;
 * in running mode the same code applies the ops.
 */
final class Interpreter {

    private final String file;
    private final boolean checking;
    final Map<String, ExprValue> values = new LinkedHashMap<>();
    private final Map<String, Pos> definedAt = new HashMap<>();
    final List<Leaf> leaves = new ArrayList<>();
    final List<List<String>> segments = new ArrayList<>();
    private final List<List<String>> openSegments = new ArrayList<>();
    /** Where each recorded node's statement is (a failure in the backward pass points there). */
    final Map<Node, Pos> nodePos = new IdentityHashMap<>();
    private final MemoryCheck memory;
    private final ProgramRefCounts holds = new ProgramRefCounts();
    private final Evaluator evaluator;
    private final LeafBuilder leafBuilder;
    ExprValue objective;
    String objectiveName;
    Pos objectivePos;
    /** The objective's value, held by the program until the step's end (when lifetimes are kept). */
    TensorVal objectiveHeld;

    /** Told after every statement: how many have run, of how many. */
    BiConsumer<Integer, Integer> onStatement = (done, total) -> { };
    private int statementsDone;
    private int statementsTotal;

    Interpreter(String file, boolean checking, RunOptions options) {
        this.file = file;
        this.checking = checking;
        this.memory = new MemoryCheck(file);
        this.evaluator = new Evaluator(file, checking, options, values, memory, holds, nodePos);
        this.leafBuilder = new LeafBuilder(file, checking, options, memory);
    }

    /** Keeps the step's lifetimes (call before {@link #run}). See Note [Program holds]. */
    void keepLifetimes(StepLifetimes lifetimes, List<Ast.Stmt> program) {
        holds.keep(lifetimes, program);
    }

    private static int count(List<Ast.Stmt> stmts) {
        int n = 0;
        for (Ast.Stmt s : stmts) {
            n += s instanceof Ast.With w ? count(w.body()) : 1;
        }
        return n;
    }

    private ProgramException error(Pos pos, String what) {
        return new ProgramException(file, pos, what);
    }

    void run(List<Ast.Stmt> program) {
        if (program.isEmpty()) {
            throw error(new Pos(1, 1), "the program is empty: it needs at least one statement, and the last one is the objective");
        }
        statementsTotal = count(program);
        try {
            exec(program, true);
        } finally {
            Recorder.at(0, 0);
        }
        if (!(objective instanceof TensorVal t) || t.shape().length != 0) {
            String shape = objective instanceof TensorVal t ? "has shape " + Shapes.str(t.shape()) : "is " + ExprValue.kind(objective);
            String who = objectiveName != null ? "'" + objectiveName + "'" : "the last expression";
            throw error(objectivePos, "the objective must be a scalar, but " + who + " " + shape
                    + "; reduce it with sum() or mean()");
        }
        if (!((TensorVal) objective).dtype().isFloating()) {
            String who = objectiveName != null ? "'" + objectiveName + "'" : "the last expression";
            throw error(objectivePos, "the objective must be a float scalar, but " + who + " holds integers (labels), "
                    + "which have no gradient");
        }
        if (memory.problem() != null) {
            throw memory.problem();
        }
        if (traced(objective) >= 0) {
            Recorder.emit(new TraceEvent.Objective(traced(objective)));
        }
    }

    /** The trace's id for a value this run computed; -1 when checking, not recording, or for a literal constant. */
    private long traced(ExprValue v) {
        return !checking && Recorder.active() && v instanceof TensorVal t && t.tensor() != null ? Recorder.idOf(t.tensor()) : -1;
    }

    private void exec(List<Ast.Stmt> stmts, boolean lastBlock) {
        for (int i = 0; i < stmts.size(); i++) {
            if (Thread.currentThread().isInterrupted()) {
                // A UI cancelled the run (javafx Task.cancel interrupts its thread).
                throw new java.util.concurrent.CancellationException("run cancelled");
            }
            boolean last = lastBlock && i == stmts.size() - 1;
            Ast.Stmt s = stmts.get(i);
            if (s instanceof Ast.Assign a) {
                assign(a);
                if (last) {
                    objective = values.get(a.name());
                    objectiveName = a.name();
                    objectivePos = a.pos();
                }
            } else if (s instanceof Ast.Unpack u) {
                unpack(u);
                if (last) {
                    Ast.Name n = u.names().get(u.names().size() - 1);
                    objective = values.get(n.id());
                    objectiveName = n.id();
                    objectivePos = n.pos();
                }
            } else if (s instanceof Ast.ExprStmt e) {
                if (!last) {
                    throw error(e.pos(), "only the last statement may be a bare expression (the objective); "
                            + "bind this one to a name: name = ...");
                }
                objective = evaluator.eval(e.value());
                objectivePos = e.pos();
            } else if (s instanceof Ast.With w) {
                with(w, last);
            }
            if (!(s instanceof Ast.With)) {
                statementDone(statementsDone, last);
                onStatement.accept(++statementsDone, statementsTotal);
            }
        }
    }

    /** Drops the holds of the names statement {@code at} was the last to read (the objective is kept). */
    private void statementDone(int at, boolean last) {
        if (!holds.on()) {
            return;
        }
        if (last && objective instanceof TensorVal t) {
            // The objective is held until the step is done (Program.run lets go of it).
            objectiveHeld = holds.objective(t);
        }
        holds.statementDone(at, values);
    }

    private void with(Ast.With w, boolean last) {
        Ast.Call c = w.context();
        if (c.function().equals("group")) {
            if (c.args().size() != 1 || !(c.args().get(0) instanceof Ast.Str name) || !c.keywords().isEmpty()) {
                throw error(c.pos(), "group() takes one string, the group's name: with group(\"hidden\"):");
            }
            Recorder.enterGroup(name.value());
            try {
                exec(w.body(), last);
            } finally {
                Recorder.exitGroup();
            }
        } else if (c.function().equals("checkpoint")) {
            if (!c.args().isEmpty() || !c.keywords().isEmpty()) {
                throw error(c.pos(), "checkpoint() takes no arguments: with checkpoint():");
            }
            List<String> seg = new ArrayList<>();
            int number = segments.size();
            segments.add(seg);
            openSegments.add(seg);
            Recorder.enterSegment(number);
            try {
                exec(w.body(), last);
            } finally {
                openSegments.remove(openSegments.size() - 1);
                Recorder.exitSegment();
            }
            segments.set(number, List.copyOf(seg));
        } else {
            throw error(c.pos(), "'with' takes group(\"name\") or checkpoint(), not " + c.function() + "()"
                    + Names.didYouMean(c.function(), Functions.CONTEXTS));
        }
    }

    private static final Set<String> CONSTANTS = Set.of("True", "False", "None");

    /** A name about to be bound: not bound before, not a function's name. */
    private void checkNew(String name, Pos pos) {
        if (definedAt.containsKey(name)) {
            Pos first = definedAt.get(name);
            throw error(pos, "'" + name + "' is already defined at line " + first.line()
                    + "; names are bound once in a program (use a new name)");
        }
        if (Functions.all().contains(name) || CONSTANTS.contains(name)) {
            throw error(pos, "'" + name + "' is the name of a function; choose another name");
        }
    }

    private void assign(Ast.Assign a) {
        String name = a.name();
        checkNew(name, a.pos());
        ExprValue v;
        if (a.value() instanceof Ast.Call c && Functions.LEAVES.contains(c.function())) {
            LeafBuilder.Built b = leafBuilder.build(name, c, evaluator.args(c));
            leaves.add(b.leaf());
            v = holds.made(evaluator.declared(b.leaf(), b.value()));
        } else {
            v = evaluator.eval(a.value());
            if (v instanceof NumVal n) {
                v = evaluator.constant(n.value(), a.value().pos());
            }
            if (!(v instanceof TensorVal)) {
                throw error(a.value().pos(), "'" + name + "' must be a tensor or a number, not " + ExprValue.kind(v));
            }
            named(name, a.pos(), (TensorVal) v);
        }
        bind(name, a.pos(), v);
    }

    /** {@code a, b = split(...)}: each name is bound to its slice, named and traced as one assignment. */
    private void unpack(Ast.Unpack u) {
        for (Ast.Name n : u.names()) {
            checkNew(n.id(), n.pos());
        }
        List<TensorVal> pieces = evaluator.pieces(u.value(), u.names());
        for (int i = 0; i < pieces.size(); i++) {
            Ast.Name n = u.names().get(i);
            named(n.id(), n.pos(), pieces.get(i));
            bind(n.id(), n.pos(), pieces.get(i));
        }
    }

    /** Labels the node that made {@code t} with {@code name} (unless named already) and tells the trace. */
    private void named(String name, Pos pos, TensorVal t) {
        if (t.tensor() != null && Node.of(t.tensor()) != null && Node.of(t.tensor()).label() == null) {
            Node.of(t.tensor()).setLabel(name);
        }
        if (traced(t) >= 0) {
            Recorder.at(pos.line(), pos.column());
            Recorder.emit(new TraceEvent.Named(traced(t), name, Recorder.source()));
        }
    }

    private void bind(String name, Pos pos, ExprValue v) {
        if (v instanceof TensorVal t) {
            holds.bound(t); // a second name for a value is held for this name too (a leaf was held when declared)
        }
        values.put(name, v);
        definedAt.put(name, pos);
        for (List<String> seg : openSegments) {
            seg.add(name);
        }
    }
}
