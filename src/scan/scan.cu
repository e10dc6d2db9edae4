/*
 * scan.cu — the single-pass GPU scan in the association order of scan_internal.h (docs/design/scan.md).
 *
 * Tiles of 4096 elements, 256 threads x 16 consecutive items; a block takes K consecutive tiles (two for a 4-byte
 * accumulator, one for an 8-byte one) in ticket order (lookback.cuh), so that every tile a block waits for belongs to
 * a block already running. For each of its tiles a block
 *   1. loads the items warp-striped (16-byte vectors, coalesced; all K tiles' loads in flight at once) into shared
 *      memory, each thread takes its 16 consecutive items from there, folds them into its run (r_k), scans the 256 run
 *      totals (Kogge-Stone by warp shuffles, then the 8 warp totals) and forms L = E (+) r_k — all without other
 *      tiles; the L values wait in shared memory during the look-back;
 *   2. publishes the aggregates A_t (each tile's last L); warp 0 looks back once from the block's first tile
 *      (lookback.cuh: the window, then the forward fold ((I_k (+) A_{k+1}) (+) ...) (+) A_{t-1} = I_{t-1}, exact
 *      whichever tile published first);
 *   3. publishes I_t = I_{t-1} (+) A_t tile by tile and writes I_{t-1} (+) L (exclusive: shifted by one, tile 0
 *      starting at the identity) back through shared memory, coalesced.
 * Descriptors (the workspace): a ticket, then per tile lookback.cuh's packed {status, value} words: no fences.
 * Float combines are explicitly rounded (no contraction), min / max keep the first NaN and the left operand on ties.
 */
#include "scan_internal.h"
#include "scan_tuning.h"

#include <stdint.h>
#include <string.h>
#include <type_traits>

#include <cuda_fp16.h>

