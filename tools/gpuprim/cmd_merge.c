/*
 * cmd_merge.c — `gpuprim merge A B -o OUT [--descending]`: two sorted 1-D arrays merged stably by gp_merge, equal to
 * np.sort(np.concatenate([A, B]), kind='stable') when both are in NumPy's order (--descending: both NaN-first
 * descending, as gpuprim sort --descending leaves them). Both inputs held in memory (device memory on a GPU), one
 * dtype; OUT written whole or not at all. The inputs' order is checked as OUT is written: a merge keeps each input's
 * elements in their order, so OUT is in order exactly when both are; when it is not, the first inversion of A or B
 * is named and nothing is written.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

typedef struct merge_opts {
    const char *out, *desc, *dtype;
} merge_opts_t;
#define AT(m) OPT_AT(merge_opts_t, m)

static const cli_opt_t opts[] = {
    {"-o|--output", OPT_FILE, "OUT", AT(out), "the merged array (.npy or raw; - for stdout)", NULL, NULL, NULL},
    {"--descending", OPT_FLAG, NULL, AT(desc), "both inputs are in descending order, NaN first (as sort --descending "
     "leaves them)", NULL, NULL, NULL},
    {"--dtype", OPT_DTYPE, "T", AT(dtype), "raw inputs' dtype (a .npy's header must agree)", NULL, NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec = {
    "merge", COMMON_DATA, NULL, opts, 2, "A B -o OUT [options]",
    "OUT = A and B, each sorted in NumPy's order (NaN last), merged stably: equal keys from A first, as\n"
    "np.sort(np.concatenate([A, B]), kind='stable'). 1-D, one dtype (.npy, or raw with --dtype; one may be -).\n"
    "Their order is checked as OUT is written: an inversion is named and nothing written.",
    NULL};

/* OUT's order, piece by piece (the last key of the piece before carried): the first inversion, if any */
typedef struct {
    gp_dtype_t dt;
    size_t es;
    int desc, have_prev, bad;
    unsigned char prev[8];
} order_check_t;
static int check_piece(void *user, const void *host, size_t n, size_t first)
{
    order_check_t *k = user;
    (void)first;
    if (n == 0) return 0;
    size_t until = n;
    if (k->have_prev) {
        unsigned char two[16];
        memcpy(two, k->prev, k->es), memcpy(two + k->es, host, k->es);
        if (gp_sorted_until(k->dt, 2, two, k->desc, &until) != GP_OK || until < 2) return k->bad = 1;
    }
    if (gp_sorted_until(k->dt, n, host, k->desc, &until) != GP_OK || until < n) return k->bad = 1;
    memcpy(k->prev, (const unsigned char *)host + (n - 1) * k->es, k->es);
    k->have_prev = 1;
    return 0;
}

/* OUT was out of order: the first inversion of A or B (read back from a GPU), said with its values */
static void name_inversion(gp_ctx_t *ctx, const char *const pos[2], const gather_t g[2], gp_dtype_t dt, size_t es,
                           int desc)
{
    static const char *const names[2] = {"A", "B"};
    for (int w = 0; w < 2; w++) {
        const size_t n = g[w].have;
        unsigned char *h = n > 1 ? malloc(n * es) : NULL;
        size_t until = n;
        if (h && gp_memcpy_sync(ctx, h, buf_at(ctx, &g[w].buf), n * es) == GP_OK &&
            gp_sorted_until(dt, n, h, desc, &until) == GP_OK && until < n) {
            fprintf(stderr, "gpuprim merge: %s (%s) is not in %s order: %s[%zu] = ", names[w], pos[w],
                    desc ? "descending" : "ascending", names[w], until);
            print_elem(stderr, dt, h + until * es, 0);
            fprintf(stderr, " goes before %s[%zu] = ", names[w], until - 1);
            print_elem(stderr, dt, h + (until - 1) * es, 0);
            fprintf(stderr, " (%s); sort it first (gpuprim sort%s); nothing written\n",
                    desc ? "NaN first" : "NumPy's order, NaN last", desc ? " --descending" : "");
            free(h);
            return;
        }
        free(h);
    }
    fprintf(stderr, "gpuprim merge: the inputs are not in %s order; nothing written\n", desc ? "descending" : "ascending");
}

static int cmd_merge(int argc, char **argv)
{
    static const char verb[] = "merge";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    merge_opts_t opt;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &opt, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (npos < 2 || !opt.out) {
        fprintf(stderr, "gpuprim merge: %s\n", npos < 2 ? "needs A and B" : "-o OUT is required");
        cli_usage(&spec, stderr);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    static const char *const names[2] = {"A", "B"};
    input_t in[2];
    int rc = held_pair_open(verb, names, pos, opt.out, opt.dtype, 1, in);
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
                           buf_at(ctx, &ob), 0, NULL, NULL, NULL, opt.desc != NULL);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim merge: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t like = in[0].d;
        like.ndim = 1, like.shape[0] = n, like.count = n;
        order_check_t k = {in[0].d.dtype, es, opt.desc != NULL, 0, 0, {0}};
        if ((rc = held_write_checked(verb, ctx, opt.out, &like, buf_at(ctx, &ob), n, es, check_piece, &k)) != EXIT_OK) {
            if (k.bad) name_inversion(ctx, pos, g, in[0].d.dtype, es, opt.desc != NULL);
            goto out;
        }
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(in[0].d.dtype));
        rec_add(&r, "a", 1, "%zu", na);
        rec_add(&r, "b", 1, "%zu", nb);
        rec_add(&r, "order", 0, "%s", opt.desc ? "descending" : "ascending");
        rec_add(&r, "merge_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "merge: {a} + {b} {dtype} {order}  ({merge_seconds:%.3f} s merging, {seconds:%.3f} s "
                            "end to end; {device})\n", summary_stream(opt.out));
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
