// Gradscope's CUDA kernels: every primitive of the Backend interface (engine/.../tensor/Backend.java).
// Compiled to PTX by build-ptx.sh (nvcc) and committed, so a machine without nvcc still runs them;
// loaded with cuModuleLoadData by CudaBackend. Float and double share templates; names carry _f32/_f64.
//
// Strided operands are described by a small int array ("meta") in device memory:
//   meta[0] = rank, meta[1..rank] = shape, then per operand: rank strides and one offset.
// Operand 0 is always the output. Elementwise kernels walk the output in C order.

#include <cuda_runtime.h>
#include <math_constants.h>

#define MAX_RANK 16
#define INDEX32_MAX 0x7fffffffLL

// The element offsets of NOPS operands for the element at C-order index `linear` of the shape.
// The host coalesces dimensions first (a contiguous operand is rank 1), and the outermost
// dimension needs no division (its index is what is left). I is the index type: unsigned int
// where the element count allows, so the divisions are 32-bit.
template <typename I, int NOPS>
__device__ __forceinline__ void operand_offsets(const int* meta, I linear, long long* off) {
    int rank = meta[0];
    const int* shape = meta + 1;
    const int* st = meta + 1 + rank;
    for (int op = 0; op < NOPS; op++) off[op] = st[op * (rank + 1) + rank];
    for (int d = rank - 1; d > 0; d--) {
        I s = (I)shape[d];
        I i = linear % s;
        linear /= s;
        for (int op = 0; op < NOPS; op++) off[op] += (long long)i * st[op * (rank + 1) + d];
    }
    if (rank > 0) {
        for (int op = 0; op < NOPS; op++) off[op] += (long long)linear * st[op * (rank + 1)];
    }
}

// Calls f(offsets) for each of the n elements, grid-stride.
template <int NOPS, typename F>
__device__ __forceinline__ void for_each_element(const int* meta, long long n, F f) {
    long long off[NOPS];
    if (n <= INDEX32_MAX) {
        unsigned un = (unsigned)n;
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < un; i += gridDim.x * blockDim.x) {
            operand_offsets<unsigned, NOPS>(meta, i, off);
            f(off);
        }
    } else {
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < (unsigned long long)n;
             i += (unsigned long long)gridDim.x * blockDim.x) {
            operand_offsets<unsigned long long, NOPS>(meta, i, off);
            f(off);
        }
    }
}

// Unary kinds, in the order of io.gradscope.engine.tensor.UnaryKind.
enum { U_NEG, U_EXP, U_LOG, U_SQRT, U_ABS, U_SIGN, U_SIN, U_COS, U_TANH, U_SIGMOID, U_RELU, U_STEP, U_SOFTPLUS,
       U_SOFTPLUS_GRAD, U_GELU, U_GELU_GRAD, U_POW, U_FINITE_OR_ZERO, U_ERF };
// Binary kinds, in the order of io.gradscope.engine.tensor.BinaryKind.
enum { B_ADD, B_SUB, B_MUL, B_DIV, B_MAX, B_MIN, B_EQ, B_GT };

__device__ __forceinline__ double sigmoid_d(double v) {
    if (v >= 0) return 1.0 / (1.0 + exp(-v));
    double e = exp(v);
    return e / (1.0 + e);
}

__device__ double unary_op(int k, double p, double x) {
    const double c = 0.7978845608028654;  // sqrt(2/pi)
    switch (k) {
        case U_NEG: return -x;
        case U_EXP: return exp(x);
        case U_LOG: return log(x);
        case U_SQRT: return sqrt(x);
        case U_ABS: return fabs(x);
        case U_SIGN: return x > 0 ? 1.0 : (x < 0 ? -1.0 : (x == 0 ? 0.0 : x));
        case U_SIN: return sin(x);
        case U_COS: return cos(x);
        case U_TANH: return tanh(x);
        case U_SIGMOID: return sigmoid_d(x);
        case U_RELU: return x != x ? x : fmax(x, 0.0);
        case U_STEP: return x > 0 ? 1.0 : 0.0;
        case U_SOFTPLUS: return x > 20.0 ? x : log1p(exp(x));
        case U_SOFTPLUS_GRAD: return x > 20.0 ? 1.0 : sigmoid_d(x);
        case U_GELU: return 0.5 * x * (1.0 + tanh(c * (x + 0.044715 * x * x * x)));
        case U_GELU_GRAD: {
            double t = tanh(c * (x + 0.044715 * x * x * x));
            return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * x * x);
        }
        case U_POW: return p == 2.0 ? x * x : (p == 1.0 ? x : pow(x, p));
        case U_FINITE_OR_ZERO: return isfinite(x) ? x : 0.0;
        case U_ERF: return erf(x);
    }
    return CUDART_NAN;
}

