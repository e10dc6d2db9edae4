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

/* integer keys of dt in [base, base + span) (span at least 1; skew: 70% of them the middle value), and whether that
 * range fits dt (tspan: the values of dt, u64's less one) */
static inline int range_fits(gp_dtype_t dt, int64_t base, uint64_t span, uint64_t tspan)
{
    const size_t es = gp_dtype_size(dt);
    const int sgn = dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64;
    if (sgn && es < 8 && (base < -(int64_t)(tspan / 2) || base + (int64_t)span > (int64_t)(tspan / 2))) return 0;
    if (!sgn && es < 8 && (base < 0 || (uint64_t)base + span > tspan)) return 0;
    return 1;
}
static inline void range_fill(unsigned char *x, size_t n, gp_dtype_t dt, int64_t base, uint64_t span, int skew)
{
    const size_t es = gp_dtype_size(dt);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = skew && tc_next() % 10 < 7 ? span / 2 : tc_next() % span;
        const uint64_t v = (uint64_t)base + r;
        memcpy(x + i * es, &v, es); /* little-endian: the low bytes, two's complement */
    }
}

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

/* whether name is one of list's comma-separated names */
static inline int name_listed(const char *list, const char *name)
{
    char l[256], w[32];
    snprintf(l, sizeof l, ",%s,", list), snprintf(w, sizeof w, ",%s,", name);
    return strstr(l, w) != NULL;
}

/* ---- the reference order: NumPy's comparison written from the values (floats decoded to double: NaN last ascending
 * and first descending, -0 == +0; integers as integers; g_lo / g_hi: a bit range), not from the radix keys */
/* an element as the reference compares it */
typedef struct {
    int nan;
    double f;
    int64_t s;
    uint64_t u;
} val_t;

static gp_dtype_t g_dt;
static int g_desc, g_lo, g_hi;
static val_t *g_v;

static inline uint64_t bits_at(const unsigned char *x, size_t es, size_t i)
{
    uint64_t b = 0;
    memcpy(&b, x + i * es, es); /* little-endian */
    return b;
}

static inline val_t decode(gp_dtype_t dt, uint64_t b)
{
    val_t v = {0, 0, 0, 0};
    const int w = 8 * (int)gp_dtype_size(dt);
    switch (dt) {
    case GP_F16: v.f = gp_f16_to_f32((uint16_t)b); break;
    case GP_BF16: v.f = gp_bf16_to_f32((uint16_t)b); break;
    case GP_F32: {
        float f;
        uint32_t u = (uint32_t)b;
        memcpy(&f, &u, 4);
        v.f = f;
        break;
    }
    case GP_F64: memcpy(&v.f, &b, 8); break;
    case GP_I8: case GP_I16: case GP_I32: case GP_I64:
        v.s = w == 64 ? (int64_t)b : (int64_t)(b << (64 - w)) >> (64 - w); /* sign-extended */
        break;
    default: v.u = b; break;
    }
    v.nan = isnan(v.f);
    /* a bit range: the bits [lo, hi) of the value, the sign bit flipped first for signed integers */
    if (g_hi - g_lo < w) {
        uint64_t t = b;
        if (dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64) t ^= 1ull << (w - 1);
        t >>= g_lo;
        if (g_hi - g_lo < 64) t &= (1ull << (g_hi - g_lo)) - 1;
        v.u = t;
        v.s = 0;
    }
    return v;
}

/* a strictly before b in the sort's order (not stable by itself) */
static inline int before(const val_t *a, const val_t *b)
{
    const int fl = g_dt == GP_F16 || g_dt == GP_BF16 || g_dt == GP_F32 || g_dt == GP_F64;
    if (fl) {
        if (!g_desc) return a->nan ? 0 : b->nan ? 1 : a->f < b->f;
        return b->nan ? 0 : a->nan ? 1 : a->f > b->f;
    }
    if (a->s != b->s) return g_desc ? a->s > b->s : a->s < b->s;
    if (a->u != b->u) return g_desc ? a->u > b->u : a->u < b->u;
    return 0;
}

