/*
 * vector_cpu.c — the CPU backend of the vector ops: the test reference, the serial baseline of the lab, and the
 * fallback without a GPU. Same semantics as the kernels: integer ops wrap, dot accumulates in double / uint64.
 */
#include "vector_internal.h"

#include <stdint.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define DOT_CHUNK ((size_t)1 << 16)

/* Elementwise loop for one dtype. T is the element type, U the type the arithmetic wraps in. */
#define EW_LOOPS(T, U, PAR)                                                                                        \
    do {                                                                                                           \
        const T *x = (const T *)a->x, *y = (const T *)a->y;                                                        \
        T *z = (T *)a->z, al = (T)a->alpha;                                                                        \
        const long long n = (long long)a->n;                                                                       \
        switch (a->op) {                                                                                           \
        case GP__VEC_COPY: _Pragma("omp parallel for schedule(static) if (par)") for (long long i = 0; i < n; i++) \
            z[i] = x[i];                                                                                           \
            break;                                                                                                 \
        case GP__VEC_SCALE: _Pragma("omp parallel for schedule(static) if (par)") for (long long i = 0; i < n;     \
                                                                                      i++) z[i] =                  \
            (T)((U)al * (U)x[i]);                                                                                  \
            break;                                                                                                 \
        case GP__VEC_ADD: _Pragma("omp parallel for schedule(static) if (par)") for (long long i = 0; i < n; i++)  \
            z[i] = (T)((U)x[i] + (U)y[i]);                                                                         \
            break;                                                                                                 \
        case GP__VEC_TRIAD: _Pragma("omp parallel for schedule(static) if (par)") for (long long i = 0; i < n;     \
                                                                                      i++) z[i] =                  \
            (T)((U)x[i] + (U)al * (U)y[i]);                                                                        \
            break;                                                                                                 \
        default: break;                                                                                            \
        }                                                                                                          \
    } while (0)

/* Dot over fixed chunks: the per-chunk sums, then the chunk sums in index order. */
#define DOT_CHUNKS(T, A, PROD, PAR, OUT)                                                                           \
    do {                                                                                                           \
        const T *x = (const T *)a->x, *y = (const T *)a->y;                                                        \
        const long long nc = (long long)((a->n + DOT_CHUNK - 1) / DOT_CHUNK);                                      \
        A *part = malloc((size_t)(nc > 0 ? nc : 1) * sizeof(A));                                                   \
        if (part == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "vector dot (CPU): %lld chunk sums", nc);        \
        _Pragma("omp parallel for schedule(static) if (par)") for (long long c = 0; c < nc; c++)                   \
        {                                                                                                          \
            size_t lo = (size_t)c * DOT_CHUNK, hi = lo + DOT_CHUNK < a->n ? lo + DOT_CHUNK : a->n;                 \
            A s = 0;                                                                                               \
            for (size_t i = lo; i < hi; i++) s += PROD;                                                            \
            part[c] = s;                                                                                           \
        }                                                                                                          \
        A total = 0;                                                                                               \
        for (long long c = 0; c < nc; c++) total += part[c];                                                       \
        free(part);                                                                                                \
        *(OUT *)a->z = (OUT)total;                                                                                 \
    } while (0)

static gp_status_t vec_cpu_run(const gp__vec_args_t *a, int par)
{
    par = gp__cpu_par(par, a->n * gp_dtype_size(a->dtype) * (a->op == GP__VEC_COPY || a->op == GP__VEC_SCALE ? 2 : 3));
    if (a->op == GP__VEC_DOT) {
        switch (a->dtype) {
        case GP_F32: DOT_CHUNKS(float, double, (double)x[i] * (double)y[i], par, double); break;
        case GP_F64: DOT_CHUNKS(double, double, x[i] * y[i], par, double); break;
        case GP_I32:
            DOT_CHUNKS(int32_t, uint64_t, (uint64_t)((int64_t)x[i] * (int64_t)y[i]), par, int64_t);
            break;
        default: return gp__error(GP_ERR_UNSUPPORTED, "vector dot (CPU): dtype %s", gp_dtype_name(a->dtype));
        }
        return GP_OK;
    }
    switch (a->dtype) {
    case GP_F32: EW_LOOPS(float, float, par); break;
    case GP_F64: EW_LOOPS(double, double, par); break;
    case GP_I32: EW_LOOPS(int32_t, uint32_t, par); break;
    default: return gp__error(GP_ERR_UNSUPPORTED, "vector (CPU): dtype %s", gp_dtype_name(a->dtype));
    }
    return GP_OK;
}

gp_status_t gp__vec_cpu_serial(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream)
{
    (void)ctx;
    (void)stream;
    return vec_cpu_run(a, 0);
}

gp_status_t gp__vec_cpu_omp(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream)
{
    (void)ctx;
    (void)stream;
    return vec_cpu_run(a, 1);
}
