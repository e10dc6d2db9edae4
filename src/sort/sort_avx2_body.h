/*
 * sort_avx2_body.h — sort_avx2.c's quicksort for one key width, included once per width with W (32 or 64) defined:
 * the names end in _W, a vector holds L keys. AVX2 compares signed lanes, so the keys sorted are the radix keys with
 * their top bit flipped, compared as signed integers. No include guard: meant to be included twice.
 */
#if W == 32
#define T uint32_t
#define S int32_t
#define L 8
#define LUT lut32
#define V_SET1(x) _mm256_set1_epi32((int)(x))
#define V_GT _mm256_cmpgt_epi32
#define V_EQ _mm256_cmpeq_epi32
#define V_MOVEMASK(m) _mm256_movemask_ps(_mm256_castsi256_ps(m))
#define NAME(f) f##_32
#else
#define T uint64_t
#define S int64_t
#define L 4
#define LUT lut64
#define V_SET1(x) _mm256_set1_epi64x((long long)(x))
#define V_GT _mm256_cmpgt_epi64
#define V_EQ _mm256_cmpeq_epi64
#define V_MOVEMASK(m) _mm256_movemask_pd(_mm256_castsi256_pd(m))
#define NAME(f) f##_64
#endif
#define TOP ((T)~(T)0)
#define SIGN ((T)1 << (W - 1))
#define SMAX ((T)(SIGN - 1)) /* the largest signed key */
#define LT(x, y) ((S)(x) < (S)(y))
/* a part of 16 vectors' keys or fewer: networks (32 vectors spill the registers: slower for either width) */
#define SMALL (16 * L)
#if W == 32
#define V_MIN _mm256_min_epi32
#define V_MAX _mm256_max_epi32
#define V_SWAP1(v) _mm256_shuffle_epi32(v, 0xb1)
#define V_SWAP2(v) _mm256_shuffle_epi32(v, 0x4e)
#define V_SWAP4(v) _mm256_permute2x128_si256(v, v, 1)
#define V_REV(v) _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0))
#else
static inline SIMD ALWAYS __m256i vmin_64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
static inline SIMD ALWAYS __m256i vmax_64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
}
#define V_MIN vmin_64
#define V_MAX vmax_64
#define V_SWAP1(v) _mm256_shuffle_epi32(v, 0x4e)
#define V_SWAP2(v) _mm256_permute2x128_si256(v, v, 1)
#define V_REV(v) _mm256_permute4x64_epi64(v, 0x1b)
#endif
#if W == 32
#define V_IOTA _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define V_MASKLOAD(p, m) _mm256_maskload_epi32((const int *)(const void *)(p), m)
#define V_MASKSTORE(p, m, v) _mm256_maskstore_epi32((int *)(void *)(p), m, v)
#else
#define V_IOTA _mm256_setr_epi64x(0, 1, 2, 3)
#define V_MASKLOAD(p, m) _mm256_maskload_epi64((const long long *)(const void *)(p), m)
#define V_MASKSTORE(p, m, v) _mm256_maskstore_epi64((long long *)(void *)(p), m, v)
#endif
/* the lanes [lo, hi) of a vector as a mask (0 <= lo <= hi <= L) */
static inline SIMD ALWAYS __m256i NAME(lanes)(size_t lo, size_t hi)
{
    return _mm256_andnot_si256(V_GT(V_SET1(lo), V_IOTA), V_GT(V_SET1(hi), V_IOTA));
}
/* compare-exchange of each lane with its partner (SWAP), the lanes of imm (in 4-byte lanes) keeping the larger */
#define CAS(v, SWAP, imm)                                                                                            \
    do {                                                                                                             \
        const __m256i w_ = SWAP(v);                                                                                  \
        v = _mm256_blend_epi32(V_MIN(v, w_), V_MAX(v, w_), imm);                                                     \
    } while (0)
/* one vector sorted ascending by the bitonic network; bitonic: v is bitonic already (the half-cleaners alone) */
static inline SIMD ALWAYS __m256i NAME(net1)(__m256i v, const int bitonic)
{
#if W == 32
    if (!bitonic) {
        CAS(v, V_SWAP1, 0x66);
        CAS(v, V_SWAP2, 0x3c);
        CAS(v, V_SWAP1, 0x5a);
    }
    CAS(v, V_SWAP4, 0xf0);
    CAS(v, V_SWAP2, 0xcc);
    CAS(v, V_SWAP1, 0xaa);
#else
    if (!bitonic) CAS(v, V_SWAP1, 0x3c);
    CAS(v, V_SWAP2, 0xf0);
    CAS(v, V_SWAP1, 0xcc);
#endif
    return v;
}

