/*
 * cmd_bandwidth.c — `gpuprim bandwidth`: transfer bandwidth of every memory kind over a size sweep.
 *   h2d / d2h / bidir   copy-engine copies (gp_memcpy) between device memory and each host kind; bidir runs an
 *                       H2D and a D2H of the same size at once on two streams and counts both.
 *   sm_read / sm_write  a kernel (gp_memcpy_kernel) reading or writing host memory over the bus (zero-copy), or
 *                       managed memory that starts on the host and migrates on the kernel's page faults.
 *   prefetch            cudaMemPrefetchAsync of managed memory from the host to the device.
 *   d2d                 device to device, by the copy engine and by the SMs (bytes read + written).
 *   h2d_ref / d2h_ref   plain cudaMemcpyAsync on the same pinned buffers, the reference gp_memcpy is held to; the
 *                       table mode prints gp_memcpy's share of it under the table.
 * Median and min of --reps after --warmup; GB/s = 1e9 B/s.
 */
#include "commands.h"
#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef enum { T_H2D, T_D2H, T_BIDIR, T_SM_READ, T_SM_WRITE, T_PREFETCH, T_D2D_CE, T_D2D_SM, T_H2D_REF, T_D2H_REF } test_t;

typedef struct job {
    gp_ctx_t *ctx;
    test_t test;
    gp_buffer_t *host, *host2;   /* host kind (two for bidir) */
    void *dev, *dev2;            /* device buffers */
    size_t bytes;
    bench_fork_t *fork; /* bidir: the second copy's stream */
} job_t;

static gp_status_t run_job(void *u, int rep, gp_stream_t s)
{
    job_t *j = u;
    (void)rep;
    switch (j->test) {
    case T_H2D: return gp_memcpy(j->ctx, j->dev, j->host->host, j->bytes, s);
    case T_D2H: return gp_memcpy(j->ctx, j->host->host, j->dev, j->bytes, s);
    case T_BIDIR: {
        /* the side stream joins s's timeline, both copies run, and s waits for it before the stop mark */
        gp_stream_t s2 = NULL;
        gp_status_t st = bench_fork_begin(j->fork, s, &s2);
        if (st == GP_OK) st = gp_memcpy(j->ctx, j->dev, j->host->host, j->bytes, s);
        if (st == GP_OK) st = gp_memcpy(j->ctx, j->host2->host, j->dev2, j->bytes, s2);
        return st == GP_OK ? bench_fork_end(j->fork, s) : st;
    }
    case T_SM_READ: return gp_memcpy_kernel(j->ctx, j->dev, j->host->device, j->bytes, s);
    case T_SM_WRITE: return gp_memcpy_kernel(j->ctx, j->host->device, j->dev, j->bytes, s);
    case T_PREFETCH: return gp_mem_prefetch(j->ctx, j->host, 0, j->bytes, 0, s);
    case T_D2D_CE: return gp_memcpy(j->ctx, j->dev2, j->dev, j->bytes, s);
    case T_D2D_SM: return gp_memcpy_kernel(j->ctx, j->dev2, j->dev, j->bytes, s);
    case T_H2D_REF: return bench_ref_memcpy(j->dev, j->host->host, j->bytes, s);
    case T_D2H_REF: return bench_ref_memcpy(j->host->host, j->dev, j->bytes, s);
    }
    return GP_ERR_INTERNAL;
}

/* Managed memory goes back to the host before each run, so every run migrates (or faults) it again. */
static gp_status_t setup_managed(void *u, int rep, gp_stream_t s)
{
    job_t *j = u;
    (void)rep;
    return gp_mem_prefetch(j->ctx, j->host, 0, j->bytes, 1, s);
}

static const char *test_name(test_t t)
{
    static const char *const n[] = {"h2d",     "d2h", "bidir", "sm_read", "sm_write",
                                    "prefetch", "d2d", "d2d",   "h2d_ref", "d2h_ref"};
    return n[t];
}

typedef struct host_set {
    gp_mem_kind_t kind;
    gp_buffer_t a, b;
    void *raw_a, *raw_b; /* registered kind: the malloc'd memory behind a and b */
} host_set_t;

static void free_host_set(gp_ctx_t *ctx, host_set_t *h)
{
    gp_mem_free(ctx, &h->a);
    gp_mem_free(ctx, &h->b);
    free(h->raw_a);
    free(h->raw_b);
    h->raw_a = h->raw_b = NULL;
}

static gp_status_t alloc_host_set(gp_ctx_t *ctx, host_set_t *h, size_t bytes)
{
    gp_status_t st;
    if (h->kind == GP_MEM_REGISTERED) {
        h->raw_a = malloc(bytes);
        h->raw_b = malloc(bytes);
        if (!h->raw_a || !h->raw_b) return GP_ERR_OUT_OF_MEMORY;
        memset(h->raw_a, 0x3c, bytes);
        memset(h->raw_b, 0x3c, bytes);
        if ((st = gp_mem_register(ctx, h->raw_a, bytes, &h->a)) != GP_OK) return st;
        return gp_mem_register(ctx, h->raw_b, bytes, &h->b);
    }
    if ((st = gp_mem_alloc(ctx, h->kind, bytes, &h->a)) != GP_OK) return st;
    if ((st = gp_mem_alloc(ctx, h->kind, bytes, &h->b)) != GP_OK) return st;
    /* First touch on the host (pageable pages exist; managed pages start on the host). */
    memset(h->a.host, 0x3c, bytes);
    memset(h->b.host, 0x3c, bytes);
    return GP_OK;
}

