/*
 * unique.cu — gp_unique_sorted_sync's launches on the GPU (unique.c composes them with the sort and a scan): the
 * positions an argsort carries, the run heads of the sorted keys, then every output from the scanned heads.
 */
#include "radix_key.cuh"

namespace {

constexpr int UT = 256;

unsigned grid_for(size_t n)
{
    const size_t b = (n + UT - 1) / UT;
    return (unsigned)(b < 65536 ? b : 65536);
}

template <typename W> __global__ void k_iota(size_t n, W *p)
{
    for (size_t i = (size_t)blockIdx.x * UT + threadIdx.x; i < n; i += (size_t)gridDim.x * UT) p[i] = (W)i;
}

/* h[i] = 1 where the sorted keys s start a run of equal radix keys */
template <typename K, typename W> __global__ void k_heads(size_t n, const K *s, RKey<K> xf, W *h)
{
    for (size_t i = (size_t)blockIdx.x * UT + threadIdx.x; i < n; i += (size_t)gridDim.x * UT)
        h[i] = i == 0 || rkey(s[i], xf) != rkey(s[i - 1], xf);
}

/* position i of the sorted order is in run r = h[i] - 1; it starts the run where h[i - 1] differs, ends it where
 * h[i + 1] does; a run's count = its end minus its start, each added by the thread that knows it */
template <typename K, typename W, typename I>
__global__ void k_emit(size_t n, const K *s, const W *perm, const W *h, K *y, I *first, I *inverse,
                       unsigned long long *counts)
{
    for (size_t i = (size_t)blockIdx.x * UT + threadIdx.x; i < n; i += (size_t)gridDim.x * UT) {
        const size_t r = (size_t)h[i] - 1;
        const bool head = i == 0 || h[i - 1] != h[i], last = i + 1 == n || h[i + 1] != h[i];
        if (head) {
            if (y) y[r] = s[i];
            if (first) first[r] = (I)perm[i];
        }
        if (inverse) inverse[perm[i]] = (I)r;
        if (counts) {
            if (head && last) counts[r] = 1;
            else if (head) atomicAdd(&counts[r], (unsigned long long)(0 - (unsigned long long)i));
            else if (last) atomicAdd(&counts[r], (unsigned long long)(i + 1));
        }
    }
}

template <typename K, typename W>
gp_status_t heads(gp_dtype_t dt, size_t n, const void *s, void *h, cudaStream_t st)
{
    k_heads<K, W><<<grid_for(n), UT, 0, st>>>(n, (const K *)s, rkey_of<K>(dt, 0), (W *)h);
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (heads)");
}

template <typename K, typename W>
gp_status_t emit(size_t ib, size_t n, const void *s, const void *perm, const void *h, void *y, void *first,
                 void *inverse, uint64_t *counts, cudaStream_t st)
{
    if (ib == 4)
        k_emit<K, W, uint32_t><<<grid_for(n), UT, 0, st>>>(n, (const K *)s, (const W *)perm, (const W *)h, (K *)y,
                                                           (uint32_t *)first, (uint32_t *)inverse,
                                                           (unsigned long long *)counts);
    else
        k_emit<K, W, unsigned long long><<<grid_for(n), UT, 0, st>>>(n, (const K *)s, (const W *)perm, (const W *)h,
                                                                     (K *)y, (unsigned long long *)first,
                                                                     (unsigned long long *)inverse,
                                                                     (unsigned long long *)counts);
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (outputs)");
}

template <typename K>
gp_status_t heads_w(gp_dtype_t dt, size_t wb, size_t n, const void *s, void *h, cudaStream_t st)
{
    return wb == 4 ? heads<K, uint32_t>(dt, n, s, h, st) : heads<K, unsigned long long>(dt, n, s, h, st);
}
template <typename K>
gp_status_t emit_w(size_t wb, size_t ib, size_t n, const void *s, const void *perm, const void *h, void *y,
                   void *first, void *inverse, uint64_t *counts, cudaStream_t st)
{
    return wb == 4 ? emit<K, uint32_t>(ib, n, s, perm, h, y, first, inverse, counts, st)
                   : emit<K, unsigned long long>(ib, n, s, perm, h, y, first, inverse, counts, st);
}

} // namespace

extern "C" gp_status_t gp__unique_iota_gpu(size_t wb, size_t n, void *p, cudaStream_t st)
{
    if (wb == 4) k_iota<uint32_t><<<grid_for(n), UT, 0, st>>>(n, (uint32_t *)p);
    else k_iota<unsigned long long><<<grid_for(n), UT, 0, st>>>(n, (unsigned long long *)p);
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (positions)");
}

extern "C" gp_status_t gp__unique_heads_gpu(gp_dtype_t dt, size_t wb, size_t n, const void *s, void *h,
                                            cudaStream_t st)
{
    switch (gp_dtype_size(dt)) {
    case 1: return heads_w<uint8_t>(dt, wb, n, s, h, st);
    case 2: return heads_w<uint16_t>(dt, wb, n, s, h, st);
    case 4: return heads_w<uint32_t>(dt, wb, n, s, h, st);
    default: return heads_w<unsigned long long>(dt, wb, n, s, h, st);
    }
}

extern "C" gp_status_t gp__unique_emit_gpu(gp_dtype_t dt, size_t wb, size_t ib, size_t n, const void *s,
                                           const void *perm, const void *h, void *y, void *first, void *inverse,
                                           uint64_t *counts, cudaStream_t st)
{
    switch (gp_dtype_size(dt)) {
    case 1: return emit_w<uint8_t>(wb, ib, n, s, perm, h, y, first, inverse, counts, st);
    case 2: return emit_w<uint16_t>(wb, ib, n, s, perm, h, y, first, inverse, counts, st);
    case 4: return emit_w<uint32_t>(wb, ib, n, s, perm, h, y, first, inverse, counts, st);
    default: return emit_w<unsigned long long>(wb, ib, n, s, perm, h, y, first, inverse, counts, st);
    }
}
