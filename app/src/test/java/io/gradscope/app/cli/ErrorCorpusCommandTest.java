package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine's error corpus through {@code gradscope run}: every case exits 2 with its one positioned
 * line on stderr, nothing on stdout, and none hangs.
 */
class ErrorCorpusCommandTest {
    static final Path CORPUS = Path.of("../engine/src/test/resources/errors/corpus.txt");

    static List<Arguments> cases() throws IOException {
        String text = Files.readString(CORPUS, StandardCharsets.UTF_8);
        List<Arguments> out = new ArrayList<>();
        String[] parts = text.split("(?m)^### ");
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i];
            int nl1 = part.indexOf('\n');
            int nl2 = part.indexOf('\n', nl1 + 1);
            out.add(Arguments.of(part.substring(0, nl1), part.substring(nl1 + 1, nl2), part.substring(nl2 + 1)));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void exitsTwoWithItsOneLine(String title, String expected, String program, @TempDir Path tmp) throws IOException {
        Path p = tmp.resolve("case.grad");
        Files.writeString(p, program, StandardCharsets.UTF_8);
        // The corpus states its sizes and dtypes in float32, as the engine's ErrorCorpusTest runs it.
        Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run("run", p.toString(), "--dtype", "float32"));
        assertEquals(p + ":" + expected, r.err().strip());
        assertEquals(2, r.status());
        assertEquals(1, r.err().strip().lines().count());
        assertEquals("", r.out());
        assertTrue(!r.err().contains("internal error"), r.err());
    }
}
