/*
 * scan_general.cu — the look-back scan for values wider than a word or two: ordered (non-commutative) scans (matrix
 * products mat2 / mat3 / mat4 and affine-map compositions) and segmented scans (the scalar ops over (head flag, value)
 * pairs), in the association order of docs/design/scan.md with runs of R elements (gp__oscan_run: 128 bytes of scan values
 * per run, 16 at most), exactly as the CPU backends (scan_ordered.c, scan_cpu.c) compute it. One launch:
 *   1. a block takes a tile (256 runs) in ticket order; the tile's words are loaded coalesced (16-byte vectors where
 *      aligned) into shared memory at a pitch of WT | 1 words per thread (no bank conflicts when a thread reads its
 *      run), each thread folds its run, the 256 run totals are scanned Kogge-Stone by warp shuffles and the 8 warp
 *      totals by warp 0, and L = E o r_k is formed; the L values wait in shared memory during the look-back;
 *   2. warp 0 publishes the aggregate A_t and looks back: lane l reads tile t-1-32w-l's status (acquire) and then its
 *      value, the nearest inclusive prefix I_k is folded forward with the aggregates after it (one lane, oldest first:
 *      ((I_k o A_(k+1)) o ...) o A_(t-1) = I_(t-1), the order of the definition, whichever tile published first);
 *      after WINDOWS windows without an inclusive prefix the oldest tile read is waited for;
 *   3. I_t = I_(t-1) o A_t is published, and C o L (exclusive: shifted by one) is written back coalesced.
 * Descriptors: a status word per tile (0 nothing, 1 aggregate, 2 inclusive prefix) and two value arrays (aggregates,
 * inclusive prefixes), each written once: the value is stored, then the status with release semantics; a reader
 * acquires the status before it loads the value. Tile 0 has no carry and combines no identity into real values
 * (identity products are not exact in floats); a partial tile's padding changes no real element's value.
 * Segmented: (f, v) o (g, w) = (f | g, g ? w : v (+) w) — associative, so the same machinery; the heads come from a
 * byte per element, and the exclusive scan puts the op's first value at every head.
 * first / last: a broadcast kernel and a copy.
 */
#include "scan_internal.h"
#include "scan_tuning.h"

#include <stdint.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int THREADS = GP__SCAN_RUNS;

#include "scan_ops.cuh"

#include "../reduce/ordered_ops.cuh"

#include "lookback.cuh"
#include "scan_lb.cuh"
#include "seg_policy.cuh"
#include "../core/tma.cuh"
#include "tile_engine.cuh"
#include "te_lb.cuh"

template <int OP, typename T> struct OS {
    static constexpr int D = OP == GP_ORDERED_MAT2 ? 2 : OP == GP_ORDERED_MAT3 ? 3 : OP == GP_ORDERED_MAT4 ? 4 : 0;
    static constexpr int K = OP == GP_ORDERED_AFFINE ? 2 : D * D;
    static constexpr int VB = K * (int)sizeof(T);                        /* bytes per element */
    static constexpr int R = VB <= 8 ? 16 : VB <= 16 ? 8 : VB <= 32 ? 4 : VB <= 64 ? 2 : 1; /* gp__oscan_run */
    static constexpr int TILE = THREADS * R;
    static constexpr int EW = VB / 4;                                    /* words per element */
    static constexpr int WT = R * EW;                                    /* words per thread's run */
    static constexpr int PITCH = WT | 1;
    static constexpr int WINDOWS = 8192 / (32 * VB) < 1 ? 1 : 8192 / (32 * VB) > 8 ? 8 : 8192 / (32 * VB);
    struct V {
        T v[K];
    };
    static __device__ __forceinline__ V comb(const V &a, const V &b)
    {
        V c;
        ord_combine<OP, T>(a.v, b.v, c.v);
        return c;
    }
    static __device__ __forceinline__ V ident()
    {
        V c;
#pragma unroll
        for (int i = 0; i < K; i++) c.v[i] = (T)(OP == GP_ORDERED_AFFINE ? i == 0 : i / (D ? D : 1) == i % (D ? D : 1));
        return c;
    }
    static __device__ __forceinline__ V shfl_up(const V &s, int d)
    {
        V o;
#pragma unroll
        for (int k = 0; k < K; k++) o.v[k] = __shfl_up_sync(0xffffffffu, s.v[k], d);
        return o;
    }
    /* the policy's element <-> value hooks: an element is its value, no heads */
    typedef V E;
    static constexpr bool SEG = false;
    static __device__ __forceinline__ V make(const E &e, bool) { return e; }
    static __device__ __forceinline__ E out(const V &v) { return v; }
    static __device__ __forceinline__ bool flag(const V &) { return false; }
    static __device__ __forceinline__ E first() { return ident(); }
    static __device__ __forceinline__ V pad() { return ident(); }
    static __device__ __forceinline__ V load_cg(const V *p) { return ldcg_value(p); }
};

