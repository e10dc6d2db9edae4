/*
 * scan.c — the public scan (gp_scan): checks, then the CPU reference (scan_cpu.c) or the single-pass GPU kernel
 * (scan.cu), both in the association order of docs/design/scan.md.
 */
#include "scan_internal.h"
#include "core/backend.h"
#include "scan_tuning.h"

#include <stdint.h>
#include <stdlib.h>

static gp__scan_kernel_t g_forced = GP__SCAN_KERNEL_AUTO;
void gp__scan_force_kernel(gp__scan_kernel_t kernel) { g_forced = kernel; }
gp__scan_kernel_t gp__scan_forced_kernel(void) { return g_forced; }
gp__scan_kernel_t gp__scan_auto_kernel(gp_dtype_t dtype)
{
    const size_t es = gp_dtype_size(dtype);
    return (es == 4 && GP_SCAN_TE_AUTO4) || (es == 8 && GP_SCAN_TE_AUTO8) ? GP__SCAN_KERNEL_ENGINE : GP__SCAN_KERNEL_LOOKBACK;
}

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
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s of %s (this call takes sum prod min max of f32 f64 i32 u32 i64 "
                                             "u64, and or xor of the integers)", fn, gp_reduce_op_name(op), gp_dtype_name(dtype));
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

static int is_small_int(gp_dtype_t d) { return d == GP_U8 || d == GP_I8 || d == GP_U16 || d == GP_I16; }
static int is_half(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16; }
static int is_sum_prod(gp_reduce_op_t op) { return op == GP_REDUCE_SUM || op == GP_REDUCE_PROD; }

