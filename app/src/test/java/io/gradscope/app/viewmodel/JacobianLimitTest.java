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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Jacobian tab's estimate before the work: above the limit nothing starts by itself; Cancel
 * stops a Jacobian being computed within a second, its thread ends, and the panel keeps what it
 * showed; opening another program stops the old one's.
 */
class JacobianLimitTest {
    @TempDir
    Path tmp;

    @Test
    void aboveTheLimitNothingStartsUntilAskedAndTheEstimateCountsThePattern() {
        String before = System.getProperty("gradscope.jacobian.maxSeconds");
        System.setProperty("gradscope.jacobian.maxSeconds", "0");
        try {
            SessionViewModel vm = new SessionViewModel(RunService.direct());
            vm.open(JacobianViewModelTest.MLP);
            JacobianViewModel j = vm.jacobian();
            j.setOutput(vm.sweep().recorded().get().find("h"));
            assertNull(j.result().get(), "not started above the limit");
            assertNotNull(j.aboveLimit().get(), j.note().get());
            assertTrue(j.note().get().startsWith("Not started"), j.note().get());
            assertEquals(32 * 64 * 20, j.aboveLimit().get().nonzeros(), "h[r, k] on column k of W1 (20 entries)");
            j.computeAnyway();
            assertNotNull(j.result().get(), j.note().get());
            assertNull(j.aboveLimit().get());
            assertEquals(32 * 64 * 20, j.result().get().pattern().nnz());
        } finally {
            if (before == null) {
                System.clearProperty("gradscope.jacobian.maxSeconds");
            } else {
                System.setProperty("gradscope.jacobian.maxSeconds", before);
            }
        }
    }

    /** Runs work on the caller's thread until {@code async} is set, then on a new thread it remembers. */
    static final class Switchable implements java.util.concurrent.Executor {
        volatile boolean async;
        final AtomicReference<Thread> last = new AtomicReference<>();

        @Override
        public void execute(Runnable r) {
            if (!async) {
                r.run();
                return;
            }
            Thread t = new Thread(r, "jacobian-test");
            t.setDaemon(true);
            last.set(t);
            t.start();
        }
    }

    /** Two 3x3 convolutions with ReLUs over 16 channels of 48x48: 14.7 M nonzeros, 400+ products; seconds of work. */
    private Path convnet() throws IOException {
        Path p = tmp.resolve("convnet.grad");
        Files.writeString(p, "x = input(1, 16, 48, 48, grad=True)\nw1 = param(16, 16, 3, 3)\nw2 = param(16, 16, 3, 3)\n"
                + "a = relu(conv2d(x, w1, padding=1))\nb = relu(conv2d(a, w2, padding=1))\nloss = sum(b)\n");
        return p;
    }

    @Test
    void cancelStopsTheJacobianWithinASecondAndItsThreadEnds() throws Exception {
        Switchable worker = new Switchable();
        SessionViewModel vm = new SessionViewModel(new RunService(worker, Runnable::run));
        vm.open(convnet());
        JacobianViewModel j = vm.jacobian();
        int b = vm.sweep().recorded().get().find("b");
        j.setLeaf("x");
        worker.async = true;
        j.setOutput(b);
        j.computeAnyway();
        Thread t = worker.last.get();
        assertNotNull(t, "computed off the caller's thread");
        assertTrue(j.running().get());
        assertTrue(vm.cancellable().get(), "the tool bar's Cancel is enabled");
        Thread.sleep(300);
        assertTrue(t.isAlive(), "still computing after 0.3 s (the test needs work that takes longer)");
        long t0 = System.nanoTime();
        vm.cancel();
        t.join(1000);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertFalse(t.isAlive(), "the thread still runs " + seconds + " s after Cancel");
        assertFalse(j.running().get());
        assertNull(j.result().get(), "the panel as it was: no Jacobian");
        assertEquals("Cancelled.", j.note().get());

        // Opening another program stops the Jacobian of the old one.
        j.computeAnyway();
        Thread u = worker.last.get();
        assertTrue(u != t && u.isAlive());
        worker.async = false;
        vm.open(JacobianViewModelTest.MLP);
        u.join(1000);
        assertFalse(u.isAlive(), "the old program's Jacobian stopped when another was opened");
    }
}
