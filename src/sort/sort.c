/*
 * sort.c — gp_sort, gp_sort_pairs, gp_argsort: the checks, then the CPU backend (sort_cpu.c) or the GPU's
 * (sort.cu), both in NumPy's order (sort_internal.h, docs/design/sort.md).
 */
#include "sort_internal.h"
#include "core/backend.h"

#include <string.h>

/* the value sizes a sort carries (0: keys only) */
static int value_bytes_ok(size_t vb) { return vb == 0 || vb == 1 || vb == 2 || vb == 4 || vb == 8 || vb == 16; }

gp_status_t gp__sort_opts(const char *fn, gp_dtype_t dtype, const gp_sort_opts_t *opts, int *desc, int *lo, int *hi)
{
    const int width = 8 * (int)gp_dtype_size(dtype);
    const int fl = dtype == GP_F16 || dtype == GP_BF16 || dtype == GP_F32 || dtype == GP_F64;
    *lo = 0, *hi = width, *desc = 0;
    if (!opts) return GP_OK;
    *desc = opts->descending != 0;
    if (opts->begin_bit == 0 && opts->end_bit == 0) return GP_OK;
    if (fl)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts bits [%d, %d): %s keys sort on the whole key", fn,
                         opts->begin_bit, opts->end_bit, gp_dtype_name(dtype));
    if (opts->begin_bit < 0 || opts->end_bit > width || opts->begin_bit >= opts->end_bit)
        return gp__error(GP_ERR_INVALID_ARG, "%s: opts bits [%d, %d) of a %d-bit key", fn, opts->begin_bit,
                         opts->end_bit, width);
    *lo = opts->begin_bit, *hi = opts->end_bit;
    return GP_OK;
}

/* vsize: value bytes (0: keys only); argsort: vals_in NULL, vals_out the indices of vsize bytes; sync: wait */
static gp_status_t sort_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys,
                                void *keys_out, size_t vsize, const void *vals, void *vals_out, int argsort,
                                const gp_sort_opts_t *opts, gp_stream_t stream, int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    int lo = 0, hi = 0, desc = 0;
    GP_TRY_RET(gp__sort_opts(fn, dtype, opts, &desc, &lo, &hi));
    if (!argsort && !value_bytes_ok(vsize))
        return gp__error(GP_ERR_INVALID_ARG, "%s: value_bytes %zu (1, 2, 4, 8 or 16)", fn, vsize);
    const size_t ks = gp_dtype_size(dtype);
    size_t kb = 0, vb = 0;
    if (!gp__mul_ok(n, ks, &kb) || !gp__mul_ok(n, vsize ? vsize : 1, &vb) || n > (SIZE_MAX >> 5))
        return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu elements overflow", fn, n);
    if (!vsize) vb = 0;
    if (argsort && vsize == 4 && n > (size_t)UINT32_MAX + 1)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype u32 cannot index %zu keys (GP_U64 can)", fn, n);
    if (n) {
        GP_ARG_NONNULL(fn, keys);
        if (!argsort) GP_ARG_NONNULL(fn, keys_out);
        if ((uintptr_t)keys % ks || (keys_out && (uintptr_t)keys_out % ks))
            return gp__error(GP_ERR_INVALID_ARG, "%s: keys are not %zu-byte aligned", fn, ks);
        if (keys_out && keys_out != keys && gp__overlap(keys, kb, keys_out, kb))
            return gp__error(GP_ERR_INVALID_ARG, "%s: keys and keys_out overlap (equal pointers sort in place)", fn);
        if (vsize) {
            const char *vo = argsort ? "indices" : "values_out";
            if (!argsort) GP_ARG_NONNULL(fn, vals);
            if (vals_out == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, vo);
            const size_t va = vsize < 8 ? vsize : 8;
            if ((vals && (uintptr_t)vals % va) || (uintptr_t)vals_out % va)
                return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn, vals && (uintptr_t)vals % va ? "values" : vo, va);
            if (vals && vals_out != vals && gp__overlap(vals, vb, vals_out, vb))
                return gp__error(GP_ERR_INVALID_ARG, "%s: values and values_out overlap (equal pointers: in place)", fn);
            if (gp__overlap(vals_out, vb, keys, kb) || (keys_out && gp__overlap(vals_out, vb, keys_out, kb)) ||
                (vals && (gp__overlap(vals, vb, keys, kb) || (keys_out && gp__overlap(vals, vb, keys_out, kb)))))
                return gp__error(GP_ERR_INVALID_ARG, "%s: the values overlap the keys", fn);
        }
    }
    if (n == 0) return GP_OK;
    if (gp__is_cpu(ctx))
        return gp__sort_cpu(dtype, n, keys, keys_out, vsize, argsort ? NULL : vals, vals_out, desc, lo, hi);
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(gp__sort_gpu_ops.sort(ctx, dtype, n, keys, keys_out, vsize, argsort ? NULL : vals, vals_out, desc, lo, hi, s));
    return gp__gpu_wait(fn, s, sync);
}


