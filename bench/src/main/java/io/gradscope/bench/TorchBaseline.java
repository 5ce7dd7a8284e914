package io.gradscope.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * PyTorch running the bench's workloads beside Gradscope ({@code gradscope bench --compare-pytorch}):
 * a {@code /usr/bin/python3} child serving {@code torch_bench.py}, asked for one timed run at a time,
 * so the two are measured in turns under the same load. PyTorch is timed with
 * {@code torch.set_num_threads(1)} and {@code (2)} in each turn, and the setting with the better
 * median counts. Debian's OpenBLAS keeps its own pool of every core under either setting (measured:
 * a 1024 product with set_num_threads(1) keeps 1.8 cores busy), which is also what a PyTorch user
 * gets; the output says so.
 */
final class TorchBaseline implements AutoCloseable {
    static final String PYTHON = "/usr/bin/python3";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final BufferedReader in;
    private final PrintWriter out;
    private final JsonNode hello;
    private final Path script;
    private int[] threads = {1};

    private TorchBaseline(Process process, Path script) throws IOException {
        this.process = process;
        this.script = script;
        this.in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.out = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        this.hello = read();
    }

    /** glibc settings that keep freed memory in the process (where the caller set none). */
    static final java.util.Map<String, String> MALLOC_KEEP = java.util.Map.of(
            "MALLOC_MMAP_THRESHOLD_", "1000000000", "MALLOC_TRIM_THRESHOLD_", "1000000000", "MALLOC_TOP_PAD_", "100000000");

    /** The started baseline, or a one-line reason why there is none. */
    static Object start() {
        if (!Files.isExecutable(Path.of(PYTHON))) {
            return "no " + PYTHON;
        }
        try {
            Path script = Files.createTempFile("gradscope-torch-bench", ".py");
            try (InputStream s = TorchBaseline.class.getResourceAsStream("torch_bench.py")) {
                Files.write(script, s.readAllBytes());
            }
            ProcessBuilder pb = new ProcessBuilder(PYTHON, script.toString()).redirectError(ProcessBuilder.Redirect.DISCARD);
            // PyTorch runs OpenBLAS as the caller set it, not as the launcher set it for Gradscope's own GEMM.
            for (String name : System.getenv().getOrDefault("GRADSCOPE_SET_OPENBLAS", "").split(" ")) {
                pb.environment().remove(name);
            }
            // PyTorch at its best: glibc gives freed blocks over 128 KiB back to the system, and each step
            // faults them in again; in a virtual machine that took PyTorch's MLP step from 2.3 to 11-12 ms
            // (medians, same machine). Kept blocks instead, as PyTorch's CPU tuning guide's allocators do.
            MALLOC_KEEP.forEach(pb.environment()::putIfAbsent);
            Process p = pb.start();
            TorchBaseline t = new TorchBaseline(p, script);
            if (t.hello == null || t.hello.has("error")) {
                String why = t.hello == null ? PYTHON + " ended without answering" : t.hello.get("error").asText();
                t.close();
                return why;
            }
            return t;
        } catch (IOException e) {
            return "could not start " + PYTHON + ": " + e.getMessage();
        }
    }

    /** What runs: {@code torch 1.13.0, OpenBLAS SkylakeX (...)}. */
    String describe() {
        String core = hello.path("openblas_core").asText("unknown");
        String detected = hello.path("openblas_detected").isTextual()
                ? " (OpenBLAS detected " + hello.get("openblas_detected").asText() + " on this CPU and would run its generic "
                  + "kernels; its " + core + " kernels are named explicitly)"
                : "";
        String blas = hello.path("openblas_threads").isInt()
                ? " (OpenBLAS's own " + hello.get("openblas_threads").asInt() + " threads either way: it does not follow "
                  + "set_num_threads)"
                : "";
        return "PyTorch " + hello.path("torch").asText() + ", OpenBLAS " + core + detected
                + "; PyTorch timed with torch.set_num_threads(1) and (2)" + blas + ", the better median counts, "
                + "glibc keeping freed memory (MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ 1e9)";
    }

    /** Prepares and warms up a workload; a reason when PyTorch has none. */
    String setup(String key) throws IOException {
        JsonNode r = ask("setup " + key);
        if (r.has("ok")) {
            List<Integer> t = new ArrayList<>();
            r.get("threads").forEach(n -> t.add(n.asInt()));
            threads = t.stream().mapToInt(Integer::intValue).toArray();
            return null;
        }
        return r.has("skip") ? r.get("skip").asText() : r.path("error").asText("no answer");
    }

    /** The thread counts PyTorch runs at (1 and 2 where there are two cores). */
    int[] threads() {
        return threads.clone();
    }

    /**
     * At each thread count (in the order of {@link #threads()}), the last of a burst of runs back to
     * back: at least {@code burst} of them and at least {@code burstMs} ms.
     */
    double[] run(String key, int burst, int burstMs) throws IOException {
        double[] v = new double[threads.length];
        for (int i = 0; i < threads.length; i++) {
            JsonNode r = ask("run " + key + " " + threads[i] + " " + burst + " " + burstMs);
            if (!r.has("value")) {
                throw new IOException("PyTorch " + key + ": " + r.path("error").asText("no value"));
            }
            v[i] = r.get("value").asDouble();
        }
        return v;
    }

    private JsonNode ask(String command) throws IOException {
        out.println(command);
        JsonNode r = read();
        if (r == null) {
            throw new IOException(PYTHON + " ended while running '" + command + "'");
        }
        return r;
    }

    private JsonNode read() throws IOException {
        String line = in.readLine();
        return line == null ? null : JSON.readTree(line);
    }

    @Override
    public void close() {
        out.close();
        process.destroy();
        try {
            Files.deleteIfExists(script);
        } catch (IOException ignored) {
            // a temporary file; the OS cleans it up
        }
    }
}
