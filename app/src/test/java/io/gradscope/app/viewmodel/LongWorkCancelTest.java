package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool bar's Cancel (and Esc, which calls the same command) stops every long computation of the
 * app on a real thread within a second, leaves no thread running and no partial result: the
 * Hessian, a second run to compare with (float32 against float64), and the trade-off curve. (The
 * Jacobian's is {@link JacobianLimitTest}.) While each runs, Cancel is enabled and the tool bar's
 * bar has a fraction.
 */
class LongWorkCancelTest {
    @TempDir
    Path tmp;

    /** {@code layers} tanh layers of {@code width} wide matmuls over {@code rows} rows: the first weight is the leaf w. */
    private Path chain(int rows, int width, int layers) throws IOException {
        StringBuilder s = new StringBuilder("x = input(" + rows + ", " + width + ")\n");
        String h = "x";
        for (int i = 0; i < layers; i++) {
            String w = i == 0 ? "w" : "w" + i;
            s.append(w).append(" = param(").append(width).append(", ").append(width).append(")\n");
            s.append("h").append(i).append(" = tanh(").append(h).append(" @ ").append(w).append(")\n");
            h = "h" + i;
        }
        s.append("loss = sum(").append(h).append(")\n");
        Path p = tmp.resolve("chain.grad");
        Files.writeString(p, s.toString());
        return p;
    }

    /** Opens {@code program} with work run on the caller's thread; later work runs on new threads. */
    private static SessionViewModel open(JacobianLimitTest.Switchable worker, Path program) {
        SessionViewModel vm = new SessionViewModel(new RunService(worker, Runnable::run));
        vm.open(program);
        assertNotNull(vm.sweep().recorded().get(), vm.status().get());
        worker.async = true;
        return vm;
    }

    /** Cancels once {@code t} has run 0.2 s, and asserts it ends within a second of Cancel. */
    private static void cancelAndJoin(SessionViewModel vm, Thread t) throws InterruptedException {
        assertNotNull(t, "computed off the caller's thread");
        assertTrue(vm.cancellable().get(), "the tool bar's Cancel is enabled");
        Thread.sleep(200);
        assertTrue(t.isAlive(), "still computing after 0.2 s (the test needs work that takes longer)");
        double f = vm.workProgress().get();
        assertTrue(f == -1 || f >= 0 && f <= 1, "the bar's fraction " + f);
        long t0 = System.nanoTime();
        vm.cancel();
        t.join(1000);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertFalse(t.isAlive(), "the thread still runs " + seconds + " s after Cancel");
        assertFalse(vm.cancellable().get(), "nothing left to cancel");
    }

    @Test
    void cancelStopsTheHessianAndLeavesNoneShown() throws Exception {
        JacobianLimitTest.Switchable worker = new JacobianLimitTest.Switchable();
        SessionViewModel vm = open(worker, chain(64, 20, 40));
        worker.async = false;
        vm.derivatives().showHvp("w", "random");
        assertEquals("w", vm.derivatives().hvpLeaf().get(), vm.status().get());
        worker.async = true;
        vm.derivatives().computeHessian(); // 400 columns, each a run forward over reverse
        assertTrue(vm.derivatives().hessianRunning().get(), vm.derivatives().hessianNote().get());
        cancelAndJoin(vm, worker.last.get());
        assertNull(vm.derivatives().hessian().get(), "no partial Hessian");
        assertEquals("Hessian cancelled", vm.derivatives().hessianNote().get());
    }

    @Test
    void cancelStopsTheSecondRunOfAComparison() throws Exception {
        JacobianLimitTest.Switchable worker = new JacobianLimitTest.Switchable();
        SessionViewModel vm = open(worker, chain(256, 256, 60));
        vm.diagnostics().compareDTypes();
        assertTrue(vm.diagnostics().comparing().get());
        cancelAndJoin(vm, worker.last.get());
        assertNull(vm.diagnostics().comparison().get(), "no comparison shown");
        assertEquals("Comparison cancelled", vm.status().get());
    }

    @Test
    void cancelStopsTheTradeOffCurveAndItIsPlannedAgainWhenAsked() throws Exception {
        JacobianLimitTest.Switchable worker = new JacobianLimitTest.Switchable();
        // Long enough that planning the curve outlasts the 0.2 s before Cancel on a quiet machine too
        // (150 layers planned in under 0.2 s there).
        SessionViewModel vm = open(worker, chain(8, 8, 600));
        MemoryViewModel m = vm.memory();
        m.showTradeOff(true);
        assertTrue(m.working().get(), String.valueOf(m.busy().get()));
        cancelAndJoin(vm, worker.last.get());
        assertNull(m.tradeOff().get(), "no partial curve");
        assertEquals("Cancelled.", m.busy().get());
        worker.async = false;
        m.showTradeOff(false);
        m.showTradeOff(true);
        assertNotNull(m.tradeOff().get(), "planned again when shown again: " + m.busy().get());
    }
}
