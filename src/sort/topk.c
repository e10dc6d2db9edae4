/*
 * topk.c — gp_topk: the checks, then the CPU backend (here) or the GPU's (topk.cu); docs/design/sort.md. Both select
 * the same k per row: the k-th radix key T by a radix select (8-bit digits from the top, counting only the keys that
 * share the digits chosen so far), every key below T and the first ties at T in index order, then those k ordered by
 * (key, position) — the first k of the row's stable sort. gp_partition_kth_sync (np.partition / np.argpartition)
 * is the same selection with the rest of each row after the k, in input order.
 */
#include "sort_internal.h"
#include "core/backend.h"

#include <stdint.h>
#include <stdlib.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512)
#include <immintrin.h>
#endif

static void put_pos(unsigned char *idx, size_t ib, size_t j, uint64_t v)
{
    if (ib == 4) {
        const uint32_t w = (uint32_t)v;
        memcpy(idx + j * 4, &w, 4);
    } else
        memcpy(idx + j * 8, &v, 8);
}

enum { KEY_BLOCK = 256 };
/* the radix keys of elements [i, i + nb) of x (nb <= KEY_BLOCK) into k: one loop per element size with the constants
 * in registers, so the size's switch is not paid per element; the block's lines 4 KiB ahead prefetched */
static inline __attribute__((always_inline)) void block_keys(const gp__sort_xf_t *xf, const unsigned char *x,
                                                             size_t es, size_t i, size_t nb, uint64_t *k)
{
    const gp__sort_xf_t lx = *xf;
    for (size_t b = 0; b < nb * es; b += 64) __builtin_prefetch(x + i * es + GP_SORT_CPU_PF + b);
    switch (es) {
    case 1: for (size_t u = 0; u < nb; u++) k[u] = gp__sort_xf_key(&lx, gp__sort_bits(x + (i + u), 1), 1); break;
    case 2: for (size_t u = 0; u < nb; u++) k[u] = gp__sort_xf_key(&lx, gp__sort_bits(x + (i + u) * 2, 2), 2); break;
    case 4: for (size_t u = 0; u < nb; u++) k[u] = gp__sort_xf_key(&lx, gp__sort_bits(x + (i + u) * 4, 4), 4); break;
    default: for (size_t u = 0; u < nb; u++) k[u] = gp__sort_xf_key(&lx, gp__sort_bits(x + (i + u) * 8, 8), 8); break;
    }
}

enum { ROW_CHUNK = 1 << 15, ROW_CHUNKS_MAX = 64 };
/* rows this short (keys of up to 4 bytes) take the first k of their stable argsort: the select's counts, chunks and
 * scratch cost more than the sort there (2^10 f32, k = 100, on the 2-core VM: 12.9 us against ~6) */
enum { TOPK_CPU_SORT_MAX = 4096 };

/* ---- a small k of a long row: a threshold from a sample, one read (docs/design/sort.md, "Top-k").
 * SAMPLE_RUNS runs of SAMPLE_RUN consecutive keys spread over the row (a cache line each for 4-byte keys) give T0, the
 * sample's key at a rank whose share of the row is about twice k's; one read then gathers every element whose radix
 * key is at most T0, in index order. Where they are k or more, the row's first k of its stable sort are theirs (every
 * key left out is above each of them, ties included), so their stable sort's first k are the answer; else (a sample
 * that misjudged the row) the radix select runs. */
enum { SAMPLE_RUNS = 128, SAMPLE_RUN = 16, SAMPLE = SAMPLE_RUNS * SAMPLE_RUN };
size_t gp__topk_cpu_sample_min = GP_TOPK_CPU_SAMPLE_MIN;

/* the bits whose radix key under xf is k (es <= 4 bytes): 0 for a float's zero or NaN key, whose bits the key does not
 * hold (-0.0 and +0.0, NaN payloads) */
static inline int unkey(const gp__sort_xf_t *xf, uint64_t k, size_t es, uint64_t *b)
{
    const uint64_t ones = (1ull << (8 * es)) - 1, sign = 1ull << (8 * es - 1);
    k ^= xf->flip;
    if (!xf->inf) return *b = k ^ xf->xr, 1;
    if (k == sign || k == ones) return 0;
    *b = k & sign ? k ^ sign : ~k & ones;
    return 1;
}
/* the es low bytes of b to p (gp__sort_bits' inverse) */
static inline void put_bits(unsigned char *p, size_t es, uint64_t b)
{
    switch (es) {
    case 1: *p = (unsigned char)b; break;
    case 2: { const uint16_t h = (uint16_t)b; memcpy(p, &h, 2); } break;
    case 4: { const uint32_t h = (uint32_t)b; memcpy(p, &h, 4); } break;
    default: memcpy(p, &b, 8); break;
    }
}
enum { KTH_SAMPLE = 64 };
/* the r-th smallest of a[0, m) (0-based), a reordered so that a[0, r] are the r + 1 smallest */
static uint64_t kth_u64(uint64_t *a, size_t m, size_t r)
{
    size_t lo = 0, hi = m - 1;
    while (lo < hi) {
        uint64_t piv;
        if (hi - lo >= 4096) { /* the sample's key at r's share of the range: what is left around r is a few % */
            uint64_t sm[KTH_SAMPLE];
            const size_t len = hi - lo + 1;
            for (size_t j = 0; j < KTH_SAMPLE; j++) {
                uint64_t v = a[lo + len * j / KTH_SAMPLE];
                size_t q = j;
                for (; q > 0 && sm[q - 1] > v; q--) sm[q] = sm[q - 1];
                sm[q] = v;
            }
            size_t at = (size_t)((double)(r - lo) / (double)len * KTH_SAMPLE);
            piv = sm[at < KTH_SAMPLE ? at : KTH_SAMPLE - 1];
        } else {
            const uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
            piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y); /* median of three */
        }
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv) i++;
            while (a[j] > piv) j--;
            if (i <= j) {
                const uint64_t t = a[i];
                a[i] = a[j], a[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (r <= j) hi = j;
        else if (r >= i) lo = i;
        else return a[r];
    }
    return a[r];
}

