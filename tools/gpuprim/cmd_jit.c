/*
 * cmd_jit.c — the CLI's user operators (gp_uop_t, compiled at run time):
 *   gpuprim map FILE|- --src 'EXPR over x' [--out-dtype T] -o OUT      y[i] = EXPR, streamed chunk by chunk
 *   gpuprim reduce FILE --op-src 'EXPR over a, b' --identity V [--ordered] [--arity K]
 *   gpuprim reduce FILE --map 'EXPR over x' [--map-dtype T] --op sum|prod|min|max (or --op-src ...)
 *   gpuprim scan FILE --op-src 'EXPR over a, b' --identity V [--arity K] [--exclusive] -o OUT
 * The reductions and the scan gather the input in memory (device memory on a GPU), then one gp_reduce_uop /
 * gp_transform_reduce / gp_scan_uop (in place; the output written whole or not at all).
 * A compile error prints the compiler's messages: the user's line:column, the line and a caret. --json / --csv: op,
 * dtype, elements, value, seconds, gbps, build_seconds, build (compiled, disk cache, memory), device.
 */
#define _GNU_SOURCE /* memmem */
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

static const char *build_name(int source)
{
    return source == 1 ? "disk cache" : source == 2 ? "memory" : "compiled";
}

/* The compiler's messages, each "op:L:C: ..." line followed by line L of the user's text and a caret under column C
 * where the compiler did not print them (the host compiler cannot: the text has no file). */
static void print_compile_error(const char *verb, const char *msg, const gp_uop_desc_t *d)
{
    fprintf(stderr, "gpuprim %s: ", verb);
    for (const char *p = msg; *p;) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        fprintf(stderr, "%.*s\n", (int)len, p);
        const char *next = e ? e + 1 : p + len;
        const char *ne = strchr(next, '\n');
        const size_t nl = ne ? (size_t)(ne - next) : strlen(next);
        char name[16];
        int ln = 0, col = 0;
        const int caret_follows = memchr(next, '^', nl) != NULL || (ne && memchr(ne + 1, '^', strcspn(ne + 1, "\n")));
        if (!caret_follows && memmem(p, len, ": error", 7) && sscanf(p, "%15[a-z]:%d:%d:", name, &ln, &col) == 3 && ln > 0 && col > 0) {
            const char *text = strcmp(name, "identity") == 0 ? d->identity : d->src;
            for (int i = 1; text && i < ln; i++) text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
            if (text) {
                const int tl = (int)strcspn(text, "\n");
                fprintf(stderr, "  %.*s\n  %*s^\n", tl, text, col - 1, "");
            }
        }
        p = next;
    }
}

/* gp_uop_create, printing why it failed (a compile error: the compiler's messages). */
int jit_make_uop(const char *verb, gp_ctx_t *ctx, const gp_uop_desc_t *d, gp_uop_t **op)
{
    const gp_status_t st = gp_uop_create(ctx, d, op);
    if (st == GP_OK) return EXIT_OK;
    if (st == GP_ERR_COMPILE)
        print_compile_error(verb, gp_last_error(), d);
    else
        fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
    return st == GP_ERR_COMPILE || st == GP_ERR_INVALID_ARG || st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
}

/* The value type of a dtype in a user op: f16 / bf16 compute in f32. */
static gp_dtype_t value_dtype(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16 ? GP_F32 : d; }

