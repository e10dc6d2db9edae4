/*
 * cmd_groupby.c — `gpuprim groupby KEYS VALUES --op OP -o KEYS_OUT --values-out OUT [--sorted]`: the values reduced
 * per distinct key. The keys are sorted first (stably, the values moving with them: gp_sort_pairs) unless --sorted
 * says they already are, then gp_reduce_by_key_sync reduces each run of equal keys: KEYS_OUT holds each group's key
 * in sorted order (np.unique's, except that each NaN key is a group of its own, as CUB's ReduceByKey and NumPy's ==
 * have it), OUT each group's reduction in gp_reduce's accumulator dtype (float for f16 / bf16 / f32 sums). Both
 * inputs 1-D of the same length, held in memory (device memory on a GPU); the outputs written whole or not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

static const char *o_out, *o_vout, *o_op, *o_sorted, *o_dtype;

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim groupby KEYS VALUES --op OP -o KEYS_OUT --values-out OUT [--sorted] [--dtype T]\n"
               "                      [-d cpu|ID|auto] [--json|--csv]\n"
               "  OUT[g] = OP over the VALUES whose key is KEYS_OUT[g], the groups in NumPy's sorted key order\n"
               "  (np.unique(KEYS) with np.add.reduceat for sum); each NaN key is a group of its own. OP: sum prod min\n"
               "  max and or xor count_nonzero; OUT in its accumulator dtype. --sorted: KEYS are sorted already (no sort;\n"
               "  then the groups are the runs of equal keys in input order).\n");
}

static const cli_opt_t opts[] = {{"-o|--output", "KEYS_OUT", &o_out}, {"--values-out", "OUT", &o_vout},
                                 {"--op", "OP", &o_op},               {"--sorted", NULL, &o_sorted},
                                 {"--dtype", "T", &o_dtype},          {NULL, NULL, NULL}};
static const cli_spec_t spec = {"groupby", COMMON_DEVICE | COMMON_JSON | COMMON_CSV, NULL, opts, 2, usage};

static int cmd_groupby(int argc, char **argv)
{
    static const char verb[] = "groupby";
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0, 0};
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (npos < 2 || !o_out || !o_vout || !o_op) {
        fprintf(stderr, "gpuprim groupby: %s\n", npos < 2 ? "needs KEYS and VALUES" : !o_op ? "--op OP is required"
                                                                                    : "-o and --values-out are required");
        usage(stderr);
        return EXIT_USAGE;
    }
    gp_reduce_op_t op;
    if (gp_reduce_op_parse(o_op, &op) != GP_OK) return bad_value(verb, "--op", "sum prod min max and or xor count_nonzero", o_op);
    if (strcmp(o_out, "-") != 0 && out_same_target(o_vout, o_out)) {
        fprintf(stderr, "gpuprim groupby: -o and --values-out name the same file\n");
        return EXIT_USAGE;
    }
    if (out_same_target(o_vout, pos[0]) || out_same_target(o_vout, pos[1])) {
        fprintf(stderr, "gpuprim groupby: %s is also an input (write elsewhere)\n", o_vout);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    static const char *const names[2] = {"KEYS", "VALUES"};
    input_t in[2];
    int rc = held_pair_open(verb, names, pos, o_out, o_dtype, 0, in);
    if (rc != EXIT_OK) return rc;
    gather_t g[2];
    memset(g, 0, sizeof g);
    gp_buffer_t sk = {0}, sv = {0}, ko = {0}, vo = {0};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    const gp_dtype_t kt = in[0].d.dtype, vt = in[1].d.dtype, at = gp_reduce_acc_dtype(op, vt);
    const size_t ks = in[0].d.elem_size, vs = in[1].d.elem_size;
    if (in[0].d.ndim > 1 || in[1].d.ndim > 1) {
        const int w = in[0].d.ndim > 1 ? 0 : 1;
        fprintf(stderr, "gpuprim groupby: %s is %d-d: keys and values are 1-D\n", pos[w], in[w].d.ndim);
        rc = EXIT_USAGE;
        goto out;
    }
    if (at == GP_DTYPE_COUNT) {
        fprintf(stderr, "gpuprim groupby: --op %s does not reduce %s values\n", o_op, gp_dtype_name(vt));
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = held_pair_gather(verb, c.device, in, &p, &ctx, g, t0)) != EXIT_OK) goto out;
    const size_t n = g[0].have;
    if (g[1].have != n) {
        fprintf(stderr, "gpuprim groupby: KEYS %s has %zu elements, VALUES %s %zu\n", pos[0], n, pos[1], g[1].have);
        rc = EXIT_USAGE;
        goto out;
    }
    const double t_run = now_seconds();
    const gp_mem_kind_t kind = held_kind(ctx);
    const size_t as = gp_dtype_size(at);
    size_t runs = 0;
    gp_status_t st = GP_OK;
    if (n) {
        const void *k = buf_at(ctx, &g[0].buf), *v = buf_at(ctx, &g[1].buf);
        if (!o_sorted) {
            st = gp_mem_alloc(ctx, kind, n * ks, &sk);
            if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * vs, &sv);
            if (st == GP_OK)
                st = gp_sort_pairs_sync(ctx, kt, n, k, buf_at(ctx, &sk), vs, v, buf_at(ctx, &sv), NULL);
            k = buf_at(ctx, &sk), v = buf_at(ctx, &sv);
        }
        if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * ks, &ko);
        if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * as, &vo);
        if (st == GP_OK)
            st = gp_reduce_by_key_sync(ctx, op, kt, n, k, vt, v, buf_at(ctx, &ko), buf_at(ctx, &vo), &runs);
    }
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim groupby: %s\n", gp_last_error());
        rc = st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t kl = in[0].d, vl = in[1].d;
        kl.ndim = vl.ndim = 1, kl.shape[0] = vl.shape[0] = runs, kl.count = vl.count = runs;
        vl.dtype = at, vl.elem_size = as, vl.bool_values = 0;
        if ((rc = held_write_pair(verb, ctx, o_out, &kl, buf_at(ctx, &ko), runs, ks, o_vout, &vl, buf_at(ctx, &vo), runs,
                                  as)) != EXIT_OK)
            goto out;
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "op", 0, "%s", gp_reduce_op_name(op));
        rec_add(&r, "keys", 0, "%s", gp_dtype_name(kt));
        rec_add(&r, "values", 0, "%s", gp_dtype_name(vt));
        rec_add(&r, "elements", 1, "%zu", n);
        rec_add(&r, "groups", 1, "%zu", runs);
        rec_add(&r, "groupby_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "groupby: {op} of {elements} {values} values into {groups} groups of {keys} keys  "
                            "({groupby_seconds:%.3f} s, {seconds:%.3f} s end to end; {device})\n",
                 summary_stream(o_out));
    }
out:
    if (ctx)
        gp_mem_free(ctx, &sk), gp_mem_free(ctx, &sv), gp_mem_free(ctx, &ko), gp_mem_free(ctx, &vo),
            gp_mem_free(ctx, &g[0].buf), gp_mem_free(ctx, &g[1].buf);
    pipe_close(&p);
    input_close(&in[1]);
    input_close(&in[0]);
    return rc;
}

const verb_t verb_groupby = {"groupby", "KEYS VALUES --op OP -o KEYS_OUT --values-out OUT",
                             "values reduced per distinct key (sorted first unless --sorted)", &spec, cmd_groupby, NULL};