__device__ double binary_op(int k, double a, double b) {
    switch (k) {
        case B_ADD: return a + b;
        case B_SUB: return a - b;
        case B_MUL: return a * b;
        case B_DIV: return a / b;
        case B_MAX: return (a != a || b != b) ? CUDART_NAN : fmax(a, b);
        case B_MIN: return (a != a || b != b) ? CUDART_NAN : fmin(a, b);
        case B_EQ: return a == b ? 1.0 : 0.0;
        case B_GT: return a > b ? 1.0 : 0.0;
    }
    return CUDART_NAN;
}

template <typename T>
__device__ void fill_t(T* out, const int* meta, long long n, double v) {
    for_each_element<1>(meta, n, [&](const long long* off) { out[off[0]] = (T)v; });
}

template <typename S, typename D>
__device__ void copy_t(D* out, const S* src, const int* meta, long long n) {
    for_each_element<2>(meta, n, [&](const long long* off) { out[off[0]] = (D)src[off[1]]; });
}

template <typename T>
__device__ void unary_t(int kind, double p, T* out, const T* x, const int* meta, long long n) {
    for_each_element<2>(meta, n, [&](const long long* off) { out[off[0]] = (T)unary_op(kind, p, (double)x[off[1]]); });
}

template <typename T>
__device__ void binary_t(int kind, T* out, const T* a, const T* b, const int* meta, long long n) {
    for_each_element<3>(meta, n, [&](const long long* off) {
        out[off[0]] = (T)binary_op(kind, (double)a[off[1]], (double)b[off[2]]);
    });
}

// Reductions. meta = rank, inShape[rank], xStrides[rank], xOffset, outStrides[rank], outOffset,
// with the host's coalesced dimensions; an output stride of -1 marks a reduced dimension. out has
// the keepdim shape. Sums are in double, in a fixed order (deterministic); MAX propagates NaN.
struct ReduceMeta {
    int rank;
    const int* shape;
    const int* xs;
    int xoff;
    const int* os;
    int ooff;
    long long m;  // the reduced elements per output
};

__device__ __forceinline__ ReduceMeta reduce_meta(const int* meta) {
    ReduceMeta r;
    r.rank = meta[0];
    r.shape = meta + 1;
    r.xs = meta + 1 + r.rank;
    r.xoff = r.xs[r.rank];
    r.os = r.xs + r.rank + 1;
    r.ooff = r.os[r.rank];
    r.m = 1;
    for (int d = 0; d < r.rank; d++)
        if (r.os[d] < 0) r.m *= r.shape[d];
    return r;
}

__device__ __forceinline__ double reduce_init(int kind) {
    return kind == 0 ? 0.0 : -CUDART_INF;
}

__device__ __forceinline__ double reduce_combine(int kind, double acc, double v) {
    if (kind == 0) return acc + v;
    return (v != v || acc != acc) ? CUDART_NAN : fmax(acc, v);
}

// Output o (C order over the kept dimensions): its x base offset and its out offset.
__device__ __forceinline__ void kept_offsets(const ReduceMeta& r, long long o, long long* base, long long* dst) {
    long long b = r.xoff, t = r.ooff;
    for (int d = r.rank - 1; d >= 0; d--) {
        if (r.os[d] < 0) continue;
        int i = (int)(o % r.shape[d]);
        o /= r.shape[d];
        b += (long long)i * r.xs[d];
        t += (long long)i * r.os[d];
    }
    *base = b;
    *dst = t;
}

