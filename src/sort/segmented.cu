/*
 * segmented.cu — gp_sort_segmented on the GPU (segmented.c has the checks and the CPU backend; docs/design/sort.md,
 * "Segmented sort", says why each way is so). Every way sorts in gp_sort's order and keeps each element's bits:
 * sorting networks over (radix key, position), or LSD radix sorts in 8-bit digits whose passes are stable rankings
 * (rank_pass: a warp's elements in element order by ballots, then the warps in order).
 *   1. k_census checks the offsets and counts the segments and their elements per length class (ceil log2); the
 *      host reads that summary back and gives each class a way (ways_of); k_lists lists each segment under it
 *      (a one-element segment is copied there and then);
 *   2. k_warp: up to 128 elements, a bitonic network in registers, several segments a warp;
 *   3. k_pack: 129 to 512 elements inside one 4096-element tile, every such segment of the tile at once, ordered
 *      by (segment, key);
 *   4. k_tile<WPS, ITEMS>: up to 4096 (2048) elements, a group of WPS warps in shared memory;
 *   5. k_long: up to 2^15, a block through global memory, a tile at a time per pass;
 *   6. k_sweep: up to 2^29, all of them together in passes over their tiles, a look-back chain per segment;
 *      past that, the device-wide sort (gp_sort), listed by a second read-back.
 */
#include "radix_key.cuh"
#include "../scan/lookback.cuh"

#include <stdint.h>
#include <type_traits>

namespace {

constexpr int RADIX = 256, BT = 256, BINS = 65;

/* the ways a segment is sorted, by its length class */
enum Way : unsigned char {
    W_NONE = 0, W_COPY, W_B8, W_B32, W_B64, W_B128, W_T256, W_T1K, W_T4K, W_LONG, W_SWEEP, W_DEVICE, W_COUNT
};

/* the packed tiles (k_pack): TILE_P consecutive elements of the input, sorting every segment that lies inside */
template <typename K> __host__ __device__ constexpr int pack_items() { return sizeof(K) == 8 ? 8 : 16; }
template <typename K> __host__ __device__ constexpr unsigned long long pack_tile() { return BT * pack_items<K>(); }
/* the segments a packed tile sorts: longer than a warp's sorting network takes (WARP_MAX), at most PACK_MAX, inside
 * one tile */
constexpr unsigned long long WARP_MAX = 128, PACK_MAX = 512;
__host__ __device__ inline bool packed(unsigned long long a, unsigned long long e, unsigned long long tile)
{
    return e - a > WARP_MAX && e - a <= PACK_MAX && a / tile == (e - 1) / tile;
}

struct Summary { /* what k_census finds, read back */
    unsigned long long segs[BINS], elems[BINS]; /* segments not packed, bin c: lengths in (2^(c-1), 2^c]; bin 0: 1 */
    unsigned long long packed;                  /* segments inside a packed tile */
    unsigned long long bad;                     /* the first offset out of range or below its predecessor */
    long long first, last;                      /* offsets[0] and offsets[nseg] */
};
struct WayOf {
    unsigned char w[BINS];
};

__device__ __forceinline__ int bin_of(unsigned long long len)
{
    return len <= 1 ? 0 : 64 - __clzll(len - 1);
}

__global__ void __launch_bounds__(BT)
    k_census(const long long *o, size_t nseg, size_t n, unsigned long long tile, Summary *sum)
{
    __shared__ unsigned long long s_segs[BINS + 1], s_elems[BINS]; /* s_segs[BINS]: the packed ones */
    for (int i = threadIdx.x; i <= BINS; i += BT) s_segs[i] = 0, s_elems[i < BINS ? i : 0] = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const size_t stride = (size_t)gridDim.x * BT;
    for (size_t i0 = (size_t)blockIdx.x * BT + (threadIdx.x & ~31u); i0 <= nseg; i0 += stride) {
        const size_t i = i0 + lane;
        int c = -1; /* the class counted: a bin, BINS (packed), or none */
        unsigned long long len = 0;
        if (i <= nseg) {
            const long long a = o[i];
            if (a < 0 || (unsigned long long)a > n || (i && a < o[i - 1])) atomicMin(&sum->bad, (unsigned long long)i);
            else {
                if (i == 0) sum->first = a;
                if (i == nseg) sum->last = a;
            }
            if (i < nseg && a >= 0) {
                const long long e = o[i + 1]; /* out of range: reported by thread i + 1 */
                if (e > a && (unsigned long long)e <= n) {
                    len = (unsigned long long)(e - a);
                    c = packed((unsigned long long)a, (unsigned long long)e, tile) ? BINS : bin_of(len);
                }
            }
        }
        /* lanes of a class together: one shared atomic per class a warp meets */
        const unsigned peers = __match_any_sync(0xffffffffu, c);
        if (c < 0) continue;
        const int leader = __ffs(peers) - 1;
        if (c <= 26) { /* up to 2^26 elements a segment: 32 of them sum in 32 bits */
            const unsigned tot = __reduce_add_sync(peers, (unsigned)len);
            if (lane == leader) atomicAdd(&s_segs[c], (unsigned long long)__popc(peers)), atomicAdd(&s_elems[c], (unsigned long long)tot);
        } else if (c == BINS) {
            if (lane == leader) atomicAdd(&s_segs[BINS], (unsigned long long)__popc(peers));
        } else
            atomicAdd(&s_segs[c], 1ull), atomicAdd(&s_elems[c], len);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += BT)
        if (s_segs[i]) atomicAdd(&sum->segs[i], s_segs[i]), atomicAdd(&sum->elems[i], s_elems[i]);
    if (threadIdx.x == 0 && s_segs[BINS]) atomicAdd(&sum->packed, s_segs[BINS]);
}

/* one element's bytes, by size */
__device__ __forceinline__ void copy_elem(const void *src, void *dst, size_t i, size_t es)
{
    switch (es) {
    case 1: static_cast<uint8_t *>(dst)[i] = static_cast<const uint8_t *>(src)[i]; break;
    case 2: static_cast<uint16_t *>(dst)[i] = static_cast<const uint16_t *>(src)[i]; break;
    case 4: static_cast<uint32_t *>(dst)[i] = static_cast<const uint32_t *>(src)[i]; break;
    case 8: static_cast<unsigned long long *>(dst)[i] = static_cast<const unsigned long long *>(src)[i]; break;
    default: static_cast<uint4 *>(dst)[i] = static_cast<const uint4 *>(src)[i]; break;
    }
}

/* list[base[w] + j] = the j-th segment of way w (in no fixed order: warps append); W_DEVICE segments as their
 * [begin, end) in dev; one-element segments copied where the output is not the input */
__global__ void __launch_bounds__(BT)
    k_lists(const long long *o, size_t nseg, unsigned long long tile, WayOf way, const unsigned long long *base,
            unsigned long long *cnt, unsigned long long *list, long long *dev, const void *kin, void *kout, size_t ks,
            const void *vin, void *vout, size_t vs)
{
    const int lane = threadIdx.x & 31;
    const size_t stride = (size_t)gridDim.x * BT;
    for (size_t i0 = (size_t)blockIdx.x * BT + (threadIdx.x & ~31u); i0 < nseg; i0 += stride) {
        const size_t i = i0 + lane;
        unsigned w = W_NONE;
        long long a = 0, e = 0;
        if (i < nseg) {
            a = o[i], e = o[i + 1];
            if (e > a && !packed((unsigned long long)a, (unsigned long long)e, tile))
                w = way.w[bin_of((unsigned long long)(e - a))];
        }
        if (w == W_COPY) {
            if (kout != kin) copy_elem(kin, kout, (size_t)a, ks);
            if (vs && vout != vin) copy_elem(vin, vout, (size_t)a, vs);
            w = W_NONE;
        }
        const unsigned peers = __match_any_sync(0xffffffffu, w);
        if (w != W_NONE) {
            const int leader = __ffs(peers) - 1;
            unsigned long long at = 0;
            if (lane == leader) at = atomicAdd(&cnt[w], (unsigned long long)__popc(peers));
            at = __shfl_sync(peers, at, leader) + __popc(peers & ((1u << lane) - 1u));
            if (w == W_DEVICE) dev[2 * at] = a, dev[2 * at + 1] = e;
            else list[base[w] + at] = i;
        }
    }
}

/* a group of WPS warps of the block: its own barrier */
template <int WPS> __device__ __forceinline__ void group_sync(int g)
{
    if constexpr (WPS == 1) __syncwarp();
    else if constexpr (WPS * 32 == BT) __syncthreads();
    else asm volatile("bar.sync %0, %1;" ::"r"(g + 1), "r"(WPS * 32) : "memory");
}

template <int WPS> struct RankSmem {
    unsigned wc[WPS][RADIX]; /* per warp: digit counts, then where its elements of each digit go */
    unsigned wsum[WPS];
};

/* The digits of a group's tile of 32 x WPS x ITEMS elements (item k of lane l of warp w is element
 * w * 32 * ITEMS + k * 32 + l; elements from m on are padding, digit 255, so they stay last): (key >> shift) & mask. */
template <typename K, int WPS, int ITEMS>
__device__ __forceinline__ void key_digits(const K (&key)[ITEMS], unsigned m, RKey<K> xf, int shift, unsigned mask,
                                           unsigned (&dg)[ITEMS])
{
    const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) % WPS;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned e = (unsigned)(w * 32 * ITEMS + k * 32 + lane);
        dg[k] = e < m ? (unsigned)(rkey<K>(key[k], xf) >> shift) & mask : RADIX - 1u;
    }
}

