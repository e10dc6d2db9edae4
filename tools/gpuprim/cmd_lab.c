/*
 * cmd_lab.c — `gpuprim lab vector`: every version of the vector table validated against the CPU backend on fresh
 * random data and timed side by side: GB/s, % of the D2D ceiling measured in the same run, speedup over the
 * previous version and over the serial CPU loop. `--list` prints the table.
 */
#include "lab_versions.h"
#include "commands.h"

#include "reduce/reduce_internal.h"
#include "vector/vector_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ljob {
    gp_ctx_t *ctx;
    const gp__vec_version_t *v;
    gp__vec_args_t a;
} ljob_t;

static gp_status_t run_version(void *u, int rep, gp_stream_t s)
{
    ljob_t *j = u;
    (void)rep;
    return j->v->launch(j->ctx, &j->a, (cudaStream_t)s);
}

static void list_versions(FILE *f)
{
    fprintf(f, "%-4s %-32s %-4s %-28s %s\n", "id", "name", "on", "ops", "teaches [constraints]");
    for (int i = 0; i < gp__vec_nversions; i++) {
        const gp__vec_version_t *v = &gp__vec_versions[i];
        char ops[64] = "";
        for (int op = 0; op < GP__VEC_NOPS; op++)
            if (v->ops & (1u << op)) {
                strcat(ops, ops[0] ? "," : "");
                strcat(ops, gp__vec_op_name((gp__vec_op_t)op));
            }
        int prod = v->id == gp__vec_production_id(GP__VEC_TRIAD, v->gpu) ||
                   v->id == gp__vec_production_id(GP__VEC_DOT, v->gpu);
        fprintf(f, "%-4d %-32s %-4s %-28s %s%s%s%s%s\n", v->id, v->name, v->gpu ? "gpu" : "cpu", ops, v->teaches,
                v->constraints[0] ? " [" : "", v->constraints, v->constraints[0] ? "]" : "",
                prod ? " <- production" : "");
    }
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

/* Compares got to ref over n elements (elementwise) or one result (dot); returns mismatches (at most 10 shown). */
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

static int lab_op(gp_ctx_t *gpu_ctx, gp_ctx_t *cpu_ctx, gp__vec_op_t op, gp_dtype_t dt, size_t n, cli_common_t *c,
                  const bench_ceilings_t *ce, report_t *r)
{
    const size_t es = gp_dtype_size(dt), bytes = n * es;
    int rc = EXIT_OK;
    gp_status_t st;
    char *hx = malloc(bytes ? bytes : 1), *hy = malloc(bytes ? bytes : 1), *hz = malloc(bytes ? bytes : 8),
         *href = malloc(bytes ? bytes : 8);
    char refdot[8], gotdot[8];
    gp_buffer_t dx = {0}, dy = {0}, dz = {0};
    if (!hx || !hy || !hz || !href) {
        fprintf(stderr, "gpuprim lab: out of host memory for n = %zu\n", n);
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
            fprintf(stderr, "gpuprim lab: device buffers: %s\n", gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
    }
    double serial_gbs = 0, prev_gbs = 0;
    /* The serial CPU loop first: it is the baseline of the "x serial" column. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < gp__vec_nversions; i++) {
            const gp__vec_version_t *v = &gp__vec_versions[i];
            int is_serial = v->id == 90;
            if (!(v->ops & (1u << op)) || (pass == 0) != is_serial) continue;
            if (v->gpu && !gpu_ctx) continue;
            size_t nv = v->lab_max_n && v->lab_max_n < n ? v->lab_max_n : n;
            gp_ctx_t *ctx = v->gpu ? gpu_ctx : cpu_ctx;
            ljob_t j = {ctx, v, {op, dt, nv, 0.5, v->gpu ? dx.device : hx, v->gpu ? dy.device : hy,
                                 v->gpu ? dz.device : (op == GP__VEC_DOT ? (void *)gotdot : hz)}};
            /* Reference over exactly nv elements, in higher precision (lab/vector_ref.c). */
            gp__vec_args_t ra = j.a;
            ra.x = hx, ra.y = hy, ra.z = op == GP__VEC_DOT ? (void *)refdot : href;
            lab_vec_reference(&ra);
            /* Validation run on poisoned output. */
            if (v->gpu) {
                gp_memset(ctx, dz.device, 0xff, bytes > 64 ? bytes : 64, NULL);
            } else {
                memset(hz, 0xff, bytes ? bytes : 8);
                memset(gotdot, 0xff, 8);
            }
            if ((st = v->launch(ctx, &j.a, NULL)) != GP_OK || (st = gp_stream_sync(ctx, NULL)) != GP_OK) {
                fprintf(stderr, "gpuprim lab: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                goto out;
            }
            const void *got = op == GP__VEC_DOT ? (void *)gotdot : hz;
            if (v->gpu) gp_memcpy_sync(ctx, op == GP__VEC_DOT ? (void *)gotdot : hz, dz.device,
                                       op == GP__VEC_DOT ? 8 : nv * es);
            char first[128];
            size_t bad = compare(&j.a, got, op == GP__VEC_DOT ? (void *)refdot : href, hx, hy, first, sizeof first);
            if (bad) rc = EXIT_MISMATCH;
            bench_stats_t s;
            if ((st = bench_time(ctx, run_version, NULL, &j, c->warmup, c->reps, NULL, &s)) != GP_OK) {
                fprintf(stderr, "gpuprim lab: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                goto out;
            }
            double moved = (double)nv * es * gp__vec_op_streams(op), g = bench_gbs(moved, s.median_ms);
            if (is_serial) serial_gbs = g;
            char cid[8], cn[24], cmed[24], cg[24], cpct[24], cprev[24], cser[24], cchk[160];
            snprintf(cid, sizeof cid, "%02d", v->id);
            snprintf(cn, sizeof cn, "%zu", nv);
            snprintf(cmed, sizeof cmed, "%.1f", s.median_ms * 1e3);
            snprintf(cg, sizeof cg, "%.2f", g);
            cpct[0] = 0;
            if (v->gpu && ce->d2d_gbs > 0) snprintf(cpct, sizeof cpct, "%.1f", 100 * g / ce->d2d_gbs);
            cprev[0] = 0;
            if (!is_serial && prev_gbs > 0) snprintf(cprev, sizeof cprev, "%.2f", g / prev_gbs);
            snprintf(cser, sizeof cser, "%.2f", serial_gbs > 0 ? g / serial_gbs : 1.0);
            if (bad)
                snprintf(cchk, sizeof cchk, "FAIL: %zu mismatches, first %s", bad, first);
            else
                snprintf(cchk, sizeof cchk, "ok");
            const char *cells[] = {cid, v->name, gp__vec_op_name(op), gp_dtype_name(dt), cn, cmed, cg, cpct,
                                   cprev, cser, cchk};
            report_row(r, cells);
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

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim lab vector [--list] [-d DEVICE|cpu] [-n N] [--op copy|scale|add|triad|dot|all]\n"
               "                          [--dtype f32|f64|i32] [--reps N] [--warmup N] [--json|--csv]\n"
               "  validates every version against the CPU backend on random data and times them side by side.\n"
               "  Default: --op triad, --dtype f32, n = 2^24 (slow teaching versions run at the cap the table\n"
               "  names); speedups compare GB/s.\n");
}

/* Every lab compares the CPU versions with the GPU ones: a CPU context always, and the GPU the options ask for
 * (none, with a note, where there is no GPU). Returns EXIT_OK or the exit code to return. */
void lab_meta(report_t *r, gp_ctx_t *ctx)
{
    char desc[512], date[16];
    describe_device(ctx, desc, sizeof desc);
    today(date, sizeof date);
    report_meta(r, "device", "%s", desc);
    report_meta(r, "date", "%s", date);
}

int lab_contexts(const char *title, int device, gp_ctx_t **cpu, gp_ctx_t **gpu, const char *doing)
{
    char why[700] = "";
    *cpu = *gpu = NULL;
    gp_status_t st = gp_ctx_create(cpu, GP_DEVICE_CPU);
    if (st == GP_OK && device != GP_DEVICE_CPU) {
        st = open_context(device, gpu, why, sizeof why);
        if (st == GP_OK && gp_ctx_device(*gpu) == GP_DEVICE_CPU) {
            gp_ctx_destroy(*gpu);
            *gpu = NULL;
        }
    }
    if (st != GP_OK) {
        fprintf(stderr, "%s: %s: %s\n", title, gp_status_string(st), gp_last_error());
        gp_ctx_destroy(*cpu);
        *cpu = NULL;
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    if (why[0]) note_cpu(title, why, doing);
    return EXIT_OK;
}

/* ---------------------------------------------------------------------------------------------- reduce */
typedef struct rlab {
    gp_ctx_t *ctx;
    const lab_reduce_version_t *v;
    const float *x;
    size_t n;
    float *out;
} rlab_t;

static gp_status_t run_rversion(void *u, int rep, gp_stream_t s)
{
    rlab_t *j = u;
    (void)rep;
    return j->v->launch(j->ctx, j->x, j->n, j->out, (cudaStream_t)s);
}

static int lab_reduce(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 10, 2, 0};
    size_t n = (size_t)1 << 24;
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            printf("%-4s %-32s %-4s %s\n", "id", "name", "on", "teaches");
            for (int r = 0; r < lab_reduce_nversions; r++)
                printf("%-4d %-32s %-4s %s%s\n", lab_reduce_versions[r].id, lab_reduce_versions[r].name,
                       lab_reduce_versions[r].gpu ? "gpu" : "cpu", lab_reduce_versions[r].teaches,
                       lab_reduce_versions[r].id == 13 ? " <- production" : "");
            return EXIT_OK;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpuprim lab reduce [--list] [-d DEVICE|cpu] [-n N] [--reps N] [--warmup N] [--json|--csv]\n"
                   "  the primers' reduction progression (f32 sum) on the same data, each version checked for the\n"
                   "  exact answer (integer-valued inputs make every order exact), timed side by side.\n");
            return EXIT_OK;
        } else if (strcmp(a, "-n") == 0 && v) {
            if (parse_size(v, &n) != 0 || n > ((size_t)1 << 31)) {
                fprintf(stderr, "gpuprim lab reduce: -n: an element count up to 2^31, got '%s'\n", v);
                return EXIT_USAGE;
            }
            i++;
        } else {
            fprintf(stderr, "gpuprim lab reduce: unknown argument '%s'\n", a);
            return EXIT_USAGE;
        }
    }
    gp_ctx_t *cpu = NULL, *gpu = NULL;
    int orc = lab_contexts("gpuprim lab reduce", c.device, &cpu, &gpu, "CPU versions only");
    if (orc != EXIT_OK) return orc;
    gp_status_t st;
    /* Integers in [-7, 7]: every partial sum is an exact float, so every order gives the exact answer. */
    float *hx = malloc((n ? n : 1) * sizeof *hx);
    int rc = EXIT_OK;
    if (hx == NULL) {
        fprintf(stderr, "gpuprim lab reduce: out of host memory\n");
        gp_ctx_destroy(gpu);
        gp_ctx_destroy(cpu);
        return EXIT_FAIL;
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        hx[i] = (float)((int)(s % 15) - 7);
    }
    gp_buffer_t dx = {0}, dout = {0};
    if (gpu && ((st = gp_mem_alloc(gpu, GP_MEM_DEVICE, n * sizeof(float), &dx)) != GP_OK ||
                (st = gp_mem_alloc(gpu, GP_MEM_DEVICE, 64, &dout)) != GP_OK ||
                (st = gp_memcpy_sync(gpu, dx.device, hx, n * sizeof(float))) != GP_OK)) {
        fprintf(stderr, "gpuprim lab reduce: device buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    static const char *const cols[] = {"id", "version", "n", "median_us", "GB/s", "%read", "x prev", "x serial",
                                       "check"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 1, 0};
    report_t r;
    report_init(&r, "gpuprim lab reduce (f32 sum)", cols, num, 9);
    lab_meta(&r, gpu ? gpu : cpu);
    bench_ceilings_t ce = {0, 0, 0};
    if (rc == EXIT_OK && gpu && bench_ceilings(gpu, (size_t)1 << 30, c.warmup, c.reps, &ce) != GP_OK) rc = EXIT_FAIL;
    if (gpu) report_meta(&r, "ceiling", "read-only kernel %.1f GB/s, same run", ce.read_gbs);
    double serial_gbs = 0, prev_gbs = 0;
    for (int pass = 0; pass < 2 && rc != EXIT_FAIL; pass++)
        for (int vi = 0; vi < lab_reduce_nversions && rc != EXIT_FAIL; vi++) {
            const lab_reduce_version_t *v = &lab_reduce_versions[vi];
            if ((pass == 0) != (v->id == 90) || (v->gpu && !gpu)) continue;
            const size_t nv = v->lab_max_n && v->lab_max_n < n ? v->lab_max_n : n;
            long long exact = 0;
            for (size_t i = 0; i < nv; i++) exact += (long long)hx[i];
            gp_ctx_t *ctx = v->gpu ? gpu : cpu;
            float host_out = NAN, got = NAN;
            rlab_t j = {ctx, v, v->gpu ? (const float *)dx.device : hx, nv, v->gpu ? (float *)dout.device : &host_out};
            if (v->gpu) gp_memset(gpu, dout.device, 0xff, 64, NULL);
            if ((st = v->launch(ctx, j.x, nv, j.out, NULL)) != GP_OK || (st = gp_stream_sync(ctx, NULL)) != GP_OK) {
                fprintf(stderr, "gpuprim lab reduce: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            if (v->gpu) gp_memcpy_sync(gpu, &got, dout.device, sizeof got);
            else got = host_out;
            const int ok = got == (float)exact;
            if (!ok) rc = EXIT_MISMATCH;
            bench_stats_t bs;
            if ((st = bench_time(ctx, run_rversion, NULL, &j, c.warmup, c.reps, NULL, &bs)) != GP_OK) {
                fprintf(stderr, "gpuprim lab reduce: %s: %s\n", v->name, gp_last_error());
                rc = EXIT_FAIL;
                break;
            }
            const double g = bench_gbs(4.0 * (double)nv, bs.median_ms);
            if (v->id == 90) serial_gbs = g;
            char cid[8], cn[24], cmed[24], cg[24], cpct[24], cprev[24], cser[24], cchk[96];
            snprintf(cid, sizeof cid, "%02d", v->id);
            snprintf(cn, sizeof cn, "%zu", nv);
            snprintf(cmed, sizeof cmed, "%.1f", bs.median_ms * 1e3);
            snprintf(cg, sizeof cg, "%.2f", g);
            cpct[0] = cprev[0] = 0;
            if (v->gpu && ce.read_gbs > 0) snprintf(cpct, sizeof cpct, "%.1f", 100 * g / ce.read_gbs);
            if (v->id != 90 && prev_gbs > 0) snprintf(cprev, sizeof cprev, "%.2f", g / prev_gbs);
            snprintf(cser, sizeof cser, "%.2f", serial_gbs > 0 ? g / serial_gbs : 1.0);
            if (ok)
                snprintf(cchk, sizeof cchk, "ok");
            else
                snprintf(cchk, sizeof cchk, "FAIL: %.9g, exact %lld", got, exact);
            const char *cells[] = {cid, v->name, cn, cmed, cg, cpct, cprev, cser, cchk};
            report_row(&r, cells);
            if (v->id != 90) prev_gbs = g;
        }
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim lab reduce: some versions FAILED verification\n");
    report_free(&r);
    if (gpu) {
        gp_mem_free(gpu, &dx);
        gp_mem_free(gpu, &dout);
    }
    free(hx);
    gp_ctx_destroy(gpu);
    gp_ctx_destroy(cpu);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- the runner */
/* The topics still written as their own verbs here and in cmd_lab_*.c (issue 12 moves them into lab/ one by one). */
static const struct {
    const char *name, *summary;
} own_verbs[] = {
    {"vector", "the vector progression: add<<<1,1>>> to vectorized grid-stride copy/scale/add/triad/dot"},
    {"reduce", "the primers' reduction progression, atomics to the deterministic tile tree"},
    {"histogram", "privatized, warp, cluster (distributed shared memory) and global histograms"},
    {"transpose", "naive, shared-memory tile, padded tile, production"},
    {"gemm", "SGEMM from one thread per element to the register-tiled production kernel"},
};

static void lab_usage(FILE *f)
{
    fprintf(f, "usage: gpuprim lab TOPIC [options]   (gpuprim lab TOPIC --help; gpuprim lab --list)\n");
}

static void list_topics(FILE *f)
{
    for (size_t k = 0; k < sizeof own_verbs / sizeof own_verbs[0]; k++)
        fprintf(f, "%-10s %s\n", own_verbs[k].name, own_verbs[k].summary);
    for (int t = 0; lab_topics[t]; t++) fprintf(f, "%-10s %s\n", lab_topics[t]->name, lab_topics[t]->summary);
}

static void topic_usage(const lab_topic_t *t, FILE *f)
{
    fprintf(f, "usage: gpuprim lab %s [--list] [-d DEVICE|cpu] [--reps N] [--warmup N] [--json|--csv] [--svg FILE]",
            t->name);
    for (int k = 0; t->opts && t->opts[k].name; k++)
        fprintf(f, " [%s%s%s]", t->opts[k].name, t->opts[k].arg ? " " : "", t->opts[k].arg ? t->opts[k].arg : "");
    fprintf(f, "\n  %s\n", t->summary);
    fprintf(f, "%s\n", t->help);
    for (int k = 0; t->opts && t->opts[k].name; k++)
        fprintf(f, "  %s%s%s: %s\n", t->opts[k].name, t->opts[k].arg ? " " : "", t->opts[k].arg ? t->opts[k].arg : "",
                t->opts[k].help);
}

/* One runner for every topic of lab/lab.h: options, contexts, the topic's run, the report, the charts. */
static int run_topic(const lab_topic_t *t, int argc, char **argv)
{
    char title[64];
    snprintf(title, sizeof title, "gpuprim lab %s", t->name);
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 10, 2, 0};
    lab_run_t *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "%s: out of host memory\n", title);
        return EXIT_FAIL;
    }
    r->topic = t;
    int rc = EXIT_OK;
    for (int i = 1; i < argc && rc == EXIT_OK; i++) {
        const int k = parse_common(argc, argv, &i, &c);
        if (k < 0) rc = EXIT_USAGE;
        if (k != 0) continue;
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0) {
            t->list(stdout);
            free(r);
            return EXIT_OK;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            topic_usage(t, stdout);
            free(r);
            return EXIT_OK;
        }
        int o = 0;
        while (t->opts && t->opts[o].name && strcmp(t->opts[o].name, a) != 0) o++;
        if (t->opts == NULL || t->opts[o].name == NULL || o >= LAB_MAX_OPTS) {
            fprintf(stderr, "%s: unknown argument '%s' (gpuprim lab %s --help lists the options)\n", title, a, t->name);
            rc = EXIT_USAGE;
        } else if (t->opts[o].arg && i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value (%s)\n", title, a, t->opts[o].arg);
            rc = EXIT_USAGE;
        } else {
            r->value[o] = t->opts[o].arg ? argv[++i] : "";
        }
    }
    if (rc != EXIT_OK) {
        free(r);
        return rc;
    }
    r->reps = c.reps;
    r->warmup = c.warmup;
    r->svg = c.svg != NULL;
    if (t->needs_gpu && c.device == GP_DEVICE_CPU) {
        fprintf(stderr, "%s: needs a GPU (-d cpu has nothing to measure)\n", title);
        free(r);
        return EXIT_USAGE;
    }
    rc = lab_contexts(title, c.device, &r->cpu, &r->gpu,
                      t->needs_gpu ? "nothing to measure without a GPU" : "CPU versions only");
    if (rc == EXIT_OK && t->needs_gpu && r->gpu == NULL) rc = EXIT_NO_GPU;
    if (rc == EXIT_OK) rc = t->run(r);
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
        report_print_with(&r->report, &r->claims, "claims", c.fmt, stdout);
        if (c.svg && svg_line_charts(c.svg, title, r->chart, r->nchart) != 0 && rc == EXIT_OK) rc = EXIT_FAIL;
    }
    if (rc == EXIT_MISMATCH) fprintf(stderr, "%s: %d version(s) FAILED verification\n", title, r->failed);
    report_free(&r->report);
    report_free(&r->claims);
    gp_ctx_destroy(r->gpu);
    gp_ctx_destroy(r->cpu);
    free(r);
    return rc;
}

