/*
 * histogram.c — the histogram API: validation, the bin specification, dispatch to the CPU backend
 * (histogram_cpu.c) or the GPU (histogram.cu). Semantics: include/gpuprim.h.
 */
#include "histogram_internal.h"

#include <math.h>
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

static gp_status_t run(gp_ctx_t *ctx, const gp__hist_spec_t *s, gp_dtype_t dtype, size_t n, const void *x,
                       gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    if (gp__is_cpu(ctx)) return gp__hist_cpu(s, dtype, n, x, count_dtype, counts);
    return gp__hist_gpu(ctx, s, dtype, n, x, count_dtype, counts, (cudaStream_t)stream);
}

gp_status_t gp_histogram_even(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins, double lo,
                              double hi, gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    static const char fn[] = "gp_histogram_even";
    GP_TRY_RET(check(fn, ctx, dtype, n, x, nbins, count_dtype, counts));
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || !isfinite(hi - lo))
        return gp__error(GP_ERR_INVALID_ARG, "%s: the range [lo, hi) = [%g, %g) must be finite with lo < hi", fn, lo,
                         hi);
    gp__hist_spec_t s = {GP__HIST_EVEN, nbins, lo, hi, (double)nbins / (hi - lo), NULL};
    return run(ctx, &s, dtype, n, x, count_dtype, counts, stream);
}

gp_status_t gp_histogram_range(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                               const double *edges, gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    static const char fn[] = "gp_histogram_range";
    GP_TRY_RET(check(fn, ctx, dtype, n, x, nbins, count_dtype, counts));
    if (edges == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: edges is NULL", fn);
    for (size_t k = 0; k <= nbins; k++) {
        if (isnan(edges[k])) return gp__error(GP_ERR_INVALID_ARG, "%s: edges[%zu] is NaN", fn, k);
        if (k > 0 && !(edges[k - 1] < edges[k]))
            return gp__error(GP_ERR_INVALID_ARG, "%s: edges must increase: edges[%zu] = %g, edges[%zu] = %g", fn,
                             k - 1, edges[k - 1], k, edges[k]);
    }
    gp__hist_spec_t s = {GP__HIST_RANGE, nbins, edges[0], edges[nbins], 0, edges};
    return run(ctx, &s, dtype, n, x, count_dtype, counts, stream);
}

gp_status_t gp_histogram_direct(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                                gp_dtype_t count_dtype, void *counts, gp_stream_t stream)
{
    static const char fn[] = "gp_histogram_direct";
    GP_TRY_RET(check(fn, ctx, dtype, n, x, nbins, count_dtype, counts));
    if (dtype == GP_F32 || dtype == GP_F64)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: direct bins (bin = value) need an integer dtype, not %s", fn,
                         gp_dtype_name(dtype));
    gp__hist_spec_t s = {GP__HIST_DIRECT, nbins, 0, (double)nbins, 0, NULL};
    return run(ctx, &s, dtype, n, x, count_dtype, counts, stream);
}
