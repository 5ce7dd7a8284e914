package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Leaves whose values come from a file: {@code param(64, 3, 3, 3, init="file:params/conv1_weight.npy")}
 * (also {@code input} and {@code labels}). The path is relative to the program's folder, so an imported
 * model's program runs with its weights wherever the folder is moved.
 */
final class LeafFiles {
    static final String PREFIX = "file:";

    private LeafFiles() {
    }

    static boolean isFile(String init) {
        return init != null && init.startsWith(PREFIX);
    }

    /** The path as written: {@code params/W.npy}. */
    static String path(String init) {
        return init.substring(PREFIX.length());
    }

    /** The file an {@code init="file:..."} names, resolved against the folder of {@code programFile}. */
    static Path resolve(String programFile, String init) {
        try {
            Path p = Path.of(path(init));
            if (p.isAbsolute()) {
                return p;
            }
            Path dir = Path.of(programFile).toAbsolutePath().getParent();
            return dir == null ? p.toAbsolutePath() : dir.resolve(p);
        } catch (InvalidPathException e) {
            throw new GradscopeException("init=\"" + init + "\" is not a valid path: " + e.getMessage());
        }
    }

    /** Reads and checks the values (the shape must be the declared one; labels in range). */
    static Tensor read(Leaf leaf, Path file, DType dtype) {
        Tensor t = Npy.read(file);
        try {
            return leaf.accept(t, dtype);
        } catch (GradscopeException e) {
            throw new GradscopeException(path(leaf.init()) + ": " + e.getMessage());
        }
    }
}
