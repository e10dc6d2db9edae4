/*
 * lookback.cuh — the decoupled look-back's parts, shared by every single-pass kernel: scan.cu (the scalar scans),
 * scan_lb.cuh (ordered, segmented and user-operator scans), select_lb.cuh (select, partition, unique) and the radix
 * sort's passes (src/sort/sort.cu). The tile ticket, four kinds of tile descriptor, the window of
 * predecessors a warp collects, and the folds of it. It uses no header, only CUDA built-ins: it is also embedded as
 * text for NVRTC ahead of scan_lb.cuh and select_lb.cuh. docs/design/scan.md, "The look-back", says why each is so.
 */
#ifndef GP_LOOKBACK_CUH
#define GP_LOOKBACK_CUH

/* a descriptor's status: nothing yet, the tile's aggregate, its inclusive prefix */
enum { LB_NONE = 0, LB_AGG = 1, LB_INCL = 2 };

/* The block's tile number, in the order blocks started (an atomic ticket, so every tile a block waits for belongs to
 * a block already running). Every thread of the block calls it; it holds a barrier. */
__device__ __forceinline__ unsigned lb_ticket(unsigned *ticket)
{
    __shared__ unsigned s_ticket;
    if (threadIdx.x == 0) s_ticket = atomicAdd(ticket, 1u);
    __syncthreads();
    return s_ticket;
}

/* ---- descriptors of 4- and 8-byte values: one 8-byte word per 4 bytes, {status << 32 | 32 bits of the value}, each
 * a single-copy-atomic access, so a reader that sees a status sees the value stored with it: no fences. An 8-byte
 * value spans two words written by one 16-byte store; a reader takes them only when both carry the same status. */
template <typename T> struct LbPacked {
    static constexpr int WORDS = sizeof(T) / 4;
    static __device__ __forceinline__ void put(unsigned long long *d, size_t t, unsigned status, T v)
    {
        unsigned h[WORDS];
        memcpy(h, &v, sizeof v);
        unsigned long long *p = d + (size_t)WORDS * t;
        if (WORDS == 1) {
            const unsigned long long w = (unsigned long long)status << 32 | h[0];
            asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
        } else {
            const unsigned long long w0 = (unsigned long long)status << 32 | h[0],
                                     w1 = (unsigned long long)status << 32 | h[WORDS - 1];
            asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w0), "l"(w1) : "memory");
        }
    }
    /* the status (LB_NONE while the words disagree) and the value */
    static __device__ __forceinline__ unsigned get(const unsigned long long *d, size_t t, T *v)
    {
        const unsigned long long *p = d + (size_t)WORDS * t;
        unsigned h[WORDS];
        unsigned st;
        if (WORDS == 1) {
            unsigned long long w;
            asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
            h[0] = (unsigned)w;
            st = (unsigned)(w >> 32);
        } else {
            unsigned long long w0, w1;
            asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(p) : "memory");
            h[0] = (unsigned)w0;
            h[WORDS - 1] = (unsigned)w1;
            st = (w0 >> 32) == (w1 >> 32) ? (unsigned)(w0 >> 32) : 0u;
        }
        memcpy(v, h, sizeof *v);
        return st;
    }
};

/* ---- descriptors of any value: a status word per tile and two value arrays (aggregates, inclusive prefixes), each
 * written once. The value is stored, then the status with st.release; a reader's ld.acquire of the status comes
 * before its load of the value, through L2. */
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

/* The tile tree's Kogge-Stone step: the inclusive scan of v over lanes 0 .. W - 1 of the warp (lanes from W keep
 * their v), up(v, d) giving lane - d's value — the association order of every single-pass kernel's tile. Called by
 * all 32 lanes. */
template <int W, typename V, class C, class U> __device__ __forceinline__ V lb_ks(V v, C comb, U up)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < W; d <<= 1) {
        const V o = up(v, d);
        if (lane >= d && lane < W) v = comb(o, v);
    }
    return v;
}

