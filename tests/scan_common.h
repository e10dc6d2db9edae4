/* scan_common.h — what the scan tests share: fresh inputs per dtype and op (products near 1 so 2^22 of them stay
 * finite; a few NaNs and signed zeros for float min / max). */
#ifndef GP_TESTS_SCAN_COMMON_H
#define GP_TESTS_SCAN_COMMON_H

#include "common.h"

static void scan_fill(void *p, size_t n, gp_dtype_t dt, gp_reduce_op_t op)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tc_next();
        switch (dt) {
        case GP_F32: ((float *)p)[i] = op == GP_REDUCE_PROD ? 1.0f + (float)((double)(r >> 40) * 0x1p-44)
                                                           : (float)((double)(r >> 40) * 0x1p-23 - 1.0); break;
        case GP_F64: ((double *)p)[i] = op == GP_REDUCE_PROD ? 1.0 + (double)(r >> 11) * 0x1p-73
                                                            : (double)(r >> 11) * 0x1p-52 - 1.0; break;
        case GP_I32: case GP_U32: ((uint32_t *)p)[i] = (uint32_t)(r >> 32); break;
        default: ((uint64_t *)p)[i] = r; break;
        }
    }
    /* a few NaNs and signed zeros in float min / max */
    if ((dt == GP_F32 || dt == GP_F64) && (op == GP_REDUCE_MIN || op == GP_REDUCE_MAX) && n > 100) {
        for (int k = 0; k < 3; k++) {
            const size_t i = tc_next() % n;
            if (dt == GP_F32) ((float *)p)[i] = k == 0 ? NAN : k == 1 ? -0.0f : 0.0f;
            else ((double *)p)[i] = k == 0 ? NAN : k == 1 ? -0.0 : 0.0;
        }
    }
}

/* The (dtype, op) pairs the scanner tests take, CPU and GPU: float sums (where the order matters) and max, integer
 * sums, max and xor. */
typedef struct scan_pair {
    gp_dtype_t dt;
    gp_reduce_op_t op;
} scan_pair_t;
static const scan_pair_t k_scanner_pairs[] = {
    {GP_F32, GP_REDUCE_SUM}, {GP_F32, GP_REDUCE_MAX}, {GP_F64, GP_REDUCE_SUM}, {GP_F64, GP_REDUCE_MAX},
    {GP_U32, GP_REDUCE_SUM}, {GP_U32, GP_REDUCE_MAX}, {GP_U32, GP_REDUCE_XOR}, {GP_I64, GP_REDUCE_SUM},
    {GP_I64, GP_REDUCE_MAX}, {GP_I64, GP_REDUCE_XOR}};
#define SCANNER_PAIRS (sizeof k_scanner_pairs / sizeof k_scanner_pairs[0])

#endif
