package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Npy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gradscope import} and {@code gradscope run} of what it wrote, with no further flags; its errors as one line. */
class ImportCommandTest {
    static final Path MODELS = Path.of("../engine/src/test/resources/onnx");

    @TempDir
    Path tmp;

    private static void assertOneLineError(Cli.Result r, String expected) {
        assertEquals(2, r.status(), r.err());
        assertEquals(expected, r.err().strip());
        assertFalse(r.err().contains("\tat "), "no stack trace");
    }

    /** A [1, 2] input through a Dropout in training mode (ratio 0.5, its mask output unread). */
    private Path trainingDropout() throws IOException {
        ai.onnx.proto.OnnxMl.TypeProto.Builder type = ai.onnx.proto.OnnxMl.TypeProto.newBuilder();
        type.getTensorTypeBuilder().setElemType(1).getShapeBuilder().addDim(ai.onnx.proto.OnnxMl.TensorShapeProto.Dimension.newBuilder()
                .setDimValue(1)).addDim(ai.onnx.proto.OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimValue(2));
        ai.onnx.proto.OnnxMl.GraphProto.Builder g = ai.onnx.proto.OnnxMl.GraphProto.newBuilder().setName("g")
                .addInput(ai.onnx.proto.OnnxMl.ValueInfoProto.newBuilder().setName("x").setType(type))
                .addOutput(ai.onnx.proto.OnnxMl.ValueInfoProto.newBuilder().setName("y").setType(type))
                .addInitializer(ai.onnx.proto.OnnxMl.TensorProto.newBuilder().setName("ratio").setDataType(1).addFloatData(0.5f))
                .addInitializer(ai.onnx.proto.OnnxMl.TensorProto.newBuilder().setName("training").setDataType(9).addInt32Data(1))
                .addNode(ai.onnx.proto.OnnxMl.NodeProto.newBuilder().setOpType("Dropout").setName("/Dropout").addInput("x")
                        .addInput("ratio").addInput("training").addOutput("y").addOutput("mask"));
        Path m = tmp.resolve("dropout.onnx");
        Files.write(m, ai.onnx.proto.OnnxMl.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                .addOpsetImport(ai.onnx.proto.OnnxMl.OperatorSetIdProto.newBuilder().setVersion(13)).build().toByteArray());
        return m;
    }