/* the lanes of m (bit i: lane i) first, in order, then the others, in order */
static inline SIMD ALWAYS __m256i NAME(compact)(__m256i v, int m)
{
    const __m256i sh = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    return _mm256_permutevar8x32_epi32(v, _mm256_srlv_epi32(_mm256_set1_epi32((int)LUT[m]), sh));
}
/* vector v's keys below the pivot at *lw (upward), the others ending at *rw, by two whole-vector stores: at least L
 * free places lie between them */
static inline SIMD ALWAYS void NAME(place)(T *a, __m256i v, __m256i pv, size_t *lw, size_t *rw)
{
    const int m = V_MOVEMASK(V_GT(pv, v));
    const size_t nl = (size_t)__builtin_popcount((unsigned)m);
    const __m256i c = NAME(compact)(v, m);
    _mm256_storeu_si256((__m256i *)(void *)(a + *lw), c);
    _mm256_storeu_si256((__m256i *)(void *)(a + *rw - L), c);
    *lw += nl, *rw -= L - nl;
}
/* a[0, n) (n >= 3U vectors' keys) rearranged in place, the keys below pivot first; returns their count. The first
 * n % L keys one at a time (below the pivot kept, else swapped to the end), so that whole vectors are left; of those
 * the first V % U (V vectors) and U at each end wait in registers, and each round reads U vectors from the side with
 * less room (one branch a round), so both sides have U vectors' free places before the round's stores. Every
 * vector's keys go by place: once the rounds end, the free places are the waiting vectors' keys. */
static inline SIMD ALWAYS size_t NAME(part_u)(T *a, size_t n, T pivot, const int U)
{
    const __m256i pv = V_SET1(pivot);
    size_t lo = 0, hi = n;
    for (size_t i = n % L; i > 0; i--) { /* branch-free: a swap either way */
        const T v = a[lo], e = a[hi - 1];
        const int below = LT(v, pivot);
        a[lo] = below ? v : e, a[hi - 1] = below ? e : v;
        lo += (size_t)below, hi -= (size_t)!below;
    }
    const size_t A = (hi - lo) / L % (size_t)U;
    __m256i f[8], g[8], h[8];
    for (size_t u = 0; u < A; u++) h[u] = _mm256_loadu_si256((const __m256i *)(const void *)(a + lo + u * L));
    size_t l = lo + A * L, r = hi - (size_t)U * L, lw = lo, rw = hi;
    for (int u = 0; u < U; u++) {
        f[u] = _mm256_loadu_si256((const __m256i *)(const void *)(a + l + (size_t)u * L));
        g[u] = _mm256_loadu_si256((const __m256i *)(const void *)(a + r + (size_t)u * L));
    }
    l += (size_t)U * L;
    while (l < r) {
        const T *src;
        if (l - lw <= rw - r) src = a + l, l += (size_t)U * L;
        else r -= (size_t)U * L, src = a + r;
        __m256i c[8];
        int m[8];
        for (int u = 0; u < U; u++) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + (size_t)u * L));
            m[u] = V_MOVEMASK(V_GT(pv, v));
            c[u] = NAME(compact)(v, m[u]);
        }
        for (int u = 0; u < U; u++) {
            const size_t nl = (size_t)__builtin_popcount((unsigned)m[u]);
            _mm256_storeu_si256((__m256i *)(void *)(a + lw), c[u]);
            _mm256_storeu_si256((__m256i *)(void *)(a + rw - L), c[u]);
            lw += nl, rw -= L - nl;
        }
    }
    for (size_t u = 0; u < A; u++) NAME(place)(a, h[u], pv, &lw, &rw);
    for (int u = 0; u < U; u++) NAME(place)(a, f[u], pv, &lw, &rw), NAME(place)(a, g[u], pv, &lw, &rw);
    return lw;
}
/* part_u with eight vectors a round from 32 vectors' keys (half the rounds' mispredicted branches of four: 3-6% of
 * the sort of 2^20 u32), four from 16, else one (n > SMALL: whole vectors enough for each) */
static SIMD size_t NAME(partition_lt)(T *a, size_t n, T pivot)
{
    return n >= 32 * L ? NAME(part_u)(a, n, pivot, 8)
           : n >= 16 * L ? NAME(part_u)(a, n, pivot, 4) : NAME(part_u)(a, n, pivot, 1);
}

