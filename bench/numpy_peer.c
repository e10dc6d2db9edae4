/*
 * numpy_peer.c — NumPy as the peer of the CPU backend, timed in the same run: the inputs saved as .npy files in a
 * private temporary directory, one python3 process for a row loads them and then runs a NumPy statement once each
 * time it is asked (time.perf_counter around the call), alternately with ours (the bench's own call, the library's
 * timer), so that a noisy host's slow spells fall on both; the medians and mins of the rounds. NumPy runs its own
 * way (one thread for these calls); the CPU backend runs with the OpenMP team it is given (OMP_NUM_THREADS=1 for the
 * one-core comparison). No python3 or no NumPy: no peer (the row has none), said once.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* the runner, kept open for a row: argv[1] the statement, argv[2] K, argv[3..] NAME=PATH arrays to load; says "ready",
 * then for each line k on stdin runs the statement once on the (k mod K)-th of K copies of every array (as the bench
 * rotates its own inputs, out of cache) and prints the seconds it took (time.perf_counter around the call) */
static const char k_runner[] =
    "import sys, time\n"
    "import numpy as np\n"
    "g = {'np': np}\n"
    "K = int(sys.argv[2])\n"
    "rot = {}\n"
    "for a in sys.argv[3:]:\n"
    "    name, path = a.split('=', 1)\n"
    "    x = np.load(path)\n"
    "    rot[name] = [x] + [x.copy() for _ in range(K - 1)]\n"
    "stmt = compile(sys.argv[1], 'peer', 'exec')\n"
    "out = sys.stdout\n"
    "out.write('ready\\n'); out.flush()\n"
    "for line in sys.stdin:\n"
    "    k = int(line)\n"
    "    for name, xs in rot.items(): g[name] = xs[k % K]\n"
    "    t = time.perf_counter(); exec(stmt, g); t = time.perf_counter() - t\n"
    "    out.write('%.9f\\n' % t); out.flush()\n";

/* a running runner: its process and the socket both ways (no SIGPIPE where it dies: send's MSG_NOSIGNAL) */
typedef struct np_session {
    pid_t pid;
    int fd;
    FILE *in;
} np_session_t;

/* the runner started over the saved arrays (args: NAME=PATH) and ready; 0, or -1 */
static int session_open(np_session_t *ps, const char *stmt, int narrays, char (*args)[2300], int sets)
{
    int sv[2];
    char ssets[16], line[64];
    ps->pid = -1, ps->fd = -1, ps->in = NULL;
    snprintf(ssets, sizeof ssets, "%d", sets > 1 ? sets : 1);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return -1;
    if ((ps->pid = fork()) == 0) {
        dup2(sv[1], STDIN_FILENO), dup2(sv[1], STDOUT_FILENO);
        close(sv[0]), close(sv[1]);
        const char *argv[16];
        int a = 0;
        argv[a++] = "python3", argv[a++] = "-c", argv[a++] = k_runner, argv[a++] = stmt, argv[a++] = ssets;
        for (int i = 0; i < narrays; i++) argv[a++] = args[i];
        argv[a] = NULL;
        execvp("python3", (char *const *)argv);
        _exit(127);
    }
    close(sv[1]);
    ps->fd = sv[0];
    if (ps->pid < 0 || (ps->in = fdopen(sv[0], "r")) == NULL) return -1;
    return fgets(line, sizeof line, ps->in) && strcmp(line, "ready\n") == 0 ? 0 : -1;
}

/* one call of the statement on copy k: its milliseconds, or -1 */
static double session_run(np_session_t *ps, int k)
{
    char cmd[32], line[64];
    double sec = -1;
    const int len = snprintf(cmd, sizeof cmd, "%d\n", k);
    if (send(ps->fd, cmd, (size_t)len, MSG_NOSIGNAL) != len || !fgets(line, sizeof line, ps->in) ||
        sscanf(line, "%lf", &sec) != 1 || sec < 0)
        return -1;
    return 1e3 * sec;
}

static void session_close(np_session_t *ps)
{
    if (ps->fd >= 0) shutdown(ps->fd, SHUT_WR); /* the runner's stdin ends: it exits */
    if (ps->in) fclose(ps->in);
    else if (ps->fd >= 0) close(ps->fd);
    if (ps->pid > 0) {
        int status = 0;
        while (waitpid(ps->pid, &status, 0) < 0) {
        }
    }
}

