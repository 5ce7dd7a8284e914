package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

/** Cancel stops the worker itself at its next statement, not only the window's wait for it. */
class CancelWorkerTest {

    @Test
    void aCancelledRunsWorkerStopsLongBeforeTheProgramCouldHaveFinished() throws Exception {
        BlockingQueue<Runnable> ui = new LinkedBlockingQueue<>();
        List<Thread> workers = new ArrayList<>();
        SessionViewModel vm = new SessionViewModel(new RunService(r -> {
            Thread t = new Thread(r);
            workers.add(t);
            t.start();
        }, ui::add));
        // 100,000 statements: a minute or more of work, forward and backward, on this machine.
        StringBuilder big = new StringBuilder("x = param(8, 8)\nh0 = tanh(x)\n");
        for (int i = 1; i < 100_000; i++) {
            big.append("h").append(i).append(" = tanh(h").append(i - 1).append(" @ x)\n");
        }
        vm.edit(big.append("loss = sum(h99999)\n").toString());
        vm.run();
        // Cancelled once the run is under way: its first report of a statement done.
        while (!vm.status().get().contains(" of ") && vm.running().get()) {
            ui.take().run();
        }
        assertTrue(vm.running().get(), vm.status().get());
        vm.cancel();
        while (vm.running().get()) {
            ui.take().run();
        }
        assertEquals("Run cancelled", vm.status().get());
        assertEquals(1, workers.size());
        workers.get(0).join(60_000);
        assertFalse(workers.get(0).isAlive(), "the worker still runs the cancelled program");
        assertTrue(vm.sweep().recorded().get() == null);
    }
}
