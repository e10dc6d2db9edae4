/*
 * cmd_matrix.c — `gpuprim transpose IN OUT` and `gpuprim gemm A B -o C`: matrices from .npy files (C order: row-major,
 * Fortran order: column-major) or raw files (--shape R,C --dtype T, row-major unless --order f), through
 * gp_matrix_transpose / gp_gemm on the GPU (pitched device copies) or the CPU backend. OUT ending in .npy is written as
 * .npy (the input's order), anything else as raw elements in that order. --json: one object with shapes, device and
 * times (compute: the call and its completion; total: files included).
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suf)
{
    const size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* "R,C" */
static int parse_shape(const char *v, size_t *r, size_t *c)
{
    char *end;
    unsigned long long a = strtoull(v, &end, 10);
    if (end == v || *end != ',') return -1;
    const char *w = end + 1;
    unsigned long long b = strtoull(w, &end, 10);
    if (end == w || *end) return -1;
    *r = (size_t)a, *c = (size_t)b;
    return 0;
}

typedef struct mat_src {
    const char *path;
    int raw;          /* --shape given: a raw file */
    size_t rows, cols;
    gp_layout_t layout; /* raw: --order */
} mat_src_t;

/* A file into a host matrix (m->data malloc'd). .npy unless a shape was given. */
static int load_matrix(const char *verb, const mat_src_t *s, int have_dtype, gp_dtype_t dtype, gp_matrix_t *m)
{
    gp_status_t st;
    if (!s->raw) {
        if ((st = gp_npy_load_matrix(s->path, m)) != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
            return EXIT_FAIL;
        }
        return EXIT_OK;
    }
    if (!have_dtype) {
        fprintf(stderr, "gpuprim %s: %s: a raw file needs --dtype\n", verb, s->path);
        return EXIT_USAGE;
    }
    size_t n;
    if (!(s->rows == 0 || s->cols <= (size_t)-1 / s->rows)) {
        fprintf(stderr, "gpuprim %s: %s: shape %zu,%zu overflows\n", verb, s->path, s->rows, s->cols);
        return EXIT_USAGE;
    }
    n = s->rows * s->cols;
    gp_array_desc_t d;
    if ((st = gp_raw_inspect(s->path, dtype, 0, n, &d)) != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
        return EXIT_FAIL;
    }
    FILE *f = fopen(s->path, "rb");
    void *buf = malloc(n ? n * gp_dtype_size(dtype) : 1);
    size_t got = 0;
    st = f && buf ? gp_array_fread(f, &d, n, buf, &got) : GP_ERR_IO;
    if (f) fclose(f);
    if (st != GP_OK || got != n) {
        fprintf(stderr, "gpuprim %s: %s: read %zu of %zu elements%s%s\n", verb, s->path, got, n, st ? ": " : "",
                st ? gp_last_error() : "");
        free(buf);
        return EXIT_FAIL;
    }
    *m = (gp_matrix_t){buf, s->rows, s->cols, s->layout == GP_ROW_MAJOR ? s->cols : s->rows, dtype, s->layout};
    if (m->ld == 0) m->ld = 1;
    return EXIT_OK;
}

