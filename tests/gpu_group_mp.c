/*
 * gpu_group_mp.c — the multi-process path: two processes, one GPU each, join one group through
 * gp_group_create_rank (the id made by this process and passed on the command line, as a caller would pass it
 * through MPI or a file), and reduce, histogram, scan, reduce by segments and sort their shards; each checks the
 * group's bits against the CPU backend over the whole array (same seed, same data in both). Then twice more as a
 * launcher would start the processes: nothing on the command line, only the environment (GPUPRIM_RANK/SIZE/
 * LOCAL_RANK and NCCL_COMM_ID; then torchrun's RANK/WORLD_SIZE/LOCAL_RANK and MASTER_ADDR/MASTER_PORT), each joining
 * through gp_group_create_from_env. Needs two GPUs (NCCL refuses two ranks on one GPU): exit 77 with fewer, or without NCCL.
 */
#define _POSIX_C_SOURCE 200809L
#include "group_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* what every rank checks against the CPU backend over the whole array (each rank the same calls in the same order);
 * the group is destroyed */
static int rank_checks(gp_group_t *g, const char *what)
{
    gp_ctx_t *cpu = NULL;
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    gc_test_copies(g, cpu, what);
    gc_test_scan(g, cpu, what);
    gc_test_segmented(g, cpu, what);
    gc_test_sort(g, cpu, what);
    gp_ctx_destroy(cpu);
    gp_group_destroy(g);
    return tc_finish(what);
}

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
    char what[32];
    snprintf(what, sizeof what, "process rank %d of 2", rank);
    return rank_checks(g, what);
}

/* a rank started with the environment alone (GP_MP_SEED and GP_MP_SOURCE are this test's own) */
static int env_child(void)
{
    tc_state = strtoull(getenv("GP_MP_SEED"), NULL, 0);
    gp_group_env_t e;
    REQUIRE(gp_group_env(&e) == GP_OK, "gp_group_env");
    CHECK(strcmp(e.source, getenv("GP_MP_SOURCE")) == 0 && e.size == 2, "source %s, size %d", e.source, e.size);
    gp_group_t *g = NULL;
    const gp_status_t st = gp_group_create_from_env(&g);
    REQUIRE(st == GP_OK, "rank %d: gp_group_create_from_env: %s", e.rank, gp_status_string(st));
    CHECK(gp_group_size(g) == 2 && gp_group_local_count(g) == 1 && gp_group_rank(g, 0) == e.rank &&
              gp_ctx_device(gp_group_ctx(g, 0)) == e.local_rank,
          "rank %d: size %d, rank %d, GPU %d", e.rank, gp_group_size(g), gp_group_rank(g, 0),
          gp_ctx_device(gp_group_ctx(g, 0)));
    CHECK(getenv("NCCL_COMM_ID") == NULL || strcmp(e.source, "GPUPRIM") == 0, "NCCL_COMM_ID left set");
    char what[64];
    snprintf(what, sizeof what, "%s rank %d of 2", e.source, e.rank);
    return rank_checks(g, what);
}

/* a TCP port free on this host just now */
static int free_port(void)
{
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0) close(s);
    return port;
}

/* two rank processes of this test: family < 0 with the group's id on their command line; else with nothing there
 * and the launcher variables of family (0: GPUPRIM_* and NCCL_COMM_ID, 1: torchrun's and MASTER_ADDR / MASTER_PORT) */
static void run_ranks(const char *argv0, int family, const char *hex, const char *seed)
{
    static const char *const how[] = {"id on the command line", "GPUPRIM variables", "torchrun variables"};
    char ps[16] = "", addr[64] = "";
    if (family >= 0) {
        const int port = free_port();
        REQUIRE(port > 0, "a free port");
        snprintf(ps, sizeof ps, "%d", port);
        snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    }
    pid_t pid[2];
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        REQUIRE(pid[r] >= 0, "fork");
        if (pid[r] != 0) continue;
        char rs[8];
        snprintf(rs, sizeof rs, "%d", r);
        if (family < 0) {
            execl("/proc/self/exe", argv0, rs, hex, seed, (char *)NULL);
            _exit(127);
        }
        setenv("GP_MP_SEED", seed, 1);
        if (family == 0) {
            setenv("GP_MP_SOURCE", "GPUPRIM", 1);
            setenv("GPUPRIM_RANK", rs, 1), setenv("GPUPRIM_SIZE", "2", 1), setenv("GPUPRIM_LOCAL_RANK", rs, 1);
            setenv("NCCL_COMM_ID", addr, 1);
        } else {
            setenv("GP_MP_SOURCE", "torchrun", 1);
            setenv("RANK", rs, 1), setenv("WORLD_SIZE", "2", 1), setenv("LOCAL_RANK", rs, 1);
            setenv("MASTER_ADDR", "127.0.0.1", 1), setenv("MASTER_PORT", ps, 1);
        }
        execl("/proc/self/exe", argv0, "env", (char *)NULL);
        _exit(127);
    }
    for (int r = 0; r < 2; r++) {
        int ws = 0;
        waitpid(pid[r], &ws, 0);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "%s: rank %d's process exited with %d", how[family + 1], r,
              WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 4) return child(atoi(argv[1]), argv[2], argv[3]);
    if (argc == 2 && strcmp(argv[1], "env") == 0) return env_child();
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
    for (int family = -1; family < 2; family++) run_ranks(argv[0], family, hex, seed);
    return tc_finish("gpu_group_mp");
}