gp_status_t gp__scan_plan(const char *fn, gp_reduce_op_t op, gp_dtype_t dtype, int acc_req, gp_dtype_t *acc,
                          gp_dtype_t *out)
{
    if ((unsigned)op >= GP_REDUCE_OP_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d is not a gp_reduce_op_t", fn, (int)op);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    const int bitwise = op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR;
    const int ok = gp__scan_supported(op, dtype) || (is_small_int(dtype) && (bitwise || op <= GP_REDUCE_MAX)) ||
                   (is_half(dtype) && op <= GP_REDUCE_MAX);
    if (!ok || op > GP_REDUCE_XOR || (op > GP_REDUCE_MAX && !bitwise))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s of %s (scans take sum prod min max of every dtype, and or xor of "
                                             "the integers)", fn, gp_reduce_op_name(op), gp_dtype_name(dtype));
    /* gp_scan's own: the dtype out, narrow types scanned in 32 bits */
    const gp_dtype_t own = is_half(dtype) ? GP_F32 : (dtype == GP_U8 || dtype == GP_U16) ? GP_U32
                           : (dtype == GP_I8 || dtype == GP_I16) ? GP_I32 : dtype;
    const int sgn = dtype == GP_I8 || dtype == GP_I16 || dtype == GP_I32 || dtype == GP_I64;
    if (acc_req == -1 || acc_req == (int)dtype) {
        *acc = own, *out = dtype;
        return GP_OK;
    }
    if (acc_req == GP_DTYPE_COUNT) { /* the default: sums and products as gp_reduce_acc, other ops as gp_scan */
        *acc = is_sum_prod(op) ? gp_reduce_acc_dtype(op, dtype) : own;
        *out = is_sum_prod(op) || is_half(dtype) ? *acc : dtype;
        return GP_OK;
    }
    const gp_dtype_t a = (gp_dtype_t)acc_req;
    const int wide_float = a == GP_F64 && is_sum_prod(op) && (is_half(dtype) || dtype == GP_F32);
    const int half_f32 = a == GP_F32 && is_half(dtype);
    const int wide_int = is_sum_prod(op) && (is_small_int(dtype) || dtype == GP_I32 || dtype == GP_U32) &&
                         a == (sgn ? GP_I64 : GP_U64);
    if ((unsigned)acc_req < GP_DTYPE_COUNT && (wide_float || half_f32 || wide_int)) {
        *acc = *out = a;
        return GP_OK;
    }
    return gp__error(GP_ERR_UNSUPPORTED, "%s: acc %s for %s of %s (choices: GP_DTYPE_COUNT, the dtype itself; f32 for "
                                         "f16 / bf16; for sums and products f64 over f16 / bf16 / f32 and i64 / u64 "
                                         "over integers of up to 4 bytes)",
                     fn, (unsigned)acc_req < GP_DTYPE_COUNT ? gp_dtype_name(a) : "?", gp_reduce_op_name(op),
                     gp_dtype_name(dtype));
}

gp_status_t gp__scan_check_xy(const char *fn, gp_dtype_t dtype, gp_dtype_t out, size_t n, const void *x,
                              const void *y)
{
    GP_TRY_RET(gp__scan_check_arrays(fn, dtype, n, x, out == dtype ? y : x));
    if (out != dtype) { /* y in the accumulator's type: aligned to it, not overlapping x (in place is impossible) */
        GP_TRY_RET(gp__scan_check_arrays(fn, out, n, y, y));
        const size_t bx = n * gp_dtype_size(dtype), by = n * gp_dtype_size(out);
        const uintptr_t xa = (uintptr_t)x, ya = (uintptr_t)y;
        if (n && xa < ya + by && ya < xa + bx)
            return gp__error(GP_ERR_INVALID_ARG, "%s: x and y overlap (y holds %s, x %s: no scan in place)", fn,
                             gp_dtype_name(out), gp_dtype_name(dtype));
    }
    return GP_OK;
}

static gp_status_t scan_run(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int acc_req,
                            gp_scan_kind_t kind, size_t n, const void *x, void *y, gp_stream_t stream)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    gp_dtype_t acc = dtype, out = dtype;
    GP_TRY_RET(gp__scan_plan(fn, op, dtype, acc_req, &acc, &out));
    if (kind != GP_SCAN_INCLUSIVE && kind != GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not a gp_scan_kind_t", fn, (int)kind);
    GP_TRY_RET(gp__scan_check_xy(fn, dtype, out, n, x, y));
    if (n == 0) return GP_OK;
    const int excl = kind == GP_SCAN_EXCLUSIVE;
    if (gp__is_cpu(ctx)) return gp__scan_cpu_x(op, dtype, acc, out, n, x, y, excl, NULL, NULL, 1);
    return gp__scan_gpu_ops.scan(ctx, op, dtype, acc, out, n, x, y, excl, NULL, NULL, (cudaStream_t)stream);
}

gp_status_t gp_scan(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n, const void *x,
                    void *y, gp_stream_t stream)
{
    return scan_run("gp_scan", ctx, op, dtype, -1, kind, n, x, y, stream);
}

gp_status_t gp_scan_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, gp_scan_kind_t kind,
                        size_t n, const void *x, void *y, gp_stream_t stream)
{
    return scan_run("gp_scan_acc", ctx, op, dtype, (int)acc, kind, n, x, y, stream);
}

gp_dtype_t gp_scan_out_dtype(gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc)
{
    gp_dtype_t a = GP_DTYPE_COUNT, o = GP_DTYPE_COUNT;
    if (gp__scan_plan("gp_scan_out_dtype", op, dtype, (int)acc, &a, &o) != GP_OK) return GP_DTYPE_COUNT;
    return o;
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
        return gp__scan_gpu_ops.segmented(ctx, op, dtype, n, x, heads, by_off ? offsets : NULL, by_off ? nseg + 1 : 0, y, excl,
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

const gp__scan_gpu_ops_t gp__scan_gpu_ops = {
    .scan = GP_GPU_SLOT(gp__scan_gpu_x),
    .aggs = GP_GPU_SLOT(gp__scan_gpu_aggs),
    .ordered = GP_GPU_SLOT(gp__oscan_gpu),
    .segmented = GP_GPU_SLOT(gp__segscan_gpu),
    .select = GP_GPU_SLOT(gp__select_gpu),
    .bykey = GP_GPU_SLOT(gp__bykey_gpu),
};