static int add_row(report_t *r, const char *test, const char *kind, const char *engine, size_t bytes,
                   double moved, const bench_stats_t *s)
{
    char c3[32], c4[32], c5[32], c6[32];
    snprintf(c3, sizeof c3, "%zu", bytes);
    snprintf(c4, sizeof c4, "%.1f", s->median_ms * 1e3);
    snprintf(c5, sizeof c5, "%.1f", s->min_ms * 1e3);
    snprintf(c6, sizeof c6, "%.1f", bench_gbs(moved, s->median_ms));
    const char *cells[] = {test, kind, engine, c3, c4, c5, c6};
    return report_row(r, cells) < 0 ? -1 : 0;
}

static sweep_t sw_bandwidth;
typedef struct bandwidth_opts {
    const char *kinds;
} bandwidth_opts_t;
static const cli_opt_t opts_bandwidth[] = {
    {"--kinds", OPT_TEXT, "K[,K...]", OPT_AT(bandwidth_opts_t, kinds), "the host memory kinds measured", "all of them",
     NULL, "pageable pinned portable write_combined mapped registered managed"},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bandwidth = {
    "bandwidth", COMMON_ALL & ~COMMON_SVG, &sw_bandwidth, opts_bandwidth, 0, "[options]",
    "Transfer bandwidth for each host memory kind (pageable pinned portable write_combined mapped registered\n"
    "managed): copy-engine H2D, D2H, bidirectional; kernel reads / writes of host and managed memory; managed\n"
    "prefetch; device-to-device by copy engine and SMs. Sizes 1M..256M by a factor of 4 unless the sweep says.",
    "bytes; K/M/G are powers of 1024"};

static int cmd_bandwidth(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 10, 2, 0};
    sw_bandwidth = (sweep_t){1u << 20, 256u << 20, 4, 0};
    int want[GP_MEM_KIND_COUNT] = {0};
    int any_kind = 0;
    int npos = 0;
    bandwidth_opts_t opt;
    const int pr = cli_parse(&spec_bandwidth, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (opt.kinds) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", opt.kinds);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            gp_mem_kind_t kind;
            if (gp_mem_kind_parse(t, &kind) != GP_OK || kind == GP_MEM_DEVICE) {
                fprintf(stderr, "gpuprim bandwidth: --kinds: '%s' is not a host memory kind\n", t);
                return EXIT_USAGE;
            }
            want[kind] = any_kind = 1;
        }
    }
    if (sweep_check("bandwidth", &sw_bandwidth) != 0) return EXIT_USAGE;
    if (!any_kind)
        for (int k = GP_MEM_PAGEABLE; k < GP_MEM_KIND_COUNT; k++) want[k] = 1;
    if (c.device == GP_DEVICE_CPU) {
        fprintf(stderr, "gpuprim bandwidth: transfers need a GPU; the CPU backend has none to measure\n");
        return EXIT_USAGE;
    }
    int dev = c.device == DEVICE_DEFAULT ? 0 : c.device;
    gp_ctx_t *ctx = NULL;
    gp_status_t st = gp_ctx_create(&ctx, dev);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim bandwidth: no GPU to measure: %s: %s\n", gp_status_string(st), gp_last_error());
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    gp_device_info_t info;
    gp_device_info(dev, &info);

    static const char *const cols[] = {"test", "kind", "engine", "bytes", "median_us", "min_us", "GB/s"};
    static const int num[] = {0, 0, 0, 1, 1, 1, 1};
    report_t r;
    report_init(&r, "gpuprim bandwidth", cols, num, 7);
    report_meta_device(&r, ctx);
    report_meta(&r, "timing", "median of %d after %d warm-up; GB/s = 1e9 B/s", c.reps, c.warmup);

    int rc = EXIT_OK;
    double ours_ms[2] = {1, 1};
    char share[64][128];
    int nshare = 0;
    gp_stream_t s1 = NULL;
    bench_fork_t *fork = NULL;
    if (gp_stream_create(ctx, &s1) != GP_OK || bench_fork_create(&fork) != GP_OK) {
        fprintf(stderr, "gpuprim bandwidth: cannot create streams/events\n");
        rc = EXIT_FAIL;
        goto out;
    }
    size_t sizes[256];
    const size_t nsizes = sweep_sizes(&sw_bandwidth, sizes, 256);
    for (size_t si = 0; si < nsizes; si++) {
        const size_t bytes = sizes[si];
        gp_buffer_t d1 = {0}, d2 = {0};
        if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &d1)) != GP_OK ||
            (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &d2)) != GP_OK ||
            (st = gp_memset(ctx, d1.device, 0x77, bytes, NULL)) != GP_OK ||
            (st = gp_memset(ctx, d2.device, 0x11, bytes, NULL)) != GP_OK) {
            fprintf(stderr, "gpuprim bandwidth: %zu bytes of device memory: %s\n", bytes, gp_last_error());
            gp_mem_free(ctx, &d1);
            gp_mem_free(ctx, &d2);
            rc = EXIT_FAIL;
            break;
        }
        job_t j = {ctx, T_D2D_CE, NULL, NULL, d1.device, d2.device, bytes, fork};
        bench_stats_t s;
        for (int k = GP_MEM_PAGEABLE; k < GP_MEM_KIND_COUNT && rc == EXIT_OK; k++) {
            if (!want[k]) continue;
            host_set_t h = {(gp_mem_kind_t)k, {0}, {0}, NULL, NULL};
            if (k == GP_MEM_MANAGED && (!info.concurrent_managed_access || bytes > info.free_mem_bytes / 4)) continue;
            if ((st = alloc_host_set(ctx, &h, bytes)) != GP_OK) {
                fprintf(stderr, "gpuprim bandwidth: %zu bytes of %s memory: %s\n", bytes, gp_mem_kind_name(h.kind),
                        gp_last_error());
                free_host_set(ctx, &h);
                rc = EXIT_FAIL;
                break;
            }
            j.host = &h.a;
            j.host2 = &h.b;
            const char *kn = gp_mem_kind_name(h.kind);
            bench_fn setup = k == GP_MEM_MANAGED ? setup_managed : NULL;
            test_t tests[] = {T_H2D, T_D2H, T_BIDIR, T_SM_READ, T_SM_WRITE, T_PREFETCH, T_H2D_REF, T_D2H_REF};
            for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++) {
                j.test = tests[t];
                int sm = j.test == T_SM_READ || j.test == T_SM_WRITE;
                if (sm && h.a.device == NULL) continue;           /* pageable: not device-addressable */
                if (j.test == T_PREFETCH && k != GP_MEM_MANAGED) continue;
                if ((j.test == T_H2D_REF || j.test == T_D2H_REF) && k != GP_MEM_PINNED) continue;
                if (k == GP_MEM_MANAGED && (j.test == T_BIDIR || j.test == T_SM_WRITE)) continue;
                if ((st = bench_time(ctx, run_job, setup, &j, c.warmup, c.reps, s1, &s)) != GP_OK) {
                    fprintf(stderr, "gpuprim bandwidth: %s %s: %s\n", test_name(j.test), kn, gp_last_error());
                    rc = EXIT_FAIL;
                    break;
                }
                const char *engine = sm ? (k == GP_MEM_MANAGED ? "sm (page faults)" : "sm (zero-copy)")
                                     : j.test == T_PREFETCH                        ? "driver"
                                     : j.test == T_H2D_REF || j.test == T_D2H_REF ? "cudaMemcpyAsync"
                                                                                   : "copy engine";
                double moved = j.test == T_BIDIR ? 2.0 * bytes : (double)bytes;
                add_row(&r, test_name(j.test), kn, engine, bytes, moved, &s);
                if (k == GP_MEM_PINNED && j.test <= T_D2H) ours_ms[j.test] = s.median_ms;
                if (j.test == T_H2D_REF || j.test == T_D2H_REF) {
                    int dir = j.test == T_H2D_REF ? 0 : 1;
                    if (nshare < (int)(sizeof share / sizeof share[0]))
                        snprintf(share[nshare++], sizeof share[0], "pinned %s %zu bytes: gp_memcpy at %.1f%% of "
                                 "cudaMemcpyAsync's bandwidth", dir ? "D2H" : "H2D", bytes,
                                 100.0 * s.median_ms / ours_ms[dir]);
                }
            }
            free_host_set(ctx, &h);
        }
        for (int t = T_D2D_CE; t <= T_D2D_SM && rc == EXIT_OK; t++) {
            j.test = (test_t)t;
            if ((st = bench_time(ctx, run_job, NULL, &j, c.warmup, c.reps, s1, &s)) != GP_OK) {
                fprintf(stderr, "gpuprim bandwidth: d2d: %s\n", gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            add_row(&r, "d2d", "device", t == T_D2D_CE ? "copy engine" : "sm", bytes, 2.0 * bytes, &s);
        }
        gp_mem_free(ctx, &d1);
        gp_mem_free(ctx, &d2);
        if (rc != EXIT_OK) break;
    }
    report_print(&r, c.fmt, stdout);
    if (c.fmt == FMT_TABLE)
        for (int i = 0; i < nshare; i++) printf("%s\n", share[i]);
out:
    report_free(&r);
    bench_fork_destroy(fork);
    if (s1) gp_stream_destroy(ctx, s1);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t verb_bandwidth = {"bandwidth", "", "transfer bandwidth of every memory kind over a size sweep",
                         &spec_bandwidth, cmd_bandwidth, NULL};