/* One stable pass over such a tile: slot[k] = where item k goes when the tile is ordered by its digit dg[k], ties in
 * element order. tstart (optional, RADIX words): where each digit's run begins in the tile; tcnt: its length. */
template <int WPS, int ITEMS>
__device__ __forceinline__ void rank_pass(int g, RankSmem<WPS> &s, const unsigned (&dg)[ITEMS],
                                          unsigned (&slot)[ITEMS], unsigned *tstart, unsigned *tcnt)
{
    constexpr int GT = 32 * WPS, DPT = RADIX / GT;
    const int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) % WPS, t = w * 32 + lane;
#pragma unroll
    for (int i = 0; i < RADIX / 32; i++) s.wc[w][i * 32 + lane] = 0;
    __syncwarp();
    const unsigned le = (2u << lane) - 1u;
    unsigned r[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned pe = match8(dg[k]), below = __popc(pe & le);
        const int last = 31 - __clz(pe);
        unsigned old = 0;
        if (lane == last) old = atomicAdd(&s.wc[w][dg[k]], below);
        r[k] = __shfl_sync(0xffffffffu, old, last) + below - 1u;
    }
    group_sync<WPS>(g);
    unsigned tot[DPT], sum = 0;
#pragma unroll
    for (int i = 0; i < DPT; i++) {
        const int d = t * DPT + i;
        unsigned run = 0;
#pragma unroll
        for (int v = 0; v < WPS; v++) {
            const unsigned x = s.wc[v][d];
            s.wc[v][d] = run;
            run += x;
        }
        tot[i] = run;
        sum += run;
    }
    unsigned x = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    unsigned pre = 0;
    if constexpr (WPS > 1) {
        if (lane == 31) s.wsum[w] = x;
        group_sync<WPS>(g);
#pragma unroll
        for (int v = 0; v < WPS; v++) pre += v < w ? s.wsum[v] : 0u;
    }
    unsigned ex = pre + x - sum;
#pragma unroll
    for (int i = 0; i < DPT; i++) {
        const int d = t * DPT + i;
#pragma unroll
        for (int v = 0; v < WPS; v++) s.wc[v][d] += ex;
        if (tstart) tstart[d] = ex, tcnt[d] = tot[i];
        ex += tot[i];
    }
    group_sync<WPS>(g);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) slot[k] = s.wc[w][dg[k]] + r[k];
}

/* values gathered through the sorted positions ix (the low 16 bits; the group's own elements, so all read before any
 * is written: values_out may be values) */
template <typename V, int WPS, int ITEMS, typename I>
__device__ __forceinline__ void gather_values(int g, const void *vin, void *vout, size_t b, unsigned m, const I *ix,
                                              const unsigned *skip = nullptr)
{
    constexpr int GT = 32 * WPS;
    const int t = threadIdx.x % GT;
    V v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned i = (unsigned)(k * GT + t);
        if (i < m) v[k] = static_cast<const V *>(vin)[b + ((unsigned)ix[i] & 0xffffu)];
    }
    group_sync<WPS>(g);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned i = (unsigned)(k * GT + t);
        if (i < m && !(skip && (skip[i / 32] >> (i % 32) & 1u))) static_cast<V *>(vout)[b + i] = v[k];
    }
}

/* 3. a group of WPS warps sorts the segment list[j] (j = this group's) of up to 32 x WPS x ITEMS elements */
template <typename K, int WPS, int ITEMS>
__global__ void __launch_bounds__(BT)
    k_tile(const unsigned long long *list, unsigned long long count, const long long *o, const K *kin, K *kout,
           const void *vin, void *vout, int vs, RKey<K> xf, int lo, int hi)
{
    constexpr int G = BT / (32 * WPS), GT = 32 * WPS, TILE = GT * ITEMS;
    static_assert(TILE <= 65536, "positions in 16 bits");
    struct Smem {
        RankSmem<WPS> r;
        K k[TILE];
        unsigned short ix[TILE];
    };
    __shared__ Smem sm[G];
    const int g = threadIdx.x / GT, lane = threadIdx.x & 31, w = (threadIdx.x >> 5) % WPS, t = threadIdx.x % GT;
    const unsigned long long j = (unsigned long long)blockIdx.x * G + g;
    if (j >= count) return; /* a whole group leaves: the groups' barriers are their own */
    Smem &s = sm[g];
    const unsigned long long id = list[j];
    const size_t b = (size_t)o[id];
    const unsigned m = (unsigned)((size_t)o[id + 1] - b);
    K key[ITEMS];
    unsigned short ix[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned e = (unsigned)(w * 32 * ITEMS + k * 32 + lane);
        key[k] = e < m ? kin[b + e] : (K)0;
        ix[k] = (unsigned short)e;
    }
    const int P = (hi - lo + 7) / 8;
    for (int p = 0; p < P; p++) {
        const int shift = lo + 8 * p, bits = hi - shift < 8 ? hi - shift : 8;
        unsigned slot[ITEMS], dg[ITEMS];
        key_digits<K, WPS, ITEMS>(key, m, xf, shift, (1u << bits) - 1u, dg);
        rank_pass<WPS, ITEMS>(g, s.r, dg, slot, nullptr, nullptr);
#pragma unroll
        for (int k = 0; k < ITEMS; k++) s.k[slot[k]] = key[k], s.ix[slot[k]] = ix[k];
        group_sync<WPS>(g);
        if (p + 1 < P) {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const int e = w * 32 * ITEMS + k * 32 + lane;
                key[k] = s.k[e], ix[k] = s.ix[e];
            }
        }
    }
    /* out: every key read before any store (the keys are in registers or the stage), so kout may be kin */
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned i = (unsigned)(k * GT + t);
        if (i < m) kout[b + i] = s.k[i];
    }
    switch (vs) {
    case 0: break;
    case 1: gather_values<uint8_t, WPS, ITEMS>(g, vin, vout, b, m, s.ix); break;
    case 2: gather_values<uint16_t, WPS, ITEMS>(g, vin, vout, b, m, s.ix); break;
    case 4: gather_values<uint32_t, WPS, ITEMS>(g, vin, vout, b, m, s.ix); break;
    case 8: gather_values<unsigned long long, WPS, ITEMS>(g, vin, vout, b, m, s.ix); break;
    default: gather_values<uint4, WPS, ITEMS>(g, vin, vout, b, m, s.ix); break;
    }
}

