/*
 * vector.c — the public vector API: validation, then the CPU backend or the production kernels (vector.cu; which
 * versions they are is said once, in vector_internal.h).
 */
#include "vector_internal.h"
#include "core/backend.h"

#include <math.h>
#include <stdint.h>
#include <string.h>


static const char *const g_op_names[GP__VEC_NOPS] = {"copy", "scale", "add", "triad", "dot"};

const char *gp__vec_op_name(gp__vec_op_t op) { return (unsigned)op < GP__VEC_NOPS ? g_op_names[op] : "?"; }

int gp__vec_op_streams(gp__vec_op_t op)
{
    switch (op) {
    case GP__VEC_COPY:
    case GP__VEC_SCALE:
    case GP__VEC_DOT: return 2;
    default: return 3;
    }
}

int gp__vec_production_id(gp__vec_op_t op, int gpu)
{
    if ((unsigned)op >= GP__VEC_NOPS) return -1;
    if (!gpu) return GP__VEC_PRODUCTION_CPU;
    return op == GP__VEC_DOT ? GP__VEC_PRODUCTION_DOT : GP__VEC_PRODUCTION_EW;
}

static int uses_y(gp__vec_op_t op) { return op == GP__VEC_ADD || op == GP__VEC_TRIAD || op == GP__VEC_DOT; }

gp_status_t gp__vec_check(const char *fn, gp_ctx_t *ctx, gp__vec_op_t op, gp_dtype_t dtype, size_t n, double alpha,
                          const void *x, const void *y, void *z, gp__vec_args_t *a)
{
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (dtype != GP_F32 && dtype != GP_F64 && dtype != GP_I32)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: dtype %s (vector ops take f32, f64, i32)", fn, gp_dtype_name(dtype));
    const size_t es = gp_dtype_size(dtype);
    size_t bytes = 0;
    if (!gp__mul_ok(n, es, &bytes) || bytes > (size_t)INT64_MAX)
        return gp__error(GP_ERR_OVERFLOW, "%s: n * sizeof(%s) = %zu * %zu overflows", fn, gp_dtype_name(dtype), n, es);
    const char *out_name = op == GP__VEC_DOT ? "result" : (op == GP__VEC_COPY || op == GP__VEC_SCALE) ? "y" : "z";
    if (z == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, out_name);
    if (op == GP__VEC_DOT && ((uintptr_t)z & 7) != 0)
        return gp__error(GP_ERR_INVALID_ARG, "%s: result is not 8-byte aligned", fn);
    if (n > 0) {
        if (x == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: x is NULL", fn);
        if (uses_y(op) && y == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: y is NULL", fn);
        if ((uintptr_t)x % es) return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, es);
        if (uses_y(op) && (uintptr_t)y % es)
            return gp__error(GP_ERR_INVALID_ARG, "%s: y is not %zu-byte aligned", fn, es);
        if (op != GP__VEC_DOT && (uintptr_t)z % es)
            return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn, out_name, es);
    }
    if (op == GP__VEC_SCALE || op == GP__VEC_TRIAD) {
        if (dtype == GP_I32 && !(alpha == floor(alpha) && alpha >= -2147483648.0 && alpha <= 2147483647.0))
            return gp__error(GP_ERR_INVALID_ARG, "%s: alpha %g is not an int32 value (dtype i32)", fn, alpha);
    }
    a->op = op;
    a->dtype = dtype;
    a->n = n;
    a->alpha = alpha;
    a->x = x;
    a->y = uses_y(op) ? y : x; /* unused y points at x so no kernel ever forms an address from NULL */
    a->z = z;
    return GP_OK;
}

static gp_status_t vec_enqueue(const char *fn, gp_ctx_t *ctx, gp__vec_op_t op, gp_dtype_t dtype, size_t n, double alpha,
                               const void *x, const void *y, void *z, gp_stream_t stream)
{
    gp__vec_args_t a;
    gp_status_t st = gp__vec_check(fn, ctx, op, dtype, n, alpha, x, y, z, &a);
    if (st != GP_OK) return st;
    if (op == GP__VEC_DOT && n == 0) {
        /* The identity (0.0 and int64 0 share their bits), written on the stream like any result. */
        return gp_memset(ctx, z, 0, 8, stream);
    }
    return gp__is_cpu(ctx) ? gp__vec_cpu_omp(ctx, &a, NULL) : gp__vec_gpu_ops.run(ctx, &a, (cudaStream_t)stream);
}

gp_status_t gp_vec_copy(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y, gp_stream_t stream)
{
    return vec_enqueue("gp_vec_copy", ctx, GP__VEC_COPY, dtype, n, 1.0, x, NULL, y, stream);
}

gp_status_t gp_vec_scale(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, double alpha, const void *x, void *y,
                         gp_stream_t stream)
{
    return vec_enqueue("gp_vec_scale", ctx, GP__VEC_SCALE, dtype, n, alpha, x, NULL, y, stream);
}

gp_status_t gp_vec_add(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const void *y, void *z,
                       gp_stream_t stream)
{
    return vec_enqueue("gp_vec_add", ctx, GP__VEC_ADD, dtype, n, 1.0, x, y, z, stream);
}

gp_status_t gp_vec_triad(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, double alpha, const void *x, const void *y,
                         void *z, gp_stream_t stream)
{
    return vec_enqueue("gp_vec_triad", ctx, GP__VEC_TRIAD, dtype, n, alpha, x, y, z, stream);
}

gp_status_t gp_vec_dot(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const void *y, void *result,
                       gp_stream_t stream)
{
    return vec_enqueue("gp_vec_dot", ctx, GP__VEC_DOT, dtype, n, 0.0, x, y, result, stream);
}

gp_status_t gp_vec_dot_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const void *y,
                            void *result_host)
{
    static const char fn[] = "gp_vec_dot_sync";
    GP_ARG_NONNULL(fn, result_host);
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (gp__is_cpu(ctx)) return vec_enqueue(fn, ctx, GP__VEC_DOT, dtype, n, 0.0, x, y, result_host, NULL);
    GP_NO_CAPTURE(ctx, fn, "it waits for the result");
    /* The kernel writes the context's device result slot; one small copy brings it to pinned memory. */
    GP_TRY(vec_enqueue(fn, ctx, GP__VEC_DOT, dtype, n, 0.0, x, y, ctx->dev_result, NULL));
    GP_CUDA_TRY(cudaMemcpyAsync(ctx->host_result, ctx->dev_result, 8, cudaMemcpyDeviceToHost, NULL));
    GP_CUDA_TRY(cudaStreamSynchronize(NULL));
    memcpy(result_host, ctx->host_result, 8);
    return GP_OK;
fail:
    return st;
}

const gp__vec_gpu_ops_t gp__vec_gpu_ops = {
    .run = GP_GPU_SLOT(gp__vec_gpu),
};
