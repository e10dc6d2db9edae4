/*
 * cmd_scan.c — `gpuprim scan FILE|- --op OP [--exclusive] [--dtype T] [--acc T] [--offset B] [--count N] -o OUT
 * [-d cpu|ID] [--json|--csv]`, OP a scalar op or an ordered one (mat2 mat3 mat4 affine first last: tuples of values,
 * gp_scanner_create_ordered): the inclusive (or exclusive) scan of a .npy / raw file or standard input, streamed in chunks of
 * whole GP_SCAN_GRANULE tiles through a gp_scanner (any size: the carry passes from chunk to chunk, so the bits equal
 * one gp_scan over the whole array), each chunk's result copied back and appended to OUT. OUT ending in .npy is a
 * 1-D .npy of the output dtype (the input's, or the accumulator's with --acc: gp_scan_acc; its header reserved up front and rewritten with the count at the end, so standard
 * input of unknown length works), anything else raw elements; written whole or not at all. A progress bar on a
 * terminal after a second. Prints a one-line summary; --json / --csv: op, kind, dtype, elements, the last value,
 * seconds, GB/s (bytes read + written), device, output. --devices SPEC / --ranks env: the file held over a group of
 * GPUs (gp_group_scan: one device's bits), written by rank order (group_run.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "group_run.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

/* The scan stage: a gp_scanner per lane with its chunk buffers; the head's carry moves with gp_scanner_transfer (the
 * bits of one scan); each chunk's results are appended to the output in order, whichever lane made them. */
typedef struct sstage {
    gp_reduce_op_t op;
    gp_ordered_op_t ord; /* GP_ORDERED_OP_COUNT: a scalar op */
    gp_dtype_t dtype, acc;
    int use_acc;         /* gp_scanner_create_acc (acc GP_DTYPE_COUNT: the default) */
    gp_scan_kind_t kind;
    gp_scanner_t *sc[2];
    gp_ctx_t *ctx[2];
    gp_buffer_t bd[2], bh[2][2]; /* GPU: one chunk of results on the device; two on the host (pinned on a GPU), one
                                  * filled while the output's thread writes the other */
    unsigned flip[2];
    size_t es, os, w, cap;    /* input and output element sizes, values per element, elements per chunk */
    arr_out_t *out;
    size_t elements;
    int bad_tail;             /* the input ended inside an element */
    const char *path;
} sstage_t;

static gp_status_t make_scanner(const sstage_t *j, gp_ctx_t *ctx, gp_scanner_t **sc)
{
    return j->ord != GP_ORDERED_OP_COUNT ? gp_scanner_create_ordered(ctx, j->ord, j->dtype, j->kind, sc)
           : j->use_acc ? gp_scanner_create_acc(ctx, j->op, j->dtype, j->acc, j->kind, sc)
                        : gp_scanner_create(ctx, j->op, j->dtype, j->kind, sc);
}

static gp_status_t s_bind(void *s, int lane, gp_ctx_t *ctx)
{
    sstage_t *j = s;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    const size_t bytes = j->cap * j->w * j->os;
    gp_status_t st = make_scanner(j, ctx, &j->sc[lane]);
    j->ctx[lane] = ctx;
    if (st == GP_OK && gpu) st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &j->bd[lane]);
    for (int b = 0; b < 2 && st == GP_OK; b++)
        st = gp_mem_alloc(ctx, gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE, bytes, &j->bh[lane][b]);
    return st;
}

static size_t s_granule(void *s, int lane)
{
    (void)lane;
    return GP_SCAN_GRANULE * ((sstage_t *)s)->w;
}

/* One chunk: scanned from the carry of the chunks before, copied back, appended to the output. */
static gp_status_t s_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t stream)
{
    sstage_t *j = s;
    (void)first;
    if (n > j->cap * j->w) return GP_ERR_INTERNAL; /* the stream's chunks are at most the stage's chunk_bytes */
    if (n % j->w) {
        j->bad_tail = 1;
        return GP_ERR_INVALID_ARG;
    }
    const size_t vals = n;
    n /= j->w; /* elements */
    gp_status_t st;
    gp_ctx_t *ctx = j->ctx[lane];
    void *h = j->bh[lane][j->flip[lane]++ & 1].host;
    arr_out_release(j->out, h); /* its previous chunk written */
    if (j->bd[lane].device) {
        if ((st = gp_scanner_push(j->sc[lane], n, x, j->bd[lane].device, stream)) != GP_OK) return st;
        if ((st = gp_memcpy(ctx, h, j->bd[lane].device, vals * j->os, stream)) != GP_OK) return st;
        if ((st = gp_stream_sync(ctx, stream)) != GP_OK) return st;
    } else if ((st = gp_scanner_push(j->sc[lane], n, x, h, NULL)) != GP_OK) {
        return st;
    }
    if (arr_out_submit(j->out, h, vals) != 0) return GP_ERR_IO;
    j->elements += n;
    return GP_OK;
}

