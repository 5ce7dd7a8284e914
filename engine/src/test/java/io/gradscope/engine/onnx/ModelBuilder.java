package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small ONNX models written by hand, for the import's error and edge cases. */
final class ModelBuilder {
    private final OnnxMl.GraphProto.Builder graph = OnnxMl.GraphProto.newBuilder().setName("test");
    private int opset = 13;
    private String producer = "test";

    static OnnxMl.ValueInfoProto.Builder value(String name, int type, Object... dims) {
        OnnxMl.TensorShapeProto.Builder shape = OnnxMl.TensorShapeProto.newBuilder();
        for (Object d : dims) {
            if (d instanceof Number i) {
                shape.addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimValue(i.longValue()));
            } else {
                shape.addDim(OnnxMl.TensorShapeProto.Dimension.newBuilder().setDimParam((String) d));
            }
        }
        return OnnxMl.ValueInfoProto.newBuilder().setName(name).setType(OnnxMl.TypeProto.newBuilder()
                .setTensorType(OnnxMl.TypeProto.Tensor.newBuilder().setElemType(type).setShape(shape)));
    }

    ModelBuilder input(String name, Object... dims) {
        graph.addInput(value(name, 1, dims));
        return this;
    }

    ModelBuilder output(String name, Object... dims) {
        graph.addOutput(value(name, 1, dims));
        return this;
    }

    static OnnxMl.TensorProto.Builder floats(String name, int[] dims, float... values) {
        OnnxMl.TensorProto.Builder t = OnnxMl.TensorProto.newBuilder().setName(name).setDataType(1);
        for (int d : dims) {
            t.addDims(d);
        }
        for (float v : values) {
            t.addFloatData(v);
        }
        return t;
    }

    ModelBuilder initializer(OnnxMl.TensorProto.Builder t) {
        graph.addInitializer(t);
        return this;
    }

    ModelBuilder node(String op, String name, String[] inputs, String[] outputs, OnnxMl.AttributeProto... attrs) {
        OnnxMl.NodeProto.Builder n = OnnxMl.NodeProto.newBuilder().setOpType(op).setName(name);
        for (String i : inputs) {
            n.addInput(i);
        }
        for (String o : outputs) {
            n.addOutput(o);
        }
        for (OnnxMl.AttributeProto a : attrs) {
            n.addAttribute(a);
        }
        graph.addNode(n);
        return this;
    }

    ModelBuilder domainNode(String op, String domain, String name, String input, String output) {
        graph.addNode(OnnxMl.NodeProto.newBuilder().setOpType(op).setDomain(domain).setName(name).addInput(input).addOutput(output));
        return this;
    }

    static OnnxMl.AttributeProto ints(String name, long... v) {
        OnnxMl.AttributeProto.Builder a = OnnxMl.AttributeProto.newBuilder().setName(name)
                .setType(OnnxMl.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            a.addInts(x);
        }
        return a.build();
    }

    static OnnxMl.AttributeProto integer(String name, long v) {
        return OnnxMl.AttributeProto.newBuilder().setName(name).setType(OnnxMl.AttributeProto.AttributeType.INT).setI(v).build();
    }

    static OnnxMl.AttributeProto string(String name, String v) {
        return OnnxMl.AttributeProto.newBuilder().setName(name).setType(OnnxMl.AttributeProto.AttributeType.STRING)
                .setS(com.google.protobuf.ByteString.copyFromUtf8(v)).build();
    }

    ModelBuilder producer(String name) {
        this.producer = name;
        return this;
    }

    ModelBuilder opset(int v) {
        this.opset = v;
        return this;
    }

    OnnxMl.GraphProto graph() {
        return graph.build();
    }

    byte[] bytes() {
        return OnnxMl.ModelProto.newBuilder().setIrVersion(8).setProducerName(producer)
                .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).setGraph(graph).build()
                .toByteArray();
    }

    Path write(Path file) throws IOException {
        Files.write(file, bytes());
        return file;
    }
}
