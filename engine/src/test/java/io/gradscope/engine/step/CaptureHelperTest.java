package io.gradscope.engine.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Runs the capture helper's own tests (python/tests/test_gradscope_torch.py: the model left as found,
 * PyTorch's step in the folder against an independent float64 run, cross-entropy as plain ops against
 * F.cross_entropy, the refusals). Skipped, with a message, where no python3 with torch is found.
 */
class CaptureHelperTest {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    /** A python3 that imports torch, or null. */
    static String pythonWithTorch() {
        for (String exe : new String[] {"/usr/bin/python3", "python3"}) {
            try {
                Process p = new ProcessBuilder(exe, "-c", "import torch, numpy").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return exe;
                }
            } catch (IOException | InterruptedException e) {
                // try the next one
            }
        }
        return null;
    }

    @Test
    void theHelpersOwnTestsPass() throws Exception {
        String python = pythonWithTorch();
        Assumptions.assumeTrue(python != null, "skipped: no python3 with torch and numpy here (apt-get install python3-torch)");
        Path script = ROOT.resolve("python/tests/test_gradscope_torch.py");
        Process p = new ProcessBuilder(python, "-W", "ignore", script.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the helper's tests did not finish in 300 s");
        assertEquals(0, p.exitValue(), out);
    }
}
