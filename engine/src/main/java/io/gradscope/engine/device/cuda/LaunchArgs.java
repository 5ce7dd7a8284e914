package io.gradscope.engine.device.cuda;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.device.cuda.CachingAllocator.Scratch;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * A kernel launch's parameters from Java values: ints, longs and doubles by value, scratch
 * buffers, tensors (their first element's device address) and device pointers.
 */
final class LaunchArgs {
    private LaunchArgs() {
    }

    static Pointer of(Object... values) {
        Pointer[] p = new Pointer[values.length];
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            if (v instanceof Integer x) {
                p[i] = Pointer.to(new int[] {x});
            } else if (v instanceof Long x) {
                p[i] = Pointer.to(new long[] {x});
            } else if (v instanceof Double x) {
                p[i] = Pointer.to(new double[] {x});
            } else if (v instanceof Scratch x) {
                p[i] = Pointer.to(x.pointer());
            } else if (v instanceof Tensor t) {
                p[i] = Pointer.to(at(t));
            } else if (v instanceof CUdeviceptr x) {
                p[i] = Pointer.to(x);
            } else {
                throw new IllegalArgumentException("kernel argument " + v);
            }
        }
        return Pointer.to(p);
    }

    /** The device address of a tensor's first element. */
    static CUdeviceptr at(Tensor t) {
        return ptr(t.storage()).withByteOffset((long) t.offset() * t.dtype().bytes());
    }

    static CUdeviceptr ptr(io.gradscope.engine.tensor.Storage s) {
        return (CUdeviceptr) s.data();
    }
}
