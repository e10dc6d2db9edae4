/*
 * sort.cu — the GPU radix sort in NumPy's order (sort_internal.h; docs/design/sort.md says why each step is so).
 * LSD over 8-bit digits of the radix key (gp__sort_key, computed from the key's bits each time; the keys move), as
 * Onesweep: one launch counts every digit of every pass (k_hist), then one launch per digit (k_onesweep) —
 *   1. a tile of 4096 elements in element order (warp w: its 32 x ITEMS elements, 32 at a time), each element's rank
 *      among the tile's elements of its digit from warp matches (__match_any_sync) and per-warp digit counters;
 *   2. the tile's digit counts published at once (256 look-back descriptors per tile, {status, count} words), then
 *      thread d walks back over the tiles before for digit d until an inclusive count: where the tile's elements of
 *      digit d go, with the digit's start from the counts of step 0;
 *   3. the tile staged in shared memory in digit order, then stored from there: runs of a digit go out together.
 * Counts inside a look-back are 30-bit: inputs past PORTION elements run as portions, each its own chain of tiles
 * (k_hist counts per portion; a portion's digit starts include the portions before it).
 */
#include "sort_internal.h"

#include <stdint.h>

namespace {

constexpr int THREADS = 256, WARPS = THREADS / 32, RADIX = 256;
constexpr unsigned ST_AGG = 1u << 30, ST_INCL = 2u << 30, CNT_MASK = (1u << 30) - 1;
constexpr size_t PORTION = (size_t)1 << 29; /* elements: a multiple of every tile, its counts below 2^30 */
constexpr int HIST_BLOCKS_PER_SM = 4, MAX_PASSES = 8;

template <int KS> struct Shape { /* elements per thread, by key bytes */
    static constexpr int ITEMS = 16;
};
template <> struct Shape<8> {
    static constexpr int ITEMS = 16;
};

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

template <typename K> __device__ __forceinline__ uint64_t radix_of(K k, gp_dtype_t dt, int desc)
{
    return gp__sort_key(dt, (uint64_t)k, desc);
}

/* exclusive prefix over the block's 256 threads (one value each) and the total; s_w: 8 words of shared memory */
template <typename T> __device__ __forceinline__ T block_excl(T v, T *s_w, T *total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) s_w[warp] = x;
    __syncthreads();
    T before = 0, all = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        const T c = s_w[w];
        before += w < warp ? c : (T)0;
        all += c;
    }
    __syncthreads();
    *total = all;
    return before + x - v;
}

/* 0. every pass's digit counts of each portion: hist[(q * P + j) * 256 + d]; blockIdx.y = the portion */
template <typename K>
__global__ void __launch_bounds__(THREADS)
    k_hist(const K *keys, size_t n, gp_dtype_t dt, int desc, int lo, int hi, int P, unsigned *hist)
{
    __shared__ unsigned s_h[MAX_PASSES][RADIX];
    for (int i = threadIdx.x; i < MAX_PASSES * RADIX; i += THREADS) (&s_h[0][0])[i] = 0;
    __syncthreads();
    const size_t q = blockIdx.y, b = q * PORTION, e_end = b + PORTION < n ? b + PORTION : n;
    const size_t stride = (size_t)gridDim.x * THREADS;
    for (size_t e = b + (size_t)blockIdx.x * THREADS + threadIdx.x; e < e_end; e += stride) {
        const uint64_t r = radix_of(keys[e], dt, desc) >> lo;
        for (int j = 0; j < P; j++) {
            const int bits = hi - lo - 8 * j < 8 ? hi - lo - 8 * j : 8;
            atomicAdd(&s_h[j][(unsigned)(r >> (8 * j)) & ((1u << bits) - 1)], 1u);
        }
    }
    __syncthreads();
    for (int j = 0; j < P; j++) {
        const unsigned c = s_h[j][threadIdx.x];
        if (c) atomicAdd(&hist[(q * P + j) * RADIX + threadIdx.x], c);
    }
}

