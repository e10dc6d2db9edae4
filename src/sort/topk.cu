/*
 * topk.cu — gp_topk on the GPU (topk.c has the checks and the CPU backend, the same selection; docs/design/sort.md).
 * Every row at once: per 8-bit digit of the radix key, one counting read of the rows (only the keys sharing the digits
 * chosen so far count) and one tiny launch choosing the digit, which gives each row's k-th key T and how many of its
 * ties to take; where a row's ties at T are more than that, the same select over their positions finds the last one
 * taken. One read gathers the k (warp-aggregated appends, so in no fixed order), then they are ordered by (key,
 * position): in shared memory by counting for k <= ORDER_MAX, else by two stable sorts (by position, then by key).
 * Short rows (rank_small.cuh) take one launch instead: each key's place in its row's stable order, counted.
 */
#include "rank_small.cuh"
#include "../core/pdl.cuh"

namespace {

constexpr int TT = 256, ORDER_MAX = 2048, ORDER_PER = 32, ROWS_PER_PICK = 128, PICK_ROWS = 4, SAMPLE_MAX = 4096;

struct Row {                         /* one row's selection, in the workspace */
    unsigned long long prefix, want; /* the digits of T chosen so far; T's rank among the keys sharing them */
    unsigned long long eq;           /* the keys equal to T (after the last digit) */
    unsigned long long iprefix, iwant; /* the same select over the positions of the ties at T */
    unsigned long long cnt;          /* elements gathered */
    unsigned long long thr, ncand;   /* the sampled bound and the keys at or below it (the candidates) */
    int fast;                        /* the select reads the candidates (ncand of them) instead of the row */
};

/* Every kernel here is a programmatic dependent of the one before it on sm_90 (GP_TOPK_PDL): it may be scheduled
 * while that one drains, waits for it before touching memory, and lets the next one be scheduled at once. */
__device__ __forceinline__ void pdl_start()
{
    gp_pdl_wait();
    gp_pdl_trigger();
}
template <typename... P, typename... A>
cudaError_t launch(const gp_ctx_t *ctx, void (*k)(P...), unsigned grid, unsigned threads, size_t smem, cudaStream_t s,
                   A &&...args)
{
    if (GP_TOPK_PDL) return gp__launch_pdl(ctx, k, dim3(grid), threads, smem, s, static_cast<A &&>(args)...);
    k<<<grid, threads, smem, s>>>(static_cast<A &&>(args)...);
    return cudaSuccess;
}
gp_status_t launched(cudaError_t e, const char *what)
{
    return e != cudaSuccess ? gp__cuda_error(e, what, __FILE__, __LINE__) : GP_CHECK_LAUNCH(what);
}

/* the blocks of a launch over every row: bx per row */
struct Grid {
    size_t bx;
};
inline Grid grid_of(const gp_ctx_t *ctx, int per_sm, size_t rows, size_t n)
{
    /* one wave: a block's chunk is a fixed share, so blocks past what the SMs hold at once would double the time */
    const size_t per = (size_t)TT * 16, want = (n + per - 1) / per,
                 cap = ((size_t)ctx->sm_count * (per_sm > 0 ? per_sm : 1) + rows - 1) / rows;
    Grid g;
    g.bx = want < cap ? want : cap;
    if (g.bx == 0) g.bx = 1;
    return g;
}

/* where one block of a launch reads: its row's elements (or candidates, with their positions) and its chunk of them */
template <typename K, typename I> struct Src {
    const K *x;
    const I *pos; /* NULL: the position is the index */
    size_t c0, c1;
};
template <typename K, typename I>
__device__ __forceinline__ Src<K, I> src_of(const K *x, size_t n, Grid g, const Row &st, const K *cx, const I *ci,
                                            size_t cap)
{
    const size_t r = blockIdx.x / g.bx, b = blockIdx.x % g.bx;
    Src<K, I> o;
    size_t len = n;
    if (st.fast) o.x = cx + r * cap, o.pos = ci + r * cap, len = (size_t)st.ncand;
    else o.x = x + r * n, o.pos = NULL;
    const size_t chunk = (len + g.bx - 1) / g.bx;
    o.c0 = b * chunk < len ? b * chunk : len;
    o.c1 = o.c0 + chunk < len ? o.c0 + chunk : len;
    return o;
}

/* loads in flight per thread: eight 4-byte keys, four 8-byte ones */
template <typename K> __host__ __device__ constexpr int unroll() { return sizeof(K) == 8 ? 4 : 8; }

/* mode 0: count digit (key >> shift) of the keys sharing the row's prefix above it; mode 1: digit (position >> shift)
 * of the ties at T sharing iprefix above it (rows that take every tie skip) */
template <typename K, typename I, int MODE>
__global__ void __launch_bounds__(TT) k_count(const K *x, size_t n, Grid g, RKey<K> xf, int shift, Row *rows,
                                              unsigned long long *hist, const K *cx, const I *ci, size_t cap)
{
    pdl_start();
    constexpr int U = unroll<K>();
    __shared__ unsigned h[256];
    const size_t r = blockIdx.x / g.bx;
    const Row st = rows[r];
    if (MODE == 1 && st.eq == st.iwant) return; /* every tie is taken */
    const Src<K, I> sr = src_of<K, I>(x, n, g, st, cx, ci, cap);
    h[threadIdx.x] = 0;
    __syncthreads();
    const bool top = shift + 8 >= 64;
    const unsigned long long up = top ? 0 : (MODE == 0 ? st.prefix : st.iprefix) >> (shift + 8);
    for (size_t b = sr.c0; b < sr.c1; b += (size_t)TT * U) {
        K v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = b + (size_t)u * TT + threadIdx.x;
            if (i < sr.c1) v[u] = sr.x[i];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = b + (size_t)u * TT + threadIdx.x;
            if (i >= sr.c1) break;
            const unsigned long long k = rkey(v[u], xf);
            if (MODE == 0) {
                if (top || (k >> (shift + 8)) == up) atomicAdd(&h[(k >> shift) & 255], 1u);
            } else if (k == st.prefix) {
                const unsigned long long p = sr.pos ? (unsigned long long)sr.pos[i] : i;
                if (top || (p >> (shift + 8)) == up) atomicAdd(&h[(p >> shift) & 255], 1u);
            }
        }
    }
    __syncthreads();
    if (h[threadIdx.x]) atomicAdd(&hist[r * 256 + threadIdx.x], (unsigned long long)h[threadIdx.x]);
}

