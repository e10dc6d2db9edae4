/*
 * ordered.cu — ordered (non-commutative) reductions on the GPU: the left fold x0 o x1 o ... o x(n-1) of matrix
 * products and affine-map compositions, by one launch over the fixed ordered tree of reduce_internal.h:
 *   tile     256 lanes x R elements (R per op and dtype, gp__ordered_lane_elems); lane l folds elements l*R .. l*R+R-1
 *            of the tile from left to right. The tile is staged through shared memory with coalesced loads (a lane's
 *            run is contiguous, so direct loads would stride by R elements); runs are padded by one word so that the
 *            lanes' reads fall in different banks;
 *   warp     ordered up-sweep: for o = 1, 2, 4, 8, 16: lane l (a multiple of 2o) takes s[l] o s[l+o];
 *   block    thread 0 folds the 8 warp results from left to right;
 *   levels   tile results, as an array, are folded the same way (groups of 256 x R entries) until one remains, by the
 *            last block to finish (the primers' last-block guard).
 * Lanes past the end hold no element ("empty"), and combining with empty returns the other side unchanged, so no
 * identity element enters the arithmetic. Arithmetic is explicitly rounded (no FMA contraction): the CPU backend
 * (ordered.c) computes the same tree with the same operations, so float results are bitwise equal.
 */
#include "reduce_internal.h"

#include <stdint.h>

namespace {

constexpr int LANES = 256;

#include "ordered_ops.cuh"

/* OP: GP_ORDERED_MAT2/3/4 or GP_ORDERED_AFFINE; K components of T per element. */
template <int OP, typename T> struct Ord {
    static constexpr int D = OP == GP_ORDERED_MAT2 ? 2 : OP == GP_ORDERED_MAT3 ? 3 : OP == GP_ORDERED_MAT4 ? 4 : 0;
    static constexpr int K = OP == GP_ORDERED_AFFINE ? 2 : D * D;
    static constexpr int WORDS = K * (int)sizeof(T) / 4;     /* 4-byte words per element */
    static constexpr int R = GP__ORDERED_RUN_WORDS / WORDS;  /* elements per lane per tile */
    static constexpr int RUN = R * WORDS;                    /* words per lane's run */
    static constexpr int PITCH = RUN | 1;                    /* run padded to an odd pitch: no bank conflicts */
    struct S {
        T v[K];
        bool ok;
    };
    static __device__ __forceinline__ S combine(const S &a, const S &b)
    {
        if (!b.ok) return a;
        if (!a.ok) return b;
        S c;
        c.ok = true;
        ord_combine<OP, T>(a.v, b.v, c.v);
        return c;
    }
    static __device__ __forceinline__ S shfl_down(const S &s, int o)
    {
        S t;
#pragma unroll
        for (int k = 0; k < K; k++) t.v[k] = __shfl_down_sync(0xffffffffu, s.v[k], o);
        t.ok = __shfl_down_sync(0xffffffffu, (int)s.ok, o) != 0;
        return t;
    }
};

template <typename T> __device__ __forceinline__ T from_words(const unsigned *w);
template <> __device__ __forceinline__ float from_words<float>(const unsigned *w) { return __uint_as_float(w[0]); }
template <> __device__ __forceinline__ unsigned from_words<unsigned>(const unsigned *w) { return w[0]; }
template <> __device__ __forceinline__ double from_words<double>(const unsigned *w)
{
    return __hiloint2double((int)w[1], (int)w[0]);
}

/* Warp up-sweep then thread 0's left fold of the warp results; the result is valid in thread 0. */
template <int OP, typename T> __device__ typename Ord<OP, T>::S block_fold(typename Ord<OP, T>::S s)
{
    typedef Ord<OP, T> O;
    __shared__ typename O::S warp_res[LANES / 32];
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const typename O::S t = O::shfl_down(s, o);
        if ((lane & (2 * o - 1)) == 0) s = O::combine(s, t);
    }
    if (lane == 0) warp_res[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < LANES / 32; w++) s = O::combine(s, warp_res[w]);
    __syncthreads();
    return s;
}

