/*
 * cmd_unique.c — `gpuprim unique FILE|- -o OUT [--index I] [--inverse V] [--counts C]`: np.unique with its optional
 * outputs by gp_unique_sorted_sync, the input held in memory (device memory on a GPU); `--consecutive`: consecutive
 * duplicates removed, streamed chunk by chunk at any size (runs_stream.c). np.unique's equality is the sort's (every
 * NaN one key); the consecutive form's is by value (NaN equals nothing, -0 == +0), as in the library.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"
#include "runs_stream.h"

#include <stdlib.h>
#include <string.h>

typedef struct unique_opts {
    const char *dtype, *offset, *count, *out, *consec, *index, *inverse, *counts, *equal_nan;
} unique_opts_t;
#define AT(m) OPT_AT(unique_opts_t, m)
static const cli_opt_t opts_u[] = {
    {"-o|--output", OPT_FILE, "OUT", AT(out), "the distinct elements, 1-D, IN's dtype (.npy or raw; - for stdout)",
     NULL, NULL, NULL},
    {"--index", OPT_FILE, "I", AT(index), "each one's first position (int64)", NULL, NULL, NULL},
    {"--inverse", OPT_FILE, "V", AT(inverse), "for each element its place in OUT (int64, IN's shape)", NULL, NULL,
     NULL},
    {"--counts", OPT_FILE, "C", AT(counts), "how many of each (int64)", NULL, NULL, NULL},
    {"--equal-nan", OPT_WORD, "yes|no", AT(equal_nan),
     "every NaN one element (no: each NaN its own, after the numbers in input order: np.unique(equal_nan=False))",
     "yes", NULL, YES_NO_WORDS},
    {"--consecutive", OPT_FLAG, NULL, AT(consec),
     "consecutive duplicates removed instead (x[np.r_[True, x[1:] != x[:-1]]]), streamed at any size; each NaN "
     "kept; not with the np.unique outputs (run lengths: gpuprim rle)",
     NULL, NULL, NULL},
    INPUT_OPTIONS(unique_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_unique = {
    "unique", COMMON_DATA, NULL, opts_u, 1, "FILE|- -o OUT [--index I] [--inverse V] [--counts C] [options]",
    "np.unique: the distinct elements in sorted order (NaN last, every NaN one, -0 == +0), and as asked each one's\n"
    "first position, each element's place, the counts; written all or none. The input is held in memory.",
    NULL};

/* np.unique: the input held, gp_unique_sorted_sync, up to four outputs written all or none */
static int unique_sorted(const char *path, cli_common_t *c, const unique_opts_t *opt)
{
    static const char verb[] = "unique";
    const char *outs[4] = {opt->out, opt->index, opt->inverse, opt->counts};
    static const char *const flags[4] = {"-o", "--index", "--inverse", "--counts"};
    for (int i = 0; i < 4; i++) {
        if (outs[i] && out_same_target(outs[i], path)) {
            fprintf(stderr, "gpuprim unique: %s %s is also the input (write elsewhere)\n", flags[i], outs[i]);
            return EXIT_USAGE;
        }
        for (int j = 0; j < i; j++)
            if (outs[i] && outs[j] && out_same_target(outs[i], outs[j])) {
                fprintf(stderr, "gpuprim unique: %s and %s name the same file %s: give one each\n", flags[j], flags[i],
                        outs[i]);
                return EXIT_USAGE;
            }
    }
    gp_unique_opts_t uo = {sizeof uo, 0};
    uo.nan_distinct = !opt_yes(opt->equal_nan, 1);
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, verb, path, opt->dtype, opt->offset, opt->count);
    if (rc == EXIT_OK && in.d.ndim > 1 && (rc = input_c_order(&in, verb)) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    gather_t g = {0};
    gp_buffer_t b[4] = {{0}, {0}, {0}, {0}};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    if ((rc = held_gather(verb, c->device, &in, &p, &ctx, &g, t0)) != EXIT_OK) goto out;
    const size_t n = g.have, es = in.d.elem_size;
    const double t_run = now_seconds();
    const gp_mem_kind_t kind = held_kind(ctx);
    gp_status_t st = GP_OK;
    size_t u = 0;
    for (int i = 0; i < 4 && st == GP_OK; i++)
        if (outs[i] && n) st = gp_mem_alloc(ctx, kind, n * (i ? 8 : es), &b[i]);
    if (st == GP_OK)
        st = gp_unique_sorted_opts_sync(ctx, in.d.dtype, n, buf_at(ctx, &g.buf), buf_at(ctx, &b[0]), GP_I64,
                                        opt->index ? buf_at(ctx, &b[1]) : NULL, opt->inverse ? buf_at(ctx, &b[2]) : NULL,
                                        opt->counts ? (uint64_t *)buf_at(ctx, &b[3]) : NULL, &u, &uo);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim unique: %s: %s\n", path, gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t like = in.d, il, inv; /* OUT: 1-D of the input's dtype; the others int64 */
        like.ndim = 1, like.shape[0] = u, like.count = u;
        il = like, il.dtype = GP_I64, il.bool_values = 0, il.elem_size = 8;
        inv = in.d, inv.dtype = GP_I64, inv.bool_values = 0, inv.elem_size = 8;
        if (inv.ndim == 0) inv.ndim = 1, inv.shape[0] = n;
        inv.count = n;
        held_out_t o[4];
        int no = 0;
        o[no++] = (held_out_t){opt->out, &like, buf_at(ctx, &b[0]), u, es};
        if (opt->index) o[no++] = (held_out_t){opt->index, &il, buf_at(ctx, &b[1]), u, 8};
        if (opt->inverse) o[no++] = (held_out_t){opt->inverse, &inv, buf_at(ctx, &b[2]), n, 8};
        if (opt->counts) o[no++] = (held_out_t){opt->counts, &il, buf_at(ctx, &b[3]), u, 8};
        if ((rc = held_write_all(verb, ctx, no, o)) != EXIT_OK) goto out;
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in.d.dtype));
        rec_add(&r, "elements", 1, "%zu", n);
        rec_add(&r, "distinct", 1, "%zu", u);
        rec_add(&r, "unique_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_add(&r, "output", 0, "%s", opt->out);
        rec_emit(&r, c->fmt, "unique: {elements} {dtype} elements -> {distinct} distinct -> {output}  "
                             "({unique_seconds:%.3f} s finding, {seconds:%.3f} s end to end; {device})\n",
                 summary_stream(opt->out));
    }