__global__ void k_init(size_t nrows, size_t k, Row *rows)
{
    pdl_start();
    const size_t r = (size_t)blockIdx.x * ROWS_PER_PICK + threadIdx.x;
    if (r < nrows) rows[r] = Row{0, (unsigned long long)k, 0, 0, 0, 0, 0, 0, 0};
}

/* the samples' radix keys, SAMPLE_MAX a row (one in each of as many equal stretches, at a hashed place in it), read
 * by TT-sample blocks spread over the SMs: scattered reads from one block waited on one SM's misses (43 us) */
template <typename K>
__global__ void __launch_bounds__(TT) k_sample_read(const K *x, size_t n, RKey<K> xf, K *sk)
{
    pdl_start();
    constexpr unsigned per_row = SAMPLE_MAX / TT;
    const size_t r = blockIdx.x / per_row, j = (size_t)(blockIdx.x % per_row) * TT + threadIdx.x,
                 stretch = n / (size_t)SAMPLE_MAX;
    const size_t at = j * stretch + (size_t)((j * 0x9E3779B97F4A7C15ull) >> 40) % stretch;
    sk[r * SAMPLE_MAX + j] = rkey(x[r * n + at], xf);
}

/* one block a row: the bound is the t-th smallest of the row's sampled keys, found by the same digit select in
 * shared memory */