__device__ __forceinline__ unsigned ld_relaxed(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_relaxed(unsigned *p, unsigned v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* 1-3. pass j over portion q (its elements [b, b + pn)): from kin to kout, values from vin (IDX: the elements'
 * positions, an argsort's first pass) to vout. look: the portion's descriptors, zero, and a ticket word before them. */
template <typename K, int VS, bool IDX>
__global__ void __launch_bounds__(THREADS)
    k_onesweep(const K *kin, K *kout, const void *vin, void *vout, size_t b, size_t pn, gp_dtype_t dt, int desc,
               int shift, unsigned mask, const unsigned *hist, int Q, int q, int P, int j, unsigned *look)
{
    typedef typename ValT<VS>::T V;
    constexpr int ITEMS = Shape<sizeof(K)>::ITEMS, TILE = THREADS * ITEMS;
    extern __shared__ __align__(16) unsigned char s_stage[]; /* TILE keys, then TILE values */
    __shared__ unsigned s_wc[WARPS][RADIX];                  /* per warp: digit counts, then where its run begins */
    __shared__ unsigned long long s_delta[RADIX];            /* output position of staged slot i: s_delta[d] + i */
    __shared__ unsigned s_loc[RADIX];
    __shared__ unsigned char s_dig[VS ? TILE : 1];
    __shared__ unsigned long long s_w64[WARPS];
    __shared__ unsigned s_w32[WARPS];
    __shared__ unsigned s_ticket;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, d = threadIdx.x;
    if (threadIdx.x == 0) s_ticket = atomicAdd(look, 1u);
    for (int i = lane; i < RADIX; i += 32) s_wc[warp][i] = 0;
    __syncthreads();
    const unsigned t = s_ticket;
    unsigned *dsc = look + 1 + (size_t)t * RADIX;
    const size_t t0 = (size_t)t * TILE, seg = t0 + (size_t)warp * 32 * ITEMS;
    const size_t cnt_all = pn - t0 < (size_t)TILE ? pn - t0 : (size_t)TILE;
    const unsigned cnt = (unsigned)cnt_all;

    K key[ITEMS];
    unsigned slot[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const size_t e = seg + (size_t)k * 32 + lane;
        key[k] = e < pn ? kin[b + e] : (K)0;
    }
    /* 1. ranks within the warp, in element order */
    const unsigned lt = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const bool ok = seg + (size_t)k * 32 + lane < pn;
        const unsigned dg = ok ? (unsigned)(radix_of(key[k], dt, desc) >> shift) & mask : (unsigned)RADIX;
        const unsigned peers = __match_any_sync(0xffffffffu, dg);
        slot[k] = ok ? s_wc[warp][dg] + __popc(peers & lt) : 0u;
        __syncwarp();
        if (ok && (peers & lt) == 0) s_wc[warp][dg] += __popc(peers);
        __syncwarp();
    }
    __syncthreads();
    /* 2. the tile's count of digit d, the warps' starts within it, published; the digit's start in the tile */
    unsigned c = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        const unsigned x = s_wc[w][d];
        s_wc[w][d] = c;
        c += x;
    }
    st_relaxed(dsc + d, (t == 0 ? ST_INCL : ST_AGG) | c);
    /* the digit's start in the output: the digits before it in the whole input, then the portions before */
    unsigned long long tot = 0, before = 0;
    for (int p = 0; p < Q; p++) {
        const unsigned long long h = hist[((size_t)p * P + j) * RADIX + d];
        tot += h;
        before += p < q ? h : 0ull;
    }
    unsigned long long all64;
    const unsigned long long dstart = block_excl<unsigned long long>(tot, s_w64, &all64) + before;
    unsigned all32;
    const unsigned loc = block_excl<unsigned>(c, s_w32, &all32);
    s_loc[d] = loc;
    /* the tiles before, for digit d */
    unsigned long long prior = 0;
    if (t > 0) {
        const unsigned *p = dsc - RADIX + d;
        for (;;) {
            unsigned w;
            while (((w = ld_relaxed(p)) & ~CNT_MASK) == 0) {
            }
            prior += w & CNT_MASK;
            if ((w & ~CNT_MASK) == ST_INCL) break;
            p -= RADIX;
        }
        st_relaxed(dsc + d, ST_INCL | (unsigned)(prior + c));
    }
    s_delta[d] = dstart + prior - loc;
    __syncthreads();
    /* 3. staged in digit order, then stored */
    K *s_k = reinterpret_cast<K *>(s_stage);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const bool ok = seg + (size_t)k * 32 + lane < pn;
        if (ok) {
            const unsigned dg = (unsigned)(radix_of(key[k], dt, desc) >> shift) & mask;
            slot[k] += s_loc[dg] + s_wc[warp][dg];
            s_k[slot[k]] = key[k];
        }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < cnt; i += THREADS) {
        const K x = s_k[i];
        const unsigned dg = (unsigned)(radix_of(x, dt, desc) >> shift) & mask;
        kout[s_delta[dg] + i] = x;
        if constexpr (VS > 0) s_dig[i] = (unsigned char)dg;
    }
    if constexpr (VS > 0) {
        V *s_v = reinterpret_cast<V *>(s_stage + (size_t)TILE * sizeof(K));
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const size_t e = seg + (size_t)k * 32 + lane;
            if (e < pn) {
                V v;
                if constexpr (IDX) v = (V)(b + e);
                else v = static_cast<const V *>(vin)[b + e];
                s_v[slot[k]] = v;
            }
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < cnt; i += THREADS) static_cast<V *>(vout)[s_delta[s_dig[i]] + i] = s_v[i];
    }
}

inline size_t align256(size_t x) { return (x + 255) / 256 * 256; }

/* the kernel's dynamic shared memory allowed once per device (a per-function attribute; setting it again is harmless,
 * so racing threads may both set it) */
