/*
 * sort_simd_body.h — sort_simd.c's quicksort for one key width, included once per width with W (32 or 64) defined:
 * the names end in _W, the vector operations are the width's (V_*), a vector holds L keys, a part of SMALL = 8L keys
 * or fewer is sorted by networks in registers. No include guard: meant to be included twice.
 */
#if W == 32
#define T uint32_t
#define L 16
#define M __mmask16
#define V_SET1(x) _mm512_set1_epi32((int)(x))
#define V_IDX _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define V_RIDX _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define V_PERM _mm512_permutexvar_epi32
#define V_MIN _mm512_min_epu32
#define V_MAX _mm512_max_epu32
#define V_MASK_MAX _mm512_mask_max_epu32
#define V_MASK_LOADU _mm512_mask_loadu_epi32
#define V_MASKZ_LOADU _mm512_maskz_loadu_epi32
#define V_MASK_STOREU _mm512_mask_storeu_epi32
#define V_CMPLT _mm512_cmplt_epu32_mask
#define V_MASK_CMPLT _mm512_mask_cmplt_epu32_mask
#define V_CMPGT _mm512_cmpgt_epu32_mask
#define V_MASK_CMPGT _mm512_mask_cmpgt_epu32_mask
#define V_MASK_CMPEQ _mm512_mask_cmpeq_epi32_mask
#define V_CMPNEQ _mm512_cmpneq_epi32_mask
#define V_COMPRESS _mm512_mask_compressstoreu_epi32
#define V_SIGNS(v) _mm512_srai_epi32((v), 31)
#define V_MASK_MOV _mm512_mask_mov_epi32
#define V_TEST _mm512_test_epi32_mask
#define V_MASK_XOR _mm512_mask_xor_epi32
#define FLOAT_INF 0x7f800000u
#define NAME(f) f##_32
#else
#define T uint64_t
#define L 8
#define M __mmask8
#define V_SET1(x) _mm512_set1_epi64((long long)(x))
#define V_IDX _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0)
#define V_RIDX _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7)
#define V_PERM _mm512_permutexvar_epi64
#define V_MIN _mm512_min_epu64
#define V_MAX _mm512_max_epu64
#define V_MASK_MAX _mm512_mask_max_epu64
#define V_MASK_LOADU _mm512_mask_loadu_epi64
#define V_MASKZ_LOADU _mm512_maskz_loadu_epi64
#define V_MASK_STOREU _mm512_mask_storeu_epi64
#define V_CMPLT _mm512_cmplt_epu64_mask
#define V_MASK_CMPLT _mm512_mask_cmplt_epu64_mask
#define V_CMPGT _mm512_cmpgt_epu64_mask
#define V_MASK_CMPGT _mm512_mask_cmpgt_epu64_mask
#define V_MASK_CMPEQ _mm512_mask_cmpeq_epi64_mask
#define V_CMPNEQ _mm512_cmpneq_epi64_mask
#define V_COMPRESS _mm512_mask_compressstoreu_epi64
#define V_SIGNS(v) _mm512_srai_epi64((v), 63)
#define V_MASK_MOV _mm512_mask_mov_epi64
#define V_TEST _mm512_test_epi64_mask
#define V_MASK_XOR _mm512_mask_xor_epi64
#define FLOAT_INF 0x7ff0000000000000ull
#define NAME(f) f##_64
#endif
#define SMALL (8 * L)
#define FULL ((M)((1u << L) - 1u))
#define TOP ((T)~(T)0)
#define SIGN ((T)1 << (W - 1))
/* the lanes [0, have) of a mask (have <= L) */
#define FIRST(have) ((M)((have) >= L ? (1u << L) - 1u : (1u << (have)) - 1u))