/* A built-in name as a user op's source and identity over dtype d (--map with --op). */
static int builtin_src(const char *name, gp_dtype_t d, const char **src, const char **id)
{
    const int flt = d == GP_F16 || d == GP_BF16 || d == GP_F32 || d == GP_F64;
    const int sgn = d == GP_I8 || d == GP_I16 || d == GP_I32 || d == GP_I64;
    static const char *smax[] = {"127", "32767", "2147483647", "9223372036854775807LL"};
    static const char *smin[] = {"-128", "-32768", "-2147483647 - 1", "-9223372036854775807LL - 1"};
    const size_t s = gp_dtype_size(d), li = s == 1 ? 0 : s == 2 ? 1 : s == 4 ? 2 : 3;
    if (strcmp(name, "sum") == 0) *src = "a + b", *id = "-0.0";
    else if (strcmp(name, "prod") == 0) *src = "a * b", *id = "1";
    else if (strcmp(name, "min") == 0) *src = "b < a ? b : a", *id = flt ? "INFINITY" : sgn ? smax[li] : "~(T)0";
    else if (strcmp(name, "max") == 0) *src = "b > a ? b : a", *id = flt ? "-INFINITY" : sgn ? smin[li] : "0";
    else return -1;
    return 0;
}

/* The whole input into g (the context's memory), a whole number of elements of k values; or why not (an exit code:
 * nothing is written). */
