/*
 * test_group.c — CPU tests of the sharded primitives (src/group) on emulated groups of 1, 2, 3 and 5 members of the
 * CPU backend: reductions with the bits of one context for every dtype, op and shard layout (and more than 4096
 * tiles), scans and segmented reductions with one context's bits, histograms, dots, vector ops, split and scatter,
 * refusals; the launchers' variables (gp_group_env): each family, their order, the refusals naming the variable.
 * NCCL groups (gpu_group, gpu_group_mp) need GPUs.
 * Run: ctest -R test_group.
 */
#define _POSIX_C_SOURCE 200809L
#include "group_common.h"

static const char *const k_launch_vars[] = {
    "GPUPRIM_RANK", "GPUPRIM_SIZE", "GPUPRIM_LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "SLURM_PROCID",
    "SLURM_NTASKS", "SLURM_LOCALID", "NCCL_COMM_ID", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_USE_AGENT_STORE",
    "GPUPRIM_DEVICE", NULL};

static void clear_launch_vars(void)
{
    for (int i = 0; k_launch_vars[i]; i++) unsetenv(k_launch_vars[i]);
}

/* sets "NAME=VALUE ..." (after clearing every launcher variable) and reads them back */
static gp_status_t env_with(const char *assignments, gp_group_env_t *e)
{
    clear_launch_vars();
    char buf[512];
    snprintf(buf, sizeof buf, "%s", assignments);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(t, '=');
        *eq = 0;
        setenv(t, eq + 1, 1);
    }
    memset(e, 0x5a, sizeof *e);
    return gp_group_env(e);
}

static void test_env(void)
{
    gp_group_env_t e;
    static const struct {
        const char *set, *source;
        int rank, size, local;
    } good[] = {
        {"GPUPRIM_RANK=1 GPUPRIM_SIZE=2", "GPUPRIM", 1, 2, 1}, /* the local rank defaults to the rank */
        {"GPUPRIM_RANK=3 GPUPRIM_SIZE=4 GPUPRIM_LOCAL_RANK=1", "GPUPRIM", 3, 4, 1},
        {"RANK=5 WORLD_SIZE=8 LOCAL_RANK=1", "torchrun", 5, 8, 1},
        {"OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=3 OMPI_COMM_WORLD_LOCAL_RANK=0", "Open MPI", 2, 3, 0},
        {"PMI_RANK=0 PMI_SIZE=1 MPI_LOCALRANKID=0", "PMI", 0, 1, 0},
        {"SLURM_PROCID=7 SLURM_NTASKS=16 SLURM_LOCALID=3", "Slurm", 7, 16, 3},
        /* the order: the first family present wins (torchrun under srun: torchrun's) */
        {"SLURM_PROCID=1 SLURM_NTASKS=2 RANK=6 WORLD_SIZE=8 LOCAL_RANK=2", "torchrun", 6, 8, 2},
        {"GPUPRIM_RANK=0 GPUPRIM_SIZE=1 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2", "GPUPRIM", 0, 1, 0},
        {"PMI_RANK=1 PMI_SIZE=2 SLURM_PROCID=0 SLURM_NTASKS=1", "PMI", 1, 2, 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        OK(env_with(good[i].set, &e));
        CHECK(e.rank == good[i].rank && e.size == good[i].size && e.local_rank == good[i].local &&
                  strcmp(e.source, good[i].source) == 0,
              "%s: rank %d size %d local %d from %s", good[i].set, e.rank, e.size, e.local_rank, e.source);
    }
    static const struct {
        const char *set, *named; /* the message names this */
    } bad[] = {
        {"", "GPUPRIM_RANK"},
        {"GPUPRIM_RANK=0", "GPUPRIM_SIZE"},
        {"WORLD_SIZE=2", "RANK"},
        {"RANK=2 WORLD_SIZE=2", "ranks run 0 .. 1"},
        {"RANK=x WORLD_SIZE=2", "RANK is 'x'"},
        {"RANK=-1 WORLD_SIZE=2", "RANK is '-1'"},
        {"RANK=1 WORLD_SIZE=2z", "WORLD_SIZE is '2z'"},
        {"RANK=0 WORLD_SIZE=0", "WORLD_SIZE is 0"},
        {"RANK=0 WORLD_SIZE=99999999999", "WORLD_SIZE is '99999999999'"},
        {"SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_LOCALID=2", "SLURM_LOCALID is 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_ST(env_with(bad[i].set, &e), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), bad[i].named) != NULL, "'%s': the message names %s: %s", bad[i].set,
              bad[i].named, gp_last_error());
    }
    CHECK_ST(gp_group_env(NULL), GP_ERR_INVALID_ARG);
    /* creation: the variables' and the meeting point's refusals come before any GPU is looked for */
    gp_group_t *g = (gp_group_t *)&g;
    CHECK_ST(env_with("", &e), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_group_create_from_env(&g), GP_ERR_INVALID_ARG);
    CHECK(g == NULL, "a refused create leaves NULL");
    (void)env_with("GPUPRIM_RANK=1 GPUPRIM_SIZE=2", &e);
    CHECK_ST(gp_group_create_from_env(&g), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "NCCL_COMM_ID") && strstr(gp_last_error(), "MASTER_ADDR"), "%s", gp_last_error());
    (void)env_with("RANK=1 WORLD_SIZE=2 MASTER_ADDR=localhost", &e);
    CHECK_ST(gp_group_create_from_env(&g), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "MASTER_PORT") != NULL, "%s", gp_last_error());
    (void)env_with("RANK=1 WORLD_SIZE=2 MASTER_ADDR=localhost MASTER_PORT=65535 TORCHELASTIC_USE_AGENT_STORE=True", &e);
    CHECK_ST(gp_group_create_from_env(&g), GP_ERR_INVALID_ARG); /* one port up is past 65535 */
    CHECK(strstr(gp_last_error(), "65536") != NULL, "%s", gp_last_error());
    CHECK(getenv("NCCL_COMM_ID") == NULL, "NCCL_COMM_ID left set");
    int ngpu = 0;
    if (gp_device_count(&ngpu) != GP_OK || ngpu == 0) { /* no GPU: refused as such, once the variables are good */
        (void)env_with("GPUPRIM_RANK=0 GPUPRIM_SIZE=1", &e);
        const gp_status_t st = gp_group_create_from_env(&g);
        CHECK(st != GP_OK && g == NULL, "no GPU: %s", gp_status_string(st));
    }
    CHECK_ST(gp_group_create_from_env(NULL), GP_ERR_INVALID_ARG);
    clear_launch_vars();
}

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
    test_env();
    gp_ctx_destroy(ref);
    return tc_finish("test_group");
}