/* one vector: compare-exchange with lane i ^ j, the lanes of takemax keeping the larger */
static inline SIMD ALWAYS __m512i NAME(cas)(__m512i v, int j, M takemax)
{
    const __m512i w = V_PERM(_mm512_xor_si512(V_IDX, V_SET1(j)), v);
    return V_MASK_MAX(V_MIN(v, w), takemax, v, w);
}
/* a bitonic vector sorted ascending (the half-cleaners) */
static inline SIMD ALWAYS __m512i NAME(merge1)(__m512i v)
{
#if W == 32
    v = NAME(cas)(v, 8, 0xff00);
#endif
    v = NAME(cas)(v, 4, (M)0xf0f0), v = NAME(cas)(v, 2, (M)0xcccc), v = NAME(cas)(v, 1, (M)0xaaaa);
    return v;
}
/* a bitonic sort of the lanes, ascending: lane i of stage (k, j) keeps the larger where (i & j) != (i & k) */
static inline SIMD ALWAYS __m512i NAME(sort1)(__m512i v)
{
#if W == 32
    v = NAME(cas)(v, 1, 0x6666);
    v = NAME(cas)(v, 2, 0x3c3c), v = NAME(cas)(v, 1, 0x5a5a);
    v = NAME(cas)(v, 4, 0x0ff0), v = NAME(cas)(v, 2, 0x33cc), v = NAME(cas)(v, 1, 0x55aa);
#else
    v = NAME(cas)(v, 1, 0x66);
    v = NAME(cas)(v, 2, 0x3c), v = NAME(cas)(v, 1, 0x5a);
#endif
    return NAME(merge1)(v);
}
#define QV __m512i
#define QREV(v) V_PERM(V_RIDX, v)
#define QMERGE1(v) NAME(merge1)(v)
#include "sort_net.h"
#undef QV
#undef QREV
#undef QMERGE1
/* The 8 x L block of eight vectors transposed by three butterflies (vector bit b swapped with lane bit b, or b + 1
 * with 16 lanes; two-source permutes): vector r then holds lane r of each (with 16 lanes, lanes 2r and 2r + 1 of each,
 * interleaved). */
static inline SIMD ALWAYS void NAME(butterflies)(__m512i *v)
{
#if W == 32
    static const int32_t bf[3][2][16] = {
        {{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29}, {2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31}},
        {{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27}, {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31}},
        {{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23}, {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31}}};
#define V_PERM2 _mm512_permutex2var_epi32
#else
    static const int64_t bf[3][2][8] = {{{0, 8, 2, 10, 4, 12, 6, 14}, {1, 9, 3, 11, 5, 13, 7, 15}},
                                        {{0, 1, 8, 9, 4, 5, 12, 13}, {2, 3, 10, 11, 6, 7, 14, 15}},
                                        {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}}};
#define V_PERM2 _mm512_permutex2var_epi64
#endif
    UNROLL for (int b = 0; b < 3; b++) {
        const __m512i lo = _mm512_loadu_si512(bf[b][0]), hi = _mm512_loadu_si512(bf[b][1]);
        UNROLL for (int r = 0; r < 8; r++)
            if (!(r & (1 << b))) {
                const __m512i x = v[r], y = v[r | (1 << b)];
                v[r] = V_PERM2(x, lo, y), v[r | (1 << b)] = V_PERM2(x, hi, y);
            }
    }
#undef V_PERM2
}
/* the lanes with bit b set (of 16, or of 8) */
#define LANES_B(b) ((M)((b) == 0 ? 0xaaaa : (b) == 1 ? 0xcccc : (b) == 2 ? 0xf0f0 : 0xff00))
/* Eight vectors sorted by lanes, as sort_avx2_body.h's sort_lanes (docs/design/sort.md, "The CPU backend"): each
 * lane's eight keys down the vectors (cols8), then groups of 2, 4, .. L lanes merged — a flip (vector i against 7 - i,
 * the group's lanes reversed), the lanes' half-cleaners, the vectors' — which leaves the keys sorted down lane 0,
 * then lane 1, ..; the butterflies (and with 16 lanes one permute) make that row order. */
static inline SIMD ALWAYS void NAME(sort8_lanes)(__m512i *v)
{
    const int LL = W == 32 ? 4 : 3;
    NAME(cols8)(v);
    UNROLL for (int m = 1; m <= LL; m++) {
        const __m512i rix = _mm512_xor_si512(V_IDX, V_SET1((1 << m) - 1));
        UNROLL for (int i = 0; i < 4; i++) {
            const __m512i r = V_PERM(rix, v[7 - i]), lo = V_MIN(v[i], r), hi = V_MAX(v[i], r);
            v[i] = V_MASK_MOV(lo, LANES_B(m - 1), hi), v[7 - i] = V_PERM(rix, V_MASK_MOV(hi, LANES_B(m - 1), lo));
        }
        UNROLL for (int b = m - 2; b >= 0; b--)
            UNROLL for (int i = 0; i < 8; i++) v[i] = NAME(cas)(v[i], 1 << b, LANES_B(b));
        UNROLL for (int ld = 2; ld >= 0; ld--)
            UNROLL for (int i = 0; i < 8; i++)
                if ((i & (1 << ld)) == 0) {
                    const int d = 1 << ld;
                    const __m512i lo = V_MIN(v[i], v[i + d]);
                    v[i + d] = V_MAX(v[i], v[i + d]), v[i] = lo;
                }
    }
    NAME(butterflies)(v);
#if W == 32
    static const int32_t rows[16] = {0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15};
    const __m512i ri = _mm512_loadu_si512(rows);
    UNROLL for (int r = 0; r < 8; r++) v[r] = V_PERM(ri, v[r]);
#endif
}
#undef LANES_B

