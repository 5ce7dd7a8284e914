package io.gradscope.app.service;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.step.StepFolder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens a captured PyTorch step (a folder gradscope_torch.capture wrote) as {@link ModelImport} opens a
 * model: imported into a temporary folder that goes when the app exits, its inputs bound to the batch.
 * Remembers which program came from which step, for the Compare tab's "vs PyTorch". No JavaFX.
 */
public final class StepImport {
    /** A step opened: the folder read and its program. */
    public record Step(StepFolder folder, StepFolder.Imported imported) {
    }

    private static final Map<Path, Step> BY_PROGRAM = new ConcurrentHashMap<>();

    private StepImport() {
    }

    /** Imports the step folder {@code dir}; the one-line reason when it is not a step or does not import. */
    public static ModelImport.Imported run(Path dir) {
        StepFolder step = StepFolder.read(dir);
        Path tmp = ModelImport.temporaryFolder(dir);
        StepFolder.Imported im = step.importInto(tmp);
        try {
            String text = Files.readString(im.program(), StandardCharsets.UTF_8);
            BY_PROGRAM.put(key(im.program()), new Step(step, im));
            return new ModelImport.Imported(dir, im.program(), text);
        } catch (IOException e) {
            throw new GradscopeException("cannot read the program of the step " + dir + ": " + e.getMessage());
        }
    }

    /** The step a program was imported from, or null. */
    public static Step of(Path program) {
        return program == null ? null : BY_PROGRAM.get(key(program));
    }

    private static Path key(Path p) {
        return p.toAbsolutePath().normalize();
    }
}