static int gather_whole(const char *verb, const char *path, gp_ctx_t *ctx, input_t *in, size_t k, double t0,
                        gather_t *g)
{
    const int rc = gather_held(verb, in, ctx, t0, g);
    if (rc != EXIT_OK) return rc;
    if (g->have % k) {
        fprintf(stderr, "gpuprim %s: %s: %zu values are not a whole number of elements of %zu (nothing written)\n",
                verb, path, g->have, k);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int reduce_jit(const jit_reduce_args_t *a)
{
    const char *verb = "reduce";
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, verb, a->path, a->dtype, a->offset, a->count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, verb)) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    gp_ctx_t *ctx = NULL;
    gp_uop_t *map = NULL, *op = NULL;
    gather_t g;
    memset(&g, 0, sizeof g);
    const gp_dtype_t dt = in.d.dtype;
    gp_dtype_t mdt = value_dtype(dt);
    if (a->map_dtype && gp_dtype_parse(a->map_dtype, &mdt) != GP_OK) {
        rc = bad_value(verb, "--map-dtype", "a dtype", a->map_dtype);
        goto out;
    }
    int device = a->device;
    {
        const work_t w = {WORK_REDUCE_SLOW, input_bytes(&in), 0, 0};
        device = pick_device(verb, device, &w, 0);
    }
    if ((rc = open_context_verb(verb, device, &ctx)) != EXIT_OK) goto out;
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    const gp_dtype_t odt = a->map_src ? mdt : dt; /* the binary op's dtype */
    double build_s = 0;
    int source = 0, s2 = 0;
    if (a->map_src) {
        d.kind = GP_UOP_MAP;
        d.dtype = dt;
        d.out_dtype = mdt;
        d.src = a->map_src;
        if ((rc = jit_make_uop(verb, ctx, &d, &map)) != EXIT_OK) goto out;
        build_s += gp_uop_build_seconds(map, &source);
    }
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_BINARY;
    d.dtype = odt;
    d.arity = a->arity;
    d.commutative = !a->ordered;
    if (a->op_src) {
        d.src = a->op_src;
        d.identity = a->identity;
        if (!a->identity) {
            fprintf(stderr, "gpuprim %s: --op-src needs --identity V (the op's identity: a C expression)\n", verb);
            rc = EXIT_USAGE;
            goto out;
        }
    } else if (builtin_src(a->op_name ? a->op_name : "sum", odt, &d.src, &d.identity) != 0) {
        rc = bad_value(verb, "--op", "sum, prod, min or max with --map (or --op-src)", a->op_name);
        goto out;
    }
    if ((rc = jit_make_uop(verb, ctx, &d, &op)) != EXIT_OK) goto out;
    build_s += gp_uop_build_seconds(op, &s2);
    if (s2 > source) source = s2;
    const size_t k = a->arity > 1 ? (size_t)a->arity : 1;
    if (map && k != 1) {
        fprintf(stderr, "gpuprim %s: --map takes --arity 1\n", verb);
        rc = EXIT_USAGE;
        goto out;
    }
    gp_status_t st;
    if ((rc = gather_whole(verb, a->path, ctx, &in, k, t0, &g)) != EXIT_OK) goto out;
    const size_t n = g.have / k;
    const void *x = gp_ctx_device(ctx) == GP_DEVICE_CPU ? g.buf.host : g.buf.device;
    unsigned char res[256];
    if (map) { /* the fused module is built on the first call: build it here, outside the timed reduce */
        const double tb = now_seconds();
        if ((st = gp_transform_reduce_sync(ctx, map, op, 0, x, res)) != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
            rc = st == GP_ERR_COMPILE || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
            goto out;
        }
        build_s += now_seconds() - tb;
    }
    const double tr = now_seconds();
    st = map ? gp_transform_reduce_sync(ctx, map, op, n, x, res) : gp_reduce_uop_sync(ctx, op, n, x, res);
    const double rsec = now_seconds() - tr;
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double secs = now_seconds() - t0, bytes = (double)g.have * (double)g.es;
    const gp_dtype_t vdt = value_dtype(odt);
    char desc[512], val[1024], jval[1024];
    describe_device(ctx, desc, sizeof desc);
    FILE *m = fmemopen(val, sizeof val, "w"), *mj = fmemopen(jval, sizeof jval, "w");
    if (m) {
        for (size_t i = 0; i < k; i++) fputs(i ? " " : "", m), print_elem(m, vdt, res + i * gp_dtype_size(vdt), 0);
        fclose(m);
    } else {
        strcpy(val, "?");
    }
    if (mj) {
        fputs(k > 1 ? "[" : "", mj);
        for (size_t i = 0; i < k; i++) fputs(i ? ", " : "", mj), print_elem(mj, vdt, res + i * gp_dtype_size(vdt), 1);
        fputs(k > 1 ? "]" : "", mj);
        fclose(mj);
    } else {
        strcpy(jval, "null");
    }
    if (a->fmt == FMT_TABLE) {
        printf("%s%s%s over %zu %s elements: %s  (%.3f s end to end, %.2f GB/s in the kernel; operator %s in %.1f ms; %s)\n",
               map ? a->map_src : "", map ? " then " : "", d.src, n, gp_dtype_name(dt), val, secs,
               rsec > 0 ? bytes / rsec / 1e9 : 0.0, build_name(source), 1e3 * build_s, desc);
    } else {
        record_t r = {0};
        if (map) rec_add(&r, "map", 0, "%s", a->map_src);
        rec_add(&r, "op", 0, "%s", d.src);
        rec_add(&r, "identity", 0, "%s", d.identity);
        rec_add(&r, "tree", 0, "%s", a->ordered ? "ordered" : "tile");
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(dt));
        rec_add(&r, "value_dtype", 0, "%s", gp_dtype_name(vdt));
        rec_add(&r, "elements", 1, "%zu", n);
        rec_add(&r, "value", 1, "%s", jval);
        rec_add(&r, "seconds", 1, "%.6f", secs);
        rec_add(&r, "gbps", 1, "%.3f", rsec > 0 ? bytes / rsec / 1e9 : 0.0);
        rec_add(&r, "build_seconds", 1, "%.6f", build_s);
        rec_add(&r, "build", 0, "%s", build_name(source));
        rec_add(&r, "device", 0, "%s", desc);
        rec_print(&r, a->fmt, stdout);
    }
out:
    gp_uop_destroy(map);
    gp_uop_destroy(op);
    gp_mem_free(ctx, &g.buf);
    gp_ctx_destroy(ctx);
    input_close(&in);
    return rc;
}

