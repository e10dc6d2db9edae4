/*
 * scan_general.cu — the look-back scan for values wider than a word or two: ordered (non-commutative) scans (matrix
 * products mat2 / mat3 / mat4 and affine-map compositions) and segmented scans (the scalar ops over (head flag, value)
 * pairs), in the association order of docs/SCAN.md with runs of R elements (gp__oscan_run: 128 bytes of scan values
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

#include <stdint.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int THREADS = GP__SCAN_RUNS;

#include "scan_ops.cuh"

#include "../reduce/ordered_ops.cuh"

/* a value another block published (after its status was acquired): word by word through L2 */
template <typename V> __device__ __forceinline__ V ldcg_value(const V *p)
{
    constexpr int VW = (int)sizeof(V) / 4;
    unsigned w[VW];
    const unsigned *q = reinterpret_cast<const unsigned *>(p);
#pragma unroll
    for (int i = 0; i < VW; i++) w[i] = __ldcg(q + i);
    V v;
    memcpy(&v, w, sizeof v);
    return v;
}

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

/* Segmented scans: the scalar op of scan_ops.cuh over (head, value) pairs. An element is the value alone (the heads
 * come from their own bytes); R by the pair's bytes (8 -> 16, 16 -> 8). */
template <typename T, int OP> struct SegP {
    typedef Op<T, OP> O;
    struct E {
        T v;
    };
    struct V {
        T v;
        unsigned f;
    };
    static constexpr bool SEG = true;
    static constexpr int EW = (int)sizeof(T) / 4;
    static constexpr int R = sizeof(V) <= 8 ? 16 : 8;
    static constexpr int TILE = THREADS * R;
    static constexpr int WT = R * EW, PITCH = WT | 1;
    static constexpr int WINDOWS = 8;
    static __device__ __forceinline__ V comb(const V &a, const V &b)
    {
        V c;
        c.v = b.f ? b.v : O::comb(a.v, b.v);
        c.f = a.f | b.f;
        return c;
    }
    static __device__ __forceinline__ V pad() { return V{O::pad(), 0u}; }
    static __device__ __forceinline__ E first() { return E{O::first()}; }
    static __device__ __forceinline__ V make(const E &e, bool h) { return V{e.v, h ? 1u : 0u}; }
    static __device__ __forceinline__ E out(const V &v) { return E{v.v}; }
    static __device__ __forceinline__ bool flag(const V &v) { return v.f != 0; }
    static __device__ __forceinline__ V shfl_up(const V &s, int d)
    {
        return V{__shfl_up_sync(0xffffffffu, s.v, d), __shfl_up_sync(0xffffffffu, s.f, d)};
    }
    static __device__ __forceinline__ V load_cg(const V *p) { return ldcg_value(p); }
};

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* The kernel, for a policy P (OS: ordered ops; SegP: segmented). x, y: n elements of P::E; heads: n bytes (SegP). */
template <class P>
__global__ void __launch_bounds__(THREADS, sizeof(typename P::V) <= 16 ? 4 : 1)
    k_lb(const typename P::E *x, typename P::E *y, const uint8_t *heads, size_t n, int excl, unsigned *ticket,
         unsigned *status, typename P::V *agg, typename P::V *incl, const typename P::V *cin, typename P::V *cout)
{
    typedef typename P::V V;
    typedef typename P::E E;
    constexpr int R = P::R, WT = P::WT, PITCH = P::PITCH, EW = P::EW;
    __shared__ unsigned s_tile;
    __shared__ unsigned s_w[THREADS * PITCH];
    __shared__ V s_g[THREADS / 32], s_last[THREADS / 32], s_win[P::WINDOWS * 32];
    __shared__ V s_agg, s_pre;
    if (threadIdx.x == 0) s_tile = atomicAdd(ticket, 1u);
    __syncthreads();
    const size_t t = s_tile, e0 = t * (size_t)P::TILE, w0 = e0 * EW, nw = n * (size_t)EW;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned *xw = reinterpret_cast<const unsigned *>(x);
    unsigned *yw = reinterpret_cast<unsigned *>(y);
    constexpr int TW = THREADS * WT, NCH = TW / 4, PER = (NCH + THREADS - 1) / THREADS;
    const size_t mine = e0 + (size_t)threadIdx.x * R; /* this thread's first element */

    /* 1. the tile's words, coalesced, into shared memory at the thread pitch (and this thread's head bytes) */
    unsigned hb = 0; /* bit k: element mine + k starts a segment */
    if constexpr (P::SEG) {
        if (mine + R <= n && R == 16 && ((uintptr_t)(heads + mine) & 15) == 0) {
            const uint4 h = *reinterpret_cast<const uint4 *>(heads + mine);
            const unsigned q[4] = {h.x, h.y, h.z, h.w};
#pragma unroll
            for (int k = 0; k < 16; k++) hb |= ((q[k / 4] >> (8 * (k % 4))) & 0xffu ? 1u : 0u) << k;
        } else if (mine + R <= n && R == 8 && ((uintptr_t)(heads + mine) & 7) == 0) {
            const uint2 h = *reinterpret_cast<const uint2 *>(heads + mine);
            const unsigned q[2] = {h.x, h.y};
#pragma unroll
            for (int k = 0; k < 8; k++) hb |= ((q[k / 4] >> (8 * (k % 4))) & 0xffu ? 1u : 0u) << k;
        } else {
#pragma unroll
            for (int k = 0; k < R; k++)
                if (mine + k < n && heads[mine + k]) hb |= 1u << k;
        }
    }
    if (w0 + TW <= nw && ((uintptr_t)(xw + w0) & 15) == 0) {
        const uint4 *p = reinterpret_cast<const uint4 *>(xw + w0);
        uint4 c[PER];
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = i * THREADS + threadIdx.x;
            if (NCH % THREADS == 0 || q < NCH) c[i] = p[q];
        }
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = i * THREADS + threadIdx.x;
            if (NCH % THREADS == 0 || q < NCH) {
                const int e = 4 * q;
                s_w[e + e / WT] = c[i].x;
                s_w[e + 1 + (e + 1) / WT] = c[i].y;
                s_w[e + 2 + (e + 2) / WT] = c[i].z;
                s_w[e + 3 + (e + 3) / WT] = c[i].w;
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < WT; i++) {
            const int e = i * THREADS + threadIdx.x;
            if (w0 + e < nw) s_w[e + e / WT] = xw[w0 + e];
        }
    }
    __syncthreads();
    V v[R];
    {
        unsigned wr[WT];
#pragma unroll
        for (int j = 0; j < WT; j++) wr[j] = s_w[threadIdx.x * PITCH + j];
        E ev[R];
        memcpy(ev, wr, sizeof ev);
#pragma unroll
        for (int k = 0; k < R; k++) v[k] = mine + k < n ? P::make(ev[k], (hb >> k) & 1u) : P::pad();
    }
    /* the run, the tile scan */
