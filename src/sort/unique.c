/*
 * unique.c — gp_unique_sorted_sync (np.unique with its index, inverse and counts): a stable sort, then the runs of
 * equal radix keys in sorted order — on the CPU backend in chunks of an argsort counted, then written in parallel;
 * on the GPU (unique.cu) the keys sorted (with their positions only where the index or inverse wants them), run
 * heads, an inclusive scan of them (the run ids) and one launch writing every output; integer keys wanting only keys
 * and counts: counted where their range is narrow (on the CPU backend too, unique_count_cpu.c), else the sort over
 * their range's bits, then run-length encoding's single pass (docs/design/sort.md, "Sorted unique"). With nan_distinct
 * (np.unique's equal_nan=False) every NaN is a run of its own: on the GPU the heads of the sorted keys' NaN tail (found
 * by a search for NaN) are set before the scan.
 */
#include "sort_internal.h"
#include "../scan/scan_internal.h"

#include <stdio.h>
#include <stdlib.h>

size_t gp__unique_wide_ratio = GP_UNIQUE_WIDE_RATIO;
int gp__unique_in_counts = GP_UNIQUE_IN_COUNTS;

static void put_index(void *a, size_t ib, size_t i, uint64_t v)
{
    if (ib == 4) ((uint32_t *)a)[i] = (uint32_t)v;
    else ((uint64_t *)a)[i] = v;
}

static int is_float(gp_dtype_t dt) { return dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64; }

/* A GPU call's device scratch (the sorted keys, heads, positions): up to KEEP_BYTES kept on the context between calls
 * (a cudaMalloc and a cudaFree, which waits for the device, cost more than a short unique), larger ones allocated for
 * the call. Calls on one context come from one thread at a time (as for its workspace). */
enum { KEEP_BYTES = 64 << 20 };
static const char k_unique_keep = 0;
static void keep_release(gp_ctx_t *ctx, void *data)
{
    gp_buffer_t *b = data;
    if (b) gp_mem_free(ctx, b);
    free(b);
}
/* *buf: bytes of device memory; *kept tells scratch_done not to free it */
static gp_status_t scratch_get(gp_ctx_t *ctx, size_t bytes, gp_buffer_t *buf, int *kept)
{
    *kept = 0;
    if (bytes > KEEP_BYTES) return gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, buf);
    void **slot = gp__ctx_attach(ctx, &k_unique_keep, keep_release);
    if (slot == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_unique_sorted_sync: no host memory");
    gp_buffer_t *b = *slot;
    if (b == NULL && (b = *slot = calloc(1, sizeof *b)) == NULL)
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_unique_sorted_sync: no host memory");
    if (b->bytes < bytes) {
        size_t want = 2 * b->bytes > bytes ? 2 * b->bytes : bytes;
        if (want > KEEP_BYTES) want = KEEP_BYTES;
        gp_mem_free(ctx, b); /* cudaFree waits for the device: nothing in flight still uses it */
        memset(b, 0, sizeof *b);
        GP_TRY_RET(gp_mem_alloc(ctx, GP_MEM_DEVICE, want, b));
    }
    *buf = *b, *kept = 1;
    return GP_OK;
}
static void scratch_done(gp_ctx_t *ctx, gp_buffer_t *buf, int kept)
{
    if (!kept) gp_mem_free(ctx, buf);
}

/* The runs of equal radix keys of the sorted elements src[perm[i]] (perm NULL: src[i]), every NaN its own run with
 * distinct: each run's first element to y, its position to first, its length to counts, every element's run to
 * inverse (each may be NULL). Contiguous chunks of the sorted order are counted first, then each writes its runs from
 * its place (the last run of a chunk measured to the next chunk's first head), so any team size writes the same.
 * Returns the number of runs. The chunk loops are inlined per element size (ES a constant), the radix key's
 * constants copied into each (the outputs' stores could alias them). */
enum { RUN_CHUNKS = 64, RUN_MIN = 1 << 16 };
typedef struct runs_job {
    size_t n, ib;
    const unsigned char *src;
    const uint64_t *perm;
    int distinct;
    gp__sort_xf_t xf;
    uint64_t nan_key;
    void *y, *first, *inverse;
    uint64_t *counts;
} runs_job_t;
#define GP_AT(i) (j->perm ? j->perm[i] : (uint64_t)(i))
#define GP_KEY(i) gp__sort_xf_key(&xf, gp__sort_bits(j->src + GP_AT(i) * ES, ES), ES)
#define GP_HEAD(i, k) ((i) == 0 || (k) != prev || (j->distinct && (k) == j->nan_key))
/* chunk [a, b): its heads (counted without a branch: a head every few keys mispredicts), its first head and its last
 * (SIZE_MAX: none) */