/* Elements [b, e) of the row whose radix key is at most T0 appended from o: 8-byte keys as their bits (ob) and
 * positions (oi), shorter keys as one word each, radix key above position (ow; sort_simd.c's argsort words). The new
 * count, or cap + 1 past cap (a block appends at most KEY_BLOCK past it). A block whose least key is above T0 stores
 * nothing; in the others each candidate is appended by a branch, as candidates are a few in a hundred. 4-byte keys
 * take the same test eight (AVX2) or sixteen (AVX-512) at a time where the CPU has it. */
static inline __attribute__((always_inline)) size_t gather_below_body(const gp__sort_xf_t *xf, const unsigned char *x,
                                                                      size_t es, size_t b, size_t e, uint64_t T0,
                                                                      uint64_t *ob, uint64_t *oi, uint64_t *ow,
                                                                      size_t o, size_t cap)
{
    uint64_t kb[KEY_BLOCK];
    for (size_t i = b; i < e; i += KEY_BLOCK) {
        const size_t nb = e - i < KEY_BLOCK ? e - i : KEY_BLOCK;
        block_keys(xf, x, es, i, nb, kb);
        uint64_t lo = UINT64_MAX;
        for (size_t u = 0; u < nb; u++) lo = kb[u] < lo ? kb[u] : lo;
        if (lo > T0) continue;
        for (size_t u = 0; u < nb; u++)
            if (kb[u] <= T0) {
                if (ow) ow[o++] = kb[u] << 32 | (i + u);
                else ob[o] = gp__sort_bits(x + (i + u) * es, es), oi[o++] = i + u;
            }
        if (o > cap) return cap + 1;
    }
    return o;
}
/* the gathers' parameters, one list for each ISA's version */
#define GATHER_PARAMS                                                                                                  \
    const gp__sort_xf_t *xf, const unsigned char *x, size_t es, size_t b, size_t e, uint64_t T0, uint64_t *ob,       \
        uint64_t *oi, uint64_t *ow, size_t o, size_t cap
static size_t gather_below(GATHER_PARAMS)
{
    return gather_below_body(xf, x, es, b, e, T0, ob, oi, ow, o, cap);
}
/* the lanes set in m of the radix keys kk at positions i.. appended as words */
static inline size_t put_words(unsigned m, const uint32_t *kk, size_t i, uint64_t *ow, size_t o)
{
    for (; m; m &= m - 1) {
        const unsigned l = (unsigned)__builtin_ctz(m);
        ow[o++] = (uint64_t)kk[l] << 32 | (i + l);
    }
    return o;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX2)
__attribute__((target("avx2"))) static size_t gather_below_avx2(GATHER_PARAMS)
{
    if (es != 4 || !ow) return gather_below_body(xf, x, es, b, e, T0, ob, oi, ow, o, cap);
    const gp__sort_xf_t xk = *xf; /* in registers: the appends could alias *xf */
    const __m256i sg = _mm256_set1_epi32((int)0x80000000u), t = _mm256_set1_epi32((int)((uint32_t)T0 ^ 0x80000000u));
    const uint32_t *p = (const uint32_t *)x;
    size_t i = b;
    for (; i + 16 <= e; i += 16) { /* unsigned k <= T0: signed, both with the top bit flipped */
        const __m256i k0 = gp__sort_xf_key8(&xk, _mm256_loadu_si256((const __m256i *)(p + i))),
                      k1 = gp__sort_xf_key8(&xk, _mm256_loadu_si256((const __m256i *)(p + i + 8)));
        const __m256i a0 = _mm256_cmpgt_epi32(_mm256_xor_si256(k0, sg), t),
                      a1 = _mm256_cmpgt_epi32(_mm256_xor_si256(k1, sg), t);
        if (_mm256_movemask_epi8(_mm256_and_si256(a0, a1)) == -1) continue; /* every lane above T0 */
        uint32_t kk[16];
        _mm256_storeu_si256((__m256i *)kk, k0), _mm256_storeu_si256((__m256i *)(kk + 8), k1);
        const unsigned m = ~(unsigned)(_mm256_movemask_ps(_mm256_castsi256_ps(a0)) |
                                       _mm256_movemask_ps(_mm256_castsi256_ps(a1)) << 8) & 0xffffu;
        o = put_words(m, kk, i, ow, o);
        if (o > cap) return cap + 1;
    }
    return i < e ? gather_below_body(xf, x, es, i, e, T0, ob, oi, ow, o, cap) : o;
}
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512)
__attribute__((target("avx512f"))) static size_t gather_below_512(GATHER_PARAMS)
{
    if (es != 4 || !ow) return gather_below_body(xf, x, es, b, e, T0, ob, oi, ow, o, cap);
    const gp__sort_xf_t xk = *xf;
    const __m512i t = _mm512_set1_epi32((int)(uint32_t)T0);
    const uint32_t *p = (const uint32_t *)x;
    size_t i = b;
    for (; i + 16 <= e; i += 16) {
        const __m512i k = gp__sort_xf_key16(&xk, _mm512_loadu_si512((const void *)(p + i)));
        const __mmask16 m = _mm512_cmple_epu32_mask(k, t);
        if (m) {
            uint32_t kk[16];
            _mm512_storeu_si512((void *)kk, k);
            o = put_words(m, kk, i, ow, o);
            if (o > cap) return cap + 1;
        }
    }
    return i < e ? gather_below_body(xf, x, es, i, e, T0, ob, oi, ow, o, cap) : o;
}
#endif
typedef size_t (*gather_fn)(GATHER_PARAMS);
static gather_fn gather_of(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512)
    if (gp__sort_cpu_isa >= 2 && (gp__cpu_features() & GP__CPU_AVX512F)) return gather_below_512;
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX2)
    if (gp__sort_cpu_isa >= 1 && (gp__cpu_features() & GP__CPU_AVX2)) return gather_below_avx2;
