/*
 * reduce.c — `gpuprim lab reduce`: the primers' reduction progression (reduce_versions.cu) on the same data, each
 * version checked for the exact answer (integer-valued inputs make every order exact) and timed side by side: GB/s,
 * % of the read-only kernel measured in the same run, speedup over the previous version and the serial CPU loop.
 */
#include "lab_versions.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct rjob {
    gp_ctx_t *ctx;
    const lab_version_t *v;
    const float *x;
    size_t n;
    float *out;
} rjob_t;

static gp_status_t run_version(void *u, int rep, gp_stream_t s)
{
    rjob_t *j = u;
    (void)rep;
    return LAB_FN(lab_reduce_fn, j->v)(j->ctx, j->x, j->n, j->out, (cudaStream_t)s);
}

static int reduce_topic(lab_run_t *r)
{
    size_t n = (size_t)1 << 24;
    const char *val = lab_opt(r, "-n");
    if (val && (parse_size(val, &n) != 0 || n > ((size_t)1 << 31)))
        return lab_bad_value(r, "-n", "an element count up to 2^31", val);
    gp_ctx_t *gpu = r->gpu, *cpu = r->cpu;
    gp_status_t st;
    /* integers in [-7, 7]: every partial sum is an exact float, so every order gives the exact answer */
    float *hx = malloc((n ? n : 1) * sizeof *hx);
    if (hx == NULL) {
        fprintf(stderr, "gpuprim lab reduce: out of host memory\n");
        return EXIT_FAIL;
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        hx[i] = (float)((int)(s % 15) - 7);
    }
    int rc = EXIT_OK;
    gp_buffer_t dx = {0}, dout = {0};
    if (gpu && ((st = gp_mem_alloc(gpu, GP_MEM_DEVICE, n * sizeof(float), &dx)) != GP_OK ||
                (st = gp_mem_alloc(gpu, GP_MEM_DEVICE, 64, &dout)) != GP_OK ||
                (st = gp_memcpy_sync(gpu, dx.device, hx, n * sizeof(float))) != GP_OK)) {
        fprintf(stderr, "gpuprim lab reduce: device buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    static const char *const cols[] = {"id", "version", "n", "median_us", "GB/s", "%read", "x prev", "x serial",
                                       "check"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 1, 0};
    lab_begin(r, "gpuprim lab reduce (f32 sum)", cols, num, 9);
    bench_ceilings_t ce = {0, 0, 0};
    if (rc == EXIT_OK && gpu && bench_ceilings(gpu, (size_t)1 << 30, r->warmup, r->reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim lab reduce: ceilings: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    if (gpu) report_meta(&r->report, "ceiling", "read-only kernel %.1f GB/s, same run", ce.read_gbs);
    double serial_gbs = 0, prev_gbs = 0;
    for (int pass = 0; pass < 2 && rc == EXIT_OK; pass++)
        for (int vi = 0; vi < lab_reduce_nversions && rc == EXIT_OK; vi++) {
            const lab_version_t *v = &lab_reduce_versions[vi];
            if ((pass == 0) != (v->id == 90) || (v->gpu && !gpu)) continue;
            const size_t nv = v->max_n && v->max_n < n ? v->max_n : n;
            long long exact = 0;
            for (size_t i = 0; i < nv; i++) exact += (long long)hx[i];
            gp_ctx_t *ctx = v->gpu ? gpu : cpu;
            float host_out = NAN, got = NAN;
            rjob_t j = {ctx, v, v->gpu ? (const float *)dx.device : hx, nv, v->gpu ? (float *)dout.device : &host_out};
            if (v->gpu) gp_memset(gpu, dout.device, 0xff, 64, NULL);
            if ((st = run_version(&j, 0, NULL)) != GP_OK || (st = gp_stream_sync(ctx, NULL)) != GP_OK) {
                fprintf(stderr, "gpuprim lab reduce: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            if (v->gpu)
                gp_memcpy_sync(gpu, &got, dout.device, sizeof got);
            else
                got = host_out;
            const int ok = got == (float)exact;
            if (!ok) lab_fail(r, v->name, "%.9g, exact %lld", got, exact);
            bench_stats_t bs;
            if ((st = bench_time(ctx, run_version, NULL, &j, r->warmup, r->reps, NULL, &bs)) != GP_OK) {
                fprintf(stderr, "gpuprim lab reduce: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            const double g = bench_gbs(4.0 * (double)nv, bs.median_ms);
            if (v->id == 90) serial_gbs = g;
            char cid[8], cn[24], cmed[24], cg[24], cpct[24], cprev[24], cser[24], cchk[96];
            snprintf(cid, sizeof cid, "%02d", v->id);
            snprintf(cn, sizeof cn, "%zu", nv);
            snprintf(cmed, sizeof cmed, "%.1f", bs.median_ms * 1e3);
            snprintf(cg, sizeof cg, "%.2f", g);
            cpct[0] = cprev[0] = 0;
            if (v->gpu && ce.read_gbs > 0) snprintf(cpct, sizeof cpct, "%.1f", 100 * g / ce.read_gbs);
            if (v->id != 90 && prev_gbs > 0) snprintf(cprev, sizeof cprev, "%.2f", g / prev_gbs);
            snprintf(cser, sizeof cser, "%.2f", serial_gbs > 0 ? g / serial_gbs : 1.0);
            if (ok)
                snprintf(cchk, sizeof cchk, "ok");
            else
                snprintf(cchk, sizeof cchk, "FAIL: %.9g, exact %lld", got, exact);
            const char *cells[] = {cid, v->name, cn, cmed, cg, cpct, cprev, cser, cchk};
            report_row(&r->report, cells);
            if (v->id != 90) prev_gbs = g;
        }
    if (gpu) {
        gp_mem_free(gpu, &dx);
        gp_mem_free(gpu, &dout);
    }
    free(hx);
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

static void list(FILE *f) { lab_list_versions(f, LAB_T_REDUCE, lab_reduce_versions, lab_reduce_nversions); }

static const lab_opt_t k_opts[] = {
    {"-n", "N", "elements, at most 2^31 (default 2^24; the slow versions run at the cap the table names)"},
    {NULL, NULL, NULL},
};

const lab_topic_t lab_topic_reduce = {
    "reduce",
    "the primers' reduction progression, atomics to the deterministic tile tree",
    "  the primers' reduction progression (f32 sum) on the same data, each version checked for the exact answer\n"
    "  (integer-valued inputs make every order exact), timed side by side.",
    k_opts, 0, 0, 0, list, reduce_topic,
};
