/*
 * sort.cu — the GPU radix sort in NumPy's order (sort_internal.h; docs/design/sort.md says why each step is so).
 * LSD over 8-bit digits of the radix key (Xf: gp__sort_xf's constants at one key width; the keys move), as Onesweep:
 * one launch counts every digit of every pass (k_hist), one turns the counts into each digit's start (k_starts),
 * then one launch per digit (k_onesweep) takes tiles of THREADS x ITEMS elements in ticket order —
 *   1. the tile's count of each digit (shared atomics) published at once: 256 look-back words per tile, {status,
 *      count}; the tiles after it wait on these, not on its ranking;
 *   2. each element's rank among the tile's elements of its digit, in element order (warp w: its 32 x ITEMS elements
 *      32 at a time): eight ballots find the lanes of a digit, the group's last lane advances the warp's counter;
 *   3. the tile staged in shared memory in digit order (local places only), then thread d walks back over the tiles
 *      before for digit d, LB_W words at a time, to the nearest inclusive count;
 *   4. the stage stored out: a digit's run goes out together; then the values, staged in the same places.
 * Counts inside a look-back are 30-bit: inputs past PORTION elements run as portions, each its own chain of tiles
 * (k_hist counts per portion; a portion's digit starts include the portions before it). A pass after the first
 * reads the previous pass's output, whose portions hold other elements than the input's: its counts per portion are
 * taken again from that output before it runs (one more read of the keys a pass, past PORTION elements only).
 */
#include "rank_small.cuh"
#include "../core/cluster.cuh"
#include "../core/pdl.cuh"
#include "../scan/lookback.cuh"
#include "sort_tuning.h"

#include <cooperative_groups.h>
#include <stdint.h>

