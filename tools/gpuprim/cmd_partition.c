/*
 * cmd_partition.c — `gpuprim partition IN --kth K[,K...] -o OUT` and `gpuprim argpartition IN --kth K[,K...] -o IDX`:
 * np.partition / np.argpartition along the last axis (--flatten: all elements as one row, axis=None) by
 * gp_partition_kth_sync. For every kth (negative: from the row's end) the element there is the one np.sort puts
 * there, none before it after it, none after it before it — NumPy's guarantee; the placement NumPy leaves open is
 * fixed here: the first max(kth) + 1 in sorted order, then the rest in input order. OUT: IN's dtype and shape; IDX:
 * int64 positions within the row, IN's shape. The input is held in memory (device memory on a GPU); written whole or
 * not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct partition_opts {
    const char *out, *kth, *flatten, *dtype, *offset, *count;
} partition_opts_t;
#define AT(m) OPT_AT(partition_opts_t, m)

/* the two verbs' options: OUT's help differs */
#define PARTITION_OPTIONS(OUT, OUT_HELP)                                                                               \
    {"--kth", OPT_TEXT, "K[,K...]", AT(kth), "the positions placed as np.sort would (negative: from the row's end)",  \
     NULL, NULL, NULL},                                                                                                \
        {"-o|--output", OPT_FILE, OUT, AT(out), OUT_HELP " (.npy or raw)", NULL, NULL, NULL},                          \
        {"--flatten", OPT_FLAG, NULL, AT(flatten), "all elements as one row (axis=None)", NULL, NULL, NULL},          \
        INPUT_OPTIONS(partition_opts_t), {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}
static const cli_opt_t opts_p[] = {PARTITION_OPTIONS("OUT", "the partitioned array, IN's dtype and shape")};
static const cli_opt_t opts_a[] = {PARTITION_OPTIONS("IDX", "int64 positions within the row, IN's shape")};
#define PARTITION_ABOUT(np)                                                                                            \
    np " along the last axis: for every K the element at K is the one np.sort puts there, none before it after it\n" \
       "and none after it before it. The first max(K) + 1 come in sorted order (NaN last, ties to the lower index),\n" \
       "the rest in input order (NumPy leaves that placement unspecified). IN: .npy, raw, or - for stdin."
static const cli_spec_t spec_p = {"partition", COMMON_DATA, NULL, opts_p, 1, "IN --kth K[,K...] -o OUT [options]",
                                  PARTITION_ABOUT("np.partition"), NULL};
static const cli_spec_t spec_a = {"argpartition", COMMON_DATA, NULL, opts_a, 1, "IN --kth K[,K...] -o IDX [options]",
                                  PARTITION_ABOUT("np.argpartition"), NULL};

/* k = max(kth) + 1 over a row of n, each kth an integer in [-n, n): EXIT_OK, else the refusal said */
static int kth_to_k(const char *verb, const char *text, size_t n, size_t *k)
{
    double *v = NULL;
    const size_t m = parse_number_list(text, &v);
    int rc = m ? EXIT_OK : bad_value(verb, "--kth", "integers K[,K...]", text);
    *k = 0;
    for (size_t i = 0; i < m && rc == EXIT_OK; i++) {
        const double x = v[i];
        if (x != floor(x) || fabs(x) > 9.0e15) {
            rc = bad_value(verb, "--kth", "integers K[,K...]", text);
        } else if (x >= (double)n || x < -(double)n) {
            fprintf(stderr, "gpuprim %s: --kth %.0f is out of bounds for a row of %zu (NumPy: kth(=%.0f) out of "
                            "bounds)\n", verb, x, n, x);
            rc = EXIT_USAGE;
        } else {
            const size_t at = x < 0 ? (size_t)((double)n + x) : (size_t)x;
            if (at + 1 > *k) *k = at + 1;
        }
    }
    free(v);
    return rc;
}

