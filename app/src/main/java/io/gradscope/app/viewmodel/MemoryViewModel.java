package io.gradscope.app.viewmodel;

import io.gradscope.engine.memory.RematPolicy;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * The memory panel's state: the recorded run's {@link MemoryTrack}, the trace event the sweep's
 * cursor is at, the row of the live-at-the-peak table chosen and the program line to show for it.
 * Commands: seek (move the sweep to an event), choose a row (selects its node), choose a policy
 * (reruns). Follows the sweep; depends only on javafx.base.
 */
public final class MemoryViewModel {
    private final SweepViewModel sweep;
    private final Consumer<RematPolicy> rerun;
    private final ReadOnlyObjectWrapper<MemoryTrack> track = new ReadOnlyObjectWrapper<>(this, "track");
    private final ReadOnlyIntegerWrapper cursorEvent = new ReadOnlyIntegerWrapper(this, "cursorEvent", -1);
    private final ReadOnlyIntegerWrapper chosenRow = new ReadOnlyIntegerWrapper(this, "chosenRow", -1);
    private final ReadOnlyIntegerWrapper lineToShow = new ReadOnlyIntegerWrapper(this, "lineToShow", 0);

    /** Follows {@code sweep}; {@code rerun} runs the program again under a policy. */
    public MemoryViewModel(SweepViewModel sweep, Consumer<RematPolicy> rerun) {
        this.sweep = sweep;
        this.rerun = rerun;
        sweep.recorded().addListener((o, a, s) -> {
            track.set(s == null ? null : new MemoryTrack(s.run(), s.graph()));
            chosenRow.set(-1);
            follow();
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
}