/* The kernel, for a policy P (OS: ordered ops; SegP: segmented): scan_lb.cuh's body. */
template <class P>
__global__ void __launch_bounds__(THREADS, sizeof(typename P::V) <= 16 ? 4 : 1)
    k_lb(const typename P::E *x, typename P::E *y, const uint8_t *heads, size_t n, int excl, unsigned *ticket,
         unsigned *status, typename P::V *agg, typename P::V *incl, const typename P::V *cin, typename P::V *cout)
{
    lb_scan<P>(x, y, heads, n, excl, ticket, status, agg, incl, cin, cout);
}

/* first: every element is x[0] (in place too: x[0] is rewritten with its own value) */
template <typename U> __global__ void k_first(const U *src, U *y, size_t n, U *cout)
{
    const U f = *src;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = f;
    if (cout && blockIdx.x == 0 && threadIdx.x == 0) *cout = f;
}

/* The look-back's workspace (scan_internal.h, gp__lb_bytes) */
template <class P> size_t lb_bytes(size_t n) { return gp__lb_bytes((n + P::TILE - 1) / P::TILE, sizeof(typename P::V)); }

/* ws: lb_bytes<P>(n) of workspace the caller holds, or NULL (taken here) */
template <class P>
gp_status_t launch(gp_ctx_t *ctx, const char *fn, size_t n, const void *x, void *y, const uint8_t *heads, int excl,
                   void *ws, cudaStream_t s, const void *cin = NULL, void *cout = NULL)
{
    typedef typename P::V V;
    const size_t ntiles = (n + P::TILE - 1) / P::TILE;
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu tiles (at most 2^31 - 1)", fn, ntiles);
    const size_t head = gp__lb_head_bytes(ntiles);
    if (ws == NULL) {
        gp_status_t st = gp__workspace(ctx, lb_bytes<P>(n), &ws);
        if (st != GP_OK) return st;
    }
    char *w = (char *)ws;
    cudaError_t e = cudaMemsetAsync(w, 0, lb_packed<P>(0) ? lb_bytes<P>(n) : head, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "clearing the tile statuses", __FILE__, __LINE__);
    if constexpr (P::SEG) { /* segmented: on the tile engine where it takes the pass */
        int done = 0;
        if (cin == NULL && cout == NULL)
            GP_TRY_RET((te_lb_launch<P, int>(ctx, fn, lb_te_bits<P>(0) ? GP_TE_LB_AUTO_SEGBITS : GP_TE_LB_AUTO_SEG, n,
                                             x, y, heads, excl, 0, w, head, s, &done)));
        if (done) return GP_OK;
    }
    k_lb<P><<<(unsigned)ntiles, THREADS, 0, s>>>((const typename P::E *)x, (typename P::E *)y, heads, n, excl,
                                                 (unsigned *)w, (unsigned *)(w + 16), (V *)(w + head),
                                                 (V *)(w + head) + ntiles, (const V *)cin, (V *)cout);
    return GP_CHECK_LAUNCH(fn);
}