/* 2^LC vectors' worth of keys sorted: eight by lanes; fewer each vector, then merge_runs */
static inline SIMD ALWAYS void NAME(sort_vecs)(__m512i *v, const int LC)
{
    const int C = 1 << LC;
    if (C == 8) {
        NAME(sort8_lanes)(v);
        return;
    }
    UNROLL for (int q = 0; q < C; q++) v[q] = NAME(sort1)(v[q]);
    NAME(merge_runs)(v, LC, 0);
}
/* Radix keys back to keys (kind: 0 unsigned, 1 signed, 2 float; fl: all ones where descending): the quicksort's
 * parts that become final convert their keys as they are stored, so no pass over the array does it after */
static inline SIMD ALWAYS __m512i NAME(unkey)(__m512i v, int kind, __m512i fl)
{
    const __m512i sign = V_SET1(SIGN);
    v = _mm512_xor_si512(v, fl);
    if (kind == 1) return _mm512_xor_si512(v, sign);
    if (kind == 2) /* the sign set: was positive (clear it); else negative (flip every bit back) */
        return V_MASK_XOR(_mm512_xor_si512(v, V_SET1(TOP)), V_TEST(v, sign), v, sign);
    return v;
}
static SIMD void NAME(from_keys)(T *k, size_t i0, size_t i1, int kind, T flip);
/* a part that is final, made keys again (kind 0, flip 0: left as it is) */
static inline SIMD void NAME(final_keys)(T *a, size_t m, int kind, T flip)
{
    if (kind || flip) NAME(from_keys)(a, 0, m, kind, flip);
}
/* C vectors' worth: loaded (lanes past n the largest key), sorted, stored (lanes past n not written). Every loop is
 * unrolled and every call inlined, so that v[] is registers: as a loop over an array in memory each compare-exchange
 * waited on a store forwarded from the last (a 2^16-key sort spent half its time here, 210 us on one thread). */
static inline SIMD ALWAYS void NAME(small_c)(T *a, size_t n, __m512i *v, const int LC, int kind, T flip)
{
    const int C = 1 << LC;
    const __m512i fl = V_SET1(flip);
    UNROLL for (int q = 0; q < C; q++) {
        const size_t at = (size_t)q * L, have = n > at ? n - at : 0;
        v[q] = V_MASK_LOADU(V_SET1(TOP), FIRST(have), a + at);
    }
    NAME(sort_vecs)(v, LC);
    if (kind || flip) UNROLL for (int q = 0; q < C; q++) v[q] = NAME(unkey)(v[q], kind, fl);
    UNROLL for (int q = 0; q < C; q++) {
        const size_t at = (size_t)q * L, have = n > at ? n - at : 0;
        V_MASK_STOREU(a + at, FIRST(have), v[q]);
    }
}
/* n <= SMALL keys sorted in registers (the lanes past n hold the largest key and are not written back), made keys
 * again (kind, flip: from_keys') */
static SIMD void NAME(sort_small)(T *a, size_t n, int kind, T flip)
{
    if (n < 2) {
        NAME(final_keys)(a, n, kind, flip);
        return;
    }
    __m512i v[SMALL / L];
    const size_t nv = (n + L - 1) / L;
    switch (nv <= 1 ? 1 : nv <= 2 ? 2 : nv <= 4 ? 4 : nv <= 8 ? 8 : 16) { /* constant bounds: v[] in registers */
    case 1: NAME(small_c)(a, n, v, 0, kind, flip); break;
    case 2: NAME(small_c)(a, n, v, 1, kind, flip); break;
    case 4: NAME(small_c)(a, n, v, 2, kind, flip); break;
    case 8: NAME(small_c)(a, n, v, 3, kind, flip); break;
    default: NAME(small_c)(a, n, v, 4, kind, flip); break;
    }
}

