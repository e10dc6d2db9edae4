/*
 * reduce.c — the public reduction API: names, accumulator rules, validation, the n = 0 identities, and dispatch to
 * the GPU launcher (reduce.cu) or the CPU backend (reduce_cpu.c). Semantics: include/gpuprim.h.
 */
#include "reduce_internal.h"
#include "core/backend.h"
#include "../core/half.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const g_names[GP_REDUCE_OP_COUNT] = {
    "sum", "prod", "min", "max", "minmax", "argmin", "argmax", "and", "or", "xor", "count_nonzero"};

const char *gp_reduce_op_name(gp_reduce_op_t op) { return (unsigned)op < GP_REDUCE_OP_COUNT ? g_names[op] : "?"; }

gp_status_t gp_reduce_op_parse(const char *name, gp_reduce_op_t *op)
{
    GP_ARG_NONNULL("gp_reduce_op_parse", name);
    GP_ARG_NONNULL("gp_reduce_op_parse", op);
    for (int i = 0; i < GP_REDUCE_OP_COUNT; i++)
        if (strcmp(name, g_names[i]) == 0) {
            *op = (gp_reduce_op_t)i;
            return GP_OK;
        }
    return gp__error(GP_ERR_INVALID_ARG, "gp_reduce_op_parse: unknown op '%s' (sum prod min max minmax argmin argmax "
                                         "and or xor count_nonzero)", name);
}

float gp_f16_to_f32(uint16_t bits) { return gp__f16_to_f32(bits); }
float gp_bf16_to_f32(uint16_t bits) { return gp__bf16_to_f32(bits); }
uint16_t gp_f32_to_f16(float value) { return gp__f32_to_f16(value); }
uint16_t gp_f32_to_bf16(float value) { return gp__f32_to_bf16(value); }

static int is_float(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16 || d == GP_F32 || d == GP_F64; }
static int is_signed_int(gp_dtype_t d) { return d == GP_I8 || d == GP_I16 || d == GP_I32 || d == GP_I64; }

gp_dtype_t gp_reduce_acc_dtype(gp_reduce_op_t op, gp_dtype_t dtype)
{
    if ((unsigned)op >= GP_REDUCE_OP_COUNT || (unsigned)dtype >= GP_DTYPE_COUNT) return GP_DTYPE_COUNT;
    if (op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR)
        return is_float(dtype) ? GP_DTYPE_COUNT : GP_U64;
    if (op == GP_REDUCE_COUNT_NONZERO) return GP_U64;
    if (is_float(dtype)) return dtype == GP_F64 ? GP_F64 : GP_F32;
    return is_signed_int(dtype) ? GP_I64 : GP_U64;
}

void gp__reduce_identity(gp_reduce_op_t op, gp_dtype_t dtype, gp_reduce_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->acc_dtype = (int32_t)gp_reduce_acc_dtype(op, dtype);
    r->op = (int32_t)op;
    r->index = -1;
    const size_t bits = 8 * gp_dtype_size(dtype);
    /* The dtype's extremes, in the accumulator's representation. */
    gp_scalar_t hi, lo;
    hi.u64 = lo.u64 = 0;
    if (r->acc_dtype == GP_F32) {
        hi.f32 = INFINITY;
        lo.f32 = -INFINITY;
    } else if (r->acc_dtype == GP_F64) {
        hi.f64 = INFINITY;
        lo.f64 = -INFINITY;
    } else if (r->acc_dtype == GP_I64) {
        hi.i64 = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
        lo.i64 = -hi.i64 - 1;
    } else {
        hi.u64 = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    }
    switch (op) {
    case GP_REDUCE_PROD:
        if (r->acc_dtype == GP_F32) r->value.f32 = 1.0f;
        else if (r->acc_dtype == GP_F64) r->value.f64 = 1.0;
        else r->value.u64 = 1;
        break;
    case GP_REDUCE_MIN:
    case GP_REDUCE_ARGMIN: r->value = hi; break;
    case GP_REDUCE_MAX:
    case GP_REDUCE_ARGMAX: r->value = lo; break;
    case GP_REDUCE_MINMAX:
        r->value = hi;
        r->value2 = lo;
        break;
    case GP_REDUCE_AND: r->value.u64 = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1; break;
    default: break; /* sum, or, xor, count: 0 */
    }
}

