package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run --check-finite, gradcheck and diff from the command line. */
class DiagnoseCommandsTest {
    private static final String MLP = "../assets/examples/mlp.grad";

    @Test
    void checkFiniteNamesTheProducerAndExitsThree(@TempDir Path tmp) throws IOException {
        Path p = tmp.resolve("nan.grad");
        Files.writeString(p, "a = param(4, init=\"ones\")\nb = a - 3\nc = log(b)\nd = c * 2 + a\nL = sum(d)\n");
        Cli.Result checked = Cli.run("run", p.toString(), "--check-finite");
        assertEquals(3, checked.status(), checked.err());
        assertEquals(p + ":3:5: warning: the first NaN or infinity was born in the value of 'c': log gave 4 NaN from finite "
                + "inputs; b: min −2, max −2, 4 negative; the objective is NaN", checked.err().strip());
        Cli.Result plain = Cli.run("run", p.toString());
        assertEquals(0, plain.status());
        assertEquals(p + ": warning: the objective is NaN; run with --check-finite to find where it was born", plain.err().strip());
    }

    @Test
    void checkFiniteFindsABackwardOnlyProducer(@TempDir Path tmp) throws IOException {
        Path p = tmp.resolve("sqrt.grad");
        Files.writeString(p, "a = param(4, init=\"ones\")\nz = a - 1\ns = sqrt(z)\nt = s * a\nL = sum(t)\n");
        Cli.Result r = Cli.run("run", p.toString(), "--check-finite");
        assertEquals(3, r.status(), r.err());
        assertTrue(r.err().startsWith(p + ":3:5: warning: the first NaN or infinity was born in the gradient that 's' sends back"),
                r.err());
        assertEquals(0, Cli.run("run", MLP, "--check-finite").status(), "a healthy program");
    }

    @Test
    void checkFiniteSaysWhatTheBadValueReached(@TempDir Path tmp) throws IOException {
        // The objective stays finite; only the gradient of s is NaN (−Inf · 0 in the backward pass).
        Path p = tmp.resolve("grad.grad");
        Files.writeString(p, "s = param(2, 3)\nx = input(2, 3)\nt = -1 / (0 * (x * x))\nu = t * (s * s)\nL = sum(s + exp(u))\n");
        Cli.Result r = Cli.run("run", p.toString(), "--check-finite");
        assertEquals(3, r.status(), r.err());
        assertTrue(r.err().strip().endsWith("; the gradient of 's' holds 6 NaN"), r.err());
    }

    @Test
    void checkFiniteNotesAnAbsorbedInfinityAndExitsZero(@TempDir Path tmp) throws IOException {
        Path p = tmp.resolve("mask.grad");
        Files.writeString(p, "s = param(2, 3)\nx = input(2, 3)\nneg = -1 / (0 * (x * x))\nL = sum(s + exp(neg))\n");
        Cli.Result r = Cli.run("run", p.toString(), "--check-finite");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().strip().startsWith(p + ":3:10: note: an infinity born in the value of 'neg' is absorbed"), r.err());
        assertEquals("", Cli.run("run", p.toString()).err().strip(), "the objective and the gradients are finite");
    }

    @Test
    void gradcheckPassesEveryNodeOfTheMlp() {
        Cli.Result r = Cli.run("gradcheck", MLP);
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().strip().endsWith("6 passed, 0 failed"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("loss") && l.contains("cross_entropy") && l.endsWith("ok")), r.out());
        Cli.Result one = Cli.run("gradcheck", MLP, "--node", "h");
        assertTrue(one.out().strip().endsWith("1 passed, 0 failed"), one.out());
        Cli.Result bad = Cli.run("gradcheck", MLP, "--node", "hh");
        assertEquals(2, bad.status());
        assertEquals("error: --node hh: no node with a gradient is named 'hh' (did you mean 'h'?)", bad.err().strip());
    }

    @Test
    void diffRanksTheValuesOfTwoRuns() {
        Cli.Result r = Cli.run("diff", MLP, "--top", "5");
        assertEquals(0, r.status(), r.err());
        assertEquals(7, r.out().strip().lines().count(), r.out());
        assertTrue(r.out().startsWith("a: dtype=float32, against b (the reference): dtype=float64;"), r.out());
        Cli.Result same = Cli.run("diff", MLP, "--a", "dtype=float64");
        assertTrue(same.out().lines().skip(2).allMatch(l -> l.contains("0.000e+00")), same.out());
        Cli.Result bad = Cli.run("diff", MLP, "--a", "dtype=float16");
        assertEquals(2, bad.status());
        assertEquals("error: --a: dtype must be float32 or float64, not 'float16'", bad.err().strip());
        assertEquals(2, Cli.run("diff", MLP, "--b", "colour=red").status());
    }

    @Test
    void diffOfPlainAgainstRecomputedIsZeroEverywhere() {
        // Recomputation gives gradients identical to the bit: every row of the ranking is 0 in both columns.
        String program = "../assets/examples/residual_checkpoint.grad";
        Cli.Result r = Cli.run("diff", program, "--a", "remat=sqrt", "--b", "remat=none", "--top", "1000");
        assertEquals(0, r.status(), r.err());
        List<String> rows = r.out().lines().skip(2).toList();
        assertTrue(rows.size() > 10, r.out());
        assertTrue(rows.stream().allMatch(l -> l.matches(".*0\\.000e\\+00\\s+(0\\.000e\\+00|-)\\s*")), r.out());
        Cli.Result bad = Cli.run("diff", program, "--a", "remat=sometimes");
        assertEquals(2, bad.status());
        assertEquals(1, bad.err().strip().lines().count(), bad.err());
    }
}