namespace {

constexpr int THREADS = 256, WARPS = THREADS / 32, RADIX = 256;
constexpr unsigned ST_AGG = (unsigned)LB_AGG << LB_W_SHIFT, ST_INCL = (unsigned)LB_INCL << LB_W_SHIFT,
                   CNT_MASK = LB_W_MASK;
constexpr size_t PORTION = (size_t)1 << 29; /* elements: its counts stay below 2^30 */
constexpr int HIST_BLOCKS_PER_SM = 4, LB_W = GP_SORT_LB_W; /* the tuning table: sort_tuning.h */

template <int KS> struct Shape { /* elements per thread and the blocks an SM holds, by key bytes */
    static constexpr int ITEMS = GP_SORT_ITEMS4, MINB = GP_SORT_MINB4;
};
template <> struct Shape<8> {
    static constexpr int ITEMS = GP_SORT_ITEMS8, MINB = GP_SORT_MINB8;
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

/* the radix key at one key width from the sort's three constants (gp__sort_xf, made on the host). The kernels branch
 * once on the kind (FL: a float's rule, else one xor) around a whole loop over the keys, so a loop carries the few
 * instructions of its kind only (a dtype switch per key cost ~80, the float rule on integer keys ~10). */
template <typename K> struct Xf {
    K xr;   /* integers: what is xor-ed in (the sign bit of a signed key) */
    K inf;  /* floats: infinity's bits (0: an integer key) */
    K flip; /* descending: all ones */
    K add;  /* integers: added to the radix key (modulo 2^bits), so a range [-add, 2^b - add) sorts in bits [0, b) */
    template <bool FL> __device__ __forceinline__ K key(K b) const /* radix_key.cuh's rule, float-ness known */
    {
        if constexpr (FL) return (K)(rkey_float(b, inf) ^ flip);
        else return (K)((K)(b ^ (K)(xr ^ flip)) + add);
    }
    template <bool FL> __device__ __forceinline__ unsigned digit(K b, int shift, unsigned mask) const
    {
        return (unsigned)(key<FL>(b) >> shift) & mask;
    }
};
template <typename K> Xf<K> xf_of(gp_dtype_t dt, int desc, unsigned long long add = 0)
{
    const gp__sort_xf_t c = gp__sort_xf(dt, desc);
    return Xf<K>{(K)c.xr, (K)c.inf, (K)c.flip, (K)add};
}

/* the lanes of the warp whose digit equals this lane's (8 bits): eight ballots (radix_key.cuh), or the match
 * instruction (its time grows with the distinct values in the warp: ~30 of random 8-bit digits) */
__device__ __forceinline__ unsigned match_digit(unsigned dg)
{
#if GP_SORT_MATCH_ANY
    return __match_any_sync(0xffffffffu, dg);
#else
    return match8(dg);
#endif
}

/* 0. every pass's digit counts of each portion: hist[(q * P + j) * 256 + d]; blockIdx.y = the portion. Each thread
 * loads HIST_LOADS keys before it counts them. */
constexpr int HIST_LOADS = 8;
template <typename K, bool FL>
__device__ __forceinline__ void hist_count(const K *keys, size_t b, size_t e_end, Xf<K> xf, int lo, int hi, int P,
                                           unsigned (*s_h)[RADIX])
{
    const size_t chunk = (size_t)HIST_LOADS * THREADS, stride = (size_t)gridDim.x * chunk;
    for (size_t c0 = b + (size_t)blockIdx.x * chunk; c0 < e_end; c0 += stride) {
        K x[HIST_LOADS];
#pragma unroll
        for (int i = 0; i < HIST_LOADS; i++) {
            const size_t e = c0 + (size_t)i * THREADS + threadIdx.x;
            x[i] = e < e_end ? keys[e] : (K)0;
        }
#pragma unroll
        for (int i = 0; i < HIST_LOADS; i++) {
            if (c0 + (size_t)i * THREADS + threadIdx.x >= e_end) break;
            const uint64_t r = (uint64_t)xf.template key<FL>(x[i]) >> lo;
#pragma unroll
            for (int j = 0; j < (int)sizeof(K); j++)
                if (j < P) {
                    const int bits = hi - lo - 8 * j < 8 ? hi - lo - 8 * j : 8;
                    atomicAdd(&s_h[j][(unsigned)(r >> (8 * j)) & ((1u << bits) - 1)], 1u);
                }
        }
    }
}
template <typename K>
__global__ void __launch_bounds__(THREADS)
    k_hist(const K *keys, size_t n, Xf<K> xf, int lo, int hi, int P, unsigned *hist)
{
    __shared__ unsigned s_h[sizeof(K)][RADIX];
    for (int i = threadIdx.x; i < (int)sizeof(K) * RADIX; i += THREADS) (&s_h[0][0])[i] = 0;
    gp_pdl_wait(); /* a programmatic dependent (GP_SORT_PDL): what the kernels before wrote, from here */
    gp_pdl_trigger();
    __syncthreads();
    const size_t q = blockIdx.y, b = q * PORTION, e_end = b + PORTION < n ? b + PORTION : n;
    if (xf.inf) hist_count<K, true>(keys, b, e_end, xf, lo, hi, P, s_h);
    else hist_count<K, false>(keys, b, e_end, xf, lo, hi, P, s_h);
    __syncthreads();
    for (int j = 0; j < P; j++) {
        const unsigned c = s_h[j][threadIdx.x];
        if (c) atomicAdd(&hist[(q * P + j) * RADIX + threadIdx.x], c);
    }
}

/* 0'. where each digit's elements begin, per pass j (blockIdx.x) and portion q: start[(j * Q + q) * 256 + d] = the
 * elements of smaller digits in the whole input, then those of digit d in the portions before q */
__global__ void __launch_bounds__(THREADS) k_starts(const unsigned *hist, int P, int Q, unsigned long long *start)
{
    __shared__ unsigned long long s_w[WARPS];
    gp_pdl_wait();
    gp_pdl_trigger();
    const int j = blockIdx.x, d = threadIdx.x;
    unsigned long long tot = 0;
    for (int q = 0; q < Q; q++) tot += hist[((size_t)q * P + j) * RADIX + d];
    unsigned long long all, run = block_excl<unsigned long long>(tot, s_w, &all);
    for (int q = 0; q < Q; q++) {
        start[((size_t)j * Q + q) * RADIX + d] = run;
        run += hist[((size_t)q * P + j) * RADIX + d];
    }
}

/* the tile's digits, four to a word (dw[k / 4], byte k % 4); an element past the input (in a last tile) takes digit
 * 255, which leaves its rank and staged place after every element of the tile (FULL: none is past it) */
template <bool FL, bool FULL, typename K, int ITEMS>
__device__ __forceinline__ void tile_digits(const K (&key)[ITEMS], unsigned (&dw)[ITEMS / 4], const Xf<K> &xf,
                                            int shift, unsigned mask, int lane, unsigned wlim)
{
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        unsigned dg = xf.template digit<FL>(key[k], shift, mask);
        if (!FULL && (unsigned)(k * 32 + lane) >= wlim) dg = RADIX - 1;
        dw[k / 4] = k % 4 ? dw[k / 4] | dg << (8 * (k % 4)) : dg;
    }
}

/* 1-3. pass j over portion q (its elements [b, b + pn)): from kin to kout, values from vin (IDX: the elements'
 * positions, an argsort's first pass) to vout. look: this launch's descriptors (zero), ticket its tile counter (zero);
 * look_next: the next launch's, zeroed here for its pt_next tiles (the launch before this one used them). */
template <typename K, int VS, bool IDX>
__global__ void __launch_bounds__(THREADS, Shape<sizeof(K)>::MINB)
    k_onesweep(const K *kin, K *kout, const void *vin, void *vout, size_t b, size_t pn, Xf<K> xf,
               int shift, unsigned mask, const unsigned long long *start, unsigned *ticket,
               unsigned *look, unsigned *look_next, unsigned pt_next)
{
    typedef typename ValT<VS>::T V;
    constexpr int ITEMS = Shape<sizeof(K)>::ITEMS, TILE = THREADS * ITEMS, G = GP_SORT_MATCH_ANY ? 4 : 1; /* G: matches in flight */
    static_assert(ITEMS % G == 0 && TILE <= 65536, "digits pack in bytes, places in 16 bits");
    extern __shared__ __align__(16) unsigned char s_stage[]; /* TILE keys, later TILE values */
    __shared__ unsigned s_wc[WARPS][RADIX]; /* per warp: digit counts, then where its elements of the digit are staged */
    __shared__ unsigned long long s_delta[RADIX]; /* output position of staged slot i: s_delta[d] + i */
    __shared__ unsigned s_cnt[RADIX];
    __shared__ unsigned char s_dig[TILE]; /* the staged elements' digits */
    __shared__ unsigned short s_slot[VS ? TILE : 1]; /* element e of the tile is staged at s_slot[e] (for its value) */
    __shared__ unsigned s_w32[WARPS];
    __shared__ unsigned s_ticket;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, d = threadIdx.x;
    gp_pdl_wait(); /* the last pass's keys and this launch's zeroed descriptors, from here */
    gp_pdl_trigger();
    if (threadIdx.x == 0) s_ticket = atomicAdd(ticket, 1u);
    for (int i = lane; i < RADIX; i += 32) s_wc[warp][i] = 0;
    s_cnt[d] = 0;
    __syncthreads();
    const unsigned t = s_ticket;
    unsigned *dsc = look + (size_t)t * RADIX;
    const size_t t0 = (size_t)t * TILE, seg = t0 + (size_t)warp * 32 * ITEMS;
    const unsigned cnt = pn - t0 < (size_t)TILE ? (unsigned)(pn - t0) : (unsigned)TILE;
    const unsigned wlim = seg >= pn ? 0u : pn - seg < (size_t)(32 * ITEMS) ? (unsigned)(pn - seg) : 32u * ITEMS;
    const bool full = cnt == TILE;

    K key[ITEMS];
    unsigned dw[ITEMS / 4];    /* digits, four a word */
    unsigned slot2[ITEMS / 2]; /* ranks in the tile (below 2^16), two a word: registers limit the blocks */
    if (full) {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) key[k] = kin[b + seg + k * 32 + lane];
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            key[k] = (unsigned)(k * 32 + lane) < wlim ? kin[b + seg + k * 32 + lane] : (K)0;
    }
    for (size_t u = t; u < pt_next; u += gridDim.x) look_next[u * RADIX + d] = 0;
    const unsigned long long dstart = start[d];
    if (full) {
        if (xf.inf) tile_digits<true, true>(key, dw, xf, shift, mask, lane, wlim);
        else tile_digits<false, true>(key, dw, xf, shift, mask, lane, wlim);
    } else {
        if (xf.inf) tile_digits<true, false>(key, dw, xf, shift, mask, lane, wlim);
        else tile_digits<false, false>(key, dw, xf, shift, mask, lane, wlim);
    }
#define DIG(k) ((dw[(k) / 4] >> (8 * ((k) % 4))) & 0xffu)
    /* the tile's count of digit d, published before anything else: the tiles after wait on it */
#pragma unroll
    for (int k = 0; k < ITEMS; k++) atomicAdd(&s_cnt[DIG(k)], 1u);
    __syncthreads();
    const unsigned c = s_cnt[d] - (d == RADIX - 1 ? (unsigned)TILE - cnt : 0u); /* less the padding's digit 255 */
    lb_word_put(dsc + d, (t == 0 ? ST_INCL : ST_AGG) | c);
    unsigned all32;
    const unsigned loc = block_excl<unsigned>(c, s_w32, &all32); /* where digit d's elements begin in the tile */
    /* 1. ranks within the warp, in element order: the lanes of a digit (a match; G in flight) take their places from
     * the warp's counter of it, which the group's last lane advances */
    const unsigned le = (2u << lane) - 1u;
#pragma unroll
    for (int g = 0; g < ITEMS; g += G) {
        unsigned pe[G];
#pragma unroll
        for (int i = 0; i < G; i++) pe[i] = match_digit(DIG(g + i));
#pragma unroll
        for (int i = 0; i < G; i++) {
            const int k = g + i;
            const unsigned below = __popc(pe[i] & le); /* its group's lanes up to itself */
            const int last = 31 - __clz(pe[i]);
            unsigned old = 0;
            if (lane == last) old = atomicAdd(&s_wc[warp][DIG(k)], below);
            const unsigned r = __shfl_sync(0xffffffffu, old, last) + below - 1u;
            slot2[k / 2] = k % 2 ? slot2[k / 2] | r << 16 : r;
        }
    }
    __syncthreads();
    /* 2. where warp w's elements of digit d are staged: the digit's start in the tile, then the warps before */
    {
        unsigned run = loc;
#pragma unroll
        for (int w = 0; w < WARPS; w++) {
            const unsigned x = s_wc[w][d];
            s_wc[w][d] = run;
            run += x;
        }
    }
    __syncthreads();
    /* 3. staged in digit order (local places only: the look-back comes after, its predecessors further along) */
    K *s_k = reinterpret_cast<K *>(s_stage);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const unsigned dg = DIG(k);
        const unsigned sl = (k % 2 ? slot2[k / 2] >> 16 : slot2[k / 2] & 0xffffu) + s_wc[warp][dg];
        s_k[sl] = key[k];
        s_dig[sl] = (unsigned char)dg;
        if constexpr (VS > 0) s_slot[warp * 32 * ITEMS + k * 32 + lane] = (unsigned short)sl;
    }