namespace {

constexpr int THREADS = GP__SCAN_RUNS, ITEMS = GP__SCAN_RUN, TILE = GP__SCAN_TILE;

#include "scan_ops.cuh"
#include "lookback.cuh"

/* Windows of 32 predecessors a look-back may hold before it waits for the oldest one's inclusive prefix. */
constexpr int LOOKBACK_WINDOWS = 8;

template <typename T> __host__ __device__ constexpr int tiles_per_block() { return sizeof(T) == 4 ? GP_SCAN_TILES4 : 1; }
template <typename T> __host__ __device__ constexpr int min_blocks()
{
    return sizeof(T) != 4 ? GP_SCAN_MINB8 : tiles_per_block<T>() > 1 ? GP_SCAN_MINB_2T : GP_SCAN_MINB4;
}
/* the window folds as an ordered tree where the operator is exactly associative with an exact identity (every op
 * but float sums and products), else serially in one lane */
template <typename T, int OP> __host__ __device__ constexpr bool tree_fold()
{
    return std::is_integral<T>::value || OP == MIN || OP == MAX;
}

/* Storage types of the 2-byte floats (their bits), and the conversions between storage and scan (accumulator)
 * types: widening is exact; narrowing rounds to nearest even (floats: gp__f32_to_f16 / _bf16, the CPU's routine) or
 * wraps (integers). */
struct F16 {
    uint16_t b;
};
struct BF16 {
    uint16_t b;
};
template <typename A> __device__ __forceinline__ A widen(F16 v) { return (A)__half2float(__ushort_as_half(v.b)); }
template <typename A> __device__ __forceinline__ A widen(BF16 v) { return (A)__uint_as_float((unsigned)v.b << 16); }
template <typename A, typename I> __device__ __forceinline__ A widen(I v) { return (A)v; }
template <typename O, typename A> struct Narrow {
    static __device__ __forceinline__ O go(A v) { return (O)v; }
};
template <> struct Narrow<F16, float> {
    static __device__ __forceinline__ F16 go(float v) { return F16{gp__f32_to_f16(v)}; }
};
template <> struct Narrow<BF16, float> {
    static __device__ __forceinline__ BF16 go(float v) { return BF16{gp__f32_to_bf16(v)}; }
};

/* TI: the input's storage type, T: the scan's (accumulator) type, TO: the output's storage type. A block scans K
 * consecutive tiles (tiles_per_block<T>), tiles bK .. bK + K - 1 for its ticket b. */
template <typename TI, typename T, typename TO, int OP>
__global__ void __launch_bounds__(THREADS, min_blocks<T>())
    k_scan(const TI *x, TO *y, size_t n, int excl, const T *cin, T *cout, unsigned *ticket, unsigned long long *desc)
{
    typedef Op<T, OP> O;
    typedef LbPacked<T> D;
    constexpr int K = tiles_per_block<T>();
    __shared__ T s_g[K][THREADS / 32], s_last[K][THREADS / 32], s_agg[K], s_pre[K];
    __shared__ T s_win[LOOKBACK_WINDOWS * 32];
    /* each tile's items in 16-byte chunks: global memory is read and written warp-striped (coalesced), each thread
     * takes its 16 consecutive items from here; the chunk order is swizzled so both patterns are free of bank
     * conflicts. CI / CHUNKS / CO: chunks per thread of the input, the scan values and the output. */
    constexpr int CHUNKS = ITEMS * (int)sizeof(T) / 16;
    constexpr int CI = ITEMS * (int)sizeof(TI) / 16, PCI = 16 / (int)sizeof(TI);
    constexpr int CO = ITEMS * (int)sizeof(TO) / 16, PCO = 16 / (int)sizeof(TO);
    constexpr int CMAX = CHUNKS > CI ? (CHUNKS > CO ? CHUNKS : CO) : (CI > CO ? CI : CO);
    __shared__ uint4 s_items[K][THREADS * CMAX];
    const auto swz = [](int c) { return c ^ ((c >> 3) & (CHUNKS - 1)); };
    const auto swzi = [](int c) { return c ^ ((c >> 3) & (CI - 1)); };
    const auto swzo = [](int c) { return c ^ ((c >> 3) & (CO - 1)); };
    const auto comb = [](T a, T b) { return O::comb(a, b); };
    const size_t b = lb_ticket(ticket), ntiles = (n + TILE - 1) / TILE, tb = b * K;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    /* 1. the items of the K tiles (all loads issued before any is used), the runs, the tile scans */
    T v[K][ITEMS];
    {
        uint4 w[K][CI];
        bool full[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            const size_t t0 = (tb + j) * TILE;
            full[j] = t0 + TILE <= n && ((uintptr_t)(x + t0) & 15) == 0;
            if (full[j]) {
                const uint4 *p = reinterpret_cast<const uint4 *>(x + t0);
#pragma unroll
                for (int i = 0; i < CI; i++) w[j][i] = p[i * THREADS + threadIdx.x];
            }
        }
#pragma unroll
        for (int j = 0; j < K; j++) {
            const size_t t0 = (tb + j) * TILE;
            if (full[j]) {
#pragma unroll
                for (int i = 0; i < CI; i++) s_items[j][swzi(i * THREADS + threadIdx.x)] = w[j][i];
            } else {
                TI *se = reinterpret_cast<TI *>(s_items[j]);
#pragma unroll
                for (int i = 0; i < ITEMS; i++) {
                    const int e = i * THREADS + threadIdx.x;
                    if (t0 + e < n) se[swzi(e / PCI) * PCI + e % PCI] = x[t0 + e];
                }
            }
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < K; j++) {
        uint4 w[CI];
#pragma unroll
        for (int q = 0; q < CI; q++) w[q] = s_items[j][swzi(threadIdx.x * CI + q)];
        TI vi[ITEMS];
        memcpy(vi, w, sizeof vi);
        const size_t mine = (tb + j) * TILE + (size_t)threadIdx.x * ITEMS;
#pragma unroll
        for (int k = 0; k < ITEMS; k++) v[j][k] = mine + k < n ? widen<T>(vi[k]) : O::pad();
#pragma unroll
        for (int k = 1; k < ITEMS; k++) v[j][k] = O::comb(v[j][k - 1], v[j][k]);
    }
    T S[K];
#pragma unroll
    for (int j = 0; j < K; j++) S[j] = v[j][ITEMS - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
        for (int j = 0; j < K; j++) {
            const T o = __shfl_up_sync(0xffffffffu, S[j], d);
            if (lane >= d) S[j] = O::comb(o, S[j]);
        }
    }
    if (lane == 31)
#pragma unroll
        for (int j = 0; j < K; j++) s_g[j][warp] = S[j];
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int j = 0; j < K; j++) {
            T g = lane < THREADS / 32 ? s_g[j][lane] : O::pad();
#pragma unroll
            for (int d = 1; d < THREADS / 32; d <<= 1) {
                const T o = __shfl_up_sync(0xffffffffu, g, d);
                if (lane >= d && lane < THREADS / 32) g = O::comb(o, g);
            }
            if (lane < THREADS / 32) s_g[j][lane] = g;
        }
    }
    T Sprev[K];
#pragma unroll
    for (int j = 0; j < K; j++) Sprev[j] = __shfl_up_sync(0xffffffffu, S[j], 1);
    __syncthreads();
    if (warp || lane)
#pragma unroll
        for (int j = 0; j < K; j++) {
            const T E = warp && lane ? O::comb(s_g[j][warp - 1], Sprev[j]) : warp ? s_g[j][warp - 1] : Sprev[j];
#pragma unroll
            for (int k = 0; k < ITEMS; k++) v[j][k] = O::comb(E, v[j][k]);
        }
    /* the previous thread's last L (the exclusive scan's first item), each tile's aggregate */
    T prevL[K];
#pragma unroll
    for (int j = 0; j < K; j++) {
        prevL[j] = __shfl_up_sync(0xffffffffu, v[j][ITEMS - 1], 1);
        if (lane == 31) s_last[j][warp] = v[j][ITEMS - 1];
        if (threadIdx.x == THREADS - 1) s_agg[j] = v[j][ITEMS - 1];
    }
    __syncthreads();
    if (y == nullptr) { /* aggregates only (a sharded scan's first pass): cout[t] = A_t; no look-back, no outputs */
        if (threadIdx.x < K && tb + threadIdx.x < ntiles) cout[tb + threadIdx.x] = s_agg[threadIdx.x];
        return;
    }
    if (lane == 0 && warp)
#pragma unroll
        for (int j = 0; j < K; j++) prevL[j] = s_last[j][warp - 1];
    /* the L values wait in shared memory (the thread's own chunks) while warp 0 looks back: fewer registers */
#pragma unroll
    for (int j = 0; j < K; j++) {
        uint4 w[CHUNKS];
        memcpy(w, v[j], sizeof v[j]);
#pragma unroll
        for (int q = 0; q < CHUNKS; q++) s_items[j][swz(threadIdx.x * CHUNKS + q)] = w[q];
    }

