/*
 * select.cu — the GPU select / partition / unique in one pass each, and run-length encoding.
 * Select and unique: one kernel — each tile loads its elements once (16-byte vectors), forms the keep bits (the
 * predicate, or "differs from the element before" for unique), ranks them inside the tile by warp shuffles, looks back
 * over the predecessors' kept counts (decoupled look-back, exact: integer sums), and stores each kept element at its
 * global rank: read n, write the kept ones. Partition: a counting pass first (the kept total, where the rejected ones
 * begin), then the same kernel also stores each rejected element at total + (its index - its rank): both stable.
 * Run-length encoding: the same pass keeps each run's first element and writes its length — where the next head is
 * in the tile, from the staged heads' places; else the tile holding the next head writes it, from the place of the
 * last head before it, which the look-back carries beside the count (the last tile writes the last run's). 1-byte
 * types: keep flags (heads), their exclusive scan by gp_scan's kernel with the run count as its carry out, then the
 * heads' values and starts, then the tails turn starts into lengths (four launches).
 */
#include "scan_internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

namespace {

#include "lookback.cuh"
#include "select_lb.cuh"

constexpr int THREADS = 256;

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

/* a == b by value (floats as numbers: NaN equals nothing, -0 == +0; integers exactly) */
template <gp_dtype_t D> __device__ __forceinline__ bool eq(typename E<D>::type a, typename E<D>::type b)
{
    if constexpr (D == GP_F16) return __half2float(__ushort_as_half(a)) == __half2float(__ushort_as_half(b));
    else if constexpr (D == GP_BF16) return __bfloat162float(__ushort_as_bfloat16(a)) == __bfloat162float(__ushort_as_bfloat16(b));
    else return a == b;
}
/* The built-in keep policy: a gp__pred_t (flags, a constant, or the interval test) for dtype D, and unique's
 * equality. */
template <gp_dtype_t D> struct KeepQ {
    typedef typename E<D>::type S;
    gp__pred_t q;
    Range r;
    __device__ __forceinline__ void prepare() { r = make_range(q); }
    __device__ __forceinline__ bool keep(S e, size_t i, size_t n) const
    {
        return q.mode == GP__PM_FLAGS ? (i < n && q.flags[i] != 0)
               : q.mode == GP__PM_CONST ? q.value != 0 : E<D>::keep(q, r, e) != 0;
    }
    __device__ __forceinline__ bool eq(S a, S b) const { return ::eq<D>(a, b); }
};

template <gp_dtype_t D, int MODE, int PART>
__global__ void __launch_bounds__(SEL_THREADS, sel_min_blocks<typename E<D>::type, MODE, PART>())
    k_select(const typename E<D>::type *x, size_t n, gp__pred_t q, typename E<D>::type *y, unsigned *ticket,
             unsigned long long *desc, const unsigned long long *total, uint64_t *count_out, uint64_t *lengths)
{
    KeepQ<D> k;
    k.q = q;
    sel_body<typename E<D>::type, MODE, PART>(x, n, k, y, ticket, desc, total, (unsigned long long *)count_out,
                                              (unsigned long long *)lengths);
}

/* partition's first pass: the kept count into *total (zeroed before). A predicate on the values reads them as 16-byte
 * vectors, two per thread per step, where x is aligned (the count is all it needs: a read-only pass at the copy's
 * read rate); flags and constants read no values. */
template <gp_dtype_t D>
__global__ void __launch_bounds__(THREADS)
    k_count(const typename E<D>::type *x, size_t n, gp__pred_t q, unsigned long long *total)
{
    typedef typename E<D>::type S;
    constexpr int VEC = 16 / (int)sizeof(S);
    unsigned c = 0;
    const Range range = make_range(q);
    const size_t stride = (size_t)gridDim.x * THREADS, i0 = (size_t)blockIdx.x * THREADS + threadIdx.x;
    size_t tail = 0; /* where the scalar loop starts */
    if (q.mode != GP__PM_FLAGS && q.mode != GP__PM_CONST && ((uintptr_t)x & 15) == 0) {
        const uint4 *xv = reinterpret_cast<const uint4 *>(x);
        const size_t nv = n / VEC;
        size_t i = i0;
        for (; i + stride < nv; i += 2 * stride) {
            const uint4 a = xv[i], b = xv[i + stride];
#pragma unroll
            for (int k = 0; k < VEC; k++) c += E<D>::keep(q, range, elem<S>(a, k)) != 0;
#pragma unroll
            for (int k = 0; k < VEC; k++) c += E<D>::keep(q, range, elem<S>(b, k)) != 0;
        }
        if (i < nv) {
            const uint4 a = xv[i];
#pragma unroll
            for (int k = 0; k < VEC; k++) c += E<D>::keep(q, range, elem<S>(a, k)) != 0;
        }
        tail = nv * VEC;
    }
    for (size_t i = tail + i0; i < n; i += stride)
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

/* ---- select, partition and unique on the tile engine (sm_90; docs/design/scan.md, "Select on the tile engine"):
 * the same tiles, keep bits, ranks and stores as sel_body, so the same results. The copy engine brings each tile's
 * whole 16-byte vectors into a stage of the ring (plain bulk copies: x 16-byte aligned); the reducer warp counts the
 * tile's kept elements as it lands (the eight segments in turn, each as its consumer warp will) and publishes the
 * count; the look-back warp turns it into the tile's first rank; the consumers rank, compact their segment in place
 * in the stage and store it at its global rank. */
#include "../core/tma.cuh"
#include "tile_engine.cuh"
#include "select_tuning.h"

static_assert(SEL_THREADS == TE_CONSUMERS, "the engine's consumers are the single pass's block");
template <typename S> struct TeSel {
    static constexpr int VEC = 16 / (int)sizeof(S), SEG = 32 * ROUNDS * VEC, TILE = WARPS * SEG;
    static constexpr unsigned BYTES = TILE * sizeof(S); /* a stage */
    static constexpr size_t SMEM = (size_t)GP_SELECT_TE_STAGES * BYTES + 128;
};

template <gp_dtype_t D, int MODE, int PART>
__global__ void __launch_bounds__(TE_THREADS, GP_SELECT_TE_MINB)
    k_select_te(const typename E<D>::type *x, size_t n, gp__pred_t q, typename E<D>::type *y, unsigned *ticket,
                unsigned long long *desc, const unsigned long long *total, uint64_t *count_out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef typename E<D>::type S;
    typedef TeSel<S> C;
    constexpr int VEC = C::VEC, SEG = C::SEG, TILE = C::TILE, ST = GP_SELECT_TE_STAGES;
    extern __shared__ unsigned char te_dyn[];
    __shared__ TeRing<ST> ring;
    __shared__ unsigned s_wc[2][WARPS];
    __shared__ unsigned long long s_agg[ST], s_pre[ST];
    /* GP_SELECT_TE_MASKS: the reducer's keep bits (a lane's four rounds, 8 bits each: VEC <= 8) and segment counts */
    constexpr bool MASKS = GP_SELECT_TE_MASKS && VEC <= 8;
    __shared__ unsigned s_m[MASKS ? ST : 1][MASKS ? WARPS : 1][32], s_sc[MASKS ? ST : 1][MASKS ? WARPS : 1];
    unsigned char *const ring0 = te_dyn + ((128u - (smem_addr(te_dyn) & 127u)) & 127u);
    const size_t ntiles = (n + TILE - 1) / TILE;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    KeepQ<D> keeper;
    keeper.q = q;
    keeper.prepare();
    if (threadIdx.x == 0) ring.init();
    __syncthreads();

    /* the bytes of tile t the copy engine brings (its whole 16-byte vectors below n) */
    const auto vbytes = [&](size_t t) -> unsigned {
        const size_t c = n - t * TILE < (size_t)TILE ? n - t * TILE : (size_t)TILE;
        return (unsigned)(c * sizeof(S)) & ~15u;
    };
    const auto stage = [&](int s) { return ring0 + (size_t)s * C::BYTES; };
    /* segment w's vectors of tile t: from stage s, past its vectors from x (zero past n) */
    const auto seg_in = [&](int s, size_t t, int w, uint4 *v) {
        const unsigned vb = vbytes(t);
#pragma unroll
        for (int r = 0; r < ROUNDS; r++) {
            const unsigned vi = (unsigned)((w * ROUNDS + r) * 32 + lane);
            if ((vi + 1) * 16 <= vb) {
                v[r] = *reinterpret_cast<const uint4 *>(stage(s) + vi * 16);
            } else {
                v[r] = make_uint4(0, 0, 0, 0);
#pragma unroll
                for (int k = 0; k < VEC; k++) {
                    const size_t i = t * TILE + (size_t)vi * VEC + k;
                    if (i < n) set_elem<S>(v[r], k, x[i]);
                }
            }
        }
    };
    const auto load = [&](int s, size_t t, unsigned bar) {
        const unsigned vb = vbytes(t);
        if (vb) {
            mbar_arrive_tx(bar, vb);
            bulk_load(smem_addr(stage(s)), x + t * TILE, vb, bar);
        } else {
            mbar_arrive(bar);
        }
    };
    const auto store = [](int, size_t) {}; /* the consumers store */
    /* the tile's kept count, segment by segment as the consumer warps count theirs */
    const auto reduce = [&](int s, size_t t) {
        const size_t t0 = t * TILE;
        S before = (S)0;
        if (MODE != MODE_PRED && lane == 0 && t0 > 0) before = x[t0 - 1];
        unsigned c = 0;
#pragma unroll 1
        for (int w = 0; w < WARPS; w++) {
            uint4 v[ROUNDS];
            unsigned m[ROUNDS];
            seg_in(s, t, w, v);
            const unsigned long long p = sel_masks<S, MODE>(v, t0 + (size_t)w * SEG, n, keeper, before, m);
            unsigned cw = 0;
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) cw += sel_field<ROUNDS>(p, r);
            c += cw;
            if constexpr (MASKS) {
                s_m[s][w][lane] = m[0] | m[1] << 8 | m[2] << 16 | m[3] << 24;
                cw = __reduce_add_sync(0xffffffffu, cw);
                if (lane == 0) s_sc[s][w] = cw;
            }
            if (MODE != MODE_PRED) before = shfl_from(elem<S>(v[ROUNDS - 1], VEC - 1), 31);
        }
        c = __reduce_add_sync(0xffffffffu, c);
        if (lane == 0) {
            s_agg[s] = c;
            lb_count_put<false>(desc, t, t == 0 ? LB_INCL : LB_AGG, LbCount{c, 0});
        }
    };
    const auto look = [&](int s, size_t t) {
        const unsigned long long A = s_agg[s];
        unsigned long long P = 0;
        if (t > 0) {
            P = lb_count_lookback<LOOKBACK, GP_SELECT_BACKOFF_NS>(desc, (long long)t).c;
            if (lane == 0) lb_count_put<false>(desc, t, LB_INCL, LbCount{P + A, 0});
        }
        if (lane == 0) {
            s_pre[s] = P;
            if (count_out && t == ntiles - 1) *count_out = P + A;
        }
    };
    /* rank, compact the segment in place (after every warp read its neighbour's last element), store */
    const auto scan = [&](int s, size_t t, unsigned i) {
        const size_t t0 = t * TILE, base = t0 + (size_t)warp * SEG;
        uint4 v[ROUNDS];
        unsigned m[ROUNDS], off[ROUNDS];
        seg_in(s, t, warp, v);
        unsigned run, wpre = 0;
        if constexpr (MASKS) { /* the reducer's keep bits and counts: no predicate, no neighbour, no barrier */
            const unsigned mw = s_m[s][warp][lane];
            unsigned long long packed = 0;
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) {
                m[r] = (mw >> (8 * r)) & 0xffu;
                packed |= (unsigned long long)__popc(m[r]) << (sel_fb<ROUNDS>() * r);
            }
            run = sel_rank(packed, off);
#pragma unroll
            for (int j = 0; j < WARPS; j++) wpre += j < warp ? s_sc[s][j] : 0u;
            __syncwarp(); /* every lane's vectors read before the segment is overwritten */
        } else {
            S before = (S)0;
            if (MODE != MODE_PRED && lane == 0 && base > 0) {
                const unsigned li = (unsigned)warp * SEG - 1;
                if (warp == 0) before = x[t0 - 1];
                else if ((li + 1) * sizeof(S) <= vbytes(t)) before = reinterpret_cast<const S *>(stage(s))[li];
                else before = t0 + li < n ? x[t0 + li] : (S)0;
            }
            run = sel_rank(sel_masks<S, MODE>(v, base, n, keeper, before, m), off);
            if (lane == 0) s_wc[i & 1][warp] = run;
            te_consumer_sync();
#pragma unroll
            for (int j = 0; j < WARPS; j++) wpre += j < warp ? s_wc[i & 1][j] : 0u;
        }
        S *const seg = reinterpret_cast<S *>(stage(s)) + warp * SEG;
        sel_compact<S, PART, false>(v, m, off, run, seg, nullptr, 0);
        __syncwarp();
        const size_t P = (size_t)s_pre[s] + wpre;
        for (unsigned j = lane; j < run; j += 32) y[P + j] = seg[j];
        if (PART) {
            const size_t valid = base < n ? (n - base < (size_t)SEG ? n - base : (size_t)SEG) : 0;
            S *const yr = y + ((size_t)*total + base - P);
            for (size_t j = lane; j < valid - run; j += 32) yr[j] = seg[run + j];
        }
    };
    te_run<ST>(ring, ticket, ntiles, load, store, reduce, look, scan);
#else
    static_assert(TeSel<typename E<D>::type>::VEC > 0, "the engine is sm_90 code: empty here");
#endif
}