template <typename K, int VS, bool IDX> gp_status_t smem_ready(const gp_ctx_t *ctx, size_t smem)
{
    static unsigned long long done; /* bit: device ordinal (mod 64) */
    const unsigned long long bit = 1ull << (ctx->device & 63);
    if (!(__atomic_load_n(&done, __ATOMIC_RELAXED) & bit)) {
        const cudaError_t e =
            cudaFuncSetAttribute((const void *)k_onesweep<K, VS, IDX>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort (shared memory)", __FILE__, __LINE__);
        __atomic_fetch_or(&done, bit, __ATOMIC_RELAXED);
    }
    return GP_OK;
}

template <typename K, int VS>
gp_status_t passes(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *keys_in, void *keys_out, const void *vals_in,
                   void *vals_out, bool argsort, int desc, int lo, int hi, cudaStream_t s)
{
    constexpr int TILE = THREADS * Shape<sizeof(K)>::ITEMS;
    const size_t Q = (n + PORTION - 1) / PORTION, ptiles_max = ((n < PORTION ? n : PORTION) + TILE - 1) / TILE;
    const size_t kb = n * sizeof(K), vb = n * VS;
    const int P = (hi - lo + 7) / 8;
    /* the workspace: the counts, the descriptors (a ticket word first), a copy of the keys (two for an argsort,
     * which has no keys_out), a copy of the values */
    const size_t hb = align256(Q * P * RADIX * 4), lb = align256((1 + ptiles_max * RADIX) * 4);
    const size_t total = hb + lb + align256(kb) * (argsort ? 2 : 1) + align256(vb);
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, total, &ws));
    char *w = (char *)ws;
    unsigned *hist = (unsigned *)w, *look = (unsigned *)(w + hb);
    K *tmpk = (K *)(w + hb + lb), *outk = argsort ? (K *)(w + hb + lb + align256(kb)) : (K *)keys_out;
    void *tmpv = VS ? (void *)(w + hb + lb + align256(kb) * (argsort ? 2 : 1)) : NULL;
    const K *sk = (const K *)keys_in;
    const void *sv = argsort ? NULL : vals_in;
    cudaError_t e;
    if ((e = cudaMemsetAsync(hist, 0, hb, s)) != cudaSuccess)
        return gp__cuda_error(e, "gp_sort (counts)", __FILE__, __LINE__);
    {
        const unsigned bx = (unsigned)((size_t)ctx->sm_count * HIST_BLOCKS_PER_SM);
        const size_t need = (ptiles_max * TILE + THREADS - 1) / THREADS;
        k_hist<K><<<dim3(need < bx ? (unsigned)need : bx, (unsigned)Q), THREADS, 0, s>>>(sk, n, dt, desc, lo, hi, P,
                                                                                         hist);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (digit counts)"));
    }
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
    const size_t smem = (size_t)TILE * sizeof(K) + (size_t)TILE * VS;
    for (int j = 0; j < P; j++) {
        const bool to_out = (P - 1 - j) % 2 == 0;
        K *dk = to_out ? outk : tmpk;
        void *dv = to_out ? vals_out : tmpv;
        const int shift = lo + 8 * j, bits = hi - shift < 8 ? hi - shift : 8;
        const unsigned mask = (1u << bits) - 1;
        for (size_t q = 0; q < Q; q++) {
            const size_t b = q * PORTION, pn = n - b < PORTION ? n - b : PORTION, pt = (pn + TILE - 1) / TILE;
            if ((e = cudaMemsetAsync(look, 0, (1 + pt * RADIX) * 4, s)) != cudaSuccess)
                return gp__cuda_error(e, "gp_sort (look-back)", __FILE__, __LINE__);
            bool idx = false;
            if constexpr (VS == 4 || VS == 8) idx = argsort && j == 0;
            if (idx) {
                if constexpr (VS == 4 || VS == 8) {
                    GP_TRY_RET((smem_ready<K, VS, true>(ctx, smem)));
                    k_onesweep<K, VS, true><<<(unsigned)pt, THREADS, smem, s>>>(
                        sk, dk, sv, dv, b, pn, dt, desc, shift, mask, hist, (int)Q, (int)q, P, j, look);
                }
            } else {
                GP_TRY_RET((smem_ready<K, VS, false>(ctx, smem)));
                k_onesweep<K, VS, false><<<(unsigned)pt, THREADS, smem, s>>>(sk, dk, sv, dv, b, pn, dt, desc, shift,
                                                                             mask, hist, (int)Q, (int)q, P, j, look);
            }
            GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (pass)"));
        }
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
    const bool arg = vals_in == NULL && vsize != 0;
    if (arg && keys_out != NULL) return gp__error(GP_ERR_INTERNAL, "gp_sort: an argsort with keys_out");
    switch (gp_dtype_size(kt)) {
    case 1: return by_values<uint8_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    case 2: return by_values<uint16_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    case 4: return by_values<uint32_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    default: return by_values<unsigned long long>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    }
}
