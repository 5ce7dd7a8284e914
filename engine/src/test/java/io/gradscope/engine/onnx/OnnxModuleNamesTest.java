package io.gradscope.engine.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parameters of an imported model are named by the PyTorch module that owns them: a model exported in
 * eval mode (src/test/python/gen_onnx_folded.py), whose batch norms the exporter folded into
 * numbered weights ({@code onnx::Conv_57}), imports with {@code layer1_0_conv1_weight}, as PyTorch's
 * own module list (modules.json, from {@code named_modules()}) names the convolution; the ONNX name
 * stays on the leaf's line, where the app's inspector reads it.
 */
class OnnxModuleNamesTest {
    private static Set<String> params(String program) {
        Set<String> names = new TreeSet<>();
        for (String line : program.split("\n")) {
            String s = line.strip();
            if (s.contains(" = param(")) {
                names.add(s.substring(0, s.indexOf(' ')));
            }
        }
        return names;
    }

    @Test
    void foldedBatchNormWeightsAreNamedByTheirModulePath(@TempDir Path out) throws IOException {
        Path dir = OnnxModelsTest.resource("folded");
        OnnxImport.Result r = OnnxImport.run(dir.resolve("model.onnx"), out, OnnxImport.Options.defaults());
        JsonNode modules = new ObjectMapper().readTree(dir.resolve("modules.json").toFile());
        Set<String> expected = new TreeSet<>();
        for (String kind : new String[] {"convs", "linears"}) {
            // a folded convolution gains the batch norm's shift as its bias
            modules.get(kind).forEach(m -> {
                expected.add(m.asText().replace('.', '_') + "_weight");
                expected.add(m.asText().replace('.', '_') + "_bias");
            });
        }
        String program = Files.readString(r.program());
        assertEquals(expected, params(program), program);

        // Every numbered initializer was renamed, and its leaf's line still names it as the model does.
        OnnxMl.ModelProto proto;
        try (InputStream in = Files.newInputStream(dir.resolve("model.onnx"))) {
            proto = OnnxMl.ModelProto.parseFrom(in);
        }
        Map<String, String> numbered = new TreeMap<>();
        for (OnnxMl.TensorProto t : proto.getGraph().getInitializerList()) {
            if (t.getName().startsWith("onnx::")) {
                numbered.put(t.getName(), r.initializers().get(t.getName()));
            }
        }
        assertEquals(10, numbered.size(), "the exporter folded five batch norms: " + numbered);
        for (Map.Entry<String, String> e : numbered.entrySet()) {
            String line = program.lines().filter(l -> l.strip().startsWith(e.getValue() + " = param(")).findFirst().orElseThrow();
            assertEquals(e.getKey(), NodeOrigin.initializer(line).orElseThrow(), line);
        }
    }

    @Test
    void parametersTheExporterNamedKeepThoseNames(@TempDir Path out) throws IOException {
        Path dir = OnnxModelsTest.resource("resnet");
        OnnxImport.Result r = OnnxImport.run(dir.resolve("model.onnx"), out, OnnxImport.Options.defaults());
        int named = 0;
        for (Map.Entry<String, String> e : r.initializers().entrySet()) {
            if (e.getValue() != null && !e.getKey().startsWith("onnx::")) {
                assertEquals(e.getKey().replace('.', '_'), e.getValue());
                named++;
            }
        }
        assertTrue(named >= 10, r.initializers().toString());
    }

    @Test
    void aLeafLineNamesItsInitializerAndOtherLinesNone() {
        assertEquals("onnx::Conv_193", NodeOrigin.initializer("conv1_weight = param(4, init=\"file:p.npy\")  # initializer 'onnx::Conv_193'")
                .orElseThrow());
        assertTrue(NodeOrigin.initializer("conv1 = conv2d(x, w)  # /conv1/Conv · Conv").isEmpty());
        assertTrue(NodeOrigin.initializer("x = input(2)  # graph input 'x'").isEmpty());
        assertTrue(NodeOrigin.initializer(null).isEmpty());
    }
}