#endif
    return gather_below;
}

/* The last read of one chunk [i0, e) (row_cpu's; row_sampled's rest): its keys below T, and its first `ties` keys at
 * T, to the selection from slot o (as words, or as elements and positions, or not written), the others (rest: the
 * partition's) to vals / idx from q, in index order. Inlined per element and index size, so each copy is one load and
 * store. */
typedef struct pick {
    const gp__sort_xf_t *xf;
    const unsigned char *x;
    uint64_t T;
    uint64_t *gw;      /* the selection as (radix key, position) words, or NULL: */
    unsigned char *gx; /* its elements (NULL: not written) */
    uint64_t *gi;      /* and positions */
    unsigned char *vals, *idx; /* the rest (each may be NULL) */
} pick_t;
static inline __attribute__((always_inline)) void pick_body(const pick_t *p, size_t es, size_t ib, size_t i0,
                                                            size_t e, size_t o, size_t end, size_t ties, size_t q,
                                                            int rest)
{
    const uint64_t T = p->T;
    uint64_t kb[KEY_BLOCK];
    for (; i0 < e && (o < end || rest); i0 += KEY_BLOCK) {
        const size_t nb = e - i0 < KEY_BLOCK ? e - i0 : KEY_BLOCK;
        block_keys(p->xf, p->x, es, i0, nb, kb);
        for (size_t u = 0; u < nb; u++) {
            const uint64_t r = kb[u];
            const size_t i = i0 + u;
            if (r < T || (r == T && ties > 0)) {
                ties -= r == T;
                if (p->gw) p->gw[o] = r << 32 | i;
                else if (p->gx) memcpy(p->gx + o * es, p->x + i * es, es), p->gi[o] = i;
                o++;
            } else if (rest) {
                if (p->vals) memcpy(p->vals + q * es, p->x + i * es, es);
                if (p->idx) put_pos(p->idx, ib, q, i);
                q++;
            }
        }
    }
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512)
/* pick_body's rest for 4-byte keys with no selection to write (the partition's sampled path), 16 keys a step in
 * AVX-512 registers: a step holding no key at T (or once the ties are spent) stores its rest by compress-stores; a step
 * holding one while ties remain goes key by key */
__attribute__((target("avx512f"))) static void pick_rest16(const pick_t *p, size_t ib, size_t i, size_t e,
                                                             size_t ties, size_t q)
{
    const uint32_t *x = (const uint32_t *)(const void *)p->x;
    const __m512i T = _mm512_set1_epi32((int)(uint32_t)p->T);
    const __m512i iota32 = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i iota64 = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    for (; i + 16 <= e; i += 16) {
        const __m512i v = _mm512_loadu_si512(x + i), k = gp__sort_xf_key16(p->xf, v);
        const __mmask16 eq = _mm512_cmpeq_epi32_mask(k, T);
        if (eq && ties) {
            uint32_t kk[16];
            _mm512_storeu_si512(kk, k);
            for (int u = 0; u < 16; u++) {
                if (kk[u] < p->T || (kk[u] == p->T && ties > 0)) {
                    ties -= kk[u] == p->T;
                    continue;
                }
                if (p->vals) memcpy(p->vals + q * 4, x + i + (size_t)u, 4);
                if (p->idx) put_pos(p->idx, ib, q, i + (size_t)u);
                q++;
            }
            continue;
        }
        const __mmask16 r = (__mmask16)~_mm512_cmplt_epu32_mask(k, T);
        if (p->vals) _mm512_mask_compressstoreu_epi32(p->vals + q * 4, r, v);
        if (p->idx && ib == 4)
            _mm512_mask_compressstoreu_epi32(p->idx + q * 4, r, _mm512_add_epi32(iota32, _mm512_set1_epi32((int)i)));
        else if (p->idx) {
            const __m512i b = _mm512_add_epi64(iota64, _mm512_set1_epi64((long long)i));
            const __mmask8 lo = (__mmask8)r, hi = (__mmask8)(r >> 8);
            _mm512_mask_compressstoreu_epi64(p->idx + q * 8, lo, b);
            _mm512_mask_compressstoreu_epi64(p->idx + (q + (size_t)__builtin_popcount(lo)) * 8, hi,
                                             _mm512_add_epi64(b, _mm512_set1_epi64(8)));
        }
        q += (size_t)__builtin_popcount(r);
    }
    const pick_t t = *p;
    if (i < e) pick_body(&t, 4, ib, i, e, 0, 0, ties, q, 1);
}
#endif