template <typename K>
__global__ void __launch_bounds__(TT) k_sample(const K *sk, int t, Row *rows)
{
    pdl_start();
    constexpr int PER = SAMPLE_MAX / TT;
    __shared__ unsigned h[256];
    __shared__ unsigned long long sel[2];
    const size_t r = blockIdx.x;
    K v[PER];
#pragma unroll
    for (int u = 0; u < PER; u++) v[u] = sk[r * SAMPLE_MAX + (size_t)u * TT + threadIdx.x];
    unsigned long long prefix = 0, want = (unsigned long long)t;
    for (int shift = 8 * (int)sizeof(K) - 8; shift >= 0; shift -= 8) {
        h[threadIdx.x] = 0;
        __syncthreads();
        const bool top = shift + 8 >= 64;
#pragma unroll
        for (int u = 0; u < PER; u++)
            if (top || ((unsigned long long)v[u] >> (shift + 8)) == (prefix >> (shift + 8)))
                atomicAdd(&h[((unsigned long long)v[u] >> shift) & 255], 1u);
        __syncthreads();
        if (threadIdx.x < 32) { /* warp 0: eight counts a lane, a warp scan; the lane holding the rank walks them */
            const unsigned lane = threadIdx.x;
            unsigned c[8], tot = 0;
#pragma unroll
            for (int j = 0; j < 8; j++) c[j] = h[lane * 8 + j], tot += c[j];
            unsigned inc = tot;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned y = __shfl_up_sync(0xffffffffu, inc, o);
                if (lane >= (unsigned)o) inc += y;
            }
            const unsigned hit = __ballot_sync(0xffffffffu, inc >= want && inc - tot < want);
            if (lane == (hit ? (unsigned)__ffs((int)hit) - 1u : 31u)) {
                unsigned long long below = inc - tot;
                unsigned d = 0;
                while (d < 7 && below + c[d] < want) below += c[d++];
                sel[0] = prefix | (unsigned long long)(lane * 8 + d) << shift, sel[1] = want - below;
            }
        }
        __syncthreads();
        prefix = sel[0], want = sel[1];
    }
    if (threadIdx.x == 0) rows[r].thr = prefix;
}

/* whether a key is a candidate: its radix key at most the row's bound kt. CM 0: the radix key itself; CM 1 / 2 (f32
 * and f64, ascending / descending): one float comparison against the bound decoded — the keys at or below it in the
 * order (NaN last ascending, first descending; -0 = +0), or for a bound at the NaN key every key but NaN ascending
 * (still every key up to the bound: the select over them is exact) and every key descending. */
