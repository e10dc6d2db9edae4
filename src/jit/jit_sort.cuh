/*
 * jit_sort.cuh — gp_sort_uop on the GPU: a stable merge sort by the user's `less` (embedded by src/jit/uop.c after
 * the comparator's preamble: GPJ_KEY, gpj_less, GPJ_IPT, GPJ_VB). docs/design/jit.md "Sorting by a comparator".
 *   gpj_bsort  one tile of GPJ_BST x GPJ_IPT keys per block: each lane sorts its GPJ_IPT keys in registers
 *              (odd-even transposition, stable), then log2(GPJ_BST) rounds merge lists of lanes through shared
 *              memory (a round in a block costs far less than a global pass: the largest tile that fits);
 *   gpj_part   the merge-path split of every output tile of one global pass (runs of w merged in pairs), a warp
 *              per tile probing 32 places at a time;
 *   gpj_merge  one output tile per block: its slices of the two runs staged in shared memory, each lane merging
 *              GPJ_IPT outputs from its own split.
 * Ties take the first run's key (the earlier input) first, so the sort is stable. With values, keys are merged with
 * their places in the staged tile and each value moves once per pass, gathered through shared memory.
 */
#define GPJ_ST 256
#define GPJ_TILE (GPJ_ST * GPJ_IPT)                 /* a merge's output tile */
#define GPJ_BTILE (GPJ_BST * GPJ_IPT)               /* a block sort's tile (GPJ_BST lanes: 512 where it fits) */
#define GPJ_BSMEM (GPJ_BTILE + GPJ_BTILE / 32)
#if GPJ_VB /* a kernel's shared arrays of places and values (none without values) */
#define GPJ_SI si
#define GPJ_SV sv
#else
#define GPJ_SI ((int *)0)
#define GPJ_SV ((const GPJ_V *)0)
#endif
/* A tile's element i lives at GPJ_P(i) in shared memory: one spare slot per 32 elements, so the lanes of a warp
 * reading or writing their GPJ_IPT consecutive elements (a stride of GPJ_IPT) meet distinct banks. */
#define GPJ_P(i) ((i) + ((i) >> 5))
#define GPJ_SMEM (GPJ_TILE + GPJ_TILE / 32)

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

/* Elements of s[a0, a0 + na) taken before the diag-th output of the stable merge with s[b0, b0 + nb) (logical
 * places in shared memory; a's keys first on ties): the merge-path split. The step is a select, not a branch, so the
 * lanes of a warp stay together. */
static __device__ __forceinline__ int gpj_split_s(const GPJ_KEY *s, int a0, int na, int b0, int nb, int diag)
{
    int lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        const bool left = gpj_less(s[GPJ_P(b0 + diag - 1 - mid)], s[GPJ_P(a0 + mid)]);
        hi = left ? mid : hi;
        lo = left ? lo : mid + 1;
    }
    return lo;
}

/* GPJ_IPT outputs of the merge of s[ia, aend) and s[ib, bend) (logical places in shared memory, aend <= ib) into k,
 * with their places; past both ends the outputs are not used. Branch-free: every step compares, selects, advances
 * one side and reads that side's next key (a place past its end reads some other key of the tile, never used). */
static __device__ __forceinline__ void gpj_serial(const GPJ_KEY *s, int ia, int aend, int ib, int bend,
                                                  GPJ_KEY (&k)[GPJ_IPT], int (&at)[GPJ_IPT])
{
    const int last = bend > 0 ? bend - 1 : 0;
    GPJ_KEY ka = s[GPJ_P(ia < last ? ia : last)], kb = s[GPJ_P(ib < last ? ib : last)];
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++) {
        const bool takeb = (ib < bend) & ((ia >= aend) | (gpj_less(kb, ka) != 0));
        k[i] = takeb ? kb : ka;
        at[i] = takeb ? ib : ia;
        ib += takeb;
        ia += !takeb;
        const int nx = takeb ? ib : ia;
        const GPJ_KEY x = s[GPJ_P(nx < last ? nx : last)];
        kb = takeb ? x : kb;
        ka = takeb ? ka : x;
    }
}

/* A lane's GPJ_IPT sorted keys (and their places, with values) into the tile in shared memory. */
static __device__ __forceinline__ void gpj_put(GPJ_KEY *sk, int *si, const GPJ_KEY (&k)[GPJ_IPT],
                                               const int (&at)[GPJ_IPT], int my0, int myn)
{
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++)
        if (i < myn) {
            sk[GPJ_P(my0 + i)] = k[i];
            if (GPJ_VB) si[GPJ_P(my0 + i)] = at[i];
        }
    (void)si;
}

