/*
 * cmd_bench.c — `gpuprim bench vector`: the production vector ops against the ceilings and the peer, in one run.
 *   rows: ceilings (D2D cudaMemcpy, read-only kernel), then copy, scale, add, triad, dot per dtype, then the peer
 *   rows (cuBLAS axpy for triad, cuBLAS dot for dot). ratio = peer time / our time (> 1: we are faster).
 *   GB/s counts each element read or written once (triad 12 B per f32 element), 1e9 B/s.
 */
#include "commands.h"


#include <stdlib.h>
#include <string.h>

/* The vector ops in the order the bench runs them, and the arrays each reads and writes per element. */
typedef enum { V_COPY, V_SCALE, V_ADD, V_TRIAD, V_DOT, V_NOPS } vop_t;
static const char *const k_vop_name[V_NOPS] = {"copy", "scale", "add", "triad", "dot"};
static const int k_vop_streams[V_NOPS] = {2, 2, 3, 3, 2};

typedef struct vjob {
    gp_ctx_t *ctx;
    vop_t op;
    gp_dtype_t dtype;
    size_t n;
    int nsets;
    void **x, **y, **z;       /* nsets each */
    void *result;             /* 8 bytes, device-accessible */
    gp_peer_t *peer;
    int use_peer;
    char err[256];
} vjob_t;

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    vjob_t *j = u;
    int k = rep % j->nsets;
    const double alpha = j->dtype == GP_I32 ? 3.0 : 0.5; /* i32 takes integer scalars */
    switch (j->op) {
    case V_COPY: return gp_vec_copy(j->ctx, j->dtype, j->n, j->x[k], j->z[k], s);
    case V_SCALE: return gp_vec_scale(j->ctx, j->dtype, j->n, alpha, j->x[k], j->z[k], s);
    case V_ADD: return gp_vec_add(j->ctx, j->dtype, j->n, j->x[k], j->y[k], j->z[k], s);
    case V_TRIAD: return gp_vec_triad(j->ctx, j->dtype, j->n, alpha, j->x[k], j->y[k], j->z[k], s);
    case V_DOT: return gp_vec_dot(j->ctx, j->dtype, j->n, j->x[k], j->y[k], j->result, s);
    default: return GP_ERR_INTERNAL;
    }
}

static gp_status_t run_peer(void *u, int rep, gp_stream_t s)
{
    vjob_t *j = u;
    int k = rep % j->nsets, es = (int)gp_dtype_size(j->dtype);
    int bad = j->op == V_TRIAD ? gp_peer_axpy(j->peer, es, j->n, 0.5, j->y[k], j->z[k], s, j->err)
                                     : gp_peer_dot(j->peer, es, j->n, j->x[k], j->y[k], j->result, s, j->err);
    return bad ? GP_ERR_CUDA : GP_OK;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim bench vector [-d DEVICE|cpu] [-n N | -b BYTES -e BYTES -f FACTOR] [--dtype f32|f64|i32|all]\n"
               "                            [--reps N] [--warmup N] [--json|--csv] [--svg FILE]\n"
               "  times copy, scale, add, triad (z = x + a*y), dot against D2D cudaMemcpy and a read-only kernel,\n"
               "  and against cuBLAS axpy / dot measured in the same run. Default n = 2^28 on a GPU, 2^24 on the CPU.\n"
               "  -b/-e/-f: a sweep of array sizes in bytes instead (nccl-tests' convention; default 1 MiB to 1 GiB\n"
               "  by 4).\n");
}

