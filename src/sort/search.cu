/*
 * search.cu — gp_searchsorted on the GPU (search.c has the checks and the CPU backend; docs/design/sort.md). One
 * thread a query: its place among 2048 keys sampled at an even stride (kept in shared memory) narrows the range, then
 * a binary search of that stride in global memory; keys compared as radix keys, so the order is gp_sort's.
 */
#include "radix_key.cuh"

namespace {

constexpr int ST = 256, SAMPLE = 2048;

/* s[j] = the radix key of a[j * step], j < ns */
template <typename K> __global__ void k_sample(const K *a, size_t step, unsigned ns, RKey<K> x, K *s)
{
    const unsigned j = blockIdx.x * ST + threadIdx.x;
    if (j < ns) s[j] = rkey(a[(size_t)j * step], x);
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

template <typename K, typename I>
gp_status_t run(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *sorted, size_t m, const void *queries, int right,
                void *out, cudaStream_t s)
{
    const RKey<K> x = rkey_of<K>(dt, 0);
    if (n == 0) { /* every query goes at 0 */
        const cudaError_t e = cudaMemsetAsync(out, 0, m * sizeof(I), s);
        return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_searchsorted", __FILE__, __LINE__);
    }
    const size_t step = (n + SAMPLE - 1) / SAMPLE;
    const unsigned ns = (unsigned)((n + step - 1) / step);
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, SAMPLE * sizeof(K), &ws));
    k_sample<K><<<(ns + ST - 1) / ST, ST, 0, s>>>((const K *)sorted, step, ns, x, (K *)ws);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_searchsorted (sample)"));
    const size_t need = (m + ST - 1) / ST, cap = (size_t)ctx->sm_count * 8;
    k_search<K, I><<<(unsigned)(need < cap ? need : cap), ST, 0, s>>>((const K *)sorted, n, step, ns, (const K *)ws,
                                                                       (const K *)queries, m, x, right, (I *)out);
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
