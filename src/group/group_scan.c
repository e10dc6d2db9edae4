/*
 * group_scan.c — the sharded scan: one gp_scan / gp_scan_acc over the whole array, split across the ranks, with the
 * bits of one GPU. The scan's order (docs/design/scan.md) chains tiles of 4096: I_t = I_{t-1} (+) A_t, and a scan resumed
 * from the carry of whole tiles gives one pass's bits. So, with every shard but the last rank's made of whole tiles:
 *   1. each rank computes the aggregates A_t of its tiles (the scan kernel stopped before its look-back: one read);
 *   2. the aggregates are gathered (local groups: straight to the host; ranks of other processes: an all-gather);
 *   3. every rank folds the chain of the tiles before its shard on the host, in order (the CPU backend's combine,
 *      which is the GPU's bit for bit) — the carry I of the last tile before it;
 *   4. each rank scans its shard from that carry (the scanner's path), none when nothing comes before it.
 * Float chains do not reassociate, so the carry is the same fold the one-GPU scan's look-back does, value by value.
 */
#include "group_internal.h"
#include "../scan/scan_internal.h"

#include <stdlib.h>
#include <string.h>

gp_status_t gp_group_scan(gp_group_t *g, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, gp_scan_kind_t kind,
                          const size_t *counts, const void *const *x, void *const *y)
{
    static const char fn[] = "gp_group_scan";
    GP_TRY_RET(gp__group_check(fn, g));
    gp_dtype_t a, o;
    GP_TRY_RET(gp__scan_plan(fn, op, dtype, (int)acc, &a, &o));
    if (kind != GP_SCAN_INCLUSIVE && kind != GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not a gp_scan_kind_t", fn, (int)kind);
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, x, "x"));
    GP_TRY_RET(gp__group_check_shards(fn, g, o, counts, (const void *const *)y, "y"));
    for (int i = 0; i < g->nlocal; i++) GP_TRY_RET(gp__scan_check_xy(fn, dtype, o, counts[i], x[i], y[i]));
    const int P = g->size, L = g->nlocal;
    const size_t aa = gp_dtype_size(a);
    gp_status_t st = GP_OK;
    size_t *all = calloc((size_t)P, sizeof *all);
    unsigned char *carry = calloc((size_t)L, 16), *host = NULL;
    int *has = calloc((size_t)L, sizeof *has);     /* member i scans from a carry */
    int *feeds = calloc((size_t)P, sizeof *feeds); /* rank r's tiles feed a later rank's carry */
    void **dev = calloc(2 * (size_t)L, sizeof *dev);
    if (!all || !carry || !has || !dev || !feeds) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, P);
        goto fail;
    }
    /* every rank's count (every rank makes the same checks, so all refuse together, before any collective) */
    GP_TRY(gp__group_allgather_host(g, counts, all, sizeof *all));
    /* a rank feeds a carry when a later rank holds elements: its shard must then be whole tiles */
    size_t maxt = 0, later = 0; /* the most tiles a feeding rank holds */
    for (int r = P - 1; r >= 0; r--) {
        feeds[r] = later > 0;
        later += all[r];
    }
    for (int r = 0; r < P; r++) {
        if (feeds[r] && all[r] % GP__SCAN_TILE) {
            st = gp__error(GP_ERR_INVALID_ARG, "%s: rank %d holds %zu elements, not a multiple of GP_SCAN_GRANULE "
                                               "(%d), and a later rank holds some: every shard before the last "
                                               "non-empty one must be whole scan tiles (gp_group_split's are)",
                           fn, r, all[r], GP_SCAN_GRANULE);
            goto fail;
        }
        if (feeds[r] && all[r] / GP__SCAN_TILE > maxt) maxt = all[r] / GP__SCAN_TILE;
    }
    /* 1-2. the aggregates of every rank but the last, gathered to the host (rank r's at host + r * maxt) */
    if (maxt) {
        size_t hbytes;
        if (!gp__mul_ok((size_t)P * maxt, aa, &hbytes)) {
            st = gp__error(GP_ERR_OVERFLOW, "%s: %zu tiles per rank", fn, maxt);
            goto fail;
        }
        void *hp = NULL; /* the group's host scratch: page-locked on a GPU, kept between calls */
        GP_TRY(gp__group_host_scratch(g, 0, hbytes, &hp));
        host = hp;
        for (int i = 0; i < L; i++) {
            const size_t nt = feeds[g->rank0 + i] ? counts[i] / GP__SCAN_TILE : 0;
            GP_TRY(gp__group_scratch(g, i, 0, maxt * aa, &dev[i]));
            if (!nt) continue;
            if (g->gpu) {
                GP_TRY(gp__ctx_enter(g->ctx[i], fn));
                GP_TRY(gp__scan_gpu_ops.aggs(g->ctx[i], op, dtype, a, o, counts[i], x[i], dev[i], g->stream[i]));
            } else {
                GP_TRY(gp__scan_cpu_aggs(op, dtype, a, counts[i], x[i], dev[i], 1));
            }
        }
        if (L == P) { /* every rank is here: read each member's aggregates */
            for (int i = 0; i < L; i++)
                if (feeds[i] && all[i])
                    GP_TRY(gp__group_to_host(g, i, host + (size_t)i * maxt * aa, dev[i], all[i] / GP__SCAN_TILE * aa));
        } else {
            for (int i = 0; i < L; i++) GP_TRY(gp__group_scratch(g, i, 1, (size_t)P * maxt * aa, &dev[L + i]));
            GP_TRY(gp__group_allgather(g, (const void *const *)dev, dev + L, maxt * aa));
            GP_TRY(gp__group_to_host(g, 0, host, dev[L], (size_t)P * maxt * aa));
        }
    }
    /* 3. the carries: the chain from the padding identity over the tiles of the ranks before, in rank order */
    {
        unsigned char c[16] = {0};
        GP_TRY(gp__scan_cpu(op, a, 0, NULL, NULL, 0, NULL, c, 0));
        size_t before = 0;
        for (int r = 0; r < P; r++) {
            const int i = r - g->rank0;
            if (i >= 0 && i < L) {
                has[i] = before > 0;
                memcpy(carry + (size_t)i * 16, c, aa);
            }
            if (feeds[r] && all[r])
                GP_TRY(gp__scan_fold(op, a, all[r] / GP__SCAN_TILE, host + (size_t)r * maxt * aa, c));
            before += all[r];
        }
    }
    /* 4. each shard scanned from its carry */
    for (int i = 0; i < L; i++) {
        if (!counts[i]) continue;
        const void *cin = has[i] ? carry + (size_t)i * 16 : NULL;
        if (!g->gpu) {
            GP_TRY(gp__scan_cpu_x(op, dtype, a, o, counts[i], x[i], y[i], kind == GP_SCAN_EXCLUSIVE, cin, NULL, 1));
            continue;
        }
        GP_TRY(gp__ctx_enter(g->ctx[i], fn));
        void *dc = NULL;
        if (cin) {
            GP_TRY(gp__group_scratch(g, i, 0, 16, &dc));
            GP_CUDA_TRY(cudaMemcpyAsync(dc, cin, aa, cudaMemcpyHostToDevice, g->stream[i]));
        }
        GP_TRY(gp__scan_gpu_ops.scan(g->ctx[i], op, dtype, a, o, counts[i], x[i], y[i], kind == GP_SCAN_EXCLUSIVE, dc, NULL,
                              g->stream[i]));
    }
    GP_TRY(gp_group_sync(g));
fail:
    if (st != GP_OK && g->gpu) gp_group_sync(g);
    free(all);
    free(carry);
    free(has);
    free(feeds);
    free(dev);
    return st;
}
