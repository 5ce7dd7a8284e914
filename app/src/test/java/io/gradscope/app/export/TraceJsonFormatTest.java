package io.gradscope.app.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gradscope.app.service.RunService;
import io.gradscope.app.viewmodel.SessionViewModel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exported trace writes NaN as the string "NaN", as docs/TRACE-FORMAT.md says. */
class TraceJsonFormatTest {

    @Test
    void nanIsTheStringNaNAndTheFormatSaysSo(@TempDir Path tmp) throws Exception {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("nan.grad", "x = param(3)\nloss = sum(log(x * 0 - 1))\n");
        Path json = tmp.resolve("trace.json");
        assertTrue(new Exporter(vm).export(Exporter.Format.TRACE_JSON, json), vm.status().get());
        JsonNode objective = null;
        for (JsonNode e : new ObjectMapper().readTree(json.toFile()).get("events")) {
            if ("OpForward".equals(e.get("type").asText()) && "sum".equals(e.get("op").asText())) {
                objective = e.get("value");
            }
        }
        assertEquals("NaN", objective.get("data").get(0).asText());
        assertTrue(objective.get("data").get(0).isTextual());
        String doc = Files.readString(Path.of("../docs/TRACE-FORMAT.md"));
        assertTrue(doc.contains("`\"NaN\"`, `\"Infinity\"` or `\"-Infinity\"`"), "the format says how non-finite values are written");
    }
}
