package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The inspector's sections beyond a value: a dropout node carries its recorded mask, a tanh node none. */
class ShownSectionTest {
    static final String PROGRAM = "x = input(16, 32)\nW = param(32, 32)\nh = dropout(x @ W, p=0.25, seed=3)\nt = tanh(h)\nloss = sum(t * t)\n";

    private static SessionViewModel open(Retention.Kind retention) {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.setRetention(retention);
        vm.openText("dropout.grad", PROGRAM);
        assertNull(vm.error().get(), vm.status().get());
        return vm;
    }

    private static int vertex(SessionViewModel vm, String name) {
        return vm.sweep().recorded().get().graph().vertices().stream().filter(v -> name.equals(v.name())).findFirst().orElseThrow()
                .index();
    }

    @Test
    void aDropoutNodeCarriesItsMaskWithCountsAndATanhNodeNothing() {
        SessionViewModel vm = open(Retention.Kind.ALL);
        int h = vertex(vm, "h");
        List<ShownSection> sections = vm.sweep().shown(h);
        assertEquals(1, sections.size());
        ShownSection mask = sections.get(0);
        TraceGraph.Vertex v = vm.sweep().vertex(h);
        assertTrue(mask.title().startsWith("Mask (kept ×1/(1−p)"), mask.title());
        assertSame(v.shown().get(mask.title()), mask.tensor(), "what the engine recorded, not a copy");
        // The counts, independently: a dropped element of the value is a zero of the mask (the input is never exactly 0 here).
        Tensor value = v.value();
        long dropped = java.util.Arrays.stream(value.toDoubleArray()).filter(d -> d == 0).count();
        assertEquals("kept " + (512 - dropped) + " · dropped " + dropped + String.format(java.util.Locale.ROOT, " (%.1f%%)",
                100.0 * dropped / 512) + " of 512", mask.counts());
        assertTrue(vm.sweep().shown(vertex(vm, "t")).isEmpty(), "tanh has nothing beyond its value");
        assertTrue(vm.sweep().shown(vertex(vm, "x")).isEmpty(), "nor a leaf");
        assertTrue(vm.sweep().shown(-1).isEmpty(), "nor no vertex");
    }

    @Test
    void aMaskTheRunDidNotRetainIsSaidSo() {
        SessionViewModel vm = open(Retention.Kind.NONE);
        List<ShownSection> sections = vm.sweep().shown(vertex(vm, "h"));
        assertEquals(1, sections.size());
        assertNull(sections.get(0).tensor());
        assertEquals(ShownSection.NOT_RETAINED, sections.get(0).counts());
    }
}
