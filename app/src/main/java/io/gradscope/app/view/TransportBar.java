package io.gradscope.app.view;

import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Slider;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.util.Duration;

/**
 * Start, back, play/pause, step, end; the pass being stepped; the speed; where the cursor is.
 * While the view-model plays, a timeline steps it at its speed.
 */
public final class TransportBar extends HBox {
    /** The step description's height: two lines of the bar's bold text. */
    static final double TWO_LINES = 34;
    /** The description's least width: "Backward step 3 of 9996: h8343" on two lines. */
    static final double WHERE_MIN = 170;
    /** The description's width below which the buttons drop their words: a step and a name on one line, a recompute step on two. */
    static final double WHERE_ROOM = 240;
    private final Label where = new Label();
    private final Timeline player = new Timeline();
    private final Region grow = new Region();
    /** The speed slider: it gives way first, down to its least width. */
    private Slider speed;
    /** Each stepping button's two texts: with its word ("|◀ Start") and its symbol alone ("|◀"). */
    private final java.util.Map<Button, String[]> texts = new java.util.LinkedHashMap<>();
    private boolean compact;

    public TransportBar(SweepViewModel vm) {
        super(6);
        setId("transport");
        setPadding(new Insets(6, 10, 6, 10));
        setAlignment(Pos.CENTER_LEFT);
        ToggleGroup passes = new ToggleGroup();
        ToggleButton fwd = new ToggleButton("Forward");
        ToggleButton bwd = new ToggleButton("Backward");
        fwd.setToggleGroup(passes);
        bwd.setToggleGroup(passes);
        fwd.setId("mode-forward");
        bwd.setId("mode-backward");
        bwd.setSelected(vm.mode().get() == Sweep.Mode.BACKWARD);
        fwd.setSelected(vm.mode().get() == Sweep.Mode.FORWARD);
        passes.selectedToggleProperty().addListener((o, a, b) -> {
            if (b == null) {
                a.setSelected(true);
            } else {
                vm.setMode(b == fwd ? Sweep.Mode.FORWARD : Sweep.Mode.BACKWARD);
            }
        });
        vm.mode().addListener((o, a, b) -> (b == Sweep.Mode.FORWARD ? fwd : bwd).setSelected(true));
        Button start = button("|◀ Start", "Jump to the start (Home)", vm::toStart);
        Button back = button("◀ Back", "Step back (←)", vm::stepBack);
        Button play = button("Play", "Play or pause (Space)", vm::togglePlaying);
        play.setId("play");
        Button step = button("Step ▶", "Step forward (→)", vm::stepForward);
        Button end = button("End ▶|", "Jump to the end (End)", vm::toEnd);
        start.setId("transport-start");
        back.setId("transport-back");
        step.setId("transport-step");
        end.setId("transport-end");
        // Nothing to step before a run, nor after another text is opened until a run of it succeeds.
        for (javafx.scene.control.ButtonBase b : java.util.List.of(fwd, bwd, start, back, play, step, end)) {
            b.disableProperty().bind(vm.recorded().isNull());
        }
        for (Button b : java.util.List.of(start, back, step, end)) {
            String full = b.getText();
            texts.put(b, new String[] {full, full.replaceAll("[A-Za-z]+", "").trim()});
        }
        speed = new Slider(0.5, 20, vm.speed().get());
        speed.setPrefWidth(110);
        speed.setTooltip(new Tooltip("Steps per second while playing"));
        speed.valueProperty().addListener((o, a, b) -> vm.setSpeed(b.doubleValue()));
        Label speedLabel = new Label();
        speedLabel.textProperty().bind(speed.valueProperty().asString(java.util.Locale.ROOT, "%.1f steps/s"));
        speedLabel.setId("transport-speed");
        // Play/Pause and "1.1"/"20.0 steps/s" keep one width each: the controls after them no longer shift.
        play.setStyle("-fx-pref-width: 5.2em;");
        speedLabel.setStyle("-fx-pref-width: 6.6em;");
        where.setId("transport-where");
        HBox.setHgrow(grow, Priority.ALWAYS);
        getChildren().addAll(fwd, bwd, new Label("  "), start, back, play, step, end, new Label("  speed"), speed, speedLabel,
                grow, where);
        // The controls keep their size; a long description of the step wraps (its tooltip has it all too).
        for (javafx.scene.Node n : getChildren()) {
            if (n != where && n instanceof javafx.scene.layout.Region r) {
                r.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
            }
        }
        // A long description (a recompute step's "recomputing add (segment 3)") wraps onto a second line
        // rather than being cut short where it says what is recomputed.
        // The bar keeps one height whatever the text (two lines' room, about the buttons' height), so that
        // stepping never resizes the graph above it.
        // Narrowed, the speed slider gives way first; the description keeps room for its two lines.
        speed.setMinWidth(50);
        where.setMinWidth(WHERE_MIN);
        where.setWrapText(true);
        where.setMinHeight(TWO_LINES);
        where.setPrefHeight(TWO_LINES);
        where.setMaxHeight(TWO_LINES);
        Tooltip whereTip = new Tooltip();
        whereTip.textProperty().bind(where.textProperty());
        where.setTooltip(whereTip);
        vm.inspection().addListener((o, a, b) -> where.setText(describe(vm)));
        where.setText(describe(vm));
        vm.playing().addListener((o, a, b) -> {
            play.setText(b ? "Pause" : "Play");
            playAt(vm, b);
        });
        vm.speed().addListener((o, a, b) -> playAt(vm, vm.playing().get()));
    }