int cmd_lab(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        lab_usage(argc < 2 ? stderr : stdout);
        if (argc >= 2) list_topics(stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "--list") == 0) {
        list_topics(stdout);
        return EXIT_OK;
    }
    const lab_topic_t *topic = lab_topic_find(argv[1]);
    if (topic) return run_topic(topic, argc - 1, argv + 1);
    if (strcmp(argv[1], "reduce") == 0) return lab_reduce(argc - 1, argv + 1);
    if (strcmp(argv[1], "histogram") == 0) return lab_histogram(argc - 1, argv + 1);
    if (strcmp(argv[1], "transpose") == 0) return lab_transpose(argc - 1, argv + 1);
    if (strcmp(argv[1], "gemm") == 0) return lab_gemm(argc - 1, argv + 1);
    if (strcmp(argv[1], "vector") != 0) {
        fprintf(stderr, "gpuprim lab: unknown topic '%s' (gpuprim lab --list lists them)\n", argv[1]);
        return EXIT_USAGE;
    }
    argc--, argv++;
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 10, 2, 0};
    size_t n = (size_t)1 << 24;
    gp_dtype_t dt = GP_F32;
    int op_lo = GP__VEC_TRIAD, op_hi = GP__VEC_TRIAD;
    for (int i = 1; i < argc; i++) {
        int k = parse_common(argc, argv, &i, &c);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--list") == 0) {
            list_versions(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return EXIT_OK;
        } else if (strcmp(a, "-n") == 0 && v) {
            if (parse_size(v, &n) != 0) {
                fprintf(stderr, "gpuprim lab vector: -n: bad element count '%s'\n", v);
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--dtype") == 0 && v) {
            if (gp_dtype_parse(v, &dt) != GP_OK || (dt != GP_F32 && dt != GP_F64 && dt != GP_I32)) {
                fprintf(stderr, "gpuprim lab vector: --dtype takes f32, f64 or i32, got '%s'\n", v);
                return EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--op") == 0 && v) {
            int found = 0;
            if (strcmp(v, "all") == 0) op_lo = GP__VEC_COPY, op_hi = GP__VEC_DOT, found = 1;
            for (int op = 0; op < GP__VEC_NOPS && !found; op++)
                if (strcmp(v, gp__vec_op_name((gp__vec_op_t)op)) == 0) op_lo = op_hi = op, found = 1;
            if (!found) {
                fprintf(stderr, "gpuprim lab vector: --op takes copy, scale, add, triad, dot or all, got '%s'\n", v);
                return EXIT_USAGE;
            }
            i++;
        } else {
            fprintf(stderr, "gpuprim lab vector: unknown argument '%s'\n", a);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    gp_ctx_t *cpu = NULL, *gpu = NULL;
    int orc = lab_contexts("gpuprim lab vector", c.device, &cpu, &gpu, "CPU versions only");
    if (orc != EXIT_OK) return orc;
    static const char *const cols[] = {"id", "version", "op", "dtype", "n", "median_us", "GB/s", "%d2d",
                                       "x prev", "x serial", "check"};
    static const int num[] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0};
    report_t r;
    report_init(&r, "gpuprim lab vector", cols, num, 11);
    lab_meta(&r, gpu ? gpu : cpu);
    bench_ceilings_t ce = {0, 0, 0};
    int rc = EXIT_OK;
    if (gpu && bench_ceilings(gpu, (size_t)1 << 30, c.warmup, c.reps, &ce) != GP_OK) {
        fprintf(stderr, "gpuprim lab vector: ceilings: %s\n", gp_last_error());
        rc = EXIT_FAIL;
    }
    if (gpu) report_meta(&r, "ceiling", "D2D cudaMemcpy %.1f GB/s (read + write), same run", ce.d2d_gbs);
    for (int op = op_lo; op <= op_hi && rc != EXIT_FAIL; op++) {
        int k = lab_op(gpu, cpu, (gp__vec_op_t)op, dt, n, &c, &ce, &r);
        if (k != EXIT_OK && rc == EXIT_OK) rc = k;
    }
    report_print(&r, c.fmt, stdout);
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim lab vector: some versions FAILED verification\n");
    report_free(&r);
    gp_ctx_destroy(gpu);
    gp_ctx_destroy(cpu);
    return rc;
}