/* whether the engine takes a select job over n elements of S from x: forced or the tuning table's choice (AUTO from
 * GP_SELECT_TE_AUTO_MIN_N), 2- to 8-byte S (ptxas 13.0 fails to allocate registers for 1-byte unique), an sm_90
 * device with the kernel's sm_90 code, x 16-byte aligned; *blocks: per SM (0: the single-pass kernel) */
template <gp_dtype_t D, int MODE, int PART>
gp_status_t select_engine(gp_ctx_t *ctx, size_t n, const void *x, int *blocks)
{
    typedef typename E<D>::type S;
    const gp__scan_kernel_t k = gp__scan_forced_kernel();
    constexpr int es = (int)sizeof(S);
    const bool autow = (es == 4 || es == 8) && (MODE == MODE_HEAD ? GP_SELECT_TE_AUTO_HEAD
                                                 : PART            ? GP_SELECT_TE_AUTO_PART
                                                                   : GP_SELECT_TE_AUTO_PRED);
    const bool want = k == GP__SCAN_KERNEL_ENGINE || (k == GP__SCAN_KERNEL_AUTO && autow);
    const size_t least = k == GP__SCAN_KERNEL_ENGINE ? GP_SELECT_TE_MIN_N : GP_SELECT_TE_AUTO_MIN_N;
    *blocks = 0;
    if (!want || ctx->cc_major < 9 || n < least || ((uintptr_t)x & 15) != 0) return GP_OK;
    if constexpr (sizeof(S) >= 2) {
        static TeShape sh;
        const cudaError_t e =
            te_shape_of(sh, ctx, (const void *)k_select_te<D, MODE, PART>, TeSel<S>::SMEM, TE_THREADS, blocks);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_select: the tile engine's launch shape", __FILE__, __LINE__);
    }
    return GP_OK;
}

