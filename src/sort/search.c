/*
 * search.c — gp_searchsorted: the checks, then the CPU backend (here) or the GPU's (search.cu). Keys and queries are
 * compared as radix keys (sort_internal.h), so the order is gp_sort's: NaN after every number, -0.0 == +0.0.
 */
#include "sort_internal.h"
#include "core/backend.h"

#include <stdlib.h>

size_t gp__sort_index_bytes(gp_dtype_t t) { return t == GP_U32 ? 4 : t == GP_U64 || t == GP_I64 ? 8 : 0; }

/* The CPU backend: queries in groups of QB searched level by level together (a branchless lower / upper bound whose
 * range halves alike for every query), each level's probes prefetched before any is compared, so a group's cache
 * misses overlap instead of following one another. From SAMPLE_MIN_N keys (and enough queries to pay for it) every
 * SAMPLE-th key's radix key is copied first into a table that stays in cache: a query's block of SAMPLE keys is found
 * there, and only that block (a few cache lines) is searched in the array. The same places as one binary search per
 * query. */
enum { QB = 16, SAMPLE = 64, SAMPLE_MIN_N = 1 << 17, PAR_QUERIES = 4096 };
typedef struct search_job {
    gp__sort_xf_t xf;
    size_t ks, n, m, ns, ib;
    const unsigned char *a, *q;
    const uint64_t *samp; /* every SAMPLE-th key's radix key (NULL: none) */
    int right;
    unsigned char *out;
} search_job_t;

/* queries [g QB, g QB + QB) of the job */
static void search_group(const search_job_t *j, size_t g)
{
    const gp__sort_xf_t lx = j->xf;
    const size_t ks = j->ks, n = j->n, ns = j->ns, m = j->m;
    const unsigned char *a = j->a, *q = j->q;
    const uint64_t *samp = j->samp;
    const int right = j->right;
    const size_t q0 = g * QB, qn = m - q0 < QB ? m - q0 : QB;
    uint64_t qk[QB];
    size_t base[QB], len[QB], most = 0; /* each query's place lies in [base, base + len] */
    for (size_t i = 0; i < qn; i++) qk[i] = gp__sort_xf_key(&lx, gp__sort_bits(q + (q0 + i) * ks, ks), ks);
#define GP_BELOW(v, i) (right ? (v) <= qk[i] : (v) < qk[i])
    if (samp) { /* j = the samples below the query: its place is in ((j - 1) SAMPLE, j SAMPLE] (and <= n) */
        size_t sb[QB] = {0};
        for (size_t sl = ns; sl > 1; sl -= sl / 2)
            for (size_t i = 0; i < qn; i++) sb[i] += GP_BELOW(samp[sb[i] + sl / 2], i) ? sl / 2 : 0;
        for (size_t i = 0; i < qn; i++) {
            const size_t jj = sb[i] + (GP_BELOW(samp[sb[i]], i) ? 1 : 0), hi = jj * SAMPLE < n ? jj * SAMPLE : n;
            base[i] = jj ? (jj - 1) * SAMPLE + 1 : 0;
            len[i] = hi - base[i];
        }
    } else {
        for (size_t i = 0; i < qn; i++) base[i] = 0, len[i] = n;
    }
    for (size_t i = 0; i < qn; i++) most = len[i] > most ? len[i] : most;
    for (size_t l = most; l > 1; l -= l / 2) { /* every len halves as the longest does: done together */
        for (size_t i = 0; i < qn; i++)
            if (len[i] > 1) __builtin_prefetch(a + (base[i] + len[i] / 2) * ks);
        for (size_t i = 0; i < qn; i++) {
            if (len[i] <= 1) continue;
            const size_t half = len[i] / 2;
            const uint64_t v = gp__sort_xf_key(&lx, gp__sort_bits(a + (base[i] + half) * ks, ks), ks);
            base[i] += GP_BELOW(v, i) ? half : 0;
            len[i] -= half;
        }
    }
    for (size_t i = 0; i < qn; i++) {
        size_t at = base[i];
        if (len[i]) {
            const uint64_t v = gp__sort_xf_key(&lx, gp__sort_bits(a + at * ks, ks), ks);
            at += GP_BELOW(v, i);
        }
#undef GP_BELOW
        if (j->ib == 4) {
            const uint32_t w = (uint32_t)at;
            memcpy(j->out + (q0 + i) * 4, &w, 4);
        } else {
            const uint64_t w = at;
            memcpy(j->out + (q0 + i) * 8, &w, 8);
        }
    }
}