/* a key and its position in the segment, compared as a pair (the sort stays stable), for the sorting networks */
template <typename K> struct KeyPos { /* keys up to 4 bytes: one 64-bit word, the key above 16 bits of position */
    unsigned long long w;
    __device__ __forceinline__ static KeyPos make(unsigned long long k, unsigned i) { return KeyPos{k << 16 | i}; }
    __device__ __forceinline__ static KeyPos pad() { return KeyPos{~0ull}; }
    __device__ __forceinline__ unsigned pos() const { return (unsigned)w & 0xffffu; }
    __device__ __forceinline__ bool less(const KeyPos &o) const { return w < o.w; }
    __device__ __forceinline__ KeyPos xor_shfl(int m) const { return KeyPos{__shfl_xor_sync(0xffffffffu, w, m)}; }
};
template <> struct KeyPos<unsigned long long> {
    unsigned long long k;
    unsigned i;
    __device__ __forceinline__ static KeyPos make(unsigned long long k, unsigned i) { return KeyPos{k, i}; }
    __device__ __forceinline__ static KeyPos pad() { return KeyPos{~0ull, ~0u}; }
    __device__ __forceinline__ unsigned pos() const { return i; }
    __device__ __forceinline__ bool less(const KeyPos &o) const { return k < o.k || (k == o.k && i < o.i); }
    __device__ __forceinline__ KeyPos xor_shfl(int m) const
    {
        return KeyPos{__shfl_xor_sync(0xffffffffu, k, m), __shfl_xor_sync(0xffffffffu, i, m)};
    }
};

/* integer keys of up to 4 bytes, whole, without values: equal keys are equal bits, so the network orders the radix
 * keys alone (one 32-bit word), and the radix key gives the bits back */
struct RawKey {
    unsigned w;
    __device__ __forceinline__ static RawKey make(unsigned long long k, unsigned) { return RawKey{(unsigned)k}; }
    __device__ __forceinline__ static RawKey pad() { return RawKey{~0u}; }
    __device__ __forceinline__ bool less(const RawKey &o) const { return w < o.w; }
    __device__ __forceinline__ RawKey xor_shfl(int m) const { return RawKey{__shfl_xor_sync(0xffffffffu, w, m)}; }
};

/* k_warp's output with positions: place sl x E + it holds rank that; its key's bits from the lane that loaded them */
template <typename K, int LANES, int E>
__device__ __forceinline__ void warp_out(const KeyPos<K> (&c)[E], const K (&orig)[E], int sl, size_t b, unsigned m,
                                         K *kout, const void *vin, void *vout, int vs)
{
    constexpr int N = LANES * E;
    unsigned pos[E];
#pragma unroll
    for (int it = 0; it < E; it++) {
        pos[it] = c[it].pos();
        const unsigned src = pos[it] < (unsigned)N ? pos[it] : 0u, from = (threadIdx.x & 31) / LANES * LANES + src % LANES;
        K bits = (K)0;
#pragma unroll
        for (int t = 0; t < E; t++) {
            const K v = __shfl_sync(0xffffffffu, orig[t], (int)from);
            if (src / LANES == (unsigned)t) bits = v;
        }
        const unsigned r = (unsigned)(sl * E + it);
        if (r < m) kout[b + r] = bits;
    }
    if (vs == 0) return;
    __syncwarp();
#define GP_WARP_VALUES(V)                                                                                           \
    {                                                                                                              \
        V v[E];                                                                                                    \
        _Pragma("unroll") for (int it = 0; it < E; it++) if ((unsigned)(sl * E + it) < m) v[it] =                 \
            static_cast<const V *>(vin)[b + pos[it]];                                                              \
        __syncwarp();                                                                                              \
        _Pragma("unroll") for (int it = 0; it < E; it++) if ((unsigned)(sl * E + it) < m)                         \
            static_cast<V *>(vout)[b + sl * E + it] = v[it];                                                       \
    }
    switch (vs) {
    case 1: GP_WARP_VALUES(uint8_t) break;
    case 2: GP_WARP_VALUES(uint16_t) break;
    case 4: GP_WARP_VALUES(uint32_t) break;
    case 8: GP_WARP_VALUES(unsigned long long) break;
    default: GP_WARP_VALUES(uint4) break;
    }
#undef GP_WARP_VALUES
}

/* 3. LANES lanes sort a segment of up to LANES x E elements in registers: a bitonic network over (key bits [lo, hi),
 * position) — network place sl x E + item; within a lane below E, across lanes (shuffles) above. The keys' bits come
 * from the lanes that loaded them (shuffles), the values are read before any is written: in place works. RAW: the
 * radix keys alone (RawKey). */
template <typename K, int LANES, int E, bool RAW>
__global__ void __launch_bounds__(BT)
    k_warp(const unsigned long long *list, unsigned long long count, const long long *o, const K *kin, K *kout,
           const void *vin, void *vout, int vs, RKey<K> xf, int lo, int hi)
{
    typedef typename std::conditional<RAW, RawKey, KeyPos<K>>::type C;
    constexpr int N = LANES * E, SEGS = BT / LANES;
    const int sl = threadIdx.x % LANES;
    const unsigned long long j = (unsigned long long)blockIdx.x * SEGS + threadIdx.x / LANES;
    size_t b = 0;
    unsigned m = 0;
    if (j < count) { /* lanes past the list take part as padding: every shuffle has the whole warp */
        const unsigned long long id = list[j];
        b = (size_t)o[id];
        m = (unsigned)((size_t)o[id + 1] - b);
    }
    const unsigned long long mask = hi - lo >= 64 ? ~0ull : (1ull << (hi - lo)) - 1;
    K orig[E];
    C c[E];
#pragma unroll
    for (int it = 0; it < E; it++) { /* element it x LANES + sl: the loads coalesce */
        const unsigned e = (unsigned)(it * LANES + sl);
        orig[it] = e < m ? kin[b + e] : (K)0;
        c[it] = e < m ? C::make(((unsigned long long)rkey<K>(orig[it], xf) >> lo) & mask, e) : C::pad();
    }
#pragma unroll
    for (int k = 2; k <= N; k <<= 1)
#pragma unroll
        for (int h = k >> 1; h > 0; h >>= 1) {
            if (h < E) {
#pragma unroll
                for (int it = 0; it < E; it++)
                    if ((it & h) == 0) {
                        const int p = it | h, i = sl * E + it;
                        const bool asc = (i & k) == 0, sw = asc ? c[p].less(c[it]) : c[it].less(c[p]);
                        if (sw) {
                            const C t = c[it];
                            c[it] = c[p], c[p] = t;
                        }
                    }
            } else {
#pragma unroll
                for (int it = 0; it < E; it++) {
                    const int i = sl * E + it;
                    const C oth = c[it].xor_shfl(h / E);
                    const bool lower = (i & h) == 0, asc = (i & k) == 0, take_min = lower == asc;
                    if (take_min == oth.less(c[it])) c[it] = oth;
                }
            }
        }
    if constexpr (RAW) {
#pragma unroll
        for (int it = 0; it < E; it++) {
            const unsigned r = (unsigned)(sl * E + it);
            if (r < m) kout[b + r] = (K)(c[it].w ^ (unsigned)(K)(xf.xr ^ xf.flip));
        }
    } else
        warp_out<K, LANES, E>(c, orig, sl, b, m, kout, vin, vout, vs);
}

template <typename K, int LANES, int E>
gp_status_t launch_warp(const unsigned long long *list, unsigned long long count, const long long *o, const void *kin,
                        void *kout, const void *vin, void *vout, size_t vs, RKey<K> xf, int lo, int hi,
                        cudaStream_t s)
{
    constexpr int SEGS = BT / LANES;
    if (count == 0) return GP_OK;
    const unsigned blocks = (unsigned)((count + SEGS - 1) / SEGS);
    if (sizeof(K) <= 4 && vs == 0 && xf.inf == 0 && lo == 0 && hi == 8 * (int)sizeof(K))
        k_warp<K, LANES, E, true><<<blocks, BT, 0, s>>>(list, count, o, (const K *)kin, (K *)kout, vin, vout, 0, xf,
                                                         lo, hi);
    else
        k_warp<K, LANES, E, false><<<blocks, BT, 0, s>>>(list, count, o, (const K *)kin, (K *)kout, vin, vout,
                                                          (int)vs, xf, lo, hi);
    return GP_CHECK_LAUNCH("gp_sort_segmented (segments in registers)");
}

