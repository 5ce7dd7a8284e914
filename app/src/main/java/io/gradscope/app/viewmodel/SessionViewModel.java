package io.gradscope.app.viewmodel;

import io.gradscope.app.service.ModelImport;
import io.gradscope.app.service.OpenTimes;
import io.gradscope.app.service.RunError;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.InputFiles;
import io.gradscope.engine.onnx.NodeOrigin;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * One session, as the AtlantaFX sampler's {@code MainModel} keeps its state: read-only properties
 * (the program text and its file, dtype and device, whether a run is going and how far, the
 * status line, the last run's error) changed only through named commands (edit, open, save, run,
 * cancel, ...). Stepping the recorded run is {@link #sweep()}. Depends only on javafx.base: runs go
 * through a {@link RunService}, so tests drive it without a window.
 */
public final class SessionViewModel {
    private final RunService service;
    private final ReadOnlyStringWrapper source = new ReadOnlyStringWrapper(this, "source", "");
    private final ReadOnlyStringWrapper fileName = new ReadOnlyStringWrapper(this, "fileName", "untitled.grad");
    private final ReadOnlyObjectWrapper<Path> file = new ReadOnlyObjectWrapper<>(this, "file");
    private final ReadOnlyObjectWrapper<Path> model = new ReadOnlyObjectWrapper<>(this, "model");
    /** The import behind {@link #model} (its temporary folder holds the weights), until the text is saved. */
    private ModelImport.Imported imported;
    private final ReadOnlyObjectWrapper<DType> dtype = new ReadOnlyObjectWrapper<>(this, "dtype", initialDType());
    private final ReadOnlyObjectWrapper<Device> device = new ReadOnlyObjectWrapper<>(this, "device", Device.CPU);
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status", "Ready");
    /** A failed open or save now in the status line, and what the line said before it; null when none. */
    private String failed;
    private String beforeFailed;
    private final ReadOnlyObjectWrapper<RunError> error = new ReadOnlyObjectWrapper<>(this, "error");
    /** The text the error (shown or put aside) came from, and an error put aside by an edit since. */
    private String errorSource;
    private RunError staleError;
    private final ReadOnlyObjectWrapper<RematPolicy> remat = new ReadOnlyObjectWrapper<>(this, "remat", RematPolicy.SEGMENTS);
    /** The text as last opened or saved: the text differs from it when there are unsaved edits. */
    private final ReadOnlyStringWrapper saved = new ReadOnlyStringWrapper(this, "saved", "");
    private final ReadOnlyBooleanWrapper modified = new ReadOnlyBooleanWrapper(this, "modified");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title");
    private final SweepViewModel sweep;
    private final OnDemandViewModel recompute;
    private final MemoryViewModel memory;
    private final DerivativesViewModel derivatives;
    private final DiagnosticsViewModel diagnostics;
    private final JacobianViewModel jacobian;
    /** A run shown: where its time went, and the {@link System#nanoTime} instants its showing began and ended. */
    public record Shown(OpenTimes times, long showStart, long showEnd) {
    }

    private final ReadOnlyObjectWrapper<Shown> lastShown = new ReadOnlyObjectWrapper<>(this, "lastShown");
    /** The request of the run on screen, with the device it ran on (null before one). */
    private RunService.Request shown;
    /** Counts opens: an import that finishes after a later open is dropped. */
    private int openRequest;
    /** Counts the texts opened (files, examples, imported models): a run of an earlier one is not shown. */
    private int textsOpened;

    public SessionViewModel(RunService service) {
        this.service = service;
        this.sweep = new SweepViewModel(service, status::set);
        // A failed open or save is said until the user moves on (a step, a click on a node): then the
        // status says again what it said before, about the run on screen.
        sweep.inspection().addListener((o, a, b) -> {
            if (failed != null && failed.equals(status.get())) {
                status.set(beforeFailed);
            }
            failed = null;
        });
        this.memory = new MemoryViewModel(sweep, service, () -> shown, p -> {
            setRemat(p);
            run();
        });
        modified.bind(source.isNotEqualTo(saved));
        title.bind(javafx.beans.binding.Bindings.createStringBinding(
                () -> (modified.get() ? "● " : "") + fileName.get() + " — Gradscope", modified, fileName));
        this.derivatives = new DerivativesViewModel(sweep, service, this::run, status::set, () -> shown);
        this.diagnostics = new DiagnosticsViewModel(sweep, service, status::set, () -> shown);
        this.jacobian = new JacobianViewModel(sweep, service, status::set, () -> shown);
        this.recompute = new OnDemandViewModel(sweep, service, () -> shown);
    }

    /** The dtype runs start with: float64, or the system property {@code gradscope.dtype} ({@code gradscope open --dtype}). */
    static DType initialDType() {
        return "float32".equals(System.getProperty("gradscope.dtype")) ? DType.FLOAT32 : DType.FLOAT64;
    }

    /** The floating-point dtypes a run can use. */
    public static final DType[] DTYPES = {DType.FLOAT32, DType.FLOAT64};

    public ReadOnlyStringProperty source() {
        return source.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty fileName() {
        return fileName.getReadOnlyProperty();
    }

    /** The file the text was opened from or saved to; null for text that is not from a file. */
    public ReadOnlyObjectProperty<Path> file() {
        return file.getReadOnlyProperty();
    }

    /** The ONNX model the text was imported from (its title and recent entry); null for a program. */
    public ReadOnlyObjectProperty<Path> model() {
        return model.getReadOnlyProperty();
    }

    /**
     * The folder a file dialog starts in: the open file's (or imported model's), else the user's home
     * (not the folder Gradscope was started from, often its own checkout).
     */
    public Path dialogFolder() {
        for (Path p : new Path[] {file.get(), model.get()}) {
            Path dir = p == null ? null : p.toAbsolutePath().getParent();
            if (dir != null && java.nio.file.Files.isDirectory(dir)) {
                return dir;
            }
        }
        return Path.of(System.getProperty("user.home"));
    }

    /** The name to save the text under: the file's, or for an imported model its name as a program. */
    public String saveName() {
        String name = fileName.get();
        return model.get() == null ? name : name.replaceAll("(?i)\\.onnx$", "") + ".grad";
    }

    /**
     * The ONNX node a vertex of the run on screen comes from, read from the comment on its line (a
     * statement of an imported model); empty for any other vertex.
     */
    public java.util.Optional<NodeOrigin> onnxOrigin(int vertex) {
        return NodeOrigin.parse(shownLine(vertex));
    }

    /**
     * The ONNX initializer a leaf of the run on screen reads (its name in the model, {@code onnx::Conv_193}
     * or {@code layer1.0.conv1.weight}), from the comment on its line; empty for any other vertex.
     */
    public java.util.Optional<String> onnxInitializer(int vertex) {
        return NodeOrigin.initializer(shownLine(vertex));
    }

    /** The line of the run on screen that vertex {@code vertex} comes from; null when there is none. */
    private String shownLine(int vertex) {
        var v = sweep.vertex(vertex);
        return v == null || shown == null ? null : shownLines.line(shown.source(), v.line());
    }

    /**
     * The 1-based line of the text now that holds line {@code line} of the run on screen: the same line
     * while the text is the one that ran, else where the edits since moved it ({@link LineMap}); 0 when
     * there is no run, or that line was changed or removed since: the text holds no line of that node.
     */
    public int textLine(int line) {
        return shown == null ? 0 : shownLines.textLine(shown.source(), source.get(), line);
    }

    private final ShownLines shownLines = new ShownLines();

    public ReadOnlyObjectProperty<DType> dtype() {
        return dtype.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Device> device() {
        return device.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty running() {
        return running.getReadOnlyProperty();
    }

    /** How far the running run is, from 0 to 1. */
    public ReadOnlyDoubleProperty progress() {
        return progress.getReadOnlyProperty();
    }

    /** The last run shown and where its time went (bench-ui --open reads it); set once it is shown. */
    public ReadOnlyObjectProperty<Shown> lastShown() {
        return lastShown.getReadOnlyProperty();
    }

    /** Says a failed open or save in the status line, until the user moves on ({@code before} then). */
    private void failed(String message, String before) {
        // One printable line: a name's newline or NUL shown as an escape (\n, \x00), as on the command line.
        String line = io.gradscope.engine.GradscopeException.oneLine(message);
        status.set(line);
        failed = line;
        beforeFailed = before;
    }

    /** The status line. */
    public ReadOnlyStringProperty status() {
        return status.getReadOnlyProperty();
    }

    /** The error of the last run (null after a good one); the last good run stays on screen. */
    public ReadOnlyObjectProperty<RunError> error() {
        return error.getReadOnlyProperty();
    }

    /** Whether the text has edits that are not saved (quitting then asks). */
    public ReadOnlyBooleanProperty modified() {
        return modified.getReadOnlyProperty();
    }

    /** The window's title: the file's name, marked while it has unsaved edits. */
    public ReadOnlyStringProperty title() {
        return title.getReadOnlyProperty();
    }

    /** Stepping through the last good run. */
    public SweepViewModel sweep() {
        return sweep;
    }

    /** The last good run's memory panel. */
    public MemoryViewModel memory() {
        return memory;
    }

    /** What runs recompute (the program's checkpoint blocks unless chosen otherwise). */
    public ReadOnlyObjectProperty<RematPolicy> remat() {
        return remat.getReadOnlyProperty();
    }

    public void setRemat(RematPolicy policy) {
        remat.set(policy);
    }

    /** The values and gradients of the run on screen that it did not retain, recomputed when inspected. */
    public OnDemandViewModel onDemand() {
        return recompute;
    }

    /** Which values the next runs keep for the inspector (all, fit, none); the rest are recomputed when inspected. */
    public void setRetention(io.gradscope.engine.alloc.Retention.Kind kind) {
        service.setRetention(kind);
    }

    /** Forward mode and Hessian-vector products of the run on screen. */
    public DerivativesViewModel derivatives() {
        return derivatives;
    }

    /** NaN origins, gradient checks, comparisons and overlays of the run on screen. */
    public DiagnosticsViewModel diagnostics() {
        return diagnostics;
    }

    /** The Jacobian view of the run on screen: its pattern, coloring, and a nonzero's paths. */
    public JacobianViewModel jacobian() {
        return jacobian;
    }

    // ---- commands ---------------------------------------------------------------------------

    /**
     * The user changed the text (nothing runs until {@link #run()}). The last run's error refers to
     * the text it ran: once the text is another, the error is put aside (its marker would point at a
     * line that no longer holds it), and shown again if an undo brings that text back.
     */
    public void edit(String text) {
        source.set(text);
        if (error.get() != null && !text.equals(errorSource)) {
            staleError = error.get();
            error.set(null);
            status.set(staleStatus(text));
        } else if (staleError != null && !text.equals(errorSource)) {
            status.set(staleStatus(text));
        } else if (staleError != null && text.equals(errorSource)) {
            error.set(staleError);
            status.set(staleError.status());
            staleError = null;
        }
    }

    /** The status while an error is put aside: back at the text of the run on screen, or edited since. */
    private String staleStatus(String text) {
        String at = staleError.line() > 0 ? " at line " + staleError.line() : "";
        if (shown != null && text.equals(shown.source())) {
            return "The text is that of the run on screen again (the error" + at + " was in an edit since undone)";
        }
        return "Edited since the error" + at + "; Ctrl+Enter runs the program again";
    }

    /** The user picks the dtype (the toolbar): from then on every file opens in it. */
    public void setDType(DType d) {
        if (d != dtype.get()) {
            dtypeChosen = true;
        }
        dtype.set(d);
    }

    /** Whether the dtype was picked (the toolbar, or {@code gradscope open --dtype}) rather than left to the file. */
    private boolean dtypeChosen = System.getProperty("gradscope.dtype") != null;

    /**
     * Until the user picks a dtype, a file opens in its own: an imported ONNX model in float32 (its
     * weights' type: float64 would double the memory of every value and gradient of a large model
     * and add no precision to its weights), a program in float64.
     */
    private void dtypeFor(boolean importedModel) {
        if (!dtypeChosen) {
            dtype.set(importedModel ? DType.FLOAT32 : DType.FLOAT64);
        }
    }

    /**
     * What belongs to the file, not the user, starts afresh with each file opened: its dtype (unless the
     * user picked one, {@link #dtypeFor}) and what its runs recompute (its own checkpoint blocks: a budget
     * chosen for one program's peak means nothing for the next). The pass starts on the backward one
     * ({@link DerivativesViewModel#opened}). The device and the kept values are the user's.
     */
    private void fileSettings(boolean importedModel) {
        dtypeFor(importedModel);
        remat.set(RematPolicy.SEGMENTS);
    }

    public void setDevice(Device d) {
        device.set(d);
    }

    /** Shows a line in the status bar. */
    public void report(String line) {
        status.set(line);
    }

    /** Shows a program that is not from a file (an example, the default) and runs it. */
    public void openText(String name, String text) {
        openRequest++;
        load(name, null, null, text);
    }

    /**
     * Another text takes the editor, as opened: its name, the file it came from (null: none), the
     * import it came from (null: none), the file's settings, and a run of it.
     */
    private void load(String name, Path from, ModelImport.Imported importedFrom, String text) {
        fileSettings(importedFrom != null);
        fileName.set(name);
        file.set(from);
        model.set(importedFrom == null ? null : importedFrom.model());
        imported = importedFrom;
        dropShown();
        saved.set(text);
        source.set(text);
        derivatives.opened(text);
        run();
    }

    /** Opens a program file (its text goes in the editor) and runs it; an ONNX model is imported first ({@link #openModel}). */
    public void open(Path path) {
        if (ModelImport.isModel(path)) {
            openModel(path);
            return;
        }
        String text = null;
        String problem = InputFiles.problem(path);
        if (problem == null) {
            problem = io.gradscope.engine.run.Program.sizeProblem(path);
        }
        if (problem == null) {
            try {
                text = Files.readString(path, StandardCharsets.UTF_8);
            } catch (IOException e) {
                problem = InputFiles.reason(e);
            } catch (RuntimeException e) {
                problem = e.getMessage();
            }
        }
        if (problem != null) {
            failed("Cannot open " + path + ": " + problem, status.get());
            return;
        }
        openRequest++;
        load(path.getFileName().toString(), path, null, text);
    }

    /**
     * Imports an ONNX model off the UI thread, then opens its program ({@link #openImported}); a model
     * that does not import is one status line with the engine's reason, and the editor keeps its text.
     */
    public void openModel(Path path) {
        int request = ++openRequest;
        String before = status.get();
        status.set("Importing " + path.getFileName() + "…");
        service.submit(() -> ModelImport.run(path, ModelImport.Options.defaults()), (imported, failure) -> {
            if (request != openRequest) {
                return;
            }
            if (failure != null) {
                String why = failure instanceof io.gradscope.engine.GradscopeException ? failure.getMessage() : String.valueOf(failure);
                String prefix = path.getFileName() + ": ";
                failed("Cannot open " + path + ": " + (why.startsWith(prefix) ? why.substring(prefix.length()) : why), before);
                return;
            }
            openImported(imported);
        });
    }

    /** Shows an imported model's program under the model's name (Save asks where to write it) and runs it. */
    public void openImported(ModelImport.Imported imported) {
        openRequest++;
        load(imported.model().getFileName().toString(), null, imported, imported.text());
    }

    /**
     * Another text replaces the one on screen: the run of the old text goes at once, with its error
     * (they name the old text's lines), so that the new text never stands beside them, whether its own
     * run then succeeds, fails to parse or fails to run. Until a run of it succeeds there is nothing to step.
     */
    private void dropShown() {
        textsOpened++;
        shown = null;
        staleError = null;
        errorSource = null;
        error.set(null);
        sweep.clear();
    }

    /** Saves to the file the text came from; false when it has none (ask where, then {@link #saveTo}). */
    public boolean save() {
        if (file.get() == null) {
            return false;
        }
        saveTo(file.get());
        return true;
    }

    /** Writes the text to {@code path}; an imported model's weights are copied beside it ({@link ModelImport#saveBeside}). */
    public void saveTo(Path path) {
        try {
            String text = source.get();
            if (imported != null) {
                text = ModelImport.saveBeside(imported, text, path);
                imported = null;
                source.set(text);
            } else {
                Files.writeString(path, text, StandardCharsets.UTF_8);
            }
            saved.set(text);
            fileName.set(path.getFileName().toString());
            model.set(null);
            file.set(path);
            status.set("Saved " + path);
        } catch (IOException e) {
            failed("Cannot save " + path + ": " + e.getMessage(), status.get());
        }
    }

    /** Runs the text off the UI thread (unless a run is going); the result, or the error, comes back to it. */
    public void run() {
        if (running.get()) {
            return;
        }
        sweep.pause();
        String name = fileName.get();
        int opening = textsOpened;
        running.set(true);
        // The program's path, not only its name: a leaf's init="file:..." is relative to the program's folder.
        String program = file.get() != null ? file.get().toString() : name;
        RunService.Request request = new RunService.Request(program, source.get(), dtype.get(), device.get(), remat.get(),
                derivatives.tangent().get());
        service.run(request,
                new RunService.Listener() {
                    @Override
                    public void started(RunService.Start start) {
                        notice = start.notice();
                        device.set(start.device());
                    }

                    @Override
                    public void progress(double fraction, String message) {
                        if (running.get()) {
                            progress.set(fraction);
                            status.set(message);
                        }
                    }

                    @Override
                    public void succeeded(RunService.Result r) {
                        if (ranBeforeOpen(opening)) {
                            return;
                        }
                        long showStart = System.nanoTime();
                        running.set(false);
                        error.set(null);
                        staleError = null;
                        shown = new RunService.Request(request.file(), request.source(), request.dtype(), device.get(), request.remat(), r.tangent());
                        String gone = derivatives.ran(r.tangent());
                        sweep.show(r.run(), r.graph(), r.layout());
                        derivatives.afterShow();
                        status.set(notice + gone + String.format(Locale.ROOT,
                                "Ran %s: objective %s · %d nodes · %d backward steps%s · run %d ms, layout %d ms", name,
                                num(r.run().objective().item()), r.graph().size(), sweep.recorded().get().steps(Sweep.Mode.BACKWARD),
                                r.tangent() == null ? "" : " · tangent " + r.tangent().describe(), r.runMillis(), r.layoutMillis())
                                + notRetained(r.run()));
                        lastShown.set(new Shown(r.times(), showStart, System.nanoTime()));
                        if (derivatives.takePendingCheck()) {
                            diagnostics.checkGradients();
                        }
                    }

                    @Override
                    public void failed(RunError e) {
                        if (ranBeforeOpen(opening)) {
                            return;
                        }
                        running.set(false);
                        sweep.pause();
                        staleError = null;
                        errorSource = request.source();
                        error.set(e);
                        status.set(e.status());
                        if (!request.source().equals(source.get())) {
                            edit(source.get()); // edited while it ran: the error is of the text before
                        }
                    }

                    @Override
                    public void cancelled() {
                        if (ranBeforeOpen(opening)) {
                            return;
                        }
                        running.set(false);
                        status.set("Run cancelled");
                    }
                });
    }

    /**
     * Whether a run that just ended was of a text since replaced by another opened while it ran: its
     * result is not shown beside the new text, and the new text runs now (its own run was not started
     * while this one went).
     */
    private boolean ranBeforeOpen(int opening) {
        if (opening == textsOpened) {
            return false;
        }
        running.set(false);
        run();
        return true;
    }

    /** " · 1.2 GiB of values not retained (--retain fit, 1.5 GiB kept at most), recomputed when inspected", or "" when all are kept. */
    static String notRetained(io.gradscope.engine.run.ProgramRun run) {
        var m = run.memory();
        if (m == null || m.dropped() == 0) {
            return "";
        }
        var r = m.retention();
        return " · " + io.gradscope.engine.alloc.HeapLimit.human(m.dropped()) + " of values not retained (--retain "
                + r.kind().name().toLowerCase(Locale.ROOT) + (r.kind() == io.gradscope.engine.alloc.Retention.Kind.FIT
                ? ", " + io.gradscope.engine.alloc.HeapLimit.human(r.budget()) + " kept at most" : "") + "), recomputed when inspected";
    }

    /** A number for the status line: NaN and the infinities are said as such. */
    static String num(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "−Inf";
        }
        return String.format(Locale.ROOT, "%.4g", v);
    }

    /** The notice of the run going (a device fall-back), put before its status line. */
    private String notice = "";

    /**
     * Cancels what is going on: the run, the gradient check (at its next node), a second run to compare
     * with, the Jacobian, the Hessian (at its next column) and the trade-off curve (at its next plan).
     */
    public void cancel() {
        service.cancel();
        diagnostics.cancelCheck();
        jacobian().cancel();
        derivatives.cancelHessian();
        memory.cancel();
    }

    /** Whether {@link #cancel} has something to stop. */
    public javafx.beans.binding.BooleanExpression cancellable() {
        return running().or(diagnostics.checking()).or(diagnostics.comparing()).or(jacobian().running())
                .or(derivatives.hessianRunning()).or(memory.working());
    }

    /**
     * How far the work going on is, for the tool bar's bar: the fraction of the first of the run, the
     * gradient check, the Hessian, the Jacobian, the trade-off curve or memory comparison, and the
     * second run of a comparison that is going on; -1 (indeterminate) where the work has no total yet.
     */
    public javafx.beans.binding.DoubleBinding workProgress() {
        var d = diagnostics;
        return javafx.beans.binding.Bindings.createDoubleBinding(() -> running.get() ? progress.get()
                        : d.checking().get() ? d.checkProgress().get()
                        : derivatives.hessianRunning().get() ? derivatives.hessianProgress().get()
                        : jacobian().running().get() ? jacobian().progress().get()
                        : memory.working().get() ? memory.progress().get()
                        : d.comparing().get() ? d.comparisons().progress().get() : 0,
                running, progress, d.checking(), d.checkProgress(), derivatives.hessianRunning(), derivatives.hessianProgress(),
                jacobian().running(), jacobian().progress(), memory.working(), memory.progress(), d.comparing(),
                d.comparisons().progress());
    }
}
