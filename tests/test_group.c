/*
 * test_group.c — CPU tests of the sharded primitives (src/group) on emulated groups of 1, 2, 3 and 5 members of the
 * CPU backend: reductions with the bits of one context for every dtype, op and shard layout (and more than 4096
 * tiles), scans and segmented reductions with one context's bits, histograms, dots, vector ops, split and scatter,
 * refusals. NCCL groups (gpu_group, gpu_group_mp) need GPUs.
 * Run: ctest -R test_group.
 */
#define _POSIX_C_SOURCE 200809L
#include "group_common.h"

int main(void)
{
    tc_seed("test_group");
    gp_ctx_t *ref = NULL;
    REQUIRE(gp_ctx_create(&ref, GP_DEVICE_CPU) == GP_OK, "CPU context");
    const int sizes[] = {1, 2, 3, 5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        gp_group_t *g = NULL;
        REQUIRE(gp_group_create_emulated(&g, sizes[s], GP_DEVICE_CPU) == GP_OK, "emulated group");
        CHECK(gp_group_size(g) == sizes[s] && gp_group_local_count(g) == sizes[s], "size");
        CHECK(strcmp(gp_group_transport(g), "emulated") == 0, "transport %s", gp_group_transport(g));
        char what[64];
        snprintf(what, sizeof what, "cpu x%d", sizes[s]);
        gc_run_suite(g, ref, what);
        if (sizes[s] == 2) gc_test_copies(g, ref, what);
        if (sizes[s] == 3) gc_test_reduce_deep(g, ref, 4100, what);
        gp_group_destroy(g);
    }
    /* creation refusals */
    gp_group_t *g = (gp_group_t *)&g;
    CHECK_ST(gp_group_create_emulated(&g, 0, GP_DEVICE_CPU), GP_ERR_INVALID_ARG);
    CHECK(g == NULL, "a refused create leaves NULL");
    CHECK_ST(gp_group_create_emulated(NULL, 2, GP_DEVICE_CPU), GP_ERR_INVALID_ARG);
    CHECK(gp_group_size(NULL) == 0 && gp_group_ctx(NULL, 0) == NULL && gp_group_rank(NULL, 0) == -1, "NULL group");
    gp_group_destroy(NULL);
    gp_ctx_destroy(ref);
    return tc_finish("test_group");
}
