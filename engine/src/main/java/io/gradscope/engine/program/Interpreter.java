package io.gradscope.engine.program;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.forward.Tangents;
import io.gradscope.engine.memory.Allocations;
import io.gradscope.engine.memory.MemoryCategory;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.program.Value.BoolVal;
import io.gradscope.engine.program.Value.NoneVal;
import io.gradscope.engine.program.Value.NumVal;
import io.gradscope.engine.program.Value.StrVal;
import io.gradscope.engine.program.Value.TensorVal;
import io.gradscope.engine.program.Value.TupleVal;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates a program's statements. In checking mode tensors are only shapes and dtypes, so every
 * shape error (and a program too large for memory) is found before anything is allocated; in
 * running mode the same code applies the ops.
 */
final class Interpreter {

    private final String file;
    private final boolean checking;
    private final RunOptions options;
    final Map<String, Value> values = new LinkedHashMap<>();
    private final Map<String, Pos> definedAt = new HashMap<>();
    final List<Leaf> leaves = new ArrayList<>();
    final List<List<String>> segments = new ArrayList<>();
    private final List<List<String>> openSegments = new ArrayList<>();
    private long bytes;
    private long gradientBytes;
    private ProgramException memoryProblem;
    private final long memoryLimit = io.gradscope.engine.memory.HeapLimit.bytes();
    private final LabelClasses labelClasses = new LabelClasses();
    /** The values whose gradient the backward pass computes (their bytes count twice). */
    private final Set<Value> needGrad = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** Where each recorded node's statement is (a failure in the backward pass points there). */
    final Map<Node, Pos> nodePos = new java.util.IdentityHashMap<>();
    Value objective;
    String objectiveName;
    Pos objectivePos;

    /**
     * The step's lifetimes when the run keeps them (null: every value lives as long as Java refers
     * to it). See Note [Program holds].
     */
    private io.gradscope.engine.autograd.StepLifetimes life;
    /** Values made by an expression and not yet read by an op or bound to a name. */
    private final Set<TensorVal> fresh = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** For each statement (in order, blocks flattened), the names whose last reader it is. */
    private List<List<String>> lastReaders = List.of();
    /** The objective's value, held by the program until the step's end (when lifetimes are kept). */
    TensorVal objectiveHeld;

    // Note [Program holds]: a program holds a value as long as it may still read it. A value an
    // expression makes is held until the op that reads it has run (`x @ W` in `tanh(x @ W + b)` goes
    // right after the add); a named value until the last statement that reads the name; the objective
    // until the step is done. What the backward pass needs is held by the nodes (StepLifetimes).

    /** Keeps the step's lifetimes (call before {@link #run}). */
    void keepLifetimes(io.gradscope.engine.autograd.StepLifetimes lifetimes, List<Ast.Stmt> program) {
        this.life = lifetimes;
        this.lastReaders = LastReaders.of(program);
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
    private TensorVal made(TensorVal v) {
        if (life != null && v.tensor() != null) {
            hold(v);
            fresh.add(v);
        }
        return v;
    }

    /** Told after every statement: how many have run, of how many. */
    java.util.function.BiConsumer<Integer, Integer> onStatement = (done, total) -> { };
    private int statementsDone;
    private int statementsTotal;

    private static int count(List<Ast.Stmt> stmts) {
        int n = 0;
        for (Ast.Stmt s : stmts) {
            n += s instanceof Ast.With w ? count(w.body()) : 1;
        }
        return n;
    }

    Interpreter(String file, boolean checking, RunOptions options) {
        this.file = file;
        this.checking = checking;
        this.options = options;
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
            String shape = objective instanceof TensorVal t ? "has shape " + Shapes.str(t.shape()) : "is " + Value.kind(objective);
            String who = objectiveName != null ? "'" + objectiveName + "'" : "the last expression";
            throw error(objectivePos, "the objective must be a scalar, but " + who + " " + shape
                    + "; reduce it with sum() or mean()");
        }
        if (!((TensorVal) objective).dtype().isFloating()) {
            String who = objectiveName != null ? "'" + objectiveName + "'" : "the last expression";
            throw error(objectivePos, "the objective must be a float scalar, but " + who + " holds integers (labels), "
                    + "which have no gradient");
        }
        if (memoryProblem != null) {
            throw memoryProblem;
        }
        if (traced(objective) >= 0) {
            Recorder.emit(new TraceEvent.Objective(traced(objective)));
        }
    }