    /* 2. publish the aggregates, look back from the block's first tile, publish the inclusive prefixes: I_{tb+j} =
     * I_{tb+j-1} (+) A_{tb+j}, each tile's as if it had its own block */
    if (warp == 0) {
        T pre = O::pad();
        if (tb == 0) {
            if (cin) pre = *cin; /* a carry in: I_{-1}, the last inclusive value of the pieces before */
        } else {
            if (lane == 0)
#pragma unroll
                for (int j = 0; j < K; j++)
                    if (tb + j < ntiles) D::put(desc, tb + j, LB_AGG, s_agg[j]);
            const int N = lb_window<LOOKBACK_WINDOWS, GP_SCAN_BACKOFF_NS>(
                (long long)tb, s_win, O::pad(), [&](size_t p, T *val) { return D::get(desc, p, val); });
            if constexpr (tree_fold<T, OP>()) pre = lb_fold_tree(s_win, N, O::pad(), comb);
            else if (lane == 0) pre = lb_fold_serial(s_win, N, comb);
        }
        if (lane == 0)
#pragma unroll
            for (int j = 0; j < K; j++) {
                s_pre[j] = pre;
                pre = O::comb(pre, s_agg[j]);
                if (tb + j < ntiles) D::put(desc, tb + j, LB_INCL, pre);
            }
    }
    __syncthreads();

    /* 3. the outputs, tile by tile */
#pragma unroll
    for (int j = 0; j < K; j++) {
        const size_t t = tb + j, t0 = t * TILE;
        if (t0 >= n) break;
        const T C = s_pre[j];
        {
            uint4 w[CHUNKS];
#pragma unroll
            for (int q = 0; q < CHUNKS; q++) w[q] = s_items[j][swz(threadIdx.x * CHUNKS + q)];
            memcpy(v[j], w, sizeof v[j]);
        }
        /* the carry out: the inclusive value of element n - 1, C (+) L of it — what the reference carries. (Not the
         * tile's aggregate: in a partial last tile the padding's place in the Kogge-Stone steps groups the real runs
         * differently, so the L at the tile's end can differ from the last element's in a float sum's last bit.) */
        if (cout && t == ntiles - 1) {
            const size_t last = n - 1 - t0;
            if (threadIdx.x == last / ITEMS) {
                T lv = v[j][0];
#pragma unroll
                for (int k = 1; k < ITEMS; k++)
                    if ((size_t)k == last % ITEMS) lv = v[j][k];
                *cout = O::comb(C, lv);
            }
        }
        /* in place: the exclusive scan shifts by one, from the last item down */
        if (!excl) {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) v[j][k] = O::comb(C, v[j][k]);
        } else {
#pragma unroll
            for (int k = ITEMS - 1; k > 0; k--) v[j][k] = O::comb(C, v[j][k - 1]);
            v[j][0] = threadIdx.x == 0 ? (t == 0 && !cin ? O::first() : C) : O::comb(C, prevL[j]);
        }
        /* back through shared memory (each thread its own chunks, read long before; when the output's chunks are
         * laid out differently from the scan values', every thread must have read its values first), then
         * coalesced stores */
        TO vo[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) vo[k] = Narrow<TO, T>::go(v[j][k]);
        uint4 w[CO];
        memcpy(w, vo, sizeof vo);
        if constexpr (CO != CHUNKS) __syncthreads();
#pragma unroll
        for (int q = 0; q < CO; q++) s_items[j][swzo(threadIdx.x * CO + q)] = w[q];
        __syncthreads();
        if (t0 + TILE <= n && ((uintptr_t)(y + t0) & 15) == 0) {
            uint4 *p = reinterpret_cast<uint4 *>(y + t0);
#pragma unroll
            for (int i = 0; i < CO; i++) p[i * THREADS + threadIdx.x] = s_items[j][swzo(i * THREADS + threadIdx.x)];
        } else {
            const TO *se = reinterpret_cast<const TO *>(s_items[j]);
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                const int e = i * THREADS + threadIdx.x;
                if (t0 + e < n) y[t0 + e] = se[swzo(e / PCO) * PCO + e % PCO];
            }
        }
    }
}