    /** Issue 44: a training-mode Dropout is refused unless --dropout seeded, which says in one line that the masks are ours. */
    @Test
    void dropoutSeededImportsATrainingModeDropoutAndSaysTheMaskIsOurs() throws IOException {
        Path model = trainingDropout();
        Cli.Result refused = Cli.run("import", model.toString(), "--out", tmp.resolve("a").toString());
        assertEquals(2, refused.status(), refused.err());
        assertTrue(refused.err().contains("--dropout seeded"), refused.err());
        Cli.Result r = Cli.run("import", model.toString(), "--out", tmp.resolve("b").toString(), "--dropout", "seeded");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("\nnote: 1 Dropout node in training mode run as seeded dropout: the masks are Gradscope's, not "
                + "PyTorch's\n"), r.out());
        assertTrue(Files.readString(tmp.resolve("b/model.grad")).contains("dropout(x, p=0.5, seed=0)"));
        assertOneLineError(Cli.run("import", model.toString(), "--out", tmp.resolve("c").toString(), "--dropout", "random"),
                "error: --dropout must be refuse or seeded, not 'random'");
    }

    @Test
    void importThenRunUsesTheModelsWeights() throws IOException {
        Path out = tmp.resolve("cnn");
        Cli.Result r = Cli.run("import", MODELS.resolve("cnn/model.onnx").toString(), "--out", out.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().startsWith("imported model.onnx (opset 13, 10 nodes, 13 initializers used) to "), r.out());
        assertTrue(Files.exists(out.resolve("model.grad")) && Files.exists(out.resolve("names.json"))
                && Files.exists(out.resolve("params/conv1_weight.npy")));
        Path input = tmp.resolve("x.npy");
        Files.copy(MODELS.resolve("cnn/input.npy"), input);
        Path results = tmp.resolve("results");
        Cli.Result run = Cli.run("run", out.resolve("model.grad").toString(), "--dtype", "float64", "--input", "input_0=" + input,
                "--out", results.toString());
        assertEquals(0, run.status(), run.err());
        double expected = new com.fasterxml.jackson.databind.ObjectMapper().readTree(MODELS.resolve("cnn/reference.json").toFile())
                .get("objective").asDouble();
        assertEquals(expected, Double.parseDouble(run.out().strip()), 1e-9 * Math.abs(expected));
        double[] dw = Npy.read(results.resolve("grad/fc_weight.npy")).toDoubleArray();
        assertArrayEquals(Npy.read(MODELS.resolve("cnn/grad/g11.npy")).toDoubleArray(), dw, 1e-9);
    }

    @Test
    void outNeverOverwritesAProgramOfTheUsersAndReplacesAnEarlierImportWhole() throws IOException {
        Path out = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(out.resolve("model.grad"), "x = param(3)\nL = sum(x)\n");
        String model = MODELS.resolve("mlp/model.onnx").toString();
        assertOneLineError(Cli.run("import", model, "--out", out.toString()), "error: --out " + out + ": its model.grad was not "
                + "written by gradscope import (it would be replaced); give a new or empty folder, or one an earlier import wrote");
        assertEquals("x = param(3)\nL = sum(x)\n", Files.readString(out.resolve("model.grad")), "left as it was");
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(other.resolve("notes.txt"), "keep");
        assertEquals(2, Cli.run("import", model, "--out", other.toString()).status(), "a folder of other files is refused");
        // An earlier import is replaced whole: a parameter file the new one does not write is gone, and it is said.
        Path again = tmp.resolve("again");
        assertEquals(0, Cli.run("import", MODELS.resolve("cnn/model.onnx").toString(), "--out", again.toString()).status());
        assertTrue(Files.exists(again.resolve("params/conv1_weight.npy")));
        Cli.Result r = Cli.run("import", model, "--out", again.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().startsWith("gradscope: replaced the earlier results in " + again), r.err());
        assertFalse(Files.exists(again.resolve("params/conv1_weight.npy")), "no stale parameter file");
        assertTrue(Files.exists(again.resolve("params/net_0_weight.npy")));
        assertOneLineError(Cli.run("import", Files.createDirectories(tmp.resolve("x.onnx")).toString(), "--out",
                tmp.resolve("o").toString()), "error: cannot read " + tmp.resolve("x.onnx") + " (is a directory)");
    }

    @Test
    void aDimTheModelDoesNotHaveIsRefused() {
        Path out = tmp.resolve("o");
        assertOneLineError(Cli.run("import", MODELS.resolve("mlp/model.onnx").toString(), "--out", out.toString(), "--dim", "nosuch=3"),
                "error: --dim nosuch=3: the model's inputs have no symbolic dimension 'nosuch' (their shapes are fixed)");
        assertFalse(Files.exists(out));
    }

    @Test
    void aTruncatedModelIsOneLineAndWritesNothing() throws IOException {
        byte[] whole = Files.readAllBytes(MODELS.resolve("mlp/model.onnx"));
        Path cut = Files.write(tmp.resolve("mlp.onnx"), Arrays.copyOf(whole, whole.length / 2));
        Path out = tmp.resolve("out");
        assertOneLineError(Cli.run("import", cut.toString(), "--out", out.toString()),
                "error: mlp.onnx: not an ONNX model: the file is truncated (it ends in the middle of a protobuf field)");
        assertFalse(Files.exists(out));
    }

    @Test
    void openReportsAModelItCannotImportBeforeStartingTheApp() throws IOException {
        Path junk = Files.write(tmp.resolve("junk.onnx"), new byte[] {8, 1, 8});
        Cli.Result r = Cli.run("open", junk.toString());
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().startsWith("error: junk.onnx: not an ONNX model: "), r.err());
    }

    @Test
    void aMissingModelAndABadLossAreOneLine() {
        assertOneLineError(Cli.run("import", tmp.resolve("none.onnx").toString(), "--out", tmp.resolve("o").toString()),
                "error: cannot read " + tmp.resolve("none.onnx") + " (no such file)");
        assertOneLineError(Cli.run("import", MODELS.resolve("mlp/model.onnx").toString(), "--out", tmp.resolve("o").toString(),
                "--loss", "hinge"), "error: --loss must be sum, mean, mse or cross_entropy, not 'hinge'");
    }

    @Test
    void crossEntropyAddsLabelsForTheLogits() throws IOException {
        Path out = tmp.resolve("mlp");
        Cli.Result r = Cli.run("import", MODELS.resolve("mlp/model.onnx").toString(), "--out", out.toString(), "--loss", "cross_entropy");
        assertEquals(0, r.status(), r.err());
        String program = Files.readString(out.resolve("model.grad"));
        assertTrue(program.contains("target = labels(4, classes=5)"), program);
        assertTrue(program.contains("loss = cross_entropy("), program);
        assertEquals(0, Cli.run("run", out.resolve("model.grad").toString()).status());
    }
}
