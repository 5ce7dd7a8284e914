package io.gradscope.app.launch;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.InputFiles;
import io.gradscope.engine.OutputFile;
import java.nio.file.Path;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.application.Application;

/** Starts the desktop app (from the command line's default command or {@code open}). */
public final class AppLauncher {
    /**
     * JavaFX's start-up notice about the class path is noise. Held here: the logging framework keeps
     * loggers only weakly, so a level set on an unreferenced logger can be lost before JavaFX logs.
     */
    private static final Logger PLATFORM_LOG = Logger.getLogger("com.sun.javafx.application.PlatformImpl");
    /** JavaFX's own logger (System.getLogger("javafx")), which says the same. */
    private static final Logger JAVAFX_LOG = Logger.getLogger("javafx");

    private AppLauncher() {
    }

    /** Starts the app and returns when its window closes; without a display it refuses in one line. */
    public static int launch(Path file, Path screenshot) {
        return launch(file, screenshot, System.getenv(), () -> Application.launch(GradscopeApp.class));
    }

    /** Starts the app on a model imported beforehand (its window shows the model's name). */
    public static int launchModel(io.gradscope.app.service.ModelImport.Imported model, Path screenshot) {
        checkScreenshot(screenshot, model.model());
        GradscopeApp.initialModel = model;
        return launch(model.program(), screenshot);
    }

    /** As {@link #launch(Path, Path)}, with the environment and the start of JavaFX given (for tests). */
    static int launch(Path file, Path screenshot, Map<String, String> env, Runnable start) {
        // The file first: a missing file, or one that is not text, is said as such, display or not.
        if (file != null) {
            String problem = InputFiles.problem(file);
            if (problem == null) {
                problem = io.gradscope.engine.run.Program.sizeProblem(file);
            }
            if (problem == null) {
                problem = InputFiles.textProblem(file);
            }
            if (problem != null) {
                throw new GradscopeException("cannot read " + file + ": " + problem);
            }
        }
        checkScreenshot(screenshot, file);
        GradscopeApp.initialFile = file;
        GradscopeApp.screenshot = screenshot;
        startFx(env, start);
        return GradscopeApp.exitStatus;
    }

    /**
     * Runs {@code start} (an {@code Application.launch}) on the display {@code env} names, until its
     * window closes; a display that is missing or cannot be opened, or no GTK, is one line (the app,
     * bench-ui).
     */
    public static void startFx(Map<String, String> env, Runnable start) {
        String display = env.get("DISPLAY");
        boolean wayland = env.get("WAYLAND_DISPLAY") != null && !env.get("WAYLAND_DISPLAY").isEmpty();
        if ((display == null || display.isEmpty()) && !wayland) {
            throw noDisplay("no display to open the app on");
        }
        quietJavaFx();
        StartTimes.mark("launch");
        try {
            start.run();
        } catch (RuntimeException | LinkageError e) {
            String why = reasons(e);
            if (why.contains("DISPLAY")) {
                throw noDisplay("the display " + (display == null || display.isEmpty() ? "" : "'" + display + "' ")
                        + "cannot be opened");
            }
            if (why.toLowerCase(java.util.Locale.ROOT).contains("gtk")) {
                throw new GradscopeException("cannot start the app's window: " + e.getMessage()
                        + "; it needs GTK 3 (apt-get install libgtk-3-0)");
            }
            throw e;
        }
    }

    /** PNG files begin with these bytes: an existing one is replaced, any other file refused. */
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    /** A screenshot's file, checked before the window starts: not the file opened, not a folder, pipe or other file. */
    private static void checkScreenshot(Path screenshot, Path input) {
        if (screenshot != null) {
            OutputFile.check("--screenshot", screenshot, "PNG", PNG, input);
        }
    }

    /** Silences JavaFX's start-up notice about the class path (on purpose: the app runs from the class path). */
    public static void quietJavaFx() {
        PLATFORM_LOG.setLevel(Level.SEVERE);
        JAVAFX_LOG.setLevel(Level.SEVERE);
    }

    private static GradscopeException noDisplay(String what) {
        return new GradscopeException(what + "; run it under one (e.g. xvfb-run -a ./gradscope) "
                + "or use the command line: ./gradscope run PROGRAM.grad (see ./gradscope --help)");
    }

    /** The messages along a failure's chain of causes. */
    private static String reasons(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null && sb.length() < 10_000; t = t.getCause()) {
            sb.append(t).append('\n');
        }
        return sb.toString();
    }
}