/* ------------------------------------------------------------------------------------------ scan */
int scan_jit(const jit_scan_args_t *a)
{
    const char *verb = "scan";
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, verb, a->path, a->dtype, a->offset, a->count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, verb)) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    gp_ctx_t *ctx = NULL;
    gp_uop_t *op = NULL;
    gather_t g;
    memset(&g, 0, sizeof g);
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    gp_buffer_t bh = {0};
    int device = a->device;
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        device = pick_device(verb, device, &w, 0);
    }
    if ((rc = open_context_verb(verb, device, &ctx)) != EXIT_OK) goto out;
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_BINARY;
    d.dtype = in.d.dtype;
    d.arity = a->arity;
    d.src = a->op_src;
    d.identity = a->identity;
    d.commutative = 0;
    if (!a->identity) {
        fprintf(stderr, "gpuprim %s: --op-src needs --identity V (the op's identity: a C expression)\n", verb);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = jit_make_uop(verb, ctx, &d, &op)) != EXIT_OK) goto out;
    int source = 0;
    const double build_s = gp_uop_build_seconds(op, &source);
    const size_t k = a->arity > 1 ? (size_t)a->arity : 1;
    gp_status_t st;
    if ((rc = gather_whole(verb, a->path, ctx, &in, k, t0, &g)) != EXIT_OK) goto out;
    const size_t n = g.have / k, bytes = g.have * g.es;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    void *x = gpu ? g.buf.device : g.buf.host;
    const double ts = now_seconds();
    if ((st = gp_scan_uop(ctx, op, a->exclusive ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE, n, x, x, NULL)) != GP_OK ||
        (st = gp_stream_sync(ctx, NULL)) != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s (nothing written)\n", verb, gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    const double ssec = now_seconds() - ts;
    if ((rc = arr_out_open(&ao, verb, a->out, in.d.dtype)) != EXIT_OK) goto out;
    if (gpu) { /* back through a pinned chunk */
        if (gp_mem_alloc(ctx, GP_MEM_PINNED, CHUNK_BYTES, &bh) != GP_OK) {
            fprintf(stderr, "gpuprim %s: a pinned buffer: %s\n", verb, gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
        const size_t per = CHUNK_BYTES / g.es;
        for (size_t v = 0; v < g.have; v += per) {
            const size_t m = g.have - v < per ? g.have - v : per;
            if (gp_memcpy_sync(ctx, bh.host, (char *)x + v * g.es, m * g.es) != GP_OK || arr_out_write(&ao, bh.host, m) != 0) {
                rc = stream_failed(verb, a->path, GP_ERR_IO, &ao, NULL);
                goto out;
            }
        }
    } else if (arr_out_write(&ao, x, g.have) != 0) {
        rc = stream_failed(verb, a->path, GP_ERR_IO, &ao, NULL);
        goto out;
    }
    if ((rc = arr_out_close(&ao, verb, 1)) != EXIT_OK) goto out;
    {
        const double secs = now_seconds() - t0;
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        if (a->fmt == FMT_TABLE) {
            fprintf(summary_stream(a->out), "%s scan (%s) of %zu %s elements -> %s  (%.3f s end to end, %.2f GB/s in the kernel; operator %s in "
                   "%.1f ms; %s)\n", a->op_src, a->exclusive ? "exclusive" : "inclusive", n, gp_dtype_name(in.d.dtype),
                   a->out, secs, ssec > 0 ? 2.0 * (double)bytes / ssec / 1e9 : 0.0, build_name(source), 1e3 * build_s,
                   desc);
        } else {
            record_t r = {0};
            rec_add(&r, "op", 0, "%s", a->op_src);
            rec_add(&r, "identity", 0, "%s", a->identity);
            rec_add(&r, "kind", 0, "%s", a->exclusive ? "exclusive" : "inclusive");
            rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in.d.dtype));
            rec_add(&r, "elements", 1, "%zu", n);
            rec_add(&r, "seconds", 1, "%.6f", secs);
            rec_add(&r, "gbps", 1, "%.3f", ssec > 0 ? 2.0 * (double)bytes / ssec / 1e9 : 0.0);
            rec_add(&r, "build_seconds", 1, "%.6f", build_s);
            rec_add(&r, "build", 0, "%s", build_name(source));
            rec_add(&r, "device", 0, "%s", desc);
            rec_add(&r, "output", 0, "%s", a->out);
            rec_print(&r, a->fmt, summary_stream(a->out));
        }
    }
out:
    arr_out_close(&ao, verb, 0);
    gp_uop_destroy(op);
    gp_mem_free(ctx, &bh);
    gp_mem_free(ctx, &g.buf);
    gp_ctx_destroy(ctx);
    input_close(&in);
    return rc;
}