#include "../core/tma.cuh"
#include "tile_engine.cuh"

/* Float min / max as O::comb gives them (the first NaN, the left of equals, -0 equal to +0) in integer operations
 * only, which no float-min rewrite reaches: numbers compare through the monotone key (sign set: ~bits, else
 * bits | sign). */
template <typename T, int OP> __device__ __forceinline__ T comb_bits(T a, T b)
{
    typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type U;
    constexpr U SIGN = (U)1 << (sizeof(T) * 8 - 1), INF = sizeof(T) == 4 ? (U)0x7f800000u : (U)0x7ff0000000000000ull;
    U ua, ub;
    memcpy(&ua, &a, sizeof a);
    memcpy(&ub, &b, sizeof b);
    const bool nan_a = (ua & ~SIGN) > INF, nan_b = (ub & ~SIGN) > INF, zeros = ((ua | ub) & ~SIGN) == 0;
    const U ka = ua & SIGN ? ~ua : ua | SIGN, kb = ub & SIGN ? ~ub : ub | SIGN;
    const bool beyond = OP == MIN ? kb < ka : kb > ka;
    return !nan_a && (nan_b || (beyond && !zeros)) ? b : a;
}

/* ---- the same scan on the tile engine (same-type 4- and 8-byte scans, sm_90). The tile is the order's 4096
 * elements, brought in by the copy engine as a box of 128-byte rows (RW elements) with the 128-byte swizzle, so that
 * each thread's 16 consecutive items are read from shared memory without bank conflicts; every combine is the kernel
 * above's, in the same order, so the bits are its (and the CPU backend's). The elements past the last whole row
 * (fewer than RW) are read and written by the threads that own them. docs/design/scan.md, "The tile engine". */
template <typename T> struct TeScan {
    static constexpr int RW = 128 / (int)sizeof(T);                            /* elements per 128-byte row */
    static constexpr int ROWS = TILE / RW;                                     /* rows per tile (the box) */
    static constexpr unsigned BYTES = TILE * sizeof(T);                        /* one stage */
    static constexpr int STAGES = sizeof(T) == 4 ? GP_SCAN_TE_STAGES4 : GP_SCAN_TE_STAGES8;
    static constexpr int MINB = sizeof(T) == 4 ? GP_SCAN_TE_MINB4 : GP_SCAN_TE_MINB8;
    static constexpr int CH = ITEMS * (int)sizeof(T) / 16;                     /* a run's 16-byte chunks */
    static constexpr size_t SMEM = (size_t)STAGES * BYTES + 1024;              /* the ring, 1024-byte aligned */
};

