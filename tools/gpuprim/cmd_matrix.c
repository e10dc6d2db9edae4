/*
 * cmd_matrix.c — `gpuprim transpose IN OUT` and `gpuprim gemm A B -o C`: matrices from .npy files (C order: row-major,
 * Fortran order: column-major) or raw files (--shape R,C --dtype T, row-major unless --order f), through
 * gp_matrix_transpose / gp_gemm on the GPU (pitched device copies) or the CPU backend. OUT ending in .npy is written as
 * .npy (the input's order), anything else as raw elements in that order. --json: one object with shapes, device and
 * times (compute: the call and its completion; total: files included).
 */
#include "commands.h"
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* A host matrix (any ld) to path: .npy (C order for row-major, Fortran for column-major; like: bool_values and, for
 * ndim != 2, the shape to write) or raw elements in its order; written whole or not at all (out_open: "-", FIFOs and
 * links too). */
static int save_array(const char *verb, const char *path, const gp_matrix_t *m, const gp_array_desc_t *like)
{
    out_file_t o;
    FILE *f = out_open(&o, path);
    const size_t es = gp_dtype_size(m->dtype), inner = m->layout == GP_ROW_MAJOR ? m->cols : m->rows,
                 outer = m->layout == GP_ROW_MAJOR ? m->rows : m->cols;
    int ok = f != NULL;
    if (ok && out_is_npy(path)) {
        gp_array_desc_t d;
        memset(&d, 0, sizeof d);
        d.dtype = m->dtype, d.ndim = 2, d.shape[0] = m->rows, d.shape[1] = m->cols;
        d.fortran_order = m->layout == GP_COL_MAJOR;
        if (like) {
            d.bool_values = like->bool_values;
            if (like->ndim != 2) {
                d.ndim = like->ndim;
                memcpy(d.shape, like->shape, sizeof d.shape);
            }
        }
        unsigned char head[1024];
        size_t hb = 0;
        if (gp_npy_header_desc(&d, 0, head, sizeof head, &hb) != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s: %s (nothing written)\n", verb, path, gp_last_error());
            out_close(&o, 0);
            return EXIT_FAIL;
        }
        if (fwrite(head, 1, hb, f) != hb) ok = 0, o.err = errno;
    }
    for (size_t r = 0; ok && r < outer && inner; r++)
        if (fwrite((const char *)m->data + r * m->ld * es, es, inner, f) != inner) ok = 0, o.err = errno;
    if (f == NULL || out_close(&o, ok) != 0) {
        fprintf(stderr, "gpuprim %s: cannot write %s: %s (nothing written)\n", verb, path, strerror(o.err));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

static int save_matrix(const char *verb, const char *path, const gp_matrix_t *m)
{
    return save_array(verb, path, m, NULL);
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

/* The result line of transpose / gemm: a sentence on a terminal, one object with --json, a header and a row with
 * --csv. extra: the verb's own fields (gemm's m, n, k ...), already in r. */
static void matrix_report(const cli_common_t *c, const char *op, const char *shape, const char *dtype, const char *dev,
                          double compute, double total, const char *out, const record_t *extra)
{
    if (c->fmt == FMT_TABLE) {
        fprintf(summary_stream(out), "%s %s %s -> %s on %s: %.3f ms compute, %.3f s total\n", op, shape, dtype, out, dev,
                compute * 1e3, total);
        return;
    }
    record_t r = {0};
    rec_add(&r, "op", 0, "%s", op);
    rec_add(&r, "shape", 1, "%s", shape); /* a JSON array */
    rec_add(&r, "dtype", 0, "%s", dtype);
    for (int k = 0; extra && k < extra->n; k++) rec_add(&r, extra->key[k], extra->raw[k], "%s", extra->val[k]);
    rec_add(&r, "device", 0, "%s", dev);
    rec_add(&r, "compute_seconds", 1, "%.6f", compute);
    rec_add(&r, "total_seconds", 1, "%.6f", total);
    rec_add(&r, "output", 0, "%s", out);
    rec_print(&r, c->fmt, summary_stream(out));
}

/* The matrix verbs' shared options, --dtype and --order, from their values (NULL: not given). 0, or -1 (said). */
static int matrix_opts(const char *verb, const char *dt, const char *ord, int *have_dtype, gp_dtype_t *dtype,
                       gp_layout_t *order)
{
    if (dt) {
        if (gp_dtype_parse(dt, dtype) != GP_OK) {
            fprintf(stderr, "gpuprim %s: --dtype: %s\n", verb, gp_last_error());
            return -1;
        }
        *have_dtype = 1;
    }
    if (ord) *order = ord[0] == 'c' ? GP_ROW_MAJOR : GP_COL_MAJOR; /* a word of the table */
    return 0;
}

/* transpose of a 0-d or 1-D .npy: the array itself, written whole to OUT (.npy keeps the shape; raw: the elements). */
static int transpose_vector(const char *verb, const char *path, const char *out, const cli_common_t *c, double t0)
{
    gp_array_desc_t d;
    void *data = NULL;
    if (gp_npy_load(path, &d, &data) != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
        return EXIT_FAIL;
    }
    gp_matrix_t m = {data, 1, d.count, d.count ? d.count : 1, d.dtype, GP_ROW_MAJOR};
    const int rc = save_array(verb, out, &m, &d);
    free(data);
    if (rc == EXIT_OK) {
        char shape[32];
        snprintf(shape, sizeof shape, d.ndim ? "[%zu]" : "[]", d.count);
        matrix_report(c, "transpose", shape, gp_dtype_name(d.dtype), "-", 0.0, now_seconds() - t0, out, NULL);
    }
    return rc;
}

typedef struct transpose_opts {
    const char *dtype, *order, *shape;
} transpose_opts_t;
static const cli_opt_t opts_transpose[] = {
    {"--shape", OPT_TEXT, "R,C", OPT_AT(transpose_opts_t, shape), "IN is raw: R rows of C elements", NULL, NULL,
     NULL},
    {"--dtype", OPT_DTYPE, "T", OPT_AT(transpose_opts_t, dtype), "a raw IN's dtype (every dtype; bools stay bools)",
     NULL, NULL, NULL},
    {"--order", OPT_WORD, "c|f", OPT_AT(transpose_opts_t, order), "a raw IN's order: c (row-major) or f "
     "(column-major)", "c", NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_transpose = {
    "transpose", COMMON_DATA, NULL, opts_transpose, 2, "IN OUT [options]",
    "OUT = IN^T, in IN's order: a C-order .npy gives a C-order .npy, Fortran gives Fortran (a 0-d or 1-D array\n"
    "is itself, as NumPy's .T). IN is .npy unless --shape says it is raw. OUT: .npy or raw elements.",
    NULL};

static int cmd_transpose(int argc, char **argv)
{
    static const char verb[] = "transpose";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    int have_dtype = 0;
    gp_dtype_t dtype = GP_F32;
    gp_layout_t order = GP_ROW_MAJOR;
    mat_src_t in = {NULL, 0, 0, 0, GP_ROW_MAJOR};
    const char *out = NULL, *pos[2];
    int npos = 0;
    transpose_opts_t opt;
    const int pr = cli_parse(&spec_transpose, argc, argv, &c, &opt, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (matrix_opts(verb, opt.dtype, opt.order, &have_dtype, &dtype, &order) != 0) return EXIT_USAGE;
    if (opt.shape) {
        if (parse_pair(opt.shape, &in.rows, &in.cols) != 0)
            return bad_value(verb, "--shape", "R,C (two counts)", opt.shape);
        in.raw = 1;
    }
    if (npos < 2) {
        fprintf(stderr, "gpuprim transpose: needs IN and OUT\n");
        cli_usage(&spec_transpose, stderr);
        return EXIT_USAGE;
    }
    in.path = pos[0], out = pos[1];
    in.layout = order;
    const double t0 = now_seconds();
    if (strcmp(in.path, "-") == 0) {
        fprintf(stderr, "gpuprim transpose: IN must be a file: the matrix is read whole from a file (standard input "
                        "is not taken)\n");
        return EXIT_USAGE;
    }
    gp_array_desc_t ad;
    memset(&ad, 0, sizeof ad);
    ad.ndim = 2;
    if (!in.raw) { /* NumPy's .T leaves a 0-d or 1-D array as it is: so do we (shape (n,) stays (n,)) */
        if (gp_npy_inspect(in.path, &ad) != GP_OK) {
            fprintf(stderr, "gpuprim transpose: %s\n", gp_last_error());
            return EXIT_FAIL;
        }
        if (ad.ndim < 2) return transpose_vector(verb, in.path, out, &c, t0);
    }
    gp_matrix_t h = {0}, hout = {0}, d = {0}, dout = {0};
    gp_pitched_t mi = {0}, mo = {0};
    gp_ctx_t *ctx = NULL;
    int rc = load_matrix(verb, &in, have_dtype, dtype, &h);
    if (rc != EXIT_OK) return rc;
    {
        const work_t w = {WORK_TRANSPOSE, (double)h.rows * (double)h.cols * (double)gp_dtype_size(h.dtype), 0, 0};
        c.device = pick_device(verb, c.device, &w, 0);
    }
    if ((rc = open_context_verb(verb, c.device, &ctx)) != EXIT_OK) {
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
        spinner_t sp;
        spinner_start(&sp, "transposing");
        tc0 = now_seconds();
        st = gp_matrix_transpose(ctx, &dout, &d, NULL);
        if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
        tc1 = now_seconds();
        spinner_stop(&sp);
    }
    if (st == GP_OK && dout.data != hout.data) st = gp_matrix_copy(ctx, &hout, &dout, NULL);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim transpose: %s\n", gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
    }
    if (rc == EXIT_OK) rc = save_array(verb, out, &hout, &ad);
    if (rc == EXIT_OK) {
        char dev[512];
        describe_device(ctx, dev, sizeof dev);
        if (c.fmt == FMT_TABLE) {
            fprintf(summary_stream(out), "transposed %zu x %zu %s -> %s (%zu x %zu) on %s: %.3f ms compute, %.3f s total\n", h.rows, h.cols,
                   gp_dtype_name(h.dtype), out, h.cols, h.rows, dev, (tc1 - tc0) * 1e3, now_seconds() - t0);
        } else {
            record_t x = {0};
            char shape[64];
            snprintf(shape, sizeof shape, "[%zu, %zu]", h.cols, h.rows);
            rec_add(&x, "rows", 1, "%zu", h.rows);
            rec_add(&x, "cols", 1, "%zu", h.cols);
            rec_add(&x, "order", 0, "%s", h.layout == GP_ROW_MAJOR ? "c" : "f");
            matrix_report(&c, "transpose", shape, gp_dtype_name(h.dtype), dev, tc1 - tc0, now_seconds() - t0, out, &x);
        }
    }
    free_ctx(ctx, &h, &d, &mi);
    free_ctx(ctx, &hout, &dout, &mo);
    free(h.data), free(hout.data);
    gp_ctx_destroy(ctx);
    return rc;
}

/* A host matrix of f32 / f64 / f16 rounded in place to bf16 or f16 bits (packed, ld = the inner extent). */
static int round_to_16(gp_matrix_t *m, gp_dtype_t to)
{
    const size_t inner = m->layout == GP_ROW_MAJOR ? m->cols : m->rows,
                 outer = m->layout == GP_ROW_MAJOR ? m->rows : m->cols, es = gp_dtype_size(m->dtype);
    uint16_t *o = malloc(inner * outer * 2 + 2);
    if (o == NULL) {
        fprintf(stderr, "gpuprim gemm: no memory to round a %zu x %zu matrix to %s\n", m->rows, m->cols,
                gp_dtype_name(to));
        return EXIT_FAIL;
    }
    for (size_t r = 0; r < outer; r++)
        for (size_t i = 0; i < inner; i++) {
            const unsigned char *p = (const unsigned char *)m->data + (r * m->ld + i) * es;
            float v;
            if (m->dtype == GP_F64) {
                double d;
                memcpy(&d, p, 8);
                v = (float)d; /* then once more to 16 bits: as torch's double.bfloat16() goes through float */
            } else if (m->dtype == GP_F16) {
                uint16_t b;
                memcpy(&b, p, 2);
                v = gp_f16_to_f32(b);
            } else {
                memcpy(&v, p, 4);
            }
            o[r * inner + i] = to == GP_BF16 ? gp_f32_to_bf16(v) : gp_f32_to_f16(v);
        }
    free(m->data);
    m->data = o, m->dtype = to, m->ld = inner ? inner : 1;
    return EXIT_OK;
}

typedef struct gemm_opts {
    const char *dtype, *order, *ta, *tb, *alpha, *beta, *shape_a, *shape_b, *shape_c, *prec, *out, *c;
} gemm_opts_t;
#define AT(m) OPT_AT(gemm_opts_t, m)
static const cli_opt_t opts_gemm[] = {
    {"-o|--output", OPT_FILE, "C", AT(out), "the product, in C order (.npy, else raw row-major)", NULL, NULL, NULL},
    {"--ta", OPT_FLAG, NULL, AT(ta), "op(A) = A transposed", NULL, NULL, NULL},
    {"--tb", OPT_FLAG, NULL, AT(tb), "op(B) = B transposed", NULL, NULL, NULL},
    {"--alpha", OPT_NUMBER, "X", AT(alpha), "scales op(A) op(B)", "1", NULL, NULL},
    {"--beta", OPT_NUMBER, "Y", AT(beta), "scales C0 (needs --c)", "0", NULL, NULL},
    {"--c", OPT_FILE, "C0", AT(c), "the C added", NULL, NULL, NULL},
    {"--precision", OPT_WORD, "fp32|tf32|bf16|fp16", AT(prec), "fp32: exact FP32 / FP64 (f32 or f64 inputs); tf32: "
     "f32 inputs as TF32 (the low 13 bits dropped) on the tensor cores; bf16: bfloat16 inputs (.npy uint16 holding "
     "the bits, or raw --dtype bf16); fp16: half inputs (.npy f2 or uint16 bits); the three accumulate in f32 and "
     "write C (and read C0) as f32",
     "fp32", NULL, NULL},
    {"--shape-a", OPT_TEXT, "R,C", AT(shape_a), "A is raw: R rows of C elements", NULL, NULL, NULL},
    {"--shape-b", OPT_TEXT, "R,C", AT(shape_b), "B is raw: R rows of C elements", NULL, NULL, NULL},
    {"--shape-c", OPT_TEXT, "R,C", AT(shape_c), "C0 is raw: R rows of C elements", NULL, NULL, NULL},
    {"--dtype", OPT_DTYPE, "T", AT(dtype), "raw inputs' dtype: f32, f64, bf16 or f16", NULL, NULL,
     "f32 f64 bf16 f16"},
    {"--order", OPT_WORD, "c|f", AT(order), "raw inputs' order: c (row-major) or f (column-major)", "c", NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
#undef AT
static const cli_spec_t spec_gemm = {
    "gemm", COMMON_DATA, NULL, opts_gemm, 2, "A B -o C [options]",
    "C = alpha op(A) op(B) + beta C0. Inputs are .npy (C or Fortran order) unless --shape-a, --shape-b,\n"
    "--shape-c say raw.",
    NULL};

static int cmd_gemm(int argc, char **argv)
{
    static const char verb[] = "gemm";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    int have_dtype = 0, ta = 0, tb = 0, have_beta = 0;
    gp_dtype_t dtype = GP_F32;
    gp_layout_t order = GP_ROW_MAJOR;
    double alpha = 1.0, beta = 0.0;
    mat_src_t src[3] = {{NULL, 0, 0, 0, GP_ROW_MAJOR}, {NULL, 0, 0, 0, GP_ROW_MAJOR}, {NULL, 0, 0, 0, GP_ROW_MAJOR}};
    const char *pos[2];
    int npos = 0;
    gemm_opts_t opt;
    const int pr = cli_parse(&spec_gemm, argc, argv, &c, &opt, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    const char *out = opt.out, *const o_shape[3] = {opt.shape_a, opt.shape_b, opt.shape_c};
    src[2].path = opt.c;
    if (matrix_opts(verb, opt.dtype, opt.order, &have_dtype, &dtype, &order) != 0) return EXIT_USAGE;
    ta = opt.ta != NULL, tb = opt.tb != NULL;
    gp_gemm_precision_t prec = GP_GEMM_FP32;
    for (int p = 0; opt.prec && p < 4; p++) /* a word of the table */
        if (strcmp(opt.prec, gp_gemm_precision_name((gp_gemm_precision_t)p)) == 0) prec = (gp_gemm_precision_t)p;
    if (opt.alpha && parse_number(opt.alpha, &alpha) != 0) return bad_value(verb, "--alpha", "a finite number", opt.alpha);
    if (opt.beta && parse_number(opt.beta, &beta) != 0) return bad_value(verb, "--beta", "a finite number", opt.beta);
    have_beta = opt.beta != NULL;
    for (int m = 0; m < 3; m++) {
        static const char *const names[] = {"--shape-a", "--shape-b", "--shape-c"};
        if (o_shape[m] == NULL) continue;
        if (parse_pair(o_shape[m], &src[m].rows, &src[m].cols) != 0)
            return bad_value(verb, names[m], "R,C (two counts)", o_shape[m]);
        src[m].raw = 1;
    }
    if (npos < 2 || !out) {
        fprintf(stderr, "gpuprim gemm: %s\n", npos < 2 ? "needs two inputs A B" : "needs -o C (the output)");
        cli_usage(&spec_gemm, stderr);
        return EXIT_USAGE;
    }
    src[0].path = pos[0], src[1].path = pos[1];
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
    /* 16-bit precisions: f32 / f64 / f16 inputs rounded to the nearest even (torch's .bfloat16() / .half()); uint16
     * inputs (NumPy has no bfloat16) hold the bits */
    const gp_dtype_t in16 = prec == GP_GEMM_BF16 ? GP_BF16 : GP_F16;
    for (int q = 0; q < 2 && rc == EXIT_OK && (prec == GP_GEMM_BF16 || prec == GP_GEMM_FP16); q++) {
        if (h[q].dtype == GP_U16 || h[q].dtype == in16) {
            h[q].dtype = in16;
        } else if (h[q].dtype == GP_F32 || h[q].dtype == GP_F64 || h[q].dtype == GP_F16) {
            rc = round_to_16(&h[q], in16);
        } else {
            fprintf(stderr, "gpuprim gemm: --precision %s: %s is %s (it takes f32, f64, f16, %s, or uint16 holding "
                            "the bits)\n", opt.prec, q ? "B" : "A", gp_dtype_name(h[q].dtype), gp_dtype_name(in16));
            rc = EXIT_USAGE;
        }
    }
    const gp_dtype_t dt = prec == GP_GEMM_FP32 ? h[0].dtype : GP_F32; /* C's dtype */
    if (rc == EXIT_OK && (h[1].dtype != h[0].dtype || (src[2].path && h[2].dtype != dt))) {
        fprintf(stderr, "gpuprim gemm: dtypes differ (A %s, B %s%s%s)\n", gp_dtype_name(h[0].dtype),
                gp_dtype_name(h[1].dtype), src[2].path ? ", C0 " : "", src[2].path ? gp_dtype_name(h[2].dtype) : "");
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_OK && prec <= GP_GEMM_TF32 && h[0].dtype != GP_F32 && (prec == GP_GEMM_TF32 || h[0].dtype != GP_F64)) {
        fprintf(stderr, "gpuprim gemm: %s inputs (--precision %s takes %s)\n", gp_dtype_name(h[0].dtype),
                gp_gemm_precision_name(prec), prec == GP_GEMM_TF32 ? "f32" : "f32 or f64");
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
    if (rc == EXIT_OK) {
        const work_t w = {WORK_GEMM, ((double)m * (double)k + (double)k * (double)n) * (double)gp_dtype_size(h[0].dtype) +
                                         (double)m * (double)n * (double)gp_dtype_size(dt),
                          2.0 * (double)m * (double)n * (double)k, 0};
        c.device = pick_device(verb, c.device, &w, 0);
        rc = open_context_verb(verb, c.device, &ctx);
    }
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
            spinner_t sp;
            char what[96];
            snprintf(what, sizeof what, "gemm %zu x %zu x %zu", m, n, k);
            spinner_start(&sp, what);
            tc0 = now_seconds();
            st = gp_gemm_ex(ctx, prec, ta ? GP_OP_T : GP_OP_N, tb ? GP_OP_T : GP_OP_N, alpha, &d[0], &d[1],
                            src[2].path ? beta : 0.0, &dc, NULL);
            if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
            tc1 = now_seconds();
            spinner_stop(&sp);
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
        if (c.fmt == FMT_TABLE) {
            fprintf(summary_stream(out), "C (%zu x %zu %s) = %g op(A) op(B)%s -> %s on %s: k = %zu, %.3f ms compute (%.2f TFLOP/s), %.3f s total\n",
                   m, n, gp_dtype_name(dt), alpha, src[2].path ? " + beta C0" : "", out, dev, k, (tc1 - tc0) * 1e3, tf,
                   now_seconds() - t0);
        } else {
            record_t x = {0};
            char shape[64];
            snprintf(shape, sizeof shape, "[%zu, %zu]", m, n);
            rec_add(&x, "m", 1, "%zu", m);
            rec_add(&x, "n", 1, "%zu", n);
            rec_add(&x, "k", 1, "%zu", k);
            rec_add(&x, "ta", 1, "%s", ta ? "true" : "false");
            rec_add(&x, "tb", 1, "%s", tb ? "true" : "false");
            rec_add(&x, "alpha", 1, "%.17g", alpha);
            rec_add(&x, "beta", 1, "%.17g", src[2].path ? beta : 0.0);
            rec_add(&x, "tflops", 1, "%.3f", tf);
            rec_add(&x, "precision", 0, "%s", gp_gemm_precision_name(prec));
            matrix_report(&c, "gemm", shape, gp_dtype_name(dt), dev, tc1 - tc0, now_seconds() - t0, out, &x);
        }
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

const verb_t verb_transpose = {"transpose", "IN OUT", "transpose a .npy / raw matrix (every dtype)",
                         &spec_transpose, cmd_transpose, NULL};

const verb_t verb_gemm = {"gemm", "A B -o C", "C = alpha op(A) op(B) + beta C0 (f32, f64; tf32 bf16 fp16 on tensor cores)",
                         &spec_gemm, cmd_gemm, NULL};
