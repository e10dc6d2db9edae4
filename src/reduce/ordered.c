/*
 * ordered.c — the ordered (non-commutative) reduction API (names, validation, identities, first/last) and its CPU
 * backend: the fixed ordered tree of ordered.cu, with the same operations in the same order, so results are bitwise
 * the GPU's (C11 on x86-64: no contraction into FMA, no excess precision).
 */
#include "reduce_internal.h"
#include "ordered_cpu.h"

#include <stdlib.h>
#include <string.h>

static const char *const g_names[GP_ORDERED_OP_COUNT] = {"mat2", "mat3", "mat4", "affine", "first", "last"};
static const size_t g_width[GP_ORDERED_OP_COUNT] = {4, 9, 16, 2, 1, 1};

const char *gp_ordered_op_name(gp_ordered_op_t op) { return (unsigned)op < GP_ORDERED_OP_COUNT ? g_names[op] : "?"; }
size_t gp_ordered_width(gp_ordered_op_t op) { return (unsigned)op < GP_ORDERED_OP_COUNT ? g_width[op] : 0; }

gp_status_t gp_ordered_op_parse(const char *name, gp_ordered_op_t *op)
{
    GP_ARG_NONNULL("gp_ordered_op_parse", name);
    GP_ARG_NONNULL("gp_ordered_op_parse", op);
    for (int i = 0; i < GP_ORDERED_OP_COUNT; i++)
        if (strcmp(name, g_names[i]) == 0) {
            *op = (gp_ordered_op_t)i;
            return GP_OK;
        }
    return gp__error(GP_ERR_INVALID_ARG, "gp_ordered_op_parse: unknown op '%s' (mat2 mat3 mat4 affine first last)",
                     name);
}

/* ------------------------------------------------------------------------------------------ CPU tree */
#define LANES 256

/* One instantiation per value type: combine two valid elements, fold a run, fold the block, the whole tree. */
#define DEFINE_ORDERED(T, SFX)                                                                                      \
    static void comb_##SFX(int op, const T *a, const T *b, T *c) { gp__ordered_comb_##SFX(op, a, b, c); }          \
    /* s = s o e, with validity */                                                                                  \
    static void acc_##SFX(int op, int kk, T *s, int *ok, const T *e)                                                \
    {                                                                                                               \
        if (!*ok) {                                                                                                 \
            memcpy(s, e, (size_t)kk * sizeof(T));                                                                   \
            *ok = 1;                                                                                                \
        } else {                                                                                                    \
            comb_##SFX(op, s, e, s);                                                                                \
        }                                                                                                           \
    }                                                                                                               \
    /* Lane l folds src[first + l*R + j] (j < R, index < m); then the warp up-sweep and the left fold of warps. */   \
    static void block_##SFX(int op, int kk, int r, const T *src, size_t first, size_t m, T *out)                    \
    {                                                                                                               \
        T *s = malloc((size_t)LANES * (size_t)kk * sizeof(T));                                                      \
        int ok[LANES];                                                                                              \
        for (int l = 0; l < LANES; l++) {                                                                           \
            ok[l] = 0;                                                                                              \
            for (int j = 0; j < r; j++) {                                                                           \
                const size_t e = first + (size_t)l * (size_t)r + (size_t)j;                                         \
                if (e < m) acc_##SFX(op, kk, s + (size_t)l * kk, &ok[l], src + e * (size_t)kk);                     \
            }                                                                                                       \
        }                                                                                                           \
        for (int w = 0; w < LANES / 32; w++)                                                                        \
            for (int o = 1; o < 32; o <<= 1)                                                                        \
                for (int l = 32 * w; l < 32 * w + 32; l += 2 * o)                                                   \
                    if (ok[l + o]) acc_##SFX(op, kk, s + (size_t)l * kk, &ok[l], s + (size_t)(l + o) * kk);          \
        for (int w = 1; w < LANES / 32; w++)                                                                        \
            if (ok[32 * w]) acc_##SFX(op, kk, s, &ok[0], s + (size_t)(32 * w) * kk);                                \
        memcpy(out, s, (size_t)kk * sizeof(T));                                                                    \
        free(s);                                                                                                    \
    }                                                                                                               \
    static void tree_##SFX(int op, int kk, size_t n, const T *x, T *result, int parallel)                          \
    {                                                                                                               \
        const int r = GP__ORDERED_RUN_WORDS / (kk * (int)sizeof(T) / 4);                                            \
        const size_t tile = (size_t)LANES * (size_t)r, ntiles = (n + tile - 1) / tile;                              \
        T *part = malloc(ntiles * (size_t)kk * sizeof(T));                                                          \
        parallel = gp__cpu_par(parallel, n * (size_t)kk * sizeof(T));                                               \
        _Pragma("omp parallel for schedule(static) if (parallel)")                                                  \
        for (long long k = 0; k < (long long)ntiles; k++)                                                           \
            block_##SFX(op, kk, r, x, (size_t)k * tile, n, part + (size_t)k * kk);                                 \
        for (size_t m = ntiles; m > 1;) {                                                                           \
            const size_t groups = (m + tile - 1) / tile;                                                            \
            for (size_t g = 0; g < groups; g++) block_##SFX(op, kk, r, part, g * tile, m, part + g * kk);           \
            m = groups;                                                                                             \
        }                                                                                                           \
        memcpy(result, part, (size_t)kk * sizeof(T));                                                               \
        free(part);                                                                                                 \
    }

