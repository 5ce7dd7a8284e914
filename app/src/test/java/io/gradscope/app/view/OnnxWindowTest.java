package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.viewmodel.RecentFiles;
import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.engine.trace.TraceGraph;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javafx.scene.control.Label;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * An ONNX model opened in the window (TestFX + Monocle) as File → Open, Open Recent and a dropped file
 * open it ({@link SessionViewModel#open}): checked against the model file itself, read here with the
 * protobuf classes.
 */
class OnnxWindowTest extends WindowFixture {
    private static final Path RESNET = Path.of("../engine/src/test/resources/onnx/resnet/model.onnx");
    private static final Path MLP = Path.of("../assets/examples/mlp.grad");

    private static OnnxMl.ModelProto model(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return OnnxMl.ModelProto.parseFrom(in);
        }
    }

    @Test
    void aResnetOpensAsItsTopLevelModulesAndTheInspectorShowsAConvolutionsOnnxNode(FxRobot robot) throws Exception {
        openAndWait(robot, RESNET);
        assertTrue(vm().status().get().startsWith("Ran model.onnx"), vm().status().get());
        assertEquals("model.onnx — Gradscope", stage.getTitle());
        assertEquals(RecentFiles.canonical(RESNET), new RecentFiles(recent::toString, s -> { }).list().get(0));
        assertNull(vm().file().get(), "Save must not write the program over the model");

        // The modules: the first part of the node names that have a module path (/layer1/layer1.0/conv1/Conv).
        OnnxMl.ModelProto proto = model(RESNET);
        Set<String> modules = new TreeSet<>();
        for (OnnxMl.NodeProto n : proto.getGraph().getNodeList()) {
            String[] parts = n.getName().split("/");
            if (parts.length >= 3) {
                modules.add(parts[1]);
            }
        }
        assertTrue(modules.size() >= 3, "modules " + modules);
        GraphLayout.Result shown = vm().sweep().layout().get();
        Set<String> moduleBoxes = modules.stream().map(m -> "g:" + m).collect(Collectors.toSet());
        assertTrue(shown.nodes().keySet().containsAll(moduleBoxes), "drawn " + shown.nodes().keySet() + ", modules " + modules);
        assertTrue(shown.collapsed().containsAll(modules));
        assertTrue(shown.groups().isEmpty(), "no module is drawn open: " + shown.groups());
        int vertices = vm().sweep().recorded().get().graph().size();
        assertTrue(shown.nodes().size() <= 12 && shown.nodes().size() * 4 < vertices,
                shown.nodes().size() + " boxes drawn of " + vertices + " nodes");

        // Each convolution, selected, shows its ONNX node: name, operator and attributes as the model gives them.
        Set<String> expected = new TreeSet<>();
        for (OnnxMl.NodeProto n : proto.getGraph().getNodeList()) {
            if (n.getOpType().equals("Conv")) {
                List<String> attrs = new ArrayList<>();
                for (OnnxMl.AttributeProto a : n.getAttributeList()) {
                    attrs.add(a.getName() + "=" + (a.getType() == OnnxMl.AttributeProto.AttributeType.INTS
                            ? a.getIntsList().stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]")) : a.getI()));
                }
                expected.add("ONNX  " + n.getName() + " · Conv  " + String.join(" ", attrs));
            }
        }
        assertTrue(expected.stream().anyMatch(s -> s.contains("group=2") && s.contains("dilations=[2,2]")), expected.toString());
        Label onnx = robot.lookup("#onnx-origin").queryAs(Label.class);
        Set<String> seen = new TreeSet<>();
        for (TraceGraph.Vertex v : vm().sweep().recorded().get().graph().vertices()) {
            if (v.op().startsWith("conv2d")) {
                robot.interact(() -> vm().sweep().select(v.index()));
                assertTrue(onnx.isVisible(), v.title());
                seen.add(onnx.getText());
            }
        }
        assertEquals(expected, seen, "ops: " + vm().sweep().recorded().get().graph().vertices().stream().map(TraceGraph.Vertex::op)
                .collect(Collectors.toSet()));
        // A parameter's line names no node: its ONNX line names the initializer, as the model does.
        int weight = vm().sweep().recorded().get().find("stem_weight");
        robot.interact(() -> vm().sweep().select(weight));
        assertTrue(onnx.isVisible());
        assertEquals("ONNX  initializer stem.weight", onnx.getText());
        // The graph input's line names neither.
        int input = vm().sweep().recorded().get().find("input_0");
        robot.interact(() -> vm().sweep().select(input));
        assertFalse(onnx.isVisible());

        // View → Expand All opens the modules.
        robot.interact(() -> vm().sweep().expandAll());
        waitUntil(() -> !vm().sweep().layout().get().groups().isEmpty());
        assertTrue(vm().sweep().layout().get().nodes().size() > 4 * shown.nodes().size());
    }

    @Test
    void aFoldedWeightIsNamedByItsModuleAndTheInspectorKeepsItsOnnxName(FxRobot robot) throws Exception {
        Path folded = Path.of("../engine/src/test/resources/onnx/folded/model.onnx");
        openAndWait(robot, folded);
        // The weight the first convolution reads, as the model names it (the exporter's number).
        OnnxMl.NodeProto conv = model(folded).getGraph().getNodeList().stream()
                .filter(n -> n.getName().equals("/layer1/layer1.0/conv1/Conv")).findFirst().orElseThrow();
        assertTrue(conv.getInput(1).startsWith("onnx::Conv_"), conv.getInput(1));
        int weight = vm().sweep().recorded().get().find("layer1_0_conv1_weight");
        assertTrue(weight >= 0, "no leaf layer1_0_conv1_weight");
        robot.interact(() -> vm().sweep().select(weight));
        Label onnx = robot.lookup("#onnx-origin").queryAs(Label.class);
        assertTrue(onnx.isVisible());
        assertEquals("ONNX  initializer " + conv.getInput(1), onnx.getText());
    }

    @Test
    void aModelThatDoesNotImportIsOneLineAndTheEditorKeepsItsText(FxRobot robot, @TempDir Path tmp) throws Exception {
        openAndWait(robot, MLP);
        String edited = vm().source().get() + "\n# an edit not saved\n";
        robot.interact(() -> vm().edit(edited));
        byte[] whole = Files.readAllBytes(RESNET);
        Path truncated = Files.write(tmp.resolve("truncated.onnx"), Arrays.copyOf(whole, whole.length / 3));
        byte[] noise = new byte[4096];
        new java.util.Random(7).nextBytes(noise);
        Path random = Files.write(tmp.resolve("random.onnx"), noise);
        Path unsupported = tmp.resolve("unsupported.onnx");
        try (var out = Files.newOutputStream(unsupported)) {
            modelWith("NonMaxSuppression", "/nms/NonMaxSuppression").writeTo(out);
        }
        for (Path bad : List.of(truncated, random, unsupported)) {
            openAndWait(robot, bad);
            String status = window.statusBar().getText();
            assertTrue(status.startsWith("Cannot open " + bad + ": "), status);
            assertFalse(status.contains("\n"), status);
            assertEquals(edited, window.editor().area().getText(), bad.toString());
            assertEquals(MLP, vm().file().get());
            assertEquals("● mlp.grad — Gradscope", stage.getTitle());
        }
        assertTrue(window.statusBar().getText().contains("NonMaxSuppression"), window.statusBar().getText());
    }

    /** A model of one node of {@code op} on a graph input. */
    static OnnxMl.ModelProto modelWith(String op, String name) {
        OnnxMl.TypeProto type = OnnxMl.TypeProto.newBuilder().setTensorType(OnnxMl.TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(OnnxMl.TensorShapeProto.newBuilder().addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimValue(3))))
                .build();
        OnnxMl.GraphProto graph = OnnxMl.GraphProto.newBuilder().setName("g")
                .addInput(OnnxMl.ValueInfoProto.newBuilder().setName("x").setType(type))
                .addOutput(OnnxMl.ValueInfoProto.newBuilder().setName("y").setType(type))
                .addNode(OnnxMl.NodeProto.newBuilder().setName(name).setOpType(op).addInput("x").addOutput("y"))
                .build();
        return OnnxMl.ModelProto.newBuilder().setIrVersion(8).addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setVersion(13))
                .setGraph(graph).build();
    }
}
