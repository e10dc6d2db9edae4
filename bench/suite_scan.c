/*
 * suite_scan.c — `gpuprim bench scan`: gp_scan against CUB's DeviceScan in the same run, with the D2D copy ceiling
 * (a scan reads and writes every element once, like a copy): inclusive sum f32 and exclusive sum u32 at n (default
 * 2^28), inclusive max f32, inclusive sum f64 and small n (2^10 ... 2^20); the first four and the small sums from
 * 2^16 again on each of gp_scan's kernels forced (the look-back kernel, the tile engine). GB/s counts bytes read +
 * written; ratio = CUB time / our time (> 1: we are faster). Every result is checked: on a GPU, bit for bit against the CPU backend
 * (the same association order, docs/design/scan.md), and the u32 exclusive sum also against CUB's.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef struct sjob {
    gp_ctx_t *ctx;
    int ord; /* a gp_ordered_op_t (gp_scan_ordered), or -1 (gp_scan with op), or SEGMENTED */
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    gp_scan_kind_t kind;
    size_t n;
    void *x, *y, *peer_out;
    gp_peer_cub_t peer;
    char err[256];
    size_t nseg;
    const int64_t *offsets; /* device */
} sjob_t;

enum { SEGMENTED = 1000, SEG_LEN = 1000 }; /* the segmented row: segments of SEG_LEN elements */

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    sjob_t *j = u;
    (void)rep;
    if (j->ord == SEGMENTED)
        return gp_scan_segmented(j->ctx, j->op, j->dtype, j->kind, j->n, j->x, j->nseg, j->offsets, j->y, s);
    if (j->ord >= 0) return gp_scan_ordered(j->ctx, (gp_ordered_op_t)j->ord, j->dtype, j->kind, j->n, j->x, j->y, s);
    return gp_scan(j->ctx, j->op, j->dtype, j->kind, j->n, j->x, j->y, s);
}

static gp_status_t run_peer(void *u, int rep, gp_stream_t s)
{
    sjob_t *j = u;
    (void)rep;
    return gp_peer_cub(NULL, j->peer, j->n, j->x, j->peer_out, s, j->err) ? GP_ERR_CUDA : GP_OK;
}

typedef struct scase {
    int ord; /* -1, or a gp_ordered_op_t */
    gp_reduce_op_t op;
    gp_dtype_t dt;
    gp_scan_kind_t kind;
    size_t n;
    int peer;   /* a gp_peer_cub_t, or -1 */
    int kernel; /* 0: the library's choice; 1 the look-back kernel, 2 the tile engine, forced (bench_scan_force_kernel) */
} scase_t;

/* Well-conditioned ordered inputs (host), so that products over 2^27 elements stay finite and NaN-free (NaN bits
 * differ between the backends' hardware, so the bitwise check needs none): affine maps a = +-(1 +- 1e-4), b in
 * [-1, 1); 2x2 matrices within 1e-4 of the identity. */
static void fill_ordered(void *p, int ord, size_t n)
{
    float *f = p;
    uint64_t st = 0x9e3779b97f4a7c15ull;
    const size_t k = gp_ordered_width((gp_ordered_op_t)ord);
    for (size_t i = 0; i < n * k; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        const float u = (float)((double)(st >> 40) * 0x1p-23 - 1.0); /* [-1, 1) */
        const size_t c = i % k;
        if (ord == GP_ORDERED_AFFINE) f[i] = c == 0 ? ((st >> 20) & 1 ? -1.0f : 1.0f) * (1.0f + 1e-4f * u) : u;
        else f[i] = (c == 0 || c == 3 ? 1.0f : 0.0f) + 1e-4f * u;
    }
}
/* the ordered inputs, made on the host and copied up (outside any timed region) */
static gp_status_t fill_ordered_dev(gp_ctx_t *ctx, void *dev, int ord, size_t n)
{
    const size_t bytes = n * 4 * gp_ordered_width((gp_ordered_op_t)ord);
    void *h = malloc(bytes);
    if (h == NULL) return GP_ERR_OUT_OF_MEMORY;
    fill_ordered(h, ord, n);
    const gp_status_t st = gp_memcpy_sync(ctx, dev, h, bytes);
    free(h);
    return st;
}