/* sorted keys made the keys again in a vector: the top bit flipped back gives the radix key (flip: all ones where
 * descending), whose rule is undone by kind — 0 unsigned (itself), 1 signed (the top bit), 2 float (below) */
static inline SIMD ALWAYS __m256i NAME(vfrom)(__m256i v, int kind, T flip)
{
    const __m256i r = _mm256_xor_si256(v, V_SET1((kind == 1 ? 0 : SIGN) ^ flip));
    if (kind != 2) return r;
    const __m256i neg = V_GT(_mm256_setzero_si256(), r); /* a float's radix key with its top bit set: a positive */
    return _mm256_xor_si256(r, _mm256_xor_si256(V_SET1(TOP), _mm256_and_si256(neg, V_SET1(SMAX))));
}
/* a part that is final made the keys again where it lies in cache (sort_qs.h's calls, and sort_small's) */
static inline SIMD void NAME(final_keys)(T *a, size_t m, int kind, T flip)
{
    size_t i = 0;
    for (; i + L <= m; i += L) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(a + i));
        _mm256_storeu_si256((__m256i *)(void *)(a + i), NAME(vfrom)(v, kind, flip));
    }
    const __m256i t = NAME(lanes)(0, m - i);
    V_MASKSTORE(a + i, t, NAME(vfrom)(V_MASKLOAD(a + i, t), kind, flip));
}
#define QLT LT
#define QTOP SMAX
#include "sort_qs.h"
#undef QLT
#undef QTOP

/* the ninther of a[0, n); from 2^12 keys the median of three ninthers */
static SIMD T NAME(pivot_of)(const T *a, size_t n)
{
    const size_t e = n / 9;
    const T m = NAME(med3)(NAME(med3)(a[e / 2], a[e + e / 2], a[2 * e + e / 2]),
                           NAME(med3)(a[3 * e + e / 2], a[4 * e + e / 2], a[5 * e + e / 2]),
                           NAME(med3)(a[6 * e + e / 2], a[7 * e + e / 2], a[8 * e + e / 2]));
    if (n < 4096) return m;
    const size_t f = n / 27;
    const T m1 = NAME(med3)(NAME(med3)(a[f / 3], a[f + f / 3], a[2 * f + f / 3]),
                            NAME(med3)(a[3 * f + f / 3], a[4 * f + f / 3], a[5 * f + f / 3]),
                            NAME(med3)(a[6 * f + f / 3], a[7 * f + f / 3], a[8 * f + f / 3]));
    const T m2 = NAME(med3)(NAME(med3)(a[18 * f + f / 2], a[19 * f + f / 2], a[20 * f + f / 2]),
                            NAME(med3)(a[21 * f + f / 2], a[22 * f + f / 2], a[23 * f + f / 2]),
                            NAME(med3)(a[24 * f + f / 2], a[25 * f + f / 2], a[26 * f + f / 2]));
    return NAME(med3)(m, m1, m2);
}

#define QV __m256i
#define QREV V_REV
#define QMERGE1(v) NAME(net1)(v, 1)
#include "sort_net.h"
#undef QV
#undef QREV
#undef QMERGE1
/* the lanes' compare-exchanges of sort_lanes: lanes j and j ^ 2^b, the larger to the lane with bit b set (cex);
 * x where bit b of the lane is clear, else y (pick); the lanes reversed within each group of 2^m (rev) */
