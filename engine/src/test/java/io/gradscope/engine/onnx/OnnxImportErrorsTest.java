package io.gradscope.engine.onnx;

import static io.gradscope.engine.onnx.ModelBuilder.floats;
import static io.gradscope.engine.onnx.ModelBuilder.integer;
import static io.gradscope.engine.onnx.ModelBuilder.ints;
import static io.gradscope.engine.onnx.ModelBuilder.string;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the import refuses, each with its one-line message and nothing written: truncated, random
 * bytes, a protobuf that is not a model, unsupported operators (all of them, in one message),
 * missing external data, a dynamic shape; and the cases next to them that do import.
 */
class OnnxImportErrorsTest {
    @TempDir
    Path dir;

    private String refused(Path model) {
        Path out = dir.resolve("out");
        GradscopeException e = assertThrows(GradscopeException.class, () -> OnnxImport.run(model, out, OnnxImport.Options.defaults()));
        assertFalse(Files.exists(out), "nothing is written when the import fails");
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    /** y = relu(x @ W) with a 2x2 W, and sum(y) its objective. */
    private static ModelBuilder small() {
        return new ModelBuilder().input("x", 1, 2).initializer(floats("W", new int[] {2, 2}, 1, -2, 3, 4))
                .node("MatMul", "/fc/MatMul", new String[] {"x", "W"}, new String[] {"h"})
                .node("Relu", "/Relu", new String[] {"h"}, new String[] {"y"}).output("y", 1, 2);
    }

    @Test
    void aTruncatedFileSaysSo() throws IOException {
        byte[] whole = Files.readAllBytes(OnnxModelsTest.resource("cnn").resolve("model.onnx"));
        Path cut = Files.write(dir.resolve("cnn.onnx"), Arrays.copyOf(whole, whole.length * 2 / 3));
        String m = refused(cut);
        assertEquals("cnn.onnx: not an ONNX model: the file is truncated (it ends in the middle of a protobuf field)", m);
    }

    @Test
    void randomBytesAreNotAModel() throws IOException {
        for (int seed = 0; seed < 20; seed++) {
            byte[] junk = new byte[100 + seed * 97];
            new Random(seed).nextBytes(junk);
            String m = refused(Files.write(dir.resolve("junk.onnx"), junk));
            assertTrue(m.startsWith("junk.onnx: not an ONNX model: "), m);
        }
    }

    @Test
    void anEmptyFileIsNotAModel() throws IOException {
        assertEquals("empty.onnx: not an ONNX model: the file is empty", refused(Files.write(dir.resolve("empty.onnx"), new byte[0])));
    }

    @Test
    void aProtobufThatIsNotAModelSaysSo() throws IOException {
        // a graph without its model wrapper parses as a ModelProto with nothing in it
        byte[] graph = small().graph().toByteArray();
        assertEquals("graph.onnx: not an ONNX model: the protobuf has no model graph (another kind of protobuf message?)",
                refused(Files.write(dir.resolve("graph.onnx"), graph)));
    }

    @Test
    void everyUnsupportedOperatorIsNamedWithItsNodesAndCount() throws IOException {
        ModelBuilder b = small()
                .node("RoiAlign", "/roi/RoiAlign", new String[] {"y"}, new String[] {"l1"})
                .node("RoiAlign", "/roi2/RoiAlign", new String[] {"l1"}, new String[] {"l2"})
                .node("NonMaxSuppression", "/nms", new String[] {"l2"}, new String[] {"l3"})
                .domainNode("Attention", "com.microsoft", "/attn", "l3", "l4");
        assertEquals("m.onnx: cannot import: 4 nodes the import does not support: RoiAlign ×2 (/roi/RoiAlign, /roi2/RoiAlign); "
                + "NonMaxSuppression ×1 (/nms); Attention (domain com.microsoft) ×1 (/attn)", refused(b.write(dir.resolve("m.onnx"))));
    }

    /**
     * Issue 44: a refused node's reader of the same kind was never checked (two chained pools with
     * dilations said "1 node"), and the names stopped after four with "...".
     */
    @Test
    void chainedRefusalsAreEachCountedAndEveryNodeIsNamed() throws IOException {
        ModelBuilder b = new ModelBuilder().input("x", 1, 1, 9, 9);
        String prev = "x";
        for (int i = 1; i <= 3; i++) {
            b.node("AveragePool", "/p" + i, new String[] {prev}, new String[] {"a" + i}, ints("kernel_shape", 2, 2),
                    ints("dilations", 2, 2));
            prev = "a" + i;
        }
        b.node("Relu", "/r", new String[] {prev}, new String[] {"r"});
        for (int i = 1; i <= 6; i++) {
            b.node("RoiAlign", "/roi" + i, new String[] {i == 1 ? "r" : "l" + (i - 1)}, new String[] {"l" + i});
        }
        b.output("l6", 1, 1, 3, 3);
        assertEquals("c.onnx: cannot import: 9 nodes the import does not support: RoiAlign ×6 (/roi1, /roi2, /roi3, /roi4, /roi5, "
                + "/roi6); AveragePool with dilations ×3 (/p1, /p2, /p3); 1 node after them, reading what they give, not checked",
                refused(b.write(dir.resolve("c.onnx"))));
    }

    /** x @ W, then Dropout(ratio, training_mode=true) with its mask output, the output's sum the objective. */
    private static ModelBuilder trainingDropout(float ratio) {
        OnnxMl.TensorProto.Builder on = OnnxMl.TensorProto.newBuilder().setName("training").setDataType(9).addInt32Data(1);
        return new ModelBuilder().opset(13).input("x", 1, 2).initializer(floats("W", new int[] {2, 2}, 1, -2, 3, 4))
                .initializer(floats("ratio", new int[0], ratio)).initializer(on)
                .node("MatMul", "/fc/MatMul", new String[] {"x", "W"}, new String[] {"h"})
                .node("Dropout", "/Dropout", new String[] {"h", "ratio", "training"}, new String[] {"y", "mask"}).output("y", 1, 2);
    }

    /**
     * Issue 44: Dropout in training mode was the identity when it had no mask output, and refused with one
     * ("Dropout with its mask output") even at ratio 0, which swin_t's attention exports (F.dropout(attn,
     * p=0.0), training by default). A ratio above 0 is refused (PyTorch's mask is random); ratio 0 is the
     * identity, its mask all true.
     */
    @Test
    void dropoutInTrainingModeIsRefusedUnlessItsRatioIsZero() throws IOException {
        assertEquals("d.onnx: cannot import: 1 node the import does not support: Dropout in training mode (PyTorch's mask is random; "
                + "--dropout seeded runs Gradscope's seeded dropout) ×1 (/Dropout)", refused(trainingDropout(0.1f).write(dir.resolve("d.onnx"))));
        OnnxImport.Result r = OnnxImport.run(trainingDropout(0f).write(dir.resolve("z.onnx")), dir.resolve("z"), OnnxImport.Options.defaults());
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0,
                Map.of(r.inputs().get("x"), Tensor.of(new double[] {1, 10}, 1, 2))));
        assertEquals((1 + 30) + (-2 + 40), run.objective().item(), 1e-12);
    }

    /** Issue 44: --dropout seeded writes a training-mode Dropout as the program's dropout, each node its own seed. */
    @Test
    void dropoutInTrainingModeRunsSeededWhenAsked() throws IOException {
        OnnxImport.Options seeded = new OnnxImport.Options("sum", Map.of(), false, 0, "seeded");
        ModelBuilder two = trainingDropout(0.25f).node("Dropout", "/Dropout2", new String[] {"y", "ratio", "training"}, new String[] {"y2"})
                .output("y2", 1, 2);
        OnnxImport.Result r = OnnxImport.run(two.write(dir.resolve("d.onnx")), dir.resolve("d"), seeded);
        assertEquals(2, r.seededDropouts());
        String text = Files.readString(r.program());
        assertTrue(text.contains("dropout(fc, p=0.25, seed=0)") && text.contains(", p=0.25, seed=1)"), text);
        // x @ W = [31, 38]; each element is dropped or scaled by 1 / (1 − 0.25), as torch.nn.functional.dropout
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0,
                Map.of(r.inputs().get("x"), Tensor.of(new double[] {1, 10}, 1, 2))));
        double[] h = {31, 38};
        double[] y = run.values().get(r.outputs().get("y")).toDoubleArray();
        for (int i = 0; i < 2; i++) {
            assertTrue(y[i] == 0 || Math.abs(y[i] - h[i] / 0.75) < 1e-12, Arrays.toString(y));
        }
        OnnxImport.Result again = OnnxImport.run(two.write(dir.resolve("e.onnx")), dir.resolve("e"), seeded);
        assertEquals(text, Files.readString(again.program()).replace("e.onnx", "d.onnx"), "the same seeds every import");
        // the mask output read by a node stays refused; an option that is neither value is one line
        ModelBuilder masked = trainingDropout(0.25f).node("Cast", "/cast", new String[] {"mask"}, new String[] {"m"}, integer("to", 1))
                .node("Add", "/add", new String[] {"y", "m"}, new String[] {"z"}).output("z", 1, 2);
        GradscopeException e = assertThrows(GradscopeException.class,
                () -> OnnxImport.run(masked.write(dir.resolve("m.onnx")), dir.resolve("m"), seeded));
        assertTrue(e.getMessage().contains("Dropout in training mode whose mask output is read (with --dropout seeded) ×1 (/Dropout)"),
                e.getMessage());
        e = assertThrows(GradscopeException.class, () -> OnnxImport.run(two.write(dir.resolve("o.onnx")), dir.resolve("o"),
                new OnnxImport.Options("sum", Map.of(), false, 0, "random")));
        assertEquals("--dropout must be refuse or seeded, not 'random'", e.getMessage());
    }

    @Test
    void unsupportedAttributeValuesAreListedTogether() throws IOException {
        ModelBuilder b = new ModelBuilder().input("x", 1, 1, 5, 5)
                .node("AveragePool", "/p1/AveragePool", new String[] {"x"}, new String[] {"a"}, ints("kernel_shape", 2, 2), ints("strides", 2, 2),
                        ints("dilations", 2, 2))
                .node("Relu", "/r", new String[] {"a"}, new String[] {"b"})
                .node("Pad", "/pad", new String[] {"x"}, new String[] {"c"}, OnnxMl.AttributeProto.newBuilder().setName("mode")
                        .setType(OnnxMl.AttributeProto.AttributeType.STRING).setS(com.google.protobuf.ByteString.copyFromUtf8("wrap"))
                        .build())
                .node("Gelu", "/gelu", new String[] {"c"}, new String[] {"d"})
                .node("Add", "/add", new String[] {"b", "d"}, new String[] {"y"}).output("y", 1, 1, 3, 3);
        String m = refused(b.write(dir.resolve("p.onnx")));
        assertEquals("p.onnx: cannot import: 3 nodes the import does not support: Gelu ×1 (/gelu); AveragePool with dilations ×1 "
                + "(/p1/AveragePool); Pad in wrap mode ×1 (/pad); 2 nodes after them, reading what they give, not checked", m);
    }

    /** The new operators' attribute values the op table has no function for, each named in the one message. */
    @Test
    void newOperatorsOutsideTheirFunctionsAreNamed() throws IOException {
        ModelBuilder b = new ModelBuilder().input("x", 1, 2, 4, 4)
                .initializer(floats("W", new int[] {2, 2, 3, 3}, new float[36]))
                .node("ConvTranspose", "/up/ConvTranspose", new String[] {"x", "W"}, new String[] {"a"}, ints("output_shape", 8, 8))
                .node("Resize", "/up/Resize", new String[] {"x", "", "", ""}, new String[] {"b"}, string("mode", "cubic"))
                .node("Max", "/max", new String[] {"x", "x"}, new String[] {"m"})
                .node("ScatterElements", "/scatter", new String[] {"m", "m", "m"}, new String[] {"c"}, integer("axis", 3))
                .node("Add", "/add", new String[] {"a", "b"}, new String[] {"d"})
                .node("Add", "/add2", new String[] {"d", "c"}, new String[] {"y"}).output("y", 1, 2, 4, 4);
        assertEquals("t.onnx: cannot import: 3 nodes the import does not support: ConvTranspose with output_shape ×1 "
                + "(/up/ConvTranspose); Resize in cubic mode ×1 (/up/Resize); ScatterElements with reduction=none (only add: "
                + "scatter_add) ×1 (/scatter); 2 nodes after them, reading what they give, not checked", refused(b.write(dir.resolve("t.onnx"))));
    }

    @Test
    void recurrentLayersOutsideWhatTheUnrollingWritesAreNamed() throws IOException {
        // x [T=3, B=1, I=2]; W [1, 3H, I], R [1, 3H, H] with H = 2
        ModelBuilder b = new ModelBuilder().input("x", 3, 1, 2)
                .initializer(floats("W", new int[] {1, 6, 2}, new float[12])).initializer(floats("R", new int[] {1, 6, 2}, new float[12]))
                .initializer(floats("W4", new int[] {1, 8, 2}, new float[16])).initializer(floats("R4", new int[] {1, 8, 2}, new float[16]))
                .initializer(floats("P", new int[] {1, 6}, new float[6]))
                .node("GRU", "/gru/GRU", new String[] {"x", "W", "R"}, new String[] {"g"}, integer("hidden_size", 2))
                .node("LSTM", "/lstm/LSTM", new String[] {"x", "W4", "R4", "", "", "", "", "P"}, new String[] {"l"},
                        integer("hidden_size", 2))
                .node("Add", "/add", new String[] {"g", "l"}, new String[] {"y"}).output("y", 3, 1, 1, 2);
        assertEquals("rnn.onnx: cannot import: 2 nodes the import does not support: GRU with linear_before_reset=0 ×1 (/gru/GRU); "
                + "LSTM with peepholes ×1 (/lstm/LSTM); 1 node after them, reading what they give, not checked", refused(b.write(dir.resolve("rnn.onnx"))));
    }

    private ModelBuilder external(String location) {
        OnnxMl.TensorProto.Builder w = OnnxMl.TensorProto.newBuilder().setName("W").setDataType(1).addDims(2).addDims(2)
                .setDataLocation(OnnxMl.TensorProto.DataLocation.EXTERNAL)
                .addExternalData(OnnxMl.StringStringEntryProto.newBuilder().setKey("location").setValue(location))
                .addExternalData(OnnxMl.StringStringEntryProto.newBuilder().setKey("offset").setValue("8"));
        return new ModelBuilder().input("x", 1, 2).initializer(w)
                .node("MatMul", "/fc/MatMul", new String[] {"x", "W"}, new String[] {"y"}).output("y", 1, 2);
    }

    @Test
    void missingExternalDataSaysWhichFile() throws IOException {
        assertEquals("ext.onnx: initializer 'W' keeps its data in 'weights.bin', which is missing (external data is read from the "
                + "model's folder)", refused(external("weights.bin").write(dir.resolve("ext.onnx"))));
    }

    /** 8 bytes of padding, then W = [1, 2, 3, 4] as float32: what {@link #external} reads. */
    private static byte[] weights() {
        ByteBuffer b = ByteBuffer.allocate(8 + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putDouble(0);
        for (float v : new float[] {1, 2, 3, 4}) {
            b.putFloat(v);
        }
        return b.array();
    }

    @Test
    void externalDataOutsideTheModelsFolderIsRefused() throws IOException {
        // Issue 49, 1: a model read /etc/passwd (or any file) into its parameter files.
        Path secret = Files.write(dir.resolve("secret.bin"), weights());
        Path folder = Files.createDirectories(dir.resolve("model"));
        Files.createDirectories(folder.resolve("sub"));
        String rule = "; external data must be a file in the model's folder, named relative to it";
        String[][] cases = {
            {secret.toString(), "an absolute path" + rule},
            {"/etc/passwd", "an absolute path" + rule},
            {"C:\\Windows\\w.bin", "an absolute path" + rule},
            {"c:w.bin", "an absolute path" + rule},
            {"\\\\server\\share\\w.bin", "an absolute path" + rule},
            {"", "an empty path" + rule},
            {"../secret.bin", "outside the model's folder" + rule},
            {"sub/../../secret.bin", "outside the model's folder" + rule},
            {"..\\secret.bin", "outside the model's folder" + rule},
            {"../../../../../../../../etc/passwd", "outside the model's folder" + rule},
            {"..", "outside the model's folder" + rule},
        };
        for (String[] c : cases) {
            assertEquals("ext.onnx: initializer 'W' keeps its data in '" + c[0] + "', " + c[1],
                    refused(external(c[0]).write(folder.resolve("ext.onnx"))), c[0]);
        }
        // A folder or a pipe in the folder is not called missing.
        Files.createDirectories(folder.resolve("dir.bin"));
        assertEquals("ext.onnx: initializer 'W' keeps its data in 'dir.bin', which cannot be read: is a directory",
                refused(external("dir.bin").write(folder.resolve("ext.onnx"))));
        // Links inside the folder that lead out of it: to the file, and to a folder holding it.
        Files.createSymbolicLink(folder.resolve("w.bin"), secret);
        Files.createSymbolicLink(folder.resolve("up"), dir);
        for (String link : new String[] {"w.bin", "up/secret.bin", "sub/../w.bin"}) {
            assertEquals("ext.onnx: initializer 'W' keeps its data in '" + link + "', a link to a file outside the model's folder" + rule,
                    refused(external(link).write(folder.resolve("ext.onnx"))), link);
        }
        // Inside the folder, by any spelling and through a link that stays inside, it is read.
        Files.write(folder.resolve("sub/in.bin"), weights());
        Files.createSymbolicLink(folder.resolve("in-link.bin"), folder.resolve("sub/in.bin"));
        for (String inside : new String[] {"sub/in.bin", "sub\\in.bin", "./sub/../sub/in.bin", "in-link.bin"}) {
            OnnxImport.Result r = OnnxImport.run(external(inside).write(folder.resolve("ext.onnx")), dir.resolve("out-ok"),
                    OnnxImport.Options.defaults());
            assertArrayEquals(new double[] {1, 2, 3, 4}, io.gradscope.engine.run.Npy.read(r.program().resolveSibling("params/W.npy"))
                    .toDoubleArray(), inside);
            deleteTree(dir.resolve("out-ok"));
        }
    }

    @Test
    void externalDataOfAnotherLengthOrPastTwoGigabytesIsOneLine() throws IOException {
        // Issue 49, 4: length=3000000000 was a NegativeArraySizeException where the file is that long (sparse here).
        Files.write(dir.resolve("weights.bin"), weights());
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(dir.resolve("weights.bin").toFile(), "rw")) {
            f.setLength(4_100_000_000L);
        }
        OnnxMl.TensorProto.Builder w = OnnxMl.TensorProto.newBuilder().setName("W").setDataType(1).addDims(2).addDims(2)
                .setDataLocation(OnnxMl.TensorProto.DataLocation.EXTERNAL)
                .addExternalData(OnnxMl.StringStringEntryProto.newBuilder().setKey("location").setValue("weights.bin"))
                .addExternalData(OnnxMl.StringStringEntryProto.newBuilder().setKey("length").setValue("3000000000"));
        ModelBuilder b = new ModelBuilder().input("x", 1, 2).initializer(w)
                .node("MatMul", "/fc/MatMul", new String[] {"x", "W"}, new String[] {"y"}).output("y", 1, 2);
        assertEquals("ext.onnx: initializer 'W' declares 3000000000 bytes of external data but its shape and type need 16",
                refused(b.write(dir.resolve("ext.onnx"))));
        OnnxMl.TensorProto.Builder big = OnnxMl.TensorProto.newBuilder().setName("W").setDataType(11).addDims(50000).addDims(10000)
                .setDataLocation(OnnxMl.TensorProto.DataLocation.EXTERNAL)
                .addExternalData(OnnxMl.StringStringEntryProto.newBuilder().setKey("location").setValue("weights.bin"));
        ModelBuilder huge = new ModelBuilder().input("x", 1, 50000).initializer(big)
                .node("MatMul", "/fc/MatMul", new String[] {"x", "W"}, new String[] {"y"}).output("y", 1, 10000);
        assertEquals("ext.onnx: initializer 'W' needs 4000000000 bytes of external data; the import reads at most 2147483639 bytes a "
                + "tensor", refused(huge.write(dir.resolve("ext.onnx"))));
    }

    @Test
    void anInputTooLargeForATensorIsTheModelsNotAnImportBug() throws IOException {
        // Issue 49, 7: "the imported program does not check (an import bug): /tmp/gradscope-import-.../model.grad:4:5: ..."
        ModelBuilder big = new ModelBuilder().input("x", 100000, 100000).node("Relu", "/Relu", new String[] {"x"}, new String[] {"y"})
                .output("y", 100000, 100000);
        assertEquals("big.onnx: input 'x' of shape [100000, 100000] has 10000000000 elements, more than a tensor can hold "
                + "(2147483639)", refused(big.write(dir.resolve("big.onnx"))));
        ModelBuilder wide = new ModelBuilder().input("x", 1, 1L << 31).node("Relu", "/Relu", new String[] {"x"}, new String[] {"y"})
                .output("y", 1, 1L << 31);
        assertEquals("wide.onnx: input 'x' has the dimension 2147483648 (its second), more than a tensor can hold (2147483639 "
                + "elements)", refused(wide.write(dir.resolve("wide.onnx"))));
        ModelBuilder dyn = new ModelBuilder().input("x", "batch", 100000).node("Relu", "/Relu", new String[] {"x"}, new String[] {"y"})
                .output("y", "batch", 100000);
        Path m = dyn.write(dir.resolve("dyn.onnx"));
        GradscopeException e = assertThrows(GradscopeException.class,
                () -> OnnxImport.run(m, dir.resolve("out"), new OnnxImport.Options("sum", Map.of("batch", "100000"))));
        assertEquals("dyn.onnx: input 'x' of shape [100000, 100000] has 10000000000 elements, more than a tensor can hold "
                + "(2147483639); give smaller sizes with --dim", e.getMessage());
    }

    @Test
    void namesAndCommentsWithLineBreaksQuotesOrGreatLengthImportIntoAProgramThatReadsBack() throws IOException {
        // Issue 49, 8: each of these wrote a program the import could not read back ("an import bug").
        String longName = "w".repeat(300);
        ModelBuilder b = new ModelBuilder().producer("evil\nx = param(1)").input("x", 1, 2)
                .initializer(floats(longName, new int[] {2, 2}, 1, -2, 3, 4))
                .initializer(floats("b\n\"q", new int[] {2}, 5, 6))
                .node("MatMul", "/fc\"x/lay\ner/MatMul\n", new String[] {"x", longName}, new String[] {"h\n"})
                .node("Add", "/fc\"x/a\\b\tc/Add", new String[] {"h\n", "b\n\"q"}, new String[] {"y"}).output("y", 1, 2);
        Path model = b.write(dir.resolve("m\nx = 1.onnx"));
        OnnxImport.Result r = OnnxImport.run(model, dir.resolve("out"), OnnxImport.Options.defaults());
        String text = Files.readString(r.program());
        assertTrue(text.startsWith("# Imported from m\\nx = 1.onnx by gradscope import (ONNX opset 13, exported by evil\\nx = "
                + "param(1)).\n"), text);
        assertTrue(text.contains("with group(\"fc\\\"x\"):\n    with group(\"lay\\ner\"):"), text);
        // The program runs, with the model's values: [1, 10] @ W + b.
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0,
                Map.of(r.inputs().get("x"), Tensor.of(new double[] {1, 10}, 1, 2))));
        assertEquals((1 + 30 + 5) + (-2 + 40 + 6), run.objective().item(), 1e-12);
        for (Path f : Files.list(r.program().resolveSibling("params")).toList()) {
            assertTrue(f.getFileName().toString().length() <= 128, f.toString());
        }
    }

    private static void deleteTree(Path p) throws IOException {
        try (var s = Files.walk(p)) {
            for (Path f : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    @Test
    void externalDataBesideTheModelIsRead() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putDouble(0);
        for (float v : new float[] {1, 2, 3, 4}) {
            b.putFloat(v);
        }
        Files.write(dir.resolve("weights.bin"), b.array());
        OnnxImport.Result r = OnnxImport.run(external("weights.bin").write(dir.resolve("ext.onnx")), dir.resolve("out"),
                OnnxImport.Options.defaults());
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0,
                Map.of("x", Tensor.of(new double[] {1, 10}, 1, 2))));
        assertEquals(1 + 30 + 2 + 40, run.objective().item(), 1e-12);
    }

    @Test
    void aDynamicShapeNeedsItsSize() throws IOException {
        ModelBuilder b = new ModelBuilder().input("x", "batch", 2).initializer(floats("W", new int[] {2, 2}, 1, -2, 3, 4))
                .node("MatMul", "/fc/MatMul", new String[] {"x", "W"}, new String[] {"y"}).output("y", "batch", 2);
        Path m = b.write(dir.resolve("dyn.onnx"));
        assertEquals("dyn.onnx: input 'x' has a dynamic shape [batch, ...]: give the size of 'batch' with --dim batch=N", refused(m));
        OnnxImport.Result r = OnnxImport.run(m, dir.resolve("out"), new OnnxImport.Options("sum", Map.of("batch", "3")));
        assertTrue(Files.readString(r.program()).contains("x = input(3, 2)"));
        // As the app opens it: a size for what no --dim names, said beside the input.
        OnnxImport.Result app = OnnxImport.run(m, dir.resolve("app"), new OnnxImport.Options("sum", Map.of(), false, 1));
        String text = Files.readString(app.program());
        assertTrue(text.contains("x = input(1, 2)  # graph input 'x' (batch = 1: symbolic, chosen here; --dim NAME=N for another "
                + "size)"), text);
    }

    @Test
    void theImportWritesTheProgramParametersAndNames() throws IOException {
        OnnxImport.Result r = OnnxImport.run(small().write(dir.resolve("small.onnx")), dir.resolve("out"),
                new OnnxImport.Options("mean", Map.of()));
        String program = Files.readString(r.program());
        assertTrue(program.contains("W = param(2, 2, init=\"file:params/W.npy\")"), program);
        assertTrue(program.contains("with group(\"fc\"):\n"), program);
        assertTrue(program.contains("fc = x @ W  # /fc/MatMul · MatMul\n"), program);
        assertTrue(program.endsWith("loss = mean(relu_0)  # the objective: mean of the output 'y'\n"), program);
        assertTrue(Files.exists(dir.resolve("out/params/W.npy")));
        String names = Files.readString(dir.resolve("out/names.json"));
        assertTrue(names.contains("\"W\" : \"W\""), names);
        assertEquals(Map.of("W", "W"), r.initializers());
    }

    @Test
    void anUnknownLossIsRefused() throws IOException {
        Path m = small().write(dir.resolve("small.onnx"));
        GradscopeException e = assertThrows(GradscopeException.class,
                () -> OnnxImport.run(m, dir.resolve("out"), new OnnxImport.Options("l1", Map.of())));
        assertEquals("--loss must be sum, mean, mse or cross_entropy, not 'l1'", e.getMessage());
    }
}
