/*
 * bykey_common.h — what the by-key tests share: keys with runs (few distinct values, NaN of both signs and ±0 among
 * float keys), and the runs as the reference sees them — equal by value (NaN equal to nothing, -0 == +0), written from
 * the decoded values, not from the library's comparison.
 */
#ifndef GP_TESTS_BYKEY_COMMON_H
#define GP_TESTS_BYKEY_COMMON_H

#include "sort_common.h"

static const gp_dtype_t k_key_types[] = {GP_U8, GP_I32, GP_U64, GP_F16, GP_F32, GP_F64};
static const gp_dtype_t k_val_types[] = {GP_F32, GP_F64, GP_I32, GP_U64};
static const gp_reduce_op_t k_ops[] = {GP_REDUCE_SUM, GP_REDUCE_MIN, GP_REDUCE_MAX};

/* n keys of kt in runs: runs of 1 to maxrun copies of a value from a few (M_FEW) or random ones */
static inline void bykey_fill(unsigned char *k, size_t n, gp_dtype_t kt, size_t maxrun)
{
    const size_t es = gp_dtype_size(kt);
    size_t i = 0;
    while (i < n) {
        unsigned char v[8];
        sort_fill(v, 1, kt, tc_next() % 3 ? M_RANDOM : M_FEW);
        size_t len = 1 + (size_t)(tc_next() % maxrun);
        for (size_t j = 0; j < len && i < n; j++, i++) memcpy(k + i * es, v, es);
    }
}

/* offsets[0, *runs] of the runs of equal keys, by value */
static inline void bykey_runs(const unsigned char *k, size_t n, gp_dtype_t kt, int64_t *offsets, size_t *runs)
{
    const size_t es = gp_dtype_size(kt);
    const int fl = kt == GP_F16 || kt == GP_BF16 || kt == GP_F32 || kt == GP_F64;
    g_dt = kt, g_lo = 0, g_hi = 8 * (int)es;
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        int same = 0;
        if (i) {
            const val_t a = decode(kt, bits_at(k, es, i - 1)), b = decode(kt, bits_at(k, es, i));
            same = fl ? !a.nan && !b.nan && a.f == b.f : a.s == b.s && a.u == b.u;
        }
        if (!same) offsets[r++] = (int64_t)i;
    }
    offsets[r] = (int64_t)n;
    *runs = r;
}

#endif