/* ---- the window: warp 0 of tile t reads its predecessors' descriptors 32 at a time (window w: lane l reads tile
 * t - 1 - 32 w - l), each lane waiting until its tile holds at least the aggregate; the first window holding an
 * inclusive prefix — or a value `resets` names, one that every fold ending in it returns whole (a segmented scan's
 * aggregate holding a head: the fold from it equals the fold from any older prefix, bit for bit) — ends it; after
 * WINDOWS windows without one, lane 31 waits for its tile's inclusive prefix. s_win[j] = the value of tile t - 1 - j.
 * Returns N: s_win[N] is the nearest such value, s_win[N - 1] .. s_win[0] the aggregates after it (tiles below 0 read
 * as inclusive: tile 0's descriptor is written inclusive at once). get(p, &v) returns tile p's status (LB_NONE while
 * unpublished) and its value. Called by all 32 lanes of a warp. */
struct LbNoReset {
    template <typename V> __device__ __forceinline__ bool operator()(const V &) const { return false; }
};
template <int WINDOWS, int BACKOFF_NS, typename V, class Get, class Reset = LbNoReset>
__device__ __forceinline__ int lb_window(long long t, V *s_win, V pad, Get get, Reset resets = Reset())
{
    const int lane = threadIdx.x & 31;
    for (int w = 0;; w++) {
        const long long p = t - 1 - 32LL * w - lane;
        unsigned f = LB_INCL;
        V val = pad;
        if (p >= 0)
            while ((f = get((size_t)p, &val)) == LB_NONE) {
                if (BACKOFF_NS) __nanosleep(BACKOFF_NS);
            }
        unsigned m = __ballot_sync(0xffffffffu, p >= 0 && (f == LB_INCL || resets(val)));
        if (!m && w == WINDOWS - 1) {
            if (lane == 31)
                while (get((size_t)p, &val) != LB_INCL) {
                }
            m = 1u << 31;
        }
        s_win[w * 32 + lane] = val;
        if (m) {
            __syncwarp();
            return w * 32 + __ffs(m) - 1;
        }
    }
}

/* I_{t-1} from the window, folded forward oldest first: ((s_win[N] (+) s_win[N-1]) (+) ...) (+) s_win[0] — what the
 * association order defines, whichever tile happened to publish first. Serial, in lane 0 (any operator: float sums
 * and products do not reassociate); unrolled so the shared loads run ahead of the dependent combines. */
template <typename V, class C> __device__ __forceinline__ V lb_fold_serial(const V *s_win, int N, C comb)
{
    V pre = s_win[N];
#pragma unroll 8
    for (int j = N - 1; j >= 0; j--) pre = comb(pre, s_win[j]);
    return pre;
}
/* The same value for an associative operator whose pad is an exact two-sided identity (the integer ops; float min /
 * max under NumPy's NaN rule): lane l folds its run of ceil((N + 1) / 32) elements oldest first, then an ordered
 * tree (each pair combined left to right) — log steps instead of N. The result in lane 0; called by all 32 lanes. */
template <typename V, class C> __device__ __forceinline__ V lb_fold_tree(const V *s_win, int N, V pad, C comb)
{
    const int lane = threadIdx.x & 31, per = (N + 32) / 32, q0 = lane * per;
    V v = pad;
    for (int q = q0; q < q0 + per && q <= N; q++) v = comb(v, s_win[N - q]);
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const V o = __shfl_down_sync(0xffffffffu, v, d);
        if ((lane & (2 * d - 1)) == 0) v = comb(v, o);
    }
    return v;
}

/* ---- descriptors of counts (select's kept elements, a radix pass's digit counts): one 64-bit word per tile, the
 * status in its top two bits and the count below — a single-copy-atomic word, no fences. PAIR: two such words per
 * tile, a count and a position (run-length encoding: the runs so far, and where the last one began, + 1), written by
 * one 16-byte store and taken only when both carry the same status (each status is published once). Counts add,
 * positions take the larger. */
