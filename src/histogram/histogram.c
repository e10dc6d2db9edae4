/*
 * histogram.c — the histogram API: validation, the bin specification, dispatch to the CPU backend
 * (histogram_cpu.c) or the GPU (histogram.cu). Semantics: include/gpuprim.h.
 */
#include "histogram_internal.h"
#include "core/backend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int supported(gp_dtype_t d)
{
    return d == GP_U8 || d == GP_U16 || d == GP_I32 || d == GP_U32 || d == GP_F32 || d == GP_F64;
}

static gp_status_t check(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                         gp_dtype_t count_dtype, const void *counts)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (!supported(dtype))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: dtype %s (u8 u16 i32 u32 f32 f64 are supported)", fn,
                         gp_dtype_name(dtype));
    if (count_dtype != GP_U32 && count_dtype != GP_U64)
        return gp__error(GP_ERR_INVALID_ARG, "%s: count_dtype must be GP_U32 or GP_U64", fn);
    if (nbins == 0) return gp__error(GP_ERR_INVALID_ARG, "%s: nbins is 0", fn);
    size_t bytes;
    if (nbins > ((size_t)1 << 40) || !gp__mul_ok(n, gp_dtype_size(dtype), &bytes))
        return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu or nbins = %zu is too large", fn, n, nbins);
    if (counts == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: counts is NULL", fn);
    if ((uintptr_t)counts % gp_dtype_size(count_dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: counts is not %zu-byte aligned", fn, gp_dtype_size(count_dtype));
    if (n > 0 && x == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: x is NULL", fn);
    if (n > 0 && (uintptr_t)x % gp_dtype_size(dtype))
        return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, gp_dtype_size(dtype));
    return GP_OK;
}

/* NumPy's even edges: np.histogram's np.linspace(lo, hi, nbins + 1), k * step + lo in double with each step rounded
 * (a store keeps the product apart from the sum: no fused multiply-add), the last edge hi, rounded to float for f32
 * data as np.histogram computes its edges in the data's float type. */
static void numpy_edges(double *e, size_t nbins, double lo, double hi, int to_float)
{
    const double step = (hi - lo) / (double)nbins;
    for (size_t k = 0; k <= nbins; k++) {
        volatile double p = (double)k * step;
        const double v = k == nbins ? hi : p + lo;
        e[k] = to_float ? (double)(float)v : v;
    }
}

/* Checks the bins and runs: counts overwritten, or added to (accumulate). */
static gp_status_t histogram_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x,
                                     const gp_hist_bins_t *b, gp_dtype_t count_dtype, void *counts, gp_stream_t stream,
                                     int accumulate)
{
    GP_TRY_RET(check(fn, ctx, dtype, n, x, b->nbins, count_dtype, counts));
    const size_t nbins = b->nbins;
    gp__hist_spec_t s = {GP__HIST_EVEN, nbins, b->lo, b->hi, 0, NULL};
    double *np_edges = NULL; /* NumPy's even edges, spelled out: they run as range bins */
    if (b->mode == GP_HIST_EVEN) {
        if (!isfinite(b->lo) || !isfinite(b->hi) || !(b->lo < b->hi) || !isfinite(b->hi - b->lo))
            return gp__error(GP_ERR_INVALID_ARG, "%s: the range [lo, hi) = [%g, %g) must be finite with lo < hi", fn,
                             b->lo, b->hi);
        s.scale = (double)nbins / (b->hi - b->lo);
        if (b->numpy_edges) {
            if ((np_edges = malloc((nbins + 1) * sizeof *np_edges)) == NULL)
                return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu edges (numpy_edges)", fn, nbins + 1);
            numpy_edges(np_edges, nbins, b->lo, b->hi, dtype == GP_F32);
            for (size_t k = 1; k <= nbins; k++)
                if (!(np_edges[k - 1] < np_edges[k])) {
                    free(np_edges);
                    return gp__error(GP_ERR_INVALID_ARG, "%s: %zu bins over [%g, %g] are narrower than a %s's spacing "
                                     "(NumPy: too many bins for the data range)", fn, nbins, b->lo, b->hi,
                                     dtype == GP_F32 ? "float" : "double");
                }
            s.mode = GP__HIST_RANGE, s.lo = np_edges[0], s.hi = np_edges[nbins], s.edges = np_edges;
        }
    } else if (b->mode == GP_HIST_RANGE) {
        const double *edges = b->edges;
        if (edges == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: edges is NULL", fn);
        for (size_t k = 0; k <= nbins; k++) {
            if (isnan(edges[k])) return gp__error(GP_ERR_INVALID_ARG, "%s: edges[%zu] is NaN", fn, k);
            if (k > 0 && !(edges[k - 1] < edges[k]))
                return gp__error(GP_ERR_INVALID_ARG, "%s: edges must increase: edges[%zu] = %g, edges[%zu] = %g", fn,
                                 k - 1, edges[k - 1], k, edges[k]);
        }
        s.mode = GP__HIST_RANGE, s.lo = edges[0], s.hi = edges[nbins], s.edges = edges;
    } else if (b->mode == GP_HIST_DIRECT) {
        if (dtype == GP_F32 || dtype == GP_F64)
            return gp__error(GP_ERR_UNSUPPORTED, "%s: direct bins (bin = value) need an integer dtype, not %s", fn,
                             gp_dtype_name(dtype));
        s.mode = GP__HIST_DIRECT, s.lo = 0, s.hi = (double)nbins;
    } else {
        return gp__error(GP_ERR_INVALID_ARG, "%s: bins->mode %d is not a gp_hist_mode_t", fn, (int)b->mode);
    }
    if (b->closed_last && s.mode == GP__HIST_DIRECT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: closed_last applies to even and range bins, not direct", fn);
    double *closed = NULL;
    if (b->closed_last) {
        /* [e_{n-1}, hi] is [e_{n-1}, nextafter(hi, +inf)) for values held exactly in a double (every dtype's are):
         * the same bins as range bins whose last edge is moved up by one ulp. Even edges are spelled out with the
         * even rule's own formula, so every other value keeps its bin. */
        if ((closed = malloc((nbins + 1) * sizeof *closed)) == NULL) {
            free(np_edges);
            return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu edges for the closed last bin", fn, nbins + 1);
        }
        for (size_t k = 0; k < nbins; k++) closed[k] = s.mode == GP__HIST_RANGE ? s.edges[k] : gp__hist_edge(&s, k);
        closed[nbins] = nextafter(s.hi, INFINITY);
        for (size_t k = 1; k < nbins; k++)
            if (!(closed[k - 1] < closed[k])) {
                free(closed), free(np_edges);
                return gp__error(GP_ERR_INVALID_ARG, "%s: %zu even bins over [%g, %g] are narrower than a double's "
                                                     "spacing", fn, nbins, s.lo, s.hi);
            }
        s.mode = GP__HIST_RANGE, s.edges = closed, s.hi = closed[nbins];
    }
    gp_status_t st;
    if (gp__is_cpu(ctx))
        st = gp__hist_cpu(&s, dtype, n, x, count_dtype, counts, accumulate);
    else /* the edges reach the device before this returns (a staged copy from pageable memory) */
        st = gp__hist_gpu_ops.run(ctx, &s, dtype, n, x, count_dtype, counts, (cudaStream_t)stream, GP__HS_AUTO, 0,
                             accumulate, NULL);
    free(closed), free(np_edges);
    return st;
}

gp_status_t gp_histogram_even(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins, double lo,
                              double hi, gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    const gp_hist_bins_t b = {GP_HIST_EVEN, nbins, lo, hi, NULL, 0, 0};
    return histogram_enqueue("gp_histogram_even", ctx, dtype, n, x, &b, count_dtype, counts, stream, 0);
}

gp_status_t gp_histogram_range(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                               const double *edges, gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    const gp_hist_bins_t b = {GP_HIST_RANGE, nbins, 0, 0, edges, 0, 0};
    return histogram_enqueue("gp_histogram_range", ctx, dtype, n, x, &b, count_dtype, counts, stream, 0);
}

gp_status_t gp_histogram_direct(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                                gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    const gp_hist_bins_t b = {GP_HIST_DIRECT, nbins, 0, 0, NULL, 0, 0};
    return histogram_enqueue("gp_histogram_direct", ctx, dtype, n, x, &b, count_dtype, counts, stream, 0);
}

gp_status_t gp_histogram_accumulate(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x,
                                    const gp_hist_bins_t *bins, gp_dtype_t count_dtype, void *counts,
                                    gp_stream_t stream)
{
    static const char fn[] = "gp_histogram_accumulate";
    if (bins == NULL) {
        GP_TRY_RET(gp__ctx_enter(ctx, fn));
        return gp__error(GP_ERR_INVALID_ARG, "%s: bins is NULL", fn);
    }
    return histogram_enqueue(fn, ctx, dtype, n, x, bins, count_dtype, counts, stream, 1);
}

const gp__hist_gpu_ops_t gp__hist_gpu_ops = {
    .run = GP_GPU_SLOT(gp__hist_gpu_ex),
    .strategy_name = GP_GPU_SLOT(gp__hist_strategy_name),
    .kind_name = GP_GPU_SLOT(gp__hist_kind_name),
};