/* the offsets of each packed tile t ([t x tile, (t + 1) x tile) of the input): se[2t] = the first offset at or after
 * its start, se[2t + 1] = one past the last offset at or before its end (two binary searches a thread) */
__global__ void __launch_bounds__(BT)
    k_tiles(const long long *o, size_t nseg, size_t n, unsigned long long tile, size_t ntiles, unsigned long long *se)
{
    const size_t t = (size_t)blockIdx.x * BT + threadIdx.x;
    if (t >= ntiles) return;
    const long long lo = (long long)(t * tile), hi = (long long)(t * tile + tile < n ? t * tile + tile : n);
    size_t a = 0, b = nseg + 1; /* first o[i] >= lo */
    while (a < b) {
        const size_t mid = (a + b) / 2;
        if (o[mid] < lo) a = mid + 1;
        else b = mid;
    }
    size_t c = a, d = nseg + 1; /* first o[i] > hi */
    while (c < d) {
        const size_t mid = (c + d) / 2;
        if (o[mid] <= hi) c = mid + 1;
        else d = mid;
    }
    se[2 * t] = a, se[2 * t + 1] = c;
}

/* 3'. a block sorts every segment inside its packed tile at once: the elements between the tile's first and last
 * offsets (consecutive, the segments in order) ordered by (segment, key) — an LSD radix sort over the key's digits,
 * then one or two over the segment's number within the tile (its run id: the offsets up to it, a scan of head
 * flags) — so each segment lands sorted where it was */
template <typename K>
__global__ void __launch_bounds__(BT, 3)
    k_pack(const unsigned long long *se, const long long *o, const K *kin, K *kout, const void *vin, void *vout,
           int vs, RKey<K> xf, int lo, int hi)
{
    constexpr int ITEMS = pack_items<K>(), T = BT * ITEMS;
    __shared__ RankSmem<8> s_r;
    __shared__ K s_k[T];
    __shared__ unsigned s_ir[T]; /* each element's position in the tile (low half) and run id (high half) */
    __shared__ unsigned s_w[8], s_ex[T / 32], s_any; /* s_ex: the places of segments another way sorts */
    unsigned short *s_rid = reinterpret_cast<unsigned short *>(s_ir); /* the run ids by position, at first */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tid = threadIdx.x;
    const unsigned long long a = se[2 * blockIdx.x], b = se[2 * blockIdx.x + 1];
    if (a + 1 >= b) return; /* fewer than two offsets in the tile: nothing inside it */
    const size_t pf = (size_t)o[a];
    const unsigned cnt = (unsigned)((size_t)o[b - 1] - pf);
    if (cnt == 0) return;
    /* run ids: head flags where an offset falls inside, scanned; the segments outside (WARP_MAX, PACK_MAX] marked */
#pragma unroll
    for (int k = 0; k < ITEMS; k++) s_rid[k * BT + tid] = 0;
    for (int i = tid; i < T / 32; i += BT) s_ex[i] = 0;
    if (tid == 0) s_any = 0;
    __syncthreads();
    for (unsigned long long i = a + tid; i + 1 < b; i += BT) {
        const unsigned p = (unsigned)((size_t)o[i] - pf), q = (unsigned)((size_t)o[i + 1] - pf);
        if (p > 0 && p < cnt) s_rid[p] = 1;
        if (q == p) continue;
        if (q - p > WARP_MAX && q - p <= PACK_MAX) {
            s_any = 1;
            continue;
        }
        for (unsigned x = p; x < q;) { /* a word at a time */
            const unsigned wd = x / 32, hi_bit = q - wd * 32 < 32 ? q - wd * 32 : 32, lo_bit = x - wd * 32;
            atomicOr(&s_ex[wd], (hi_bit == 32 ? ~0u : (1u << hi_bit) - 1u) & ~((1u << lo_bit) - 1u));
            x = wd * 32 + hi_bit;
        }
    }
    __syncthreads();
    if (!s_any) return;
    unsigned f[ITEMS], mine = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) f[k] = s_rid[tid * ITEMS + k], mine += f[k];
    unsigned run = block_excl<unsigned>(mine, s_w);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) run += f[k], s_rid[tid * ITEMS + k] = (unsigned short)run;
    __syncthreads();
    const unsigned nr = (unsigned)s_rid[cnt - 1] + 1u;
    K key[ITEMS];
    unsigned ir[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned e = (unsigned)(warp * 32 * ITEMS + k * 32 + lane);
        key[k] = e < cnt ? kin[pf + e] : (K)0;
        ir[k] = e | (e < cnt ? (unsigned)s_rid[e] << 16 : 0u);
    }
    __syncthreads(); /* s_ir is the stage from here */
    const int P = (hi - lo + 7) / 8, R = nr <= 1 ? 0 : nr <= RADIX ? 1 : 2;
    for (int p = 0; p < P + R; p++) {
        unsigned slot[ITEMS], dg[ITEMS];
        if (p < P) {
            const int shift = lo + 8 * p, bits = hi - shift < 8 ? hi - shift : 8;
            key_digits<K, 8, ITEMS>(key, cnt, xf, shift, (1u << bits) - 1u, dg);
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const unsigned e = (unsigned)(warp * 32 * ITEMS + k * 32 + lane);
                dg[k] = e < cnt ? (ir[k] >> (16 + 8 * (p - P))) & 255u : RADIX - 1u;
            }
        }
        rank_pass<8, ITEMS>(0, s_r, dg, slot, nullptr, nullptr);
#pragma unroll
        for (int k = 0; k < ITEMS; k++) s_k[slot[k]] = key[k], s_ir[slot[k]] = ir[k];
        __syncthreads();
        if (p + 1 < P + R) {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const int e = warp * 32 * ITEMS + k * 32 + lane;
                key[k] = s_k[e], ir[k] = s_ir[e];
            }
        }
    }
    /* out: the places of the packed segments (the others' are another way's) */
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned i = (unsigned)(k * BT + tid);
        if (i < cnt && !(s_ex[i / 32] >> (i % 32) & 1u)) kout[pf + i] = s_k[i];
    }
    switch (vs) {
    case 0: break;
    case 1: gather_values<uint8_t, 8, ITEMS>(0, vin, vout, pf, cnt, s_ir, s_ex); break;
    case 2: gather_values<uint16_t, 8, ITEMS>(0, vin, vout, pf, cnt, s_ir, s_ex); break;
    case 4: gather_values<uint32_t, 8, ITEMS>(0, vin, vout, pf, cnt, s_ir, s_ex); break;
    case 8: gather_values<unsigned long long, 8, ITEMS>(0, vin, vout, pf, cnt, s_ir, s_ex); break;
    default: gather_values<uint4, 8, ITEMS>(0, vin, vout, pf, cnt, s_ir, s_ex); break;
    }
}

/* s_h[p][d] = the keys x[0, m) of digit d in pass p (the radix key's bits lo + 8p on), zeroed first; a block's
 * threads together, barriers on both sides */
template <typename K>
__device__ __forceinline__ void count_digits(const K *x, unsigned m, RKey<K> xf, int lo, int hi,
                                             unsigned (*s_h)[RADIX])
{
    constexpr int PMAX = sizeof(K);
    const int P = (hi - lo + 7) / 8;
    for (int i = threadIdx.x; i < PMAX * RADIX; i += BT) (&s_h[0][0])[i] = 0;
    __syncthreads();
    for (unsigned e = threadIdx.x; e < m; e += BT) {
        const unsigned long long r = (unsigned long long)rkey<K>(x[e], xf) >> lo;
#pragma unroll
        for (int p = 0; p < PMAX; p++)
            if (p < P) {
                const int bits = hi - lo - 8 * p < 8 ? hi - lo - 8 * p : 8;
                atomicAdd(&s_h[p][(unsigned)(r >> (8 * p)) & ((1u << bits) - 1u)], 1u);
            }
    }
    __syncthreads();
}

