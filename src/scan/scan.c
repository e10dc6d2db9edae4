/*
 * scan.c — the public scan (gp_scan): checks, then the CPU reference (scan_cpu.c) or the single-pass GPU kernel
 * (scan.cu), both in the association order of docs/SCAN.md.
 */
#include "scan_internal.h"

#include <stdint.h>

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
