/*
 * vector.c — `gpuprim lab vector`: every version of the vector table (vector_versions.cu) checked against a
 * higher-precision reference (vector_ref.c) on fresh random data with poisoned outputs, and timed side by side: GB/s,
 * % of the D2D ceiling measured in the same run, speedup over the previous version and over the serial CPU loop.
 */
#include "lab_versions.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct vjob {
    gp_ctx_t *ctx;
    const lab_version_t *v;
    gp__vec_args_t a;
} vjob_t;

static gp_status_t run_version(void *u, int rep, gp_stream_t s)
{
    vjob_t *j = u;
    (void)rep;
    return LAB_FN(lab_vec_fn, j->v)(j->ctx, &j->a, (cudaStream_t)s);
}

/* Fills n elements with random values from a simple xorshift stream (host side). */
static void host_random(void *p, size_t n, gp_dtype_t dt, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (dt == GP_F32)
            ((float *)p)[i] = (float)((double)(s >> 40) * 0x1p-23 - 1.0);
        else if (dt == GP_F64)
            ((double *)p)[i] = (double)(s >> 11) * 0x1p-52 - 1.0;
        else
            ((int32_t *)p)[i] = (int32_t)(s >> 33) - (1 << 30);
    }
}

/* Compares got to ref over n elements (elementwise) or one result (dot); returns the mismatches. */
static size_t compare(const gp__vec_args_t *a, const void *got, const void *ref, const void *x, const void *y,
                      char *first, size_t flen)
{
    size_t bad = 0;
    first[0] = 0;
    if (a->op == GP__VEC_DOT) {
        if (a->dtype == GP_I32) {
            int64_t g, r;
            memcpy(&g, got, 8);
            memcpy(&r, ref, 8);
            if (g != r) snprintf(first, flen, "dot %lld != %lld", (long long)g, (long long)r), bad = 1;
            return bad;
        }
        double g, r, mag = 0;
        memcpy(&g, got, 8);
        memcpy(&r, ref, 8);
        for (size_t i = 0; i < a->n; i++)
            mag += a->dtype == GP_F32 ? fabs((double)((const float *)x)[i] * ((const float *)y)[i])
                                      : fabs(((const double *)x)[i] * ((const double *)y)[i]);
        if (!(fabs(g - r) <= 1e-12 + 1e-9 * mag)) snprintf(first, flen, "dot %.17g != %.17g", g, r), bad = 1;
        return bad;
    }
    for (size_t i = 0; i < a->n; i++) {
        int ok;
        if (a->dtype == GP_I32)
            ok = ((const int32_t *)got)[i] == ((const int32_t *)ref)[i];
        else if (a->dtype == GP_F32) {
            double g = ((const float *)got)[i], r = ((const float *)ref)[i];
            ok = fabs(g - r) <= 1e-6 + 1e-6 * fabs(r);
        } else {
            double g = ((const double *)got)[i], r = ((const double *)ref)[i];
            ok = fabs(g - r) <= 1e-14 + 1e-14 * fabs(r);
        }
        if (!ok && bad++ == 0) snprintf(first, flen, "element %zu", i);
    }
    return bad;
}

