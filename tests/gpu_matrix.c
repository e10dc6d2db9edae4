/* gpu_matrix.c — GPU tests of the matrix views (tests/matrix_common.h), with shapes up to 70001 x 33 and 4097 x 3001.
 * Exit 77 without a GPU. GP_TEST_QUICK=1 (compute-sanitizer): no big shapes. */
#include "matrix_common.h"

int main(void)
{
    tc_require_gpu("gpu_matrix");
    tc_seed("gpu_matrix");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s;
    OK(gp_stream_create(ctx, &s));
    long before = tc_fail;
    mc_transpose_all(ctx, s, getenv("GP_TEST_QUICK") == NULL);
    printf("  transpose f32 f64 i32 u8, every layout pair, odd and large shapes, padded lds, poisoned dst: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    mc_alloc_copy_errors(ctx);
    printf("  gp_matrix_alloc (pitched), gp_matrix_copy host <-> device, refusals: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_matrix");
}
