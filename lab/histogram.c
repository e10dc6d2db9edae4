/*
 * histogram.c — `gpuprim lab histogram`: the primers' histogram techniques as numbered versions on the same data (the
 * table below: each forces one strategy of the library's GPU backend, histogram.cu; the last is gp_histogram_even,
 * whose choice histogram_pick.cuh makes), each checked against the CPU backend's counts (bitwise) and timed side by
 * side for several bin counts: GB/s read, % of the read-only kernel, speedup over the previous version and over v01
 * (global atomics). A version that cannot hold the bins (shared memory) says so instead of a time.
 */
#include "lab_versions.h"

#include "histogram/histogram_internal.h"

#include <stdlib.h>
#include <string.h>

const lab_version_t lab_hist_versions[] = {
    {1, "hist_v01_global_atomics", 1, "atomicAdd on the global counts (L2 atomics)",
     "", 0, (unsigned)GP__HS_GLOBAL, 0, NULL},
    {2, "hist_v02_block_shared", 1, "privatized: one shared-memory histogram per block, merged",
     "", 0, (unsigned)GP__HS_BLOCK, 0, NULL},
    {3, "hist_v03_warp_shared", 1, "one shared histogram per warp: fewer same-address collisions",
     "", 0, (unsigned)GP__HS_WARP, 0, NULL},
    {4, "hist_v04_lane_columns", 1, "16-bit counters, one bank per lane: conflict-free whatever the data (<= 285 bins)",
     "", 0, (unsigned)GP__HS_LANE, 0, NULL},
    {5, "hist_v05_lane_columns_rmw", 1, "v04 with plain load/add/store instead of shared atomics",
     "", 0, (unsigned)GP__HS_LANE_RMW, 0, NULL},
    {6, "hist_v06_cluster2_dsm", 1, "bins over the distributed shared memory of a 2-block cluster",
     "", 0, (unsigned)GP__HS_CLUSTER, 2, NULL},
    {7, "hist_v07_cluster4_dsm", 1, "the same over 4 blocks",
     "", 0, (unsigned)GP__HS_CLUSTER, 4, NULL},
    {8, "hist_v08_cluster8_dsm", 1, "the same over 8 blocks",
     "", 0, (unsigned)GP__HS_CLUSTER, 8, NULL},
    {9, "hist_v09_cluster16_dsm", 1, "the same over 16 blocks (non-portable cluster size)",
     "", 0, (unsigned)GP__HS_CLUSTER, 16, NULL},
    {10, "hist_v10_block_bulk_copy", 1, "v02 fed by the bulk-copy engine: a ring of shared-memory tiles (cp.async.bulk + mbarrier)",
     "", 0, (unsigned)GP__HS_BLOCK_BULK, 0, NULL},
    {11, "hist_v11_production", 1, "gp_histogram_even: the strategy and binner chosen per bin count",
     "", 0, (unsigned)GP__HS_AUTO, 0, NULL},
};
const int lab_hist_nversions = (int)(sizeof lab_hist_versions / sizeof lab_hist_versions[0]);


typedef struct hlab {
    gp_ctx_t *ctx;
    const lab_version_t *v;
    gp__hist_spec_t spec;
    gp_dtype_t dtype;
    size_t n;
    const void *x;
    void *counts;
} hlab_t;

static gp_status_t run_hversion(void *u, int rep, gp_stream_t s)
{
    hlab_t *j = u;
    (void)rep;
    if (j->v == NULL) /* the CPU backend */
        return gp_histogram_even(j->ctx, j->dtype, j->n, j->x, j->spec.nbins, j->spec.lo, j->spec.hi, GP_U64,
                                 j->counts, s);
    return gp__hist_gpu_ops.run(j->ctx, &j->spec, j->dtype, j->n, j->x, GP_U64, j->counts, (cudaStream_t)s,
                           (int)j->v->sel, j->v->arg, 0, NULL);
}

static int parse_bins_list(const char *v, size_t *bins, int max)
{
    int k = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        if (k == max || parse_size(t, &bins[k]) != 0 || bins[k] == 0 || bins[k] > ((size_t)1 << 30)) return -1;
        k++;
    }
    return k;
}

