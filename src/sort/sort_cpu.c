/*
 * sort_cpu.c — the sort family's CPU backend: a stable LSD radix sort in NumPy's order (sort_internal.h,
 * docs/design/sort.md). One read makes every digit's counts per chunk, so digits that every key shares are skipped and
 * the first pass has its counts (every pass, when the keys are one chunk); from GP_SORT_CPU_MSD_MIN keys only the top
 * live digit is counted and sorted first, then each of its buckets by itself (sort_range). Each remaining digit is a
 * pass over
 * contiguous chunks (as many as the threads asked for, shared over the team that starts): the chunk's digit counts
 * (after the first pass), every (digit, chunk)
 * place in digit-major order, then each chunk scatters its elements in order — stable. The radix key is computed
 * from the element's bits on every pass; the elements themselves move (keys keep their bits), their values with them.
 * Four- and eight-byte keys alone go to sort_simd.c's AVX-512 quicksort first, where the CPU and the keys allow it.
 */
#include "sort_internal.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define GP_SORT_NT 1 /* non-temporal line stores for the pass over memory (chunk_scatter_lines) */
#endif

enum { DIGIT_BITS = 8, RADIX = 1 << DIGIT_BITS, PAR_MIN = 1 << 18, CHUNK_MIN = 1 << 14, MAX_CHUNKS = 64 };
size_t gp__sort_cpu_msd_min = GP_SORT_CPU_MSD_MIN, gp__sort_cpu_split_bytes = GP_SORT_CPU_SPLIT_BYTES,
       gp__sort_cpu_split_part = GP_SORT_CPU_SPLIT_PART, gp__sort_cpu_lines_min = GP_SORT_CPU_LINES_MIN;

static inline void store_index(unsigned char *p, size_t ib, size_t i)
{
    if (ib == 4) {
        const uint32_t v = (uint32_t)i;
        memcpy(p, &v, 4);
    } else {
        const uint64_t v = i;
        memcpy(p, &v, 8);
    }
}

typedef struct {
    gp__sort_xf_t xf; /* the radix key: the dtype and the order */
    size_t ks, vs;  /* key and value bytes (vs: the index's for an argsort) */
    int argsort;    /* the values are the positions, made by the first pass */
    int threads;
    size_t n;
    unsigned char *lines; /* chunk_scatter_lines' buffers, LINE_BUF bytes a chunk (NULL: the plain scatter) */
} plan_t;


/* The scratch copy of the keys or values: line-aligned (the first pass may write it in whole lines); from 4 MiB in
 * memory Linux may back with huge pages (gp__host_alloc), so a fresh scratch takes a few page faults where 4 KiB pages
 * took thousands (each zeroing a page: 3-11 ms of a 4M-key sort on a VM). Freed with free(). */
void *gp__sort_scratch_alloc(size_t bytes)
{
    return gp__host_alloc(bytes ? (bytes + 63) / 64 * 64 : 64); /* from 4 MiB in advised 2 MiB-aligned memory */
}

/* The plan's chunks: chunk t of n elements in T chunks is [chunk_at(n, T, t), chunk_at(n, T, t + 1)). */
static inline size_t chunk_at(size_t n, int T, size_t t) { return (size_t)((unsigned __int128)n * t / (unsigned)T); }

/* A thread's chunk [a, b) of one pass: its digit counts, or (counts made, c = its places) the scatter. Inlined with
 * the key and value sizes as constants (pass() switches on them), so each copy is a register move. */
static inline __attribute__((always_inline)) void chunk_count(const plan_t *p, size_t a, size_t b,
                                                              const unsigned char *sk, size_t *c, int shift,
                                                              uint64_t mask, const size_t ks)
{
    const gp__sort_xf_t xf = p->xf; /* in registers: the loop's stores could alias the plan */
    for (size_t i = a; i < b; i++) c[(gp__sort_xf_key(&xf, gp__sort_bits(sk + i * ks, ks), ks) >> shift) & mask]++;
}
static inline __attribute__((always_inline)) void chunk_scatter(const plan_t *p, size_t a, size_t b,
                                                                const unsigned char *sk, const unsigned char *sv,
                                                                unsigned char *dk, unsigned char *dv, size_t *c,
                                                                int shift, uint64_t mask, const size_t ks,
                                                                const size_t vs)
{
    const gp__sort_xf_t xf = p->xf;
    for (size_t i = a; i < b; i++) {
        const unsigned char *k = sk + i * ks;
        const size_t j = c[(gp__sort_xf_key(&xf, gp__sort_bits(k, ks), ks) >> shift) & mask]++;
        memcpy(dk + j * ks, k, ks);
        if (vs) {
            if (sv) memcpy(dv + j * vs, sv + i * vs, vs);
            else store_index(dv + j * vs, vs, i);
        }
    }
}