/* the segmented row's CSR offsets (0, SEG_LEN, 2 SEG_LEN, ..., n), made on the host and copied up */
static gp_status_t seg_offsets(gp_ctx_t *ctx, size_t n, gp_buffer_t *b, size_t *nseg)
{
    *nseg = (n + SEG_LEN - 1) / SEG_LEN;
    int64_t *h = malloc((*nseg + 1) * sizeof *h);
    if (h == NULL) return GP_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i <= *nseg; i++) h[i] = (int64_t)(i * SEG_LEN < n ? i * SEG_LEN : n);
    gp_status_t st = gp_mem_alloc(ctx, GP_MEM_DEVICE, (*nseg + 1) * sizeof *h, b);
    if (st == GP_OK) st = gp_memcpy_sync(ctx, b->device, h, (*nseg + 1) * sizeof *h);
    free(h);
    return st;
}

/* the CPU backend's segmented scan of the same input, for the check */
static gp_status_t seg_cpu(gp_ctx_t *cpu, const sjob_t *j, const void *hx, void *hr)
{
    int64_t *h = malloc((j->nseg + 1) * sizeof *h);
    if (h == NULL) return GP_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; i <= j->nseg; i++) h[i] = (int64_t)(i * SEG_LEN < j->n ? i * SEG_LEN : j->n);
    const gp_status_t st = gp_scan_segmented(cpu, j->op, j->dtype, j->kind, j->n, hx, j->nseg, h, hr, NULL);
    free(h);
    return st;
}