static void pick_any(const pick_t *p, size_t es, size_t ib, size_t i0, size_t e, size_t o, size_t end, size_t ties,
                     size_t q, int rest)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512)
    if (es == 4 && rest && !p->gw && !p->gx && (gp__cpu_features() & GP__CPU_AVX512F)) {
        pick_rest16(p, ib, i0, e, ties, q);
        return;
    }
#endif
#define GP_PICK(ES, IB) pick_body(p, ES, IB, i0, e, o, end, ties, q, rest)
    switch (es * 16 + ib) {
    case 16 + 4: GP_PICK(1, 4); break;
    case 32 + 4: GP_PICK(2, 4); break;
    case 64 + 4: GP_PICK(4, 4); break;
    case 128 + 4: GP_PICK(8, 4); break;
    case 16 + 8: GP_PICK(1, 8); break;
    case 32 + 8: GP_PICK(2, 8); break;
    case 64 + 8: GP_PICK(4, 8); break;
    default: GP_PICK(8, 8); break;
    }
#undef GP_PICK
}

/* The row's k by the sampled threshold, and with rest the partition's other n - k after them (keys of up to 4
 * bytes): 1 done (vals / idx written), 0 not taken (nothing written), or an error. */
static gp_status_t row_sampled(gp_dtype_t dt, const unsigned char *x, size_t n, size_t k, int largest,
                               unsigned char *vals, size_t ib, unsigned char *idx, size_t C, int rest, int *done)
{
    const gp__sort_xf_t xf = gp__sort_xf(dt, largest);
    const size_t es = gp_dtype_size(dt);
    *done = 0;
    uint64_t smp[SAMPLE];
    for (size_t g = 0; g < SAMPLE_RUNS; g++)
        block_keys(&xf, x, es, (n - SAMPLE_RUN) / (SAMPLE_RUNS - 1) * g, SAMPLE_RUN, smp + g * SAMPLE_RUN);
    const size_t r = (size_t)(2.0 * (double)k * SAMPLE / (double)n) + 16; /* ~2k of the row at or below T0 */
    if (k == 0 || r >= SAMPLE / 4 || (rest && (es > 4 || n > (size_t)UINT32_MAX + 1)))
        return GP_OK; /* (the partition's rest: words only) */
    const uint64_t T0 = kth_u64(smp, SAMPLE, r);
    /* chunk c's gather: at most cap elements (cap + KEY_BLOCK slots: a block appends past cap before the test); keys
     * of up to 4 bytes as words (one slot each), else bits and positions (two) */
    const int words = es <= 4 && n <= (size_t)UINT32_MAX + 1;
    const size_t cap = 4 * (n / C) * (r + 1) / SAMPLE + 1024, slots = cap + KEY_BLOCK + 1, per = words ? 1 : 2;
    uint64_t *cb = malloc(C * slots * per * sizeof *cb); /* touched only where appended */
    size_t *got = calloc(C, sizeof *got);
    unsigned char *gx = NULL, *sx = NULL;
    uint64_t *gi = NULL, *si = NULL;
    gp_status_t st = GP_OK;
    if (!cb || !got) {
        free(cb), free(got);
        return GP_OK; /* the radix select, which needs less */
    }
    int over = 0;
    const gather_fn gather = gather_of();
    const int par = gp__cpu_par(1, n * es) && C > 1; /* each element read once */
#pragma omp parallel for schedule(static) if (par)
    for (size_t c = 0; c < C; c++) {
        uint64_t *ob = cb + c * slots * per, *oi = ob + slots, *ow = words ? ob : NULL;
        size_t o = 0;
        const size_t e = n * (c + 1) / C;
        for (size_t i = n * c / C; i < e; i += 64 * KEY_BLOCK) { /* others' overflow looked at every 64 blocks */
            int seen;
#pragma omp atomic read relaxed
            seen = over;
            if (seen) break;
            o = gather(&xf, x, es, i, e - i < 64 * KEY_BLOCK ? e : i + 64 * KEY_BLOCK, T0, ob, oi, ow, o, cap);
            if (o > cap) {
#pragma omp atomic write relaxed
                over = 1;
                break;
            }
        }
        got[c] = o;
    }
    size_t m = 0;
    for (size_t c = 0; c < C; c++) m += got[c];
    if (over || m < k) goto done; /* not taken */
    if (words) { /* the chunks' words together, the k least first (each word is distinct), those k sorted */
        for (size_t c = 0, j = 0; c < C; j += got[c], c++) memmove(cb + j, cb + c * slots, got[c] * sizeof *cb);
        const uint64_t Tw = m > k ? kth_u64(cb, m, k - 1) : 0; /* the k-th least word */
        if ((st = gp__sort_cpu(GP_U64, k, cb, cb, 0, NULL, NULL, 0, 0, 64)) != GP_OK) goto done;
        if (rest) { /* the partition's rest in index order: each chunk's selected count and ties at T, then a read */
            const uint64_t Tk = (m > k ? Tw : cb[k - 1]) >> 32;
            size_t *sel = got, *tie = calloc(C, sizeof *tie); /* got's counts are spent: reused */
            if (!tie) {
                st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_partition_kth_sync: %zu counts", C);
                goto done;
            }
            memset(sel, 0, C * sizeof *sel);
            for (size_t j = 0; j < k; j++) {
                const size_t i = (size_t)(cb[j] & 0xffffffffu);
                size_t c = (size_t)((unsigned __int128)i * C / n);
                while (c > 0 && i < n * c / C) c--;
                while (c + 1 < C && i >= n * (c + 1) / C) c++;
                sel[c]++;
                tie[c] += (cb[j] >> 32) == Tk;
            }
#pragma omp parallel for schedule(static) if (par)
            for (size_t c = 0; c < C; c++) {
                size_t before = 0;
                for (size_t d = 0; d < c; d++) before += sel[d];
                const pick_t p = {&xf, x, Tk, NULL, NULL, NULL, vals, idx};
                const size_t b = n * c / C;
                pick_any(&p, es, ib, b, n * (c + 1) / C, 0, sel[c], tie[c], k + b - before, 1);
            }
            free(tie);
        }
        for (size_t j = 0; j < k; j++) { /* a key's bits from its radix key, but for a zero's or NaN's: the row's */
            const uint64_t i = cb[j] & 0xffffffffu;
            if (vals) {
                uint64_t b;
                if (unkey(&xf, cb[j] >> 32, es, &b)) put_bits(vals + j * es, es, b);
                else memcpy(vals + j * es, x + i * es, es);
            }
            if (idx) put_pos(idx, ib, j, i);
        }
        *done = 1;
        goto done;
    }
    gx = malloc(m * es), sx = malloc(m * es), gi = malloc(m * 8), si = malloc(m * 8);
    if (!gx || !sx || !gi || !si) goto done; /* the radix select, which needs less */
    for (size_t c = 0, j = 0; c < C; c++) { /* in index order: chunk by chunk */
        const uint64_t *ob = cb + c * slots * 2, *oi = ob + slots;
        for (size_t u = 0; u < got[c]; u++) put_bits(gx + (j + u) * es, es, ob[u]);
        memcpy(gi + j, oi, got[c] * 8);
        j += got[c];
    }
    if ((st = gp__sort_cpu(dt, m, gx, sx, 8, gi, si, largest, 0, 8 * (int)es)) != GP_OK) goto done;
    if (vals) memcpy(vals, sx, k * es);
    if (idx)
        for (size_t j = 0; j < k; j++) put_pos(idx, ib, j, si[j]);
    *done = 1;
done:
    free(cb), free(got), free(gx), free(sx), free(gi), free(si);
    return st;
}
/* one row on the CPU: x (n elements of es bytes) -> vals / idx (k each; either may be NULL); rest: the other n - k
 * after them (vals + k, idx + k) in input order. The row is cut into chunks (OpenMP over them where the row is alone:
 * nested regions take one thread). The k-th radix key T: the top digit's counts per chunk, the keys sharing the chosen
 * top digit gathered in index order, the lower digits selected among them alone. Each chunk's share of the k (its keys
 * below T, and its ties at T while the first `want` in index order last) follows from those counts, so one more read
 * writes every chunk's selection, and the rest, at their places. */
