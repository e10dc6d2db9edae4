/*
 * select.cu — the GPU select / partition / unique in one pass each, and run-length encoding.
 * Select and unique: one kernel — each tile loads its elements once (16-byte vectors), forms the keep bits (the
 * predicate, or "differs from the element before" for unique), ranks them inside the tile by warp shuffles, looks back
 * over the predecessors' kept counts (decoupled look-back, exact: integer sums), and stores each kept element at its
 * global rank: read n, write the kept ones. Partition: a counting pass first (the kept total, where the rejected ones
 * begin), then the same kernel also stores each rejected element at total + (its index - its rank): both stable.
 * Run-length encoding: keep flags (heads), their exclusive scan by gp_scan's kernel with the run count as its carry
 * out, then the heads' values and starts, then the tails turn starts into lengths (four launches).
 */
#include "scan_internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

namespace {

/* Tuning knobs, for experiments (CMake GP_SELECT_TUNE; docs/PERFORMANCE.md, "Select"): warps per block of the single
 * pass, tiles its look-back requests per round trip (a multiple of 32), and a back-off between polls of a descriptor
 * that is not yet published (0: poll at once). The defaults are the measured code. */
#ifndef GP_SELECT_WARPS
#define GP_SELECT_WARPS 8
#endif
#ifndef GP_SELECT_LOOKBACK
#define GP_SELECT_LOOKBACK 32 /* 128 before session 8: 32 measured 11% faster (docs/PERFORMANCE.md) */
#endif
#ifndef GP_SELECT_BACKOFF_NS
#define GP_SELECT_BACKOFF_NS 0
#endif
constexpr int THREADS = 256, SEL_THREADS = 32 * GP_SELECT_WARPS;

/* A float predicate as one interval test, made once per thread: keep = (v in the interval) != inv, the ends open or
 * closed — the same answers as gp__keep_f (NaN is in no interval: nonzero, ne and nan invert), without a switch per
 * element. */
struct Range {
    double lo, hi;
    bool lo_open, hi_open, inv;
    /* for a float v (f32, and f16 / bf16 widened): the ends rounded so that float comparisons give the double ones'
     * answers — v > a iff v > rd(a), v >= a iff v >= ru(a), v < a iff v < ru(a), v <= a iff v <= rd(a) */
    float flo, fhi;
};
__device__ __forceinline__ Range make_range(const gp__pred_t &q)
{
    const double a = q.a, inf = INFINITY;
    Range r;
    switch (q.kind) {
    case GP_PRED_NONZERO: r = {0.0, 0.0, false, false, true, 0, 0}; break;
    case GP_PRED_EQ: r = {a, a, false, false, false, 0, 0}; break;
    case GP_PRED_NE: r = {a, a, false, false, true, 0, 0}; break;
    case GP_PRED_LT: r = {-inf, a, false, true, false, 0, 0}; break;
    case GP_PRED_LE: r = {-inf, a, false, false, false, 0, 0}; break;
    case GP_PRED_GT: r = {a, inf, true, false, false, 0, 0}; break;
    case GP_PRED_GE: r = {a, inf, false, false, false, 0, 0}; break;
    case GP_PRED_IN: r = {a, q.b, false, true, false, 0, 0}; break;
    case GP_PRED_NAN: r = {-inf, inf, false, false, true, 0, 0}; break;
    default: r = {-inf, inf, false, false, false, 0, 0}; break; /* not NaN */
    }
    r.flo = r.lo_open ? __double2float_rd(r.lo) : __double2float_ru(r.lo);
    r.fhi = r.hi_open ? __double2float_ru(r.hi) : __double2float_rd(r.hi);
    return r;
}
__device__ __forceinline__ int in_range(const Range &r, double v)
{
    const bool lo = r.lo_open ? v > r.lo : v >= r.lo, hi = r.hi_open ? v < r.hi : v <= r.hi;
    return (lo && hi) != r.inv;
}
__device__ __forceinline__ int in_range(const Range &r, float v)
{
    const bool lo = r.lo_open ? v > r.flo : v >= r.flo, hi = r.hi_open ? v < r.fhi : v <= r.fhi;
    return (lo && hi) != r.inv;
}

template <gp_dtype_t D> struct E;
#define GP_E(D, S, EXPR)                                                                                           \
    template <> struct E<D> {                                                                                      \
        typedef S type;                                                                                            \
        static __device__ __forceinline__ int keep(const gp__pred_t &q, const Range &r, S v)                      \
        {                                                                                                          \
            (void)q, (void)r;                                                                                      \
            return EXPR;                                                                                           \
        }                                                                                                          \
    };
GP_E(GP_U8, uint8_t, gp__keep_u(&q, v))
GP_E(GP_U16, uint16_t, gp__keep_u(&q, v))
GP_E(GP_U32, uint32_t, gp__keep_u(&q, v))
GP_E(GP_U64, uint64_t, gp__keep_u(&q, v))
GP_E(GP_I8, int8_t, gp__keep_s(&q, v))
GP_E(GP_I16, int16_t, gp__keep_s(&q, v))
GP_E(GP_I32, int32_t, gp__keep_s(&q, v))
GP_E(GP_I64, int64_t, gp__keep_s(&q, (long long)v))
GP_E(GP_F16, uint16_t, in_range(r, __half2float(__ushort_as_half(v))))
GP_E(GP_BF16, uint16_t, in_range(r, __bfloat162float(__ushort_as_bfloat16(v))))
GP_E(GP_F32, float, in_range(r, v))
GP_E(GP_F64, double, in_range(r, v))
#undef GP_E

/* x[i] == x[j] by value: floats as numbers (NaN equals nothing, -0 == +0), integers exactly */
template <gp_dtype_t D> __device__ __forceinline__ bool same(const typename E<D>::type *x, size_t i, size_t j)
{
    if constexpr (D == GP_F16) return __half2float(__ushort_as_half(x[i])) == __half2float(__ushort_as_half(x[j]));
    else if constexpr (D == GP_BF16)
        return __bfloat162float(__ushort_as_bfloat16(x[i])) == __bfloat162float(__ushort_as_bfloat16(x[j]));
    else return x[i] == x[j];
}

/* What the single pass keeps: MODE_PRED by the predicate, MODE_HEAD the first element of each run of equal ones. */
enum { MODE_PRED, MODE_HEAD };

/* run-length encoding's head flags */
template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS) k_heads(const typename E<D>::type *x, size_t n, F *f)
{
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        f[i] = (F)(i == 0 || !same<D>(x, i, i - 1));
}