#ifdef GP_SORT_NT
enum { LINE_BUF = RADIX * 192 }; /* a chunk's line buffers: G * (ks + vs) <= 192 bytes a digit */

/* bytes (whole 64-byte lines) from the aligned buffer src to the aligned dst, past the caches */
static inline __attribute__((always_inline)) void nt_lines(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += 16)
        _mm_stream_si128((__m128i *)(void *)(dst + o), _mm_load_si128((const __m128i *)(const void *)(src + o)));
}

/* Whether dk (and dv) take whole lines: keys of 4 or 8 bytes, values none, 4 or 8, each array aligned to its element
 * and a key line starting where a value line does. *off: added to an element's place, its slot in its group of
 * G = 64 / (the smaller size) elements, whose keys and values fill whole lines. */
static int lines_fit(size_t ks, size_t vs, const unsigned char *dk, const unsigned char *dv, size_t *off)
{
    if ((ks != 4 && ks != 8) || (vs != 0 && vs != 4 && vs != 8) || (uintptr_t)dk % ks || (vs && (uintptr_t)dv % vs))
        return 0;
    const size_t small = vs && vs < ks ? vs : ks, big = vs > ks ? vs : ks, G = 64 / small;
    const size_t jk = (64 - (uintptr_t)dk % 64) % 64 / ks, jv = vs ? (64 - (uintptr_t)dv % 64) % 64 / vs : jk;
    const size_t j0 = small == ks ? jk : jv, jo = small == ks ? jv : jk; /* line starts every G, every 64 / big */
    if ((j0 + G - jo) % (64 / big)) return 0;
    *off = (G - j0) % G;
    return 1;
}

/* chunk_scatter through line buffers (KS 4 or 8, VS 0, 4 or 8; lines_fit): a digit's next elements gather in its
 * group of G, and a group whose places lie in this chunk's range of the digit goes out as whole lines (non-temporal);
 * a digit's first and last groups, shared with its neighbours' ranges, go out as plain stores. A pass over memory
 * that scatters element by element waits on a line read for ownership per store (docs/design/sort.md). */
