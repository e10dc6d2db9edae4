/*
 * histogram.cu — GPU histograms (first production form; the lab's progression and the cluster / distributed-shared-
 * memory path for bin counts beyond one block's shared memory are the next steps of issue 4):
 *   smem    bins + 3 counters fit in 48 KiB: each block counts into its own shared-memory histogram (shared atomics),
 *           then adds its non-zero counters to the global counts (the primers' privatization);
 *   global  more bins: atomicAdd on the global counts directly.
 * The bin rule is histogram_internal.h's, shared with the CPU backend.
 */
#include "histogram_internal.h"

#include <stdint.h>

namespace {

constexpr int THREADS = 256;
constexpr size_t SMEM_LIMIT = 48 * 1024;

__device__ __forceinline__ void add_count(unsigned long long *c64, unsigned *c32, size_t b, unsigned v)
{
    if (c64) atomicAdd(c64 + b, (unsigned long long)v);
    else atomicAdd(c32 + b, v);
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    hist_smem(const T *__restrict__ x, size_t n, gp__hist_spec_t s, unsigned long long *c64, unsigned *c32)
{
    extern __shared__ unsigned h[];
    const size_t slots = s.nbins + 3;
    for (size_t b = threadIdx.x; b < slots; b += THREADS) h[b] = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        atomicAdd(&h[gp__hist_slot(&s, (double)x[i])], 1u);
    __syncthreads();
    for (size_t b = threadIdx.x; b < slots; b += THREADS)
        if (h[b]) add_count(c64, c32, b, h[b]);
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    hist_global(const T *__restrict__ x, size_t n, gp__hist_spec_t s, unsigned long long *c64, unsigned *c32)
{
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        add_count(c64, c32, gp__hist_slot(&s, (double)x[i]), 1u);
}

template <typename T>
gp_status_t launch(gp_ctx_t *ctx, const gp__hist_spec_t &s, size_t n, const void *x, gp_dtype_t cdt, void *counts,
                   cudaStream_t stream)
{
    const size_t slots = s.nbins + 3, smem = slots * sizeof(unsigned);
    unsigned long long *c64 = cdt == GP_U64 ? (unsigned long long *)counts : NULL;
    unsigned *c32 = cdt == GP_U32 ? (unsigned *)counts : NULL;
    cudaError_t e = cudaMemsetAsync(counts, 0, slots * gp_dtype_size(cdt), stream);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram: clearing the counts", __FILE__, __LINE__);
    if (n == 0) return GP_OK;
    const size_t need = (n + THREADS - 1) / THREADS;
    int per_sm = 1;
    if (smem <= SMEM_LIMIT) {
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hist_smem<T>, THREADS, smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram: occupancy", __FILE__, __LINE__);
        size_t grid = (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)ctx->sm_count;
        if (grid > need) grid = need;
        hist_smem<T><<<(unsigned)grid, THREADS, smem, stream>>>((const T *)x, n, s, c64, c32);
        return GP_CHECK_LAUNCH("gp_histogram (shared memory)");
    }
    size_t grid = gp__fill_grid(ctx, THREADS);
    if (grid > need) grid = need;
    hist_global<T><<<(unsigned)grid, THREADS, 0, stream>>>((const T *)x, n, s, c64, c32);
    return GP_CHECK_LAUNCH("gp_histogram (global)");
}

} // namespace

extern "C" gp_status_t gp__hist_gpu(gp_ctx_t *ctx, const gp__hist_spec_t *spec, gp_dtype_t dtype, size_t n,
                                    const void *x, gp_dtype_t count_dtype, void *counts, cudaStream_t stream)
{
    gp__hist_spec_t s = *spec;
    if (s.mode == GP__HIST_RANGE) { /* the edges to device memory (the context workspace) */
        void *ws = NULL;
        gp_status_t st = gp__workspace(ctx, (s.nbins + 1) * sizeof(double), &ws);
        if (st != GP_OK) return st;
        cudaError_t e = cudaMemcpyAsync(ws, s.edges, (s.nbins + 1) * sizeof(double), cudaMemcpyHostToDevice, stream);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram_range: copying the edges", __FILE__, __LINE__);
        s.edges = (const double *)ws;
    }
    switch (dtype) {
    case GP_U8: return launch<uint8_t>(ctx, s, n, x, count_dtype, counts, stream);
    case GP_U16: return launch<uint16_t>(ctx, s, n, x, count_dtype, counts, stream);
    case GP_I32: return launch<int32_t>(ctx, s, n, x, count_dtype, counts, stream);
    case GP_U32: return launch<uint32_t>(ctx, s, n, x, count_dtype, counts, stream);
    case GP_F32: return launch<float>(ctx, s, n, x, count_dtype, counts, stream);
    case GP_F64: return launch<double>(ctx, s, n, x, count_dtype, counts, stream);
    default: return gp__error(GP_ERR_INTERNAL, "gp_histogram: dtype %d reached the launcher", (int)dtype);
    }
}