static int save_matrix(const char *verb, const char *path, const gp_matrix_t *m)
{
    if (ends_with(path, ".npy")) {
        if (gp_npy_save_matrix(path, m) != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
            return EXIT_FAIL;
        }
        return EXIT_OK;
    }
    FILE *f = fopen(path, "wb");
    const size_t es = gp_dtype_size(m->dtype), inner = m->layout == GP_ROW_MAJOR ? m->cols : m->rows,
                 outer = m->layout == GP_ROW_MAJOR ? m->rows : m->cols;
    int ok = f != NULL;
    for (size_t r = 0; ok && r < outer && inner; r++)
        ok = fwrite((const char *)m->data + r * m->ld * es, es, inner, f) == inner;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) {
        fprintf(stderr, "gpuprim %s: cannot write %s\n", verb, path);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

/* A host matrix onto the context: a pitched device copy on a GPU (same layout), the host matrix itself on the CPU. */
static gp_status_t to_ctx(gp_ctx_t *ctx, const gp_matrix_t *h, gp_matrix_t *d, gp_pitched_t *mem, int copy)
{
    if (gp_ctx_device(ctx) == GP_DEVICE_CPU) {
        *d = *h;
        memset(mem, 0, sizeof *mem);
        return GP_OK;
    }
    gp_status_t st = gp_matrix_alloc(ctx, h->rows, h->cols, h->dtype, h->layout, d, mem);
    if (st == GP_OK && copy) st = gp_matrix_copy(ctx, d, h, NULL);
    return st;
}

static void free_ctx(gp_ctx_t *ctx, const gp_matrix_t *h, const gp_matrix_t *d, gp_pitched_t *mem)
{
    if (d->data && d->data != h->data) gp_mem_free_pitched(ctx, mem);
}

static void json_times(const char *dev, double compute, double total, const char *out)
{
    printf("\"device\": ");
    json_string(stdout, dev);
    printf(", \"compute_seconds\": %.6f, \"total_seconds\": %.6f, \"output\": ", compute, total);
    json_string(stdout, out);
    printf("}\n");
}

/* Shared options: -d, --json, --dtype, --order. Returns 1 taken, 0 not ours, -1 bad. */
static int matrix_opt(const char *verb, int argc, char **argv, int *i, int *device, int *json, int *have_dtype,
                      gp_dtype_t *dtype, gp_layout_t *order)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if ((strcmp(a, "-d") == 0 || strcmp(a, "--device") == 0) && v) {
        if (parse_device(v, device) != 0) {
            fprintf(stderr, "gpuprim %s: --device: 'cpu' or a GPU ordinal, got '%s'\n", verb, v);
            return -1;
        }
    } else if (strcmp(a, "--json") == 0) {
        *json = 1;
        return 1;
    } else if (strcmp(a, "--dtype") == 0 && v) {
        if (gp_dtype_parse(v, dtype) != GP_OK) {
            fprintf(stderr, "gpuprim %s: --dtype: unknown dtype '%s'\n", verb, v);
            return -1;
        }
        *have_dtype = 1;
    } else if (strcmp(a, "--order") == 0 && v) {
        if (strcmp(v, "c") != 0 && strcmp(v, "f") != 0) {
            fprintf(stderr, "gpuprim %s: --order: c (row-major) or f (column-major), got '%s'\n", verb, v);
            return -1;
        }
        *order = v[0] == 'c' ? GP_ROW_MAJOR : GP_COL_MAJOR;
    } else
        return 0;
    (*i)++;
    return 1;
}