gp_status_t gp_sort(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                    const gp_sort_opts_t *opts, gp_stream_t stream)
{
    return sort_enqueue("gp_sort", ctx, dtype, n, keys, keys_out, 0, NULL, NULL, 0, opts, stream, 0);
}

gp_status_t gp_sort_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                         const gp_sort_opts_t *opts)
{
    return sort_enqueue("gp_sort_sync", ctx, dtype, n, keys, keys_out, 0, NULL, NULL, 0, opts, NULL, 1);
}

gp_status_t gp_sort_pairs(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                          size_t value_bytes, const void *values, void *values_out, const gp_sort_opts_t *opts,
                          gp_stream_t stream)
{
    if (value_bytes == 0) return gp__error(GP_ERR_INVALID_ARG, "gp_sort_pairs: value_bytes 0 (1, 2, 4, 8 or 16)");
    return sort_enqueue("gp_sort_pairs", ctx, dtype, n, keys, keys_out, value_bytes, values, values_out, 0, opts,
                        stream, 0);
}

gp_status_t gp_sort_pairs_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                               size_t value_bytes, const void *values, void *values_out, const gp_sort_opts_t *opts)
{
    if (value_bytes == 0) return gp__error(GP_ERR_INVALID_ARG, "gp_sort_pairs_sync: value_bytes 0 (1, 2, 4, 8 or 16)");
    return sort_enqueue("gp_sort_pairs_sync", ctx, dtype, n, keys, keys_out, value_bytes, values, values_out, 0, opts,
                        NULL, 1);
}

gp_status_t gp_argsort(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, gp_dtype_t index_dtype,
                       void *indices, const gp_sort_opts_t *opts, gp_stream_t stream)
{
    const size_t ib = gp__sort_index_bytes(index_dtype);
    char lb[16];
    if (!ib)
        return gp__error(GP_ERR_INVALID_ARG, "gp_argsort: index dtype %s (GP_U32, GP_I64 or GP_U64)",
                         GP__DTYPE_LABEL(lb, index_dtype));
    return sort_enqueue("gp_argsort", ctx, dtype, n, keys, NULL, ib, NULL, indices, 1, opts, stream, 0);
}

gp_status_t gp_argsort_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, gp_dtype_t index_dtype,
                            void *indices, const gp_sort_opts_t *opts)
{
    const size_t ib = gp__sort_index_bytes(index_dtype);
    char lb[16];
    if (!ib)
        return gp__error(GP_ERR_INVALID_ARG, "gp_argsort_sync: index dtype %s (GP_U32, GP_I64 or GP_U64)",
                         GP__DTYPE_LABEL(lb, index_dtype));
    return sort_enqueue("gp_argsort_sync", ctx, dtype, n, keys, NULL, ib, NULL, indices, 1, opts, NULL, 1);
}

gp_status_t gp_sort_workspace_bytes(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, size_t value_bytes, int argsort,
                                    size_t *bytes)
{
    GP_TRY_RET(gp__ctx_enter(ctx, "gp_sort_workspace_bytes"));
    GP_ARG_NONNULL("gp_sort_workspace_bytes", bytes);
    *bytes = 0;
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "gp_sort_workspace_bytes: dtype %d is not a gp_dtype_t", (int)dtype);
    if (argsort ? value_bytes != 4 && value_bytes != 8 : !value_bytes_ok(value_bytes))
        return gp__error(GP_ERR_INVALID_ARG, "gp_sort_workspace_bytes: value_bytes %zu (%s)", value_bytes,
                         argsort ? "an argsort's index bytes: 4 or 8" : "0, 1, 2, 4, 8 or 16");
    if (n > (SIZE_MAX >> 5))
        return gp__error(GP_ERR_OVERFLOW, "gp_sort_workspace_bytes: n = %zu elements overflow", n);
    if (!gp__is_cpu(ctx)) *bytes = gp__sort_gpu_ops.workspace_bytes(dtype, n, value_bytes, argsort != 0);
    return GP_OK;
}

const gp__sort_gpu_ops_t gp__sort_gpu_ops = {
    .workspace_bytes = GP_GPU_SLOT(gp__sort_gpu_workspace_bytes),
    .sort = GP_GPU_SLOT(gp__sort_gpu),
    .segmented = GP_GPU_SLOT(gp__sort_segmented_gpu),
    .searchsorted = GP_GPU_SLOT(gp__searchsorted_gpu),
    .merge = GP_GPU_SLOT(gp__merge_gpu),
    .topk = GP_GPU_SLOT(gp__topk_gpu),
    .unique_iota = GP_GPU_SLOT(gp__unique_iota_gpu),
    .unique_heads = GP_GPU_SLOT(gp__unique_heads_gpu),
    .unique_emit = GP_GPU_SLOT(gp__unique_emit_gpu),
    .sort_keys_add = GP_GPU_SLOT(gp__sort_gpu_keys_add),
    .unique_range = GP_GPU_SLOT(gp__unique_range_gpu),
    .unique_dense = GP_GPU_SLOT(gp__unique_dense_gpu),
};
