package io.gradscope.bench.ui;

import static io.gradscope.app.cli.Cli.assertOneLineError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.Cli;
import io.gradscope.app.cli.GradscopeCommand;
import io.gradscope.bench.BenchCommands;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** gradscope bench-ui on the command line: its plain form, its refusals (one line, status 2), --write. */
class BenchUiCommandTest {
    @TempDir
    Path tmp;

    /** The command object picocli fills for {@code args} (the subcommand's). */
    private static Object parsedByPicocli(String... args) {
        CommandLine.ParseResult r = GradscopeCommand.commandLine().parseArgs(args);
        while (r.hasSubcommand()) {
            r = r.subcommand();
        }
        return r.commandSpec().userObject();
    }

    /** bench-ui --open FILE skips picocli's model (the window's start waits for it): it carries what picocli's parse gives. */
    @Test
    void thePlainFormCarriesWhatPicocliWouldGiveIt() {
        BenchUiCommand bench = assertInstanceOf(BenchUiCommand.class, new BenchCommands().plain("bench-ui", "--open", "m.onnx"));
        BenchUiCommand parsed = (BenchUiCommand) parsedByPicocli("bench-ui", "--open", "m.onnx");
        assertEquals(parsed.open, bench.open);
        assertEquals(Path.of("m.onnx"), bench.open);
        assertEquals(parsed.nodes, bench.nodes);
        assertEquals(parsed.runs, bench.runs);
        assertEquals(parsed.shape, bench.shape);
        assertEquals(parsed.seed, bench.seed);
        assertEquals(parsed.write, bench.write);
        assertEquals(parsed.retain.or(null), bench.retain.or(null));
        assertEquals(parsed.dtype.given(), bench.dtype.given());
    }

    @Test
    void everyOtherFormIsPicoclis() {
        for (String[] args : new String[][] {{"bench-ui"}, {"bench-ui", "--open", "a.grad", "--runs", "3"}, {"bench-ui", "--shape", "chain"},
                {"bench-ui", "--open", "-x"}, {"bench-ui", "--open", ""}, {"bench-ui", "--open", "@args.txt"}, {"open", "a.grad"},
                {"bench", "--open", "a.grad"}}) {
            assertNull(new BenchCommands().plain(args), String.join(" ", args));
        }
    }

    @Test
    void writeSaysWhatItWroteOrWhyNot() {
        Path nowhere = tmp.resolve("no-folder/z.grad");
        assertOneLineError(Cli.run("bench-ui", "--shape", "chain", "--nodes", "10", "--write", nowhere.toString()),
                "error: cannot write " + nowhere + ": no such folder " + tmp.resolve("no-folder"));
        Path written = tmp.resolve("z.grad");
        Cli.Result wrote = Cli.run("bench-ui", "--shape", "chain", "--nodes", "10", "--write", written.toString());
        assertEquals(0, wrote.status(), wrote.err());
        assertTrue(wrote.out().startsWith("wrote " + written + " ("), "success says what it wrote: " + wrote.out());
        assertTrue(Files.isRegularFile(written));
    }

    @Test
    void aBadRetainIsOneLineNamingTheCommand() {
        Cli.Result r = Cli.run("bench-ui", "--retain", "some", "../assets/examples/mlp.grad");
        assertEquals(2, r.status());
        assertEquals("error: --retain: expected all, fit or none, not 'some'; see gradscope bench-ui --help", r.err().strip());
    }

    @Test
    void onADisplayThatCannotBeOpenedItIsOneLineAndStatusTwo() throws Exception {
        Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(90),
                () -> Cli.launch(List.of(), ":7413", "bench-ui", "--open", "../assets/examples/mlp.grad"));
        assertOneLineError(r, "error: the display ':7413' cannot be opened; run it under one (e.g. xvfb-run -a ./gradscope) or use "
                + "the command line: ./gradscope run PROGRAM.grad (see ./gradscope --help)");
    }
}