static inline __attribute__((always_inline)) void chunk_scatter_lines(const plan_t *p, size_t a, size_t b,
                                                                      const unsigned char *sk, const unsigned char *sv,
                                                                      unsigned char *dk, unsigned char *dv, size_t *c,
                                                                      int shift, uint64_t mask, const size_t KS,
                                                                      const size_t VS, unsigned char *buf, size_t off)
{
    const gp__sort_xf_t xf = p->xf;
    const size_t G = 64 / (VS && VS < KS ? VS : KS), GK = G * KS, GV = G * VS;
    unsigned char *kbuf = buf, *vbuf = buf + RADIX * GK;
    size_t st[RADIX]; /* each digit's first place in this chunk */
    memcpy(st, c, sizeof st);
    for (size_t i = a; i < b; i++) {
        const unsigned char *k = sk + i * KS;
        if ((i & 7) == 0) {
            __builtin_prefetch(k + GP_SORT_CPU_PF);
            if (VS && sv) __builtin_prefetch(sv + i * VS + GP_SORT_CPU_PF);
        }
        const size_t d = (gp__sort_xf_key(&xf, gp__sort_bits(k, KS), KS) >> shift) & mask, j = c[d]++;
        const size_t s = (j + off) & (G - 1);
        memcpy(kbuf + d * GK + s * KS, k, KS);
        if (VS) {
            if (sv) memcpy(vbuf + d * GV + s * VS, sv + i * VS, VS);
            else store_index(vbuf + d * GV + s * VS, VS, i);
        }
        if (s == G - 1) {
            if (j + 1 >= st[d] + G) { /* the group [j + 1 - G, j] is this chunk's */
                nt_lines(dk + (j + 1 - G) * KS, kbuf + d * GK, GK);
                if (VS) nt_lines(dv + (j + 1 - G) * VS, vbuf + d * GV, GV);
            } else { /* the digit's first group: from its first place */
                const size_t from = st[d] + G - 1 - j;
                memcpy(dk + st[d] * KS, kbuf + d * GK + from * KS, (G - from) * KS);
                if (VS) memcpy(dv + st[d] * VS, vbuf + d * GV + from * VS, (G - from) * VS);
            }
        }
    }
    for (size_t d = 0; d < RADIX; d++) { /* each digit's last group, as far as it was filled */
        const size_t j = c[d], s = (j + off) & (G - 1), have = s < j - st[d] ? s : j - st[d]; /* places [j - have, j) */
        if (have == 0) continue;
        memcpy(dk + (j - have) * KS, kbuf + d * GK + (s - have) * KS, have * KS);
        if (VS) memcpy(dv + (j - have) * VS, vbuf + d * GV + (s - have) * VS, have * VS);
    }
    _mm_sfence(); /* the non-temporal stores visible before the team's barrier */
}
#define GP_SORT_LINE_SIZES(F)                                                                                      \
    switch (ks * 32 + vs) {                                                                                        \
    case 4 * 32 + 0: F(4, 0); break;  case 4 * 32 + 4: F(4, 4); break;  case 4 * 32 + 8: F(4, 8); break;           \
    case 8 * 32 + 0: F(8, 0); break;  case 8 * 32 + 4: F(8, 4); break;  default: F(8, 8); break;                   \
    }
#endif

#define GP_SORT_SIZES(F)                                                                                           \
    switch (ks * 32 + vs) {                                                                                        \
    case 1 * 32 + 0: F(1, 0); break;  case 1 * 32 + 1: F(1, 1); break;  case 1 * 32 + 2: F(1, 2); break;           \
    case 1 * 32 + 4: F(1, 4); break;  case 1 * 32 + 8: F(1, 8); break;  case 1 * 32 + 16: F(1, 16); break;         \
    case 2 * 32 + 0: F(2, 0); break;  case 2 * 32 + 1: F(2, 1); break;  case 2 * 32 + 2: F(2, 2); break;           \
    case 2 * 32 + 4: F(2, 4); break;  case 2 * 32 + 8: F(2, 8); break;  case 2 * 32 + 16: F(2, 16); break;         \
    case 4 * 32 + 0: F(4, 0); break;  case 4 * 32 + 1: F(4, 1); break;  case 4 * 32 + 2: F(4, 2); break;           \
    case 4 * 32 + 4: F(4, 4); break;  case 4 * 32 + 8: F(4, 8); break;  case 4 * 32 + 16: F(4, 16); break;         \
    case 8 * 32 + 0: F(8, 0); break;  case 8 * 32 + 1: F(8, 1); break;  case 8 * 32 + 2: F(8, 2); break;           \
    case 8 * 32 + 4: F(8, 4); break;  case 8 * 32 + 8: F(8, 8); break;  default: F(8, 16); break;                 \
    }

/* one pass over digit (shift, mask): src -> dst, stable; sv NULL with argsort: the values are the positions; through
 * line buffers where the plan has them (a pass over memory).
 * counts (chunks x RADIX): each chunk's digit counts, made here unless have_counts (the first pass has them from the
 * one read). The plan's chunks are fixed (p->threads of them) and shared out over the team OpenMP actually starts,
 * which may be smaller (nested regions, OMP_THREAD_LIMIT, OMP_DYNAMIC): a thread may take several chunks. */
