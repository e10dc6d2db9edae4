/*
 * cmd_lab_matrix.c — `gpuprim lab transpose` and `gpuprim lab gemm`: the primers' transpose and matrix-multiply
 * progressions as numbered versions (src/matrix/transpose_versions.cu, lab/gemm_versions.cu) on the same data. Transpose: every element of every
 * version's output checked, GB/s (read + write), % of the copy version (v00) and of the D2D cudaMemcpy. GEMM: each
 * version first checked in full on an odd shape against a long double reference, then timed at the main size with
 * sampled rows checked; TFLOP/s and % of cuBLAS SGEMM (pedantic FP32) in the same run.
 */
#include "lab_versions.h"
#include "commands.h"

#include "matrix/matrix_internal.h"
#include "peers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- transpose */
typedef struct tlab {
    gp_ctx_t *ctx;
    const gp__transpose_version_t *v;
    gp__phys_t in, out;
} tlab_t;

static gp_status_t run_tversion(void *u, int rep, gp_stream_t s)
{
    tlab_t *j = u;
    (void)rep;
    if (j->v->launch == NULL) {
        gp__transpose_cpu(&j->out, &j->in);
        return GP_OK;
    }
    return j->v->launch(j->ctx, &j->out, &j->in, (cudaStream_t)s);
}

