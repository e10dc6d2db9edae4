/*
 * suite_vector.c — `gpuprim bench vector`: the production vector ops against the ceilings and the peer, in one run.
 *   rows: ceilings (D2D cudaMemcpy, read-only kernel), then copy, scale, add, triad, dot per dtype, then the peer
 *   rows (cuBLAS axpy for triad, cuBLAS dot for dot). ratio = peer time / our time (> 1: we are faster).
 *   GB/s counts each element read or written once (triad 12 B per f32 element), 1e9 B/s.
 */
#include "bench.h"

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

static sweep_t sw_bench_vector;
typedef struct vector_opts {
    const char *n, *dtype;
} vector_opts_t;
static const cli_opt_t opts_bench_vector[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(vector_opts_t, n), "elements of each array (not with the sweep)",
     "2^28 on a GPU, 2^24 on the CPU", NULL, NULL},
    {"--dtype", OPT_DTYPE, "T|all", OPT_AT(vector_opts_t, dtype), "the element type: f32, f64, i32 or all", "f32",
     NULL, "f32 f64 i32 all"},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_vector = {
    "bench vector", COMMON_ALL, &sw_bench_vector, opts_bench_vector, 0, "[options]",
    "Times copy, scale, add, triad (z = x + a*y), dot against D2D cudaMemcpy and a read-only kernel, and against\n"
    "cuBLAS axpy / dot measured in the same run. The sweep: array sizes instead.",
    "bytes of each array, 1 MiB to 1 GiB by 4"};

static int suite_vector(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    size_t n_opt = 0;
    sw_bench_vector = (sweep_t){1u << 20, (size_t)1 << 30, 4, 0};
    int dts[3] = {GP_F32, -1, -1}, ndt = 1;
    vector_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_vector, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (opt.n && (parse_size(opt.n, &n_opt) != 0 || n_opt == 0))
        return bad_value("bench vector", "-n", "an element count > 0", opt.n);
    if (opt.dtype) {
        gp_dtype_t d;
        if (strcmp(opt.dtype, "all") == 0)
            dts[0] = GP_F32, dts[1] = GP_F64, dts[2] = GP_I32, ndt = 3;
        else if (gp_dtype_parse(opt.dtype, &d) == GP_OK && (d == GP_F32 || d == GP_F64 || d == GP_I32))
            dts[0] = d, ndt = 1;
        else
            return bad_value("bench vector", "--dtype", "f32, f64, i32 or all", opt.dtype);
    }
    if (sweep_check("bench vector", &sw_bench_vector) != 0) return EXIT_USAGE;
    if (sw_bench_vector.given && n_opt) return fprintf(stderr, "gpuprim bench vector: -n and -b/-e exclude each other\n"), EXIT_USAGE;
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench vector", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (n_opt == 0) n_opt = gpu ? (size_t)1 << 28 : (size_t)1 << 24;
    size_t sizes[64];
    const size_t nsizes = sw_bench_vector.given ? sweep_sizes(&sw_bench_vector, sizes, 64) : 1;
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
        const size_t es = gp_dtype_size(dt), n = sw_bench_vector.given ? (sizes[si] + es - 1) / es : n_opt, arr = n * es;
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
                           sw_bench_vector.given ? " n=" : "", sw_bench_vector.given ? n : 0);
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

const verb_t bench_suite_vector = {"vector", "", "copy, scale, add, triad, dot against the D2D copy and cuBLAS axpy / dot", &spec_bench_vector, suite_vector, NULL};