DEFINE_ORDERED(float, f32)
DEFINE_ORDERED(double, f64)
DEFINE_ORDERED(uint32_t, u32)

void gp__ordered_cpu(gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *result, int parallel)
{
    const int kk = (int)g_width[op];
    if (dtype == GP_F32) tree_f32((int)op, kk, n, x, result, parallel);
    else if (dtype == GP_F64) tree_f64((int)op, kk, n, x, result, parallel);
    else tree_u32((int)op, kk, n, x, result, parallel);
}

/* ------------------------------------------------------------------------------------------ API */
static gp_status_t check(const char *fn, gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n,
                         const void *x, const void *result)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)op >= GP_ORDERED_OP_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d is not a gp_ordered_op_t", fn, (int)op);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    const int anyd = op == GP_ORDERED_FIRST || op == GP_ORDERED_LAST;
    if (!anyd && !(dtype == GP_F32 || dtype == GP_F64 || (dtype == GP_U32 && op != GP_ORDERED_AFFINE)))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s is defined for %s, not %s", fn, g_names[op],
                         op == GP_ORDERED_AFFINE ? "f32 and f64" : "f32, f64 and u32", gp_dtype_name(dtype));
    const size_t es = gp_dtype_size(dtype) * g_width[op];
    size_t bytes;
    if (!gp__mul_ok(n, es, &bytes) || bytes > (size_t)INT64_MAX)
        return gp__error(GP_ERR_OVERFLOW, "%s: n * %zu bytes = %zu * %zu overflows", fn, es, n, es);
    if (result == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: result is NULL", fn);
    if (n > 0 && x == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: x is NULL", fn);
    if (n > 0 && (uintptr_t)x % gp_dtype_size(dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, gp_dtype_size(dtype));
    if (n == 0 && anyd) return gp__error(GP_ERR_INVALID_ARG, "%s: %s of no elements (n = 0)", fn, g_names[op]);
    return GP_OK;
}

/* The identity tuple (n = 0) into buf. */
static void identity(gp_ordered_op_t op, gp_dtype_t dtype, void *buf)
{
    const int d = op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : op == GP_ORDERED_MAT4 ? 4 : 0;
    const size_t k = g_width[op];
    for (size_t i = 0; i < k; i++) {
        const int one = op == GP_ORDERED_AFFINE ? i == 0 : (d && (int)i / d == (int)i % d);
        if (dtype == GP_F32) ((float *)buf)[i] = one ? 1.0f : 0.0f;
        else if (dtype == GP_F64) ((double *)buf)[i] = one ? 1.0 : 0.0;
        else ((uint32_t *)buf)[i] = one ? 1u : 0u;
    }
}

static gp_status_t ordered_enqueue(const char *fn, gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n,
                                   const void *x, void *result, int sync, gp_stream_t stream)
{
    GP_TRY_RET(check(fn, ctx, op, dtype, n, x, result));
    const size_t bytes = gp_dtype_size(dtype) * g_width[op];
    cudaStream_t s = (cudaStream_t)stream;
    if (gp__is_cpu(ctx) || (sync && n == 0)) {
        if (n == 0) identity(op, dtype, result);
        else if (op == GP_ORDERED_FIRST) memcpy(result, x, bytes);
        else if (op == GP_ORDERED_LAST) memcpy(result, (const char *)x + (n - 1) * bytes, bytes);
        else gp__ordered_cpu(op, dtype, n, x, result, 1);
        return GP_OK;
    }
    gp_status_t st = GP_OK;
    if (sync) GP_TRY(gp__no_capture(ctx, fn, "it waits for the result"));
    if (n == 0) { /* the identity, written on the stream like any result (a graph's own staging while capturing) */
        unsigned char id[256]; /* the widest tuple: mat4 of f64, 128 bytes */
        identity(op, dtype, id);
        return gp__upload(ctx, result, id, bytes, s);
    }
    if (op == GP_ORDERED_FIRST || op == GP_ORDERED_LAST) {
        const char *src = (const char *)x + (op == GP_ORDERED_LAST ? (n - 1) * bytes : 0);
        GP_CUDA_TRY(cudaMemcpyAsync(result, src, bytes, sync ? cudaMemcpyDeviceToHost : cudaMemcpyDefault, s));
        if (sync) GP_CUDA_TRY(cudaStreamSynchronize(s));
        return GP_OK;
    }
    return gp__reduce_gpu_ops.ordered(ctx, op, dtype, n, x, sync ? NULL : result, sync ? result : NULL, s);
fail:
    return st;
}

gp_status_t gp_reduce_ordered(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                              void *result, gp_stream_t stream)
{
    return ordered_enqueue("gp_reduce_ordered", ctx, op, dtype, n, x, result, 0, stream);
}

gp_status_t gp_reduce_ordered_sync(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                   void *result_host)
{
    return ordered_enqueue("gp_reduce_ordered_sync", ctx, op, dtype, n, x, result_host, 1, NULL);
}