/* The tile out, lane-strided: keys, and the values gathered by the places the keys carry. */
template <int NT>
static __device__ __forceinline__ void gpj_store(const GPJ_KEY *sk, const int *si, const GPJ_V *sv, int t, int cnt,
                                                 GPJ_KEY *ko, GPJ_V *vo)
{
#pragma unroll
    for (int j = 0; j < GPJ_IPT; j++) {
        const int i = t + j * NT;
        if (i < cnt) {
            ko[i] = sk[GPJ_P(i)];
            if (GPJ_VB) vo[i] = sv[GPJ_P(si[GPJ_P(i)])];
        }
    }
    (void)si, (void)sv, (void)vo;
}

/* Lane t's GPJ_IPT strided elements i = t + 256 j of a tile of cnt (all loads issued before any is stored). */
#define GPJ_STAGE(T, NT, dst, src, cnt)                                                                               \
    do {                                                                                                           \
        T r_[GPJ_IPT];                                                                                             \
        _Pragma("unroll") for (int j_ = 0; j_ < GPJ_IPT; j_++) {                                                   \
            const int i_ = t + j_ * (NT);                                                                          \
            if (i_ < (cnt)) r_[j_] = src;                                                                          \
        }                                                                                                          \
        _Pragma("unroll") for (int j_ = 0; j_ < GPJ_IPT; j_++) {                                                   \
            const int i_ = t + j_ * (NT);                                                                          \
            if (i_ < (cnt)) dst[GPJ_P(i_)] = r_[j_];                                                               \
        }                                                                                                          \
    } while (0)

