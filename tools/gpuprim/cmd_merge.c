/*
 * cmd_merge.c — `gpuprim merge A B -o OUT [--descending]`: two sorted 1-D arrays merged stably by gp_merge, equal to
 * np.sort(np.concatenate([A, B]), kind='stable') when both are in NumPy's order (--descending: both NaN-first
 * descending, as gpuprim sort --descending leaves them). Both inputs held in memory (device memory on a GPU), one
 * dtype; OUT written whole or not at all. The inputs' order is not checked.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

static const char *o_out, *o_desc, *o_dtype;

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim merge A B -o OUT [--descending] [--dtype T] [-d cpu|ID|auto|fastest] [--json|--csv]\n"
               "  OUT = A and B, each sorted in NumPy's order (NaN last; --descending: NaN first), merged stably:\n"
               "  equal keys from A first = np.sort(np.concatenate([A, B]), kind='stable'). 1-D, one dtype (.npy, or\n"
               "  raw with --dtype; one may be -).\n");
}

static const cli_opt_t opts[] = {{"-o|--output", "OUT", &o_out},
                                 {"--descending", NULL, &o_desc},
                                 {"--dtype", "T", &o_dtype},
                                 {NULL, NULL, NULL}};
static const cli_spec_t spec = {"merge", COMMON_DEVICE | COMMON_JSON | COMMON_CSV, NULL, opts, 2, usage};

static int cmd_merge(int argc, char **argv)
{
    static const char verb[] = "merge";
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0, 0};
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (npos < 2 || !o_out) {
        fprintf(stderr, "gpuprim merge: %s\n", npos < 2 ? "needs A and B" : "-o OUT is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    static const char *const names[2] = {"A", "B"};
    input_t in[2];
    int rc = held_pair_open(verb, names, pos, o_out, o_dtype, 1, in);
    if (rc != EXIT_OK) return rc;
    gather_t g[2];
    memset(g, 0, sizeof g);
    gp_buffer_t ob = {0};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    if (in[0].d.ndim > 1 || in[1].d.ndim > 1) {
        const int w = in[0].d.ndim > 1 ? 0 : 1;
        fprintf(stderr, "gpuprim merge: %s is %d-d: merges take 1-D arrays\n", pos[w], in[w].d.ndim);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = held_pair_gather(verb, c.device, in, &p, &ctx, g, t0)) != EXIT_OK) goto out;
    const size_t na = g[0].have, nb = g[1].have, n = na + nb, es = in[0].d.elem_size;
    const double t_run = now_seconds();
    gp_status_t st = n ? gp_mem_alloc(ctx, held_kind(ctx), n * es, &ob) : GP_OK;
    if (st == GP_OK && n)
        st = gp_merge_sync(ctx, in[0].d.dtype, na, na ? buf_at(ctx, &g[0].buf) : NULL, nb, nb ? buf_at(ctx, &g[1].buf) : NULL,
                           buf_at(ctx, &ob), 0, NULL, NULL, NULL, o_desc != NULL);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim merge: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t like = in[0].d;
        like.ndim = 1, like.shape[0] = n, like.count = n;
        if ((rc = held_write(verb, ctx, o_out, &like, buf_at(ctx, &ob), n, es)) != EXIT_OK) goto out;
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in[0].d.dtype));
        rec_add(&r, "a", 1, "%zu", na);
        rec_add(&r, "b", 1, "%zu", nb);
        rec_add(&r, "order", 0, "%s", o_desc ? "descending" : "ascending");
        rec_add(&r, "merge_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "merge: {a} + {b} {dtype} {order}  ({merge_seconds:%.3f} s merging, {seconds:%.3f} s "
                            "end to end; {device})\n", summary_stream(o_out));
    }
out:
    if (ctx) gp_mem_free(ctx, &ob), gp_mem_free(ctx, &g[0].buf), gp_mem_free(ctx, &g[1].buf);
    pipe_close(&p);
    input_close(&in[1]);
    input_close(&in[0]);
    return rc;
}

const verb_t verb_merge = {"merge", "A B -o OUT", "two sorted arrays merged stably (equal keys from A first)", &spec,
                            cmd_merge, NULL};