void gp__reduce_identity_acc(gp_reduce_op_t op, gp_dtype_t dtype, int wide, gp_reduce_result_t *r)
{
    gp__reduce_identity(op, dtype, r);
    if (wide) { /* sum or prod of floats, in double */
        r->acc_dtype = GP_F64;
        r->value.f64 = op == GP_REDUCE_PROD ? 1.0 : 0.0;
    }
}

gp_status_t gp__reduce_acc_check(const char *fn, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, int *wide)
{
    *wide = 0;
    if (acc == GP_DTYPE_COUNT || (unsigned)op >= GP_REDUCE_OP_COUNT || (unsigned)dtype >= GP_DTYPE_COUNT ||
        acc == gp_reduce_acc_dtype(op, dtype))
        return GP_OK; /* the default (op and dtype are checked with the rest of the call) */
    if (acc == GP_F64 && (op == GP_REDUCE_SUM || op == GP_REDUCE_PROD) &&
        (dtype == GP_F16 || dtype == GP_BF16 || dtype == GP_F32)) {
        *wide = 1;
        return GP_OK;
    }
    if ((unsigned)acc >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: acc %d is not a gp_dtype_t", fn, (int)acc);
    return gp__error(GP_ERR_UNSUPPORTED, "%s: acc %s for %s of %s: the choices are the default (%s) and, for sum and prod "
                                         "of f16, bf16 and f32, f64", fn, gp_dtype_name(acc), g_names[op],
                     gp_dtype_name(dtype), gp_dtype_name(gp_reduce_acc_dtype(op, dtype)));
}

gp_status_t gp__reduce_check(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n,
                             const void *x, const void *result)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)op >= GP_REDUCE_OP_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d is not a gp_reduce_op_t", fn, (int)op);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (gp_reduce_acc_dtype(op, dtype) == GP_DTYPE_COUNT)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s is not defined for %s (integers only)", fn, g_names[op],
                         gp_dtype_name(dtype));
    size_t bytes;
    if (!gp__mul_ok(n, gp_dtype_size(dtype), &bytes) || bytes > (size_t)INT64_MAX)
        return gp__error(GP_ERR_OVERFLOW, "%s: n * sizeof(%s) = %zu * %zu overflows", fn, gp_dtype_name(dtype), n,
                         gp_dtype_size(dtype));
    if (result == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: result is NULL", fn);
    if ((uintptr_t)result % 8) return gp__error(GP_ERR_INVALID_ARG, "%s: result is not 8-byte aligned", fn);
    if (n > 0 && x == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: x is NULL", fn);
    if (n > 0 && (uintptr_t)x % gp_dtype_size(dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, gp_dtype_size(dtype));
    return GP_OK;
}

static gp_status_t reduce_async(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                size_t n, const void *x, gp_reduce_result_t *result, gp_stream_t stream)
{
    int wide = 0;
    GP_TRY_RET(gp__reduce_check(fn, ctx, op, dtype, n, x, result));
    GP_TRY_RET(gp__reduce_acc_check(fn, op, dtype, acc, &wide));
    if (gp__is_cpu(ctx)) {
        if (n == 0) {
            gp__reduce_identity_acc(op, dtype, wide, result);
            return GP_OK;
        }
        return gp__reduce_cpu(op, dtype, wide, n, x, result, 1);
    }
    if (n == 0) { /* the identity, written on the stream like any result (a graph's own staging while capturing) */
        gp_reduce_result_t id;
        gp__reduce_identity_acc(op, dtype, wide, &id);
        return gp__upload(ctx, result, &id, sizeof id, (cudaStream_t)stream);
    }
    return gp__reduce_gpu_ops.reduce(ctx, op, dtype, wide, n, x, result, stream);
}

static gp_status_t reduce_sync(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                               size_t n, const void *x, gp_reduce_result_t *result_host)
{
    int wide = 0;
    GP_TRY_RET(gp__reduce_check(fn, ctx, op, dtype, n, x, result_host));
    GP_TRY_RET(gp__reduce_acc_check(fn, op, dtype, acc, &wide));
    if (gp__is_cpu(ctx) || n == 0) {
        if (n == 0) {
            gp__reduce_identity_acc(op, dtype, wide, result_host);
            return GP_OK;
        }
        return gp__reduce_cpu(op, dtype, wide, n, x, result_host, 1);
    }
    gp_status_t st;
    GP_TRY(gp__no_capture(ctx, fn, "it waits for the result"));
    GP_TRY(gp__reduce_gpu_ops.reduce(ctx, op, dtype, wide, n, x, (gp_reduce_result_t *)ctx->dev_result, NULL));
    GP_CUDA_TRY(cudaMemcpyAsync(ctx->host_result, ctx->dev_result, sizeof *result_host, cudaMemcpyDeviceToHost, NULL));
    GP_CUDA_TRY(cudaStreamSynchronize(NULL));
    memcpy(result_host, ctx->host_result, sizeof *result_host);
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_reduce(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                      gp_reduce_result_t *result, gp_stream_t stream)
{
    return reduce_async("gp_reduce", ctx, op, dtype, GP_DTYPE_COUNT, n, x, result, stream);
}

gp_status_t gp_reduce_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                           gp_reduce_result_t *result_host)
{
    return reduce_sync("gp_reduce_sync", ctx, op, dtype, GP_DTYPE_COUNT, n, x, result_host);
}

gp_status_t gp_reduce_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, size_t n, const void *x,
                          gp_reduce_result_t *result, gp_stream_t stream)
{
    return reduce_async("gp_reduce_acc", ctx, op, dtype, acc, n, x, result, stream);
}

gp_status_t gp_reduce_acc_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, size_t n,
                               const void *x, gp_reduce_result_t *result_host)
{
    return reduce_sync("gp_reduce_acc_sync", ctx, op, dtype, acc, n, x, result_host);
}

