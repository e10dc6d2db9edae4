/*
 * bykey.c — gp_reduce_by_key_sync and gp_scan_by_key_sync: the runs of equal keys found by gp_run_length_encode, their
 * offsets by an in-place gp_scan of the run lengths, then gp_reduce_segmented / gp_scan_segmented over those runs — so
 * the bits are the segmented ops' by construction, on either backend (docs/design/scan.md, "By key").
 */
#include "../core/internal.h"

#include <stdio.h>

/* the run offsets of n keys into a buffer of n + 1 words allocated on ctx (offsets[0, *runs]); run_keys: where the
 * runs' first keys go (n at most) */
static gp_status_t run_offsets(const char *fn, gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys,
                               void *run_keys, gp_buffer_t *buf, int64_t **offsets, size_t *runs)
{
    const int cpu = gp_ctx_device(ctx) == GP_DEVICE_CPU;
    GP_TRY_RET(gp_mem_alloc(ctx, cpu ? GP_MEM_PAGEABLE : GP_MEM_DEVICE, (n + 1) * 8, buf));
    uint64_t *o = (uint64_t *)(cpu ? buf->host : buf->device);
    gp_status_t st = gp_run_length_encode_sync(ctx, kt, n, keys, run_keys, o + 1, runs);
    if (st == GP_OK) st = gp_memset(ctx, o, 0, 8, NULL);
    if (st == GP_OK) st = gp_scan(ctx, GP_REDUCE_SUM, GP_U64, GP_SCAN_INCLUSIVE, *runs, o + 1, o + 1, NULL);
    if (st != GP_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", gp_last_error());
        gp_mem_free(ctx, buf);
        return gp__error(st, "%s: the runs of the keys: %s", fn, why);
    }
    *offsets = (int64_t *)o;
    return GP_OK;
}

gp_status_t gp_reduce_by_key_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                                  gp_dtype_t dtype, const void *values, void *keys_out, void *values_out, size_t *runs)
{
    static const char fn[] = "gp_reduce_by_key_sync";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_ARG_NONNULL(fn, runs);
    *runs = 0;
    if ((unsigned)key_dtype >= GP_DTYPE_COUNT || (unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s %d is not a gp_dtype_t", fn,
                         (unsigned)key_dtype >= GP_DTYPE_COUNT ? "key_dtype" : "dtype",
                         (unsigned)key_dtype >= GP_DTYPE_COUNT ? (int)key_dtype : (int)dtype);
    if (gp_reduce_acc_dtype(op, dtype) == GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d over %s (gp_reduce_segmented's ops)", fn, (int)op,
                         gp_dtype_name(dtype));
    if (n == 0) return GP_OK;
    if (n > (SIZE_MAX >> 4)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu overflows", fn, n);
    GP_ARG_NONNULL(fn, keys);
    GP_ARG_NONNULL(fn, values);
    GP_ARG_NONNULL(fn, keys_out);
    GP_ARG_NONNULL(fn, values_out);
    GP_NO_CAPTURE(ctx, fn, "it waits for the number of runs");
    gp_buffer_t buf;
    int64_t *offsets = NULL;
    size_t r = 0;
    GP_TRY_RET(run_offsets(fn, ctx, key_dtype, n, keys, keys_out, &buf, &offsets, &r));
    gp_status_t st = gp_reduce_segmented(ctx, op, dtype, n, values, r, offsets, values_out, NULL);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    gp_mem_free(ctx, &buf);
    if (st == GP_OK) *runs = r;
    return st;
}

gp_status_t gp_scan_by_key_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                                gp_dtype_t dtype, gp_scan_kind_t kind, const void *values, void *y)
{
    static const char fn[] = "gp_scan_by_key_sync";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)key_dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: key_dtype %d is not a gp_dtype_t", fn, (int)key_dtype);
    if (n == 0) return GP_OK;
    if (n > (SIZE_MAX >> 4)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu overflows", fn, n);
    GP_ARG_NONNULL(fn, keys);
    GP_ARG_NONNULL(fn, values);
    GP_ARG_NONNULL(fn, y);
    GP_NO_CAPTURE(ctx, fn, "it waits for the number of runs");
    const int cpu = gp_ctx_device(ctx) == GP_DEVICE_CPU;
    gp_buffer_t kbuf, buf;
    GP_TRY_RET(gp_mem_alloc(ctx, cpu ? GP_MEM_PAGEABLE : GP_MEM_DEVICE, n * gp_dtype_size(key_dtype), &kbuf));
    int64_t *offsets = NULL;
    size_t r = 0;
    gp_status_t st = run_offsets(fn, ctx, key_dtype, n, keys, cpu ? kbuf.host : kbuf.device, &buf, &offsets, &r);
    if (st == GP_OK) {
        st = gp_scan_segmented(ctx, op, dtype, kind, n, values, r, offsets, y, NULL);
        if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
        gp_mem_free(ctx, &buf);
    }
    gp_mem_free(ctx, &kbuf);
    return st;
}