/* stable bottom-up merge sort of positions */
static inline void ref_argsort(size_t n, size_t *perm)
{
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) perm[i] = i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t a = 0; a < n; a += 2 * w) {
            const size_t m = a + w < n ? a + w : n, e = a + 2 * w < n ? a + 2 * w : n;
            size_t i = a, j = m, k = a;
            while (i < m && j < e) tmp[k++] = before(&g_v[perm[j]], &g_v[perm[i]]) ? perm[j++] : perm[i++];
            while (i < m) tmp[k++] = perm[i++];
            while (j < e) tmp[k++] = perm[j++];
        }
        memcpy(perm, tmp, n * sizeof *perm);
    }
    free(tmp);
}

/* ---- segments for the segmented sort: CSR offsets (nseg + 1) over n elements, by mix: 0 random lengths 0 to 70;
 * 1 the lengths around every bucket's edge (0, 1, 2, 31 .. 33, 63 .. 65, ..., 4095 .. 4097) and longer ones; 2 a
 * power law (a few long, many short); 3 one segment with elements outside it at both ends. Returns nseg <= n + 1 (empty
 * segments included); o holds at least n + 2 values. */
enum { SEG_RANDOM, SEG_EDGES, SEG_POWER, SEG_ONE, SEG_MIXES };
static inline size_t seg_make(int64_t *o, size_t n, int mix)
{
    static const size_t edges[] = {0,    1,    2,    31,   32,   33,   63,   64,   65,   255,  256,  257, 1023,
                                   1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 4100, 9000, 20011, 70001};
    size_t k = 0, at = 0;
    if (mix == SEG_ONE) {
        const size_t a = n > 8 ? 3 : 0, b = n > 8 ? n - 5 : n;
        o[0] = (int64_t)a, o[1] = (int64_t)b;
        return 1;
    }
    o[0] = 0;
    while (at < n) {
        size_t len;
        if (mix == SEG_RANDOM) len = (size_t)(tc_next() % 71);
        else if (mix == SEG_EDGES) len = edges[k % (sizeof edges / sizeof edges[0])];
        else {
            const double u = (double)(tc_next() >> 11) / 9007199254740992.0; /* [0, 1) */
            len = (size_t)(2.0 / pow(1.0 - u, 1.4));                            /* Pareto, shape 1 / 1.4 */
        }
        if (len > n - at || k == n) len = n - at; /* o[n + 1] at most: the (n + 1)-th segment takes the rest */
        at += len;
        o[++k] = (int64_t)at;
    }
    return k;
}

/* the reference segmented sort: each segment's stable argsort by the reference order, the keys (es bytes) and values
 * (vs bytes) gathered through it; outside every segment a copy */
static inline void ref_segsort(gp_dtype_t dt, size_t n, const unsigned char *x, const unsigned char *v, size_t vs,
                               size_t nseg, const int64_t *o, unsigned char *y, unsigned char *vy)
{
    const size_t es = gp_dtype_size(dt);
    memcpy(y, x, n * es);
    if (vs) memcpy(vy, v, n * vs);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    g_v = realloc(g_v, (n ? n : 1) * sizeof *g_v);
    g_dt = dt;
    for (size_t s = 0; s < nseg; s++) {
        const size_t b = (size_t)o[s], m = (size_t)o[s + 1] - b;
        for (size_t i = 0; i < m; i++) g_v[i] = decode(dt, bits_at(x, es, b + i));
        ref_argsort(m, perm);
        for (size_t i = 0; i < m; i++) {
            memcpy(y + (b + i) * es, x + (b + perm[i]) * es, es);
            if (vs) memcpy(vy + (b + i) * vs, v + (b + perm[i]) * vs, vs);
        }
    }
    free(perm);
}

#endif
