package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Imports an ONNX model (as PyTorch's {@code torch.onnx.export} writes it, opset 13-17) as a program:
 * {@code DIR/model.grad} (graph inputs as {@code input} leaves, or {@code labels} for integer token ids;
 * initializers as {@code param} leaves reading their values from {@code DIR/params/NAME.npy}; one
 * statement per node, in the groups of the PyTorch modules the node names carry, the node name as a
 * comment), and {@code DIR/names.json} mapping each initializer, input and output to its program name.
 * The objective is a loss of the first output (its sum by default).
 *
 * <pre>{@code
 * OnnxImport.Result r = OnnxImport.run(Path.of("resnet.onnx"), Path.of("out"), new OnnxImport.Options("sum", Map.of()));
 * ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
 * }</pre>
 *
 * Nothing is written unless the whole model imports: unsupported operators are listed, every one with
 * its node names and count, in one message.
 */
public final class OnnxImport {
    private OnnxImport() {
    }

    /**
     * @param loss the objective: {@code sum}, {@code mean}, {@code mse} (against a target input) or
     *     {@code cross_entropy} (against target labels)
     * @param dims sizes for the symbolic dimensions of the graph inputs ({@code batch -> 1})
     * @param absolutePaths whether the program names its parameter files by absolute paths (for a
     *     program whose text is run without its folder being known) rather than relative to its folder
     * @param unnamedSize the size of a symbolic dimension that {@code dims} does not name (0: refuse the
     *     model, as {@code gradscope import} does; the app opens a model with a batch axis at 1)
     * @param dropout {@code refuse}: a Dropout in training mode (ratio above 0) is refused, PyTorch's mask
     *     being random; {@code seeded}: it runs as the program's seeded {@code dropout} (its mask Gradscope's)
     */
    public record Options(String loss, Map<String, String> dims, boolean absolutePaths, int unnamedSize, String dropout) {
        public Options(String loss, Map<String, String> dims) {
            this(loss, dims, false, 0);
        }

        public Options(String loss, Map<String, String> dims, boolean absolutePaths) {
            this(loss, dims, absolutePaths, 0);
        }

        public Options(String loss, Map<String, String> dims, boolean absolutePaths, int unnamedSize) {
            this(loss, dims, absolutePaths, unnamedSize, "refuse");
        }

        public static Options defaults() {
            return new Options("sum", Map.of());
        }
    }

    /**
     * What an import wrote.
     *
     * @param initializers each ONNX initializer's program name (null where the import folded it away:
     *     shape constants, masks computed into constants)
     * @param inputs each graph input's program name
     * @param outputs each graph output's program name
     * @param seededDropouts the training-mode Dropout nodes written as seeded dropout (--dropout seeded)
     */
    public record Result(Path program, Map<String, String> initializers, Map<String, String> inputs, Map<String, String> outputs,
                         int nodes, int opset, int seededDropouts) {
    }

    static final Set<String> LOSSES = Set.of("sum", "mean", "mse", "cross_entropy");

    public static Result run(Path model, Path outDir, Options options) {
        if (!LOSSES.contains(options.loss())) {
            throw new GradscopeException("--loss must be sum, mean, mse or cross_entropy, not '" + options.loss() + "'");
        }
        if (!options.dropout().equals("refuse") && !options.dropout().equals("seeded")) {
            throw new GradscopeException("--dropout must be refuse or seeded, not '" + options.dropout() + "'");
        }
        for (Map.Entry<String, String> d : options.dims().entrySet()) {
            try {
                if (Integer.parseInt(d.getValue()) < 0) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new GradscopeException("--dim " + d.getKey() + "=" + d.getValue() + ": the size must be a non-negative integer");
            }
        }
        OnnxFile file = new OnnxFile(model);
        OnnxMl.ModelProto proto = file.read();
        Set<String> reserved = new HashSet<>(io.gradscope.engine.ops.OpSpecs.callableNames());
        ProgramText text = new ProgramText(reserved);
        Path folder = options.absolutePaths() ? outDir.toAbsolutePath().resolve("params") : Path.of("params");
        Translator tr = new Translator(file, proto, text, options.dims(), folder.toString().replace('\\', '/'));
        tr.unnamedSize = options.unnamedSize();
        tr.seededDropout = options.dropout().equals("seeded");
        if (tr.opset > 0 && (tr.opset < 7 || tr.opset > 20)) {
            throw file.error("opset " + tr.opset + " is outside what the import reads (PyTorch exports opset 13-17)");
        }
        String producer = proto.getProducerName() + (proto.getProducerVersion().isEmpty() ? "" : " " + proto.getProducerVersion());
        text.comment(HEADER + file.name() + HEADER_END + " (ONNX opset " + tr.opset
                + (producer.isBlank() ? "" : ", exported by " + producer.trim()) + ").");
        text.comment("Parameters are read from params/; names.json maps the ONNX names to the names here.");
        text.comment("Each statement ends with the ONNX node it comes from (name · operator  attributes, see NodeOrigin); "
                + "groups are the PyTorch modules.");
        tr.run(options.loss());
        for (String d : options.dims().keySet()) {
            if (!tr.symbols.contains(d)) {
                throw new GradscopeException("--dim " + d + "=" + options.dims().get(d) + ": the model's inputs have no symbolic "
                        + "dimension '" + d + "'" + (tr.symbols.isEmpty() ? " (their shapes are fixed)"
                        : " (they have " + String.join(", ", tr.symbols) + ")"));
            }
        }
        String program = text.render();
        write(outDir, program, tr);
        Path grad = outDir.resolve("model.grad");
        try {
            Program.load(grad).check(DType.FLOAT32);
        } catch (GradscopeException e) {
            // The program's place, not the temporary folder the app imports into.
            String why = String.valueOf(e.getMessage()).replace(grad.toString(), "model.grad");
            throw file.error(why.contains("more than a tensor can hold") || why.contains("too large")
                    ? "the model is too large to import: " + why
                    : "the imported program does not check (an import bug): " + why);
        }
        return new Result(grad, tr.initializerNames, tr.inputNames, tr.outputNames, proto.getGraph().getNodeCount(), tr.opset,
                tr.seededDropouts);
    }

    private static void write(Path dir, String program, Translator tr) {
        try {
            Path params = dir.resolve("params");
            Files.createDirectories(params);
            for (Map.Entry<String, Const> e : tr.files.entrySet()) {
                Const c = e.getValue();
                DType dt = !c.isFloat() ? DType.INT64 : c.type() == Const.DOUBLE ? DType.FLOAT64 : DType.FLOAT32;
                Npy.write(Tensor.fromDoubles(dt, c.data(), c.shape()), params.resolve(e.getKey() + ".npy"));
            }
            Map<String, Object> names = new LinkedHashMap<>();
            names.put("initializers", tr.initializerNames);
            names.put("inputs", tr.inputNames);
            names.put("outputs", tr.outputNames);
            ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            Files.writeString(dir.resolve("names.json"), json.writeValueAsString(names) + "\n", StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("model.grad"), program, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new GradscopeException("cannot write the import to " + dir + ": " + e.getMessage());
        }
    }

    private static final String HEADER = "Imported from ";
    private static final String HEADER_END = " by gradscope import";

    /**
     * The model a program was imported from, as its first line that is not blank says ({@code # Imported from resnet.onnx by
     * gradscope import (...)}); empty for a program that was not imported.
     *
     * <pre>{@code
     * boolean imported = OnnxImport.importedFrom(Files.readString(program)).isPresent();
     * }</pre>
     */
    public static java.util.Optional<String> importedFrom(String programText) {
        if (programText == null) {
            return java.util.Optional.empty();
        }
        return programText.lines().filter(l -> !l.isBlank()).findFirst().flatMap(OnnxImport::importedFromHeader);
    }

    /** The model a parsed program was imported from, read from its first leading comment (its first line but blank ones, as above). */
    public static java.util.Optional<String> importedFrom(io.gradscope.engine.run.Program program) {
        List<String> header = program.leadingComments();
        return header.isEmpty() ? java.util.Optional.empty() : importedFromHeader(header.get(0));
    }

    private static java.util.Optional<String> importedFromHeader(String firstLine) {
        String first = firstLine.strip();
        String start = "# " + HEADER;
        int end = first.lastIndexOf(HEADER_END);
        if (!first.startsWith(start) || end <= start.length()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(first.substring(start.length(), end));
    }

    /** The ONNX operator types the import reads, sorted (some only where their inputs are constants). */
    public static List<String> operators() {
        List<String> ops = new ArrayList<>(OpRules.SUPPORTED);
        java.util.Collections.sort(ops);
        return ops;
    }
}
