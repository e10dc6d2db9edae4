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

/* The even edges as the API defines them: lo + (hi - lo) k / nbins, or with numpy_edges NumPy's np.linspace(lo, hi,
 * nbins + 1), rounded to float for f32 data (hc_numpy). */
static int hc_numpy;
static inline double hc_edge(gp_dtype_t dt, double lo, double hi, size_t nbins, size_t k)
{
    if (!hc_numpy) return lo + ((hi - lo) * (double)k) / (double)nbins;
    const double step = (hi - lo) / (double)nbins;
    volatile double p = (double)k * step; /* two roundings, as NumPy's arange * step + start */
    const double e = k == nbins ? hi : p + lo;
    return dt == GP_F32 ? (double)(float)e : e;
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
        else if (r % 16 == 0) v = edges ? edges[(r >> 8) % (nbins + 1)] : hc_edge(dt, lo, hi, nbins, (r >> 8) % (nbins + 1));
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
        e[k] = mode == 1 ? edges[k] : mode == 2 ? (double)k : hc_edge(dt, lo, hi, nbins, k);
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

/* gp_histogram_accumulate on any context: three pieces (the middle one empty) added into the same counts equal the
 * whole, for each mode; u32 counts starting at 2^32 - 5 wrap; bad bins are refused and leave the counts alone. */
static inline void hc_check_accumulate(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = 50021, nbins = 300, S = nbins + 3;
    for (int mode = 0; mode < 3; mode++) {
        const gp_dtype_t dt = mode == 2 ? GP_I32 : GP_F32;
        double lo, hi;
        hc_range(dt, nbins, &lo, &hi);
        double *edges = mode == 1 ? malloc((nbins + 1) * sizeof *edges) : NULL;
        if (edges) hc_edges(edges, nbins, lo, hi);
        int32_t *x = malloc(n * 4);
        if (mode == 2)
            for (size_t i = 0; i < n; i++) hc_put(x, dt, i, (double)(tc_next() % (nbins + 6)) - 3.0);
        else
            hc_fill(x, dt, n, lo, hi, nbins, edges, 0);
        uint64_t *want = malloc(S * 8), *got = malloc(S * 8);
        hc_reference(x, dt, n, mode, nbins, lo, hi, edges, want);
        const gp_hist_bins_t bins = {(gp_hist_mode_t)mode, nbins, lo, hi, edges, 0, hc_numpy};
        gp_buffer_t dx, dc;
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &dx));
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, S * 8, &dc));
        OK(gp_memcpy_sync(ctx, dx.device, x, n * 4));
        for (int c64 = 1; c64 >= 0; c64--) {
            const gp_dtype_t cdt = c64 ? GP_U64 : GP_U32;
            memset(got, 0, S * 8);
            if (!c64) ((uint32_t *)got)[0] = 0xfffffffbu;
            OK(gp_memcpy_sync(ctx, dc.device, got, S * 8));
            const size_t cut[4] = {0, n / 3, n / 3, n};
            for (int p = 0; p < 3; p++)
                OK(gp_histogram_accumulate(ctx, dt, cut[p + 1] - cut[p], (const int32_t *)dx.device + cut[p], &bins,
                                           cdt, dc.device, s));
            OK(gp_stream_sync(ctx, s));
            OK(gp_memcpy_sync(ctx, got, dc.device, S * 8));
            size_t bad = 0;
            for (size_t b = 0; b < S; b++)
                bad += c64 ? got[b] != want[b]
                           : ((uint32_t *)got)[b] != (uint32_t)(want[b] + (b == 0 ? 0xfffffffbu : 0u));
            CHECK(bad == 0, "accumulate mode %d %s: %zu slots differ", mode, gp_dtype_name(cdt), bad);
        }
        /* refused: nothing written */
        gp_hist_bins_t badb = bins;
        badb.mode = (gp_hist_mode_t)7;
        CHECK_ST(gp_histogram_accumulate(ctx, dt, n, dx.device, &badb, GP_U64, dc.device, s), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_histogram_accumulate(ctx, dt, n, dx.device, NULL, GP_U64, dc.device, s), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "bins is NULL") != NULL, "%s", gp_last_error());
        uint32_t after[4];
        OK(gp_memcpy_sync(ctx, after, dc.device, sizeof after));
        CHECK(memcmp(after, got, sizeof after) == 0, "a refused accumulate wrote the counts");
        gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
        free(x), free(want), free(got), free(edges);
    }
}

/* closed_last (NumPy's rule): the same counts as the half-open reference, except that values equal to the last edge
 * move from "above" into the last bin; even and range bins, every dtype of the suite; direct bins refuse the flag. */
static inline void hc_check_closed(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = 50021;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    for (size_t d = 0; d < sizeof hc_dtypes / sizeof hc_dtypes[0]; d++)
        for (int mode = 0; mode < 2; mode++)
            for (size_t nbins = 1; nbins <= 4099; nbins = nbins * 7 + 3) {
                const gp_dtype_t dt = hc_dtypes[d];
                const size_t es = gp_dtype_size(dt), S = nbins + 3;
                double lo, hi;
                hc_range(dt, nbins, &lo, &hi);
                double *edges = mode == 1 ? malloc((nbins + 1) * sizeof *edges) : NULL;
                if (edges) hc_edges(edges, nbins, lo, hi);
                void *x = malloc(n * es);
                hc_fill(x, dt, n, lo, hi, nbins, edges, 0);
                uint64_t *want = malloc(S * 8), *got = malloc(S * 8);
                hc_reference(x, dt, n, mode, nbins, lo, hi, edges, want);
                const double top = mode == 1 ? edges[nbins] : hc_edge(dt, lo, hi, nbins, nbins);
                for (size_t i = 0; i < n; i++)
                    if (hc_get(x, dt, i) == top) want[nbins + 1]--, want[nbins - 1]++;
                const gp_hist_bins_t bins = {(gp_hist_mode_t)mode, nbins, lo, hi, edges, 1, hc_numpy};
                gp_buffer_t dx, dc;
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es, &dx));
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, S * 8, &dc));
                void *px = gpu ? dx.device : dx.host, *pc = gpu ? dc.device : dc.host;
                memset(got, 0, S * 8);
                OK(gp_memcpy_sync(ctx, px, x, n * es));
                OK(gp_memcpy_sync(ctx, pc, got, S * 8));
                OK(gp_histogram_accumulate(ctx, dt, n, px, &bins, GP_U64, pc, s));
                OK(gp_stream_sync(ctx, s));
                OK(gp_memcpy_sync(ctx, got, pc, S * 8));
                size_t bad = 0;
                for (size_t b = 0; b < S; b++) bad += got[b] != want[b];
                CHECK(bad == 0, "closed_last %s %s nbins %zu: %zu of %zu counts differ", gp_dtype_name(dt),
                      mode ? "range" : "even", nbins, bad, S);
                gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
                free(x), free(want), free(got), free(edges);
            }
    gp_buffer_t dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 16 * 8, &dc));
    const gp_hist_bins_t direct = {GP_HIST_DIRECT, 10, 0, 0, NULL, 1, 0};
    CHECK_ST(gp_histogram_accumulate(ctx, GP_I32, 0, NULL, &direct, GP_U64, gpu ? dc.device : dc.host, s),
             GP_ERR_INVALID_ARG);
    gp_mem_free(ctx, &dc);
}

#endif
