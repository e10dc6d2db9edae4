/*
 * search.c — gp_searchsorted: the checks, then the CPU backend (here) or the GPU's (search.cu). Keys and queries are
 * compared as radix keys (sort_internal.h), so the order is gp_sort's: NaN after every number, -0.0 == +0.0.
 */
#include "sort_internal.h"
#include "core/backend.h"

size_t gp__sort_index_bytes(gp_dtype_t t) { return t == GP_U32 ? 4 : t == GP_U64 || t == GP_I64 ? 8 : 0; }

/* The CPU backend: queries in groups of QB searched level by level together (a branchless lower / upper bound whose
 * range halves alike for every query), each level's probes prefetched before any is compared, so a group's cache
 * misses overlap instead of following one another. The same places as one binary search per query. */
enum { QB = 16 };
static void search_cpu(gp_dtype_t dt, size_t n, const unsigned char *a, size_t m, const unsigned char *q, int right,
                       size_t ib, unsigned char *out)
{
    const gp__sort_xf_t xf = gp__sort_xf(dt, 0);
    const size_t ks = gp_dtype_size(dt);
    const size_t groups = (m + QB - 1) / QB;
#pragma omp parallel for schedule(static) if (m > 4096)
    for (size_t g = 0; g < groups; g++) {
        const size_t q0 = g * QB, qn = m - q0 < QB ? m - q0 : QB;
        uint64_t qk[QB];
        size_t base[QB], len = n; /* each query's place lies in [base, base + len] */
        for (size_t i = 0; i < qn; i++) qk[i] = gp__sort_xf_key(&xf, gp__sort_bits(q + (q0 + i) * ks, ks), ks), base[i] = 0;
        while (len > 1) {
            const size_t half = len / 2;
            for (size_t i = 0; i < qn; i++) __builtin_prefetch(a + (base[i] + half) * ks);
            for (size_t i = 0; i < qn; i++) {
                const uint64_t v = gp__sort_xf_key(&xf, gp__sort_bits(a + (base[i] + half) * ks, ks), ks);
                base[i] += (right ? v <= qk[i] : v < qk[i]) ? half : 0;
            }
            len -= half;
        }
        for (size_t i = 0; i < qn; i++) {
            size_t at = base[i];
            if (n) {
                const uint64_t v = gp__sort_xf_key(&xf, gp__sort_bits(a + at * ks, ks), ks);
                at += right ? v <= qk[i] : v < qk[i];
            }
            if (ib == 4) {
                const uint32_t w = (uint32_t)at;
                memcpy(out + (q0 + i) * 4, &w, 4);
            } else {
                const uint64_t w = at;
                memcpy(out + (q0 + i) * 8, &w, 8);
            }
        }
    }
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