template <typename T, int OP>
__global__ void __launch_bounds__(TE_THREADS, TeScan<T>::MINB)
    k_scan_te(const __grid_constant__ CUtensorMap mx, const __grid_constant__ CUtensorMap my, const T *x, T *y,
              size_t n, int excl, const T *cin, T *cout, unsigned *ticket, unsigned long long *desc)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef Op<T, OP> O;
    typedef LbPacked<T> D;
    typedef TeScan<T> C;
    constexpr int S = C::STAGES, WARPS = THREADS / 32;
    extern __shared__ unsigned char te_dyn[];
    __shared__ TeRing<S> ring;
    __shared__ T s_g[2][WARPS], s_last[WARPS], s_agg[S], s_pre[S];
    __shared__ T s_win[LOOKBACK_WINDOWS * 32];
    unsigned char *const ring0 = te_dyn + ((1024u - (smem_addr(te_dyn) & 1023u)) & 1023u);
    const size_t ntiles = (n + TILE - 1) / TILE, rows = n / C::RW, nfull = rows * C::RW;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const auto comb = [](T a, T b) { return O::comb(a, b); };
    const auto up = [](T a, int d) { return __shfl_up_sync(0xffffffffu, a, d); };
    if (threadIdx.x == 0) {
        ring.init();
        prefetch_tensor_map(&mx);
        prefetch_tensor_map(&my);
    }
    __syncthreads();

    /* run j's 16 consecutive elements of the tile in stage s (CH swizzled chunks; the tail past the whole rows from
     * x, past n the pad) */
    const auto run_in = [&](int s, size_t t, unsigned j, T *v) {
        uint4 w[C::CH];
#pragma unroll
        for (int c = 0; c < C::CH; c++)
            w[c] = *reinterpret_cast<const uint4 *>(ring0 + (size_t)s * C::BYTES +
                                                    swizzle128(j * (ITEMS * sizeof(T)) + 16u * c));
        memcpy(v, w, ITEMS * sizeof(T));
        const size_t t0 = t * TILE, mine = t0 + (size_t)j * ITEMS;
        if (t0 + TILE > nfull)
#pragma unroll
            for (int k = 0; k < ITEMS; k++) v[k] = mine + k >= n ? O::pad() : mine + k >= nfull ? x[mine + k] : v[k];
    };
    const auto run_out = [&](int s, const T *v) {
        uint4 w[C::CH];
        memcpy(w, v, ITEMS * sizeof(T));
#pragma unroll
        for (int c = 0; c < C::CH; c++)
            *reinterpret_cast<uint4 *>(ring0 + (size_t)s * C::BYTES +
                                       swizzle128(threadIdx.x * (ITEMS * sizeof(T)) + 16u * c)) = w[c];
    };

    const auto load = [&](int s, size_t t, unsigned bar) {
        if (t * C::ROWS < rows) {
            mbar_arrive_tx(bar, C::BYTES);
            tma_load_2d(smem_addr(ring0 + (size_t)s * C::BYTES), &mx, 0, (int)(t * C::ROWS), bar);
        } else {
            mbar_arrive(bar); /* a tile of fewer than RW elements: its threads read them */
        }
    };
    const auto store = [&](int s, size_t t) {
        if (t * C::ROWS < rows) tma_store_2d(&my, 0, (int)(t * C::ROWS), smem_addr(ring0 + (size_t)s * C::BYTES));
    };
    /* the tile's aggregate, combined exactly as the consumers' scan combines its last element: lane l folds the runs
     * l, 32 + l, ..., 224 + l (one of each consumer warp), scans each warp's run totals as that warp does, then the 8
     * warp totals; the last element's L = (G_6 (+) S_30 of warp 7) (+) the last run's total */
    const auto reduce = [&](int s, size_t t) {
        T g = O::pad(), S30 = O::pad(), R = O::pad();
#pragma unroll
        for (int w = 0; w < WARPS; w++) {
            T v[ITEMS];
            run_in(s, t, (unsigned)(w * 32 + lane), v);
            T a = v[0];
#pragma unroll
            for (int k = 1; k < ITEMS; k++) a = O::comb(a, v[k]);
            const T Sx = lb_ks<32>(a, comb, up);
            const T tw = __shfl_sync(0xffffffffu, Sx, 31);
            if (lane == w) g = tw;
            if (w == WARPS - 1) {
                S30 = __shfl_sync(0xffffffffu, Sx, 30);
                R = __shfl_sync(0xffffffffu, a, 31);
            }
        }
        g = lb_ks<WARPS>(g, comb, up);
        const T G = __shfl_sync(0xffffffffu, g, WARPS - 2);
        if (lane == 0) {
            const T A = O::comb(O::comb(G, S30), R);
            s_agg[s] = A;
            if (t > 0) D::put(desc, t, LB_AGG, A);
        }
    };
    const auto look = [&](int s, size_t t) {
        const T A = s_agg[s];
        T pre = O::pad();
        if (t == 0) {
            if (cin) pre = *cin; /* a carry in: I_{-1}, the last inclusive value of the pieces before */
        } else {
            const int N = lb_window<LOOKBACK_WINDOWS, GP_SCAN_BACKOFF_NS>(
                (long long)t, s_win, O::pad(), [&](size_t p, T *val) { return D::get(desc, p, val); });
            /* integers by the tree; floats serially: ptxas turned the tree's float min / max into a min that
             * returns the canonical NaN (docs/design/scan.md, "The tile engine"); GP_SCAN_TE_FOLD_BITS: their tree
             * on the bits instead (comb_bits) */
            if constexpr (std::is_integral<T>::value) pre = lb_fold_tree(s_win, N, O::pad(), comb);
            else if constexpr (GP_SCAN_TE_FOLD_BITS && tree_fold<T, OP>())
                pre = lb_fold_tree(s_win, N, O::pad(), [](T a, T b) { return comb_bits<T, OP>(a, b); });
            else if (lane == 0) pre = lb_fold_serial(s_win, N, comb);
        }
        if (lane == 0) {
            s_pre[s] = pre;
            D::put(desc, t, LB_INCL, O::comb(pre, A));
        }
    };
    /* the runs, the tile scan (the look-back kernel's steps; every warp scans the 8 warp totals itself), then C (+) L
     * (exclusive: shifted by one) into the stage, the tail directly; the carry out */
    const auto scan = [&](int s, size_t t, unsigned i) {
        const size_t t0 = t * TILE, mine = t0 + (size_t)threadIdx.x * ITEMS;
        T v[ITEMS];
        run_in(s, t, threadIdx.x, v);
#pragma unroll
        for (int k = 1; k < ITEMS; k++) v[k] = O::comb(v[k - 1], v[k]);
        const T Sx = lb_ks<32>(v[ITEMS - 1], comb, up);
        if (lane == 31) s_g[i & 1][warp] = Sx;
        te_consumer_sync();
        const T g = lb_ks<WARPS>(lane < WARPS ? s_g[i & 1][lane] : O::pad(), comb, up);
        const T Gp = __shfl_sync(0xffffffffu, g, (warp + 31) & 31);
        const T Sprev = __shfl_up_sync(0xffffffffu, Sx, 1);
        if (warp || lane) {
            const T E = warp && lane ? O::comb(Gp, Sprev) : warp ? Gp : Sprev;
#pragma unroll
            for (int k = 0; k < ITEMS; k++) v[k] = O::comb(E, v[k]);
        }
        const T Cc = s_pre[s];
        if (cout && t == ntiles - 1) {
            const size_t last = n - 1 - t0;
            if (threadIdx.x == last / ITEMS) {
                T lv = v[0];
#pragma unroll
                for (int k = 1; k < ITEMS; k++)
                    if ((size_t)k == last % ITEMS) lv = v[k];
                *cout = O::comb(Cc, lv);
            }
        }
        if (!excl) {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) v[k] = O::comb(Cc, v[k]);
        } else { /* the previous thread's last L: by shuffle, across warps through shared memory */
            T prevL = __shfl_up_sync(0xffffffffu, v[ITEMS - 1], 1);
            if (lane == 31) s_last[warp] = v[ITEMS - 1];
            te_consumer_sync();
            if (lane == 0 && warp) prevL = s_last[warp - 1];
#pragma unroll
            for (int k = ITEMS - 1; k > 0; k--) v[k] = O::comb(Cc, v[k - 1]);
            v[0] = threadIdx.x == 0 ? (t == 0 && !cin ? O::first() : Cc) : O::comb(Cc, prevL);
        }
        if (t * C::ROWS < rows) run_out(s, v);
        if (t0 + TILE > nfull)
