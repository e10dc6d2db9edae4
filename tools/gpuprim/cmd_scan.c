/*
 * cmd_scan.c — `gpuprim scan FILE|- --op OP [--exclusive] [--dtype T] [--acc T] [--offset B] [--count N] -o OUT
 * [-d cpu|ID] [--json|--csv]`, OP a scalar op or an ordered one (mat2 mat3 mat4 affine first last: tuples of values,
 * gp_scanner_create_ordered): the inclusive (or exclusive) scan of a .npy / raw file or standard input, streamed in chunks of
 * whole GP_SCAN_GRANULE tiles through a gp_scanner (any size: the carry passes from chunk to chunk, so the bits equal
 * one gp_scan over the whole array), each chunk's result copied back and appended to OUT. OUT ending in .npy is a
 * 1-D .npy of the output dtype (the input's, or the accumulator's with --acc: gp_scan_acc; its header reserved up front and rewritten with the count at the end, so standard
 * input of unknown length works), anything else raw elements; written whole or not at all. A progress bar on a
 * terminal after a second. Prints a one-line summary; --json / --csv: op, kind, dtype, elements, the last value,
 * seconds, GB/s (bytes read + written), device, output.
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

typedef struct sjob {
    gp_ctx_t *ctx;
    gp_scanner_t *sc;
    int gpu;
    size_t es, os;   /* input and output element sizes */
    void *dout;      /* GPU: one chunk of results on the device */
    void *hout;      /* a chunk of results on the host (pinned on a GPU) */
    size_t cap;      /* elements per chunk */
    arr_out_t *out;
    size_t elements;
    size_t w;      /* values per element: 1, or gp_ordered_width of an ordered op */
    int bad_tail;  /* the input ended inside an element */
} sjob_t;

/* One chunk: scanned from the carry of the chunks before, copied back, appended to the output. */
static gp_status_t scan_chunk(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    sjob_t *j = user;
    (void)first;
    if (n > j->cap * j->w) return GP_ERR_INTERNAL; /* the stream's chunks are at most CHUNK_BYTES */
    if (n % j->w) {
        j->bad_tail = 1;
        return GP_ERR_INVALID_ARG;
    }
    const size_t vals = n;
    n /= j->w; /* elements */
    gp_status_t st;
    if (j->gpu) {
        if ((st = gp_scanner_push(j->sc, n, x, j->dout, s)) != GP_OK) return st;
        if ((st = gp_memcpy(j->ctx, j->hout, j->dout, vals * j->os, s)) != GP_OK) return st;
        if ((st = gp_stream_sync(j->ctx, s)) != GP_OK) return st;
    } else if ((st = gp_scanner_push(j->sc, n, x, j->hout, NULL)) != GP_OK) {
        return st;
    }
    if (arr_out_write(j->out, j->hout, vals) != 0) return GP_ERR_IO;
    j->elements += n;
    return GP_OK;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim scan FILE|- --op OP -o OUT [--exclusive] [--dtype T] [--acc T] [--offset BYTES]\n"
               "                    [--count N] [-d cpu|ID] [--json|--csv]\n"
               "  y[i] = x[0] OP ... OP x[i] (--exclusive: shifted right by one, the op's identity first) of a .npy\n"
               "  or raw file or standard input, streamed (any size), into OUT (.npy if the name ends so, else raw).\n"
               "  OP: sum prod min max (every dtype), and or xor (integers); or an ordered op over rows of values:\n"
               "  mat2 mat3 mat4 (f32 f64 u32: 2x2 .. 4x4 row-major matrix products), affine (f32 f64: (a, b) pairs,\n"
               "  x -> a x + b applied in order; the recurrence x_t = a_t x_(t-1) + b_t), first, last (any dtype).\n"
               "  NumPy's answers: elements in C order, the output 1-D (np.cumsum's; an ordered op's rows keep their\n"
               "  shape), sums and products of bools and integers narrower than 8 bytes in np.cumsum's int64 / uint64,\n"
               "  f16 / bf16 accumulate in f32. --acc T (not for ordered ops): the accumulator and output dtype (the\n"
               "  input's own: wraps in its width; 'default': gp_reduce's; f64 sums of f16 / bf16 / f32).\n"
               "  Deterministic: the same bits on every GPU and the CPU backend (docs/SCAN.md).\n"
               "  --op-src 'EXPR over a, b' --identity V [--arity K]: your own operator in C, compiled at run time\n"
               "  (docs/JIT.md; K > 1: statements setting r[i]); the input is held in memory; 4-byte elements.\n");
}

