/*
 * rank_small.cuh — short rows in one launch, by counting ranks (docs/design/sort.md, "Short rows"): the sort's and
 * top-k's path for rows of up to GP_SORT_RANK_MAX4 keys of 1-4 bytes (GP_SORT_RANK_MAX8 of 8 bytes). Each element is
 * the pair (its radix key's bits lo .. hi, its position); its place is the number of pairs below it, the position
 * breaking ties, so the order is the stable sort's. Every block of a row holds the row's n pairs in shared memory and
 * counts for 32 of them, its warps each over a slice of the n (every lane reads the same pair: a broadcast); the
 * counts meet in shared memory and each element whose place is below `limit` is stored there once, with its value
 * or position. Blocks of a row read its input while others store: an input that is also an output is the caller's
 * to set aside first. Each file that includes it has its own copies (an unnamed namespace): a kernel's shared-memory
 * attribute is set on the copy its file launches.
 */
#ifndef GP_RANK_SMALL_CUH
#define GP_RANK_SMALL_CUH

#include "radix_key.cuh"
#include "sort_tuning.h"

namespace {
namespace gp_rank {

constexpr int THREADS = 256, WARPS = THREADS / 32;

template <int KS> struct Item { /* keys of up to 4 bytes: bits << 32 | position, one compare */
    unsigned long long v;
    __device__ __forceinline__ void make(unsigned long long d, unsigned i) { v = d << 32 | i; }
    __device__ __forceinline__ unsigned below(const Item &o) const { return v < o.v; }
};
template <> struct Item<8> {
    unsigned long long d;
    unsigned i, pad;
    __device__ __forceinline__ void make(unsigned long long dd, unsigned ii) { d = dd, i = ii, pad = 0; }
    __device__ __forceinline__ unsigned below(const Item &o) const { return d < o.d || (d == o.d && i < o.i); }
};
/* the longest row taken for keys of KS bytes (sort_tuning.h; 0: none) */
template <int KS> struct Max {
    static constexpr size_t N = KS == 8 ? GP_SORT_RANK_MAX8 : GP_SORT_RANK_MAX4;
};

enum { NO_VALUES, VALUES, POSITIONS }; /* what moves with a key: nothing, its value, its position (as V) */

/* row blockIdx.y of rows of n keys (inputs) and of limit places (outputs) */
template <typename K, typename V, int MODE>
__global__ void __launch_bounds__(THREADS)
    k_rank(const K *kin, K *kout, const V *vin, V *vout, unsigned n, unsigned limit, RKey<K> x, int lo, int hi)
{
    typedef Item<sizeof(K)> I;
    extern __shared__ unsigned long long s_rank_raw[];
    I *s = reinterpret_cast<I *>(s_rank_raw);
    __shared__ unsigned s_part[WARPS][32];
    const size_t row = blockIdx.y;
    kin += row * n;
    if (kout) kout += row * limit;
    if constexpr (MODE == VALUES) vin += row * n;
    if constexpr (MODE != NO_VALUES) vout += row * limit;
    const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int bits = hi - lo;
    const unsigned long long mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    for (unsigned i = tid; i < n; i += THREADS) {
        I it;
        it.make(((unsigned long long)rkey(kin[i], x) >> lo) & mask, i);
        s[i] = it;
    }
    __syncthreads();
    const unsigned mine = blockIdx.x * 32 + lane;
    const I me = s[mine < n ? mine : n - 1];
    const unsigned b0 = (unsigned)((unsigned long long)n * warp / WARPS),
                   b1 = (unsigned)((unsigned long long)n * (warp + 1) / WARPS);
    unsigned c = 0;
#pragma unroll 8
    for (unsigned j = b0; j < b1; j++) c += s[j].below(me);
    s_part[warp][lane] = c;
    __syncthreads();
    if (warp == 0 && mine < n) {
        unsigned r = 0;
#pragma unroll
        for (int w = 0; w < WARPS; w++) r += s_part[w][lane];
        if (r < limit) {
            if (kout) kout[r] = kin[mine];
            if constexpr (MODE == VALUES) vout[r] = vin[mine];
            if constexpr (MODE == POSITIONS) vout[r] = (V)mine;
        }
    }
}

/* one launch of k_rank over rows (at most 65535) of n <= Max<sizeof(K)>::N keys; the most shared memory it takes
 * allowed once per device (a row of 6144 pairs and the counts pass the default 48 KiB) */
template <typename K, typename V, int MODE>
cudaError_t launch(const gp_ctx_t *ctx, cudaStream_t s, unsigned rows, const K *kin, K *kout, const V *vin, V *vout,
                   unsigned n, unsigned limit, const RKey<K> &x, int lo, int hi)
{
    static unsigned long long done; /* bit: device ordinal (mod 64) */
    const unsigned long long bit = 1ull << (ctx->device & 63);
    const size_t smem = (size_t)n * sizeof(Item<sizeof(K)>);
    if (!(__atomic_load_n(&done, __ATOMIC_RELAXED) & bit)) {
        const cudaError_t e = cudaFuncSetAttribute((const void *)k_rank<K, V, MODE>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   (int)(Max<sizeof(K)>::N * sizeof(Item<sizeof(K)>)));
        if (e != cudaSuccess) return e;
        __atomic_fetch_or(&done, bit, __ATOMIC_RELAXED);
    }
    k_rank<K, V, MODE><<<dim3((n + 31) / 32, rows), THREADS, smem, s>>>(kin, kout, vin, vout, n, limit, x, lo, hi);
    return cudaGetLastError();
}

} // namespace gp_rank
} // namespace

#endif