#pragma unroll
            for (int k = 0; k < ITEMS; k++)
                if (mine + k >= nfull && mine + k < n) y[mine + k] = v[k];
    };
    te_run<S>(ring, ticket, ntiles, load, store, reduce, look, scan);
#else
    static_assert(TeScan<T>::CH > 0, "the engine is sm_90 code: empty here");
#endif
}

/* The ticket (16 bytes) and `words` descriptor words per tile: what the launcher clears and what
 * gp__scan_gpu_workspace_bytes tells the callers that share the workspace. */
inline size_t workspace_bytes(size_t ntiles, size_t words) { return 16 + ntiles * words * 8; }

/* whether the tile engine takes a scan of n elements (rw per 128-byte row): the tuning table's choice or the forced
 * kernel, an sm_90 device, both pointers 16-byte aligned, at least GP_SCAN_TE_MIN_N elements (GP_SCAN_TE_AUTO_MIN_N
 * where the library chooses), rows a tensor map's 32-bit coordinates address, the driver's encoder */
bool engine_takes(const gp_ctx_t *ctx, size_t n, const void *x, const void *y, size_t rw)
{
    const gp__scan_kernel_t k = gp__scan_forced_kernel();
    const bool want = k == GP__SCAN_KERNEL_ENGINE || (k == GP__SCAN_KERNEL_AUTO && (rw == 32 ? GP_SCAN_TE_AUTO4 : GP_SCAN_TE_AUTO8));
    const size_t least = k == GP__SCAN_KERNEL_ENGINE ? GP_SCAN_TE_MIN_N : GP_SCAN_TE_AUTO_MIN_N;
    return want && ctx->cc_major >= 9 && n >= least && n / rw <= 0x7fffffffu && ((uintptr_t)x & 15) == 0 &&
           ((uintptr_t)y & 15) == 0 && tma_encoder() != NULL;
}

