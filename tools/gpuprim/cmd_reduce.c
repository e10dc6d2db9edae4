/*
 * cmd_reduce.c — `gpuprim reduce FILE|- --op OP [--dtype T] [--offset BYTES] [--count N] [--device cpu|ID] [--json]`
 * Reduces a .npy file (recognised by its magic; dtype from its header) or raw binary (--dtype required, like
 * np.memmap, after --offset bytes), or standard input, on the GPU (or the CPU backend). The input streams through
 * gp_array_stream (reused pinned buffers, parallel reads, H2D copies and kernels overlapped on two streams) into a
 * gp_reducer, so any size works — larger than GPU or host memory — and the bits equal an in-memory gp_reduce of the
 * same elements. A progress bar on a terminal when the work takes over a second. --json prints one object: op, dtype,
 * elements, value (minmax: [min, max]; non-finite values as the strings "nan", "inf", "-inf"), index
 * (argmin/argmax: the flat C-order index, as NumPy's), acc_dtype, seconds, gbps, device.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "group_run.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>




/* The flat C-order index of element i of a Fortran-order array (NumPy's argmin/argmax count in C order). */
static long long c_order_index(const gp_array_desc_t *d, long long i)
{
    if (!d->fortran_order || d->ndim < 2 || i < 0) return i;
    size_t rest = (size_t)i, c = 0;
    size_t coord[GP_NPY_MAX_DIMS];
    for (int k = 0; k < d->ndim; k++) {
        coord[k] = rest % d->shape[k];
        rest /= d->shape[k];
    }
    for (int k = 0; k < d->ndim; k++) c = c * d->shape[k] + coord[k];
    return (long long)c;
}

/* The ordered ops: the input (tuples of the dtype, row-major) gathered in memory, then gp_reduce_ordered_sync. */
static int reduce_ordered(gp_ctx_t *ctx, input_t *in, gp_ordered_op_t op, out_format_t fmt, double t0,
                          const char *name)
{
    const gp_array_desc_t *d = &in->d;
    const size_t k = gp_ordered_width(op);
    gather_t g;
    gp_status_t st = GP_OK;
    int rc = EXIT_OK;
    const double t_stream = now_seconds();
    if ((rc = gather_held("reduce", in, ctx, t0, &g)) != EXIT_OK) return rc; /* ordered ops hold the whole input */
    unsigned char res[128];
    const size_t tuples = g.have / k;
    if (g.have % k) {
        fprintf(stderr, "gpuprim reduce: %s: %zu elements are not a whole number of %s tuples of %zu\n", name, g.have,
                gp_ordered_op_name(op), k);
        rc = EXIT_FAIL;
    } else if ((st = gp_reduce_ordered_sync(ctx, op, d->dtype, tuples,
                                            gp_ctx_device(ctx) == GP_DEVICE_CPU ? g.buf.host : g.buf.device, res)) !=
                   GP_OK) {
        const char *e = gp_last_error(), *p = strstr(e, "byte ");
        fprintf(stderr, "gpuprim reduce: %s: %s\n", name, p && st == GP_ERR_FORMAT ? p : e);
        rc = st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
    } else {
        const double secs = now_seconds() - t0, ss = now_seconds() - t_stream, bytes = (double)(g.have * d->elem_size);
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        char *val = NULL;
        size_t vlen = 0;
        FILE *mo = open_memstream(&val, &vlen);
        if (mo == NULL) {
            fprintf(stderr, "gpuprim reduce: out of memory\n");
            gp_mem_free(ctx, &g.buf);
            return EXIT_FAIL;
        }
        fputc('[', mo);
        for (size_t i = 0; i < k; i++) {
            if (i) fprintf(mo, ", ");
            print_elem(mo, d->dtype, res + i * d->elem_size, 1);
        }
        fputc(']', mo);
        fclose(mo);
        record_t o = {0};
        rec_add(&o, "op", 0, "%s", gp_ordered_op_name(op));
        rec_add(&o, "dtype", 0, "%s", gp_dtype_name(d->dtype));
        rec_add(&o, "elements", 1, "%zu", tuples);
        rec_add(&o, "width", 1, "%zu", k);
        rec_add(&o, "value", 1, "%s", val);
        rec_add(&o, "seconds", 1, "%.6f", secs);
        rec_add(&o, "gbps", 1, "%.3f", secs > 0 ? bytes / secs / 1e9 : 0.0);
        rec_add(&o, "stream_seconds", 1, "%.6f", ss);
        rec_add(&o, "stream_gbps", 1, "%.3f", ss > 0 ? bytes / ss / 1e9 : 0.0);
        rec_add(&o, "device", 0, "%s", desc);
        rec_emit(&o, fmt, "{op} of {elements} {dtype} tuples of {width}: {value}  ({seconds:%.3f} s, {gbps:%.2f} GB/s end "
                          "to end; {device})\n", stdout);
        free(val);
    }
    gp_mem_free(ctx, &g.buf);
    return rc;
}