#undef DIG
    /* the tiles before, for digit d: LB_W descriptors in flight at once, folded up to the nearest inclusive one */
    unsigned long long prior = 0;
    if (t > 0) {
        for (long long p = (long long)t - 1;; p -= LB_W) {
            unsigned w[LB_W];
#pragma unroll
            for (int i = 0; i < LB_W; i++)
                w[i] = p - i >= 0 ? lb_word_get(look + (size_t)(p - i) * RADIX + d) : ST_INCL; /* before tile 0: 0 */
            bool done = false;
#pragma unroll
            for (int i = 0; i < LB_W; i++)
                if (!done) {
                    while ((w[i] & ~CNT_MASK) == 0) w[i] = lb_word_get(look + (size_t)(p - i) * RADIX + d);
                    prior += w[i] & CNT_MASK;
                    done = (w[i] & ~CNT_MASK) == ST_INCL;
                }
            if (done) break;
        }
        lb_word_put(dsc + d, ST_INCL | (unsigned)(prior + c));
    }
    s_delta[d] = dstart + prior - loc;
    __syncthreads();
    /* 4. stored from the stage: a digit's run goes out together (places past cnt hold a last tile's padding) */
    if (full) {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const unsigned i = k * THREADS + threadIdx.x;
            kout[s_delta[s_dig[i]] + i] = s_k[i];
        }
    } else
        for (unsigned i = threadIdx.x; i < cnt; i += THREADS) kout[s_delta[s_dig[i]] + i] = s_k[i];
    if constexpr (VS > 0) {
        V *s_v = reinterpret_cast<V *>(s_stage); /* the keys' stage, once they are out */
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if (full || (unsigned)(k * 32 + lane) < wlim) {
                const size_t e = seg + k * 32 + lane;
                V v;
                if constexpr (IDX) v = (V)(b + e);
                else v = static_cast<const V *>(vin)[b + e];
                s_v[s_slot[warp * 32 * ITEMS + k * 32 + lane]] = v;
            }
        __syncthreads();
        V *vo = static_cast<V *>(vout);
        if (full) {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const unsigned i = k * THREADS + threadIdx.x;
                vo[s_delta[s_dig[i]] + i] = s_v[i];
            }
        } else
            for (unsigned i = threadIdx.x; i < cnt; i += THREADS) vo[s_delta[s_dig[i]] + i] = s_v[i];
    }
}