// The x offset (from the base) of reduced element j, C order over the reduced dimensions; the
// outermost reduced dimension needs no division (one reduced dimension: none at all).
template <typename I>
__device__ __forceinline__ long long reduced_offset(const ReduceMeta& r, int outer, I j) {
    long long off = 0;
    for (int d = r.rank - 1; d > outer; d--) {
        if (r.os[d] >= 0) continue;
        I s = (I)r.shape[d];
        I i = j % s;
        j /= s;
        off += (long long)i * r.xs[d];
    }
    return off + (long long)j * r.xs[outer];
}

__device__ __forceinline__ int outer_reduced(const ReduceMeta& r) {
    for (int d = 0; d < r.rank; d++)
        if (r.os[d] < 0) return d;
    return -1;
}

// Reduces x[base + reduced j] for j in [j0, j1), stepping by `step`, into acc.
template <typename T, typename I>
__device__ __forceinline__ double reduce_range(int kind, const T* x, const ReduceMeta& r, int outer, long long base, I j0, I j1,
                                               I step, double acc) {
    if (outer < 0) return j0 < j1 ? reduce_combine(kind, acc, (double)x[base]) : acc;
    for (I j = j0; j < j1; j += step) acc = reduce_combine(kind, acc, (double)x[base + reduced_offset<I>(r, outer, j)]);
    return acc;
}

// Many outputs: one thread per output element, a serial loop over its reduced elements.
template <typename T>
__device__ void reduce_t(int kind, T* out, const T* x, const int* meta, long long nOut) {
    ReduceMeta r = reduce_meta(meta);
    int outer = outer_reduced(r);
    for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < nOut; o += (long long)gridDim.x * blockDim.x) {
        long long base, dst;
        kept_offsets(r, o, &base, &dst);
        double acc = r.m <= INDEX32_MAX ? reduce_range<T, unsigned>(kind, x, r, outer, base, 0u, (unsigned)r.m, 1u, reduce_init(kind))
                                        : reduce_range<T, unsigned long long>(kind, x, r, outer, base, 0ull, (unsigned long long)r.m, 1ull, reduce_init(kind));
        out[dst] = (T)acc;
    }
}

// Block-wide sum or NaN-propagating max (blockDim.x a power of two, at most 256); all threads get it.
__device__ double block_reduce(int kind, double v, double* sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < (unsigned)s) sh[threadIdx.x] = reduce_combine(kind, sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    double res = sh[0];
    __syncthreads();
    return res;
}

// Few outputs: `splits` blocks per output (grid x = nOut * splits), each reducing `chunk`
// consecutive reduced elements with all its threads, then a tree in shared memory. With one split
// the block writes the output; otherwise partial[o * splits + s], combined by reduce_finish.
template <typename T>
__device__ void reduce_blocks_t(int kind, T* out, double* partial, const T* x, const int* meta, long long nOut, int splits,
                                long long chunk) {
    __shared__ double sh[256];
    ReduceMeta r = reduce_meta(meta);
    int outer = outer_reduced(r);
    long long o = blockIdx.x / splits;
    int s = (int)(blockIdx.x % splits);
    if (o >= nOut) return;  // the whole block: the barriers below stay uniform
    long long base, dst;
    kept_offsets(r, o, &base, &dst);
    long long j0 = s * chunk;
    long long j1 = j0 + chunk < r.m ? j0 + chunk : r.m;
    double acc = reduce_init(kind);
    if (r.m <= INDEX32_MAX) {
        acc = reduce_range<T, unsigned>(kind, x, r, outer, base, (unsigned)j0 + threadIdx.x, (unsigned)j1, blockDim.x, acc);
    } else {
        acc = reduce_range<T, unsigned long long>(kind, x, r, outer, base, (unsigned long long)j0 + threadIdx.x,
                                                  (unsigned long long)j1, blockDim.x, acc);
    }
    acc = block_reduce(kind, acc, sh);
    if (threadIdx.x == 0) {
        if (splits == 1) out[dst] = (T)acc;
        else partial[o * splits + s] = acc;
    }
}

