/*
 * cmd_select.c — `gpuprim select FILE|- --where PRED -o OUT [--dtype T] [--offset B] [--count N] [-d cpu|ID]
 * [--json|--csv]`: the elements of a .npy / raw file or standard input that PRED keeps (gp_pred_parse: nonzero,
 * eq:X ne:X lt:X le:X gt:X ge:X, in:LO,HI, nan, notnan), in their order, streamed chunk by chunk through gp_select
 * (any size), into OUT (.npy or raw, written whole or not at all). Prints a one-line summary; --json / --csv:
 * predicate, dtype, elements in, kept, seconds, GB/s (bytes read + written), device, output.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

/* The select stage: per lane a chunk of kept elements (and its count on a GPU); the kept elements go out in order,
 * whichever lane kept them, so nothing moves at the hand-over. */
typedef struct selstage {
    gp_dtype_t dtype;
    gp_pred_t pred;
    gp_uop_t *uop; /* --where-src: a user predicate instead of pred (made on the main lane's context) */
    size_t es, cap;
    gp_ctx_t *ctx[2];
    gp_buffer_t bd[2], bc[2], bhc[2], bh[2][2]; /* GPU: kept elements, their count, the pinned count; two host
                                                 * copies, one filled while the output's thread writes the other */
    unsigned flip[2];
    arr_out_t *out;
    size_t elements, kept;
} selstage_t;

static gp_status_t sel_bind(void *s, int lane, gp_ctx_t *ctx)
{
    selstage_t *j = s;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    gp_status_t st = GP_OK;
    j->ctx[lane] = ctx;
    if (gpu && ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, j->cap * j->es, &j->bd[lane])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &j->bc[lane])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_PINNED, 8, &j->bhc[lane])) != GP_OK))
        return st;
    for (int b = 0; b < 2 && st == GP_OK; b++)
        st = gp_mem_alloc(ctx, gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE, j->cap * j->es, &j->bh[lane][b]);
    return st;
}

static gp_status_t sel_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t st_)
{
    selstage_t *j = s;
    (void)first;
    if (n > j->cap) return GP_ERR_INTERNAL; /* the stream's chunks are at most the stage's chunk_bytes */
    gp_ctx_t *ctx = j->ctx[lane];
    void *hout = j->bh[lane][j->flip[lane]++ & 1].host;
    arr_out_release(j->out, hout); /* its previous chunk written */
    gp_status_t st;
    size_t k = 0;
    if (j->bd[lane].device) {
        void *dout = j->bd[lane].device;
        uint64_t *dcnt = j->bc[lane].device, *hcnt = j->bhc[lane].host;
        if ((st = j->uop ? gp_select_if(ctx, j->uop, n, x, dout, dcnt, st_)
                         : gp_select(ctx, j->dtype, n, x, &j->pred, dout, dcnt, st_)) != GP_OK)
            return st;
        if ((st = gp_memcpy(ctx, hcnt, dcnt, 8, st_)) != GP_OK || (st = gp_stream_sync(ctx, st_)) != GP_OK) return st;
        k = (size_t)*hcnt;
        if (k && ((st = gp_memcpy(ctx, hout, dout, k * j->es, st_)) != GP_OK || (st = gp_stream_sync(ctx, st_)) != GP_OK))
            return st;
    } else if ((st = j->uop ? gp_select_if_sync(ctx, j->uop, n, x, hout, &k)
                            : gp_select_sync(ctx, j->dtype, n, x, &j->pred, hout, &k)) != GP_OK) {
        return st;
    }
    if (arr_out_submit(j->out, hout, k) != 0) return GP_ERR_IO;
    j->elements += n;
    j->kept += k;
    return GP_OK;
}

static void sel_unbind(void *s, int lane)
{
    selstage_t *j = s;
    gp_ctx_t *ctx = j->ctx[lane];
    if (!ctx) return;
    gp_mem_free(ctx, &j->bd[lane]), gp_mem_free(ctx, &j->bc[lane]), gp_mem_free(ctx, &j->bhc[lane]);
    gp_mem_free(ctx, &j->bh[lane][0]), gp_mem_free(ctx, &j->bh[lane][1]);
    j->ctx[lane] = NULL;
}

static const stage_ops_t selstage_ops = {sel_bind, NULL, sel_push, NULL, sel_unbind, CHUNK_BYTES, 1, NULL};