/* one vector's keys below the pivot to the left part (at *lw, upward), the rest to the right (ending at *rw) */
static inline SIMD void NAME(part_one)(T *a, __m512i v, M valid, __m512i pv, size_t *lw, size_t *rw)
{
    const M m = V_MASK_CMPLT(valid, v, pv), r = (M)(valid & ~m);
    V_COMPRESS(a + *lw, m, v);
    *lw += (size_t)__builtin_popcount(m);
    *rw -= (size_t)__builtin_popcount(r);
    V_COMPRESS(a + *rw, r, v);
}
/* the next vector from the side of the unread [*l, *r) with less room (its free places: [lw, l) and [r, rw)) */
static inline SIMD const T *NAME(next_from)(T *a, size_t *l, size_t *r, size_t lw, size_t rw, size_t width)
{
    if (*l - lw <= rw - *r) {
        *l += width;
        return a + *l - width;
    }
    *r -= width;
    return a + *r;
}
/* a[0, n) (n >= 2L) rearranged in place: the keys below pivot first; returns their count. The first and last U
 * vectors (U = 4, or 1 below 8L keys) wait in registers, so 2U vectors' places are free before any store; each round
 * reads U vectors from the side with less room, so a store never reaches a key not yet read. */
static SIMD size_t NAME(partition_lt)(T *a, size_t n, T pivot)
{
    const __m512i pv = V_SET1(pivot);
    const int U = n >= 8 * L ? 4 : 1;
    __m512i f[4], g[4];
    for (int u = 0; u < U; u++) {
        f[u] = _mm512_loadu_si512(a + L * u);
        g[u] = _mm512_loadu_si512(a + n - (size_t)(U - u) * L);
    }
    size_t l = (size_t)U * L, r = n - (size_t)U * L, lw = 0, rw = n;
    if (U == 4)
        while (r - l >= 4 * L) {
            const T *src = NAME(next_from)(a, &l, &r, lw, rw, 4 * L);
            __m512i v[4];
            M m[4];
            for (int u = 0; u < 4; u++) {
                v[u] = _mm512_loadu_si512(src + L * u);
                m[u] = V_CMPLT(v[u], pv);
            }
            for (int u = 0; u < 4; u++) {
                const size_t nl = (size_t)__builtin_popcount(m[u]);
                V_COMPRESS(a + lw, m[u], v[u]);
                lw += nl;
                rw -= L - nl;
                V_COMPRESS(a + rw, (M)~m[u], v[u]);
            }
        }
    while (r - l >= L) NAME(part_one)(a, _mm512_loadu_si512(NAME(next_from)(a, &l, &r, lw, rw, L)), FULL, pv, &lw, &rw);
    if (r > l) /* the last keys: every place left is free once they are read */
        NAME(part_one)(a, V_MASKZ_LOADU(FIRST(r - l), a + l), FIRST(r - l), pv, &lw, &rw);
    for (int u = 0; u < U; u++) NAME(part_one)(a, f[u], FULL, pv, &lw, &rw);
    for (int u = 0; u < U; u++) NAME(part_one)(a, g[u], FULL, pv, &lw, &rw);
    return lw;
}

#define QLT(x, y) ((x) < (y))
#define QTOP TOP
#include "sort_qs.h"
#undef QLT
#undef QTOP

/* the pivot: the ninther, or the median of L keys spread over a[0, n) */
static SIMD T NAME(pivot_of)(const T *a, size_t n)
{
    if (n < 1024) { /* short parts: the ninther (a sorted sample's median is a chain of ten permutes) */
        const size_t e = n / 9;
        return NAME(med3)(NAME(med3)(a[e / 2], a[e + e / 2], a[2 * e + e / 2]),
                          NAME(med3)(a[3 * e + e / 2], a[4 * e + e / 2], a[5 * e + e / 2]),
                          NAME(med3)(a[6 * e + e / 2], a[7 * e + e / 2], a[8 * e + e / 2]));
    }
    T s[L], o[L];
    for (size_t i = 0; i < L; i++) s[i] = a[n / L * i + n / (2 * L)];
    _mm512_storeu_si512(o, NAME(sort1)(_mm512_loadu_si512(s)));
    return o[L / 2];
}