static gp_status_t row_cpu(gp_dtype_t dt, const unsigned char *x, size_t n, size_t k, int largest, unsigned char *vals,
                           size_t ib, unsigned char *idx, int rest)
{
    const gp__sort_xf_t xf = gp__sort_xf(dt, largest);
    const size_t es = gp_dtype_size(dt);
    const int w = 8 * (int)es, top = w - 8;
    size_t C = n / ROW_CHUNK;
    if (C < 1) C = 1;
    if (C > ROW_CHUNKS_MAX) C = ROW_CHUNKS_MAX;
    if (!rest && n <= TOPK_CPU_SORT_MAX && es <= 4) { /* a short row: its stable argsort's first k (packed words) */
        uint64_t *pos = malloc(n * 8);
        if (pos && gp__sort_cpu_simd_argsort(dt, n, x, NULL, 8, pos, largest)) {
            for (size_t j = 0; j < k; j++) {
                if (vals) memcpy(vals + j * es, x + pos[j] * es, es);
                if (idx) put_pos(idx, ib, j, pos[j]);
            }
            free(pos);
            return GP_OK;
        }
        free(pos); /* neither AVX-512 nor AVX2 (or no memory): the select below */
    }
    if (n >= gp__topk_cpu_sample_min && n >= SAMPLE && k <= n / 16) {
        int done = 0;
        const gp_status_t s0 = row_sampled(dt, x, n, k, largest, vals, ib, idx, C, rest, &done);
        if (s0 != GP_OK || done) return s0;
    }
    size_t *hc = calloc(C * 256, sizeof *hc), *cs = calloc(C + 1, sizeof *cs), *lt = calloc(C, sizeof *lt);
    size_t *tk = calloc(C, sizeof *tk), *so = calloc(C, sizeof *so), *ro = calloc(C, sizeof *ro);
    uint64_t *cand = NULL, *gw = NULL;
    unsigned char *gx = NULL, *sx = NULL;
    uint64_t *gi = NULL, *si = NULL;
    gp_status_t st = GP_OK;
    if (!hc || !cs || !lt || !tk || !so || !ro) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_topk: %zu counts of scratch", C * 256);
        goto done;
    }
    const int par = gp__cpu_par(1, n * es) && C > 1;
