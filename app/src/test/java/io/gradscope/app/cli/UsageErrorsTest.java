package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Command-line mistakes in plain words, pointing at the right help, exit 2 (not picocli's "Unmatched argument at index 0"). */
class UsageErrorsTest {
    private static void assertUsage(String expected, String... args) {
        Cli.Result r = Cli.run(args);
        assertEquals(expected, r.err().strip());
        assertEquals(2, r.status(), r.err());
        assertEquals("", r.out());
    }

    @Test
    void anUnknownCommandIsNamed() {
        assertUsage("error: unknown command 'frobnicate'; see gradscope --help", "frobnicate");
        assertUsage("error: unknown command 'rnu' (did you mean 'run'?); see gradscope --help", "rnu");
    }

    @Test
    void aValueOfTheWrongKindSaysWhatItShouldBe() {
        assertUsage("error: --seed: 'abc' is not a whole number; see gradscope run --help",
                "run", "../assets/examples/mlp.grad", "--seed", "abc");
    }

    @Test
    void anUnknownOptionOfACommandPointsAtThatCommandsHelp() {
        assertUsage("error: unknown option '--bogus'; see gradscope run --help", "run", "--bogus", "../assets/examples/mlp.grad");
    }
}
