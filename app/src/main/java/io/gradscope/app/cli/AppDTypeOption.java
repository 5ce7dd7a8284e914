package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import java.util.Locale;
import picocli.CommandLine.Option;

/** {@code --dtype float32|float64} for the app's commands: the float type its runs start with (the toolbar changes it). */
public final class AppDTypeOption {
    @Option(names = "--dtype", paramLabel = "float32|float64",
            description = "The float type the app's runs start with (default: float64; the toolbar's dtype changes it). "
                    + "float32 halves the memory of a large model's values and gradients.")
    String dtype;

    /** The float type as given, or null when the option was not. */
    public String given() {
        return dtype;
    }

    /** For the app: its runs start with the float type asked for ({@code SessionViewModel.initialDType}). */
    public void applyToApp() {
        if (dtype == null) {
            return;
        }
        String d = dtype.strip().toLowerCase(Locale.ROOT);
        if (!d.equals("float32") && !d.equals("float64")) {
            throw new GradscopeException("--dtype must be float32 or float64, not '" + dtype + "'");
        }
        System.setProperty("gradscope.dtype", d);
    }
}
