/*
 * numpy_peer.c — NumPy as the peer of the CPU backend, timed in the same run: the inputs saved as .npy files in a
 * private temporary directory, one python3 process loads them and times a NumPy statement (warm-up, then the median
 * and min of reps, time.perf_counter around each call), printing the two in milliseconds. NumPy runs its own way
 * (one thread for these calls); the CPU backend runs with the OpenMP team it is given (OMP_NUM_THREADS=1 for the
 * one-core comparison). No python3 or no NumPy: no peer (the row has none), said once.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_state; /* 0 unknown, 1 NumPy answers, -1 it does not */
static char g_version[32];

const char *bench_numpy_version(void)
{
    if (g_state == 0) {
        FILE *p = popen("python3 -c 'import numpy; print(numpy.__version__)' 2>/dev/null", "r");
        g_state = -1;
        if (p) {
            if (fgets(g_version, sizeof g_version, p) && g_version[0] >= '0' && g_version[0] <= '9') {
                g_version[strcspn(g_version, "\n")] = 0;
                g_state = 1;
            }
            pclose(p);
        }
        if (g_state < 0) fprintf(stderr, "note: no python3 with NumPy here: the CPU rows have no NumPy peer\n");
    }
    return g_state > 0 ? g_version : NULL;
}

/* the runner: argv[1] the statement, argv[2] reps, argv[3] warm-up, argv[4] K, argv[5..] NAME=PATH arrays to load;
 * K > 1: each call takes the next of K copies of every array, as the bench rotates its own inputs (out of cache) */
static const char k_runner[] =
    "import sys, time, statistics\n"
    "import numpy as np\n"
    "g = {'np': np}\n"
    "K = int(sys.argv[4])\n"
    "rot = {}\n"
    "for a in sys.argv[5:]:\n"
    "    name, path = a.split('=', 1)\n"
    "    x = np.load(path)\n"
    "    rot[name] = [x] + [x.copy() for _ in range(K - 1)]\n"
    "stmt = compile(sys.argv[1], 'peer', 'exec')\n"
    "def run(k):\n"
    "    for name, xs in rot.items(): g[name] = xs[k % K]\n"
    "    t = time.perf_counter(); exec(stmt, g); return time.perf_counter() - t\n"
    "for k in range(int(sys.argv[3])): run(k)\n"
    "ts = [run(k) for k in range(int(sys.argv[2]))]\n"
    "print('%.6f %.6f' % (1e3 * statistics.median(ts), 1e3 * min(ts)))\n";

static int numpy_time(const char *stmt, int narrays, const char *const *names, const void *const *data,
                      const gp_dtype_t *dtypes, const size_t *counts, int warmup, int reps, int sets, double *median_ms,
                      double *min_ms)
{
    *median_ms = *min_ms = 0;
    if (!bench_numpy_version() || narrays > 8) return -1;
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/gpuprim-numpy-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(dir)) return -1;
    char paths[8][1100], args[8][1200 + 1100];
    int rc = 0, made = 0;
    for (int i = 0; i < narrays && rc == 0; i++, made++) {
        snprintf(paths[i], sizeof paths[i], "%.1024s/%.64s.npy", dir, names[i]);
        snprintf(args[i], sizeof args[i], "%.64s=%.1099s", names[i], paths[i]);
        const size_t shape[1] = {counts[i]};
        if (gp_npy_save(paths[i], dtypes[i], 1, shape, 0, data[i]) != GP_OK) rc = -1;
    }
    char sreps[16], swarm[16], ssets[16];
    snprintf(sreps, sizeof sreps, "%d", reps > 0 ? reps : 1);
    snprintf(swarm, sizeof swarm, "%d", warmup > 0 ? warmup : 0);
    snprintf(ssets, sizeof ssets, "%d", sets > 1 ? sets : 1);
    int fds[2] = {-1, -1};
    if (rc == 0 && pipe(fds) != 0) rc = -1;
    pid_t pid = -1;
    if (rc == 0 && (pid = fork()) == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]), close(fds[1]);
        const char *argv[16];
        int a = 0;
        argv[a++] = "python3", argv[a++] = "-c", argv[a++] = k_runner, argv[a++] = stmt, argv[a++] = sreps;
        argv[a++] = swarm, argv[a++] = ssets;
        for (int i = 0; i < narrays; i++) argv[a++] = args[i];
        argv[a] = NULL;
        execvp("python3", (char *const *)argv);
        _exit(127);
    }
    if (fds[1] >= 0) close(fds[1]);
    char line[128] = "";
    if (pid > 0) {
        FILE *f = fdopen(fds[0], "r");
        if (!f || !fgets(line, sizeof line, f) || sscanf(line, "%lf %lf", median_ms, min_ms) != 2) rc = -1;
        if (f) fclose(f);
        else close(fds[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) rc = -1;
    } else if (fds[0] >= 0)
        close(fds[0]), rc = -1;
    for (int i = 0; i < made; i++) unlink(paths[i]);
    rmdir(dir);
    if (rc != 0) *median_ms = *min_ms = 0;
    return rc;
}

int bench_numpy_time(const char *stmt, int narrays, const char *const *names, const void *const *data,
                     const gp_dtype_t *dtypes, const size_t *counts, int warmup, int reps, double *median_ms,
                     double *min_ms)
{
    return numpy_time(stmt, narrays, names, data, dtypes, counts, warmup, reps, 1, median_ms, min_ms);
}

double bench_numpy_peer1(const char *stmt, const char *what, const void *x, gp_dtype_t dtype, size_t n, int sets,
                         int warmup, int reps, char *name, size_t cap)
{
    const char *nm[1] = {"x"};
    const void *dp[1] = {x};
    const gp_dtype_t dt[1] = {dtype};
    const size_t cnt[1] = {n};
    double med = 0, mn = 0;
    name[0] = 0;
    if (!stmt || numpy_time(stmt, 1, nm, dp, dt, cnt, warmup, reps, sets, &med, &mn) != 0) return 0;
    snprintf(name, cap, "NumPy %s %s", bench_numpy_version(), what);
    return med;
}

void bench_numpy_meta(report_t *r)
{
    if (bench_numpy_version())
        report_meta(r, "peer", "NumPy %s (python3, one thread) on the same arrays, the nearest call each row",
                    bench_numpy_version());
}