#pragma omp parallel for schedule(static) if (par)
    for (size_t c = 0; c < C; c++) { /* four tables: keys sharing a top digit do not wait on one counter */
        uint32_t t4[4][256] = {{0}};
        uint64_t kb[KEY_BLOCK];
        const size_t e = n * (c + 1) / C;
        for (size_t i = n * c / C; i < e; i += KEY_BLOCK) {
            const size_t nb = e - i < KEY_BLOCK ? e - i : KEY_BLOCK;
            block_keys(&xf, x, es, i, nb, kb);
            for (size_t u = 0; u < nb; u++) t4[u & 3][kb[u] >> top]++;
        }
        for (unsigned v = 0; v < 256; v++) hc[c * 256 + v] = (size_t)t4[0][v] + t4[1][v] + t4[2][v] + t4[3][v];
    }
    size_t want = k, below = 0; /* want: the rank of T among the keys that share prefix's digits so far (1-based) */
    unsigned d = 0;
    {
        size_t h[256] = {0};
        for (size_t c = 0; c < C; c++)
            for (unsigned v = 0; v < 256; v++) h[v] += hc[c * 256 + v];
        while (d < 255 && below + h[d] < want) below += h[d++];
    }
    uint64_t prefix = (uint64_t)d << top;
    want -= below;
    for (size_t c = 0; c < C; c++) { /* each chunk's keys below the top digit, and its place among digit d's keys */
        for (unsigned v = 0; v < d; v++) lt[c] += hc[c * 256 + v];
        cs[c + 1] = cs[c] + hc[c * 256 + d];
    }
    const size_t m = cs[C];
    /* chunk c's candidates at cand + cs[c] + c: one slot more a chunk, which the branch-free gather writes past its
     * last candidate */
    if ((cand = gp__sort_scratch_alloc((m + C) * sizeof *cand)) == NULL) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_topk: %zu keys of scratch", m);
        goto done;
    }
    if (top > 0) {
#pragma omp parallel for schedule(static) if (par)
        for (size_t c = 0; c < C; c++) {
            const uint64_t dd = d;
            uint64_t *o = cand + cs[c] + c, kb[KEY_BLOCK];
            const size_t e = n * (c + 1) / C;
            for (size_t i = n * c / C; i < e; i += KEY_BLOCK) {
                const size_t nb = e - i < KEY_BLOCK ? e - i : KEY_BLOCK;
                block_keys(&xf, x, es, i, nb, kb);
                for (size_t u = 0; u < nb; u++) {
                    *o = kb[u];
                    o += (kb[u] >> top) == dd;
                }
            }
            tk[c] = cs[c + 1] - cs[c]; /* its candidates, as they narrow */
        }
        /* each lower digit: every chunk counts its candidates' digit; the chosen digit's candidates stay (in order),
         * those below it join the chunk's keys below T */
        for (int shift = top - 8; shift >= 0; shift -= 8) {
            size_t h[256] = {0};
#pragma omp parallel for schedule(static) if (par && m >= (1u << 16))
            for (size_t c = 0; c < C; c++) {
                size_t *hh = hc + c * 256;
                const uint64_t *q = cand + cs[c] + c;
                memset(hh, 0, 256 * sizeof *hh);
                for (size_t i = 0; i < tk[c]; i++) hh[(q[i] >> shift) & 255]++;
            }
            for (size_t c = 0; c < C; c++)
                for (unsigned v = 0; v < 256; v++) h[v] += hc[c * 256 + v];
            unsigned e = 0;
            size_t b = 0;
            while (e < 255 && b + h[e] < want) b += h[e++];
            prefix |= (uint64_t)e << shift;
            want -= b;
#pragma omp parallel for schedule(static) if (par && m >= (1u << 16))
            for (size_t c = 0; c < C; c++) {
                uint64_t *q = cand + cs[c] + c;
                size_t kept = 0;
                for (unsigned v = 0; v < e; v++) lt[c] += hc[c * 256 + v];
                for (size_t i = 0; i < tk[c]; i++) {
                    q[kept] = q[i];
                    kept += ((q[i] >> shift) & 255) == e;
                }
                tk[c] = kept;
            }
        }
    } else {
        for (size_t c = 0; c < C; c++) tk[c] = cs[c + 1] - cs[c]; /* one-byte keys: digit d's keys are T */
    }
    /* each chunk's keys below T (lt) and ties at T (tk); the ties taken are the first `want` in index order; then
     * everyone's places */
    for (size_t c = 0, left = want, sel = 0, r = k; c < C; c++) {
        const size_t eq = tk[c];
        tk[c] = eq < left ? eq : left;
        left -= tk[c];
        so[c] = sel, sel += lt[c] + tk[c];
        ro[c] = r, r += n * (c + 1) / C - n * c / C - lt[c] - tk[c];
    }
    /* the k as (radix key, position) words where keys of up to 4 bytes and positions fit 32 bits each, else their
     * elements and positions */
    if (es <= 4 && n <= (size_t)UINT32_MAX + 1) {
        if ((gw = malloc((k ? k : 1) * 8)) == NULL) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_topk: %zu elements of scratch", k);
            goto done;
        }
    } else {
        gx = malloc((k ? k : 1) * es), sx = malloc((k ? k : 1) * es);
        gi = malloc((k ? k : 1) * 8), si = malloc((k ? k : 1) * 8);
        if (!gx || !sx || !gi || !si) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_topk: %zu elements of scratch", k);
            goto done;
        }
    }
