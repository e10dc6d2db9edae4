/*
 * radix_key.cuh — gp__sort_xf's radix key (sort_internal.h) on the GPU at the key's own width, for the sort family's
 * kernels outside sort.cu (searchsorted, top-k, segmented); sort.cu specialises the same rule per loop (its Xf). Also
 * the warp's match of an 8-bit digit, which every radix ranking uses, and a block's exclusive prefix.
 */
#ifndef GP_RADIX_KEY_CUH
#define GP_RADIX_KEY_CUH

#include "sort_internal.h"

/* the three constants of gp__sort_xf at the width of K (an unsigned type of the key's bytes) */
template <typename K> struct RKey {
    K xr, inf, flip;
};
template <typename K> inline RKey<K> rkey_of(gp_dtype_t dt, int descending)
{
    const gp__sort_xf_t x = gp__sort_xf(dt, descending);
    return RKey<K>{(K)x.xr, (K)x.inf, (K)x.flip};
}
/* a float's radix key, ascending (inf: the type's infinity bits): every NaN above +inf, -0 and +0 one key (the
 * sign's), negatives below them reversed — gp__sort_xf_key's float rule, at the key's own width */
template <typename K> __device__ __forceinline__ K rkey_float(K b, K inf)
{
    constexpr K sign = (K)((K)1 << (8 * sizeof(K) - 1));
    const K mag = (K)(b & (K)(sign - 1));
    return mag > inf ? (K)~(K)0 : mag == 0 ? sign : (b & sign) ? (K)~b : (K)(b | sign);
}
/* the radix key of bits b: equal keys equal, ordered as gp_sort orders them */
template <typename K> __device__ __forceinline__ K rkey(K b, const RKey<K> &x)
{
    return (K)((x.inf ? rkey_float(b, x.inf) : (K)(b ^ x.xr)) ^ x.flip);
}

/* the lanes of the warp whose 8-bit digit equals this lane's: eight ballots, a fixed few cycles each (the match
 * instruction's time grows with the distinct values in the warp) */
__device__ __forceinline__ unsigned match8(unsigned dg)
{
    unsigned peers = 0xffffffffu;
#pragma unroll
    for (int bit = 0; bit < 8; bit++) { /* one statement a bit, kept in order: the compiler would hoist them all */
        unsigned m;
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "setp.ne.u32 p, %1, 0;\n\t"
                     "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
                     "@!p not.b32 %0, %0;\n\t}"
                     : "=r"(m)
                     : "r"(dg & (1u << bit)));
        peers &= m;
    }
    return peers;
}

/* exclusive prefix over a block of NT threads (one value each, a multiple of 32) and the total; s_w: NT / 32 words
 * of shared memory; every thread calls it (two barriers) */
template <typename T, int NT = 256> __device__ __forceinline__ T block_excl(T v, T *s_w, T *total = nullptr)
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
    for (int w = 0; w < NT / 32; w++) {
        const T c = s_w[w];
        before += w < warp ? c : (T)0;
        all += c;
    }
    __syncthreads();
    if (total) *total = all;
    return before + x - v;
}

#endif
