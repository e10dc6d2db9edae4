/*
 * radix_key.cuh — gp__sort_xf's radix key (sort_internal.h) on the GPU at the key's own width, for the sort family's
 * kernels outside sort.cu (searchsorted, top-k, segmented); sort.cu specialises the same rule per loop (its Xf). Also
 * the warp's match of an 8-bit digit, which every radix ranking uses.
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
/* the radix key of bits b: equal keys equal, ordered as gp_sort orders them */
template <typename K> __device__ __forceinline__ K rkey(K b, const RKey<K> &x)
{
    constexpr K sign = (K)((K)1 << (8 * sizeof(K) - 1));
    K k;
    if (x.inf) {
        const K mag = (K)(b & (K)(sign - 1));
        k = mag > x.inf ? (K)~(K)0 : mag == 0 ? sign : (b & sign) ? (K)~b : (K)(b | sign);
    } else
        k = (K)(b ^ x.xr);
    return (K)(k ^ x.flip);
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

#endif
