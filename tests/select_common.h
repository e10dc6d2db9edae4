/* select_common.h — what the select / partition tests share: inputs per dtype (values near the predicates' constants,
 * the type's extremes, NaN / ±inf / signed zeros for floats), the predicates tried, and an independent reference that
 * evaluates each predicate in long double (exact for every integer and float value of the 12 dtypes). */
#ifndef GP_TESTS_SELECT_COMMON_H
#define GP_TESTS_SELECT_COMMON_H

#include "common.h"

#include <math.h>

static const gp_pred_t k_preds[] = {
    {GP_PRED_NONZERO, 0, 0, NULL}, {GP_PRED_GT, 2.5, 0, NULL},     {GP_PRED_GE, 3, 0, NULL},
    {GP_PRED_LT, -1.5, 0, NULL},   {GP_PRED_LE, 0, 0, NULL},       {GP_PRED_EQ, 7, 0, NULL},
    {GP_PRED_NE, 7, 0, NULL},      {GP_PRED_EQ, 7.5, 0, NULL},     {GP_PRED_IN, -3, 4.25, NULL},
    {GP_PRED_NAN, 0, 0, NULL},     {GP_PRED_NOT_NAN, 0, 0, NULL},  {GP_PRED_GT, 1e300, 0, NULL},
    {GP_PRED_LT, INFINITY, 0, NULL}, {GP_PRED_NE, NAN, 0, NULL},   {GP_PRED_GE, 18446744073709551615.0, 0, NULL},
    /* 0.1 is no float: the f32 neighbours either side of it (planted by sel_fill) test the rounded thresholds */
    {GP_PRED_GT, 0.1, 0, NULL},    {GP_PRED_GE, 0.1, 0, NULL},     {GP_PRED_LT, 0.1, 0, NULL},
    {GP_PRED_LE, 0.1, 0, NULL},    {GP_PRED_EQ, 0.1, 0, NULL}};
#define NPREDS (sizeof k_preds / sizeof k_preds[0])

static long double sel_value(gp_dtype_t dt, const void *x, size_t i, int *isnan_out)
{
    long double v;
    switch (dt) {
    case GP_U8: v = ((const uint8_t *)x)[i]; break;
    case GP_I8: v = ((const int8_t *)x)[i]; break;
    case GP_U16: v = ((const uint16_t *)x)[i]; break;
    case GP_I16: v = ((const int16_t *)x)[i]; break;
    case GP_U32: v = ((const uint32_t *)x)[i]; break;
    case GP_I32: v = ((const int32_t *)x)[i]; break;
    case GP_U64: v = ((const uint64_t *)x)[i]; break;
    case GP_I64: v = ((const int64_t *)x)[i]; break;
    case GP_F16: v = gp_f16_to_f32(((const uint16_t *)x)[i]); break;
    case GP_BF16: v = gp_bf16_to_f32(((const uint16_t *)x)[i]); break;
    case GP_F32: v = ((const float *)x)[i]; break;
    default: v = ((const double *)x)[i]; break;
    }
    *isnan_out = isnan(v);
    return v;
}

/* The predicate on element i, written directly from its definition. */
static int sel_keep(const gp_pred_t *p, gp_dtype_t dt, const void *x, size_t i)
{
    int nan_v;
    const long double v = sel_value(dt, x, i, &nan_v), a = p->a, b = p->b;
    switch (p->kind) {
    case GP_PRED_NONZERO: return nan_v || v != 0;
    case GP_PRED_EQ: return v == a;
    case GP_PRED_NE: return !(v == a);
    case GP_PRED_LT: return v < a;
    case GP_PRED_LE: return v <= a;
    case GP_PRED_GT: return v > a;
    case GP_PRED_GE: return v >= a;
    case GP_PRED_IN: return v >= a && v < b;
    case GP_PRED_NAN: return nan_v;
    case GP_PRED_NOT_NAN: return !nan_v;
    default: return p->flags[i] != 0;
    }
}

