package io.gradscope.app;

import io.gradscope.engine.GradscopeException;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.application.Application;

/** Starts the desktop app (from the command line's default command or {@code open}). */
public final class AppLauncher {
    private AppLauncher() {
    }

    /** Starts the app and returns when its window closes; without a display it refuses in one line. */
    public static int launch(Path file, Path screenshot) {
        if (System.getenv("DISPLAY") == null && System.getenv("WAYLAND_DISPLAY") == null) {
            throw new GradscopeException("no display to open the app on; run it under one (e.g. xvfb-run -a ./gradscope) "
                    + "or use the command line: ./gradscope run PROGRAM.grad (see ./gradscope --help)");
        }
        if (file != null && !Files.isReadable(file)) {
            throw new GradscopeException("cannot read " + file);
        }
        // JavaFX on the class path (not the module path) is supported here; its start-up notice is noise.
        java.util.logging.Logger.getLogger("com.sun.javafx.application.PlatformImpl").setLevel(java.util.logging.Level.SEVERE);
        GradscopeApp.initialFile = file;
        GradscopeApp.screenshot = screenshot;
        Application.launch(GradscopeApp.class);
        return 0;
    }
}