    /** The trace's id for a value this run computed; -1 when checking, not recording, or for a literal constant. */
    private long traced(Value v) {
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
            } else if (s instanceof Ast.ExprStmt e) {
                if (!last) {
                    throw error(e.pos(), "only the last statement may be a bare expression (the objective); "
                            + "bind this one to a name: name = ...");
                }
                objective = eval(e.value());
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
        if (life == null) {
            return;
        }
        if (last && objective instanceof TensorVal t) {
            // The objective is held until the step is done (Program.run lets go of it).
            if (!fresh.remove(t)) {
                hold(t);
            }
            objectiveHeld = t;
        }
        if (at < lastReaders.size()) {
            for (String name : lastReaders.get(at)) {
                if (values.get(name) instanceof TensorVal t) {
                    drop(t);
                }
            }
        }
        life.holds().sweep();
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

    private void assign(Ast.Assign a) {
        String name = a.name();
        if (definedAt.containsKey(name)) {
            Pos first = definedAt.get(name);
            throw error(a.pos(), "'" + name + "' is already defined at line " + first.line()
                    + "; names are bound once in a program (use a new name)");
        }
        if (Functions.all().contains(name) || Set.of("True", "False", "None").contains(name)) {
            throw error(a.pos(), "'" + name + "' is the name of a function; choose another name");
        }
        Value v;
        if (a.value() instanceof Ast.Call c && Functions.LEAVES.contains(c.function())) {
            v = leaf(name, c);
        } else {
            v = eval(a.value());
            if (v instanceof NumVal n) {
                v = constant(n.value(), a.value().pos());
            }
            if (!(v instanceof TensorVal)) {
                throw error(a.value().pos(), "'" + name + "' must be a tensor or a number, not " + Value.kind(v));
            }
            TensorVal t = (TensorVal) v;
            if (t.tensor() != null && t.tensor().node() != null && t.tensor().node().label() == null) {
                t.tensor().node().setLabel(name);
            }
            if (traced(t) >= 0) {
                Recorder.at(a.pos().line(), a.pos().column());
                Recorder.emit(new TraceEvent.Named(traced(t), name, Recorder.source()));
            }
        }
        if (life != null && v instanceof TensorVal t && !fresh.remove(t)) {
            hold(t); // a second name for a value: held for this name too (a leaf was held when declared)
        }
        values.put(name, v);
        definedAt.put(name, a.pos());
        for (List<String> seg : openSegments) {
            seg.add(name);
        }
    }

    private Value leaf(String name, Ast.Call c) {
        Args a = args(c);
        String fn = c.function();
        int[] shape;
        Leaf leaf;
        switch (fn) {
            case "input" -> {
                a.allow(0, Integer.MAX_VALUE, "input(d0, d1, ..., grad=False, init=\"file:PATH.npy\")", "grad", "init");
                shape = dims(a);
                leaf = new Leaf(name, Leaf.Kind.INPUT, shape, a.bool(-1, "grad", false), fileInit(a, c), 0, c.pos());
            }
            case "param" -> {
                a.allow(0, Integer.MAX_VALUE, "param(d0, d1, ..., init=\"normal\")", "init");
                shape = dims(a);
                String init = a.string(-1, "init", "normal");
                if (!Set.of("normal", "zeros", "ones", "uniform").contains(init) && !LeafFiles.isFile(init)) {
                    throw error(c.keywords().get(0).value().pos(), "param(): init must be one of \"normal\", \"zeros\", "
                            + "\"ones\", \"uniform\" or \"file:PATH.npy\", not \"" + init + "\""
                            + Names.didYouMean(init, List.of("normal", "zeros", "ones", "uniform")));
                }
                leaf = new Leaf(name, Leaf.Kind.PARAM, shape, true, init, 0, c.pos());
            }
            default -> {
                a.allow(0, Integer.MAX_VALUE, "labels(d0, ..., classes=C, init=\"file:PATH.npy\")", "classes", "init");
                shape = dims(a);
                int classes = a.integer(-1, "classes", null);
                if (classes < 1) {
                    throw error(c.pos(), "labels(): classes must be at least 1, not " + classes);
                }
                leaf = new Leaf(name, Leaf.Kind.LABELS, shape, false, fileInit(a, c), classes, c.pos());
            }
        }
        DType dt = leaf.kind() == Leaf.Kind.LABELS ? DType.INT64 : options.dtype();
        account(c.pos(), "'" + name + "'", shape, dt, leaf.grad());
        leaves.add(leaf);
        java.nio.file.Path values;
        try {
            values = LeafFiles.isFile(leaf.init()) ? LeafFiles.resolve(file, leaf.init()) : null;
        } catch (GradscopeException e) {
            throw error(c.pos(), "'" + name + "': " + e.getMessage());
        }
        if (values != null && !java.nio.file.Files.isReadable(values)) {
            throw error(c.pos(), "'" + name + "': cannot read its values file " + LeafFiles.path(leaf.init()) + " (" + values + ")");
        }
        if (checking) {
            return declared(leaf, new TensorVal(shape, dt, null));
        }
        MemoryCategory category = leaf.kind() == Leaf.Kind.PARAM ? MemoryCategory.PARAMETER : MemoryCategory.ACTIVATION;
        // Made in a scope so that its allocation is announced with its id (and a device upload's host copy is scratch).
        Allocations.Scope scope = Allocations.open(category);
        Tensor made = null;
        try {
            made = make(leaf, dt, values);
            if (leaf.grad()) {
                made.setRequiresGrad(true);
                made.node().setLabel(name);
            }
        } catch (ProgramException e) {
            throw e;
        } catch (GradscopeException e) {
            throw error(c.pos(), "'" + name + "': " + e.getMessage());
        } finally {
            Tensor kept = made;
            long id = kept == null ? -1 : Recorder.active() ? Recorder.name(kept) : kept.node() != null ? kept.node().id() : -1;
            scope.close(kept == null ? List.of() : List.of(kept), id, io.gradscope.engine.memory.StorageRole.LEAF, true);
        }
        Tensor t = Tangents.leafCreated(leaf.name(), made);
        if (Recorder.active()) {
            TraceEvent.LeafKind kind = switch (leaf.kind()) {
                case INPUT -> TraceEvent.LeafKind.INPUT;
                case PARAM -> TraceEvent.LeafKind.PARAM;
                case LABELS -> TraceEvent.LeafKind.LABELS;
            };
            Recorder.at(c.pos().line(), c.pos().column());
            Recorder.emit(TraceEvent.Leaf.of(name, kind, t));
            Tangents.recordLeaf(t);
        }
        return made(declared(leaf, new TensorVal(shape, dt, t)));
    }

    /**
     * A leaf's value on the run's device. On the meta device nothing is drawn (and a given value's
     * storage is not the program's, as on the CPU).
     */
    private Tensor make(Leaf leaf, DType dt, java.nio.file.Path fromFile) {
        io.gradscope.engine.tensor.Device dev = options.device();
        if (dev == io.gradscope.engine.tensor.Device.META) {
            return options.inputs().containsKey(leaf.name())
                    ? Allocations.unannounced(() -> Tensor.zeros(dt, dev, leaf.shape())) : Tensor.zeros(dt, dev, leaf.shape());
        }
        return Leaves.make(leaf, options, fromFile).toDevice(dev);
    }

    private TensorVal declared(Leaf leaf, TensorVal v) {
        if (leaf.kind() == Leaf.Kind.LABELS) {
            labelClasses.declare(v, leaf.name(), leaf.classes());
        }
        if (leaf.grad()) {
            needGrad.add(v);
        }
        return v;
    }

    /** The result of {@code op}: it needs a gradient when an input does, and labels stay labels through views. */
    private TensorVal result(Op op, List<TensorVal> inputs, TensorVal out, boolean grad) {
        if (grad) {
            needGrad.add(out);
        }
        labelClasses.follow(op.name(), inputs, out);
        return out;
    }

    /** An input's or labels' {@code init="file:PATH.npy"}, or null. */
    private String fileInit(Args a, Ast.Call c) {
        String init = a.string(-1, "init", null);
        if (init != null && !LeafFiles.isFile(init)) {
            throw error(c.pos(), c.function() + "(): init takes a values file, init=\"file:PATH.npy\", not \"" + init + "\"");
        }
        return init;
    }

    private int[] dims(Args a) {
        int[] d = a.intsFrom(0, "a dimension");
        for (int i = 0; i < d.length; i++) {
            if (d[i] < 0) {
                throw error(a.positionOf(Math.min(i, a.count() - 1)), a.fn() + "(): dimensions must be non-negative, not " + d[i]);
            }
        }
        return d;
    }

    /**
     * Refuses a tensor that cannot fit in memory before it is allocated. A value that needs a gradient
     * counts twice (the backward pass keeps a gradient of its size); a total past the heap's limit is
     * reported after the whole check, so that a shape error further down is reported first.
     */
    private void account(Pos pos, String what, int[] shape, DType dt, boolean withGradient) {
        long n = Shapes.numel(shape);
        double need = (double) n * dt.bytes();
        if (n > Shapes.MAX_NUMEL || need > memoryLimit) {
            throw error(pos, what + " of shape " + Shapes.str(shape) + " needs " + human(need) + " (" + dt + "), more than "
                    + (n > Shapes.MAX_NUMEL ? "a tensor can hold (" + Shapes.MAX_NUMEL + " elements)"
                    : io.gradscope.engine.memory.HeapLimit.limit() + " (" + io.gradscope.engine.memory.HeapLimit.RAISE + ")"));
        }
        bytes += (long) need;
        gradientBytes += withGradient ? (long) need : 0;
        if (memoryProblem == null && bytes + gradientBytes > memoryLimit) {
            memoryProblem = error(pos, "the program needs " + human(bytes + gradientBytes) + " by this point ("
                    + human(bytes) + " of values" + (gradientBytes > 0 ? ", " + human(gradientBytes) + " of their gradients in the "
                    + "backward pass" : "") + "), more than " + io.gradscope.engine.memory.HeapLimit.limit() + " ("
                    + io.gradscope.engine.memory.HeapLimit.RAISE + ")");
        }
    }

    static String human(double b) {
        return io.gradscope.engine.memory.HeapLimit.human(b);
    }

    private TensorVal constant(double v, Pos pos) {
        DType dt = options.dtype();
        return made(new TensorVal(new int[0], dt, checking ? null : Tensor.full(dt, options.device(), v)));
    }

    private Args args(Ast.Call c) {
        List<Value> pos = new ArrayList<>();
        for (Ast.Expr e : c.args()) {
            pos.add(eval(e));
        }
        Map<String, Value> kw = new LinkedHashMap<>();
        for (Ast.Keyword k : c.keywords()) {
            kw.put(k.name(), eval(k.value()));
        }
        return new Args(file, c, pos, kw);
    }

    Value eval(Ast.Expr e) {
        if (e instanceof Ast.Num n) {
            return new NumVal(n.value(), n.integral(), n.text());
        }
        if (e instanceof Ast.Str s) {
            return new StrVal(s.value());
        }
        if (e instanceof Ast.Const c) {
            return c.value() == null ? new NoneVal() : new BoolVal(c.value());
        }
        if (e instanceof Ast.Name n) {
            return lookup(n);
        }
        if (e instanceof Ast.Tuple t) {
            List<Value> items = new ArrayList<>();
            for (Ast.Expr x : t.items()) {
                items.add(eval(x));
            }
            return new TupleVal(items);
        }
        if (e instanceof Ast.Unary u) {
            return unary(u);
        }
        if (e instanceof Ast.Binary b) {
            return binary(b);
        }
        return call((Ast.Call) e);
    }

    private Value lookup(Ast.Name n) {
        Value v = values.get(n.id());
        if (v != null) {
            return v;
        }
        if (Functions.all().contains(n.id())) {
            throw error(n.pos(), "'" + n.id() + "' is a function; call it, e.g. " + n.id() + "(x)");
        }
        throw error(n.pos(), "unknown name '" + n.id() + "'" + Names.didYouMean(n.id(), values.keySet()));
    }

    private Value unary(Ast.Unary u) {
        Value v = eval(u.operand());
        if (v instanceof NumVal n) {
            return new NumVal(u.op().equals("-") ? -n.value() : n.value(), n.integral(),
                    n.text() == null ? null : u.op() + n.text());
        }
        TensorVal t = tensorOperand(v, u.operand().pos(), "unary '" + u.op() + "'");
        return u.op().equals("-") ? apply(OpSpecs.byOperator("-", 1).create(Map.of()), List.of(t), u.pos()) : t;
    }

    private Value binary(Ast.Binary b) {
        Value l = eval(b.left());
        Value r = eval(b.right());
        String op = b.op();
        if (op.equals("**")) {
            if (!(r instanceof NumVal c)) {
                throw error(b.right().pos(), "the exponent of '**' must be a number, not " + Value.kind(r));
            }
            if (l instanceof NumVal n) {
                return new NumVal(Math.pow(n.value(), c.value()), n.integral() && c.integral() && c.value() >= 0);
            }
            TensorVal t = tensorOperand(l, b.left().pos(), "'**'");
            return apply(OpSpecs.byOperator("**", 1).create(Map.of("exponent", c.value())), List.of(t), b.pos());
        }
        if (l instanceof NumVal x && r instanceof NumVal y) {
            return fold(b, x, y);
        }
        if (op.equals("@") && (l instanceof NumVal || r instanceof NumVal)) {
            throw error(b.pos(), "'@' needs two tensors; use '*' to scale by a number");
        }
        TensorVal a = l instanceof NumVal n ? constant(n.value(), b.left().pos()) : tensorOperand(l, b.left().pos(), "'" + op + "'");
        TensorVal c = r instanceof NumVal n ? constant(n.value(), b.right().pos()) : tensorOperand(r, b.right().pos(), "'" + op + "'");
        return apply(OpSpecs.byOperator(op, 2).create(Map.of()), List.of(a, c), b.pos());
    }

    private Value fold(Ast.Binary b, NumVal x, NumVal y) {
        boolean integral = x.integral() && y.integral();
        return switch (b.op()) {
            case "+" -> new NumVal(x.value() + y.value(), integral);
            case "-" -> new NumVal(x.value() - y.value(), integral);
            case "*" -> new NumVal(x.value() * y.value(), integral);
            case "/" -> {
                if (y.value() == 0) {
                    throw error(b.pos(), "division by zero");
                }
                yield new NumVal(x.value() / y.value(), false);
            }
            default -> throw error(b.pos(), "'@' needs two tensors, not two numbers");
        };
    }

    private TensorVal tensorOperand(Value v, Pos pos, String what) {
        if (v instanceof TensorVal t) {
            return t;
        }
        throw error(pos, what + " needs a tensor or a number, not " + Value.kind(v));
    }

    private Value call(Ast.Call c) {
        String fn = c.function();
        if (Functions.LEAVES.contains(fn)) {
            throw error(c.pos(), "a leaf call like " + fn + "(...) must be the whole right side of an assignment, "
                    + "e.g. W = " + fn + "(3, 2)");
        }
        if (Functions.CONTEXTS.contains(fn)) {
            throw error(c.pos(), fn + "() is only used in a with-statement: with " + fn + (fn.equals("group") ? "(\"name\"):" : "():"));
        }
        if (values.containsKey(fn)) {
            throw error(c.pos(), "'" + fn + "' is a tensor, not a function");
        }
        OpSpec spec = Functions.op(fn);
        if (spec == null) {
            throw error(c.pos(), "unknown function '" + fn + "'" + Names.didYouMean(fn, Functions.all()));
        }
        Functions.OpCall oc;
        try {
            oc = Functions.build(spec, args(c));
        } catch (ProgramException e) {
            throw e;
        } catch (GradscopeException e) {
            throw error(c.pos(), e.getMessage());
        }
        return apply(oc.op(), oc.inputs(), c.pos());
    }

    private TensorVal apply(Op op, List<TensorVal> inputs, Pos pos) {
        int[][] shapes = new int[inputs.size()][];
        DType[] dtypes = new DType[inputs.size()];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = inputs.get(i).shape();
            dtypes[i] = inputs.get(i).dtype();
        }
        int[] out;
        try {
            out = op.outputShape(shapes, dtypes);
        } catch (GradscopeException e) {
            throw error(pos, e.getMessage());
        }
        String mismatch = labelClasses.problem(op.name(), inputs);
        if (mismatch != null) {
            throw error(pos, mismatch);
        }
        // A view keeps its input's dtype (labels stay int64 through reshape, as they do when run).
        boolean view = OpRegistry.spec(op.name()).view();
        DType dt = dtypes.length > 0 && (dtypes[0].isFloating() || view) ? dtypes[0] : options.dtype();
        boolean grad = dt.isFloating() && inputs.stream().anyMatch(needGrad::contains);
        if (!view) {
            account(pos, "the result of " + op.name(), out, dt, grad);
        }
        if (checking) {
            return result(op, inputs, new TensorVal(out, dt, null), grad);
        }
        Tensor[] ts = new Tensor[inputs.size()];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = inputs.get(i).tensor();
        }
        try {
            Recorder.at(pos.line(), pos.column());
            Tensor t = Ops.apply(op, ts);
            if (t.node() != null) {
                nodePos.put(t.node(), pos);
            }
            TensorVal made = made(result(op, inputs, new TensorVal(t.shape(), t.dtype(), t), grad));
            if (life != null) {
                life.forwardOp(op, ts, t);
                for (TensorVal in : inputs) {
                    if (fresh.remove(in)) {
                        drop(in);
                    }
                }
                life.holds().sweep();
            }
            return made;
        } catch (ProgramException e) {
            throw e;
        } catch (GradscopeException e) {
            throw error(pos, e.getMessage());
        }
    }
}
