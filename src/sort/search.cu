/*
 * search.cu — gp_searchsorted on the GPU (search.c has the checks and the CPU backend; docs/design/sort.md). Keys
 * compare as radix keys, so the order is gp_sort's. Many queries: tables of every F-th key, every F^2-th, ... (F keys
 * a 128-byte line) down to one of at most 32 KiB, held in shared memory; a query's place in that table picks one
 * line of the next table, and so down to one line of the keys — one line read per level, by eight lanes together.
 * Few queries: 2048 keys
 * sampled into shared memory, then a binary search of the stride between two samples.
 */
#include "radix_key.cuh"

namespace {

constexpr int ST = 256, SAMPLE = 2048, MAX_LEVELS = 8, TOP_BYTES = 32768;

/* s[j] = the radix key of a[j * step], j < ns */
template <typename K> __global__ void k_sample(const K *a, size_t step, size_t ns, RKey<K> x, K *s)
{
    const size_t j = (size_t)blockIdx.x * ST + threadIdx.x;
    if (j < ns) s[j] = rkey(a[j * step], x);
}
/* t[j] = u[j * f], j < nt (the tables above the first) */
template <typename K> __global__ void k_thin(const K *u, size_t f, size_t nt, K *t)
{
    const size_t j = (size_t)blockIdx.x * ST + threadIdx.x;
    if (j < nt) t[j] = u[j * f];
}

/* does the key v come before the query's place (left: v < q; right: v <= q) */
template <typename K> __device__ __forceinline__ bool before(K v, K q, int right) { return right ? v <= q : v < q; }

template <typename K, typename I>
__global__ void __launch_bounds__(ST) k_search(const K *a, size_t n, size_t step, unsigned ns, const K *samp,
                                              const K *q, size_t m, RKey<K> x, int right, I *out)
{
    __shared__ K s[SAMPLE];
    for (unsigned j = threadIdx.x; j < ns; j += ST) s[j] = samp[j];
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * ST + threadIdx.x; i < m; i += (size_t)gridDim.x * ST) {
        const K qk = rkey(q[i], x);
        unsigned lo = 0, hi = ns; /* lo = the samples before the place */
        while (lo < hi) {
            const unsigned mid = (lo + hi) >> 1;
            if (before(s[mid], qk, right)) lo = mid + 1;
            else hi = mid;
        }
        size_t L = 0, H = 0; /* the place is in [L, H]: a[L - 1] comes before it, a[H] (if any) does not */
        if (lo > 0) {
            L = (size_t)(lo - 1) * step + 1;
            H = (size_t)lo * step < n ? (size_t)lo * step : n;
        }
        while (L < H) {
            const size_t mid = L + ((H - L) >> 1);
            if (before(rkey(__ldg(a + mid), x), qk, right)) L = mid + 1;
            else H = mid;
        }
        out[i] = (I)L;
    }
}

/* the tables of the many-query search: tab[l] holds len[l] radix keys, those of a[j * F^l] (tab[0] unused: a) */
template <typename K> struct Levels {
    const K *tab[MAX_LEVELS + 1];
    size_t len[MAX_LEVELS + 1];
    int top; /* the level held in shared memory */
};

/* Many queries: a warp takes 32; each lane finds its own query's place in the shared-memory table, then eight lanes
 * a query (four at a time) read each level's 128-byte line together, one 16-byte piece each (one coalesced load; a
 * line a thread cost eight L1 wavefronts per query and level), their counts summed by shuffles */
template <typename K, typename I>
__global__ void __launch_bounds__(ST) k_search_levels(const K *a, int a_lines, Levels<K> lv, const K *q, size_t m,
                                                     RKey<K> x, int right, I *out)
{
    constexpr int F = 128 / sizeof(K), V = 16 / sizeof(K), G = 8;
    __shared__ K s[TOP_BYTES / sizeof(K)];
    const int top = lv.top;
    const unsigned ns = (unsigned)lv.len[top];
    for (unsigned j = threadIdx.x; j < ns; j += ST) s[j] = top ? lv.tab[top][j] : rkey(a[j], x);
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, sub = lane % G;
    for (size_t w0 = (size_t)blockIdx.x * ST + (threadIdx.x & ~31u); w0 < m; w0 += (size_t)gridDim.x * ST) {
        const size_t mine = w0 + lane; /* every lane of the warp runs the loop: shuffles below */
        const K myq = mine < m ? rkey(q[mine], x) : (K)0;
        unsigned lo = 0, hi = ns;
        while (lo < hi) {
            const unsigned mid = (lo + hi) >> 1;
            if (before(s[mid], myq, right)) lo = mid + 1;
            else hi = mid;
        }
        size_t place = lo;
        for (int round = 0; round < G; round++) { /* 8 rounds of 4 queries: query round * 4 + lane / 8 */
            const unsigned owner = (unsigned)round * (32 / G) + lane / G;
            const K qk = __shfl_sync(0xffffffffu, myq, owner);
            size_t c = __shfl_sync(0xffffffffu, (unsigned long long)place, owner);
            const bool active = w0 + owner < m;
#pragma unroll
            for (int l = MAX_LEVELS - 1; l >= 0; l--) { /* unrolled: lv's fields read at constant indices */
                if (l >= top) continue;
                const bool go = active && c > 0;
                const size_t base = go ? (c - 1) * F : 0, len = lv.len[l];
                const unsigned lim = go ? (unsigned)(len - base < (size_t)F ? len - base : (size_t)F) : 0;
                unsigned cnt = 0;
                if (go) {
                    if (l > 0 || (a_lines && lim == (unsigned)F)) {
                        const uint4 u = __ldg((const uint4 *)((l > 0 ? lv.tab[l] : a) + base) + sub);
                        K e[V];
                        memcpy(e, &u, 16);
#pragma unroll
                        for (int v = 0; v < V; v++)
                            cnt += sub * V + v < lim && before(l > 0 ? e[v] : rkey(e[v], x), qk, right);
                    } else { /* a line of a misaligned or the last, short one: key by key */
#pragma unroll
                        for (int v = 0; v < V; v++)
                            if (sub * V + v < lim) cnt += before(rkey(__ldg(a + base + sub * V + v), x), qk, right);
                    }
                }
#pragma unroll
                for (int d = 1; d < G; d <<= 1) cnt += __shfl_xor_sync(0xffffffffu, cnt, d);
                if (go) c = base + cnt;
            }
            /* the owner keeps its answer */
            const size_t got = __shfl_sync(0xffffffffu, (unsigned long long)c, (lane % (32 / G)) * G);
            if (lane / (32 / G) == (unsigned)round) place = got;
        }
        if (mine < m) out[mine] = (I)place;
    }
}

