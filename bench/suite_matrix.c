/*
 * suite_matrix.c — `gpuprim bench transpose`: gp_matrix_transpose (f32, row-major, pitched) against cublasSgeam
 * (C = A^T) and the D2D copy ceiling in the same run, on 16384 x 16384 and 8191 x 16411. GB/s counts the bytes read
 * and written (2 x 4 B per element). Our output is checked equal to cuBLAS's.
 */
#include "bench.h"


#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct tjob {
    gp_ctx_t *ctx;
    gp_peer_t *peer;
    gp_matrix_t in, out, out_peer;
    char err[256];
} tjob_t;

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    tjob_t *j = u;
    (void)rep;
    return gp_matrix_transpose(j->ctx, &j->out, &j->in, s);
}

static gp_status_t run_peer(void *u, int rep, gp_stream_t s)
{
    tjob_t *j = u;
    (void)rep;
    return gp_peer_transpose_f32(j->peer, j->in.rows, j->in.cols, j->in.data, j->in.ld, j->out_peer.data,
                                 j->out_peer.ld, s, j->err)
               ? GP_ERR_CUDA
               : GP_OK;
}

static sweep_t sw_bench_transpose;
static const cli_spec_t spec_bench_transpose = {
    "bench transpose", COMMON_ALL & ~COMMON_SVG, &sw_bench_transpose, NULL, 0, "[options]",
    "gp_matrix_transpose (f32) against cublasSgeam and the D2D copy, 16384 x 16384 and 8191 x 16411 (1024 x 1024\n"
    "and 511 x 1027 on the CPU backend). The sweep: square matrices instead.",
    "the matrices' side, 1024 to 16384 by 2"};