/* CSR offsets into head bits: bit o % 32 of word o / 32 for every offset o in [0, n) (the words were cleared) */
__global__ void k_mark_bits(unsigned *bits, size_t n, const int64_t *off, size_t noff)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < noff; i += (size_t)gridDim.x * blockDim.x) {
        const int64_t o = off[i];
        if (o >= 0 && (uint64_t)o < n) atomicOr(bits + (o >> 5), 1u << (o & 31));
    }
}

/* a segmented scan: head bytes given (gp_scan_heads), or head bits made from offsets at the workspace's front */
template <typename T, int OP>
gp_status_t seg(gp_ctx_t *ctx, size_t n, const void *x, void *y, const uint8_t *heads, const int64_t *off,
                size_t noff, int excl, cudaStream_t s)
{
    if (off == NULL) return launch<SegP<T, OP>>(ctx, "gp_scan_heads", n, x, y, heads, excl, NULL, s);
    typedef SegBitsP<T, OP> P;
    const char *fn = "gp_scan_segmented";
    const size_t ntiles = (n + P::TILE - 1) / P::TILE, skip = (ntiles * P::TILE / 8 + 255) / 256 * 256;
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, skip + lb_bytes<P>(n), &ws);
    if (st != GP_OK) return st;
    cudaError_t e = cudaMemsetAsync(ws, 0, skip, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "clearing the head bits", __FILE__, __LINE__);
    if (noff) {
        const unsigned grid = (unsigned)(noff / 256 + 1 < 4096 ? noff / 256 + 1 : 4096);
        k_mark_bits<<<grid, 256, 0, s>>>((unsigned *)ws, n, off, noff);
        GP_TRY_RET(GP_CHECK_LAUNCH(fn));
    }
    return launch<P>(ctx, fn, n, x, y, (const uint8_t *)ws, excl, (char *)ws + skip, s);
}

template <typename T>
gp_status_t seg_op(gp_ctx_t *ctx, gp_reduce_op_t op, size_t n, const void *x, void *y, const uint8_t *heads,
                   const int64_t *off, size_t noff, int excl, cudaStream_t s)
{
    switch (op) {
    case GP_REDUCE_SUM: return seg<T, SUM>(ctx, n, x, y, heads, off, noff, excl, s);
    case GP_REDUCE_PROD: return seg<T, PROD>(ctx, n, x, y, heads, off, noff, excl, s);
    case GP_REDUCE_MIN: return seg<T, MIN>(ctx, n, x, y, heads, off, noff, excl, s);
    case GP_REDUCE_MAX: return seg<T, MAX>(ctx, n, x, y, heads, off, noff, excl, s);
    default: break;
    }
    if constexpr (std::is_integral<T>::value) {
        switch (op) {
        case GP_REDUCE_AND: return seg<T, AND>(ctx, n, x, y, heads, off, noff, excl, s);
        case GP_REDUCE_OR: return seg<T, OR>(ctx, n, x, y, heads, off, noff, excl, s);
        case GP_REDUCE_XOR: return seg<T, XOR>(ctx, n, x, y, heads, off, noff, excl, s);
        default: break;
        }
    }
    return gp__error(GP_ERR_UNSUPPORTED, "segmented scan: op %d", (int)op);
}

const char F[] = "gp_scan_ordered";

template <typename T> gp_status_t by_op(gp_ctx_t *ctx, gp_ordered_op_t op, size_t n, const void *x, void *y, int excl,
                                        const void *ci, void *co, cudaStream_t s)
{
    switch (op) {
    case GP_ORDERED_MAT2: return launch<OS<GP_ORDERED_MAT2, T>>(ctx, F, n, x, y, NULL, excl, NULL, s, ci, co);
    case GP_ORDERED_MAT3: return launch<OS<GP_ORDERED_MAT3, T>>(ctx, F, n, x, y, NULL, excl, NULL, s, ci, co);
    case GP_ORDERED_MAT4: return launch<OS<GP_ORDERED_MAT4, T>>(ctx, F, n, x, y, NULL, excl, NULL, s, ci, co);
    default: break;
    }
    if constexpr (!std::is_same<T, unsigned>::value)
        if (op == GP_ORDERED_AFFINE)
            return launch<OS<GP_ORDERED_AFFINE, T>>(ctx, F, n, x, y, NULL, excl, NULL, s, ci, co);
    return gp__error(GP_ERR_UNSUPPORTED, "gp_scan_ordered: op %d", (int)op);
}

