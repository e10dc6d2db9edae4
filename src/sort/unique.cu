/*
 * unique.cu — gp_unique_sorted_sync's two launches on the GPU (unique.c composes them with the argsort and a scan):
 * the run heads of the keys in sorted order, then every output from the scanned heads.
 */
#include "radix_key.cuh"

namespace {

constexpr int UT = 256;

template <typename K> __global__ void k_heads(size_t n, const K *x, const uint64_t *perm, RKey<K> xf, uint64_t *h)
{
    for (size_t i = (size_t)blockIdx.x * UT + threadIdx.x; i < n; i += (size_t)gridDim.x * UT)
        h[i] = i == 0 || rkey(x[perm[i]], xf) != rkey(x[perm[i - 1]], xf);
}

/* position i of the sorted order is in run r = h[i] - 1; it starts the run where h[i - 1] differs, ends it where
 * h[i + 1] does; a run's count = its end minus its start, each added by the thread that knows it */
template <typename K, typename I>
__global__ void k_emit(size_t n, const K *x, const uint64_t *perm, const uint64_t *h, K *y, I *first, I *inverse,
                       unsigned long long *counts)
{
    for (size_t i = (size_t)blockIdx.x * UT + threadIdx.x; i < n; i += (size_t)gridDim.x * UT) {
        const uint64_t r = h[i] - 1, p = perm[i];
        const bool head = i == 0 || h[i - 1] != h[i], last = i + 1 == n || h[i + 1] != h[i];
        if (head) {
            if (y) y[r] = x[p];
            if (first) first[r] = (I)p;
        }
        if (inverse) inverse[p] = (I)r;
        if (counts) {
            if (head && last) counts[r] = 1;
            else if (head) atomicAdd(&counts[r], (unsigned long long)(0 - (unsigned long long)i));
            else if (last) atomicAdd(&counts[r], (unsigned long long)(i + 1));
        }
    }
}

unsigned grid_for(size_t n)
{
    const size_t b = (n + UT - 1) / UT;
    return (unsigned)(b < 65536 ? b : 65536);
}

template <typename K>
gp_status_t heads(gp_dtype_t dt, size_t n, const void *x, const uint64_t *perm, uint64_t *h, cudaStream_t s)
{
    k_heads<K><<<grid_for(n), UT, 0, s>>>(n, (const K *)x, perm, rkey_of<K>(dt, 0), h);
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (heads)");
}

template <typename K>
gp_status_t emit(size_t ib, size_t n, const void *x, const uint64_t *perm, const uint64_t *h, void *y, void *first,
                 void *inverse, uint64_t *counts, cudaStream_t s)
{
    if (ib == 4)
        k_emit<K, uint32_t><<<grid_for(n), UT, 0, s>>>(n, (const K *)x, perm, h, (K *)y, (uint32_t *)first,
                                                       (uint32_t *)inverse, (unsigned long long *)counts);
    else
        k_emit<K, unsigned long long><<<grid_for(n), UT, 0, s>>>(n, (const K *)x, perm, h, (K *)y,
                                                                 (unsigned long long *)first,
                                                                 (unsigned long long *)inverse,
                                                                 (unsigned long long *)counts);
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (outputs)");
}

} // namespace

extern "C" gp_status_t gp__unique_heads_gpu(gp_dtype_t dt, size_t n, const void *x, const uint64_t *perm, uint64_t *h,
                                            cudaStream_t s)
{
    switch (gp_dtype_size(dt)) {
    case 1: return heads<uint8_t>(dt, n, x, perm, h, s);
    case 2: return heads<uint16_t>(dt, n, x, perm, h, s);
    case 4: return heads<uint32_t>(dt, n, x, perm, h, s);
    default: return heads<unsigned long long>(dt, n, x, perm, h, s);
    }
}

extern "C" gp_status_t gp__unique_emit_gpu(gp_dtype_t dt, size_t ib, size_t n, const void *x, const uint64_t *perm,
                                           const uint64_t *h, void *y, void *first, void *inverse, uint64_t *counts,
                                           cudaStream_t s)
{
    switch (gp_dtype_size(dt)) {
    case 1: return emit<uint8_t>(ib, n, x, perm, h, y, first, inverse, counts, s);
    case 2: return emit<uint16_t>(ib, n, x, perm, h, y, first, inverse, counts, s);
    case 4: return emit<uint32_t>(ib, n, x, perm, h, y, first, inverse, counts, s);
    default: return emit<unsigned long long>(ib, n, x, perm, h, y, first, inverse, counts, s);
    }
}