/* Every version of one op: the serial CPU loop first (the "x serial" baseline), then the table in order. */
static int lab_op(lab_run_t *r, gp__vec_op_t op, gp_dtype_t dt, size_t n, const bench_ceilings_t *ce)
{
    gp_ctx_t *gpu_ctx = r->gpu, *cpu_ctx = r->cpu;
    const size_t es = gp_dtype_size(dt), bytes = n * es;
    int rc = EXIT_OK;
    gp_status_t st;
    char *hx = malloc(bytes ? bytes : 1), *hy = malloc(bytes ? bytes : 1), *hz = malloc(bytes ? bytes : 8),
         *href = malloc(bytes ? bytes : 8);
    char refdot[8], gotdot[8];
    gp_buffer_t dx = {0}, dy = {0}, dz = {0};
    if (!hx || !hy || !hz || !href) {
        fprintf(stderr, "gpuprim lab vector: out of host memory for n = %zu\n", n);
        rc = EXIT_FAIL;
        goto out;
    }
    host_random(hx, n, dt, 1 + (uint64_t)op);
    host_random(hy, n, dt, 101 + (uint64_t)op);
    if (gpu_ctx) {
        if ((st = gp_mem_alloc(gpu_ctx, GP_MEM_DEVICE, bytes, &dx)) != GP_OK ||
            (st = gp_mem_alloc(gpu_ctx, GP_MEM_DEVICE, bytes, &dy)) != GP_OK ||
            (st = gp_mem_alloc(gpu_ctx, GP_MEM_DEVICE, bytes > 64 ? bytes : 64, &dz)) != GP_OK ||
            (st = gp_memcpy_sync(gpu_ctx, dx.device, hx, bytes)) != GP_OK ||
            (st = gp_memcpy_sync(gpu_ctx, dy.device, hy, bytes)) != GP_OK) {
            fprintf(stderr, "gpuprim lab vector: device buffers: %s\n", gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
    }
    double serial_gbs = 0, prev_gbs = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < lab_vec_nversions; i++) {
            const lab_version_t *v = &lab_vec_versions[i];
            const int is_serial = v->id == 90;
            if (!(v->sel & (1u << op)) || (pass == 0) != is_serial) continue;
            if (v->gpu && !gpu_ctx) continue;
            const size_t nv = v->max_n && v->max_n < n ? v->max_n : n;
            gp_ctx_t *ctx = v->gpu ? gpu_ctx : cpu_ctx;
            vjob_t j = {ctx, v, {op, dt, nv, 0.5, v->gpu ? dx.device : hx, v->gpu ? dy.device : hy,
                                 v->gpu ? dz.device : (op == GP__VEC_DOT ? (void *)gotdot : hz)}};
            /* the reference over exactly nv elements, in higher precision (vector_ref.c) */
            gp__vec_args_t ra = j.a;
            ra.x = hx, ra.y = hy, ra.z = op == GP__VEC_DOT ? (void *)refdot : href;
            lab_vec_reference(&ra);
            /* the checked run writes over poison */
            if (v->gpu) {
                gp_memset(ctx, dz.device, 0xff, bytes > 64 ? bytes : 64, NULL);
            } else {
                memset(hz, 0xff, bytes ? bytes : 8);
                memset(gotdot, 0xff, 8);
            }
            if ((st = run_version(&j, 0, NULL)) != GP_OK || (st = gp_stream_sync(ctx, NULL)) != GP_OK) {
                fprintf(stderr, "gpuprim lab vector: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                goto out;
            }
            const void *got = op == GP__VEC_DOT ? (void *)gotdot : hz;
            if (v->gpu)
                gp_memcpy_sync(ctx, op == GP__VEC_DOT ? (void *)gotdot : hz, dz.device, op == GP__VEC_DOT ? 8 : nv * es);
            char first[128];
            const size_t bad = compare(&j.a, got, op == GP__VEC_DOT ? (void *)refdot : href, hx, hy, first, sizeof first);
            if (bad) lab_fail(r, v->name, "%s %s: %zu mismatches, first %s", gp__vec_op_name(op), gp_dtype_name(dt), bad,
                              first);
            bench_stats_t s;
            if ((st = bench_time(ctx, run_version, NULL, &j, r->warmup, r->reps, NULL, &s)) != GP_OK) {
                fprintf(stderr, "gpuprim lab vector: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                goto out;
            }
            const double moved = (double)nv * es * gp__vec_op_streams(op), g = bench_gbs(moved, s.median_ms);
            if (is_serial) serial_gbs = g;
            char cid[8], cn[24], cmed[24], cg[24], cpct[24], cprev[24], cser[24], cchk[160];
            snprintf(cid, sizeof cid, "%02d", v->id);
            snprintf(cn, sizeof cn, "%zu", nv);
            snprintf(cmed, sizeof cmed, "%.1f", s.median_ms * 1e3);
            snprintf(cg, sizeof cg, "%.2f", g);
            cpct[0] = cprev[0] = 0;
            if (v->gpu && ce->d2d_gbs > 0) snprintf(cpct, sizeof cpct, "%.1f", 100 * g / ce->d2d_gbs);
            if (!is_serial && prev_gbs > 0) snprintf(cprev, sizeof cprev, "%.2f", g / prev_gbs);
            snprintf(cser, sizeof cser, "%.2f", serial_gbs > 0 ? g / serial_gbs : 1.0);
            if (bad)
                snprintf(cchk, sizeof cchk, "FAIL: %zu mismatches, first %s", bad, first);
            else
                snprintf(cchk, sizeof cchk, "ok");
            const char *cells[] = {cid, v->name, gp__vec_op_name(op), gp_dtype_name(dt), cn, cmed, cg, cpct,
                                   cprev, cser, cchk};
            report_row(&r->report, cells);
            if (!is_serial) prev_gbs = g;
        }
    }
out:
    if (gpu_ctx) {
        gp_mem_free(gpu_ctx, &dx);
        gp_mem_free(gpu_ctx, &dy);
        gp_mem_free(gpu_ctx, &dz);
    }
    free(hx);
    free(hy);
    free(hz);
    free(href);
    return rc;
}

static int vector_topic(lab_run_t *r)
{
    size_t n = (size_t)1 << 24;
    gp_dtype_t dt = GP_F32;
    int op_lo = GP__VEC_TRIAD, op_hi = GP__VEC_TRIAD;
    const char *v;
    if ((v = lab_opt(r, "-n")) && parse_size(v, &n) != 0) return lab_bad_value(r, "-n", "an element count", v);
    if ((v = lab_opt(r, "--dtype")) &&
        (gp_dtype_parse(v, &dt) != GP_OK || (dt != GP_F32 && dt != GP_F64 && dt != GP_I32)))
        return lab_bad_value(r, "--dtype", "f32, f64 or i32", v);
    if ((v = lab_opt(r, "--op"))) {
        int found = 0;
        if (strcmp(v, "all") == 0) op_lo = GP__VEC_COPY, op_hi = GP__VEC_DOT, found = 1;
        for (int op = 0; op < GP__VEC_NOPS && !found; op++)
            if (strcmp(v, gp__vec_op_name((gp__vec_op_t)op)) == 0) op_lo = op_hi = op, found = 1;
        if (!found) return lab_bad_value(r, "--op", "copy, scale, add, triad, dot or all", v);
    }
    static const char *const cols[] = {"id", "version", "op", "dtype", "n", "median_us", "GB/s", "%d2d",
                                       "x prev", "x serial", "check"};
    static const int num[] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0};
    lab_begin(r, "gpuprim lab vector", cols, num, 11);
    bench_ceilings_t ce = {0, 0, 0};
    if (r->gpu && bench_ceilings(r->gpu, (size_t)1 << 30, r->warmup, r->reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim lab vector: ceilings: %s\n", gp_last_error());
        return EXIT_FAIL;
    }
    if (r->gpu) report_meta(&r->report, "ceiling", "D2D cudaMemcpy %.1f GB/s (read + write), same run", ce.d2d_gbs);
    int rc = EXIT_OK;
    for (int op = op_lo; op <= op_hi && rc == EXIT_OK; op++) rc = lab_op(r, (gp__vec_op_t)op, dt, n, &ce);
    return rc != EXIT_OK ? rc : r->failed ? EXIT_MISMATCH : EXIT_OK;
}

static void list(FILE *f) { lab_list_versions(f, LAB_T_VECTOR, lab_vec_versions, lab_vec_nversions); }

static const lab_opt_t k_opts[] = {
    {"-n", "N", "elements (default 2^24; slow teaching versions run at the cap the table names)"},
    {"--op", "OP", "copy, scale, add, triad (default), dot or all"},
    {"--dtype", "T", "f32 (default), f64 or i32"},
    {NULL, NULL, NULL},
};

const lab_topic_t lab_topic_vector = {
    "vector",
    "the vector progression: add<<<1,1>>> to vectorized grid-stride copy/scale/add/triad/dot",
    "  validates every version against a higher-precision reference on random data (outputs poisoned first) and\n"
    "  times them side by side; speedups compare GB/s.",
    k_opts, 0, 0, 0, list, vector_topic,
};