#if GP_SORT_SMALL /* compiled only when the knob asks for it */
/* ---- small n: one launch, one cluster of C <= 16 blocks (k_small). Block r holds elements [r * S_TILE, (r + 1) *
 * S_TILE) of the current order; per pass it ranks them as a tile above does, the blocks' digit counts meet in
 * distributed shared memory (no look-back), and the elements go straight to their places; two cluster barriers a pass.
 * The keys of a pass are all loaded before its first barrier and stored after it, so they move in place in kout;
 * values are loaded after it, so they alternate between vout and vtmp (the host keeps vin off the first pass's
 * destination). Loads go through L2 (another SM stored the data). */
constexpr int S_THREADS = 1024, S_WARPS = S_THREADS / 32, S_ITEMS = 8, S_TILE = S_THREADS * S_ITEMS;

template <typename T> __device__ __forceinline__ T ld_l2(const T *p)
{
    if constexpr (sizeof(T) == 16) {
        const unsigned long long *q = reinterpret_cast<const unsigned long long *>(p);
        T v;
        v.a = __ldcg(q), v.b = __ldcg(q + 1);
        return v;
    } else
        return __ldcg(p);
}

template <typename K, int VS, bool IDX>
__global__ void __launch_bounds__(S_THREADS, 1)
    k_small(const K *kin, K *kout, const void *vin, void *vout, void *vtmp, unsigned n, Xf<K> xf, int lo, int hi)
{
    namespace cg = cooperative_groups;
    typedef typename ValT<VS>::T V;
    __shared__ unsigned s_wc[S_WARPS][RADIX]; /* per warp: digit counts, then the warps before it */
    __shared__ unsigned s_cnt[RADIX];         /* this block's count of each digit: the cluster reads it */
    __shared__ unsigned s_base[RADIX];        /* where this block's elements of digit d begin in the output */
    __shared__ unsigned s_w[S_WARPS];
    cg::cluster_group cl = cg::this_cluster();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tid = threadIdx.x;
    const unsigned r = cl.block_rank(), C = cl.num_blocks();
    const unsigned seg = r * S_TILE + warp * 32 * S_ITEMS;
    const unsigned wlim = seg >= n ? 0u : n - seg < 32u * S_ITEMS ? n - seg : 32u * S_ITEMS;
    const unsigned mine = r * S_TILE >= n ? 0u : n - r * S_TILE < (unsigned)S_TILE ? n - r * S_TILE : S_TILE;
    const unsigned le = (2u << lane) - 1u;
    const int P = (hi - lo + 7) / 8;
    const void *vsrc = vin;
    for (int j = 0; j < P; j++) {
        const int shift = lo + 8 * j, bits = hi - shift < 8 ? hi - shift : 8;
        const unsigned mask = (1u << bits) - 1;
        const K *ksrc = j == 0 ? kin : kout;
        void *vdst = (P - 1 - j) % 2 == 0 ? vout : vtmp;
        for (int i = tid; i < S_WARPS * RADIX; i += S_THREADS) (&s_wc[0][0])[i] = 0;
        if (tid < RADIX) s_cnt[tid] = 0;
        __syncthreads();
        K key[S_ITEMS];
        unsigned dw[S_ITEMS / 4], rk[S_ITEMS];
#pragma unroll
        for (int k = 0; k < S_ITEMS; k++)
            key[k] = (unsigned)(k * 32 + lane) < wlim ? ld_l2(ksrc + seg + k * 32 + lane) : (K)0;
        if (xf.inf) tile_digits<true, false>(key, dw, xf, shift, mask, lane, wlim);
        else tile_digits<false, false>(key, dw, xf, shift, mask, lane, wlim);
#define DIG(k) ((dw[(k) / 4] >> (8 * ((k) % 4))) & 0xffu)
#pragma unroll
        for (int k = 0; k < S_ITEMS; k++) atomicAdd(&s_cnt[DIG(k)], 1u);
#pragma unroll
        for (int k = 0; k < S_ITEMS; k++) {
            const unsigned pe = match_digit(DIG(k)), below = __popc(pe & le);
            const int last = 31 - __clz(pe);
            unsigned old = 0;
            if (lane == last) old = atomicAdd(&s_wc[warp][DIG(k)], below);
            rk[k] = __shfl_sync(0xffffffffu, old, last) + below - 1u;
        }
        __syncthreads();
        if (tid < RADIX) {
            unsigned run = 0;
#pragma unroll 8
            for (int w = 0; w < S_WARPS; w++) {
                const unsigned x = s_wc[w][tid];
                s_wc[w][tid] = run;
                run += x;
            }
            if (tid == RADIX - 1) s_cnt[tid] -= (unsigned)S_TILE - mine; /* the padding's digit 255 */
        }
        cl.sync(); /* 1: every block's counts are final; every load of this pass's keys is done */
        unsigned tot = 0, before = 0;
        if (tid < RADIX)
#pragma unroll 4
            for (unsigned q = 0; q < C; q++) {
                const unsigned c = *cl.map_shared_rank(&s_cnt[tid], q);
                tot += c;
                before += q < r ? c : 0u;
            }
        unsigned x = tot; /* the digits' starts: an exclusive scan of tot over threads 0 .. 255 */
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o) x += y;
        }
        if (lane == 31) s_w[warp] = x;
        __syncthreads();
        if (tid < RADIX) {
            unsigned pre = 0;
            for (int w = 0; w < warp; w++) pre += s_w[w];
            s_base[tid] = pre + x - tot + before;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < S_ITEMS; k++)
            if ((unsigned)(k * 32 + lane) < wlim) {
                const unsigned e = seg + k * 32 + lane, pos = s_base[DIG(k)] + s_wc[warp][DIG(k)] + rk[k];
                kout[pos] = key[k];
                if constexpr (VS > 0) {
                    V v;
                    if constexpr (IDX) v = j == 0 ? (V)e : ld_l2(static_cast<const V *>(vsrc) + e);
                    else v = ld_l2(static_cast<const V *>(vsrc) + e);
                    static_cast<V *>(vdst)[pos] = v;
                }
            }