// The second pass: one thread per output combines its splits' partials in order.
template <typename T>
__device__ void reduce_finish_t(int kind, T* out, const double* partial, const int* meta, long long nOut, int splits) {
    ReduceMeta r = reduce_meta(meta);
    for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < nOut; o += (long long)gridDim.x * blockDim.x) {
        long long base, dst;
        kept_offsets(r, o, &base, &dst);
        double acc = reduce_init(kind);
        for (int s = 0; s < splits; s++) acc = reduce_combine(kind, acc, partial[o * splits + s]);
        out[dst] = (T)acc;
    }
}

// Batched matmul C[p] = A[p] B[p]: A [M, K] with strides (ars, acs), B [K, N] (brs, bcs), C
// contiguous [M, N] at p*M*N. aOff/bOff: per-batch element offsets. 64x64 tiles, 16x16 threads,
// each thread a 4x4 block of C in registers; BK = 16 columns of A / rows of B per shared tile.
// The tiles of every matrix are numbered along grid x alone (column tile fastest, then row
// tile, then batch entry from p0): grid y and z stop at 65,535, x at 2^31 - 1.
#define TM 64
#define TN 64
#define TK 16
template <typename T>
__device__ void matmul_t(const T* A, const T* B, T* C, const long long* aOff, const long long* bOff, int M, int N, int K,
                         int ars, int acs, int brs, int bcs, int p0) {
    __shared__ T As[TK][TM + 1];
    __shared__ T Bs[TK][TN + 1];
    unsigned colTiles = (N + TN - 1) / TN, rowTiles = (M + TM - 1) / TM;
    unsigned tile = blockIdx.x;
    int col0 = (int)(tile % colTiles) * TN;
    tile /= colTiles;
    int row0 = (int)(tile % rowTiles) * TM;
    long long p = p0 + (long long)(tile / rowTiles);
    const T* a = A + aOff[p];
    const T* b = B + bOff[p];
    T* c = C + p * M * N;
    int tx = threadIdx.x, ty = threadIdx.y;
    T acc[4][4];
    for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) acc[i][j] = 0;
    int tid = ty * 16 + tx;
    for (int k0 = 0; k0 < K; k0 += TK) {
        for (int e = tid; e < TM * TK; e += 256) {
            int r = e / TK, kk = e % TK;
            int gr = row0 + r, gk = k0 + kk;
            As[kk][r] = (gr < M && gk < K) ? a[(long long)gr * ars + (long long)gk * acs] : (T)0;
        }
        for (int e = tid; e < TK * TN; e += 256) {
            int kk = e / TN, cc = e % TN;
            int gk = k0 + kk, gc = col0 + cc;
            Bs[kk][cc] = (gk < K && gc < N) ? b[(long long)gk * brs + (long long)gc * bcs] : (T)0;
        }
        __syncthreads();
        for (int kk = 0; kk < TK; kk++) {
            T ar[4], br[4];
            for (int i = 0; i < 4; i++) ar[i] = As[kk][ty * 4 + i];
            for (int j = 0; j < 4; j++) br[j] = Bs[kk][tx * 4 + j];
            for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) acc[i][j] += ar[i] * br[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++) {
        int r = row0 + ty * 4 + i;
        if (r >= M) continue;
        for (int j = 0; j < 4; j++) {
            int cc = col0 + tx * 4 + j;
            if (cc < N) c[(long long)r * N + cc] = acc[i][j];
        }
    }
}

template <typename T, typename I>
__device__ __forceinline__ void onehot_loop(const long long* labels, T* out, I total, I classes) {
    for (I i = blockIdx.x * (I)blockDim.x + threadIdx.x; i < total; i += (I)gridDim.x * blockDim.x) {
        I row = i / classes;
        long long col = (long long)(i - row * classes);
        out[i] = labels[row] == col ? (T)1 : (T)0;
    }
}