/* Run-length encoding after the heads' scan: each head writes its run's value and its start into lengths[r]; then
 * (the next launch) each run's last element turns that start into the length. */
template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS)
    k_rle_heads(const typename E<D>::type *x, size_t n, const F *pos, const F *total, typename E<D>::type *values,
                uint64_t *lengths, uint64_t *runs_out)
{
    if (runs_out && blockIdx.x == 0 && threadIdx.x == 0) *runs_out = (uint64_t)*total;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        if (i == 0 || !same<D>(x, i, i - 1)) {
            values[pos[i]] = x[i];
            lengths[pos[i]] = i;
        }
}
template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS)
    k_rle_tails(const typename E<D>::type *x, size_t n, const F *pos, uint64_t *lengths)
{
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        if (i + 1 == n || !same<D>(x, i + 1, i)) {
            const size_t r = (size_t)pos[i] + (i == 0 || !same<D>(x, i, i - 1)) - 1;
            lengths[r] = i + 1 - lengths[r];
        }
}

/* ---- the single pass (select, partition, unique): one block per tile of 8 warps x 4 rounds x 32 lanes x one
 * 16-byte vector, tiles in ticket order. Each warp holds a contiguous segment; a lane's keep bits per round are
 * counted into 16-bit fields of one 64-bit word (a round's warp total is at most 32 x 16), scanned across the warp by
 * shuffles; the 8 warp totals give the tile's aggregate; warp 0 looks back over the predecessors' descriptors (a count
 * is an integer sum: the window is summed in parallel, any order); then every kept element is stored at its global
 * rank (a warp's stores of one round fill a contiguous range). Descriptors: one 64-bit word per tile, status in the
 * top two bits (1 the aggregate, 2 the inclusive count), the count below — a single-copy-atomic word, no fences. */
