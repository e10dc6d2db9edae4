/* device.c — which context a command runs on and how its reports name it (support.h): contexts opened as the
 * options ask, the CPU-fallback note, the device description and date lines, the groups --devices names. */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *gpu_absent_reason(gp_status_t st, char *buf, size_t len)
{
    if (st == GP_ERR_NO_DRIVER || st == GP_ERR_NO_DEVICE)
        snprintf(buf, len, "no NVIDIA GPU/driver found");
    else
        snprintf(buf, len, "GPU 0 failed (%s: %s)", gp_status_string(st), gp_last_error());
    return buf;
}


void note_cpu(const char *who, const char *why, const char *doing)
{
    static atomic_int shown; /* once per process, whichever thread comes first */
    if (atomic_fetch_add(&shown, 1) || who == NULL) return;
    fprintf(stderr, "%s: %s — %s\n", who, why, doing);
}

/* Why a GP_DEVICE_DEFAULT context is on the CPU backend, in one short line. */
static void fallback_why(const gp_ctx_t *ctx, char *why_cpu, size_t why_len)
{
    int n = 0;
    const gp_status_t dc = gp_device_count(&n);
    if (dc == GP_ERR_NO_DRIVER || dc == GP_ERR_NO_DEVICE)
        snprintf(why_cpu, why_len, "no NVIDIA GPU/driver found");
    else
        snprintf(why_cpu, why_len, "GPU 0 failed (%s)", gp_ctx_fallback_reason(ctx));
}

gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len)
{
    if (why_cpu && why_len) why_cpu[0] = 0;
    gp_status_t st = gp_ctx_create(ctx, device); /* DEVICE_DEFAULT is the library's GP_DEVICE_DEFAULT */
    if (st == GP_OK && device == DEVICE_DEFAULT && why_cpu && gp_ctx_device(*ctx) == GP_DEVICE_CPU)
        fallback_why(*ctx, why_cpu, why_len);
    return st;
}

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int context_opened(const char *verb, int device, gp_status_t st, const gp_ctx_t *ctx)
{
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, gp_status_string(st), gp_last_error());
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    if (device == DEVICE_DEFAULT && gp_ctx_device(ctx) == GP_DEVICE_CPU) {
        char why[700], who[64];
        fallback_why(ctx, why, sizeof why);
        snprintf(who, sizeof who, "gpuprim %s", verb);
        note_cpu(who, why, "using the CPU backend");
    }
    return EXIT_OK;
}

int open_context_verb(const char *verb, int device, gp_ctx_t **ctx)
{
    const gp_status_t st = gp_ctx_create(ctx, device);
    return context_opened(verb, device, st, *ctx);
}


/* ---------------------------------------------------------------------------------------------- report lines */
void describe_device(gp_ctx_t *ctx, char *out, size_t len)
{
    int dev = gp_ctx_device(ctx);
    if (dev == GP_DEVICE_CPU) {
        gp_cpu_info_t c;
        gp_cpu_info(&c);
        snprintf(out, len, "CPU backend: %s, %d threads", c.model, c.omp_max_threads);
        return;
    }
    gp_device_info_t d;
    if (gp_device_info(dev, &d) != GP_OK) {
        snprintf(out, len, "device %d", dev);
        return;
    }
    snprintf(out, len, "%s (sm_%d%d, %d SMs, %.0f GB/s theoretical), driver %d.%d, runtime %d.%d", d.name,
             d.cc_major, d.cc_minor, d.sm_count, d.mem_bandwidth_gbs, d.driver_version / 1000,
             (d.driver_version % 1000) / 10, d.runtime_version / 1000, (d.runtime_version % 1000) / 10);
}

void today(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%d", &tm);
}

void report_meta_device(report_t *r, gp_ctx_t *ctx)
{
    char desc[512], date[16];
    describe_device(ctx, desc, sizeof desc);
    today(date, sizeof date);
    report_meta(r, "device", "%s", desc);
    report_meta(r, "date", "%s", date);
}


/* the exit code of a group that could not be made: as -d ID's (no device 3, no driver 4) */
static int group_exit(gp_status_t st)
{
    return st == GP_ERR_INVALID_ARG ? EXIT_USAGE : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU
           : st == GP_ERR_NO_DRIVER   ? EXIT_NO_DRIVER
                                      : EXIT_FAIL;
}

int group_open(const char *verb, const char *spec, gp_group_t **g)
{
    *g = NULL;
    gp_status_t st;
    if (strncmp(spec, "cpu:", 4) == 0 || strncmp(spec, "gpu:", 4) == 0) {
        size_t k = 0;
        if (parse_size(spec + 4, &k) != 0 || k < 1 || k > 64)
            return bad_value(verb, "--devices", "all, a list of GPUs (0,1), cpu:K or gpu:K (K 1 .. 64)", spec);
        st = gp_group_create_emulated(g, (int)k, spec[0] == 'c' ? GP_DEVICE_CPU : 0);
    } else if (strcmp(spec, "all") == 0) {
        st = gp_group_create_local(g, 0, NULL);
    } else {
        int dev[64], n = 0;
        const char *p = spec;
        while (*p) {
            char *end = NULL;
            const long v = strtol(p, &end, 10);
            if (end == p || v < 0 || v > 1023 || n == 64 || (*end && *end != ','))
                return bad_value(verb, "--devices", "all, a list of GPUs (0,1), cpu:K or gpu:K", spec);
            dev[n++] = (int)v;
            p = *end ? end + 1 : end;
        }
        if (n == 0) return bad_value(verb, "--devices", "all, a list of GPUs (0,1), cpu:K or gpu:K", spec);
        st = gp_group_create_local(g, n, dev);
    }
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: --devices %s: %s\n", verb, spec, gp_last_error());
        return group_exit(st);
    }
    return EXIT_OK;
}

int group_open_ranks(const char *verb, const char *spec, gp_group_t **g)
{
    *g = NULL;
    if (strcmp(spec, "env") != 0) return bad_value(verb, "--ranks", "env (rank and size from the launcher)", spec);
    const gp_status_t st = gp_group_create_from_env(g);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: --ranks env: %s\n", verb, gp_last_error());
        return group_exit(st);
    }
    return EXIT_OK;
}

void group_describe(gp_group_t *g, char *buf, size_t len)
{
    if (gp_group_local_count(g) < gp_group_size(g)) { /* one rank of a group spread over processes */
        snprintf(buf, len, "rank %d of %d (%s: GPU %d)", gp_group_rank(g, 0), gp_group_size(g),
                 gp_group_transport(g), gp_ctx_device(gp_group_ctx(g, 0)));
        return;
    }
    const int k = gp_group_local_count(g);
    const int cpu = gp_ctx_device(gp_group_ctx(g, 0)) == GP_DEVICE_CPU;
    size_t at = (size_t)snprintf(buf, len, "%d %s (%s:", k, cpu ? "CPU-backend members" : k == 1 ? "GPU" : "GPUs",
                                 gp_group_transport(g));
    for (int i = 0; i < k && at < len; i++) {
        const int d = gp_ctx_device(gp_group_ctx(g, i));
        at += (size_t)snprintf(buf + at, len - at, "%s %s", i ? "," : "", d == GP_DEVICE_CPU ? "cpu" : "");
        if (d != GP_DEVICE_CPU && at < len) at += (size_t)snprintf(buf + at, len - at, "%d", d);
    }
    if (at < len) snprintf(buf + at, len - at, ")");
}
