/*
 * gpu_group_mp.c — the multi-process path: two processes, one GPU each, join one group through
 * gp_group_create_rank (the id made by this process and passed on the command line, as a caller would pass it
 * through MPI or a file), and reduce and histogram their shards; each checks the group's bits against the CPU
 * backend over the whole array (same seed, same data in both). Needs two GPUs (NCCL refuses two ranks on one GPU):
 * exit 77 with fewer, or without NCCL.
 */
#define _POSIX_C_SOURCE 200809L
#include "group_common.h"

#include <sys/wait.h>
#include <unistd.h>

static int child(int rank, const char *hex, const char *seed)
{
    tc_state = strtoull(seed, NULL, 0);
    gp_group_id_t id;
    for (int i = 0; i < 128; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        id.bytes[i] = (unsigned char)v;
    }
    gp_group_t *g = NULL;
    gp_status_t st = gp_group_create_rank(&g, &id, 2, rank, rank);
    REQUIRE(st == GP_OK, "rank %d: gp_group_create_rank: %s", rank, gp_status_string(st));
    CHECK(gp_group_size(g) == 2 && gp_group_local_count(g) == 1 && gp_group_rank(g, 0) == rank, "rank %d", rank);
    gp_ctx_t *cpu = NULL;
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    char what[32];
    snprintf(what, sizeof what, "process rank %d of 2", rank);
    gc_test_copies(g, cpu, what);
    gc_test_scan(g, cpu, what);
    gc_test_segmented(g, cpu, what);
    gp_ctx_destroy(cpu);
    gp_group_destroy(g);
    return tc_finish(what);
}

int main(int argc, char **argv)
{
    if (argc == 4) return child(atoi(argv[1]), argv[2], argv[3]);
    tc_require_gpu("gpu_group_mp");
    int ndev = 0;
    gp_device_count(&ndev);
    if (ndev < 2) {
        printf("gpu_group_mp: SKIPPED: %d GPU; two processes need a GPU each\n", ndev);
        return 77;
    }
    gp_group_id_t id;
    gp_status_t st = gp_group_unique_id(&id);
    if (st == GP_ERR_UNSUPPORTED) {
        printf("gpu_group_mp: SKIPPED: %s\n", gp_last_error());
        return 77;
    }
    REQUIRE(st == GP_OK, "gp_group_unique_id");
    tc_seed("gpu_group_mp");
    char hex[257], seed[32];
    for (int i = 0; i < 128; i++) snprintf(hex + 2 * i, 3, "%02x", id.bytes[i]);
    snprintf(seed, sizeof seed, "0x%llx", (unsigned long long)tc_state);
    pid_t pid[2];
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        REQUIRE(pid[r] >= 0, "fork");
        if (pid[r] == 0) {
            char rs[8];
            snprintf(rs, sizeof rs, "%d", r);
            execl("/proc/self/exe", argv[0], rs, hex, seed, (char *)NULL);
            _exit(127);
        }
    }
    for (int r = 0; r < 2; r++) {
        int ws = 0;
        waitpid(pid[r], &ws, 0);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "rank %d's process exited with %d", r,
              WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    }
    return tc_finish("gpu_group_mp");
}
