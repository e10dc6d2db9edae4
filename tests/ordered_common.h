/*
 * ordered_common.h — data and references for the ordered (non-commutative) reductions, shared by test_ordered.c (CPU)
 * and gpu_ordered.c (GPU). Matrices are near-rotations / near-identities and affine maps near +-1 so that long
 * products stay finite; u32 entries are fully random (arithmetic mod 2^32 is exact, so any tree must give the serial
 * left fold's bits). The reference is the serial left fold in long double (floats) or uint32 (exact).
 */
#ifndef GP_TESTS_ORDERED_COMMON_H
#define GP_TESTS_ORDERED_COMMON_H

#include "common.h"

#include "reduce/reduce_internal.h"

static inline double oc_unit(void) { return (double)(tc_next() >> 11) * 0x1p-53 * 2.0 - 1.0; } /* [-1, 1) */

/* n elements of op over dtype into x (host). Float matrices: a few random Givens rotations and a small shear (so long
 * products neither blow up nor vanish) scaled by 1 +- 1e-3; u32 matrices: L U with unit-triangular random factors
 * (determinant 1, invertible mod 2^32, so products never collapse to zero); affine maps: a = +-(1 +- 1e-4), b in
 * [-1, 1); first/last: random bits. */
static inline void oc_fill(void *x, gp_ordered_op_t op, gp_dtype_t dt, size_t n)
{
    const size_t k = gp_ordered_width(op);
    const int d = op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : op == GP_ORDERED_MAT4 ? 4 : 0;
    for (size_t e = 0; e < n; e++) {
        long double m[16];
        uint32_t u[16];
        if (op == GP_ORDERED_AFFINE) {
            m[0] = (tc_next() & 1 ? -1 : 1) * (1.0 + 1e-4 * oc_unit());
            m[1] = oc_unit();
        } else if (d && dt == GP_U32) {
            uint32_t L[16], U[16];
            for (int i = 0; i < d; i++)
                for (int j = 0; j < d; j++) {
                    L[i * d + j] = i == j ? 1u : i > j ? (uint32_t)tc_next() : 0u;
                    U[i * d + j] = i == j ? 1u : i < j ? (uint32_t)tc_next() : 0u;
                }
            for (int i = 0; i < d; i++)
                for (int j = 0; j < d; j++) {
                    uint32_t s = 0;
                    for (int q = 0; q < d; q++) s += L[i * d + q] * U[q * d + j];
                    u[i * d + j] = s;
                }
        } else if (d) {
            for (int i = 0; i < d * d; i++) m[i] = i / d == i % d;
            for (int r = 0; r < 3; r++) {
                const int p = (int)(tc_next() % (unsigned)d), q = (p + 1 + (int)(tc_next() % (unsigned)(d - 1))) % d;
                const long double th = 3.14159265358979L * oc_unit(), c = cosl(th), sn = sinl(th);
                for (int j = 0; j < d; j++) {
                    const long double a = m[p * d + j], b = m[q * d + j];
                    m[p * d + j] = c * a - sn * b;
                    m[q * d + j] = sn * a + c * b;
                }
            }
            { /* and a small shear (determinant 1): 2x2 rotations alone would commute */
                const int p = (int)(tc_next() % (unsigned)d), q = (p + 1) % d;
                const long double h = 0.002L * (long double)oc_unit(); /* small: products of shears grow */
                for (int i = 0; i < d; i++) m[i * d + q] += h * m[i * d + p];
            }
            const long double sc = 1.0L + 1e-3L * (long double)oc_unit();
            for (int i = 0; i < d * d; i++) m[i] *= sc;
        }
        for (size_t c = 0; c < k; c++) {
            const size_t i = e * k + c;
            if (d && dt == GP_U32) ((uint32_t *)x)[i] = u[c];
            else if (!d && op != GP_ORDERED_AFFINE) tc_fill((char *)x + i * gp_dtype_size(dt), 1, GP_U8);
            else if (dt == GP_F32) ((float *)x)[i] = (float)m[c];
            else ((double *)x)[i] = (double)m[c];
        }
    }
}

