/*
 * suite_histogram.c — `gpuprim bench histogram`: gp_histogram_even against cub::DeviceHistogram::HistogramEven on the
 * same 1 GiB inputs in the same run: u8 256 bins, f32 256 / 4096 / 65536 / 2^20 bins (uniform random data), f32 100
 * bins as np.histogram makes them (NumPy's edges, the last bin closed: range bins), and every value in one bin (u8,
 * f32). ratio = CUB time / our time (> 1: we are faster). GB/s = input bytes read.
 * The row name carries the strategy the library chose (lane, warp, block, cluster, global). Our counts are checked
 * against CUB's (u8: equal; f32: equal up to CUB's own float binning at the edges, reported as "bins differ").
 */
#include "bench.h"


#include <stdlib.h>
#include <string.h>

typedef struct hjob {
    gp_ctx_t *ctx;
    gp_dtype_t dtype;
    size_t n, nbins;
    double lo, hi;
    const void *x;
    void *ours, *cub; /* nbins + 3 u32 counters each, device */
    int numpy;        /* np.histogram's bins: NumPy's edges, the last bin closed (counts cleared, then accumulated) */
    char err[256];
} hjob_t;

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    hjob_t *j = u;
    (void)rep;
    if (j->numpy) {
        const gp_hist_bins_t b = {GP_HIST_EVEN, j->nbins, j->lo, j->hi, NULL, 1, 1};
        const gp_status_t st = gp_memset(j->ctx, j->ours, 0, (j->nbins + 3) * 4, s);
        return st != GP_OK ? st : gp_histogram_accumulate(j->ctx, j->dtype, j->n, j->x, &b, GP_U32, j->ours, s);
    }
    return gp_histogram_even(j->ctx, j->dtype, j->n, j->x, j->nbins, j->lo, j->hi, GP_U32, j->ours, s);
}

static gp_status_t run_cub(void *u, int rep, gp_stream_t s)
{
    hjob_t *j = u;
    (void)rep;
    return gp_peer_histogram(j->dtype == GP_U8, j->n, j->x, (int)j->nbins, j->lo, j->hi, j->cub, s, j->err)
               ? GP_ERR_CUDA
               : GP_OK;
}

