package io.gradscope.engine.step;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.OnnxImport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A step folder as {@code gradscope_torch.capture} writes it: {@code model.onnx} (the model and its loss,
 * the loss the first output, every module's output a further output {@code value:<module path>}),
 * {@code manifest.json}, the batch under {@code batch/} and PyTorch's results under {@code torch/}.
 * Reading it checks that every file the manifest names is there; {@link #importInto} makes the program
 * that runs the step: the graph imported, its inputs reading the batch.
 *
 * <pre>{@code
 * StepFolder step = StepFolder.read(Path.of("step"));
 * StepFolder.Imported im = step.importInto(Files.createTempDirectory("step-"));
 * ProgramRun run = Program.load(im.program()).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
 * Tensor g = run.gradient(im.parameters().get("layer1.0.conv1.weight"));
 * }</pre>
 */
public final class StepFolder {
    /** What {@code manifest.json}'s {@code format} says. */
    public static final String FORMAT = "gradscope-step 1";

    /** A batch file: the graph input it feeds, its role (input, target, loss weights) and path. */
    public record Batch(String onnx, String role, Path file) {
    }

    /**
     * A step imported as a program.
     *
     * @param parameters each PyTorch parameter's program name (null where the graph does not use it)
     * @param values each module output's program name, in the program's order
     */
    public record Imported(Path program, Map<String, String> parameters, Map<String, String> values) {
    }

    private final Path dir;
    private final JsonNode manifest;
    private final List<Batch> batch = new ArrayList<>();
    /** ONNX initializer name to PyTorch parameter name, in named_parameters() order. */
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private final Map<String, Path> gradients = new LinkedHashMap<>();
    private final Map<String, Path> values = new LinkedHashMap<>();

    private StepFolder(Path dir, JsonNode manifest) {
        this.dir = dir;
        this.manifest = manifest;
    }

    /**
     * Whether {@code path} is meant as a step: a folder holding a manifest.json ({@link #read} then checks it);
     * any other folder is refused as a program would be ("is a directory").
     */
    public static boolean isStep(Path path) {
        return path != null && Files.isDirectory(path) && Files.exists(path.resolve("manifest.json"));
    }

    /**
     * Reads and checks a step folder.
     *
     * @throws GradscopeException one line: not a folder, no or a bad manifest, a file it names missing
     */
    public static StepFolder read(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new GradscopeException(dir + ": not a folder (a captured step is a folder that gradscope_torch.capture wrote)");
        }
        Path m = dir.resolve("manifest.json");
        if (!Files.isRegularFile(m)) {
            throw new GradscopeException(dir + ": not a captured step: no manifest.json (python/gradscope_torch.py's capture() "
                    + "writes one)");
        }
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(Files.readString(m, StandardCharsets.UTF_8));
        } catch (IOException e) {
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            throw new GradscopeException(m + ": not a step manifest (" + why + ")");
        }
        if (json == null || !json.isObject() || !FORMAT.equals(json.path("format").asText())) {
            throw new GradscopeException(m + ": not a step manifest: its format is '" + (json == null ? "" : json.path("format").asText())
                    + "', not '" + FORMAT + "'");
        }
        StepFolder s = new StepFolder(dir, json);
        s.file("model.onnx");
        for (JsonNode b : s.array("batch")) {
            s.batch.add(new Batch(s.text(b, "onnx"), b.path("role").asText(""), s.file(s.text(b, "file"))));
        }
        for (Map.Entry<String, JsonNode> e : s.object("parameters")) {
            s.parameters.put(e.getKey(), e.getValue().asText());
        }
        for (Map.Entry<String, JsonNode> e : s.object("gradients")) {
            s.gradients.put(e.getKey(), s.file(e.getValue().asText()));
        }
        for (Map.Entry<String, JsonNode> e : s.object("values")) {
            s.values.put(e.getKey(), s.file(s.text(e.getValue(), "file")));
        }
        s.file(s.text(json.path("loss"), "file"));
        return s;
    }

    private Path file(String rel) {
        Path f = dir.resolve(rel).normalize();
        if (!f.startsWith(dir.normalize()) || !Files.isRegularFile(f)) {
            throw new GradscopeException(dir.resolve("manifest.json") + ": names " + rel + ", which "
                    + (f.startsWith(dir.normalize()) ? "is missing" : "is outside the step folder"));
        }
        return f;
    }

    private String text(JsonNode n, String field) {
        if (!n.path(field).isTextual()) {
            throw new GradscopeException(dir.resolve("manifest.json") + ": an entry has no '" + field + "'");
        }
        return n.path(field).asText();
    }

    private Iterable<JsonNode> array(String field) {
        if (!manifest.path(field).isArray()) {
            throw new GradscopeException(dir.resolve("manifest.json") + ": no '" + field + "' list");
        }
        return manifest.path(field);
    }

    private Iterable<Map.Entry<String, JsonNode>> object(String field) {
        if (!manifest.path(field).isObject()) {
            throw new GradscopeException(dir.resolve("manifest.json") + ": no '" + field + "' table");
        }
        return () -> {
            Iterator<Map.Entry<String, JsonNode>> it = manifest.path(field).fields();
            return it;
        };
    }

    public Path dir() {
        return dir;
    }

    public Path model() {
        return dir.resolve("model.onnx");
    }

    /** The model's class and PyTorch's version, as the capture said ({@code CNN, torch 1.13.0, training}). */
    public String describe() {
        return manifest.path("model").asText("?") + ", torch " + manifest.path("torch").asText("?") + ", "
                + (manifest.path("training").asBoolean() ? "training" : "eval") + " mode, loss " + manifest.path("loss").path("function").asText("?");
    }

    /** PyTorch's loss on the batch. */
    public Path torchLoss() {
        return dir.resolve(manifest.path("loss").path("file").asText());
    }

    /** PyTorch's gradient of each parameter (by PyTorch name, in named_parameters() order). */
    public Map<String, Path> torchGradients() {
        return java.util.Collections.unmodifiableMap(gradients);
    }

    /** PyTorch's output of each module (forward hooks), by module path. */
    public Map<String, Path> torchValues() {
        return java.util.Collections.unmodifiableMap(values);
    }

    /** What the capture said it could not capture exactly (a custom Function's backward), one line each. */
    public List<String> notes() {
        List<String> out = new ArrayList<>();
        manifest.path("notes").forEach(n -> out.add(n.asText()));
        return out;
    }

    /**
     * Imports the graph into {@code folder} (parameter files by absolute path) and binds its inputs to
     * the batch; returns the program and the names PyTorch's results are compared under.
     */
    public Imported importInto(Path folder) {
        OnnxImport.Result r = OnnxImport.run(model(), folder, new OnnxImport.Options("sum", Map.of(), true));
        Path program = r.program();
        try {
            String text = Files.readString(program, StandardCharsets.UTF_8);
            for (Map.Entry<String, String> in : r.inputs().entrySet()) {
                Batch b = batch.stream().filter(x -> x.onnx().equals(in.getKey())).findFirst().orElseThrow(() -> new GradscopeException(
                        model() + ": the graph input '" + in.getKey() + "' has no batch file in manifest.json"));
                text = BatchInputs.bind(text, in.getValue(), b.file().toAbsolutePath());
            }
            Files.writeString(program, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new GradscopeException("cannot write the step's program to " + folder + ": " + e.getMessage());
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (Map.Entry<String, String> p : parameters.entrySet()) {
            params.put(p.getValue(), r.initializers().get(p.getKey()));
        }
        Map<String, String> vals = new LinkedHashMap<>();
        for (String v : values.keySet()) {
            String name = r.outputs().get("value:" + v);
            if (name != null) {
                vals.put(v, name);
            }
        }
        return new Imported(program, params, vals);
    }
}