template <typename K, int CM> struct Below {
    K kt;
    RKey<K> xf;
    __device__ Below(K t, const RKey<K> &f) : kt(t), xf(f) {}
    __device__ __forceinline__ bool operator()(K b) const { return rkey(b, xf) <= kt; }
};
template <typename K> struct FloatOf {
    typedef typename std::conditional<sizeof(K) == 4, float, double>::type F;
    static __device__ __forceinline__ F of(K b)
    {
        F f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
};
template <typename K, int CM> struct BelowF {
    typedef typename FloatOf<K>::F F;
    F T;
    __device__ BelowF(K t, const RKey<K> &f)
    {
        constexpr K sign = (K)((K)1 << (8 * sizeof(K) - 1));
        const K a = (K)(t ^ f.flip); /* the bound's ascending key */
        if (a == (K)~(K)0) T = CM == 1 ? FloatOf<K>::of(f.inf) : FloatOf<K>::of((K)~(K)0); /* +inf / a NaN */
        else T = FloatOf<K>::of(a & sign ? (K)(a & (K)(sign - 1)) : (K)~a);
    }
    __device__ __forceinline__ bool operator()(K b) const
    {
        const F v = FloatOf<K>::of(b);
        return CM == 1 ? v <= T : !(v < T);
    }
};
template <typename K, int CM> struct BelowOf {
    typedef typename std::conditional<CM == 0, Below<K, 0>, BelowF<K, CM>>::type T;
};

/* the keys at or below the row's bound and their positions, appended while they fit. Each lane marks its candidates
 * among the keys it read (a tile where no lane of the warp has one costs one vote); a warp scan of the lanes' counts
 * places them in the warp's stage in shared memory, and a stage of 32 or more goes out with one atomic (an atomic a
 * candidate on one counter capped the read near 1 TB/s; a ballot a key cost more instructions than the read's
 * bytes). A lane re-reads a candidate's key (an L1 hit) rather than indexing its registers. The row is read with
 * 16-byte loads, FL of them in flight a thread, in tiles the row's blocks take in turn (block b tiles b, b + bx, ...:
 * a contiguous chunk a block held DRAM at 80% of its peak, 87% so, ncu), the scalar head up to the first aligned key
 * and the scalar tail by the row's first block. A warp whose append passed the room stops: the row falls back to the
 * select over all of it. */
template <typename K, typename I, int CM>
__global__ void __launch_bounds__(TT) k_filter(const K *x, size_t n, Grid g, RKey<K> xf, Row *rows, K *cx, I *ci,
                                               size_t cap)
{
    pdl_start();
    constexpr int V = 16 / (int)sizeof(K), ROOM = 64;
    constexpr int FL = sizeof(K) == 4 ? GP_TOPK_FL : sizeof(K) == 8 ? 4 : sizeof(K) == 2 ? 2 : 1;
    static_assert(FL * V <= 32, "a lane's candidates of a step are one 32-bit mask");
    __shared__ K wk[TT / 32][ROOM];
    __shared__ I wi[TT / 32][ROOM];
    const size_t r = blockIdx.x / g.bx, b = blockIdx.x % g.bx;
    const typename BelowOf<K, CM>::T below((K)rows[r].thr, xf);
    const K *row = x + r * n;
    K *ck = cx + r * cap;
    I *cp = ci + r * cap;
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned held = 0; /* the warp's staged candidates (the same in every lane) */
    bool full = false; /* the row's room ran out (the same in every lane) */
    const auto flush = [&]() {
        __syncwarp();
        unsigned long long base = 0;
        if (lane == 0) base = atomicAdd(&rows[r].ncand, (unsigned long long)held);
        base = __shfl_sync(0xffffffffu, base, 0);
        for (unsigned j = lane; j < held; j += 32)
            if (base + j < cap) ck[base + j] = wk[w][j], cp[base + j] = wi[w][j];
        full = base + held > cap;
        __syncwarp();
        held = 0;
    };
    /* every lane of the warp together: m marks its candidates, key(e) / pos(e) the e-th one's key and position */
    const auto put = [&](unsigned m, auto key, auto pos) {
        const unsigned c = __popc(m);
        unsigned inc = c;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const unsigned u = __shfl_up_sync(0xffffffffu, inc, d);
            if (lane >= (unsigned)d) inc += u;
        }
        const unsigned tot = __shfl_sync(0xffffffffu, inc, 31);
        unsigned p = inc - c;
        if (held + tot <= (unsigned)ROOM) {
            p += held;
            for (; m; m &= m - 1, p++) {
                const int e = __ffs((int)m) - 1;
                wk[w][p] = key(e), wi[w][p] = (I)pos(e);
            }
            held += tot;
            if (held >= 32) flush();
        } else { /* more than the stage holds at once: straight out */
            unsigned long long base = 0;
            if (lane == 0) base = atomicAdd(&rows[r].ncand, (unsigned long long)tot);
            base = __shfl_sync(0xffffffffu, base, 0);
            full = base + tot > cap;
            for (base += p; m; m &= m - 1, base++) {
                const int e = __ffs((int)m) - 1;
                if (base < cap) ck[base] = key(e), cp[base] = (I)pos(e);
            }
        }
    };
    {
        const size_t mis = ((size_t)(uintptr_t)row / sizeof(K)) % V;
        const size_t head = mis ? (V - mis < n ? V - mis : n) : 0, vb = head, nvec = (n - vb) / V, tail = vb + nvec * V;
        if (b == 0) { /* the head (fewer than V keys) and the tail (fewer than V) */
            const size_t i = threadIdx.x < head ? threadIdx.x : tail + threadIdx.x - head;
            const bool in = threadIdx.x < head || (threadIdx.x >= head && i < n);
            const K v = in ? row[i] : (K)0;
            put(in && below(v) ? 1u : 0u, [&](int) { return v; }, [&](int) { return i; });
        }
        const uint4 *vp = (const uint4 *)(row + vb);
        const size_t tile = (size_t)TT * FL; /* vectors a block reads at a step; the row's blocks take every bx-th */
        for (size_t q = b * tile; q < nvec && !full; q += g.bx * tile) {
            uint4 u4[FL];
#pragma unroll
            for (int l = 0; l < FL; l++) {
                const size_t j = q + (size_t)l * TT + threadIdx.x;
                u4[l] = j >= nvec ? make_uint4(0, 0, 0, 0) : GP_TOPK_LDCS ? __ldcs(vp + j) : vp[j];
            }
            unsigned m = 0;
#pragma unroll
            for (int l = 0; l < FL; l++) {
                K kv[V];
                memcpy(kv, &u4[l], 16);
                const bool in = q + (size_t)l * TT + threadIdx.x < nvec;
#pragma unroll
                for (int e = 0; e < V; e++) m |= (in && below(kv[e]) ? 1u : 0u) << (l * V + e);
            }
            if (!__any_sync(0xffffffffu, m != 0)) continue;
            const auto at = [&](int e) { return vb + (q + (size_t)(e / V) * TT + threadIdx.x) * V + (size_t)(e % V); };
            put(m, [&](int e) { return row[at(e)]; }, at);
        }
    }
    if (held) flush();
}

