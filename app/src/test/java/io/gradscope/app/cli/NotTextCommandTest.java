package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.InputFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A binary file named where text is read: one line saying it is not text, exit 2 (never Java's "Input length = 1", never a window). */
class NotTextCommandTest {
    @TempDir
    Path tmp;

    private Path binary(String name) throws IOException {
        return Files.write(tmp.resolve(name), new byte[] {'x', ' ', '=', (byte) 0xff, (byte) 0xfe, 0, 1, 2, '\n'});
    }

    private static void assertOneLine(Cli.Result r, String expected) {
        assertEquals(expected, r.err().strip());
        assertEquals(2, r.status(), r.err());
        assertEquals("", r.out());
    }

    @Test
    void openRefusesABinaryFileBeforeTheWindow() throws IOException {
        Path b = binary("binary.grad");
        assertOneLine(Cli.run("open", b.toString()), "error: cannot read " + b + ": " + InputFiles.NOT_TEXT);
        assertOneLine(Cli.run("open", b.toString(), "--screenshot", tmp.resolve("s.png").toString()),
                "error: cannot read " + b + ": " + InputFiles.NOT_TEXT);
    }

    @Test
    void colorSaysABinaryPatternIsNotText() throws IOException {
        Path b = binary("binary.mtx");
        assertOneLine(Cli.run("color", b.toString()), "error: cannot read " + b + ": " + InputFiles.NOT_TEXT);
    }

    @Test
    void runSaysWhereTheFirstByteThatIsNotTextIs() throws IOException {
        Path b = binary("binary.grad");
        assertOneLine(Cli.run("run", b.toString()), b + ":1:4: error: " + InputFiles.NOT_TEXT);
    }
}