/* a = a o x[e]: one step of the serial left fold, in long double (floats) and exact uint32 (u32) */
static inline void oc_fold_step(gp_ordered_op_t op, gp_dtype_t dt, long double *a, uint32_t *u, const void *x, size_t e)
{
    const size_t k = gp_ordered_width(op);
    const int d = op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : op == GP_ORDERED_MAT4 ? 4 : 0;
    long double b[16], t[16];
    uint32_t bu[16], tu[16];
    for (size_t c = 0; c < k; c++) {
        const size_t i = e * k + c;
        b[c] = dt == GP_F32 ? ((const float *)x)[i] : dt == GP_F64 ? ((const double *)x)[i] : 0;
        bu[c] = dt == GP_U32 ? ((const uint32_t *)x)[i] : 0;
    }
    if (op == GP_ORDERED_AFFINE) {
        t[0] = b[0] * a[0], t[1] = b[0] * a[1] + b[1];
        a[0] = t[0], a[1] = t[1];
        return;
    }
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) {
            long double s = 0;
            uint32_t su = 0;
            for (int q = 0; q < d; q++) s += a[i * d + q] * b[q * d + j], su += u[i * d + q] * bu[q * d + j];
            t[i * d + j] = s, tu[i * d + j] = su;
        }
    memcpy(a, t, (size_t)(d * d) * sizeof a[0]);
    memcpy(u, tu, (size_t)(d * d) * sizeof u[0]);
}

/* The identity element (the identity matrix; (1, 0)) as long double and u32. */
static inline void oc_identity(gp_ordered_op_t op, long double *a, uint32_t *u)
{
    const size_t k = gp_ordered_width(op);
    const int d = op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : op == GP_ORDERED_MAT4 ? 4 : 0;
    for (size_t c = 0; c < k; c++) {
        const int one = op == GP_ORDERED_AFFINE ? c == 0 : (d && (int)c / d == (int)c % d);
        a[c] = one, u[c] = (uint32_t)one;
    }
}

/* Serial left fold: long double for floats, exact uint32 for u32. out: k values. */
static inline void oc_reference(gp_ordered_op_t op, gp_dtype_t dt, size_t n, const void *x, long double *outf,
                                uint32_t *outu)
{
    long double a[16];
    uint32_t u[16];
    oc_identity(op, a, u);
    for (size_t e = 0; e < n; e++) oc_fold_step(op, dt, a, u, x, e);
    for (size_t c = 0; c < gp_ordered_width(op); c++) outf[c] = a[c], outu[c] = u[c];
}

/* got (k values of dt) against the reference: u32 exactly; floats within tol of the result's largest entry (affine:
 * of the b terms' magnitude). */
static inline int oc_close(gp_ordered_op_t op, gp_dtype_t dt, size_t n, const void *got, const long double *rf,
                           const uint32_t *ru, double tol, double *err_out)
{
    const size_t k = gp_ordered_width(op);
    long double big = 0, err = 0;
    for (size_t c = 0; c < k; c++) {
        if (dt == GP_U32) {
            if (((const uint32_t *)got)[c] != ru[c]) return 0;
            continue;
        }
        const long double g = dt == GP_F32 ? ((const float *)got)[c] : ((const double *)got)[c];
        if (g != g) return 0;
        if (fabsl(rf[c]) > big) big = fabsl(rf[c]);
        if (fabsl(g - rf[c]) > err) err = fabsl(g - rf[c]);
    }
    /* an affine b is a sum of n terms of size <= 1 that cancel: its rounding scales with their magnitude */
    if (op == GP_ORDERED_AFFINE && big < 0.5L * (long double)n) big = 0.5L * (long double)n;
    if (err_out) *err_out = big > 0 ? (double)(err / big) : (double)err;
    return dt == GP_U32 || err <= tol * (big > 0 ? big : 1);
}

static const gp_ordered_op_t oc_ops[] = {GP_ORDERED_MAT2, GP_ORDERED_MAT3, GP_ORDERED_MAT4, GP_ORDERED_AFFINE};
static const gp_dtype_t oc_dtypes[] = {GP_F32, GP_F64, GP_U32};

/* Elements per tile of op over dt (the tree's shape), for sizes at the tile edges. */
static inline size_t oc_tile(gp_ordered_op_t op, gp_dtype_t dt)
{
    return 256 * (size_t)(GP__ORDERED_RUN_WORDS / (int)(gp_ordered_width(op) * gp_dtype_size(dt) / 4));
}

static inline double oc_tol(gp_dtype_t dt, size_t n)
{
    return (dt == GP_F32 ? 2e-6 : 4e-15) * (8 + 2 * sqrt((double)n));
}

#endif
