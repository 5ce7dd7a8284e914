package io.gradscope.engine.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed PTX assembles for the H200's sm_90 (ptxas) and is what nvcc makes of the committed
 * .cu, where those tools are on the machine; every kernel the backend launches is in it.
 */
class KernelPtxTest {
    static final Path CU = Path.of("../assets/kernels/gradscope.cu");
    static final Path PTX = Path.of("../assets/kernels/gradscope.ptx");

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    private static int exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "timed out: " + cmd);
        if (p.exitValue() != 0) {
            System.err.println(out);
        }
        return p.exitValue();
    }

    @Test
    void everyLaunchedKernelIsInThePtx() throws IOException {
        String ptx = Files.readString(PTX);
        for (String k : new String[] {"fill", "unary", "binary", "reduce", "reduce_blocks", "reduce_finish", "matmul", "onehot", "softmax", "softmax_back",
            "layernorm", "layernorm_back", "column_sums"}) {
            for (String s : new String[] {"f32", "f64"}) {
                assertTrue(ptx.contains(".entry " + k + "_" + s + "("), "missing kernel " + k + "_" + s);
            }
        }
        for (String a : new String[] {"f32", "f64", "i64"}) {
            for (String b : new String[] {"f32", "f64", "i64"}) {
                assertTrue(ptx.contains(".entry copy_" + a + "_" + b + "("), "missing copy_" + a + "_" + b);
            }
        }
        assertTrue(ptx.contains(".entry fill_i64("));
    }

    @Test
    void thePtxAssemblesForSm90(@TempDir Path tmp) throws Exception {
        assumeTrue(onPath("ptxas"), "ptxas is not on this machine");
        assertEquals(0, exec(List.of("ptxas", "-arch=sm_90", "-o", tmp.resolve("k.cubin").toString(), PTX.toString())));
    }

    @Test
    void thePtxIsBuiltFromTheCommittedSource(@TempDir Path tmp) throws Exception {
        assumeTrue(onPath("nvcc"), "nvcc is not on this machine");
        Path fresh = tmp.resolve("fresh.ptx");
        assertEquals(0, exec(List.of("nvcc", "-ptx", "-arch=compute_80", "-O3", "-o", fresh.toString(), CU.toString())));
        String committed = Files.readString(PTX);
        String made = Files.readString(fresh);
        // Another nvcc release writes other (equally good) PTX: compare only what the same release made.
        assumeTrue(compiler(committed).equals(compiler(made)),
                () -> "the committed PTX comes from " + compiler(committed) + ", this nvcc is " + compiler(made));
        assertEquals(strip(committed), strip(made), "assets/kernels/gradscope.ptx is stale: run assets/kernels/build-ptx.sh");
    }

    /** The "// Cuda compilation tools, release …" line nvcc writes at the top. */
    private static String compiler(String ptx) {
        return ptx.lines().filter(l -> l.startsWith("// Cuda compilation tools")).findFirst().orElse("unknown");
    }

    /** Drops comment lines (nvcc writes the source path and tool versions there). */
    private static String strip(String ptx) {
        StringBuilder sb = new StringBuilder();
        for (String line : ptx.split("\n")) {
            if (!line.startsWith("//")) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString();
    }
}