#pragma omp parallel for schedule(static) if (par)
    for (size_t c = 0; c < C; c++) {
        const pick_t p = {&xf, x, prefix, gw, gx, gi, rest ? vals : NULL, rest ? idx : NULL};
        pick_any(&p, es, ib, n * c / C, n * (c + 1) / C, so[c], so[c] + lt[c] + tk[c], tk[c], ro[c], rest);
    }
    if (gw) { /* (key, position) words: sorted as unsigned integers (the quicksort of keys alone where it runs) */
        if ((st = gp__sort_cpu(GP_U64, k, gw, gw, 0, NULL, NULL, 0, 0, 64)) != GP_OK) goto done;
        for (size_t j = 0; j < k; j++) {
            const uint64_t i = gw[j] & 0xffffffffu;
            if (vals) memcpy(vals + j * es, x + i * es, es);
            if (idx) put_pos(idx, ib, j, i);
        }
        goto done;
    }
    /* in index order already: a stable sort by the key gives (key, position) order */
    if ((st = gp__sort_cpu(dt, k, gx, sx, 8, gi, si, largest, 0, w)) != GP_OK) goto done;
    if (vals) memcpy(vals, sx, k * es);
    if (idx)
        for (size_t j = 0; j < k; j++) put_pos(idx, ib, j, si[j]);
done:
    free(hc), free(cs), free(lt), free(tk), free(so), free(ro), free(cand), free(gw), free(gx), free(sx), free(gi),
        free(si);
    return st;
}

/* rows on the CPU: the k of each (vals / idx at a stride of k), or with rest the whole row partitioned (stride n) */
static gp_status_t topk_cpu(gp_dtype_t dt, size_t rows, size_t n, const unsigned char *x, size_t k, int largest,
                            unsigned char *vals, size_t ib, unsigned char *idx, int rest)
{
    const size_t stride = rest ? n : k;
    const size_t es = gp_dtype_size(dt);
    gp_status_t st = GP_OK;
    if (rows == 1) /* no OpenMP region of one thread: its set-up costs what a short row's select does */
        return row_cpu(dt, x, n, k, largest, vals, ib, idx, rest);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t r = 0; r < rows; r++) {
        const gp_status_t s = row_cpu(dt, x + r * n * es, n, k, largest, vals ? vals + r * stride * es : NULL, ib,
                                      idx ? idx + r * stride * ib : NULL, rest);
        if (s != GP_OK) {
#pragma omp critical
            st = s;
        }
    }
    return st;
}

/* The arguments of top-k and the partition, checked once: rows of n elements of x, out_n of each row written to
 * values (dtype) and indices (index_dtype). *ib: the index width; *empty: nothing to do (GP_OK returned). */
static gp_status_t rows_args(const char *fn, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k,
                             size_t out_n, const void *values, gp_dtype_t index_dtype, const void *indices, size_t *ib,
                             int *empty)
{
    *empty = 0;
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (k > n) return gp__error(GP_ERR_INVALID_ARG, "%s: k = %zu is more than the row's n = %zu", fn, k, n);
    const size_t es = gp_dtype_size(dtype);
    *ib = indices ? gp__sort_index_bytes(index_dtype) : 8;
    if (!*ib) {
        char lb[16];
        return gp__error(GP_ERR_INVALID_ARG, "%s: index dtype %s (GP_U32, GP_I64 or GP_U64)", fn,
                         GP__DTYPE_LABEL(lb, index_dtype));
    }
    if (indices && *ib == 4 && n > (size_t)UINT32_MAX + 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype u32 cannot index rows of n = %zu (GP_I64 can)", fn, n);
    size_t total, outs, bytes;
    if (!gp__mul_ok(rows, n, &total) || !gp__mul_ok(total, 16, &bytes) || total > (SIZE_MAX >> 5) ||
        !gp__mul_ok(rows, out_n, &outs) || !gp__mul_ok(outs, 16, &bytes))
        return gp__error(GP_ERR_OVERFLOW, "%s: rows = %zu x n = %zu (k = %zu) overflow", fn, rows, n, k);
    if (outs == 0) return *empty = 1, GP_OK;
    GP_ARG_NONNULL(fn, x);
    if (!values && !indices) return gp__error(GP_ERR_INVALID_ARG, "%s: values and indices are both NULL", fn);
    if ((uintptr_t)x % es || (values && (uintptr_t)values % es))
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn, (uintptr_t)x % es ? "x" : "values",
                         es);
    if (indices && (uintptr_t)indices % *ib)
        return gp__error(GP_ERR_INVALID_ARG, "%s: indices is not %zu-byte aligned", fn, *ib);
    if ((values && gp__overlap(x, total * es, values, outs * es)) ||
        (indices && gp__overlap(x, total * es, indices, outs * *ib)) ||
        (values && indices && gp__overlap(values, outs * es, indices, outs * *ib)))
        return gp__error(GP_ERR_INVALID_ARG, "%s: x, values and indices overlap", fn);
    return GP_OK;
}