static gp_status_t s_handoff(void *s)
{
    sstage_t *j = s;
    return gp_scanner_transfer(j->sc[LANE_MAIN], j->sc[LANE_HEAD]);
}

static void s_unbind(void *s, int lane)
{
    sstage_t *j = s;
    gp_scanner_destroy(j->sc[lane]);
    if (j->ctx[lane])
        gp_mem_free(j->ctx[lane], &j->bd[lane]), gp_mem_free(j->ctx[lane], &j->bh[lane][0]),
            gp_mem_free(j->ctx[lane], &j->bh[lane][1]);
    j->sc[lane] = NULL, j->ctx[lane] = NULL;
}

/* an element cut by the input's end: said as such, nothing written */
static int s_explain(void *s, gp_status_t st)
{
    const sstage_t *j = s;
    (void)st;
    if (!j->bad_tail) return 0;
    fprintf(stderr, "gpuprim scan: %s: the input ends inside an element of %s (%zu values each; nothing written)\n",
            j->path, gp_ordered_op_name(j->ord), j->w);
    return 1;
}

static const stage_ops_t sstage_ops = {s_bind, s_granule, s_push, s_handoff, s_unbind, CHUNK_BYTES, 2, s_explain};

/* The run's one-record report (both paths: streamed on one device, held over a group) */
static void scan_report(out_format_t fmt, const char *op, gp_scan_kind_t kind, gp_dtype_t dtype, gp_dtype_t odt,
                        size_t elements, const char *total, double secs, double bytes, size_t head, const char *desc,
                        const char *output, const char *out_path)
{
    record_t r = {0};
    rec_add(&r, "op", 0, "%s", op);
    rec_add(&r, "kind", 0, "%s", kind ? "exclusive" : "inclusive");
    rec_add(&r, "dtype", 0, "%s", gp_dtype_name(dtype));
    rec_add(&r, "out_dtype", 0, "%s", gp_dtype_name(odt));
    rec_add(&r, "elements", 1, "%zu", elements);
    rec_add(&r, "total", 1, "%s", total);
    rec_add_run(&r, secs, bytes, head, desc);
    rec_add(&r, "output", 0, "%s", output);
    rec_emit(&r, fmt, "{op} scan ({kind}) of {elements} {dtype} elements -> {output} ({out_dtype}): total {total}  "
                      "({seconds:%.3f} s, {gbps:%.2f} GB/s read + written; {device})\n", summary_stream(out_path));
}

/* --devices / --ranks: the file split over the group's members (whole scan tiles), held in their memory, scanned by
 * gp_group_scan (one device's bits over the whole file) and written in rank order; the summary from rank 0 */
static int scan_group(const char *devices, const char *ranks, input_t *in, const sstage_t *j, gp_dtype_t odt,
                      const gp_array_desc_t *like, const char *out, out_format_t fmt, double t0)
{
    gp_group_t *g = NULL;
    int rc = ranks ? group_open_ranks("scan", ranks, &g) : group_open("scan", devices, &g);
    if (rc != EXIT_OK) return rc;
    group_data_t d;
    const size_t os = gp_dtype_size(odt);
    rc = group_data_load("scan", g, in, os, &d);
    char written[4096] = "";
    if (rc == EXIT_OK) {
        const gp_status_t st = gp_group_scan(g, j->op, j->dtype, j->use_acc ? j->acc : j->dtype, j->kind, d.counts,
                                             d.x, d.y);
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim scan: %s (nothing written)\n", gp_last_error());
            rc = EXIT_FAIL;
        }
    }
    if (rc == EXIT_OK) rc = group_data_write("scan", &d, out, like, os, written, sizeof written);
    if (rc == EXIT_OK && gp_group_rank(g, 0) == 0) {
        const double secs = now_seconds() - t0, bytes = (double)d.total * (double)(j->es + os);
        char desc[512], total[96] = "null";
        group_describe(g, desc, sizeof desc);
        for (int i = d.k - 1; i >= 0 && gp_group_local_count(g) == gp_group_size(g); i--) { /* the last value */
            if (!d.counts[i]) continue;
            unsigned char v[16];
            char *mj = NULL;
            size_t lm = 0;
            FILE *m = NULL;
            if (gp_memcpy_sync(gp_group_ctx(g, i), v, (const char *)d.y[i] + (d.counts[i] - 1) * os, os) == GP_OK &&
                (m = open_memstream(&mj, &lm)) != NULL) {
                print_elem(m, odt, v, 1);
                fclose(m);
                snprintf(total, sizeof total, "%s", mj);
            }
            free(mj);
            break;
        }
        scan_report(fmt, gp_reduce_op_name(j->op), j->kind, j->dtype, like->dtype, d.total, total, secs, bytes, 0, desc,
                    written, out);
    }
    group_data_free(&d);
    gp_group_destroy(g);
    return rc;
}

