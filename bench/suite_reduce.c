/*
 * suite_reduce.c — `gpuprim bench reduce`: gp_reduce against CUB (cub::DeviceReduce) in the same run, the
 * segmented sums against cub::DeviceSegmentedReduce, and the ordered reductions against cub::DeviceScan.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef struct rjob {
    gp_ctx_t *ctx;
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    size_t n;
    int nsets;
    void **x;
    void *out; /* 256 device bytes: ours at 0, the peer's at 64 */
    gp_peer_cub_t peer;
    char err[256];
    int ordered; /* a gp_ordered_op_t, or -1 */
    int wide;    /* accumulate in f64 (gp_reduce_acc) */
} rjob_t;

static gp_status_t run_reduce(void *u, int rep, gp_stream_t s)
{
    rjob_t *j = u;
    if (j->ordered >= 0)
        return gp_reduce_ordered(j->ctx, (gp_ordered_op_t)j->ordered, j->dtype, j->n, j->x[rep % j->nsets], j->out, s);
    if (j->wide)
        return gp_reduce_acc(j->ctx, j->op, j->dtype, GP_F64, j->n, j->x[rep % j->nsets], (gp_reduce_result_t *)j->out,
                             s);
    return gp_reduce(j->ctx, j->op, j->dtype, j->n, j->x[rep % j->nsets], (gp_reduce_result_t *)j->out, s);
}

static gp_status_t run_reduce_peer(void *u, int rep, gp_stream_t s)
{
    rjob_t *j = u;
    return gp_peer_cub(NULL, j->peer, j->n, j->x[rep % j->nsets], (char *)j->out + 64, s, j->err) ? GP_ERR_CUDA
                                                                                                      : GP_OK;
}

typedef struct rcase {
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    size_t n;
    int peer;    /* gp_peer_cub_t, or -1 */
    int ordered; /* a gp_ordered_op_t (then op is ignored), or -1 */
    int wide;    /* accumulate in f64 */
} rcase_t;

/* Segmented sums of f32 against cub::DeviceSegmentedReduce: a skewed mix (half the data in one segment, then empty,
 * tiny, medium and large segments at random) and uniform segments. Bytes: x read, offsets read, out written. */
typedef struct sjob {
    gp_ctx_t *ctx;
    size_t n, nseg;
    const float *x;
    const long long *off;
    float *out;
    char err[256];
} sjob_t;

static gp_status_t run_seg(void *u, int rep, gp_stream_t s)
{
    sjob_t *j = u;
    (void)rep;
    return gp_reduce_segmented(j->ctx, GP_REDUCE_SUM, GP_F32, j->n, j->x, j->nseg, (const int64_t *)j->off, j->out, s);
}

static gp_status_t run_seg_peer(void *u, int rep, gp_stream_t s)
{
    sjob_t *j = u;
    (void)rep;
    return gp_peer_segsum(j->nseg, j->off, j->x, j->out, s, j->err) ? GP_ERR_CUDA : GP_OK;
}

