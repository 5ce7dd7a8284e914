package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.InputFiles;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.alloc.RefCounts;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.autograd.Gradients;
import io.gradscope.engine.autograd.StepLifetimes;
import io.gradscope.engine.lang.Ast;
import io.gradscope.engine.lang.Parser;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.recompute.RematPlan;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed {@code .grad} program (format: shared/PROGRAM-FORMAT.md).
 *
 * <pre>{@code
 * Program p = Program.parse("mlp.grad", "x = input(2, 3)\nW = param(3, 1)\nloss = sum(x @ W)\n");
 * ProgramRun r = p.run(new RunOptions(DType.FLOAT64, 0, Map.of()));
 * double loss = r.objective().item();
 * Tensor dW = r.gradient("W");
 * }</pre>
 */
public final class Program {
    /** Largest program file read (a program is text; anything near this is not one). */
    static final long MAX_BYTES = 32L << 20;

    private final String file;
    private final List<Ast.Stmt> statements;
    private final List<String> leadingComments;

    private Program(String file, List<Ast.Stmt> statements, List<String> leadingComments) {
        this.file = file;
        this.statements = statements;
        this.leadingComments = leadingComments;
    }

    /** Parses program text; a syntax error is a {@link ProgramException} with its line and column. */
    public static Program parse(String file, String source) {
        return new Program(file, Parser.parse(file, source), leadingComments(source));
    }

    /** The comment lines before the first statement, stripped, blank lines skipped (any line ending). */
    private static List<String> leadingComments(String source) {
        return source.lines().map(String::strip).filter(l -> !l.isEmpty()).takeWhile(l -> l.startsWith("#")).toList();
    }

    /**
     * Null when a program file is small enough to read; else why not ("a program of N bytes is too
     * large (at most M)"), said before reading it (the app's open included: a 2 GiB file ran it out of memory).
     */
    public static String sizeProblem(Path path) {
        try {
            long size = Files.size(path);
            return size > MAX_BYTES ? "a program of " + size + " bytes is too large (at most " + MAX_BYTES + ")" : null;
        } catch (IOException e) {
            return InputFiles.reason(e);
        }
    }

    /** Reads and parses a file; text that is not UTF-8 is an error at its first bad line. */
    public static Program load(Path path) {
        if (path.toString().isEmpty()) {
            throw new GradscopeException("no program given: the path is empty");
        }
        String problem = InputFiles.problem(path);
        if (problem != null) {
            throw new GradscopeException("cannot read " + path + ": " + problem
                    + (path.toString().equals("-") && problem.equals("no such file")
                    ? " (a program is not read from standard input; give its file)" : ""));
        }
        String large = sizeProblem(path);
        if (large != null) {
            throw new GradscopeException("cannot read " + path + ": " + large);
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new GradscopeException("cannot read " + path + ": " + InputFiles.reason(e));
        }
        String name = path.toString();
        return parse(name, decode(name, bytes));
    }