#pragma unroll
    for (int k = 1; k < R; k++) v[k] = P::comb(v[k - 1], v[k]);
    V S = v[R - 1];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const V o = P::shfl_up(S, d);
        if (lane >= d) S = P::comb(o, S);
    }
    if (lane == 31) s_g[warp] = S;
    __syncthreads();
    if (warp == 0) {
        V g = lane < THREADS / 32 ? s_g[lane] : P::pad();
#pragma unroll
        for (int d = 1; d < THREADS / 32; d <<= 1) {
            const V o = P::shfl_up(g, d);
            if (lane >= d && lane < THREADS / 32) g = P::comb(o, g);
        }
        if (lane < THREADS / 32) s_g[lane] = g;
    }
    const V Sprev = P::shfl_up(S, 1);
    __syncthreads();
    if (warp || lane) {
        const V Ex = warp && lane ? P::comb(s_g[warp - 1], Sprev) : warp ? s_g[warp - 1] : Sprev;
#pragma unroll
        for (int k = 0; k < R; k++) v[k] = P::comb(Ex, v[k]);
    }
    V prevL = P::shfl_up(v[R - 1], 1); /* the exclusive scan's first item of this thread */
    if (lane == 31) s_last[warp] = v[R - 1];
    if (threadIdx.x == THREADS - 1) s_agg = v[R - 1];
    __syncthreads();
    if (lane == 0 && warp) prevL = s_last[warp - 1];
    unsigned lf = 0; /* bit k: L_k's head flag (segmented) */
    { /* the L values wait in this thread's own words while warp 0 looks back */
        E ev[R];
#pragma unroll
        for (int k = 0; k < R; k++) {
            ev[k] = P::out(v[k]);
            lf |= (P::flag(v[k]) ? 1u : 0u) << k;
        }
        unsigned wr[WT];
        memcpy(wr, ev, sizeof ev);
#pragma unroll
        for (int j = 0; j < WT; j++) s_w[threadIdx.x * PITCH + j] = wr[j];
    }

    /* 2. publish the aggregate, look back, publish the inclusive prefix */
    if (warp == 0 && t > 0) {
        const V A = s_agg;
        if (lane == 0) {
            agg[t] = A;
            st_release(status + t, 1u);
        }
        int w = 0, k = 31;
        for (;; w++) {
            const long long p = (long long)t - 1 - 32LL * w - lane;
            unsigned f = 2u;
            V val = P::pad();
            if (p >= 0) {
                while ((f = ld_acquire(status + p)) == 0u) {
                }
                val = P::load_cg(f == 2u ? incl + p : agg + p);
            }
            unsigned m = __ballot_sync(0xffffffffu, p >= 0 && f == 2u);
            if (!m && w == P::WINDOWS - 1) {
                if (lane == 31) {
                    while (ld_acquire(status + p) != 2u) {
                    }
                    val = P::load_cg(incl + p);
                }
                m = 1u << 31;
            }
            s_win[w * 32 + lane] = val;
            if (m) {
                k = __ffs(m) - 1;
                break;
            }
        }
        __syncwarp();
        if (lane == 0) { /* s_win[j] holds tile t-1-j: fold forward from the inclusive prefix, oldest first */
            V pre = s_win[w * 32 + k];
            for (int j = w * 32 + k - 1; j >= 0; j--) pre = P::comb(pre, s_win[j]);
            incl[t] = P::comb(pre, A);
            st_release(status + t, 2u);
            s_pre = pre;
        }
    } else if (warp == 0 && lane == 0) { /* tile 0: its aggregate is its inclusive prefix, after a carry in (I_-1) */
        if (cin) {
            const V pre = *cin;
            incl[0] = P::comb(pre, s_agg);
            s_pre = pre;
        } else {
            incl[0] = s_agg;
        }
        st_release(status, 2u);
    }
    __syncthreads();
    const bool has = t > 0 || cin != nullptr;

    /* 3. the outputs: C o L, exclusive shifted by one (tile 0: L itself, the first value first; segmented: the
     * first value at every head) */
    {
        unsigned wr[WT];
#pragma unroll
        for (int j = 0; j < WT; j++) wr[j] = s_w[threadIdx.x * PITCH + j];
        E ev[R];
        memcpy(ev, wr, sizeof ev);
#pragma unroll
        for (int k = 0; k < R; k++) v[k] = P::make(ev[k], (lf >> k) & 1u);
    }
    /* the carry out: the last element's inclusive value (not the padded tile end's, as in scan.cu) */
    if (cout && t == gridDim.x - 1 && threadIdx.x == (n - 1 - e0) / R) {
        V lv = v[0];
#pragma unroll
        for (int k = 1; k < R; k++)
            if ((size_t)k == (n - 1 - e0) % R) lv = v[k];
        *cout = has ? P::comb(s_pre, lv) : lv;
    }
    E eo[R];
    if (has) {
        const V C = s_pre;
        if (!excl) {
#pragma unroll
            for (int k = 0; k < R; k++) eo[k] = P::out(P::comb(C, v[k]));
        } else {
#pragma unroll
            for (int k = R - 1; k > 0; k--) eo[k] = P::out(P::comb(C, v[k - 1]));
            eo[0] = threadIdx.x == 0 ? P::out(C) : P::out(P::comb(C, prevL));
        }
    } else {
        if (!excl) {
#pragma unroll
            for (int k = 0; k < R; k++) eo[k] = P::out(v[k]);
        } else {
#pragma unroll
            for (int k = R - 1; k > 0; k--) eo[k] = P::out(v[k - 1]);
            eo[0] = threadIdx.x == 0 ? P::first() : P::out(prevL);
        }
    }
    if (P::SEG && excl) {
#pragma unroll
        for (int k = 0; k < R; k++)
            if ((hb >> k) & 1u) eo[k] = P::first();
    }
    {
        unsigned wr[WT];
        memcpy(wr, eo, sizeof eo);
#pragma unroll
        for (int j = 0; j < WT; j++) s_w[threadIdx.x * PITCH + j] = wr[j];
    }
    __syncthreads();
    if (w0 + TW <= nw && ((uintptr_t)(yw + w0) & 15) == 0) {
        uint4 *p = reinterpret_cast<uint4 *>(yw + w0);
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = i * THREADS + threadIdx.x;
            if (NCH % THREADS == 0 || q < NCH) {
                const int e = 4 * q;
                p[q] = make_uint4(s_w[e + e / WT], s_w[e + 1 + (e + 1) / WT], s_w[e + 2 + (e + 2) / WT],
                                  s_w[e + 3 + (e + 3) / WT]);
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < WT; i++) {
            const int e = i * THREADS + threadIdx.x;
            if (w0 + e < nw) yw[w0 + e] = s_w[e + e / WT];
        }
    }
}

