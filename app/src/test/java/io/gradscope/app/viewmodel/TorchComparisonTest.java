package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.app.service.StepFixtures;
import io.gradscope.app.service.StepImport;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Compare tab's "vs PyTorch" through the view-model, without a window. */
class TorchComparisonTest {
    static SessionViewModel opened(Path step) {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openImported(StepImport.run(step));
        assertNotNull(vm.sweep().recorded().get(), vm.status().get());
        return vm;
    }

    @Test
    void aFaithfulStepHasARowPerModuleLossAndParameterAndNoDivergence() {
        SessionViewModel vm = opened(StepFixtures.STEPS.resolve("cnn"));
        vm.diagnostics().compareWithPyTorch();
        ComparisonViewModel.Comparison c = vm.diagnostics().comparison().get();
        assertNotNull(c, vm.status().get());
        io.gradscope.engine.step.StepFolder f = io.gradscope.engine.step.StepFolder.read(StepFixtures.STEPS.resolve("cnn"));
        assertEquals(f.torchValues().size() + 1 + f.torchGradients().size(), c.rows().size(), "a row per module output, the loss "
                + "and a row per parameter: " + c.rows());
        assertTrue(c.summary().endsWith("no divergence."), c.summary());
        int head = vm.sweep().recorded().get().graph().vertices().stream().filter(v -> "model_head_weight".equals(v.name()))
                .findFirst().orElseThrow().index();
        assertNotNull(c.pytorchOf(head)[1], "PyTorch's gradient of head.weight beside ours");
        assertNull(c.pytorchOf(head)[0]);
    }

    @Test
    void theFirstDivergenceIsSelectedAndColoured(@TempDir Path tmp) throws IOException {
        SessionViewModel vm = opened(StepFixtures.withTorchValueChanged("transformer", "layers.1.attn.qkv", tmp.resolve("step")));
        vm.diagnostics().compareWithPyTorch();
        ComparisonViewModel.Comparison c = vm.diagnostics().comparison().get();
        assertTrue(c.summary().contains("the first divergence, selected: layers.1.attn.qkv (relative error"), c.summary());
        int selected = vm.sweep().selected().get();
        assertEquals("model_layers_1_attn_qkv_add", vm.sweep().vertex(selected).name());
        assertEquals(OverlayViewModel.Overlay.DIFFERENCE, vm.diagnostics().overlay().get());
        assertTrue(vm.diagnostics().overlays().level(selected) > 0.5, "the diverging node is coloured hot");
    }

    @Test
    void aProgramThatIsNotAStepIsSaidSo() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("plain.grad", "x = input(3)\nloss = sum(x * x)\n");
        vm.diagnostics().compareWithPyTorch();
        assertNull(vm.diagnostics().comparison().get());
        assertTrue(vm.status().get().contains("plain.grad is not a captured PyTorch step"), vm.status().get());
    }
}