constexpr int ROUNDS = 4, WARPS = GP_SELECT_WARPS, LOOKBACK = GP_SELECT_LOOKBACK;
static_assert(LOOKBACK % 32 == 0 && LOOKBACK > 0, "whole windows of 32");
/* blocks per SM the launch bounds ask for: 6 (5, 4) blocks of 8 warps, scaled to the block's warps */
constexpr int min_blocks(int per8) { return per8 * 8 / WARPS; }
constexpr unsigned long long ST_SHIFT = 62, VAL_MASK = (1ull << ST_SHIFT) - 1;

template <typename S> __device__ __forceinline__ S shfl_up1(S v)
{
    if constexpr (sizeof(S) < 4) return (S)__shfl_up_sync(0xffffffffu, (unsigned)v, 1);
    else return __shfl_up_sync(0xffffffffu, v, 1);
}
template <typename S> __device__ __forceinline__ S shfl_from(S v, int lane)
{
    if constexpr (sizeof(S) < 4) return (S)__shfl_sync(0xffffffffu, (unsigned)v, lane);
    else return __shfl_sync(0xffffffffu, v, lane);
}
/* element k of a 16-byte vector of S (k a constant after unrolling: a shift, no local memory) */
template <typename S> __device__ __forceinline__ S elem(const uint4 &w, int k)
{
    const unsigned u[4] = {w.x, w.y, w.z, w.w};
    S s;
    if constexpr (sizeof(S) == 8) {
        const unsigned long long b = (unsigned long long)u[2 * k + 1] << 32 | u[2 * k];
        memcpy(&s, &b, 8);
    } else if constexpr (sizeof(S) == 4) {
        memcpy(&s, &u[k], 4);
    } else if constexpr (sizeof(S) == 2) {
        const unsigned short b = (unsigned short)(u[k / 2] >> (16 * (k % 2)));
        memcpy(&s, &b, 2);
    } else {
        const unsigned char b = (unsigned char)(u[k / 4] >> (8 * (k % 4)));
        memcpy(&s, &b, 1);
    }
    return s;
}
/* element k of the (zeroed) vector w = s */
template <typename S> __device__ __forceinline__ void set_elem(uint4 &w, int k, S s)
{
    unsigned *u[4] = {&w.x, &w.y, &w.z, &w.w};
    if constexpr (sizeof(S) == 8) {
        unsigned long long b;
        memcpy(&b, &s, 8);
        *u[2 * k] = (unsigned)b;
        *u[2 * k + 1] = (unsigned)(b >> 32);
    } else if constexpr (sizeof(S) == 4) {
        memcpy(u[k], &s, 4);
    } else if constexpr (sizeof(S) == 2) {
        unsigned short b;
        memcpy(&b, &s, 2);
        *u[k / 2] |= (unsigned)b << (16 * (k % 2));
    } else {
        unsigned char b;
        memcpy(&b, &s, 1);
        *u[k / 4] |= (unsigned)b << (8 * (k % 4));
    }
}
/* a == b by value (floats as numbers: NaN equals nothing, -0 == +0; integers exactly) */
template <gp_dtype_t D> __device__ __forceinline__ bool eq(typename E<D>::type a, typename E<D>::type b)
{
    if constexpr (D == GP_F16) return __half2float(__ushort_as_half(a)) == __half2float(__ushort_as_half(b));
    else if constexpr (D == GP_BF16) return __bfloat162float(__ushort_as_bfloat16(a)) == __bfloat162float(__ushort_as_bfloat16(b));
    else return a == b;
}
__device__ __forceinline__ unsigned long long warp_sum64(unsigned long long v)
{
#pragma unroll
    for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}
__device__ __forceinline__ void desc_put(unsigned long long *d, size_t t, unsigned long long st, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(d + t), "l"(st << ST_SHIFT | v) : "memory");
}
__device__ __forceinline__ unsigned long long desc_get(const unsigned long long *d, size_t t)
{
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(d + t) : "memory");
    return w;
}