int cmd_transpose(int argc, char **argv)
{
    static const char verb[] = "transpose";
    int device = DEVICE_AUTO, json = 0, have_dtype = 0;
    gp_dtype_t dtype = GP_F32;
    gp_layout_t order = GP_ROW_MAJOR;
    mat_src_t in = {NULL, 0, 0, 0, GP_ROW_MAJOR};
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k = matrix_opt(verb, argc, argv, &i, &device, &json, &have_dtype, &dtype, &order);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpuprim transpose IN OUT [--shape R,C --dtype T [--order c|f]] [-d cpu|ID] [--json]\n"
                   "  OUT = IN^T (f32 f64 i32 u8), in IN's order: a C-order .npy gives a C-order .npy, Fortran gives\n"
                   "  Fortran. IN is .npy unless --shape says it is raw (row-major unless --order f). OUT ending in .npy\n"
                   "  is written as .npy, else as raw elements.\n");
            return EXIT_OK;
        } else if (strcmp(a, "--shape") == 0 && v) {
            if (parse_shape(v, &in.rows, &in.cols) != 0) {
                fprintf(stderr, "gpuprim transpose: --shape: R,C, got '%s'\n", v);
                return EXIT_USAGE;
            }
            in.raw = 1;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpuprim transpose: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (!in.path) in.path = a;
        else if (!out) out = a;
        else {
            fprintf(stderr, "gpuprim transpose: one input and one output, got '%s' too\n", a);
            return EXIT_USAGE;
        }
    }
    if (!in.path || !out) {
        fprintf(stderr, "usage: gpuprim transpose IN OUT [--shape R,C --dtype T] [-d cpu|ID] [--json]\n");
        return EXIT_USAGE;
    }
    in.layout = order;
    const double t0 = now_seconds();
    gp_matrix_t h = {0}, hout = {0}, d = {0}, dout = {0};
    gp_pitched_t mi = {0}, mo = {0};
    gp_ctx_t *ctx = NULL;
    int rc = load_matrix(verb, &in, have_dtype, dtype, &h);
    if (rc != EXIT_OK) return rc;
    if ((rc = open_context_verb(verb, device, &ctx)) != EXIT_OK) {
        free(h.data);
        return rc;
    }
    const size_t es = gp_dtype_size(h.dtype);
    hout = (gp_matrix_t){malloc(h.rows * h.cols * es + 1), h.cols, h.rows, h.layout == GP_ROW_MAJOR ? h.rows : h.cols,
                         h.dtype, h.layout};
    if (hout.ld == 0) hout.ld = 1;
    double tc0 = 0, tc1 = 0;
    gp_status_t st = hout.data ? to_ctx(ctx, &h, &d, &mi, 1) : GP_ERR_OUT_OF_MEMORY;
    if (st == GP_OK) st = to_ctx(ctx, &hout, &dout, &mo, 0);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    if (st == GP_OK) {
        tc0 = now_seconds();
        st = gp_matrix_transpose(ctx, &dout, &d, NULL);
        if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
        tc1 = now_seconds();
    }
    if (st == GP_OK && dout.data != hout.data) st = gp_matrix_copy(ctx, &hout, &dout, NULL);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim transpose: %s\n", gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
    }
    if (rc == EXIT_OK) rc = save_matrix(verb, out, &hout);
    if (rc == EXIT_OK) {
        char dev[512];
        describe_device(ctx, dev, sizeof dev);
        if (json) {
            printf("{\"op\": \"transpose\", \"rows\": %zu, \"cols\": %zu, \"dtype\": \"%s\", \"order\": \"%s\", ", h.rows,
                   h.cols, gp_dtype_name(h.dtype), h.layout == GP_ROW_MAJOR ? "c" : "f");
            json_times(dev, tc1 - tc0, now_seconds() - t0, out);
        } else
            printf("transposed %zu x %zu %s -> %s (%zu x %zu) on %s: %.3f ms compute, %.3f s total\n", h.rows, h.cols,
                   gp_dtype_name(h.dtype), out, h.cols, h.rows, dev, (tc1 - tc0) * 1e3, now_seconds() - t0);
    }
    free_ctx(ctx, &h, &d, &mi);
    free_ctx(ctx, &hout, &dout, &mo);
    free(h.data), free(hout.data);
    gp_ctx_destroy(ctx);
    return rc;
}

static int parse_double(const char *v, double *x)
{
    char *end;
    *x = strtod(v, &end);
    return end == v || *end ? -1 : 0;
}

