package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The specs' PyTorch references as Python ({@link OpSpec#reference()}), exported to
 * {@code torch_references.json}, which the Python generators (gen_hvp.py, gen_jacobians.py) read for
 * the functions the conformance programs call: so an op's reference is written once, in its spec.
 * The committed file must be the export; after changing a spec, regenerate it with
 * {@code mvn -q -o test -pl engine -Dtest=TorchReferencesTest -Dgradscope.writeReferences=true}.
 */
class TorchReferencesTest {
    private static final Path FILE = Path.of("src", "test", "resources", "torch_references.json");

    /** Every op by name: its reference lambda, in table order. */
    static String export() throws IOException {
        Map<String, String> refs = new LinkedHashMap<>();
        for (OpSpec s : OpSpecs.all()) {
            refs.put(s.name(), s.reference());
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("generator", "TorchReferencesTest (from OpSpecs; do not edit)");
        root.put("references", refs);
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
    }

    @Test
    void theCommittedFileIsTheSpecsExport() throws IOException {
        String now = export();
        if (Boolean.getBoolean("gradscope.writeReferences")) {
            Files.writeString(FILE, now);
        }
        assertTrue(Files.exists(FILE), FILE + " is missing: run this test with -Dgradscope.writeReferences=true");
        assertEquals(now, Files.readString(FILE).replace("\r\n", "\n"),
                FILE + " is not the specs' export: run this test with -Dgradscope.writeReferences=true, then gen_hvp.py");
    }

    /** A reference is Python to run: the docs' shorthand ({@code x.reshape(...)}, backquotes) needs a reference(...) of its own. */
    @Test
    void everyReferenceIsALambdaWithoutDocsShorthand() {
        List<String> wrong = new ArrayList<>();
        for (OpSpec s : OpSpecs.all()) {
            String r = s.reference();
            if (!r.startsWith("lambda ") || r.contains("...") || r.contains("`") || r.contains("\n")) {
                wrong.add(s.name() + ": " + r);
            }
        }
        assertTrue(wrong.isEmpty(), "give these specs a .reference(...): " + wrong);
    }

    @Test
    void theDefaultsFollowTheSignature() {
        assertEquals("lambda x: torch.exp(x)", OpSpecs.get("exp").reference());
        assertEquals("lambda a, b: torch.matmul(a, b)", OpSpecs.get("matmul").reference());
        assertEquals("lambda x, axis=-1: torch.softmax(x, axis)", OpSpecs.get("softmax").reference());
        assertEquals("lambda x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1: "
                + "F.conv2d(x, weight, bias, stride, padding, dilation, groups)", OpSpecs.get("conv2d").reference());
        assertEquals("lambda *tensors, axis=0: torch.cat(tensors, dim=axis)", OpSpecs.get("concat").reference());
    }
}
