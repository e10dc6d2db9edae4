/*
 * suite_jit.c — `gpuprim bench jit`: user operators (compiled at run time) against the built-in primitive that
 * computes the same thing, same run: `a + b` over f32 (gp_reduce_uop) against gp_reduce's sum, the sum of squares as
 * one transform-reduce against gp_reduce's plain sum, the user affine map against gp_reduce_ordered's (f32 pairs, n / 2),
 * a user max over i32 against gp_reduce's max, the user affine scan against gp_scan_ordered's, a user predicate's
 * select against gp_select's (x > 0: about half kept), the user `a + b` segmented over a skewed mix of segments against
 * gp_reduce_segmented's sum. ratio = built-in time / ours (1.0 = as fast). Every result is checked:
 * the user op and the built-in give the same bits (sum of squares: gp_reduce of gp_transform's output). The meta
 * lines give a first compile (an empty disk cache) and a disk-cache hit (a second context), in milliseconds. Each row
 * times ours and the built-in alternately (bench_time_pair), so drift over the run falls on both.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "bench.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { J_SUM, J_SQUARES, J_AFFINE, J_MAX, J_SCAN, J_SELECT };

typedef struct jjob {
    gp_ctx_t *ctx;
    int job;
    size_t n;
    void *x, *res, *res2;
    gp_uop_t *op, *map;
    void *y, *y2; /* scans' and selects' outputs */
    gp_uop_t *pred;
} jjob_t;

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    jjob_t *j = u;
    (void)rep;
    if (j->job == J_SQUARES) return gp_transform_reduce(j->ctx, j->map, j->op, j->n, j->x, j->res, s);
    if (j->job == J_SCAN) return gp_scan_uop(j->ctx, j->op, GP_SCAN_INCLUSIVE, j->n, j->x, j->y, s);
    if (j->job == J_SELECT) return gp_select_if(j->ctx, j->pred, j->n, j->x, j->y, (uint64_t *)j->res, s);
    return gp_reduce_uop(j->ctx, j->op, j->n, j->x, j->res, s);
}

static gp_status_t run_builtin(void *u, int rep, gp_stream_t s)
{
    jjob_t *j = u;
    (void)rep;
    switch (j->job) {
    case J_AFFINE: return gp_reduce_ordered(j->ctx, GP_ORDERED_AFFINE, GP_F32, j->n, j->x, j->res2, s);
    case J_MAX: return gp_reduce(j->ctx, GP_REDUCE_MAX, GP_I32, j->n, j->x, j->res2, s);
    case J_SCAN: return gp_scan_ordered(j->ctx, GP_ORDERED_AFFINE, GP_F32, GP_SCAN_INCLUSIVE, j->n, j->x, j->y2, s);
    case J_SELECT: {
        const gp_pred_t gt0 = {GP_PRED_GT, 0, 0, NULL};
        return gp_select(j->ctx, GP_F32, j->n, j->x, &gt0, j->y2, (uint64_t *)j->res2, s);
    }
    default: return gp_reduce(j->ctx, GP_REDUCE_SUM, GP_F32, j->n, j->x, j->res2, s);
    }
}

/* user `a + b` segmented against gp_reduce_segmented's sum: half the data in one segment, then a skewed mix (empty,
 * tiny, medium, large at random; gpuprim bench reduce's segsum_skewed). Bytes: x, offsets read, out written. */
