package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.app.service.ModelImport;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.tensor.DType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What belongs to a file starts afresh with the next one (the memory policy, the pass, a dtype the
 * user never picked); what the user picked (the dtype from the tool bar) stays.
 */
class NextFileSettingsTest {
    private static final Path RESNET = Path.of("../engine/src/test/resources/onnx/resnet/model.onnx");
    private static final String MLP = "x = input(4, 3)\nW = param(3, 2)\nh = relu(x @ W)\nloss = sum(h)\n";
    private static final String OTHER = "a = param(5)\nloss = sum(a * a)\n";

    @Test
    void aBudgetChosenForOneProgramIsNotKeptForTheNext() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("mlp.grad", MLP);
        vm.setRemat(RematPolicy.budget(1000));
        vm.run();
        assertEquals(RematPolicy.Kind.BUDGET, vm.remat().get().kind());
        vm.openText("other.grad", OTHER);
        assertEquals(RematPolicy.SEGMENTS, vm.remat().get());
        assertEquals(RematPolicy.Kind.SEGMENTS, vm.sweep().recorded().get().run().memory().policy().kind(), "the run the memory panel shows");
    }

    @Test
    void theNextProgramOpensOnTheBackwardPass() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("mlp.grad", MLP);
        vm.sweep().setMode(Sweep.Mode.FORWARD);
        vm.openText("other.grad", OTHER);
        assertEquals(Sweep.Mode.BACKWARD, vm.sweep().mode().get());
        // An '# open: forward' line still opens its program on the forward pass.
        vm.openText("fwd.grad", "# open: forward\n" + OTHER);
        assertEquals(Sweep.Mode.FORWARD, vm.sweep().mode().get());
    }

    @Test
    void aModelsFloat32IsNotKeptForTheExamplesUnlessTheUserPicksIt() throws Exception {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openImported(ModelImport.run(RESNET, ModelImport.Options.defaults()));
        assertEquals(DType.FLOAT32, vm.dtype().get());
        vm.openText("mlp.grad", MLP);
        assertEquals(DType.FLOAT64, vm.dtype().get(), "an example opens in a program's float64");
        vm.setDType(DType.FLOAT32);
        vm.openText("other.grad", OTHER);
        assertEquals(DType.FLOAT32, vm.dtype().get(), "picked by the user: kept");
    }
}
