package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The window's commands in their plain forms skip picocli's model: each carries what picocli's own
 * parse of the same arguments gives; every other form is left to picocli.
 */
class PlainWindowCommandTest {
    /** The command object picocli fills for {@code args} (the subcommand's, when one is named). */
    private static Object parsedByPicocli(String... args) {
        CommandLine.ParseResult r = GradscopeCommand.commandLine().parseArgs(args);
        while (r.hasSubcommand()) {
            r = r.subcommand();
        }
        return r.commandSpec().userObject();
    }

    @Test
    void thePlainFormsCarryWhatPicocliWouldGiveThem() {
        Callable<Integer> none = PlainWindowCommand.of();
        GradscopeCommand top = (GradscopeCommand) parsedByPicocli();
        assertEquals(top.screenshot, assertInstanceOf(GradscopeCommand.class, none).screenshot);

        OpenCommand open = assertInstanceOf(OpenCommand.class, PlainWindowCommand.of("open", "dir/a b.grad"));
        OpenCommand parsed = (OpenCommand) parsedByPicocli("open", "dir/a b.grad");
        assertEquals(parsed.file, open.file);
        assertEquals(parsed.loss, open.loss);
        assertEquals(parsed.dims, open.dims);
        assertEquals(parsed.screenshot, open.screenshot);
        assertEquals(parsed.retain.kind, open.retain.kind);
        assertEquals(parsed.dtype.dtype, open.dtype.dtype);
    }

    @Test
    void everyOtherFormIsPicoclis() {
        for (String[] args : new String[][] {{"open"}, {"open", "--help"}, {"open", "-h"}, {"open", "a.grad", "--retain", "all"},
                {"open", "@args.txt"}, {"open", ""}, {"run", "a.grad"}, {"--screenshot", "s.png"}, {"--version"},
                {"bench-ui", "--open", "a.grad"}}) {
            assertNull(PlainWindowCommand.of(args), String.join(" ", args));
        }
        assertNotNull(PlainWindowCommand.of("open", "a.grad"));
        // (bench-ui --open FILE is the bench module's plain form, not this module's: BenchUiCommandTest)
    }
}
