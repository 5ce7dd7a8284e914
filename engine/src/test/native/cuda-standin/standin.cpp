// A stand-in for the NVIDIA driver (libcuda.so.1) that runs Gradscope's kernels on the CPU, so the
// CUDA backend's plumbing (JCuda calls, kernel arguments, offsets, grid limits, allocations) is
// tested on machines without a GPU. Built by build.sh (next to this file) into target/; the test
// JVM loads it before JCuda (the system property gradscope.cuda.driver), and JCuda's native
// library, which needs libcuda.so.1, then binds to it.
//
// What it does:
// - The driver calls CudaBackend makes through JCuda: cuInit, devices, contexts (current per host
//   thread, checked), cuModuleLoadData of the PTX, cuModuleGetFunction, cuMemAlloc/cuMemFree,
//   memset and copies (checked against the allocations), cuLaunchKernel (checked against sm_90's
//   limits on grid and block sizes and static shared memory), cuCtxSynchronize.
// - The kernels are assets/kernels/gradscope.cu compiled by the host compiler with
//   include/cuda_runtime.h. Each CUDA thread of a block is a fiber with a stack of its own;
//   __syncthreads() is a barrier across the block's fibers. Blocks run one after another. Fibers
//   run in thread order between barriers, in reverse order after every other barrier, so a
//   missing barrier is likelier to show.
// - Each allocation ends against a guard page, so a kernel that overruns it faults (the JVM's crash
//   report names the kernel); freed blocks stay unmapped for a while so a use after free faults.
// - The PTX's entries are checked against the compiled kernels: same names, same parameter sizes.
// - For tests (io.gradscope.engine.device.cuda.StandIn, through JNI): a device memory limit,
//   counters, the launch log, and failing the next launches.
//
// What it cannot catch: see README.md next to this file.

#include <jni.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gradscope.cu"

#define API extern "C" __attribute__((visibility("default")))

// ---- the driver API's types and codes ------------------------------------------------------------

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
struct Context {
    int device;
};
struct Function;
struct Module {
    std::map<std::string, std::unique_ptr<Function>> functions;
};
typedef Context* CUcontext;
typedef Module* CUmodule;
typedef Function* CUfunction;
typedef void* CUstream;

enum : int {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_SUPPORTED = 801,
};

// sm_90's limits (what cuLaunchKernel checks on an H200).
static const unsigned long long MAX_GRID_X = 2147483647ULL;
static const unsigned MAX_GRID_YZ = 65535;
static const unsigned MAX_BLOCK_XY = 1024, MAX_BLOCK_Z = 64, MAX_THREADS = 1024;
static const size_t MAX_STATIC_SHARED = 48 * 1024;

// ---- state ---------------------------------------------------------------------------------------

static std::recursive_mutex lock_;
static bool initialized = false;
static thread_local Context* current = nullptr;
static std::string last_error;

static CUresult fail(CUresult code, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    last_error = buf;
    fprintf(stderr, "cuda stand-in: %s\n", buf);
    fflush(stderr);
    return code;
}

#define LOCKED std::lock_guard<std::recursive_mutex> guard_(lock_)
#define NEED_INIT \
    if (!initialized) return fail(CUDA_ERROR_NOT_INITIALIZED, "%s before cuInit", __func__)
#define NEED_CONTEXT \
    NEED_INIT;       \
    if (current == nullptr) return fail(CUDA_ERROR_INVALID_CONTEXT, "%s with no context current on this thread", __func__)

// ---- device memory -------------------------------------------------------------------------------

struct Block {
    char* base;     // the mapping
    size_t mapped;  // its length, the guard page included
    size_t size;    // what was asked for; the block ends at the guard page
};

static const size_t PAGE = (size_t)sysconf(_SC_PAGESIZE);
static std::map<uintptr_t, Block> blocks;  // by the address handed out
static std::deque<Block> quarantine;       // freed, kept unmapped-but-reserved so a use after free faults
static const size_t QUARANTINE = 256;
static size_t live_bytes = 0, memory_limit = 0;  // 0: no limit
static long long alloc_calls = 0, free_calls = 0, copy_calls = 0, launch_calls = 0;
static long long fail_launches = 0;
static std::vector<std::string> launch_log;
static const size_t LAUNCH_LOG_MAX = 100000;