#undef DIG
        vsrc = vdst;
        cl.sync(); /* 2: this pass's stores are seen by every block, and its counts read */
    }
}
#endif

inline size_t align256(size_t x) { return (x + 255) / 256 * 256; }

/* the kernel's dynamic shared memory allowed once per device (a per-function attribute; setting it again is harmless,
 * so racing threads may both set it) */
template <typename K, int VS, bool IDX> gp_status_t smem_ready(const gp_ctx_t *ctx, size_t smem)
{
    static unsigned long long done; /* bit: device ordinal (mod 64) */
    const unsigned long long bit = 1ull << (ctx->device & 63);
    if (!(__atomic_load_n(&done, __ATOMIC_RELAXED) & bit)) {
        const cudaError_t e =
            cudaFuncSetAttribute((const void *)k_onesweep<K, VS, IDX>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort (shared memory)", __FILE__, __LINE__);
        __atomic_fetch_or(&done, bit, __ATOMIC_RELAXED);
    }
    return GP_OK;
}

#if GP_SORT_SMALL
/* whether one cluster of C blocks of k_small<K, VS, IDX> fits this device now (asked at each call: the path is a knob,
 * GP_SORT_SMALL) */
template <typename K, int VS, bool IDX> bool small_cluster_fits_of(int C, cudaStream_t s)
{
    int ncl = 0;
    return gp__cluster_capacity((const void *)k_small<K, VS, IDX>, C, S_THREADS, 0, s, &ncl) == GP_OK && ncl > 0;
}
template <typename K, int VS> bool small_cluster_fits(bool idx, int C, cudaStream_t s)
{
    if constexpr (VS == 4 || VS == 8)
        if (idx) return small_cluster_fits_of<K, VS, true>(C, s);
    return small_cluster_fits_of<K, VS, false>(C, s);
}
#endif

/* the workspace: the counts, the tickets, two launches' look-back words, the digit starts, then a copy of the keys
 * (two for an argsort, which has no keys_out) and a copy of the values */
struct Layout {
    size_t Q, ptiles_max, hb, tb, lb, sb, h1, front, kb, total;
};
inline Layout layout(size_t ks, int tile, size_t n, size_t vs, bool argsort, int P)
{
    Layout L;
    L.Q = (n + PORTION - 1) / PORTION;
    L.ptiles_max = ((n < PORTION ? n : PORTION) + tile - 1) / tile;
    L.hb = align256(L.Q * P * RADIX * 4), L.tb = align256((size_t)P * L.Q * 4);
    L.lb = align256(L.ptiles_max * RADIX * 4), L.sb = align256(L.Q * P * RADIX * 8);
    L.h1 = L.Q > 1 ? align256(L.Q * RADIX * 4) : 0; /* one pass's counts per portion, taken again (Q > 1) */
    L.front = L.hb + L.tb + 2 * L.lb + L.sb + L.h1;
    L.kb = align256(n * ks);
    L.total = L.front + L.kb * (argsort ? 2 : 1) + align256(n * vs);
    return L;
}
inline int tile_of(size_t ks) { return THREADS * (ks == 8 ? Shape<8>::ITEMS : Shape<4>::ITEMS); }

/* a kernel of the passes, THREADS a block: a programmatic dependent of the kernel before it where GP_SORT_PDL */
template <typename... P, typename... A>
cudaError_t launch(const gp_ctx_t *ctx, void (*k)(P...), dim3 grid, size_t smem, cudaStream_t s, A &&...args)
{
    if (GP_SORT_PDL) return gp__launch_pdl(ctx, k, grid, THREADS, smem, s, static_cast<A &&>(args)...);
    k<<<grid, THREADS, smem, s>>>(static_cast<A &&>(args)...);
    return cudaSuccess;
}

/* n <= gp_rank::Max: one launch of k_rank (rank_small.cuh), after a copy of an input that is also the output */
template <typename K, int VS>
gp_status_t rank_sort(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *keys_in, void *keys_out, const void *vals_in,
                      void *vals_out, bool argsort, int desc, int lo, int hi, cudaStream_t s)
{
    typedef typename ValT<VS>::T V;
    const RKey<K> x = rkey_of<K>(dt, desc);
    const K *ki = (const K *)keys_in;
    K *ko = argsort ? NULL : (K *)keys_out;
    const V *vi = argsort ? NULL : (const V *)vals_in;
    if ((ko && (const void *)ko == keys_in) || (VS && !argsort && vals_out == vals_in)) { /* set aside */
        const size_t kb = align256(n * sizeof(K));
        void *ws = NULL;
        GP_TRY_RET(gp__workspace(ctx, kb + n * VS, &ws));
        cudaError_t e = cudaMemcpyAsync(ws, keys_in, n * sizeof(K), cudaMemcpyDeviceToDevice, s);
        if (e == cudaSuccess && VS && !argsort)
            e = cudaMemcpyAsync((char *)ws + kb, vals_in, n * VS, cudaMemcpyDeviceToDevice, s);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort: the input set aside", __FILE__, __LINE__);
        ki = (const K *)ws;
        if (VS && !argsort) vi = (const V *)((char *)ws + kb);
    }
    const unsigned m = (unsigned)n;
    cudaError_t e;
    if constexpr (VS == 0) e = gp_rank::launch<K, V, gp_rank::NO_VALUES>(ctx, s, 1, ki, ko, vi, NULL, m, m, x, lo, hi);
    else if (argsort) {
        if constexpr (VS == 4 || VS == 8)
            e = gp_rank::launch<K, V, gp_rank::POSITIONS>(ctx, s, 1, ki, ko, vi, (V *)vals_out, m, m, x, lo, hi);
        else return gp__error(GP_ERR_INTERNAL, "gp_sort: an argsort of %d-byte positions", VS);
    } else e = gp_rank::launch<K, V, gp_rank::VALUES>(ctx, s, 1, ki, ko, vi, (V *)vals_out, m, m, x, lo, hi);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort (ranks)", __FILE__, __LINE__);
    return GP_CHECK_LAUNCH("gp_sort (ranks)");
}

template <typename K, int VS>
gp_status_t passes(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *keys_in, void *keys_out, const void *vals_in,
                   void *vals_out, bool argsort, int desc, int lo, int hi, cudaStream_t s, unsigned long long add = 0)
{
    constexpr int TILE = THREADS * Shape<sizeof(K)>::ITEMS;
    static_assert(TILE == (sizeof(K) == 8 ? THREADS * Shape<8>::ITEMS : THREADS * Shape<4>::ITEMS), "tile_of");
    if (n <= gp_rank::Max<sizeof(K)>::N) {
        if (add) return gp__error(GP_ERR_INTERNAL, "gp_sort: an offset key range of %zu keys (the ranks' size)", n);
        return rank_sort<K, VS>(ctx, dt, n, keys_in, keys_out, vals_in, vals_out, argsort, desc, lo, hi, s);
    }
    const int P = (hi - lo + 7) / 8;
    const Layout Ly = layout(sizeof(K), TILE, n, VS, argsort, P);
    const size_t Q = Ly.Q, kb = n * sizeof(K), vb = n * VS, hb = Ly.hb, tb = Ly.tb, lb = Ly.lb, front = Ly.front;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, Ly.total, &ws));
    char *w = (char *)ws;
    unsigned *hist = (unsigned *)w, *tickets = (unsigned *)(w + hb), *look[2] = {(unsigned *)(w + hb + tb),
                                                                               (unsigned *)(w + hb + tb + lb)};
    unsigned long long *start = (unsigned long long *)(w + hb + tb + 2 * lb);
    unsigned *hist1 = (unsigned *)(w + hb + tb + 2 * lb + Ly.sb);
    K *tmpk = (K *)(w + front), *outk = argsort ? (K *)(w + front + Ly.kb) : (K *)keys_out;
    void *tmpv = VS ? (void *)(w + front + Ly.kb * (argsort ? 2 : 1)) : NULL;
    const K *sk = (const K *)keys_in;
    const void *sv = argsort ? NULL : vals_in;
    const Xf<K> xf = xf_of<K>(dt, desc, add);
    cudaError_t e;
