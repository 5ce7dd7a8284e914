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

    /**
     * The step whose program a text is (edited or not: it reads its parameters from the step's temporary
     * folder, which no other program names), or null. The app shows an imported program without a file.
     */
    public static Step ofText(String source) {
        if (source == null) {
            return null;
        }
        for (Map.Entry<Path, Step> e : BY_PROGRAM.entrySet()) {
            if (source.contains("file:" + e.getKey().getParent().toString().replace('\\', '/') + "/")) {
                return e.getValue();
            }
        }
        return null;
    }

    private static Path key(Path p) {
        return p.toAbsolutePath().normalize();
    }
}