// The live block holding [p, p + n), or null.
static Block* find(CUdeviceptr p, size_t n) {
    auto it = blocks.upper_bound((uintptr_t)p);
    if (it == blocks.begin()) return nullptr;
    --it;
    uintptr_t start = it->first;
    if (p < start || p - start > it->second.size || n > it->second.size - (p - start)) return nullptr;
    return &it->second;
}

// ---- kernels -------------------------------------------------------------------------------------

// One kernel of gradscope.cu: its parameter sizes, and how to bind JCuda's kernelParams to a call.
struct KernelEntry {
    const char* name;
    std::vector<size_t> sizes;
    std::function<std::function<void()>(void**)> bind;
};

template <class T>
static T read_param(void* p) {
    T v;
    memcpy(&v, p, sizeof(T));
    return v;
}

template <class... A, size_t... I>
static std::tuple<A...> unpack(void** p, std::index_sequence<I...>) {
    return std::tuple<A...>{read_param<A>(p[I])...};
}

template <class... A>
static KernelEntry entry(const char* name, void (*f)(A...)) {
    KernelEntry e;
    e.name = name;
    e.sizes = {sizeof(A)...};
    e.bind = [f](void** p) -> std::function<void()> {
        std::tuple<A...> args = unpack<A...>(p, std::index_sequence_for<A...>{});
        return [f, args]() { std::apply(f, args); };
    };
    return e;
}

// kernels.inc is K(name) for every .entry of the committed PTX (build.sh writes it).
#define K(name) entry(#name, &name),
static const std::vector<KernelEntry> KERNELS = {
#include "kernels.inc"
};
#undef K

struct Function {
    const KernelEntry* kernel;
    size_t static_shared;
};

// ---- fibers: one per CUDA thread of the running block ---------------------------------------------

gs_thread_coords* gs_current = nullptr;

extern "C" void gs_switch(void** save_sp, void* to_sp);
asm(R"(
    .text
    .p2align 4
    .globl gs_switch
    .hidden gs_switch
    .type gs_switch, @function
gs_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size gs_switch, .-gs_switch
)");

enum FiberState { READY, WAITING, DONE };
struct Fiber {
    void* sp;
    FiberState state;
    gs_thread_coords coords;
    char* top;
};

static const size_t FIBER_STACK = 256 * 1024;  // room for the JVM's crash report if a kernel faults
static std::vector<Fiber> fibers;
static void* scheduler_sp;
static Fiber* running;
static std::function<void()>* body;

static void fiber_main() {
    (*body)();
    running->state = DONE;
    gs_switch(&running->sp, scheduler_sp);
    __builtin_unreachable();
}

void __syncthreads() {
    Fiber* f = running;
    f->state = WAITING;
    gs_switch(&f->sp, scheduler_sp);
}

static bool ensure_fibers(unsigned n) {
    while (fibers.size() < n) {
        size_t span = FIBER_STACK + PAGE;
        void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) return false;
        mprotect(m, PAGE, PROT_NONE);  // the stack grows down onto this page
        Fiber f{};
        f.top = (char*)m + span;
        fibers.push_back(f);
    }
    return true;
}

static void* start_stack(char* top) {
    uint64_t* sp = (uint64_t*)top;
    *--sp = 0;                     // fiber_main's return address: it never returns
    *--sp = (uint64_t)&fiber_main; // where gs_switch's ret goes
    for (int i = 0; i < 6; i++) *--sp = 0;  // rbp, rbx, r12-r15
    return sp;
}

// Runs one block to its end; false (and why) when its threads disagree about a barrier.
static bool run_block(gs_uint3 bdim, gs_uint3 gdim, gs_uint3 bidx, std::string& why) {
    unsigned n = bdim.x * bdim.y * bdim.z;
    for (unsigned t = 0; t < n; t++) {
        Fiber& f = fibers[t];
        f.coords = {{t % bdim.x, (t / bdim.x) % bdim.y, t / (bdim.x * bdim.y)}, bidx, bdim, gdim};
        f.state = READY;
        f.sp = start_stack(f.top);
    }
    for (unsigned phase = 0;; phase++) {
        for (unsigned i = 0; i < n; i++) {
            Fiber& f = fibers[(phase & 1) ? n - 1 - i : i];
            if (f.state != READY) continue;
            running = &f;
            gs_current = &f.coords;
            gs_switch(&scheduler_sp, f.sp);
        }
        unsigned waiting = 0, done = 0;
        for (unsigned t = 0; t < n; t++) (fibers[t].state == WAITING ? waiting : done)++;
        if (waiting == 0) return true;
        if (done > 0) {
            char buf[200];
            snprintf(buf, sizeof buf, "in block (%u,%u,%u), %u threads returned while %u wait at __syncthreads()", bidx.x,
                     bidx.y, bidx.z, done, waiting);
            why = buf;
            return false;
        }
        for (unsigned t = 0; t < n; t++) fibers[t].state = READY;
    }
}