template <int VS> struct ValOf { typedef unsigned char T; };
template <> struct ValOf<1> { typedef uint8_t T; };
template <> struct ValOf<2> { typedef uint16_t T; };
template <> struct ValOf<4> { typedef uint32_t T; };
template <> struct ValOf<8> { typedef unsigned long long T; };
template <> struct ValOf<16> { typedef uint4 T; };

template <typename K> __host__ __device__ constexpr int long_items() { return sizeof(K) == 8 ? 8 : 16; }
template <typename K, int VS> constexpr size_t long_stage_bytes()
{
    return (size_t)BT * long_items<K>() * (sizeof(K) > (size_t)VS ? sizeof(K) : (size_t)VS);
}

/* a block's tile of cnt elements from base (item k of lane l of warp w: element w x 32 x ITEMS + k x 32 + l; padding
 * keys 0), with their values */
template <typename K, int VS, int ITEMS>
__device__ __forceinline__ void load_tile(const K *src, const typename ValOf<VS>::T *vsrc, size_t base, unsigned cnt,
                                          K (&key)[ITEMS], typename ValOf<VS>::T (&val)[VS ? ITEMS : 1])
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned e = (unsigned)(warp * 32 * ITEMS + k * 32 + lane);
        key[k] = e < cnt ? src[base + e] : (K)0;
        if constexpr (VS > 0)
            if (e < cnt) val[k] = vsrc[base + e];
    }
}

/* A staged tile stored out (after a barrier that follows s_delta): place i of digit s_dig[i] goes to b + s_delta[d] + i,
 * a digit's run together; then the values (held in val[] by the items' slots), staged where the keys were. */
template <typename K, int VS, int ITEMS>
__device__ __forceinline__ void store_staged(unsigned char *s_stage, const unsigned char *s_dig, const unsigned *s_delta,
                                             unsigned cnt, const unsigned (&slot)[ITEMS],
                                             const typename ValOf<VS>::T (&val)[VS ? ITEMS : 1], K *dst,
                                             typename ValOf<VS>::T *vdst, size_t b)
{
    typedef typename ValOf<VS>::T V;
    const K *s_k = reinterpret_cast<const K *>(s_stage);
    for (unsigned i = threadIdx.x; i < cnt; i += BT) dst[b + (unsigned)(s_delta[s_dig[i]] + i)] = s_k[i];
    if constexpr (VS > 0) {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        V *s_v = reinterpret_cast<V *>(s_stage);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if ((unsigned)(warp * 32 * ITEMS + k * 32 + lane) < cnt) s_v[slot[k]] = val[k];
        __syncthreads();
        for (unsigned i = threadIdx.x; i < cnt; i += BT) vdst[b + (unsigned)(s_delta[s_dig[i]] + i)] = s_v[i];
    }
}

/* 4. a block sorts segment list[blockIdx.x] (below 2^32 elements) through global memory: kin -> kout, tmp the other
 * buffer of the passes (indexed as the output) */
template <typename K, int VS>
__global__ void __launch_bounds__(BT)
    k_long(const unsigned long long *list, const long long *o, const K *kin, K *kout, K *ktmp, const void *vin,
           void *vout, void *vtmp, RKey<K> xf, int lo, int hi)
{
    typedef typename ValOf<VS>::T V;
    constexpr int ITEMS = long_items<K>(), TILE = BT * ITEMS, PMAX = sizeof(K);
    extern __shared__ __align__(16) unsigned char s_stage[]; /* TILE keys, then TILE values */
    __shared__ RankSmem<8> s_r;
    __shared__ unsigned s_hist[PMAX][RADIX];
    __shared__ unsigned s_tstart[RADIX], s_tcnt[RADIX], s_delta[RADIX], s_w[8];
    __shared__ unsigned char s_dig[TILE];
    __shared__ int s_live[PMAX], s_nlive;
    const int d = threadIdx.x;
    const unsigned long long id = list[blockIdx.x];
    const size_t b = (size_t)o[id];
    const unsigned m = (unsigned)((size_t)o[id + 1] - b);
    const int P = (hi - lo + 7) / 8;
    count_digits<K>(kin + b, m, xf, lo, hi, s_hist); /* every pass's digit counts, one read */
    if (threadIdx.x == 0) { /* the digits some key differs in: the passes that move anything */
        int nl = 0;
        for (int p = 0; p < P; p++) {
            bool all = false;
            for (int v = 0; v < RADIX && !all; v++) all = s_hist[p][v] == m;
            if (!all) s_live[nl++] = p;
        }
        s_nlive = nl;
    }
    __syncthreads();
    const int Q = s_nlive;
    const K *src = kin;
    const V *vsrc = static_cast<const V *>(vin);
    if (Q == 0 || ((kin == kout || (VS > 0 && vin == vout)) && (Q - 1) % 2 == 0)) {
        /* nothing moves (a copy where the output is not the input), or the first pass would write over its input:
         * the segment set aside in tmp first */
        K *to = Q == 0 ? kout : ktmp;
        V *vto = static_cast<V *>(Q == 0 ? vout : vtmp);
        if (to != kin)
            for (unsigned e = threadIdx.x; e < m; e += BT) to[b + e] = kin[b + e];
        if constexpr (VS > 0)
            if ((const void *)vto != vin)
                for (unsigned e = threadIdx.x; e < m; e += BT) vto[b + e] = vsrc[b + e];
        if (Q == 0) return;
        __syncthreads();
        src = ktmp, vsrc = static_cast<const V *>(vtmp);
    }
    for (int q = 0; q < Q; q++) {
        const int p = s_live[q], shift = lo + 8 * p, bits = hi - shift < 8 ? hi - shift : 8;
        K *dst = (Q - 1 - q) % 2 == 0 ? kout : ktmp;
        V *vdst = static_cast<V *>((Q - 1 - q) % 2 == 0 ? vout : vtmp);
        unsigned base = block_excl<unsigned>(s_hist[p][d], s_w); /* where digit d's elements begin in the segment */
        for (unsigned t0 = 0; t0 < m; t0 += TILE) {
            const unsigned cnt = m - t0 < (unsigned)TILE ? m - t0 : (unsigned)TILE;
            K key[ITEMS];
            V val[VS ? ITEMS : 1];
            load_tile<K, VS, ITEMS>(src, vsrc, b + t0, cnt, key, val);
            unsigned slot[ITEMS], dg[ITEMS];
            key_digits<K, 8, ITEMS>(key, cnt, xf, shift, (1u << bits) - 1u, dg);
            rank_pass<8, ITEMS>(0, s_r, dg, slot, s_tstart, s_tcnt);
            K *s_k = reinterpret_cast<K *>(s_stage);
#pragma unroll
            for (int k = 0; k < ITEMS; k++) s_k[slot[k]] = key[k], s_dig[slot[k]] = (unsigned char)dg[k];
            s_delta[d] = base - s_tstart[d]; /* staged place i of digit d goes to base + (i - tstart) */
            base += s_tcnt[d];
            __syncthreads();
            store_staged<K, VS, ITEMS>(s_stage, s_dig, s_delta, cnt, slot, val, dst, vdst, b);
            __syncthreads();
        }
        src = dst, vsrc = vdst;
    }
}

/* a kernel's dynamic shared memory allowed up to smem, once per device (done: a bit per ordinal mod 64; setting it
 * again is harmless, so racing threads may both set it) */
inline gp_status_t smem_allowed(const gp_ctx_t *ctx, const void *fn, size_t smem, unsigned long long *done)
{
    const unsigned long long bit = 1ull << (ctx->device & 63);
    if (__atomic_load_n(done, __ATOMIC_RELAXED) & bit) return GP_OK;
    const cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort_segmented (shared memory)", __FILE__, __LINE__);
    __atomic_fetch_or(done, bit, __ATOMIC_RELAXED);
    return GP_OK;
}

/* ---- 4'. the long segments together (W_SWEEP), as gp_sort's passes (sort.cu) with a chain of tiles per segment:
 * segment j (list[j]) has tiles ts[j] .. ts[j + 1] - 1 of TILE elements; every pass's digit counts per segment from
 * one read (k_sw_hist), their starts within the segment (k_sw_starts), then one launch per digit (k_sweep) taking
 * tiles in ticket order: a tile ranks its elements, publishes its digit counts, folds its predecessors' in the same
 * segment (look-back) and stores each element at the segment's digit start + the tiles before + its rank. */
