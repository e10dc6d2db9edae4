/*
 * tc_batched_probe.c — a tuning probe (not a test, not the bench): the BF16 batched GEMM (1024 x 256^3, f32 c, the
 * bench's problem) under each tensor-core kernel choice, timed three ways: one call between events after a sync
 * (as bench gemm times it: any host time before the launch counts), 20 calls back to back (the GPU never waits for
 * the host), and the host time of one call alone. Built and run on the device against the static library:
 *   nvcc -o /tmp/probe bench/tune/tc_batched_probe.c -Iinclude -Isrc build-device/libgpuprim.a -lcuda -Xcompiler -fopenmp && /tmp/probe
 */
#define _POSIX_C_SOURCE 200809L
#include "gpuprim.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "matrix/matrix_internal.h" /* the context's GEMM plan (0 production, 3..7 the TMA shapes) */

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}
static int cmp(const void *a, const void *b) { return *(const double *)a < *(const double *)b ? -1 : *(const double *)a > *(const double *)b; }

int main(void)
{
    const size_t n = 256, nb = 1024;
    gp_ctx_t *ctx;
    gp_stream_t s;
    if (gp_ctx_create(&ctx, 0) != GP_OK || gp_stream_create(ctx, &s) != GP_OK) return 1;
    gp_buffer_t ba, bb, bc;
    if (gp_mem_alloc(ctx, GP_MEM_DEVICE, n * n * 2 * nb, &ba) || gp_mem_alloc(ctx, GP_MEM_DEVICE, n * n * 2 * nb, &bb) ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, n * n * 4 * nb, &bc))
        return 1;
    cudaMemset(ba.device, 0x3c, n * n * 2 * nb), cudaMemset(bb.device, 0x3b, n * n * 2 * nb);
    const gp_matrix_t a = {ba.device, n, n, n, GP_BF16, GP_ROW_MAJOR}, b = {bb.device, n, n, n, GP_BF16, GP_ROW_MAJOR},
                      c = {bc.device, n, n, n, GP_F32, GP_ROW_MAJOR};
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    const int paths[] = {0, 3, 4, 7};
    printf("path  one_call_us  back_to_back_us  host_us\n");
    for (int pi = 0; pi < 4; pi++) {
        if (gp__gemm_tc_plan_set(ctx, paths[pi]) != GP_OK) return 1;
        double one[21], host[21];
        for (int r = 0; r < 24; r++) {
            cudaStreamSynchronize((cudaStream_t)s);
            cudaEventRecord(e0, (cudaStream_t)s);
            const double h0 = now_us();
            if (gp_gemm_batched(ctx, GP_GEMM_BF16, GP_OP_N, GP_OP_N, 1.0, &a, n * n, &b, n * n, 0.0, &c, n * n, nb, s))
                return fprintf(stderr, "%s\n", gp_last_error()), 1;
            const double h1 = now_us();
            cudaEventRecord(e1, (cudaStream_t)s);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 3) one[r - 3] = ms * 1e3, host[r - 3] = h1 - h0;
        }
        cudaEventRecord(e0, (cudaStream_t)s);
        for (int r = 0; r < 20; r++)
            gp_gemm_batched(ctx, GP_GEMM_BF16, GP_OP_N, GP_OP_N, 1.0, &a, n * n, &b, n * n, 0.0, &c, n * n, nb, s);
        cudaEventRecord(e1, (cudaStream_t)s);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        qsort(one, 21, sizeof *one, cmp), qsort(host, 21, sizeof *host, cmp);
        printf("%4d  %11.1f  %15.1f  %7.1f\n", paths[pi], one[10], ms * 1e3 / 20, host[10]);
    }
    gp_ctx_destroy(ctx);
    return 0;
}
