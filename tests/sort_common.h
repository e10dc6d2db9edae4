/*
 * sort_common.h — what the sort tests share: the dtypes and the inputs (random values with NaN payloads of both
 * signs, ±0, ±inf and subnormals; few distinct keys; all equal; the sorted modes are made by each test).
 */
#ifndef GP_TESTS_SORT_COMMON_H
#define GP_TESTS_SORT_COMMON_H

#include "common.h"

#include "sort/sort_internal.h"

#include <math.h>

static const gp_dtype_t k_types[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32,
                                     GP_U64, GP_I64, GP_F16, GP_BF16, GP_F32, GP_F64};
enum { M_RANDOM, M_FEW, M_EQUAL, M_SORTED, M_REVERSED, M_COUNT };

/* n elements of dt: M_RANDOM (floats: a sixteenth each NaN with a payload and either sign, ±0, ±inf, subnormal; f32 /
 * f64 otherwise eighths in [-125, 125], many repeats; 16-bit floats and integers random bits), M_FEW (five values),
 * anything else all equal */
static void sort_fill(unsigned char *x, size_t n, gp_dtype_t dt, int mode)
{
    const size_t es = gp_dtype_size(dt);
    const int fl = dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = tc_next();
        if (mode == M_FEW) b = b % 5 * 0x0101010101010101ull;
        if (mode != M_RANDOM && mode != M_FEW) b = 0x4141414141414141ull;
        if (fl && mode == M_RANDOM) {
            const unsigned r = (unsigned)(tc_next() % 16);
            const uint64_t sign = 1ull << (8 * es - 1);
            const uint64_t inf = dt == GP_F64 ? 0x7ff0000000000000ull : dt == GP_F32 ? 0x7f800000ull
                                 : dt == GP_BF16 ? 0x7f80ull : 0x7c00ull;
            if (r == 0) b = inf | (b & 0xff) | 1 | (b & sign); /* NaN, a payload, either sign */
            else if (r == 1) b = b & sign;                        /* ±0 */
            else if (r == 2) b = inf | (b & sign);                /* ±inf */
            else if (r == 3) b = (b & 0x3f) | (b & sign);         /* a subnormal */
            else if (dt == GP_F32 || dt == GP_F64) {              /* ordinary numbers with repeats */
                const double d = (double)(int)(b % 2001) / 8.0 - 125.0;
                if (dt == GP_F32) {
                    const float f = (float)d;
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    b = u;
                } else {
                    memcpy(&b, &d, 8);
                }
            }
        }
        memcpy(x + i * es, &b, es);
    }
}

#endif
