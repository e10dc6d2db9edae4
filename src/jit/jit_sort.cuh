/*
 * jit_sort.cuh — gp_sort_uop on the GPU: a stable merge sort by the user's `less` (embedded by src/jit/uop.c after
 * the comparator's preamble: GPJ_KEY, gpj_less, GPJ_IPT, GPJ_VB). docs/design/jit.md "Sorting by a comparator".
 *   gpj_bsort  one tile of 256 x GPJ_IPT keys per block: each lane sorts its GPJ_IPT keys in registers (odd-even
 *              transposition, stable), then log2(256) rounds merge lists of lanes through shared memory;
 *   gpj_part   the merge-path split of every output tile of one global pass (runs of w merged in pairs);
 *   gpj_merge  one output tile per block: its slices of the two runs staged in shared memory, each lane merging
 *              GPJ_IPT outputs from its own split.
 * Ties take the first run's key (the earlier input) first, so the sort is stable. With values, keys are merged with
 * their places in the staged tile and each value moves once per pass, gathered through shared memory.
 */
#define GPJ_ST 256
#define GPJ_TILE (GPJ_ST * GPJ_IPT)

#if GPJ_VB == 1
typedef unsigned char GPJ_V;
#elif GPJ_VB == 2
typedef unsigned short GPJ_V;
#elif GPJ_VB == 4
typedef unsigned GPJ_V;
#elif GPJ_VB == 8
typedef unsigned long long GPJ_V;
#elif GPJ_VB == 16
typedef struct {
    unsigned long long lo, hi;
} GPJ_V;
#else
typedef unsigned char GPJ_V; /* keys only: never read */
#endif

/* Elements of a taken from [0, na) before the diag-th output of the stable merge of a and b (a's keys first on
 * ties): the merge-path split. */
template <typename I>
static __device__ __forceinline__ I gpj_split(const GPJ_KEY *a, I na, const GPJ_KEY *b, I nb, I diag)
{
    I lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) {
        const I mid = (lo + hi) >> 1;
        if (gpj_less(b[diag - 1 - mid], a[mid])) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* GPJ_IPT outputs of the merge of s[ia, aend) and s[ib, bend) (both in shared memory) into k, with their places in
 * s; past both ends the outputs are not used. */
static __device__ __forceinline__ void gpj_serial(const GPJ_KEY *s, int ia, int aend, int ib, int bend,
                                                  GPJ_KEY (&k)[GPJ_IPT], int (&at)[GPJ_IPT])
{
    GPJ_KEY ka, kb;
    if (ia < aend) ka = s[ia];
    if (ib < bend) kb = s[ib];
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++) {
        const bool takeb = ib < bend && (ia >= aend || gpj_less(kb, ka));
        k[i] = takeb ? kb : ka;
        at[i] = takeb ? ib : ia;
        if (takeb) {
            if (++ib < bend) kb = s[ib];
        } else {
            if (++ia < aend) ka = s[ia];
        }
    }
}

extern "C" __global__ void __launch_bounds__(GPJ_ST) gpj_bsort(const GPJ_KEY *keys, const GPJ_V *vals,
                                                               unsigned long long n, GPJ_KEY *ko, GPJ_V *vo)
{
    __shared__ GPJ_KEY sk[GPJ_TILE];
#if GPJ_VB
    __shared__ int si[GPJ_TILE];
    __shared__ GPJ_V sv[GPJ_TILE];
#endif
    const unsigned long long base = (unsigned long long)blockIdx.x * GPJ_TILE;
    const int cnt = n - base < (unsigned long long)GPJ_TILE ? (int)(n - base) : GPJ_TILE;
    const int t = threadIdx.x, my0 = t * GPJ_IPT;
    const int myn = cnt - my0 >= GPJ_IPT ? GPJ_IPT : cnt - my0 > 0 ? cnt - my0 : 0;
    for (int i = t; i < cnt; i += GPJ_ST) {
        sk[i] = keys[base + i];
#if GPJ_VB
        sv[i] = vals[base + i];
#endif
    }
    __syncthreads();
    GPJ_KEY k[GPJ_IPT];
    int at[GPJ_IPT];
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++) {
        if (i < myn) k[i] = sk[my0 + i];
        at[i] = my0 + i;
    }
    /* odd-even transposition: a swap only where the later key is strictly less keeps equal keys in order */