/* the engine's blocks per SM on ctx's device (tile_engine.cuh) */
template <typename T, int OP> gp_status_t te_shape(gp_ctx_t *ctx, int *blocks)
{
    static TeShape sh;
    const cudaError_t e = te_shape_of(sh, ctx, (const void *)k_scan_te<T, OP>, TeScan<T>::SMEM, TE_THREADS, blocks);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_scan: the tile engine's launch shape", __FILE__, __LINE__);
}

/* the tile engine's launch: a persistent grid (the blocks that fit on the device at once, at most one a tile) over
 * the workspace the caller cleared (ticket, descriptors) */
template <typename T, int OP>
gp_status_t launch_te(gp_ctx_t *ctx, int per_sm, size_t n, const T *x, T *y, int excl, const T *cin, T *cout, char *w,
                      cudaStream_t s)
{
    typedef TeScan<T> C;
    const size_t rows = n / C::RW, ntiles = (n + TILE - 1) / TILE;
    CUtensorMap mx, my;
    /* rows >= 1 (n >= GP_SCAN_TE_MIN_N); the maps cover the whole rows, the threads the rest */
    gp_status_t st = te_row_map(&mx, x, rows, sizeof(T), C::ROWS, "gp_scan");
    if (st == GP_OK) st = te_row_map(&my, y, rows, sizeof(T), C::ROWS, "gp_scan");
    if (st != GP_OK) return st;
    const size_t grid = ntiles < (size_t)ctx->sm_count * per_sm ? ntiles : (size_t)ctx->sm_count * per_sm;
    k_scan_te<T, OP><<<(unsigned)grid, TE_THREADS, C::SMEM, s>>>(mx, my, x, y, n, excl, cin, cout, (unsigned *)w,
                                                                  (unsigned long long *)(w + 16));
    return GP_CHECK_LAUNCH("gp_scan");
}

template <typename TI, typename T, typename TO, int OP>
gp_status_t launch(gp_ctx_t *ctx, size_t n, const void *x, void *y, int excl, const void *cin, void *cout,
                   cudaStream_t s)
{
    const size_t ntiles = (n + TILE - 1) / TILE;
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "gp_scan: %zu tiles (at most 2^31 - 1)", ntiles);
    /* workspace: the ticket, then the tile descriptors; all zeroed on the stream */
    const size_t bytes = workspace_bytes(ntiles, LbPacked<T>::WORDS);
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, bytes, &ws);
    if (st != GP_OK) return st;
    char *w = (char *)ws;
    cudaError_t e = cudaMemsetAsync(w, 0, bytes, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_scan: clearing the tile descriptors", __FILE__, __LINE__);
    if constexpr (std::is_same<TI, T>::value && std::is_same<TO, T>::value && (sizeof(T) == 4 || sizeof(T) == 8)) {
        if (y != NULL && engine_takes(ctx, n, x, y, 128 / sizeof(T))) {
            int per_sm = 0;
            st = te_shape<T, OP>(ctx, &per_sm);
            if (st != GP_OK) return st;
            if (per_sm > 0) return launch_te<T, OP>(ctx, per_sm, n, (const T *)x, (T *)y, excl, (const T *)cin, (T *)cout, w, s);
        }
    }
    constexpr size_t K = tiles_per_block<T>();
    k_scan<TI, T, TO, OP><<<(unsigned)((ntiles + K - 1) / K), THREADS, 0, s>>>(
        (const TI *)x, (TO *)y, n, excl, (const T *)cin, (T *)cout, (unsigned *)w, (unsigned long long *)(w + 16));
    return GP_CHECK_LAUNCH("gp_scan");
}

/* ALL: every op of the type (sum prod min max; and or xor for integers); else sums and products only */
template <typename TI, typename T, typename TO, bool ALL = true>
gp_status_t by_op(gp_ctx_t *ctx, gp_reduce_op_t op, size_t n, const void *x, void *y, int excl, const void *cin,
                  void *cout, cudaStream_t s)
{
    switch (op) {
    case GP_REDUCE_SUM: return launch<TI, T, TO, SUM>(ctx, n, x, y, excl, cin, cout, s);
    case GP_REDUCE_PROD: return launch<TI, T, TO, PROD>(ctx, n, x, y, excl, cin, cout, s);
    default: break;
    }
    if constexpr (ALL) {
        switch (op) {
        case GP_REDUCE_MIN: return launch<TI, T, TO, MIN>(ctx, n, x, y, excl, cin, cout, s);
        case GP_REDUCE_MAX: return launch<TI, T, TO, MAX>(ctx, n, x, y, excl, cin, cout, s);
        default: break;
        }
        if constexpr (std::is_integral<T>::value) { /* the integers: bitwise ops */
            switch (op) {
            case GP_REDUCE_AND: return launch<TI, T, TO, AND>(ctx, n, x, y, excl, cin, cout, s);
            case GP_REDUCE_OR: return launch<TI, T, TO, OR>(ctx, n, x, y, excl, cin, cout, s);
            case GP_REDUCE_XOR: return launch<TI, T, TO, XOR>(ctx, n, x, y, excl, cin, cout, s);
            default: break;
            }
        }
    }
    return gp__error(GP_ERR_UNSUPPORTED, "gp_scan: op %d", (int)op);
}

