package io.gradscope.app.cli;

import io.gradscope.engine.alloc.Retention;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --retain all|fit|none}: which values and gradients a run keeps for inspection. */
public final class RetainOption {
    @Option(names = "--retain", paramLabel = "all|fit|none", converter = KindConverter.class,
            description = "Which values and gradients to keep for inspection: all; fit (as many as fit in half the heap less the "
                    + "step's predicted peak, a quarter of the heap at most; the largest are released first); none (only the "
                    + "leaves, their gradients and the objective). What is not kept is recomputed when the inspector shows "
                    + "it. The app's default is fit; run's is all.")
    Retention.Kind kind;

    /** The kind given, or {@code otherwise}. */
    public Retention.Kind or(Retention.Kind otherwise) {
        return kind == null ? otherwise : kind;
    }

    /** Case-insensitive all, fit or none, with a plain message for anything else. */
    public static final class KindConverter implements ITypeConverter<Retention.Kind> {
        @Override
        public Retention.Kind convert(String value) {
            for (Retention.Kind k : Retention.Kind.values()) {
                if (k.name().equalsIgnoreCase(value.strip())) {
                    return k;
                }
            }
            throw new TypeConversionException("expected all, fit or none, not '" + value + "'");
        }
    }

    /** For the app: the runs of this process start with {@code kind} ({@code RunService.defaultRetention}). */
    public void applyToApp() {
        if (kind != null) {
            System.setProperty("gradscope.retain", kind.name().toLowerCase(Locale.ROOT));
        }
    }
}