/* PART: partition (rejected elements after the kept ones, *total = the kept count, known before this launch) */
template <gp_dtype_t D, int MODE, int PART>
__global__ void __launch_bounds__(SEL_THREADS,
                                  min_blocks(sizeof(typename E<D>::type) < 4 ? 4 : MODE == MODE_PRED && !PART ? 6 : 5))
    k_select(const typename E<D>::type *x, size_t n, gp__pred_t q, typename E<D>::type *y, unsigned *ticket,
             unsigned long long *desc, const unsigned long long *total, uint64_t *count_out)
{
    typedef typename E<D>::type S;
    constexpr int VEC = 16 / (int)sizeof(S), SEG = 32 * ROUNDS * VEC, TILE = WARPS * SEG;
    __shared__ unsigned s_tile;
    __shared__ unsigned s_wc[WARPS];
    __shared__ unsigned long long s_pre;
    __shared__ S s_stage[WARPS * SEG];
    if (threadIdx.x == 0) s_tile = atomicAdd(ticket, 1u);
    const Range range = make_range(q);
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t t = s_tile, t0 = t * (size_t)TILE, base = t0 + (size_t)warp * SEG;

    /* the elements stay packed in their 16-byte vectors (one register per 4 bytes whatever the dtype); elem()
     * takes element k out with shifts once the loops are unrolled */
    uint4 v[ROUNDS];
    if (t0 + TILE <= n && ((uintptr_t)(x + t0) & 15) == 0) {
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) v[r] = reinterpret_cast<const uint4 *>(x + base + r * 32 * VEC)[lane];
    } else {
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) {
            v[r] = make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const size_t i = base + (size_t)(r * 32 + lane) * VEC + k;
                if (i < n) set_elem<S>(v[r], k, x[i]);
            }
        }
    }
    /* the keep bits, one word per round (VEC <= 16 bits), and their counts packed 16 bits per round */
    unsigned m[ROUNDS];
    unsigned long long packed = 0;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        const size_t i0 = base + (size_t)(r * 32 + lane) * VEC;
        S prev = (S)0;
        if constexpr (MODE == MODE_HEAD) {
            const S up = shfl_up1(elem<S>(v[r], VEC - 1)), w31 = shfl_from(elem<S>(v[r > 0 ? r - 1 : 0], VEC - 1), 31);
            prev = lane ? up : r ? w31 : (i0 > 0 && i0 - 1 < n ? x[i0 - 1] : (S)0);
        }
        m[r] = 0;
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t i = i0 + k;
            const S e = elem<S>(v[r], k);
            bool keep;
            if constexpr (MODE == MODE_HEAD) keep = i == 0 || !eq<D>(e, k ? elem<S>(v[r], k - 1) : prev);
            else keep = q.mode == GP__PM_FLAGS ? (i < n && q.flags[i] != 0)
                        : q.mode == GP__PM_CONST ? q.value != 0 : E<D>::keep(q, range, e) != 0;
            m[r] |= (unsigned)(keep && i < n) << k;
        }
        packed |= (unsigned long long)__popc(m[r]) << (16 * r);
    }
    unsigned long long incl = packed;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned long long o = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += o;
    }
    const unsigned long long wtot = __shfl_sync(0xffffffffu, incl, 31), excl = incl - packed;
    unsigned off[ROUNDS], run = 0;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        off[r] = run + (unsigned)(excl >> (16 * r) & 0xffff);
        run += (unsigned)(wtot >> (16 * r) & 0xffff);
    }
    if (lane == 0) s_wc[warp] = run;
    /* the warp's kept elements, compacted in order into its part of the stage, then (partition) its rejected ones
     * after them — so the stores after the look-back are contiguous runs, 32 lanes side by side */
    S *stage = s_stage + warp * SEG;
#pragma unroll
    for (int r = 0; r < ROUNDS; r++) {
        const int li0 = (r * 32 + lane) * VEC;
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const int rank = (int)off[r] + __popc(m[r] & ((1u << k) - 1));
            if (m[r] >> k & 1) stage[rank] = elem<S>(v[r], k);
            else if (PART) stage[run + li0 + k - rank] = elem<S>(v[r], k);
        }
    }
    __syncthreads();
    unsigned wpre = 0, A = 0;
