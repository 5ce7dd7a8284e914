package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The command line computes in float64 unless asked otherwise, as the app does, and says so in --help. */
class DefaultsTest {
    private static final String MLP = "../assets/examples/mlp.grad";

    @Test
    void runDefaultsToFloat64() {
        Cli.Result plain = Cli.run("run", MLP);
        Cli.Result f64 = Cli.run("run", MLP, "--dtype", "float64");
        Cli.Result f32 = Cli.run("run", MLP, "--dtype", "float32");
        assertEquals(0, plain.status(), plain.err());
        assertEquals(f64.out(), plain.out());
        assertNotEquals(f32.out(), plain.out());
    }

    @Test
    void helpStatesTheDefault() {
        Cli.Result help = Cli.run("run", "--help");
        assertTrue(help.out().contains("default: float64"), help.out());
    }
}