static inline __attribute__((always_inline)) size_t chunk_heads(const runs_job_t *j, size_t a, size_t b, size_t *f,
                                                                size_t *l, const size_t ES)
{
    const gp__sort_xf_t xf = j->xf;
    size_t m = 0;
    *f = *l = SIZE_MAX;
    uint64_t prev = a ? GP_KEY(a - 1) : 0;
    if (!j->perm) { /* the sorted keys themselves: the head test as bit operations, the job's fields in registers */
        const unsigned char *src = j->src;
        const uint64_t nan_key = j->nan_key, distinct = (uint64_t)(j->distinct != 0);
        for (size_t i = a; i < b; i++) {
            const uint64_t k = gp__sort_xf_key(&xf, gp__sort_bits(src + i * ES, ES), ES);
            m += (uint64_t)(i == 0) | (uint64_t)(k != prev) | (distinct & (uint64_t)(k == nan_key));
            prev = k;
        }
    } else
        for (size_t i = a; i < b; i++) {
            const uint64_t k = GP_KEY(i);
            m += GP_HEAD(i, k);
            prev = k;
        }
    for (size_t i = a; m && *f == SIZE_MAX; i++) { /* the first and the last head, found from either end */
        const uint64_t k = GP_KEY(i);
        prev = i ? GP_KEY(i - 1) : 0;
        if (GP_HEAD(i, k)) *f = i;
    }
    for (size_t i = b; m && *l == SIZE_MAX; i--) {
        const uint64_t k = GP_KEY(i - 1);
        prev = i - 1 ? GP_KEY(i - 2) : 0;
        if (GP_HEAD(i - 1, k)) *l = i - 1;
    }
    return m;
}
/* chunk [a, b)'s runs from run u when only the values and the counts are asked for, in input order (no perm): up to
 * the chunk's last head lh every element writes its value and place into run u's slots and a head moves u on, so no
 * branch waits on where the heads fall (a later element of the same run rewrites the next run's slot, which its head
 * then writes; nothing is written past lh, the next chunk's). The places become lengths after. */
static inline __attribute__((always_inline)) void chunk_runs_plain(const runs_job_t *j, size_t a, size_t lh, size_t u,
                                                                   size_t next, const size_t ES)
{
    const gp__sort_xf_t xf = j->xf;
    unsigned char *const y = j->y;
    uint64_t *const cnt = j->counts;
    const unsigned char *const src = j->src;
    const uint64_t nan_key = j->nan_key, distinct = (uint64_t)(j->distinct != 0);
    const size_t u0 = u;
    uint64_t prev = a ? gp__sort_xf_key(&xf, gp__sort_bits(src + (a - 1) * ES, ES), ES) : 0;
    for (size_t i = a; i <= lh; i++) {
        const uint64_t k = gp__sort_xf_key(&xf, gp__sort_bits(src + i * ES, ES), ES);
        const uint64_t h = (uint64_t)(i == 0) | (uint64_t)(k != prev) | (distinct & (uint64_t)(k == nan_key));
        if (y) memcpy(y + u * ES, src + i * ES, ES);
        if (cnt) cnt[u] = i;
        u += h;
        prev = k;
    }
    if (cnt) {
        for (size_t r = u0; r + 1 < u; r++) cnt[r] = cnt[r + 1] - cnt[r];
        cnt[u - 1] = next - cnt[u - 1];
    }
}
/* chunk [a, b)'s runs written from run u (the runs begun before a), the last measured to next */
static inline __attribute__((always_inline)) void chunk_runs(const runs_job_t *j, size_t a, size_t b, size_t u,
                                                             size_t next, const size_t ES)
{
    const gp__sort_xf_t xf = j->xf;
    size_t last = SIZE_MAX; /* this chunk's latest head */
    uint64_t prev = a ? GP_KEY(a - 1) : 0;
    for (size_t i = a; i < b; i++) {
        const uint64_t p = GP_AT(i), k = GP_KEY(i);
        if (GP_HEAD(i, k)) {
            if (last != SIZE_MAX && j->counts) j->counts[u - 1] = i - last;
            if (j->y) memcpy((unsigned char *)j->y + u * ES, j->src + p * ES, ES);
            if (j->first) put_index(j->first, j->ib, u, p);
            last = i, u++;
        }
        if (j->inverse) put_index(j->inverse, j->ib, p, u - 1);
        prev = k;
    }
    if (last != SIZE_MAX && j->counts) j->counts[u - 1] = next - last;
}
#undef GP_HEAD
#undef GP_KEY
#undef GP_AT
#define GP_BY_SIZE(es, CALL)                                                                                       \
    switch (es) {                                                                                                  \
    case 1: CALL(1); break;                                                                                        \
    case 2: CALL(2); break;                                                                                        \
    case 4: CALL(4); break;                                                                                        \
    default: CALL(8); break;                                                                                       \
    }
