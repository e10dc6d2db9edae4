/*
 * group_sort.cu — the sharded sort's one kernel (group_sort.c has the rest): how many keys of a rank's sorted shard
 * have a radix key at or below each query, one thread a query binary-searching the shard (the radix key of
 * src/sort/radix_key.cuh, so the count follows gp_sort's order: every NaN one key, -0 == +0, descending too); and the
 * argsort's global positions.
 */
#include "group_internal.h"
#include "../sort/radix_key.cuh"

namespace {

template <typename K>
__global__ void k_count_le(const K *x, size_t n, RKey<K> xf, int nq, const uint64_t *rq, uint64_t *out)
{
    const int q = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (q >= nq) return;
    const uint64_t v = rq[q];
    size_t lo = 0, hi = n; /* the first key above v */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)rkey(x[mid], xf) <= v) lo = mid + 1;
        else hi = mid;
    }
    out[q] = lo;
}

template <typename W> __global__ void k_iota(size_t n, W base, W *out)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = base + (W)i;
}

template <typename K>
gp_status_t launch(gp_dtype_t dt, int descending, size_t n, const void *sorted, int nq, const uint64_t *rq,
                   uint64_t *out, cudaStream_t s)
{
    if (nq <= 0) return GP_OK;
    k_count_le<K><<<(unsigned)((nq + 127) / 128), 128, 0, s>>>((const K *)sorted, n, rkey_of<K>(dt, descending), nq,
                                                              rq, out);
    return GP_CHECK_LAUNCH("gp_group_sort (split counts)");
}

} // namespace

extern "C" gp_status_t gp__group_sort_count_gpu(gp_dtype_t dt, int descending, size_t n, const void *sorted, int nq,
                                                const uint64_t *rq, uint64_t *out, cudaStream_t s)
{
    switch (gp_dtype_size(dt)) {
    case 1: return launch<uint8_t>(dt, descending, n, sorted, nq, rq, out, s);
    case 2: return launch<uint16_t>(dt, descending, n, sorted, nq, rq, out, s);
    case 4: return launch<uint32_t>(dt, descending, n, sorted, nq, rq, out, s);
    default: return launch<unsigned long long>(dt, descending, n, sorted, nq, rq, out, s);
    }
}

extern "C" gp_status_t gp__group_sort_iota_gpu(size_t ib, size_t n, uint64_t base, void *out, cudaStream_t s)
{
    if (!n) return GP_OK;
    const size_t blocks = (n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536;
    if (ib == 4) k_iota<uint32_t><<<(unsigned)blocks, 256, 0, s>>>(n, (uint32_t)base, (uint32_t *)out);
    else k_iota<unsigned long long><<<(unsigned)blocks, 256, 0, s>>>(n, base, (unsigned long long *)out);
    return GP_CHECK_LAUNCH("gp_group_argsort (positions)");
}
