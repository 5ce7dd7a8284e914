package io.gradscope.engine.trace;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.Writer;

/**
 * Writes a {@link Trace} as JSON: {@code {"events": [{"type": "BackwardStep", ...}, ...]}}.
 * Tensors appear as {@code {"dtype": "float64", "shape": [2, 3], "data": [...]}} in C order; a value
 * that is not finite is the string {@code "NaN"}, {@code "Infinity"} or {@code "-Infinity"} (JSON has
 * no number for it). The format is described in docs/TRACE-FORMAT.md.
 */
public final class TraceJson {
    private static final ObjectMapper MAPPER = new ObjectMapper().registerModule(
            new SimpleModule("gradscope").addSerializer(Tensor.class, new TensorSerializer()));

    private TraceJson() {
    }

    public static void write(Trace trace, Writer out) throws IOException {
        JsonGenerator g = MAPPER.getFactory().createGenerator(out);
        g.writeStartObject();
        g.writeArrayFieldStart("events");
        for (TraceEvent e : trace.events()) {
            g.writeStartObject();
            g.writeStringField("type", e.getClass().getSimpleName());
            for (var c : e.getClass().getRecordComponents()) {
                g.writeFieldName(c.getName());
                try {
                    MAPPER.writeValue(nonClosing(g), c.getAccessor().invoke(e));
                } catch (ReflectiveOperationException ex) {
                    throw new IllegalStateException(ex);
                }
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.flush();
    }

    public static String toJson(Trace trace) {
        var w = new java.io.StringWriter();
        try {
            write(trace, w);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return w.toString();
    }

    private static JsonGenerator nonClosing(JsonGenerator g) {
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        g.disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
        return g;
    }

    private static final class TensorSerializer extends JsonSerializer<Tensor> {
        @Override
        public void serialize(Tensor t, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeStartObject();
            g.writeStringField("dtype", t.dtype().label());
            g.writeFieldName("shape");
            g.writeArray(t.shape(), 0, t.rank());
            g.writeFieldName("data");
            double[] d = t.toDoubleArray();
            g.writeStartArray();
            for (double v : d) {
                if (Double.isFinite(v)) {
                    g.writeNumber(v);
                } else {
                    g.writeString(Double.toString(v));
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }
}