/* first: every element is x[0] (in place too: x[0] is rewritten with its own value) */
template <typename U> __global__ void k_first(const U *src, U *y, size_t n, U *cout)
{
    const U f = *src;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = f;
    if (cout && blockIdx.x == 0 && threadIdx.x == 0) *cout = f;
}

/* The look-back's workspace: the ticket (16 bytes), the statuses (rounded to 16 bytes), the aggregates, the inclusive
 * prefixes. */
template <class P> size_t lb_bytes(size_t n)
{
    const size_t ntiles = (n + P::TILE - 1) / P::TILE;
    return 16 + (ntiles * 4 + 15) / 16 * 16 + 2 * ntiles * sizeof(typename P::V);
}

/* ws: lb_bytes<P>(n) of workspace the caller holds, or NULL (taken here) */
template <class P>
gp_status_t launch(gp_ctx_t *ctx, const char *fn, size_t n, const void *x, void *y, const uint8_t *heads, int excl,
                   void *ws, cudaStream_t s, const void *cin = NULL, void *cout = NULL)
{
    typedef typename P::V V;
    const size_t ntiles = (n + P::TILE - 1) / P::TILE;
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu tiles (at most 2^31 - 1)", fn, ntiles);
    const size_t head = 16 + (ntiles * 4 + 15) / 16 * 16;
    if (ws == NULL) {
        gp_status_t st = gp__workspace(ctx, lb_bytes<P>(n), &ws);
        if (st != GP_OK) return st;
    }
    char *w = (char *)ws;
    cudaError_t e = cudaMemsetAsync(w, 0, head, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "clearing the tile statuses", __FILE__, __LINE__);
    k_lb<P><<<(unsigned)ntiles, THREADS, 0, s>>>((const typename P::E *)x, (typename P::E *)y, heads, n, excl,
                                                 (unsigned *)w, (unsigned *)(w + 16), (V *)(w + head),
                                                 (V *)(w + head) + ntiles, (const V *)cin, (V *)cout);
    return GP_CHECK_LAUNCH(fn);
}