#if GP_SORT_SMALL
    if (n <= (size_t)16 * S_TILE) {
        const bool idx0 = argsort && (VS == 4 || VS == 8);
        const size_t C = (n + S_TILE - 1) / S_TILE;
        if (small_cluster_fits<K, VS>(idx0, (int)C, s)) {
            if (VS && !argsort && vals_in == vals_out && (P - 1) % 2 == 0) { /* the first pass would store over vin */
                if ((e = cudaMemcpyAsync(tmpv, vals_in, vb, cudaMemcpyDeviceToDevice, s)) != cudaSuccess)
                    return gp__cuda_error(e, "gp_sort: the values set aside", __FILE__, __LINE__);
                sv = tmpv;
            }
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute at;
            gp__cluster_config(&cfg, &at, (int)C, C, S_THREADS, 0, s);
            if (idx0) {
                if constexpr (VS == 4 || VS == 8)
                    e = cudaLaunchKernelEx(&cfg, k_small<K, VS, true>, sk, outk, sv, vals_out, tmpv, (unsigned)n, xf,
                                           lo, hi);
            } else
                e = cudaLaunchKernelEx(&cfg, k_small<K, VS, false>, sk, outk, sv, vals_out, tmpv, (unsigned)n, xf, lo,
                                       hi);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort (one cluster)", __FILE__, __LINE__);
            return GP_CHECK_LAUNCH("gp_sort (one cluster)");
        }
    }