typedef struct select_opts {
    const char *where, *dtype, *offset, *count, *out, *src;
} select_opts_t;
#define AT(m) OPT_AT(select_opts_t, m)
static const cli_opt_t opts_select[] = {
    {"--where", OPT_TEXT, "PRED", AT(where),
     "what is kept: nonzero, eq:X, ne:X, lt:X, le:X, gt:X, ge:X, in:LO,HI (LO <= x < HI), nan, notnan; integers "
     "compare exactly",
     NULL, "--where-src", "nonzero nan notnan eq: ne: lt: le: gt: ge: in:"},
    {"--where-src", OPT_TEXT, "EXPR", AT(src),
     "your own predicate over x in C, compiled at run time and run with your rights (docs/design/jit.md)", NULL,
     NULL, NULL},
    {"-o|--output", OPT_FILE, "OUT", AT(out), "the kept elements (.npy or raw; - for stdout)", NULL, NULL, NULL},
    INPUT_OPTIONS(select_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_select = {
    "select", COMMON_DATA, NULL, opts_select, 1, "FILE|- --where PRED -o OUT [options]\nFILE|- --where-src EXPR -o OUT [options]",
    "The elements PRED keeps, in their order (NumPy's x[pred(x)]), of a .npy or raw file or standard input,\n"
    "streamed (any size).",
    NULL};

static int cmd_select(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    select_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(&spec_select, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !(opt.where || opt.src) || !opt.out) {
        fprintf(stderr, "gpuprim select: %s\n", !path                    ? "no input (FILE or -)"
                                               : !(opt.where || opt.src) ? "--where (or --where-src) is required"
                                                                         : "-o OUT is required");
        cli_usage(&spec_select, stderr);
        return EXIT_USAGE;
    }
    selstage_t j;
    memset(&j, 0, sizeof j);
    if (opt.where && gp_pred_parse(opt.where, &j.pred) != GP_OK) {
        fprintf(stderr, "gpuprim select: --where: %s\n", gp_last_error());
        return EXIT_USAGE;
    }

    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, "select", path, opt.dtype, opt.offset, opt.count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, "select")) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    gp_ctx_t *ctx = NULL;
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c.device = pick_device("select", c.device, &w, 0);
    }
    /* a user predicate is compiled for one context: no CPU head start then */
    if ((rc = pipe_open(&pp, "select", &in, c.device, !opt.src, t0)) != EXIT_OK) goto out;
    j.dtype = in.d.dtype;
    j.es = in.d.elem_size;
    j.cap = CHUNK_BYTES / j.es;
    j.out = &ao;
    if (opt.src) {
        gp_uop_desc_t d;
        memset(&d, 0, sizeof d);
        d.kind = GP_UOP_PRED;
        d.dtype = j.dtype;
        d.src = opt.src;
        if ((rc = pipe_wait(&pp, &ctx)) != EXIT_OK || (rc = jit_make_uop("select", ctx, &d, &j.uop)) != EXIT_OK) goto out;
        opt.where = opt.src;
    }
    {
        gp_array_desc_t like = in.d; /* x[mask] is 1-D, of x's dtype */
        like.ndim = 1;
        if ((rc = arr_out_open_like(&ao, "select", opt.out, &like)) != EXIT_OK) goto out;
    }
    pp.outs[0] = &ao;
    int lane = LANE_MAIN;
    if ((rc = pipe_run(&pp, &in, &selstage_ops, &j, &lane)) != EXIT_OK) goto out;
    ctx = pipe_lane_ctx(&pp, lane);
    if ((rc = arr_out_close(&ao, "select", 1)) != EXIT_OK) goto out;
    {
        const double secs = now_seconds() - t0, bytes = (double)(j.elements + j.kept) * (double)j.es;
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "where", 0, "%s", opt.where);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(j.dtype));
        rec_add(&r, "elements", 1, "%zu", j.elements);
        rec_add(&r, "kept", 1, "%zu", j.kept);
        rec_add_run(&r, secs, bytes, pp.head_elements, desc);
        rec_add(&r, "output", 0, "%s", opt.out);
        rec_emit(&r, c.fmt, "select {where}: {kept} of {elements} {dtype} elements kept -> {output}  ({seconds:%.3f} "
                            "s, {gbps:%.2f} GB/s read + written; {device})\n", summary_stream(opt.out));
    }
out:
    arr_out_close(&ao, "select", 0); /* after a failure: nothing left behind */
    stage_end(&selstage_ops, &j);
    gp_uop_destroy(j.uop);
    pipe_close(&pp);
    input_close(&in);
    return rc;
}

const verb_t verb_select = {"select", "FILE|- --where PRED -o OUT", "the elements PRED keeps (gt:X, in:LO,HI, nonzero, nan ...), streamed",
                         &spec_select, cmd_select, NULL};
