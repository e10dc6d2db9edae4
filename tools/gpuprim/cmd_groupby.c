/*
 * cmd_groupby.c — `gpuprim groupby KEYS VALUES --op OP -o KEYS_OUT --values-out OUT [--sorted] [--equal-nan no]`: the
 * values reduced per distinct key. The keys are sorted first (stably, the values moving with them: gp_sort_pairs)
 * unless --sorted says they already are, then gp_reduce_by_key_sync reduces each run of equal keys. KEYS_OUT holds
 * each group's key in sorted order: np.unique(KEYS)'s, every NaN key one group (the sorted keys' NaN tail, found by
 * gp_searchsorted, reduced as one segment; --equal-nan no: each NaN its own group, as NumPy's == has it). OUT is in
 * NumPy's dtype for the op: min / max / and / or / xor keep the values' dtype, count_nonzero and count are int64,
 * sums and products widen integers as np.sum does (int64 / uint64) and keep float dtypes (float16 rounded once from
 * the float32 accumulation), mean is np.mean's (float64 for integers). Both inputs 1-D of the same length, held in
 * memory (device memory on a GPU); the outputs written whole or not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct groupby_opts {
    const char *out, *vout, *op, *sorted, *dtype, *eqnan;
} groupby_opts_t;
#define AT(m) OPT_AT(groupby_opts_t, m)

static const cli_opt_t opts[] = {
    {"--op", OPT_WORD, "OP", AT(op), "the reduction of each group's values", NULL, NULL,
     "sum prod min max and or xor count_nonzero count mean"},
    {"-o|--output", OPT_FILE, "KEYS_OUT", AT(out), "each group's key, in sorted order (.npy or raw)", NULL, NULL, NULL},
    {"--values-out", OPT_FILE, "OUT", AT(vout), "each group's reduced values, in NumPy's dtype for OP", NULL, NULL,
     NULL},
    {"--sorted", OPT_FLAG, NULL, AT(sorted), "KEYS are sorted already: no sort, the groups are the runs of equal keys",
     NULL, NULL, NULL},
    {"--equal-nan", OPT_WORD, "yes|no", AT(eqnan), "every NaN key one group (no: each NaN its own, as NumPy's ==)",
     "yes", NULL, YES_NO_WORDS},
    {"--dtype", OPT_DTYPE, "T", AT(dtype), "raw inputs' dtype (a .npy's header must agree)", NULL, NULL, NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec = {
    "groupby", COMMON_DATA, NULL, opts, 2, "KEYS VALUES --op OP -o KEYS_OUT --values-out OUT [options]",
    "OUT[g] = OP over the VALUES whose key is KEYS_OUT[g], the groups in NumPy's sorted key order (np.unique(KEYS)).\n"
    "OUT's dtype is NumPy's for OP: min / max / and / or / xor keep the values' dtype; sums and products of integers\n"
    "are int64 / uint64 as np.sum's; count and count_nonzero int64; mean float64 for integers, else the values'.\n"
    "KEYS and VALUES: 1-D of one length (.npy, or raw with --dtype; one may be -).",
    NULL};

static int is_float(gp_dtype_t t) { return t == GP_F16 || t == GP_BF16 || t == GP_F32 || t == GP_F64; }

/* Runs of equal keys reduced: (keys_out, out, *runs) as gp_reduce_by_key_sync, except that with one_nan the sorted
 * keys' NaN tail [f, n) is one group (its first key, its values reduced as one segment: the same bits as a run). */
