package io.gradscope.app.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.OnnxImport;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The app's one import step: a temporary folder per model, kept for the session; nothing left when a model fails. */
class ModelImportTest {
    static final Path MLP = Path.of("../engine/src/test/resources/onnx/mlp/model.onnx");

    @Test
    void onlyOnnxFilesAreModels() {
        assertTrue(ModelImport.isModel(Path.of("a/b/Net.ONNX")));
        assertFalse(ModelImport.isModel(Path.of("a/onnx.grad")));
        assertFalse(ModelImport.isModel(Path.of("onnx")));
    }

    @Test
    void aModelBecomesAProgramThatRunsFromItsTextAlone(@TempDir Path tmp) throws IOException {
        ModelImport.Imported m = ModelImport.run(MLP, ModelImport.Options.defaults(), tmp);
        assertEquals(MLP, m.model());
        assertTrue(m.program().startsWith(tmp), m.program().toString());
        assertTrue(ModelImport.folders().contains(m.program().getParent()), "removed on exit");
        assertEquals(Files.readString(m.program()), m.text());
        assertEquals("model.onnx", OnnxImport.importedFrom(m.text()).orElseThrow());
        // The editor runs the text under the model's name, from no folder: the parameters' paths are absolute.
        double objective = Program.parse("model.onnx", m.text()).run(new RunOptions(DType.FLOAT64, 0, Map.of())).objective().item();
        assertTrue(Double.isFinite(objective));
    }

    @Test
    void aFileThatIsNotAModelLeavesNoFolderAndSaysWhyInOneLine(@TempDir Path tmp) throws IOException {
        byte[] whole = Files.readAllBytes(MLP);
        Path bad = Files.write(tmp.resolve("cut.onnx"), Arrays.copyOf(whole, whole.length / 2));
        Path parent = Files.createDirectory(tmp.resolve("imports"));
        List<Path> before = ModelImport.folders();
        GradscopeException e = assertThrows(GradscopeException.class, () -> ModelImport.run(bad, ModelImport.Options.defaults(), parent));
        assertTrue(e.getMessage().startsWith("cut.onnx: not an ONNX model"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        try (Stream<Path> left = Files.list(parent)) {
            assertEquals(0, left.count());
        }
        assertEquals(before, ModelImport.folders());
        GradscopeException missing = assertThrows(GradscopeException.class,
                () -> ModelImport.run(tmp.resolve("none.onnx"), ModelImport.Options.defaults(), parent));
        assertEquals("cannot read " + tmp.resolve("none.onnx") + " (no such file)", missing.getMessage());
    }
}