/* ------------------------------------------------------------------------------------------ map */
typedef struct mjob {
    gp_ctx_t *ctx;
    gp_uop_t *map;
    int gpu;
    size_t es, os, cap;
    void *dout, *hout;
    gp_buffer_t bd, bh;
    arr_out_t *out;
    size_t elements;
} mjob_t;

/* The map's stage: the operator is compiled for one context, so it runs on the main lane alone (no head). */
static gp_status_t map_bind(void *s, int lane, gp_ctx_t *ctx)
{
    mjob_t *j = s;
    if (lane == LANE_HEAD) return GP_ERR_UNSUPPORTED;
    j->ctx = ctx;
    j->gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    gp_status_t st = GP_OK;
    if (j->gpu && (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, j->cap * j->os, &j->bd)) != GP_OK) return st;
    if ((st = gp_mem_alloc(ctx, j->gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE, j->cap * j->os, &j->bh)) != GP_OK) return st;
    j->dout = j->bd.device, j->hout = j->bh.host;
    return GP_OK;
}

static void map_unbind(void *s, int lane)
{
    mjob_t *j = s;
    if (lane == LANE_HEAD || !j->ctx) return;
    gp_mem_free(j->ctx, &j->bd), gp_mem_free(j->ctx, &j->bh);
}

static gp_status_t map_chunk(void *user, int lane, const void *x, size_t n, size_t first, gp_stream_t s)
{
    mjob_t *j = user;
    (void)first, (void)lane;
    if (n > j->cap) return GP_ERR_INTERNAL; /* chunks are at most cap elements */
    gp_status_t st;
    if (j->gpu) {
        if ((st = gp_transform(j->ctx, j->map, n, x, j->dout, s)) != GP_OK) return st;
        if ((st = gp_memcpy(j->ctx, j->hout, j->dout, n * j->os, s)) != GP_OK) return st;
        if ((st = gp_stream_sync(j->ctx, s)) != GP_OK) return st;
    } else if ((st = gp_transform(j->ctx, j->map, n, x, j->hout, NULL)) != GP_OK) {
        return st;
    }
    if (arr_out_write(j->out, j->hout, n) != 0) return GP_ERR_IO;
    j->elements += n;
    return GP_OK;
}

static const stage_ops_t map_ops = {map_bind, NULL, map_chunk, NULL, map_unbind, CHUNK_BYTES, 2, NULL};

