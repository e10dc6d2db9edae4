/*
 * suite_graph.c — `gpuprim bench graph`: many small gpuprim calls issued one by one against the same calls
 * captured once (gp_graph_begin / gp_graph_end) and replayed with one gp_graph_launch. Wall time per call on the host
 * clock, from the first issue to the end of a stream synchronize (what a C program chaining calls waits for), median
 * of --reps after --warmup. Every replay is checked against the direct calls' results, bit for bit.
 *   rows: CALLS x gp_reduce sum f32 of N elements (default 100 x 4096, the issue's case), then the same number of
 *   gp_vec_dot and of mixed calls (triad, max, histogram), each with direct_us, graph_us per call and the speedup.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef enum { W_REDUCE, W_DOT, W_MIXED, W_COUNT } work_t_;
static const char *const k_work_name[W_COUNT] = {"reduce sum f32", "vec_dot f32", "triad + max + histogram"};

typedef struct gjob {
    gp_ctx_t *ctx;
    work_t_ w;
    size_t n;
    int calls;
    float *x, *y, *tmp; /* calls * n each */
    char *out;          /* calls * 256 bytes of results */
} gjob_t;

static gp_status_t issue(const gjob_t *j, gp_stream_t s)
{
    gp_status_t st = GP_OK;
    for (int i = 0; i < j->calls && st == GP_OK; i++) {
        const float *x = j->x + (size_t)i * j->n, *y = j->y + (size_t)i * j->n;
        float *t = j->tmp + (size_t)i * j->n;
        char *o = j->out + (size_t)i * 256;
        switch (j->w) {
        case W_REDUCE: st = gp_reduce(j->ctx, GP_REDUCE_SUM, GP_F32, j->n, x, (gp_reduce_result_t *)o, s); break;
        case W_DOT: st = gp_vec_dot(j->ctx, GP_F32, j->n, x, y, o, s); break;
        default: /* a third of the calls each */
            if (i % 3 == 0) st = gp_vec_triad(j->ctx, GP_F32, j->n, 0.5, x, y, t, s);
            else if (i % 3 == 1) st = gp_reduce(j->ctx, GP_REDUCE_MAX, GP_F32, j->n, t - j->n, (gp_reduce_result_t *)o, s);
            else st = gp_histogram_even(j->ctx, GP_F32, j->n, x, 32, -1.0, 1.0, GP_U32, o, s);
        }
    }
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct graph_opts {
    const char *n, *calls;
} graph_opts_t;
static const cli_opt_t opts_bench_graph[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(graph_opts_t, n), "f32 elements of each call", "4096", NULL, NULL},
    {"--calls", OPT_COUNT, "K", OPT_AT(graph_opts_t, calls), "small calls issued, then captured and replayed", "100",
     NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_graph = {
    "bench graph", COMMON_ALL & ~COMMON_SVG, NULL, opts_bench_graph, 0, "[options]",
    "K small calls issued one by one against the same calls captured once into a CUDA graph and replayed\n"
    "(gp_graph_begin / end / launch): host wall time per call until a stream synchronize returns, median of the\n"
    "repetitions (default 20 after 3); every replay's results equal the direct calls' bit for bit. Needs a GPU.",
    NULL};

static int suite_graph(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 20, 3, 0};
    graph_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_graph, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    size_t n = 4096, calls = 100;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n == 0 || n > ((size_t)1 << 24)))
        return bad_value("bench graph", "-n", "an element count 1 .. 2^24", opt.n);
    if (opt.calls && (parse_size(opt.calls, &calls) != 0 || calls == 0 || calls > 10000))
        return bad_value("bench graph", "--calls", "a count 1 .. 10000", opt.calls);
    if (c.device == GP_DEVICE_CPU) {
        fprintf(stderr, "gpuprim bench graph: graphs replay GPU work; the CPU backend runs each call as it is made\n");
        return EXIT_USAGE;
    }
    gp_ctx_t *ctx = NULL;
    /* a GPU or nothing: the default is GPU 0, with no CPU fallback */
    const int orc = open_context_verb("bench graph", c.device == DEVICE_DEFAULT ? 0 : c.device, &ctx);
    if (orc != EXIT_OK) return orc;
    static const char *const cols[] = {"work", "n", "calls", "direct_us_per_call", "graph_us_per_call", "speedup",
                                       "check"};
    static const int num[] = {0, 1, 1, 1, 1, 1, 0};
    report_t r;
    report_init(&r, "gpuprim bench graph", cols, num, 7);
    report_meta_device(&r, ctx);
    report_meta(&r, "timing", "host wall clock per call, issue to stream synchronize; median of %d after %d warm-up",
                c.reps, c.warmup);
    gp_stream_t s = NULL;
    gp_buffer_t bx = {0}, by = {0}, bt = {0}, bo = {0};
    const size_t elems = calls * n, obytes = calls * 256;
    char *ref = malloc(obytes), *got = malloc(obytes);
    double *td = malloc(sizeof(double) * (size_t)c.reps), *tg = malloc(sizeof(double) * (size_t)c.reps);
    int rc = EXIT_OK;
    if (!ref || !got || !td || !tg || gp_stream_create(ctx, &s) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, elems * 4, &bx) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, elems * 4, &by) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, elems * 4 + 4 * n, &bt) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, obytes, &bo) != GP_OK ||
        bench_fill_random(ctx, bx.device, elems, GP_F32, 1) != GP_OK ||
        bench_fill_random(ctx, by.device, elems, GP_F32, 2) != GP_OK ||
        gp_memset(ctx, bt.device, 0, elems * 4 + 4 * n, NULL) != GP_OK || gp_stream_sync(ctx, NULL) != GP_OK) {
        fprintf(stderr, "gpuprim bench graph: buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    for (int w = 0; w < W_COUNT && rc == EXIT_OK; w++) {
        gjob_t j = {ctx, (work_t_)w, n, (int)calls, bx.device, by.device, (float *)bt.device + n, bo.device};
        gp_graph_t *g = NULL;
        gp_status_t st = GP_OK;
        /* direct: the reference results, then the timed runs */
        if ((st = gp_memset(ctx, bo.device, 0xff, obytes, s)) == GP_OK && (st = issue(&j, s)) == GP_OK &&
            (st = gp_stream_sync(ctx, s)) == GP_OK)
            st = gp_memcpy_sync(ctx, ref, bo.device, obytes);
        for (int k = 0; k < c.warmup + c.reps && st == GP_OK; k++) {
            const double t0 = now_seconds();
            if ((st = issue(&j, s)) == GP_OK) st = gp_stream_sync(ctx, s);
            if (k >= c.warmup) td[k - c.warmup] = now_seconds() - t0;
        }
        /* captured once, replayed */
        if (st == GP_OK && (st = gp_memset(ctx, bo.device, 0xff, obytes, s)) == GP_OK &&
            (st = gp_stream_sync(ctx, s)) == GP_OK && (st = gp_graph_begin(ctx, s)) == GP_OK) {
            const gp_status_t si = issue(&j, s);
            st = gp_graph_end(ctx, &g);
            if (si != GP_OK) st = si;
        }
        for (int k = 0; k < c.warmup + c.reps && st == GP_OK; k++) {
            const double t0 = now_seconds();
            if ((st = gp_graph_launch(g, s)) == GP_OK) st = gp_stream_sync(ctx, s);
            if (k >= c.warmup) tg[k - c.warmup] = now_seconds() - t0;
        }
        if (st == GP_OK) st = gp_memcpy_sync(ctx, got, bo.device, obytes);
        gp_graph_destroy(g);
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim bench graph: %s: %s\n", k_work_name[w], gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        const int same = memcmp(ref, got, obytes) == 0;
        if (!same) rc = EXIT_MISMATCH;
        qsort(td, (size_t)c.reps, sizeof *td, cmp_double);
        qsort(tg, (size_t)c.reps, sizeof *tg, cmp_double);
        const double d_us = td[c.reps / 2] / (double)calls * 1e6, g_us = tg[c.reps / 2] / (double)calls * 1e6;
        char cn[24], cc[24], cd[24], cg[24], cx[24];
        snprintf(cn, sizeof cn, "%zu", n);
        snprintf(cc, sizeof cc, "%zu", calls);
        snprintf(cd, sizeof cd, "%.2f", d_us);
        snprintf(cg, sizeof cg, "%.2f", g_us);
        snprintf(cx, sizeof cx, "%.2f", g_us > 0 ? d_us / g_us : 0.0);
        const char *cells[] = {k_work_name[w], cn, cc, cd, cg, cx, same ? "ok" : "FAIL: replay differs"};
        report_row(&r, cells);
    }
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) report_print(&r, c.fmt, stdout);
    report_free(&r);
    gp_mem_free(ctx, &bx), gp_mem_free(ctx, &by), gp_mem_free(ctx, &bt), gp_mem_free(ctx, &bo);
    if (s) gp_stream_destroy(ctx, s);
    gp_ctx_destroy(ctx);
    free(ref), free(got), free(td), free(tg);
    return rc;
}

const verb_t bench_suite_graph = {"graph", "", "small calls one by one against the same calls in one CUDA graph", &spec_bench_graph, suite_graph, NULL};
