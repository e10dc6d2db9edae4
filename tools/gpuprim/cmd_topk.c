/*
 * cmd_topk.c — `gpuprim topk IN -k K -o VALUES [--indices IDX] [--largest] [--rows R]`: the k smallest (or largest)
 * along the last axis, as torch.topk(x, k, largest, sorted=True) with ties to the lower index — the first k of NumPy's
 * stable sort / argsort of each row (largest: NaN first) — by gp_topk. The input is held in memory (device memory on a
 * GPU); VALUES keeps the input's dtype and leading dimensions with k last, IDX int64 the same shape; written whole or
 * not at all. A 1-D input is one row; --rows R splits a raw or 1-D input into R rows. One row with k up to a quarter
 * of a chunk streams instead (any length, standard input too): each chunk's k by gp_topk on the pipe's lane, merged on
 * the host into the k so far by gp_merge (the stable merge keeps the earlier positions first among equal keys, so the
 * k are the row's first k of its stable sort).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

/* The one-row stage: per chunk its k (gp_topk on the lane's context), their positions made the row's, merged into the
 * k so far (host memory, gp_merge on the CPU backend; a buffer for the merge's output beside the current one). */
typedef struct topstage {
    gp_dtype_t dtype;
    size_t es, k, have, elements;
    int largest;
    gp_ctx_t *cpu, *ctx[2];
    gp_buffer_t dv[2], dp[2]; /* a chunk's k values and positions, the lane's memory */
    gp_buffer_t hv[2], hp[2]; /* a GPU lane's: their pinned copies */
    unsigned char *cv[2];     /* the k so far and the merge's output: values, positions (2k each) */
    uint64_t *cp[2];
    int cur;
} topstage_t;

static gp_status_t top_bind(void *s, int lane, gp_ctx_t *ctx)
{
    topstage_t *j = s;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    const gp_mem_kind_t kind = gpu ? GP_MEM_DEVICE : GP_MEM_PAGEABLE;
    gp_status_t st;
    j->ctx[lane] = ctx;
    if ((st = gp_mem_alloc(ctx, kind, j->k * j->es, &j->dv[lane])) != GP_OK ||
        (st = gp_mem_alloc(ctx, kind, j->k * 8, &j->dp[lane])) != GP_OK)
        return st;
    if (gpu && ((st = gp_mem_alloc(ctx, GP_MEM_PINNED, j->k * j->es, &j->hv[lane])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_PINNED, j->k * 8, &j->hp[lane])) != GP_OK))
        return st;
    return GP_OK;
}

static gp_status_t top_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t st_)
{
    topstage_t *j = s;
    gp_ctx_t *ctx = j->ctx[lane];
    const size_t kk = n < j->k ? n : j->k;
    j->elements += n;
    if (kk == 0) return GP_OK;
    gp_status_t st;
    const unsigned char *v;
    uint64_t *pos;
    if (j->hv[lane].host) { /* a GPU lane: the chunk's k to the host */
        if ((st = gp_topk(ctx, j->dtype, 1, n, x, kk, j->largest, j->dv[lane].device, GP_I64, j->dp[lane].device,
                          st_)) != GP_OK ||
            (st = gp_memcpy(ctx, j->hv[lane].host, j->dv[lane].device, kk * j->es, st_)) != GP_OK ||
            (st = gp_memcpy(ctx, j->hp[lane].host, j->dp[lane].device, kk * 8, st_)) != GP_OK ||
            (st = gp_stream_sync(ctx, st_)) != GP_OK)
            return st;
        v = j->hv[lane].host, pos = j->hp[lane].host;
    } else {
        if ((st = gp_topk_sync(ctx, j->dtype, 1, n, x, kk, j->largest, j->dv[lane].host, GP_I64, j->dp[lane].host)) !=
            GP_OK)
            return st;
        v = j->dv[lane].host, pos = j->dp[lane].host;
    }
    for (size_t i = 0; i < kk; i++) pos[i] += first;
    const int o = j->cur ^ 1;
    if ((st = gp_merge_sync(j->cpu, j->dtype, j->have, j->cv[j->cur], kk, v, j->cv[o], 8, j->cp[j->cur], pos, j->cp[o],
                            j->largest)) != GP_OK)
        return st;
    j->cur = o;
    j->have = j->have + kk < j->k ? j->have + kk : j->k;
    return GP_OK;
}

static void top_unbind(void *s, int lane)
{
    topstage_t *j = s;
    gp_ctx_t *ctx = j->ctx[lane];
    if (!ctx) return;
    gp_mem_free(ctx, &j->dv[lane]), gp_mem_free(ctx, &j->dp[lane]);
    gp_mem_free(ctx, &j->hv[lane]), gp_mem_free(ctx, &j->hp[lane]);
    j->ctx[lane] = NULL;
}

static const stage_ops_t topstage_ops = {top_bind, NULL, top_push, NULL, top_unbind, CHUNK_BYTES, 0, NULL};

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

/* The outputs asked for, whole or not at all, from ctx's memory: m values (like: their dtype and shape) at v and m
 * int64 positions of the same shape at ix. EXIT_OK, or the exit code after printing why. */