constexpr unsigned SW_AGG = (unsigned)LB_AGG << LB_W_SHIFT, SW_INCL = (unsigned)LB_INCL << LB_W_SHIFT;

/* ts[j] = the tiles of the segments before j (one block: a chunk of the list a thread, then a block scan) */
__global__ void __launch_bounds__(BT)
    k_sw_plan(const unsigned long long *list, unsigned L, const long long *o, unsigned tile, unsigned *ts)
{
    __shared__ unsigned s_w[8];
    const unsigned per = (L + BT - 1) / BT, a = threadIdx.x * per < L ? threadIdx.x * per : L,
                   e = a + per < L ? a + per : L;
    unsigned mine = 0;
    for (unsigned j = a; j < e; j++) {
        const unsigned long long id = list[j];
        mine += (unsigned)(((unsigned long long)(o[id + 1] - o[id]) + tile - 1) / tile);
    }
    unsigned run = block_excl<unsigned>(mine, s_w);
    for (unsigned j = a; j < e; j++) {
        const unsigned long long id = list[j];
        ts[j] = run;
        run += (unsigned)(((unsigned long long)(o[id + 1] - o[id]) + tile - 1) / tile);
    }
    if (threadIdx.x == BT - 1) ts[L] = run;
}

/* the segment of tile t: the last j with ts[j] <= t */
__device__ __forceinline__ unsigned seg_of_tile(const unsigned *ts, unsigned L, unsigned t)
{
    unsigned a = 0, b = L;
    while (b - a > 1) {
        const unsigned mid = (a + b) / 2;
        if (ts[mid] <= t) a = mid;
        else b = mid;
    }
    return a;
}

/* hist[(j * P + p) * 256 + d]: segment j's keys of digit d in pass p */
template <typename K>
__global__ void __launch_bounds__(BT)
    k_sw_hist(const unsigned long long *list, unsigned L, const unsigned *ts, const long long *o, const K *kin,
              RKey<K> xf, int lo, int hi, unsigned *hist)
{
    constexpr int TILE = BT * long_items<K>(), PMAX = sizeof(K);
    __shared__ unsigned s_h[PMAX][RADIX];
    const unsigned t = blockIdx.x;
    if (t >= ts[L]) return;
    const unsigned j = seg_of_tile(ts, L, t);
    const unsigned long long id = list[j];
    const size_t b = (size_t)o[id] + (size_t)(t - ts[j]) * TILE, e_end = (size_t)o[id + 1];
    const unsigned cnt = e_end - b < (size_t)TILE ? (unsigned)(e_end - b) : (unsigned)TILE;
    const int P = (hi - lo + 7) / 8;
    count_digits<K>(kin + b, cnt, xf, lo, hi, s_h);
    for (int p = 0; p < P; p++) {
        const unsigned c = s_h[p][threadIdx.x];
        if (c) atomicAdd(&hist[((size_t)j * P + p) * RADIX + threadIdx.x], c);
    }
}

/* the counts made the digits' starts within each segment, in place (a block a segment) */
__global__ void __launch_bounds__(BT) k_sw_starts(int P, unsigned *hist)
{
    __shared__ unsigned s_w[8];
    for (int p = 0; p < P; p++) {
        unsigned *h = hist + ((size_t)blockIdx.x * P + p) * RADIX;
        const unsigned v = h[threadIdx.x];
        h[threadIdx.x] = block_excl<unsigned>(v, s_w);
    }
}

/* pass p (digit (key >> shift) & mask) of every long segment: src -> dst; look: 256 zeroed words a tile */
template <typename K, int VS>
__global__ void __launch_bounds__(BT)
    k_sweep(const unsigned long long *list, unsigned L, const unsigned *ts, const long long *o, const K *src, K *dst,
            const void *vsrc, void *vdst, RKey<K> xf, int shift, unsigned mask, const unsigned *starts, int p, int P,
            unsigned *ticket, unsigned *look)
{
    typedef typename ValOf<VS>::T V;
    constexpr int ITEMS = long_items<K>(), TILE = BT * ITEMS;
    extern __shared__ __align__(16) unsigned char s_stage[]; /* TILE keys, then TILE values */
    __shared__ RankSmem<8> s_r;
    __shared__ unsigned s_tstart[RADIX], s_tcnt[RADIX], s_delta[RADIX];
    __shared__ unsigned char s_dig[TILE];
    __shared__ unsigned s_t, s_j;
    const int d = threadIdx.x;
    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(ticket, 1u);
        s_t = t, s_j = t < ts[L] ? seg_of_tile(ts, L, t) : 0u;
    }
    __syncthreads();
    const unsigned t = s_t, j = s_j;
    if (t >= ts[L]) return;
    const unsigned i = t - ts[j];
    const unsigned long long id = list[j];
    const size_t b = (size_t)o[id], t0 = (size_t)i * TILE, len = (size_t)o[id + 1] - b;
    const unsigned cnt = len - t0 < (size_t)TILE ? (unsigned)(len - t0) : (unsigned)TILE;
    K key[ITEMS];
    V val[VS ? ITEMS : 1];
    load_tile<K, VS, ITEMS>(src, static_cast<const V *>(vsrc), b + t0, cnt, key, val);
    unsigned slot[ITEMS], dg[ITEMS];
    key_digits<K, 8, ITEMS>(key, cnt, xf, shift, mask, dg);
    rank_pass<8, ITEMS>(0, s_r, dg, slot, s_tstart, s_tcnt);
    const unsigned c = s_tcnt[d] - (d == RADIX - 1 ? (unsigned)TILE - cnt : 0u); /* less the padding's digit 255 */
    unsigned *mine = look + (size_t)t * RADIX + d;
    lb_word_put(mine, (i == 0 ? SW_INCL : SW_AGG) | c);
    K *s_k = reinterpret_cast<K *>(s_stage);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) s_k[slot[k]] = key[k], s_dig[slot[k]] = (unsigned char)dg[k];
    unsigned prior = 0;
    if (i > 0) { /* the tiles before in the segment, back to the nearest inclusive count */
        for (unsigned q = t - 1;; q--) {
            unsigned w;
            do w = lb_word_get(look + (size_t)q * RADIX + d);
            while ((w & ~LB_W_MASK) == 0);
            prior += w & LB_W_MASK;
            if ((w & ~LB_W_MASK) == SW_INCL) break;
        }
        lb_word_put(mine, SW_INCL | (prior + c));
    }
    s_delta[d] = starts[((size_t)j * P + p) * RADIX + d] + prior - s_tstart[d];
    __syncthreads();
    store_staged<K, VS, ITEMS>(s_stage, s_dig, s_delta, cnt, slot, val, dst, static_cast<V *>(vdst), b);
}

/* the long segments' passes: ws_* in the workspace (hist: L x P x 256 words, ts: L + 1, look: tiles x 256 words,
 * tickets: P words); tiles_max bounds the tiles (the grids) */
