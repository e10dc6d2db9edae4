/*
 * group_ops.c — the even split and scatter of an array over a group, and the sharded primitives whose combine is a
 * sum: histograms (counts all-reduced), dot products (partials gathered and added in rank order), and the
 * elementwise vector ops (no combine at all).
 */
#include "group_internal.h"
#include "../vector/vector_internal.h"

#include <stdlib.h>
#include <string.h>

#define TILE_BYTES 65536 /* the reduction tile (docs/design/reduce.md): no tile spans two shards of the even split */

gp_status_t gp_group_split(const gp_group_t *g, gp_dtype_t dtype, size_t n, int rank, size_t *first, size_t *count)
{
    static const char fn[] = "gp_group_split";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_ARG_NONNULL(fn, first);
    GP_ARG_NONNULL(fn, count);
    if ((unsigned)dtype >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dtype);
    if (rank < 0 || rank >= g->size)
        return gp__error(GP_ERR_INVALID_ARG, "%s: rank %d is outside [0, %d)", fn, rank, g->size);
    const size_t E = TILE_BYTES / gp_dtype_size(dtype), T = n / E + (n % E != 0);
    const size_t base = T / (size_t)g->size, extra = T % (size_t)g->size, r = (size_t)rank;
    const size_t t0 = r * base + (r < extra ? r : extra), t1 = t0 + base + (r < extra);
    const size_t a = t0 * E < n ? t0 * E : n, b = t1 * E < n ? t1 * E : n;
    *first = a;
    *count = b - a;
    return GP_OK;
}

gp_status_t gp_group_free_shards(gp_group_t *g, gp_buffer_t *shards)
{
    if (!g || !shards) return GP_OK;
    gp_status_t st = GP_OK;
    for (int i = 0; i < g->nlocal; i++) {
        const gp_status_t s = gp_mem_free(g->ctx[i], &shards[i]);
        if (s != GP_OK && st == GP_OK) st = s;
    }
    return st;
}

gp_status_t gp_group_scatter(gp_group_t *g, gp_dtype_t dtype, size_t n, const void *host, gp_buffer_t *shards)
{
    static const char fn[] = "gp_group_scatter";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_ARG_NONNULL(fn, shards);
    if (n && !host) return gp__error(GP_ERR_INVALID_ARG, "%s: host is NULL with n = %zu", fn, n);
    if ((unsigned)dtype >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dtype);
    const size_t es = gp_dtype_size(dtype);
    size_t total;
    if (!gp__mul_ok(n, es, &total)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu elements", fn, n);
    memset(shards, 0, (size_t)g->nlocal * sizeof *shards);
    gp_status_t st = GP_OK;
    for (int i = 0; i < g->nlocal; i++) {
        size_t first, count;
        GP_TRY(gp_group_split(g, dtype, n, g->rank0 + i, &first, &count));
        GP_TRY(gp_mem_alloc(g->ctx[i], GP_MEM_DEVICE, count * es, &shards[i]));
        if (!count) continue;
        const char *src = (const char *)host + first * es;
        if (!g->gpu) {
            memcpy(shards[i].host, src, count * es);
            continue;
        }
        GP_TRY(gp__ctx_enter(g->ctx[i], fn));
        GP_CUDA_TRY(cudaMemcpyAsync(shards[i].device, src, count * es, cudaMemcpyHostToDevice, g->stream[i]));
    }
    GP_TRY(gp_group_sync(g));
    return GP_OK;
fail:
    gp_group_sync(g);
    gp_group_free_shards(g, shards);
    return st;
}

gp_status_t gp_group_histogram(gp_group_t *g, gp_dtype_t dtype, const size_t *counts, const void *const *shards,
                               const gp_hist_bins_t *bins, gp_dtype_t count_dtype, void *counts_host)
{
    static const char fn[] = "gp_group_histogram";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_ARG_NONNULL(fn, bins);
    GP_ARG_NONNULL(fn, counts_host);
    if (count_dtype != GP_U32 && count_dtype != GP_U64)
        return gp__error(GP_ERR_INVALID_ARG, "%s: count_dtype must be u32 or u64", fn);
    if (bins->nbins == 0 || bins->nbins > ((size_t)1 << 40))
        return gp__error(GP_ERR_INVALID_ARG, "%s: bins->nbins is %zu", fn, bins->nbins);
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, shards, "shards"));
    const size_t nc = bins->nbins + 3, bytes = nc * gp_dtype_size(count_dtype);
    gp_status_t st = GP_OK;
    void **buf = calloc((size_t)g->nlocal, sizeof *buf);
    if (!buf) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d members", fn, g->nlocal);
    for (int i = 0; i < g->nlocal; i++) {
        GP_TRY(gp__group_scratch(g, i, 0, bytes, &buf[i]));
        if (g->gpu) GP_CUDA_TRY(cudaMemsetAsync(buf[i], 0, bytes, g->stream[i]));
        else memset(buf[i], 0, bytes);
        GP_TRY(gp_histogram_accumulate(g->ctx[i], dtype, counts[i], shards[i], bins, count_dtype, buf[i],
                                       (gp_stream_t)g->stream[i]));
    }
    GP_TRY(gp__group_allsum(g, buf, nc, count_dtype));
    GP_TRY(gp__group_to_host(g, 0, counts_host, buf[0], bytes));
