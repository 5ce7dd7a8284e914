package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.step.StepFolder;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A captured PyTorch step (a folder gradscope_torch.capture wrote) given to {@code run} or {@code diff}:
 * imported into a temporary folder for the command's length, its inputs the batch, its objective the loss.
 */
final class StepProgram implements AutoCloseable {
    final StepFolder folder;
    final StepFolder.Imported imported;
    private final Path tmp;

    private StepProgram(StepFolder folder, StepFolder.Imported imported, Path tmp) {
        this.folder = folder;
        this.imported = imported;
        this.tmp = tmp;
    }

    static StepProgram open(Path dir) {
        StepFolder step = StepFolder.read(dir);
        Path tmp;
        try {
            tmp = Files.createTempDirectory("gradscope-step-");
        } catch (IOException e) {
            throw new GradscopeException("cannot make a temporary folder to import " + dir + " into: " + e.getMessage());
        }
        try {
            return new StepProgram(step, step.importInto(tmp), tmp);
        } catch (RuntimeException e) {
            delete(tmp);
            throw e;
        }
    }

    Path program() {
        return imported.program();
    }

    /**
     * DIR/objective.npy, DIR/grad/NAME.npy for every parameter by its PyTorch name (zeros for one the graph
     * does not use, as PyTorch's own: no gradient reaches it) and DIR/value/MODULE.npy for every module's output.
     */
    void write(ProgramRun run, Path out) throws IOException {
        Npy.write(run.objective(), out.resolve("objective.npy"));
        for (Map.Entry<String, Path> g : folder.torchGradients().entrySet()) {
            String node = imported.parameters().get(g.getKey());
            Tensor grad = node == null ? null : run.gradient(node);
            if (grad == null) {
                int[] shape = Npy.read(g.getValue()).shape();
                grad = Tensor.fromDoubles(run.objective().dtype(), new double[(int) io.gradscope.engine.tensor.Shapes.numel(shape)], shape);
            }
            Npy.write(grad, out.resolve("grad").resolve(g.getKey() + ".npy"));
        }
        for (Map.Entry<String, String> v : imported.values().entrySet()) {
            Tensor t = run.values().get(v.getValue());
            if (t != null) {
                Npy.write(t, out.resolve("value").resolve(v.getKey() + ".npy"));
            }
        }
    }

    @Override
    public void close() {
        delete(tmp);
    }

    private static void delete(Path dir) {
        try {
            OutputFolder.deleteTree(dir);
        } catch (IOException e) {
            // a temporary folder left behind is harmless
        }
    }
}
