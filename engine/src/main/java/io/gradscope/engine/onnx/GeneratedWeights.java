package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Weights generated rather than stored, for models too big to keep with their weights (the test zoo
 * in src/test/resources/onnx-zoo, the bench's models): an initializer whose doc_string reads
 * {@code gradscope-zoo splitmix seed=S lo=LO hi=HI shape=D0,D1 transpose=0|1} gets
 * {@code lo + (hi - lo) * u_i} (float32, u from {@link #uniform}), the same values
 * src/test/python/gen_onnx_zoo.py gave the PyTorch module before exporting it.
 *
 * <pre>{@code
 * Path full = GeneratedWeights.fill(Path.of("resnet18.onnx"), Path.of("/tmp/resnet18-full.onnx"));
 * OnnxImport.run(full, Path.of("/tmp/resnet18"), OnnxImport.Options.defaults());
 * }</pre>
 */
public final class GeneratedWeights {
    private static final String TAG = "gradscope-zoo splitmix ";

    private GeneratedWeights() {
    }

    /** {@code n} doubles in [0, 1) from splitmix64 over a counter (gen_onnx_zoo.py's splitmix). */
    public static double[] uniform(long seed, int n) {
        long base = seed * 0xD1B54A32D192ED03L;
        double[] u = new double[n];
        for (int i = 0; i < n; i++) {
            long z = base + (i + 1L) * 0x9E3779B97F4A7C15L;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            u[i] = (z >>> 11) * 0x1.0p-53;
        }
        return u;
    }

    /** Writes {@code stripped} with every generated initializer filled in to {@code out}; returns {@code out}. */
    public static Path fill(Path stripped, Path out) throws IOException {
        OnnxMl.ModelProto model;
        try (InputStream in = Files.newInputStream(stripped)) {
            model = OnnxMl.ModelProto.parseFrom(in);
        }
        OnnxMl.ModelProto.Builder b = model.toBuilder();
        OnnxMl.GraphProto.Builder g = b.getGraphBuilder();
        for (OnnxMl.TensorProto.Builder t : g.getInitializerBuilderList()) {
            if (t.getDocString().startsWith(TAG)) {
                t.setRawData(ByteString.copyFrom(values(t.getDocString())));
                t.clearDocString();
            }
        }
        try (OutputStream o = Files.newOutputStream(out)) {
            b.build().writeTo(o);
        }
        return out;
    }

    private static byte[] values(String recipe) {
        Map<String, String> kv = new HashMap<>();
        for (String part : recipe.substring(TAG.length()).trim().split(" ")) {
            String[] p = part.split("=", 2);
            kv.put(p[0], p[1]);
        }
        long seed = Long.parseLong(kv.get("seed"));
        double lo = Double.parseDouble(kv.get("lo"));
        double hi = Double.parseDouble(kv.get("hi"));
        int[] shape = kv.get("shape").isEmpty() ? new int[0] : Arrays.stream(kv.get("shape").split(",")).mapToInt(Integer::parseInt).toArray();
        int n = Arrays.stream(shape).reduce(1, (x, y) -> x * y);
        double[] u = uniform(seed, n);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (lo + (hi - lo) * u[i]);
        }
        if (kv.get("transpose").equals("1")) {
            int rows = shape[0];
            int cols = shape[1];
            float[] tr = new float[n];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    tr[c * rows + r] = v[r * cols + c];
                }
            }
            v = tr;
        }
        ByteBuffer buf = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(v);
        return buf.array();
    }
}
