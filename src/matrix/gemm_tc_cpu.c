/*
 * gemm_tc_cpu.c — the CPU backend of gp_gemm_ex's TF32 / BF16 / FP16 and the reference of its tests: the inputs
 * taken as the tensor cores take them (TF32: the low 13 bits dropped; bf16 / f16: exact widening), multiplied and
 * summed in f64 by the f64 GEMM of gemm_cpu.c, c = alpha * sum + beta * c in f64, rounded once to f32 and then (a
 * 16-bit c) to nearest even. Working copies: A' and B' K-inner in f64, C in f64.
 */
#include "matrix_internal.h"

#include "../core/half.h"

#include <stdlib.h>

static double in_value(gp_gemm_precision_t prec, const void *X, size_t i)
{
    if (prec == GP_GEMM_TF32) return (double)gp__f32_to_tf32(((const float *)X)[i]);
    if (prec == GP_GEMM_BF16) return (double)gp__bf16_bits_to_f32(((const uint16_t *)X)[i]);
    return (double)gp__f16_bits_to_f32(((const uint16_t *)X)[i]);
}

gp_status_t gp__gemm_tc_cpu(gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g)
{
    const size_t M = g->M, N = g->N, K = g->alpha == 0.0 ? 0 : g->K;
    if (M == 0 || N == 0) return GP_OK;
    size_t mk, nk, mn;
    if (!gp__mul_ok(M, K, &mk) || !gp__mul_ok(N, K, &nk) || !gp__mul_ok(M, N, &mn) || mk > SIZE_MAX / 8 ||
        nk > SIZE_MAX / 8 || mn > SIZE_MAX / 8)
        return gp__error(GP_ERR_OVERFLOW, "gp_gemm_ex: CPU backend: %zu x %zu x %zu", M, N, K);
    double *a = malloc(mk * 8 + 8), *b = malloc(nk * 8 + 8), *c = malloc(mn * 8);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_gemm_ex: CPU backend: f64 copies of %zu x %zu x %zu", M, N, K);
    }
    const int par = gp__cpu_par(1, mk + nk + mn);
#pragma omp parallel for schedule(static) if (par)
    for (long long i = 0; i < (long long)M; i++)
        for (size_t l = 0; l < K; l++)
            a[(size_t)i * K + l] = in_value(prec, g->A, g->a_kin ? (size_t)i * g->lda + l : l * g->lda + (size_t)i);
#pragma omp parallel for schedule(static) if (par)
    for (long long j = 0; j < (long long)N; j++)
        for (size_t l = 0; l < K; l++)
            b[(size_t)j * K + l] = in_value(prec, g->B, g->b_kin ? (size_t)j * g->ldb + l : l * g->ldb + (size_t)j);
    const int wide = cdt == GP_F32;
#pragma omp parallel for schedule(static) if (par)
    for (long long i = 0; i < (long long)M; i++)
        for (size_t j = 0; j < N; j++) {
            const size_t at = (size_t)i * g->ldc + j;
            double v = 0.0;
            if (g->beta != 0.0)
                v = wide ? ((const float *)g->C)[at]
                    : cdt == GP_BF16 ? gp__bf16_bits_to_f32(((const uint16_t *)g->C)[at])
                                     : gp__f16_bits_to_f32(((const uint16_t *)g->C)[at]);
            c[(size_t)i * N + j] = v;
        }
    const gp__gemm_t d = {M, N, K, a, b, c, K, K, N, 1, 1, g->alpha, g->beta};
    gp_status_t st = gp__gemm_cpu(GP_F64, &d, 1);
    if (st == GP_OK) {
#pragma omp parallel for schedule(static) if (par)
        for (long long i = 0; i < (long long)M; i++)
            for (size_t j = 0; j < N; j++) {
                const float v = (float)c[(size_t)i * N + j];
                const size_t at = (size_t)i * g->ldc + j;
                if (wide) ((float *)g->C)[at] = v;
                else ((uint16_t *)g->C)[at] = cdt == GP_BF16 ? gp__f32_to_bf16(v) : gp__f32_to_f16(v);
            }
    }
    free(a), free(b), free(c);
    return st;
}