/* the single pass of select (MODE_PRED), partition (PART) or unique (MODE_HEAD): the engine where it takes it, else
 * a block per tile */
template <gp_dtype_t D, int MODE, int PART>
gp_status_t launch_select(gp_ctx_t *ctx, size_t n, const void *x, const gp__pred_t &q, void *y, unsigned *ticket,
                          unsigned long long *desc, const unsigned long long *total, uint64_t *count_dev, cudaStream_t s)
{
    typedef typename E<D>::type S;
    int per_sm = 0;
    GP_TRY_RET((select_engine<D, MODE, PART>(ctx, n, x, &per_sm)));
    if constexpr (sizeof(S) >= 2) {
        if (per_sm > 0) {
            const size_t ntiles = (n + TeSel<S>::TILE - 1) / TeSel<S>::TILE, fit = (size_t)ctx->sm_count * per_sm;
            k_select_te<D, MODE, PART><<<(unsigned)(ntiles < fit ? ntiles : fit), TE_THREADS, TeSel<S>::SMEM, s>>>(
                (const S *)x, n, q, (S *)y, ticket, desc, total, count_dev);
            return GP_OK;
        }
    }
    k_select<D, MODE, PART><<<(unsigned)sel_tiles<S, MODE>(n), SEL_THREADS, 0, s>>>(
        (const S *)x, n, q, (S *)y, ticket, desc, total, count_dev, NULL);
    return GP_OK;
}