    @Override
    protected void layoutChildren() {
        fit();
        super.layoutChildren();
    }

    /**
     * Narrowed (1024 wide, the window's least), the stepping buttons drop their words (their symbols and
     * tooltips stay), so that the description has room for its lines inside the window: they drop them
     * when the bar, with them, would leave the description less than {@link #WHERE_ROOM}. Decided at each
     * layout, so a wider tangent chooser counts too.
     */
    private void fit() {
        double needed = snappedLeftInset() + snappedRightInset() + getSpacing() * (getChildren().size() - 1);
        for (javafx.scene.Node n : getChildren()) {
            if (n == where || n == grow) {
                continue;
            }
            needed += n == speed ? speed.minWidth(-1) : n.prefWidth(-1);
            if (compact && n instanceof Button b && texts.containsKey(b)) {
                needed += textWidth(b, texts.get(b)[0]) - textWidth(b, texts.get(b)[1]);
            }
        }
        double room = getWidth() - needed;
        // A few pixels either way before changing back, so that measuring the words apart never makes it flicker.
        boolean narrow = compact ? room < WHERE_ROOM + 8 : room < WHERE_ROOM;
        if (narrow != compact) {
            compact = narrow;
            texts.forEach((b, t) -> b.setText(t[compact ? 1 : 0]));
        }
    }

    private static double textWidth(Button b, String s) {
        javafx.scene.text.Text t = new javafx.scene.text.Text(s);
        t.setFont(b.getFont());
        return t.getLayoutBounds().getWidth();
    }

    /** Whether the stepping buttons show their symbols alone (the bar too narrow for their words). */
    boolean compact() {
        return compact;
    }

    private void playAt(SweepViewModel vm, boolean on) {
        player.stop();
        if (on) {
            player.getKeyFrames().setAll(new KeyFrame(Duration.seconds(1 / vm.speed().get()), e -> vm.stepForward()));
            player.setCycleCount(Timeline.INDEFINITE);
            player.play();
        }
    }

    private static Button button(String text, String tip, Runnable action) {
        Button b = new Button(text);
        b.setTooltip(new Tooltip(tip));
        b.setFocusTraversable(false);
        b.setOnAction(e -> action.run());
        return b;
    }

    static String describe(SweepViewModel vm) {
        if (vm.recorded().get() == null) {
            return "No run yet";
        }
        String pass = vm.mode().get() == Sweep.Mode.FORWARD ? "Forward" : "Backward";
        int c = vm.cursor().get();
        if (c < 0) {
            return pass + ": before step 1 of " + vm.steps();
        }
        var v = vm.vertex(vm.currentVertex());
        String redo = vm.mode().get() == Sweep.Mode.BACKWARD ? vm.recorded().get().recomputing(c) : null;
        // The node first, then what is recomputed: if the line is cut at all, it is cut after what matters most.
        return pass + " step " + (c + 1) + " of " + vm.steps() + (v == null ? "" : ": " + v.title()) + (redo != null ? ", " + redo : "");
    }

    /** Adds a control after the speed slider (the tangent chooser). */
    public void addTool(javafx.scene.Node tool) {
        if (tool instanceof javafx.scene.layout.Region r) {
            r.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        }
        getChildren().add(getChildren().size() - 2, tool);
    }

    public Label where() {
        return where;
    }
}
