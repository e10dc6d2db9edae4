/* force.c — the library's choices that the suites force or read back (bench.h, "forcing"): a GEMM kernel variant
 * run alone, and which histogram strategy the library picks. Through the internal headers, so that the suites build
 * on gpuprim.h and bench.h only. */
#include "bench.h"

#include "core/internal.h"
#include "histogram/histogram_internal.h"
#include "matrix/matrix_internal.h"

gp_status_t bench_histogram_even_plan(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins, double lo,
                                      double hi, gp_dtype_t count_dtype, void *counts, gp_stream_t stream, char *ran_as,
                                      size_t len)
{
    if (gp_ctx_device(ctx) == GP_DEVICE_CPU || !(hi > lo) || nbins == 0) {
        if (ran_as && len) snprintf(ran_as, len, "cpu");
        return gp_histogram_even(ctx, dtype, n, x, nbins, lo, hi, count_dtype, counts, stream);
    }
    gp__hist_plan_t plan;
    const gp__hist_spec_t spec = {GP__HIST_EVEN, nbins, lo, hi, (double)nbins / (hi - lo), NULL};
    const gp_status_t st = gp__hist_gpu_ex(ctx, &spec, dtype, n, x, count_dtype, counts, (cudaStream_t)stream,
                                           GP__HS_AUTO, 0, 0, &plan);
    if (st == GP_OK && ran_as && len) {
        if (plan.strategy == GP__HS_CLUSTER)
            snprintf(ran_as, len, "%s%d/%s", gp__hist_strategy_name(plan.strategy), plan.cluster,
                     gp__hist_kind_name(plan.kind));
        else
            snprintf(ran_as, len, "%s/%s", gp__hist_strategy_name(plan.strategy), gp__hist_kind_name(plan.kind));
    }
    return st;
}

gp_status_t bench_gemm_variant(gp_ctx_t *ctx, int f64, size_t m, size_t n, size_t k, const void *a, const void *b,
                               void *c, int variant, gp_stream_t stream)
{
    if (gp_ctx_device(ctx) == GP_DEVICE_CPU) return gp__error(GP_ERR_UNSUPPORTED, "bench_gemm_variant: a GPU context");
    const gp__gemm_t g = {m, n, k, a, b, c, k, n, n, 1, 0, 1.0, 0.0};
    return gp__gemm_gpu(ctx, f64 ? GP_F64 : GP_F32, &g, variant, (cudaStream_t)stream);
}
