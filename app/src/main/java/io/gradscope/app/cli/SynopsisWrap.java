package io.gradscope.app.cli;

import picocli.CommandLine;

/**
 * Each command's usage line wrapped between words only: picocli's own wrapping also breaks after a
 * dot, and a new user read "[--input=NAME=FILE.", "npy]..." and "PROGRAM.", "grad". The synopsis is
 * still picocli's (written on one line), only its wrapping is ours: continuation lines start under
 * the first option, as picocli's do.
 */
final class SynopsisWrap {
    private SynopsisWrap() {
    }

    /** Installs the wrapping on {@code cl} and every subcommand under it. */
    static void install(CommandLine cl) {
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_SYNOPSIS, SynopsisWrap::synopsis);
        for (CommandLine sub : cl.getSubcommands().values()) {
            install(sub);
        }
    }

    static String synopsis(CommandLine.Help help) {
        CommandLine.Model.UsageMessageSpec usage = help.commandSpec().usageMessage();
        int width = usage.width();
        String line;
        try {
            usage.width(4000);
            line = help.synopsis(help.synopsisHeadingLength()).stripTrailing();
        } finally {
            usage.width(width);
        }
        String name = help.commandSpec().qualifiedName();
        int indent = help.synopsisHeadingLength() + (line.startsWith(name + " ") ? name.length() + 1 : 0);
        return wrap(line, width, help.synopsisHeadingLength(), indent) + System.lineSeparator();
    }

    /** {@code text} (its first line starting at column {@code start}) in lines of at most {@code width}, broken at spaces. */
    static String wrap(String text, int width, int start, int indent) {
        StringBuilder out = new StringBuilder();
        int column = start;
        boolean lineStart = true;
        for (String word : text.split(" +")) {
            if (!lineStart && column + 1 + word.length() > width) {
                out.append(System.lineSeparator()).append(" ".repeat(indent));
                column = indent;
                lineStart = true;
            }
            if (!lineStart) {
                out.append(' ');
                column++;
            }
            out.append(word);
            column += word.length();
            lineStart = false;
        }
        return out.toString();
    }
}