/* a float's radix key, its NaN lanes nan: negative, every bit flipped; else the sign set; NaN all ones */
static inline SIMD ALWAYS __m512i NAME(fkey)(__m512i v, M nan)
{
    return V_MASK_MOV(_mm512_xor_si512(v, _mm512_or_si512(V_SET1(SIGN), V_SIGNS(v))), nan, V_SET1(TOP));
}
/* the radix keys of keys [i0, i1) and back (kind: 0 unsigned, 1 signed, 2 float), flip: all ones for descending */
static SIMD void NAME(to_keys)(const T *x, T *k, size_t i0, size_t i1, int kind, T flip)
{
    const __m512i sign = V_SET1(SIGN), fl = V_SET1(flip), inf = V_SET1(FLOAT_INF), mag = V_SET1(SIGN - 1);
    for (size_t i = i0; i < i1; i += L) {
        const M t = FIRST(i1 - i);
        const __m512i v = V_MASKZ_LOADU(t, x + i);
        __m512i r = v;
        if (kind == 1) {
            r = _mm512_xor_si512(v, sign);
        } else if (kind == 2) {
            r = NAME(fkey)(v, V_CMPGT(_mm512_and_si512(v, mag), inf));
        }
        V_MASK_STOREU(k + i, t, _mm512_xor_si512(r, fl));
    }
}
static SIMD void NAME(from_keys)(T *k, size_t i0, size_t i1, int kind, T flip)
{
    const __m512i fl = V_SET1(flip);
    for (size_t i = i0; i < i1; i += L) {
        const M t = FIRST(i1 - i);
        V_MASK_STOREU(k + i, t, NAME(unkey)(V_MASKZ_LOADU(t, k + i), kind, fl));
    }
}
/* floats [i0, i1): how many are zeros (either sign), NaNs, and below zero (neither); whether a -0.0 is there */
static inline SIMD ALWAYS void NAME(float_scan)(const T *x, T *k, size_t i0, size_t i1, T flip, size_t *c,
                                                const int write)
{
    const __m512i inf = V_SET1(FLOAT_INF), mag = V_SET1(SIGN - 1), sign = V_SET1(SIGN), zero = _mm512_setzero_si512(),
                  fl = V_SET1(flip);
    size_t z = 0, nn = 0, neg = 0, negz = 0;
    for (size_t i = i0; i < i1; i += L) {
        const M t = FIRST(i1 - i);
        const __m512i v = V_MASKZ_LOADU(t, x + i), a = _mm512_and_si512(v, mag);
        const M zm = V_MASK_CMPEQ(t, a, zero), nm = V_MASK_CMPGT(t, a, inf), sm = (M)(V_TEST(v, sign) & t);
        z += (size_t)__builtin_popcount((unsigned)zm), nn += (size_t)__builtin_popcount((unsigned)nm);
        neg += (size_t)__builtin_popcount((unsigned)(sm & (M)~zm & (M)~nm));
        negz |= (sm & zm) != 0;
        if (write) V_MASK_STOREU(k + i, t, _mm512_xor_si512(NAME(fkey)(v, nm), fl));
    }
    c[0] = z, c[1] = nn, c[2] = neg, c[3] = negz;
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
    const __m512i inf = V_SET1(FLOAT_INF), mag = V_SET1(SIGN - 1), zero = _mm512_setzero_si512();
    for (size_t i = i0; i < i1; i += L) {
        const M t = FIRST(i1 - i);
        const __m512i v = V_MASKZ_LOADU(t, x + i), a = _mm512_and_si512(v, mag);
        const M zm = V_MASK_CMPEQ(t, a, zero), nm = V_MASK_CMPGT(t, a, inf);
        if (zm | nm) {
            V_COMPRESS(zs, zm, v);
            V_COMPRESS(ns, nm, v);
            zs += __builtin_popcount((unsigned)zm), ns += __builtin_popcount((unsigned)nm);
        }
    }
}

/* One sample-sort level, then each bucket by the quicksort (a task each): the quicksort alone partitions its whole
 * input with one thread first, then two parts with two, and each of its top levels moves every key. A sorted sample of
 * the radix keys gives 255 splitters; a key's bucket is looked up by its 16-bit prefix relative to the sample (the key
 * less the sample's least, shifted so that the sample's span fits 16 bits, clamped to [0, 2^16)): a monotone map, so
 * the buckets are ranges of keys in order. Two reads of x in SPLIT_C fixed chunks (whatever the team): the buckets'
 * counts (and the floats' classes), then each key made a radix key and stored at its bucket's place (and the zeros' and
 * NaNs' bits gathered in input order, put back once sorted). Buckets are filled in k, or, sorting in place, in a
 * scratch copy each bucket's task copies back. 0 where memory is refused or one bucket would hold a quarter of the
 * keys (nothing written to k). */
