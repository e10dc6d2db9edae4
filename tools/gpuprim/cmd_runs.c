/*
 * cmd_runs.c — `gpuprim unique FILE|- -o OUT [--index I] [--inverse V] [--counts C]`: np.unique with its optional
 * outputs by gp_unique_sorted_sync, the input held in memory (device memory on a GPU); and, streamed chunk by chunk,
 * `gpuprim unique --consecutive` and `gpuprim rle FILE|- -o VALUES --lengths LENGTHS` (each with [--dtype T]
 * [--offset B] [--count N] [-d cpu|ID] [--json|--csv]): consecutive duplicates removed, or runs of equal consecutive
 * elements (their first element and their length, u64), through gp_unique / gp_run_length_encode (any size). A run
 * that crosses a chunk edge is joined: the last input element of each chunk is kept, and the next chunk's first run
 * merges with the last one held back. Consecutive equality is by value (floats as numbers: NaN equals nothing,
 * -0 == +0), as in the library; np.unique's is the sort's (every NaN one key). Outputs .npy or raw, written whole or
 * not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

typedef struct runjob {
    gp_ctx_t *ctx;
    gp_dtype_t dtype;
    int rle, gpu;
    size_t es, cap;
    void *dout;         /* GPU: a chunk's values */
    uint64_t *dlen;     /* GPU: its lengths (rle) */
    uint64_t *dcnt;     /* GPU: its count */
    void *hout;         /* host copies (pinned on a GPU) */
    uint64_t *hlen, *hcnt;
    arr_out_t *vout, *lout;
    gp_ctx_t *lctx[2];  /* each lane's context and buffers (bd bl bc bh bhl bhc), the fields above set from them */
    gp_buffer_t b[2][6];
    unsigned char prev[8]; /* the previous chunk's last input element */
    int have_prev;
    unsigned char pend[8]; /* rle: the last run, held back (its value and length) */
    uint64_t pend_len;
    size_t elements, runs;
} runjob_t;

/* a == b by value (the library's rule). */
static int same_value(gp_dtype_t dt, const void *a, const void *b)
{
    uint16_t h1, h2;
    switch (dt) {
    case GP_F16: memcpy(&h1, a, 2), memcpy(&h2, b, 2); return gp_f16_to_f32(h1) == gp_f16_to_f32(h2);
    case GP_BF16: memcpy(&h1, a, 2), memcpy(&h2, b, 2); return gp_bf16_to_f32(h1) == gp_bf16_to_f32(h2);
    case GP_F32: {
        float x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return x == y;
    }
    case GP_F64: {
        double x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return x == y;
    }
    default: return memcmp(a, b, gp_dtype_size(dt)) == 0;
    }
}

static gp_status_t runs_chunk(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    runjob_t *j = user;
    (void)first;
    if (n > j->cap) return GP_ERR_INTERNAL; /* the stream's chunks are at most CHUNK_BYTES */
    gp_status_t st;
    size_t k = 0;
    unsigned char last[8];
    if (j->gpu) {
        st = j->rle ? gp_run_length_encode(j->ctx, j->dtype, n, x, j->dout, j->dlen, j->dcnt, s)
                    : gp_unique(j->ctx, j->dtype, n, x, j->dout, j->dcnt, s);
        if (st != GP_OK) return st;
        if ((st = gp_memcpy(j->ctx, j->hcnt, j->dcnt, 8, s)) != GP_OK ||
            (st = gp_memcpy(j->ctx, last, (const char *)x + (n - 1) * j->es, j->es, s)) != GP_OK ||
            (st = gp_stream_sync(j->ctx, s)) != GP_OK)
            return st;
        k = (size_t)*j->hcnt;
        if ((st = gp_memcpy(j->ctx, j->hout, j->dout, k * j->es, s)) != GP_OK ||
            (j->rle && (st = gp_memcpy(j->ctx, j->hlen, j->dlen, k * 8, s)) != GP_OK) ||
            (st = gp_stream_sync(j->ctx, s)) != GP_OK)
            return st;
    } else {
        st = j->rle ? gp_run_length_encode_sync(j->ctx, j->dtype, n, x, j->hout, j->hlen, &k)
                    : gp_unique_sync(j->ctx, j->dtype, n, x, j->hout, &k);
        if (st != GP_OK) return st;
        memcpy(last, (const char *)x + (n - 1) * j->es, j->es);
    }
    /* the chunk's first run continues the previous chunk's last one? */
    const int joins = j->have_prev && k > 0 && same_value(j->dtype, j->prev, j->hout);
    size_t from = 0;
    if (!j->rle) {
        from = joins ? 1 : 0;
    } else {
        if (joins) j->pend_len += j->hlen[0], from = 1;
        if (k > from) { /* every run but the chunk's last is complete: the held one first, then those */
            if (j->pend_len && (arr_out_write(j->vout, j->pend, 1) != 0 || arr_out_write(j->lout, &j->pend_len, 1) != 0))
                return GP_ERR_IO;
            if (arr_out_write(j->vout, (char *)j->hout + from * j->es, k - 1 - from) != 0 ||
                arr_out_write(j->lout, j->hlen + from, k - 1 - from) != 0)
                return GP_ERR_IO;
            memcpy(j->pend, (char *)j->hout + (k - 1) * j->es, j->es);
            j->pend_len = j->hlen[k - 1];
        }
        from = k; /* nothing else to write now */
    }
    if (from < k && arr_out_write(j->vout, (char *)j->hout + from * j->es, k - from) != 0) return GP_ERR_IO;
    if (!j->rle) j->runs += k - from;
    memcpy(j->prev, last, j->es);
    j->have_prev = 1;
    j->elements += n;
    return GP_OK;
}