static size_t runs_cpu(gp_dtype_t dt, size_t n, const unsigned char *src, const uint64_t *perm, int distinct, void *y,
                       size_t ib, void *first, void *inverse, uint64_t *counts)
{
    const size_t es = gp_dtype_size(dt);
    runs_job_t job = {n, ib, src, perm, distinct, gp__sort_xf(dt, 0), 0, y, first, inverse, counts};
    job.nan_key = gp__sort_xf_key(&job.xf, gp__sort_nan_bits(dt), es);
    const runs_job_t *j = &job;
    const int C = n < RUN_MIN ? 1 : RUN_CHUNKS;
    size_t base[RUN_CHUNKS + 1], head1[RUN_CHUNKS], headl[RUN_CHUNKS], next[RUN_CHUNKS];
#pragma omp parallel for schedule(static) if (C > 1)
    for (int c = 0; c < C; c++) {
        const size_t a = n * (size_t)c / (size_t)C, b = n * (size_t)(c + 1) / (size_t)C;
#define GP_COUNT(ES) base[c + 1] = chunk_heads(j, a, b, &head1[c], &headl[c], ES)
        GP_BY_SIZE(es, GP_COUNT)
#undef GP_COUNT
    }
    base[0] = 0;
    for (int c = 0; c < C; c++) base[c + 1] += base[c];
    size_t after = n; /* the first head past chunk c */
    for (int c = C - 1; c >= 0; c--) {
        next[c] = after;
        if (head1[c] != SIZE_MAX) after = head1[c];
    }
    const int plain = !perm && !first && !inverse;
#pragma omp parallel for schedule(static) if (C > 1)
    for (int c = 0; c < C; c++) {
        const size_t a = n * (size_t)c / (size_t)C, b = n * (size_t)(c + 1) / (size_t)C;
        if (plain) {
            if (head1[c] == SIZE_MAX) continue; /* no head here: its elements are the run before */
#define GP_WRITE(ES) chunk_runs_plain(j, a, headl[c], base[c], next[c], ES)
            GP_BY_SIZE(es, GP_WRITE)
#undef GP_WRITE
            continue;
        }
#define GP_WRITE(ES) chunk_runs(j, a, b, base[c], next[c], ES)
        GP_BY_SIZE(es, GP_WRITE)
#undef GP_WRITE
    }
    return base[C];
}
#undef GP_BY_SIZE

static gp_status_t unique_cpu(gp_dtype_t dt, size_t n, const void *x, void *y, size_t ib, void *first, void *inverse,
                              uint64_t *counts, size_t *count, int nan_distinct)
{
    const size_t es = gp_dtype_size(dt);
    const int distinct = nan_distinct && is_float(dt);
    if (!first && !inverse) { /* integers in a narrow range counted; else the keys sorted alone (as the GPU path) */
        gp_status_t st = GP_OK;
        if (!is_float(dt) && gp__unique_count_cpu(dt, n, x, y, counts, count, &st)) return st;
        unsigned char *s = gp__sort_scratch_alloc(n * es);
        if (!s) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_unique_sorted_sync: %zu bytes of scratch", n * es);
        st = gp__sort_cpu(dt, n, x, s, 0, NULL, NULL, 0, 0, gp__sort_width(dt));
        if (st == GP_OK) *count = runs_cpu(dt, n, s, NULL, distinct, y, ib, NULL, NULL, counts);
        free(s);
        return st;
    }
    uint64_t *perm = gp__sort_scratch_alloc(n * 8);
    if (!perm) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_unique_sorted_sync: %zu bytes of scratch", n * 8);
    gp_status_t st = gp__sort_cpu(dt, n, x, NULL, 8, NULL, perm, 0, 0, gp__sort_width(dt));
    if (st == GP_OK) *count = runs_cpu(dt, n, x, perm, distinct, y, ib, first, inverse, counts);
    free(perm);
    return st;
}