#if W == 32
#define V_SUB _mm512_sub_epi32
#define V_SRLV _mm512_srlv_epi32
#else
#define V_SUB _mm512_sub_epi64
#define V_SRLV _mm512_srlv_epi64
#endif
typedef struct {
    T base, pm, flip; /* the sample's least key; the largest prefix; all ones where descending */
    int sh, kind;
    const unsigned char *tab; /* prefix -> bucket */
} NAME(split_t);
/* one vector of keys v made radix keys (*kv) and their prefixes (returned); the floats' zeros and NaNs among lanes t */
static inline SIMD ALWAYS __m512i NAME(split_key)(__m512i v, const NAME(split_t) *q, M t, __m512i *kv, M *zm, M *nm,
                                                  M *sm)
{
    __m512i k = v;
    if (q->kind == 2) {
        const __m512i a = _mm512_and_si512(v, V_SET1(SIGN - 1));
        *zm = V_MASK_CMPEQ(t, a, _mm512_setzero_si512()), *nm = V_MASK_CMPGT(t, a, V_SET1(FLOAT_INF));
        *sm = (M)(V_TEST(v, V_SET1(SIGN)) & t);
        k = NAME(fkey)(v, *nm);
    } else if (q->kind == 1)
        k = _mm512_xor_si512(v, V_SET1(SIGN));
    k = _mm512_xor_si512(k, V_SET1(q->flip));
    *kv = k;
    const __m512i b = V_SET1(q->base), d = V_SRLV(V_SUB(k, b), V_SET1((T)q->sh));
    return V_MASK_MOV(V_MIN(d, V_SET1(q->pm)), V_CMPLT(k, b), _mm512_setzero_si512());
}
/* the buckets of one vector's prefixes p (tab: one byte a prefix, padded by 3) as 32-bit lanes, stored to b */
static inline SIMD ALWAYS void NAME(buckets)(__m512i p, const unsigned char *tab, uint32_t *b)
{
#if W == 32
    _mm512_storeu_si512(b, _mm512_and_si512(_mm512_i32gather_epi32(p, (const void *)tab, 1), _mm512_set1_epi32(255)));
#else
    _mm256_storeu_si256((__m256i *)b, _mm256_and_si256(_mm512_i64gather_epi32(p, (const void *)tab, 1),
                                                        _mm256_set1_epi32(255)));
#endif
}
/* keys [i0, i1): the buckets' counts to h; floats: zeros, NaNs, negatives (neither) and whether a -0.0 is there */
static SIMD void NAME(split_count)(const T *x, size_t i0, size_t i1, const NAME(split_t) *q, size_t *h, size_t *fc)
{
    size_t z = 0, nn = 0, neg = 0, negz = 0, h4[4][SPLIT_B]; /* four counts a bucket: no increment waits on the last */
    uint32_t bb[4 * L];
    memset(h4, 0, sizeof h4);
    for (size_t i = i0; i < i1; i += 4 * L) {
        const size_t m = i1 - i < 4 * L ? i1 - i : 4 * L;
        for (size_t u = 0; u < m; u += L) { /* four vectors' buckets, then their counts */
            const M t = FIRST(m - u);
            M zm = 0, nm = 0, sm = 0;
            __m512i kv;
            NAME(buckets)(NAME(split_key)(V_MASKZ_LOADU(t, x + i + u), q, t, &kv, &zm, &nm, &sm), q->tab, bb + u);
            if (q->kind == 2) {
                z += (size_t)__builtin_popcount((unsigned)zm), nn += (size_t)__builtin_popcount((unsigned)nm);
                neg += (size_t)__builtin_popcount((unsigned)(sm & (M)~zm & (M)~nm));
                negz |= (sm & zm) != 0;
            }
        }
        size_t j = 0;
        for (; j + 4 <= m; j += 4) h4[0][bb[j]]++, h4[1][bb[j + 1]]++, h4[2][bb[j + 2]]++, h4[3][bb[j + 3]]++;
        for (; j < m; j++) h4[0][bb[j]]++;
    }
    for (unsigned b = 0; b < SPLIT_B; b++) h[b] = h4[0][b] + h4[1][b] + h4[2][b] + h4[3][b];
    fc[0] = z, fc[1] = nn, fc[2] = neg, fc[3] = negz;
}
/* keys [i0, i1) as radix keys to dst at their buckets' places o (advanced); zs / ns: where the floats' zeros and NaNs
 * go in input order (NULL: not gathered). nt: through a line of keys a bucket, each whole line stored past the caches
 * (a stored line is not read first: with more buckets than the prefetchers follow, a key's store waited on its line's
 * read; docs/design/sort.md, "The CPU backend"); else each key stored at once. */