int cmd_gemm(int argc, char **argv)
{
    static const char verb[] = "gemm";
    int device = DEVICE_AUTO, json = 0, have_dtype = 0, ta = 0, tb = 0, have_beta = 0;
    gp_dtype_t dtype = GP_F32;
    gp_layout_t order = GP_ROW_MAJOR;
    double alpha = 1.0, beta = 0.0;
    mat_src_t src[3] = {{NULL, 0, 0, 0, GP_ROW_MAJOR}, {NULL, 0, 0, 0, GP_ROW_MAJOR}, {NULL, 0, 0, 0, GP_ROW_MAJOR}};
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k = matrix_opt(verb, argc, argv, &i, &device, &json, &have_dtype, &dtype, &order);
        if (k < 0) return EXIT_USAGE;
        if (k > 0) continue;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpuprim gemm A B -o C [--ta] [--tb] [--alpha X] [--beta Y] [--c C0] [-d cpu|ID] [--json]\n"
                   "                 [--dtype f32|f64 --shape-a R,C --shape-b R,C [--shape-c R,C] [--order c|f]]\n"
                   "  C = alpha op(A) op(B) + beta C0 (op: transposed with --ta / --tb), f32 or f64. Inputs are .npy\n"
                   "  (C or Fortran order) unless a --shape-* says raw. --beta needs --c. C is written in C order\n"
                   "  (.npy if its name ends in .npy, else raw row-major). f32 is exact FP32 on the GPU (no TF32).\n");
            return EXIT_OK;
        } else if (strcmp(a, "--ta") == 0) ta = 1;
        else if (strcmp(a, "--tb") == 0) tb = 1;
        else if ((strcmp(a, "--alpha") == 0 || strcmp(a, "--beta") == 0) && v) {
            double x;
            if (parse_double(v, &x) != 0) {
                fprintf(stderr, "gpuprim gemm: %s: a number, got '%s'\n", a, v);
                return EXIT_USAGE;
            }
            if (a[2] == 'a') alpha = x;
            else beta = x, have_beta = 1;
            i++;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && v) out = v, i++;
        else if (strcmp(a, "--c") == 0 && v) src[2].path = v, i++;
        else if (strncmp(a, "--shape-", 8) == 0 && (a[8] == 'a' || a[8] == 'b' || a[8] == 'c') && !a[9] && v) {
            mat_src_t *s = &src[a[8] - 'a'];
            if (parse_shape(v, &s->rows, &s->cols) != 0) {
                fprintf(stderr, "gpuprim gemm: %s: R,C, got '%s'\n", a, v);
                return EXIT_USAGE;
            }
            s->raw = 1;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpuprim gemm: unknown option '%s'\n", a);
            return EXIT_USAGE;
        } else if (!src[0].path) src[0].path = a;
        else if (!src[1].path) src[1].path = a;
        else {
            fprintf(stderr, "gpuprim gemm: two inputs A B (C0 with --c), got '%s' too\n", a);
            return EXIT_USAGE;
        }
    }
    if (!src[0].path || !src[1].path || !out) {
        fprintf(stderr, "usage: gpuprim gemm A B -o C [--ta] [--tb] [--alpha X] [--beta Y] [--c C0] [-d cpu|ID] [--json]\n");
        return EXIT_USAGE;
    }
    if (have_beta && beta != 0.0 && !src[2].path) {
        fprintf(stderr, "gpuprim gemm: --beta %g needs --c C0 (the C it scales)\n", beta);
        return EXIT_USAGE;
    }
    if (src[2].raw && !src[2].path) {
        fprintf(stderr, "gpuprim gemm: --shape-c without --c\n");
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    gp_matrix_t h[3] = {{0}, {0}, {0}}, d[3] = {{0}, {0}, {0}}, hc = {0}, dc = {0};
    gp_pitched_t mem[3] = {{0}, {0}, {0}}, memc = {0};
    gp_ctx_t *ctx = NULL;
    int rc = EXIT_OK;
    for (int q = 0; q < 3 && rc == EXIT_OK; q++) {
        src[q].layout = order;
        if (src[q].path) rc = load_matrix(verb, &src[q], have_dtype, dtype, &h[q]);
    }
    const gp_dtype_t dt = h[0].dtype;
    if (rc == EXIT_OK && (h[1].dtype != dt || (src[2].path && h[2].dtype != dt))) {
        fprintf(stderr, "gpuprim gemm: dtypes differ (A %s, B %s%s%s)\n", gp_dtype_name(dt), gp_dtype_name(h[1].dtype),
                src[2].path ? ", C0 " : "", src[2].path ? gp_dtype_name(h[2].dtype) : "");
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && dt != GP_F32 && dt != GP_F64) {
        fprintf(stderr, "gpuprim gemm: %s inputs (gemm takes f32 or f64)\n", gp_dtype_name(dt));
        rc = EXIT_USAGE;
    }
    const size_t m = ta ? h[0].cols : h[0].rows, k = ta ? h[0].rows : h[0].cols;
    const size_t kb = tb ? h[1].cols : h[1].rows, n = tb ? h[1].rows : h[1].cols;
    if (rc == EXIT_OK && k != kb) {
        fprintf(stderr, "gpuprim gemm: op(A) is %zu x %zu but op(B) is %zu x %zu: inner dimensions differ\n", m, k, kb, n);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && src[2].path && (h[2].rows != m || h[2].cols != n)) {
        fprintf(stderr, "gpuprim gemm: C0 is %zu x %zu, C is %zu x %zu\n", h[2].rows, h[2].cols, m, n);
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK) rc = open_context_verb(verb, device, &ctx);
    const size_t es = gp_dtype_size(dt);
    double tc0 = 0, tc1 = 0;
    if (rc == EXIT_OK) {
        hc = (gp_matrix_t){malloc(m * n * es + 1), m, n, n ? n : 1, dt, GP_ROW_MAJOR};
        gp_status_t st = hc.data ? GP_OK : GP_ERR_OUT_OF_MEMORY;
        if (st == GP_OK && src[2].path) /* C starts as C0, in C order */
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    const size_t o = h[2].layout == GP_ROW_MAJOR ? i * h[2].ld + j : j * h[2].ld + i;
                    memcpy((char *)hc.data + (i * n + j) * es, (char *)h[2].data + o * es, es);
                }
        for (int q = 0; q < 2 && st == GP_OK; q++) st = to_ctx(ctx, &h[q], &d[q], &mem[q], 1);
        if (st == GP_OK) st = to_ctx(ctx, &hc, &dc, &memc, src[2].path != NULL);
        if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
        if (st == GP_OK) {
            tc0 = now_seconds();
            st = gp_gemm(ctx, ta ? GP_OP_T : GP_OP_N, tb ? GP_OP_T : GP_OP_N, alpha, &d[0], &d[1],
                         src[2].path ? beta : 0.0, &dc, NULL);
            if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
            tc1 = now_seconds();
        }
        if (st == GP_OK && dc.data != hc.data) st = gp_matrix_copy(ctx, &hc, &dc, NULL);
        if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim gemm: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        if (rc == EXIT_OK) rc = save_matrix(verb, out, &hc);
    }
    if (rc == EXIT_OK) {
        char dev[512];
        describe_device(ctx, dev, sizeof dev);
        const double tf = tc1 > tc0 ? 2.0 * (double)m * (double)n * (double)k / (tc1 - tc0) / 1e12 : 0.0;
        if (json) {
            printf("{\"op\": \"gemm\", \"m\": %zu, \"n\": %zu, \"k\": %zu, \"dtype\": \"%s\", \"ta\": %s, \"tb\": %s, "
                   "\"alpha\": %.17g, \"beta\": %.17g, \"tflops\": %.3f, ", m, n, k, gp_dtype_name(dt), ta ? "true" : "false",
                   tb ? "true" : "false", alpha, src[2].path ? beta : 0.0, tf);
            json_times(dev, tc1 - tc0, now_seconds() - t0, out);
        } else
            printf("C (%zu x %zu %s) = %g op(A) op(B)%s -> %s on %s: k = %zu, %.3f ms compute (%.2f TFLOP/s), %.3f s total\n",
                   m, n, gp_dtype_name(dt), alpha, src[2].path ? " + beta C0" : "", out, dev, k, (tc1 - tc0) * 1e3, tf,
                   now_seconds() - t0);
    }
    for (int q = 0; q < 3; q++) {
        if (ctx && q < 2) free_ctx(ctx, &h[q], &d[q], &mem[q]);
        free(h[q].data);
    }
    if (ctx) free_ctx(ctx, &hc, &dc, &memc);
    free(hc.data);
    gp_ctx_destroy(ctx);
    return rc;
}