template <int OP, typename T>
__global__ void __launch_bounds__(LANES)
    ordered_tiles(const T *__restrict__ x, size_t n, size_t ntiles, int aligned16, T *partials, unsigned *counter,
                  T *result)
{
    typedef Ord<OP, T> O;
    typedef typename O::S S;
    extern __shared__ unsigned smem[]; /* LANES * PITCH words */
    const unsigned l = threadIdx.x;
    constexpr size_t TILE = (size_t)LANES * O::R;       /* elements */
    constexpr size_t TW = (size_t)LANES * O::RUN;       /* words */
    const size_t nw = n * (O::WORDS);                    /* words in x */

    /* Software pipeline: tile k+grid's loads are in flight (registers) while tile k is folded from shared memory. */
    constexpr int NV = (int)((TW / 4 + LANES - 1) / LANES);
    uint4 q[NV];
    auto vec_ok = [&](size_t t) { return t < ntiles && aligned16 && nw - t * TW >= TW; };
    auto load = [&](size_t t) {
        const uint4 *xv = reinterpret_cast<const uint4 *>(reinterpret_cast<const unsigned *>(x) + t * TW);
#pragma unroll
        for (int i = 0; i < NV; i++) {
            const size_t v = l + (size_t)i * LANES;
            if (v < TW / 4) q[i] = __ldcs(xv + v);
        }
    };
    bool have = vec_ok(blockIdx.x);
    if (have) load(blockIdx.x);
    for (size_t k = blockIdx.x; k < ntiles; k += gridDim.x) {
        if (have) { /* word w of the tile goes to lane w / RUN's padded run */
#pragma unroll
            for (int i = 0; i < NV; i++) {
                const size_t v = l + (size_t)i * LANES, w = 4 * v;
                if (v < TW / 4) {
                    smem[(w + 0) / O::RUN * O::PITCH + (w + 0) % O::RUN] = q[i].x;
                    smem[(w + 1) / O::RUN * O::PITCH + (w + 1) % O::RUN] = q[i].y;
                    smem[(w + 2) / O::RUN * O::PITCH + (w + 2) % O::RUN] = q[i].z;
                    smem[(w + 3) / O::RUN * O::PITCH + (w + 3) % O::RUN] = q[i].w;
                }
            }
        } else { /* a partial or misaligned tile: coalesced 4-byte loads */
            const unsigned *xw = reinterpret_cast<const unsigned *>(x) + k * TW;
            const size_t avail = nw - k * TW < TW ? nw - k * TW : TW;
            for (size_t w = l; w < avail; w += LANES) smem[w / O::RUN * O::PITCH + w % O::RUN] = __ldcs(xw + w);
        }
        have = vec_ok(k + gridDim.x);
        if (have) load(k + gridDim.x);
        __syncthreads();
        S s;
        s.ok = false;
        const size_t first = k * TILE + (size_t)l * O::R;
#pragma unroll
        for (int j = 0; j < O::R; j++) {
            if (first + j < n) {
                S e;
                e.ok = true;
                const unsigned *p = smem + l * O::PITCH + j * O::WORDS;
#pragma unroll
                for (int c = 0; c < O::K; c++) e.v[c] = from_words<T>(p + c * (int)(sizeof(T) / 4));
                s = O::combine(s, e);
            }
        }
        s = block_fold<OP, T>(s); /* its barriers also end this tile's reads of smem */
        if (l == 0)
#pragma unroll
            for (int c = 0; c < O::K; c++) partials[k * O::K + c] = s.v[c];
    }

    __shared__ bool last;
    if (l == 0) {
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    size_t m = ntiles;
    while (m > 1) {
        const size_t groups = (m + TILE - 1) / TILE;
        for (size_t g = 0; g < groups; g++) {
            S s;
            s.ok = false;
            const size_t first = g * TILE + (size_t)l * O::R;
            for (int j = 0; j < O::R; j++)
                if (first + j < m) {
                    S e;
                    e.ok = true;
#pragma unroll
                    for (int c = 0; c < O::K; c++) e.v[c] = __ldcg(partials + (first + j) * O::K + c);
                    s = O::combine(s, e);
                }
            s = block_fold<OP, T>(s); /* ends with a barrier: group g's reads are done before entry g is written */
            if (l == 0)
                for (int c = 0; c < O::K; c++) partials[g * O::K + c] = s.v[c];
            __syncthreads();
        }
        m = groups;
    }
    if (l == 0) {
        for (int c = 0; c < O::K; c++) result[c] = __ldcg(partials + c);
        *counter = 0;
    }
}

template <int OP, typename T>
gp_status_t launch(gp_ctx_t *ctx, size_t n, const void *x, void *result, void *host, cudaStream_t stream)
{
    typedef Ord<OP, T> O;
    const size_t tile = (size_t)LANES * O::R, ntiles = (n + tile - 1) / tile;
    const size_t smem = (size_t)LANES * O::PITCH * 4;
    static bool configured = false; /* per instantiation; setting it twice is harmless */
    if (!configured) {
        cudaError_t e = cudaFuncSetAttribute(ordered_tiles<OP, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_reduce_ordered: shared memory opt-in", __FILE__, __LINE__);
        configured = true;
    }
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ordered_tiles<OP, T>, LANES, smem);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_reduce_ordered: occupancy", __FILE__, __LINE__);
    const size_t fill = (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)ctx->sm_count, per = (ntiles + fill - 1) / fill;
    const unsigned grid = (unsigned)((ntiles + per - 1) / per);
    void *ws = NULL;
    /* workspace: 256 bytes for a _sync result, then the tile results */
    gp_status_t st = gp__workspace(ctx, 256 + ntiles * O::K * sizeof(T), &ws);
    if (st != GP_OK) return st;
    T *res = host ? (T *)ws : (T *)result;
    const int aligned16 = ((uintptr_t)x & 15) == 0;
    ordered_tiles<OP, T><<<grid, LANES, smem, stream>>>((const T *)x, n, ntiles, aligned16, (T *)((char *)ws + 256),
                                                        ctx->counters + GP__COUNTER_ORDERED, res);
    st = GP_CHECK_LAUNCH("gp_reduce_ordered");
    if (st != GP_OK || !host) return st;
    cudaError_t e2 = cudaMemcpyAsync(host, res, O::K * sizeof(T), cudaMemcpyDeviceToHost, stream);
    if (e2 == cudaSuccess) e2 = cudaStreamSynchronize(stream);
    return e2 == cudaSuccess ? GP_OK : gp__cuda_error(e2, "gp_reduce_ordered_sync: the result", __FILE__, __LINE__);
}

template <typename T> gp_status_t by_op(gp_ctx_t *ctx, gp_ordered_op_t op, size_t n, const void *x, void *r,
                                        void *h, cudaStream_t s)
{
    switch (op) {
    case GP_ORDERED_MAT2: return launch<GP_ORDERED_MAT2, T>(ctx, n, x, r, h, s);
    case GP_ORDERED_MAT3: return launch<GP_ORDERED_MAT3, T>(ctx, n, x, r, h, s);
    case GP_ORDERED_MAT4: return launch<GP_ORDERED_MAT4, T>(ctx, n, x, r, h, s);
    case GP_ORDERED_AFFINE: return launch<GP_ORDERED_AFFINE, T>(ctx, n, x, r, h, s);
    default: return gp__error(GP_ERR_INTERNAL, "gp_reduce_ordered: op %d reached the launcher", (int)op);
    }
}

} // namespace

extern "C" gp_status_t gp__ordered_gpu(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                       void *result, void *host, cudaStream_t stream)
{
    switch (dtype) {
    case GP_F32: return by_op<float>(ctx, op, n, x, result, host, stream);
    case GP_F64: return by_op<double>(ctx, op, n, x, result, host, stream);
    case GP_U32: return by_op<unsigned>(ctx, op, n, x, result, host, stream);
    default: return gp__error(GP_ERR_INTERNAL, "gp_reduce_ordered: dtype %d reached the launcher", (int)dtype);
    }
}
