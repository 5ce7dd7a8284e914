package io.gradscope.app.service;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** A program run on the calling thread as the window runs it, with the progress messages it told on the way. */
record DirectRun(RunService.Result result, List<String> messages) {

    /** Runs {@code source} (as "p.grad", on the CPU); a failure or a cancel fails the test. */
    static DirectRun of(String source, DType dtype) {
        AtomicReference<RunService.Result> out = new AtomicReference<>();
        List<String> messages = new ArrayList<>();
        RunService.direct().run(new RunService.Request("p.grad", source, dtype, Device.CPU), new RunService.Listener() {
            @Override
            public void started(RunService.Start start) {
            }

            @Override
            public void progress(double fraction, String message) {
                messages.add(message);
            }

            @Override
            public void succeeded(RunService.Result result) {
                out.set(result);
            }

            @Override
            public void failed(RunError error) {
                throw new AssertionError(error.message());
            }

            @Override
            public void cancelled() {
                throw new AssertionError("cancelled");
            }
        });
        return new DirectRun(out.get(), messages);
    }
}