static gp_status_t reduce_groups(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t kt, size_t n, const void *k,
                                 gp_dtype_t vt, const void *v, void *ko, void *vo, size_t *runs, int one_nan)
{
    const size_t ks = gp_dtype_size(kt), as = gp_dtype_size(gp_reduce_acc_dtype(op, vt));
    size_t f = n;
    gp_status_t st = GP_OK;
    if (one_nan && is_float(kt) && n) { /* where the NaNs begin: a search for NaN in the sorted keys */
        gp_buffer_t q = {0};
        const uint64_t nan_bits = kt == GP_F64 ? 0x7ff8000000000000ull : kt == GP_F32 ? 0x7fc00000ull
                                  : kt == GP_BF16                    ? 0x7fc0ull
                                                                     : 0x7e00ull;
        uint64_t at = n;
        st = gp_mem_alloc(ctx, held_kind(ctx), 16, &q);
        if (st == GP_OK) st = gp_memcpy_sync(ctx, buf_at(ctx, &q), &nan_bits, ks);
        if (st == GP_OK)
            st = gp_searchsorted_sync(ctx, kt, n, k, 1, buf_at(ctx, &q), 0, GP_U64, (char *)buf_at(ctx, &q) + 8);
        if (st == GP_OK) st = gp_memcpy_sync(ctx, &at, (char *)buf_at(ctx, &q) + 8, 8);
        gp_mem_free(ctx, &q);
        f = (size_t)at;
    }
    if (st != GP_OK) return st;
    *runs = 0;
    if (f) st = gp_reduce_by_key_sync(ctx, op, kt, f, k, vt, v, ko, vo, runs);
    if (st == GP_OK && f < n) { /* the NaN group: its first key, its values as one segment */
        const int64_t off[2] = {(int64_t)f, (int64_t)n};
        gp_buffer_t ob = {0};
        st = gp_mem_alloc(ctx, held_kind(ctx), sizeof off, &ob);
        if (st == GP_OK) st = gp_memcpy_sync(ctx, buf_at(ctx, &ob), off, sizeof off);
        if (st == GP_OK)
            st = gp_memcpy_sync(ctx, (char *)ko + *runs * ks, (const char *)k + f * ks, ks);
        if (st == GP_OK)
            st = gp_reduce_segmented(ctx, op, vt, n, v, 1, buf_at(ctx, &ob), (char *)vo + *runs * as, NULL);
        if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
        gp_mem_free(ctx, &ob);
        if (st == GP_OK) ++*runs;
    }
    return st;
}

/* One accumulator value (its dtype at) as a double / int64 / uint64, and stored as dtype t (NumPy's result). */
static void store_as(gp_dtype_t t, void *dst, gp_dtype_t at, const void *src)
{
    double d = 0;
    int64_t i = 0;
    uint64_t u = 0;
    if (at == GP_F32) {
        float x;
        memcpy(&x, src, 4);
        d = x;
    } else if (at == GP_F64) {
        memcpy(&d, src, 8);
    } else if (at == GP_I64) {
        memcpy(&i, src, 8);
        d = (double)i, u = (uint64_t)i;
    } else {
        memcpy(&u, src, 8);
        d = (double)u, i = (int64_t)u;
    }
    const int fl = at == GP_F32 || at == GP_F64;
    switch (t) {
    case GP_U8: { const uint8_t v = fl ? (uint8_t)d : (uint8_t)u; memcpy(dst, &v, 1); break; }
    case GP_I8: { const int8_t v = fl ? (int8_t)d : (int8_t)i; memcpy(dst, &v, 1); break; }
    case GP_U16: { const uint16_t v = fl ? (uint16_t)d : (uint16_t)u; memcpy(dst, &v, 2); break; }
    case GP_I16: { const int16_t v = fl ? (int16_t)d : (int16_t)i; memcpy(dst, &v, 2); break; }
    case GP_U32: { const uint32_t v = fl ? (uint32_t)d : (uint32_t)u; memcpy(dst, &v, 4); break; }
    case GP_I32: { const int32_t v = fl ? (int32_t)d : (int32_t)i; memcpy(dst, &v, 4); break; }
    case GP_U64: memcpy(dst, &u, 8); break;
    case GP_I64: memcpy(dst, &i, 8); break;
    case GP_F16: { const uint16_t v = gp_f32_to_f16((float)d); memcpy(dst, &v, 2); break; }
    case GP_BF16: { const uint16_t v = gp_f32_to_bf16((float)d); memcpy(dst, &v, 2); break; }
    case GP_F32: { const float v = (float)d; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &d, 8); break;
    }
}

