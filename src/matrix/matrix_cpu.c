/*
 * matrix_cpu.c — the CPU backend of gp_matrix_add (OpenMP): the same arithmetic as add.cu, bit for bit. The CPU GEMM
 * is gemm_cpu.c.
 */
#include "matrix_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define ADD_LOOP(T, EXPR)                                                                                   \
    do {                                                                                                    \
        const T *A = (const T *)a->A, *B = (const T *)a->B;                                                 \
        T *C = (T *)a->C;                                                                                   \
        const int par_ = gp__cpu_par(1, a->P * a->Q * sizeof(T) * 3);                                       \
        _Pragma("omp parallel for schedule(static) if (par_)")                          \
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
