/*
 * scan.c — the public scan (gp_scan): checks, then the CPU reference (scan_cpu.c) or the single-pass GPU kernel
 * (scan.cu), both in the association order of docs/SCAN.md.
 */
#include "scan_internal.h"

#include <stdint.h>
#include <stdlib.h>

/* The checks every scan call shares: op and dtype (and kind), then n's bytes, x and y non-NULL and element-aligned,
 * overlapping only when the same array. */
gp_status_t gp__scan_check(const char *fn, gp_reduce_op_t op, gp_dtype_t dtype, int kind)
{
    if ((unsigned)op >= GP_REDUCE_OP_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d is not a gp_reduce_op_t", fn, (int)op);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (kind != GP_SCAN_INCLUSIVE && kind != GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not a gp_scan_kind_t", fn, kind);
    if (!gp__scan_supported(op, dtype))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s of %s (scans take sum prod min max of f32 f64 i32 u32 i64 u64, "
                                             "and or xor of the integers)", fn, gp_reduce_op_name(op), gp_dtype_name(dtype));
    return GP_OK;
}

gp_status_t gp__scan_check_arrays(const char *fn, gp_dtype_t dtype, size_t n, const void *x, const void *y)
{
    const size_t es = gp_dtype_size(dtype);
    size_t bytes = 0;
    if (!gp__mul_ok(n, es, &bytes) || bytes > (size_t)INT64_MAX)
        return gp__error(GP_ERR_OVERFLOW, "%s: n * sizeof(%s) = %zu * %zu overflows", fn, gp_dtype_name(dtype), n, es);
    if (n == 0) return GP_OK;
    GP_ARG_NONNULL(fn, x);
    GP_ARG_NONNULL(fn, y);
    if ((uintptr_t)x % es) return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, es);
    if ((uintptr_t)y % es) return gp__error(GP_ERR_INVALID_ARG, "%s: y is not %zu-byte aligned", fn, es);
    const uintptr_t xa = (uintptr_t)x, ya = (uintptr_t)y;
    if (xa != ya && xa < ya + bytes && ya < xa + bytes)
        return gp__error(GP_ERR_INVALID_ARG, "%s: x and y overlap without being the same array (in place: y == x)", fn);
    return GP_OK;
}

gp_status_t gp_scan(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n, const void *x,
                    void *y, gp_stream_t stream)
{
    static const char fn[] = "gp_scan";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(gp__scan_check(fn, op, dtype, (int)kind));
    GP_TRY_RET(gp__scan_check_arrays(fn, dtype, n, x, y));
    if (n == 0) return GP_OK;
    if (gp__is_cpu(ctx)) return gp__scan_cpu(op, dtype, n, x, y, kind == GP_SCAN_EXCLUSIVE, NULL, NULL, 1);
    return gp__scan_gpu(ctx, op, dtype, n, x, y, kind == GP_SCAN_EXCLUSIVE, NULL, NULL, (cudaStream_t)stream);
}

/* Segmented scans: the checks of gp_scan (sum prod min max over f32 f64 i32 u32 i64 u64, and or xor over the
 * integers), then the heads or offsets. */
static gp_status_t seg_run(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind,
                           size_t n, const void *x, const uint8_t *heads, size_t nseg, const int64_t *offsets, void *y,
                           gp_stream_t stream)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(gp__scan_check(fn, op, dtype, (int)kind));
    GP_TRY_RET(gp__scan_check_arrays(fn, dtype, n, x, y));
    const int by_off = heads == NULL;
    if (by_off && nseg == SIZE_MAX) return gp__error(GP_ERR_OVERFLOW, "%s: nseg + 1 offsets overflow", fn);
    if (by_off && offsets == NULL && (n > 0 || nseg > 0)) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is NULL", fn);
    if (by_off && offsets && (uintptr_t)offsets % 8)
        return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is not 8-byte aligned", fn);
    if (n == 0) return GP_OK;
    const int excl = kind == GP_SCAN_EXCLUSIVE;
    if (!gp__is_cpu(ctx))
        return gp__segscan_gpu(ctx, op, dtype, n, x, heads, by_off ? offsets : NULL, by_off ? nseg + 1 : 0, y, excl,
                               (cudaStream_t)stream);
    if (!by_off) return gp__segscan_cpu(op, dtype, n, x, heads, y, excl, 1);
    uint8_t *h = calloc(n, 1);
    if (h == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu head bytes", fn, n);
    for (size_t i = 0; i <= nseg; i++)
        if (offsets[i] >= 0 && (uint64_t)offsets[i] < n) h[offsets[i]] = 1;
    const gp_status_t st = gp__segscan_cpu(op, dtype, n, x, h, y, excl, 1);
    free(h);
    return st;
}

gp_status_t gp_scan_heads(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n,
                          const void *x, const uint8_t *heads, void *y, gp_stream_t stream)
{
    if (heads == NULL && n > 0) {
        GP_TRY_RET(gp__ctx_enter(ctx, "gp_scan_heads"));
        return gp__error(GP_ERR_INVALID_ARG, "gp_scan_heads: heads is NULL");
    }
    static const uint8_t none = 0;
    return seg_run("gp_scan_heads", ctx, op, dtype, kind, n, x, heads ? heads : &none, 0, NULL, y, stream);
}

gp_status_t gp_scan_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n,
                              const void *x, size_t nseg, const int64_t *offsets, void *y, gp_stream_t stream)
{
    return seg_run("gp_scan_segmented", ctx, op, dtype, kind, n, x, NULL, nseg, offsets, y, stream);
}
