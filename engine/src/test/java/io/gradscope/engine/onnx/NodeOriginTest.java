package io.gradscope.engine.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import com.google.protobuf.ByteString;
import io.gradscope.engine.run.Program;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The comment the import writes after each statement names the ONNX node it comes from, and
 * {@link NodeOrigin#parse} reads it back: checked against the model file itself, read here with the
 * protobuf classes (the node's name, operator, and each attribute's value by its type).
 */
class NodeOriginTest {
    static final String[] MODELS = {"cnn", "embedding", "lenet", "mha", "misc", "mlp", "resnet", "transformer13", "transformer17"};
    /** Operators that work on the model's input or parameters: never folded away, so each has a statement. */
    static final Set<String> COMPUTED = Set.of("Conv", "Gemm", "MatMul", "BatchNormalization", "Softmax", "MaxPool", "Relu");

    static OnnxMl.ModelProto model(String name) throws IOException {
        try (InputStream in = Files.newInputStream(OnnxModelsTest.resource(name).resolve("model.onnx"))) {
            return OnnxMl.ModelProto.parseFrom(in);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cnn", "embedding", "lenet", "mha", "misc", "mlp", "resnet", "transformer13", "transformer17"})
    void theReaderGivesBackWhatTheWriterWritesForEveryNode(String name) throws IOException {
        for (OnnxMl.NodeProto n : model(name).getGraph().getNodeList()) {
            NodeOrigin written = NodeOrigin.of(n);
            Optional<NodeOrigin> read = NodeOrigin.parse(written.comment());
            assertEquals(Optional.of(written), read, name + ": " + written.comment());
            // and within a statement's line, after code holding a string with '#' in it
            assertEquals(Optional.of(written), NodeOrigin.parse("    y = f(x, init=\"file:a#b.npy\")  # " + written.comment()));
            assertFactsOf(n, read.get());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cnn", "embedding", "lenet", "mha", "misc", "mlp", "resnet", "transformer13", "transformer17"})
    void everyStatementOfAnImportNamesANodeOfTheModel(String name, @TempDir Path out) throws IOException {
        OnnxMl.ModelProto proto = model(name);
        Map<String, OnnxMl.NodeProto> byName = new HashMap<>();
        for (OnnxMl.NodeProto n : proto.getGraph().getNodeList()) {
            byName.put(n.getName(), n);
        }
        OnnxImport.Result r = OnnxImport.run(OnnxModelsTest.resource(name).resolve("model.onnx"), out, OnnxImport.Options.defaults());
        String program = Files.readString(r.program());
        assertEquals(Optional.of("model.onnx"), OnnxImport.importedFrom(program));
        Set<String> named = new HashSet<>();
        for (String line : program.split("\n")) {
            Optional<NodeOrigin> o = NodeOrigin.parse(line);
            if (o.isEmpty()) {
                continue;
            }
            OnnxMl.NodeProto n = byName.get(o.get().name());
            assertNotNull(n, name + ": the line names no node of the model: " + line);
            assertFactsOf(n, o.get());
            named.add(n.getName());
        }
        List<String> missing = new ArrayList<>();
        for (OnnxMl.NodeProto n : proto.getGraph().getNodeList()) {
            if (COMPUTED.contains(n.getOpType()) && !named.contains(n.getName())) {
                missing.add(n.getName());
            }
        }
        assertTrue(missing.isEmpty(), name + ": nodes with no statement naming them: " + missing);
        assertFalse(named.isEmpty(), name);
    }

    @Test
    void namesThatNeedQuotesAndUncommonValuesReadBack() {
        for (String nodeName : new String[] {"", "a b", "x · y", "/m/\"q\"/Relu", "a#b", "back\\slash", "tab\there"}) {
            OnnxMl.NodeProto n = OnnxMl.NodeProto.newBuilder().setName(nodeName).setOpType("Pad")
                    .addAttribute(OnnxMl.AttributeProto.newBuilder().setName("mode").setType(OnnxMl.AttributeProto.AttributeType.STRING)
                            .setS(ByteString.copyFromUtf8("a \"b\" # c · d")))
                    .addAttribute(OnnxMl.AttributeProto.newBuilder().setName("value").setType(OnnxMl.AttributeProto.AttributeType.FLOAT)
                            .setF(Float.NEGATIVE_INFINITY))
                    .addAttribute(OnnxMl.AttributeProto.newBuilder().setName("scales").setType(OnnxMl.AttributeProto.AttributeType.FLOATS)
                            .addFloats(1e-5f).addFloats(Float.NaN).addFloats(3e12f))
                    .addAttribute(OnnxMl.AttributeProto.newBuilder().setName("names").setType(OnnxMl.AttributeProto.AttributeType.STRINGS)
                            .addStrings(ByteString.copyFromUtf8("p q")).addStrings(ByteString.copyFromUtf8("[r]")))
                    .addAttribute(OnnxMl.AttributeProto.newBuilder().setName("t").setType(OnnxMl.AttributeProto.AttributeType.TENSOR)
                            .setT(OnnxMl.TensorProto.newBuilder().addDims(2).addDims(3)))
                    .build();
            NodeOrigin written = NodeOrigin.of(n);
            assertEquals(Optional.of(written), NodeOrigin.parse("x = pad(y)  # " + written.comment()), written.comment());
            assertFactsOf(n, written);
        }
    }

    @Test
    void commentsThatNameNoNodeAreNotRead() {
        for (String line : new String[] {"W = param(2, 2, init=\"file:params/W.npy\")  # initializer 'W'",
            "loss = mean(y)  # the objective: mean of the output 'y'", "x = input(2)  # graph input 'x'", "y = relu(x)",
            "y = relu(x)  #", "# Imported from m.onnx by gradscope import (ONNX opset 13).", "y = f(\"# /a · Relu\")"}) {
            assertEquals(Optional.empty(), NodeOrigin.parse(line), line);
        }
        assertEquals(Optional.empty(), OnnxImport.importedFrom("# a program\ny = relu(x)\n"));
        assertEquals(Optional.of("m.onnx"), OnnxImport.importedFrom("# Imported from m.onnx by gradscope import (ONNX opset 13).\n"));
    }

    @Test
    void aParsedProgramSaysWhereItWasImportedFromAsItsTextDoes() {
        String imported = "# Imported from m.onnx by gradscope import (ONNX opset 13).\n# model 'm'\n\nx = input(2)\nloss = sum(x)\n";
        String plain = "x = input(2)  # Imported from m.onnx by gradscope import (ONNX opset 13).\nloss = sum(x)\n";
        String afterABlankLine = "\n  \n" + imported;
        String oldMacLines = imported.replace('\n', '\r');
        for (String text : new String[] {imported, plain, "# a program\nx = input(2)\nloss = sum(x)\n", afterABlankLine, oldMacLines}) {
            assertEquals(OnnxImport.importedFrom(text), OnnxImport.importedFrom(Program.parse("m.grad", text)), text);
        }
        List<String> header = List.of("# Imported from m.onnx by gradscope import (ONNX opset 13).", "# model 'm'");
        assertEquals(header, Program.parse("m.grad", imported).leadingComments());
        assertEquals(header, Program.parse("m.grad", oldMacLines).leadingComments(), "a carriage return ends a line too");
        assertEquals(Optional.of("m.onnx"), OnnxImport.importedFrom(afterABlankLine));
    }

    /** The origin read back says what the model file says of the node. */
    static void assertFactsOf(OnnxMl.NodeProto n, NodeOrigin o) {
        assertEquals(n.getName(), o.name());
        assertEquals(n.getOpType(), o.opType());
        assertEquals(n.getAttributeCount(), o.attributes().size(), o.toString());
        for (int i = 0; i < n.getAttributeCount(); i++) {
            OnnxMl.AttributeProto a = n.getAttribute(i);
            NodeOrigin.Attribute b = o.attributes().get(i);
            assertEquals(a.getName(), b.name());
            String v = b.value();
            switch (a.getType()) {
                case INT -> assertEquals(a.getI(), Long.parseLong(v), b.toString());
                case FLOAT -> assertEquals(Float.floatToIntBits(a.getF()), Float.floatToIntBits(number(v)), b.toString());
                case STRING -> assertEquals(a.getS().toStringUtf8(), unquote(v), b.toString());
                case INTS -> assertEquals(a.getIntsList(), items(v).stream().map(Long::parseLong).toList(), b.toString());
                case FLOATS -> {
                    List<String> items = items(v);
                    assertEquals(a.getFloatsCount(), items.size(), b.toString());
                    for (int k = 0; k < items.size(); k++) {
                        assertEquals(Float.floatToIntBits(a.getFloats(k)), Float.floatToIntBits(number(items.get(k))), b.toString());
                    }
                }
                case STRINGS -> {
                    List<String> want = a.getStringsList().stream().map(ByteString::toStringUtf8).toList();
                    assertEquals(want, items(v).stream().map(NodeOriginTest::unquote).toList(), b.toString());
                }
                case TENSOR -> assertEquals("tensor" + a.getT().getDimsList().toString().replace(" ", ""), v);
                default -> assertEquals("graph", v);
            }
        }
    }

    private static float number(String v) {
        return switch (v) {
            case "nan" -> Float.NaN;
            case "inf" -> Float.POSITIVE_INFINITY;
            case "-inf" -> Float.NEGATIVE_INFINITY;
            default -> Float.parseFloat(v);
        };
    }

    /** A bracketed list's items, split at commas outside quotes. */
    private static List<String> items(String v) {
        assertTrue(v.startsWith("[") && v.endsWith("]"), v);
        List<String> out = new ArrayList<>();
        String body = v.substring(1, v.length() - 1);
        if (body.isEmpty()) {
            return out;
        }
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < body.length(); i++) {
            char ch = body.charAt(i);
            if (quoted && ch == '\\') {
                cur.append(ch).append(body.charAt(++i));
                continue;
            }
            if (ch == '"') {
                quoted = !quoted;
            }
            if (ch == ',' && !quoted) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        out.add(cur.toString());
        return out;
    }

    /** A JSON-style quoted string's text. */
    private static String unquote(String v) {
        assertTrue(v.length() >= 2 && v.startsWith("\"") && v.endsWith("\""), v);
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < v.length() - 1; i++) {
            char ch = v.charAt(i);
            if (ch == '\\') {
                char e = v.charAt(++i);
                sb.append(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e);
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }
}
