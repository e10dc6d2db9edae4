/* test_matrix.c — CPU tests of the matrix views (tests/matrix_common.h). */
#include "matrix_common.h"

int main(void)
{
    tc_seed("test_matrix");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    long before = tc_fail;
    mc_transpose_all(ctx, NULL, 0);
    printf("  transpose f32 f64 i32 u8, every layout pair, odd shapes, padded lds, poisoned dst: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_add_all(ctx, NULL, 0);
    printf("  add f32 f64 i32 u8, every layout triple, factors 0 (operand NaN), in place, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_gemm_all(ctx, NULL, 0);
    printf("  gemm f32 f64, ops NN NT TN TT x every layout triple, m n k 0 1 odd, beta 0 on NaN c, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_alloc_copy_errors(ctx);
    printf("  gp_matrix_alloc, gp_matrix_copy, refusals: %s\n", tc_fail == before ? "ok" : "FAILED");
    gp_ctx_destroy(ctx);
    return tc_finish("test_matrix");
}