typedef struct scan_opts {
    const char *op, *excl, *dtype, *offset, *count, *out, *acc, *opsrc, *ident, *arity, *devices, *ranks;
} scan_opts_t;
#define AT(m) OPT_AT(scan_opts_t, m)
static const cli_opt_t opts_scan[] = {
    {"--op", OPT_WORD, "OP", AT(op), "the scan's operator: scalar (sum, prod, min, max; and, or, xor of integers), or "
     "ordered over rows of values (mat2..mat4: row-major matrix products of f32 f64 u32; affine: (a, b) pairs "
     "applied in order, x -> a x + b, of f32 f64; first, last)",
     NULL, "--op-src", "sum prod min max and or xor mat2 mat3 mat4 affine first last"},
    {"-o|--output", OPT_FILE, "OUT", AT(out), "the scan (.npy or raw; - for stdout)", NULL, NULL, NULL},
    {"--exclusive", OPT_FLAG, NULL, AT(excl), "shifted right by one, the op's identity first", NULL, NULL, NULL},
    {"--acc", OPT_DTYPE, "T", AT(acc), "the accumulator and output dtype of a scalar op ('default': gp_reduce's; the "
     "input's own wraps in its width)",
     "np.cumsum's", NULL, "default u8 i8 u16 i16 u32 i32 u64 i64 f32 f64"},
    {"--op-src", OPT_TEXT, "EXPR", AT(opsrc), "your own operator over a, b in C, compiled at run time and run with "
     "your rights; the input held in memory; 4-byte elements (docs/design/jit.md)",
     NULL, "--acc|--devices|--ranks", NULL},
    {"--identity", OPT_TEXT, "V", AT(ident), "--op-src's identity", NULL, NULL, NULL},
    {"--arity", OPT_COUNT, "K", AT(arity), "--op-src over K-wide values (K > 1: statements setting r[i])", "1", NULL,
     NULL},
    INPUT_OPTIONS(scan_opts_t),
    GROUP_OPTIONS(scan_opts_t, "each reads its part of the file and writes OUT.RANK (rank 0's with OUT's .npy "
                               "header: the parts concatenated are OUT); scalar ops"),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_scan = {
    "scan", COMMON_DATA, NULL, opts_scan, 1, "FILE|- --op OP -o OUT [options]",
    "y[i] = x[0] OP ... OP x[i] of a .npy or raw file or standard input, streamed (any size). NumPy's answers:\n"
    "elements in C order, the output 1-D (an ordered op's rows keep their shape), sums and products of bools and\n"
    "integers narrower than 8 bytes in np.cumsum's int64 / uint64, f16 / bf16 accumulate in f32. Deterministic:\n"
    "the same bits on every GPU and the CPU backend (docs/design/scan.md).",
    NULL};

static int cmd_scan(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    scan_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(&spec_scan, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    gp_reduce_op_t op = GP_REDUCE_SUM;
    if ((opt.devices || opt.ranks) && c.device != DEVICE_DEFAULT) {
        fprintf(stderr, "gpuprim scan: %s goes without --device\n", opt.devices ? "--devices" : "--ranks");
        return EXIT_USAGE;
    }
    if (opt.opsrc) { /* a user operator (cmd_jit.c) */
        size_t k = 1;
        if (opt.arity && (parse_size(opt.arity, &k) != 0 || k < 1 || k > 16))
            return bad_value("scan", "--arity", "a count 1 .. 16", opt.arity);
        if (!path || !opt.out) {
            fprintf(stderr, "gpuprim scan: %s\n", !path ? "no input (FILE or -)" : "-o OUT is required");
            return EXIT_USAGE;
        }
        const jit_scan_args_t ja = {c.device, c.fmt, path, opt.dtype, opt.offset, opt.count, opt.out, opt.opsrc, opt.ident,
                                    (int)k, opt.excl != NULL};
        return scan_jit(&ja);
    }
    if (opt.ident || opt.arity) {
        fprintf(stderr, "gpuprim scan: --identity and --arity go with --op-src\n");
        return EXIT_USAGE;
    }
    if (!path || !opt.op || !opt.out) {
        fprintf(stderr, "gpuprim scan: %s\n", !path ? "no input (FILE or -)" : !opt.op ? "--op is required"
                                                                                 : "-o OUT is required");
        cli_usage(&spec_scan, stderr);
        return EXIT_USAGE;
    }
    gp_ordered_op_t ord = GP_ORDERED_OP_COUNT; /* an ordered op instead */
    if (gp_reduce_op_parse(opt.op, &op) != GP_OK && gp_ordered_op_parse(opt.op, &ord) != GP_OK)
        return bad_value("scan", "--op", "an op of gpuprim scan --help", opt.op);
    const int ordered = ord != GP_ORDERED_OP_COUNT;
    if (ordered && opt.acc) return bad_value("scan", "--acc", "no accumulator choice for an ordered op", opt.acc);
    const gp_scan_kind_t kind = opt.excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE;
    gp_dtype_t acc = GP_DTYPE_COUNT; /* with --acc only */
    if (opt.acc && strcmp(opt.acc, "default") != 0 && gp_dtype_parse(opt.acc, &acc) != GP_OK)
        return bad_value("scan", "--acc", "a dtype or 'default'", opt.acc);

    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, "scan", path, opt.dtype, opt.offset, opt.count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, "scan")) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    const gp_dtype_t dtype = in.d.dtype;
    int as_i64 = 0; /* bools summed in u64 are written as NumPy's int64 (the same bits for counts) */
    if (!ordered && !opt.acc && (op == GP_REDUCE_SUM || op == GP_REDUCE_PROD)) { /* np.cumsum's / np.cumprod's dtype */
        const int narrow_signed = dtype == GP_I8 || dtype == GP_I16 || dtype == GP_I32;
        const int narrow_unsigned = dtype == GP_U8 || dtype == GP_U16 || dtype == GP_U32;
        if (narrow_signed) acc = GP_I64;
        if (narrow_unsigned) acc = GP_U64, as_i64 = in.d.bool_values;
    }
    sstage_t j;
    memset(&j, 0, sizeof j);
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    gp_status_t st = GP_OK;
    j.op = op, j.ord = ord, j.dtype = dtype, j.acc = acc, j.use_acc = opt.acc || acc != GP_DTYPE_COUNT, j.kind = kind;
    j.out = &ao, j.path = path;
    j.es = in.d.elem_size;
    j.w = ordered ? gp_ordered_width(ord) : 1;
    if (ordered && in.d.count != GP_COUNT_ALL && in.d.count % j.w) {
        fprintf(stderr, "gpuprim scan: %zu values are not a whole number of %s elements (%zu values each)\n",
                (size_t)in.d.count, gp_ordered_op_name(ord), j.w);
        rc = EXIT_USAGE;
        goto out;
    }
    gp_dtype_t odt = GP_DTYPE_COUNT;
    { /* the op, dtype and accumulator checked (and the output's dtype found) on the CPU backend, before any output */
        gp_ctx_t *probe = NULL;
        gp_scanner_t *sc = NULL;
        if ((st = gp_ctx_create(&probe, GP_DEVICE_CPU)) == GP_OK && (st = make_scanner(&j, probe, &sc)) == GP_OK)
            odt = gp_scanner_out_dtype(sc);
        gp_scanner_destroy(sc);
        gp_ctx_destroy(probe);
    }
    if (st != GP_OK) {
        if (st == GP_ERR_UNSUPPORTED && opt.acc && !ordered && gp_scan_out_dtype(op, dtype, dtype) != GP_DTYPE_COUNT)
            fprintf(stderr, "gpuprim scan: --acc %s: not an accumulator for %s of %s (choices: the input's own dtype "
                            "%s; 'default'; f32 for f16 / bf16; for sum and prod f64 over f16 / bf16 / f32, i64 / u64 "
                            "over integers of up to 4 bytes)\n", opt.acc, gp_reduce_op_name(op), gp_dtype_name(dtype),
                    gp_dtype_name(dtype));
        else
            fprintf(stderr, "gpuprim scan: %s\n", gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    j.os = gp_dtype_size(odt);
    if (opt.devices || opt.ranks) {
        if (ordered) {
            fprintf(stderr, "gpuprim scan: --devices and --ranks take the scalar ops (sum prod min max and or xor), "
                            "not %s\n", gp_ordered_op_name(ord));
            rc = EXIT_USAGE;
            goto out;
        }
        gp_array_desc_t like = in.d;
        like.dtype = as_i64 ? GP_I64 : odt;
        like.bool_values = in.d.bool_values && odt == GP_U8;
        like.ndim = 1;
        rc = scan_group(opt.devices, opt.ranks, &in, &j, odt, &like, opt.out, c.fmt, t0);
        goto out;
    }
    /* cap: elements per chunk, whole granules; a chunk holds cap * w values */
    j.cap = CHUNK_BYTES / (j.os > j.es ? j.os : j.es) / j.w / GP_SCAN_GRANULE * GP_SCAN_GRANULE;
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c.device = pick_device("scan", c.device, &w, 0);
    }
    {
        gp_array_desc_t like = in.d; /* np.cumsum flattens; an ordered op's elements keep their rows */
        like.dtype = as_i64 ? GP_I64 : odt;
        like.bool_values = in.d.bool_values && odt == GP_U8 && !ordered; /* min / max / bitwise of bools: bools */
        if (!ordered || like.ndim < 2 || like.shape[like.ndim - 1] * (like.ndim > 2 ? like.shape[like.ndim - 2] : 1) != j.w)
            like.ndim = 1;
        if ((rc = arr_out_open_like(&ao, "scan", opt.out, &like)) != EXIT_OK) goto out;
    }
    if ((rc = pipe_open(&pp, "scan", &in, c.device, 1, t0)) != EXIT_OK) goto out;
    pp.outs[0] = &ao;
    pp.chunk_bytes = j.cap * j.w * j.es; /* the input of one chunk of results */
    int lane = LANE_MAIN;
    if ((rc = pipe_run(&pp, &in, &sstage_ops, &j, &lane)) != EXIT_OK) goto out;
    gp_ctx_t *ctx = pipe_lane_ctx(&pp, lane);
    {
        unsigned char last[128] = {0};
        if ((st = gp_scanner_total_sync(j.sc[lane], last)) != GP_OK) {
            fprintf(stderr, "gpuprim scan: %s\n", gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
        if ((rc = arr_out_close(&ao, "scan", 1)) != EXIT_OK) goto out;
        const double secs = now_seconds() - t0, bytes = (double)j.elements * (double)j.w * (double)(j.es + j.os);
        char desc[512], *jval = NULL;
        size_t ljv = 0;
        describe_device(ctx, desc, sizeof desc);
        FILE *mj = open_memstream(&jval, &ljv);
        /* the total: one value, or an ordered op's element as a list */
        const size_t tw = ordered && ord < GP_ORDERED_FIRST ? j.w : 1;
        if (mj) {
            fputs(tw > 1 ? "[" : "", mj);
            for (size_t k = 0; k < tw; k++) fputs(k ? ", " : "", mj), print_elem(mj, odt, last + k * j.os, 1);
            fputs(tw > 1 ? "]" : "", mj);
            fclose(mj);
        }
        scan_report(c.fmt, ordered ? gp_ordered_op_name(ord) : gp_reduce_op_name(op), kind, dtype,
                    as_i64 ? GP_I64 : odt, j.elements, jval ? jval : "null", secs, bytes, pp.head_elements, desc, opt.out,
                    opt.out);
        free(jval);
    }
out:
    arr_out_close(&ao, "scan", 0); /* after a failure: nothing left behind */
    stage_end(&sstage_ops, &j);
    pipe_close(&pp);
    input_close(&in);
    return rc;
}

const verb_t verb_scan = {"scan", "FILE|- --op OP -o OUT", "prefix scan (np.cumsum ...) of a file or stdin, streamed",
                         &spec_scan, cmd_scan, NULL};
