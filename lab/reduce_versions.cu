/*
 * reduce_versions.cu — the primers' reduction progression as numbered versions of one job: the f32 sum of n elements
 * into a float at `result` (device memory), and the version table (the only list of them). `gpuprim lab reduce`
 * validates and times them side by side; production is row 13 (LAB_REDUCE_LIBRARY), which calls gp_reduce itself.
 * Versions 01-10 combine block results with a float atomicAdd, so their last bits depend on timing; 11 and 12 are
 * deterministic for a given grid; 13 for any grid and device (the tile tree of reduce_internal.h).
 */
#include "lab_versions.h"
#include "reduce/reduce_internal.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr int B = 256; /* threads per block for every version */

__device__ __forceinline__ size_t gid() { return (size_t)blockIdx.x * blockDim.x + threadIdx.x; }

/* r01: one atomicAdd per element on the global result: correct, and every add serialises on one address. */
__global__ void r01_atomic_global(const float *x, size_t n, float *result)
{
    const size_t i = gid();
    if (i < n) atomicAdd(result, x[i]);
}

/* r02: atomics into a per-block shared sum, one global atomic per block: B times fewer global atomics, still
 * serialised within the block. */
__global__ void r02_atomic_shared(const float *x, size_t n, float *result)
{
    __shared__ float s;
    if (threadIdx.x == 0) s = 0;
    __syncthreads();
    const size_t i = gid();
    if (i < n) atomicAdd(&s, x[i]);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(result, s);
}

__device__ __forceinline__ float load_or_zero(const float *x, size_t n, size_t i) { return i < n ? x[i] : 0.0f; }

/* r03: tree in shared memory, interleaved addressing with `tid % (2s)`: half the threads of every warp idle at each
 * step (divergence) and % is slow. */
__global__ void r03_interleaved_modulo(const float *x, size_t n, float *result)
{
    __shared__ float sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = load_or_zero(x, n, gid());
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(result, sh[0]);
}

/* r04: interleaved with a strided index (2*s*tid): no divergence, but threads of a warp hit the same shared-memory
 * bank (2-, 4-, ... way conflicts). */
__global__ void r04_interleaved_strided(const float *x, size_t n, float *result)
{
    __shared__ float sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = load_or_zero(x, n, gid());
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned idx = 2 * s * t;
        if (idx < blockDim.x) sh[idx] += sh[idx + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(result, sh[0]);
}

/* r05: sequential addressing (s halves, tid < s adds tid + s): conflict-free, but half the threads idle from the
 * first step. */
__global__ void r05_sequential(const float *x, size_t n, float *result)
{
    __shared__ float sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = load_or_zero(x, n, gid());
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(result, sh[0]);
}

/* Each thread loads two elements a block apart and adds them while loading: half the blocks, every thread busy. */
__device__ __forceinline__ float first_add(const float *x, size_t n)
{
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    return load_or_zero(x, n, i) + load_or_zero(x, n, i + blockDim.x);
}

/* r06: r05 with the first add during the load. */
__global__ void r06_first_add(const float *x, size_t n, float *result)
{
    __shared__ float sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = first_add(x, n);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(result, sh[0]);
}

/* r07: r06 whose last 32 lanes finish warp-synchronously (volatile shared memory, __syncwarp between steps — needed
 * since Volta's independent thread scheduling): no block barriers for the last six steps. */
__global__ void r07_warp_unrolled(const float *x, size_t n, float *result)
{
    __shared__ float sh[B];
    const unsigned t = threadIdx.x;
    sh[t] = first_add(x, n);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = sh;
        float a = v[t] + v[t + 32];
        for (int o = 16; o > 0; o >>= 1) {
            v[t] = a;
            __syncwarp();
            a += v[t + o];
            __syncwarp();
        }
        if (t == 0) atomicAdd(result, a);
    }
}