typedef struct timing {
    double secs, stream_secs, ctx_secs, startup; /* startup < 0: the whole run */
    size_t head_elements;
} timing_t;

/* Prints a reduction's result as a table line or a --json / --csv record. */
static int print_reduce(out_format_t fmt, gp_reduce_op_t op, const gp_array_desc_t *d, gp_reduce_result_t *r,
                        size_t n, const timing_t *tm, const char *desc)
{
    const size_t bytes = n * d->elem_size;
    const double secs = tm->secs, stream_secs = tm->stream_secs;
    if (r->index >= 0) r->index = c_order_index(d, r->index);
    const int arg = op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX;
    if (n == 0 && (arg || op == GP_REDUCE_MIN || op == GP_REDUCE_MAX || op == GP_REDUCE_MINMAX)) {
        fprintf(stderr, "gpuprim reduce: the input is empty: %s of a zero-size array has no identity (as in NumPy)\n",
                gp_reduce_op_name(op));
        return EXIT_FAIL;
    }
    const gp_dtype_t dt = d->dtype;
    if ((op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR) &&
        (dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64)) { /* NumPy's result keeps the signed dtype */
        const unsigned bits = 8u * (unsigned)d->elem_size;
        uint64_t v = r->value.u64;
        if (bits < 64) {
            const uint64_t mask = (UINT64_C(1) << bits) - 1;
            v &= mask;
            if ((v >> (bits - 1)) & 1) v |= ~mask;
        }
        r->value.i64 = (int64_t)v;
        r->acc_dtype = GP_I64;
    }
    char *val = NULL;
    size_t vlen = 0;
    FILE *m = open_memstream(&val, &vlen);
    if (m == NULL) {
        fprintf(stderr, "gpuprim reduce: out of memory\n");
        return EXIT_FAIL;
    }
    if (op == GP_REDUCE_MINMAX) {
        fprintf(m, "[");
        print_scalar(m, r->acc_dtype, r->value, 1);
        fprintf(m, ", ");
        print_scalar(m, r->acc_dtype, r->value2, 1);
        fprintf(m, "]");
    } else {
        print_scalar(m, r->acc_dtype, r->value, 1);
    }
    fclose(m);
    record_t o = {0};
    rec_add(&o, "op", 0, "%s", gp_reduce_op_name(op));
    rec_add(&o, "dtype", 0, "%s", gp_dtype_name(d->dtype));
    rec_add(&o, "elements", 1, "%zu", n);
    rec_add(&o, "value", 1, "%s", val);
    if (arg) rec_add(&o, "index", 1, "%lld", (long long)r->index);
    rec_add(&o, "acc_dtype", 0, "%s", gp_dtype_name((gp_dtype_t)r->acc_dtype));
    rec_add(&o, "seconds", 1, "%.6f", secs);
    rec_add(&o, "gbps", 1, "%.3f", secs > 0 ? (double)bytes / secs / 1e9 : 0.0);
    rec_add(&o, "stream_seconds", 1, "%.6f", stream_secs);
    rec_add(&o, "context_seconds", 1, "%.6f", tm->ctx_secs);
    rec_add(&o, "startup_seconds", 1, "%.6f", tm->startup >= 0 ? tm->startup : secs);
    rec_add(&o, "cpu_head_elements", 1, "%zu", tm->head_elements);
    rec_add(&o, "stream_gbps", 1, "%.3f", stream_secs > 0 ? (double)bytes / stream_secs / 1e9 : 0.0);
    rec_add(&o, "device", 0, "%s", desc);
    rec_emit(&o, fmt,
             arg ? "{op} of {elements} {dtype} elements: {value} at index {index}  ({acc_dtype} accumulator; "
                   "{seconds:%.3f} s, {gbps:%.2f} GB/s end to end, {stream_gbps:%.2f} GB/s streaming after setup; "
                   "{device})\n"
                 : "{op} of {elements} {dtype} elements: {value}  ({acc_dtype} accumulator; {seconds:%.3f} s, "
                   "{gbps:%.2f} GB/s end to end, {stream_gbps:%.2f} GB/s streaming after setup; {device})\n",
             stdout);
    free(val);
    return EXIT_OK;
}

