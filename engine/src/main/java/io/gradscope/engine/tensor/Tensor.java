package io.gradscope.engine.tensor;

import io.gradscope.engine.GradscopeException;
import java.util.Arrays;

/**
 * An n-dimensional array: a {@link Storage} seen through a shape, strides (in elements) and an
 * offset. Views (transpose, permute, narrow, expand, reshape where the strides allow) share the
 * storage and copy nothing. The {@code view*} methods here do not record gradients; the
 * differentiable functions are in {@link io.gradscope.engine.ops.Ops}.
 *
 * <pre>{@code
 * Tensor x = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
 * Tensor xt = x.viewPermute(1, 0);      // shape [3, 2], strides [1, 3], no copy
 * double v = xt.get(2, 1);              // 6.0
 * }</pre>
 */
public final class Tensor {
    private final Storage storage;
    private final int[] shape;
    private final int[] strides;
    private final int offset;
    private boolean requiresGrad;
    private GradNode node;
    private Tensor grad;

    public Tensor(Storage storage, int[] shape, int[] strides, int offset) {
        this.storage = storage;
        this.shape = shape;
        this.strides = strides;
        this.offset = offset;
    }

    // ---- creation -------------------------------------------------------------------------

    /** A new zero-filled contiguous tensor. */
    public static Tensor zeros(DType dtype, Device device, int... shape) {
        Shapes.checkValid("tensor", shape);
        Backend b = Backends.of(device);
        Storage s = b.allocate(dtype, Shapes.numel(shape), MemoryCategory.current());
        return new Tensor(s, shape.clone(), Shapes.contiguousStrides(shape), 0);
    }

    /**
     * A new contiguous tensor whose elements are unspecified (a reused block keeps what it held):
     * for an output a kernel writes in full. Cheaper than {@link #zeros} for large tensors.
     */
    public static Tensor empty(DType dtype, Device device, int... shape) {
        Shapes.checkValid("tensor", shape);
        Backend b = Backends.of(device);
        Storage s = b.allocateUninitialized(dtype, Shapes.numel(shape), MemoryCategory.current());
        return new Tensor(s, shape.clone(), Shapes.contiguousStrides(shape), 0);
    }

    /**
     * A new contiguous tensor of {@code like}'s dtype, device and shape, its elements unspecified (as
     * {@link #empty}); copies no shape (tensors never change theirs), for the ops' hot path.
     */
    public static Tensor emptyLike(Tensor like) {
        Storage s = Backends.of(like.device()).allocateUninitialized(like.dtype(), Shapes.numel(like.shape),
                MemoryCategory.current());
        return new Tensor(s, like.shape, like.hasRowMajorStrides() ? like.strides : Shapes.contiguousStrides(like.shape), 0);
    }

