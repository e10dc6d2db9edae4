/*
 * hist_common.h — data and the reference for the histogram tests (test_histogram.c on the CPU, gpu_histogram.c).
 * The reference places each value by binary search over the edges (even mode: the edges as the API defines them,
 * computed into an array), independently of the library's estimate-and-correct rule. Data mix values across and
 * beyond the range, values exactly at lo, hi and every edge, NaNs and -0.0 (floats).
 */
#ifndef GP_TESTS_HIST_COMMON_H
#define GP_TESTS_HIST_COMMON_H

#include "common.h"

static const gp_dtype_t hc_dtypes[] = {GP_U8, GP_U16, GP_I32, GP_U32, GP_F32, GP_F64};
static const size_t hc_bins[] = {1, 2, 255, 256, 257, 4096, 65536, (size_t)1 << 20};

static inline int hc_float(gp_dtype_t d) { return d == GP_F32 || d == GP_F64; }

static inline double hc_get(const void *x, gp_dtype_t dt, size_t i)
{
    switch (dt) {
    case GP_U8: return ((const uint8_t *)x)[i];
    case GP_U16: return ((const uint16_t *)x)[i];
    case GP_I32: return ((const int32_t *)x)[i];
    case GP_U32: return ((const uint32_t *)x)[i];
    case GP_F32: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}

/* Stores v (rounded/clamped into the dtype). */
static inline void hc_put(void *x, gp_dtype_t dt, size_t i, double v)
{
    switch (dt) {
    case GP_U8: ((uint8_t *)x)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); break;
    case GP_U16: ((uint16_t *)x)[i] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v); break;
    case GP_I32: ((int32_t *)x)[i] = (int32_t)(v < -2e9 ? -2e9 : v > 2e9 ? 2e9 : v); break;
    case GP_U32: ((uint32_t *)x)[i] = (uint32_t)(v < 0 ? 0 : v > 4e9 ? 4e9 : v); break;
    case GP_F32: ((float *)x)[i] = (float)v; break;
    default: ((double *)x)[i] = v; break;
    }
}

/* The even edges as the API defines them. */
static inline double hc_edge(double lo, double hi, size_t nbins, size_t k)
{
    return lo + ((hi - lo) * (double)k) / (double)nbins;
}

/* n values for a histogram over [lo, hi) with nbins bins (edges: the range mode's, or NULL for even). skew: every
 * value the same. */
static inline void hc_fill(void *x, gp_dtype_t dt, size_t n, double lo, double hi, size_t nbins, const double *edges,
                           int skew)
{
    const double w = hi - lo;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tc_next();
        double v;
        if (skew) v = lo + w / 3;
        else if (r % 16 == 0) v = edges ? edges[(r >> 8) % (nbins + 1)] : hc_edge(lo, hi, nbins, (r >> 8) % (nbins + 1));
        else if (r % 16 == 1) v = (r >> 8) & 1 ? lo : hi;
        else if (r % 16 == 2 && hc_float(dt)) v = (r >> 8) % 3 == 0 ? NAN : (r >> 8) % 3 == 1 ? -0.0 : -INFINITY;
        else v = lo - 0.1 * w + 1.2 * w * (double)(r >> 11) * 0x1p-53;
        hc_put(x, dt, i, v);
    }
}

/* counts (nbins + 3, u64) by binary search. mode: 0 even, 1 range, 2 direct. */
static inline void hc_reference(const void *x, gp_dtype_t dt, size_t n, int mode, size_t nbins, double lo, double hi,
                                const double *edges, uint64_t *counts)
{
    double *e = malloc((nbins + 1) * sizeof *e);
    for (size_t k = 0; k <= nbins; k++)
        e[k] = mode == 1 ? edges[k] : mode == 2 ? (double)k : hc_edge(lo, hi, nbins, k);
    memset(counts, 0, (nbins + 3) * sizeof *counts);
    for (size_t i = 0; i < n; i++) {
        const double v = hc_get(x, dt, i);
        if (v != v) counts[nbins + 2]++;
        else if (v < e[0]) counts[nbins]++;
        else if (v >= e[nbins]) counts[nbins + 1]++;
        else {
            size_t a = 0, z = nbins;
            while (z - a > 1) {
                size_t m = (a + z) / 2;
                if (v < e[m]) z = m;
                else a = m;
            }
            counts[a]++;
        }
    }
    free(e);
}

/* Strictly increasing random edges over [lo, hi]. */
static inline void hc_edges(double *e, size_t nbins, double lo, double hi)
{
    double acc = 0;
    for (size_t k = 0; k <= nbins; k++) {
        e[k] = acc;
        acc += 0.5 + (double)(tc_next() >> 11) * 0x1p-53;
    }
    for (size_t k = 0; k <= nbins; k++) e[k] = lo + (hi - lo) * e[k] / e[nbins];
    for (size_t k = 1; k <= nbins; k++)
        if (!(e[k] > e[k - 1])) e[k] = nextafter(e[k - 1], INFINITY);
}

/* The range [lo, hi) used for dtype dt and nbins bins: within the dtype, wide enough for integer bins. */
static inline void hc_range(gp_dtype_t dt, size_t nbins, double *lo, double *hi)
{
    if (dt == GP_U8) *lo = 10, *hi = 250;
    else if (dt == GP_U16) *lo = 100, *hi = 60000;
    else if (dt == GP_I32 || dt == GP_U32) *lo = dt == GP_I32 ? -3e6 : 1e3, *hi = *lo + 1e7 + (double)nbins;
    else *lo = -2.5, *hi = 7.25;
}

#endif
