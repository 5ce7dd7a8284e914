package io.gradscope.engine.tensor;


/**
 * Memory and the small set of primitive kernels every op is built from. Tensors passed in may have
 * any strides (zero strides for broadcast inputs); outputs are written through their strides.
 * A backend only computes: shapes are checked and gradients recorded by the op table. A backend
 * is its device's {@link Allocator}, which it registers as it starts ({@link Backends#register}).
 */
public interface Backend extends Allocator {
    Device device();

    /** A zero-filled storage; the allocation is accounted and reported as a trace event. */
    @Override
    Storage allocate(DType dtype, long numel, MemoryCategory category);

    /**
     * A storage whose elements are unspecified (a reused block keeps what it held): for an output
     * the kernel writes in full. Backends that cannot tell the difference zero it anyway.
     */
    @Override
    default Storage allocateUninitialized(DType dtype, long numel, MemoryCategory category) {
        return allocate(dtype, numel, category);
    }

    /** Bytes currently allocated and not released (active bytes). */
    long liveBytes();

    /** Bytes the backend's allocator holds: the active bytes, and blocks cached for reuse. */
    @Override
    default long reservedBytes() {
        return liveBytes();
    }

    /** Gives the blocks cached for reuse back to the system. */
    default void freeCached() {
    }

    /** The most bytes live at once since start (or {@link #resetPeak()}). */
    long peakBytes();

    void resetPeak();

    void fill(Tensor out, double value);

    /** Copies {@code src} into {@code dst} (same shape), converting the dtype. */
    void copy(Tensor src, Tensor dst);

    void unary(UnaryKind kind, double param, Tensor x, Tensor out);

    /** {@code a} and {@code b} are already viewed with {@code out}'s shape (zero strides to broadcast). */
    void binary(BinaryKind kind, Tensor a, Tensor b, Tensor out);

    /** {@code out} has {@code x}'s rank, with size 1 on each reduced axis. */
    void reduce(ReduceKind kind, Tensor x, Tensor out);

    /**
     * {@code [B..., M, K] @ [B..., K, N] -> [B..., M, N]}; the batch dimensions are already broadcast.
     * Writes every element of {@code out}, whatever it held (zeros where K = 0).
     */
    void matmul(Tensor a, Tensor b, Tensor out);

    /** {@code out[..., c] = (labels[...] == c) ? 1 : 0}; out has the labels' shape plus one axis. */
    void oneHot(Tensor labels, Tensor out);

    /**
     * Softmax (or log-softmax) over the last axis. {@code x} and {@code out} are contiguous with the
     * same shape; each row is max-subtracted.
     */
    void softmaxLastAxis(Tensor x, Tensor out, boolean log);

    /**
     * The softmax VJP over the last axis: {@code dx = y ⊙ (g − Σ g ⊙ y)}, or for log-softmax
     * {@code dx = g − exp(y) ⊙ Σ g}. All contiguous, same shape.
     */
    void softmaxBackwardLastAxis(Tensor y, Tensor g, Tensor dx, boolean log);

    /**
     * LayerNorm over the last axis of contiguous {@code x [R, D]}: writes {@code out}, the normalised
     * {@code xhat} and the reciprocal standard deviation {@code rstd [R, 1]} (two-pass statistics).
     */
    void layerNormRows(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor xhat, Tensor rstd);

    /**
     * LayerNorm's VJP from the saved {@code xhat} and {@code rstd}: {@code dx} (may be null), and the
     * sums {@code dw = Σ g ⊙ x̂}, {@code db = Σ g} over rows (either may be null). Deterministic.
     */
    void layerNormBackwardRows(Tensor g, Tensor weight, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db);

    /**
     * LayerNorm over the last axis of contiguous {@code x [R..., D]} saving only row statistics: writes
     * {@code out}, {@code stats [R..., 2]} (each row's mean as m + δ, δ a small correction that keeps
     * the precision of inputs far from 0) and {@code rstd [R..., 1]}; the VJP recomputes x̂ from x, so
     * no tensor of x's size is kept. False where the backend has no such kernel (the op then uses
     * {@link #layerNormRows}).
     */
    default boolean layerNormStats(Tensor x, Tensor weight, Tensor bias, double eps, Tensor out, Tensor stats, Tensor rstd) {
        return false;
    }