gp_status_t gp_reduce_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                size_t nseg, const int64_t *offsets, void *out, gp_stream_t stream)
{
    static const char fn[] = "gp_reduce_segmented";
    uint64_t dummy = 0;
    GP_TRY_RET(gp__reduce_check(fn, ctx, op, dtype, n, x, &dummy));
    if (op == GP_REDUCE_MINMAX || op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s is not supported segmented (sum prod min max and or xor "
                                             "count_nonzero are)", fn, g_names[op]);
    if (nseg == 0) return GP_OK;
    if (nseg > (size_t)INT64_MAX / 8) return gp__error(GP_ERR_OVERFLOW, "%s: nseg %zu", fn, nseg);
    if (offsets == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is NULL", fn);
    if ((uintptr_t)offsets % 8) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is not 8-byte aligned", fn);
    const size_t osz = gp_dtype_size(gp_reduce_acc_dtype(op, dtype));
    if (out == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: out is NULL", fn);
    if ((uintptr_t)out % osz) return gp__error(GP_ERR_INVALID_ARG, "%s: out is not %zu-byte aligned", fn, osz);
    if (gp__is_cpu(ctx)) {
        gp__reduce_cpu_segmented(op, dtype, n, x, nseg, (const long long *)offsets, out, 1);
        return GP_OK;
    }
    return gp__reduce_gpu_ops.segmented(ctx, op, dtype, n, x, nseg, (const long long *)offsets, out, stream);
}

const gp__reduce_gpu_ops_t gp__reduce_gpu_ops = {
    .reduce = GP_GPU_SLOT(gp__reduce_gpu),
    .tiles = GP_GPU_SLOT(gp__reduce_gpu_tiles),
    .fold = GP_GPU_SLOT(gp__reduce_gpu_fold),
    .entry_bytes = GP_GPU_SLOT(gp__reduce_gpu_entry_bytes),
    .segmented = GP_GPU_SLOT(gp__reduce_gpu_segmented),
    .ordered = GP_GPU_SLOT(gp__ordered_gpu),
};