static SIMD void NAME(split_scatter)(const T *x, size_t i0, size_t i1, const NAME(split_t) *q, size_t *o, T *dst,
                                     T *zs, T *ns, int nt)
{
    T kb[4 * L];
    uint32_t bb[4 * L];
    _Alignas(64) T wc[SPLIT_B][L];
    T *line[SPLIT_B];                  /* the line of dst each bucket's next keys fill */
    unsigned char w[SPLIT_B], w0[SPLIT_B]; /* the lane the next key takes; the first lane of the line that is ours */
    if (nt)
        for (unsigned b = 0; b < SPLIT_B; b++) {
            const uintptr_t at = (uintptr_t)(dst + o[b]);
            line[b] = (T *)(at & ~(uintptr_t)63), w[b] = w0[b] = (unsigned char)((at & 63) / sizeof(T));
        }
    for (size_t i = i0; i < i1; i += 4 * L) {
        const size_t m = i1 - i < 4 * L ? i1 - i : 4 * L;
        for (size_t u = 0; u < m; u += L) { /* four vectors' keys and buckets, then their stores */
            const M t = FIRST(m - u);
            M zm = 0, nm = 0, sm = 0;
            __m512i kv;
            const __m512i v = V_MASKZ_LOADU(t, x + i + u);
            NAME(buckets)(NAME(split_key)(v, q, t, &kv, &zm, &nm, &sm), q->tab, bb + u);
            _mm512_storeu_si512(kb + u, kv);
            if (zs && (zm | nm)) {
                V_COMPRESS(zs, zm, v);
                V_COMPRESS(ns, nm, v);
                zs += __builtin_popcount((unsigned)zm), ns += __builtin_popcount((unsigned)nm);
            }
        }
        if (!nt) {
            for (size_t j = 0; j < m; j++) dst[o[bb[j]]++] = kb[j];
            continue;
        }
        for (size_t j = 0; j < m; j++) {
            const unsigned b = bb[j];
            wc[b][w[b]++] = kb[j];
            if (w[b] == L) {
                const __m512i l = _mm512_load_si512(wc[b]);
                if (w0[b]) /* the bucket's first line, shared with what precedes it */
                    V_MASK_STOREU(line[b], (M)(FULL & ~FIRST(w0[b])), l), w0[b] = 0;
                else
                    _mm512_stream_si512((__m512i *)line[b], l);
                line[b] += L, w[b] = 0;
            }
        }
    }
    if (!nt) return;
    for (unsigned b = 0; b < SPLIT_B; b++) /* the last lines, shared with what follows */
        if (w[b] > w0[b]) V_MASK_STOREU(line[b], (M)(FIRST(w[b]) & ~FIRST(w0[b])), _mm512_load_si512(wc[b]));
    _mm_sfence(); /* the streamed lines seen by the threads that sort the buckets */
}
static int NAME(sort_split)(const T *x, T *k, size_t n, int kind, int descending, int depth)
{
    enum { SAMPLE = SPLIT_B * 16, SPLIT_P = 16 };
    size_t *cnt = malloc(sizeof(size_t) * SPLIT_C * SPLIT_B), (*fc)[4] = malloc(sizeof(size_t[4]) * SPLIT_C);
    size_t starts[SPLIT_B + 1], most = 0, z = 0, nn = 0, neg = 0, negz = 0;
    T *smp = malloc(sizeof(T) * SAMPLE), *s = NULL, *side = NULL;
    unsigned char *tab = calloc(((size_t)1 << SPLIT_P) + 4, 1); /* read 4 bytes at a time (NAME(buckets)) */
    NAME(split_t) q = {0, ((T)1 << SPLIT_P) - 1, descending ? TOP : 0, 0, kind, tab};
    int ok = cnt && fc && smp && tab;
    if (ok) {
        for (size_t i = 0; i < SAMPLE; i++) /* spread over the input */
            smp[i] = x[(size_t)(((unsigned __int128)n * (2 * i + 1)) / (2 * SAMPLE))];
        NAME(to_keys)(smp, smp, 0, SAMPLE, kind, q.flip);
        NAME(qs)(smp, SAMPLE, depth, 0, 0);
        const T span = smp[SAMPLE - 1] - smp[0];
        int hb = 0;
        while (hb < W && (span >> hb) != 0) hb++;
        q.base = smp[0], q.sh = hb > SPLIT_P ? hb - SPLIT_P : 0;
        unsigned b = 0;
        for (size_t p = 0; p <= q.pm; p++) { /* splitter j is the sample's (j + 1) * 16-th key */
            while (b + 1 < SPLIT_B && (size_t)((smp[(size_t)(b + 1) * 16] - q.base) >> q.sh) < p) b++;
            tab[p] = (unsigned char)b;
        }
#pragma omp parallel for schedule(static)
        for (size_t c = 0; c < SPLIT_C; c++)
            NAME(split_count)(x, n * c / SPLIT_C, n * (c + 1) / SPLIT_C, &q, cnt + c * SPLIT_B, fc[c]);
        size_t at = 0;
        for (unsigned v = 0; v < SPLIT_B; v++) { /* bucket-major places: chunk c's keys of v after chunk c - 1's */
            starts[v] = at;
            for (size_t c = 0; c < SPLIT_C; c++) {
                const size_t m = cnt[c * SPLIT_B + v];
                cnt[c * SPLIT_B + v] = at;
                at += m;
            }
            if (at - starts[v] > most) most = at - starts[v];
        }
        starts[SPLIT_B] = n;
        ok = most <= n / 4;
        for (size_t c = 0; c < SPLIT_C; c++) z += fc[c][0], nn += fc[c][1], neg += fc[c][2], negz |= fc[c][3];
        if (ok && kind == 2 && (negz || nn)) {
            size_t zo = 0, no = z;
            for (size_t c = 0; c < SPLIT_C; c++) { /* chunk c's first zero and NaN places */
                const size_t cz = fc[c][0], cn = fc[c][1];
                fc[c][0] = zo, fc[c][1] = no;
                zo += cz, no += cn;
            }
            ok = (side = malloc((z + nn) * sizeof(T))) != NULL;
        }
        if (ok && x == k) ok = (s = gp__sort_scratch_alloc(n * sizeof(T))) != NULL;
    }
    if (ok) {
        T *const dst = s ? s : k;
        const int nt = n * sizeof(T) >= gp__sort_cpu_split_nt_bytes;
#pragma omp parallel for schedule(static)
        for (size_t c = 0; c < SPLIT_C; c++)
            NAME(split_scatter)(x, n * c / SPLIT_C, n * (c + 1) / SPLIT_C, &q, cnt + c * SPLIT_B, dst,
                                side ? side + fc[c][0] : NULL, side ? side + fc[c][1] : NULL, nt);
    }
    free(cnt), free(fc), free(smp), free(tab);
    if (!ok) {
        free(side), free(s);
        return 0;
    }
#pragma omp parallel
#pragma omp single
    for (unsigned v = 0; v < SPLIT_B; v++) {
        T *const a = (s ? s : k) + starts[v];
        const size_t m = starts[v + 1] - starts[v];
#pragma omp task firstprivate(a, m, v) if (m > 1)
        {
            if (s) { /* the bucket's tasks done before it is copied back */
#pragma omp taskgroup
                NAME(qs_tasks)(a, m, depth, kind, q.flip);
                memcpy(k + starts[v], a, m * sizeof(T));
            } else
                NAME(qs_tasks)(a, m, depth, kind, q.flip);
        }
    }
    free(s);
    NAME(put_side)(k, n, side, z, nn, neg, descending);
    return 1;
}
#undef V_SUB
#undef V_SRLV

