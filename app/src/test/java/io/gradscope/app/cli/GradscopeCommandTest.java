package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GradscopeCommandTest {

    private static Cli.Result run(String... args) {
        return Cli.run(args);
    }

    @Test
    void helpListsTheCommandsAndExitsZero() {
        Cli.Result r = run("--help");
        assertEquals(0, r.status());
        assertTrue(r.out().contains("Usage: gradscope") && r.out().contains("memory"), r.out());
    }

    @Test
    void anUnknownOptionIsOneLineAndStatusTwo() {
        Cli.Result r = run("--frobnicate");
        assertEquals(2, r.status());
        assertEquals("error: unknown option '--frobnicate'; see gradscope --help", r.err().strip());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("at io.gradscope"), "no stack trace");
    }

    /** bench and bench-ui come from the bench module (MoreCommands); without it on the class path they are no commands. */
    @Test
    void withoutTheBenchModuleTheBenchIsNoCommand() {
        assertFalse(run("--help").out().contains("bench"), "the help lists no bench");
        Cli.Result r = run("bench", "--runs", "5");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: ") && r.err().contains("bench"), r.err());
        assertTrue(MoreCommands.found().isEmpty(), "no module adds commands to the app's tests");
    }
}
