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
    printf("  transpose f32 f64 i32 u8, every layout pair, odd shapes, padded lds, poisoned dst: %s\n",
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
           "on NaN c, TF32 rounding, batched = one by one, refusals: %s\n",
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
    mc_alloc_copy_errors(ctx);
    printf("  gp_matrix_alloc, gp_matrix_copy, refusals: %s\n", tc_fail == before ? "ok" : "FAILED");
    gp_ctx_destroy(ctx);
    return tc_finish("test_matrix");
}