static void pass(const plan_t *p, int shift, uint64_t mask, const unsigned char *sk, const unsigned char *sv,
                 unsigned char *dk, unsigned char *dv, size_t *counts, int have_counts)
{
    const size_t n = p->n, ks = p->ks, vs = p->vs;
    const int T = p->threads;
#ifdef GP_SORT_NT
    size_t off = 0; /* through line buffers where the plan has them and the destinations take whole lines */
    const int lines = p->lines != NULL && lines_fit(ks, vs, dk, dv, &off);
#endif
    if (T == 1) { /* one chunk: no team (entering a region costs more than a small sort) */
        size_t *c = counts, run = 0;
        if (!have_counts) {
            memset(c, 0, RADIX * sizeof *c);
#define COUNT(K, V) chunk_count(p, 0, n, sk, c, shift, mask, K)
            GP_SORT_SIZES(COUNT)
#undef COUNT
        }
        for (unsigned v = 0; v < RADIX; v++) {
            const size_t m = c[v];
            c[v] = run;
            run += m;
        }
#ifdef GP_SORT_NT
        if (lines) {
#define SCATTER(K, V) chunk_scatter_lines(p, 0, n, sk, sv, dk, dv, c, shift, mask, K, V, p->lines, off)
            GP_SORT_LINE_SIZES(SCATTER)
#undef SCATTER
            return;
        }
#endif
#define SCATTER(K, V) chunk_scatter(p, 0, n, sk, sv, dk, dv, c, shift, mask, K, V)
        GP_SORT_SIZES(SCATTER)
#undef SCATTER
        return;
    }
#pragma omp parallel num_threads(T)
    {
        if (!have_counts) {
#pragma omp for schedule(static)
            for (int t = 0; t < T; t++) {
                size_t *c = counts + (size_t)t * RADIX;
                memset(c, 0, RADIX * sizeof *c);
#define COUNT(K, V) chunk_count(p, chunk_at(n, T, (size_t)t), chunk_at(n, T, (size_t)t + 1), sk, c, shift, mask, K)
                GP_SORT_SIZES(COUNT)
#undef COUNT
            }
        }
#pragma omp single
        {
            size_t run = 0; /* every (digit, chunk) place in digit-major order: stable */
            for (unsigned v = 0; v < RADIX; v++)
                for (int u = 0; u < T; u++) {
                    const size_t m = counts[(size_t)u * RADIX + v];
                    counts[(size_t)u * RADIX + v] = run;
                    run += m;
                }
        }
#pragma omp for schedule(static)
        for (int t = 0; t < T; t++) {
            size_t *c = counts + (size_t)t * RADIX;
#ifdef GP_SORT_NT
            if (lines) {
#define SCATTER(K, V) chunk_scatter_lines(p, chunk_at(n, T, (size_t)t), chunk_at(n, T, (size_t)t + 1), sk, sv, dk, dv, \
                                          c, shift, mask, K, V, p->lines + (size_t)t * LINE_BUF, off)
                GP_SORT_LINE_SIZES(SCATTER)
#undef SCATTER
                continue;
            }
#endif
#define SCATTER(K, V) chunk_scatter(p, chunk_at(n, T, (size_t)t), chunk_at(n, T, (size_t)t + 1), sk, sv, dk, dv, c, \
                                    shift, mask, K, V)
            GP_SORT_SIZES(SCATTER)
#undef SCATTER
        }
    }
}

/* one chunk [a, b) of the read that counts every digit (ND digits, KS-byte keys: constants where inlined) into mine;
 * the constants are copied in so the counters' stores cannot make them reload. Consecutive keys count into separate
 * 32-bit tables (four, two past four digits), summed at the end: keys sharing a digit value — a float's exponent in
 * the top digits — would otherwise wait on each other's increment of the same counter. */
