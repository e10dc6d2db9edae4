/*
 * ordered_cpu.h — the ordered operators' arithmetic on the CPU, shared by the ordered reductions (ordered.c) and the
 * ordered scans (scan/scan_ordered.c): c = a o b for matrix products (row-major d x d) and affine maps (a applied
 * first), every product and sum rounded on its own, in the order of the GPU's ordered_ops.cuh, so the bits agree
 * (C11 on x86-64: no contraction into FMA, no excess precision). c may alias a or b.
 */
#ifndef GP_ORDERED_CPU_H
#define GP_ORDERED_CPU_H

#include <stdint.h>
#include <string.h>

#include "../core/internal.h"

#define GP__ORDERED_COMB(T, SFX)                                                                                    \
    static inline void gp__ordered_comb_##SFX(int op, const T *a, const T *b, T *c)                                 \
    {                                                                                                               \
        if (op == GP_ORDERED_AFFINE) {                                                                              \
            T a0 = b[0] * a[0];                                                                                     \
            T p = b[0] * a[1];                                                                                      \
            c[1] = p + b[1];                                                                                        \
            c[0] = a0;                                                                                              \
            return;                                                                                                 \
        }                                                                                                           \
        const int d = op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : 4;                                    \
        T out[16];                                                                                                  \
        for (int i = 0; i < d; i++)                                                                                 \
            for (int j = 0; j < d; j++) {                                                                           \
                T s = a[i * d] * b[j];                                                                              \
                for (int k = 1; k < d; k++) {                                                                       \
                    T p = a[i * d + k] * b[k * d + j];                                                              \
                    s = s + p;                                                                                      \
                }                                                                                                   \
                out[i * d + j] = s;                                                                                 \
            }                                                                                                       \
        memcpy(c, out, (size_t)(d * d) * sizeof(T));                                                               \
    }
GP__ORDERED_COMB(float, f32)
GP__ORDERED_COMB(double, f64)
GP__ORDERED_COMB(uint32_t, u32)
#undef GP__ORDERED_COMB

#endif
