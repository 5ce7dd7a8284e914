package io.gradscope.engine.onnx;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * resnet18 of the model zoo (its float64 gradients equal PyTorch's, {@link OnnxZooTest}) run in
 * float32 with every 3x3 stride-1 convolution on Winograd's kernel ({@code gradscope.conv=winograd},
 * whatever the plane's size), on the direct kernel ({@code direct}, where the machine has it) and on
 * the default choice ({@code auto}): the objective's and each parameter gradient's error against the float64
 * run stays within 4x the largest error of the same float32 run on im2col's products (the plain
 * float32 computation, PyTorch's kind: its gradients, and for the objective the larger of its
 * objective's and its gradients' errors).
 */
class WinogradModelTest {
    @AfterEach
    void clearSwitch() {
        System.clearProperty("gradscope.conv");
    }

    @ParameterizedTest
    @ValueSource(strings = {"winograd", "direct", "auto"})
    void resnet18InFloat32OnTheKernelIsAsAccurateAsOnIm2col(String way, @TempDir Path out) throws IOException {
        Path dir = OnnxZooTest.resource("resnet18");
        Path onnx = GeneratedWeights.fill(dir.resolve("model.onnx"), out.resolve("model.onnx"));
        OnnxImport.Result r = OnnxImport.run(onnx, out.resolve("import"), OnnxImport.Options.defaults());
        String input = r.inputs().get("input");
        Tensor x = Npy.read(dir.resolve("input.npy"));
        Program p = Program.load(r.program());
        ProgramRun exact = p.run(new RunOptions(DType.FLOAT64, 0, Map.of(input, x.to(DType.FLOAT64))));
        System.setProperty("gradscope.conv", "im2col");
        ProgramRun im2col = p.run(new RunOptions(DType.FLOAT32, 0, Map.of(input, x.to(DType.FLOAT32))));
        System.setProperty("gradscope.conv", way);
        ProgramRun kernel = p.run(new RunOptions(DType.FLOAT32, 0, Map.of(input, x.to(DType.FLOAT32))));
        double ref = exact.objective().item();
        double objIm2col = Math.abs(im2col.objective().item() - ref) / Math.abs(ref);
        double objKernel = Math.abs(kernel.objective().item() - ref) / Math.abs(ref);
        double worstIm2col = 0;
        double worstKernel = 0;
        int checked = 0;
        for (String name : r.initializers().values()) {
            Tensor g = exact.gradient(name);
            if (g == null || g.dtype() != DType.FLOAT64) {
                continue;
            }
            double[] e = g.toDoubleArray();
            Tensor a = im2col.gradient(name);
            Tensor b = kernel.gradient(name);
            assertNotNull(a, name);
            assertNotNull(b, name);
            worstIm2col = Math.max(worstIm2col, error(e, a.toDoubleArray()));
            worstKernel = Math.max(worstKernel, error(e, b.toDoubleArray()));
            checked++;
        }
        assertTrue(checked >= 60, "resnet18 has 62 parameters with gradients, checked " + checked);
        assertTrue(worstKernel <= 4 * worstIm2col, way + " gradients: " + worstKernel + " against " + worstIm2col);
        // the objective is one sum of 1000 logits, whose float32 error on im2col can fall far below
        // its terms' (3e-7 against gradients' 9e-7 here): its bound is the im2col run's error level.
        double level = Math.max(objIm2col, worstIm2col);
        assertTrue(objKernel <= 4 * level, way + " objective: " + objKernel + " against the im2col run's " + level);
        System.out.printf("resnet18 float32: largest gradient error %.1e on %s, %.1e on im2col; objective %.1e, %.1e%n",
                worstKernel, way, worstIm2col, objKernel, objIm2col);
    }

    /** ‖a − e‖ / ‖e‖. */
    private static double error(double[] e, double[] a) {
        double num = 0;
        double den = 0;
        for (int i = 0; i < e.length; i++) {
            num += (a[i] - e[i]) * (a[i] - e[i]);
            den += e[i] * e[i];
        }
        return Math.sqrt(num / Math.max(den, Double.MIN_NORMAL));
    }
}
