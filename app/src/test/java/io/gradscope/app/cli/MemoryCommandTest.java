package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gradscope memory, and run's --remat and --no-retain. */
class MemoryCommandTest {
    static final String EXAMPLE = "../assets/examples/residual_checkpoint.grad";

    @TempDir
    Path tmp;

    @Test
    void jsonHasThePeakByCategoryTheLiveTableAndTheRecomputedOps() throws IOException {
        Cli.Result r = Cli.run("memory", EXAMPLE, "--remat", "sqrt", "--json", "--runs", "1", "--dtype", "float32", "--seed", "2");
        assertEquals(0, r.status(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        long peak = j.get("peak_bytes").asLong();
        assertTrue(peak > 0);
        assertEquals(peak, j.get("predicted_peak_bytes").asLong(), "the meta device predicts a CPU step exactly");
        for (String c : List.of("parameter", "activation", "gradient", "temporary")) {
            assertTrue(j.get("peak_by_category").has(c), c);
        }
        assertFalse(j.get("peak_by_category").has("held_for_inspection"), "the program's figures only");
        long sum = 0;
        for (JsonNode row : j.get("live_at_peak")) {
            sum += row.get("bytes").asLong();
            assertTrue(row.has("node") && row.has("line") && row.has("shape") && row.has("role"));
        }
        assertEquals(peak, sum, "the peak is what is live at it");
        assertTrue(j.get("recomputed_ops").asInt() > 0);
        assertTrue(j.get("time_ms").get("plain").asDouble() > 0);
        assertEquals("float32", j.get("dtype").asText());
    }

    @Test
    void textNamesTheLinesOfWhatIsLiveAtThePeak() {
        Cli.Result r = Cli.run("memory", EXAMPLE, "--runs", "1");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("live at the peak"), r.out());
        assertTrue(r.out().contains("predicted"), r.out());
        assertTrue(r.out().contains("recomputed 10 ops in 2 segments"), r.out());
        assertFalse(r.out().contains("0.000 GFLOP"), "a small program's recomputation in a unit that shows it: " + r.out());
    }

    @Test
    void aPlanThatRecomputesNothingShowsNoSpeedRatio() {
        // A new user read "0.73x with recomputation" for two identical steps: the ratio was the machine's noise.
        Cli.Result r = Cli.run("memory", EXAMPLE, "--remat", "none", "--runs", "2");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("recomputed 0 ops"), r.out());
        assertTrue(r.out().contains("nothing is recomputed, so with recomputation it is the same step"), r.out());
        assertFalse(r.out().matches("(?s).*\\d\\.\\d\\dx;.*"), "no ratio: " + r.out());
    }

    @Test
    void flopsAreShownInTheUnitThatShowsThem() {
        assertEquals("960 FLOP", MemoryCommand.flops(960));
        assertEquals("3.40 MFLOP", MemoryCommand.flops(3.4e6));
        assertEquals("1.25 GFLOP", MemoryCommand.flops(1.25e9));
        assertEquals("12.0 kFLOP", MemoryCommand.flops(12_000));
    }

    @Test
    void aBudgetThatCannotFitSaysSo() throws IOException {
        Cli.Result r = Cli.run("memory", EXAMPLE, "--remat", "budget=1k", "--json", "--runs", "1");
        assertEquals(0, r.status(), r.err());
        assertFalse(new ObjectMapper().readTree(r.out()).get("fits").asBoolean());
    }

    @Test
    void badPoliciesAreOneLineErrors() {
        Cli.Result r = Cli.run("memory", EXAMPLE, "--remat", "half");
        assertEquals(2, r.status());
        assertEquals("error: --remat must be none, segments, sqrt or budget=BYTES (e.g. budget=64m), not 'half'", r.err().strip());
        r = Cli.run("run", EXAMPLE, "--remat", "budget=-3");
        assertEquals(2, r.status());
        r = Cli.run("memory", EXAMPLE, "--remat", "budget=99999999999999999999");
        assertEquals(2, r.status(), "a budget past any memory is refused, not rounded down");
        assertEquals("error: --remat must be none, segments, sqrt or budget=BYTES (e.g. budget=64m), not 'budget=99999999999999999999'",
                r.err().strip());
        r = Cli.run("run", EXAMPLE, "--no-retain", "--check-finite");
        assertEquals(2, r.status());
        assertTrue(r.err().contains("--no-retain"), r.err());
    }

    @Test
    void runPrintsThePredictedPeakBesideTheMeasuredOneAndKeepsTheSameObjective() {
        Cli.Result plain = Cli.run("run", EXAMPLE);
        Cli.Result remat = Cli.run("run", EXAMPLE, "--remat", "sqrt", "--no-retain");
        assertEquals(0, remat.status(), remat.err());
        assertEquals(plain.out(), remat.out(), "the objective, to the bit");
        assertTrue(remat.err().matches("(?s)memory: --remat sqrt: peak .* measured, .* predicted; \\d+ ops recomputed\\s*"), remat.err());
    }

    @Test
    void retainTakesAllFitOrNoneAndKeepsTheObjectiveToTheBit() {
        Cli.Result plain = Cli.run("run", EXAMPLE);
        for (String kind : new String[] {"all", "fit", "none", "NONE"}) {
            Cli.Result r = Cli.run("run", EXAMPLE, "--retain", kind);
            assertEquals(0, r.status(), r.err());
            assertEquals(plain.out(), r.out(), "--retain " + kind);
        }
        for (String command : new String[] {"run", "open"}) {
            Cli.Result r = Cli.run(command, "--retain", "some", EXAMPLE);
            assertEquals(2, r.status(), command);
            assertEquals("error: --retain: expected all, fit or none, not 'some'; see gradscope " + command + " --help",
                    r.err().strip(), command);
        }
        Cli.Result r = Cli.run("run", EXAMPLE, "--retain", "fit", "--check-finite");
        assertEquals(2, r.status());
        assertEquals("error: --check-finite reads every value and gradient; it cannot be used with --retain fit", r.err().strip());
        r = Cli.run("run", EXAMPLE, "--retain", "all", "--no-retain");
        assertEquals(2, r.status());
        assertEquals("error: --no-retain and --retain all contradict each other (--no-retain is --retain none)", r.err().strip());
    }

    @Test
    void withoutRetainingOutWritesTheLeavesAndTheirGradients() throws IOException {
        Path out = tmp.resolve("out");
        Cli.Result r = Cli.run("run", EXAMPLE, "--no-retain", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(Files.exists(out.resolve("grad/W1.npy")));
        assertTrue(Files.exists(out.resolve("value/W1.npy")));
        assertTrue(Files.exists(out.resolve("objective.npy")));
        assertFalse(Files.exists(out.resolve("value/h1.npy")), "an intermediate value was released");
    }
}