/* The stage: per lane its buffers; the runs' state (the previous element, the run held back) is on the host, so
 * nothing moves at the hand-over. */
enum { B_D, B_L, B_C, B_H, B_HL, B_HC };
static gp_status_t runs_bind(void *s, int lane, gp_ctx_t *ctx)
{
    runjob_t *j = s;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    const gp_mem_kind_t hk = gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE;
    gp_buffer_t *b = j->b[lane];
    gp_status_t st = GP_OK;
    j->lctx[lane] = ctx;
    if ((st = gp_mem_alloc(ctx, hk, j->cap * j->es, &b[B_H])) != GP_OK ||
        (j->rle && (st = gp_mem_alloc(ctx, hk, j->cap * 8, &b[B_HL])) != GP_OK))
        return st;
    if (gpu && ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, j->cap * j->es, &b[B_D])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &b[B_C])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_PINNED, 8, &b[B_HC])) != GP_OK ||
                (j->rle && (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, j->cap * 8, &b[B_L])) != GP_OK)))
        return st;
    return GP_OK;
}

static gp_status_t runs_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t st)
{
    runjob_t *j = s;
    gp_buffer_t *b = j->b[lane];
    j->ctx = j->lctx[lane], j->gpu = gp_ctx_device(j->ctx) != GP_DEVICE_CPU;
    j->dout = b[B_D].device, j->dlen = b[B_L].device, j->dcnt = b[B_C].device;
    j->hout = b[B_H].host, j->hlen = b[B_HL].host, j->hcnt = b[B_HC].host;
    return runs_chunk(j, x, n, first, st);
}

static void runs_unbind(void *s, int lane)
{
    runjob_t *j = s;
    if (!j->lctx[lane]) return;
    for (int k = 0; k < 6; k++) gp_mem_free(j->lctx[lane], &j->b[lane][k]);
    j->lctx[lane] = NULL;
}

static const stage_ops_t runs_ops = {runs_bind, NULL, runs_push, NULL, runs_unbind, CHUNK_BYTES, 3, NULL};