static int cmd_groupby(int argc, char **argv)
{
    static const char verb[] = "groupby";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    groupby_opts_t opt;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &opt, pos, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (npos < 2 || !opt.out || !opt.vout || !opt.op) {
        fprintf(stderr, "gpuprim groupby: %s\n", npos < 2 ? "needs KEYS and VALUES" : !opt.op ? "--op OP is required"
                                                                                    : "-o and --values-out are required");
        cli_usage(&spec, stderr);
        return EXIT_USAGE;
    }
    gp_reduce_op_t op = GP_REDUCE_SUM;
    const int mean = strcmp(opt.op, "mean") == 0, count = strcmp(opt.op, "count") == 0;
    if (!mean && !count && gp_reduce_op_parse(opt.op, &op) != GP_OK) return bad_value(verb, "--op", "an op", opt.op);
    const int one_nan = opt_yes(opt.eqnan, 1);
    if (strcmp(opt.out, "-") != 0 && out_same_target(opt.vout, opt.out)) {
        fprintf(stderr, "gpuprim groupby: -o and --values-out name the same file\n");
        return EXIT_USAGE;
    }
    if (out_same_target(opt.vout, pos[0]) || out_same_target(opt.vout, pos[1])) {
        fprintf(stderr, "gpuprim groupby: %s is also an input (write elsewhere)\n", opt.vout);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    static const char *const names[2] = {"KEYS", "VALUES"};
    input_t in[2];
    int rc = held_pair_open(verb, names, pos, opt.out, opt.dtype, 0, in);
    if (rc != EXIT_OK) return rc;
    gather_t g[2];
    memset(g, 0, sizeof g);
    gp_buffer_t sk = {0}, sv = {0}, ko = {0}, vo = {0}, ones = {0}, co = {0};
    unsigned char *hv = NULL, *hc = NULL, *hr = NULL;
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    const gp_dtype_t kt = in[0].d.dtype, vt = in[1].d.dtype, at = gp_reduce_acc_dtype(op, vt);
    /* NumPy's result dtype: the values' for min / max / and / or / xor; int64 / uint64 sums and products of integers
     * (np.sum's), the float dtype itself for floats; int64 counts; np.mean's */
    const int vint = !is_float(vt), vsigned = vt == GP_I8 || vt == GP_I16 || vt == GP_I32 || vt == GP_I64;
    const gp_dtype_t rt = count || op == GP_REDUCE_COUNT_NONZERO ? GP_I64
                          : mean                                 ? (vint ? GP_F64 : vt)
                          : op == GP_REDUCE_SUM || op == GP_REDUCE_PROD ? (vint ? (vsigned ? GP_I64 : GP_U64) : vt)
                                                                        : vt;
    const size_t ks = in[0].d.elem_size, vs = in[1].d.elem_size;
    if (in[0].d.ndim > 1 || in[1].d.ndim > 1) {
        const int w = in[0].d.ndim > 1 ? 0 : 1;
        fprintf(stderr, "gpuprim groupby: %s is %d-d: keys and values are 1-D\n", pos[w], in[w].d.ndim);
        rc = EXIT_USAGE;
        goto out;
    }
    if (at == GP_DTYPE_COUNT) {
        fprintf(stderr, "gpuprim groupby: --op %s does not reduce %s values\n", opt.op, gp_dtype_name(vt));
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
    const size_t as = gp_dtype_size(at), rs = gp_dtype_size(rt);
    size_t runs = 0;
    gp_status_t st = GP_OK;
    if (n) {
        const void *k = buf_at(ctx, &g[0].buf), *v = buf_at(ctx, &g[1].buf);
        if (!opt.sorted) {
            st = gp_mem_alloc(ctx, kind, n * ks, &sk);
            if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * vs, &sv);
            if (st == GP_OK)
                st = gp_sort_pairs_sync(ctx, kt, n, k, buf_at(ctx, &sk), vs, v, buf_at(ctx, &sv), NULL);
            k = buf_at(ctx, &sk), v = buf_at(ctx, &sv);
        }
        if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * ks, &ko);
        if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * as, &vo);
        if (st == GP_OK && !count)
            st = reduce_groups(ctx, op, kt, n, k, vt, v, buf_at(ctx, &ko), buf_at(ctx, &vo), &runs, one_nan);
        if (st == GP_OK && (count || mean)) { /* each group's size: a sum of ones over the same groups */
            size_t r2 = 0;
            st = gp_mem_alloc(ctx, kind, n, &ones);
            if (st == GP_OK) st = gp_memset(ctx, buf_at(ctx, &ones), 1, n, NULL);
            if (st == GP_OK) st = gp_mem_alloc(ctx, kind, n * 8, &co);
            if (st == GP_OK)
                st = reduce_groups(ctx, GP_REDUCE_SUM, kt, n, k, GP_U8, buf_at(ctx, &ones), buf_at(ctx, &ko),
                                   buf_at(ctx, &co), &r2, one_nan);
            if (count) runs = r2;
        }
    }
    /* the results in NumPy's dtype, made on the host (the outputs are written through it anyway) */
    if (st == GP_OK && runs) {
        hv = count ? NULL : malloc(runs * as), hc = (count || mean) ? malloc(runs * 8) : NULL, hr = malloc(runs * rs);
        if ((!count && !hv) || ((count || mean) && !hc) || !hr) st = GP_ERR_OUT_OF_MEMORY;
        if (st == GP_OK && hv) st = gp_memcpy_sync(ctx, hv, buf_at(ctx, &vo), runs * as);
        if (st == GP_OK && hc) st = gp_memcpy_sync(ctx, hc, buf_at(ctx, &co), runs * 8);
        for (size_t r = 0; st == GP_OK && r < runs; r++) {
            if (count) {
                memcpy(hr + r * 8, hc + r * 8, 8);
            } else if (mean) {
                uint64_t c;
                memcpy(&c, hc + r * 8, 8);
                double sum;
                if (at == GP_F32) {
                    float f32;
                    memcpy(&f32, hv + r * as, 4);
                    const float m = f32 / (float)c; /* np.mean of float32 divides in float32 */
                    store_as(rt, hr + r * rs, GP_F32, &m);
                    continue;
                }
                if (at == GP_F64) memcpy(&sum, hv + r * as, 8);
                else if (at == GP_I64) {
                    int64_t i;
                    memcpy(&i, hv + r * as, 8);
                    sum = (double)i;
                } else {
                    uint64_t u;
                    memcpy(&u, hv + r * as, 8);
                    sum = (double)u;
                }
                const double m = sum / (double)c;
                store_as(rt, hr + r * rs, GP_F64, &m);
            } else {
                store_as(rt, hr + r * rs, at, hv + r * as);
            }
        }
    }
    const double run_secs = now_seconds() - t_run;
    {
        gp_array_desc_t kl = in[0].d, vl = in[1].d;
        kl.ndim = vl.ndim = 1, kl.shape[0] = vl.shape[0] = runs, kl.count = vl.count = runs;
        vl.dtype = rt, vl.elem_size = rs;
        vl.bool_values = vl.bool_values && rt == vt;
        /* the values written from the host copy (a CPU context's pointer is host memory too) */
        gp_ctx_t *hctx = NULL;
        if (gp_ctx_create(&hctx, GP_DEVICE_CPU) != GP_OK) {
            fprintf(stderr, "gpuprim groupby: %s\n", gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
        unsigned char *hk = runs ? malloc(runs * ks) : NULL;
        if (runs && (!hk || gp_memcpy_sync(ctx, hk, buf_at(ctx, &ko), runs * ks) != GP_OK)) rc = EXIT_FAIL;
        if (rc == EXIT_OK)
            rc = held_write_pair(verb, hctx, opt.out, &kl, hk, runs, ks, opt.vout, &vl, hr, runs, rs);
        free(hk);
        gp_ctx_destroy(hctx);
        if (rc != EXIT_OK) goto out;
    }
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "verb", 0, "%s", verb);
        rec_add(&r, "op", 0, "%s", mean ? "mean" : count ? "count" : gp_reduce_op_name(op));
        rec_add(&r, "keys", 0, "%s", gp_dtype_name(kt));
        rec_add(&r, "values", 0, "%s", gp_dtype_name(vt));
        rec_add(&r, "elements", 1, "%zu", n);
        rec_add(&r, "groups", 1, "%zu", runs);
        rec_add(&r, "groupby_seconds", 1, "%.6f", run_secs);
        rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
        rec_add(&r, "device", 0, "%s", desc);
        rec_emit(&r, c.fmt, "groupby: {op} of {elements} {values} values into {groups} groups of {keys} keys  "
                            "({groupby_seconds:%.3f} s, {seconds:%.3f} s end to end; {device})\n",
                 summary_stream(opt.out));
    }
out:
    if (ctx)
        gp_mem_free(ctx, &sk), gp_mem_free(ctx, &sv), gp_mem_free(ctx, &ko), gp_mem_free(ctx, &vo),
            gp_mem_free(ctx, &ones), gp_mem_free(ctx, &co), gp_mem_free(ctx, &g[0].buf), gp_mem_free(ctx, &g[1].buf);
    free(hv), free(hc), free(hr);
    pipe_close(&p);
    input_close(&in[1]);
    input_close(&in[0]);
    return rc;
}

const verb_t verb_groupby = {"groupby", "KEYS VALUES --op OP -o KEYS_OUT --values-out OUT",
                             "values reduced per distinct key (sorted first unless --sorted)", &spec, cmd_groupby, NULL};