typedef struct sgjob {
    gp_ctx_t *ctx;
    gp_uop_t *op;
    size_t n, nseg;
    const void *x, *off;
    void *out, *out2;
} sgjob_t;
static gp_status_t run_seg_ours(void *u, int rep, gp_stream_t s)
{
    sgjob_t *j = u;
    (void)rep;
    return gp_reduce_segmented_uop(j->ctx, j->op, j->n, j->x, j->nseg, j->off, j->out, s);
}
static gp_status_t run_seg_builtin(void *u, int rep, gp_stream_t s)
{
    sgjob_t *j = u;
    (void)rep;
    return gp_reduce_segmented(j->ctx, GP_REDUCE_SUM, GP_F32, j->n, j->x, j->nseg, j->off, j->out2, s);
}
static int seg_row(gp_ctx_t *ctx, gp_uop_t *sum, size_t n, report_t *r, const cli_common_t *c,
                   const bench_ceilings_t *ce, bench_bars_t *bars)
{
    const size_t cap = n / 16 + 16;
    int64_t *off = malloc(cap * sizeof *off);
    gp_buffer_t bx = {0}, bo = {0}, b1 = {0}, b2 = {0};
    int rc = EXIT_OK;
    if (!off || gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &bx) != GP_OK ||
        bench_fill_random(ctx, bx.device, n, GP_F32, 77) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, cap * 8, &bo) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, cap * 4, &b1) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, cap * 4, &b2) != GP_OK) {
        fprintf(stderr, "gpuprim bench jit: segmented: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    const size_t nseg = off ? bench_skewed_offsets(off, cap, n) : 0;
    if (rc == EXIT_OK && gp_memcpy_sync(ctx, bo.device, off, (nseg + 1) * 8) != GP_OK) rc = EXIT_FAIL;
    sgjob_t j = {ctx, sum, n, nseg, bx.device, bo.device, b1.device, b2.device};
    bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
    if (rc == EXIT_OK && bench_time_pair(ctx, run_seg_ours, run_seg_builtin, &j, c->warmup, c->reps, NULL, &so, &sp) != GP_OK) {
        fprintf(stderr, "gpuprim bench jit: segmented: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK) { /* the check: the built-in's bits on every non-empty segment, the identity -0.0 else */
        float *h1 = malloc(nseg * 4 + 4), *h2 = malloc(nseg * 4 + 4);
        int same = h1 && h2 && gp_memcpy_sync(ctx, h1, b1.device, nseg * 4) == GP_OK &&
                   gp_memcpy_sync(ctx, h2, b2.device, nseg * 4) == GP_OK;
        for (size_t i = 0; same && i < nseg; i++)
            same = off[i + 1] == off[i] ? h1[i] == 0.0f && h2[i] == 0.0f : memcmp(&h1[i], &h2[i], 4) == 0;
        free(h1), free(h2);
        const double moved = (double)n * 4 + (double)(nseg + 1) * 8 + (double)nseg * 4;
        char name[96];
        snprintf(name, sizeof name, "user a + b segmented/%zu%s", nseg, same ? "" : " CHECK FAILED");
        vec_row(r, name, "f32", n, moved, &so, ce, "gp_reduce_segmented sum", sp.median_ms);
        bench_bars_add(bars, bench_gbs(moved, so.median_ms), "%s", name);
        bench_bars_add(bars, bench_gbs(moved, sp.median_ms), "gp_reduce_segmented sum");
        if (!same) rc = EXIT_MISMATCH;
    }
    gp_mem_free(ctx, &bx), gp_mem_free(ctx, &bo), gp_mem_free(ctx, &b1), gp_mem_free(ctx, &b2);
    free(off);
    return rc;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[1200];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

static gp_uop_t *mk(gp_ctx_t *ctx, gp_uop_kind_t kind, gp_dtype_t dt, int k, gp_dtype_t out, const char *src,
                    const char *id, int comm)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = kind, d.dtype = dt, d.arity = k, d.out_dtype = out, d.src = src, d.identity = id, d.commutative = comm;
    gp_uop_t *op = NULL;
    if (gp_uop_create(ctx, &d, &op) != GP_OK) return NULL;
    return op;
}

static const char AFF[] = "r[0] = b[0] * a[0]; r[1] = b[0] * a[1] + b[1];";

typedef struct jit_opts {
    const char *n;
} jit_opts_t;
static const cli_opt_t opts_bench_jit[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(jit_opts_t, n), "elements of each case", "2^28; 2^22 on the CPU backend", NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_jit = {
    "bench jit", COMMON_ALL, NULL, opts_bench_jit, 0, "[options]",
    "User operators against the built-ins computing the same, same run: a + b (f32) vs gp_reduce sum, x * x then\n"
    "a + b (one pass) vs a plain sum, the affine map (f32 pairs) vs gp_reduce_ordered, a max (i32) vs gp_reduce\n"
    "max, the affine scan vs gp_scan_ordered, the select x > 0 vs gp_select gt:0, a + b segmented (a skewed mix)\n"
    "vs gp_reduce_segmented sum; first compile and disk hit.",
    NULL};

static int suite_jit(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    jit_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_jit, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    size_t n = 0;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n < 2 || n > ((size_t)1 << 31)))
        return bad_value("bench jit", "-n", "an element count 2 .. 2^31", opt.n);
    gp_ctx_t *ctx = NULL, *ctx2 = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench jit", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (n == 0) n = gpu ? (size_t)1 << 28 : (size_t)1 << 22;
    report_meta(&r, "peer", "%s", "the built-in primitive computing the same (gp_reduce, gp_reduce_ordered)");
    report_meta(&r, "check", "%s", "the user op's bits = the built-in's");
    report_meta(&r, "pairing", "%s", "ours and the built-in alternate run by run (A B, B A, ...)");
    /* compile times: a fresh disk cache, then a second context reading it */
    const char *saved = getenv("GP_JIT_CACHE");
    char *saved_copy = saved ? strdup(saved) : NULL;
    char tmpl[] = "/tmp/gpuprim-bench-jit-XXXXXX";
    const char *dir = mkdtemp(tmpl);
    gp_uop_t *sum = NULL, *sq = NULL, *aff = NULL, *mx = NULL, *gt = NULL;
    double first_ms = -1, hit_ms = -1;
    if (dir) {
        setenv("GP_JIT_CACHE", dir, 1);
        int src = -1, src2 = -1;
        sum = mk(ctx, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "-0.0f", 1);
        if (sum) first_ms = 1e3 * gp_uop_build_seconds(sum, &src);
        if (gp_ctx_create(&ctx2, gp_ctx_device(ctx)) == GP_OK) {
            gp_uop_t *again = mk(ctx2, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "-0.0f", 1);
            if (again) hit_ms = 1e3 * gp_uop_build_seconds(again, &src2);
            gp_uop_destroy(again);
            gp_ctx_destroy(ctx2);
        }
        report_meta(&r, "compile_first_ms", "%.1f (%s)", first_ms, src == 0 ? "compiled" : "not a compile?");
        report_meta(&r, "compile_disk_hit_ms", "%.2f (%s)", hit_ms, src2 == 1 ? "disk cache" : "not a disk hit?");
        if (saved_copy) setenv("GP_JIT_CACHE", saved_copy, 1);
        else unsetenv("GP_JIT_CACHE");
        rm_tree(dir);
    }
    free(saved_copy);
    if (!sum) sum = mk(ctx, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "-0.0f", 1);
    sq = mk(ctx, GP_UOP_MAP, GP_F32, 1, GP_F32, "x * x", NULL, 1);
    aff = mk(ctx, GP_UOP_BINARY, GP_F32, 2, 0, AFF, "1.0f, 0.0f", 0);
    mx = mk(ctx, GP_UOP_BINARY, GP_I32, 1, 0, "b > a ? b : a", "-2147483647 - 1", 1);
    gt = mk(ctx, GP_UOP_PRED, GP_F32, 1, 0, "x > 0.0f", NULL, 1);
    bench_ceilings_t ce = {0, 0, 0};
    if (!sum || !sq || !aff || !mx || !gt || bench_ceilings(ctx, gpu ? (size_t)1 << 30 : (size_t)256 << 20, c.warmup, c.reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim bench jit: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    static const char *const names[] = {"user a + b", "user x*x then a + b", "user affine (ordered)", "user max",
                                        "user affine scan", "user select x > 0"};
    static const char *const peers[] = {"gp_reduce sum", "gp_reduce sum (plain)", "gp_reduce_ordered affine",
                                        "gp_reduce max", "gp_scan_ordered affine", "gp_select gt:0"};
    static bench_bars_t bars;
    bars.n = 0;
    /* the transform-reduce first: on 2026-11-24 (H200) the first row measured had a slow median (273-278 us, min
     * 245) that the same kernel did not show later; the order is kept so the rows compare */
    static const int order[] = {J_SQUARES, J_SUM, J_AFFINE, J_MAX, J_SCAN, J_SELECT};
    for (int oi = 0; oi < 6 && rc == EXIT_OK; oi++) {
        const int job = order[oi];
        const gp_dtype_t dt = job == J_MAX ? GP_I32 : GP_F32;
        const int pairs = job == J_AFFINE || job == J_SCAN;
        const size_t m = pairs ? n / 2 : n, vals = pairs ? 2 * m : m, bytes = vals * 4;
        double moved = job == J_SCAN ? 2.0 * (double)bytes : (double)bytes; /* scans write as much */
        gp_buffer_t bx = {0}, br = {0}, bsq = {0}, by = {0}, by2 = {0};
        jjob_t j = {ctx, job, m, NULL, NULL, NULL, pairs ? aff : job == J_MAX ? mx : sum, sq, NULL, NULL, gt};
        if ((job == J_SCAN || job == J_SELECT) && (gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &by) != GP_OK ||
                              gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &by2) != GP_OK)) {
            fprintf(stderr, "gpuprim bench jit: %zu bytes: %s\n", bytes, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        j.y = by.device, j.y2 = by2.device;
        if (gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &bx) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, 512, &br) != GP_OK ||
            bench_fill_random(ctx, bx.device, vals, dt, 21 + (unsigned)job) != GP_OK) {
            fprintf(stderr, "gpuprim bench jit: %zu bytes: %s\n", bytes, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        j.x = bx.device, j.res = br.device, j.res2 = (char *)br.device + 256;
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        if (bench_time_pair(ctx, run_ours, run_builtin, &j, c.warmup, c.reps, NULL, &so, &sp) != GP_OK) {
            fprintf(stderr, "gpuprim bench jit: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        int same = 0;
        if (rc == EXIT_OK) { /* the check */
            unsigned char h[512];
            if (gp_memcpy_sync(ctx, h, br.device, 512) == GP_OK) {
                if (job == J_SCAN || job == J_SELECT) {
                    uint64_t k1 = 0, k2 = 0;
                    memcpy(&k1, h, 8);
                    memcpy(&k2, h + 256, 8);
                    const size_t cmp = job == J_SCAN ? bytes : (size_t)k1 * 4;
                    if (job == J_SELECT) moved = (double)bytes + (double)k1 * 4; /* read n, write the kept */
                    unsigned char *a = malloc(bytes), *b = malloc(bytes);
                    same = a && b && (job == J_SCAN || (k1 == k2 && k1 <= m)) &&
                           gp_memcpy_sync(ctx, a, by.device, cmp) == GP_OK &&
                           gp_memcpy_sync(ctx, b, by2.device, cmp) == GP_OK && memcmp(a, b, cmp) == 0;
                    free(a), free(b);
                } else if (job == J_AFFINE) {
                    same = memcmp(h, h + 256, 8) == 0;
                } else if (job == J_MAX) {
                    gp_reduce_result_t rr;
                    memcpy(&rr, h + 256, sizeof rr);
                    int32_t v;
                    memcpy(&v, h, 4);
                    same = (int64_t)v == rr.value.i64;
                } else {
                    gp_reduce_result_t rr;
                    float want = 0;
                    if (job == J_SQUARES) { /* the reference: gp_reduce of the squares */
                        if (gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &bsq) == GP_OK &&
                            gp_transform(ctx, sq, m, bx.device, bsq.device, NULL) == GP_OK &&
                            gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, m, bsq.device, &rr) == GP_OK)
                            want = rr.value.f32;
                    } else {
                        memcpy(&rr, h + 256, sizeof rr);
                        want = rr.value.f32;
                    }
                    same = memcmp(h, &want, 4) == 0;
                }
            }
            if (!same) rc = EXIT_MISMATCH;
        }
        if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
            char name[64];
            snprintf(name, sizeof name, "%s%s", names[job], same ? "" : " CHECK FAILED");
            vec_row(&r, name, gp_dtype_name(dt), m, moved, &so, &ce, peers[job], sp.median_ms);
            bench_bars_add(&bars, bench_gbs(moved, so.median_ms), "%s n=%zu", name, m);
            bench_bars_add(&bars, bench_gbs(moved, sp.median_ms), "%s", peers[job]);
        }
        gp_mem_free(ctx, &bx), gp_mem_free(ctx, &br), gp_mem_free(ctx, &bsq), gp_mem_free(ctx, &by), gp_mem_free(ctx, &by2);
    }
    if (rc == EXIT_OK) rc = seg_row(ctx, sum, n, &r, &c, &ce, &bars);
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
        report_print(&r, c.fmt, stdout);
        if (c.svg && svg_bar_chart(c.svg, "gpuprim bench jit", "GB/s (read)", bars.labels, bars.values, bars.n,
                                   ce.read_gbs, "read-only kernel") != 0 && rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim bench jit: a user op's result differs from the built-in's\n");
    gp_uop_destroy(sum), gp_uop_destroy(sq), gp_uop_destroy(aff), gp_uop_destroy(mx), gp_uop_destroy(gt);
    report_free(&r);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_jit = {"jit", "", "user operators (C compiled at run time) against the built-ins", &spec_bench_jit, suite_jit, NULL};