typedef struct runs_opts {
    const char *dtype, *offset, *count, *out, *len, *consec, *index, *inverse, *counts, *equal_nan;
} runs_opts_t;
#define AT(m) OPT_AT(runs_opts_t, m)
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
    INPUT_OPTIONS(runs_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_opt_t opts_r[] = {
    {"-o|--output", OPT_FILE, "VALUES", AT(out), "each run's value (.npy or raw; - for stdout)", NULL, NULL, NULL},
    {"--lengths", OPT_FILE, "LENGTHS", AT(len), "each run's length (u64)", NULL, NULL, NULL},
    INPUT_OPTIONS(runs_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_unique = {
    "unique", COMMON_DATA, NULL, opts_u, 1, "FILE|- -o OUT [--index I] [--inverse V] [--counts C] [options]",
    "np.unique: the distinct elements in sorted order (NaN last, every NaN one, -0 == +0), and as asked each one's\n"
    "first position, each element's place, the counts; written all or none. The input is held in memory.",
    NULL};
static const cli_spec_t spec_rle = {
    "rle", COMMON_DATA, NULL, opts_r, 1, "FILE|- -o VALUES --lengths LENGTHS [options]",
    "Run-length encoding: each run of equal consecutive elements as its value and its length, streamed (any size).",
    NULL};

/* np.unique: the input held, gp_unique_sorted_sync, up to four outputs written all or none */
static int unique_sorted(const char *path, cli_common_t *c, const runs_opts_t *opt)
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

static int runs_verb(int argc, char **argv, int rle)
{
    const char *verb = rle ? "rle" : "unique";
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    runs_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(rle ? &spec_rle : &spec_unique, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !opt.out || (rle && !opt.len)) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, !path ? "no input (FILE or -)" : !opt.out ? "-o OUT is required"
                                                                               : "--lengths LENGTHS is required");
        cli_usage(rle ? &spec_rle : &spec_unique, stderr);
        return EXIT_USAGE;
    }
    if (!rle && !opt.consec) return unique_sorted(path, &c, &opt);
    if (!rle && (opt.index || opt.inverse || opt.counts || opt.equal_nan)) {
        fprintf(stderr, "gpuprim unique: %s is np.unique's (without --consecutive); consecutive runs' lengths: "
                        "gpuprim rle\n", opt.index ? "--index" : opt.inverse ? "--inverse" : opt.counts ? "--counts"
                                                                                  : "--equal-nan");
        return EXIT_USAGE;
    }

    const double t0 = now_seconds();
    input_t in;
    if (rle && out_same_target(opt.out, opt.len)) {
        fprintf(stderr, "gpuprim rle: -o %s and --lengths %s name the same file: give two\n", opt.out, opt.len);
        return EXIT_USAGE;
    }
    int rc = input_open_opts(&in, verb, path, opt.dtype, opt.offset, opt.count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, verb)) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    runjob_t j;
    memset(&j, 0, sizeof j);
    gp_ctx_t *ctx = NULL;
    arr_out_t vo, lo;
    memset(&vo, 0, sizeof vo);
    memset(&lo, 0, sizeof lo);
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    gp_status_t st = GP_OK;
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c.device = pick_device(verb, c.device, &w, 0);
    }
    j.dtype = in.d.dtype, j.rle = rle;
    j.es = in.d.elem_size, j.cap = CHUNK_BYTES / j.es, j.vout = &vo, j.lout = &lo;
    {
        gp_array_desc_t like = in.d; /* 1-D, of x's dtype (bools stay bools) */
        like.ndim = 1;
        if ((rc = arr_out_open_like(&vo, verb, opt.out, &like)) != EXIT_OK) goto out;
    }
    if (rle && (rc = arr_out_open(&lo, verb, opt.len, GP_U64)) != EXIT_OK) goto out;
    if ((rc = pipe_open(&pp, verb, &in, c.device, 1, t0)) != EXIT_OK) goto out;
    pp.outs[0] = &vo, pp.outs[1] = rle ? &lo : NULL;
    int lane = LANE_MAIN;
    if ((rc = pipe_run(&pp, &in, &runs_ops, &j, &lane)) != EXIT_OK) goto out;
    ctx = pipe_lane_ctx(&pp, lane);
    if (st == GP_OK && rle && j.pend_len && /* the last run */
        (arr_out_write(&vo, j.pend, 1) != 0 || arr_out_write(&lo, &j.pend_len, 1) != 0))
        st = GP_ERR_IO;
    if (st != GP_OK) {
        rc = stream_failed(verb, path, st, &vo, rle ? &lo : NULL);
        goto out;
    }
    if (rle) j.runs = vo.count;
    if ((rc = rle ? arr_out_close_pair(&vo, &lo, verb) : arr_out_close(&vo, verb, 1)) != EXIT_OK) goto out;
    {
        const double secs = now_seconds() - t0,
                     bytes = (double)(j.elements + j.runs) * (double)j.es + (rle ? 8.0 * (double)j.runs : 0.0);
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(j.dtype));
        rec_add(&r, "elements", 1, "%zu", j.elements);
        rec_add(&r, rle ? "runs" : "kept", 1, "%zu", j.runs);
        rec_add_run(&r, secs, bytes, pp.head_elements, desc);
        rec_add(&r, "output", 0, "%s", opt.out);
        if (rle) rec_add(&r, "lengths", 0, "%s", opt.len);
        rec_emit(&r, c.fmt,
                 rle ? "rle: {elements} {dtype} elements -> {runs} runs -> {output}, {lengths}  ({seconds:%.3f} s, "
                       "{gbps:%.2f} GB/s read + written; {device})\n"
                     : "unique: {elements} {dtype} elements -> {kept} kept -> {output}  ({seconds:%.3f} s, {gbps:%.2f} "
                       "GB/s read + written; {device})\n",
                 summary_stream(opt.out));
    }
out:
    arr_out_close(&vo, verb, 0);
    arr_out_close(&lo, verb, 0);
    stage_end(&runs_ops, &j);
    pipe_close(&pp);
    input_close(&in);
    return rc;
}

static int cmd_unique(int argc, char **argv) { return runs_verb(argc, argv, 0); }
static int cmd_rle(int argc, char **argv) { return runs_verb(argc, argv, 1); }

const verb_t verb_unique = {"unique", "FILE|- -o OUT", "np.unique (sorted distinct, with index, inverse, counts); --consecutive: streamed",
                         &spec_unique, cmd_unique, NULL};

const verb_t verb_rle = {"rle", "FILE|- -o VALUES --lengths LENGTHS", "run-length encoding, streamed",
                         &spec_rle, cmd_rle, NULL};
