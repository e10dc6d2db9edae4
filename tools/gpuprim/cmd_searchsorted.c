/*
 * cmd_searchsorted.c — `gpuprim searchsorted SORTED QUERIES -o IDX [--side left|right]`: np.searchsorted(a, v, side)
 * by gp_searchsorted — both inputs held in memory (device memory on a GPU), the places written as int64 in the
 * queries' shape, whole or not at all. SORTED is 1-D and ascending in NumPy's order (not checked, as NumPy does not);
 * both inputs have one dtype (NumPy would cast; here a different dtype is refused with both named).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

typedef struct searchsorted_opts {
    const char *out, *side, *dtype;
} searchsorted_opts_t;
#define AT(m) OPT_AT(searchsorted_opts_t, m)

static const cli_opt_t opts[] = {
    {"-o|--output", OPT_FILE, "IDX", AT(out), "int64 places, in the queries' shape (.npy or raw; - for stdout)", NULL,
     NULL, NULL},
    {"--side", OPT_WORD, "left|right", AT(side), "left: before equal keys; right: after them", "left", NULL, NULL},
    {"--dtype", OPT_DTYPE, "T", AT(dtype), "raw inputs' dtype (a .npy's header must agree)", NULL, NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec = {
    "searchsorted", COMMON_DATA, NULL, opts, 2, "SORTED QUERIES -o IDX [options]",
    "IDX = np.searchsorted(SORTED, QUERIES, side). SORTED: 1-D, ascending in NumPy's order (NaN last; not\n"
    "checked, as NumPy does not); NaN queries go after every number, -0.0 == +0.0. Both inputs of one dtype\n"
    "(.npy, or raw with --dtype; one may be -).",
    NULL};

static int cmd_searchsorted(int argc, char **argv)
{
    static const char verb[] = "searchsorted";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    searchsorted_opts_t opt;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &opt, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (npos < 2 || !opt.out) {
        fprintf(stderr, "gpuprim searchsorted: %s\n", npos < 2 ? "needs SORTED and QUERIES" : "-o IDX is required");
        cli_usage(&spec, stderr);
        return EXIT_USAGE;
    }
    const int side = opt.side && strcmp(opt.side, "right") == 0; /* a word of the table */
    const double t0 = now_seconds();
    static const char *const names[2] = {"SORTED", "QUERIES"};
    input_t in[2];
    int rc = held_pair_open(verb, names, pos, opt.out, opt.dtype, 1, in);
    if (rc != EXIT_OK) return rc;
    gather_t g[2];
    memset(g, 0, sizeof g);
    gp_buffer_t ob = {0};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    if (in[0].d.ndim > 1) {
        fprintf(stderr, "gpuprim searchsorted: %s is %d-d: the sorted keys are one 1-D array\n", pos[0], in[0].d.ndim);
        rc = EXIT_USAGE;
        goto out;
    }
    if (in[1].d.ndim > 1 && (rc = input_c_order(&in[1], verb)) != EXIT_OK) goto out;
    if ((rc = held_pair_gather(verb, c.device, in, &p, &ctx, g, t0)) != EXIT_OK) goto out;
    const size_t n = g[0].have, m = g[1].have;
    const double t_run = now_seconds();
    gp_status_t st = m ? gp_mem_alloc(ctx, held_kind(ctx), m * 8, &ob) : GP_OK;
    if (st == GP_OK && m)
        st = gp_searchsorted_sync(ctx, in[0].d.dtype, n, n ? buf_at(ctx, &g[0].buf) : NULL, m, buf_at(ctx, &g[1].buf), side,
                                  GP_I64, buf_at(ctx, &ob));
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim searchsorted: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t like = in[1].d;
        like.dtype = GP_I64, like.bool_values = 0, like.elem_size = 8;
        if (like.ndim > 1 && m != like.count) like.ndim = 1; /* a raw or streamed input: 1-D */
        if ((rc = held_write(verb, ctx, opt.out, &like, buf_at(ctx, &ob), m, 8)) != EXIT_OK) goto out;
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in[0].d.dtype));
        rec_add(&r, "keys", 1, "%zu", n);
        rec_add(&r, "queries", 1, "%zu", m);
        rec_add(&r, "side", 0, "%s", side ? "right" : "left");
        rec_add(&r, "search_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "searchsorted: {queries} queries into {keys} {dtype} keys, side {side}  "
                            "({search_seconds:%.3f} s searching, {seconds:%.3f} s end to end; {device})\n",
                 summary_stream(opt.out));
    }
out:
    if (ctx) gp_mem_free(ctx, &ob), gp_mem_free(ctx, &g[0].buf), gp_mem_free(ctx, &g[1].buf);
    pipe_close(&p);
    input_close(&in[1]);
    input_close(&in[0]);
    return rc;
}

const verb_t verb_searchsorted = {"searchsorted", "SORTED QUERIES -o IDX",
                                  "where queries go in sorted keys (np.searchsorted, side left or right)", &spec,
                                  cmd_searchsorted, NULL};