#pragma unroll
    for (int r = 0; r < GPJ_IPT; r++) {
#pragma unroll
        for (int j = r & 1; j + 1 < GPJ_IPT; j += 2) {
            if (j + 1 < myn && gpj_less(k[j + 1], k[j])) {
                const GPJ_KEY x = k[j];
                k[j] = k[j + 1];
                k[j + 1] = x;
                const int y = at[j];
                at[j] = at[j + 1];
                at[j + 1] = y;
            }
        }
    }
    for (int w = GPJ_IPT; w < GPJ_TILE; w *= 2) {
        __syncthreads();
#pragma unroll
        for (int i = 0; i < GPJ_IPT; i++)
            if (i < myn) {
                sk[my0 + i] = k[i];
#if GPJ_VB
                si[my0 + i] = at[i];
#endif
            }
        __syncthreads();
        if (myn > 0) {
            const int start = my0 / (2 * w) * (2 * w);
            const int a1 = start + w < cnt ? start + w : cnt, b1 = start + 2 * w < cnt ? start + 2 * w : cnt;
            const int diag = my0 - start;
            const int sp = gpj_split<int>(sk + start, a1 - start, sk + a1, b1 - a1, diag);
            int pos[GPJ_IPT];
            gpj_serial(sk, start + sp, a1, a1 + diag - sp, b1, k, pos);
#if GPJ_VB
#pragma unroll
            for (int i = 0; i < GPJ_IPT; i++) at[i] = i < myn ? si[pos[i]] : 0;
#else
            (void)pos;
#endif
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++)
        if (i < myn) {
            sk[my0 + i] = k[i];
#if GPJ_VB
            si[my0 + i] = at[i];
#endif
        }
    __syncthreads();
    for (int i = t; i < cnt; i += GPJ_ST) {
        ko[base + i] = sk[i];
#if GPJ_VB
        vo[base + i] = sv[si[i]];
#endif
    }
}

/* parts[t] = the split of output tile t of a pass over runs of w (t < ntiles) */
extern "C" __global__ void __launch_bounds__(GPJ_ST) gpj_part(const GPJ_KEY *k, unsigned long long n,
                                                              unsigned long long w, unsigned long long ntiles,
                                                              unsigned long long *parts)
{
    const unsigned long long t = (unsigned long long)blockIdx.x * GPJ_ST + threadIdx.x;
    if (t >= ntiles) return;
    const unsigned long long pos = t * GPJ_TILE, start = pos / (2 * w) * (2 * w);
    const unsigned long long a1 = start + w < n ? start + w : n, b1 = start + 2 * w < n ? start + 2 * w : n;
    parts[t] = gpj_split<unsigned long long>(k + start, a1 - start, k + a1, b1 - a1, pos - start);
}

extern "C" __global__ void __launch_bounds__(GPJ_ST) gpj_merge(const GPJ_KEY *k, const GPJ_V *v, unsigned long long n,
                                                               unsigned long long w, const unsigned long long *parts,
                                                               GPJ_KEY *ko, GPJ_V *vo)
{
    __shared__ GPJ_KEY sk[GPJ_TILE];
#if GPJ_VB
    __shared__ int si[GPJ_TILE];
    __shared__ GPJ_V sv[GPJ_TILE];
#endif
    const unsigned long long tile = blockIdx.x, pos = tile * GPJ_TILE, start = pos / (2 * w) * (2 * w);
    const unsigned long long a1 = start + w < n ? start + w : n, gend = start + 2 * w < n ? start + 2 * w : n;
    const unsigned long long end = pos + GPJ_TILE < gend ? pos + GPJ_TILE : gend;
    const unsigned long long ia0 = parts[tile], ib0 = pos - start - ia0;
    unsigned long long ia1 = a1 - start, ib1 = gend - a1;
    if (end < gend) {
        ia1 = parts[tile + 1];
        ib1 = end - start - ia1;
    }
    const int la = (int)(ia1 - ia0), cnt = (int)(end - pos);
    const GPJ_KEY *ka = k + start + ia0, *kb = k + a1 + ib0 - la; /* kb[i] for i in [la, cnt) */
    const int t = threadIdx.x, my0 = t * GPJ_IPT;
    const int myn = cnt - my0 >= GPJ_IPT ? GPJ_IPT : cnt - my0 > 0 ? cnt - my0 : 0;
    for (int i = t; i < cnt; i += GPJ_ST) {
        sk[i] = i < la ? ka[i] : kb[i];
#if GPJ_VB
        sv[i] = i < la ? v[start + ia0 + i] : v[a1 + ib0 - la + i];
#endif
    }
    __syncthreads();
    GPJ_KEY r[GPJ_IPT];
    int pos_[GPJ_IPT];
    if (myn > 0) {
        const int sp = gpj_split<int>(sk, la, sk + la, cnt - la, my0);
        gpj_serial(sk, sp, la, la + my0 - sp, cnt, r, pos_);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++)
        if (i < myn) {
            sk[my0 + i] = r[i];
#if GPJ_VB
            si[my0 + i] = pos_[i];
#endif
        }
    __syncthreads();
    for (int i = t; i < cnt; i += GPJ_ST) {
        ko[pos + i] = sk[i];
#if GPJ_VB
        vo[pos + i] = sv[si[i]];
#endif
    }
}
