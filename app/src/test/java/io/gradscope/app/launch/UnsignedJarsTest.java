package io.gradscope.app.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnsignedJarsTest {
    @TempDir
    Path dir;

    @Test
    void signedJarLosesOnlyItsSignatureFiles() throws IOException {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n\nName: a/B.class\nSHA-256-Digest: xyz\n");
        entries.put("META-INF/ECLIPSE_.SF", "signature");
        entries.put("META-INF/ECLIPSE_.RSA", "key");
        entries.put("META-INF/services/x.Y", "a.Impl\n");
        entries.put("META-INF/sub/KEEP.SF", "not a signature: not directly in META-INF");
        entries.put("a/B.class", "bytes of a class");
        Path signed = write("signed.jar", entries);
        Map<String, String> plain = Map.of("c/D.class", "other bytes");
        Path unsigned = write("plain.jar", plain);
        long plainSize = Files.size(unsigned);

        List<Path> done = UnsignedJars.unsign(dir);

        assertEquals(List.of(signed), done, "only the signed jar is rewritten");
        assertFalse(UnsignedJars.signed(signed));
        Map<String, String> expected = new LinkedHashMap<>(entries);
        expected.remove("META-INF/ECLIPSE_.SF");
        expected.remove("META-INF/ECLIPSE_.RSA");
        assertEquals(expected, read(signed), "every other entry kept, in order, byte for byte");
        assertEquals(plainSize, Files.size(unsigned));
        assertEquals(plain, read(unsigned));
        assertEquals(List.of(), UnsignedJars.unsign(dir), "a second run finds nothing to do");
    }

    @Test
    void signatureNamesFollowTheJarFormat() {
        assertTrue(UnsignedJars.isSignature("META-INF/ECLIPSE_.SF"));
        assertTrue(UnsignedJars.isSignature("meta-inf/x.rsa"));
        assertTrue(UnsignedJars.isSignature("META-INF/X.DSA"));
        assertTrue(UnsignedJars.isSignature("META-INF/X.EC"));
        assertFalse(UnsignedJars.isSignature("META-INF/MANIFEST.MF"));
        assertFalse(UnsignedJars.isSignature("META-INF/maven/x/X.SF"));
        assertFalse(UnsignedJars.isSignature("a/X.SF"));
    }

    private Path write(String name, Map<String, String> entries) throws IOException {
        Path jar = dir.resolve(name);
        try (OutputStream file = Files.newOutputStream(jar); ZipOutputStream out = new ZipOutputStream(file)) {
            for (var e : entries.entrySet()) {
                out.putNextEntry(new ZipEntry(e.getKey()));
                out.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return jar;
    }

    private static Map<String, String> read(Path jar) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                byte[] bytes = zip.getInputStream(e).readAllBytes();
                out.put(e.getName(), new String(bytes, StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