static inline __attribute__((always_inline)) void digits_of_chunk(const plan_t *p, const unsigned char *keys, size_t a,
                                                                  size_t b, int lo, const uint64_t *dmask, size_t *mine,
                                                                  const int ND, const size_t KS)
{
    const gp__sort_xf_t xf = p->xf;
    const int TB = ND <= 4 ? 4 : 2, W = ND * RADIX; /* tables, and counters a table */
    const int pf = (b - a) * KS > ((size_t)1 << 20); /* past a core's cache: the read prefetched */
    uint64_t dm[8];
    uint32_t t[4 * 4 * RADIX]; /* TB * W <= 4096 */
    for (int d = 0; d < ND; d++) dm[d] = dmask[d];
    while (a < b) {
        const size_t e = b - a > ((size_t)1 << 30) ? a + ((size_t)1 << 30) : b; /* 32-bit counters: 2^30 keys a round */
        memset(t, 0, (size_t)TB * W * sizeof *t);
        size_t i = a;
        for (; i + (size_t)TB <= e; i += (size_t)TB) {
            if (pf) __builtin_prefetch(keys + i * KS + GP_SORT_CPU_PF);
            for (int u = 0; u < TB; u++) {
                const uint64_t k = gp__sort_xf_key(&xf, gp__sort_bits(keys + (i + (size_t)u) * KS, KS), KS) >> lo;
                uint32_t *tu = t + u * W;
                for (int d = 0; d < ND; d++) tu[(size_t)d * RADIX + ((k >> (DIGIT_BITS * d)) & dm[d])]++;
            }
        }
        for (; i < e; i++) {
            const uint64_t k = gp__sort_xf_key(&xf, gp__sort_bits(keys + i * KS, KS), KS) >> lo;
            for (int d = 0; d < ND; d++) t[(size_t)d * RADIX + ((k >> (DIGIT_BITS * d)) & dm[d])]++;
        }
        for (int u = 0; u < TB; u++)
            for (int c = 0; c < W; c++) mine[c] += t[u * W + c];
        a = e;
    }
}

/* every digit's counts (ndig of them, masks dmask) of keys [a, b) into mine (ndig x RADIX, zeroed by the caller);
 * ndig and the key's bytes as constants (the default: key bits past the key's width, never met) */
static void count_range(const plan_t *p, const unsigned char *keys, size_t a, size_t b, int lo, int ndig,
                        const uint64_t *dmask, size_t *mine)
{
    switch ((int)p->ks * 16 + ndig) {
    case 1 * 16 + 1: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 1, 1); break;
    case 2 * 16 + 1: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 1, 2); break;
    case 2 * 16 + 2: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 2, 2); break;
    case 4 * 16 + 1: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 1, 4); break;
    case 4 * 16 + 2: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 2, 4); break;
    case 4 * 16 + 3: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 3, 4); break;
    case 4 * 16 + 4: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 4, 4); break;
    case 8 * 16 + 1: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 1, 8); break;
    case 8 * 16 + 2: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 2, 8); break;
    case 8 * 16 + 3: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 3, 8); break;
    case 8 * 16 + 4: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 4, 8); break;
    case 8 * 16 + 5: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 5, 8); break;
    case 8 * 16 + 6: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 6, 8); break;
    case 8 * 16 + 7: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 7, 8); break;
    case 8 * 16 + 8: digits_of_chunk(p, keys, a, b, lo, dmask, mine, 8, 8); break;
    default: digits_of_chunk(p, keys, a, b, lo, dmask, mine, ndig, p->ks); break;
    }
}

/* each digit's bits within [lo, hi): the last may be narrower */
static void digit_masks(int lo, int hi, int ndig, uint64_t *dmask)
{
    for (int d = 0; d < ndig; d++)
        dmask[d] = (1ull << (hi - lo - DIGIT_BITS * d < DIGIT_BITS ? hi - lo - DIGIT_BITS * d : DIGIT_BITS)) - 1;
}

/* the digits of h (tables of ndig x RADIX, T of them summed) that do not hold all m keys in one value, least
 * significant first, into live; returns how many */
static int live_of(const size_t *h, int T, int ndig, size_t m, int *live)
{
    const size_t cells = (size_t)ndig * RADIX;
    int nlive = 0;
    for (int d = 0; d < ndig; d++) {
        int all = 0;
        for (unsigned v = 0; v < RADIX && !all; v++) {
            size_t tot = 0;
            for (int t = 0; t < T; t++) tot += h[cells * (size_t)t + (size_t)d * RADIX + v];
            all = tot == m;
        }
        if (!all) live[nlive++] = d;
    }
    return nlive;
}

/* the digits every key shares: one read, every digit's counts per chunk (h: chunks x ndig x RADIX, kept for the
 * first pass); a digit is skipped where one value holds all n. Each of the plan's chunks is counted into its own
 * table, whichever thread of the team takes it. */