static gp_status_t topk_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x,
                                size_t k, int largest, void *values, gp_dtype_t index_dtype, void *indices,
                                gp_stream_t stream, int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    size_t ib = 8;
    int empty = 0;
    GP_TRY_RET(rows_args(fn, dtype, rows, n, x, k, k, values, index_dtype, indices, &ib, &empty));
    if (empty) return GP_OK;
    if (gp__is_cpu(ctx)) return topk_cpu(dtype, rows, n, x, k, largest != 0, values, ib, indices, 0);
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(gp__sort_gpu_ops.topk(ctx, dtype, rows, n, x, k, largest != 0, values, ib, indices, s));
    return gp__gpu_wait(fn, s, sync);
}

gp_status_t gp_topk(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k, int largest,
                    void *values, gp_dtype_t index_dtype, void *indices, gp_stream_t stream)
{
    return topk_enqueue("gp_topk", ctx, dtype, rows, n, x, k, largest, values, index_dtype, indices, stream, 0);
}

gp_status_t gp_topk_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k, int largest,
                         void *values, gp_dtype_t index_dtype, void *indices)
{
    return topk_enqueue("gp_topk_sync", ctx, dtype, rows, n, x, k, largest, values, index_dtype, indices, NULL, 1);
}

/* The partition on a GPU context: the k of each row by gp_topk on the device, the rest of the rows gathered on the
 * host (the rows and the k's positions read back, the rows written back whole): the same bits as the CPU backend's. */
static gp_status_t partition_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const void *x, size_t k,
                                 void *values, size_t ib, void *indices)
{
    static const char fn[] = "gp_partition_kth_sync";
    const size_t es = gp_dtype_size(dt);
    unsigned char *hx = malloc(rows * n * es), *hv = values ? malloc(rows * n * es) : NULL;
    unsigned char *hi = malloc(rows * n * 8), *mark = malloc(n);
    gp_buffer_t tk = {0};
    gp_status_t st = GP_OK;
    if (!hx || !hi || !mark || (values && !hv)) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu x %zu elements of host scratch", fn, rows, n);
        goto done;
    }
    if (k && (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, rows * k * 8, &tk)) != GP_OK) goto done;
    if (k) st = gp_topk_sync(ctx, dt, rows, n, x, k, 0, NULL, GP_U64, tk.device);
    if (st == GP_OK && k) st = gp_memcpy_sync(ctx, hi, tk.device, rows * k * 8);
    if (st == GP_OK) st = gp_memcpy_sync(ctx, hx, x, rows * n * es);
    if (st != GP_OK) goto done;
    /* each row, from its end, so the k positions read at hi + r * k are used before row r's output covers them */
    for (size_t r = rows; r-- > 0;) {
        const uint64_t *sel = (const uint64_t *)(void *)(hi + r * k * 8);
        uint64_t *oi = (uint64_t *)(void *)(hi + r * n * 8);
        const unsigned char *row = hx + r * n * es;
        memset(mark, 0, n);
        uint64_t *kept = malloc((k ? k : 1) * 8);
        if (!kept) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu positions of host scratch", fn, k);
            goto done;
        }
        for (size_t j = 0; j < k; j++) kept[j] = sel[j], mark[sel[j]] = 1;
        for (size_t j = 0; j < k; j++) oi[j] = kept[j];
        free(kept);
        for (size_t i = 0, o = k; i < n; i++)
            if (!mark[i]) oi[o++] = i;
        if (hv)
            for (size_t j = 0; j < n; j++) memcpy(hv + (r * n + j) * es, row + oi[j] * es, es);
    }
    if (hv) st = gp_memcpy_sync(ctx, values, hv, rows * n * es);
    if (st == GP_OK && indices) {
        if (ib == 4) /* narrowed in place: word j goes to bytes 4j, below the 8j it was read from */
            for (size_t j = 0; j < rows * n; j++) {
                uint64_t v;
                memcpy(&v, hi + j * 8, 8);
                const uint32_t w = (uint32_t)v;
                memcpy(hi + j * 4, &w, 4);
            }
        st = gp_memcpy_sync(ctx, indices, hi, rows * n * ib);
    }
done:
    gp_mem_free(ctx, &tk);
    free(hx), free(hv), free(hi), free(mark);
    return st;
}

gp_status_t gp_partition_kth_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k,
                                  void *values, gp_dtype_t index_dtype, void *indices)
{
    static const char fn[] = "gp_partition_kth_sync";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    size_t ib = 8;
    int empty = 0;
    GP_TRY_RET(rows_args(fn, dtype, rows, n, x, k, n, values, index_dtype, indices, &ib, &empty));
    if (empty) return GP_OK;
    if (gp__is_cpu(ctx)) return topk_cpu(dtype, rows, n, x, k, 0, values, ib, indices, 1);
    GP_NO_CAPTURE(ctx, fn, "it waits for the result");
    return partition_gpu(ctx, dtype, rows, n, x, k, values, ib, indices);
}