static void search_cpu(gp_dtype_t dt, size_t n, const unsigned char *a, size_t m, const unsigned char *q, int right,
                       size_t ib, unsigned char *out)
{
    search_job_t j = {gp__sort_xf(dt, 0), gp_dtype_size(dt), n, m, 0, ib, a, q, NULL, right, out};
    const size_t groups = (m + QB - 1) / QB, ks = j.ks;
    uint64_t *samp = NULL;
    if (n >= SAMPLE_MIN_N && m >= n / SAMPLE / 4) {
        const size_t ns = (n + SAMPLE - 1) / SAMPLE;
        if ((samp = malloc(ns * sizeof *samp)) != NULL) {
            const gp__sort_xf_t xf = j.xf;
#pragma omp parallel for schedule(static) if (ns > 4096)
            for (size_t s = 0; s < ns; s++) {
                const gp__sort_xf_t lx = xf;
                samp[s] = gp__sort_xf_key(&lx, gp__sort_bits(a + s * SAMPLE * ks, ks), ks);
            }
            j.samp = samp, j.ns = ns;
        }
    }
    if (m > PAR_QUERIES) {
#pragma omp parallel for schedule(static)
        for (size_t g = 0; g < groups; g++) search_group(&j, g);
    } else /* no OpenMP region: even one thread's costs a team's set-up, more than a few queries take */
        for (size_t g = 0; g < groups; g++) search_group(&j, g);
    free(samp);
}

static gp_status_t search_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *sorted,
                                  size_t m, const void *queries, int side, gp_dtype_t index_dtype, void *out,
                                  gp_stream_t stream, int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (side != 0 && side != 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: side %d (0: 'left', 1: 'right')", fn, side);
    const size_t ib = gp__sort_index_bytes(index_dtype), ks = gp_dtype_size(dtype);
    if (!ib)
    {
        char lb[16];
        return gp__error(GP_ERR_INVALID_ARG, "%s: index dtype %s (GP_U32, GP_I64 or GP_U64)", fn,
                         GP__DTYPE_LABEL(lb, index_dtype));
    }
    if (ib == 4 && n > UINT32_MAX)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype u32 cannot hold places up to n = %zu (GP_I64 can)", fn, n);
    size_t bytes;
    if (!gp__mul_ok(n, ks, &bytes) || !gp__mul_ok(m, ks > ib ? ks : ib, &bytes) || n > (SIZE_MAX >> 4))
        return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu keys, m = %zu queries overflow", fn, n, m);
    if (m == 0) return GP_OK;
    if (n) GP_ARG_NONNULL(fn, sorted);
    GP_ARG_NONNULL(fn, queries);
    GP_ARG_NONNULL(fn, out);
    if ((n && (uintptr_t)sorted % ks) || (uintptr_t)queries % ks)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn,
                         n && (uintptr_t)sorted % ks ? "sorted" : "queries", ks);
    if ((uintptr_t)out % ib) return gp__error(GP_ERR_INVALID_ARG, "%s: out is not %zu-byte aligned", fn, ib);
    const uintptr_t o = (uintptr_t)out, ob = (uintptr_t)m * ib;
    if ((n && o < (uintptr_t)sorted + n * ks && (uintptr_t)sorted < o + ob) ||
        (o < (uintptr_t)queries + m * ks && (uintptr_t)queries < o + ob))
        return gp__error(GP_ERR_INVALID_ARG, "%s: out overlaps the keys or the queries", fn);
    if (gp__is_cpu(ctx)) {
        search_cpu(dtype, n, sorted, m, queries, side, ib, out);
        return GP_OK;
    }
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(gp__sort_gpu_ops.searchsorted(ctx, dtype, n, sorted, m, queries, side, ib, out, s));
    return gp__gpu_wait(fn, s, sync);
}

gp_status_t gp_searchsorted(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *sorted, size_t m,
                            const void *queries, int side, gp_dtype_t index_dtype, void *out, gp_stream_t stream)
{
    return search_enqueue("gp_searchsorted", ctx, dtype, n, sorted, m, queries, side, index_dtype, out, stream, 0);
}

gp_status_t gp_searchsorted_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *sorted, size_t m,
                                 const void *queries, int side, gp_dtype_t index_dtype, void *out)
{
    return search_enqueue("gp_searchsorted_sync", ctx, dtype, n, sorted, m, queries, side, index_dtype, out, NULL, 1);
}