int lab_transpose(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 10, 2, 0};
    size_t P = 0, Q = 0;
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            printf("%-4s %-34s %-4s %s\n", "id", "name", "on", "teaches");
            for (int r = 0; r < gp__transpose_nversions; r++)
                printf("%-4d %-34s %-4s %s%s\n", gp__transpose_versions[r].id, gp__transpose_versions[r].name,
                       gp__transpose_versions[r].gpu ? "gpu" : "cpu", gp__transpose_versions[r].teaches,
                       gp__transpose_versions[r].id == GP__TRANSPOSE_PRODUCTION ? " <- production" : "");
            return EXIT_OK;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpuprim lab transpose [--list] [-d DEVICE|cpu] [--shape R,C] [--reps N] [--warmup N] [--json|--csv]\n"
                   "  the transpose progression on one f32 matrix (16384 x 16384 on a GPU, 2048 x 2048 on the CPU),\n"
                   "  every output element checked, timed side by side.\n");
            return EXIT_OK;
        } else if (strcmp(a, "--shape") == 0 && v) {
            if (parse_pair(v, &P, &Q) != 0 || P == 0 || Q == 0 || P > (1u << 20) || Q > (1u << 20)) {
                fprintf(stderr, "gpuprim lab transpose: --shape: R,C with 1 <= R, C <= 2^20, got '%s'\n", v);
                return EXIT_USAGE;
            }
            i++;
        } else {
            fprintf(stderr, "gpuprim lab transpose: unknown argument '%s'\n", a);
            return EXIT_USAGE;
        }
    }
    gp_ctx_t *cpu = NULL, *gpu = NULL;
    int rc = lab_contexts("gpuprim lab transpose", c.device, &cpu, &gpu, "CPU versions only");
    if (rc != EXIT_OK) return rc;
    if (P == 0) P = Q = gpu ? 16384 : 2048;
    const size_t n = P * Q;
    uint32_t *hin = malloc(n * 4), *hout = malloc(n * 4);
    gp_buffer_t din = {0}, dout = {0};
    if (hin == NULL || hout == NULL) {
        fprintf(stderr, "gpuprim lab transpose: out of host memory for %zu x %zu\n", P, Q);
        rc = EXIT_FAIL;
    }
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (size_t e = 0; hin && e < n; e++) s ^= s << 13, s ^= s >> 7, s ^= s << 17, hin[e] = (uint32_t)s;
    if (rc == EXIT_OK && gpu &&
        (gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 4, &din) != GP_OK || gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 4, &dout) != GP_OK ||
         gp_memcpy_sync(gpu, din.device, hin, n * 4) != GP_OK)) {
        fprintf(stderr, "gpuprim lab transpose: device buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    static const char *const cols[] = {"id", "version", "shape", "median_us", "GB/s", "%copy", "%d2d", "x prev", "check"};
    static const int num[] = {0, 0, 0, 1, 1, 1, 1, 1, 0};
    report_t r;
    report_init(&r, "gpuprim lab transpose (f32)", cols, num, 9);
    lab_meta(&r, gpu ? gpu : cpu);
    bench_ceilings_t ce = {0, 0, 0};
    if (rc == EXIT_OK && gpu && bench_ceilings(gpu, (size_t)1 << 30, c.warmup, c.reps, &ce) != GP_OK) rc = EXIT_FAIL;
    if (gpu) report_meta(&r, "ceiling", "D2D cudaMemcpy %.1f GB/s (read + write), same run", ce.d2d_gbs);
    double copy_gbs = 0, prev = 0;
    for (int vi = 0; vi < gp__transpose_nversions && rc == EXIT_OK; vi++) {
        const gp__transpose_version_t *v = &gp__transpose_versions[vi];
        if (v->gpu && !gpu) continue;
        const size_t p = v->gpu ? P : (P < 2048 ? P : 2048), q = v->gpu ? Q : (Q < 2048 ? Q : 2048);
        const int copy = v->id == 0;
        tlab_t j = {v->gpu ? gpu : cpu, v, {v->gpu ? (char *)din.device : (char *)hin, p, q, q, 4},
                    {v->gpu ? (char *)dout.device : (char *)hout, copy ? p : q, copy ? q : p, copy ? q : p, 4}};
        memset(hout, 0xff, n * 4);
        if (v->gpu) gp_memset(gpu, dout.device, 0xff, n * 4, NULL);
        if (run_tversion(&j, 0, NULL) != GP_OK || gp_stream_sync(j.ctx, NULL) != GP_OK ||
            (v->gpu && gp_memcpy_sync(gpu, hout, dout.device, n * 4) != GP_OK)) {
            fprintf(stderr, "gpuprim lab transpose: %s: %s\n", v->name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        size_t bad = 0;
        for (size_t a = 0; a < p; a++)
            for (size_t b = 0; b < q; b++) bad += hout[copy ? a * q + b : b * p + a] != hin[a * q + b];
        if (bad) rc = EXIT_MISMATCH;
        bench_stats_t bs;
        if (bench_time(j.ctx, run_tversion, NULL, &j, c.warmup, c.reps, NULL, &bs) != GP_OK) {
            fprintf(stderr, "gpuprim lab transpose: %s: %s\n", v->name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        const double g = bench_gbs(8.0 * (double)(p * q), bs.median_ms);
        if (copy) copy_gbs = g;
        char cid[8], csh[48], cmed[24], cg[24], cc[24], cd[24], cp[24], chk[64];
        snprintf(cid, sizeof cid, "%02d", v->id);
        snprintf(csh, sizeof csh, "%zux%zu", p, q);
        snprintf(cmed, sizeof cmed, "%.1f", bs.median_ms * 1e3);
        snprintf(cg, sizeof cg, "%.1f", g);
        cc[0] = cd[0] = cp[0] = 0;
        if (v->gpu && copy_gbs > 0) snprintf(cc, sizeof cc, "%.1f", 100 * g / copy_gbs);
        if (v->gpu && ce.d2d_gbs > 0) snprintf(cd, sizeof cd, "%.1f", 100 * g / ce.d2d_gbs);
        if (v->gpu && !copy && prev > 0) snprintf(cp, sizeof cp, "%.2f", g / prev);
        snprintf(chk, sizeof chk, bad ? "FAIL: %zu elements" : "ok", bad);
        const char *cells[] = {cid, v->gpu && v->id == GP__TRANSPOSE_PRODUCTION ? "" : v->name, csh, cmed, cg, cc, cd, cp, chk};
        char named[80];
        if (v->gpu && v->id == GP__TRANSPOSE_PRODUCTION) {
            snprintf(named, sizeof named, "%s*", v->name);
            cells[1] = named;
        }
        report_row(&r, cells);
        if (v->gpu && !copy) prev = g;
    }
    report_meta(&r, "note", "* = production (gp_matrix_transpose)");
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim lab transpose: some versions FAILED verification\n");
    report_free(&r);
    if (gpu) gp_mem_free(gpu, &din), gp_mem_free(gpu, &dout);
    free(hin), free(hout);
    gp_ctx_destroy(gpu);
    gp_ctx_destroy(cpu);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- gemm */
typedef struct glab {
    gp_ctx_t *ctx;
    const lab_gemm_version_t *v;
    gp_peer_t *peer;
    size_t m, n, k;
    const float *a, *b;
    float *c;
    char err[256];
} glab_t;

static gp_status_t run_gversion(void *u, int rep, gp_stream_t s)
{
    glab_t *j = u;
    (void)rep;
    if (j->v == NULL)
        return gp_peer_gemm(j->peer, 0, j->m, j->n, j->k, j->a, j->b, j->c, s, j->err) ? GP_ERR_CUDA : GP_OK;
    return j->v->launch(j->ctx, j->m, j->n, j->k, j->a, j->b, j->c, (cudaStream_t)s);
}

/* rows every `step` of C = A B (host copies) against long double; returns the number outside the FP32 bound */
static size_t gemm_check(const float *a, const float *b, const float *c, size_t m, size_t n, size_t k, size_t step)
{
    size_t bad = 0;
    for (size_t i = 0; i < m; i += step)
        for (size_t j = 0; j < n; j++) {
            long double ref = 0, mag = 0;
            for (size_t l = 0; l < k; l++) {
                const long double t = (long double)a[i * k + l] * b[l * n + j];
                ref += t, mag += fabsl(t);
            }
            bad += !(fabs(c[i * n + j] - (double)ref) <= (4.0 * sqrt((double)k) + 8.0) * 0x1p-24 * (double)mag + 1e-30);
        }
    return bad;
}

/* one version on ctx: m x n x k from the host arrays, C poisoned, result back in hc */
static gp_status_t gemm_once(glab_t *j, const float *ha, const float *hb, float *hc, int gpu)
{
    if (!gpu) {
        for (size_t e = 0; e < j->m * j->n; e++) hc[e] = NAN;
        j->a = ha, j->b = hb, j->c = hc;
        return run_gversion(j, 0, NULL);
    }
    gp_status_t st;
    if ((st = gp_memcpy_sync(j->ctx, (void *)j->a, ha, j->m * j->k * 4)) != GP_OK ||
        (st = gp_memcpy_sync(j->ctx, (void *)j->b, hb, j->k * j->n * 4)) != GP_OK ||
        (st = gp_memset(j->ctx, j->c, 0xff, j->m * j->n * 4, NULL)) != GP_OK || (st = run_gversion(j, 0, NULL)) != GP_OK ||
        (st = gp_stream_sync(j->ctx, NULL)) != GP_OK)
        return st;
    return gp_memcpy_sync(j->ctx, hc, j->c, j->m * j->n * 4);
}

int lab_gemm(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 5, 1, 0};
    size_t size = 0;
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            printf("%-4s %-30s %-4s %s\n", "id", "name", "on", "teaches");
            for (int r = 0; r < lab_gemm_nversions; r++)
                printf("%-4d %-30s %-4s %s%s\n", lab_gemm_versions[r].id, lab_gemm_versions[r].name,
                       lab_gemm_versions[r].gpu ? "gpu" : "cpu", lab_gemm_versions[r].teaches,
                       lab_gemm_versions[r].id == GP__GEMM_F32_PRODUCTION ? " <- production" : "");
            return EXIT_OK;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpuprim lab gemm [--list] [-d DEVICE|cpu] [--size N] [--reps N] [--warmup N] [--json|--csv]\n"
                   "  the SGEMM progression (row-major C = A B, f32): each version checked in full on 509 x 513 x 257\n"
                   "  against a long double reference, then timed at N x N x N (4096 on a GPU, 256 on the CPU) with\n"
                   "  sampled rows checked; %% of cuBLAS SGEMM (pedantic FP32) in the same run.\n");
            return EXIT_OK;
        } else if (strcmp(a, "--size") == 0 && v) {
            if (parse_size(v, &size) != 0 || size == 0 || size > 32768) {
                fprintf(stderr, "gpuprim lab gemm: --size: 1 .. 32768, got '%s'\n", v);
                return EXIT_USAGE;
            }
            i++;
        } else {
            fprintf(stderr, "gpuprim lab gemm: unknown argument '%s'\n", a);
            return EXIT_USAGE;
        }
    }
    gp_ctx_t *cpu = NULL, *gpu = NULL;
    int rc = lab_contexts("gpuprim lab gemm", c.device, &cpu, &gpu, "CPU versions only");
    if (rc != EXIT_OK) return rc;
    if (size == 0) size = gpu ? 4096 : 256;
    const size_t om = 509, on = 513, ok_ = 257, big = size > om ? size : on; /* buffers hold both problems */
    const size_t nn = big * big;
    float *ha = malloc(nn * 4), *hb = malloc(nn * 4), *hc = malloc(nn * 4);
    gp_buffer_t da = {0}, db = {0}, dc = {0};
    if (!ha || !hb || !hc) {
        fprintf(stderr, "gpuprim lab gemm: out of host memory\n");
        rc = EXIT_FAIL;
    }
    uint64_t s = 0x853c49e6748fea9bull;
    for (size_t e = 0; ha && hb && e < nn; e++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        ha[e] = (float)((double)(s >> 40) * 0x1p-23 - 1.0);
        hb[e] = (float)((double)(s & 0xffffff) * 0x1p-23 - 1.0);
    }
    if (rc == EXIT_OK && gpu &&
        (gp_mem_alloc(gpu, GP_MEM_DEVICE, nn * 4, &da) != GP_OK || gp_mem_alloc(gpu, GP_MEM_DEVICE, nn * 4, &db) != GP_OK ||
         gp_mem_alloc(gpu, GP_MEM_DEVICE, nn * 4, &dc) != GP_OK)) {
        fprintf(stderr, "gpuprim lab gemm: device buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    gp_peer_t *peer = NULL;
    char perr[256] = "";
    if (gpu && gp_peer_create(&peer, gp_ctx_device(gpu), perr) != 0) peer = NULL;
    static const char *const cols[] = {"id", "version", "m=n=k", "median_us", "TFLOP/s", "%cublas", "x prev", "check"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 0};
    report_t r;
    report_init(&r, "gpuprim lab gemm (f32, row-major C = A B)", cols, num, 8);
    lab_meta(&r, gpu ? gpu : cpu);
    report_meta(&r, "peer", "%s", peer ? gp_peer_version(peer) : gpu ? perr : "none on the CPU backend");
    double peer_tf = 0, prev = 0;
    if (rc == EXIT_OK && peer) { /* cuBLAS at the main size: the % column */
        glab_t j = {gpu, NULL, peer, size, size, size, da.device, db.device, dc.device, ""};
        bench_stats_t bs;
        if (bench_time(gpu, run_gversion, NULL, &j, c.warmup, c.reps, NULL, &bs) == GP_OK)
            peer_tf = 2.0 * (double)size * size * size / (bs.median_ms * 1e-3) / 1e12;
        report_meta(&r, "cublas", "cublasSgemm pedantic FP32 at %zu: %.2f TFLOP/s (%.1f us), same run", size, peer_tf,
                    bs.median_ms * 1e3);
    }
    for (int vi = 0; vi < lab_gemm_nversions && rc != EXIT_FAIL; vi++) {
        const lab_gemm_version_t *v = &lab_gemm_versions[vi];
        if (v->gpu && !gpu) continue;
        gp_ctx_t *ctx = v->gpu ? gpu : cpu;
        const size_t sz = v->lab_max_n && v->lab_max_n < size ? v->lab_max_n : size;
        glab_t j = {ctx, v, NULL, om, on, ok_, da.device, db.device, dc.device, ""};
        size_t bad = 0;
        /* full check on the odd shape, then the timed size */
        gp_status_t st = gemm_once(&j, ha, hb, hc, v->gpu);
        if (st == GP_OK) bad += gemm_check(ha, hb, hc, om, on, ok_, 1);
        j.m = j.n = j.k = sz;
        if (st == GP_OK) st = gemm_once(&j, ha, hb, hc, v->gpu);
        if (st == GP_OK) bad += gemm_check(ha, hb, hc, sz, sz, sz, sz / 16 + 1);
        bench_stats_t bs;
        if (st == GP_OK) st = bench_time(ctx, run_gversion, NULL, &j, c.warmup, c.reps, NULL, &bs);
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim lab gemm: %s: %s\n", v->name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        if (bad) rc = EXIT_MISMATCH;
        const double tf = 2.0 * (double)sz * sz * sz / (bs.median_ms * 1e-3) / 1e12;
        char cid[8], name[64], csz[24], cmed[24], ct[24], cpc[24], cp[24], chk[64];
        snprintf(cid, sizeof cid, "%02d", v->id);
        snprintf(name, sizeof name, "%s%s", v->name, v->id == GP__GEMM_F32_PRODUCTION ? "*" : "");
        snprintf(csz, sizeof csz, "%zu", sz);
        snprintf(cmed, sizeof cmed, "%.1f", bs.median_ms * 1e3);
        snprintf(ct, sizeof ct, "%.3f", tf);
        cpc[0] = cp[0] = 0;
        if (v->gpu && peer_tf > 0) snprintf(cpc, sizeof cpc, "%.1f", 100 * tf / peer_tf);
        if (v->gpu && prev > 0) snprintf(cp, sizeof cp, "%.2f", tf / prev);
        snprintf(chk, sizeof chk, bad ? "FAIL: %zu elements" : "ok", bad);
        const char *cells[] = {cid, name, csz, cmed, ct, cpc, cp, chk};
        report_row(&r, cells);
        if (v->gpu) prev = tf;
    }
    report_meta(&r, "note", "* = production (gp_gemm f32); checked: all of 509 x 513 x 257, every %zuth row at the size",
                size / 16 + 1);
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim lab gemm: some versions FAILED verification\n");
    report_free(&r);
    gp_peer_destroy(peer);
    if (gpu) gp_mem_free(gpu, &da), gp_mem_free(gpu, &db), gp_mem_free(gpu, &dc);
    free(ha), free(hb), free(hc);
    gp_ctx_destroy(gpu);
    gp_ctx_destroy(cpu);
    return rc;
}
