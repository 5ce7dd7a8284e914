package io.gradscope.app.cli;

import io.gradscope.engine.lang.Names;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A mistake on the command line (an unknown command or option, a value of the wrong kind) as one
 * plain line that points at the command's help, instead of picocli's own words ("Unmatched argument
 * at index 0", "is not a long").
 */
final class UsageErrors {
    private static final Pattern KEY_VALUE = Pattern.compile(
            "Value for option (?:option )?'([^']*)' \\(([^)]*)\\) should be in KEY=VALUE format but was (.*)", Pattern.DOTALL);

    private UsageErrors() {
    }

    /** The line to print (without "error: "). */
    static String message(CommandLine.ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        String help = "; see " + cl.getCommandSpec().qualifiedName() + " --help";
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().get(0);
            if (first.startsWith("-") && first.length() > 1) {
                List<String> options = cl.getCommandSpec().options().stream().flatMap(o -> List.of(o.names()).stream()).toList();
                return "unknown option '" + first + "'" + Names.didYouMean(first, options) + help;
            }
            if (!cl.getSubcommands().isEmpty()) {
                return "unknown command '" + first + "'" + Names.didYouMean(first, cl.getSubcommands().keySet()) + help;
            }
            return "unexpected argument '" + first + "'" + help;
        }
        ArgSpec arg = ex.getArgSpec();
        if (ex.getCause() instanceof CommandLine.TypeConversionException && arg != null) {
            String name = arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
            String said = ex.getCause().getMessage();
            String kind = kind(arg.type(), said);
            // A converter of our own already says what it expected ("expected all, fit or none, not 'some'"): keep its words.
            return name + ": " + (kind == null ? said : "'" + ex.getValue() + "' is not " + kind) + help;
        }
        String m = ex.getMessage() == null ? "" : ex.getMessage();
        // picocli's words for a map option's value ("Value for option option '--dim' (NAME=SIZE) should be in KEY=VALUE format but was x").
        Matcher kv = KEY_VALUE.matcher(m);
        if (kv.matches()) {
            return kv.group(1) + ": '" + kv.group(3) + "' is not " + kv.group(2) + help;
        }
        return (m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1)) + help;
    }

    /**
     * What a value of {@code type} is, in words ("a whole number"); else what picocli said after "is not";
     * null when the converter's own message says it otherwise.
     */
    private static String kind(Class<?> type, String said) {
        if (type == long.class || type == int.class || type == short.class || type == Long.class || type == Integer.class
                || type == Short.class) {
            return "a whole number";
        }
        if (type == double.class || type == float.class || type == Double.class || type == Float.class) {
            return "a number";
        }
        int at = said == null ? -1 : said.lastIndexOf(" is not ");
        return at < 0 ? (said == null || said.isBlank() ? "valid here" : null) : said.substring(at + " is not ".length()).toLowerCase(Locale.ROOT);
    }
}