constexpr unsigned long long LB_ST_SHIFT = 62, LB_VAL_MASK = (1ull << LB_ST_SHIFT) - 1;
struct LbCount {
    unsigned long long c, h; /* h: PAIR only */
};
template <bool PAIR>
__device__ __forceinline__ void lb_count_put(unsigned long long *d, size_t t, unsigned long long st, LbCount v)
{
    if (PAIR)
        asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(d + 2 * t), "l"(st << LB_ST_SHIFT | v.c),
                     "l"(st << LB_ST_SHIFT | v.h)
                     : "memory");
    else asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(d + t), "l"(st << LB_ST_SHIFT | v.c) : "memory");
}
/* the status (LB_NONE while a pair's words disagree) and the value */
template <bool PAIR> __device__ __forceinline__ unsigned lb_count_get(const unsigned long long *d, size_t t, LbCount *v)
{
    unsigned long long w0, w1 = 0;
    if (PAIR)
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(d + 2 * t) : "memory");
    else asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w0) : "l"(d + t) : "memory");
    v->c = w0 & LB_VAL_MASK;
    v->h = w1 & LB_VAL_MASK;
    const unsigned st = (unsigned)(w0 >> LB_ST_SHIFT);
    return !PAIR || st == (unsigned)(w1 >> LB_ST_SHIFT) ? st : (unsigned)LB_NONE;
}
/* The counts of every tile before t (t > 0) — their sum, and (PAIR) the largest position — in every lane of the
 * calling warp, after tile t's aggregate was published. Integer sums and maxima: each round trip reads LOOKBACK
 * descriptors (LOOKBACK / 32 per lane) and combines them in parallel up to the nearest inclusive one. */
template <int LOOKBACK, int BACKOFF_NS, bool PAIR = false>
__device__ __forceinline__ LbCount lb_count_lookback(const unsigned long long *desc, long long t)
{
    static_assert(LOOKBACK % 32 == 0 && LOOKBACK > 0, "whole windows of 32");
    const int lane = threadIdx.x & 31;
    LbCount P = {0, 0};
    for (long long p0 = t - 1;; p0 -= LOOKBACK) {
        LbCount w[LOOKBACK / 32];
        unsigned st[LOOKBACK / 32];
#pragma unroll
        for (int j = 0; j < LOOKBACK / 32; j++) {
            const long long p = p0 - 32 * j - lane;
            w[j] = LbCount{0, 0};
            st[j] = p >= 0 ? lb_count_get<PAIR>(desc, (size_t)p, &w[j]) : (unsigned)LB_INCL; /* before tile 0: 0 */
        }
#pragma unroll
        for (int j = 0; j < LOOKBACK / 32; j++) {
            const long long p = p0 - 32 * j - lane;
            while (st[j] == LB_NONE) {
                if (BACKOFF_NS) __nanosleep(BACKOFF_NS);
                st[j] = lb_count_get<PAIR>(desc, (size_t)p, &w[j]);
            }
        }
        int near = -1; /* the nearest inclusive count's distance, 32 j + lane */
#pragma unroll
        for (int j = LOOKBACK / 32 - 1; j >= 0; j--) {
            const unsigned inc = __ballot_sync(0xffffffffu, st[j] == LB_INCL);
            if (inc) near = 32 * j + __ffs(inc) - 1;
        }
        unsigned long long sum = 0, h = 0;
#pragma unroll
        for (int j = 0; j < LOOKBACK / 32; j++)
            if (near < 0 || 32 * j + lane <= near) {
                sum += w[j].c;
                h = w[j].h > h ? w[j].h : h;
            }
#pragma unroll
        for (int d = 16; d; d >>= 1) {
            sum += __shfl_xor_sync(0xffffffffu, sum, d);
            if (PAIR) {
                const unsigned long long o = __shfl_xor_sync(0xffffffffu, h, d);
                h = o > h ? o : h;
            }
        }
        P.c += sum;
        P.h = h > P.h ? h : P.h;
        if (near >= 0) return P;
    }
}

/* ---- 32-bit count words (the radix sort's look-back, one word per tile and digit): the status in the top two bits,
 * a count below 2^30 — relaxed single-copy-atomic loads and stores, no fences. */
constexpr unsigned LB_W_SHIFT = 30, LB_W_MASK = (1u << LB_W_SHIFT) - 1;
__device__ __forceinline__ unsigned lb_word_get(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void lb_word_put(unsigned *p, unsigned v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

#endif
