/* test_matrix.c — CPU tests of the matrix views (tests/matrix_common.h). */
#include "matrix_common.h"
#include "matrix/matrix_internal.h"

int main(void)
{
    tc_seed("test_matrix");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    long before = tc_fail;
    mc_transpose_all(ctx, NULL, 0);
    printf("  transpose f32 f64 i32 u8 f16 i16 i64, every layout pair, odd shapes, padded lds, poisoned dst: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_add_all(ctx, NULL, 0);
    printf("  add f32 f64 i32 u8, every layout triple, factors 0 (operand NaN), in place, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_gemm_all(ctx, NULL, 0);
    mc_gemm_ex_all(ctx, NULL, 0);
    mc_gemm_batched_all(ctx, NULL, 0);
    printf("  gemm f32 f64 and gemm_ex tf32 bf16 fp16, ops NN NT TN TT x every layout triple, m n k 0 1 odd, beta 0 "
           "on NaN c, TF32 truncation, batched = one by one, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    /* the blocked CPU GEMM past its blocks (MC 144, KC 256, NR 16/32, MR 6), with each micro-kernel this CPU has */
    for (int isa = 0; isa <= 2; isa++) {
        gp__gemm_cpu_max_isa = isa;
        for (int d = 0; d < 2; d++) {
            const gp_dtype_t dt = d ? GP_F64 : GP_F32;
            const gp_layout_t rr[3] = {GP_ROW_MAJOR, GP_ROW_MAJOR, GP_ROW_MAJOR},
                              mix[3] = {GP_COL_MAJOR, GP_ROW_MAJOR, GP_COL_MAJOR};
            mc_gemm_case(ctx, NULL, dt, GP_OP_N, GP_OP_N, rr, 151, 293, 517, 1.0, 0.0);
            mc_gemm_case(ctx, NULL, dt, GP_OP_T, GP_OP_T, mix, 289, 67, 300, -0.75, 1.25);
            mc_gemm_case(ctx, NULL, dt, GP_OP_N, GP_OP_T, mix, 7, 1, 600, 2.0, 0.0);
        }
        printf("  CPU gemm blocks, micro-kernel %s: %s\n", gp__gemm_cpu_kernel_name(), tc_fail == before ? "ok" : "FAILED");
    }
    gp__gemm_cpu_max_isa = 2;
    before = tc_fail;
    /* the sm_90 tensor-core choices (host logic; the kernels are the GPU tests'): tile shape per problem, K split */
    {
        const int sms = 132;
        CHECK(gp__gemm_wgmma_pick(4096, 4096, sms) == GP__WG_TMA_128x256, "4096^2: 512 tiles of 128 x 256");
        CHECK(gp__gemm_wgmma_pick(8192, 8192, sms) == GP__WG_TMA_128x256, "8192^2: 128 x 256");
        CHECK(gp__gemm_wgmma_pick(2048, 4096, sms) == GP__WG_TMA_128x128, "16 x 16 tiles, under two waves of 132");
        CHECK(gp__gemm_wgmma_pick(2048, 4097, sms) == GP__WG_TMA_128x256, "16 x 17 tiles: two waves");
        CHECK(gp__gemm_wgmma_pick(2049, 4096, sms) == GP__WG_TMA_128x256, "17 x 16 tiles: two waves");
        CHECK(gp__gemm_wgmma_pick(256, 256, sms) == GP__WG_TMA_128x128, "256^2 alone: 128 x 128");
        CHECK(gp__gemm_wgmma_pick_batch(256, 256, 1024, sms) == GP__WG_TMA_128x256, "1024 x 256^2: 2048 tiles, 128 x 256");
        CHECK(gp__gemm_wgmma_pick_batch(256, 256, 100, sms) == GP__WG_TMA_128x128, "100 x 256^2: 200 tiles, 128 x 128");
        CHECK(gp__gemm_wgmma_pick_batch(65536, 128, 4, sms) == GP__WG_TMA_128x128, "n <= 128, batched: 128 x 128");
        CHECK(gp__gemm_wgmma_pick(1000, 1000, sms) == GP__WG_TMA_128x128, "1000^2: 32 tiles: 128 x 128");
        CHECK(gp__gemm_wgmma_pick(65536, 128, sms) == GP__WG_TMA_128x128, "n <= 128: 128 x 128");
        CHECK(gp__gemm_wgmma_splits(8192, 64, 8192, 2, sms) == 4, "8192 x 64 x 8192 bf16: 64 tiles, 4 splits");
        CHECK(gp__gemm_wgmma_splits(8192, 64, 8192, 4, sms) == 4, "tf32: the same 4 (by the resident blocks)");
        CHECK(gp__gemm_wgmma_splits(300, 70, 8200, 4, sms) == 8, "3 tiles, 257 k tiles: capped at 8");
        CHECK(gp__gemm_wgmma_splits(130, 40, 4100, 2, sms) == 4, "2 tiles, 65 k tiles: 4 ranges of >= 16");
        CHECK(gp__gemm_wgmma_splits(4096, 4096, 4096, 2, sms) == 1, "enough tiles: no split");
        CHECK(gp__gemm_wgmma_splits(1000, 1000, 1000, 2, sms) == 1, "16 k tiles: too short to split");
        CHECK(gp__gemm_wgmma_splits(130, 40, 4032, 2, sms) == 1, "63 k tiles: no split");
        CHECK(gp__gemm_wgmma_splits(16384, 64, 65536, 2, sms) == 2, "128 tiles: 264 / 128 = 2 ranges");
    }
    printf("  tensor-core kernel choice on sm_90 (tile shape, K split): %s\n", tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_alloc_copy_errors(ctx);
    printf("  gp_matrix_alloc, gp_matrix_copy, refusals: %s\n", tc_fail == before ? "ok" : "FAILED");
    gp_ctx_destroy(ctx);
    return tc_finish("test_matrix");
}