/* one thread a row: the candidates serve where they hold the k smallest (at least k of them) and all fit */
__global__ void k_settle(size_t nrows, size_t k, size_t cap, Row *rows)
{
    pdl_start();
    const size_t r = (size_t)blockIdx.x * ROWS_PER_PICK + threadIdx.x;
    if (r < nrows) rows[r].fast = rows[r].ncand >= k && rows[r].ncand <= cap;
}

/* a warp a row (PICK_ROWS rows a block): the digit where the wanted rank falls, from a scan of the row's 256 counts
 * (eight a lane), and the counts zeroed for the next launch; a thread walking them alone took 6 us a launch */
template <int MODE> __global__ void __launch_bounds__(32 * PICK_ROWS) k_pick(size_t nrows, int shift, int last,
                                                                            Row *rows, unsigned long long *hist)
{
    pdl_start();
    const size_t r = (size_t)blockIdx.x * PICK_ROWS + (threadIdx.x >> 5);
    const unsigned lane = threadIdx.x & 31;
    if (r >= nrows) return; /* the whole warp */
    Row st = rows[r];
    if (MODE == 1 && st.eq == st.iwant) return;
    unsigned long long *h = hist + r * 256 + lane * 8, c[8], tot = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) c[j] = h[j], tot += c[j], h[j] = 0;
    unsigned long long inc = tot; /* the counts of lanes 0 .. lane */
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned long long y = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= (unsigned)o) inc += y;
    }
    const unsigned long long want = MODE == 0 ? st.want : st.iwant;
    const unsigned hit = __ballot_sync(0xffffffffu, inc >= want && inc - tot < want);
    const unsigned src = hit ? (unsigned)__ffs((int)hit) - 1u : 31u; /* none: the last digit, as a walk would stop */
    if (lane != src) return;
    unsigned long long below = inc - tot;
    unsigned d = 0;
    while (d < 7 && below + c[d] < want) below += c[d++];
    const unsigned long long eq = c[d];
    d += lane * 8;
    if (MODE == 0) {
        st.prefix |= (unsigned long long)d << shift, st.want = want - below;
        if (last) st.eq = eq, st.iwant = st.want, st.iprefix = 0;
    } else {
        st.iprefix |= (unsigned long long)d << shift, st.iwant = want - below;
    }
    rows[r] = st;
}

/* every key below T and the ties at T up to position iprefix (all of them where eq == iwant), appended */
template <typename K, typename I>
__global__ void __launch_bounds__(TT) k_gather(const K *x, size_t n, size_t k, Grid g, RKey<K> xf, Row *rows,
                                               K *gx, I *gi, const K *cx, const I *ci, size_t cap)
{
    pdl_start();
    constexpr int U = unroll<K>();
    const size_t r = blockIdx.x / g.bx;
    const Row st = rows[r];
    const Src<K, I> sr = src_of<K, I>(x, n, g, st, cx, ci, cap);
    const bool all_ties = st.eq == st.iwant;
    const unsigned lane = threadIdx.x & 31, lt = (1u << lane) - 1u;
    for (size_t b = sr.c0; b < sr.c1; b += (size_t)TT * U) {
        K v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = b + (size_t)u * TT + threadIdx.x;
            if (i < sr.c1) v[u] = sr.x[i];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = b + (size_t)u * TT + threadIdx.x;
            bool take = false;
            unsigned long long p = 0;
            if (i < sr.c1) {
                const unsigned long long kk = rkey(v[u], xf);
                if (kk <= st.prefix) p = sr.pos ? (unsigned long long)sr.pos[i] : i;
                take = kk < st.prefix || (kk == st.prefix && (all_ties || p <= st.iprefix));
            }
            const unsigned m = __ballot_sync(0xffffffffu, take);
            if (m == 0) continue;
            unsigned long long base = 0;
            if (lane == __ffs(m) - 1) base = atomicAdd(&rows[r].cnt, (unsigned long long)__popc(m));
            base = __shfl_sync(0xffffffffu, base, __ffs(m) - 1);
            if (take) {
                const size_t at = r * k + base + __popc(m & lt);
                gx[at] = v[u];
                gi[at] = (I)p;
            }
        }
    }
}