/* first: the carry in (the pieces before) or x[0], everywhere, and as the carry out */
template <typename U>
gp_status_t first(gp_ctx_t *ctx, size_t n, const void *x, void *y, const void *ci, void *co, cudaStream_t s)
{
    const unsigned grid = gp__fill_grid(ctx, 256);
    k_first<U><<<grid, 256, 0, s>>>((const U *)(ci ? ci : x), (U *)y, n, (U *)co);
    return GP_CHECK_LAUNCH("gp_scan_ordered (first)");
}

} // namespace

extern "C" gp_status_t gp__oscan_gpu(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                     void *y, int exclusive, const void *carry_in, void *carry_out,
                                     cudaStream_t stream)
{
    const size_t es = gp_dtype_size(dtype);
    if (op == GP_ORDERED_LAST) {
        cudaError_t e = x == y ? cudaSuccess : cudaMemcpyAsync(y, x, n * es, cudaMemcpyDefault, stream);
        if (e == cudaSuccess && carry_out)
            e = cudaMemcpyAsync(carry_out, (const char *)x + (n - 1) * es, es, cudaMemcpyDefault, stream);
        return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_scan_ordered (last): the copy", __FILE__, __LINE__);
    }
    if (op == GP_ORDERED_FIRST) {
        switch (es) {
        case 1: return first<uint8_t>(ctx, n, x, y, carry_in, carry_out, stream);
        case 2: return first<uint16_t>(ctx, n, x, y, carry_in, carry_out, stream);
        case 4: return first<uint32_t>(ctx, n, x, y, carry_in, carry_out, stream);
        default: return first<uint64_t>(ctx, n, x, y, carry_in, carry_out, stream);
        }
    }
    switch (dtype) {
    case GP_F32: return by_op<float>(ctx, op, n, x, y, exclusive, carry_in, carry_out, stream);
    case GP_F64: return by_op<double>(ctx, op, n, x, y, exclusive, carry_in, carry_out, stream);
    case GP_U32: return by_op<unsigned>(ctx, op, n, x, y, exclusive, carry_in, carry_out, stream);
    default: return gp__error(GP_ERR_UNSUPPORTED, "gp_scan_ordered: dtype %s", gp_dtype_name(dtype));
    }
}

extern "C" gp_status_t gp__segscan_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                       const uint8_t *heads, const int64_t *offsets, size_t noffsets, void *y,
                                       int exclusive, cudaStream_t stream)
{
    switch (dtype) {
    case GP_F32: return seg_op<float>(ctx, op, n, x, y, heads, offsets, noffsets, exclusive, stream);
    case GP_F64: return seg_op<double>(ctx, op, n, x, y, heads, offsets, noffsets, exclusive, stream);
    case GP_I32: return seg_op<int32_t>(ctx, op, n, x, y, heads, offsets, noffsets, exclusive, stream);
    case GP_U32: return seg_op<uint32_t>(ctx, op, n, x, y, heads, offsets, noffsets, exclusive, stream);
    case GP_I64: return seg_op<int64_t>(ctx, op, n, x, y, heads, offsets, noffsets, exclusive, stream);
    case GP_U64: return seg_op<uint64_t>(ctx, op, n, x, y, heads, offsets, noffsets, exclusive, stream);
    default: return gp__error(GP_ERR_UNSUPPORTED, "segmented scan: dtype %s", gp_dtype_name(dtype));
    }
}