    private static String decode(String name, byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            String lenient = new String(bytes, StandardCharsets.UTF_8);
            int at = lenient.indexOf('\uFFFD');
            int line = 1;
            int col = 1;
            for (int i = 0; i < Math.max(at, 0); i++) {
                if (lenient.charAt(i) == '\n') {
                    line++;
                    col = 1;
                } else {
                    col++;
                }
            }
            throw new ProgramException(name, new Pos(line, col), InputFiles.NOT_TEXT);
        }
    }

    public String file() {
        return file;
    }

    /**
     * The comment lines before the program's first statement (a header: an imported model's says
     * where it came from, {@code onnx.OnnxImport#importedFrom}), stripped, in order.
     */
    public List<String> leadingComments() {
        return leadingComments;
    }

    /** Every name the program assigns, leaves and computed values alike, with where it is assigned. */
    public Map<String, Pos> assignedNames() {
        Map<String, Pos> out = new LinkedHashMap<>();
        collectNames(statements, out);
        return out;
    }

    private static void collectNames(List<Ast.Stmt> stmts, Map<String, Pos> out) {
        for (Ast.Stmt s : stmts) {
            if (s instanceof Ast.Assign a) {
                out.putIfAbsent(a.name(), a.pos());
            } else if (s instanceof Ast.Unpack u) {
                u.names().forEach(n -> out.putIfAbsent(n.id(), n.pos()));
            } else if (s instanceof Ast.With w) {
                collectNames(w.body(), out);
            }
        }
    }

    /** The dtype the program last passed its check in, with the leaves it found (a run need not check twice). */
    private record Checked(DType dtype, List<Leaf> leaves) {
    }

    /** One reference, so that runs of this program on two threads never pair one check's dtype with another's leaves. */
    private volatile Checked checked;

    /** Checks names and shapes without allocating; returns the declared leaves. */
    public List<Leaf> check(DType dtype) {
        Checked c = checked;
        if (c != null && c.dtype() == dtype) {
            return c.leaves();
        }
        Interpreter in = new Interpreter(file, true, new RunOptions(dtype, 0, Map.of()));
        in.run(statements);
        checked = new Checked(dtype, List.copyOf(in.leaves));
        return checked.leaves();
    }

    /** Out of memory in the backward pass: said at the statement whose gradient was being computed. */
    private RuntimeException outOfMemoryInBackward(Interpreter in, io.gradscope.engine.autograd.Node node, Throwable e) {
        String what = "out of memory in the backward pass" + (node == null ? "" : " (the gradient through " + node.opName()
                + (node.label() != null ? " '" + node.label() + "'" : "") + ")")
                + (e instanceof io.gradscope.engine.alloc.HeapLimit.OutOfMemory m ? ", " + m.doing() : "")
                + "; " + io.gradscope.engine.alloc.HeapLimit.hint();
        Pos pos = in.nodePos.get(node);
        return pos != null ? new ProgramException(file, pos, what) : new GradscopeException(what);
    }

    /** Runs the forward pass only, recording nothing, and returns the objective (for finite differences). */
    public Tensor forward(RunOptions options) {
        try (var off = io.gradscope.engine.ops.GradMode.disable()) {
            Interpreter in = new Interpreter(file, false, options);
            in.run(statements);
            return ((TensorVal) in.objective).tensor();
        }
    }

    /** The objective and every named value of a forward pass. */
    public record Evaluation(Tensor objective, Map<String, Tensor> values) {
    }

    /**
     * Runs the forward pass only, as the caller's grad mode and forward-mode level say (nodes are
     * recorded when grad mode is on; tangents are carried when a {@code Tangents} level is open).
     */
    public Evaluation evaluate(RunOptions options) {
        check(options.dtype());
        Interpreter in = new Interpreter(file, false, options);
        in.run(statements);
        Map<String, Tensor> values = new LinkedHashMap<>();
        in.values.forEach((k, v) -> values.put(k, ((TensorVal) v).tensor()));
        return new Evaluation(((TensorVal) in.objective).tensor(), values);
    }

    /** How far a run is: the phase ("forward" or "backward") and the steps done of the total. */
    @FunctionalInterface
    public interface Progress {
        void update(String phase, int done, int total);
    }

    /** Checks, then runs the forward pass and the backward pass (when anything needs a gradient). */
    public ProgramRun run(RunOptions options) {
        return run(options, MemoryOptions.DEFAULT, (phase, done, total) -> { });
    }

    /** As {@link #run(RunOptions)}, reporting progress after every statement and backward step. */
    public ProgramRun run(RunOptions options, Progress progress) {
        return run(options, MemoryOptions.DEFAULT, progress);
    }

    /**
     * Runs one training step: the forward pass, then the backward pass, with the lifetimes a plain
     * training run gives its tensors (see {@code StepLifetimes}) and the recomputation the policy
     * plans (a plan that needs one is made on the meta device first: {@link #plan}).
     */
    public ProgramRun run(RunOptions options, MemoryOptions memory, Progress progress) {
        check(options.dtype());
        RematPlanner.Planned planned = plan(options, memory.policy(), false);
        return step(options, planned, memory.retain(), progress);
    }

    /**
     * Runs one training step with a plan made beforehand by {@link #plan} (so its prediction can be
     * shown beside the measured peak without planning twice).
     */
    public ProgramRun run(RunOptions options, RematPlanner.Planned planned, boolean retain, Progress progress) {
        check(options.dtype());
        return step(options, planned, retain, progress);
    }

    /** Whether the program has a {@code with checkpoint():} block. */
    public boolean hasCheckpointBlocks() {
        return hasCheckpoint(statements);
    }

    private static boolean hasCheckpoint(List<Ast.Stmt> stmts) {
        for (Ast.Stmt s : stmts) {
            if (s instanceof Ast.With w && (w.context().function().equals("checkpoint") || hasCheckpoint(w.body()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The plan {@code policy} gives this program, with its predicted peak: the program is run on the
     * meta device (which computes nothing but allocates and frees as the CPU does) once to see its
     * ops, and once per candidate plan. Without {@code predict}, a policy with nothing to plan
     * ({@code none}, or {@code segments} without checkpoint blocks) runs nothing and predicts -1.
     */
    public RematPlanner.Planned plan(RunOptions options, RematPolicy policy, boolean predict) {
        return plan(options, policy, predict, NO_PROGRESS);
    }

    /**
     * The same, telling {@code metaProgress} after every statement and step of each meta run the
     * planner makes: a caller stops the planning there by throwing (the app's Cancel throws a
     * {@code CancellationException}; one plan of a long program takes hundreds of meta runs).
     */
    public RematPlanner.Planned plan(RunOptions options, RematPolicy policy, boolean predict, Progress metaProgress) {
        check(options.dtype());
        // The meta runs are not the caller's: nothing of them reaches the caller's recorders.
        try (Recorder.Paused quiet = Recorder.pause()) {
            return planQuietly(options, policy, predict, metaProgress);
        }
    }

    private RematPlanner.Planned planQuietly(RunOptions options, RematPolicy policy, boolean predict, Progress metaProgress) {
        boolean nothing = policy.kind() == RematPolicy.Kind.NONE
                || (policy.kind() == RematPolicy.Kind.SEGMENTS && !hasCheckpointBlocks());
        if (nothing && !predict) {
            return new RematPlanner.Planned(policy, RematPlan.NONE, -1, true);
        }
        RunOptions meta = new RunOptions(options.dtype(), options.seed(), options.inputs(), Device.META);
        ProgramRun plain = step(meta, new RematPlanner.Planned(RematPolicy.NONE, RematPlan.NONE, -1, true), false, metaProgress);
        RematPlanner.Prediction plainPeak = prediction(plain);
        if (nothing) {
            return new RematPlanner.Planned(policy, RematPlan.NONE, plainPeak.peak(), true);
        }
        return RematPlanner.plan(policy, plain.memory().profile(), plan -> plan.isEmpty() ? plainPeak
                : prediction(step(meta, new RematPlanner.Planned(policy, plan, -1, true), false, metaProgress)));
    }

    private static RematPlanner.Prediction prediction(ProgramRun metaRun) {
        io.gradscope.engine.alloc.MemoryTimeline t = metaRun.timeline();
        return new RematPlanner.Prediction(t.peakBytes(), t.maxOf(io.gradscope.engine.tensor.MemoryCategory.ACTIVATION));
    }

    private static final Progress NO_PROGRESS = (phase, done, total) -> { };

    /**
     * Runs one training step with a plan made beforehand, keeping for the inspector the values and
     * gradients {@code retention} says; the trace shows the others by stand-ins without data
     * ({@link io.gradscope.engine.trace.NotRetained}), which {@link Replay} recomputes on demand.
     * The objective and the leaves' values and gradients are always kept.
     */
    public ProgramRun run(RunOptions options, RematPlanner.Planned planned, Retention retention, Progress progress) {
        check(options.dtype());
        return step(options, planned, retention, true, progress);
    }

    ProgramRun step(RunOptions options, RematPlanner.Planned planned, boolean retain, Progress progress) {
        return step(options, planned, retain ? Retention.ALL : Retention.NONE, retain, progress);
    }

    /**
     * @param standIns keep the events' tensors, with stand-ins for those not retained; without it, a
     *                 run that does not retain everything keeps no tensors in its trace at all
     */
    ProgramRun step(RunOptions options, RematPlanner.Planned planned, Retention retention, boolean standIns, Progress progress) {
        return step(options, planned, new RefCounts(retention), standIns, progress);
    }

    /** One training step whose storages {@code holds} tracks (a replay reaches into it while it runs). */
    ProgramRun step(RunOptions options, RematPlanner.Planned planned, RefCounts holds, boolean standIns, Progress progress) {
        Retention retention = holds.retention();
        boolean retain = retention.keepsAll();
        StepLifetimes life = new StepLifetimes(holds, planned.plan());
        try (Recorder rec = retain ? Recorder.start(true) : standIns ? Recorder.startDroppingReleased() : Recorder.start(false);
             RefCounts.Installed on = holds.install()) {
            try {
                Interpreter in = new Interpreter(file, false, options);
                in.keepLifetimes(life, statements);
                in.onStatement = (done, total) -> progress.update("forward", done, total);
                in.run(statements);
                Tensor objective = ((TensorVal) in.objective).tensor();
                life.objective(objective);
                if (standIns && retention.kind() == Retention.Kind.NONE) {
                    holds.keep(objective); // the loss stays at hand whatever is retained
                }
                Gradients grads = null;
                if (objective.requiresGrad()) {
                    io.gradscope.engine.autograd.BackwardRun sweep = Backward.startStep(objective, life);
                    int total = sweep.totalSteps();
                    while (sweep.hasNext()) {
                        if (Thread.currentThread().isInterrupted()) {
                            throw new java.util.concurrent.CancellationException("backward pass cancelled");
                        }
                        io.gradscope.engine.autograd.Node next = sweep.next();
                        try {
                            sweep.step();
                        } catch (io.gradscope.engine.alloc.HeapLimit.OutOfMemory | OutOfMemoryError e) {
                            throw outOfMemoryInBackward(in, next, e);
                        }
                        progress.update("backward", sweep.stepsDone(), total);
                    }
                    grads = sweep.finish();
                }
                // The caller reads the objective after the step; a run that keeps no values hands it a copy.
                // (Under fit the objective is held like any value, and could be released for a larger one.)
                boolean objectiveKept = retain || (standIns && retention.kind() == Retention.Kind.NONE);
                Tensor result = objectiveKept ? objective : Allocations.unannounced(() -> {
                    Tensor c = Tensor.zeros(objective.dtype(), objective.device(), objective.shape());
                    c.backend().copy(objective, c);
                    return c;
                });
                if (in.objectiveHeld != null) {
                    life.drop(in.objectiveHeld.tensor());
                }
                life.finish();
                Map<String, Tensor> values = new LinkedHashMap<>();
                in.values.forEach((k, v) -> {
                    Tensor t = ((TensorVal) v).tensor();
                    if (!t.storage().isReleased()) {
                        values.put(k, t);
                    }
                });
                StepMemory memory = new StepMemory(planned.policy(), planned.plan(), planned.predictedPeak(), planned.fits(),
                        life.recomputedOps(), life.recomputedFlops(), retention.kind() != Retention.Kind.NONE, life.profile(),
                        options.device().toString(), retention, holds.droppedBytes());
                return new ProgramRun(result, values, List.copyOf(in.leaves), grads == null || retain ? grads : grads.unreleased(),
                        List.copyOf(in.segments), rec.trace(), memory, this);
            } finally {
                life.finish();
            }
        }
    }
}