    /**
     * The VJP of {@link #layerNormStats}: as {@link #layerNormBackwardRows}, with x̂ recomputed from
     * the contiguous {@code x}, {@code stats} and {@code rstd}. False where the backend has none.
     */
    default boolean layerNormBackwardStats(Tensor g, Tensor x, Tensor weight, Tensor stats, Tensor rstd, Tensor dx, Tensor dw,
                                           Tensor db) {
        return false;
    }

    /**
     * Batch norm's per-channel affine map in one pass: {@code out = x·alpha[c] + beta[c]} for
     * {@code x, out [N, C, ...]} (out fresh, x's shape) and {@code alpha, beta [C]}; beta null: the
     * product alone. False where the backend has no kernel for these tensors (the op then composes
     * broadcast products).
     */
    default boolean channelAffine(Tensor x, Tensor alpha, Tensor beta, Tensor out) {
        return false;
    }

    /**
     * Training batch norm's statistics of {@code x [N, C, ...]} over every axis but 1, into the fresh
     * {@code [C]} tensors {@code mean} and {@code rstd = 1/√(var + eps)} (the biased variance about
     * the mean, a second pass). Deterministic. False where the backend has no kernel.
     */
    default boolean channelStats(Tensor x, double eps, Tensor mean, Tensor rstd) {
        return false;
    }

    /**
     * Training batch norm's input gradient in one pass over {@code g} and {@code x [N, C, ...]}:
     * {@code out = a[c]·(g − b[c] − (x − m[c])·k[c])}, a, b, m, k {@code [C]}. False where the backend
     * has no kernel.
     */
    default boolean channelNormGrad(Tensor g, Tensor x, Tensor a, Tensor b, Tensor m, Tensor k, Tensor out) {
        return false;
    }

    /**
     * Batch norm's backward sums in one pass over {@code g} and {@code x [N, C, ...]}: per channel
     * {@code gsum[c] = Σ g} and {@code gxc[c] = Σ g·(x − mean[c])} over every axis but 1, into the
     * fresh {@code [C]} tensors gsum and gxc. Deterministic. False where the backend has no kernel.
     */
    default boolean channelSums(Tensor g, Tensor x, Tensor mean, Tensor gsum, Tensor gxc) {
        return false;
    }

    /**
     * Cross-entropy rows fused: for contiguous logits {@code [N, C]} and class indices {@code labels [N]}
     * (checked in range), writes each row's loss logsumexp(z) − z[label] into {@code losses [N]} and
     * (softmax(z) − onehot(label)) · scale into {@code dlogits [N, C]}. False where the backend has none
     * (the op then composes primitives).
     */
    default boolean crossEntropyRows(Tensor logits, Tensor labels, double scale, Tensor losses, Tensor dlogits) {
        return false;
    }

    /**
     * An elementwise function's VJP in one pass, {@code dx = g ⊙ f′(x)} with the bits of the unfused
     * product (for {@link UnaryKind#RELU}: {@code g · [not x ≤ 0]}, a NaN passing g). All the same shape. False where the
     * backend has no fused kernel for {@code kind}.
     */
    default boolean unaryBackward(UnaryKind kind, Tensor x, Tensor g, Tensor dx) {
        return false;
    }

    /**
     * {@code y += alpha · x} in place, in one pass over contiguous tensors of one shape and dtype
     * (an optimizer's update). False where the backend has no fused kernel for them; the caller then
     * makes the product and adds it.
     */
    default boolean axpy(double alpha, Tensor x, Tensor y) {
        return false;
    }

