/*
 * unique.cu — gp_unique_sorted_sync's launches on the GPU (unique.c composes them with the sort and a scan): the
 * positions an argsort carries, the run heads of the sorted keys, then every output from the scanned heads; and the
 * counted path of integer keys in a narrow range: the range found, a count of every value in it, the nonzero counts
 * compacted in order (docs/design/sort.md, "Sorted unique").
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


/* ---- keys in a narrow range: counted, not sorted ---- */
constexpr int DU = 8;            /* loads in flight a thread */
constexpr int DBINS = 8192;      /* a block's shared counters: two buckets of a pass-sorted input, or every value */
constexpr int CE = 8;            /* table entries a thread compacts */

/* Over the radix keys rk of x[i * step], i < n (widened): w[0] = max ~rk (~ the least), w[1] = max rk; w zeroed
 * before */
template <typename K>
__global__ void __launch_bounds__(UT) k_range(size_t n, size_t step, const K *x, RKey<K> xf, unsigned long long *w)
{
    unsigned long long lo = 0, hi = 0;
    for (size_t b = (size_t)blockIdx.x * UT * DU + threadIdx.x; b < n; b += (size_t)gridDim.x * UT * DU) {
        K v[DU];
#pragma unroll
        for (int u = 0; u < DU; u++) v[u] = x[(b + (size_t)u * UT < n ? b + (size_t)u * UT : b) * step];
#pragma unroll
        for (int u = 0; u < DU; u++) {
            const K k = rkey(v[u], xf);
            lo = max(lo, (unsigned long long)(K)~k), hi = max(hi, (unsigned long long)k);
        }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        lo = max(lo, __shfl_xor_sync(0xffffffffu, lo, d)), hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, d));
    if ((threadIdx.x & 31) == 0 && (lo | hi)) atomicMax(&w[0], lo), atomicMax(&w[1], hi);
}

/* T[rk - off] += 1 for the keys of chunk blockIdx.x (every rk - off below 2^b). sh > 0 (at most 12): the keys are
 * sorted by bits [sh, b) of rk - off (one or two passes), and the block counts the two buckets of 2^sh values from its
 * first key's in shared memory, any other key straight into T; sh = 0: all 2^b values in shared memory (b <= 13) */
template <typename K>
__global__ void __launch_bounds__(UT) k_count(size_t n, const K *s, RKey<K> xf, unsigned long long off, int b, int sh,
                                              size_t chunk, unsigned long long *T)
{
    __shared__ unsigned h[DBINS];
    const size_t c0 = (size_t)blockIdx.x * chunk, c1 = n - c0 < chunk ? n : c0 + chunk;
    unsigned long long base = 0, W = 1ull << b;
    if (sh > 0) {
        base = ((unsigned long long)rkey(s[c0], xf) - off) >> sh << sh;
        W = (2ull << sh) < W - base ? 2ull << sh : W - base;
    }
    for (unsigned i = threadIdx.x; i < W; i += UT) h[i] = 0;
    __syncthreads();
    for (size_t i0 = c0 + threadIdx.x; i0 < c1; i0 += (size_t)UT * DU) {
        K v[DU];
#pragma unroll
        for (int u = 0; u < DU; u++) v[u] = s[i0 + (size_t)u * UT < c1 ? i0 + (size_t)u * UT : i0];
#pragma unroll
        for (int u = 0; u < DU; u++)
            if (i0 + (size_t)u * UT < c1) {
                const unsigned long long k = (unsigned long long)rkey(v[u], xf) - off, r = k - base;
                if (r < W) atomicAdd(&h[r], 1u);
                else if (k >> b == 0) atomicAdd(&T[k], 1ull); /* always, unless x changed since its range was read */
            }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < W; i += UT)
        if (h[i]) atomicAdd(&T[base + i], (unsigned long long)h[i]);
}

/* bc[block] = the nonzero entries among the table's UT * CE of block */
__global__ void __launch_bounds__(UT) k_nonzero(size_t R, const unsigned long long *T, unsigned *bc)
{
    __shared__ unsigned s_w[UT / 32];
    const size_t e0 = ((size_t)blockIdx.x * UT + threadIdx.x) * CE;
    unsigned c = 0;
#pragma unroll
    for (int j = 0; j < CE; j++) c += e0 + j < R && T[e0 + j] != 0;
    unsigned total = 0;
    block_excl<unsigned, UT>(c, s_w, &total);
    if (threadIdx.x == 0) bc[blockIdx.x] = total;
}

/* one block: bc[0, nb) made its exclusive prefix in place (each thread a run of consecutive entries), *m = the
 * total (the table's nonzero entries; below 2^32: the table has at most 2^28) */
__global__ void __launch_bounds__(UT) k_scan_counts(unsigned nb, unsigned *bc, unsigned long long *m)
{
    __shared__ unsigned s_w[UT / 32];
    const unsigned per = (nb + UT - 1) / UT, j0 = threadIdx.x * per, j1 = j0 + per < nb ? j0 + per : nb;
    unsigned c = 0;
    for (unsigned j = j0; j < j1; j++) c += bc[j];
    unsigned total = 0, o = block_excl<unsigned, UT>(c, s_w, &total);
    for (unsigned j = j0; j < j1; j++) {
        const unsigned v = bc[j];
        bc[j] = o, o += v;
    }
    if (threadIdx.x == 0) *m = total;
}

/* the nonzero entries in order: y = the key of each (the radix key off + its index, back to the integer's bits),
 * counts = its count; block b's first place is bc[b] (k_scan_counts) */
