package io.gradscope.app.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Run by the build on {@code app/target/lib}: each signed jar (ELK's and EMF's are) is rewritten
 * without its signature files, so that the window's start does not check every class of it against
 * the signature (SHA digests and RSA, about 7% of the UI thread's CPU while it opens a program), and
 * the class-data archive can hold its classes (Java skips classes of signed jars).
 *
 * <p>Note [Unsigned]: nothing is lost that the app relies on: the jars come from Maven Central, whose
 * checksums Maven verified when it downloaded them; the signature was never checked against a
 * trusted key on the classpath. Everything else (classes, resources, the manifest) is copied as is.
 */
public final class UnsignedJars {
    private UnsignedJars() {
    }

    /** {@code UnsignedJars DIR}: rewrites the signed jars in DIR (quietly: the launcher's build shows Maven's output). */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: UnsignedJars DIR");
            System.exit(2);
        }
        unsign(Path.of(args[0]));
    }

    /** Rewrites each signed jar in {@code dir} without its signature files; returns the jars rewritten. */
    public static List<Path> unsign(Path dir) throws IOException {
        List<Path> done = new ArrayList<>();
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.jar")) {
            for (Path jar : jars) {
                if (signed(jar)) {
                    Path tmp = jar.resolveSibling(jar.getFileName() + ".unsigned.tmp");
                    copyUnsigned(jar, tmp);
                    Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    done.add(jar);
                }
            }
        }
        return done;
    }

    /** Whether the jar holds a signature file (META-INF/*.SF, .RSA, .DSA, .EC). */
    static boolean signed(Path jar) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream().anyMatch(e -> isSignature(e.getName()));
        }
    }

    /** A signature file: directly in META-INF, named *.SF, *.RSA, *.DSA or *.EC (the jar format's rule). */
    static boolean isSignature(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        if (!upper.startsWith("META-INF/") || upper.indexOf('/', "META-INF/".length()) >= 0) {
            return false;
        }
        return upper.endsWith(".SF") || upper.endsWith(".RSA") || upper.endsWith(".DSA") || upper.endsWith(".EC");
    }

    private static void copyUnsigned(Path from, Path to) throws IOException {
        try (ZipFile zip = new ZipFile(from.toFile());
                OutputStream file = Files.newOutputStream(to);
                ZipOutputStream out = new ZipOutputStream(file)) {
            for (ZipEntry entry : java.util.Collections.list(zip.entries())) {
                if (isSignature(entry.getName())) {
                    continue;
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                copy.setComment(entry.getComment());
                copy.setExtra(entry.getExtra());
                out.putNextEntry(copy);
                try (InputStream in = zip.getInputStream(entry)) {
                    in.transferTo(out);
                }
                out.closeEntry();
            }
        }
    }
}