    /**
     * Whether the strides are exactly the row-major ones of the shape, size-1 axes included (a
     * contiguous view may have any stride on those, which a fresh tensor should not show).
     */
    private boolean hasRowMajorStrides() {
        int expected = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (strides[i] != expected) {
                return false;
            }
            expected *= shape[i];
        }
        return true;
    }

    public static Tensor zeros(DType dtype, int... shape) {
        return zeros(dtype, Device.CPU, shape);
    }

    /** A new contiguous tensor filled with {@code value}. */
    public static Tensor full(DType dtype, Device device, double value, int... shape) {
        Tensor t = zeros(dtype, device, shape);
        if (value != 0) {
            t.backend().fill(t, value);
        }
        return t;
    }

    /** A 0-d tensor. */
    public static Tensor scalar(double value, DType dtype) {
        return full(dtype, Device.CPU, value, new int[0]);
    }

    /** A new tensor of {@code dtype} holding {@code data} (C order), converted. */
    public static Tensor fromDoubles(DType dtype, double[] data, int... shape) {
        if (Shapes.numel(shape) != data.length) {
            throw new GradscopeException("data has " + data.length + " elements but shape " + Shapes.str(shape)
                    + " needs " + Shapes.numel(shape));
        }
        Tensor t = zeros(dtype, shape);
        Object d = t.storage.data();
        for (int i = 0; i < data.length; i++) {
            switch (dtype) {
                case FLOAT32 -> ((float[]) d)[i] = (float) data[i];
                case FLOAT64 -> ((double[]) d)[i] = data[i];
                case INT64 -> ((long[]) d)[i] = (long) data[i];
            }
        }
        return t;
    }

    /** A float64 tensor holding {@code data} in C order. */
    public static Tensor of(double[] data, int... shape) {
        return fromDoubles(DType.FLOAT64, data, shape);
    }

    /** A float32 tensor holding {@code data} in C order. */
    public static Tensor of(float[] data, int... shape) {
        double[] d = new double[data.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = data[i];
        }
        return fromDoubles(DType.FLOAT32, d, shape);
    }

    /** An int64 tensor holding {@code data} in C order. */
    public static Tensor ofLongs(long[] data, int... shape) {
        if (Shapes.numel(shape) != data.length) {
            throw new GradscopeException("data has " + data.length + " elements but shape " + Shapes.str(shape)
                    + " needs " + Shapes.numel(shape));
        }
        Tensor t = zeros(DType.INT64, shape);
        System.arraycopy(data, 0, t.storage.longs(), 0, data.length);
        return t;
    }

    // ---- metadata -------------------------------------------------------------------------

    public Storage storage() {
        return storage;
    }

    public int[] shape() {
        return shape.clone();
    }

    /** Whether {@code other} has this tensor's shape (without copying either). */
    public boolean sameShape(Tensor other) {
        return Arrays.equals(shape, other.shape);
    }

    /** Whether this tensor's shape is {@code s} (without copying it). */
    public boolean hasShape(int[] s) {
        return Arrays.equals(shape, s);
    }

    public int dim(int axis) {
        return shape[Shapes.axis("dim", axis, shape.length)];
    }

    /** The shape array itself, for this package: never changed, never handed out. */
    int[] shapeShared() {
        return shape;
    }

    public int[] strides() {
        return strides.clone();
    }

    public int offset() {
        return offset;
    }

    public int rank() {
        return shape.length;
    }

    public long numel() {
        return Shapes.numel(shape);
    }

    public DType dtype() {
        return storage.dtype();
    }

    public Device device() {
        return storage.device();
    }

    public Backend backend() {
        return Backends.of(storage.device());
    }

    /** True when the elements are laid out in C order without gaps. */
    public boolean isContiguous() {
        if (numel() == 0) {
            return true;
        }
        int expected = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expected) {
                return false;
            }
            expected *= shape[i];
        }
        return true;
    }

    // ---- autograd state -------------------------------------------------------------------

    public boolean requiresGrad() {
        return requiresGrad;
    }

    /**
     * Marks a leaf as needing a gradient (a parameter, or an input with {@code grad=True}). Only float
     * tensors can.
     */
    public Tensor setRequiresGrad(boolean on) {
        if (on && !dtype().isFloating()) {
            throw new GradscopeException("only float tensors can require a gradient, not " + dtype());
        }
        if (node != null && !node.isLeaf()) {
            throw new GradscopeException("requiresGrad can only be set on a leaf tensor");
        }
        requiresGrad = on;
        node = on ? LeafNodes.make(this) : null;
        return this;
    }

    /**
     * The node that produced this tensor (or its leaf node); null for constants. Autograd's
     * {@code Node.of(tensor)} gives it as the {@code Node} it is.
     */
    public GradNode node() {
        return node;
    }

    /**
     * The id of {@link #node()}, or -1 for a constant: what the trace and the memory accounting
     * know the value by, without needing the node itself.
     */
    public long nodeId() {
        GradNode n = node;
        return n == null ? -1 : n.id();
    }

    /** Attaches the node that produced this tensor; used by the op machinery. */
    public void attach(GradNode n) {
        this.node = n;
        this.requiresGrad = true;
    }

    /** The gradient of the last backward run, for leaves that require one. */
    public Tensor grad() {
        return grad;
    }

    public void setGrad(Tensor g) {
        this.grad = g;
    }

    // ---- views (no gradient) --------------------------------------------------------------

    public Tensor asStrided(int[] newShape, int[] newStrides, int newOffset) {
        return new Tensor(storage, newShape.clone(), newStrides.clone(), newOffset);
    }

    public Tensor viewPermute(int... perm) {
        int[] s = new int[perm.length];
        int[] st = new int[perm.length];
        for (int i = 0; i < perm.length; i++) {
            s[i] = shape[perm[i]];
            st[i] = strides[perm[i]];
        }
        return new Tensor(storage, s, st, offset);
    }

    public Tensor viewTranspose(int a, int b) {
        int[] perm = new int[rank()];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = i;
        }
        perm[a] = b;
        perm[b] = a;
        return viewPermute(perm);
    }

    public Tensor viewNarrow(int axis, int start, int length) {
        int[] s = shape.clone();
        s[axis] = length;
        int off = length == 0 ? offset : offset + start * strides[axis];
        return new Tensor(storage, s, strides.clone(), off);
    }

    /** Broadcasts to {@code target} (NumPy rules) by zero strides. */
    public Tensor viewExpand(int[] target) {
        int lead = target.length - shape.length;
        int[] st = new int[target.length];
        for (int i = 0; i < target.length; i++) {
            if (i < lead) {
                st[i] = 0;
            } else {
                int d = shape[i - lead];
                if (d == target[i]) {
                    st[i] = strides[i - lead];
                } else if (d == 1) {
                    st[i] = 0;
                } else {
                    throw new GradscopeException("cannot broadcast " + Shapes.str(shape) + " to " + Shapes.str(target));
                }
            }
        }
        return new Tensor(storage, target.clone(), st, offset);
    }

    /** A view with the new shape when the strides allow, else null. */
    public Tensor viewReshape(int[] newShape) {
        if (Shapes.numel(newShape) != numel()) {
            throw new GradscopeException("cannot reshape " + Shapes.str(shape) + " to " + Shapes.str(newShape));
        }
        if (isContiguous()) {
            return new Tensor(storage, newShape.clone(), Shapes.contiguousStrides(newShape), offset);
        }
        int[] st = ReshapeStrides.compute(shape, strides, newShape);
        return st == null ? null : new Tensor(storage, newShape.clone(), st, offset);
    }

    /** A reshaped view, or a contiguous copy when the strides do not allow a view. */
    public Tensor reshapeOrCopy(int[] newShape) {
        Tensor v = viewReshape(newShape);
        return v != null ? v : contiguous().viewReshape(newShape);
    }

    /** This tensor if contiguous, else a contiguous copy. */
    public Tensor contiguous() {
        if (isContiguous()) {
            return this;
        }
        Tensor out = empty(dtype(), device(), shape);
        backend().copy(this, out);
        return out;
    }

    /** This tensor on another device (a contiguous copy), or this tensor when it is there already. */
    public Tensor toDevice(Device target) {
        if (target == device()) {
            return this;
        }
        if (target == Device.CPU) {
            double[] v = toDoubleArray();
            return dtype() == DType.INT64 ? ofLongs(java.util.Arrays.stream(v).mapToLong(d -> (long) d).toArray(), shape)
                    : fromDoubles(dtype(), v, shape);
        }
        Tensor host = device() == Device.CPU ? contiguous() : toDevice(Device.CPU);
        Tensor dst = zeros(dtype(), target, shape);
        dst.backend().upload(host, dst);
        return dst;
    }

    /** A new tensor of {@code dtype} on {@code device} holding {@code data} (C order). */
    public static Tensor fromDoubles(DType dtype, Device device, double[] data, int... shape) {
        return fromDoubles(dtype, data, shape).toDevice(device);
    }

    /** A contiguous copy in another dtype (or this tensor when it has that dtype). */
    public Tensor to(DType target) {
        if (target == dtype()) {
            return this;
        }
        Tensor out = zeros(target, device(), shape);
        backend().copy(this, out);
        return out;
    }

    // ---- reading --------------------------------------------------------------------------

    /** All elements in C order, as doubles. */
    public double[] toDoubleArray() {
        return backend().toDoubles(this);
    }

    /** The value of a one-element tensor. */
    public double item() {
        if (numel() != 1) {
            throw new GradscopeException("item() needs a tensor with one element, not shape " + Shapes.str(shape));
        }
        return toDoubleArray()[0];
    }

    /** One element by index. */
    public double get(int... index) {
        if (index.length != shape.length) {
            throw new GradscopeException("index of rank " + index.length + " for a tensor of rank " + shape.length);
        }
        int off = offset;
        for (int i = 0; i < index.length; i++) {
            if (index[i] < 0 || index[i] >= shape[i]) {
                throw new GradscopeException("index " + Arrays.toString(index) + " out of bounds for " + Shapes.str(shape));
            }
            off += index[i] * strides[i];
        }
        return backend().read(storage, off);
    }

    @Override
    public String toString() {
        return "Tensor" + Shapes.str(shape) + " " + dtype() + (numel() <= 16 ? " " + Arrays.toString(toDoubleArray()) : "");
    }
}
