package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.lang.Ast;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.lang.Parser;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.run.ExprValue.BoolVal;
import io.gradscope.engine.run.ExprValue.NoneVal;
import io.gradscope.engine.run.ExprValue.NumVal;
import io.gradscope.engine.run.ExprValue.StrVal;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.run.ExprValue.TupleVal;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates a program's expressions: names, numbers (folded while both sides are numbers), unary
 * and binary operators and function calls, each op shape-checked and (when running) applied. It
 * follows which values need a gradient and the class counts of labels, and counts the memory of
 * each result. In checking mode tensors are only shapes and dtypes.
 */
final class Evaluator {
    private final String file;
    private final boolean checking;
    private final RunOptions options;
    /** The program's names, bound by its statements. */
    private final Map<String, ExprValue> values;
    private final MemoryCheck memory;
    private final ProgramRefCounts holds;
    /** Where each recorded node's statement is (a failure in the backward pass points there). */
    private final Map<Node, Pos> nodePos;
    private final LabelClasses labelClasses = new LabelClasses();
    /** The values whose gradient the backward pass computes (their bytes count twice). */
    private final Set<ExprValue> needGrad = Collections.newSetFromMap(new IdentityHashMap<>());

    Evaluator(String file, boolean checking, RunOptions options, Map<String, ExprValue> values, MemoryCheck memory,
              ProgramRefCounts holds, Map<Node, Pos> nodePos) {
        this.file = file;
        this.checking = checking;
        this.options = options;
        this.values = values;
        this.memory = memory;
        this.holds = holds;
        this.nodePos = nodePos;
    }

    private ProgramException error(Pos pos, String what) {
        return new ProgramException(file, pos, what);
    }

    /** A leaf's value: labels keep their class count, a leaf with a gradient is where gradients start. */
    TensorVal declared(Leaf leaf, TensorVal v) {
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

    /** A number as a scalar tensor of the run's dtype. */
    TensorVal constant(double v, Pos pos) {
        DType dt = options.dtype();
        return holds.made(new TensorVal(new int[0], dt, checking ? null : Tensor.full(dt, options.device(), v)));
    }

    /** The evaluated arguments of a call. */
    Args args(Ast.Call c) {
        List<ExprValue> pos = new ArrayList<>();
        for (Ast.Expr e : c.args()) {
            pos.add(eval(e));
        }
        Map<String, ExprValue> kw = new LinkedHashMap<>();
        for (Ast.Keyword k : c.keywords()) {
            kw.put(k.name(), eval(k.value()));
        }
        return new Args(file, c, pos, kw);
    }

    ExprValue eval(Ast.Expr e) {
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
            List<ExprValue> items = new ArrayList<>();
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

    private ExprValue lookup(Ast.Name n) {
        ExprValue v = values.get(n.id());
        if (v != null) {
            return v;
        }
        if (Functions.all().contains(n.id())) {
            throw error(n.pos(), "'" + n.id() + "' is a function; call it, e.g. " + n.id() + "(x)");
        }
        throw error(n.pos(), "unknown name '" + n.id() + "'" + Names.didYouMean(n.id(), values.keySet()));
    }

    private ExprValue unary(Ast.Unary u) {
        ExprValue v = eval(u.operand());
        if (v instanceof NumVal n) {
            return new NumVal(u.op().equals("-") ? -n.value() : n.value(), n.integral(),
                    n.text() == null ? null : u.op() + n.text());
        }
        TensorVal t = tensorOperand(v, u.operand().pos(), "unary '" + u.op() + "'");
        return u.op().equals("-") ? apply(OpSpecs.byOperator("-", 1).create(Map.of()), List.of(t), u.pos()) : t;
    }

    private ExprValue binary(Ast.Binary b) {
        ExprValue l = eval(b.left());
        ExprValue r = eval(b.right());
        String op = b.op();
        if (op.equals("**")) {
            if (!(r instanceof NumVal c)) {
                throw error(b.right().pos(), "the exponent of '**' must be a number, not " + ExprValue.kind(r));
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

    private ExprValue fold(Ast.Binary b, NumVal x, NumVal y) {
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

    private TensorVal tensorOperand(ExprValue v, Pos pos, String what) {
        if (v instanceof TensorVal t) {
            return t;
        }
        throw error(pos, what + " needs a tensor or a number, not " + ExprValue.kind(v));
    }

    private ExprValue call(Ast.Call c) {
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
        if (Parser.SEVERAL.contains(fn)) {
            // One piece (split(x, 5, axis=1) of an axis of 5) is one value: it binds one name.
            SplitPieces.Cut cut = cut(c);
            int k = cut.ranges().size();
            if (k != 1) {
                throw error(c.pos(), fn + "(...) gives " + k + " pieces here; bind each to a name, e.g. a, b = " + fn + "(x, 2)");
            }
            return slice(cut, 0, c.pos());
        }
        OpSpec spec = Functions.op(fn);
        if (spec == null) {
            throw error(c.pos(), "unknown function '" + fn + "'" + Names.didYouMean(fn, Functions.withSeveral()));
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

    /**
     * The pieces of {@code a, b, ... = split(...)} or {@code chunk(...)}: one slice op per name, each
     * recorded at its name. The number of names must be the number of pieces PyTorch gives.
     */
    List<TensorVal> pieces(Ast.Call c, List<Ast.Name> names) {
        String fn = c.function();
        if (values.containsKey(fn)) {
            throw error(c.pos(), "'" + fn + "' is a tensor, not a function");
        }
        SplitPieces.Cut cut = cut(c);
        int k = cut.ranges().size();
        if (k != names.size()) {
            throw error(c.pos(), fn + " gives " + k + " piece" + (k == 1 ? "" : "s") + " here; " + names.size()
                    + " name" + (names.size() == 1 ? "" : "s") + " on the left");
        }
        List<TensorVal> out = new ArrayList<>();
        holds.readBySeveral(cut.x());
        try {
            for (int i = 0; i < k; i++) {
                out.add(slice(cut, i, names.get(i).pos()));
            }
        } finally {
            holds.readBySeveralDone(cut.x());
        }
        return out;
    }

    /** Where split(...) or chunk(...) cuts its tensor. */
    private SplitPieces.Cut cut(Ast.Call c) {
        try {
            return SplitPieces.of(args(c));
        } catch (ProgramException e) {
            throw e;
        } catch (GradscopeException e) {
            throw error(c.pos(), e.getMessage());
        }
    }

    /** Piece {@code i} of the cut: one slice op, recorded at {@code pos}. */
    private TensorVal slice(SplitPieces.Cut cut, int i, Pos pos) {
        int[] r = cut.ranges().get(i);
        Op op = OpSpecs.get("slice").create(Map.of("axis", cut.axis(), "start", r[0], "stop", r[1]));
        return apply(op, List.of(cut.x()), pos);
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
        boolean grad = false;
        for (int i = 0; i < inputs.size() && dt.isFloating() && !grad; i++) {
            grad = needGrad.contains(inputs.get(i));
        }
        if (!view) {
            memory.account(pos, () -> "the result of " + op.name(), out, dt, grad);
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
                nodePos.put(Node.of(t), pos);
            }
            TensorVal made = holds.made(result(op, inputs, new TensorVal(t.shape(), t.dtype(), t), grad));
            holds.opRan(op, ts, t, inputs);
            return made;
        } catch (ProgramException e) {
            throw e;
        } catch (GradscopeException e) {
            throw error(pos, e.getMessage());
        }
    }
}