/* k_search_levels' resident blocks per SM (1 where the runtime cannot say: a smaller grid, the same answers) */
template <typename K, typename I> int levels_per_sm()
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_search_levels<K, I>, ST, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        per_sm = 0;
    }
    return per_sm > 0 ? per_sm : 1;
}

template <typename K, typename I>
gp_status_t run(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *sorted, size_t m, const void *queries, int right,
                void *out, cudaStream_t s)
{
    const RKey<K> x = rkey_of<K>(dt, 0);
    if (n == 0) { /* every query goes at 0 */
        const cudaError_t e = cudaMemsetAsync(out, 0, m * sizeof(I), s);
        return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_searchsorted", __FILE__, __LINE__);
    }
    if (m == 0) return GP_OK;
    const size_t F = 128 / sizeof(K), top_max = TOP_BYTES / sizeof(K), cap = (size_t)ctx->sm_count * 8,
                 need = (m + ST - 1) / ST, grid = need < cap ? need : cap;
    /* the tables cost a strided read of n / F keys: worth it where the queries are at least n / 64 */
    if (m >= n / 64) {
        Levels<K> lv;
        lv.tab[0] = (const K *)sorted, lv.len[0] = n, lv.top = 0;
        size_t bytes = 0; /* MAX_LEVELS tables cover 2^44 keys or more (8-byte: 4096 x 16^8), past any GPU's memory */
        while (lv.len[lv.top] > top_max) {
            lv.top++;
            lv.len[lv.top] = (lv.len[lv.top - 1] + F - 1) / F;
            bytes += (lv.len[lv.top] + F - 1) / F * F * sizeof(K) + 256;
        }
        void *ws = NULL;
        if (bytes) GP_TRY_RET(gp__workspace(ctx, bytes, &ws));
        char *w = (char *)ws;
        for (int l = 1; l <= lv.top; l++) {
            K *t = (K *)w;
            const size_t nt = lv.len[l];
            w += ((nt + F - 1) / F * F * sizeof(K) + 255) / 256 * 256;
            const unsigned b = (unsigned)((nt + ST - 1) / ST);
            if (l == 1) k_sample<K><<<b, ST, 0, s>>>((const K *)sorted, F, nt, x, t);
            else k_thin<K><<<b, ST, 0, s>>>(lv.tab[l - 1], F, nt, t);
            GP_TRY_RET(GP_CHECK_LAUNCH("gp_searchsorted (tables)"));
            lv.tab[l] = t;
        }
        const int a_lines = (uintptr_t)sorted % 16 == 0;
        /* one wave of blocks: each takes an equal share of the queries, so a partial second wave would double the time */
        static const int per_sm = levels_per_sm<K, I>(); /* asked once per kernel: it is part of each call's cost */
        const size_t wave = (size_t)ctx->sm_count * per_sm, lgrid = need < wave ? need : wave;
        k_search_levels<K, I><<<(unsigned)lgrid, ST, 0, s>>>((const K *)sorted, a_lines, lv, (const K *)queries, m, x,
                                                            right, (I *)out);
        return GP_CHECK_LAUNCH("gp_searchsorted");
    }
    const size_t step = (n + SAMPLE - 1) / SAMPLE;
    const unsigned ns = (unsigned)((n + step - 1) / step);
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, SAMPLE * sizeof(K), &ws));
    k_sample<K><<<(ns + ST - 1) / ST, ST, 0, s>>>((const K *)sorted, step, ns, x, (K *)ws);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_searchsorted (sample)"));
    k_search<K, I><<<(unsigned)grid, ST, 0, s>>>((const K *)sorted, n, step, ns, (const K *)ws, (const K *)queries, m,
                                                  x, right, (I *)out);
    return GP_CHECK_LAUNCH("gp_searchsorted");
}

template <typename K>
gp_status_t by_index(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *a, size_t m, const void *q, int right,
                     size_t ib, void *out, cudaStream_t s)
{
    return ib == 4 ? run<K, unsigned>(ctx, dt, n, a, m, q, right, out, s)
                   : run<K, unsigned long long>(ctx, dt, n, a, m, q, right, out, s);
}

} // namespace

extern "C" gp_status_t gp__searchsorted_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *sorted, size_t m,
                                            const void *queries, int right, size_t ib, void *out, cudaStream_t s)
{
    switch (gp_dtype_size(dt)) {
    case 1: return by_index<uint8_t>(ctx, dt, n, sorted, m, queries, right, ib, out, s);
    case 2: return by_index<uint16_t>(ctx, dt, n, sorted, m, queries, right, ib, out, s);
    case 4: return by_index<uint32_t>(ctx, dt, n, sorted, m, queries, right, ib, out, s);
    default: return by_index<unsigned long long>(ctx, dt, n, sorted, m, queries, right, ib, out, s);
    }
}
