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
}
