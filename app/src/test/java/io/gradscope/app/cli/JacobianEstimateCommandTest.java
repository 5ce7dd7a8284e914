package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.sparse.MatrixMarket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gradscope jacobian}'s estimate before the work, {@code --max-time} and {@code --pattern-only}. */
class JacobianEstimateCommandTest {
    @TempDir
    Path tmp;

    private Path convnet() throws IOException {
        Path p = tmp.resolve("convnet.grad");
        Files.writeString(p, "x = input(1, 2, 6, 6, grad=True)\nw = param(2, 2, 3, 3)\nc = conv2d(x, w, padding=1)\nr = relu(c)\n"
                + "loss = sum(r)\n");
        return p;
    }

    /** 2 output channels on 2 input channels, a 3x3 window's taps inside a 6-wide axis: 6·3 − 2 per axis. */
    private static final long NONZEROS = 2 * 2 * 16 * 16;

    @Test
    void patternOnlyWritesThePatternAndTakesNoProducts() throws IOException {
        Path out = tmp.resolve("out");
        Cli.Result r = Cli.run("jacobian", convnet().toString(), "--of", "r", "--wrt", "x", "--pattern-only", "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains("estimate: 72 x 72, " + String.format(java.util.Locale.ROOT, "%,d", NONZEROS) + " nonzeros"), r.err());
        assertEquals(NONZEROS, MatrixMarket.read(out.resolve("pattern.mtx")).pattern().nnz());
        assertFalse(Files.exists(out.resolve("jacobian.mtx")), "nothing evaluated");
        assertTrue(Files.readString(out.resolve("summary.json")).contains("--pattern-only"));
    }

    @Test
    void aboveMaxTimeItStopsBeforeAnyProductAndSaysWhatToDo() throws IOException {
        Path out = tmp.resolve("out");
        Cli.Result r = Cli.run("jacobian", convnet().toString(), "--of", "r", "--wrt", "x", "--max-time", "0", "--out", out.toString());
        assertEquals(2, r.status(), r.err());
        String[] lines = r.err().strip().split("\n");
        assertTrue(lines[0].startsWith("estimate: 72 x 72"), r.err());
        assertTrue(lines[1].startsWith("error: ") && lines[1].contains("--pattern-only"), r.err());
        assertEquals(2, lines.length, r.err());
        assertFalse(Files.exists(out.resolve("jacobian.mtx")));
        Cli.Result ok = Cli.run("jacobian", convnet().toString(), "--of", "r", "--wrt", "x");
        assertEquals(0, ok.status(), ok.err());
    }
}
