/*
 * cmd_bench_matrix.c — `gpuprim bench transpose`: gp_matrix_transpose (f32, row-major, pitched) against cublasSgeam
 * (C = A^T) and the D2D copy ceiling in the same run, on 16384 x 16384 and 8191 x 16411. GB/s counts the bytes read
 * and written (2 x 4 B per element). Our output is checked equal to cuBLAS's.
 */
#include "commands.h"

#include "peers.h"

#include <stdlib.h>
#include <string.h>

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

int bench_transpose(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, -1, -1};
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: gpuprim bench transpose [-d DEVICE|cpu] [--reps N] [--warmup N] [--json|--csv]\n"
                   "  gp_matrix_transpose (f32) against cublasSgeam and the D2D copy, 16384 x 16384 and 8191 x 16411\n"
                   "  (1024 x 1024 and 511 x 1027 on the CPU backend).\n");
            return EXIT_OK;
        }
        fprintf(stderr, "gpuprim bench transpose: unknown argument '%s'\n", argv[i]);
        return EXIT_USAGE;
    }
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
    for (int k = 0; k < 2 && rc == EXIT_OK; k++) {
        const size_t rows = gpu ? shapes[k][0] : shapes[k][0] / 16, cols = gpu ? shapes[k][1] : shapes[k][1] / 16;
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
