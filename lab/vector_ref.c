/*
 * vector_ref.c — the reference the tests and the lab check every version against, independent of all of them:
 * elementwise ops in double (f32 results rounded once; i32 wrapping in uint32), dot in long double (i32: exact,
 * wrapping uint64). Serial and simple on purpose.
 */
#include "lab_versions.h"
#include "vector/vector_internal.h"

#include <stdint.h>
#include <string.h>

void lab_vec_reference(const gp__vec_args_t *a)
{
    const double al = a->dtype == GP_F32 ? (double)(float)a->alpha : a->alpha; /* alpha as the op sees it */
    if (a->op == GP__VEC_DOT) {
        if (a->dtype == GP_I32) {
            uint64_t s = 0;
            for (size_t i = 0; i < a->n; i++)
                s += (uint64_t)((int64_t)((const int32_t *)a->x)[i] * ((const int32_t *)a->y)[i]);
            memcpy(a->z, &s, 8);
            return;
        }
        long double s = 0;
        for (size_t i = 0; i < a->n; i++)
            s += a->dtype == GP_F32 ? (long double)((const float *)a->x)[i] * ((const float *)a->y)[i]
                                    : (long double)((const double *)a->x)[i] * ((const double *)a->y)[i];
        double d = (double)s;
        memcpy(a->z, &d, 8);
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->dtype == GP_I32) {
            uint32_t x = (uint32_t)((const int32_t *)a->x)[i], y = (uint32_t)((const int32_t *)a->y)[i];
            uint32_t ia = (uint32_t)(int32_t)al, v = a->op == GP__VEC_COPY    ? x
                                                     : a->op == GP__VEC_SCALE ? ia * x
                                                     : a->op == GP__VEC_ADD   ? x + y
                                                                              : x + ia * y;
            ((int32_t *)a->z)[i] = (int32_t)v;
            continue;
        }
        double x = a->dtype == GP_F32 ? ((const float *)a->x)[i] : ((const double *)a->x)[i];
        double y = a->dtype == GP_F32 ? ((const float *)a->y)[i] : ((const double *)a->y)[i];
        double v = a->op == GP__VEC_COPY ? x : a->op == GP__VEC_SCALE ? al * x : a->op == GP__VEC_ADD ? x + y : x + al * y;
        if (a->dtype == GP_F32)
            ((float *)a->z)[i] = (float)v;
        else
            ((double *)a->z)[i] = v;
    }
}

