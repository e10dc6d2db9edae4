/*
 * merge.cu — gp_merge on the GPU (merge.c has the checks and the CPU backend; docs/design/sort.md). Merge path: one
 * launch finds where every tile of 7168 outputs (3584 for 8-byte keys) starts in a and b (a binary search along the
 * tile's diagonal), then a block per tile loads its two runs into shared memory, each thread finds its own 28 (14)
 * outputs' split the same way and merges them in registers, the same shared buffer stages them, and the block stores
 * the tile (and gathers the values) in order.
 */
#include "radix_key.cuh"

namespace {

/* the merge's tuning (-D overrides for experiments; docs/design/sort.md, "Merging sorted inputs"): outputs a thread
 * merges (keys of up to 4 bytes with values, and alone; 8-byte keys half as many), the blocks per SM the launch
 * bounds ask for (0: none asked; the vector-store kernel of 4-byte keys its own) */
#ifndef GP_MERGE_ITEMS
#define GP_MERGE_ITEMS 28
#endif
#ifndef GP_MERGE_ITEMS_KEYS
#define GP_MERGE_ITEMS_KEYS 32
#endif
#ifndef GP_MERGE_MINB
#define GP_MERGE_MINB 0
#endif
#ifndef GP_MERGE_VEC_MINB
#define GP_MERGE_VEC_MINB 5
#endif
/* 1: a keys-only tile is stored as 16-byte vectors where the output is 16-byte aligned (4 lanes' shared loads, one
 * global store) */
#ifndef GP_MERGE_VEC
#define GP_MERGE_VEC 1
#endif
constexpr int MT = 256;

/* a thread merges MI outputs (keys of up to 4 bytes: GP_MERGE_ITEMS_KEYS alone, GP_MERGE_ITEMS with values; half
 * of those for wider ones): a tile of MT * MI */
template <typename K, int VS> __host__ __device__ constexpr int items()
{
    return (VS ? GP_MERGE_ITEMS : GP_MERGE_ITEMS_KEYS) / (sizeof(K) <= 4 ? 1 : 2);
}
template <typename K, int VS> __host__ __device__ constexpr int tile() { return MT * items<K, VS>(); }
/* shared-memory place of tile element e: one element of padding per 128 bytes, so the warp's runs (a stride of MI
 * elements across it) fall in distinct banks at 16 outputs a thread, at most two to a bank at 28 (4-byte keys) */
template <typename K> __host__ __device__ constexpr unsigned lg_line() { return sizeof(K) == 1 ? 7 : sizeof(K) == 2 ? 6 : sizeof(K) == 4 ? 5 : 4; }
template <typename K> __device__ __forceinline__ unsigned pd(unsigned e) { return e + (e >> lg_line<K>()); }
template <typename K, int VS> __host__ __device__ constexpr int padded()
{
    return tile<K, VS>() + (tile<K, VS>() >> lg_line<K>());
}
/* the block's dynamic shared memory: the padded tile of keys, then (values) each output's 16-bit source */
template <typename K, int VS> __host__ __device__ constexpr size_t src_at()
{
    return ((size_t)padded<K, VS>() * sizeof(K) + 15) & ~(size_t)15;
}
template <typename K, int VS> __host__ __device__ constexpr size_t smem_bytes()
{
    return VS ? src_at<K, VS>() + (size_t)padded<K, VS>() * 2 : (size_t)padded<K, VS>() * sizeof(K);
}

template <int VS> struct Val;
template <> struct Val<1> { typedef uint8_t T; };
template <> struct Val<2> { typedef uint16_t T; };
template <> struct Val<4> { typedef uint32_t T; };
template <> struct Val<8> { typedef unsigned long long T; };
struct V16 {
    unsigned long long lo, hi;
};
template <> struct Val<16> { typedef V16 T; };
template <> struct Val<0> { typedef uint8_t T; };

/* how many of the first d merged elements come from a (ties: a first); ka(i) / kb(j): the radix keys */
template <typename KA, typename KB>
__device__ __forceinline__ size_t split_at(size_t na, size_t nb, size_t d, KA ka, KB kb)
{
    size_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const size_t mid = lo + ((hi - lo) >> 1);
        if (ka(mid) <= kb(d - mid - 1)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

template <typename K, int VS>
__global__ void k_splits(const K *a, size_t na, const K *b, size_t nb, RKey<K> x, size_t tiles, size_t *sp)
{
    const size_t t = (size_t)blockIdx.x * MT + threadIdx.x;
    if (t > tiles) return;
    const size_t n = na + nb, d = t * tile<K, VS>() < n ? t * tile<K, VS>() : n;
    sp[t] = split_at(na, nb, d, [&](size_t i) { return rkey(a[i], x); }, [&](size_t j) { return rkey(b[j], x); });
}

template <typename K, int VS, int VEC>
__global__ void __launch_bounds__(MT, VEC && sizeof(K) == 4 ? GP_MERGE_VEC_MINB : GP_MERGE_MINB)
    k_merge(const K *a, size_t na, const K *b, size_t nb, const size_t *sp, RKey<K> x, K *out, const void *va,
            const void *vb, void *vout)
{
    typedef typename Val<VS>::T V;
    constexpr int MI = items<K, VS>(), TILE = tile<K, VS>();
    static_assert(TILE <= 65536, "an output's source in the tile is 16 bits");
    extern __shared__ __align__(16) unsigned char m_smem[]; /* the tile's keys, then (VS) their sources */
    K *const sk = reinterpret_cast<K *>(m_smem);
    unsigned short *const ssrc = reinterpret_cast<unsigned short *>(m_smem + src_at<K, VS>());
    const size_t t = blockIdx.x, n = na + nb, d0 = t * TILE, d1 = d0 + TILE < n ? d0 + TILE : n;
    const size_t i0 = sp[t], i1 = sp[t + 1], j0 = d0 - i0;
    const int ca = (int)(i1 - i0), c = (int)(d1 - d0), cb = c - ca;
    { /* every thread's loads issued before its stores: MI in flight each */
        K r[MI];
#pragma unroll
        for (int u = 0; u < MI; u++) {
            const int e = u * MT + threadIdx.x;
            if (e < c) r[u] = e < ca ? a[i0 + e] : b[j0 + (e - ca)];
        }
#pragma unroll
        for (int u = 0; u < MI; u++)
            if (u * MT + (int)threadIdx.x < c) sk[pd<K>(u * MT + threadIdx.x)] = r[u];
    }
    __syncthreads();
    /* the thread's MI outputs merged in registers: the two heads held as bits and radix keys, one shared load a step */
    const int td = threadIdx.x * MI;
    K ov[MI];
    unsigned short os[MI];
    if (td < c) {
        int i = (int)split_at((size_t)ca, (size_t)cb, (size_t)td, [&](size_t p) { return rkey(sk[pd<K>((unsigned)p)], x); },
                              [&](size_t q) { return rkey(sk[pd<K>((unsigned)(ca + q))], x); });
        int j = td - i;
        K ha = i < ca ? sk[pd<K>(i)] : (K)0, hb = j < cb ? sk[pd<K>(ca + j)] : (K)0;
        K ka = rkey(ha, x), kb = rkey(hb, x);
#pragma unroll
        for (int o = 0; o < MI; o++) {
            const bool fa = j >= cb || (i < ca && ka <= kb);
            ov[o] = fa ? ha : hb;
            os[o] = (unsigned short)(fa ? i : ca + j);
            if (fa) {
                if (++i < ca) ha = sk[pd<K>(i)], ka = rkey(ha, x);
            } else {
                if (++j < cb) hb = sk[pd<K>(ca + j)], kb = rkey(hb, x);
            }
        }
    }
    __syncthreads(); /* the tile's keys are read: the same buffer stages the outputs */
    if (td < c) {
#pragma unroll
        for (int o = 0; o < MI; o++)
            if (td + o < c) {
                sk[pd<K>(td + o)] = ov[o];
                if (VS) ssrc[pd<K>(td + o)] = os[o];
            }
    }
    __syncthreads();
    V v[VS ? MI : 1];
    if (VS) {
#pragma unroll
        for (int u = 0; u < MI; u++) {
            const int e = u * MT + threadIdx.x;
            if (e < c) {
                const int s = ssrc[pd<K>(e)];
                v[u] = s < ca ? ((const V *)va)[i0 + s] : ((const V *)vb)[j0 + (s - ca)];
            }
        }
    }
    if (VEC) { /* keys alone to a 16-byte aligned output: groups of G keys, each inside one padded line, one store */
        constexpr int G = 16 / sizeof(K), NG = (TILE / G + MT - 1) / MT;
#pragma unroll
        for (int u = 0; u < NG; u++) {
            const int e = (u * MT + threadIdx.x) * G;
            if (e + G <= c) {
                union {
                    K k[G];
                    uint4 v;
                } w;
                const unsigned p = pd<K>(e);
#pragma unroll
                for (int k = 0; k < G; k++) w.k[k] = sk[p + k];
                *reinterpret_cast<uint4 *>(out + d0 + e) = w.v;
            } else {
                for (int k = e; k < c; k++) out[d0 + k] = sk[pd<K>(k)];
            }
        }
    } else {
#pragma unroll
        for (int u = 0; u < MI; u++) {
            const int e = u * MT + threadIdx.x;
            if (e < c) {
                out[d0 + e] = sk[pd<K>(e)];
                if (VS) ((V *)vout)[d0 + e] = v[VS ? u : 0];
            }
        }
    }
}

template <typename K, int VS>
gp_status_t run(gp_ctx_t *ctx, gp_dtype_t dt, size_t na, const void *a, size_t nb, const void *b, void *out,
                const void *va, const void *vb, void *vout, int desc, cudaStream_t s)
{
    const RKey<K> x = rkey_of<K>(dt, desc);
    const size_t n = na + nb, tiles = (n + tile<K, VS>() - 1) / tile<K, VS>();
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, (tiles + 1) * sizeof(size_t), &ws));
    k_splits<K, VS><<<(unsigned)((tiles + 1 + MT - 1) / MT), MT, 0, s>>>((const K *)a, na, (const K *)b, nb, x, tiles,
                                                                     (size_t *)ws);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_merge (splits)"));
    const size_t smem = smem_bytes<K, VS>();
    constexpr int VEC = GP_MERGE_VEC && VS == 0; /* otherwise one kernel serves both */
    void (*const k)(const K *, size_t, const K *, size_t, const size_t *, RKey<K>, K *, const void *, const void *,
                    void *) = ((uintptr_t)out & 15) == 0 ? k_merge<K, VS, VEC> : k_merge<K, VS, 0>;
    if (smem > 48 * 1024) {
        const cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_merge: the tile's shared memory", __FILE__, __LINE__);
    }
    k<<<(unsigned)tiles, MT, smem, s>>>((const K *)a, na, (const K *)b, nb, (const size_t *)ws, x, (K *)out, va, vb,
                                        vout);
    return GP_CHECK_LAUNCH("gp_merge");
}

template <typename K>
gp_status_t by_values(gp_ctx_t *ctx, gp_dtype_t dt, size_t na, const void *a, size_t nb, const void *b, void *out,
                      size_t vs, const void *va, const void *vb, void *vout, int desc, cudaStream_t s)
{
    switch (vs) {
    case 0: return run<K, 0>(ctx, dt, na, a, nb, b, out, va, vb, vout, desc, s);
    case 1: return run<K, 1>(ctx, dt, na, a, nb, b, out, va, vb, vout, desc, s);
    case 2: return run<K, 2>(ctx, dt, na, a, nb, b, out, va, vb, vout, desc, s);
    case 4: return run<K, 4>(ctx, dt, na, a, nb, b, out, va, vb, vout, desc, s);
    case 8: return run<K, 8>(ctx, dt, na, a, nb, b, out, va, vb, vout, desc, s);
    default: return run<K, 16>(ctx, dt, na, a, nb, b, out, va, vb, vout, desc, s);
    }
}

} // namespace

extern "C" gp_status_t gp__merge_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t na, const void *a, size_t nb, const void *b,
                                     void *out, size_t vs, const void *va, const void *vb, void *vout, int desc,
                                     cudaStream_t s)
{
    switch (gp_dtype_size(dt)) {
    case 1: return by_values<uint8_t>(ctx, dt, na, a, nb, b, out, vs, va, vb, vout, desc, s);
    case 2: return by_values<uint16_t>(ctx, dt, na, a, nb, b, out, vs, va, vb, vout, desc, s);
    case 4: return by_values<uint32_t>(ctx, dt, na, a, nb, b, out, vs, va, vb, vout, desc, s);
    default: return by_values<unsigned long long>(ctx, dt, na, a, nb, b, out, vs, va, vb, vout, desc, s);
    }
}