static sweep_t sw_bench_histogram;
typedef struct histogram_opts {
    const char *bytes;
} histogram_opts_t;
static const cli_opt_t opts_bench_histogram[] = {
    {"--bytes", OPT_COUNT, "B", OPT_AT(histogram_opts_t, bytes), "bytes of each input",
     "1 GiB; 64 MiB on the CPU backend", NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_histogram = {
    "bench histogram", COMMON_ALL, &sw_bench_histogram, opts_bench_histogram, 0, "[options]",
    "gp_histogram_even (u32 counts) against cub::DeviceHistogram::HistogramEven in the same run: u8 256 bins over\n"
    "[0, 256), f32 256 / 4096 / 65536 / 2^20 bins over [-1, 1) (uniform random data), f32 100 bins as np.histogram\n"
    "makes them (NumPy's edges, the last bin closed), and all values in one bin (u8, f32). The sweep: every case over\n"
    "input sizes instead.",
    "bytes of each input, 1 MiB to 1 GiB by 4, at most 2^31"};

static int suite_histogram(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    size_t bytes = 0;
    sw_bench_histogram = (sweep_t){1u << 20, (size_t)1 << 30, 4, 0};
    histogram_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_histogram, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (opt.bytes && (parse_size(opt.bytes, &bytes) != 0 || bytes < 64 || bytes > ((size_t)1 << 31)))
        return bad_value("bench histogram", "--bytes", "64 .. 2^31", opt.bytes);
    if (sweep_check("bench histogram", &sw_bench_histogram) != 0) return EXIT_USAGE;
    if (sw_bench_histogram.given && (bytes || sw_bench_histogram.e > ((size_t)1 << 31))) {
        fprintf(stderr, "gpuprim bench histogram: -b/-e: sizes up to 2^31 bytes, not with --bytes\n");
        return EXIT_USAGE;
    }
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench histogram", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (bytes == 0) bytes = gpu ? (size_t)1 << 30 : (size_t)64 << 20;
    size_t sizes[64];
    const size_t nsizes = sw_bench_histogram.given ? sweep_sizes(&sw_bench_histogram, sizes, 64) : 1;
    if (sw_bench_histogram.given) bytes = sizes[nsizes - 1];
    report_meta(&r, "peer", "%s",
                gpu ? "CUB cub::DeviceHistogram::HistogramEven (int counters) from the CUDA toolkit"
                    : "none on the CPU backend");
    bench_ceilings_t ce = {0, 0, 0};
    if (bench_ceilings(ctx, gpu ? (size_t)1 << 30 : (size_t)64 << 20, c.warmup, c.reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim bench histogram: ceilings: %s\n", gp_last_error());
        report_free(&r);
        gp_ctx_destroy(ctx);
        return EXIT_FAIL;
    }
    static const struct {
        gp_dtype_t dtype;
        size_t nbins;
        double lo, hi;
        int skew, numpy;
    } cases[] = {
        {GP_U8, 256, 0, 256, 0, 0},      {GP_F32, 256, -1, 1, 0, 0},     {GP_F32, 4096, -1, 1, 0, 0},
        {GP_F32, 65536, -1, 1, 0, 0},    {GP_F32, 1u << 20, -1, 1, 0, 0}, {GP_F32, 100, -1, 1, 0, 1},
        {GP_U8, 256, 0, 256, 1, 0},      {GP_F32, 256, -1, 1, 1, 0},     {GP_F32, 65536, -1, 1, 1, 0},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    gp_buffer_t xb[1] = {{0}}, ours = {0}, cub = {0};
    const size_t maxbins = (size_t)1 << 20;
    gp_status_t st = GP_OK;
    if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &xb[0])) != GP_OK ||
        (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, (maxbins + 3) * 4, &ours)) != GP_OK ||
        (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, (maxbins + 3) * 4, &cub)) != GP_OK) {
        fprintf(stderr, "gpuprim bench histogram: buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    uint32_t *h_ours = malloc((maxbins + 3) * 4), *h_cub = malloc((maxbins + 3) * 4);
    static bench_bars_t bars;
    bars.n = 0;
    gp_dtype_t filled = GP_DTYPE_COUNT;
    int filled_skew = -1;
    for (int q = 0; q < (int)nsizes * ncases && rc == EXIT_OK; q++) {
        const int ci = q % ncases;
        const size_t qbytes = sw_bench_histogram.given ? sizes[q / ncases] : bytes;
        if (ci == 0) filled = GP_DTYPE_COUNT; /* a new size: fill again */
        const gp_dtype_t dt = cases[ci].dtype;
        const size_t n = qbytes / gp_dtype_size(dt);
        if (dt != filled || cases[ci].skew != filled_skew) {
            /* random: every byte value (u8) or [-1, 1) (f32); skewed: every byte 0x3e (u8 62, f32 0.1858) */
            st = cases[ci].skew ? gp_memset(ctx, xb[0].device, 0x3e, qbytes, NULL)
                                : bench_fill_random(ctx, xb[0].device, n, dt, 2026 + (unsigned)dt);
            if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
            if (st != GP_OK) {
                fprintf(stderr, "gpuprim bench histogram: filling: %s\n", gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            filled = dt, filled_skew = cases[ci].skew;
        }
        hjob_t j = {ctx, dt, n, cases[ci].nbins, cases[ci].lo, cases[ci].hi, xb[0].device, ours.device, cub.device,
                    cases[ci].numpy, ""};
        /* which strategy the library picks (for the row name) */
        char name[64];
        if (cases[ci].numpy) {
            snprintf(name, sizeof name, "hist%zu numpy-edges %s", j.nbins, gpu ? "closed" : "cpu");
        } else if (gpu) {
            char ran[48];
            if (bench_histogram_even_plan(ctx, dt, 1, j.x, j.nbins, j.lo, j.hi, GP_U32, j.ours, NULL, ran, sizeof ran) !=
                GP_OK) {
                fprintf(stderr, "gpuprim bench histogram: %s\n", gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            snprintf(name, sizeof name, "hist%zu%s %s", j.nbins, cases[ci].skew ? " skew" : "", ran);
        } else {
            snprintf(name, sizeof name, "hist%zu%s cpu", j.nbins, cases[ci].skew ? " skew" : "");
        }
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        if ((st = bench_time(ctx, run_ours, NULL, &j, c.warmup, c.reps, NULL, &so)) != GP_OK) {
            fprintf(stderr, "gpuprim bench histogram: %s: %s\n", name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        const int has_peer = gpu && n < 0x7fffffff;
        char peer_name[64] = "";
        if (has_peer) {
            if (gp_peer_histogram_prepare(dt == GP_U8, n, (int)j.nbins, j.lo, j.hi, j.err) != 0 ||
                bench_time(ctx, run_cub, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK) {
                fprintf(stderr, "gpuprim bench histogram: %s\n", j.err);
                rc = EXIT_FAIL;
                break;
            }
            /* the answers: ours against CUB's */
            if (gp_memcpy_sync(ctx, h_ours, ours.device, (j.nbins + 3) * 4) != GP_OK ||
                gp_memcpy_sync(ctx, h_cub, cub.device, j.nbins * 4) != GP_OK) {
                fprintf(stderr, "gpuprim bench histogram: reading counts: %s\n", gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            size_t differ = 0;
            uint64_t total = 0;
            for (size_t b = 0; b < j.nbins; b++) differ += h_ours[b] != h_cub[b], total += h_ours[b];
            total += (uint64_t)h_ours[j.nbins] + h_ours[j.nbins + 1] + h_ours[j.nbins + 2];
            if (total != (uint64_t)n || (dt == GP_U8 && differ)) {
                fprintf(stderr, "gpuprim bench histogram: %s: counts wrong (total %llu of %zu, %zu bins differ from "
                                "CUB)\n", name, (unsigned long long)total, n, differ);
                rc = EXIT_MISMATCH;
            }
            if (differ) report_meta(&r, name, "%zu bins differ from CUB (float binning at the edges)", differ);
            snprintf(peer_name, sizeof peer_name, "cub::HistogramEven");
        }
        vec_row(&r, name, gp_dtype_name(dt), n, (double)qbytes, &so, &ce, peer_name, has_peer ? sp.median_ms : 0);
        bench_bars_add(&bars, bench_gbs((double)qbytes, so.median_ms), "%s %s", name, gp_dtype_name(dt));
        if (has_peer)
            bench_bars_add(&bars, bench_gbs((double)qbytes, sp.median_ms), "  CUB %s %zu%s", gp_dtype_name(dt), j.nbins,
                           cases[ci].skew ? " skew" : "");
    }
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_OK && c.svg) {
        char title[700], date[16];
        today(date, sizeof date);
        snprintf(title, sizeof title, "gpuprim bench histogram\n%s\n%s; peer: CUB", desc, date);
        if (svg_bar_chart(c.svg, title, "GB/s read (1e9 B/s)", bars.labels, bars.values, bars.n,
                          ce.read_gbs, "read-only kernel") != 0)
            rc = EXIT_FAIL;
    }
    free(h_ours), free(h_cub);
    gp_mem_free(ctx, &xb[0]), gp_mem_free(ctx, &ours), gp_mem_free(ctx, &cub);
    report_free(&r);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_histogram = {"histogram", "", "gp_histogram_even against cub::DeviceHistogram, 256 to 2^20 bins", &spec_bench_histogram, suite_histogram, NULL};