/* input din scanned in dacc, output dout (din or dacc): the pairs gp__scan_plan allows */
gp_status_t by_types(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, gp_dtype_t dout, size_t n,
                     const void *x, void *y, int excl, const void *cin, void *cout, cudaStream_t s)
{
#define GP_SAME(D, T)                                                                                              \
    if (din == D && dacc == D && dout == D) return by_op<T, T, T>(ctx, op, n, x, y, excl, cin, cout, s);
    GP_SAME(GP_F32, float)
    GP_SAME(GP_F64, double)
    GP_SAME(GP_I32, int32_t)
    GP_SAME(GP_U32, uint32_t)
    GP_SAME(GP_I64, int64_t)
    GP_SAME(GP_U64, uint64_t)
#undef GP_SAME
    /* the narrow types, scanned in 32 bits (integers wrap in their own width; 2-byte floats accumulate in f32) and
     * written back in their own type */
#define GP_NARROW(D, TI, TA)                                                                                       \
    if (din == D && dout == D) return by_op<TI, TA, TI>(ctx, op, n, x, y, excl, cin, cout, s);
    GP_NARROW(GP_U8, uint8_t, uint32_t)
    GP_NARROW(GP_I8, int8_t, int32_t)
    GP_NARROW(GP_U16, uint16_t, uint32_t)
    GP_NARROW(GP_I16, int16_t, int32_t)
    GP_NARROW(GP_F16, F16, float)
    GP_NARROW(GP_BF16, BF16, float)
#undef GP_NARROW
    /* wider accumulators, written in the accumulator's type */
#define GP_WIDE(D, TI, A, TA, ALL)                                                                                 \
    if (din == D && dacc == A && dout == A) return by_op<TI, TA, TA, ALL>(ctx, op, n, x, y, excl, cin, cout, s);
    GP_WIDE(GP_F16, F16, GP_F32, float, true)
    GP_WIDE(GP_BF16, BF16, GP_F32, float, true)
    GP_WIDE(GP_F16, F16, GP_F64, double, false)
    GP_WIDE(GP_BF16, BF16, GP_F64, double, false)
    GP_WIDE(GP_F32, float, GP_F64, double, false)
    GP_WIDE(GP_U8, uint8_t, GP_U64, uint64_t, false)
    GP_WIDE(GP_I8, int8_t, GP_I64, int64_t, false)
    GP_WIDE(GP_U16, uint16_t, GP_U64, uint64_t, false)
    GP_WIDE(GP_I16, int16_t, GP_I64, int64_t, false)
    GP_WIDE(GP_U32, uint32_t, GP_U64, uint64_t, false)
    GP_WIDE(GP_I32, int32_t, GP_I64, int64_t, false)
#undef GP_WIDE
    return gp__error(GP_ERR_UNSUPPORTED, "gp_scan: %s scanned in %s into %s", gp_dtype_name(din), gp_dtype_name(dacc),
                     gp_dtype_name(dout));
}

} // namespace

extern "C" size_t gp__scan_gpu_workspace_bytes(gp_dtype_t dtype, size_t n)
{
    return workspace_bytes((n + TILE - 1) / TILE, gp_dtype_size(dtype) / 4);
}

extern "C" gp_status_t gp__scan_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                    void *y, int exclusive, const void *carry_in, void *carry_out,
                                    cudaStream_t stream)
{
    return by_types(ctx, op, dtype, dtype, dtype, n, x, y, exclusive, carry_in, carry_out, stream);
}

extern "C" gp_status_t gp__scan_gpu_aggs(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc,
                                         gp_dtype_t dout, size_t n, const void *x, void *aggs, cudaStream_t stream)
{
    return by_types(ctx, op, din, dacc, dout, n, x, NULL, 0, NULL, aggs, stream);
}

extern "C" gp_status_t gp__scan_gpu_x(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc,
                                      gp_dtype_t dout, size_t n, const void *x, void *y, int exclusive,
                                      const void *carry_in, void *carry_out, cudaStream_t stream)
{
    return by_types(ctx, op, din, dacc, dout, n, x, y, exclusive, carry_in, carry_out, stream);
}
