/*
 * transpose.c — `gpuprim lab transpose`: the transpose progression (transpose_versions.cu, the kernels of
 * src/matrix/transpose_kernels.cuh) on one f32 matrix, every output element of every version checked, timed side by
 * side: GB/s (read + write), % of the copy version (v00) and of the D2D cudaMemcpy measured in the same run.
 */
#include "lab_versions.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tlab {
    gp_ctx_t *ctx;
    const lab_version_t *v;
    gp__phys_t in, out;
} tlab_t;

static gp_status_t run_tversion(void *u, int rep, gp_stream_t s)
{
    tlab_t *j = u;
    (void)rep;
    if (j->v->fn == NULL) {
        gp__transpose_cpu(&j->out, &j->in);
        return GP_OK;
    }
    return LAB_FN(lab_transpose_fn, j->v)(j->ctx, &j->out, &j->in, (cudaStream_t)s);
}

static int transpose_run(lab_run_t *r)
{
    size_t P = 0, Q = 0;
    const char *val = lab_opt(r, "--shape");
    if (val && (parse_pair(val, &P, &Q) != 0 || P == 0 || Q == 0 || P > (1u << 20) || Q > (1u << 20)))
        return lab_bad_value(r, "--shape", "R,C with 1 <= R, C <= 2^20", val);
    gp_ctx_t *gpu = r->gpu;
    int rc = EXIT_OK;
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
    lab_begin(r, "gpuprim lab transpose (f32)", cols, num, 9);
    bench_ceilings_t ce = {0, 0, 0};
    if (rc == EXIT_OK && gpu && bench_ceilings(gpu, (size_t)1 << 30, r->warmup, r->reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim lab transpose: ceilings: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    if (gpu) report_meta(&r->report, "ceiling", "D2D cudaMemcpy %.1f GB/s (read + write), same run", ce.d2d_gbs);
    double copy_gbs = 0, prev = 0;
    for (int vi = 0; vi < lab_transpose_nversions && rc == EXIT_OK; vi++) {
        const lab_version_t *v = &lab_transpose_versions[vi];
        if (v->gpu && !gpu) continue;
        const size_t p = v->max_n && P > v->max_n ? v->max_n : P, q = v->max_n && Q > v->max_n ? v->max_n : Q;
        const int copy = v->id == 0;
        tlab_t j = {v->gpu ? gpu : r->cpu, v, {v->gpu ? (char *)din.device : (char *)hin, p, q, q, 4},
                    {v->gpu ? (char *)dout.device : (char *)hout, copy ? p : q, copy ? q : p, copy ? q : p, 4}};
        /* the output is poisoned where the version writes it (the GPU's copy comes back whole over the host's) */
        if (v->gpu)
            gp_memset(gpu, dout.device, 0xff, n * 4, NULL);
        else
            memset(hout, 0xff, n * 4);
        if (run_tversion(&j, 0, NULL) != GP_OK || gp_stream_sync(j.ctx, NULL) != GP_OK ||
            (v->gpu && gp_memcpy_sync(gpu, hout, dout.device, n * 4) != GP_OK)) {
            fprintf(stderr, "gpuprim lab transpose: %s: %s\n", v->name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        /* every element, in 64 x 64 blocks so that the strided side stays in cache, block rows over the cores */
        size_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
        for (size_t a0 = 0; a0 < p; a0 += 64)
            for (size_t b0 = 0; b0 < q; b0 += 64)
                for (size_t a = a0; a < p && a < a0 + 64; a++)
                    for (size_t b = b0; b < q && b < b0 + 64; b++)
                        bad += hout[copy ? a * q + b : b * p + a] != hin[a * q + b];
        if (bad) lab_fail(r, v->name, "%zu elements differ", bad);
        bench_stats_t bs;
        if (bench_time(j.ctx, run_tversion, NULL, &j, r->warmup, r->reps, NULL, &bs) != GP_OK) {
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
        char named[80];
        snprintf(named, sizeof named, "%s%s", v->name, lab_is_production(LAB_T_TRANSPOSE, v) ? "*" : "");
        const char *cells[] = {cid, named, csh, cmed, cg, cc, cd, cp, chk};
        report_row(&r->report, cells);
        if (v->gpu && !copy) prev = g;
    }
    report_meta(&r->report, "note", "* = production (gp_matrix_transpose)");
    if (gpu) gp_mem_free(gpu, &din), gp_mem_free(gpu, &dout);
    free(hin), free(hout);
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

static void transpose_list(FILE *f)
{
    lab_list_versions(f, LAB_T_TRANSPOSE, lab_transpose_versions, lab_transpose_nversions);
}

static const lab_opt_t k_opts[] = {
    {"--shape", "R,C", "the matrix (default 16384,16384 on a GPU, 2048,2048 on the CPU)"},
    {NULL, NULL, NULL},
};

const lab_topic_t lab_topic_transpose = {
    "transpose",
    "naive, shared-memory tile, padded tile, vector tiles, production",
    "  the transpose progression on one f32 matrix, every output element of every version checked, timed side by\n"
    "  side (the CPU backend at most 2048 x 2048).",
    k_opts, 0, 0, 0, transpose_list, transpose_run,
};
