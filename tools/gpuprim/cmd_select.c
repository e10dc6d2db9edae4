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

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

typedef struct seljob {
    gp_ctx_t *ctx;
    gp_dtype_t dtype;
    gp_pred_t pred;
    gp_uop_t *uop; /* --where-src: a user predicate instead of pred */
    int gpu;
    size_t es, cap;
    void *dout;      /* GPU: one chunk of kept elements */
    uint64_t *dcnt;  /* GPU: the chunk's count */
    void *hout;      /* the kept elements on the host (pinned on a GPU) */
    uint64_t *hcnt;  /* GPU: pinned count */
    arr_out_t *out;
    size_t elements, kept;
} seljob_t;

static gp_status_t select_chunk(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    seljob_t *j = user;
    (void)first;
    if (n > j->cap) return GP_ERR_INTERNAL; /* the stream's chunks are at most CHUNK_BYTES */
    gp_status_t st;
    size_t k = 0;
    if (j->gpu) {
        if ((st = j->uop ? gp_select_if(j->ctx, j->uop, n, x, j->dout, j->dcnt, s)
                         : gp_select(j->ctx, j->dtype, n, x, &j->pred, j->dout, j->dcnt, s)) != GP_OK)
            return st;
        if ((st = gp_memcpy(j->ctx, j->hcnt, j->dcnt, 8, s)) != GP_OK || (st = gp_stream_sync(j->ctx, s)) != GP_OK)
            return st;
        k = (size_t)*j->hcnt;
        if (k && ((st = gp_memcpy(j->ctx, j->hout, j->dout, k * j->es, s)) != GP_OK ||
                  (st = gp_stream_sync(j->ctx, s)) != GP_OK))
            return st;
    } else if ((st = j->uop ? gp_select_if_sync(j->ctx, j->uop, n, x, j->hout, &k)
                            : gp_select_sync(j->ctx, j->dtype, n, x, &j->pred, j->hout, &k)) != GP_OK) {
        return st;
    }
    if (arr_out_write(j->out, j->hout, k) != 0) return GP_ERR_IO;
    j->elements += n;
    j->kept += k;
    return GP_OK;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim select FILE|- --where PRED -o OUT [--dtype T] [--offset BYTES] [--count N]\n"
               "                      [-d cpu|ID] [--json|--csv]\n"
               "  the elements PRED keeps, in their order (NumPy's x[pred(x)]), of a .npy or raw file or standard\n"
               "  input, streamed (any size), into OUT (.npy if the name ends so, else raw). PRED: nonzero, eq:X,\n"
               "  ne:X, lt:X, le:X, gt:X, ge:X, in:LO,HI (LO <= x < HI), nan, notnan; integers compare exactly.\n"
               "  --where-src 'EXPR over x' instead: your own predicate in C, compiled at run time (docs/JIT.md).\n");
}