/* r08: the cooperative-groups form of the primers: a thread_group reduces through shared memory with g.sync(). */
__device__ float group_sum(cg::thread_group g, float *temp, float val)
{
    const unsigned lane = g.thread_rank();
    for (unsigned i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync();
        if (lane < i) val += temp[lane + i];
        g.sync();
    }
    return val; /* complete in rank 0 */
}
__global__ void r08_cooperative_groups(const float *x, size_t n, float *result)
{
    __shared__ float temp[B];
    cg::thread_block block = cg::this_thread_block();
    const float v = group_sum(block, temp, first_add(x, n));
    if (block.thread_rank() == 0) atomicAdd(result, v);
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
/* Shuffles within each warp, then the warp sums through 8 shared words and one more shuffle pass. */
__device__ __forceinline__ float block_sum_shfl(float v)
{
    __shared__ float ws[B / 32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < B / 32 ? ws[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32) v = warp_sum(v);
    return v;
}

/* r09: warp shuffles in registers: no shared-memory tree, one barrier per block. */
__global__ void r09_shuffle(const float *x, size_t n, float *result)
{
    const float v = block_sum_shfl(first_add(x, n));
    if (threadIdx.x == 0) atomicAdd(result, v);
}

/* r10: the "moving grid": a grid sized from the SM count strides over the array (each thread sums many elements,
 * 16-byte loads), then r09's block sum: one atomic per block of a small grid. */
__device__ __forceinline__ float grid_stride_sum(const float *x, size_t n)
{
    float a = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if (((uintptr_t)x & 15) == 0) {
        const size_t nv = n / 4;
        const float4 *v = reinterpret_cast<const float4 *>(x);
        for (size_t i = gid(); i < nv; i += stride) {
            const float4 q = v[i];
            a += (q.x + q.y) + (q.z + q.w);
        }
        for (size_t i = nv * 4 + gid(); i < n; i += stride) a += x[i];
    } else {
        for (size_t i = gid(); i < n; i += stride) a += x[i];
    }
    return a;
}
__global__ void r10_grid_stride(const float *x, size_t n, float *result)
{
    const float v = block_sum_shfl(grid_stride_sum(x, n));
    if (threadIdx.x == 0) atomicAdd(result, v);
}

/* r11: two kernels: r10's blocks write partials, one block adds them in index order. No atomics on the result:
 * deterministic for a fixed grid. */
__global__ void r11_partials(const float *x, size_t n, float *partials)
{
    const float v = block_sum_shfl(grid_stride_sum(x, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}
__global__ void r11_final(const float *partials, unsigned count, float *result)
{
    float a = 0;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) a += partials[i];
    a = block_sum_shfl(a);
    if (threadIdx.x == 0) *result = a;
}

/* r12: one launch with the primers' last-block guard: publish the partial, __threadfence, take a ticket; the last
 * block adds the partials (in index order) and resets the ticket. */
__global__ void r12_last_block(const float *x, size_t n, float *partials, unsigned int *counter, float *result)
{
    const float v = block_sum_shfl(grid_stride_sum(x, n));
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    float a = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) a += __ldcg(partials + i);
    a = block_sum_shfl(a);
    if (threadIdx.x == 0) {
        *result = a;
        *counter = 0;
    }
}

unsigned blocks_for(size_t n, size_t per_block)
{
    size_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b ? b : 1);
}

} // namespace

#define GP__COUNTER_LAB 2