static int live_digits(const plan_t *p, const unsigned char *keys, int lo, int hi, int ndig, int *live, size_t *h)
{
    const int T = p->threads;
    const size_t cells = (size_t)ndig * RADIX;
    uint64_t dmask[8];
    digit_masks(lo, hi, ndig, dmask);
    memset(h, 0, cells * (size_t)T * sizeof *h);
    if (T == 1) {
        count_range(p, keys, 0, p->n, lo, ndig, dmask, h);
    } else {
#pragma omp parallel for schedule(static) num_threads(T)
        for (int t = 0; t < T; t++)
            count_range(p, keys, chunk_at(p->n, T, (size_t)t), chunk_at(p->n, T, (size_t)t + 1), lo, ndig, dmask,
                        h + cells * (size_t)t);
    }
    return live_of(h, T, ndig, p->n, live);
}

/* The most significant digit below ndig that the n keys do not all share, read one digit at a time from the top (its
 * counts per chunk in h, T x RADIX, for the pass it makes); -1 when every digit from 1 up is shared. */
static int top_live_digit(const plan_t *p, const unsigned char *keys, int lo, int hi, int ndig, size_t *h)
{
    const int T = p->threads;
    uint64_t dmask[8];
    digit_masks(lo, hi, ndig, dmask);
    for (int d = ndig - 1; d >= 1; d--) {
        const int at = lo + DIGIT_BITS * d;
        const uint64_t m1 = dmask[d];
        int live;
        memset(h, 0, (size_t)T * RADIX * sizeof *h);
        if (T == 1) {
            count_range(p, keys, 0, p->n, at, 1, &m1, h);
        } else {
#pragma omp parallel for schedule(static) num_threads(T)
            for (int t = 0; t < T; t++)
                count_range(p, keys, chunk_at(p->n, T, (size_t)t), chunk_at(p->n, T, (size_t)t + 1), at, 1, &m1,
                            h + (size_t)t * RADIX);
        }
        if (live_of(h, T, 1, p->n, &live)) return d;
    }
    return -1;
}

/* Keys [s, s + m) of buffer cur (values beside them), which share every digit from ndig up, sorted by the digits
 * below, the result in buffer 0 (the output; 1 is the scratch). One read counts those digits; while the keys and
 * values span more than gp__sort_cpu_split_bytes, two digits or more are live and the parts would average
 * gp__sort_cpu_split_part keys or more,
 * the top live digit splits them into the other
 * buffer and each part is sorted the same way (MSD: the parts shrink toward a core's cache); else the live digits go
 * least significant first, alternating buffers (LSD), and the keys are copied into buffer 0 where the last pass did
 * not land there. one: the plan with one thread. */
static void sort_range(plan_t one, unsigned char *const *kb, unsigned char *const *vb, int cur, size_t s, size_t m,
                       int lo, int ndig)
{
    const size_t ks = one.ks, vs = one.vs;
    if (m == 0) return;
    int live[8], q = 0;
    uint64_t dmask[8];
    size_t h[8 * RADIX], c[RADIX];
    if (m > 1 && ndig > 0) {
        digit_masks(lo, lo + DIGIT_BITS * ndig, ndig, dmask);
        memset(h, 0, (size_t)ndig * RADIX * sizeof *h);
        count_range(&one, kb[cur] + s * ks, 0, m, lo, ndig, dmask, h);
        q = live_of(h, 1, ndig, m, live);
    }
    one.n = m;
    int parts = 0; /* the values the top live digit takes: a split makes that many parts */
    for (unsigned v = 0; q >= 2 && v < RADIX; v++) parts += h[(size_t)live[q - 1] * RADIX + v] != 0;
    if (q >= 2 && m * (ks + vs) > gp__sort_cpu_split_bytes && m / (size_t)parts >= gp__sort_cpu_split_part) {
        const int top = live[q - 1], to = 1 - cur;
        size_t starts[RADIX + 1];
        memcpy(c, h + (size_t)top * RADIX, sizeof c);
        starts[0] = 0;
        for (unsigned v = 0; v < RADIX; v++) starts[v + 1] = starts[v] + c[v];
        pass(&one, lo + DIGIT_BITS * top, dmask[top], kb[cur] + s * ks, vs ? vb[cur] + s * vs : NULL, kb[to] + s * ks,
             vs ? vb[to] + s * vs : NULL, c, 1);
        for (unsigned v = 0; v < RADIX; v++) sort_range(one, kb, vb, to, s + starts[v], starts[v + 1] - starts[v], lo, top);
        return;
    }
    for (int j = 0; j < q; j++) {
        const int to = 1 - cur;
        memcpy(c, h + (size_t)live[j] * RADIX, sizeof c);
        pass(&one, lo + DIGIT_BITS * live[j], dmask[live[j]], kb[cur] + s * ks, vs ? vb[cur] + s * vs : NULL,
             kb[to] + s * ks, vs ? vb[to] + s * vs : NULL, c, 1);
        cur = to;
    }
    if (cur != 0) {
        memcpy(kb[0] + s * ks, kb[cur] + s * ks, m * ks);
        if (vs) memcpy(vb[0] + s * vs, vb[cur] + s * vs, m * vs);
    }
}