static gp_status_t group_push(void *user, int member, const void *chunk, size_t count, size_t first, gp_stream_t s)
{
    return gp_group_reducer_push(user, member, first, count, chunk, s);
}

/* --devices / --ranks: the file split evenly over the group, every member streaming its part into one
 * gp_group_reducer; the result has the bits of one device reducing the whole file (printed by rank 0 alone). */
static int reduce_group(const char *devices, const char *ranks, input_t *in, gp_reduce_op_t op, gp_dtype_t acc,
                        out_format_t fmt, double t0)
{
    gp_group_t *g = NULL;
    gp_group_reducer_t *red = NULL;
    const double t_ctx = now_seconds();
    int rc = ranks ? group_open_ranks("reduce", ranks, &g) : group_open("reduce", devices, &g);
    if (rc != EXIT_OK) return rc;
    const double ctx_secs = now_seconds() - t_ctx;
    gp_status_t st = gp_group_reducer_create(g, op, in->d.dtype, acc, &red);
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s\n", gp_last_error());
        gp_group_destroy(g);
        return st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
    }
    const double t_stream = now_seconds();
    rc = group_stream("reduce", g, in, 65536 / in->d.elem_size, group_push, red);
    gp_reduce_result_t r;
    if (rc == EXIT_OK && (st = gp_group_reducer_finish(red, &r)) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s: %s\n", in->name, gp_last_error());
        rc = EXIT_FAIL;
    }
    if (rc == EXIT_OK && gp_group_rank(g, 0) == 0) { /* one answer for the group: rank 0's */
        char desc[512];
        group_describe(g, desc, sizeof desc);
        const timing_t tm = {now_seconds() - t0, now_seconds() - t_stream, ctx_secs, -1, 0};
        rc = print_reduce(fmt, op, &in->d, &r, in->want, &tm, desc);
    }
    gp_group_reducer_destroy(red);
    gp_group_destroy(g);
    return rc;
}