int cmd_scan(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0, 0};
    const char *path = NULL;
    const char *o_op = NULL, *o_excl = NULL, *o_dtype = NULL, *o_offset = NULL, *o_count = NULL, *o_out = NULL,
               *o_acc = NULL, *o_opsrc = NULL, *o_ident = NULL, *o_arity = NULL;
    const cli_opt_t opts[] = {{"--op", "OP", &o_op},           {"--exclusive", NULL, &o_excl},
                              {"--dtype", "T", &o_dtype},      {"--acc", "T", &o_acc},
                              {"--offset", "BYTES", &o_offset},
                              {"--count", "N", &o_count},      {"-o|--output", "OUT", &o_out},
                              {"--op-src", "EXPR", &o_opsrc},   {"--identity", "V", &o_ident},
                              {"--arity", "K", &o_arity},       {NULL, NULL, NULL}};
    const cli_spec_t spec = {"scan", COMMON_DEVICE | COMMON_JSON | COMMON_CSV, NULL, opts, 1, usage};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    gp_reduce_op_t op = GP_REDUCE_SUM;
    if (o_opsrc) { /* a user operator (cmd_jit.c) */
        size_t k = 1;
        if (o_arity && (parse_size(o_arity, &k) != 0 || k < 1 || k > 16))
            return bad_value("scan", "--arity", "a count 1 .. 16", o_arity);
        if (!path || !o_out || o_op || o_acc) {
            fprintf(stderr, "gpuprim scan: %s\n", !path ? "no input (FILE or -)" : !o_out ? "-o OUT is required"
                                                   : "--op-src replaces --op and --acc (give one)");
            return EXIT_USAGE;
        }
        const jit_scan_args_t ja = {c.device, c.fmt, path, o_dtype, o_offset, o_count, o_out, o_opsrc, o_ident,
                                    (int)k, o_excl != NULL};
        return scan_jit(&ja);
    }
    if (o_ident || o_arity) {
        fprintf(stderr, "gpuprim scan: --identity and --arity go with --op-src\n");
        return EXIT_USAGE;
    }
    if (!path || !o_op || !o_out) {
        fprintf(stderr, "gpuprim scan: %s\n", !path ? "no input (FILE or -)" : !o_op ? "--op is required"
                                                                                 : "-o OUT is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    gp_ordered_op_t ord = GP_ORDERED_OP_COUNT; /* an ordered op instead */
    if (gp_reduce_op_parse(o_op, &op) != GP_OK && gp_ordered_op_parse(o_op, &ord) != GP_OK)
        return bad_value("scan", "--op", "sum prod min max and or xor mat2 mat3 mat4 affine first last", o_op);
    const int ordered = ord != GP_ORDERED_OP_COUNT;
    if (ordered && o_acc) return bad_value("scan", "--acc", "no accumulator choice for an ordered op", o_acc);
    const gp_scan_kind_t kind = o_excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE;
    gp_dtype_t acc = GP_DTYPE_COUNT; /* with --acc only */
    if (o_acc && strcmp(o_acc, "default") != 0 && gp_dtype_parse(o_acc, &acc) != GP_OK)
        return bad_value("scan", "--acc", "a dtype or 'default'", o_acc);

    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, "scan", path, o_dtype, o_offset, o_count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, "scan")) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    const gp_dtype_t dtype = in.d.dtype;
    int as_i64 = 0; /* bools summed in u64 are written as NumPy's int64 (the same bits for counts) */
    if (!ordered && !o_acc && (op == GP_REDUCE_SUM || op == GP_REDUCE_PROD)) { /* np.cumsum's / np.cumprod's dtype */
        const int narrow_signed = dtype == GP_I8 || dtype == GP_I16 || dtype == GP_I32;
        const int narrow_unsigned = dtype == GP_U8 || dtype == GP_U16 || dtype == GP_U32;
        if (narrow_signed) acc = GP_I64;
        if (narrow_unsigned) acc = GP_U64, as_i64 = in.d.bool_values;
    }
    gp_ctx_t *ctx = NULL;
    gp_buffer_t bd = {0}, bh = {0};
    sjob_t j;
    memset(&j, 0, sizeof j);
    arr_out_t ao;
    memset(&ao, 0, sizeof ao);
    j.out = &ao;
    gp_status_t st = GP_OK;
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c.device = pick_device("scan", c.device, &w, 0);
    }
    if ((rc = open_context_verb("scan", c.device, &ctx)) != EXIT_OK) goto out;
    j.ctx = ctx;
    j.out = &ao;
    j.gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    j.es = in.d.elem_size;
    j.w = ordered ? gp_ordered_width(ord) : 1;
    if (ordered && in.d.count != GP_COUNT_ALL && in.d.count % j.w) {
        fprintf(stderr, "gpuprim scan: %zu values are not a whole number of %s elements (%zu values each)\n",
                (size_t)in.d.count, gp_ordered_op_name(ord), j.w);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((st = ordered ? gp_scanner_create_ordered(ctx, ord, dtype, kind, &j.sc)
              : o_acc || acc != GP_DTYPE_COUNT ? gp_scanner_create_acc(ctx, op, dtype, acc, kind, &j.sc)
                                               : gp_scanner_create(ctx, op, dtype, kind, &j.sc)) != GP_OK) {
        if (st == GP_ERR_UNSUPPORTED && o_acc && !ordered && gp_scan_out_dtype(op, dtype, dtype) != GP_DTYPE_COUNT)
            fprintf(stderr, "gpuprim scan: --acc %s: not an accumulator for %s of %s (choices: the input's own dtype "
                            "%s; 'default'; f32 for f16 / bf16; for sum and prod f64 over f16 / bf16 / f32, i64 / u64 "
                            "over integers of up to 4 bytes)\n", o_acc, gp_reduce_op_name(op), gp_dtype_name(dtype),
                    gp_dtype_name(dtype));
        else
            fprintf(stderr, "gpuprim scan: %s\n", gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    const gp_dtype_t odt = gp_scanner_out_dtype(j.sc);
    j.os = gp_dtype_size(odt);
    /* cap: elements per chunk, whole granules; a chunk holds cap * w values */
    j.cap = CHUNK_BYTES / (j.os > j.es ? j.os : j.es) / j.w / GP_SCAN_GRANULE * GP_SCAN_GRANULE;
    if ((j.gpu && gp_mem_alloc(ctx, GP_MEM_DEVICE, j.cap * j.w * j.os, &bd) != GP_OK) ||
        gp_mem_alloc(ctx, j.gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE, j.cap * j.w * j.os, &bh) != GP_OK) {
        fprintf(stderr, "gpuprim scan: chunk buffers: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    j.dout = bd.device;
    j.hout = bh.host;
    {
        gp_array_desc_t like = in.d; /* np.cumsum flattens; an ordered op's elements keep their rows */
        like.dtype = as_i64 ? GP_I64 : odt;
        like.bool_values = in.d.bool_values && odt == GP_U8 && !ordered; /* min / max / bitwise of bools: bools */
        if (!ordered || like.ndim < 2 || like.shape[like.ndim - 1] * (like.ndim > 2 ? like.shape[like.ndim - 2] : 1) != j.w)
            like.ndim = 1;
        if ((rc = arr_out_open_like(&ao, "scan", o_out, &like)) != EXIT_OK) goto out;
    }
    st = stream_chunks(ctx, &in, j.cap * j.w * j.es, GP_SCAN_GRANULE * j.w, t0, scan_chunk, &j);
    if (st != GP_OK && j.bad_tail) {
        fprintf(stderr, "gpuprim scan: %s: the input ends inside an element of %s (%zu values each; nothing written)\n",
                path, gp_ordered_op_name(ord), j.w);
        rc = EXIT_FAIL;
        goto out;
    }
    if (st != GP_OK) {
        rc = stream_failed("scan", path, st, &ao, NULL);
        goto out;
    }
    {
        unsigned char last[128] = {0};
        if ((st = gp_scanner_total_sync(j.sc, last)) != GP_OK) {
            fprintf(stderr, "gpuprim scan: %s\n", gp_last_error());
            rc = EXIT_FAIL;
            goto out;
        }
        if ((rc = arr_out_close(&ao, "scan", 1)) != EXIT_OK) goto out;
        const double secs = now_seconds() - t0, bytes = (double)j.elements * (double)j.w * (double)(j.es + j.os);
        char desc[512], *val = NULL, *jval = NULL;
        size_t lv = 0, ljv = 0;
        describe_device(ctx, desc, sizeof desc);
        FILE *m = open_memstream(&val, &lv), *mj = open_memstream(&jval, &ljv);
        /* the total: one value, or an ordered op's element as a list */
        const size_t tw = ordered && ord < GP_ORDERED_FIRST ? j.w : 1;
        if (m) {
            for (size_t k = 0; k < tw; k++) fputs(k ? " " : "", m), print_elem(m, odt, last + k * j.os, 0);
            fclose(m);
        }
        if (mj) {
            fputs(tw > 1 ? "[" : "", mj);
            for (size_t k = 0; k < tw; k++) fputs(k ? ", " : "", mj), print_elem(mj, odt, last + k * j.os, 1);
            fputs(tw > 1 ? "]" : "", mj);
            fclose(mj);
        }
        FILE *sum = summary_stream(o_out);
        if (c.fmt == FMT_TABLE) {
            fprintf(sum, "%s scan (%s) of %zu %s elements -> %s (%s): total %s  (%.3f s, %.2f GB/s read + written; %s)\n",
                   ordered ? gp_ordered_op_name(ord) : gp_reduce_op_name(op), kind ? "exclusive" : "inclusive", j.elements, gp_dtype_name(dtype), o_out,
                   gp_dtype_name(as_i64 ? GP_I64 : odt), val ? val : "?", secs, secs > 0 ? bytes / secs / 1e9 : 0.0,
                   desc);
        } else {
            record_t r = {0};
            rec_add(&r, "op", 0, "%s", ordered ? gp_ordered_op_name(ord) : gp_reduce_op_name(op));
            rec_add(&r, "kind", 0, "%s", kind ? "exclusive" : "inclusive");
            rec_add(&r, "dtype", 0, "%s", gp_dtype_name(dtype));
            rec_add(&r, "out_dtype", 0, "%s", gp_dtype_name(as_i64 ? GP_I64 : odt));
            rec_add(&r, "elements", 1, "%zu", j.elements);
            rec_add(&r, "total", 1, "%s", jval ? jval : "null");
            rec_add(&r, "seconds", 1, "%.6f", secs);
            rec_add(&r, "gbps", 1, "%.3f", secs > 0 ? bytes / secs / 1e9 : 0.0);
            rec_add(&r, "device", 0, "%s", desc);
            rec_add(&r, "output", 0, "%s", o_out);
            rec_print(&r, c.fmt, sum);
        }
        free(val), free(jval);
    }
out:
    arr_out_close(&ao, "scan", 0); /* after a failure: nothing left behind */
    gp_scanner_destroy(j.sc);
    gp_mem_free(ctx, &bd);
    gp_mem_free(ctx, &bh);
    gp_ctx_destroy(ctx);
    input_close(&in);
    return rc;
}