// ---- PTX -----------------------------------------------------------------------------------------

static size_t param_size(const std::string& decl) {
    // ".param .u64 name" or ".param .align 8 .b8 name[16]" (and .ptr qualifiers)
    size_t br = decl.find('[');
    if (br != std::string::npos) return (size_t)strtoull(decl.c_str() + br + 1, nullptr, 10);
    static const char* eight[] = {".u64", ".s64", ".b64", ".f64"};
    static const char* four[] = {".u32", ".s32", ".b32", ".f32"};
    for (const char* t : eight)
        if (decl.find(std::string(t) + " ") != std::string::npos) return 8;
    for (const char* t : four)
        if (decl.find(std::string(t) + " ") != std::string::npos) return 4;
    if (decl.find("16 ") != std::string::npos) return 2;
    return 1;
}

struct PtxEntry {
    std::string name;
    std::vector<size_t> sizes;
    size_t shared = 0;
};

static std::vector<PtxEntry> parse_ptx(const std::string& ptx) {
    std::vector<PtxEntry> out;
    size_t at = 0;
    while ((at = ptx.find(".entry ", at)) != std::string::npos) {
        PtxEntry e;
        size_t name0 = at + 7;
        size_t open = ptx.find('(', name0);
        size_t close = ptx.find(')', open);
        if (open == std::string::npos || close == std::string::npos) break;
        e.name = ptx.substr(name0, open - name0);
        while (!e.name.empty() && isspace((unsigned char)e.name.back())) e.name.pop_back();
        std::string params = ptx.substr(open + 1, close - open - 1);
        size_t p = 0;
        while ((p = params.find(".param", p)) != std::string::npos) {
            size_t end = params.find(',', p);
            std::string decl = params.substr(p, end == std::string::npos ? std::string::npos : end - p) + " ";
            e.sizes.push_back(param_size(decl));
            p += 6;
        }
        size_t next = ptx.find(".entry ", close);
        std::string bodyText = ptx.substr(close, next == std::string::npos ? std::string::npos : next - close);
        size_t s = 0;
        while ((s = bodyText.find(".shared .", s)) != std::string::npos) {
            size_t eol = bodyText.find('\n', s);
            std::string line = bodyText.substr(s, eol - s);
            size_t br = line.find('[');
            if (br != std::string::npos && line.find(';') != std::string::npos) e.shared += strtoull(line.c_str() + br + 1, nullptr, 10);
            s = eol;
        }
        out.push_back(e);
        at = close;
    }
    return out;
}

static std::string sizes_str(const std::vector<size_t>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
    return s + ")";
}

// ---- the driver API ------------------------------------------------------------------------------

API CUresult cuInit(unsigned int flags) {
    LOCKED;
    if (flags != 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuInit flags must be 0");
    initialized = true;
    return CUDA_SUCCESS;
}

API CUresult cuDriverGetVersion(int* v) {
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    *v = 12000;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int* count) {
    LOCKED;
    NEED_INIT;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
    LOCKED;
    NEED_INIT;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "cuDeviceGet(%d): the stand-in has one device", ordinal);
    *d = 0;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
    LOCKED;
    NEED_INIT;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "%s", "Gradscope CUDA stand-in (CPU)");
    return CUDA_SUCCESS;
}

API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
    LOCKED;
    NEED_INIT;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = memory_limit ? memory_limit : (size_t)141 << 30;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice d) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    *major = 9;
    *minor = 0;
    return d == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

