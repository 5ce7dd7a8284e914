package io.gradscope.app.cli;

import io.gradscope.app.launch.AppLauncher;
import io.gradscope.app.service.ModelImport;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope open FILE.grad} (or {@code MODEL.onnx}): the desktop app on a file. */
@Command(name = "open", mixinStandardHelpOptions = true, description = "Opens a .grad program in the desktop app, runs it, "
        + "and shows its graph ready to step (→ ← Space Home End). An ONNX model (a .onnx file) is imported first, into a "
        + "temporary folder, as 'gradscope import' does.",
        // Lines within picocli's 80 columns: a longer one is wrapped at any character (".\nselect=NAME").
        footer = {"", "What --screenshot shows, set with",
            "JAVA_OPTS=\"-Dgradscope.screenshot.steps=5 -Dgradscope.screenshot.select=h ...\":",
            "  gradscope.screenshot.steps=N (3), .back=N, .mode=forward, .zoom=N,",
            "  .select=NAME, .expand=true, .overlay=norm, .panel=hvp|compare|node,",
            "  .remat=POLICY, .delay=MS"})
public final class OpenCommand implements Callable<Integer> {
    /** A model's objective when --loss is not given. */
    static final String DEFAULT_LOSS = "sum";

    @Parameters(index = "0", paramLabel = "PROGRAM.grad|MODEL.onnx|STEP/", description = "A program, an ONNX model, or a "
            + "PyTorch training step captured by python/gradscope_torch.py (a folder): its batch as the inputs, its loss as "
            + "the objective; the Compare tab's 'vs PyTorch' then sets PyTorch's values beside ours.")
    Path file;

    @Option(names = "--loss", paramLabel = "sum|mean|mse|cross_entropy", defaultValue = DEFAULT_LOSS,
            description = "For a model: the objective made of its first output (default: ${DEFAULT-VALUE}).")
    String loss;

    @Option(names = "--dim", paramLabel = "NAME=SIZE", description = "For a model: the size of a symbolic input dimension.")
    java.util.Map<String, String> dims = new java.util.LinkedHashMap<>();

    @Option(names = "--screenshot", paramLabel = "PNG",
            description = "Write the window to PNG once the run is shown (three steps into the sweep), then quit; run it "
                    + "under xvfb-run -a without a display. An existing PNG is replaced; the file opened, any other file, a "
                    + "folder or a pipe is refused. What it shows: below.")
    Path screenshot;

    @picocli.CommandLine.Mixin
    RetainOption retain = new RetainOption();

    @picocli.CommandLine.Mixin
    AppDTypeOption dtype = new AppDTypeOption();

    @Override
    public Integer call() {
        retain.applyToApp();
        dtype.applyToApp();
        if (io.gradscope.engine.step.StepFolder.isStep(file)) {
            if (!DEFAULT_LOSS.equals(loss) || !dims.isEmpty()) {
                throw new io.gradscope.engine.GradscopeException((dims.isEmpty() ? "--loss" : "--dim") + " applies to an ONNX model, "
                        + "not to the captured step " + file + ": its loss and batch are the captured ones");
            }
            return AppLauncher.launchModel(io.gradscope.app.service.StepImport.run(file), screenshot);
        }
        if (ModelImport.isModel(file)) {
            // Imported before the window opens, so a model that does not import is one line here, exit 2.
            return AppLauncher.launchModel(ModelImport.run(file, new ModelImport.Options(loss, dims)), screenshot);
        }
        if (!DEFAULT_LOSS.equals(loss) || !dims.isEmpty()) {
            throw new io.gradscope.engine.GradscopeException((dims.isEmpty() ? "--loss" : "--dim")
                    + " applies to an ONNX model (MODEL.onnx), not to " + file + ": a program's objective is its last statement");
        }
        return AppLauncher.launch(file, screenshot);
    }
}
