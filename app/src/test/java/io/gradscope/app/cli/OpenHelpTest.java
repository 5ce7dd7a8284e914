package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** open --help shows --screenshot and how to choose what it shows. */
class OpenHelpTest {
    @Test
    void openHelpShowsTheScreenshotOption() {
        Cli.Result r = Cli.run("open", "--help");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("--screenshot=PNG"), r.out());
        assertTrue(r.out().contains("gradscope.screenshot.steps"), r.out());
    }

    /** Every command's footer is wrapped between words, never inside one (".\nselect=NAME" was a line too long for the width). */
    @Test
    void everyHelpFooterIsWrappedBetweenWords() {
        picocli.CommandLine root = new picocli.CommandLine(new GradscopeCommand());
        java.util.List<picocli.CommandLine> all = new java.util.ArrayList<>(root.getSubcommands().values());
        all.add(root);
        for (picocli.CommandLine c : all) {
            String name = c.getCommandName();
            Cli.Result r = c == root ? Cli.run("--help") : Cli.run(name, "--help");
            java.util.Set<String> printed = new java.util.HashSet<>(java.util.Arrays.asList(r.out().split("\\s+")));
            for (String footer : c.getCommandSpec().usageMessage().footer()) {
                for (String word : footer.replace("%n", " ").split("\\s+")) {
                    if (!word.isEmpty()) {
                        assertTrue(printed.contains(word), name + " --help prints '" + word + "' whole:\n" + r.out());
                    }
                }
            }
        }
    }

    /**
     * Every word of every command's help (description, options, parameters, synopsis) is printed
     * whole: picocli wraps at a dot too, and a new user read "FILE.\nnpy" and "PROGRAM.\ngrad".
     */
    @Test
    void everyHelpWordIsPrintedWhole() {
        picocli.CommandLine root = new picocli.CommandLine(new GradscopeCommand());
        java.util.List<picocli.CommandLine> all = new java.util.ArrayList<>(root.getSubcommands().values());
        all.add(root);
        java.util.List<String> cut = new java.util.ArrayList<>();
        for (picocli.CommandLine c : all) {
            String name = c.getCommandName();
            Cli.Result r = c == root ? Cli.run("--help") : Cli.run(name, "--help");
            java.util.Set<String> printed = new java.util.HashSet<>(java.util.Arrays.asList(r.out().split("[\\s\\[\\]()]+")));
            java.util.List<String> texts = new java.util.ArrayList<>(java.util.Arrays.asList(c.getCommandSpec().usageMessage().description()));
            for (picocli.CommandLine.Model.OptionSpec o : c.getCommandSpec().options()) {
                texts.addAll(java.util.Arrays.asList(o.description()));
                if (o.arity().max() > 0) {
                    texts.add(o.longestName() + "=" + o.paramLabel());
                }
            }
            if (c == root) {
                // The command list: each subcommand's description's first paragraph.
                for (picocli.CommandLine sub : root.getSubcommands().values()) {
                    String[] d = sub.getCommandSpec().usageMessage().description();
                    if (d.length > 0) {
                        texts.add(d[0].split("%n")[0]);
                    }
                }
            }
            for (picocli.CommandLine.Model.PositionalParamSpec p : c.getCommandSpec().positionalParameters()) {
                texts.addAll(java.util.Arrays.asList(p.description()));
                texts.add(p.paramLabel());
            }
            // The synopsis, as picocli writes it unwrapped, against the printed one (up to the description).
            c.getCommandSpec().usageMessage().width(1000);
            String synopsis = c.getHelp().synopsis(0);
            String out = r.out();
            String[] description = c.getCommandSpec().usageMessage().description();
            int end = description.length == 0 ? -1 : out.indexOf(description[0].split("\\s+")[0] + " ");
            java.util.Set<String> printedSynopsis = new java.util.HashSet<>(java.util.Arrays.asList(
                    (end > 0 ? out.substring(0, end) : out).split("\\s+")));
            for (String word : synopsis.split("\\s+")) {
                if (!word.isEmpty() && !printedSynopsis.contains(word)) {
                    cut.add(name + " (usage): '" + word + "'");
                }
            }
            for (String text : texts) {
                for (String word : text.replace("%n", " ").split("[\\s\\[\\]()]+")) {
                    if (!word.isEmpty() && !word.contains("${") && !word.contains("%") && !printed.contains(word)) {
                        cut.add(name + ": '" + word + "'");
                    }
                }
            }
        }
        assertTrue(cut.isEmpty(), "words cut by the help's wrapping: " + cut);
    }
}
