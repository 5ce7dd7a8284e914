package io.gradscope.bench;

import io.gradscope.engine.device.cpu.CpuBackend;
import io.gradscope.engine.device.cpu.KernelTuner;
import io.gradscope.engine.ops.Ops;
import java.io.PrintStream;
import java.util.Map;

/** bench's first lines: which kernels run on this machine and why (the engine's KernelTuner), and its facts for --json. */
final class KernelLines {
    private KernelLines() {
    }

    /**
     * Measures the choices first with {@code tune} (else waits for a measurement under way, or makes
     * the first one for this machine, so that the workloads time the chosen kernels), then prints them.
     */
    static void print(PrintStream out, boolean tune) {
        long t0 = System.nanoTime();
        if (tune) {
            out.println("measuring the kernel choices for this machine...");
            KernelTuner.tuneNow();
        } else {
            KernelTuner.awaitMeasurement();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        out.printf("kernel choices (cache: %s%s):%n", KernelTuner.cacheFile(), s >= 0.5 ? String.format(", measured in %.1f s", s) : "");
        for (String line : KernelTuner.describe()) {
            out.println("  " + line);
        }
        out.println("products: " + CpuBackend.floatGemm());
        out.println("float32 3x3 convolutions: " + Ops.conv3x3Choice(CpuBackend.INSTANCE));
    }

    static Map<String, Object> machine() {
        return KernelTuner.machine();
    }

    static Map<String, String> choices() {
        return KernelTuner.choices();
    }
}