extern "C" __global__ void __launch_bounds__(GPJ_BST) gpj_bsort(const GPJ_KEY *keys, const GPJ_V *vals,
                                                                unsigned long long n, GPJ_KEY *ko, GPJ_V *vo)
{
    __shared__ GPJ_KEY sk[GPJ_BSMEM];
#if GPJ_VB
    __shared__ int si[GPJ_BSMEM];
    __shared__ GPJ_V sv[GPJ_BSMEM];
#endif
    const unsigned long long base = (unsigned long long)blockIdx.x * GPJ_BTILE;
    const int cnt = n - base < (unsigned long long)GPJ_BTILE ? (int)(n - base) : GPJ_BTILE;
    const int t = threadIdx.x, my0 = t * GPJ_IPT;
    const int myn = cnt - my0 >= GPJ_IPT ? GPJ_IPT : cnt - my0 > 0 ? cnt - my0 : 0;
    GPJ_STAGE(GPJ_KEY, GPJ_BST, sk, keys[base + i_], cnt);
#if GPJ_VB
    GPJ_STAGE(GPJ_V, GPJ_BST, sv, vals[base + i_], cnt);
#endif
    __syncthreads();
    GPJ_KEY k[GPJ_IPT];
    int at[GPJ_IPT];
#pragma unroll
    for (int i = 0; i < GPJ_IPT; i++) {
        if (i < myn) k[i] = sk[GPJ_P(my0 + i)];
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
    for (int w = GPJ_IPT; w < GPJ_BTILE; w *= 2) {
        __syncthreads();
        gpj_put(sk, GPJ_SI, k, at, my0, myn);
        __syncthreads();
        if (myn > 0) {
            const int start = my0 / (2 * w) * (2 * w);
            const int a1 = start + w < cnt ? start + w : cnt, b1 = start + 2 * w < cnt ? start + 2 * w : cnt;
            const int diag = my0 - start;
            const int sp = gpj_split_s(sk, start, a1 - start, a1, b1 - a1, diag);
            int pos[GPJ_IPT];
            gpj_serial(sk, start + sp, a1, a1 + diag - sp, b1, k, pos);
#if GPJ_VB
#pragma unroll
            for (int i = 0; i < GPJ_IPT; i++) at[i] = i < myn ? si[GPJ_P(pos[i])] : 0;
#else
            (void)pos;
#endif
        }
    }
    __syncthreads();
    gpj_put(sk, GPJ_SI, k, at, my0, myn);
    __syncthreads();
    gpj_store<GPJ_BST>(sk, GPJ_SI, GPJ_SV, t, cnt, ko + base, vo + (GPJ_VB ? base : 0));
}

/* parts[t] = the split of output tile t of a pass over runs of w (t < ntiles): a warp per tile, each step probing
 * 32 places of the diagonal and keeping the gap between the last "a first" and the first "b first" (the searches
 * are chains of dependent loads: a 32-way step takes a fifth of the binary search's steps) */
extern "C" __global__ void __launch_bounds__(GPJ_ST) gpj_part(const GPJ_KEY *k, unsigned long long n,
                                                              unsigned long long w, unsigned long long ntiles,
                                                              unsigned long long *parts)
{
    const unsigned long long t = ((unsigned long long)blockIdx.x * GPJ_ST + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (t >= ntiles) return; /* the whole warp */
    const unsigned long long pos = t * GPJ_TILE, start = pos / (2 * w) * (2 * w);
    const unsigned long long a1 = start + w < n ? start + w : n, b1 = start + 2 * w < n ? start + 2 * w : n;
    const unsigned long long na = a1 - start, nb = b1 - a1, diag = pos - start;
    const GPJ_KEY *a = k + start, *b = k + a1;
    unsigned long long lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) { /* the answer is the first place whose b key goes before its a key; hi counts as one */
        const unsigned long long step = (hi - lo + 31) / 32, i = lo + (unsigned long long)lane * step;
        const bool bfirst = i >= hi || gpj_less(b[diag - 1 - i], a[i]);
        const unsigned m = __ballot_sync(0xffffffffu, bfirst);
        if (m == 0) {
            lo += 31 * step + 1;
        } else {
            const int f = __ffs(m) - 1;
            const unsigned long long at = lo + (unsigned long long)f * step;
            hi = at < hi ? at : hi;
            lo = f == 0 ? hi : lo + (unsigned long long)(f - 1) * step + 1;
        }
    }
    if (lane == 0) parts[t] = lo;
}

extern "C" __global__ void __launch_bounds__(GPJ_ST) gpj_merge(const GPJ_KEY *k, const GPJ_V *v, unsigned long long n,
                                                               unsigned long long w, const unsigned long long *parts,
                                                               GPJ_KEY *ko, GPJ_V *vo)
{
    __shared__ GPJ_KEY sk[GPJ_SMEM];
#if GPJ_VB
    __shared__ int si[GPJ_SMEM];
    __shared__ GPJ_V sv[GPJ_SMEM];
#endif
    const unsigned long long tile = blockIdx.x, pos = tile * GPJ_TILE, start = pos / (2 * w) * (2 * w);
    const unsigned long long a1 = start + w < n ? start + w : n, gend = start + 2 * w < n ? start + 2 * w : n;
    const unsigned long long end = pos + GPJ_TILE < gend ? pos + GPJ_TILE : gend;
    const unsigned long long ia0 = parts[tile], ib0 = pos - start - ia0;
    /* the tile's end in the first run: the next tile's split, or the whole run where the tile ends the group */
    const unsigned long long ia1 = end < gend ? parts[tile + 1] : a1 - start;
    const int la = (int)(ia1 - ia0), cnt = (int)(end - pos);
    const unsigned long long fa = start + ia0, fb = a1 + ib0 - la; /* tile element i < la: fa + i, else fb + i */
    const int t = threadIdx.x, my0 = t * GPJ_IPT;
    const int myn = cnt - my0 >= GPJ_IPT ? GPJ_IPT : cnt - my0 > 0 ? cnt - my0 : 0;
    GPJ_STAGE(GPJ_KEY, GPJ_ST, sk, k[(i_ < la ? fa : fb) + i_], cnt);
#if GPJ_VB
    GPJ_STAGE(GPJ_V, GPJ_ST, sv, v[(i_ < la ? fa : fb) + i_], cnt);
#endif
    __syncthreads();
    GPJ_KEY r[GPJ_IPT];
    int pos_[GPJ_IPT];
    if (myn > 0) {
        const int sp = gpj_split_s(sk, 0, la, la, cnt - la, my0);
        gpj_serial(sk, sp, la, la + my0 - sp, cnt, r, pos_);
    }
    __syncthreads();
    gpj_put(sk, GPJ_SI, r, pos_, my0, myn);
    __syncthreads();
    gpj_store<GPJ_ST>(sk, GPJ_SI, GPJ_SV, t, cnt, ko + pos, vo + (GPJ_VB ? pos : 0));
}