#endif
    /* one memset: the counts, the tickets, the first launch's descriptors (each launch zeroes the next one's) */
    if ((e = cudaMemsetAsync(w, 0, hb + tb + lb, s)) != cudaSuccess)
        return gp__cuda_error(e, "gp_sort (counts)", __FILE__, __LINE__);
    const size_t hbx = (size_t)ctx->sm_count * HIST_BLOCKS_PER_SM, hchunk = (size_t)HIST_LOADS * THREADS;
    const size_t hneed = ((n < PORTION ? n : PORTION) + hchunk - 1) / hchunk;
    const unsigned hgrid = (unsigned)(hneed < hbx ? hneed : hbx);
    {
        if ((e = launch(ctx, k_hist<K>, dim3(hgrid, (unsigned)Q), 0, s, sk, n, xf, lo, hi, P, hist)) != cudaSuccess)
            return gp__cuda_error(e, "gp_sort (digit counts)", __FILE__, __LINE__);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (digit counts)"));
        if ((e = launch(ctx, k_starts, dim3(P), 0, s, (const unsigned *)hist, P, (int)Q, start)) != cudaSuccess)
            return gp__cuda_error(e, "gp_sort (digit starts)", __FILE__, __LINE__);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (digit starts)"));
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
    const size_t smem = (size_t)TILE * (sizeof(K) > VS ? sizeof(K) : VS);
    for (int j = 0; j < P; j++) {
        const bool to_out = (P - 1 - j) % 2 == 0;
        K *dk = to_out ? outk : tmpk;
        void *dv = to_out ? vals_out : tmpv;
        const int shift = lo + 8 * j, bits = hi - shift < 8 ? hi - shift : 8;
        const unsigned mask = (1u << bits) - 1;
        if (j > 0 && Q > 1) { /* this pass's input is the last pass's output: its portions' counts of digit j anew */
            if ((e = cudaMemsetAsync(hist1, 0, Q * RADIX * 4, s)) != cudaSuccess)
                return gp__cuda_error(e, "gp_sort (counts)", __FILE__, __LINE__);
            if ((e = launch(ctx, k_hist<K>, dim3(hgrid, (unsigned)Q), 0, s, sk, n, xf, shift, shift + bits, 1, hist1)) !=
                cudaSuccess)
                return gp__cuda_error(e, "gp_sort (digit counts)", __FILE__, __LINE__);
            GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (digit counts)"));
            if ((e = launch(ctx, k_starts, dim3(1), 0, s, (const unsigned *)hist1, 1, (int)Q,
                            start + (size_t)j * Q * RADIX)) != cudaSuccess)
                return gp__cuda_error(e, "gp_sort (digit starts)", __FILE__, __LINE__);
            GP_TRY_RET(GP_CHECK_LAUNCH("gp_sort (digit starts)"));
        }
        for (size_t q = 0; q < Q; q++) {
            const size_t b = q * PORTION, pn = n - b < PORTION ? n - b : PORTION, pt = (pn + TILE - 1) / TILE;
            const size_t L = (size_t)j * Q + q, nb = (q + 1 < Q ? q + 1 : 0) * PORTION; /* the next launch's start */
            const size_t nn = n - nb < PORTION ? n - nb : PORTION; /* the next launch's elements */
            const unsigned pt_next = L + 1 == (size_t)P * Q ? 0u : (unsigned)((nn + TILE - 1) / TILE);
            unsigned *tk = tickets + L, *lk = look[L % 2], *ln = look[(L + 1) % 2];
            bool idx = false;
            if constexpr (VS == 4 || VS == 8) idx = argsort && j == 0;
            if (idx) {
                if constexpr (VS == 4 || VS == 8) {
                    GP_TRY_RET((smem_ready<K, VS, true>(ctx, smem)));
                    e = launch(ctx, k_onesweep<K, VS, true>, dim3((unsigned)pt), smem, s, (const K *)sk, dk,
                               (const void *)sv, dv, b, pn, xf, shift, mask,
                               (const unsigned long long *)(start + L * RADIX), tk, lk, ln, pt_next);
                }
            } else {
                GP_TRY_RET((smem_ready<K, VS, false>(ctx, smem)));
                e = launch(ctx, k_onesweep<K, VS, false>, dim3((unsigned)pt), smem, s, (const K *)sk, dk,
                           (const void *)sv, dv, b, pn, xf, shift, mask, (const unsigned long long *)(start + L * RADIX),
                           tk, lk, ln, pt_next);
            }
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_sort (pass)", __FILE__, __LINE__);
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
    const bool arg = gp__sort_is_argsort(vals_in, vsize);
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

extern "C" size_t gp__sort_gpu_workspace_bytes(gp_dtype_t kt, size_t n, size_t vsize, int argsort)
{
    const size_t ks = gp_dtype_size(kt);
    return n ? layout(ks, tile_of(ks), n, vsize, argsort != 0, (int)ks).total : 0;
}

extern "C" gp_status_t gp__sort_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out,
                                    size_t vsize, const void *vals_in, void *vals_out, int descending, int lo_bit,
                                    int hi_bit, cudaStream_t stream)
{
    const bool arg = gp__sort_is_argsort(vals_in, vsize);
    if (arg && keys_out != NULL) return gp__error(GP_ERR_INTERNAL, "gp_sort: an argsort with keys_out");
    switch (gp_dtype_size(kt)) {
    case 1: return by_values<uint8_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    case 2: return by_values<uint16_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    case 4: return by_values<uint32_t>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    default: return by_values<unsigned long long>(ctx, kt, n, keys_in, keys_out, vsize, vals_in, vals_out, descending, lo_bit, hi_bit, stream);
    }
}

extern "C" gp_status_t gp__sort_gpu_keys_add(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in,
                                             void *keys_out, uint64_t add, int lo_bit, int hi_bit, cudaStream_t stream)
{
    const void *ki = keys_in;
    void *ko = keys_out;
    switch (gp_dtype_size(kt)) {
    case 1: return passes<uint8_t, 0>(ctx, kt, n, ki, ko, NULL, NULL, false, 0, lo_bit, hi_bit, stream, add);
    case 2: return passes<uint16_t, 0>(ctx, kt, n, ki, ko, NULL, NULL, false, 0, lo_bit, hi_bit, stream, add);
    case 4: return passes<uint32_t, 0>(ctx, kt, n, ki, ko, NULL, NULL, false, 0, lo_bit, hi_bit, stream, add);
    default:
        return passes<unsigned long long, 0>(ctx, kt, n, ki, ko, NULL, NULL, false, 0, lo_bit, hi_bit, stream, add);
    }
}