static gp_status_t nan_tail_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *s, size_t *first)
{
    const size_t es = gp_dtype_size(dt);
    const uint64_t nb = gp__sort_nan_bits(dt);
    gp_buffer_t q = {0};
    uint64_t at = n;
    GP_TRY_RET(gp_mem_alloc(ctx, GP_MEM_DEVICE, 16, &q));
    gp_status_t st = gp_memcpy_sync(ctx, q.device, &nb, es); /* little-endian: the low es bytes */
    if (st == GP_OK) st = gp_searchsorted(ctx, dt, n, s, 1, q.device, 0, GP_U64, (char *)q.device + 8, NULL);
    if (st == GP_OK) st = gp_memcpy_sync(ctx, &at, (char *)q.device + 8, 8);
    gp_mem_free(ctx, &q);
    *first = (size_t)at;
    return st;
}

/* h[a, n) = 1, words of wb bytes on the device (copies of a host run of ones) */
static gp_status_t heads_set_gpu(gp_ctx_t *ctx, size_t wb, size_t a, size_t n, void *h)
{
    enum { RUN = 1 << 16 };
    unsigned char *ones = calloc(RUN, wb);
    if (!ones) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_unique_sorted_sync: %zu bytes of scratch", (size_t)RUN * wb);
    for (size_t i = 0; i < RUN; i++) ones[i * wb] = 1; /* little-endian words of 1 */
    gp_status_t st = GP_OK;
    for (size_t i = a; i < n && st == GP_OK; i += RUN)
        st = gp_memcpy_sync(ctx, (char *)h + i * wb, ones, (n - i < RUN ? n - i : RUN) * wb);
    free(ones);
    return st;
}

gp_status_t gp_unique_sorted_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y,
                                  gp_dtype_t index_dtype, void *first_index, void *inverse, uint64_t *counts,
                                  size_t *count)
{
    return gp_unique_sorted_opts_sync(ctx, dtype, n, x, y, index_dtype, first_index, inverse, counts, count, NULL);
}