/* k <= ORDER_MAX: each element's place = the gathered elements before it in (key, position); a row's k in shared
 * memory, each block of the row's `per` placing ORDER_PER of them, a warp counting for one element at a time (a
 * thread counting alone walked all k: 65 us at k = 1000 on four blocks) */
template <typename K, typename I>
__global__ void __launch_bounds__(TT) k_order(size_t k, unsigned per, RKey<K> xf, const K *gx, const I *gi, K *vals,
                                              I *idx)
{
    pdl_start();
    extern __shared__ unsigned long long sm[];
    K *sk = (K *)sm;
    I *si = (I *)(sm + (k * sizeof(K) + 7) / 8);
    const size_t r = blockIdx.x / per, e0 = (size_t)(blockIdx.x % per) * ORDER_PER;
    const size_t e1 = e0 + ORDER_PER < k ? e0 + ORDER_PER : k;
    for (size_t j = threadIdx.x; j < k; j += TT) sk[j] = rkey(gx[r * k + j], xf), si[j] = gi[r * k + j];
    __syncthreads();
    const unsigned lane = threadIdx.x & 31;
    for (size_t e = e0 + (threadIdx.x >> 5); e < e1; e += TT / 32) {
        const K ke = sk[e];
        const I ie = si[e];
        unsigned c = 0;
        for (size_t j = lane; j < k; j += 32) c += sk[j] < ke || (sk[j] == ke && si[j] < ie);
        const size_t p = __reduce_add_sync(0xffffffffu, c);
        if (lane == 0) {
            if (vals) vals[r * k + p] = gx[r * k + e];
            if (idx) idx[r * k + p] = ie;
        }
    }
}

size_t align256(size_t b) { return (b + 255) & ~(size_t)255; }

