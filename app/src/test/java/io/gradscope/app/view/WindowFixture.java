package io.gradscope.app.view;

import io.gradscope.app.viewmodel.RecentFiles;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.app.viewmodel.SweepViewModel;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import javafx.scene.Scene;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationTest;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The main window on a headless stage (TestFX + Monocle), shared by the window tests: a fresh
 * {@link MainWindow} for each test, its Open Recent list in memory (never the user's preferences),
 * quitting counted in {@link #exits} (never {@code Platform.exit}, which would end the toolkit for the
 * tests after it), and waits on conditions, never on time. Test methods take the robot as a parameter.
 */
@ExtendWith(WindowFixture.Robot.class)
abstract class WindowFixture extends ApplicationTest {
    /** Long enough for a run on a loaded 2-core machine; a wait that is met returns at once. */
    static final long TIMEOUT_S = 90;

    MainWindow window;
    Stage stage;
    /** Open Recent's stored list. */
    final StringBuilder recent = new StringBuilder();
    /** How many times the window quit (its exit action ran). */
    int exits;

    @Override
    public void start(Stage stage) {
        this.stage = stage;
        window = new MainWindow(new RecentFiles(recent::toString, s -> recent.replace(0, recent.length(), s)));
        window.setExit(() -> exits++);
        Scene scene = new Scene(window, 1200, 780);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
    }

    SessionViewModel vm() {
        return window.viewModel();
    }

    SweepViewModel sweep() {
        return window.viewModel().sweep();
    }

    /**
     * Opens a program or model file and waits until what it started has ended: a new recording, a
     * run's error, or a file that does not open (an ONNX model's import comes first, off the FX thread).
     */
    void openAndWait(FxRobot robot, Path file) {
        Object before = sweep().recorded().get();
        Object errorBefore = vm().error().get();
        robot.interact(() -> vm().open(file));
        waitUntil("the run of " + file + " to end", () -> !vm().running().get() && !vm().status().get().startsWith("Importing")
                && (sweep().recorded().get() != before || vm().error().get() != errorBefore
                        || vm().status().get().startsWith("Cannot open")));
    }

    /** Shows a program that is not from a file and waits for its run to end ({@link #openAndWait}). */
    void openText(FxRobot robot, String name, String text) {
        Object before = sweep().recorded().get();
        Object errorBefore = vm().error().get();
        robot.interact(() -> vm().openText(name, text));
        waitUntil("the run of " + name + " to end", () -> !vm().running().get()
                && (sweep().recorded().get() != before || vm().error().get() != errorBefore));
    }

    static void waitUntil(BooleanSupplier ok) {
        waitUntil("a condition", ok);
    }

    /**
     * Waits until {@code ok} holds, read on the FX thread (where the view-models change), then until
     * the FX queue is empty; fails after {@link #TIMEOUT_S} saying what it waited for.
     */
    static void waitUntil(String what, BooleanSupplier ok) {
        try {
            WaitForAsyncUtils.waitFor(TIMEOUT_S, TimeUnit.SECONDS, () -> onFx(ok));
        } catch (TimeoutException e) {
            throw new AssertionError("waited " + TIMEOUT_S + " s for " + what);
        }
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** What {@code read} gives, read on the FX thread (where the view-models change). */
    static <T> T readFx(java.util.function.Supplier<T> read) {
        try {
            return WaitForAsyncUtils.asyncFx(read::get).get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("reading on the FX thread", e);
        }
    }

    /** {@code ok} evaluated on the FX thread; false while it throws (a value not there yet). */
    private static boolean onFx(BooleanSupplier ok) throws InterruptedException {
        try {
            return WaitForAsyncUtils.asyncFx(() -> {
                try {
                    return ok.getAsBoolean();
                } catch (RuntimeException e) {
                    return false;
                }
            }).get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** Makes the window {@code width} × {@code height} (1024 × 700: its least) and waits until it is laid out so. */
    void resizeWindow(FxRobot robot, double width, double height) {
        robot.interact(() -> {
            stage.setWidth(width);
            stage.setHeight(height);
        });
        waitUntil("the window at " + width + " wide", () -> Math.abs(window.getWidth() - width) < 30);
        settleLayout(robot);
    }

    /** Fits the graph and steps once, into a folded section, and waits until the step has opened it and it is drawn. */
    void stepIntoSectionAtFit(FxRobot robot) {
        GraphPanel panel = window.graphPanel();
        robot.interact(() -> {
            panel.fit();
            sweep().stepForward();
        });
        waitUntil("the step's section opened", () -> sweep().keyOf(sweep().currentVertex()).equals("v" + sweep().currentVertex())
                && panel.currentLayout() == sweep().layout().get());
    }

    /**
     * Starts the sweep playing and takes one of its steps at once (at 0.1 steps/s the play's own comes after
     * the test), skipping the test when that step came later than the editor's typing pause after {@code since}.
     */
    void stepPlayingWithinTypingPause(FxRobot robot, long since) {
        long[] steppedAt = new long[1];
        robot.interact(() -> {
            sweep().setSpeed(0.1);
            sweep().play();
            sweep().stepForward();
            steppedAt[0] = System.nanoTime();
        });
        org.junit.jupiter.api.Assumptions.assumeTrue(steppedAt[0] - since < ProgramEditor.TYPING_NANOS,
                "the machine took longer than the typing pause between the key and the step");
    }

    /** Lays the scene out now (CSS, then layout), so bounds read next are the settled ones, not a pulse's in between. */
    void settleLayout(FxRobot robot) {
        robot.interact(() -> {
            stage.getScene().getRoot().applyCss();
            stage.getScene().getRoot().layout();
        });
    }

    /**
     * Gives the stage back the width a test narrowed: hidden first, so that the next test shows it
     * anew at that width. Widened while shown, Monocle's software pipeline could reuse a pixel buffer
     * of the narrower window for the wider one (JavaFX's QueuedPixelSource: "Too small int buffer size
     * 1200x780 [936000] > 858000", a stack trace from the render thread in the test log). Call it last:
     * the window is not shown after it.
     */
    void restoreWidth(FxRobot robot, double width) {
        restoreSize(robot, width, stage.getHeight());
    }

    /** As {@link #restoreWidth}, for a test that narrowed the window and made it shorter too. */
    void restoreSize(FxRobot robot, double width, double height) {
        robot.interact(() -> {
            stage.hide();
            stage.setWidth(width);
            stage.setHeight(height);
        });
    }

    /** Clicks the item of an open menu whose text is {@code text}, once the menu shows it laid out. */
    static void chooseInMenu(FxRobot robot, String text) {
        javafx.scene.Node[] item = new javafx.scene.Node[1];
        waitUntil("a menu item '" + text + "'", () -> {
            item[0] = robot.lookup(".context-menu .label")
                    .match((javafx.scene.Node n) -> n instanceof javafx.scene.control.Labeled l && text.equals(l.getText()))
                    .tryQuery().orElse(null);
            return item[0] != null && item[0].isVisible() && item[0].getScene() != null && item[0].getScene().getWindow().isShowing()
                    && item[0].getLayoutBounds().getWidth() > 0;
        });
        robot.clickOn(item[0]);
    }

    /** Ctrl+{@code key}, then the FX queue drained. */
    static void ctrl(FxRobot robot, KeyCode key) {
        robot.press(KeyCode.CONTROL).press(key).release(key).release(KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
    }

    /** Gives test methods their {@link FxRobot} parameter. */
    static final class Robot implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
            return p.getParameter().getType() == FxRobot.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext c) {
            return c.getRequiredTestInstance();
        }
    }
}
