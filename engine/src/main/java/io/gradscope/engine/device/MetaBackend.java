package io.gradscope.engine.device;

import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.tensor.Backend;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The backend of {@link Device#META}: storages without data, kernels that do nothing, reads that
 * give zeros. Allocations are accounted and announced as on the CPU, so a run here records the
 * same Alloc and Free events as a CPU run of the same program (no value ever decides an
 * allocation), which is how a remat policy's peak is predicted before anything is computed.
 */
public final class MetaBackend implements Backend {
    public static final MetaBackend INSTANCE = new MetaBackend();

    static {
        Backends.register(INSTANCE);
    }

    private final AtomicLong live = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();

    private MetaBackend() {
    }

    @Override
    public Device device() {
        return Device.META;
    }

    @Override
    public Storage allocate(DType dtype, long numel, MemoryCategory category) {
        Storage s = new Storage(dtype, Device.META, numel, null, category, st -> {
            live.addAndGet(-st.bytes());
            Allocations.released(st);
        });
        peak.accumulateAndGet(live.addAndGet(s.bytes()), Math::max);
        Allocations.allocated(s);
        return s;
    }

    @Override
    public long liveBytes() {
        return live.get();
    }

    @Override
    public long peakBytes() {
        return peak.get();
    }

    @Override
    public void resetPeak() {
        peak.set(live.get());
    }

    @Override
    public void fill(Tensor out, double value) {
    }

    @Override
    public void copy(Tensor src, Tensor dst) {
    }

    @Override
    public void unary(UnaryKind kind, double param, Tensor x, Tensor out) {
    }

    @Override
    public void binary(BinaryKind kind, Tensor a, Tensor b, Tensor out) {
    }

    @Override
    public void reduce(ReduceKind kind, Tensor x, Tensor out) {
    }

    @Override
    public void matmul(Tensor a, Tensor b, Tensor out) {
    }

    @Override
    public void oneHot(Tensor labels, Tensor out) {
    }

    @Override
    public void softmaxLastAxis(Tensor x, Tensor out, boolean log) {
    }

    @Override
    public void softmaxBackwardLastAxis(Tensor y, Tensor g, Tensor dx, boolean log) {
    }

    @Override
    public void layerNormRows(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor xhat, Tensor rstd) {
    }

    @Override
    public void layerNormBackwardRows(Tensor g, Tensor weight, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db) {
    }

    // The fused paths the CPU backend takes, taken here too (computing nothing), so that a run on
    // this device allocates exactly what the same run on the CPU allocates.

    @Override
    public boolean layerNormStats(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor stats, Tensor rstd) {
        return true;
    }

    @Override
    public boolean layerNormBackwardStats(Tensor g, Tensor x, Tensor weight, Tensor stats, Tensor rstd, Tensor dx, Tensor dw,
                                          Tensor db) {
        return true;
    }

    @Override
    public boolean crossEntropyRows(Tensor logits, Tensor labels, double scale, Tensor losses, Tensor dlogits) {
        return true;
    }

    @Override
    public boolean unaryBackward(UnaryKind kind, Tensor x, Tensor g, Tensor dx) {
        return kind == UnaryKind.RELU && x.dtype() == g.dtype() && g.dtype() == dx.dtype() && x.dtype().isFloating();
    }

    @Override
    public void upload(Tensor host, Tensor dst) {
    }

    @Override
    public double[] toDoubles(Tensor t) {
        return new double[(int) t.numel()];
    }

    @Override
    public double read(Storage s, int index) {
        return 0;
    }
}