/* keys [0, n) of x sorted into k (x may be k): 1 (0 only where memory for the zeros' and NaNs' bits is refused) */
static int NAME(sort_keys)(const T *x, T *k, size_t n, int kind, int descending)
{
    const T flip = descending ? TOP : 0;
    /* a team from 64 KiB of keys on 16 threads, 4 MiB on 2 (gp__sort_cpu_keys_team) */
    const int par = gp__sort_cpu_keys_team(n * (W / 8), gp__omp_max_threads());
    int depth = 16;
    for (size_t m = n; m > 1; m >>= 1) depth += 2;
    const int plain = kind == 0 && !descending; /* the keys are their radix keys */
    T *side = NULL;
    size_t zc[3];
    if (par && split_wanted(n) && NAME(sort_split)(x, k, n, kind, descending, depth)) return 1;
    if (!NAME(keys_in)(x, k, n, kind, flip, par, plain, &side, zc)) return 0;
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
#undef L
#undef M
#undef V_SET1
#undef V_IDX
#undef V_RIDX
#undef V_PERM
#undef V_MIN
#undef V_MAX
#undef V_MASK_MAX
#undef V_MASK_LOADU
#undef V_MASKZ_LOADU
#undef V_MASK_STOREU
#undef V_CMPLT
#undef V_MASK_CMPLT
#undef V_CMPGT
#undef V_MASK_CMPGT
#undef V_MASK_CMPEQ
#undef V_CMPNEQ
#undef V_COMPRESS
#undef V_SIGNS
#undef V_MASK_MOV
#undef V_TEST
#undef V_MASK_XOR
#undef FLOAT_INF
#undef NAME
#undef SMALL
#undef FULL
#undef TOP
#undef SIGN
#undef FIRST
