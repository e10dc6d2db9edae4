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

/* the runner: argv[1] the statement, argv[2] reps, argv[3] warm-up, argv[4..] NAME=PATH arrays to load */
static const char k_runner[] =
    "import sys, time, statistics\n"
    "import numpy as np\n"
    "g = {'np': np}\n"
    "for a in sys.argv[4:]:\n"
    "    name, path = a.split('=', 1)\n"
    "    g[name] = np.load(path)\n"
    "stmt = compile(sys.argv[1], 'peer', 'exec')\n"
    "for _ in range(int(sys.argv[3])): exec(stmt, g)\n"
    "ts = []\n"
    "for _ in range(int(sys.argv[2])):\n"
    "    t = time.perf_counter(); exec(stmt, g); ts.append(time.perf_counter() - t)\n"
    "print('%.6f %.6f' % (1e3 * statistics.median(ts), 1e3 * min(ts)))\n";

int bench_numpy_time(const char *stmt, int narrays, const char *const *names, const void *const *data,
                     const gp_dtype_t *dtypes, const size_t *counts, int warmup, int reps, double *median_ms,
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
    char sreps[16], swarm[16];
    snprintf(sreps, sizeof sreps, "%d", reps > 0 ? reps : 1);
    snprintf(swarm, sizeof swarm, "%d", warmup > 0 ? warmup : 0);
    int fds[2] = {-1, -1};
    if (rc == 0 && pipe(fds) != 0) rc = -1;
    pid_t pid = -1;
    if (rc == 0 && (pid = fork()) == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]), close(fds[1]);
        const char *argv[16];
        int a = 0;
        argv[a++] = "python3", argv[a++] = "-c", argv[a++] = k_runner, argv[a++] = stmt, argv[a++] = sreps;
        argv[a++] = swarm;
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