template <typename T>
__device__ void onehot_t(const long long* labels, T* out, long long n, int classes) {
    long long total = n * classes;
    if (total <= INDEX32_MAX) onehot_loop<T, unsigned>(labels, out, (unsigned)total, (unsigned)classes);
    else onehot_loop<T, unsigned long long>(labels, out, (unsigned long long)total, (unsigned long long)classes);
}

// Block-wide sum of a double (blockDim.x a power of two, at most 1024).
__device__ double block_sum(double v, double* sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

__device__ double block_max(double v, double* sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] = fmax(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

// Softmax over rows of a contiguous [rows, d]: one block per row.
template <typename T>
__device__ void softmax_t(const T* x, T* y, int rows, int d, int log_) {
    __shared__ double sh[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const T* xr = x + (long long)r * d;
    T* yr = y + (long long)r * d;
    double m = -CUDART_INF;
    for (int i = threadIdx.x; i < d; i += blockDim.x) m = fmax(m, (double)xr[i]);
    m = block_max(m, sh);
    double shift = isinf(m) ? 0.0 : m;
    double s = 0;
    for (int i = threadIdx.x; i < d; i += blockDim.x) s += exp((double)xr[i] - shift);
    s = block_sum(s, sh);
    if (log_) {
        double lse = log(s) + shift;
        for (int i = threadIdx.x; i < d; i += blockDim.x) yr[i] = (T)((double)xr[i] - lse);
    } else {
        for (int i = threadIdx.x; i < d; i += blockDim.x) yr[i] = (T)(exp((double)xr[i] - shift) / s);
    }
}

template <typename T>
__device__ void softmax_back_t(const T* y, const T* g, T* dx, int rows, int d, int log_) {
    __shared__ double sh[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const T* yr = y + (long long)r * d;
    const T* gr = g + (long long)r * d;
    T* out = dx + (long long)r * d;
    double dot = 0;
    for (int i = threadIdx.x; i < d; i += blockDim.x) dot += log_ ? (double)gr[i] : (double)gr[i] * (double)yr[i];
    dot = block_sum(dot, sh);
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        out[i] = log_ ? (T)((double)gr[i] - exp((double)yr[i]) * dot) : (T)((double)yr[i] * ((double)gr[i] - dot));
    }
}

// LayerNorm over rows: two-pass statistics in double; writes out, xhat and rstd [rows].
template <typename T>
__device__ void layernorm_t(const T* x, const T* w, const T* b, double eps, T* out, T* xhat, T* rstd, int rows, int d) {
    __shared__ double sh[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const T* xr = x + (long long)r * d;
    double s = 0;
    for (int i = threadIdx.x; i < d; i += blockDim.x) s += (double)xr[i];
    double mean = block_sum(s, sh) / d;
    double v = 0;
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        double c = (double)xr[i] - mean;
        v += c * c;
    }
    double rs = 1.0 / sqrt(block_sum(v, sh) / d + eps);
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        double h = ((double)xr[i] - mean) * rs;
        xhat[(long long)r * d + i] = (T)h;
        out[(long long)r * d + i] = (T)(h * (double)w[i] + (double)b[i]);
    }
    if (threadIdx.x == 0) rstd[r] = (T)rs;
}

template <typename T>
__device__ void layernorm_back_t(const T* g, const T* w, const T* xhat, const T* rstd, T* dx, int rows, int d) {
    __shared__ double sh[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const T* gr = g + (long long)r * d;
    const T* hr = xhat + (long long)r * d;
    double mg = 0, mgx = 0;
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        double gw = (double)gr[i] * (double)w[i];
        mg += gw;
        mgx += gw * (double)hr[i];
    }
    mg = block_sum(mg, sh) / d;
    mgx = block_sum(mgx, sh) / d;
    double rs = (double)rstd[r];
    for (int i = threadIdx.x; i < d; i += blockDim.x) {
        double gw = (double)gr[i] * (double)w[i];
        dx[(long long)r * d + i] = (T)(rs * (gw - mg - (double)hr[i] * mgx));
    }
}

// dw[j] = Σ_r g[r, j] xhat[r, j], db[j] = Σ_r g[r, j]: one thread per column, rows in order.
template <typename T>
__device__ void column_sums_t(const T* g, const T* xhat, T* dw, T* db, int rows, int d) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    double sw = 0, sb = 0;
    for (int r = 0; r < rows; r++) {
        double gv = (double)g[(long long)r * d + j];
        sw += gv * (double)xhat[(long long)r * d + j];
        sb += gv;
    }
    if (dw) dw[j] = (T)sw;
    if (db) db[j] = (T)sb;
}

// ---- the extern "C" entry points ---------------------------------------------------------------

#define FOR_TYPES(X) X(float, f32) X(double, f64)

#define ENTRIES(T, S) \
extern "C" __global__ void fill_##S(T* out, const int* meta, long long n, double v) { fill_t<T>(out, meta, n, v); } \
extern "C" __global__ void unary_##S(int kind, double p, T* out, const T* x, const int* meta, long long n) { unary_t<T>(kind, p, out, x, meta, n); } \
extern "C" __global__ void binary_##S(int kind, T* out, const T* a, const T* b, const int* meta, long long n) { binary_t<T>(kind, out, a, b, meta, n); } \
extern "C" __global__ void reduce_##S(int kind, T* out, const T* x, const int* meta, long long n) { reduce_t<T>(kind, out, x, meta, n); } \
extern "C" __global__ void reduce_blocks_##S(int kind, T* out, double* partial, const T* x, const int* meta, long long n, int splits, long long chunk) { reduce_blocks_t<T>(kind, out, partial, x, meta, n, splits, chunk); } \
extern "C" __global__ void reduce_finish_##S(int kind, T* out, const double* partial, const int* meta, long long n, int splits) { reduce_finish_t<T>(kind, out, partial, meta, n, splits); } \
extern "C" __global__ void matmul_##S(const T* a, const T* b, T* c, const long long* ao, const long long* bo, int M, int N, int K, int ars, int acs, int brs, int bcs, int p0) { matmul_t<T>(a, b, c, ao, bo, M, N, K, ars, acs, brs, bcs, p0); } \
extern "C" __global__ void onehot_##S(const long long* labels, T* out, long long n, int classes) { onehot_t<T>(labels, out, n, classes); } \
extern "C" __global__ void softmax_##S(const T* x, T* y, int rows, int d, int log_) { softmax_t<T>(x, y, rows, d, log_); } \
extern "C" __global__ void softmax_back_##S(const T* y, const T* g, T* dx, int rows, int d, int log_) { softmax_back_t<T>(y, g, dx, rows, d, log_); } \
extern "C" __global__ void layernorm_##S(const T* x, const T* w, const T* b, double eps, T* out, T* xhat, T* rstd, int rows, int d) { layernorm_t<T>(x, w, b, eps, out, xhat, rstd, rows, d); } \
extern "C" __global__ void layernorm_back_##S(const T* g, const T* w, const T* xhat, const T* rstd, T* dx, int rows, int d) { layernorm_back_t<T>(g, w, xhat, rstd, dx, rows, d); } \
extern "C" __global__ void column_sums_##S(const T* g, const T* xhat, T* dw, T* db, int rows, int d) { column_sums_t<T>(g, xhat, dw, db, rows, d); }

FOR_TYPES(ENTRIES)

extern "C" __global__ void fill_i64(long long* out, const int* meta, long long n, double v) { fill_t<long long>(out, meta, n, v); }

#define COPY(S, SN, D, DN) \
extern "C" __global__ void copy_##SN##_##DN(D* out, const S* src, const int* meta, long long n) { copy_t<S, D>(out, src, meta, n); }
COPY(float, f32, float, f32) COPY(float, f32, double, f64) COPY(float, f32, long long, i64)
COPY(double, f64, float, f32) COPY(double, f64, double, f64) COPY(double, f64, long long, i64)
COPY(long long, i64, float, f32) COPY(long long, i64, double, f64) COPY(long long, i64, long long, i64)