API CUresult cuDeviceGetAttribute(int* v, int attribute, CUdevice d) {
    LOCKED;
    NEED_INIT;
    if (!v) return CUDA_ERROR_INVALID_VALUE;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch (attribute) {
        case 1: *v = (int)MAX_THREADS; break;           // MAX_THREADS_PER_BLOCK
        case 2: case 3: *v = (int)MAX_BLOCK_XY; break;  // MAX_BLOCK_DIM_X, Y
        case 4: *v = (int)MAX_BLOCK_Z; break;
        case 5: *v = (int)MAX_GRID_X; break;
        case 6: case 7: *v = (int)MAX_GRID_YZ; break;
        case 8: *v = (int)MAX_STATIC_SHARED; break;     // MAX_SHARED_MEMORY_PER_BLOCK
        case 10: *v = 32; break;                        // WARP_SIZE
        case 16: *v = 132; break;                       // MULTIPROCESSOR_COUNT
        case 75: *v = 9; break;                         // COMPUTE_CAPABILITY_MAJOR
        case 76: *v = 0; break;
        default: *v = 0;
    }
    return CUDA_SUCCESS;
}

API CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned int flags, CUdevice d) {
    LOCKED;
    NEED_INIT;
    (void)flags;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (d != 0) return CUDA_ERROR_INVALID_DEVICE;
    *ctx = new Context{d};
    current = *ctx;
    return CUDA_SUCCESS;
}

API CUresult cuCtxDestroy_v2(CUcontext ctx) {
    LOCKED;
    NEED_INIT;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (current == ctx) current = nullptr;
    delete ctx;
    return CUDA_SUCCESS;
}

