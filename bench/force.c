/* force.c — the library's choices that the suites read back or force (bench.h, "forcing"): which histogram strategy
 * the library picks, which scan kernel runs. Through the internal headers, so that the suites build
 * on gpuprim.h and bench.h only. */
#include "bench.h"

#include "core/internal.h"
#include "histogram/histogram_internal.h"
#include "scan/scan_internal.h"

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
    const gp_status_t st = gp__hist_gpu_ops.run(ctx, &spec, dtype, n, x, count_dtype, counts, (cudaStream_t)stream,
                                           GP__HS_AUTO, 0, 0, &plan);
    if (st == GP_OK && ran_as && len) {
        if (plan.strategy == GP__HS_CLUSTER)
            snprintf(ran_as, len, "%s%d/%s", gp__hist_gpu_ops.strategy_name(plan.strategy), plan.cluster,
                     gp__hist_gpu_ops.kind_name(plan.kind));
        else
            snprintf(ran_as, len, "%s/%s", gp__hist_gpu_ops.strategy_name(plan.strategy), gp__hist_gpu_ops.kind_name(plan.kind));
    }
    return st;
}

void bench_scan_force_kernel(int kernel)
{
    gp__scan_force_kernel(kernel == 1 ? GP__SCAN_KERNEL_LOOKBACK : kernel == 2 ? GP__SCAN_KERNEL_ENGINE : GP__SCAN_KERNEL_AUTO);
}