fail:
    if (g->gpu) gp_group_sync(g);
    free(buf);
    return st;
}

gp_status_t gp_group_dot(gp_group_t *g, gp_dtype_t dtype, const size_t *counts, const void *const *x,
                         const void *const *y, void *result_host)
{
    static const char fn[] = "gp_group_dot";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_ARG_NONNULL(fn, result_host);
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, x, "x"));
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, y, "y"));
    gp_status_t st = GP_OK;
    void **buf = calloc(2 * (size_t)g->nlocal, sizeof *buf);
    uint64_t *all = calloc((size_t)g->size, sizeof *all);
    if (!buf || !all) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, g->size);
        goto fail;
    }
    for (int i = 0; i < g->nlocal; i++) { /* every member's arguments before anything runs */
        gp__vec_args_t a;
        GP_TRY(gp__vec_check(fn, g->ctx[i], GP__VEC_DOT, dtype, counts[i], 0.0, x[i], y[i], all, &a));
    }
    for (int i = 0; i < g->nlocal; i++) {
        GP_TRY(gp__group_scratch(g, i, 0, 8, &buf[i]));
        GP_TRY(gp__group_scratch(g, i, 1, 8 * (size_t)g->size, &buf[g->nlocal + i]));
        GP_TRY(gp_vec_dot(g->ctx[i], dtype, counts[i], x[i], y[i], buf[i], (gp_stream_t)g->stream[i]));
    }
    GP_TRY(gp__group_allgather(g, (const void *const *)buf, buf + g->nlocal, 8));
    GP_TRY(gp__group_to_host(g, 0, all, buf[g->nlocal], 8 * (size_t)g->size));
    if (dtype == GP_I32) {
        uint64_t s = 0; /* int64 wrapping: exact whatever the order */
        for (int k = 0; k < g->size; k++) s += all[k];
        memcpy(result_host, &s, 8);
    } else {
        double s = 0.0, v;
        for (int k = 0; k < g->size; k++) {
            memcpy(&v, &all[k], 8);
            s = k ? s + v : v;
        }
        memcpy(result_host, &s, 8);
    }
fail:
    if (buf && g->gpu) gp_group_sync(g);
    free(buf);
    free(all);
    return st;
}

gp_status_t gp_group_vec(gp_group_t *g, gp_group_vec_op_t op, gp_dtype_t dtype, const size_t *counts, double alpha,
                         const void *const *x, const void *const *y, void *const *z)
{
    static const char fn[] = "gp_group_vec";
    GP_TRY_RET(gp__group_check(fn, g));
    if ((unsigned)op > GP_GROUP_TRIAD) return gp__error(GP_ERR_INVALID_ARG, "%s: op %d", fn, (int)op);
    const gp__vec_op_t vop = op == GP_GROUP_COPY ? GP__VEC_COPY : op == GP_GROUP_SCALE ? GP__VEC_SCALE
                           : op == GP_GROUP_ADD ? GP__VEC_ADD : GP__VEC_TRIAD;
    const int two = op == GP_GROUP_ADD || op == GP_GROUP_TRIAD;
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, x, "x"));
    if (two) GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, y, "y"));
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, (const void *const *)z, "z"));
    for (int i = 0; i < g->nlocal; i++) { /* every member's arguments before anything runs */
        gp__vec_args_t a;
        static char one; /* a non-NULL z for the empty shards */
        GP_TRY_RET(gp__vec_check(fn, g->ctx[i], vop, dtype, counts[i], alpha, x[i], two ? y[i] : NULL,
                                 z[i] ? z[i] : &one, &a));
    }
    for (int i = 0; i < g->nlocal; i++) {
        if (!counts[i]) continue;
        const gp_stream_t s = (gp_stream_t)g->stream[i];
        gp_ctx_t *c = g->ctx[i];
        switch (op) {
        case GP_GROUP_COPY: GP_TRY_RET(gp_vec_copy(c, dtype, counts[i], x[i], z[i], s)); break;
        case GP_GROUP_SCALE: GP_TRY_RET(gp_vec_scale(c, dtype, counts[i], alpha, x[i], z[i], s)); break;
        case GP_GROUP_ADD: GP_TRY_RET(gp_vec_add(c, dtype, counts[i], x[i], y[i], z[i], s)); break;
        case GP_GROUP_TRIAD: GP_TRY_RET(gp_vec_triad(c, dtype, counts[i], alpha, x[i], y[i], z[i], s)); break;
        }
    }
    return GP_OK;
}
