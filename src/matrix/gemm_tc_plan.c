/*
 * gemm_tc_plan.c — the tensor-core GEMM's tuning, host logic only (the kernels are gemm_tc.cu's and gemm_wgmma.cu's):
 * the TMA kernel's tile shape per launch, how many ranges a long K is split into, and the per-context plan that runs
 * another kernel choice for the tests and the lab (docs/design/matrix.md, "Tuning").
 */
#include "matrix_internal.h"

#include <stdint.h>

static const char k_tc_plan = 0; /* the key of the plan's slot on a context */

gp_status_t gp__gemm_tc_plan_set(gp_ctx_t *ctx, int kernel)
{
    if (kernel < 0 || kernel > 7) return gp__error(GP_ERR_INVALID_ARG, "gemm plan: kernel %d (0 .. 7)", kernel);
    void **slot = gp__ctx_attach(ctx, &k_tc_plan, NULL);
    if (!slot) return gp__error(GP_ERR_OUT_OF_MEMORY, "gemm plan: the context's slot");
    *slot = (void *)(intptr_t)kernel;
    return GP_OK;
}

int gp__gemm_tc_plan(gp_ctx_t *ctx)
{
    for (const gp__attach_t *a = ctx->attached; a; a = a->next)
        if (a->key == &k_tc_plan) return (int)(intptr_t)a->data;
    return 0;
}

/* the TMA kernel's shape for a launch of count problems (every shape gives the same bits, so a batch may count all
 * its tiles; the split of K, which changes the bits, is chosen for one problem alone: gp__gemm_wgmma_splits) */
int gp__gemm_wgmma_pick_batch(size_t M, size_t N, size_t count, int sms)
{
    const size_t t256 = (M + 127) / 128 * ((N + 255) / 256) * (count ? count : 1);
    if (N <= 128 || t256 < 2 * (size_t)sms) return GP__WG_TMA_128x128;
    return GP__WG_TMA_128x256;
}
int gp__gemm_wgmma_pick(size_t M, size_t N, int sms) { return gp__gemm_wgmma_pick_batch(M, N, 1, sms); }

/* K split in how many ranges (1: none) for the production choice: where the tiles fill less than half of the blocks
 * the SMs hold at once and K has at least 64 k tiles (of 128 bytes), enough ranges to fill them, each at least 16 k
 * tiles long, at most 8 */
unsigned gp__gemm_wgmma_splits(size_t M, size_t N, size_t K, size_t es, int sms)
{
    const int k = gp__gemm_wgmma_pick(M, N, sms);
    const size_t tn = k == GP__WG_TMA_128x128 || k == GP__WG_TMA_128x128_C2 ? 128 : 256, per_sm = tn == 128 ? 2 : 1;
    const size_t tiles = (M + 127) / 128 * ((N + tn - 1) / tn), kt = (K * es + 127) / 128, slots = (size_t)sms * per_sm;
    if (kt < 64 || 2 * tiles > slots) return 1;
    size_t s = slots / tiles;
    if (s > kt / 16) s = kt / 16;
    if (s > 8) s = 8;
    return s < 2 ? 1 : (unsigned)s;
}
