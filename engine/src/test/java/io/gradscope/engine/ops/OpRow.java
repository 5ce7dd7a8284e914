package io.gradscope.engine.ops;

import com.fasterxml.jackson.databind.JsonNode;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One sample of the op test table (optable.json, made by src/test/python/gen_op_table.py with
 * PyTorch): an op, its attributes, inputs, and PyTorch's float64 output and VJP for upstream u.
 */
record OpRow(int index, String op, Map<String, Object> attrs, List<Arr> inputs, Arr output, Arr upstream, List<Arr> grads,
             List<Arr> tangents, Arr jvp) {

    /** A tensor as stored in the table. */
    record Arr(int[] shape, DType dtype, double[] data) {
        Tensor tensor(DType floatType) {
            return Tensor.fromDoubles(dtype == DType.INT64 ? DType.INT64 : floatType, data, shape);
        }

        /**
         * The same values in a non-contiguous layout: every other element of a larger storage whose
         * gaps hold NaN (0 for int64), so a kernel that ignores strides reads NaN.
         */
        Tensor gapped(DType floatType) {
            DType dt = dtype == DType.INT64 ? DType.INT64 : floatType;
            int n = data.length;
            Tensor base = Tensor.full(dt, io.gradscope.engine.tensor.Device.CPU,
                    dt == DType.INT64 ? 0 : Double.NaN, 2 * n + 1);
            int[] strides = Shapes.contiguousStrides(shape);
            for (int i = 0; i < strides.length; i++) {
                strides[i] *= 2;
            }
            Tensor view = base.asStrided(shape, strides, 1);
            Storage s = base.storage();
            for (int i = 0; i < n; i++) {
                int at = 1 + 2 * i;
                switch (dt) {
                    case FLOAT32 -> s.floats()[at] = (float) data[i];
                    case FLOAT64 -> s.doubles()[at] = data[i];
                    case INT64 -> s.longs()[at] = (long) data[i];
                }
            }
            return view;
        }
    }

    /**
     * Whether every input value is finite. Rows with a NaN or an infinity (the edges, where PyTorch's
     * values and gradients are compared as they are) have no central differences to check against.
     */
    boolean finite() {
        return inputs.stream().allMatch(a -> java.util.Arrays.stream(a.data()).allMatch(Double::isFinite));
    }

    Op create() {
        return OpRegistry.create(op, attrs);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("#" + index + " " + op);
        for (Arr a : inputs) {
            sb.append(" ").append(Shapes.str(a.shape()));
        }
        if (!attrs.isEmpty()) {
            sb.append(" ").append(attrs.keySet().stream().map(k -> k + "=" + text(attrs.get(k))).toList());
        }
        return sb.toString();
    }

    private static String text(Object v) {
        return v instanceof int[] a ? java.util.Arrays.toString(a) : String.valueOf(v);
    }

    static List<OpRow> load() {
        try (InputStream in = OpRow.class.getResourceAsStream("/optable.json")) {
            JsonNode root = com.fasterxml.jackson.databind.json.JsonMapper.builder()
                    .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build().readTree(in);
            List<OpRow> rows = new ArrayList<>();
            int i = 0;
            for (JsonNode r : root.get("rows")) {
                Map<String, Object> attrs = new LinkedHashMap<>();
                Iterator<Map.Entry<String, JsonNode>> it = r.get("attrs").fields();
                while (it.hasNext()) {
                    var e = it.next();
                    attrs.put(e.getKey(), value(e.getValue()));
                }
                List<Arr> inputs = new ArrayList<>();
                r.get("inputs").forEach(t -> inputs.add(arr(t)));
                List<Arr> grads = new ArrayList<>();
                r.get("grads").forEach(t -> grads.add(t.isNull() ? null : arr(t)));
                List<Arr> tangents = new ArrayList<>();
                r.get("tangents").forEach(t -> tangents.add(t.isNull() ? null : arr(t)));
                rows.add(new OpRow(i++, r.get("op").asText(), attrs, inputs, arr(r.get("output")), arr(r.get("upstream")), grads,
                        tangents, arr(r.get("jvp"))));
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Object value(JsonNode v) {
        if (v.isNull()) {
            return null;
        }
        if (v.isTextual()) {
            return v.asText();
        }
        if (v.isBoolean()) {
            return v.asBoolean();
        }
        if (v.isArray()) {
            int[] a = new int[v.size()];
            for (int i = 0; i < a.length; i++) {
                a[i] = v.get(i).asInt();
            }
            return a;
        }
        if (v.isIntegralNumber()) {
            return v.asInt();
        }
        return v.asDouble();
    }

    private static Arr arr(JsonNode t) {
        int[] shape = new int[t.get("shape").size()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = t.get("shape").get(i).asInt();
        }
        double[] data = new double[t.get("data").size()];
        for (int i = 0; i < data.length; i++) {
            data[i] = t.get("data").get(i).asDouble();
        }
        return new Arr(shape, "int64".equals(t.get("dtype").asText()) ? DType.INT64 : DType.FLOAT64, data);
    }
}