typedef struct map_opts {
    const char *src, *odt, *dtype, *offset, *count, *out;
} map_opts_t;
#define AT(m) OPT_AT(map_opts_t, m)
static const cli_opt_t opts_map[] = {
    {"--src", OPT_TEXT, "EXPR", AT(src), "y[i] = EXPR, C over x (the element; float for f16 / bf16; a body with "
     "return also works), compiled at run time (NVRTC on a GPU, the C compiler on the CPU backend; cached on disk) "
     "and run with your rights (docs/design/jit.md)",
     NULL, NULL, NULL},
    {"-o|--output", OPT_FILE, "OUT", AT(out), "the mapped array (.npy or raw; - for stdout)", NULL, NULL, NULL},
    {"--out-dtype", OPT_DTYPE, "T", AT(odt), "OUT's dtype", "the input's", NULL, NULL},
    INPUT_OPTIONS(map_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_map = {
    "map", COMMON_DATA, NULL, opts_map, 1, "FILE|- --src EXPR -o OUT [options]",
    "Your transform of every element of a .npy / raw file or standard input, streamed (any size).\n"
    "Example: gpuprim map x.npy --src 'x * x' -o sq.npy",
    NULL};

static int cmd_map(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    map_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(&spec_map, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !opt.src || !opt.out) {
        fprintf(stderr, "gpuprim map: %s\n", !path ? "no input (FILE or -)" : !opt.src ? "--src is required"
                                                                               : "-o OUT is required");
        cli_usage(&spec_map, stderr);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, "map", path, opt.dtype, opt.offset, opt.count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, "map")) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    gp_dtype_t odt = in.d.dtype;
    gp_ctx_t *ctx = NULL;
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    mjob_t j;
    memset(&j, 0, sizeof j);
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    if (opt.odt && gp_dtype_parse(opt.odt, &odt) != GP_OK) {
        rc = bad_value("map", "--out-dtype", "a dtype", opt.odt);
        goto out;
    }
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c.device = pick_device("map", c.device, &w, 0);
    }
    if ((rc = pipe_open(&pp, "map", &in, c.device, 0, t0)) != EXIT_OK || (rc = pipe_wait(&pp, &ctx)) != EXIT_OK)
        goto out;
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_MAP;
    d.dtype = in.d.dtype;
    d.out_dtype = odt;
    d.src = opt.src;
    if ((rc = jit_make_uop("map", ctx, &d, &j.map)) != EXIT_OK) goto out;
    int source = 0;
    const double build_s = gp_uop_build_seconds(j.map, &source);
    j.es = in.d.elem_size;
    j.os = gp_dtype_size(odt);
    j.cap = CHUNK_BYTES / (j.os > j.es ? j.os : j.es);
    j.out = &ao;
    {
        gp_array_desc_t like = in.d; /* y has x's shape, as a NumPy ufunc's */
        like.dtype = odt;
        like.bool_values = 0; /* the map's values are whatever the expression makes: u8, not bools */
        if ((rc = arr_out_open_like(&ao, "map", opt.out, &like)) != EXIT_OK) goto out;
    }
    pp.outs[0] = &ao;
    pp.chunk_bytes = j.cap * j.es;
    int lane = LANE_MAIN;
    if ((rc = pipe_run(&pp, &in, &map_ops, &j, &lane)) != EXIT_OK) goto out;
    if ((rc = arr_out_close(&ao, "map", 1)) != EXIT_OK) goto out;
    {
        const double secs = now_seconds() - t0, bytes = (double)j.elements * (double)(j.es + j.os);
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "src", 0, "%s", opt.src);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in.d.dtype));
        rec_add(&r, "out_dtype", 0, "%s", gp_dtype_name(odt));
        rec_add(&r, "elements", 1, "%zu", j.elements);
        rec_add(&r, "seconds", 1, "%.6f", secs);
        rec_add(&r, "gbps", 1, "%.3f", secs > 0 ? bytes / secs / 1e9 : 0.0);
        rec_add(&r, "build_seconds", 1, "%.6f", build_s);
        rec_add(&r, "build", 0, "%s", build_name(source));
        rec_add(&r, "device", 0, "%s", desc);
        rec_add(&r, "output", 0, "%s", opt.out);
        rec_emit(&r, c.fmt, "map {src} over {elements} {dtype} elements -> {output} ({out_dtype})  ({seconds:%.3f} s, "
                            "{gbps:%.2f} GB/s read + written; operator {build} in {build_seconds:%.4f} s; {device})\n",
                 summary_stream(opt.out));
    }
out:
    arr_out_close(&ao, "map", 0);
    gp_uop_destroy(j.map);
    stage_end(&map_ops, &j);
    pipe_close(&pp);
    input_close(&in);
    return rc;
}

const verb_t verb_map = {"map", "FILE|- --src 'EXPR' -o OUT", "y = EXPR over x, your C compiled at run time (code run as you)",
                         &spec_map, cmd_map, NULL};