template <typename K>
__global__ void __launch_bounds__(UT) k_compact(size_t R, const unsigned long long *T, const unsigned *bc,
                                                unsigned long long off, RKey<K> xf, K *y, unsigned long long *counts)
{
    __shared__ unsigned s_w[UT / 32];
    const size_t e0 = ((size_t)blockIdx.x * UT + threadIdx.x) * CE;
    unsigned long long t[CE];
    unsigned c = 0;
#pragma unroll
    for (int j = 0; j < CE; j++) t[j] = e0 + j < R ? T[e0 + j] : 0, c += t[j] != 0;
    size_t o = (size_t)bc[blockIdx.x] + block_excl<unsigned, UT>(c, s_w);
#pragma unroll
    for (int j = 0; j < CE; j++)
        if (t[j]) {
            y[o] = (K)((K)(off + e0 + j) ^ xf.flip ^ xf.xr); /* an integer's radix key undone */
            counts[o] = t[j];
            o++;
        }
}

template <typename K>
void range(gp_dtype_t dt, unsigned grid, size_t n, size_t step, const void *x, unsigned long long *w, cudaStream_t st)
{
    k_range<K><<<grid, UT, 0, st>>>(n, step, (const K *)x, rkey_of<K>(dt, 0), w);
}

template <typename K>
gp_status_t dense(gp_dtype_t dt, size_t n, const void *s, uint64_t off, int b, int sh, int sms, void *T, void *bc,
                  void *y, uint64_t *counts, uint64_t *m, cudaStream_t st)
{
    const size_t R = (size_t)1 << b;
    cudaError_t e = cudaMemsetAsync(T, 0, R * 8, st);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_unique_sorted_sync (counts)", __FILE__, __LINE__);
    int per_sm = 0;
    if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_count<K>, UT, 0)) != cudaSuccess)
        return gp__cuda_error(e, "gp_unique_sorted_sync (occupancy)", __FILE__, __LINE__);
    /* one wave of chunks, each at least a few tiles (the block's table is read and flushed once a chunk); a chunk
     * of keys sorted by bits [sh, b) no longer than their buckets' mean (whole tiles), so that most lie in the two
     * buckets its counters hold */
    const size_t blocks = (size_t)sms * (per_sm > 0 ? per_sm : 1), tile = (size_t)UT * DU;
    size_t chunk = (n + blocks - 1) / blocks;
    chunk = chunk < 4 * tile ? 4 * tile : (chunk + tile - 1) / tile * tile;
    if (sh > 0) {
        const size_t mean = (n >> (b - sh)) / tile * tile;
        if (chunk > mean) chunk = mean > tile ? mean : tile;
    }
    const RKey<K> xf = rkey_of<K>(dt, 0);
    k_count<K><<<(unsigned)((n + chunk - 1) / chunk), UT, 0, st>>>(n, (const K *)s, xf, off, b, sh, chunk,
                                                                  (unsigned long long *)T);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_unique_sorted_sync (counting)"));
    const unsigned cb = (unsigned)((R + (size_t)UT * CE - 1) / ((size_t)UT * CE));
    k_nonzero<<<cb, UT, 0, st>>>(R, (const unsigned long long *)T, (unsigned *)bc);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_unique_sorted_sync (nonzero counts)"));
    k_scan_counts<<<1, UT, 0, st>>>(cb, (unsigned *)bc, (unsigned long long *)m);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_unique_sorted_sync (nonzero counts' places)"));
    k_compact<K><<<cb, UT, 0, st>>>(R, (const unsigned long long *)T, (const unsigned *)bc, off, xf, (K *)y,
                                    (unsigned long long *)counts);
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (compaction)");
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

extern "C" gp_status_t gp__unique_range_gpu(gp_dtype_t dt, size_t n, size_t step, const void *x, int sms,
                                            uint64_t *w, cudaStream_t st)
{
    cudaError_t e = cudaMemsetAsync(w, 0, 16, st);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_unique_sorted_sync (key range)", __FILE__, __LINE__);
    const size_t need = (n + (size_t)UT * DU - 1) / ((size_t)UT * DU), most = (size_t)sms * (2048 / UT);
    const unsigned grid = (unsigned)(need < most ? need : most);
    unsigned long long *ww = (unsigned long long *)w;
    switch (gp_dtype_size(dt)) {
    case 1: range<uint8_t>(dt, grid, n, step, x, ww, st); break;
    case 2: range<uint16_t>(dt, grid, n, step, x, ww, st); break;
    case 4: range<uint32_t>(dt, grid, n, step, x, ww, st); break;
    default: range<unsigned long long>(dt, grid, n, step, x, ww, st); break;
    }
    return GP_CHECK_LAUNCH("gp_unique_sorted_sync (key range)");
}

extern "C" gp_status_t gp__unique_dense_gpu(gp_dtype_t dt, size_t n, const void *s, uint64_t off, int b, int sh,
                                            int sms, void *T, void *bc, void *y, uint64_t *counts, uint64_t *m,
                                            cudaStream_t st)
{
    switch (gp_dtype_size(dt)) {
    case 1: return dense<uint8_t>(dt, n, s, off, b, sh, sms, T, bc, y, counts, m, st);
    case 2: return dense<uint16_t>(dt, n, s, off, b, sh, sms, T, bc, y, counts, m, st);
    case 4: return dense<uint32_t>(dt, n, s, off, b, sh, sms, T, bc, y, counts, m, st);
    default: return dense<unsigned long long>(dt, n, s, off, b, sh, sms, T, bc, y, counts, m, st);
    }
}
