/*
 * sort.cu — the GPU radix sort in NumPy's order (sort_internal.h, docs/design/sort.md): LSD over 8-bit digits of the
 * radix key, each digit three steps —
 *   1. k_hist: every tile's digit counts (tiles of 4096 elements), stored digit-major: counts[d * ntiles + t];
 *   2. their exclusive scan in that order (gp_scan's kernel): where tile t's elements of digit d begin;
 *   3. k_scatter: each element's rank among the tile's elements of its digit, in the tile's element order — a warp
 *      takes its 32 x 16 elements 32 at a time in memory order, __match_any_sync finds the lanes with the same digit,
 *      a per-warp counter per digit carries the ranks from one round to the next; the warps' counts are then scanned
 *      per digit — and the element (with its value) is stored at base + rank: stable.
 * The radix key is computed from the key's bits every pass (gp__sort_key); the keys themselves move.
 */
#include "sort_internal.h"
#include "../scan/scan_internal.h"

#include <stdint.h>

namespace {

constexpr int THREADS = 256, WARPS = THREADS / 32, ITEMS = 16, TILE = THREADS * ITEMS, RADIX = 256;

struct V16 {
    unsigned long long a, b;
};
template <int VS> struct ValT;
template <> struct ValT<0> { typedef unsigned char T; };
template <> struct ValT<1> { typedef uint8_t T; };
template <> struct ValT<2> { typedef uint16_t T; };
template <> struct ValT<4> { typedef uint32_t T; };
template <> struct ValT<8> { typedef unsigned long long T; };
template <> struct ValT<16> { typedef V16 T; };

template <typename K>
__device__ __forceinline__ unsigned digit_of(K k, gp_dtype_t dt, int desc, int shift, unsigned mask)
{
    return (unsigned)((gp__sort_key(dt, (uint64_t)k, desc) >> shift) & mask);
}

/* 1. tile t's count of each digit value into counts[d * ntiles + t] */
template <typename K>
__global__ void __launch_bounds__(THREADS)
    k_hist(const K *keys, size_t n, gp_dtype_t dt, int desc, int shift, unsigned mask, unsigned *counts, size_t ntiles)
{
    __shared__ unsigned s_h[RADIX];
    for (int d = threadIdx.x; d < RADIX; d += THREADS) s_h[d] = 0;
    __syncthreads();
    const size_t t = blockIdx.x, t0 = t * TILE;
#pragma unroll 4
    for (int i = threadIdx.x; i < TILE; i += THREADS) {
        const size_t e = t0 + i;
        if (e < n) atomicAdd(&s_h[digit_of(keys[e], dt, desc, shift, mask)], 1u);
    }
    __syncthreads();
    for (int d = threadIdx.x; d < RADIX; d += THREADS) counts[(size_t)d * ntiles + t] = s_h[d];
}

/* 3. the stable scatter of tile t: offs = the scanned counts; IDX: the values are the elements' positions (an
 * argsort's first pass), VS their bytes */
template <typename K, int VS, bool IDX>
__global__ void __launch_bounds__(THREADS)
    k_scatter(const K *kin, K *kout, const void *vin, void *vout, size_t n, gp_dtype_t dt, int desc, int shift,
              unsigned mask, const unsigned *offs, size_t ntiles)
{
    typedef typename ValT<VS>::T V;
    __shared__ unsigned s_wc[WARPS][RADIX];
    __shared__ unsigned s_base[RADIX];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = lane; d < RADIX; d += 32) s_wc[warp][d] = 0;
    __syncwarp();
    const size_t t = blockIdx.x, seg = t * TILE + (size_t)warp * 32 * ITEMS;
    K key[ITEMS];
    unsigned dig[ITEMS], rank[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const size_t e = seg + (size_t)k * 32 + lane;
        key[k] = e < n ? kin[e] : (K)0;
    }
    const unsigned lt = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const size_t e = seg + (size_t)k * 32 + lane;
        const bool ok = e < n;
        const unsigned d = ok ? digit_of(key[k], dt, desc, shift, mask) : (unsigned)RADIX; /* RADIX: no element */
        const unsigned peers = __match_any_sync(0xffffffffu, d);
        dig[k] = d;
        rank[k] = ok ? s_wc[warp][d] + __popc(peers & lt) : 0u;
        __syncwarp();
        if (ok && (peers & lt) == 0) s_wc[warp][d] += __popc(peers);
        __syncwarp();
    }
    __syncthreads();
    for (int d = threadIdx.x; d < RADIX; d += THREADS) { /* the warps before, and the tiles and digits before */
        unsigned run = 0;
#pragma unroll
        for (int w = 0; w < WARPS; w++) {
            const unsigned c = s_wc[w][d];
            s_wc[w][d] = run;
            run += c;
        }
        s_base[d] = offs[(size_t)d * ntiles + t];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const size_t e = seg + (size_t)k * 32 + lane;
        if (e < n) {
            const unsigned d = dig[k];
            const size_t pos = (size_t)s_base[d] + s_wc[warp][d] + rank[k];
            kout[pos] = key[k];
            if constexpr (VS > 0) {
                V v;
                if constexpr (IDX) v = (V)e;
                else v = static_cast<const V *>(vin)[e];
                static_cast<V *>(vout)[pos] = v;
            }
        }
    }
}

inline size_t align256(size_t b) { return (b + 255) / 256 * 256; }