static int cmd_partition_any(int argc, char **argv, int arg)
{
    const char *verb = arg ? "argpartition" : "partition";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    partition_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const cli_spec_t *spec = arg ? &spec_a : &spec_p;
    const int pr = cli_parse(spec, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !opt.out || !opt.kth) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, !path ? "no input (FILE or -)" : !opt.kth ? "--kth K is required"
                                                                              : "-o OUT is required");
        cli_usage(spec, stderr);
        return EXIT_USAGE;
    }
    if (out_same_target(opt.out, path)) {
        fprintf(stderr, "gpuprim %s: %s is also the input (write elsewhere)\n", verb, opt.out);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, verb, path, opt.dtype, opt.offset, opt.count);
    if (rc != EXIT_OK) return rc;
    gather_t g = {0};
    gp_buffer_t ob = {0};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    if (in.d.ndim == 0 && !opt.flatten) {
        fprintf(stderr, "gpuprim %s: %s is 0-d: a partition needs an axis (NumPy: axis -1 is out of bounds for "
                        "array of dimension 0; --flatten takes it as one element)\n", verb, path);
        rc = EXIT_USAGE;
        goto out;
    }
    if (in.d.ndim > 1 && (rc = input_c_order(&in, verb)) != EXIT_OK) goto out;
    if ((rc = held_gather(verb, c.device, &in, &p, &ctx, &g, t0)) != EXIT_OK) goto out;
    const size_t total = g.have, es = in.d.elem_size;
    size_t rows = 1, n = total, k = 0;
    if (in.d.ndim > 1 && !opt.flatten) n = in.d.shape[in.d.ndim - 1], rows = n ? total / n : 0;
    if ((rc = kth_to_k(verb, opt.kth, n, &k)) != EXIT_OK) goto out;
    const double t_run = now_seconds();
    gp_status_t st = total ? gp_mem_alloc(ctx, held_kind(ctx), total * (arg ? 8 : es), &ob) : GP_OK;
    if (st == GP_OK && total)
        st = gp_partition_kth_sync(ctx, in.d.dtype, rows, n, buf_at(ctx, &g.buf), k, arg ? NULL : buf_at(ctx, &ob),
                                   GP_I64, arg ? buf_at(ctx, &ob) : NULL);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t like = in.d;
        if (opt.flatten) like.ndim = 1, like.shape[0] = total;
        like.count = total;
        if (arg) like.dtype = GP_I64, like.bool_values = 0, like.elem_size = 8;
        if ((rc = held_write(verb, ctx, opt.out, &like, buf_at(ctx, &ob), total, arg ? 8 : es)) != EXIT_OK) goto out;
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in.d.dtype));
        rec_add(&r, "rows", 1, "%zu", rows);
        rec_add(&r, "n", 1, "%zu", n);
        rec_add(&r, "sorted_first", 1, "%zu", k);
        rec_add(&r, "partition_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "{verb}: {rows} x {n} {dtype}, the first {sorted_first} of each row in sorted order  "
                            "({partition_seconds:%.3f} s partitioning, {seconds:%.3f} s end to end; {device})\n",
                 summary_stream(opt.out));
    }
out:
    if (ctx) gp_mem_free(ctx, &ob), gp_mem_free(ctx, &g.buf);
    pipe_close(&p);
    input_close(&in);
    return rc;
}

static int cmd_partition(int argc, char **argv) { return cmd_partition_any(argc, argv, 0); }
static int cmd_argpartition(int argc, char **argv) { return cmd_partition_any(argc, argv, 1); }

const verb_t verb_partition = {"partition", "IN --kth K -o OUT",
                               "np.partition: the element at each kth in its sorted place, smaller before, larger after",
                               &spec_p, cmd_partition, NULL};
const verb_t verb_argpartition = {"argpartition", "IN --kth K -o IDX",
                                  "np.argpartition: the positions np.partition would place (int64)", &spec_a,
                                  cmd_argpartition, NULL};