typedef struct scan_opts {
    const char *n;
} scan_opts_t;
static const cli_opt_t opts_bench_scan[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(scan_opts_t, n), "elements of each case", "2^28; 2^22 on the CPU backend", NULL,
     NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_scan = {
    "bench scan", COMMON_ALL, NULL, opts_bench_scan, 0, "[options]",
    "gp_scan against cub::DeviceScan (InclusiveSum f32, ExclusiveSum u32) and the D2D copy, same run: inclusive\n"
    "sum f32, exclusive sum u32, inclusive max f32 at n, inclusive sum f64 at n / 2, the ordered scans affine f32\n"
    "(n / 2 pairs, against CUB's InclusiveScan with an affine operator) and mat2 f32 (n / 4 matrices, against\n"
    "CUB's with a 2x2 product), a segmented f32 sum at n (segments of 1000, CSR offsets), and f32 sums at\n"
    "2^10 .. 2^20; on a GPU the first four, the segmented sum and the f32 sums from 2^16 again with the kernel\n"
    "forced ([look-back], [engine]). Each result is checked bit for bit against the CPU backend (on a GPU). On the\n"
    "CPU backend the plain scans' peer is NumPy's nearest call (np.cumsum, np.maximum.accumulate) on the same arrays.",
    NULL};

static int suite_scan(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    scan_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_scan, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    size_t n = 0;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n == 0 || n > ((size_t)1 << 32)))
        return bad_value("bench scan", "-n", "an element count 1 .. 2^32", opt.n);
    gp_ctx_t *ctx = NULL, *cpu = NULL;
    report_t r;
    char desc[512];
    bench_ceilings_t ce;
    int rc = bench_begin_checked("gpuprim bench scan", &c, "CUB (cub::DeviceScan) from the CUDA toolkit",
                                 "bits = the CPU backend (docs/design/scan.md); u32 also = CUB", &n, &ctx, &cpu, &r,
                                 &ce, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (!gpu) bench_numpy_meta(&r);
    scase_t cases[32];
    int nc = 0;
    cases[nc++] = (scase_t){-1, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, GP_PEER_SCAN_SUM_F32, 0};
    cases[nc++] = (scase_t){-1, GP_REDUCE_SUM, GP_U32, GP_SCAN_EXCLUSIVE, n, GP_PEER_EXSCAN_SUM_U32, 0};
    cases[nc++] = (scase_t){-1, GP_REDUCE_MAX, GP_F32, GP_SCAN_INCLUSIVE, n, -1, 0};
    cases[nc++] = (scase_t){-1, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, n / 2 ? n / 2 : 1, -1, 0};
    /* ordered: affine f32 at n / 2 pairs, mat2 f32 at n / 4 matrices (the bytes of n floats) */
    cases[nc++] = (scase_t){GP_ORDERED_AFFINE, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n / 2 ? n / 2 : 1,
                            GP_PEER_SCAN_AFFINE_F32, 0};
    cases[nc++] = (scase_t){GP_ORDERED_MAT2, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n / 4 ? n / 4 : 1,
                            GP_PEER_SCAN_MAT2_F32, 0};
    cases[nc++] = (scase_t){SEGMENTED, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, -1, 0};
    for (size_t k = 1u << 10; k <= (1u << 20) && k < n; k <<= 2)
        cases[nc++] = (scase_t){-1, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, k, GP_PEER_SCAN_SUM_F32, 0};
    /* the first four and the segmented sum again on each kernel, forced, and the small sums the engine takes
     * (n >= 2^16) */
    const int nplain = nc;
    for (int kern = 1; kern <= 2 && gpu; kern++)
        for (int k = 0; k < nplain; k++)
            if (k < 4 || cases[k].ord == SEGMENTED || (cases[k].ord < 0 && cases[k].n >= (1u << 16) && cases[k].n <= (1u << 20))) {
                cases[nc] = cases[k];
                cases[nc++].kernel = kern;
            }
    static bench_bars_t bars;
    bars.n = 0;
    for (int ci = 0; ci < nc && rc == EXIT_OK; ci++) {
        const int ord = cases[ci].ord;
        const size_t m = cases[ci].n,
                     es = gp_dtype_size(cases[ci].dt) *
                          (ord >= 0 && ord != SEGMENTED ? gp_ordered_width((gp_ordered_op_t)ord) : 1),
                     bytes = m * es;
        gp_buffer_t bx = {0}, by = {0}, bp = {0}, bo = {0};
        sjob_t j = {ctx, ord, cases[ci].op, cases[ci].dt, cases[ci].kind, m, NULL, NULL, NULL,
                    (gp_peer_cub_t)(cases[ci].peer < 0 ? 0 : cases[ci].peer), "", 0, NULL};
        const int has_peer = gpu && cases[ci].peer >= 0;
        if (gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &bx) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &by) != GP_OK ||
            (has_peer && gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &bp) != GP_OK) ||
            (ord >= 0 && ord != SEGMENTED && fill_ordered_dev(ctx, bx.device, ord, m) != GP_OK) ||
            (ord == SEGMENTED && seg_offsets(ctx, m, &bo, &j.nseg) != GP_OK) ||
            ((ord < 0 || ord == SEGMENTED) && bench_fill_random(ctx, bx.device, m, cases[ci].dt == GP_F32 || cases[ci].dt == GP_F64 ? cases[ci].dt : GP_U32,
                              5 + (unsigned)ci) != GP_OK)) {
            fprintf(stderr, "gpuprim bench scan: %zu bytes: %s\n", bytes, gp_last_error());
            rc = EXIT_FAIL;
        }
        j.x = bx.device, j.y = by.device, j.peer_out = bp.device, j.offsets = bo.device;
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        bench_scan_force_kernel(cases[ci].kernel);
        /* the CPU backend's peer: NumPy's nearest call on the same array (none for the ordered and segmented), timed
         * alternately with ours (ours' times are those rounds'; ours alone below where no peer ran) */
        char np_name[128] = "";
        double np_ms = 0;
        if (rc == EXIT_OK && !gpu && ord < 0) {
            const char *stmt = j.op == GP_REDUCE_MAX ? "np.maximum.accumulate(x)"
                               : j.kind == GP_SCAN_EXCLUSIVE
                                   ? "o = np.empty_like(x); o[0] = 0; np.cumsum(x[:-1], out=o[1:], dtype=x.dtype)"
                                   : "np.cumsum(x)";
            np_ms = bench_numpy_peer1(ctx, run_ours, &j, &so, stmt,
                                      j.op == GP_REDUCE_MAX ? "np.maximum.accumulate" : "np.cumsum", j.x, j.dtype, m,
                                      1, c.warmup, c.reps, np_name, sizeof np_name);
            if (np_ms < 0) { /* ours failed in the alternated rounds */
                fprintf(stderr, "gpuprim bench scan: %s\n", gp_last_error());
                rc = EXIT_FAIL, np_ms = 0;
            }
        }
        if (rc == EXIT_OK && so.reps == 0 &&
            bench_time(ctx, run_ours, NULL, &j, c.warmup, c.reps, NULL, &so) != GP_OK) {
            fprintf(stderr, "gpuprim bench scan: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        bench_scan_force_kernel(0);
        if (rc == EXIT_OK && has_peer &&
            (gp_peer_cub_prepare(NULL, j.peer, m, j.err) != 0 ||
             bench_time(ctx, run_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK)) {
            fprintf(stderr, "gpuprim bench scan: %s\n", j.err);
            rc = EXIT_FAIL;
        }
        /* the check: our output's bits against the CPU backend's on the same input (and CUB's for u32) */
        int same = 1;
        if (rc == EXIT_OK && gpu) {
            void *hx = malloc(bytes), *ho = malloc(bytes), *hr = malloc(bytes);
            same = hx && ho && hr && gp_memcpy_sync(ctx, hx, bx.device, bytes) == GP_OK &&
                       gp_memcpy_sync(ctx, ho, by.device, bytes) == GP_OK &&
                       (ord == SEGMENTED ? seg_cpu(cpu, &j, hx, hr)
                        : ord >= 0      ? gp_scan_ordered(cpu, (gp_ordered_op_t)ord, j.dtype, j.kind, m, hx, hr, NULL)
                                        : gp_scan(cpu, j.op, j.dtype, j.kind, m, hx, hr, NULL)) == GP_OK &&
                       memcmp(ho, hr, bytes) == 0;
            if (same && j.dtype == GP_U32 && has_peer)
                same = gp_memcpy_sync(ctx, hr, bp.device, bytes) == GP_OK && memcmp(ho, hr, bytes) == 0;
            if (!same) rc = EXIT_MISMATCH;
            free(hx), free(ho), free(hr);
        }
        if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
            char name[64];
            snprintf(name, sizeof name, "%s%s%s%s", j.kind == GP_SCAN_EXCLUSIVE ? "exclusive " : "",
                     ord == SEGMENTED ? "segmented sum"
                     : ord >= 0       ? gp_ordered_op_name((gp_ordered_op_t)ord)
                                      : gp_reduce_op_name(j.op),
                     cases[ci].kernel == 1 ? " [look-back]" : cases[ci].kernel == 2 ? " [engine]" : "",
                     same ? "" : " CHECK FAILED");
            vec_row(&r, name, gp_dtype_name(j.dtype), m, 2.0 * (double)bytes, &so, &ce,
                    has_peer ? gp_peer_cub_name(j.peer) : np_name, has_peer ? sp.median_ms : np_ms);
            bench_bars_add(&bars, bench_gbs(2.0 * (double)bytes, so.median_ms), "%s %s n=%zu", name,
                           gp_dtype_name(j.dtype), m);
            if (has_peer) bench_bars_add(&bars, bench_gbs(2.0 * (double)bytes, sp.median_ms), "%s", gp_peer_cub_name(j.peer));
        }
        gp_mem_free(ctx, &bx), gp_mem_free(ctx, &by), gp_mem_free(ctx, &bp), gp_mem_free(ctx, &bo);
    }
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
        report_print(&r, c.fmt, stdout);
        if (c.svg && svg_bar_chart(c.svg, "gpuprim bench scan", "GB/s (read + write)", bars.labels, bars.values,
                                   bars.n, ce.d2d_gbs, "D2D cudaMemcpy") != 0 && rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim bench scan: a result differs from the CPU backend's bits\n");
    report_free(&r);
    gp_ctx_destroy(cpu);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_scan = {"scan", "", "gp_scan against cub::DeviceScan and the D2D copy, ordered scans too", &spec_bench_scan, suite_scan, NULL};