template <typename K, int VS>
gp_status_t sweep(const gp_ctx_t *ctx, const unsigned long long *list, unsigned L, size_t tiles_max,
                  const long long *o, const void *kin, void *kout, void *ktmp, const void *vin, void *vout,
                  void *vtmp, RKey<K> xf, int lo, int hi, unsigned *hist, unsigned *ts, unsigned *look,
                  unsigned *tickets, size_t n, cudaStream_t s)
{
    constexpr int TILE = BT * long_items<K>();
    const int P = (hi - lo + 7) / 8;
    const size_t smem = long_stage_bytes<K, VS>();
    static unsigned long long done;
    GP_TRY_RET(smem_allowed(ctx, (const void *)k_sweep<K, VS>, smem, &done));
    cudaError_t e;
    if ((e = cudaMemsetAsync(hist, 0, (size_t)L * P * RADIX * 4, s)) != cudaSuccess ||
        (e = cudaMemsetAsync(tickets, 0, (size_t)P * 4, s)) != cudaSuccess)
        return gp__cuda_error(e, "gp_sort_segmented (counts)", __FILE__, __LINE__);
    k_sw_plan<<<1, BT, 0, s>>>(list, L, o, (unsigned)TILE, ts);
    k_sw_hist<K><<<(unsigned)tiles_max, BT, 0, s>>>(list, L, ts, o, (const K *)kin, xf, lo, hi, hist);
    k_sw_starts<<<L, BT, 0, s>>>(P, hist);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort_segmented (long segments' counts)"));
    const void *sk = kin, *sv = vin;
    if ((kin == kout || (VS && vin == vout)) && (P - 1) % 2 == 0) { /* the first pass would store over its input */
        if ((e = cudaMemcpyAsync(ktmp, kin, n * sizeof(K), cudaMemcpyDeviceToDevice, s)) != cudaSuccess ||
            (VS && (e = cudaMemcpyAsync(vtmp, vin, n * VS, cudaMemcpyDeviceToDevice, s)) != cudaSuccess))
            return gp__cuda_error(e, "gp_sort_segmented: the input set aside", __FILE__, __LINE__);
        sk = ktmp, sv = vtmp;
    }
    for (int p = 0; p < P; p++) {
        const bool to_out = (P - 1 - p) % 2 == 0;
        void *dk = to_out ? kout : ktmp, *dv = to_out ? vout : vtmp;
        const int shift = lo + 8 * p, bits = hi - shift < 8 ? hi - shift : 8;
        if ((e = cudaMemsetAsync(look, 0, tiles_max * RADIX * 4, s)) != cudaSuccess)
            return gp__cuda_error(e, "gp_sort_segmented (look-back)", __FILE__, __LINE__);
        k_sweep<K, VS><<<(unsigned)tiles_max, BT, smem, s>>>(list, L, ts, o, (const K *)sk, (K *)dk, sv, dv, xf,
                                                              shift, (1u << bits) - 1u, hist, p, P, tickets + p, look);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort_segmented (long segments' pass)"));
        sk = dk, sv = dv;
    }
    return GP_OK;
}

template <typename K>
gp_status_t sweep_by_values(const gp_ctx_t *ctx, size_t vs, const unsigned long long *list, unsigned L,
                            size_t tiles_max, const long long *o, const void *kin, void *kout, void *ktmp,
                            const void *vin, void *vout, void *vtmp, RKey<K> xf, int lo, int hi, unsigned *hist,
                            unsigned *ts, unsigned *look, unsigned *tickets, size_t n, cudaStream_t s)
{
    if (L == 0) return GP_OK;
#define GP_SWEEP(VS) sweep<K, VS>(ctx, list, L, tiles_max, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, hist, ts, look, tickets, n, s)
    switch (vs) {
    case 0: return GP_SWEEP(0);
    case 1: return GP_SWEEP(1);
    case 2: return GP_SWEEP(2);
    case 4: return GP_SWEEP(4);
    case 8: return GP_SWEEP(8);
    default: return GP_SWEEP(16);
    }
#undef GP_SWEEP
}

inline size_t al256(size_t x) { return (x + 255) / 256 * 256; }

template <typename K, int WPS, int ITEMS>
gp_status_t launch_tile(const unsigned long long *list, unsigned long long count, const long long *o, const void *kin,
                        void *kout, const void *vin, void *vout, size_t vs, RKey<K> xf, int lo, int hi,
                        cudaStream_t s)
{
    constexpr int G = BT / (32 * WPS);
    if (count == 0) return GP_OK;
    const unsigned long long blocks = (count + G - 1) / G;
    k_tile<K, WPS, ITEMS><<<(unsigned)blocks, BT, 0, s>>>(list, count, o, (const K *)kin, (K *)kout, vin, vout,
                                                          (int)vs, xf, lo, hi);
    return GP_CHECK_LAUNCH("gp_sort_segmented (segments in shared memory)");
}

template <typename K, int VS>
gp_status_t launch_long(const gp_ctx_t *ctx, const unsigned long long *list, unsigned long long count,
                        const long long *o, const void *kin, void *kout, void *ktmp, const void *vin, void *vout,
                        void *vtmp, RKey<K> xf, int lo, int hi, cudaStream_t s)
{
    static unsigned long long done;
    const size_t smem = long_stage_bytes<K, VS>();
    GP_TRY_RET(smem_allowed(ctx, (const void *)k_long<K, VS>, smem, &done));
    k_long<K, VS><<<(unsigned)count, BT, smem, s>>>(list, o, (const K *)kin, (K *)kout, (K *)ktmp, vin, vout, vtmp,
                                                     xf, lo, hi);
    return GP_CHECK_LAUNCH("gp_sort_segmented (long segments)");
}

template <typename K>
gp_status_t long_by_values(const gp_ctx_t *ctx, size_t vs, const unsigned long long *list, unsigned long long count,
                           const long long *o, const void *kin, void *kout, void *ktmp, const void *vin, void *vout,
                           void *vtmp, RKey<K> xf, int lo, int hi, cudaStream_t s)
{
    if (count == 0) return GP_OK;
    switch (vs) {
    case 0: return launch_long<K, 0>(ctx, list, count, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, s);
    case 1: return launch_long<K, 1>(ctx, list, count, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, s);
    case 2: return launch_long<K, 2>(ctx, list, count, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, s);
    case 4: return launch_long<K, 4>(ctx, list, count, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, s);
    case 8: return launch_long<K, 8>(ctx, list, count, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, s);
    default: return launch_long<K, 16>(ctx, list, count, o, kin, kout, ktmp, vin, vout, vtmp, xf, lo, hi, s);
    }
}

/* The way of each length class: the networks up to 128, the shared-memory tiles up to 4096 (2048 for 8-byte keys), a
 * block each up to 2^15 (W_LONG: the longest is one block's time), then all the rest together in passes over
 * every one's tiles (W_SWEEP), past 2^29 (the look-back's 30-bit counts) the device-wide sort one by one. */
inline WayOf ways_of(int tile4k_bin)
{
    WayOf wo;
    for (int c = 0; c < BINS; c++)
        wo.w[c] = c == 0 ? W_COPY : c <= 3 ? W_B8 : c <= 5 ? W_B32 : c == 6 ? W_B64 : c == 7 ? W_B128 : c == 8 ? W_T256
                  : c <= 10 ? W_T1K : c <= tile4k_bin ? W_T4K : c <= 15 ? W_LONG : c <= 29 ? W_SWEEP : W_DEVICE;
    return wo;
}

template <typename K>
gp_status_t run(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *kin, void *kout, size_t vs, const void *vin,
                void *vout, size_t nseg, const long long *o, int desc, int lo, int hi, const char *fn,
                cudaStream_t s)
{
    const size_t ks = sizeof(K);
    const int P = (hi - lo + 7) / 8;
    cudaError_t e;
    /* 1. the census, read back */
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, al256(sizeof(Summary)), &ws));
    Summary *d_sum = (Summary *)ws, sm;
    if ((e = cudaMemsetAsync(d_sum, 0, sizeof(Summary), s)) != cudaSuccess ||
        (e = cudaMemsetAsync(&d_sum->bad, 0xff, 8, s)) != cudaSuccess)
        return gp__cuda_error(e, fn, __FILE__, __LINE__);
    {
        const size_t want = (nseg + 1 + BT - 1) / BT, cap = (size_t)ctx->sm_count * 8;
        k_census<<<(unsigned)(want < cap ? want : cap), BT, 0, s>>>(o, nseg, n, pack_tile<K>(), d_sum);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort_segmented (census)"));
    }
    if ((e = cudaMemcpyAsync(&sm, d_sum, sizeof sm, cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
        (e = cudaStreamSynchronize(s)) != cudaSuccess)
        return gp__cuda_error(e, fn, __FILE__, __LINE__);
    if (sm.bad != ~0ull) {
        long long v = 0;
        if ((e = cudaMemcpy(&v, o + sm.bad, 8, cudaMemcpyDeviceToHost)) != cudaSuccess)
            return gp__cuda_error(e, fn, __FILE__, __LINE__);
        return gp__error(GP_ERR_INVALID_ARG, "%s: offsets[%llu] = %lld %s", fn, sm.bad, v,
                         v < 0 || (unsigned long long)v > n ? "is outside [0, n]" : "is below the offset before it");
    }
    if (n == 0) return GP_OK;
    /* the elements outside every segment */
    const size_t first = (size_t)sm.first, last = (size_t)sm.last;
    if (kout != kin) {
        if (first && (e = cudaMemcpyAsync(kout, kin, first * ks, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
            return gp__cuda_error(e, fn, __FILE__, __LINE__);
        if (last < n && (e = cudaMemcpyAsync((char *)kout + last * ks, (const char *)kin + last * ks,
                                             (n - last) * ks, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
            return gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    if (vs && vout != vin) {
        if (first && (e = cudaMemcpyAsync(vout, vin, first * vs, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
            return gp__cuda_error(e, fn, __FILE__, __LINE__);
        if (last < n && (e = cudaMemcpyAsync((char *)vout + last * vs, (const char *)vin + last * vs,
                                             (n - last) * vs, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
            return gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    /* 2. the ways and their lists */
    const int tile4k_bin = ks == 8 ? 11 : 12;
    const WayOf wo = ways_of(tile4k_bin);
    unsigned long long per[W_COUNT] = {0}, base[W_COUNT] = {0};
    for (int c = 0; c < BINS; c++) per[wo.w[c]] += sm.segs[c];
    unsigned long long at = 0;
    for (int w = W_B8; w <= W_SWEEP; w++) base[w] = at, at += per[w];
    const size_t nlist = (size_t)at, ndev = (size_t)per[W_DEVICE];
    const size_t ntiles = sm.packed ? (n + pack_tile<K>() - 1) / pack_tile<K>() : 0;
    if (nlist == 0 && ndev == 0 && per[W_COPY] == 0 && ntiles == 0) return GP_OK;
    /* the long segments' passes: their tiles (at most one partial a segment), counts, look-back words */
    const size_t L = (size_t)per[W_SWEEP], stile = (size_t)BT * long_items<K>();
    unsigned long long swe = 0;
    for (int c = 0; c < BINS; c++)
        if (wo.w[c] == W_SWEEP) swe += sm.elems[c];
    const size_t sw_tiles = L ? (size_t)(swe / stile) + L : 0;
    const bool tmp = per[W_LONG] || L;
    const size_t o_cnt = 0, o_base = 256, o_list = o_base + 256, o_dev = o_list + al256(nlist * 8),
                 o_se = o_dev + al256(ndev * 16), o_hist = o_se + al256(ntiles * 16),
                 o_ts = o_hist + al256(L * P * RADIX * 4), o_look = o_ts + al256((L + 1) * 4),
                 o_tick = o_look + al256(sw_tiles * RADIX * 4), o_tk = o_tick + 256,
                 o_tv = o_tk + (tmp ? al256(n * ks) : 0), total = o_tv + (tmp ? al256(n * vs) : 0);
    GP_TRY_RET(gp__workspace(ctx, total, &ws));
    char *w = (char *)ws;
    unsigned long long *d_cnt = (unsigned long long *)(w + o_cnt), *d_base = (unsigned long long *)(w + o_base),
                       *d_list = (unsigned long long *)(w + o_list);
    long long *d_dev = (long long *)(w + o_dev);
    if ((e = cudaMemsetAsync(d_cnt, 0, W_COUNT * 8, s)) != cudaSuccess ||
        (e = cudaMemcpyAsync(d_base, base, sizeof base, cudaMemcpyHostToDevice, s)) != cudaSuccess)
        return gp__cuda_error(e, fn, __FILE__, __LINE__);
    {
        const size_t want = (nseg + BT - 1) / BT, cap = (size_t)ctx->sm_count * 8;
        k_lists<<<(unsigned)(want < cap ? want : cap), BT, 0, s>>>(o, nseg, pack_tile<K>(), wo, d_base, d_cnt,
                                                                   d_list, d_dev, kin, kout, ks, vin, vout, vs);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort_segmented (lists)"));
    }
    /* 3-4. the packed tiles, then the ways of warps and blocks */
    const RKey<K> xf = rkey_of<K>(dt, desc);
    if (ntiles) {
        unsigned long long *d_se = (unsigned long long *)(w + o_se);
        k_tiles<<<(unsigned)((ntiles + BT - 1) / BT), BT, 0, s>>>(o, nseg, n, pack_tile<K>(), ntiles, d_se);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort_segmented (tiles)"));
        k_pack<K><<<(unsigned)ntiles, BT, 0, s>>>(d_se, o, (const K *)kin, (K *)kout, vin, vout, (int)vs, xf, lo, hi);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort_segmented (packed tiles)"));
    }
    GP_TRY_RET((launch_warp<K, 4, 2>(d_list + base[W_B8], per[W_B8], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    GP_TRY_RET((launch_warp<K, 8, 4>(d_list + base[W_B32], per[W_B32], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    GP_TRY_RET((launch_warp<K, 16, 4>(d_list + base[W_B64], per[W_B64], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    GP_TRY_RET((launch_warp<K, 32, 4>(d_list + base[W_B128], per[W_B128], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    GP_TRY_RET((launch_tile<K, 1, 8>(d_list + base[W_T256], per[W_T256], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    GP_TRY_RET((launch_tile<K, 4, 8>(d_list + base[W_T1K], per[W_T1K], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    if constexpr (sizeof(K) == 8)
        GP_TRY_RET((launch_tile<K, 8, 8>(d_list + base[W_T4K], per[W_T4K], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    else
        GP_TRY_RET((launch_tile<K, 8, 16>(d_list + base[W_T4K], per[W_T4K], o, kin, kout, vin, vout, vs, xf, lo, hi, s)));
    GP_TRY_RET(long_by_values<K>(ctx, vs, d_list + base[W_LONG], per[W_LONG], o, kin, kout, w + o_tk, vin, vout,
                                 w + o_tv, xf, lo, hi, s));
    GP_TRY_RET(sweep_by_values<K>(ctx, vs, d_list + base[W_SWEEP], (unsigned)L, sw_tiles, o, kin, kout, w + o_tk, vin,
                                  vout, w + o_tv, xf, lo, hi, (unsigned *)(w + o_hist), (unsigned *)(w + o_ts),
                                  (unsigned *)(w + o_look), (unsigned *)(w + o_tick), n, s));
    if (ndev == 0) return GP_OK;
    /* 5. the device-wide ones, listed by a second read-back (the workspace is then theirs) */
    long long *hb = (long long *)malloc(ndev * 16);
    if (!hb) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu long segments' bounds", fn, ndev);
    if ((e = cudaMemcpyAsync(hb, d_dev, ndev * 16, cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
        (e = cudaStreamSynchronize(s)) != cudaSuccess) {
        free(hb);
        return gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    gp_status_t st = GP_OK;
    for (size_t i = 0; i < ndev && st == GP_OK; i++) {
        const size_t a = (size_t)hb[2 * i], len = (size_t)(hb[2 * i + 1] - hb[2 * i]);
        st = gp__sort_gpu(ctx, dt, len, (const char *)kin + a * ks, (char *)kout + a * ks, vs,
                          vs ? (const char *)vin + a * vs : NULL, vs ? (char *)vout + a * vs : NULL, desc, lo, hi, s);
    }
    free(hb);
    return st;
}

} // namespace

extern "C" gp_status_t gp__sort_segmented_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in,
                                              void *keys_out, size_t vsize, const void *vals_in, void *vals_out,
                                              size_t nseg, const int64_t *offsets, int descending, int lo_bit,
                                              int hi_bit, const char *fn, cudaStream_t stream)
{
    const long long *o = (const long long *)offsets;
    switch (gp_dtype_size(kt)) {
    case 1: return run<uint8_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, nseg, o, descending, lo_bit, hi_bit, fn, stream);
    case 2: return run<uint16_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, nseg, o, descending, lo_bit, hi_bit, fn, stream);
    case 4: return run<uint32_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, nseg, o, descending, lo_bit, hi_bit, fn, stream);
    default: return run<unsigned long long>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, nseg, o, descending, lo_bit, hi_bit, fn, stream);
    }
}
