package io.gradscope.engine.step;

import io.gradscope.engine.GradscopeException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Binds an imported program's input leaf to a batch file: {@code x = input(2, 3)} becomes {@code x = input(2, 3, init="file:...")}. */
final class BatchInputs {
    private BatchInputs() {
    }

    static String bind(String text, String leaf, Path file) {
        String path = file.toString().replace('\\', '/');
        if (path.contains("\"")) {
            throw new GradscopeException(file + ": a batch file whose path holds a quote cannot be read by a program");
        }
        Pattern decl = Pattern.compile("(?m)^(\\s*" + Pattern.quote(leaf) + " = (?:input|labels)\\([^)\\n]*)\\)");
        Matcher m = decl.matcher(text);
        if (!m.find()) {
            throw new GradscopeException("the imported program declares no input '" + leaf + "' (an import bug)");
        }
        String args = m.group(1);
        String sep = args.endsWith("(") ? "" : ", ";
        return text.substring(0, m.start()) + args + sep + "init=\"file:" + path + "\")" + text.substring(m.end());
    }
}