API CUresult cuCtxSetCurrent(CUcontext ctx) {
    LOCKED;
    NEED_INIT;
    current = ctx;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(CUcontext* ctx) {
    LOCKED;
    NEED_INIT;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = current;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetDevice(CUdevice* d) {
    LOCKED;
    NEED_CONTEXT;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *d = current->device;
    return CUDA_SUCCESS;
}

API CUresult cuCtxSynchronize() {
    LOCKED;
    NEED_CONTEXT;
    return CUDA_SUCCESS;  // every launch and copy has finished when its call returns
}

API CUresult cuStreamSynchronize(CUstream s) {
    (void)s;
    return cuCtxSynchronize();
}

API CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    LOCKED;
    NEED_CONTEXT;
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    std::string ptx((const char*)image);
    if (ptx.find(".version") == std::string::npos || ptx.find(".target") == std::string::npos)
        return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: the stand-in takes PTX text only");
    std::unique_ptr<Module> m(new Module);
    for (const PtxEntry& e : parse_ptx(ptx)) {
        const KernelEntry* k = nullptr;
        for (const KernelEntry& c : KERNELS)
            if (e.name == c.name) k = &c;
        if (!k) return fail(CUDA_ERROR_INVALID_IMAGE, "the PTX has a kernel %s that the stand-in was not built with", e.name.c_str());
        if (k->sizes != e.sizes)
            return fail(CUDA_ERROR_INVALID_IMAGE, "the PTX's %s takes parameters of %s bytes, gradscope.cu's %s: is the PTX stale?",
                        e.name.c_str(), sizes_str(e.sizes).c_str(), sizes_str(k->sizes).c_str());
        m->functions[e.name].reset(new Function{k, e.shared});
    }
    if (m->functions.empty()) return fail(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: no .entry in the PTX");
    *module = m.release();
    return CUDA_SUCCESS;
}

API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n, void* opts, void** vals) {
    (void)n, (void)opts, (void)vals;
    return cuModuleLoadData(module, image);
}

API CUresult cuModuleUnload(CUmodule m) {
    LOCKED;
    NEED_CONTEXT;
    delete m;
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
    LOCKED;
    NEED_CONTEXT;
    if (!f || !m || !name) return CUDA_ERROR_INVALID_VALUE;
    auto it = m->functions.find(name);
    if (it == m->functions.end()) return fail(CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction: no kernel %s in the module", name);
    *f = it->second.get();
    return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytes) {
    LOCKED;
    NEED_CONTEXT;
    if (!dptr || bytes == 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc of %zu bytes", bytes);
    if (memory_limit && (bytes > memory_limit || live_bytes > memory_limit - bytes)) return CUDA_ERROR_OUT_OF_MEMORY;
    size_t pages = (bytes + PAGE - 1) / PAGE * PAGE;
    size_t mapped = pages + PAGE;
    void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    char* guard = (char*)m + pages;
    mprotect(guard, PAGE, PROT_NONE);
    Block b{(char*)m, mapped, bytes};
    uintptr_t user = (uintptr_t)(guard - bytes);
    blocks[user] = b;
    live_bytes += bytes;
    alloc_calls++;
    *dptr = (CUdeviceptr)user;
    return CUDA_SUCCESS;
}

API CUresult cuMemFree_v2(CUdeviceptr p) {
    LOCKED;
    NEED_CONTEXT;
    auto it = blocks.find((uintptr_t)p);
    if (it == blocks.end()) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFree(0x%llx): not an allocation", p);
    Block b = it->second;
    blocks.erase(it);
    live_bytes -= b.size;
    free_calls++;
    madvise(b.base, b.mapped, MADV_DONTNEED);
    mprotect(b.base, b.mapped, PROT_NONE);
    quarantine.push_back(b);
    if (quarantine.size() > QUARANTINE) {
        munmap(quarantine.front().base, quarantine.front().mapped);
        quarantine.pop_front();
    }
    return CUDA_SUCCESS;
}

API CUresult cuMemGetInfo_v2(size_t* freeBytes, size_t* total) {
    LOCKED;
    NEED_CONTEXT;
    size_t t = memory_limit ? memory_limit : (size_t)141 << 30;
    if (freeBytes) *freeBytes = t - live_bytes;
    if (total) *total = t;
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
    LOCKED;
    NEED_CONTEXT;
    if (n == 0) return CUDA_SUCCESS;
    if (!find(p, n)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemsetD8 of %zu bytes at 0x%llx: outside every allocation", n, p);
    memset((void*)p, v, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned int v, size_t n) {
    LOCKED;
    NEED_CONTEXT;
    if (n == 0) return CUDA_SUCCESS;
    if (p % 4 != 0 || n > SIZE_MAX / 4 || !find(p, n * 4))
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemsetD32 of %zu words at 0x%llx: outside every allocation", n, p);
    for (size_t i = 0; i < n; i++) ((unsigned int*)p)[i] = v;
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) {
    LOCKED;
    NEED_CONTEXT;
    copy_calls++;
    if (n == 0) return CUDA_SUCCESS;
    if (!src) return CUDA_ERROR_INVALID_VALUE;
    if (!find(dst, n)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoD of %zu bytes to 0x%llx: outside every allocation", n, dst);
    memcpy((void*)dst, src, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) {
    LOCKED;
    NEED_CONTEXT;
    copy_calls++;
    if (n == 0) return CUDA_SUCCESS;
    if (!dst) return CUDA_ERROR_INVALID_VALUE;
    if (!find(src, n)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoH of %zu bytes from 0x%llx: outside every allocation", n, src);
    memcpy(dst, (const void*)src, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    LOCKED;
    NEED_CONTEXT;
    copy_calls++;
    if (n == 0) return CUDA_SUCCESS;
    if (!find(dst, n) || !find(src, n)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoD of %zu bytes: outside every allocation", n);
    memmove((void*)dst, (const void*)src, n);
    return CUDA_SUCCESS;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned sharedBytes, CUstream stream, void** params, void** extra) {
    LOCKED;
    NEED_CONTEXT;
    (void)stream;
    if (!f) return fail(CUDA_ERROR_INVALID_HANDLE, "cuLaunchKernel of a null function");
    const char* name = f->kernel->name;
    if (extra) return fail(CUDA_ERROR_NOT_SUPPORTED, "%s: the stand-in takes kernelParams, not extra", name);
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0)
        return fail(CUDA_ERROR_INVALID_VALUE, "%s: a grid or block dimension is 0", name);
    if (gx > MAX_GRID_X || gy > MAX_GRID_YZ || gz > MAX_GRID_YZ)
        return fail(CUDA_ERROR_INVALID_VALUE, "%s: grid (%u,%u,%u) over the limits (%llu,%u,%u)", name, gx, gy, gz, MAX_GRID_X,
                    MAX_GRID_YZ, MAX_GRID_YZ);
    if (bx > MAX_BLOCK_XY || by > MAX_BLOCK_XY || bz > MAX_BLOCK_Z || (unsigned long long)bx * by * bz > MAX_THREADS)
        return fail(CUDA_ERROR_INVALID_VALUE, "%s: block (%u,%u,%u) over the limits", name, bx, by, bz);
    if (f->static_shared + sharedBytes > MAX_STATIC_SHARED)
        return fail(CUDA_ERROR_INVALID_VALUE, "%s: %zu bytes of shared memory, over 48 KiB", name, f->static_shared + sharedBytes);
    if (!params && !f->kernel->sizes.empty()) return fail(CUDA_ERROR_INVALID_VALUE, "%s: no kernelParams", name);
    for (size_t i = 0; i < f->kernel->sizes.size(); i++)
        if (!params[i]) return fail(CUDA_ERROR_INVALID_VALUE, "%s: kernelParams[%zu] is null", name, i);
    launch_calls++;
    if (launch_log.size() < LAUNCH_LOG_MAX) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s grid=%u,%u,%u block=%u,%u,%u", name, gx, gy, gz, bx, by, bz);
        launch_log.push_back(buf);
    }
    if (fail_launches > 0) {
        fail_launches--;
        last_error = std::string(name) + ": failed on request (a test)";  // expected: not printed
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    unsigned n = bx * by * bz;
    if (!ensure_fibers(n)) return fail(CUDA_ERROR_OUT_OF_MEMORY, "%s: no memory for %u fiber stacks", name, n);
    std::function<void()> call = f->kernel->bind(params);
    body = &call;
    gs_uint3 bdim{bx, by, bz}, gdim{gx, gy, gz};
    std::string why;
    for (unsigned z = 0; z < gz; z++)
        for (unsigned y = 0; y < gy; y++)
            for (unsigned x = 0; x < gx; x++)
                if (!run_block(bdim, gdim, gs_uint3{x, y, z}, why)) {
                    body = nullptr;
                    return fail(CUDA_ERROR_LAUNCH_FAILED, "%s: %s", name, why.c_str());
                }
    body = nullptr;
    gs_current = nullptr;
    return CUDA_SUCCESS;
}

API CUresult cuGetErrorName(CUresult e, const char** s) {
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    switch (e) {
        case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
        case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
        case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
        case CUDA_ERROR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; break;
        case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
        case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; break;
        case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
        case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
        default: *s = "CUDA_ERROR_UNKNOWN";
    }
    return CUDA_SUCCESS;
}

API CUresult cuGetErrorString(CUresult e, const char** s) {
    return cuGetErrorName(e, s);
}

// ---- for tests: io.gradscope.engine.device.cuda.StandIn -------------------------------------------

#define JNI_FN(ret, name) extern "C" JNIEXPORT ret JNICALL Java_io_gradscope_engine_device_cuda_StandIn_##name

JNI_FN(void, setMemoryLimit)(JNIEnv*, jclass, jlong bytes) {
    LOCKED;
    memory_limit = bytes > 0 ? (size_t)bytes : 0;
}

JNI_FN(jlong, liveBytes)(JNIEnv*, jclass) {
    LOCKED;
    return (jlong)live_bytes;
}

JNI_FN(jlong, liveAllocations)(JNIEnv*, jclass) {
    LOCKED;
    return (jlong)blocks.size();
}

JNI_FN(jlong, allocCalls)(JNIEnv*, jclass) {
    LOCKED;
    return alloc_calls;
}

JNI_FN(jlong, freeCalls)(JNIEnv*, jclass) {
    LOCKED;
    return free_calls;
}

JNI_FN(jlong, copyCalls)(JNIEnv*, jclass) {
    LOCKED;
    return copy_calls;
}

JNI_FN(void, failNextLaunches)(JNIEnv*, jclass, jint n) {
    LOCKED;
    fail_launches = n;
}

JNI_FN(jstring, takeLaunches)(JNIEnv* env, jclass) {
    LOCKED;
    std::string s;
    for (const std::string& l : launch_log) s += l + "\n";
    launch_log.clear();
    return env->NewStringUTF(s.c_str());
}

JNI_FN(jstring, lastError)(JNIEnv* env, jclass) {
    LOCKED;
    return env->NewStringUTF(last_error.c_str());
}
