/*
 * matrix_cpu.c — the CPU backend of gp_matrix_add and gp_gemm (OpenMP), and the test reference for the GPU.
 * Add: the same arithmetic as add.cu, bit for bit. GEMM: A' and B' packed so that every dot product runs over two
 * contiguous rows of K, f32 products accumulated in double, four partial sums per dot.
 */
#include "matrix_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define ADD_LOOP(T, EXPR)                                                                                   \
    do {                                                                                                    \
        const T *A = (const T *)a->A, *B = (const T *)a->B;                                                 \
        T *C = (T *)a->C;                                                                                   \
        _Pragma("omp parallel for schedule(static) if (a->P * a->Q > (1u << 16))")                          \
        for (long long pp = 0; pp < (long long)a->P; pp++) {                                                \
            const size_t p = (size_t)pp;                                                                    \
            for (size_t q = 0; q < a->Q; q++) {                                                             \
                const T x = a->use_a ? A[a->a_t ? q * a->lda + p : p * a->lda + q] : (T)0;                  \
                const T y = a->use_b ? B[a->b_t ? q * a->ldb + p : p * a->ldb + q] : (T)0;                  \
                C[p * a->ldc + q] = EXPR;                                                                   \
            }                                                                                               \
        }                                                                                                   \
    } while (0)

void gp__add_cpu(gp_dtype_t dtype, const gp__add_t *a)
{
    const int ua = a->use_a, ub = a->use_b;
    if (dtype == GP_F32) {
        const float al = (float)a->alpha, be = (float)a->beta;
        ADD_LOOP(float, ua && ub ? fmaf(al, x, be * y) : ua ? al * x : ub ? be * y : 0.0f);
    } else if (dtype == GP_F64) {
        const double al = a->alpha, be = a->beta;
        ADD_LOOP(double, ua && ub ? fma(al, x, be * y) : ua ? al * x : ub ? be * y : 0.0);
    } else {
        const uint32_t al = (uint32_t)(uint64_t)(int64_t)a->alpha, be = (uint32_t)(uint64_t)(int64_t)a->beta;
        if (dtype == GP_I32) ADD_LOOP(uint32_t, (ua ? al * x : 0u) + (ub ? be * y : 0u));
        else ADD_LOOP(uint8_t, (uint8_t)((ua ? al * (uint32_t)x : 0u) + (ub ? be * (uint32_t)y : 0u)));
    }
}

/* dst[r * K + l] = element (r, l) of an operand with K-inner (kin) or outer storage, as double */
static void pack(double *dst, const void *src, int f64, size_t K, size_t ld, int kin, size_t r0, size_t nr)
{
    for (size_t r = 0; r < nr; r++)
        for (size_t l = 0; l < K; l++) {
            const size_t off = kin ? (r0 + r) * ld + l : l * ld + (r0 + r);
            dst[r * K + l] = f64 ? ((const double *)src)[off] : (double)((const float *)src)[off];
        }
}

static double dot(const double *x, const double *y, size_t K)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t l = 0;
    for (; l + 4 <= K; l += 4) s0 += x[l] * y[l], s1 += x[l + 1] * y[l + 1], s2 += x[l + 2] * y[l + 2], s3 += x[l + 3] * y[l + 3];
    for (; l < K; l++) s0 += x[l] * y[l];
    return (s0 + s1) + (s2 + s3);
}

gp_status_t gp__gemm_cpu(gp_dtype_t dtype, const gp__gemm_t *g, int parallel)
{
    const int f64 = dtype == GP_F64;
    const size_t M = g->M, N = g->N, K = g->alpha == 0.0 ? 0 : g->K, NB = 64;
    double *ap = NULL, *bp = NULL;
    if (K > 0) {
        size_t na, nb;
        if (!gp__mul_ok(M, K, &na) || !gp__mul_ok(na, sizeof(double), &na) || !gp__mul_ok(NB * sizeof(double), K, &nb))
            return gp__error(GP_ERR_OVERFLOW, "gp_gemm: %zu x %zu packing overflows", M, K);
        ap = malloc(na), bp = malloc(nb);
        if (ap == NULL || bp == NULL) {
            free(ap), free(bp);
            return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_gemm: CPU backend: no memory to pack A (%zu bytes)", na);
        }
        pack(ap, g->A, f64, K, g->lda, g->a_kin, 0, M);
    }
    for (size_t j0 = 0; j0 < N; j0 += NB) {
        const size_t nj = N - j0 < NB ? N - j0 : NB;
        if (K > 0) pack(bp, g->B, f64, K, g->ldb, g->b_kin, j0, nj);
#pragma omp parallel for schedule(dynamic, 16) if (parallel && M * nj * (K + 1) > (1u << 18))
        for (long long ii = 0; ii < (long long)M; ii++) {
            const size_t i = (size_t)ii;
            for (size_t j = 0; j < nj; j++) {
                const double acc = K ? dot(ap + i * K, bp + j * K, K) : 0.0;
                const size_t off = i * g->ldc + j0 + j;
                if (f64) {
                    double *c = (double *)g->C + off;
                    *c = g->beta != 0.0 ? g->alpha * acc + g->beta * *c : g->alpha * acc;
                } else {
                    float *c = (float *)g->C + off;
                    *c = (float)(g->beta != 0.0 ? g->alpha * acc + g->beta * (double)*c : g->alpha * acc);
                }
            }
        }
    }
    free(ap), free(bp);
    return GP_OK;
}