/* Values around the constants (-8 .. 8, halves for floats), the type's extremes, and for floats NaN, ±inf, ±0. */
static void sel_fill(void *x, size_t n, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tc_next();
        const int small = (int)(r % 17) - 8, pick = (int)(r >> 60);
        unsigned char *p = (unsigned char *)x + i * es;
        switch (dt) {
        case GP_F32: {
            float f = pick == 0 ? NAN : pick == 1 ? INFINITY : pick == 2 ? -INFINITY : pick == 3 ? -0.0f
                    : pick == 4 ? 0.1f : pick == 5 ? nextafterf(0.1f, 0.0f)
                    : (float)small + ((r >> 8) & 1 ? 0.5f : 0.0f);
            memcpy(p, &f, 4);
            break;
        }
        case GP_F64: {
            double f = pick == 0 ? NAN : pick == 1 ? INFINITY : pick == 2 ? -0.0 : pick == 3 ? 0.1
                     : (double)small + ((r >> 8) & 1 ? 0.25 : 0.0);
            memcpy(p, &f, 8);
            break;
        }
        case GP_F16: case GP_BF16: { /* small integers and halves, NaN, inf, -0 as raw bits */
            static const uint16_t f16[] = {0x7e00, 0x7c00, 0x8000, 0x4200 /* 3 */, 0x4300 /* 3.5 */, 0x4700 /* 7 */,
                                           0xbe00 /* -1.5 */, 0x3c00 /* 1 */, 0x0000, 0x4880 /* 9 */};
            static const uint16_t b16[] = {0x7fc0, 0x7f80, 0x8000, 0x4040, 0x4060, 0x40e0, 0xbfc0, 0x3f80, 0x0000,
                                           0x4110};
            const uint16_t v = dt == GP_F16 ? f16[r % 10] : b16[r % 10];
            memcpy(p, &v, 2);
            break;
        }
        default: { /* integers: small values mostly, sometimes the extremes or random bits */
            uint64_t v = (uint64_t)(int64_t)small;
            if (pick == 0) v = ~(uint64_t)0 >> (64 - 8 * es) >> (dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64);
            else if (pick == 1) v = r;
            memcpy(p, &v, es); /* little-endian: the low bytes */
            break;
        }
        }
    }
}

/* The reference: kept elements in order, then (partition) the rejected ones in order. Returns the count. */
static size_t sel_reference(const gp_pred_t *p, gp_dtype_t dt, size_t n, const void *x, int partition, void *y)
{
    const size_t es = gp_dtype_size(dt);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (sel_keep(p, dt, x, i)) memcpy((char *)y + k++ * es, (const char *)x + i * es, es);
    size_t r = k;
    if (partition)
        for (size_t i = 0; i < n; i++)
            if (!sel_keep(p, dt, x, i)) memcpy((char *)y + r++ * es, (const char *)x + i * es, es);
    return k;
}

/* Runs: sel_fill's values, each element repeating the one before it with probability 5/8. */
static void sel_fill_runs(void *x, size_t n, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt);
    sel_fill(x, n, dt);
    for (size_t i = 1; i < n; i++)
        if (tc_next() % 8 < 5) memcpy((char *)x + i * es, (char *)x + (i - 1) * es, es);
}

/* The runs of equal values (as numbers: NaN equals nothing), from the definition: their first elements into values,
 * their lengths (NULL: not wanted). Returns the number of runs. */
static size_t sel_runs_reference(gp_dtype_t dt, size_t n, const void *x, void *values, uint64_t *lengths)
{
    const size_t es = gp_dtype_size(dt);
    size_t r = 0;
    for (size_t i = 0; i < n; i++) {
        int na = 0, nb = 0;
        const int same = i > 0 && sel_value(dt, x, i, &na) == sel_value(dt, x, i - 1, &nb) && !na && !nb;
        if (!same) {
            memcpy((char *)values + r * es, (const char *)x + i * es, es);
            if (lengths) lengths[r] = 0;
            r++;
        }
        if (lengths) lengths[r - 1]++;
    }
    return r;
}

#endif
