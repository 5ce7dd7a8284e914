package io.gradscope.app.view;

import javafx.animation.AnimationTimer;
import javafx.application.Platform;

/** Runs work once the next frame has been drawn: what can wait for the window to show a run first. */
final class NextFrame {
    private NextFrame() {
    }

    /**
     * Runs {@code r} on the UI thread at the start of the second pulse from now: the first draws the
     * frame that was pending when it was asked (a shown run), so {@code r} comes after that frame.
     */
    static void after(Runnable r) {
        if (!Platform.isFxApplicationThread()) {
            Platform.runLater(() -> after(r));
            return;
        }
        new AnimationTimer() {
            private int pulses;

            @Override
            public void handle(long now) {
                if (++pulses == 2) {
                    stop();
                    r.run();
                }
            }
        }.start();
    }
}
