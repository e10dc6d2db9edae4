/*
 * cmd_topk.c — `gpuprim topk IN -k K -o VALUES [--indices IDX] [--largest] [--rows R]`: the k smallest (or largest)
 * along the last axis, as torch.topk(x, k, largest, sorted=True) with ties to the lower index — the first k of NumPy's
 * stable sort / argsort of each row (largest: NaN first) — by gp_topk. The input is held in memory (device memory on a
 * GPU); VALUES keeps the input's dtype and leading dimensions with k last, IDX int64 the same shape; written whole or
 * not at all. A 1-D input is one row; --rows R splits a raw or 1-D input into R rows.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

typedef struct topk_opts {
    const char *out, *idx, *k, *largest, *rows, *dtype, *offset, *count;
} topk_opts_t;
#define AT(m) OPT_AT(topk_opts_t, m)

static const cli_opt_t opts[] = {
    {"-k", OPT_COUNT, "K", AT(k), "how many of each row (at most a row's length)", NULL, NULL, NULL},
    {"-o|--output", OPT_FILE, "VALUES", AT(out), "the K values of each row, IN's dtype (.npy or raw; - for stdout)",
     NULL, NULL, NULL},
    {"--indices", OPT_FILE, "IDX", AT(idx), "their int64 positions within the row", NULL, NULL, NULL},
    {"--largest", OPT_FLAG, NULL, AT(largest), "the K largest instead, NaN first (torch.topk's largest=True)", NULL,
     NULL, NULL},
    {"--rows", OPT_COUNT, "R", AT(rows), "a 1-D or raw input split into R rows of equal length", NULL, NULL, NULL},
    INPUT_OPTIONS(topk_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec = {
    "topk", COMMON_DATA, NULL, opts, 1, "IN -k K -o VALUES [--indices IDX] [options]\nIN -k K --indices IDX [options]",
    "The K smallest elements of each row (the last axis of a .npy) in NumPy's sorted order, ties to the lower\n"
    "index: the first K of np.sort / np.argsort(x, kind='stable'). IN: .npy, raw, or - for stdin.",
    NULL};

static int cmd_topk(int argc, char **argv)
{
    static const char verb[] = "topk";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    topk_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || (!opt.out && !opt.idx) || !opt.k) {
        fprintf(stderr, "gpuprim topk: %s\n", !path ? "no input (FILE or -)" : !opt.k ? "-k K is required"
                                                                      : "-o VALUES or --indices IDX is required");
        cli_usage(&spec, stderr);
        return EXIT_USAGE;
    }
    size_t k = 0, rows_opt = 0;
    if (parse_size(opt.k, &k) != 0) return bad_value(verb, "-k", "a count", opt.k);
    if (opt.rows && (parse_size(opt.rows, &rows_opt) != 0 || rows_opt == 0))
        return bad_value(verb, "--rows", "a count of rows (1 or more)", opt.rows);
    const char *outs[2] = {opt.out, opt.idx};
    for (int i = 0; i < 2; i++)
        if (outs[i] && out_same_target(outs[i], path)) {
            fprintf(stderr, "gpuprim topk: %s is also the input (write elsewhere)\n", outs[i]);
            return EXIT_USAGE;
        }
    if (opt.idx && opt.out && strcmp(opt.out, "-") != 0 && out_same_target(opt.idx, opt.out)) {
        fprintf(stderr, "gpuprim topk: -o and --indices name the same file\n");
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, verb, path, opt.dtype, opt.offset, opt.count);
    if (rc != EXIT_OK) return rc;
    gather_t g = {0};
    gp_buffer_t ob = {0}, oi = {0};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    if (in.d.ndim > 1 && opt.rows) {
        fprintf(stderr, "gpuprim topk: %s is %d-d: its rows are its last axis (--rows is for 1-D and raw inputs)\n", path,
                in.d.ndim);
        rc = EXIT_USAGE;
        goto out;
    }
    if (in.d.ndim > 1 && (rc = input_c_order(&in, verb)) != EXIT_OK) goto out;
    if ((rc = held_gather(verb, c.device, &in, &p, &ctx, &g, t0)) != EXIT_OK) goto out;
    const size_t total = g.have, es = in.d.elem_size;
    size_t rows = 1, n = total;
    if (in.d.ndim > 1) n = in.d.shape[in.d.ndim - 1], rows = n ? total / n : 0;
    else if (rows_opt) {
        if (total % rows_opt) {
            fprintf(stderr, "gpuprim topk: %s: %zu elements do not split into %zu rows\n", path, total, rows_opt);
            rc = EXIT_USAGE;
            goto out;
        }
        rows = rows_opt, n = total / rows_opt;
    }
    if (k > n) {
        fprintf(stderr, "gpuprim topk: -k %zu is more than a row's %zu elements\n", k, n);
        rc = EXIT_USAGE;
        goto out;
    }
    const double t_run = now_seconds();
    const gp_mem_kind_t kind = held_kind(ctx);
    gp_status_t st = GP_OK;
    if (rows && k) {
        st = opt.out ? gp_mem_alloc(ctx, kind, rows * k * es, &ob) : GP_OK;
        if (st == GP_OK && opt.idx) st = gp_mem_alloc(ctx, kind, rows * k * 8, &oi);
        if (st == GP_OK)
            st = gp_topk_sync(ctx, in.d.dtype, rows, n, buf_at(ctx, &g.buf), k, opt.largest != NULL,
                              opt.out ? buf_at(ctx, &ob) : NULL, GP_I64, opt.idx ? buf_at(ctx, &oi) : NULL);
    }
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim topk: %s: %s\n", path, gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t like = in.d;
        if (like.ndim <= 1) {
            like.ndim = rows_opt ? 2 : 1;
            like.shape[0] = rows_opt ? rows : k;
            if (rows_opt) like.shape[1] = k;
        } else
            like.shape[like.ndim - 1] = k;
        like.count = rows * k;
        gp_array_desc_t il0 = like;
        il0.dtype = GP_I64, il0.bool_values = 0, il0.elem_size = 8;
        if (!opt.idx) {
            if ((rc = held_write(verb, ctx, opt.out, &like, buf_at(ctx, &ob), rows * k, es)) != EXIT_OK) goto out;
        } else if (!opt.out) { /* the positions alone */
            if ((rc = held_write(verb, ctx, opt.idx, &il0, buf_at(ctx, &oi), rows * k, 8)) != EXIT_OK) goto out;
        } else {
            gp_array_desc_t il = like;
            il.dtype = GP_I64, il.bool_values = 0, il.elem_size = 8;
            if ((rc = held_write_pair(verb, ctx, opt.out, &like, buf_at(ctx, &ob), rows * k, es, opt.idx, &il,
                                      buf_at(ctx, &oi), rows * k, 8)) != EXIT_OK)
                goto out;
        }
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in.d.dtype));
        rec_add(&r, "rows", 1, "%zu", rows);
        rec_add(&r, "n", 1, "%zu", n);
        rec_add(&r, "k", 1, "%zu", k);
        rec_add(&r, "order", 0, "%s", opt.largest ? "largest" : "smallest");
        rec_add(&r, "topk_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "topk: the {k} {order} of {rows} x {n} {dtype}  ({topk_seconds:%.3f} s selecting, "
                            "{seconds:%.3f} s end to end; {device})\n", summary_stream(opt.out ? opt.out : opt.idx));
    }
out:
    if (ctx) gp_mem_free(ctx, &ob), gp_mem_free(ctx, &oi), gp_mem_free(ctx, &g.buf);
    pipe_close(&p);
    input_close(&in);
    return rc;
}

const verb_t verb_topk = {"topk", "IN -k K -o VALUES", "the k smallest or largest of each row with their positions (torch.topk, ties to the lower index)",
                          &spec, cmd_topk, NULL};
