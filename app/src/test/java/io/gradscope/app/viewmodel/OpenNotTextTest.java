package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.InputFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening a binary file in the app says it is not text, and the program shown stays. */
class OpenNotTextTest {
    @Test
    void aBinaryFileIsSaidToBeNotText(@TempDir Path tmp) throws IOException {
        Path b = Files.write(tmp.resolve("binary.grad"), new byte[] {(byte) 0xff, (byte) 0xd8, 0, 17, '\n'});
        SessionViewModel vm = SessionViewModelTest.session();
        String before = vm.source().get();
        vm.open(b);
        assertEquals("Cannot open " + b + ": " + InputFiles.NOT_TEXT, vm.status().get());
        assertEquals(before, vm.source().get());
        assertEquals("chain.grad", vm.fileName().get());
    }

    @Test
    void aProgramOfTwoGigabytesIsSaidToBeTooLarge(@TempDir Path tmp) throws IOException {
        // Issue 49, 4: reading it whole ran the app out of memory ("Exception in Application start method").
        Path big = Files.writeString(tmp.resolve("big.grad"), "x = param(2)\n");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(2L << 30);
        }
        SessionViewModel vm = SessionViewModelTest.session();
        String before = vm.source().get();
        vm.open(big);
        assertEquals("Cannot open " + big + ": a program of 2147483648 bytes is too large (at most 33554432)", vm.status().get());
        assertEquals(before, vm.source().get());
    }

    @Test
    void aControlCharacterInTheMessageIsQuoted(@TempDir Path tmp) throws IOException {
        // Issue 49, 6: the status line shows a name's newline or NUL as an escape, as the command line does.
        Path odd = Files.writeString(tmp.resolve("two\nlines.grad"), "x = param(2)\n");
        Files.delete(odd);
        SessionViewModel vm = SessionViewModelTest.session();
        vm.open(odd);
        String status = vm.status().get();
        assertEquals(-1, status.indexOf('\n'), status);
        assertEquals(true, status.contains("two\\nlines"), status);
    }
}