out:
    if (ctx) {
        for (int i = 0; i < 4; i++) gp_mem_free(ctx, &b[i]);
        gp_mem_free(ctx, &g.buf);
    }
    pipe_close(&p);
    input_close(&in);
    return rc;
}

static int cmd_unique(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    unique_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(&spec_unique, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !opt.out) {
        fprintf(stderr, "gpuprim unique: %s\n", !path ? "no input (FILE or -)" : "-o OUT is required");
        cli_usage(&spec_unique, stderr);
        return EXIT_USAGE;
    }
    if (!opt.consec) return unique_sorted(path, &c, &opt);
    if (opt.index || opt.inverse || opt.counts || opt.equal_nan) {
        fprintf(stderr, "gpuprim unique: %s is np.unique's (without --consecutive); consecutive runs' lengths: "
                        "gpuprim rle\n", opt.index ? "--index" : opt.inverse ? "--inverse" : opt.counts ? "--counts"
                                                                                 : "--equal-nan");
        return EXIT_USAGE;
    }
    return runs_stream("unique", 0, path, &c, opt.dtype, opt.offset, opt.count, opt.out, NULL);
}

const verb_t verb_unique = {"unique", "FILE|- -o OUT", "np.unique (sorted distinct, with index, inverse, counts); --consecutive: streamed",
                         &spec_unique, cmd_unique, NULL};
