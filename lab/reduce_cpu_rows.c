/*
 * reduce_cpu_rows.c — the reduce lab's CPU rows: the plain serial loop the primers compare against, and the CPU
 * backend's gp_reduce.
 */
#include "lab_versions.h"

#include <string.h>

gp_status_t lab_reduce_cpu_serial(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t stream)
{
    (void)ctx;
    (void)stream;
    float a = 0;
    for (size_t i = 0; i < n; i++) a += x[i];
    *result = a;
    return GP_OK;
}

gp_status_t lab_reduce_cpu_backend(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t stream)
{
    (void)ctx;
    (void)stream;
    gp_reduce_result_t r;
    memset(&r, 0, sizeof r);
    if (n == 0) {
        *result = 0;
        return GP_OK;
    }
    gp_status_t st = gp__reduce_cpu(GP_REDUCE_SUM, GP_F32, 0, n, x, &r, 1);
    if (st == GP_OK) *result = r.value.f32;
    return st;
}
