/*
 * gemm.c — `gpuprim lab gemm`: the SGEMM progression (gemm_versions.cu) from the primers' kernels to production, each
 * version first checked in full on an odd shape against a long double reference, then timed at the main size with
 * sampled rows checked; TFLOP/s and % of cuBLAS SGEMM (pedantic FP32) measured in the same run.
 */
#include "lab_versions.h"

#include "core/half.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct glab {
    gp_ctx_t *ctx;
    const lab_version_t *v;
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
    return LAB_FN(lab_sgemm_fn, j->v)(j->ctx, j->m, j->n, j->k, j->a, j->b, j->c, (cudaStream_t)s);
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

/* one version's row: id, name (* production), size, median, TFLOP/s, % of the peer, x the previous GPU row, check */
static void gemm_row(lab_run_t *r, const lab_version_t *v, lab_table_t t, const char *bound, size_t sz, double median_ms,
                     size_t bad, double peer_tf, double *prev)
{
    if (bad) lab_fail(r, v->name, "%zu elements outside the %s bound", bad, bound);
    const double tf = 2.0 * (double)sz * sz * sz / (median_ms * 1e-3) / 1e12;
    char cid[8], name[64], csz[24], cmed[24], ct[24], cpc[24], cp[24], chk[64];
    snprintf(cid, sizeof cid, "%02d", v->id);
    snprintf(name, sizeof name, "%s%s", v->name, lab_is_production(t, v) ? "*" : "");
    snprintf(csz, sizeof csz, "%zu", sz);
    snprintf(cmed, sizeof cmed, "%.1f", median_ms * 1e3);
    snprintf(ct, sizeof ct, "%.3f", tf);
    cpc[0] = cp[0] = 0;
    if (v->gpu && peer_tf > 0) snprintf(cpc, sizeof cpc, "%.1f", 100 * tf / peer_tf);
    if (v->gpu && *prev > 0) snprintf(cp, sizeof cp, "%.2f", tf / *prev);
    snprintf(chk, sizeof chk, bad ? "FAIL: %zu elements" : "ok", bad);
    const char *cells[] = {cid, name, csz, cmed, ct, cpc, cp, chk};
    report_row(&r->report, cells);
    if (v->gpu) *prev = tf;
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

/* ---------------------------------------------------------------- the tensor-core progression (--precision) */
typedef struct tlab {
    gp_ctx_t *ctx;
    const lab_version_t *v; /* NULL: cuBLAS */
    gp_peer_t *peer;
    gp_gemm_precision_t prec;
    size_t m, n, k;
    void *a, *b;
    float *c;
    char err[256];
} tlab_t;

static gp_status_t run_tversion(void *u, int rep, gp_stream_t s)
{
    tlab_t *j = u;
    (void)rep;
    if (j->v == NULL)
        return gp_peer_gemm_ex(j->peer, (int)j->prec, j->m, j->n, j->k, j->a, j->b, j->c, s, j->err) ? GP_ERR_CUDA : GP_OK;
    const gp_dtype_t it = j->prec == GP_GEMM_TF32 ? GP_F32 : j->prec == GP_GEMM_BF16 ? GP_BF16 : GP_F16;
    const gp_matrix_t A = {j->a, j->m, j->k, j->k, it, GP_ROW_MAJOR}, B = {j->b, j->k, j->n, j->n, it, GP_ROW_MAJOR},
                      C = {j->c, j->m, j->n, j->n, GP_F32, GP_ROW_MAJOR};
    gp_status_t st = gp__gemm_tc_plan_set(j->ctx, j->v->gpu ? (int)j->v->sel : 0);
    if (st == GP_OK) st = gp_gemm_ex(j->ctx, j->prec, GP_OP_N, GP_OP_N, 1.0, &A, &B, 0.0, &C, s);
    const gp_status_t back = gp__gemm_tc_plan_set(j->ctx, 0);
    return st != GP_OK ? st : back;
}

/* one version: m x n x k from the host inputs (es-byte elements), C poisoned, result back in hc */
static gp_status_t tc_once(tlab_t *j, const void *ha, const void *hb, float *hc, size_t es, int gpu)
{
    if (!gpu) {
        for (size_t e = 0; e < j->m * j->n; e++) hc[e] = NAN;
        tlab_t h = *j;
        h.a = (void *)ha, h.b = (void *)hb, h.c = hc;
        return run_tversion(&h, 0, NULL);
    }
    gp_status_t st;
    if ((st = gp_memcpy_sync(j->ctx, j->a, ha, j->m * j->k * es)) != GP_OK ||
        (st = gp_memcpy_sync(j->ctx, j->b, hb, j->k * j->n * es)) != GP_OK ||
        (st = gp_memset(j->ctx, j->c, 0xff, j->m * j->n * 4, NULL)) != GP_OK || (st = run_tversion(j, 0, NULL)) != GP_OK ||
        (st = gp_stream_sync(j->ctx, NULL)) != GP_OK)
        return st;
    return gp_memcpy_sync(j->ctx, hc, j->c, j->m * j->n * 4);
}

static int tc_run(lab_run_t *r, gp_gemm_precision_t prec, size_t size)
{
    gp_ctx_t *gpu = r->gpu, *cpu = r->cpu;
    int rc = EXIT_OK;
    const size_t om = 509, on = 513, ok_ = 257, big = size > om ? size : on, nn = big * big;
    const size_t es = prec == GP_GEMM_TF32 ? 4 : 2;
    /* the inputs as stored (f32 or 16-bit) and as the tensor cores take them (TF32 truncated; in f32: the reference) */
    float *ra = malloc(nn * 4), *rb = malloc(nn * 4), *hc = malloc(nn * 4);
    void *ha = malloc(nn * es), *hb = malloc(nn * es);
    gp_buffer_t da = {0}, db = {0}, dc = {0};
    if (!ra || !rb || !hc || !ha || !hb) {
        fprintf(stderr, "gpuprim lab gemm: out of host memory\n");
        rc = EXIT_FAIL;
    }
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (size_t e = 0; rc == EXIT_OK && e < nn; e++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        const float x = (float)((double)(s >> 40) * 0x1p-23 - 1.0), y = (float)((double)(s & 0xffffff) * 0x1p-23 - 1.0);
        if (prec == GP_GEMM_TF32) {
            ((float *)ha)[e] = x, ((float *)hb)[e] = y, ra[e] = gp__f32_to_tf32(x), rb[e] = gp__f32_to_tf32(y);
        } else if (prec == GP_GEMM_BF16) {
            uint16_t *a16 = ha, *b16 = hb;
            a16[e] = gp__f32_to_bf16(x), b16[e] = gp__f32_to_bf16(y);
            ra[e] = gp__bf16_bits_to_f32(a16[e]), rb[e] = gp__bf16_bits_to_f32(b16[e]);
        } else {
            uint16_t *a16 = ha, *b16 = hb;
            a16[e] = gp__f32_to_f16(x), b16[e] = gp__f32_to_f16(y);
            ra[e] = gp__f16_bits_to_f32(a16[e]), rb[e] = gp__f16_bits_to_f32(b16[e]);
        }
    }
    if (rc == EXIT_OK && gpu &&
        (gp_mem_alloc(gpu, GP_MEM_DEVICE, nn * es, &da) != GP_OK || gp_mem_alloc(gpu, GP_MEM_DEVICE, nn * es, &db) != GP_OK ||
         gp_mem_alloc(gpu, GP_MEM_DEVICE, nn * 4, &dc) != GP_OK)) {
        fprintf(stderr, "gpuprim lab gemm: device buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    gp_peer_t *peer = NULL;
    char perr[256] = "", title[96];
    if (gpu && gp_peer_create(&peer, gp_ctx_device(gpu), perr) != 0) peer = NULL;
    static const char *const cols[] = {"id", "version", "m=n=k", "median_us", "TFLOP/s", "%cublas", "x prev", "check"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 0};
    snprintf(title, sizeof title, "gpuprim lab gemm --precision %s (row-major C f32 = A B, f32 accumulation)",
             gp_gemm_precision_name(prec));
    lab_begin(r, title, cols, num, 8);
    report_meta(&r->report, "peer", "%s", peer ? gp_peer_version(peer) : gpu ? perr : "none on the CPU backend");
    double peer_tf = 0, prev = 0;
    if (rc == EXIT_OK && peer) {
        tlab_t j = {gpu, NULL, peer, prec, size, size, size, da.device, db.device, dc.device, ""};
        bench_stats_t bs;
        if (bench_time(gpu, run_tversion, NULL, &j, r->warmup, r->reps, NULL, &bs) == GP_OK) {
            peer_tf = 2.0 * (double)size * size * size / (bs.median_ms * 1e-3) / 1e12;
            report_meta(&r->report, "cublas", "cublasGemmEx %s at %zu: %.2f TFLOP/s (%.1f us), same run",
                        gp_gemm_precision_name(prec), size, peer_tf, bs.median_ms * 1e3);
        }
    }
    for (int vi = 0; vi < lab_gemm_tc_nversions && rc == EXIT_OK; vi++) {
        const lab_version_t *v = &lab_gemm_tc_versions[vi];
        if (v->gpu && !gpu) continue;
        gp_ctx_t *ctx = v->gpu ? gpu : cpu;
        const size_t sz = v->max_n && v->max_n < size ? v->max_n : size;
        tlab_t j = {ctx, v, NULL, prec, om, on, ok_, da.device, db.device, dc.device, ""};
        size_t bad = 0;
        gp_status_t st = tc_once(&j, ha, hb, hc, es, v->gpu);
        if (st == GP_OK) bad += gemm_check(ra, rb, hc, om, on, ok_, 1);
        j.m = j.n = j.k = sz;
        if (st == GP_OK) st = tc_once(&j, ha, hb, hc, es, v->gpu);
        if (st == GP_OK) bad += gemm_check(ra, rb, hc, sz, sz, sz, sz / 16 + 1);
        bench_stats_t bs;
        if (st == GP_OK && !v->gpu) j.a = ha, j.b = hb, j.c = hc;
        if (st == GP_OK) st = bench_time(ctx, run_tversion, NULL, &j, r->warmup, r->reps, NULL, &bs);
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim lab gemm: %s: %s\n", v->name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        gemm_row(r, v, LAB_T_GEMM_TC, "f32-accumulation", sz, bs.median_ms, bad, peer_tf, &prev);
    }
    report_meta(&r->report, "note", "* = a shape the library picks (by problem size); checked: all of 509 x 513 x 257, "
                "every %zuth row at the size, against long double over the rounded inputs", size / 16 + 1);
    gp_peer_destroy(peer);
    if (gpu) gp_mem_free(gpu, &da), gp_mem_free(gpu, &db), gp_mem_free(gpu, &dc);
    free(ra), free(rb), free(hc), free(ha), free(hb);
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

/* ---------------------------------------------------------------- every f32 / f64 kernel alone (--variants) */
typedef struct vlab {
    gp_ctx_t *ctx;
    gp_dtype_t dt;
    const gp__gemm_kernel_t *k; /* NULL: production's choice, K split and operands packed where that pays */
    gp__gemm_t g;
} vlab_t;

static gp_status_t run_variant(void *u, int rep, gp_stream_t s)
{
    vlab_t *j = u;
    (void)rep;
    return gp__matrix_gpu_ops.gemm(j->ctx, j->dt, &j->g, j->k, (cudaStream_t)s);
}


static int variants_run(lab_run_t *r, size_t n)
{
    static const char *const cols[] = {"variant", "kernel", "dtype", "m=n=k", "median_us", "TFLOP/s", "x production",
                                       "check"};
    static const int num[] = {1, 0, 0, 1, 1, 1, 1, 0};
    lab_begin(r, "gpuprim lab gemm --variants (every f32 / f64 GEMM kernel alone, row-major C = A B)", cols, num, 8);
    gp_ctx_t *gpu = r->gpu;
    int rc = EXIT_OK;
    for (int d = 0; d < 2 && rc == EXIT_OK; d++) {
        const gp_dtype_t dt = d ? GP_F64 : GP_F32;
        const size_t es = gp_dtype_size(dt);
        gp_buffer_t ba = {0}, bb = {0}, bc = {0}, bp = {0};
        if (gp_mem_alloc(gpu, GP_MEM_DEVICE, n * n * es, &ba) != GP_OK || gp_mem_alloc(gpu, GP_MEM_DEVICE, n * n * es, &bb) != GP_OK ||
            gp_mem_alloc(gpu, GP_MEM_DEVICE, n * n * es, &bc) != GP_OK || gp_mem_alloc(gpu, GP_MEM_DEVICE, n * n * es, &bp) != GP_OK ||
            bench_fill_random(gpu, ba.device, n * n, dt, 31 + d) != GP_OK ||
            bench_fill_random(gpu, bb.device, n * n, dt, 37 + d) != GP_OK) {
            fprintf(stderr, "gpuprim lab gemm --variants: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        vlab_t j = {gpu, dt, NULL, {n, n, n, ba.device, bb.device, bp.device, n, n, n, 1, 0, 1.0, 0.0}};
        bench_stats_t prod = {0, 0, 0, 0};
        if (rc == EXIT_OK && (bench_time(gpu, run_variant, NULL, &j, r->warmup, r->reps, NULL, &prod) != GP_OK ||
                              gp_stream_sync(gpu, NULL) != GP_OK)) {
            fprintf(stderr, "gpuprim lab gemm --variants: production %s: %s\n", gp_dtype_name(dt), gp_last_error());
            rc = EXIT_FAIL;
        }
        const double fl = 2.0 * (double)n * n * n;
        if (rc == EXIT_OK) {
            char cn[24], cm[24], ct[24];
            snprintf(cn, sizeof cn, "%zu", n), snprintf(cm, sizeof cm, "%.1f", prod.median_ms * 1e3);
            snprintf(ct, sizeof ct, "%.2f", fl / (prod.median_ms * 1e-3) / 1e12);
            const char *cells[] = {"0", "production (gp_gemm: tuning table, packing, split K)", gp_dtype_name(dt), cn, cm,
                                   ct, "1.00", "reference"};
            report_row(&r->report, cells);
        }
        int nums[32];
        const int nv = lab_gemm_variant_numbers(dt, nums, 32);
        const gp__gemm_kernel_t *pick = gp__matrix_gpu_ops.gemm_pick(dt, n);
        for (int vi = 0; vi < nv && rc == EXIT_OK; vi++) {
            j.k = lab_gemm_kernel(dt, nums[vi]);
            j.g.C = bc.device;
            bench_stats_t bs;
            gp_status_t st = j.k ? gp_memset(gpu, bc.device, 0xff, n * n * es, NULL) : GP_ERR_INTERNAL;
            if (st == GP_OK) st = run_variant(&j, 0, NULL);
            if (st == GP_OK) st = gp_stream_sync(gpu, NULL);
            const size_t bad = st == GP_OK ? bench_gemm_differ(gpu, dt == GP_F64, n, n, n, bc.device, bp.device, 0.0) : 0;
            if (st == GP_OK) st = bench_time(gpu, run_variant, NULL, &j, r->warmup, r->reps, NULL, &bs);
            if (st != GP_OK) {
                fprintf(stderr, "gpuprim lab gemm --variants: %s %d: %s\n", gp_dtype_name(dt), nums[vi], gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            char cv[16], name[96], cn[24], cm[24], ct[24], cx[24], chk[48];
            snprintf(cv, sizeof cv, "%d", nums[vi]);
            snprintf(name, sizeof name, "%s%s", j.k->name, j.k == pick ? " *" : "");
            snprintf(cn, sizeof cn, "%zu", n), snprintf(cm, sizeof cm, "%.1f", bs.median_ms * 1e3);
            snprintf(ct, sizeof ct, "%.2f", fl / (bs.median_ms * 1e-3) / 1e12);
            snprintf(cx, sizeof cx, "%.2f", prod.median_ms / bs.median_ms);
            snprintf(chk, sizeof chk, bad ? "FAIL: %zu elements" : "ok", bad);
            if (bad) lab_fail(r, j.k->name, "%zu sampled elements differ from production's beyond rounding", bad);
            const char *cells[] = {cv, name, gp_dtype_name(dt), cn, cm, ct, cx, chk};
            report_row(&r->report, cells);
        }
        gp_mem_free(gpu, &ba), gp_mem_free(gpu, &bb), gp_mem_free(gpu, &bc), gp_mem_free(gpu, &bp);
    }
    report_meta(&r->report, "note", "* = the kernel the tuning table picks at this size (production may pack operands and "
                "split K besides); each kernel alone, K unsplit; checked: sampled rows against production's C");
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

static int gemm_run(lab_run_t *r)
{
    size_t size = 0;
    const char *val = lab_opt(r, "--size");
    if (val && (parse_size(val, &size) != 0 || size == 0 || size > 32768))
        return lab_bad_value(r, "--size", "1 .. 32768", val);
    gp_ctx_t *gpu = r->gpu, *cpu = r->cpu;
    int rc = EXIT_OK;
    if (size == 0) size = gpu ? 4096 : 256;
    if (lab_opt(r, "--variants")) {
        if (!gpu) {
            fprintf(stderr, "gpuprim lab gemm --variants: the kernels need a GPU\n");
            return EXIT_NO_GPU;
        }
        return variants_run(r, size);
    }
    const char *pv = lab_opt(r, "--precision");
    if (pv && strcmp(pv, "fp32") != 0) {
        for (int p = GP_GEMM_TF32; p <= GP_GEMM_FP16; p++)
            if (strcmp(pv, gp_gemm_precision_name((gp_gemm_precision_t)p)) == 0) return tc_run(r, (gp_gemm_precision_t)p, size);
        return lab_bad_value(r, "--precision", "fp32, tf32, bf16 or fp16", pv);
    }
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
    lab_begin(r, "gpuprim lab gemm (f32, row-major C = A B)", cols, num, 8);
    report_meta(&r->report, "peer", "%s", peer ? gp_peer_version(peer) : gpu ? perr : "none on the CPU backend");
    double peer_tf = 0, prev = 0;
    if (rc == EXIT_OK && peer) { /* cuBLAS at the main size: the % column */
        glab_t j = {gpu, NULL, peer, size, size, size, da.device, db.device, dc.device, ""};
        bench_stats_t bs;
        if (bench_time(gpu, run_gversion, NULL, &j, r->warmup, r->reps, NULL, &bs) == GP_OK)
            peer_tf = 2.0 * (double)size * size * size / (bs.median_ms * 1e-3) / 1e12;
        report_meta(&r->report, "cublas", "cublasSgemm pedantic FP32 at %zu: %.2f TFLOP/s (%.1f us), same run", size, peer_tf,
                    bs.median_ms * 1e3);
    }
    for (int vi = 0; vi < lab_gemm_nversions && rc == EXIT_OK; vi++) {
        const lab_version_t *v = &lab_gemm_versions[vi];
        if (v->gpu && !gpu) continue;
        gp_ctx_t *ctx = v->gpu ? gpu : cpu;
        const size_t sz = v->max_n && v->max_n < size ? v->max_n : size;
        glab_t j = {ctx, v, NULL, om, on, ok_, da.device, db.device, dc.device, ""};
        size_t bad = 0;
        /* full check on the odd shape, then the timed size */
        gp_status_t st = gemm_once(&j, ha, hb, hc, v->gpu);
        if (st == GP_OK) bad += gemm_check(ha, hb, hc, om, on, ok_, 1);
        j.m = j.n = j.k = sz;
        if (st == GP_OK) st = gemm_once(&j, ha, hb, hc, v->gpu);
        if (st == GP_OK) bad += gemm_check(ha, hb, hc, sz, sz, sz, sz / 16 + 1);
        bench_stats_t bs;
        if (st == GP_OK) st = bench_time(ctx, run_gversion, NULL, &j, r->warmup, r->reps, NULL, &bs);
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim lab gemm: %s: %s\n", v->name, gp_last_error());
            rc = EXIT_FAIL;
            break;
        }
        gemm_row(r, v, LAB_T_GEMM, "FP32", sz, bs.median_ms, bad, peer_tf, &prev);
    }
    report_meta(&r->report, "note", "* = production (gp_gemm f32); checked: all of 509 x 513 x 257, every %zuth row at the size",
                size / 16 + 1);
    gp_peer_destroy(peer);
    if (gpu) gp_mem_free(gpu, &da), gp_mem_free(gpu, &db), gp_mem_free(gpu, &dc);
    free(ha), free(hb), free(hc);
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

static void gemm_list(FILE *f)
{
    lab_list_versions(f, LAB_T_GEMM, lab_gemm_versions, lab_gemm_nversions);
    fprintf(f, "\n--precision tf32 | bf16 | fp16 (gp_gemm_ex on the tensor cores):\n");
    lab_list_versions(f, LAB_T_GEMM_TC, lab_gemm_tc_versions, lab_gemm_tc_nversions);
}

static const lab_opt_t k_opts[] = {
    {"--size", "N", "the timed size N x N x N (default 4096 on a GPU, 256 on the CPU)"},
    {"--precision", "P", "fp32 (the SGEMM progression, default), or tf32, bf16, fp16: the tensor-core progression"},
    {"--variants", NULL, "every f32 / f64 GEMM kernel the library has tried, alone at --size, against production"},
    {NULL, NULL, NULL},
};

const lab_topic_t lab_topic_gemm = {
    "gemm",
    "SGEMM from one thread per element to the register-tiled production kernel; the tensor cores (--precision)",
    "  the SGEMM progression (row-major C = A B, f32): each version checked in full on 509 x 513 x 257 against a\n"
    "  long double reference, then timed at N x N x N with sampled rows checked; % of cuBLAS SGEMM (pedantic\n"
    "  FP32) in the same run. --precision tf32|bf16|fp16: the tensor-core progression (mma.sync, wgmma, TMA with\n"
    "  warp specialization, two blocks per SM, clusters with multicast, a persistent grid), each checked the same\n"
    "  way against the rounded inputs and timed against cublasGemmEx. --variants: every f32 / f64 kernel (the\n"
    "  lab's variants and production's) alone at --size against production. Default --reps 5 --warmup 1.",
    k_opts, 0, 5, 1, gemm_list, gemm_run,
};