static int histogram_topic(lab_run_t *r)
{
    size_t n = 0, bins[8] = {256, 4096, 65536, (size_t)1 << 20};
    int nbins = 4, rc = EXIT_OK;
    const int skew = lab_opt(r, "--skew") != NULL;
    gp_dtype_t dt = GP_F32;
    const char *val;
    if ((val = lab_opt(r, "-n")) && (parse_size(val, &n) != 0 || n == 0 || n > ((size_t)1 << 31)))
        return lab_bad_value(r, "-n", "an element count 1 .. 2^31", val);
    if ((val = lab_opt(r, "--dtype"))) {
        if (gp_dtype_parse(val, &dt) != GP_OK) dt = GP_DTYPE_COUNT;
        if (dt != GP_U8 && dt != GP_U16 && dt != GP_I32 && dt != GP_U32 && dt != GP_F32 && dt != GP_F64)
            return lab_bad_value(r, "--dtype", "u8 u16 i32 u32 f32 f64", val);
    }
    if ((val = lab_opt(r, "--bins")) && (nbins = parse_bins_list(val, bins, 8)) <= 0)
        return lab_bad_value(r, "--bins", "up to 8 counts 1 .. 2^30", val);
    gp_ctx_t *cpu = r->cpu, *gpu = r->gpu;
    const size_t es = gp_dtype_size(dt);
    if (n == 0) n = gpu ? ((size_t)1 << 30) / es : (size_t)1 << 24;
    double lo = -1, hi = 1;
    if (dt == GP_U8) lo = 0, hi = 256;
    if (dt == GP_U16) lo = 0, hi = 65536;
    if (dt == GP_I32) lo = -1024, hi = 1024;
    if (dt == GP_U32) lo = 0, hi = 4294967296.0;
    /* data: on the host (the CPU backend's input and reference), copied to the GPU */
    void *hx = malloc(n * es + 16);
    size_t maxb = 0;
    for (int b = 0; b < nbins; b++) maxb = bins[b] > maxb ? bins[b] : maxb;
    uint64_t *ref = malloc((maxb + 3) * 8), *got = malloc((maxb + 3) * 8);
    gp_buffer_t dx = {0}, dc = {0};
    gp_status_t st = GP_OK;
    if (!hx || !ref || !got) {
        fprintf(stderr, "gpuprim lab histogram: out of host memory\n");
        rc = EXIT_FAIL;
        goto out;
    }
    if (skew) memset(hx, 0x3e, n * es);
    else if (dt == GP_U16) st = bench_fill_random(cpu, hx, (n + 1) / 2, GP_U32, 11);
    else st = bench_fill_random(cpu, hx, n, dt, 11);
    if (st == GP_OK && gpu) {
        if ((st = gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es, &dx)) == GP_OK &&
            (st = gp_mem_alloc(gpu, GP_MEM_DEVICE, (maxb + 3) * 8, &dc)) == GP_OK)
            st = gp_memcpy_sync(gpu, dx.device, hx, n * es);
    }
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim lab histogram: data: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    bench_ceilings_t ce = {0, 0, 0};
    if (gpu && bench_ceilings(gpu, n * es >= ((size_t)256 << 20) ? n * es : (size_t)256 << 20, 2, 5, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim lab histogram: ceilings: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    static const char *const cols[] = {"id", "version", "bins", "ran_as", "median_us", "GB/s", "%read", "x prev",
                                       "x v01", "check"};
    static const int num[] = {0, 0, 1, 0, 1, 1, 1, 1, 1, 0};
    lab_begin(r, "gpuprim lab histogram", cols, num, 10);
    report_meta(&r->report, "data", "%zu x %s, %s, even bins over [%g, %g)", n, gp_dtype_name(dt),
                skew ? "every value in one bin" : "uniform random", lo, hi);
    report_meta(&r->report, "timing", "median of %d after %d warm-up; CPU backend: median of 3", r->reps, r->warmup);
    for (int bi = 0; bi < nbins && rc != EXIT_FAIL; bi++) {
        const size_t nb = bins[bi];
        gp__hist_spec_t spec = {GP__HIST_EVEN, nb, lo, hi, (double)nb / (hi - lo), NULL};
        /* the CPU backend: the reference, and a timed row */
        hlab_t jc = {cpu, NULL, spec, dt, n, hx, ref};
        bench_stats_t sc;
        if ((st = bench_time(cpu, run_hversion, NULL, &jc, 0, 3, NULL, &sc)) != GP_OK) {
            fprintf(stderr, "gpuprim lab histogram: CPU backend: %s\n", gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        char cb[24], cmed[24], cg[24], cpct[24], cprev[24], cv1[24], cchk[128], cran[48];
        snprintf(cb, sizeof cb, "%zu", nb);
        snprintf(cmed, sizeof cmed, "%.1f", sc.median_ms * 1e3);
        snprintf(cg, sizeof cg, "%.2f", bench_gbs((double)(n * es), sc.median_ms));
        const char *crow[] = {"90", "hist_v90_cpu_backend", cb, "cpu", cmed, cg, "", "", "", "reference"};
        report_row(&r->report, crow);
        double prev = 0, v1 = 0;
        for (int vi = 0; gpu && vi < lab_hist_nversions; vi++) {
            const lab_version_t *v = &lab_hist_versions[vi];
            hlab_t j = {gpu, v, spec, dt, n, dx.device, dc.device};
            char cid[8];
            snprintf(cid, sizeof cid, "%02d", v->id);
            gp__hist_plan_t plan;
            gp_memset(gpu, dc.device, 0xff, (nb + 3) * 8, NULL);
            st = gp__hist_gpu_ops.run(gpu, &spec, dt, n, dx.device, GP_U64, dc.device, NULL, (int)v->sel, v->arg, 0,
                                 &plan);
            if (st == GP_ERR_UNSUPPORTED) {
                const char *cells[] = {cid, v->name, cb, "-", "", "", "", "", "", "cannot hold these bins"};
                report_row(&r->report, cells);
                continue;
            }
            if (st != GP_OK || (st = gp_stream_sync(gpu, NULL)) != GP_OK ||
                (st = gp_memcpy_sync(gpu, got, dc.device, (nb + 3) * 8)) != GP_OK) {
                fprintf(stderr, "gpuprim lab histogram: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            size_t bad = 0, first = 0;
            for (size_t b = 0; b < nb + 3; b++)
                if (got[b] != ref[b] && !bad++) first = b;
            if (bad) {
                snprintf(cchk, sizeof cchk, "FAIL: %zu slots differ, first %zu", bad, first);
                lab_fail(r, v->name, "%zu bins: %zu slots differ, first %zu", nb, bad, first);
            } else {
                snprintf(cchk, sizeof cchk, "ok");
            }
            bench_stats_t s;
            if ((st = bench_time(gpu, run_hversion, NULL, &j, r->warmup, r->reps, NULL, &s)) != GP_OK) {
                fprintf(stderr, "gpuprim lab histogram: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            const double g = bench_gbs((double)(n * es), s.median_ms);
            if (plan.strategy == GP__HS_CLUSTER)
                snprintf(cran, sizeof cran, "%s%d/%s", gp__hist_gpu_ops.strategy_name(plan.strategy), plan.cluster,
                         gp__hist_gpu_ops.kind_name(plan.kind));
            else
                snprintf(cran, sizeof cran, "%s/%s", gp__hist_gpu_ops.strategy_name(plan.strategy),
                         gp__hist_gpu_ops.kind_name(plan.kind));
            snprintf(cmed, sizeof cmed, "%.1f", s.median_ms * 1e3);
            snprintf(cg, sizeof cg, "%.1f", g);
            snprintf(cpct, sizeof cpct, "%.1f", ce.read_gbs > 0 ? 100 * g / ce.read_gbs : 0.0);
            cprev[0] = cv1[0] = 0;
            if (prev > 0) snprintf(cprev, sizeof cprev, "%.2f", g / prev);
            if (v->id == 1) v1 = g;
            if (v1 > 0) snprintf(cv1, sizeof cv1, "%.2f", g / v1);
            const char *cells[] = {cid, v->name, cb, cran, cmed, cg, cpct, cprev, cv1, cchk};
            report_row(&r->report, cells);
            prev = g;
        }
    }
out:
    if (gpu) gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dc);
    free(hx), free(ref), free(got);
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

static void list(FILE *f) { lab_list_versions(f, LAB_T_HISTOGRAM, lab_hist_versions, lab_hist_nversions); }

static const lab_opt_t k_opts[] = {
    {"-n", "N", "elements (default 1 GiB of data on a GPU, 2^24 on the CPU)"},
    {"--dtype", "T", "u8, u16, i32, u32, f32 (default) or f64"},
    {"--bins", "N[,N...]", "up to 8 bin counts (default 256,4096,65536,1048576)"},
    {"--skew", NULL, "every value in one bin"},
    {NULL, NULL, NULL},
};

const lab_topic_t lab_topic_histogram = {
    "histogram",
    "privatized, warp, cluster (distributed shared memory) and global histograms",
    "  every histogram version on the same random data, checked against the CPU backend's counts and timed side by\n"
    "  side. Ranges: floats [-1, 1), u8 [0, 256), u16 [0, 65536), i32 [-1024, 1024), u32 [0, 2^32).",
    k_opts, 0, 0, 0, list, histogram_topic,
};
