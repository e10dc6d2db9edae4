/*
 * suite_group.c — `gpuprim bench group`: a group of GPUs (--devices; default every GPU, through NCCL) against one
 * GPU in the same run.
 *   allreduce  gp_group_allreduce (ncclAllReduce, f32 sum) over -b/-e/-f sizes in bytes (nccl-tests' convention:
 *              8 B to 1 GiB by 2): a batch of back-to-back calls per repetition, then one wait; algbw = bytes / time,
 *              busbw = algbw * 2 (k - 1) / k (nccl-tests' all-reduce bus bandwidth; 0 for one rank).
 *   reduce     gp_group_reduce sum f32 over -n elements (2^31) split evenly and resident on the members, end to end
 *              (host call to host result, the combine included), against gp_reduce_sync on GPU 0 over the whole
 *              array; the group's result must have one GPU's bits ("bits": same).
 *   histogram  gp_group_histogram f32, 65536 even bins, the same arrays, against gp_histogram_even on GPU 0 with its
 *              counts read back; the counts must be equal.
 *   scan       gp_group_scan inclusive sum f32 into separate outputs, against gp_scan on GPU 0; every output bit
 *              compared through the host after the timing.
 *   segmented  gp_group_reduce_segmented sum f32 over segments of 4096 elements (host offsets, host results),
 *              against gp_reduce_segmented on GPU 0 with its sums read back; the sums must be equal.
 *   sort       gp_group_sort of --sort-n (2^30) random u32 keys, laid out over the same even shards, against gp_sort
 *              on GPU 0 over the whole array; every output bit compared through the host after the timing.
 * ratio = one GPU's time / the group's (the speed-up). Times are host wall clock (medians of --reps), the group
 * and one GPU run alternately.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef gp_status_t (*timed_fn)(void *user);

/* The group and one GPU timed alternately (A B, B A, ...), so clock and temperature drift over the run fall on both
 * alike (measured: timing one after the other moved the ratio by up to 5%). Medians and minimums in ms. */
static gp_status_t time_pair_host(timed_fn a, timed_fn b, void *user, int warmup, int reps, double *am, double *amin,
                                  double *bm, double *bmin)
{
    double ta[256], tb[256];
    if (reps > 256) reps = 256;
    for (int i = 0; i < warmup + reps; i++) {
        for (int k = 0; k < 2; k++) {
            const int first_a = (i & 1) == 0, run_a = k == 0 ? first_a : !first_a;
            const double t0 = now_seconds();
            const gp_status_t st = run_a ? a(user) : b(user);
            if (st != GP_OK) return st;
            if (i >= warmup) (run_a ? ta : tb)[i - warmup] = (now_seconds() - t0) * 1e3;
        }
    }
    qsort(ta, (size_t)reps, sizeof ta[0], cmp_double);
    qsort(tb, (size_t)reps, sizeof tb[0], cmp_double);
    *am = ta[reps / 2], *amin = ta[0], *bm = tb[reps / 2], *bmin = tb[0];
    return GP_OK;
}

