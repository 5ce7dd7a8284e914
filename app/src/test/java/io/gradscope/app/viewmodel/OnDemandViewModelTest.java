package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceGraph;
import org.junit.jupiter.api.Test;

/**
 * A run opened with {@code --retain none} shows stand-ins for what it did not keep; inspecting one
 * recomputes it (off the UI thread: here the same-thread service), bit for bit what a run keeping
 * everything shows, and the view-model says it was recomputed.
 */
class OnDemandViewModelTest {
    static final String PROGRAM = """
            x = input(4, 5)
            W = param(5, 3)
            h = tanh(x @ W)
            p = softmax(h)
            loss = sum(p * h)
            """;

    private static SessionViewModel opened(Retention.Kind kind) {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.setRetention(kind);
        vm.openText("retain.grad", PROGRAM);
        assertNull(vm.error().get(), vm.status().get());
        vm.sweep().toEnd();
        return vm;
    }

    @Test
    void anInspectedValueAndGradientNotRetainedAreRecomputedAndSaidToBe() {
        SessionViewModel all = opened(Retention.Kind.ALL);
        SessionViewModel none = opened(Retention.Kind.NONE);
        assertTrue(none.status().get().contains("not retained (--retain none), recomputed when inspected"), none.status().get());
        assertFalse(all.status().get().contains("not retained"), all.status().get());
        TraceGraph g = all.sweep().recorded().get().graph();
        TraceGraph gn = none.sweep().recorded().get().graph();
        int recomputed = 0;
        for (int v = 0; v < g.size(); v++) {
            none.sweep().select(v);
            all.sweep().select(v);
            OnDemandViewModel.Answer a = none.onDemand().answerFor(v);
            if (!NotRetained.is(gn.vertex(v).value())) {
                continue;
            }
            recomputed++;
            assertNotNull(a, "a stand-in is recomputed when inspected: " + g.vertex(v).title());
            assertNull(a.failure());
            assertSameBits(g.vertex(v).value(), a.value());
            Tensor upstream = all.sweep().upstream(v);
            if (upstream != null) {
                assertTrue(a.gradients());
                assertSameBits(upstream, a.upstream());
            }
        }
        assertTrue(recomputed >= 3, "h, p and the products are not retained under none: " + recomputed);
    }

    @Test
    void oneReplayRunsAtATimeAndTheLatestInspectionIsAnsweredNext() {
        java.util.ArrayDeque<Runnable> worker = new java.util.ArrayDeque<>();
        SessionViewModel vm = new SessionViewModel(new RunService(worker::add, Runnable::run));
        vm.setRetention(Retention.Kind.NONE);
        vm.openText("retain.grad", PROGRAM);
        while (!worker.isEmpty()) {
            worker.poll().run();
        }
        assertNull(vm.error().get(), vm.status().get());
        vm.sweep().toEnd();
        while (!worker.isEmpty()) {
            worker.poll().run(); // what inspecting the last step asked for
        }
        TraceGraph g = vm.sweep().recorded().get().graph();
        int h = index(g, "h");
        int p = index(g, "p");
        vm.sweep().select(h);
        assertEquals(1, worker.size(), "h's replay is queued");
        vm.sweep().select(p);
        assertEquals(1, worker.size(), "p waits for h's replay");
        worker.poll().run();
        assertNotNull(vm.onDemand().answerFor(h), "h's answer arrived");
        assertEquals(1, worker.size(), "then p's replay is queued");
        worker.poll().run();
        assertNotNull(vm.onDemand().answerFor(p));
        assertTrue(worker.isEmpty());
    }

    private static int index(TraceGraph g, String name) {
        return g.vertices().stream().filter(v -> name.equals(v.name())).findFirst().orElseThrow().index();
    }

    @Test
    void aRunThatKeepsEverythingRecomputesNothing() {
        SessionViewModel all = opened(Retention.Kind.ALL);
        for (int v = 0; v < all.sweep().recorded().get().graph().size(); v++) {
            all.sweep().select(v);
            assertNull(all.onDemand().answerFor(v));
        }
        assertNull(all.onDemand().working().get());
    }

    private static void assertSameBits(Tensor expected, Tensor actual) {
        assertNotNull(actual);
        double[] e = expected.toDoubleArray();
        double[] a = actual.toDoubleArray();
        assertEquals(e.length, a.length);
        for (int i = 0; i < e.length; i++) {
            assertEquals(Double.doubleToRawLongBits(e[i]), Double.doubleToRawLongBits(a[i]), "element " + i);
        }
    }
}