#if W == 32
#define MASK_B(b) ((b) == 0 ? 0xaa : (b) == 1 ? 0xcc : 0xf0)
#else
#define MASK_B(b) ((b) == 0 ? 0xcc : 0xf0)
#endif
static inline SIMD ALWAYS __m256i NAME(pick)(__m256i x, __m256i y, const int b)
{
    switch (b) { /* constants after inlining: one blend */
    case 0: return _mm256_blend_epi32(x, y, MASK_B(0));
    case 1: return _mm256_blend_epi32(x, y, MASK_B(1));
    default: return _mm256_blend_epi32(x, y, MASK_B(2));
    }
}
static inline SIMD ALWAYS __m256i NAME(cex)(__m256i v, const int b)
{
    switch (b) {
    case 0: CAS(v, V_SWAP1, MASK_B(0)); break;
#if W == 32
    case 1: CAS(v, V_SWAP2, MASK_B(1)); break;
    default: CAS(v, V_SWAP4, MASK_B(2)); break;
#else
    default: CAS(v, V_SWAP2, MASK_B(1)); break;
#endif
    }
    return v;
}
static inline SIMD ALWAYS __m256i NAME(rev)(__m256i v, const int m)
{
#if W == 32
    return m == 1 ? V_SWAP1(v) : m == 2 ? _mm256_shuffle_epi32(v, 0x1b) : V_REV(v);
#else
    return m == 1 ? V_SWAP1(v) : V_REV(v);
#endif
}
#undef MASK_B
/* an L x L block of vectors transposed: vector j becomes lane j of each */
static inline SIMD ALWAYS void NAME(transpose)(__m256i *v)
{
#if W == 32
    __m256i t[8], u[8];
    UNROLL for (int q = 0; q < 8; q += 2)
        t[q] = _mm256_unpacklo_epi32(v[q], v[q + 1]), t[q + 1] = _mm256_unpackhi_epi32(v[q], v[q + 1]);
    UNROLL for (int q = 0; q < 8; q += 4) {
        u[q] = _mm256_unpacklo_epi64(t[q], t[q + 2]), u[q + 1] = _mm256_unpackhi_epi64(t[q], t[q + 2]);
        u[q + 2] = _mm256_unpacklo_epi64(t[q + 1], t[q + 3]), u[q + 3] = _mm256_unpackhi_epi64(t[q + 1], t[q + 3]);
    }
    UNROLL for (int q = 0; q < 4; q++) {
        v[q] = _mm256_permute2x128_si256(u[q], u[q + 4], 0x20);
        v[q + 4] = _mm256_permute2x128_si256(u[q], u[q + 4], 0x31);
    }
#else
    const __m256i t0 = _mm256_unpacklo_epi64(v[0], v[1]), t1 = _mm256_unpackhi_epi64(v[0], v[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(v[2], v[3]), t3 = _mm256_unpackhi_epi64(v[2], v[3]);
    v[0] = _mm256_permute2x128_si256(t0, t2, 0x20), v[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    v[2] = _mm256_permute2x128_si256(t0, t2, 0x31), v[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
#endif
}
/* C = 2^LC vectors (L <= C <= 8) sorted by lanes (docs/design/sort.md, "The CPU backend"): each lane down the vectors
 * (Batcher's odd-even merge sort, whole vectors' min / max), then groups of 2, 4, .. L lanes merged — a flip (vector
 * i against vector C-1-i, lanes reversed in the group), the lanes' half-cleaners, the vectors' half-cleaners — which
 * leaves the keys sorted down lane 0, then lane 1, ..; L x L transposes and a renaming make that row order */
static inline SIMD ALWAYS void NAME(sort_lanes)(__m256i *v, const int LC)
{
    const int C = 1 << LC, LL = W == 32 ? 3 : 2; /* loops over counts: GCC unrolls them fully (v[] in registers) */
    UNROLL for (int lp = 0; lp < LC; lp++)
        UNROLL for (int lk = lp; lk >= 0; lk--) {
            const int p = 1 << lp, k = 1 << lk, nj = C >> (lk + 1);
            UNROLL for (int jj = 0; jj < nj; jj++)
                UNROLL for (int i = 0; i < k; i++) {
                    const int x = k % p + jj * 2 * k + i, y = x + k;
                    if (y < C && x / (2 * p) == y / (2 * p)) {
                        const __m256i lo = V_MIN(v[x], v[y]);
                        v[y] = V_MAX(v[x], v[y]), v[x] = lo;
                    }
                }
        }
    UNROLL for (int m = 1; m <= LL; m++) {
        UNROLL for (int i = 0; i < C / 2; i++) {
            const __m256i r = NAME(rev)(v[C - 1 - i], m), lo = V_MIN(v[i], r), hi = V_MAX(v[i], r);
            v[i] = NAME(pick)(lo, hi, m - 1), v[C - 1 - i] = NAME(rev)(NAME(pick)(hi, lo, m - 1), m);
        }
        UNROLL for (int b = m - 2; b >= 0; b--)
            UNROLL for (int i = 0; i < C; i++) v[i] = NAME(cex)(v[i], b);
        UNROLL for (int ld = LC - 1; ld >= 0; ld--)
            UNROLL for (int i = 0; i < C; i++)
                if ((i & (1 << ld)) == 0) {
                    const int d = 1 << ld;
                    const __m256i lo = V_MIN(v[i], v[i + d]);
                    v[i + d] = V_MAX(v[i], v[i + d]), v[i] = lo;
                }
    }
    __m256i o[8];
    UNROLL for (int b = 0; b < C / L; b++) {
        NAME(transpose)(v + b * L);
        UNROLL for (int j = 0; j < L; j++) o[j * (C / L) + b] = v[b * L + j];
    }
    UNROLL for (int q = 0; q < C; q++) v[q] = o[q];
}
/* 2^LC vectors sorted: blocks of up to 8 vectors by lanes where there are L or more (the block's vectors fit the
 * registers), then merge_runs merges the blocks; fewer: each vector by net1, then merge_runs */
static inline SIMD ALWAYS void NAME(sort_vecs)(__m256i *v, const int LC)
{
    const int C = 1 << LC, LB = LC < 3 ? LC : 3;
    if (C >= L) {
        UNROLL for (int q = 0; q < C; q += 1 << LB) NAME(sort_lanes)(v + q, LB);
        NAME(merge_runs)(v, LC, LB);
        return;
    }
    UNROLL for (int q = 0; q < C; q++) v[q] = NAME(net1)(v[q], 0);
    NAME(merge_runs)(v, LC, 0);
}
/* C = 2^LC vectors' worth (n <= C * L): loaded (lanes past n the largest key), sorted, made the keys again (kind,
 * flip), stored (lanes past n not written) */
static inline SIMD ALWAYS void NAME(small_c)(T *a, size_t n, const int LC, int kind, T flip)
{
    const int C = 1 << LC;
    __m256i v[16], m[16];
    UNROLL for (int q = 0; q < C; q++) {
        const size_t at = (size_t)q * L, have = n > at ? (n - at < L ? n - at : L) : 0;
        m[q] = NAME(lanes)(0, have);
        v[q] = _mm256_blendv_epi8(V_SET1(SMAX), V_MASKLOAD(a + at, m[q]), m[q]);
    }
    NAME(sort_vecs)(v, LC);
    UNROLL for (int q = 0; q < C; q++) V_MASKSTORE(a + (size_t)q * L, m[q], NAME(vfrom)(v[q], kind, flip));
}
/* n <= SMALL keys sorted in registers and made the keys again (kind, flip) */
static SIMD void NAME(sort_small)(T *a, size_t n, int kind, T flip)
{
    const size_t nv = (n + L - 1) / L;
    switch (nv <= 1 ? 1 : nv <= 2 ? 2 : nv <= 4 ? 4 : nv <= 8 ? 8 : 16) { /* constant bounds: v[] in registers */
    case 1: NAME(small_c)(a, n, 0, kind, flip); break;
    case 2: NAME(small_c)(a, n, 1, kind, flip); break;
    case 4: NAME(small_c)(a, n, 2, kind, flip); break;
    case 8: NAME(small_c)(a, n, 3, kind, flip); break;
    default: NAME(small_c)(a, n, 4, kind, flip); break;
    }
}

#define V_INF V_SET1(W == 32 ? (T)0x7f800000u : (T)0x7ff0000000000000ull)
/* a vector of keys v made the keys sorted: their radix keys (kind 0 unsigned: themselves; 1 signed: the top bit
 * flipped; 2 float: a negative every bit flipped, else the top bit set, a NaN all ones), flip: all ones where
 * descending, then the top bit flipped (sorted as signed lanes) */
static inline SIMD ALWAYS __m256i NAME(vkey)(__m256i v, int kind, T flip)
{
    __m256i k = v;
    if (kind == 1) {
        k = _mm256_xor_si256(v, V_SET1(SIGN));
    } else if (kind == 2) {
        const __m256i neg = V_GT(_mm256_setzero_si256(), v), nan = V_GT(_mm256_and_si256(v, V_SET1(SMAX)), V_INF);
        k = _mm256_or_si256(_mm256_xor_si256(v, _mm256_or_si256(neg, V_SET1(SIGN))), nan);
    }
    return _mm256_xor_si256(k, V_SET1(flip ^ SIGN));
}
static SIMD void NAME(to_keys)(const T *x, T *k, size_t i0, size_t i1, int kind, T flip)
{
    size_t i = i0;
    for (; i + L <= i1; i += L) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(x + i));
        _mm256_storeu_si256((__m256i *)(void *)(k + i), NAME(vkey)(v, kind, flip));
    }
    const __m256i t = NAME(lanes)(0, i1 - i);
    V_MASKSTORE(k + i, t, NAME(vkey)(V_MASKLOAD(x + i, t), kind, flip));
}
/* a vector v of floats (lanes t; the others zeros) counted into c: zeros (either sign), NaNs, below zero (neither),
 * whether a -0.0 is there; write: its keys to k (lanes t) */
static inline SIMD ALWAYS void NAME(fscan1)(__m256i v, __m256i t, T *k, T flip, size_t *c, const int write)
{
    const __m256i a = _mm256_and_si256(v, V_SET1(SMAX));
    const unsigned zm = (unsigned)V_MOVEMASK(_mm256_and_si256(V_EQ(a, _mm256_setzero_si256()), t));
    const unsigned nm = (unsigned)V_MOVEMASK(V_GT(a, V_INF)), sm = (unsigned)V_MOVEMASK(v);
    c[0] += (size_t)__builtin_popcount(zm), c[1] += (size_t)__builtin_popcount(nm);
    c[2] += (size_t)__builtin_popcount(sm & ~zm & ~nm), c[3] |= (sm & zm) != 0;
    if (write) V_MASKSTORE(k, t, NAME(vkey)(v, 2, flip));
}
/* floats [i0, i1) of x counted into c (fscan1's counts); write: their keys to k too */
static inline SIMD ALWAYS void NAME(float_scan)(const T *x, T *k, size_t i0, size_t i1, T flip, size_t *c,
                                                const int write)
{
    const __m256i all = _mm256_set1_epi32(-1);
    size_t s[4] = {0, 0, 0, 0}, i = i0;
    for (; i + L <= i1; i += L) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(x + i));
        NAME(fscan1)(v, all, NULL, flip, s, 0);
        if (write) _mm256_storeu_si256((__m256i *)(void *)(k + i), NAME(vkey)(v, 2, flip));
    }
    const __m256i t = NAME(lanes)(0, i1 - i);
    NAME(fscan1)(V_MASKLOAD(x + i, t), t, k + i, flip, s, write);
    memcpy(c, s, sizeof s);
}
static SIMD void NAME(float_counts)(const T *x, size_t i0, size_t i1, size_t *c)
{
    NAME(float_scan)(x, NULL, i0, i1, 0, c, 0);
}
/* float_counts and to_keys (kind 2) in one read: k must not be x (float_gather reads x after) */
static SIMD void NAME(float_counts_keys)(const T *x, T *k, size_t i0, size_t i1, T flip, size_t *c)
{
    NAME(float_scan)(x, k, i0, i1, flip, c, 1);
}
/* floats [i0, i1)'s zeros to zs and NaNs to ns, each in input order */
static SIMD void NAME(float_gather)(const T *x, size_t i0, size_t i1, T *zs, T *ns)
{
    const T inf = W == 32 ? (T)0x7f800000u : (T)0x7ff0000000000000ull;
    for (size_t i = i0; i < i1; i++) {
        const T v = x[i], mag = v & (SIGN - 1);
        if (mag == 0) *zs++ = v;
        else if (mag > inf) *ns++ = v;
    }
}
/* keys [0, n) of x sorted into k (x may be k): 1 (0 only where memory for the zeros' and NaNs' bits is refused) */
static int NAME(sort_keys)(const T *x, T *k, size_t n, int kind, int descending)
{
    const T flip = descending ? TOP : 0;
    const int par = gp__sort_cpu_keys_team(n * (W / 8), gp__omp_max_threads()); /* as sort_simd_body.h's */
    int depth = 16;
    for (size_t m = n; m > 1; m >>= 1) depth += 2;
    T *side = NULL;
    size_t zc[3];
    if (!NAME(keys_in)(x, k, n, kind, flip, par, 0, &side, zc)) return 0;
    if (!par) NAME(qs)(k, n, depth, kind, flip); /* no tasks: inside a caller's region they would be deferred */
    else {
#pragma omp parallel
#pragma omp single
        NAME(qs_tasks)(k, n, depth, kind, flip);
    }
    NAME(put_side)(k, n, side, zc[0], zc[1], zc[2], descending);
    return 1;
}

#undef T
#undef S
#undef L
#undef LUT
#undef V_SET1
#undef V_GT
#undef V_EQ
#undef V_MOVEMASK
#undef NAME
#undef TOP
#undef SIGN
#undef SMAX
#undef LT
#undef SMALL
#undef V_MIN
#undef V_MAX
#undef V_SWAP1
#undef V_SWAP2
#undef V_SWAP4
#undef V_REV
#undef CAS
#undef V_IOTA
#undef V_MASKLOAD
#undef V_MASKSTORE
#undef V_INF