/* CSR offsets into head bytes: heads[o] = 1 for every offset o in [0, n) (the bytes were cleared) */
__global__ void k_mark(uint8_t *heads, size_t n, const int64_t *off, size_t noff)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < noff; i += (size_t)gridDim.x * blockDim.x) {
        const int64_t o = off[i];
        if (o >= 0 && (uint64_t)o < n) heads[o] = 1;
    }
}

/* a segmented scan: heads given, or made from offsets at the workspace's front */
template <typename T, int OP>
gp_status_t seg(gp_ctx_t *ctx, size_t n, const void *x, void *y, const uint8_t *heads, const int64_t *off,
                size_t noff, int excl, cudaStream_t s)
{
    typedef SegP<T, OP> P;
    const char *fn = off ? "gp_scan_segmented" : "gp_scan_heads";
    const size_t skip = off ? (n + 255) / 256 * 256 : 0;
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, skip + lb_bytes<P>(n), &ws);
    if (st != GP_OK) return st;
    if (off) {
        cudaError_t e = cudaMemsetAsync(ws, 0, n, s);
        if (e != cudaSuccess) return gp__cuda_error(e, "clearing the head bytes", __FILE__, __LINE__);
        if (noff) {
            const unsigned grid = (unsigned)(noff / 256 + 1 < 4096 ? noff / 256 + 1 : 4096);
            k_mark<<<grid, 256, 0, s>>>((uint8_t *)ws, n, off, noff);
            GP_TRY_RET(GP_CHECK_LAUNCH(fn));
        }
        heads = (const uint8_t *)ws;
    }
    return launch<P>(ctx, fn, n, x, y, heads, excl, (char *)ws + skip, s);
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