/* Formats one result row. peer_ms <= 0: no peer. */
void vec_row(report_t *r, const char *name, const char *dtype, size_t n, double bytes, const bench_stats_t *s,
                    const bench_ceilings_t *ce, const char *peer_name, double peer_ms)
{
    char cn[32], cmb[32], cmed[32], cmin[32], cg[32], cd[32], cr[32], cpu_[32], crat[32];
    double g = bench_gbs(bytes, s->median_ms);
    snprintf(cn, sizeof cn, "%zu", n);
    snprintf(cmb, sizeof cmb, "%.1f", bytes / 1e6);
    snprintf(cmed, sizeof cmed, "%.1f", s->median_ms * 1e3);
    snprintf(cmin, sizeof cmin, "%.1f", s->min_ms * 1e3);
    snprintf(cg, sizeof cg, "%.1f", g);
    snprintf(cd, sizeof cd, "%.1f", ce->d2d_gbs > 0 ? 100.0 * g / ce->d2d_gbs : 0.0);
    snprintf(cr, sizeof cr, "%.1f", ce->read_gbs > 0 ? 100.0 * g / ce->read_gbs : 0.0);
    cpu_[0] = crat[0] = 0;
    if (peer_ms > 0) {
        snprintf(cpu_, sizeof cpu_, "%.1f", peer_ms * 1e3);
        snprintf(crat, sizeof crat, "%.3f", peer_ms / s->median_ms);
    }
    const char *cells[] = {name, dtype, cn, cmb, cmed, cmin, cg, cd, cr, peer_ms > 0 ? peer_name : "", cpu_, crat};
    report_row(r, cells);
}

/* What every bench verb starts with: the context the options ask for (the CPU backend, with a note, where there is no
 * GPU), default repetitions, and the report with its shared columns and metadata. Returns EXIT_OK or an exit code. */
int bench_begin(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen)
{
    static const char *const cols[] = {"op", "dtype", "n", "MB", "median_us", "min_us", "GB/s", "%d2d", "%read",
                                       "peer", "peer_us", "ratio"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1};
    return bench_begin_cols(title, c, ctx, r, desc, dlen, cols, num, 12, NULL);
}

