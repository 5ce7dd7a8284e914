package io.gradscope.app.viewmodel;

import io.gradscope.app.service.Fraction;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * The memory panel's state: the recorded run's {@link MemoryTrack}, the trace event the sweep's
 * cursor is at, the row of the live-at-the-peak table chosen and the program line to show for it.
 * Commands: seek (move the sweep to an event), choose a row (selects its node), choose a policy
 * (reruns), show the trade-off curve (planned off the UI thread), compare with another policy (a
 * second run, off the UI thread, drawn over this one). The graph's recomputed nodes are
 * {@link #recomputed()}. Follows the sweep; depends only on javafx.base.
 */
public final class MemoryViewModel {
    private final SweepViewModel sweep;
    private final Consumer<RematPolicy> rerun;
    private final ReadOnlyObjectWrapper<MemoryTrack> track = new ReadOnlyObjectWrapper<>(this, "track");
    private final ReadOnlyIntegerWrapper cursorEvent = new ReadOnlyIntegerWrapper(this, "cursorEvent", -1);
    private final ReadOnlyIntegerWrapper chosenRow = new ReadOnlyIntegerWrapper(this, "chosenRow", -1);
    private final ReadOnlyIntegerWrapper lineToShow = new ReadOnlyIntegerWrapper(this, "lineToShow", 0);
    private final RunService service;
    private final Supplier<RunService.Request> shown;
    private final RecomputeMarks recomputed;
    private final ReadOnlyBooleanWrapper tradeOffShown = new ReadOnlyBooleanWrapper(this, "tradeOffShown");
    private final ReadOnlyBooleanWrapper reading = new ReadOnlyBooleanWrapper(this, "reading");
    private final ReadOnlyObjectWrapper<TradeOff> tradeOff = new ReadOnlyObjectWrapper<>(this, "tradeOff");
    private final ReadOnlyObjectWrapper<RematPolicy> comparedWith = new ReadOnlyObjectWrapper<>(this, "comparedWith");
    private final ReadOnlyObjectWrapper<MemoryOverlay> overlay = new ReadOnlyObjectWrapper<>(this, "overlay");
    private final ReadOnlyObjectWrapper<String> busy = new ReadOnlyObjectWrapper<>(this, "busy");
    private final ReadOnlyBooleanWrapper working = new ReadOnlyBooleanWrapper(this, "working");
    private final javafx.beans.property.ReadOnlyDoubleWrapper progress = new javafx.beans.property.ReadOnlyDoubleWrapper(this, "progress");
    /** Bumped by every new run and every request, so that a late result of an older one is dropped. */
    private volatile int planning;
    /** Whether the run on screen's curve was asked for (planned or being planned). */
    private boolean planAsked;
    private int comparing;
    /** Bumped by every new run, so that a late track of an older one is dropped. */
    private int trackRequest;

    /**
     * Follows {@code sweep}; {@code rerun} runs the program again under a policy; {@code service}
     * does the planning and the second runs off the UI thread, for the request {@code shown} gives
     * (the run on screen).
     */
    public MemoryViewModel(SweepViewModel sweep, RunService service, Supplier<RunService.Request> shown,
                           Consumer<RematPolicy> rerun) {
        this.sweep = sweep;
        this.rerun = rerun;
        this.service = service;
        this.shown = shown;
        this.recomputed = new RecomputeMarks(sweep);
        sweep.recorded().addListener((o, a, s) -> {
            reading.set(s != null);
            track.set(null);
            readTrack(s);
            chosenRow.set(-1);
            follow();
            planning++;
            comparing++;
            working.set(false);
            tradeOff.set(null);
            planAsked = false;
            overlay.set(null);
            busy.set(null);
            if (tradeOffShown.get()) {
                planTradeOff();
            }
            if (comparedWith.get() != null) {
                compare(comparedWith.get());
            }
        });
        sweep.cursor().addListener((o, a, b) -> follow());
        sweep.mode().addListener((o, a, b) -> follow());
    }

    /** The recorded run's memory, or null before the first run. */
    public ReadOnlyObjectProperty<MemoryTrack> track() {
        return track.getReadOnlyProperty();
    }

    /** The trace event the sweep's cursor is at (-1: before the first step). */
    public ReadOnlyIntegerProperty cursorEvent() {
        return cursorEvent.getReadOnlyProperty();
    }

    /** The row of the live-at-the-peak table last chosen, or -1. */
    public ReadOnlyIntegerProperty chosenRow() {
        return chosenRow.getReadOnlyProperty();
    }

    /** The program line of the last chosen row (1-based; 0 for none). */
    public ReadOnlyIntegerProperty lineToShow() {
        return lineToShow.getReadOnlyProperty();
    }

    /** The graph's nodes the run's plan recomputes (a decorator for the graph). */
    public RecomputeMarks recomputed() {
        return recomputed;
    }

    /** Whether the panel shows the trade-off curve instead of the timeline. */
    public ReadOnlyBooleanProperty tradeOffShown() {
        return tradeOffShown.getReadOnlyProperty();
    }

    /** The trade-off curve of the run on screen (null until planned). */
    public ReadOnlyObjectProperty<TradeOff> tradeOff() {
        return tradeOff.getReadOnlyProperty();
    }

    /** The policy the run on screen is compared with (null: none). */
    public ReadOnlyObjectProperty<RematPolicy> comparedWith() {
        return comparedWith.getReadOnlyProperty();
    }

    /** The compared run's memory on this run's axis (null until it ran, or when comparing with none). */
    public ReadOnlyObjectProperty<MemoryOverlay> overlay() {
        return overlay.getReadOnlyProperty();
    }

    /** What is being worked out off the UI thread ("Planning 12 budgets…"), or null. */
    public ReadOnlyObjectProperty<String> busy() {
        return busy.getReadOnlyProperty();
    }

    /** Whether the trade-off curve is being planned or a run to compare with is going on. */
    public ReadOnlyBooleanProperty working() {
        return working.getReadOnlyProperty();
    }

    /** How far that work is, from 0 to 1. */
    public javafx.beans.property.ReadOnlyDoubleProperty progress() {
        return progress.getReadOnlyProperty();
    }

    /**
     * Stops the planning of the curve (at its next plan) and the run to compare with (at its next
     * statement); what the panel showed before stays, and the curve is planned again when asked.
     */
    public void cancel() {
        if (working.get()) {
            planning++;
            comparing++;
            planAsked = tradeOff.get() != null;
            working.set(false);
            busy.set("Cancelled.");
        }
    }

    /**
     * Reads the run's memory track off the UI thread (about half a second for a 10,000-node program, the
     * largest part of showing a run): the graph is drawn first, the panel filled when the track is read.
     */
    private void readTrack(Sweep s) {
        int id = ++trackRequest;
        if (s == null) {
            return;
        }
        service.submit(() -> new MemoryTrack(s.run(), s.graph()), (t, failure) -> {
            if (id != trackRequest) {
                return; // a newer run replaced it
            }
            if (failure != null) {
                busy.set("Cannot read the memory timeline: " + RunService.errorOf(failure).what());
                reading.set(false);
                return;
            }
            track.set(t);
            reading.set(false);
            follow();
        });
    }

    /** Whether the run on screen's track is being read (it is null meanwhile). */
    public boolean reading() {
        return reading.get();
    }

    /**
     * Whether the run on screen's track is being read: true from the run's arrival until its track is
     * read (or cannot be), so the panel says so rather than "No run yet" (the track is null before the
     * first run and while read, so its own property does not change when a first run arrives).
     */
    public ReadOnlyBooleanProperty readingProperty() {
        return reading.getReadOnlyProperty();
    }

    /** Whether a run is on screen (its track may still be being read, or could not be). */
    public boolean hasRun() {
        return sweep.recorded().get() != null;
    }

    private void follow() {
        MemoryTrack t = track.get();
        cursorEvent.set(t == null ? -1 : t.eventOf(sweep.mode().get(), sweep.cursor().get()));
    }

    // ---- commands ---------------------------------------------------------------------------

    /** Moves the sweep to trace event {@code event}: the pass it falls in, the last step at or before it. */
    public void seek(int event) {
        MemoryTrack t = track.get();
        if (t == null) {
            return;
        }
        Sweep.Mode mode = t.modeAt(event);
        sweep.setMode(mode);
        sweep.jumpTo(t.stepAt(mode, event));
    }

    /** Chooses row {@code row} of the live-at-the-peak table: selects its node and shows its line. */
    public void chooseRow(int row) {
        MemoryTrack t = track.get();
        if (t == null || row < 0 || row >= t.liveAtPeak().size()) {
            chosenRow.set(-1);
            return;
        }
        MemoryTrack.Row r = t.liveAtPeak().get(row);
        chosenRow.set(row);
        if (r.vertex() >= 0) {
            sweep.select(r.vertex());
        }
        lineToShow.set(0); // a new choice of the same line still shows it
        lineToShow.set(r.line());
    }

    /** Runs the program again under {@code policy}. */
    public void choosePolicy(RematPolicy policy) {
        rerun.accept(policy);
    }

    /** Shows the trade-off curve (planning it off the UI thread the first time for a run) or the timeline. */
    public void showTradeOff(boolean show) {
        tradeOffShown.set(show);
        if (show && !planAsked) {
            planTradeOff();
        }
    }

    /** How many budgets the curve plans. */
    public static final int BUDGETS = 12;

    private void planTradeOff() {
        RunService.Request r = shown.get();
        Sweep s = sweep.recorded().get();
        if (r == null || s == null || s.run().memory() == null || s.run().memory().profile() == null) {
            return;
        }
        planAsked = true;
        int id = ++planning;
        RematPolicy current = s.run().memory().policy();
        var profile = s.run().memory().profile();
        busy.set("Planning " + BUDGETS + " budgets…");
        working.set(true);
        progress.set(0);
        Fraction told = new Fraction(service, (f, done, of) -> {
            if (id == planning) {
                progress.set(f);
                busy.set("Planning the trade-off curve: " + done + " of " + of + " plans…");
            }
        });
        service.submit(() -> TradeOff.of(s.run().program(), RunService.options(r), profile, current, BUDGETS,
                () -> id != planning, told::done), (t, failure) -> { // a newer run, a request or Cancel stops it between plans
                    if (id != planning) {
                        return;
                    }
                    working.set(false);
                    busy.set(failure == null ? null : "Cannot plan: " + RunService.errorOf(failure).what());
                    tradeOff.set(t);
                });
    }

    /**
     * Compares the run on screen with the same program under {@code policy} (null: compares with
     * nothing): the second run (a plain training step, nothing retained) is drawn over this one.
     */
    public void compareWith(RematPolicy policy) {
        comparedWith.set(policy);
        comparing++;
        working.set(false);
        overlay.set(null);
        busy.set(null);
        if (policy != null) {
            compare(policy);
        }
    }

    private void compare(RematPolicy policy) {
        RunService.Request r = shown.get();
        Sweep s = sweep.recorded().get();
        if (r == null || s == null) {
            return;
        }
        int id = ++comparing;
        busy.set("Running with --remat " + policy + " to compare…");
        working.set(true);
        progress.set(0);
        ProgramRun onto = s.run();
        Fraction told = new Fraction(service, (f, done, of) -> {
            if (id == comparing) {
                progress.set(f);
            }
        });
        service.submit(() -> {
            RunOptions options = RunService.options(r);
            ProgramRun other = onto.program().run(options, new MemoryOptions(policy, false),
                    told.run(() -> id != comparing));
            return MemoryOverlay.of(policy, other, onto);
        }, (o, failure) -> {
            if (id != comparing) {
                return;
            }
            working.set(false);
            busy.set(failure == null ? null : "Cannot compare: " + RunService.errorOf(failure).what());
            overlay.set(o);
        });
    }
}
