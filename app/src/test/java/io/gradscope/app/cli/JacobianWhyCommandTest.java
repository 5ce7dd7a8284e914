package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gradscope jacobian --why ROW,COL}: one line on an entry's paths (its ReLU's input read
 * from an evaluation of its own decides which kind of line), nothing evaluated; a bad entry is one
 * {@code error:} line, status 2.
 */
class JacobianWhyCommandTest {
    @TempDir
    Path tmp;

    @Test
    void whySaysThePathsOrTheCutAndABadEntryIsOneLine() throws IOException {
        Path p = tmp.resolve("net.grad");
        Files.writeString(p, "x = input(3, 4, grad=True)\nW = param(4, 5)\na = x @ W\nh = relu(a)\nloss = sum(h)\n");
        double[] a;
        try (var on = GradMode.enable()) {
            a = Program.load(p).evaluate(new RunOptions(DType.FLOAT32, 0, Map.of())).values().get("a").toDoubleArray();
        }
        for (int e = 0; e < a.length; e++) {
            // h[r, k] by W[2, k]: row e, column 2 * 5 + k.
            Cli.Result r = Cli.run("jacobian", p.toString(), "--of", "h", "--wrt", "W", "--why", e + "," + (10 + e % 5));
            assertEquals(0, r.status(), r.err());
            String expected = a[e] > 0 ? "entry (" + e + ", " + (10 + e % 5) + "): 1 path at these values (1 path by the global rules)"
                    : "entry (" + e + ", " + (10 + e % 5) + ") is structurally nonzero (1 path by the global rules) but zero at these values";
            assertTrue(r.out().startsWith(expected), a[e] + ": " + r.out());
            assertEquals(1, r.out().strip().lines().count(), r.out());
        }
        Cli.Result zero = Cli.run("jacobian", p.toString(), "--of", "h", "--wrt", "W", "--why", "0,1");
        assertTrue(zero.out().startsWith("entry (0, 1) is zero for any input"), zero.out());
        Cli.Result bad = Cli.run("jacobian", p.toString(), "--of", "h", "--wrt", "W", "--why", "15,0");
        assertEquals(2, bad.status());
        assertEquals("error: --why 15,0: the jacobian of h by W is 15 x 20 (rows 0 to 14, columns 0 to 19)\n", bad.err());
        Cli.Result word = Cli.run("jacobian", p.toString(), "--of", "h", "--wrt", "W", "--why", "a,b");
        assertEquals(2, word.status());
        assertEquals("error: --why must be ROW,COL (two whole numbers, e.g. --why 3,17), not 'a,b'\n", word.err());
    }
}