/* warmup + reps runs of fn, each timed on the host; the median and the minimum in ms. */
static gp_status_t time_host(timed_fn fn, void *user, int warmup, int reps, double *med, double *mn)
{
    double t[256];
    if (reps > 256) reps = 256;
    for (int i = 0; i < warmup + reps; i++) {
        const double a = now_seconds();
        const gp_status_t st = fn(user);
        if (st != GP_OK) return st;
        if (i >= warmup) t[i - warmup] = (now_seconds() - a) * 1e3;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    *med = t[reps / 2];
    *mn = t[0];
    return GP_OK;
}

typedef struct job {
    gp_group_t *g;
    gp_ctx_t *one;
    int k, batch;
    size_t n, count;
    void *bufs[64];        /* all-reduce buffers */
    size_t counts[64];
    const void *shards[64];
    const void *whole;     /* the whole array on GPU 0 */
    void *hd;              /* GPU 0's histogram counts */
    uint32_t *hh;          /* host counts */
    gp_reduce_result_t res;
    void *ys[64], *ywhole; /* scan outputs: the members' shards, GPU 0's whole */
    size_t nseg;           /* segmented: nseg segments of SEG elements (offsets on the host, and on GPU 0) */
    int64_t *off_h;
    const int64_t *off_d;
    float *seg_h;          /* the group's segment sums (host) */
    void *seg_d;           /* GPU 0's */
    size_t sn;             /* sort: sn u32 keys, the whole on GPU 0 (keys, sorted) and the members' shards */
    const void *kwhole;
    void *kwhole_out;
    size_t kcounts[64];
    const void *kshards[64];
    void *kouts[64];
} job_t;
#define SEG 4096

static gp_status_t run_allreduce(void *u)
{
    job_t *j = u;
    for (int b = 0; b < j->batch; b++) {
        const gp_status_t st = gp_group_allreduce(j->g, GP_F32, j->count, j->bufs);
        if (st != GP_OK) return st;
    }
    return gp_group_sync(j->g);
}

static gp_status_t run_group_reduce(void *u)
{
    job_t *j = u;
    return gp_group_reduce(j->g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, j->counts, j->shards, &j->res);
}

static gp_status_t run_one_reduce(void *u)
{
    job_t *j = u;
    return gp_reduce_sync(j->one, GP_REDUCE_SUM, GP_F32, j->n, j->whole, &j->res);
}

static const gp_hist_bins_t k_bins = {GP_HIST_EVEN, 65536, -1.0, 1.0, NULL, 0, 0};

static gp_status_t run_group_hist(void *u)
{
    job_t *j = u;
    return gp_group_histogram(j->g, GP_F32, j->counts, j->shards, &k_bins, GP_U32, j->hh);
}

static gp_status_t run_one_hist(void *u)
{
    job_t *j = u;
    gp_status_t st = gp_histogram_even(j->one, GP_F32, j->n, j->whole, k_bins.nbins, k_bins.lo, k_bins.hi, GP_U32,
                                       j->hd, NULL);
    if (st == GP_OK) st = gp_memcpy_sync(j->one, j->hh, j->hd, (k_bins.nbins + 3) * 4);
    return st;
}

static gp_status_t run_group_scan(void *u)
{
    job_t *j = u;
    return gp_group_scan(j->g, GP_REDUCE_SUM, GP_F32, GP_F32, GP_SCAN_INCLUSIVE, j->counts, j->shards, j->ys);
}

static gp_status_t run_one_scan(void *u)
{
    job_t *j = u;
    const gp_status_t st = gp_scan(j->one, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, j->n, j->whole, j->ywhole, NULL);
    return st == GP_OK ? gp_stream_sync(j->one, NULL) : st;
}

static gp_status_t run_group_seg(void *u)
{
    job_t *j = u;
    return gp_group_reduce_segmented(j->g, GP_REDUCE_SUM, GP_F32, j->counts, j->shards, j->nseg, j->off_h, j->seg_h);
}

static gp_status_t run_one_seg(void *u)
{
    job_t *j = u;
    gp_status_t st = gp_reduce_segmented(j->one, GP_REDUCE_SUM, GP_F32, j->n, j->whole, j->nseg, j->off_d, j->seg_d,
                                         NULL);
    if (st == GP_OK) st = gp_memcpy_sync(j->one, j->seg_h, j->seg_d, j->nseg * 4);
    return st;
}

static gp_status_t run_group_sort(void *u)
{
    job_t *j = u;
    return gp_group_sort(j->g, GP_U32, j->kcounts, j->kshards, j->kouts, 0, NULL, NULL, 0);
}

static gp_status_t run_one_sort(void *u)
{
    job_t *j = u;
    const gp_status_t st = gp_sort(j->one, GP_U32, j->sn, j->kwhole, j->kwhole_out, NULL, NULL);
    return st == GP_OK ? gp_stream_sync(j->one, NULL) : st;
}

/* the members' outputs (4-byte elements, counts[m] each) against GPU 0's whole, piece by piece through the host;
 * the first difference said on stderr, and (sorted != 0) whether each side is in ascending u32 order */
static gp_status_t same_as_whole(job_t *j, const char *what, const size_t *counts, void *const *outs,
                                 const void *whole, int sorted, int *same)
{
    const size_t piece = (size_t)1 << 24;
    uint32_t *a = malloc(piece * 4), *b = malloc(piece * 4);
    gp_status_t st = a && b ? GP_OK : GP_ERR_OUT_OF_MEMORY;
    *same = 1;
    size_t at = 0, ga = 0, gb = 0; /* the first place each side is out of order (+1; 0: none) */
    uint32_t pa = 0, pb = 0;
    for (int m = 0; m < j->k && st == GP_OK; m++) {
        for (size_t i = 0; i < counts[m] && st == GP_OK; i += piece) {
            const size_t c = counts[m] - i < piece ? counts[m] - i : piece;
            st = gp_memcpy_sync(gp_group_ctx(j->g, m), a, (const uint32_t *)outs[m] + i, c * 4);
            if (st == GP_OK) st = gp_memcpy_sync(j->one, b, (const uint32_t *)whole + at + i, c * 4);
            if (st == GP_OK && memcmp(a, b, c * 4)) {
                size_t d = 0;
                while (a[d] == b[d]) d++;
                if (*same)
                    fprintf(stderr, "gpuprim bench group: %s: first difference at element %zu (member %d's %zu): "
                                    "group 0x%08x, one GPU 0x%08x\n", what, at + i + d, m, i + d, a[d], b[d]);
                *same = 0;
            }
            for (size_t q = 0; sorted && st == GP_OK && q < c; q++) {
                const size_t e = at + i + q;
                if (e && !ga && a[q] < pa) ga = e + 1;
                if (e && !gb && b[q] < pb) gb = e + 1;
                pa = a[q], pb = b[q];
            }
        }
        at += counts[m];
    }
    if (sorted && !*same)
        fprintf(stderr, "gpuprim bench group: %s: the group's output is %s, one GPU's is %s\n", what,
                ga ? "out of order" : "in order", gb ? "out of order" : "in order");
    if (ga) fprintf(stderr, "gpuprim bench group: %s: the group's output first decreases at element %zu\n", what, ga - 1);
    if (gb) fprintf(stderr, "gpuprim bench group: %s: one GPU's output first decreases at element %zu\n", what, gb - 1);
    free(a);
    free(b);
    return st;
}

static void add_row(report_t *r, const char *op, size_t n, double bytes, double med, double mn, double algbw,
                    double busbw, const char *peer, double peer_ms, const char *bits)
{
    char c[11][48];
    snprintf(c[0], 48, "%s", op);
    snprintf(c[1], 48, "%zu", n);
    snprintf(c[2], 48, "%.1f", bytes / 1e6);
    snprintf(c[3], 48, "%.1f", med * 1e3);
    snprintf(c[4], 48, "%.1f", mn * 1e3);
    snprintf(c[5], 48, "%.1f", algbw);
    snprintf(c[6], 48, "%.1f", busbw);
    snprintf(c[7], 48, "%s", peer);
    if (peer_ms > 0) snprintf(c[8], 48, "%.1f", peer_ms * 1e3);
    else c[8][0] = 0;
    if (peer_ms > 0) snprintf(c[9], 48, "%.3f", peer_ms / med);
    else c[9][0] = 0;
    snprintf(c[10], 48, "%s", bits);
    const char *cells[11];
    for (int i = 0; i < 11; i++) cells[i] = c[i];
    report_row(r, cells);
}

static sweep_t sw_bench_group;
typedef struct group_opts {
    const char *devices, *n, *sn, *skip;
} group_opts_t;
static const cli_opt_t opts_bench_group[] = {
    {"--devices", OPT_TEXT, "SPEC", OPT_AT(group_opts_t, devices), "the group: all (every GPU, NCCL), 0,1,.. (those "
     "GPUs), gpu:K / cpu:K (K members emulated on GPU 0 / the CPU backend)",
     "all", NULL, "all cpu:2 gpu:2 0,1"},
    {"-n", OPT_COUNT, "N", OPT_AT(group_opts_t, n), "elements of the reduce, histogram, scan and segmented cases",
     "2^31", NULL, NULL},
    {"--sort-n", OPT_COUNT, "N", OPT_AT(group_opts_t, sn), "u32 keys of the sort case", "2^30", NULL, NULL},
    {"--skip-sweep", OPT_FLAG, NULL, OPT_AT(group_opts_t, skip), "no all-reduce bus bandwidth sweep", NULL, NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_group = {
    "bench group", COMMON_JSON | COMMON_CSV | COMMON_REPS | COMMON_WARMUP, &sw_bench_group, opts_bench_group, 0,
    "[options]",
    "A group of GPUs against one GPU in the same run: the NCCL all-reduce bus bandwidth over the sweep, then\n"
    "reduce sum f32 and a 65536-bin f32 histogram, inclusive sum scan and segmented sum (4096-element segments)\n"
    "of N elements resident on the members (even split), end to end with the combine, against gp_reduce /\n"
    "gp_histogram_even / gp_scan / gp_reduce_segmented on GPU 0 over the whole array; then a sort of u32 keys\n"
    "against gp_sort on GPU 0. ratio = one GPU / group.",
    "bytes of each all-reduce, 8 B to 1 GiB by 2"};

static int suite_group(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    sw_bench_group = (sweep_t){8, (size_t)1 << 30, 2, 0};
    group_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_group, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    size_t n = (size_t)1 << 31;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n == 0)) return bad_value("bench group", "-n", "an element count > 0", opt.n);
    size_t sn = (size_t)1 << 30;
    if (opt.sn && (parse_size(opt.sn, &sn) != 0 || sn == 0))
        return bad_value("bench group", "--sort-n", "an element count > 0", opt.sn);
    if (sweep_check("bench group", &sw_bench_group) != 0) return EXIT_USAGE;
    const int reps = c.reps > 0 ? c.reps : 10, warmup = c.warmup >= 0 ? c.warmup : 2;
    gp_group_t *g = NULL;
    int rc = group_open("bench group", opt.devices ? opt.devices : "all", &g);
    if (rc != EXIT_OK) return rc;
    job_t j;
    memset(&j, 0, sizeof j);
    j.g = g;
    j.k = gp_group_local_count(g);
    j.n = n;
    const int cpu = gp_ctx_device(gp_group_ctx(g, 0)) == GP_DEVICE_CPU;
    gp_buffer_t ab[64], sb[64], yb[64], kb[64], kob[64], whole = {0}, hd = {0}, yw = {0}, od = {0}, sd = {0};
    gp_buffer_t kw = {0}, kwo = {0};
    memset(kb, 0, sizeof kb);
    memset(kob, 0, sizeof kob);
    memset(ab, 0, sizeof ab);
    memset(sb, 0, sizeof sb);
    memset(yb, 0, sizeof yb);
    report_t r;
    static const char *const cols[] = {"op", "n", "MB", "median_us", "min_us", "algbw_GBs", "busbw_GBs", "peer",
                                       "peer_us", "ratio", "bits"};
    static const int num[] = {0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0};
    report_init(&r, "gpuprim bench group", cols, num, 11);
    char desc[512], date[16];
    group_describe(g, desc, sizeof desc);
    today(date, sizeof date);
    report_meta(&r, "group", "%s", desc);
    report_meta(&r, "date", "%s", date);
    report_meta(&r, "one",
                "gp_reduce_sync / gp_histogram_even / gp_scan / gp_reduce_segmented (+ read-backs) / gp_sort on member 0's "
                "device");
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    report_meta(&r, "env", "NCCL_NVLS_ENABLE=%s", nvls ? nvls : "(unset)");
    gp_status_t st = GP_OK;
    /* 1. the all-reduce sweep */
    if (!opt.skip) {
        size_t sizes[64];
        const size_t ns = sweep_sizes(&sw_bench_group, sizes, 64);
        const size_t maxb = sizes[ns - 1] < 4 ? 4 : sizes[ns - 1];
        for (int m = 0; m < j.k && st == GP_OK; m++) {
            if ((st = gp_mem_alloc(gp_group_ctx(g, m), GP_MEM_DEVICE, maxb, &ab[m])) == GP_OK)
                st = gp_memset(gp_group_ctx(g, m), ab[m].device ? ab[m].device : ab[m].host, 0, maxb, NULL);
            j.bufs[m] = ab[m].device ? ab[m].device : ab[m].host;
        }
        for (size_t q = 0; q < ns && st == GP_OK; q++) {
            j.count = sizes[q] / 4 ? sizes[q] / 4 : 1;
            j.batch = sizes[q] <= ((size_t)1 << 24) ? 20 : 5;
            double med = 0, mn = 0;
            if ((st = time_host(run_allreduce, &j, warmup, reps, &med, &mn)) != GP_OK) break;
            med /= j.batch, mn /= j.batch;
            const double bytes = (double)j.count * 4, algbw = bytes / (med * 1e-3) / 1e9;
            const double busbw = j.k > 1 ? algbw * 2.0 * (j.k - 1) / j.k : 0.0;
            add_row(&r, "allreduce f32 sum", j.count, bytes, med, mn, algbw, busbw, "", 0, "");
        }
        for (int m = 0; m < j.k; m++) gp_mem_free(gp_group_ctx(g, m), &ab[m]);
    }
    /* 2. the arrays: the whole on member 0's device, each member's shard copied from it */
    gp_ctx_t *one = gp_group_ctx(g, 0);
    j.one = one;
    j.hh = malloc((k_bins.nbins + 3) * 4);
    if (st == GP_OK && !j.hh) st = GP_ERR_OUT_OF_MEMORY;
    if (st == GP_OK) st = gp_mem_alloc(one, GP_MEM_DEVICE, n * 4, &whole);
    if (st == GP_OK) st = gp_mem_alloc(one, GP_MEM_DEVICE, (k_bins.nbins + 3) * 4, &hd);
    j.whole = cpu ? whole.host : whole.device;
    j.hd = cpu ? hd.host : hd.device;
    if (st == GP_OK) st = bench_fill_random(one, (void *)j.whole, n, GP_F32, 2026);
    if (st == GP_OK) st = gp_stream_sync(one, NULL);
    for (int m = 0; m < j.k && st == GP_OK; m++) {
        size_t f = 0, cnt = 0;
        gp_group_split(g, GP_F32, n, gp_group_rank(g, m), &f, &cnt);
        gp_ctx_t *mc = gp_group_ctx(g, m);
        if ((st = gp_mem_alloc(mc, GP_MEM_DEVICE, cnt * 4, &sb[m])) != GP_OK) break;
        j.shards[m] = sb[m].device ? sb[m].device : sb[m].host;
        j.counts[m] = cnt;
        if (cnt) st = gp_memcpy(mc, (void *)j.shards[m], (const float *)j.whole + f, cnt * 4, NULL);
        if (st == GP_OK) st = gp_stream_sync(mc, NULL);
        if (st == GP_OK) st = gp_mem_alloc(mc, GP_MEM_DEVICE, cnt * 4, &yb[m]);
        j.ys[m] = yb[m].device ? yb[m].device : yb[m].host;
    }
    /* the scan's output on GPU 0, and the segments (every SEG elements; the last one shorter) */
    if (st == GP_OK) st = gp_mem_alloc(one, GP_MEM_DEVICE, n * 4, &yw);
    j.ywhole = cpu ? yw.host : yw.device;
    j.nseg = (n + SEG - 1) / SEG;
    j.off_h = malloc((j.nseg + 1) * sizeof *j.off_h);
    j.seg_h = malloc(j.nseg * 4);
    if (st == GP_OK && (!j.off_h || !j.seg_h)) st = GP_ERR_OUT_OF_MEMORY;
    for (size_t q = 0; st == GP_OK && q <= j.nseg; q++) j.off_h[q] = (int64_t)(q * SEG < n ? q * SEG : n);
    if (st == GP_OK) st = gp_mem_alloc(one, GP_MEM_DEVICE, (j.nseg + 1) * 8, &od);
    if (st == GP_OK) st = gp_mem_alloc(one, GP_MEM_DEVICE, j.nseg * 4, &sd);
    j.off_d = (const int64_t *)(cpu ? od.host : od.device);
    j.seg_d = cpu ? sd.host : sd.device;
    if (st == GP_OK) st = gp_memcpy_sync(one, (void *)j.off_d, j.off_h, (j.nseg + 1) * 8);
    if (st == GP_OK && gp_group_size(g) != j.k) {
        fprintf(stderr, "gpuprim bench group: a group spread over processes is not benched here\n");
        rc = EXIT_USAGE;
    }
    /* 3. reduce and histogram: the group against one GPU */
    if (st == GP_OK && rc == EXIT_OK) {
        double gm, gmin, om, omin;
        gp_reduce_result_t a, b;
        if ((st = run_group_reduce(&j)) == GP_OK) a = j.res;
        if (st == GP_OK && (st = run_one_reduce(&j)) == GP_OK) b = j.res;
        if (st == GP_OK) st = time_pair_host(run_group_reduce, run_one_reduce, &j, warmup, reps, &gm, &gmin, &om, &omin);
        if (st == GP_OK) {
            const int same = memcmp(&a.value.f32, &b.value.f32, sizeof(float)) == 0;
            const double bytes = (double)n * 4;
            add_row(&r, "reduce sum f32", n, bytes, gm, gmin, bytes / (gm * 1e-3) / 1e9, 0, "one gp_reduce", om,
                    same ? "same" : "DIFFER");
            if (!same) rc = EXIT_MISMATCH;
        }
        uint32_t *ch = malloc((k_bins.nbins + 3) * 4);
        if (st == GP_OK && !ch) st = GP_ERR_OUT_OF_MEMORY;
        if (st == GP_OK && (st = run_group_hist(&j)) == GP_OK) memcpy(ch, j.hh, (k_bins.nbins + 3) * 4);
        if (st == GP_OK && (st = run_one_hist(&j)) == GP_OK)
            st = time_pair_host(run_group_hist, run_one_hist, &j, warmup, reps, &gm, &gmin, &om, &omin);
        if (st == GP_OK) {
            const int same = memcmp(ch, j.hh, (k_bins.nbins + 3) * 4) == 0;
            const double bytes = (double)n * 4;
            add_row(&r, "histogram f32 65536 bins", n, bytes, gm, gmin, bytes / (gm * 1e-3) / 1e9, 0,
                    "one gp_histogram_even", om, same ? "same" : "DIFFER");
            if (!same) rc = EXIT_MISMATCH;
        }
        free(ch);
        /* the scan (y = x scanned: read + write) and the segmented sum */
        int same = 0;
        if (st == GP_OK && (st = run_group_scan(&j)) == GP_OK && (st = run_one_scan(&j)) == GP_OK)
            st = same_as_whole(&j, "scan", j.counts, j.ys, j.ywhole, 0, &same);
        if (st == GP_OK) st = time_pair_host(run_group_scan, run_one_scan, &j, warmup, reps, &gm, &gmin, &om, &omin);
        if (st == GP_OK) {
            const double bytes = (double)n * 8;
            add_row(&r, "scan inclusive sum f32", n, bytes, gm, gmin, bytes / (gm * 1e-3) / 1e9, 0, "one gp_scan", om,
                    same ? "same" : "DIFFER");
            if (!same) rc = EXIT_MISMATCH;
        }
        float *sh = malloc(j.nseg * 4);
        if (st == GP_OK && !sh) st = GP_ERR_OUT_OF_MEMORY;
        if (st == GP_OK && (st = run_group_seg(&j)) == GP_OK) memcpy(sh, j.seg_h, j.nseg * 4);
        if (st == GP_OK && (st = run_one_seg(&j)) == GP_OK)
            st = time_pair_host(run_group_seg, run_one_seg, &j, warmup, reps, &gm, &gmin, &om, &omin);
        if (st == GP_OK) {
            same = memcmp(sh, j.seg_h, j.nseg * 4) == 0;
            const double bytes = (double)n * 4;
            char op[48];
            snprintf(op, sizeof op, "segmented sum f32 (%d each)", SEG);
            add_row(&r, op, n, bytes, gm, gmin, bytes / (gm * 1e-3) / 1e9, 0, "one gp_reduce_segmented", om,
                    same ? "same" : "DIFFER");
            if (!same) rc = EXIT_MISMATCH;
        }
        free(sh);
    }
    /* 4. the sort: its own u32 keys (the arrays above freed first: one GPU sorting sn keys needs room for three
     *    copies of them and the group's members two more of their shards) */
    if (st == GP_OK && rc == EXIT_OK) {
        for (int m = 0; m < j.k; m++) gp_mem_free(gp_group_ctx(g, m), &sb[m]), gp_mem_free(gp_group_ctx(g, m), &yb[m]);
        gp_mem_free(one, &yw);
        gp_mem_free(one, &whole);
        j.sn = sn;
        if ((st = gp_mem_alloc(one, GP_MEM_DEVICE, sn * 4, &kw)) == GP_OK)
            st = gp_mem_alloc(one, GP_MEM_DEVICE, sn * 4, &kwo);
        j.kwhole = cpu ? kw.host : kw.device;
        j.kwhole_out = cpu ? kwo.host : kwo.device;
        if (st == GP_OK) st = bench_fill_random(one, (void *)j.kwhole, sn, GP_U32, 2027);
        if (st == GP_OK) st = gp_stream_sync(one, NULL);
        for (int m = 0; m < j.k && st == GP_OK; m++) {
            size_t f = 0, cnt = 0;
            gp_group_split(g, GP_U32, sn, gp_group_rank(g, m), &f, &cnt);
            gp_ctx_t *mc = gp_group_ctx(g, m);
            if ((st = gp_mem_alloc(mc, GP_MEM_DEVICE, cnt * 4, &kb[m])) != GP_OK) break;
            if ((st = gp_mem_alloc(mc, GP_MEM_DEVICE, cnt * 4, &kob[m])) != GP_OK) break;
            j.kshards[m] = kb[m].device ? kb[m].device : kb[m].host;
            j.kouts[m] = kob[m].device ? kob[m].device : kob[m].host;
            j.kcounts[m] = cnt;
            if (cnt) st = gp_memcpy(mc, (void *)j.kshards[m], (const uint32_t *)j.kwhole + f, cnt * 4, NULL);
            if (st == GP_OK) st = gp_stream_sync(mc, NULL);
        }
        double gm, gmin, om, omin;
        int same = 0;
        if (st == GP_OK && (st = run_group_sort(&j)) == GP_OK && (st = run_one_sort(&j)) == GP_OK)
            st = same_as_whole(&j, "sort", j.kcounts, j.kouts, j.kwhole_out, 1, &same);
        if (st == GP_OK) st = time_pair_host(run_group_sort, run_one_sort, &j, warmup, reps, &gm, &gmin, &om, &omin);
        if (st == GP_OK) {
            const double bytes = (double)sn * 8; /* the keys read and written once: the floor of any sort */
            add_row(&r, "sort u32 keys", sn, bytes, gm, gmin, bytes / (gm * 1e-3) / 1e9, 0, "one gp_sort", om,
                    same ? "same" : "DIFFER");
            if (!same) rc = EXIT_MISMATCH;
        }
    }
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim bench group: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    report_print(&r, c.fmt, stdout);
    report_free(&r);
    free(j.hh);
    for (int m = 0; m < j.k; m++) {
        gp_ctx_t *mc = gp_group_ctx(g, m);
        gp_mem_free(mc, &sb[m]), gp_mem_free(mc, &yb[m]), gp_mem_free(mc, &kb[m]), gp_mem_free(mc, &kob[m]);
    }
    gp_mem_free(one, &kw);
    gp_mem_free(one, &kwo);
    gp_mem_free(one, &yw);
    gp_mem_free(one, &od);
    gp_mem_free(one, &sd);
    free(j.off_h);
    free(j.seg_h);
    gp_mem_free(one, &whole);
    gp_mem_free(one, &hd);
    gp_group_destroy(g);
    return rc;
}

const verb_t bench_suite_group = {"group", "", "a group of GPUs (NCCL) against one GPU: all-reduce, reduce, histogram, scan, segmented sum, sort", &spec_bench_group, suite_group, NULL};
