package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The unrolled micro-kernels in the backend's sources are {@link MicroKernels}'s output, as the
 * function table's docs are its table's: change the generator and run this test with
 * {@code -Dgradscope.regenerate=true} to rewrite them. (That each kernel computes its product is the
 * GEMM and convolution tests' job.)
 */
class MicroKernelsTest {
    private static final Path SOURCES = Path.of("src/main/java/io/gradscope/engine/device/cpu");

    @Test
    void everyGeneratedKernelIsTheGeneratorsOutput() throws IOException {
        boolean regenerate = Boolean.getBoolean("gradscope.regenerate");
        for (MicroKernels.Spec k : MicroKernels.specs()) {
            Path f = MicroKernels.file(SOURCES, k);
            String text = MicroKernels.read(f);
            String made = MicroKernels.replaced(text, k);
            if (regenerate) {
                Files.writeString(f, made, StandardCharsets.UTF_8);
            } else {
                assertTrue(made.equals(text), k.id() + " in " + f + " differs from MicroKernels' output: edit the generator and "
                        + "run this test with -Dgradscope.regenerate=true");
            }
        }
    }

    @Test
    void theGeneratorWritesEachKernelsAccumulatorsAndStores() {
        MicroKernels.Spec k = MicroKernels.specs().get(0);
        String src = MicroKernels.source(k);
        // rows × vectors accumulators, each updated once a step and written once.
        int cells = k.rows() * k.vectors();
        assertEquals(cells, count(src, ".zero(FS)"));
        assertEquals(cells, count(src, ".fma(x, "));
        assertEquals(cells, count(src, ".intoArray("));
        assertEquals(k.rows() - 1, count(src, "co += ldc;"));
        assertTrue(src.contains("c11_1.intoArray(c, co + 1 * w);"), src);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