extern "C" {

/* Versions 01-10 accumulate into *result, so it starts at zero (a memset on the stream). */
#define ATOMIC_VERSION(fn, kernel, per)                                                                             \
    static gp_status_t fn(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)                 \
    {                                                                                                              \
        (void)ctx;                                                                                                 \
        cudaMemsetAsync(result, 0, sizeof(float), s);                                                              \
        if (n) kernel<<<blocks_for(n, per), B, 0, s>>>(x, n, result);                                              \
        return GP_CHECK_LAUNCH(#kernel);                                                                           \
    }
ATOMIC_VERSION(run_r01, r01_atomic_global, B)
ATOMIC_VERSION(run_r02, r02_atomic_shared, B)
ATOMIC_VERSION(run_r03, r03_interleaved_modulo, B)
ATOMIC_VERSION(run_r04, r04_interleaved_strided, B)
ATOMIC_VERSION(run_r05, r05_sequential, B)
ATOMIC_VERSION(run_r06, r06_first_add, 2 * B)
ATOMIC_VERSION(run_r07, r07_warp_unrolled, 2 * B)
ATOMIC_VERSION(run_r08, r08_cooperative_groups, 2 * B)
ATOMIC_VERSION(run_r09, r09_shuffle, 2 * B)

static gp_status_t run_r10(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)
{
    cudaMemsetAsync(result, 0, sizeof(float), s);
    r10_grid_stride<<<gp__fill_grid(ctx, B), B, 0, s>>>(x, n, result);
    return GP_CHECK_LAUNCH("r10_grid_stride");
}

static gp_status_t run_r11(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)
{
    const unsigned grid = gp__fill_grid(ctx, B);
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, (size_t)grid * sizeof(float) + 64, &ws);
    if (st != GP_OK) return st;
    r11_partials<<<grid, B, 0, s>>>(x, n, (float *)ws);
    r11_final<<<1, B, 0, s>>>((const float *)ws, grid, result);
    return GP_CHECK_LAUNCH("r11_two_kernel");
}

static gp_status_t run_r12(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)
{
    const unsigned grid = gp__fill_grid(ctx, B);
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, (size_t)grid * sizeof(float) + 64, &ws);
    if (st != GP_OK) return st;
    r12_last_block<<<grid, B, 0, s>>>(x, n, (float *)ws, ctx->counters + GP__COUNTER_LAB, result);
    return GP_CHECK_LAUNCH("r12_last_block");
}

/* r14: the primers' non-commutative form in one block: thread t folds a contiguous run of the input in order, then
 * an interleaved shared-memory tree combines neighbours (s[t] = s[t] + s[t + o] for t a multiple of 2o): every
 * combine keeps left before right, so it is correct for any associative operator, commutative or not. One block
 * uses one SM: the price of keeping the order without a grid-wide tree. */