template <typename K, int VS>
gp_status_t passes(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *keys_in, void *keys_out, const void *vals_in,
                   void *vals_out, bool argsort, int desc, int lo, int hi, cudaStream_t s)
{
    const size_t ntiles = (n + TILE - 1) / TILE, nc = (size_t)RADIX * ntiles, kb = n * sizeof(K), vb = n * VS;
    const int P = (hi - lo + 7) / 8;
    /* the workspace: the scan's own front (gp__scan_gpu asks for no more, so it gets the same block), the counts,
     * a copy of the keys (two for an argsort, which has no keys_out), a copy of the values */
    const size_t front = align256(gp__scan_gpu_workspace_bytes(GP_U32, nc)), cb = align256(nc * 4);
    const size_t total = front + cb + align256(kb) * (argsort ? 2 : 1) + align256(vb);
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, total, &ws));
    char *w = (char *)ws;
    unsigned *counts = (unsigned *)(w + front);
    K *tmpk = (K *)(w + front + cb), *outk = argsort ? (K *)(w + front + cb + align256(kb)) : (K *)keys_out;
    void *tmpv = VS ? (void *)(w + front + cb + align256(kb) * (argsort ? 2 : 1)) : NULL;
    const K *sk = (const K *)keys_in;
    const void *sv = argsort ? NULL : vals_in;
    cudaError_t e;
    /* pass j writes the output where (P - 1 - j) is even, so the last lands there; an input that is also the output
     * is first copied aside when the first pass would write over it */
    if ((!argsort && ((const void *)outk == keys_in || (VS && vals_out == vals_in))) && (P - 1) % 2 == 0) {
        if ((e = cudaMemcpyAsync(tmpk, keys_in, kb, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
            return gp__cuda_error(e, "gp_sort: the keys set aside", __FILE__, __LINE__);
        sk = tmpk;
        if (VS) {
            if ((e = cudaMemcpyAsync(tmpv, vals_in, vb, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
                return gp__cuda_error(e, "gp_sort: the values set aside", __FILE__, __LINE__);
            sv = tmpv;
        }
    }
    for (int j = 0; j < P; j++) {
        const bool to_out = (P - 1 - j) % 2 == 0;
        K *dk = to_out ? outk : tmpk;
        void *dv = to_out ? vals_out : tmpv;
        const int shift = lo + 8 * j, bits = hi - shift < 8 ? hi - shift : 8;
        const unsigned mask = (1u << bits) - 1;
        k_hist<K><<<(unsigned)ntiles, THREADS, 0, s>>>(sk, n, dt, desc, shift, mask, counts, ntiles);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (digit counts)"));
        GP_TRY_RET(gp__scan_gpu(ctx, GP_REDUCE_SUM, GP_U32, nc, counts, counts, 1, NULL, NULL, s));
        if constexpr (VS == 4 || VS == 8) { /* an argsort's positions are u32 or u64 */
            if (argsort && j == 0)
                k_scatter<K, VS, true><<<(unsigned)ntiles, THREADS, 0, s>>>(sk, dk, sv, dv, n, dt, desc, shift,
                                                                              mask, counts, ntiles);
            else
                k_scatter<K, VS, false><<<(unsigned)ntiles, THREADS, 0, s>>>(sk, dk, sv, dv, n, dt, desc, shift,
                                                                               mask, counts, ntiles);
        } else
            k_scatter<K, VS, false><<<(unsigned)ntiles, THREADS, 0, s>>>(sk, dk, sv, dv, n, dt, desc, shift, mask,
                                                                           counts, ntiles);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (scatter)"));
        sk = dk;
        sv = dv;
    }
    return GP_OK;
}

template <typename K>
gp_status_t by_values(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *keys_in, void *keys_out, size_t vsize,
                      const void *vals_in, void *vals_out, int desc, int lo, int hi, cudaStream_t s)
{
    const bool arg = vals_in == NULL && vsize != 0;
    switch (vsize) {
    case 0: return passes<K, 0>(ctx, dt, n, keys_in, keys_out, NULL, NULL, false, desc, lo, hi, s);
    case 1: return passes<K, 1>(ctx, dt, n, keys_in, keys_out, vals_in, vals_out, false, desc, lo, hi, s);
    case 2: return passes<K, 2>(ctx, dt, n, keys_in, keys_out, vals_in, vals_out, false, desc, lo, hi, s);
    case 4: return passes<K, 4>(ctx, dt, n, keys_in, keys_out, vals_in, vals_out, arg, desc, lo, hi, s);
    case 8: return passes<K, 8>(ctx, dt, n, keys_in, keys_out, vals_in, vals_out, arg, desc, lo, hi, s);
    case 16: return passes<K, 16>(ctx, dt, n, keys_in, keys_out, vals_in, vals_out, false, desc, lo, hi, s);
    default: return gp__error(GP_ERR_INVALID_ARG, "gp_sort: value_bytes %zu", vsize);
    }
}

} // namespace

extern "C" gp_status_t gp__sort_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out,
                                    size_t vsize, const void *vals_in, void *vals_out, int descending, int lo_bit,
                                    int hi_bit, cudaStream_t stream)
{
    /* the counts and their offsets are 32-bit, and the tiles a grid */
    if (n > UINT32_MAX)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_sort: %zu keys on a GPU (at most 2^32 - 1 here; the CPU backend "
                                             "takes more)", n);
    const bool arg = vals_in == NULL && vsize != 0;
    if (arg && keys_out != NULL) return gp__error(GP_ERR_INTERNAL, "gp_sort: an argsort with keys_out");
    switch (gp_dtype_size(kt)) {
    case 1: return by_values<uint8_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    case 2: return by_values<uint16_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    case 4: return by_values<uint32_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    default: return by_values<unsigned long long>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    }
}