static int numpy_time(gp_ctx_t *ctx, bench_fn fn, void *user, bench_stats_t *ours, const char *stmt, int narrays,
                      const char *const *names, const void *const *data, const gp_dtype_t *dtypes,
                      const size_t *counts, int warmup, int reps, int sets, double *median_ms, double *min_ms)
{
    *median_ms = *min_ms = 0;
    if (!bench_numpy_version() || narrays > 8) return -1;
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/gpuprim-numpy-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(dir)) return -1;
    char paths[8][1100], args[8][2300];
    int rc = 0, made = 0;
    for (int i = 0; i < narrays && rc == 0; i++, made++) {
        snprintf(paths[i], sizeof paths[i], "%.1024s/%.64s.npy", dir, names[i]);
        snprintf(args[i], sizeof args[i], "%.64s=%.1099s", names[i], paths[i]);
        const size_t shape[1] = {counts[i]};
        if (gp_npy_save(paths[i], dtypes[i], 1, shape, 0, data[i]) != GP_OK) rc = -1;
    }
    np_session_t ps = {-1, -1, NULL};
    if (rc == 0) rc = session_open(&ps, stmt, narrays, args, sets);
    for (int i = 0; i < made; i++) unlink(paths[i]); /* the runner holds its copies */
    rmdir(dir);
    const int n = reps > 0 ? reps : 1;
    double *tn = calloc((size_t)n, sizeof *tn), *to = calloc((size_t)n, sizeof *to);
    gp_timer_t *t = NULL;
    if (!tn || !to || (fn && gp_timer_create(ctx, &t) != GP_OK)) rc = rc ? rc : -2;
    for (int r = 0; r < warmup + n && rc == 0; r++)
        for (int k = 0; k < 2 && rc == 0; k++) { /* ours first in even rounds, NumPy first in odd ones */
            const int numpy_now = (k == 0) == (r % 2 == 1), at = r - warmup;
            if (numpy_now) {
                const double ms = session_run(&ps, r);
                if (ms < 0) rc = -1;
                else if (at >= 0) tn[at] = ms;
            } else if (fn) {
                double ms = 0;
                if (gp_timer_start(t, NULL) != GP_OK || fn(user, r, NULL) != GP_OK || gp_timer_stop(t, NULL) != GP_OK ||
                    gp_timer_elapsed_ms(t, &ms) != GP_OK)
                    rc = -2;
                else if (at >= 0) to[at] = ms;
            }
        }
    session_close(&ps);
    gp_timer_destroy(t);
    if (rc == 0) {
        bench_stats_t sn;
        bench_stats_of(tn, n, &sn);
        *median_ms = sn.median_ms, *min_ms = sn.min_ms;
        if (fn) bench_stats_of(to, n, ours);
    }
    free(tn), free(to);
    return rc;
}

int bench_numpy_time(gp_ctx_t *ctx, bench_fn fn, void *user, bench_stats_t *ours, const char *stmt, int narrays,
                     const char *const *names, const void *const *data, const gp_dtype_t *dtypes, const size_t *counts,
                     int warmup, int reps, double *median_ms, double *min_ms)
{
    return numpy_time(ctx, fn, user, ours, stmt, narrays, names, data, dtypes, counts, warmup, reps, 1, median_ms,
                      min_ms);
}

double bench_numpy_peer1(gp_ctx_t *ctx, bench_fn fn, void *user, bench_stats_t *ours, const char *stmt,
                         const char *what, const void *x, gp_dtype_t dtype, size_t n, int sets, int warmup, int reps,
                         char *name, size_t cap)
{
    const char *nm[1] = {"x"};
    const void *dp[1] = {x};
    const gp_dtype_t dt[1] = {dtype};
    const size_t cnt[1] = {n};
    double med = 0, mn = 0;
    name[0] = 0;
    if (!stmt) return 0;
    const int rc = numpy_time(ctx, fn, user, ours, stmt, 1, nm, dp, dt, cnt, warmup, reps, sets, &med, &mn);
    if (rc != 0) return rc == -2 ? -1 : 0;
    snprintf(name, cap, "NumPy %s %s", bench_numpy_version(), what);
    return med;
}

void bench_numpy_meta(report_t *r)
{
    if (bench_numpy_version())
        report_meta(r, "peer", "NumPy %s (python3, one thread) on the same arrays, the nearest call each row, "
                    "alternately with ours",
                    bench_numpy_version());
}