#pragma unroll
    for (int j = 0; j < WARPS; j++) {
        const unsigned c = s_wc[j];
        wpre += j < warp ? c : 0u;
        A += c;
    }

    /* the look-back: P = the kept count of all tiles before this one */
    if (warp == 0) {
        unsigned long long P = 0;
        if (t == 0) {
            if (lane == 0) desc_put(desc, 0, 2, A);
        } else {
            if (lane == 0) desc_put(desc, t, 1, A);
            /* LOOKBACK tiles per round trip (each lane reads LOOKBACK / 32 descriptors at once): the inclusive
             * front can advance at most that many tiles per look-back latency, so a window of 32 caps the kernel
             * below the memory's rate (docs/PERFORMANCE.md, "Select") */
            for (long long p0 = (long long)t - 1;; p0 -= LOOKBACK) {
                unsigned long long w[LOOKBACK / 32];
#pragma unroll
                for (int j = 0; j < LOOKBACK / 32; j++) {
                    const long long p = p0 - 32 * j - lane;
                    w[j] = p >= 0 ? desc_get(desc, (size_t)p) : 2ull << ST_SHIFT; /* before tile 0: an inclusive 0 */
                }
#pragma unroll
                for (int j = 0; j < LOOKBACK / 32; j++) {
                    const long long p = p0 - 32 * j - lane;
                    while ((w[j] >> ST_SHIFT) == 0) {
                        if (GP_SELECT_BACKOFF_NS) __nanosleep(GP_SELECT_BACKOFF_NS);
                        w[j] = desc_get(desc, (size_t)p);
                    }
                }
                int near = -1; /* the nearest inclusive count's distance, 32 j + lane */
#pragma unroll
                for (int j = LOOKBACK / 32 - 1; j >= 0; j--) {
                    const unsigned inc = __ballot_sync(0xffffffffu, (w[j] >> ST_SHIFT) == 2);
                    if (inc) near = 32 * j + __ffs(inc) - 1;
                }
                unsigned long long sum = 0;
#pragma unroll
                for (int j = 0; j < LOOKBACK / 32; j++)
                    if (near < 0 || 32 * j + lane <= near) sum += w[j] & VAL_MASK;
                P += warp_sum64(sum);
                if (near >= 0) break;
            }
            if (lane == 0) desc_put(desc, t, 2, P + A);
        }
        if (lane == 0) {
            s_pre = P;
            if (count_out && t == gridDim.x - 1) *count_out = P + A;
        }
    }
    __syncthreads();
    const size_t P = (size_t)s_pre + wpre; /* the warp's first kept element's rank */
    for (unsigned j = lane; j < run; j += 32) y[P + j] = stage[j];
    if (PART) {
        /* the rejected ones: after all kept (tot), at their rank among the rejected (base - P before the warp's) */
        const size_t valid = base < n ? (n - base < (size_t)SEG ? n - base : (size_t)SEG) : 0;
        S *yr = y + ((size_t)*total + base - P);
        for (size_t j = lane; j < valid - run; j += 32) yr[j] = stage[run + j];
    }
}

/* partition's first pass: the kept count into *total (zeroed before) */
template <gp_dtype_t D>
__global__ void __launch_bounds__(THREADS)
    k_count(const typename E<D>::type *x, size_t n, gp__pred_t q, unsigned long long *total)
{
    unsigned c = 0;
    const Range range = make_range(q);
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        c += (q.mode == GP__PM_FLAGS ? q.flags[i] != 0 : q.mode == GP__PM_CONST ? q.value != 0
                                                       : E<D>::keep(q, range, x[i]) != 0);
    c = __reduce_add_sync(0xffffffffu, c);
    __shared__ unsigned s[THREADS / 32];
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long b = 0;
        for (int j = 0; j < THREADS / 32; j++) b += s[j];
        atomicAdd(total, b);
    }
}