static int suite_transpose(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    sw_bench_transpose = (sweep_t){1024, 16384, 2, 0};
    int npos = 0;
    const int pr = cli_parse(&spec_bench_transpose, argc, argv, &c, NULL, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (sweep_check("bench transpose", &sw_bench_transpose) != 0) return EXIT_USAGE;
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    int rc = bench_begin("gpuprim bench transpose", &c, &ctx, &r, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    gp_peer_t *peer = NULL;
    char perr[256] = "";
    if (gpu && gp_peer_create(&peer, gp_ctx_device(ctx), perr) != 0) peer = NULL;
    report_meta(&r, "peer", "%s", peer ? gp_peer_version(peer) : gpu ? perr : "none on the CPU backend");
    bench_ceilings_t ce = {0, 0, 0};
    if (bench_ceilings(ctx, gpu ? (size_t)1 << 30 : (size_t)64 << 20, c.warmup, c.reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim bench transpose: ceilings: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    static const size_t shapes[2][2] = {{16384, 16384}, {8191, 16411}};
    size_t sides[64];
    const size_t nshapes = sw_bench_transpose.given ? sweep_sizes(&sw_bench_transpose, sides, 64) : 2;
    for (size_t k = 0; k < nshapes && rc == EXIT_OK; k++) {
        const size_t rows = sw_bench_transpose.given ? sides[k] : gpu ? shapes[k][0] : shapes[k][0] / 16;
        const size_t cols = sw_bench_transpose.given ? sides[k] : gpu ? shapes[k][1] : shapes[k][1] / 16;
        tjob_t j = {ctx, peer, {0}, {0}, {0}, ""};
        gp_pitched_t m_in = {0}, m_out = {0}, m_peer = {0};
        if (gp_matrix_alloc(ctx, rows, cols, GP_F32, GP_ROW_MAJOR, &j.in, &m_in) != GP_OK ||
            gp_matrix_alloc(ctx, cols, rows, GP_F32, GP_ROW_MAJOR, &j.out, &m_out) != GP_OK ||
            gp_matrix_alloc(ctx, cols, rows, GP_F32, GP_ROW_MAJOR, &j.out_peer, &m_peer) != GP_OK ||
            bench_fill_random(ctx, j.in.data, j.in.ld * rows, GP_F32, 5) != GP_OK) {
            fprintf(stderr, "gpuprim bench transpose: %zu x %zu: %s\n", rows, cols, gp_last_error());
            rc = EXIT_FAIL;
        }
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        if (rc == EXIT_OK && bench_time(ctx, run_ours, NULL, &j, c.warmup, c.reps, NULL, &so) != GP_OK) {
            fprintf(stderr, "gpuprim bench transpose: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        const int has_peer = rc == EXIT_OK && peer != NULL;
        if (has_peer && bench_time(ctx, run_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK) {
            fprintf(stderr, "gpuprim bench transpose: %s\n", j.err);
            rc = EXIT_FAIL;
        }
        if (has_peer && rc == EXIT_OK) { /* the answers: ours against cuBLAS's, row by row */
            float *a = malloc(rows * 4), *b = malloc(rows * 4);
            size_t bad = 0;
            for (size_t q = 0; q < cols && a && b; q += cols / 7 + 1) {
                gp_memcpy_sync(ctx, a, (float *)j.out.data + q * j.out.ld, rows * 4);
                gp_memcpy_sync(ctx, b, (float *)j.out_peer.data + q * j.out_peer.ld, rows * 4);
                bad += memcmp(a, b, rows * 4) != 0;
            }
            if (bad) {
                fprintf(stderr, "gpuprim bench transpose: %zu rows differ from cuBLAS\n", bad);
                rc = EXIT_MISMATCH;
            }
            free(a), free(b);
        }
        if (rc == EXIT_OK) {
            char name[48];
            snprintf(name, sizeof name, "transpose %zux%zu", rows, cols);
            vec_row(&r, name, "f32", rows * cols, 2.0 * (double)(rows * cols) * 4, &so, &ce,
                    has_peer ? "cublasSgeam" : "", has_peer ? sp.median_ms : 0);
        }
        gp_mem_free_pitched(ctx, &m_in), gp_mem_free_pitched(ctx, &m_out), gp_mem_free_pitched(ctx, &m_peer);
    }
    report_print(&r, c.fmt, stdout);
    report_free(&r);
    gp_peer_destroy(peer);
    gp_ctx_destroy(ctx);
    return rc;
}

/* ------------------------------------------------------------------------------------------ bench gemm */
typedef struct gjob {
    gp_ctx_t *ctx;
    gp_peer_t *peer;
    int f64;
    gp_gemm_precision_t prec; /* GP_GEMM_FP32: gp_gemm (f32 / f64); else gp_gemm_ex with f32 c */
    size_t batch;             /* > 1: gp_gemm_batched, packed problems one after another */
    size_t m, n, k;
    gp_matrix_t a, b, c, c_peer;
    char err[256];
} gjob_t;

static gp_status_t gemm_ours(void *u, int rep, gp_stream_t s)
{
    gjob_t *j = u;
    (void)rep;
    if (j->batch > 1)
        return gp_gemm_batched(j->ctx, j->prec, GP_OP_N, GP_OP_N, 1.0, &j->a, j->m * j->k, &j->b, j->k * j->n, 0.0, &j->c,
                               j->m * j->n, j->batch, s);
    if (j->prec != GP_GEMM_FP32) return gp_gemm_ex(j->ctx, j->prec, GP_OP_N, GP_OP_N, 1.0, &j->a, &j->b, 0.0, &j->c, s);
    return gp_gemm(j->ctx, GP_OP_N, GP_OP_N, 1.0, &j->a, &j->b, 0.0, &j->c, s);
}

static gp_status_t gemm_peer(void *u, int rep, gp_stream_t s)
{
    gjob_t *j = u;
    (void)rep;
    if (j->batch > 1)
        return gp_peer_gemm_batched_ex(j->peer, (int)j->prec, j->m, j->n, j->k, j->batch, j->a.data, j->b.data,
                                       j->c_peer.data, s, j->err)
                   ? GP_ERR_CUDA
                   : GP_OK;
    if (j->prec != GP_GEMM_FP32)
        return gp_peer_gemm_ex(j->peer, (int)j->prec, j->m, j->n, j->k, j->a.data, j->b.data, j->c_peer.data, s, j->err)
                   ? GP_ERR_CUDA
                   : GP_OK;
    return gp_peer_gemm(j->peer, j->f64, j->m, j->n, j->k, j->a.data, j->b.data, j->c_peer.data, s, j->err)
               ? GP_ERR_CUDA
               : GP_OK;
}

/* Our C against cuBLAS's on sampled rows (bench_gemm_differ); TF32: cuBLAS may round its inputs otherwise than ours
 * (each product then off by up to 2^-9 of its size), k 2^-9 more. */
static size_t gemm_differ(gjob_t *j)
{
    return bench_gemm_differ(j->ctx, j->f64, j->m, j->n, j->k, j->c.data, j->c_peer.data,
                             j->prec == GP_GEMM_TF32 ? 0x1p-9 * (double)j->k : 0.0);
}

static sweep_t sw_bench_gemm;
typedef struct gemm_opts {
    const char *dtype, *prec;
} gemm_opts_t;
static const cli_opt_t opts_bench_gemm[] = {
    {"--dtype", OPT_DTYPE, "T", OPT_AT(gemm_opts_t, dtype), "the sweep's element type: f32 or f64", "f32", NULL,
     "f32 f64"},
    {"--precision", OPT_WORD, "fp32|tf32|bf16|fp16", OPT_AT(gemm_opts_t, prec), "that precision alone at 4096, 8192, "
     "4097, 1000, 8192 x 64 x 8192 and (not fp32) 1024 x 256^3 batched (with the sweep: its squares)",
     NULL, NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_gemm = {
    "bench gemm", COMMON_ALL & ~COMMON_SVG, &sw_bench_gemm, opts_bench_gemm, 0, "[options]",
    "gp_gemm (row-major NN, alpha 1, beta 0) against cuBLAS in the same run: SGEMM (CUBLAS_PEDANTIC_MATH, true\n"
    "FP32) at 2048, 4096, 8192, 4097, 1000 and 8192 x 64 x 8192 (m x n x k); DGEMM at 4096 and 8192; gp_gemm_ex\n"
    "TF32, BF16 and FP16 (f32 c) at 4096 and 8192 against cublasGemmEx (CUBLAS_COMPUTE_32F_FAST_TF32 / _32F);\n"
    "a batch of 1024 BF16 256^3 (gp_gemm_batched) against cublasGemmStridedBatchedEx. Problems 1/32 the side on\n"
    "the CPU backend. Answers are checked against cuBLAS's. The kernels production does not run: gpuprim lab gemm\n"
    "with its variants. The sweep: square problems m = n = k instead, on any backend.",
    "the problems' side, 256 to 4096 by 2"};

static int suite_gemm(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    sw_bench_gemm = (sweep_t){256, 4096, 2, 0};
    int sweep_f64 = 0;
    gemm_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_gemm, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (opt.dtype) {
        gp_dtype_t d;
        if (gp_dtype_parse(opt.dtype, &d) != GP_OK || (d != GP_F32 && d != GP_F64))
            return bad_value("bench gemm", "--dtype", "f32 or f64", opt.dtype);
        sweep_f64 = d == GP_F64;
    }
    int only = -1; /* --precision: that one alone */
    if (opt.prec) {
        for (int p = 0; p < 4; p++)
            if (strcmp(opt.prec, gp_gemm_precision_name((gp_gemm_precision_t)p)) == 0) only = p;
        if (only < 0) return bad_value("bench gemm", "--precision", "fp32, tf32, bf16 or fp16", opt.prec);
    }
    if (sweep_check("bench gemm", &sw_bench_gemm) != 0) return EXIT_USAGE;
    static const char *const cols[] = {"op", "dtype", "m", "n", "k", "median_us", "min_us", "TFLOP/s", "peer",
                                       "peer_us", "peer_TFLOP/s", "ratio"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1};
    gp_ctx_t *ctx = NULL;
    report_t r;
    char desc[512];
    if (c.reps < 0) c.reps = 10;
    int rc = bench_begin_cols("gpuprim bench gemm", &c, &ctx, &r, desc, sizeof desc, cols, num, 12,
                              "inputs uniform in [-1, 1), not rotated (compute-bound); TFLOP/s = 2 m n k / time");
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    gp_peer_t *peer = NULL;
    char perr[256] = "";
    if (gpu && gp_peer_create(&peer, gp_ctx_device(ctx), perr) != 0) peer = NULL;
    report_meta(&r, "peer", "%s", peer ? gp_peer_version(peer) : gpu ? perr : "none on the CPU backend");
    /* m, n, k, f64, (unused), precision, batch (the kernels production does not run: gpuprim lab gemm --variants) */
    static const size_t probs[][7] = {{2048, 2048, 2048, 0, 0}, {4096, 4096, 4096, 0, 0}, {8192, 8192, 8192, 0, 0},
                                      {4097, 4097, 4097, 0, 0}, {1000, 1000, 1000, 0, 0}, {8192, 64, 8192, 0, 0},
                                      {4096, 4096, 4096, 1, 0}, {8192, 8192, 8192, 1, 0},
                                      {4096, 4096, 4096, 0, 0, 1}, {8192, 8192, 8192, 0, 0, 1},
                                      {4096, 4096, 4096, 0, 0, 2}, {8192, 8192, 8192, 0, 0, 2},
                                      {4096, 4096, 4096, 0, 0, 3}, {8192, 8192, 8192, 0, 0, 3},
                                      {256, 256, 256, 0, 0, 2, 1024}};
    /* --precision: its own set */
    static const size_t tshapes[][4] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4097, 4097, 4097},
                                        {1000, 1000, 1000}, {8192, 64, 8192}, {256, 256, 256, 1024}};
    size_t sides[64];
    const size_t nsides = sw_bench_gemm.given ? sweep_sizes(&sw_bench_gemm, sides, 64) : 0;
    const size_t nprobs = sw_bench_gemm.given ? nsides : only > 0 ? 6 : only == 0 ? 5 : sizeof probs / sizeof probs[0];
    for (size_t pi = 0; pi < nprobs && rc == EXIT_OK; pi++) {
        gjob_t j = {ctx, peer, sw_bench_gemm.given ? sweep_f64 : only >= 0 ? 0 : (int)probs[pi][3],
                    only >= 0 ? (gp_gemm_precision_t)only : sw_bench_gemm.given ? GP_GEMM_FP32 : (gp_gemm_precision_t)probs[pi][5],
                    sw_bench_gemm.given ? 1 : only >= 0 ? tshapes[pi][3] : probs[pi][6], 0, 0, 0, {0}, {0}, {0}, {0}, ""};
        if (j.batch < 1) j.batch = 1;
        if (sw_bench_gemm.given) {
            j.m = j.n = j.k = sides[pi];
        } else if (only >= 0) {
            j.m = gpu ? tshapes[pi][0] : tshapes[pi][0] / 32 + 1, j.n = gpu ? tshapes[pi][1] : tshapes[pi][1] / 32 + 1;
            j.k = gpu ? tshapes[pi][2] : tshapes[pi][2] / 32 + 1;
        } else {
            j.m = gpu ? probs[pi][0] : probs[pi][0] / 32 + 1, j.n = gpu ? probs[pi][1] : probs[pi][1] / 32 + 1;
            j.k = gpu ? probs[pi][2] : probs[pi][2] / 32 + 1;
        }
        const gp_dtype_t dt = j.f64 ? GP_F64 : GP_F32,
                         it = j.prec == GP_GEMM_BF16 ? GP_BF16 : j.prec == GP_GEMM_FP16 ? GP_F16 : dt;
        const size_t es = j.f64 ? 8 : 4, ies = gp_dtype_size(it);
        gp_buffer_t ba = {0}, bb = {0}, bc = {0}, bp = {0};
        j.a = (gp_matrix_t){NULL, j.m, j.k, j.k, it, GP_ROW_MAJOR};
        j.b = (gp_matrix_t){NULL, j.k, j.n, j.n, it, GP_ROW_MAJOR};
        j.c = (gp_matrix_t){NULL, j.m, j.n, j.n, dt, GP_ROW_MAJOR};
        j.c_peer = j.c;
        const size_t nb = j.batch;
        if (gp_mem_alloc(ctx, GP_MEM_DEVICE, j.m * j.k * ies * nb, &ba) != GP_OK ||
            gp_mem_alloc(ctx, GP_MEM_DEVICE, j.k * j.n * ies * nb, &bb) != GP_OK ||
            gp_mem_alloc(ctx, GP_MEM_DEVICE, j.m * j.n * es * nb, &bc) != GP_OK ||
            gp_mem_alloc(ctx, GP_MEM_DEVICE, j.m * j.n * es * nb, &bp) != GP_OK ||
            bench_fill_random(ctx, ba.device, j.m * j.k * nb, it, 11 + pi) != GP_OK ||
            bench_fill_random(ctx, bb.device, j.k * j.n * nb, it, 23 + pi) != GP_OK) {
            fprintf(stderr, "gpuprim bench gemm: %zu x %zu x %zu: %s\n", j.m, j.n, j.k, gp_last_error());
            rc = EXIT_FAIL;
        }
        j.a.data = ba.device, j.b.data = bb.device, j.c.data = bc.device, j.c_peer.data = bp.device;
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        /* with a peer, ours and cuBLAS alternate (bench_time_pair): the clocks' recovery after the previous row's
         * work falls on both, not on whichever runs first */
        if (rc == EXIT_OK && peer == NULL && bench_time(ctx, gemm_ours, NULL, &j, c.warmup, c.reps, NULL, &so) != GP_OK) {
            fprintf(stderr, "gpuprim bench gemm: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        const int has_peer = rc == EXIT_OK && peer != NULL;
        if (has_peer && bench_time_pair(ctx, gemm_ours, gemm_peer, &j, c.warmup, c.reps, NULL, &so, &sp) != GP_OK) {
            fprintf(stderr, "gpuprim bench gemm: %s\n", j.err[0] ? j.err : gp_last_error());
            rc = EXIT_FAIL;
        }
        size_t bad = 0;
        if (has_peer && rc == EXIT_OK && (bad = gemm_differ(&j)) != 0) {
            fprintf(stderr, "gpuprim bench gemm: %zu sampled elements differ from cuBLAS beyond rounding\n", bad);
            rc = EXIT_MISMATCH;
        }
        if (rc == EXIT_OK) {
            const double fl = 2.0 * (double)j.m * (double)j.n * (double)j.k * (double)j.batch;
            char cm[24], cn[24], ck[24], cmed[32], cmin[32], ct[32], cpu_[32], cpt[32], crat[32];
            snprintf(cm, sizeof cm, "%zu", j.m), snprintf(cn, sizeof cn, "%zu", j.n), snprintf(ck, sizeof ck, "%zu", j.k);
            snprintf(cmed, sizeof cmed, "%.1f", so.median_ms * 1e3);
            snprintf(cmin, sizeof cmin, "%.1f", so.min_ms * 1e3);
            snprintf(ct, sizeof ct, "%.2f", fl / (so.median_ms * 1e-3) / 1e12);
            cpu_[0] = cpt[0] = crat[0] = 0;
            if (has_peer) {
                snprintf(cpu_, sizeof cpu_, "%.1f", sp.median_ms * 1e3);
                snprintf(cpt, sizeof cpt, "%.2f", fl / (sp.median_ms * 1e-3) / 1e12);
                snprintf(crat, sizeof crat, "%.3f", sp.median_ms / so.median_ms);
            }
            char op[48];
            if (j.batch > 1) snprintf(op, sizeof op, "batched %zux NN %s", j.batch, gp_gemm_precision_name(j.prec));
            else if (j.prec != GP_GEMM_FP32) snprintf(op, sizeof op, "gemm_ex NN %s", gp_gemm_precision_name(j.prec));
            else snprintf(op, sizeof op, "%s", j.f64 ? "dgemm NN" : "sgemm NN");
            const char *pname = j.batch > 1                ? "cublasGemmStridedBatchedEx"
                                : j.prec == GP_GEMM_TF32 ? "cublasGemmEx tf32"
                                : j.prec != GP_GEMM_FP32  ? "cublasGemmEx f32 acc"
                                : j.f64                   ? "cublasDgemm"
                                                          : "cublasSgemm pedantic";
            const char *cells[] = {op, gp_dtype_name(it), cm, cn, ck, cmed, cmin, ct, has_peer ? pname : "", cpu_, cpt, crat};
            report_row(&r, cells);
        }
        gp_mem_free(ctx, &ba), gp_mem_free(ctx, &bb), gp_mem_free(ctx, &bc), gp_mem_free(ctx, &bp);
    }
    report_print(&r, c.fmt, stdout);
    report_free(&r);
    gp_peer_destroy(peer);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_transpose = {"transpose", "", "gp_matrix_transpose against cublasSgeam and the D2D copy", &spec_bench_transpose, suite_transpose, NULL};
const verb_t bench_suite_gemm = {"gemm", "", "gp_gemm (f32 f64, tf32 bf16 fp16) against cuBLAS", &spec_bench_gemm, suite_gemm, NULL};
