package io.gradscope.app.service;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.OnnxImport;
import io.gradscope.engine.InputFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one step that opens an ONNX model in the app ({@code gradscope open MODEL.onnx}, File → Open,
 * Open Recent, a dropped file): the model is imported, as {@code gradscope import} does, into a
 * temporary folder that goes when the app exits; the program names its parameter files by absolute
 * paths, so its text runs from the editor. Nothing is left behind when the import fails. A symbolic
 * dimension no --dim names (a batch axis exported as dynamic) is 1, said in its input's comment: File
 * → Open has no --dim to ask for. No JavaFX.
 */
public final class ModelImport {
    /** The model's objective and symbolic sizes ({@code gradscope open --loss --dim}); sum and none by default. */
    public record Options(String loss, Map<String, String> dims) {
        public Options {
            dims = Map.copyOf(dims);
        }

        public static Options defaults() {
            return new Options("sum", Map.of());
        }
    }

    /** An imported model: the file the user opened, the program written for it and the program's text. */
    public record Imported(Path model, Path program, String text) {
    }

    private static final List<Path> FOLDERS = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> FOLDERS.forEach(ModelImport::delete), "gradscope-import-cleanup"));
    }

    private ModelImport() {
    }

    /** Whether a file is opened by importing it: an ONNX model (by its extension). */
    public static boolean isModel(Path file) {
        Path name = file == null ? null : file.getFileName();
        return name != null && name.toString().toLowerCase(Locale.ROOT).endsWith(".onnx");
    }

    /**
     * Imports {@code model} into a new temporary folder.
     *
     * @throws GradscopeException the engine's one-line reason (not a model, an unsupported operator,
     *     a file that cannot be read)
     */
    public static Imported run(Path model, Options options) {
        return run(model, options, null);
    }

    /** As {@link #run(Path, Options)}, the temporary folder made in {@code parent} (null: the system's). */
    static Imported run(Path model, Options options, Path parent) {
        String problem = InputFiles.problem(model);
        if (problem != null) {
            throw new GradscopeException("cannot read " + model + " (" + problem + ")");
        }
        Path dir;
        try {
            dir = parent == null ? Files.createTempDirectory("gradscope-import-") : Files.createTempDirectory(parent, "gradscope-import-");
        } catch (IOException e) {
            throw new GradscopeException("cannot make a temporary folder to import " + model + " into: " + e.getMessage());
        }
        try {
            Path program = OnnxImport.run(model, dir, new OnnxImport.Options(options.loss(), options.dims(), true, 1)).program();
            String text = Files.readString(program, StandardCharsets.UTF_8);
            FOLDERS.add(dir);
            return new Imported(model, program, text);
        } catch (IOException e) {
            delete(dir);
            throw new GradscopeException("cannot read the imported program of " + model + ": " + e.getMessage());
        } catch (RuntimeException e) {
            delete(dir);
            throw e;
        }
    }

    /** A new temporary folder for importing {@code what} into, removed when the app exits. */
    static Path temporaryFolder(Path what) {
        try {
            Path dir = Files.createTempDirectory("gradscope-import-");
            FOLDERS.add(dir);
            return dir;
        } catch (IOException e) {
            throw new GradscopeException("cannot make a temporary folder to import " + what + " into: " + e.getMessage());
        }
    }

    /**
     * Saves an imported model's program as {@code target} with its weights beside it: the parameter
     * files (and names.json) are copied into {@code STEM_params/} next to it, and the program's
     * absolute paths into the temporary folder become paths relative to it (the temporary folder
     * goes when the app exits; a saved program must not depend on it). Returns the text written.
     */
    public static String saveBeside(Imported imported, String text, Path target) throws IOException {
        Path dir = imported.program().getParent();
        String stem = target.getFileName().toString().replaceAll("\\.grad$", "");
        Path params = target.toAbsolutePath().getParent().resolve(stem + "_params");
        Files.createDirectories(params);
        try (var files = Files.list(dir.resolve("params"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, params.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path names = dir.resolve("names.json");
        if (Files.exists(names)) {
            Files.copy(names, params.resolve("names.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        String from = "file:" + dir.toAbsolutePath().resolve("params").toString().replace('\\', '/') + "/";
        String written = text.replace(from, "file:" + stem + "_params/")
                .replace("Parameters are read from params/", "Parameters are read from " + stem + "_params/");
        Files.writeString(target, written, StandardCharsets.UTF_8);
        return written;
    }

    /** The temporary folders imports have made so far (removed on exit). */
    static List<Path> folders() {
        return List.copyOf(FOLDERS);
    }

    private static void delete(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a temporary folder left behind is harmless
        }
    }
}