template <gp_dtype_t D>
gp_status_t launch_single(gp_ctx_t *ctx, size_t n, const void *x, const gp__pred_t &q, int job, void *y,
                          uint64_t *count_dev, cudaStream_t s)
{
    typedef typename E<D>::type S;
    constexpr size_t TILE = (size_t)WARPS * 32 * ROUNDS * (16 / sizeof(S));
    const size_t ntiles = (n + TILE - 1) / TILE;
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "gp_select: %zu tiles (at most 2^31 - 1)", ntiles);
    /* workspace: the ticket, the partition's total, the descriptors; all zeroed on the stream */
    const size_t bytes = 32 + ntiles * 8;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, bytes, &ws));
    char *w = (char *)ws;
    cudaError_t e = cudaMemsetAsync(w, 0, bytes, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_select: clearing the tile descriptors", __FILE__, __LINE__);
    unsigned *ticket = (unsigned *)w;
    unsigned long long *total = (unsigned long long *)(w + 16), *desc = (unsigned long long *)(w + 32);
    if (job == 1) {
        const unsigned fill = gp__fill_grid(ctx, THREADS);
        const size_t need = (n + THREADS - 1) / THREADS;
        k_count<D><<<need < fill ? (unsigned)need : fill, THREADS, 0, s>>>((const S *)x, n, q, total);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_partition (count)"));
        k_select<D, MODE_PRED, 1><<<(unsigned)ntiles, SEL_THREADS, 0, s>>>((const S *)x, n, q, (S *)y, ticket, desc, total,
                                                                       count_dev);
    } else if (job == 0) {
        k_select<D, MODE_PRED, 0><<<(unsigned)ntiles, SEL_THREADS, 0, s>>>((const S *)x, n, q, (S *)y, ticket, desc, total,
                                                                       count_dev);
    } else {
        k_select<D, MODE_HEAD, 0><<<(unsigned)ntiles, SEL_THREADS, 0, s>>>((const S *)x, n, q, (S *)y, ticket, desc, total,
                                                                       count_dev);
    }
    return GP_CHECK_LAUNCH(job == 1 ? "gp_partition" : job == 0 ? "gp_select" : "gp_unique");
}

/* ---- run-length encoding: flags, their scan, two scatters */
template <gp_dtype_t D, typename F>
gp_status_t launch(gp_ctx_t *ctx, gp_dtype_t fd, size_t n, const void *x, void *y, uint64_t *lengths,
                   uint64_t *count_dev, cudaStream_t s)
{
    typedef typename E<D>::type S;
    /* the scan takes the front of the workspace (gp__scan_gpu asks for no more, so it gets the same block); the count
     * and the flags follow it */
    const size_t front = (gp__scan_gpu_workspace_bytes(fd, n) + 255) / 256 * 256;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, front + 256 + n * sizeof(F), &ws));
    F *total = (F *)((char *)ws + front), *f = (F *)((char *)ws + front + 256);
    const unsigned fill = gp__fill_grid(ctx, THREADS);
    const size_t need = (n + THREADS - 1) / THREADS;
    const unsigned grid = need < fill ? (unsigned)need : fill;
    k_heads<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, f);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_run_length_encode (flags)"));
    GP_TRY_RET(gp__scan_gpu(ctx, GP_REDUCE_SUM, fd, n, f, f, 1, NULL, total, s));
    k_rle_heads<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, f, total, (S *)y, lengths, count_dev);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_run_length_encode (heads)"));
    k_rle_tails<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, f, lengths);
    return GP_CHECK_LAUNCH("gp_run_length_encode (tails)");
}

template <gp_dtype_t D>
gp_status_t by_width(gp_ctx_t *ctx, size_t n, const void *x, const gp__pred_t &q, int job, void *y, uint64_t *lengths,
                     uint64_t *count_dev, cudaStream_t s)
{
    if (job < 3) return launch_single<D>(ctx, n, x, q, job, y, count_dev, s);
    if (n <= UINT32_MAX) return launch<D, uint32_t>(ctx, GP_U32, n, x, y, lengths, count_dev, s);
    return launch<D, unsigned long long>(ctx, GP_U64, n, x, y, lengths, count_dev, s);
}

} // namespace

extern "C" gp_status_t gp__select_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp__pred_t *p,
                                      int job, void *y, uint64_t *lengths, uint64_t *count_dev, cudaStream_t stream)
{
    gp__pred_t none;
    memset(&none, 0, sizeof none);
    const gp__pred_t &q = p ? *p : none;
    switch (dtype) {
    case GP_U8: return by_width<GP_U8>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I8: return by_width<GP_I8>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_U16: return by_width<GP_U16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I16: return by_width<GP_I16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_U32: return by_width<GP_U32>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I32: return by_width<GP_I32>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_U64: return by_width<GP_U64>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I64: return by_width<GP_I64>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_F16: return by_width<GP_F16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_BF16: return by_width<GP_BF16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_F32: return by_width<GP_F32>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_F64: return by_width<GP_F64>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    default: return gp__error(GP_ERR_INVALID_ARG, "gp_select: dtype %d", (int)dtype);
    }
}
