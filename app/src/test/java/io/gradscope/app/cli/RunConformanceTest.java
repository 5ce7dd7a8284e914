package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gradscope.engine.run.Npy;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every shared conformance case through {@code gradscope run}, in float64 and in float32. */
class RunConformanceTest {
    static final Path CASES = Path.of("../engine/src/test/resources/conformance");

    static Stream<Arguments> cases() throws IOException {
        List<Arguments> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(CASES)) {
            for (Path d : dirs.filter(Files::isDirectory).sorted().toList()) {
                for (String device : new String[] {"cpu", "cuda"}) {
                    out.add(Arguments.of(d.getFileName().toString(), "float64", 1e-6, 1e-8, device));
                    out.add(Arguments.of(d.getFileName().toString(), "float32", 2e-3, 2e-4, device));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {4}")
    @MethodSource("cases")
    void matchesPyTorch(String name, String dtype, double rtol, double atol, String device, @TempDir Path tmp) throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(device.equals("cpu") || io.gradscope.engine.tensor.Backends.cudaAvailable(),
                () -> "CUDA unavailable: " + io.gradscope.engine.tensor.Backends.cudaProblem());
        Path dir = CASES.resolve(name);
        List<String> args = new ArrayList<>(List.of("run", dir.resolve("program.grad").toString(), "--dtype", dtype,
                "--device", device, "--out", tmp.toString()));
        try (Stream<Path> ins = Files.list(dir.resolve("in"))) {
            for (Path f : ins.sorted().toList()) {
                args.add("--input");
                args.add(f.getFileName().toString().replace(".npy", "") + "=" + f);
            }
        }
        Cli.Result r = Cli.run(args.toArray(String[]::new));
        assertEquals(0, r.status(), r.err());
        Tensor expectedObjective = Npy.readAnyOrder(dir.resolve("ref/objective.npy"));
        assertEquals(expectedObjective.item(), Double.parseDouble(r.out().strip()), atol + rtol * Math.abs(expectedObjective.item()));
        int compared = 0;
        for (String sub : List.of("objective.npy", "grad", "value")) {
            Path ref = dir.resolve("ref").resolve(sub);
            List<Path> files = Files.isDirectory(ref) ? Files.list(ref).sorted().toList() : List.of(ref);
            for (Path f : files) {
                Path mine = tmp.resolve(dir.resolve("ref").relativize(f).toString());
                assertTrue(Files.exists(mine), "missing output " + mine);
                Tensor e = Npy.readAnyOrder(f);
                Tensor a = Npy.read(mine);
                assertArrayEquals(e.shape(), a.shape(), name + " " + sub + " " + f.getFileName());
                double[] ev = e.toDoubleArray();
                double[] av = a.toDoubleArray();
                for (int i = 0; i < ev.length; i++) {
                    if (Math.abs(ev[i] - av[i]) > atol + rtol * Math.abs(ev[i])) {
                        fail(name + " " + dtype + " " + f + " element " + i + ": expected " + ev[i] + ", got " + av[i]);
                    }
                }
                compared++;
            }
        }
        assertTrue(compared >= 4, "compared only " + compared + " files");
    }
}