static int write_outputs(gp_ctx_t *ctx, const topk_opts_t *opt, const gp_array_desc_t *like, const void *v,
                         const void *ix, size_t m)
{
    gp_array_desc_t il = *like;
    il.dtype = GP_I64, il.bool_values = 0, il.elem_size = 8;
    if (!opt->idx) return held_write("topk", ctx, opt->out, like, v, m, like->elem_size);
    if (!opt->out) return held_write("topk", ctx, opt->idx, &il, ix, m, 8); /* the positions alone */
    return held_write_pair("topk", ctx, opt->out, like, v, m, like->elem_size, opt->idx, &il, ix, m, 8);
}

/* the one-line summary (or --json / --csv record) of a run */
static void summary(const cli_common_t *c, gp_ctx_t *ctx, const topk_opts_t *opt, gp_dtype_t dt, size_t rows, size_t n,
                    size_t k, double run_secs, double t0)
{
    char desc[512];
    describe_device(ctx, desc, sizeof desc);
    record_t r = {0};
    rec_add(&r, "verb", 0, "%s", "topk");
    rec_add(&r, "dtype", 0, "%s", gp_dtype_name(dt));
    rec_add(&r, "rows", 1, "%zu", rows);
    rec_add(&r, "n", 1, "%zu", n);
    rec_add(&r, "k", 1, "%zu", k);
    rec_add(&r, "order", 0, "%s", opt->largest ? "largest" : "smallest");
    rec_add(&r, "topk_seconds", 1, "%.6f", run_secs);
    rec_add(&r, "seconds", 1, "%.6f", now_seconds() - t0);
    rec_add(&r, "device", 0, "%s", desc);
    rec_emit(&r, c->fmt, "topk: the {k} {order} of {rows} x {n} {dtype}  ({topk_seconds:%.3f} s selecting, "
                         "{seconds:%.3f} s end to end; {device})\n", summary_stream(opt->out ? opt->out : opt->idx));
}

/* One row streamed through topstage: EXIT_OK, or the exit code after printing why (nothing written then). */
static int run_stream(const cli_common_t *c, input_t *in, const topk_opts_t *opt, size_t k, double t0)
{
    static const char verb[] = "topk";
    topstage_t j;
    memset(&j, 0, sizeof j);
    j.dtype = in->d.dtype, j.es = in->d.elem_size, j.k = k, j.largest = opt->largest != NULL;
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    int rc = EXIT_OK;
    if (gp_ctx_create(&j.cpu, GP_DEVICE_CPU) != GP_OK) {
        fprintf(stderr, "gpuprim topk: %s\n", gp_last_error());
        return EXIT_FAIL;
    }
    for (int b = 0; b < 2; b++)
        if (!(j.cv[b] = malloc(2 * k * j.es + 1)) || !(j.cp[b] = malloc(2 * k * 8 + 8))) {
            fprintf(stderr, "gpuprim topk: no memory for 2 x %zu candidates\n", k);
            rc = EXIT_FAIL;
            goto out;
        }
    {
        const work_t w = {WORK_SCAN, input_bytes(in), 0, 0};
        if ((rc = pipe_open(&pp, verb, in, pick_device(verb, c->device, &w, 0), 1, t0)) != EXIT_OK) goto out;
    }
    const double t_run = now_seconds();
    int lane = LANE_MAIN;
    if ((rc = pipe_run(&pp, in, &topstage_ops, &j, &lane)) != EXIT_OK) goto out;
    const double run_secs = now_seconds() - t_run;
    if (k > j.elements) {
        fprintf(stderr, "gpuprim topk: -k %zu is more than the row's %zu elements\n", k, j.elements);
        rc = EXIT_USAGE;
        goto out;
    }
    {
        gp_array_desc_t like = in->d;
        like.ndim = 1, like.shape[0] = k, like.count = k;
        if ((rc = write_outputs(j.cpu, opt, &like, j.cv[j.cur], j.cp[j.cur], k)) != EXIT_OK) goto out;
    }
    summary(c, pipe_lane_ctx(&pp, lane), opt, j.dtype, 1, j.elements, k, run_secs, t0);
out:
    stage_end(&topstage_ops, &j);
    pipe_close(&pp);
    for (int b = 0; b < 2; b++) free(j.cv[b]), free(j.cp[b]);
    gp_ctx_destroy(j.cpu);
    return rc;
}

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
    if (in.d.ndim <= 1 && !opt.rows && k <= CHUNK_BYTES / in.d.elem_size / 4) { /* one row: streamed */
        rc = run_stream(&c, &in, &opt, k, t0);
        goto out;
    }
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
        if ((rc = write_outputs(ctx, &opt, &like, buf_at(ctx, &ob), buf_at(ctx, &oi), rows * k)) != EXIT_OK) goto out;
    }
    summary(&c, ctx, &opt, in.d.dtype, rows, n, k, run_secs, t0);
out:
    if (ctx) gp_mem_free(ctx, &ob), gp_mem_free(ctx, &oi), gp_mem_free(ctx, &g.buf);
    pipe_close(&p);
    input_close(&in);
    return rc;
}

const verb_t verb_topk = {"topk", "IN -k K -o VALUES", "the k smallest or largest of each row with their positions (torch.topk, ties to the lower index)",
                          &spec, cmd_topk, NULL};