typedef struct reduce_opts {
    const char *op, *dtype, *offset, *count, *acc, *noov, *read, *chunk, *threads, *opsrc, *ident, *ord, *arity, *map, *mapdt, *devices, *ranks;
} reduce_opts_t;
#define AT(m) OPT_AT(reduce_opts_t, m)
static const cli_opt_t opts_reduce[] = {
    {"--op", OPT_WORD, "OP", AT(op), "the reduction; mat2..mat4 (f32 f64 u32), affine (f32 f64), first, last are "
     "ordered (non-commutative) ops over row-major tuples, the input held in memory, the result the tuple",
     NULL, NULL, "sum prod min max minmax argmin argmax and or xor count_nonzero mat2 mat3 mat4 affine first last"},
    {"--acc", OPT_DTYPE, "T", AT(acc), "the accumulator dtype of sum and prod", "gp_reduce's: f64 sums of floats, "
     "64-bit integers", NULL, "u8 i8 u16 i16 u32 i32 u64 i64 f32 f64"},
    {"--no-overlap", OPT_FLAG, NULL, AT(noov), "wait for the GPU instead of reducing the first chunks on the CPU "
     "while it starts", NULL, NULL, NULL},
    {"--read", OPT_WORD, "pread|map", AT(read), "how the file is read: parallel pread calls or its mapped pages",
     "mapped on the CPU, pread for a GPU", NULL, NULL},
    {"--chunk", OPT_COUNT, "BYTES", AT(chunk), "bytes per streamed chunk", "16M", NULL, NULL},
    {"--threads", OPT_COUNT, "N", AT(threads), "reader threads, 1 .. 64", "8", NULL, NULL},
    {"--op-src", OPT_TEXT, "EXPR", AT(opsrc), "your own operator over a, b in C, compiled at run time and run with "
     "your rights, the input held in memory (docs/design/jit.md)",
     NULL, "--op|--acc|--no-overlap|--read|--chunk|--threads", NULL},
    {"--identity", OPT_TEXT, "V", AT(ident), "--op-src's identity", NULL, NULL, NULL},
    {"--ordered", OPT_FLAG, NULL, AT(ord), "--op-src is associative but not commutative: kept in order", NULL, NULL,
     NULL},
    {"--arity", OPT_COUNT, "K", AT(arity), "--op-src over K-wide values (K > 1: statements setting r[i])", "1", NULL,
     NULL},
    {"--map", OPT_TEXT, "EXPR", AT(map), "a transform over x applied before the reduction (with --op sum, prod, min, "
     "max or --op-src): transform-reduce",
     NULL, "--acc|--no-overlap|--read|--chunk|--threads", NULL},
    {"--map-dtype", OPT_DTYPE, "T", AT(mapdt), "--map's result dtype", "the input's", NULL, NULL},
    INPUT_OPTIONS(reduce_opts_t),
    GROUP_OPTIONS(reduce_opts_t, "each reads its part of FILE (the same path on every host), rank 0 prints the "
                                 "result"),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_reduce = {
    "reduce", COMMON_DATA, NULL, opts_reduce, 1, "FILE|- --op OP [options]\nFILE|- --op-src EXPR --identity V [options]",
    "A .npy (dtype from its header), a raw file (--dtype) or standard input reduced, streamed at any size. The result\n"
    "is deterministic: the same bits on any GPU or the CPU. While a GPU starts, the CPU reduces the first chunks\n"
    "and hands over.",
    NULL};

static int cmd_reduce(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    const char *path = NULL;
    int have_op = 0, have_dtype = 0;
    gp_reduce_op_t op = GP_REDUCE_SUM;
    gp_dtype_t dtype = GP_F32;
    size_t offset = 0, count = GP_COUNT_ALL;
    int have_offset = 0, threads = 0, map_pages = 0;
    gp_dtype_t acc = GP_DTYPE_COUNT;
    size_t chunk = 0;
    int ordered = 0, overlap = 1;
    gp_ordered_op_t oop = GP_ORDERED_MAT2;
    int npos = 0;
    reduce_opts_t opt;
    const int pr = cli_parse(&spec_reduce, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    const char *grouped = opt.devices ? "--devices" : opt.ranks ? "--ranks" : NULL;
    if (grouped && (opt.opsrc || opt.map || opt.noov || opt.read || opt.chunk || opt.threads || c.device != DEVICE_DEFAULT)) {
        fprintf(stderr, "gpuprim reduce: %s goes without --device, --op-src, --map, --no-overlap, --read, "
                        "--chunk and --threads\n", grouped);
        return EXIT_USAGE;
    }
    if (opt.opsrc || opt.map) { /* a user operator (cmd_jit.c) */
        size_t k = 1;
        if (opt.arity && (parse_size(opt.arity, &k) != 0 || k < 1 || k > 16))
            return bad_value("reduce", "--arity", "a count 1 .. 16", opt.arity);
        if (!path) {
            fprintf(stderr, "gpuprim reduce: no input (FILE or -)\n");
            return EXIT_USAGE;
        }
        const jit_reduce_args_t ja = {c.device, c.fmt, path, opt.dtype, opt.offset, opt.count, opt.opsrc, opt.ident, opt.map,
                                      opt.mapdt, opt.op, opt.ord != NULL, (int)k};
        return reduce_jit(&ja);
    }
    if (opt.ident || opt.ord || opt.arity || opt.mapdt) {
        fprintf(stderr, "gpuprim reduce: --identity, --ordered, --arity and --map-dtype go with --op-src or --map\n");
        return EXIT_USAGE;
    }
    if (opt.op) { /* a word of the table */
        if (gp_ordered_op_parse(opt.op, &oop) == GP_OK) ordered = 1;
        else if (gp_reduce_op_parse(opt.op, &op) != GP_OK) return bad_value("reduce", "--op", "an op", opt.op);
        have_op = 1;
    }
    if (opt.dtype) {
        if (gp_dtype_parse(opt.dtype, &dtype) != GP_OK) {
            fprintf(stderr, "gpuprim reduce: --dtype: %s\n", gp_last_error());
            return EXIT_USAGE;
        }
        have_dtype = 1;
    }
    if (opt.offset && parse_size(opt.offset, &offset) != 0) return bad_value("reduce", "--offset", "a byte count", opt.offset);
    have_offset = opt.offset != NULL;
    if (opt.count && parse_size(opt.count, &count) != 0) return bad_value("reduce", "--count", "an element count", opt.count);
    if (opt.acc && gp_dtype_parse(opt.acc, &acc) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: --acc: %s\n", gp_last_error());
        return EXIT_USAGE;
    }
    overlap = opt.noov == NULL;
    map_pages = !opt.read ? 0 : strcmp(opt.read, "map") == 0 ? 1 : -1;
    if (opt.chunk && (parse_size(opt.chunk, &chunk) != 0 || chunk == 0))
        return bad_value("reduce", "--chunk", "a byte count > 0", opt.chunk);
    if (opt.threads) {
        size_t t = 0;
        if (parse_size(opt.threads, &t) != 0 || t == 0 || t > 64)
            return bad_value("reduce", "--threads", "a count 1 .. 64", opt.threads);
        threads = (int)t;
    }
    if (!path || !have_op) {
        fprintf(stderr, "gpuprim reduce: %s\n", !path ? "no input (FILE or -)" : "--op is required");
        cli_usage(&spec_reduce, stderr);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    int rc = EXIT_OK;
    gp_status_t st = GP_OK;
    input_t in;
    if ((rc = input_open(&in, "reduce", path, have_dtype, dtype, have_offset, offset, count)) != EXIT_OK) return rc;
    if (ordered && (rc = input_c_order(&in, "reduce")) != EXIT_OK) { /* tuples are rows of the C-order array */
        input_close(&in);
        return rc;
    }
    pipe_t p;
    memset(&p, 0, sizeof p);
    reduce_stage_t rs = {op, in.d.dtype, acc, {NULL, NULL}, 0};
    int lane = LANE_MAIN;
    if (grouped) {
        if (ordered) {
            fprintf(stderr, "gpuprim reduce: %s takes the commutative ops (the ordered ones run on one device)\n",
                    grouped);
            rc = EXIT_USAGE;
        } else {
            rc = reduce_group(opt.devices, opt.ranks, &in, op, acc, c.fmt, t0);
        }
        goto out;
    }
    {
        const int fast = in.d.dtype != GP_F16 && in.d.dtype != GP_BF16 &&
                         (op == GP_REDUCE_SUM || op == GP_REDUCE_MIN || op == GP_REDUCE_MAX || op == GP_REDUCE_MINMAX ||
                          op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX);
        const work_t w = {ordered ? WORK_ORDERED : fast ? WORK_REDUCE_FAST : WORK_REDUCE_SLOW, input_bytes(&in), 0, 0};
        c.device = pick_device("reduce", c.device, &w, 0);
    }
    if ((rc = pipe_open(&p, "reduce", &in, c.device, !ordered && overlap, t0)) != EXIT_OK) goto out;
    p.chunk_bytes = chunk, p.threads = threads, p.map_pages = map_pages;
    if (ordered) {
        gp_ctx_t *ctx = NULL;
        if (acc != GP_DTYPE_COUNT) {
            fprintf(stderr, "gpuprim reduce: --acc applies to sum and prod; %s keeps the dtype\n", gp_ordered_op_name(oop));
            rc = EXIT_USAGE;
        } else if ((rc = pipe_wait(&p, &ctx)) == EXIT_OK) {
            rc = reduce_ordered(ctx, &in, oop, c.fmt, t0, path);
        }
        goto out;
    }
    const double t_stream = now_seconds();
    if ((rc = pipe_run(&p, &in, &reduce_stage_ops, &rs, &lane)) != EXIT_OK) goto out;
    gp_reduce_result_t r;
    if ((st = gp_reducer_finish(rs.red[lane], &r)) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s: %s\n", path, gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    {
        const double stream_secs = now_seconds() - t_stream;
        char desc[512];
        describe_device(pipe_lane_ctx(&p, lane), desc, sizeof desc);
        const timing_t tm = {now_seconds() - t0, stream_secs, p.ctx_secs, rs.t_first > 0 ? rs.t_first - t0 : -1,
                             p.head_elements};
        rc = print_reduce(c.fmt, op, &in.d, &r, p.elements, &tm, desc);
    }
out:
    stage_end(&reduce_stage_ops, &rs);
    pipe_close(&p);
    input_close(&in);
    return rc;
}

const verb_t verb_reduce = {"reduce", "FILE|- --op OP", "reduce a .npy / raw file or stdin (deterministic: same bits on GPU and CPU)",
                         &spec_reduce, cmd_reduce, NULL};