template <typename K, typename I>
gp_status_t run(gp_ctx_t *ctx, gp_dtype_t dt, size_t nrows, size_t n, const void *x, size_t k, int largest,
                void *values, void *indices, cudaStream_t s)
{
    const int W = 8 * (int)sizeof(K);
    const gp_dtype_t idt = sizeof(I) == 4 ? GP_U32 : GP_U64;
    const RKey<K> xf = rkey_of<K>(dt, largest);
    if (n <= gp_rank::Max<sizeof(K)>::N && nrows <= 65535) { /* short rows: one launch (rank_small.cuh) */
        cudaError_t e =
            indices ? gp_rank::launch<K, I, gp_rank::POSITIONS>(ctx, s, (unsigned)nrows, (const K *)x, (K *)values, NULL,
                                                                (I *)indices, (unsigned)n, (unsigned)k, xf, 0, W)
                    : gp_rank::launch<K, I, gp_rank::NO_VALUES>(ctx, s, (unsigned)nrows, (const K *)x, (K *)values, NULL,
                                                                NULL, (unsigned)n, (unsigned)k, xf, 0, W);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_topk (ranks)", __FILE__, __LINE__);
        return GP_CHECK_LAUNCH("gp_topk (ranks)");
    }
    const bool small = k <= ORDER_MAX;
    /* the two sorts of the large-k order use the front of the workspace; this call's buffers follow it (the sorts ask
     * for less than the whole, so they get the same block, also in a capture) */
    size_t sort_ws = 0;
    if (!small) {
        const size_t a = gp__sort_gpu_workspace_bytes(idt, k, sizeof(K), 0), b = gp__sort_gpu_workspace_bytes(dt, k, sizeof(I), 0);
        sort_ws = align256(a > b ? a : b);
    }
    /* the sampled bound (docs/design/sort.md, "Top-k"): the t-th smallest of SAMPLE_MAX samples, t about twice the
     * samples expected below the k-th key plus 8, leaves ~t n / SAMPLE_MAX candidates; room for four times that, and
     * only where that is at most a quarter of the row */
    const size_t stretch = n / SAMPLE_MAX, t = 2 * ((k * SAMPLE_MAX + n - 1) / (n ? n : 1)) + 8, cap = 4 * t * stretch;
    const bool fast = n >= (size_t)16 * SAMPLE_MAX && t <= SAMPLE_MAX && cap <= n / 4;
    const size_t rb = align256(nrows * sizeof(Row)), hb = align256(nrows * 256 * 8), gxb = align256(nrows * k * sizeof(K)),
                 gib = align256(nrows * k * sizeof(I)), xb2 = small ? 0 : align256(k * sizeof(K)),
                 ib2 = small ? 0 : align256(k * sizeof(I)), cxb = fast ? align256(nrows * cap * sizeof(K)) : 0,
                 cib = fast ? align256(nrows * cap * sizeof(I)) : 0,
                 skb = fast ? align256(nrows * SAMPLE_MAX * sizeof(K)) : 0;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, sort_ws + rb + hb + gxb + gib + xb2 + ib2 + cxb + cib + skb, &ws));
    char *w = (char *)ws + sort_ws;
    Row *rows = (Row *)w;
    unsigned long long *hist = (unsigned long long *)(w + rb);
    K *gx = (K *)(w + rb + hb), *gx2 = (K *)(w + rb + hb + gxb + gib);
    I *gi = (I *)(w + rb + hb + gxb), *gi2 = (I *)(w + rb + hb + gxb + gib + xb2);
    K *cx = fast ? (K *)(w + rb + hb + gxb + gib + xb2 + ib2) : NULL;
    I *ci = fast ? (I *)(w + rb + hb + gxb + gib + xb2 + ib2 + cxb) : NULL;
    K *sk = fast ? (K *)(w + rb + hb + gxb + gib + xb2 + ib2 + cxb + cib) : NULL; /* the sampled keys */
    cudaError_t e;
    if ((e = cudaMemsetAsync(hist, 0, hb, s)) != cudaSuccess) return gp__cuda_error(e, "gp_topk", __FILE__, __LINE__);
    const unsigned pick = (unsigned)((nrows + ROWS_PER_PICK - 1) / ROWS_PER_PICK),
                   pickw = (unsigned)((nrows + PICK_ROWS - 1) / PICK_ROWS);
    k_init<<<pick, ROWS_PER_PICK, 0, s>>>(nrows, k, rows);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_topk (init)"));
    /* the filter's candidate test: one float comparison for f32 / f64, the radix key otherwise */
    void (*filter)(const K *, size_t, Grid, RKey<K>, Row *, K *, I *, size_t) = k_filter<K, I, 0>;
    if constexpr (sizeof(K) >= 4)
        if (xf.inf) filter = largest ? k_filter<K, I, 2> : k_filter<K, I, 1>;
    int per_sm = 8;
    {
        int o[3];
        cudaError_t e1 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o[0], k_count<K, I, 0>, TT, 0),
                    e2 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o[1], filter, TT, 0),
                    e3 = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o[2], k_gather<K, I>, TT, 0);
        if (e1 != cudaSuccess || e2 != cudaSuccess || e3 != cudaSuccess)
            return gp__cuda_error(e1 != cudaSuccess ? e1 : e2 != cudaSuccess ? e2 : e3, "gp_topk", __FILE__, __LINE__);
        for (int j = 0; j < 3; j++) per_sm = o[j] < per_sm ? o[j] : per_sm;
    }
    const Grid g = grid_of(ctx, per_sm, nrows, n);
    const unsigned blocks = (unsigned)(g.bx * nrows);
    if (fast) {
        GP_TRY_RET(launched(launch(ctx, k_sample_read<K>, (unsigned)(nrows * (SAMPLE_MAX / TT)), TT, 0, s,
            (const K *)x, n, xf, sk), "gp_topk (sample read)"));
        GP_TRY_RET(launched(launch(ctx, k_sample<K>, (unsigned)nrows, TT, 0, s, sk, (int)t, rows), "gp_topk (sample)"));
        GP_TRY_RET(launched(launch(ctx, filter, blocks, TT, 0, s,
            (const K *)x, n, g, xf, rows, cx, ci, cap), "gp_topk (filter)"));
        GP_TRY_RET(launched(launch(ctx, k_settle, pick, ROWS_PER_PICK, 0, s, nrows, k, cap, rows), "gp_topk (settle)"));
    }
    for (int shift = W - 8; shift >= 0; shift -= 8) {
        GP_TRY_RET(launched(launch(ctx, k_count<K, I, 0>, blocks, TT, 0, s,
            (const K *)x, n, g, xf, shift, rows, hist, cx, ci, cap), "gp_topk (count)"));
        GP_TRY_RET(launched(launch(ctx, k_pick<0>, pickw, 32 * PICK_ROWS, 0, s,
            nrows, shift, shift == 0, rows, hist), "gp_topk (pick)"));
    }
    int ibits = 0; /* the bits of the largest position */
    while (ibits < 64 && ((n - 1) >> ibits) != 0) ibits++;
    for (int shift = (ibits + 7) / 8 * 8 - 8; shift >= 0; shift -= 8) {
        GP_TRY_RET(launched(launch(ctx, k_count<K, I, 1>, blocks, TT, 0, s,
            (const K *)x, n, g, xf, shift, rows, hist, cx, ci, cap), "gp_topk (count ties)"));
        GP_TRY_RET(launched(launch(ctx, k_pick<1>, pickw, 32 * PICK_ROWS, 0, s,
            nrows, shift, 0, rows, hist), "gp_topk (pick ties)"));
    }
    GP_TRY_RET(launched(launch(ctx, k_gather<K, I>, blocks, TT, 0, s,
        (const K *)x, n, k, g, xf, rows, gx, gi, cx, ci, cap), "gp_topk (gather)"));
    if (small) {
        /* 16 bytes of slack: ptxas may widen the last shared loads to 16 bytes (memcheck saw it at k = 1) */
        const size_t smem = (k * sizeof(K) + 7) / 8 * 8 + k * sizeof(I) + 16;
        const unsigned per = (unsigned)((k + ORDER_PER - 1) / ORDER_PER);
        return launched(launch(ctx, k_order<K, I>, (unsigned)(nrows * per), TT, smem, s,
            k, per, xf, gx, gi, (K *)values, (I *)indices), "gp_topk (order)");
    }
    for (size_t r = 0; r < nrows; r++) { /* by position (its ibits low bits: the rest are 0), then stably by key */
        K *vr = values ? (K *)values + r * k : gx + r * k;
        I *ir = indices ? (I *)indices + r * k : gi + r * k;
        GP_TRY_RET(gp__sort_gpu(ctx, idt, k, gi + r * k, gi2, sizeof(K), gx + r * k, gx2, 0, 0, ibits ? ibits : 1, s));
        GP_TRY_RET(gp__sort_gpu(ctx, dt, k, gx2, vr, sizeof(I), gi2, ir, largest, 0, W, s));
    }
    return GP_OK;
}

template <typename K>
gp_status_t by_index(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const void *x, size_t k, int largest,
                     void *values, size_t ib, void *indices, cudaStream_t s)
{
    return ib == 4 ? run<K, unsigned>(ctx, dt, rows, n, x, k, largest, values, indices, s)
                   : run<K, unsigned long long>(ctx, dt, rows, n, x, k, largest, values, indices, s);
}

} // namespace

extern "C" gp_status_t gp__topk_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const void *x, size_t k,
                                    int largest, void *values, size_t ib, void *indices, cudaStream_t s)
{
    switch (gp_dtype_size(dt)) {
    case 1: return by_index<uint8_t>(ctx, dt, rows, n, x, k, largest, values, ib, indices, s);
    case 2: return by_index<uint16_t>(ctx, dt, rows, n, x, k, largest, values, ib, indices, s);
    case 4: return by_index<uint32_t>(ctx, dt, rows, n, x, k, largest, values, ib, indices, s);
    default: return by_index<unsigned long long>(ctx, dt, rows, n, x, k, largest, values, ib, indices, s);
    }
}