int bench_begin_cols(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen,
                     const char *const *cols, const int *num, int ncols, const char *inputs)
{
    char why[700];
    gp_status_t st = open_context(c->device, ctx, why, sizeof why);
    if (st != GP_OK) {
        fprintf(stderr, "%s: %s: %s\n", title, gp_status_string(st), gp_last_error());
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    const int gpu = gp_ctx_device(*ctx) != GP_DEVICE_CPU;
    if (why[0]) note_cpu(title, why, "timing the CPU backend");
    if (c->reps < 0) c->reps = gpu ? 20 : 3;
    if (c->warmup < 0) c->warmup = gpu ? 3 : 1;
    report_init(r, title, cols, num, ncols);
    char date[16];
    describe_device(*ctx, desc, dlen);
    today(date, sizeof date);
    report_meta(r, "device", "%s", desc);
    report_meta(r, "date", "%s", date);
    report_meta(r, "timing", "median of %d after %d warm-up; %s", c->reps, c->warmup,
                inputs ? inputs : "inputs rotated over > 2x L2; GB/s = 1e9 B/s");
    return EXIT_OK;
}

int bench_vector(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, -1, -1, 0};
    size_t n_opt = 0;
    sweep_t sw = {1u << 20, (size_t)1 << 30, 4, 0};
    int dts[3] = {GP_F32, -1, -1}, ndt = 1;
    const char *o_n = NULL, *o_dtype = NULL;
    const cli_opt_t opts[] = {{"-n", "N", &o_n}, {"--dtype", "T|all", &o_dtype}, {NULL, NULL, NULL}};
    const cli_spec_t spec = {"bench vector", COMMON_ALL, &sw, opts, 0, usage};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (o_n && (parse_size(o_n, &n_opt) != 0 || n_opt == 0))
        return bad_value("bench vector", "-n", "an element count > 0", o_n);
    if (o_dtype) {
        gp_dtype_t d;
        if (strcmp(o_dtype, "all") == 0)
            dts[0] = GP_F32, dts[1] = GP_F64, dts[2] = GP_I32, ndt = 3;
        else if (gp_dtype_parse(o_dtype, &d) == GP_OK && (d == GP_F32 || d == GP_F64 || d == GP_I32))
            dts[0] = d, ndt = 1;
        else
            return bad_value("bench vector", "--dtype", "f32, f64, i32 or all", o_dtype);
    }
    if (sweep_check("bench vector", &sw) != 0) return EXIT_USAGE;
    if (sw.given && n_opt) return fprintf(stderr, "gpuprim bench vector: -n and -b/-e exclude each other\n"), EXIT_USAGE;
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench vector", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (n_opt == 0) n_opt = gpu ? (size_t)1 << 28 : (size_t)1 << 24;
    size_t sizes[64];
    const size_t nsizes = sw.given ? sweep_sizes(&sw, sizes, 64) : 1;
    gp_status_t st;
    gp_peer_t *peer = NULL;
    char perr[256] = "";
    if (gpu && gp_peer_create(&peer, gp_ctx_device(ctx), perr) != 0) {
        fprintf(stderr, "gpuprim bench vector: peer unavailable: %s\n", perr);
        peer = NULL;
    }
    report_meta(&r, "peer", "%s", gpu ? gp_peer_version(peer) : "none on the CPU backend");

    /* Ceilings measured now, on the same device: 1 GiB buffers (less where memory is short). */
    bench_ceilings_t ce = {0, 0, 0};
    size_t cbytes = gpu ? (size_t)1 << 30 : (size_t)256 << 20;
    if (gpu) {
        gp_device_info_t di;
        if (gp_device_info(gp_ctx_device(ctx), &di) == GP_OK && cbytes > di.free_mem_bytes / 4)
            cbytes = di.free_mem_bytes / 4;
    }
    if ((st = bench_ceilings(ctx, cbytes, c.warmup, c.reps, &ce)) != GP_OK) {
        fprintf(stderr, "gpuprim bench vector: ceilings: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    {
        bench_stats_t sd = {ce.bytes * 2.0 / (ce.d2d_gbs * 1e9) * 1e3, 0, 0, c.reps};
        bench_stats_t sr = {ce.bytes / (ce.read_gbs * 1e9) * 1e3, 0, 0, c.reps};
        sd.min_ms = sd.median_ms;
        sr.min_ms = sr.median_ms;
        vec_row(&r, gpu ? "ceiling:d2d_memcpy" : "ceiling:memcpy_omp", "u8", ce.bytes, 2.0 * ce.bytes, &sd, &ce, "",
                0);
        vec_row(&r, gpu ? "ceiling:read_kernel" : "ceiling:read_omp", "u8", ce.bytes, (double)ce.bytes, &sr, &ce, "",
                0);
    }
    static bench_bars_t bars;
    bars.n = 0;
    for (size_t si = 0; si < nsizes && rc == EXIT_OK; si++)
    for (int di = 0; di < ndt && rc == EXIT_OK; di++) {
        gp_dtype_t dt = (gp_dtype_t)dts[di];
        const size_t es = gp_dtype_size(dt), n = sw.given ? (sizes[si] + es - 1) / es : n_opt, arr = n * es;
        int nsets = bench_rotation_sets(ctx, 3 * arr, 16);
        gp_buffer_t *bufs = calloc((size_t)nsets * 3 + 1, sizeof *bufs);
        void **ptrs = calloc((size_t)nsets * 3, sizeof *ptrs);
        vjob_t j = {ctx, V_COPY, dt, n, nsets, ptrs, ptrs + nsets, ptrs + 2 * nsets, NULL, peer, 0, ""};
        if (!bufs || !ptrs) {
            fprintf(stderr, "gpuprim bench vector: out of host memory\n");
            rc = EXIT_FAIL;
        }
        for (int k = 0; k < nsets * 3 && rc == EXIT_OK; k++) {
            if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, arr, &bufs[k])) != GP_OK ||
                (st = bench_fill_random(ctx, bufs[k].device, n, dt, 1000 + (unsigned)k)) != GP_OK) {
                fprintf(stderr, "gpuprim bench vector: %d arrays of %zu bytes: %s\n", nsets * 3, arr,
                        gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            ptrs[k] = bufs[k].device;
        }
        if (rc == EXIT_OK && (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, 64, &bufs[nsets * 3])) != GP_OK) rc = EXIT_FAIL;
        j.result = bufs ? bufs[nsets * 3].device : NULL;
        for (int op = V_COPY; op <= V_DOT && rc == EXIT_OK; op++) {
            bench_stats_t s, sp = {0, 0, 0, 0};
            j.op = (vop_t)op;
            if ((st = bench_time(ctx, run_ours, NULL, &j, c.warmup, c.reps, NULL, &s)) != GP_OK) {
                fprintf(stderr, "gpuprim bench vector: %s %s: %s\n", k_vop_name[j.op], gp_dtype_name(dt),
                        gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            const int has_peer = peer && dt != GP_I32 && (op == V_TRIAD || op == V_DOT);
            const char *peer_name = op == V_TRIAD ? (dt == GP_F32 ? "cublasSaxpy" : "cublasDaxpy")
                                                        : (dt == GP_F32 ? "cublasSdot" : "cublasDdot");
            if (has_peer && bench_time(ctx, run_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK) {
                fprintf(stderr, "gpuprim bench vector: %s: %s\n", peer_name, j.err);
                rc = EXIT_FAIL;
                break;
            }
            double bytes = (double)n * es * k_vop_streams[j.op];
            vec_row(&r, k_vop_name[j.op], gp_dtype_name(dt), n, bytes, &s, &ce, peer_name,
                    has_peer ? sp.median_ms : 0);
            bench_bars_add(&bars, bench_gbs(bytes, s.median_ms), "%s %s%s%zu", k_vop_name[j.op], gp_dtype_name(dt),
                           sw.given ? " n=" : "", sw.given ? n : 0);
            if (has_peer) bench_bars_add(&bars, bench_gbs(bytes, sp.median_ms), "%s (peer)", peer_name);
        }
        for (int k = 0; bufs && k <= nsets * 3; k++) gp_mem_free(ctx, &bufs[k]);
        free(bufs);
        free(ptrs);
    }
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_OK && c.svg) {
        char title[600];
        char date[16];
        today(date, sizeof date);
        snprintf(title, sizeof title, "gpuprim bench vector, n = %zu\n%s\n%s; peer: %s", n_opt, desc, date,
                 gpu ? gp_peer_version(peer) : "none");
        if (svg_bar_chart(c.svg, title, "GB/s (1e9 B/s, bytes read + written)", bars.labels, bars.values, bars.n,
                          ce.d2d_gbs, gpu ? "D2D cudaMemcpy" : "memcpy") != 0) {
            rc = EXIT_FAIL;
        } else if (c.fmt == FMT_TABLE) {
            printf("chart: %s\n", c.svg);
        }
    }
out:
    report_free(&r);
    gp_peer_destroy(peer);
    gp_ctx_destroy(ctx);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- reduce */
typedef struct rjob {
    gp_ctx_t *ctx;
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    size_t n;
    int nsets;
    void **x;
    void *out; /* 256 device bytes: ours at 0, the peer's at 64 */
    gp_peer_reduce_t peer;
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
    return gp_peer_reduce(NULL, j->peer, j->n, j->x[rep % j->nsets], (char *)j->out + 64, s, j->err) ? GP_ERR_CUDA
                                                                                                      : GP_OK;
}

typedef struct rcase {
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    size_t n;
    int peer;    /* gp_peer_reduce_t, or -1 */
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
            uint64_t st = 0x9e3779b97f4a7c15ull;
            pos = n / 2;
            off[k++] = (long long)pos;
            while (pos < n && k + 1 < cap) {
                st ^= st << 13, st ^= st >> 7, st ^= st << 17;
                const unsigned kind = (unsigned)(st % 100);
                size_t L = kind < 40 ? 0 : kind < 85 ? 1 + (st >> 8) % 32 : kind < 99 ? 33 + (st >> 8) % 8160
                                                                                       : 8193 + (st >> 8) % (1u << 20);
                if (L > n - pos) L = n - pos;
                pos += L;
                off[k++] = (long long)pos;
            }
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
        if (bench_time(ctx, run_seg, NULL, &j, c->warmup, c->reps, NULL, &so) != GP_OK) {
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
        vec_row(r, nm, "f32", n, (double)bytes, &so, ce, gpu ? "cub::SegmentedReduce" : "", gpu ? sp.median_ms : 0);
    }
    gp_mem_free(ctx, &bx), gp_mem_free(ctx, &boff), gp_mem_free(ctx, &bout);
    free(off);
    return rc;
}

static void bench_reduce_usage(FILE *f)
{
    fprintf(f, "usage: gpuprim bench reduce [-d DEVICE|cpu] [-n N | -b BYTES -e BYTES -f FACTOR] [--reps N]\n"
               "                            [--warmup N] [--json|--csv] [--svg F]\n"
               "  gp_reduce against CUB (cub::DeviceReduce) measured in the same run: sum/max f32, sum/min i32 at\n"
               "  n (default 2^28), the u8 -> u64 sum of 1e9 bytes, small-n sums (2^10 .. 2^20), and the ordered\n"
               "  (non-commutative) reductions over the same bytes (mat2 f32 against cub::DeviceScan::InclusiveScan).\n"
               "  -b/-e/-f: instead, sum/max/argmax f32 and sum/min i32 over a sweep of input sizes in bytes\n"
               "  (nccl-tests' convention; default 1 MiB to 1 GiB by 4).\n");
}

int bench_reduce(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, -1, -1, 0};
    size_t n = 0;
    sweep_t sw = {1u << 20, (size_t)1 << 30, 4, 0};
    const char *o_n = NULL;
    const cli_opt_t opts[] = {{"-n", "N", &o_n}, {NULL, NULL, NULL}};
    const cli_spec_t spec = {"bench reduce", COMMON_ALL, &sw, opts, 0, bench_reduce_usage};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (o_n && (parse_size(o_n, &n) != 0 || n == 0)) return bad_value("bench reduce", "-n", "an element count > 0", o_n);
    if (sweep_check("bench reduce", &sw) != 0) return EXIT_USAGE;
    if (sw.given && n) return fprintf(stderr, "gpuprim bench reduce: -n and -b/-e exclude each other\n"), EXIT_USAGE;
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench reduce", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (n == 0) n = gpu ? (size_t)1 << 28 : (size_t)1 << 22;
    gp_status_t st;
    report_meta(&r, "peer", "%s", gpu ? "CUB (cub::DeviceReduce) from the CUDA toolkit" : "none on the CPU backend");
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
    if (sw.given) {
        size_t sizes[12];
        const size_t ns = sweep_sizes(&sw, sizes, 12);
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
        rjob_t j = {ctx, k->op, k->dtype, k->n, nsets, ptrs, out.device, (gp_peer_reduce_t)(k->peer < 0 ? 0 : k->peer), "",
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
        if (rc == EXIT_OK && (st = bench_time(ctx, run_reduce, NULL, &j, c.warmup, c.reps, NULL, &so)) != GP_OK) {
            fprintf(stderr, "gpuprim bench reduce: %s %s: %s\n", opname, gp_dtype_name(k->dtype),
                    gp_last_error());
            rc = EXIT_FAIL;
        }
        const int has_peer = gpu && k->peer >= 0 && rc == EXIT_OK;
        if (has_peer && (gp_peer_reduce_prepare(NULL, j.peer, k->n, j.err) != 0 ||
                         bench_time(ctx, run_reduce_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK)) {
            fprintf(stderr, "gpuprim bench reduce: %s\n", j.err);
            rc = EXIT_FAIL;
        }
        if (rc == EXIT_OK) {
            vec_row(&r, opname, gp_dtype_name(k->dtype), k->n, (double)bytes, &so, &ce,
                    has_peer ? gp_peer_reduce_name(j.peer) : "", has_peer ? sp.median_ms : 0);
            bench_bars_add(&bars, bench_gbs((double)bytes, so.median_ms), "%s %s n=%zu", opname,
                           gp_dtype_name(k->dtype), k->n);
            if (has_peer)
                bench_bars_add(&bars, bench_gbs((double)bytes, sp.median_ms), "%s (peer)", gp_peer_reduce_name(j.peer));
        }
        for (int s = 0; s < nsets; s++) gp_mem_free(ctx, &bufs[s]);
        free(bufs);
        free(ptrs);
    }
    if (rc == EXIT_OK && !sw.given) rc = bench_segmented_rows(ctx, &r, n, &c, &ce);
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

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 2 ? stderr : stdout, "usage: gpuprim bench vector|reduce|histogram|transpose|gemm [options]   (--help after it)\n");
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "vector") == 0) return bench_vector(argc - 1, argv + 1);
    if (strcmp(argv[1], "reduce") == 0) return bench_reduce(argc - 1, argv + 1);
    if (strcmp(argv[1], "histogram") == 0) return bench_histogram(argc - 1, argv + 1);
    if (strcmp(argv[1], "transpose") == 0) return bench_transpose(argc - 1, argv + 1);
    if (strcmp(argv[1], "gemm") == 0) return bench_gemm(argc - 1, argv + 1);
    fprintf(stderr, "gpuprim bench: unknown primitive '%s' (known: vector, reduce, histogram, transpose, gemm)\n", argv[1]);
    return EXIT_USAGE;
}