int cmd_select(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0, 0};
    const char *path = NULL, *o_where = NULL, *o_dtype = NULL, *o_offset = NULL, *o_count = NULL, *o_out = NULL,
               *o_src = NULL;
    const cli_opt_t opts[] = {{"--where", "PRED", &o_where},   {"--where-src", "EXPR", &o_src},
                              {"--dtype", "T", &o_dtype},
                              {"--offset", "BYTES", &o_offset}, {"--count", "N", &o_count},
                              {"-o|--output", "OUT", &o_out},   {NULL, NULL, NULL}};
    const cli_spec_t spec = {"select", COMMON_DEVICE | COMMON_JSON | COMMON_CSV, NULL, opts, 1, usage};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !(o_where || o_src) || !o_out || (o_where && o_src)) {
        fprintf(stderr, "gpuprim select: %s\n", !path ? "no input (FILE or -)"
                                               : o_where && o_src ? "--where and --where-src: give one"
                                               : !(o_where || o_src) ? "--where (or --where-src) is required"
                                                                     : "-o OUT is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    seljob_t j;
    memset(&j, 0, sizeof j);
    if (o_where && gp_pred_parse(o_where, &j.pred) != GP_OK) {
        fprintf(stderr, "gpuprim select: --where: %s\n", gp_last_error());
        return EXIT_USAGE;
    }

    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, "select", path, o_dtype, o_offset, o_count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, "select")) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    gp_ctx_t *ctx = NULL;
    gp_buffer_t bd = {0}, bh = {0}, bc = {0}, bhc = {0};
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    gp_status_t st = GP_OK;
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c.device = pick_device("select", c.device, &w, 0);
    }
    if ((rc = open_context_verb("select", c.device, &ctx)) != EXIT_OK) goto out;
    j.ctx = ctx;
    j.dtype = in.d.dtype;
    if (o_src) {
        gp_uop_desc_t d;
        memset(&d, 0, sizeof d);
        d.kind = GP_UOP_PRED;
        d.dtype = j.dtype;
        d.src = o_src;
        if ((rc = jit_make_uop("select", ctx, &d, &j.uop)) != EXIT_OK) goto out;
        o_where = o_src;
    }
    j.gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    j.es = in.d.elem_size;
    j.cap = CHUNK_BYTES / j.es;
    j.out = &ao;
    if ((j.gpu && (gp_mem_alloc(ctx, GP_MEM_DEVICE, j.cap * j.es, &bd) != GP_OK ||
                   gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &bc) != GP_OK ||
                   gp_mem_alloc(ctx, GP_MEM_PINNED, 8, &bhc) != GP_OK)) ||
        gp_mem_alloc(ctx, j.gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE, j.cap * j.es, &bh) != GP_OK) {
        fprintf(stderr, "gpuprim select: chunk buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    j.dout = bd.device, j.dcnt = bc.device, j.hout = bh.host, j.hcnt = bhc.host;
    {
        gp_array_desc_t like = in.d; /* x[mask] is 1-D, of x's dtype */
        like.ndim = 1;
        if ((rc = arr_out_open_like(&ao, "select", o_out, &like)) != EXIT_OK) goto out;
    }
    st = stream_chunks(ctx, &in, j.cap * j.es, 1, t0, select_chunk, &j);
    if (st != GP_OK) {
        rc = stream_failed("select", path, st, &ao, NULL);
        if (st == GP_ERR_INVALID_ARG && !ao.err) rc = EXIT_USAGE; /* e.g. flags the dtype cannot take */
        goto out;
    }
    if ((rc = arr_out_close(&ao, "select", 1)) != EXIT_OK) goto out;
    {
        const double secs = now_seconds() - t0, bytes = (double)(j.elements + j.kept) * (double)j.es;
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        if (c.fmt == FMT_TABLE) {
            fprintf(summary_stream(o_out), "select %s: %zu of %zu %s elements kept -> %s  (%.3f s, %.2f GB/s read + written; %s)\n", o_where,
                   j.kept, j.elements, gp_dtype_name(j.dtype), o_out, secs, secs > 0 ? bytes / secs / 1e9 : 0.0, desc);
        } else {
            record_t r = {0};
            rec_add(&r, "where", 0, "%s", o_where);
            rec_add(&r, "dtype", 0, "%s", gp_dtype_name(j.dtype));
            rec_add(&r, "elements", 1, "%zu", j.elements);
            rec_add(&r, "kept", 1, "%zu", j.kept);
            rec_add(&r, "seconds", 1, "%.6f", secs);
            rec_add(&r, "gbps", 1, "%.3f", secs > 0 ? bytes / secs / 1e9 : 0.0);
            rec_add(&r, "device", 0, "%s", desc);
            rec_add(&r, "output", 0, "%s", o_out);
            rec_print(&r, c.fmt, summary_stream(o_out));
        }
    }
out:
    arr_out_close(&ao, "select", 0); /* after a failure: nothing left behind */
    gp_uop_destroy(j.uop);
    gp_mem_free(ctx, &bd);
    gp_mem_free(ctx, &bc);
    gp_mem_free(ctx, &bhc);
    gp_mem_free(ctx, &bh);
    gp_ctx_destroy(ctx);
    input_close(&in);
    return rc;
}