/* job 0 select, 1 partition, 2 unique, 3 run-length encoding (2- to 8-byte types): the single pass */
template <gp_dtype_t D>
gp_status_t launch_single(gp_ctx_t *ctx, size_t n, const void *x, const gp__pred_t &q, int job, void *y,
                          uint64_t *lengths, uint64_t *count_dev, cudaStream_t s)
{
    typedef typename E<D>::type S;
    /* the most tiles any of the jobs' block kernels makes (their descriptors) */
    const size_t ntiles = sel_tiles<S, MODE_PRED>(n) > sel_tiles<S, MODE_RLE>(n) ? sel_tiles<S, MODE_PRED>(n)
                                                                                 : sel_tiles<S, MODE_RLE>(n);
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "gp_select: %zu tiles (at most 2^31 - 1)", ntiles);
    /* workspace: the ticket, the partition's total, the descriptors (run-length encoding: pairs); all zeroed on the
     * stream */
    const size_t bytes = 32 + ntiles * (job == 3 ? 16 : 8);
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, bytes, &ws));
    char *w = (char *)ws;
    cudaError_t e = cudaMemsetAsync(w, 0, bytes, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_select: clearing the tile descriptors", __FILE__, __LINE__);
    unsigned *ticket = (unsigned *)w;
    unsigned long long *total = (unsigned long long *)(w + 16), *desc = (unsigned long long *)(w + 32);
    switch (job) {
    case 0: GP_TRY_RET((launch_select<D, MODE_PRED, 0>(ctx, n, x, q, y, ticket, desc, total, count_dev, s))); break;
    case 1: {
        const unsigned fill = gp__fill_grid(ctx, THREADS);
        const size_t need = (n + THREADS - 1) / THREADS;
        k_count<D><<<need < fill ? (unsigned)need : fill, THREADS, 0, s>>>((const S *)x, n, q, total);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_partition (count)"));
        GP_TRY_RET((launch_select<D, MODE_PRED, 1>(ctx, n, x, q, y, ticket, desc, total, count_dev, s)));
        break;
    }
    case 2: GP_TRY_RET((launch_select<D, MODE_HEAD, 0>(ctx, n, x, q, y, ticket, desc, total, count_dev, s))); break;
    default:
        if constexpr (sizeof(S) >= 2)
            k_select<D, MODE_RLE, 0><<<(unsigned)sel_tiles<S, MODE_RLE>(n), SEL_THREADS, 0, s>>>(
                (const S *)x, n, q, (S *)y, ticket, desc, total, count_dev, lengths);
        break;
    }
    static const char *const what[] = {"gp_select", "gp_partition", "gp_unique", "gp_run_length_encode"};
    return GP_CHECK_LAUNCH(what[job]);
}

/* ---- run-length encoding of 1-byte types: flags, their scan, two scatters */
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
    if (job < 3 || sizeof(typename E<D>::type) >= 2) return launch_single<D>(ctx, n, x, q, job, y, lengths, count_dev, s);
    if constexpr (sizeof(typename E<D>::type) == 1) {
        if (n <= UINT32_MAX) return launch<D, uint32_t>(ctx, GP_U32, n, x, y, lengths, count_dev, s);
        return launch<D, unsigned long long>(ctx, GP_U64, n, x, y, lengths, count_dev, s);
    }
    return GP_OK;
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