    /**
     * im2col in one pass: the windows of {@code x [N, C, H, W]} as a new contiguous {@code [N, C, kh,
     * kw, OH, OW]}, positions in the padding reading {@code pad}; {@code window} is {@code {kh, kw, sh,
     * sw, ph, pw, dh, dw}}. Null where the backend has no such kernel (the caller copies a strided view).
     */
    default Tensor unfold(Tensor x, int[] window, double pad, int oh, int ow) {
        return null;
    }

    /**
     * col2im in one pass: {@code cols [N, C, kh, kw, OH, OW]} summed into a new {@code [N, C, H, W]},
     * each element's window values added in kernel-offset order, those in the padding dropped. Null
     * where the backend has no such kernel.
     */
    default Tensor fold(Tensor cols, int[] window, int h, int w) {
        return null;
    }

    /**
     * A 3x3 convolution with stride 1, no dilation and one group, by a kernel of the backend's own
     * (the CPU's, on float32: a direct kernel or Winograd's F(2x2, 3x3), as measured on the machine):
     * {@code x [N, C, H, W]} correlated with
     * {@code w [K, C, 3, 3]} into a new {@code [N, K, H + 2ph − 2, W + 2pw − 2]}; with {@code
     * transposed}, {@code w [C, K, 3, 3]} flipped in both kernel axes (conv_transpose2d with stride 1
     * and padding 2 − ph, 2 − pw). {@code way} names the kernel: {@code "auto"} the backend's choice,
     * {@code "winograd"} or {@code "direct"} that one wherever it applies (the CPU's ways; see
     * gradscope.conv in ConvPath). Null where the backend has no such kernel for these tensors, or,
     * in {@code "auto"}, where it expects im2col's product to be faster (the caller multiplies
     * im2col's columns).
     */
    default Tensor conv3x3(Tensor x, Tensor w, boolean transposed, int ph, int pw, String way) {
        return null;
    }

    /** Which kernel {@link #conv3x3}'s own choice ({@code "auto"}) takes on float32, and why, in words. */
    default String conv3x3Choice() {
        return "im2col's product (no kernel of the backend's own)";
    }

    /**
     * The weight gradient of {@link #conv3x3} (not transposed): {@code dW [K, C, 3, 3]} with {@code
     * dW[k, c, i, j] = Σ g[n, k, o] · x[n, c, o + (i, j) − (ph, pw)]} over images and output positions,
     * from {@code x [N, C, H, W]} and {@code g [N, K, H + 2ph − 2, W + 2pw − 2]}; {@code way} and null
     * as {@link #conv3x3}'s.
     */
    default Tensor conv3x3WeightGrad(Tensor x, Tensor g, int ph, int pw, String way) {
        return null;
    }

    /**
     * Max pooling straight from {@code x [N, C, H, W]} (any strides), {@code window} as {@link #unfold}'s:
     * the new {@code max [N, C, 1, OH·OW]} and {@code index [N, C, 1, OH·OW]} (x's dtype), the kernel
     * offset {@code i·kw + j} of each window's first maximum among its positions inside x, or of its
     * last NaN (PyTorch's {@code val > max || isnan(val)}); −1 where no position lies inside x. Null
     * where the backend has no such kernel.
     */
    default Tensor[] maxPool(Tensor x, int[] window, int oh, int ow) {
        return null;
    }

    /**
     * Max pooling's gradient: the new {@code dx [N, C, h, w]} with each element of {@code g} (contiguous,
     * {@code N·C} planes of {@code oh·ow}) added at the position {@code index} ({@link #maxPool}'s, same
     * shape and dtype) points to; nothing for −1. Null where the backend has no such kernel.
     */
    default Tensor maxPoolBackward(Tensor g, Tensor index, int[] window, int oh, int ow, int h, int w) {
        return null;
    }

    /** Copies a contiguous CPU tensor into a contiguous tensor of this backend with the same dtype and shape. */
    void upload(Tensor host, Tensor dst);

    /** The elements in C order, as doubles, on the host. */
    double[] toDoubles(Tensor t);

    /** One element of a storage, by flat index. */
    double read(Storage s, int index);
}