static int bench_segmented_rows(gp_ctx_t *ctx, report_t *r, size_t n, const cli_common_t *c, const bench_ceilings_t *ce)
{
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    const size_t cap = n / 16 + 16;
    long long *off = malloc(cap * sizeof *off);
    gp_buffer_t bx = {0}, boff = {0}, bout = {0};
    int rc = EXIT_OK;
    if (!off || gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &bx) != GP_OK ||
        bench_fill_random(ctx, bx.device, n, GP_F32, 4242) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, cap * 8, &boff) != GP_OK ||
        gp_mem_alloc(ctx, GP_MEM_DEVICE, cap * 4, &bout) != GP_OK) {
        fprintf(stderr, "gpuprim bench reduce: segmented: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    for (int layout = 0; layout < 3 && rc == EXIT_OK; layout++) {
        size_t k = 0, pos = 0;
        const char *name = layout == 0 ? "segsum_skewed" : layout == 1 ? "segsum_uniform1k" : "segsum_uniform128k";
        off[k++] = 0;
        if (layout == 0) {
            k = bench_skewed_offsets((int64_t *)off, cap, n) + 1;
        } else {
            const size_t len = layout == 1 ? 1024 : 131072;
            for (pos = len; pos <= n && k + 1 < cap; pos += len) off[k++] = (long long)pos;
        }
        const size_t nseg = k - 1, bytes = n * 4 + (nseg + 1) * 8 + nseg * 4;
        if (gp_memcpy_sync(ctx, boff.device, off, (nseg + 1) * 8) != GP_OK) {
            rc = EXIT_FAIL;
            break;
        }
        sjob_t j = {ctx, n, nseg, bx.device, boff.device, bout.device, ""};
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        /* the CPU backend's peer: np.add.reduceat over the segments' starts (its last segment runs to the end, as
         * ours does here), timed alternately with ours */
        char np_name[128] = "";
        double np_ms = 0, np_min = 0;
        if (!gpu) {
            static const char *const names[2] = {"x", "o"};
            const void *const data[2] = {bx.device, off};
            const gp_dtype_t dts[2] = {GP_F32, GP_I64};
            const size_t counts[2] = {n, nseg};
            const int e = bench_numpy_time(ctx, run_seg, &j, &so, "np.add.reduceat(x, o)", 2, names, data, dts, counts,
                                           c->warmup, c->reps, &np_ms, &np_min);
            if (e == -2) {
                fprintf(stderr, "gpuprim bench reduce: %s: %s\n", name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            if (e == 0) snprintf(np_name, sizeof np_name, "NumPy %s np.add.reduceat", bench_numpy_version());
            else np_ms = 0;
        }
        if (so.reps == 0 && bench_time(ctx, run_seg, NULL, &j, c->warmup, c->reps, NULL, &so) != GP_OK) {
            fprintf(stderr, "gpuprim bench reduce: %s: %s\n", name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        if (gpu && (gp_peer_segsum_prepare(nseg, j.off, j.err) != 0 ||
                    bench_time(ctx, run_seg_peer, NULL, &j, c->warmup, c->reps, NULL, &sp) != GP_OK)) {
            fprintf(stderr, "gpuprim bench reduce: %s\n", j.err);
            rc = EXIT_FAIL;
            break;
        }
        char nm[64];
        snprintf(nm, sizeof nm, "%s/%zu", name, nseg);
        vec_row(r, nm, "f32", n, (double)bytes, &so, ce, gpu ? "cub::SegmentedReduce" : np_name,
                gpu ? sp.median_ms : np_ms);
    }
    gp_mem_free(ctx, &bx), gp_mem_free(ctx, &boff), gp_mem_free(ctx, &bout);
    free(off);
    return rc;
}

static sweep_t sw_bench_reduce;
typedef struct reduce_opts {
    const char *n;
} reduce_opts_t;
static const cli_opt_t opts_bench_reduce[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(reduce_opts_t, n), "elements of each case (not with the sweep)",
     "2^28; 2^22 on the CPU backend", NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_reduce = {
    "bench reduce", COMMON_ALL, &sw_bench_reduce, opts_bench_reduce, 0, "[options]",
    "gp_reduce against CUB (cub::DeviceReduce) measured in the same run: sum/max f32, sum/min i32 at n, the\n"
    "u8 -> u64 sum of 1e9 bytes, small-n sums (2^10 .. 2^20), and the ordered (non-commutative) reductions over\n"
    "the same bytes (mat2 f32 against cub::DeviceScan::InclusiveScan). The sweep: instead, sum/max/argmax f32\n"
    "and sum/min i32 over input sizes. On the CPU backend the plain reductions' peer is NumPy's call (np.sum,\n"
    "np.min, np.max, np.argmax) on the same array, the segmented sums' np.add.reduceat over the segments' starts.",
    "bytes of each input, 1 MiB to 1 GiB by 4"};

static int suite_reduce(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    size_t n = 0;
    sw_bench_reduce = (sweep_t){1u << 20, (size_t)1 << 30, 4, 0};
    reduce_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_reduce, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n == 0)) return bad_value("bench reduce", "-n", "an element count > 0", opt.n);
    if (sweep_check("bench reduce", &sw_bench_reduce) != 0) return EXIT_USAGE;
    if (sw_bench_reduce.given && n) return fprintf(stderr, "gpuprim bench reduce: -n and -b/-e exclude each other\n"), EXIT_USAGE;
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench reduce", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (n == 0) n = gpu ? (size_t)1 << 28 : (size_t)1 << 22;
    gp_status_t st;
    report_meta(&r, "peer", "%s", gpu ? "CUB (cub::DeviceReduce) from the CUDA toolkit" : "none on the CPU backend");
    if (!gpu) bench_numpy_meta(&r);
    bench_ceilings_t ce = {0, 0, 0};
    if ((st = bench_ceilings(ctx, gpu ? (size_t)1 << 30 : (size_t)256 << 20, c.warmup, c.reps, &ce)) != GP_OK) {
        fprintf(stderr, "gpuprim bench reduce: ceilings: %s\n", gp_last_error());
        report_free(&r);
        gp_ctx_destroy(ctx);
        return EXIT_FAIL;
    }
    const size_t small[] = {1u << 10, 1u << 14, 1u << 16, 1u << 18, 1u << 20};
    rcase_t cases[64];
    int nc = 0;
    if (sw_bench_reduce.given) {
        size_t sizes[12];
        const size_t ns = sweep_sizes(&sw_bench_reduce, sizes, 12);
        for (size_t i = 0; i < ns; i++) {
            const size_t m = (sizes[i] + 3) / 4;
            cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, m, GP_PEER_SUM_F32, -1, 0};
            cases[nc++] = (rcase_t){GP_REDUCE_MAX, GP_F32, m, GP_PEER_MAX_F32, -1, 0};
            cases[nc++] = (rcase_t){GP_REDUCE_ARGMAX, GP_F32, m, -1, -1, 0};
            cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_I32, m, GP_PEER_SUM_I32, -1, 0};
            cases[nc++] = (rcase_t){GP_REDUCE_MIN, GP_I32, m, GP_PEER_MIN_I32, -1, 0};
        }
    } else {
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, n, GP_PEER_SUM_F32, -1, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_I32, n, GP_PEER_SUM_I32, -1, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_MAX, GP_F32, n, GP_PEER_MAX_F32, -1, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_MIN, GP_I32, n, GP_PEER_MIN_I32, -1, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_ARGMAX, GP_F32, n, -1, -1, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F64, n / 2, -1, -1, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, n, -1, -1, 1}; /* f32 data, f64 accumulator */
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_U8, gpu ? (size_t)1000000000 : n, GP_PEER_SUM_U8_U64, -1, 0};
        for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
            cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, small[i], GP_PEER_SUM_F32, -1, 0};
        /* ordered (non-commutative) reductions: n / 4 elements of 2x2 f32 = the same bytes as the f32 sums */
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, n / 4, GP_PEER_SCAN_MAT2_F32, GP_ORDERED_MAT2, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_U32, n / 4, -1, GP_ORDERED_MAT2, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, n / 9, -1, GP_ORDERED_MAT3, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, n / 16, -1, GP_ORDERED_MAT4, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F64, n / 8, -1, GP_ORDERED_MAT2, 0};
        cases[nc++] = (rcase_t){GP_REDUCE_SUM, GP_F32, n / 2, -1, GP_ORDERED_AFFINE, 0};
    }
    gp_buffer_t out = {0};
    if (gp_mem_alloc(ctx, GP_MEM_DEVICE, 256, &out) != GP_OK) rc = EXIT_FAIL;
    static bench_bars_t bars;
    bars.n = 0;
    for (int ci = 0; ci < nc && rc == EXIT_OK; ci++) {
        const rcase_t *k = &cases[ci];
        const size_t bytes = k->n * gp_dtype_size(k->dtype) * (k->ordered >= 0 ? gp_ordered_width(k->ordered) : 1);
        const int nsets = bench_rotation_sets(ctx, bytes, 16);
        gp_buffer_t *bufs = calloc((size_t)nsets, sizeof *bufs);
        void **ptrs = calloc((size_t)nsets, sizeof *ptrs);
        rjob_t j = {ctx, k->op, k->dtype, k->n, nsets, ptrs, out.device, (gp_peer_cub_t)(k->peer < 0 ? 0 : k->peer), "",
                    k->ordered, k->wide};
        const char *opname = k->ordered >= 0 ? gp_ordered_op_name(k->ordered)
                             : k->wide       ? "sum>f64"
                                             : gp_reduce_op_name(k->op);
        for (int s = 0; s < nsets && rc == EXIT_OK; s++) {
            /* Random bytes for any dtype: fill as i32 words (values in [-1024, 1023]; floats then are finite). */
            gp_dtype_t fill = k->dtype == GP_F32 || k->dtype == GP_F64 ? k->dtype : GP_I32;
            size_t words = (bytes + gp_dtype_size(fill) - 1) / gp_dtype_size(fill);
            if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, words * gp_dtype_size(fill), &bufs[s])) != GP_OK ||
                (st = bench_fill_random(ctx, bufs[s].device, words, fill, 77 + (unsigned)s)) != GP_OK) {
                fprintf(stderr, "gpuprim bench reduce: %zu bytes: %s\n", bytes, gp_last_error());
                rc = EXIT_FAIL;
            }
            ptrs[s] = bufs[s].device;
        }
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        /* the CPU backend's peer: NumPy's call on as many copies of the first input (not for the ordered products),
         * timed alternately with ours (ours' times are those rounds'; ours alone below where no peer ran) */
        char np_name[128] = "";
        double np_ms = 0;
        if (rc == EXIT_OK && !gpu && k->ordered < 0) {
            const char *stmt = NULL, *what = NULL;
            switch (k->op) {
            case GP_REDUCE_SUM: stmt = k->wide ? "np.sum(x, dtype=np.float64)" : "np.sum(x)", what = "np.sum"; break;
            case GP_REDUCE_MIN: stmt = "np.min(x)", what = "np.min"; break;
            case GP_REDUCE_MAX: stmt = "np.max(x)", what = "np.max"; break;
            case GP_REDUCE_ARGMAX: stmt = "np.argmax(x)", what = "np.argmax"; break;
            default: break;
            }
            np_ms = bench_numpy_peer1(ctx, run_reduce, &j, &so, stmt, what, ptrs[0], k->dtype, k->n, nsets, c.warmup,
                                      c.reps, np_name, sizeof np_name);
            if (np_ms < 0) { /* ours failed in the alternated rounds */
                fprintf(stderr, "gpuprim bench reduce: %s\n", gp_last_error());
                rc = EXIT_FAIL, np_ms = 0;
            }
        }
        if (rc == EXIT_OK && so.reps == 0 &&
            (st = bench_time(ctx, run_reduce, NULL, &j, c.warmup, c.reps, NULL, &so)) != GP_OK) {
            fprintf(stderr, "gpuprim bench reduce: %s %s: %s\n", opname, gp_dtype_name(k->dtype),
                    gp_last_error());
            rc = EXIT_FAIL;
        }
        const int has_peer = gpu && k->peer >= 0 && rc == EXIT_OK;
        if (has_peer && (gp_peer_cub_prepare(NULL, j.peer, k->n, j.err) != 0 ||
                         bench_time(ctx, run_reduce_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK)) {
            fprintf(stderr, "gpuprim bench reduce: %s\n", j.err);
            rc = EXIT_FAIL;
        }
        if (rc == EXIT_OK) {
            vec_row(&r, opname, gp_dtype_name(k->dtype), k->n, (double)bytes, &so, &ce,
                    has_peer ? gp_peer_cub_name(j.peer) : np_name, has_peer ? sp.median_ms : np_ms);
            bench_bars_add(&bars, bench_gbs((double)bytes, so.median_ms), "%s %s n=%zu", opname,
                           gp_dtype_name(k->dtype), k->n);
            if (has_peer)
                bench_bars_add(&bars, bench_gbs((double)bytes, sp.median_ms), "%s (peer)", gp_peer_cub_name(j.peer));
        }
        for (int s = 0; s < nsets; s++) gp_mem_free(ctx, &bufs[s]);
        free(bufs);
        free(ptrs);
    }
    if (rc == EXIT_OK && !sw_bench_reduce.given) rc = bench_segmented_rows(ctx, &r, n, &c, &ce);
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_OK && c.svg) {
        char title[700];
        char date[16];
        today(date, sizeof date);
        snprintf(title, sizeof title, "gpuprim bench reduce\n%s\n%s; peer: CUB", desc, date);
        if (svg_bar_chart(c.svg, title, "GB/s read (1e9 B/s)", bars.labels, bars.values, bars.n,
                          ce.read_gbs, "read-only kernel") != 0)
            rc = EXIT_FAIL;
    }
    gp_mem_free(ctx, &out);
    report_free(&r);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_reduce = {"reduce", "", "gp_reduce against cub::DeviceReduce: sums, min / max, small n, ordered ops", &spec_bench_reduce, suite_reduce, NULL};