__global__ void r14_ordered_block(const float *x, size_t n, float *result)
{
    __shared__ float s[B];
    const size_t run = (n + B - 1) / B, a = threadIdx.x * run, b = a + run < n ? a + run : n;
    float acc = 0;
    for (size_t i = a; i < b; i++) acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int o = 1; o < B; o <<= 1) {
        if ((threadIdx.x & (2 * o - 1)) == 0) s[threadIdx.x] += s[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = s[0];
}

/* r15: the same in one warp, with shuffles: lane l folds its run, then for o = 1, 2, 4, 8, 16 lane l (a multiple of
 * 2o) takes its right neighbour's partial — ordered, no shared memory, no barriers; one warp of one SM. */
__global__ void r15_ordered_warp(const float *x, size_t n, float *result)
{
    const unsigned l = threadIdx.x;
    const size_t run = (n + 31) / 32, a = l * run, b = a + run < n ? a + run : n;
    float acc = 0;
    for (size_t i = a; i < b; i++) acc += x[i];
    for (int o = 1; o < 32; o <<= 1) {
        const float t = __shfl_down_sync(0xffffffffu, acc, o);
        if ((l & (2 * o - 1)) == 0) acc += t;
    }
    if (l == 0) *result = acc;
}

static gp_status_t run_r14(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)
{
    (void)ctx;
    r14_ordered_block<<<1, B, 0, s>>>(x, n, result);
    return GP_CHECK_LAUNCH("r14_ordered_block");
}

static gp_status_t run_r15(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)
{
    (void)ctx;
    r15_ordered_warp<<<1, 32, 0, s>>>(x, n, result);
    return GP_CHECK_LAUNCH("r15_ordered_warp");
}

/* Production: gp_reduce writes a gp_reduce_result_t whose first 4 bytes are the f32 sum (the lab's result buffer is
 * 64 bytes). */
static gp_status_t run_r13(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t s)
{
    return gp_reduce(ctx, GP_REDUCE_SUM, GP_F32, n, x, (gp_reduce_result_t *)(void *)result, s);
}

const lab_version_t lab_reduce_versions[] = {
    {1, "reduce_v01_atomic_global", 1, "atomicAdd of every element on one global float: serialised",
     "", 1u << 22, 0, 0, (lab_fn_t)run_r01},
    {2, "reduce_v02_atomic_shared", 1, "per-block shared-memory atomics, one global atomic per block",
     "", 1u << 24, 0, 0, (lab_fn_t)run_r02},
    {3, "reduce_v03_interleaved_modulo", 1, "shared-memory tree, interleaved addressing with %: divergent warps",
     "", 0, 0, 0, (lab_fn_t)run_r03},
    {4, "reduce_v04_interleaved_strided", 1, "interleaved with a strided index: no divergence, bank conflicts",
     "", 0, 0, 0, (lab_fn_t)run_r04},
    {5, "reduce_v05_sequential", 1, "sequential addressing: conflict-free, half the threads idle at once",
     "", 0, 0, 0, (lab_fn_t)run_r05},
    {6, "reduce_v06_first_add", 1, "first add during the load: half the blocks, all threads busy",
     "", 0, 0, 0, (lab_fn_t)run_r06},
    {7, "reduce_v07_warp_unrolled", 1, "last warp warp-synchronous (volatile + __syncwarp): six barriers fewer",
     "", 0, 0, 0, (lab_fn_t)run_r07},
    {8, "reduce_v08_cooperative_groups", 1, "the cooperative-groups thread_group form (g.sync())",
     "", 0, 0, 0, (lab_fn_t)run_r08},
    {9, "reduce_v09_shuffle", 1, "warp shuffles in registers, one barrier per block",
     "", 0, 0, 0, (lab_fn_t)run_r09},
    {10, "reduce_v10_grid_stride", 1, "moving grid sized from the SMs, 16-byte loads, one atomic per block",
     "", 0, 0, 0, (lab_fn_t)run_r10},
    {11, "reduce_v11_two_kernel", 1, "partials then a one-block kernel: no result atomics, fixed-grid deterministic",
     "", 0, 0, 0, (lab_fn_t)run_r11},
    {12, "reduce_v12_last_block", 1, "one launch with the last-block guard (__threadfence + atomic ticket)",
     "", 0, 0, 0, (lab_fn_t)run_r12},
    {13, "reduce_v13_tile_tree", 1, "production gp_reduce: fixed 64 KiB tile tree, same bits on any GPU and the CPU",
     "", 0, 0, 0, (lab_fn_t)run_r13},
    {14, "reduce_v14_ordered_block", 1, "non-commutative: contiguous runs per thread, interleaved tree, one block",
     "", 1u << 22, 0, 0, (lab_fn_t)run_r14},
    {15, "reduce_v15_ordered_warp", 1, "non-commutative: contiguous runs per lane, ordered shuffles, one warp",
     "", 1u << 20, 0, 0, (lab_fn_t)run_r15},
    {90, "reduce_cpu_serial", 0, "CPU: one plain float loop, the serial baseline",
     "", 1u << 26, 0, 0, (lab_fn_t)lab_reduce_cpu_serial},
    {91, "reduce_cpu_backend", 0, "CPU backend: the same tile tree, tiles in parallel (OpenMP)",
     "", 1u << 24, 0, 0, (lab_fn_t)lab_reduce_cpu_backend},
};
const int lab_reduce_nversions = (int)(sizeof lab_reduce_versions / sizeof lab_reduce_versions[0]);

} /* extern "C" */