/* The buckets of the most significant live digit (starts: RADIX + 1 offsets), in buffer in: each sorted by the digits
 * below it (sort_range), the buckets going to the team's threads as they free up. */
static void sort_buckets(const plan_t *p, const size_t *starts, int in, unsigned char *const *kb,
                         unsigned char *const *vb, int lo, int ndig)
{
    plan_t one = *p;
    one.threads = 1, one.argsort = 0; /* past the first pass the values (an argsort's positions) are moved */
#pragma omp parallel for schedule(dynamic, 1) num_threads(p->threads) if (p->threads > 1)
    for (int b = 0; b < RADIX; b++) sort_range(one, kb, vb, in, starts[b], starts[b + 1] - starts[b], lo, ndig);
}

gp_status_t gp__sort_cpu(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, size_t vsize,
                         const void *vals_in, void *vals_out, int descending, int lo_bit, int hi_bit)
{
    plan_t p = {gp__sort_xf(kt, descending), gp_dtype_size(kt), vsize, gp__sort_is_argsort(vals_in, vsize), 1, n, NULL};
    const int width = 8 * (int)p.ks;
    if (lo_bit < 0 || hi_bit > width || lo_bit >= hi_bit)
        return gp__error(GP_ERR_INVALID_ARG, "gp_sort: bits [%d, %d) of a %d-bit key", lo_bit, hi_bit, width);
    if (n == 0) return GP_OK;
    if (vsize == 0 && lo_bit == 0 && hi_bit == width && gp__sort_cpu_simd(kt, n, keys_in, keys_out, descending))
        return GP_OK; /* 4- and 8-byte keys alone by the AVX-512 quicksort (sort_simd.c) */
    if (p.argsort && lo_bit == 0 && hi_bit == width &&
        gp__sort_cpu_simd_argsort(kt, n, keys_in, keys_out, vsize, vals_out, descending))
        return GP_OK; /* keys of up to 4 bytes: their radix keys and positions as 8-byte words, the same sort */
#ifdef _OPENMP
    if (n >= PAR_MIN) {
        const size_t most = n / CHUNK_MIN;
        p.threads = omp_get_max_threads();
        if ((size_t)p.threads > most) p.threads = (int)most;
        if (p.threads > MAX_CHUNKS) p.threads = MAX_CHUNKS;
    }
#endif
    const int T = p.threads;
    const int ndig = (hi_bit - lo_bit + DIGIT_BITS - 1) / DIGIT_BITS;
    int live[8];
    size_t *hist = calloc((size_t)T * (size_t)ndig * RADIX, sizeof *hist);
    if (hist == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_sort: %d digit tables", ndig);
    /* From gp__sort_cpu_msd_min keys the top live digit goes first (its counts alone read here; each bucket counts its
     * own digits), as if every digit below it were live; else every digit is counted in one read and the live ones
     * are the passes. */
    const int top =
        n >= gp__sort_cpu_msd_min && ndig >= 2 ? top_live_digit(&p, keys_in, lo_bit, hi_bit, ndig, hist) : -1;
    const int msd = top >= 1;
    const int P = msd ? top + 1 : n > 1 ? live_digits(&p, keys_in, lo_bit, hi_bit, ndig, live, hist) : 0;

    const size_t kb = n * p.ks, vb = n * p.vs;
    unsigned char *tmpk = NULL, *tmpv = NULL, *outk = keys_out, *scratch_out = NULL;
    size_t *counts = NULL;
    gp_status_t st = GP_OK;
    if (outk == NULL && (outk = scratch_out = malloc(kb)) == NULL) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_sort: %zu bytes of keys", kb);
        goto done;
    }
    if (P == 0) { /* in order already (by the bits that count): a copy, or the positions */
        if (outk != keys_in) memmove(outk, keys_in, kb);
        if (p.argsort)
            for (size_t i = 0; i < n; i++) store_index((unsigned char *)vals_out + i * p.vs, p.vs, i);
        else if (p.vs && vals_out != vals_in) memmove(vals_out, vals_in, vb);
        goto done;
    }
    counts = malloc((size_t)T * RADIX * sizeof *counts);
    tmpk = gp__sort_scratch_alloc(kb);
    tmpv = p.vs ? gp__sort_scratch_alloc(vb) : NULL;
    if (counts == NULL || tmpk == NULL || (p.vs && tmpv == NULL)) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_sort: %zu bytes of scratch", kb + vb);
        goto done;
    }
    for (int t = 0; t < T; t++) /* the first pass's counts: the chunks' own, from the one read */
        memcpy(counts + (size_t)t * RADIX, msd ? hist + (size_t)t * RADIX : hist + ((size_t)t * ndig + live[0]) * RADIX,
               RADIX * sizeof *counts);
    const unsigned char *sk = keys_in, *sv = p.argsort ? NULL : vals_in;
    /* pass j writes the output where (P - 1 - j) is even, so the last lands there; an input that is also the output
     * is first copied aside when the first pass would write over it */
    const int alias_k = (const void *)outk == keys_in, alias_v = p.vs && !p.argsort && vals_out == vals_in;
    if ((alias_k || alias_v) && (P - 1) % 2 == 0) {
        memcpy(tmpk, sk, kb);
        sk = tmpk;
        if (p.vs && !p.argsort) {
            memcpy(tmpv, sv, vb);
            sv = tmpv;
        }
    }
    if (msd) { /* the top live digit first, then each of its buckets by itself */
        const int to_out = top % 2 == 0; /* where a bucket of every digit live ends in out */
        unsigned char *kb[2] = {outk, tmpk}, *vb[2] = {(unsigned char *)vals_out, tmpv};
        size_t starts[RADIX + 1];
        starts[0] = 0;
        for (unsigned v = 0; v < RADIX; v++) {
            size_t m = 0;
            for (int t = 0; t < T; t++) m += counts[(size_t)t * RADIX + v];
            starts[v + 1] = starts[v] + m;
        }
        const int shift = lo_bit + DIGIT_BITS * top, bits = hi_bit - shift < DIGIT_BITS ? hi_bit - shift : DIGIT_BITS;
#ifdef GP_SORT_NT
        if (n * (p.ks + p.vs) >= gp__sort_cpu_lines_min) /* whole lines past the caches (NULL: the plain scatter) */
            p.lines = aligned_alloc(64, (size_t)T * LINE_BUF);
#endif
        pass(&p, shift, (1ull << bits) - 1, sk, sv, kb[to_out ? 0 : 1], vb[to_out ? 0 : 1], counts, 1);
        free(p.lines);
        p.lines = NULL;
        sort_buckets(&p, starts, to_out ? 0 : 1, kb, vb, lo_bit, top); /* the digits below the top one */
        goto done;
    }
    for (int j = 0; j < P; j++) {
        const int to_out = (P - 1 - j) % 2 == 0;
        unsigned char *dk = to_out ? outk : tmpk, *dv = to_out ? (unsigned char *)vals_out : tmpv;
        const int shift = lo_bit + DIGIT_BITS * live[j];
        const int bits = hi_bit - shift < DIGIT_BITS ? hi_bit - shift : DIGIT_BITS;
        /* one chunk: a digit's counts do not depend on the order, so every pass has them from the one read */
        if (j > 0 && T == 1) memcpy(counts, hist + (size_t)live[j] * RADIX, RADIX * sizeof *counts);
        pass(&p, shift, (1ull << bits) - 1, sk, sv, dk, dv, counts, j == 0 || T == 1);
        sk = dk;
        sv = dv;
    }
done:
    free(hist), free(counts), free(tmpk), free(tmpv), free(scratch_out);
    return st;
}