gp_status_t gp_unique_sorted_opts_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y,
                                       gp_dtype_t index_dtype, void *first_index, void *inverse, uint64_t *counts,
                                       size_t *count, const gp_unique_opts_t *opts)
{
    static const char fn[] = "gp_unique_sorted_sync";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_ARG_NONNULL(fn, count);
    *count = 0;
    if (opts && opts->size != 0 && opts->size < sizeof *opts)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->size %zu (sizeof(gp_unique_opts_t) = %zu, or 0)", fn,
                         opts->size, sizeof *opts);
    const int nan_distinct = opts ? opts->nan_distinct : 0;
    if (nan_distinct != 0 && nan_distinct != 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts->nan_distinct %d (0 or 1)", fn, nan_distinct);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    const size_t ib = gp__sort_index_bytes(index_dtype), es = gp_dtype_size(dtype);
    if ((first_index || inverse) && !ib)
    {
        char lb[16];
        return gp__error(GP_ERR_INVALID_ARG, "%s: index dtype %s (GP_U32, GP_I64 or GP_U64)", fn,
                         GP__DTYPE_LABEL(lb, index_dtype));
    }
    if ((first_index || inverse) && ib == 4 && n > (size_t)UINT32_MAX + 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype u32 cannot index n = %zu elements (GP_I64 can)", fn, n);
    if (n > (SIZE_MAX >> 5)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu elements overflow", fn, n);
    if (n == 0) return GP_OK;
    GP_ARG_NONNULL(fn, x);
    if ((uintptr_t)x % es || (y && (uintptr_t)y % es))
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn, (uintptr_t)x % es ? "x" : "y", es);
    if ((first_index && (uintptr_t)first_index % ib) || (inverse && (uintptr_t)inverse % ib) ||
        (counts && (uintptr_t)counts % 8))
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not aligned to its elements", fn,
                         first_index && (uintptr_t)first_index % ib ? "first_index"
                         : inverse && (uintptr_t)inverse % ib      ? "inverse"
                                                                   : "counts");
    if (gp__is_cpu(ctx))
        return unique_cpu(dtype, n, x, y, ib ? ib : 8, first_index, inverse, counts, count, nan_distinct);
    GP_NO_CAPTURE(ctx, fn, "it waits for the number of distinct keys");
    if (!first_index && !inverse && y && counts && !is_float(dtype)) {
        /* integer keys, values and counts wanted. From DENSE_MIN keys, first their radix keys' range: one of under
         * 2^DIRECT_BITS values is counted (every value's count, the nonzero ones compacted), one of up to
         * 2^DENSE_BITS too after one sort pass over its top 8 bits into y, one of up to 2^WIDE_BITS after two over
         * its bits from WIDE_SH (a table a quarter of the keys' bytes at most, gp__unique_wide_ratio); other keys
         * are sorted over the bits of their range alone, then the sorted keys' runs found in one pass (run-length
         * encoding's values and lengths are np.unique's keys and counts: equal integers are equal radix keys) */
        enum { DENSE_MIN = 1 << 16, DIRECT_BITS = 13, DENSE_BITS = 20, WIDE_BITS = 28, WIDE_SH = 12, SAMPLE = 4096 };
        const int width = (int)(8 * es);
        int b = width;
        uint64_t lo = 0;
        gp_buffer_t kb = {0};
        int kept = 0;
        gp_status_t st = GP_OK;
        if (n >= DENSE_MIN) {
            GP_TRY_RET(scratch_get(ctx, 64, &kb, &kept));
            uint64_t *w = kb.device, hw[2] = {0, 0}, span = 0;
            const uint64_t kmask = es < 8 ? ((uint64_t)1 << width) - 1 : ~(uint64_t)0;
            /* keys of 4 or 8 bytes, a sample of SAMPLE keys first: where those span every bit, so do all (no pass
             * over them; the range is then every radix key's) */
            for (int pass = es == 1 ? 1 : 0; pass < 2 && st == GP_OK; pass++) {
                st = gp__sort_gpu_ops.unique_range(dtype, pass ? n : SAMPLE, pass ? 1 : n / SAMPLE, x, ctx->sm_count,
                                                   w, NULL);
                if (st == GP_OK) st = gp_memcpy_sync(ctx, hw, w, 16);
                lo = ~hw[0] & kmask; /* ~ the least radix key, widened, has the bits above the key's set */
                span = hw[1] - lo;
                b = span ? 64 - __builtin_clzll(span) : 0; /* every radix key less the least is below 2^b */
                if (b == width) {
                    lo = 0;
                    break;
                }
            }
            scratch_done(ctx, &kb, kept);
            if (st != GP_OK) return st;
            const int sh = b <= DIRECT_BITS ? 0 : b <= DENSE_BITS ? b - 8 : WIDE_SH;
            const size_t R = b <= WIDE_BITS ? (size_t)1 << b : 0; /* the table's entries */
            /* the counted path: a table of at most 8n entries after one pass, of a quarter of the keys' bytes after
             * two; y holds the passes' keys: not over part of x */
            if (R && (b <= DENSE_BITS ? !sh || R <= 8 * n : R * 8 * gp__unique_wide_ratio <= n * es) &&
                (!sh || y == x || !gp__overlap(x, n * es, y, n * es))) {
                /* the table in counts' top R entries where 2 R <= n (gp__unique_in_counts): the compaction writes
                 * count o at entry o < R <= n - R, below the table, whatever order its blocks run in */
                const size_t cbytes = ((R + 2047) / 2048 * 4 + 63) / 64 * 64,
                             tb = gp__unique_in_counts && 2 * R <= n ? 0 : R * 8,
                             tbytes = tb + cbytes + 64;
                GP_TRY_RET(scratch_get(ctx, tbytes, &kb, &kept));
                uint64_t u = 0, *m = (uint64_t *)(void *)((char *)kb.device + tbytes - 64);
                void *T = tb ? kb.device : (void *)(counts + (n - R));
                if (sh) st = gp__sort_gpu_ops.sort_keys_add(ctx, dtype, n, x, y, (uint64_t)0 - lo, sh, b, NULL);
                if (st == GP_OK)
                    st = gp__sort_gpu_ops.unique_dense(dtype, n, sh ? y : x, lo, b, sh, ctx->sm_count, T,
                                                       (char *)kb.device + tb, y, counts, m, NULL);
                if (st == GP_OK) st = gp_memcpy_sync(ctx, &u, m, 8);
                scratch_done(ctx, &kb, kept);
                if (st == GP_OK) *count = (size_t)u;
                return st;
            }
        }
        /* gp__unique_in_counts: keys of 2 or 4 bytes are sorted into the top of counts' bytes, from (8 - es) n
         * (where that is 16-byte aligned), not into scratch: run-length encoding writes run r's length at byte
         * 8 r <= 8 i for its head i, which stays below every key a later tile reads, and a tile reads its keys before
         * any tile after it writes (its aggregate comes first) — so no n keys of scratch (a cudaMalloc and a cudaFree
         * past KEEP_BYTES) */
        const int in_counts = gp__unique_in_counts && (es == 2 || es == 4) &&
                              ((uintptr_t)counts + (8 - es) * n) % 16 == 0;
        const size_t sbytes = in_counts ? 0 : (n * es + 15) / 16 * 16;
        GP_TRY_RET(scratch_get(ctx, sbytes + 16, &kb, &kept));
        void *sk = in_counts ? (void *)((char *)counts + (8 - es) * n) : kb.device;
        uint64_t u = 0, *runs = (uint64_t *)(void *)((char *)kb.device + sbytes);
        st = b < width ? gp__sort_gpu_ops.sort_keys_add(ctx, dtype, n, x, sk, (uint64_t)0 - lo, 0, b, NULL)
                       : gp__sort_gpu_ops.sort(ctx, dtype, n, x, sk, 0, NULL, NULL, 0, 0, width, NULL);
        if (st == GP_OK) st = gp__scan_gpu_ops.select(ctx, dtype, n, sk, NULL, 3, y, counts, runs, NULL);
        if (st == GP_OK) st = gp_memcpy_sync(ctx, &u, runs, 8);
        scratch_done(ctx, &kb, kept);
        if (st == GP_OK) *count = (size_t)u;
        return st;
    }
    /* the keys sorted (with their positions where first_index or inverse wants them), run heads as 4-byte words
     * below 2^32 elements */
    const size_t wb = n <= (size_t)UINT32_MAX ? 4 : 8;
    const int want_perm = first_index || inverse;
    const size_t kbytes = (n * es + 255) / 256 * 256, hbytes = (n * wb + 255) / 256 * 256;
    gp_buffer_t sb = {0};
    int kept = 0;
    GP_TRY_RET(scratch_get(ctx, kbytes + hbytes * (want_perm ? 2 : 1), &sb, &kept));
    void *s = sb.device, *h = (char *)sb.device + kbytes, *perm = want_perm ? (char *)h + hbytes : NULL;
    gp_status_t st;
    uint64_t u = 0;
    if (want_perm) {
        st = gp__sort_gpu_ops.unique_iota(wb, n, perm, NULL);
        if (st == GP_OK)
            st = gp__sort_gpu_ops.sort(ctx, dtype, n, x, s, wb, perm, perm, 0, 0, gp__sort_width(dtype), NULL);
    } else
        st = gp__sort_gpu_ops.sort(ctx, dtype, n, x, s, 0, NULL, NULL, 0, 0, gp__sort_width(dtype), NULL);
    if (st == GP_OK) st = gp__sort_gpu_ops.unique_heads(dtype, wb, n, s, h, NULL);
    if (st == GP_OK && nan_distinct && is_float(dtype)) { /* every NaN a run of its own */
        size_t a = n;
        st = nan_tail_gpu(ctx, dtype, n, s, &a);
        if (st == GP_OK && a < n) st = heads_set_gpu(ctx, wb, a, n, h);
    }
    if (st == GP_OK) st = gp_scan(ctx, GP_REDUCE_SUM, wb == 4 ? GP_U32 : GP_U64, GP_SCAN_INCLUSIVE, n, h, h, NULL);
    if (st == GP_OK) st = gp_memcpy_sync(ctx, &u, (char *)h + (n - 1) * wb, wb); /* little-endian: a u32 fits */
    if (st == GP_OK && counts) st = gp_memset(ctx, counts, 0, u * 8, NULL);
    if (st == GP_OK)
        st = gp__sort_gpu_ops.unique_emit(dtype, wb, ib ? ib : 8, n, s, perm, h, y, first_index, inverse, counts, NULL);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    scratch_done(ctx, &sb, kept);
    if (st == GP_OK) *count = (size_t)u;
    return st;
}
