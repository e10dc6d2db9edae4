/*
 * gpu_group.c — GPU tests of the sharded primitives: emulated groups of 1, 2 and 3 members on GPU 0 (every dtype,
 * op and shard layout against one GPU context's gp_reduce, bit for bit; three tree levels), the NCCL groups this
 * machine can form (gp_group_create_local over every GPU; gp_group_create_rank with one rank), and the CPU
 * backend's bits for the same data. The two-process test is gpu_group_mp. Exit 77 without a GPU.
 * GP_TEST_QUICK=1 (compute-sanitizer): no three-level case. GP_TEST_FILTER=emulated: the emulated groups alone (no
 * NCCL: every kernel of ours, nothing of NCCL's, for the sanitizer); =nccl: the NCCL groups alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "group_common.h"

static void run_suite(gp_group_t *g, gp_ctx_t *ref, const char *what, int deep)
{
    gc_run_suite(g, ref, what);
    if (deep) gc_test_reduce_deep(g, ref, 2 * 4096 + 37, what);
}

int main(void)
{
    tc_require_gpu("gpu_group");
    tc_seed("gpu_group");
    const int quick = getenv("GP_TEST_QUICK") != NULL;
    gc_quick = quick;
    const char *only = getenv("GP_TEST_FILTER");
    const int emulated = !only || strcmp(only, "nccl") != 0, nccl = !only || strcmp(only, "emulated") != 0;
    gp_ctx_t *ref = NULL;
    REQUIRE(gp_ctx_create(&ref, 0) == GP_OK, "GPU context");
    const int sizes[] = {1, 2, 3};
    for (size_t s = 0; emulated && s < sizeof sizes / sizeof sizes[0]; s++) {
        gp_group_t *g = NULL;
        REQUIRE(gp_group_create_emulated(&g, sizes[s], 0) == GP_OK, "emulated group");
        char what[64];
        snprintf(what, sizeof what, "gpu0 emulated x%d", sizes[s]);
        run_suite(g, ref, what, !quick && sizes[s] == 3);
        gp_group_destroy(g);
    }
    gp_ctx_t *cpu = NULL;
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    /* The GPU group against the CPU backend: the same bits (the contract the host combine relies on). */
    if (emulated) {
        gp_group_t *g = NULL;
        REQUIRE(gp_group_create_emulated(&g, 3, 0) == GP_OK, "emulated group");
        const size_t n = 7 * 16384 + 11;
        float *xh = malloc(n * 4);
        gc_fill(xh, GP_F32, n);
        gc_arr_t a;
        gc_upload(g, xh, n * 4, &a);
        for (int op = 0; op < GP_REDUCE_OP_COUNT; op++) {
            if (gp_reduce_acc_dtype((gp_reduce_op_t)op, GP_F32) == GP_DTYPE_COUNT) continue;
            gp_reduce_result_t want;
            OK(gp_reduce_sync(cpu, (gp_reduce_op_t)op, GP_F32, n, xh, &want));
            size_t cut[4];
            gc_cuts(g, GP_F32, n, 1, cut);
            gc_check_reduce(g, (gp_reduce_op_t)op, GP_F32, GP_DTYPE_COUNT, a.p, n, cut, &want, 0, "gpu group vs cpu");
        }
        gp_mem_free(gp_group_ctx(g, 0), &a.buf);
        free(xh);
        gc_test_copies(g, cpu, "gpu0 emulated x3");
        gp_group_destroy(g);
    }
    /* NCCL: every GPU of this machine, one rank each; and the rank path with one rank. */
    int ndev = 0;
    gp_device_count(&ndev);
    gp_group_t *g = NULL;
    gp_status_t st = nccl ? gp_group_create_local(&g, 0, NULL) : GP_OK;
    if (!nccl) {
        printf("  NCCL groups: not run (GP_TEST_FILTER=%s)\n", only);
    } else if (st == GP_ERR_UNSUPPORTED) {
        printf("  NCCL groups: not run: %s\n", gp_last_error());
    } else {
        OK(st);
        if (g) {
            CHECK(gp_group_size(g) == ndev && strcmp(gp_group_transport(g), "nccl") == 0, "local group of %d", ndev);
            char what[64];
            snprintf(what, sizeof what, "nccl local x%d", ndev);
            gc_test_copies(g, cpu, what);
            gc_test_scan(g, cpu, what); /* shards on each GPU against the CPU backend: the same bits */
            gc_test_segmented(g, cpu, what);
            gc_test_sort(g, cpu, what);
            gc_test_split(g, what);
            gc_test_errors(g, what);
            if (ndev == 1) { /* one GPU: the views into one array work too */
                gc_test_reduce_all(g, ref, what);
                gc_test_ops(g, ref, what);
            }
            gp_group_destroy(g);
        }
        gp_group_id_t id;
        OK(gp_group_unique_id(&id));
        g = NULL;
        OK(gp_group_create_rank(&g, &id, 1, 0, 0));
        if (g) {
            CHECK(gp_group_size(g) == 1 && gp_group_rank(g, 0) == 0, "rank group");
            gc_test_reduce_all(g, ref, "nccl rank 0 of 1");
            gc_test_ops(g, ref, "nccl rank 0 of 1");
            gc_test_scan(g, ref, "nccl rank 0 of 1");
            gp_group_destroy(g);
        }
        CHECK_ST(gp_group_create_rank(&g, &id, 2, 2, 0), GP_ERR_INVALID_ARG);
        int devs[2] = {0, 0};
        CHECK_ST(gp_group_create_local(&g, 2, devs), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "listed twice") != NULL, "names the duplicate: %s", gp_last_error());
        devs[1] = ndev;
        CHECK_ST(gp_group_create_local(&g, 2, devs), GP_ERR_NO_DEVICE);
    }
    gp_ctx_destroy(cpu);
    gp_ctx_destroy(ref);
    return tc_finish("gpu_group");
}
