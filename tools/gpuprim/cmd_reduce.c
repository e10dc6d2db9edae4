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

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
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
static int reduce_ordered(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *d, size_t want, gp_ordered_op_t op,
                          out_format_t fmt,
                          double t0, const char *name)
{
    const size_t k = gp_ordered_width(op);
    gather_t g = {ctx, {0}, d->elem_size, 0};
    gp_status_t st = GP_OK;
    int rc = EXIT_OK;
    if (want != GP_COUNT_ALL && want > 0) {
        const gp_mem_kind_t kind = gp_ctx_device(ctx) == GP_DEVICE_CPU ? GP_MEM_PAGEABLE : GP_MEM_DEVICE;
        if ((st = gp_mem_alloc(ctx, kind, want * d->elem_size, &g.buf)) != GP_OK) {
            fprintf(stderr, "gpuprim reduce: %s: ordered ops hold the whole input in %s memory: %s\n", name,
                    kind == GP_MEM_DEVICE ? "GPU" : "host", gp_last_error());
            return EXIT_FAIL;
        }
    }
    const double t_stream = now_seconds();
    st = gp_array_stream(ctx, f, d, want, 1, NULL, gather_chunk, &g);
    unsigned char res[128];
    const size_t tuples = g.have / k;
    if (st == GP_OK && g.have % k) {
        fprintf(stderr, "gpuprim reduce: %s: %zu elements are not a whole number of %s tuples of %zu\n", name, g.have,
                gp_ordered_op_name(op), k);
        rc = EXIT_FAIL;
    } else if (st != GP_OK ||
               (st = gp_reduce_ordered_sync(ctx, op, d->dtype, tuples,
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
            print_elem(mo, d->dtype, res + i * d->elem_size, fmt != FMT_TABLE);
        }
        fputc(']', mo);
        fclose(mo);
        if (fmt != FMT_TABLE) {
            record_t o = {0};
            rec_add(&o, "op", 0, "%s", gp_ordered_op_name(op));
            rec_add(&o, "dtype", 0, "%s", gp_dtype_name(d->dtype));
            rec_add(&o, "elements", 1, "%zu", tuples);
            rec_add(&o, "value", 1, "%s", val);
            rec_add(&o, "seconds", 1, "%.6f", secs);
            rec_add(&o, "gbps", 1, "%.3f", secs > 0 ? bytes / secs / 1e9 : 0.0);
            rec_add(&o, "stream_seconds", 1, "%.6f", ss);
            rec_add(&o, "stream_gbps", 1, "%.3f", ss > 0 ? bytes / ss / 1e9 : 0.0);
            rec_add(&o, "device", 0, "%s", desc);
            rec_print(&o, fmt, stdout);
        } else {
            printf("%s of %zu %s tuples of %zu: %s  (%.3f s, %.2f GB/s end to end; %s)\n", gp_ordered_op_name(op),
                   tuples, gp_dtype_name(d->dtype), k, val, secs, secs > 0 ? bytes / secs / 1e9 : 0.0, desc);
        }
        free(val);
    }
    gp_mem_free(ctx, &g.buf);
    return rc;
}

/* Start-up overlap. A GPU context takes the driver ~0.3 s to create (docs/PERFORMANCE.md, "start-up"); meanwhile the
 * CPU backend reduces the input's first chunks into a CPU reducer. When the context is up, the GPU reducer takes over
 * that partial tree (gp_reducer_transfer: the same bits as the GPU alone) and the stream goes on from where the CPU
 * stopped. An input the CPU finishes first never waits for streaming, only for the context. */
typedef struct opener { /* shared with the thread that opens the context */
    int device, rc;        /* the context to open, and open_context_verb's exit code */
    gp_ctx_t *ctx;
    double secs;
    atomic_int state;      /* OPENING, then READY (the thread is done) or LEFT (the verb went on without it) */
    pthread_t th;
} opener_t;
enum { OPENING, READY, LEFT };

typedef struct head { /* the CPU's part, the verb's own */
    gp_ctx_t *cpu;
    gp_reducer_t *red;     /* the CPU's partial reduction (NULL: none) */
    size_t elements;       /* reduced by the CPU */
    int at_end;            /* the CPU reached the end of the input */
} head_t;

static void *opener_main(void *p)
{
    opener_t *o = p;
    const double t = now_seconds();
    const char *delay = getenv("GPUPRIM_TEST_CONTEXT_DELAY_MS"); /* tests: a slow context, so the CPU head runs */
    if (delay && atoi(delay) > 0) {
        const struct timespec ts = {atoi(delay) / 1000, (long)(atoi(delay) % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    gp_ctx_t *ctx = NULL;
    const int rc = open_context_verb("reduce", o->device, &ctx);
    o->ctx = ctx, o->rc = rc, o->secs = now_seconds() - t;
    int expect = OPENING;
    if (!atomic_compare_exchange_strong(&o->state, &expect, READY)) { /* LEFT: nobody waits for this context */
        gp_ctx_destroy(ctx);
        free(o);
        background_end();
    }
    return NULL;
}

typedef struct head_sink {
    reducer_sink_t sink; /* the CPU's reducer and the elements pushed (util.c's sink) */
    opener_t *o;
    int stopped;         /* the context opened: the stream was stopped after a whole chunk */
} head_sink_t;

static gp_status_t head_push(void *user, const void *chunk, size_t count, size_t first, gp_stream_t stream)
{
    head_sink_t *k = user;
    const gp_status_t st = reducer_sink_push(&k->sink, chunk, count, first, stream);
    if (st != GP_OK) return st;
    if (atomic_load(&k->o->state) != OPENING) {
        k->stopped = 1;
        return GP_ERR_INTERNAL; /* a sentinel, not an error: the chunk is consumed and the stream stops here */
    }
    return GP_OK;
}

/* Reduces the input on the CPU backend's own pipeline (parallel reads, OpenMP tiles) until the context is open (the
 * stream stops after the chunk in hand; f is left just past it) or the input ends. Returns EXIT_OK, or prints why
 * the input is bad and returns EXIT_FAIL. A CPU reducer that cannot be made (an unsupported op) leaves h->red NULL:
 * the GPU path then says why. */
static int head_reduce(head_t *h, opener_t *o, FILE *f, const gp_array_desc_t *d, size_t want, gp_reduce_op_t op,
                       gp_dtype_t acc, const gp_stream_opts_t *so, const char *path)
{
    if (gp_ctx_create(&h->cpu, GP_DEVICE_CPU) != GP_OK) return EXIT_OK;
    if (gp_reducer_create_acc(h->cpu, op, d->dtype, acc, &h->red) != GP_OK) return EXIT_OK;
    head_sink_t k = {{h->red, 0, 0}, o, 0};
    gp_stream_opts_t opts = *so;
    opts.progress = NULL;
    const gp_status_t st = gp_array_stream(h->cpu, f, d, want, gp_reducer_granule(h->red), &opts, head_push, &k);
    h->elements = k.sink.elements;
    if (k.stopped) return EXIT_OK;
    if (st != GP_OK) {
        const char *e = gp_last_error(), *p = strstr(e, "byte ");
        fprintf(stderr, "gpuprim reduce: %s: %s\n", path, p && st == GP_ERR_FORMAT ? p : e);
        return EXIT_FAIL;
    }
    h->at_end = 1;
    return EXIT_OK;
}

/* Opens the context for `device` on another thread while the CPU reduces the input's head into *h. The CPU finishing
 * the whole input (or finding it bad) first ends the wait: the thread is left to finish on its own (main leaves with
 * _exit while it runs) and *ctx is the CPU backend's. Otherwise *ctx is the opened context. */
static int head_run(head_t *h, int device, FILE *f, const gp_array_desc_t *d, size_t want, gp_reduce_op_t op,
                    gp_dtype_t acc, const gp_stream_opts_t *so, const char *path, gp_ctx_t **ctx, double *ctx_secs)
{
    opener_t *o = calloc(1, sizeof *o);
    if (o) {
        o->device = device;
        atomic_init(&o->state, OPENING);
        if (pthread_create(&o->th, NULL, opener_main, o) != 0) free(o), o = NULL;
    }
    if (!o) { /* no thread: open it here */
        const double t = now_seconds();
        const int rc = open_context_verb("reduce", device, ctx);
        *ctx_secs = now_seconds() - t;
        return rc;
    }
    /* Teams of one size for the reads and the tiles, and cores left for the driver: otherwise OpenMP's idle workers
     * spin between regions on every core and the context's start-up (a kernel-heavy thread) is starved, and the
     * head with it (measured on a 16-core H100 host: 256 MiB in 0.27 s, against 0.03 s without a context starting). */
    const int procs = omp_get_num_procs(), saved = omp_get_max_threads();
    int t = so->threads ? so->threads : procs - 1 < 8 ? procs - 1 : 8;
    if (t < 1) t = 1;
    gp_stream_opts_t ho = *so;
    ho.threads = t;
    omp_set_num_threads(t);
    int rc = head_reduce(h, o, f, d, want, op, acc, &ho, path);
    omp_set_num_threads(saved);
    if (rc != EXIT_OK || (h->at_end && h->red)) {
        int expect = OPENING;
        const pthread_t th = o->th;
        background_begin();
        if (atomic_compare_exchange_strong(&o->state, &expect, LEFT)) { /* o is the thread's now (it may free it) */
            pthread_detach(th);
            if (rc == EXIT_OK) {
                note_cpu("gpuprim reduce", "the CPU finished the input before the GPU had started",
                         "the result is the CPU backend's (the same bits)");
                *ctx = h->cpu, h->cpu = NULL;
            }
            return rc;
        }
        background_end();
    }
    pthread_join(o->th, NULL);
    *ctx = o->ctx, *ctx_secs = o->secs;
    if (rc == EXIT_OK) rc = o->rc;
    free(o);
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
    if (fmt != FMT_TABLE) {
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
        rec_print(&o, fmt, stdout);
        free(val);
    } else {
        printf("%s of %zu %s elements: ", gp_reduce_op_name(op), n, gp_dtype_name(d->dtype));
        print_scalar(stdout, r->acc_dtype, r->value, 0);
        if (op == GP_REDUCE_MINMAX) {
            printf(" .. ");
            print_scalar(stdout, r->acc_dtype, r->value2, 0);
        }
        if (arg) printf(" at index %lld", (long long)r->index);
        printf("  (%s accumulator; %.3f s, %.2f GB/s end to end, %.2f GB/s streaming after setup; %s)\n",
               gp_dtype_name((gp_dtype_t)r->acc_dtype), secs, secs > 0 ? (double)bytes / secs / 1e9 : 0.0,
               stream_secs > 0 ? (double)bytes / stream_secs / 1e9 : 0.0, desc);
    }
    return EXIT_OK;
}

static gp_status_t group_push(void *user, int member, const void *chunk, size_t count, size_t first, gp_stream_t s)
{
    return gp_group_reducer_push(user, member, first, count, chunk, s);
}

/* --devices: the file split evenly over the group, every member streaming its part into one gp_group_reducer;
 * the result has the bits of one device reducing the whole file. */
static int reduce_group(const char *spec, input_t *in, gp_reduce_op_t op, gp_dtype_t acc, out_format_t fmt, double t0)
{
    gp_group_t *g = NULL;
    gp_group_reducer_t *red = NULL;
    const double t_ctx = now_seconds();
    int rc = group_open("reduce", spec, &g);
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
    if (rc == EXIT_OK) {
        char desc[512];
        group_describe(g, desc, sizeof desc);
        const timing_t tm = {now_seconds() - t0, now_seconds() - t_stream, ctx_secs, -1, 0};
        rc = print_reduce(fmt, op, &in->d, &r, in->want, &tm, desc);
    }
    gp_group_reducer_destroy(red);
    gp_group_destroy(g);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gpuprim reduce FILE|- --op OP [--dtype T] [--offset BYTES] [--count N] [--acc f64] [-d cpu|ID]\n"
               "                      [--json|--csv]\n"
               "                      [--chunk BYTES (16M)] [--threads N (readers; 8)] [--read pread|map] [--no-overlap]\n"
               "                      [--devices all|0,1,..|cpu:K|gpu:K]\n"
               "  OP: sum prod min max minmax argmin argmax and or xor count_nonzero, or an ordered (non-commutative)\n"
               "      op over row-major tuples: mat2 mat3 mat4 (f32 f64 u32), affine (f32 f64), first, last (held in\n"
               "      GPU memory whole; the result is the tuple)\n"
               "  FILE: .npy (dtype from the header) or raw binary (--dtype required; --offset skips a header);\n"
               "  '-' reads standard input. The result is deterministic: the same bits on any GPU or the CPU.\n"
               "  While a GPU starts, the CPU reduces the first chunks and hands over (--no-overlap: wait instead).\n"
               "  --devices: the file split evenly over several GPUs (NCCL), each reading its part; the same bits as\n"
               "  one device (cpu:K / gpu:K: K emulated members on the CPU backend / GPU 0, no NCCL needed).\n"
               "  Your own operator, C compiled at run time (the input held in memory; docs/JIT.md):\n"
               "    --op-src 'EXPR over a, b' --identity V [--ordered] [--arity K]   (K > 1: statements setting r[i])\n"
               "    --map 'EXPR over x' [--map-dtype T] [--op sum|prod|min|max | --op-src ...]   (transform-reduce)\n");
}

int cmd_reduce(int argc, char **argv)
{
    cli_common_t c = {DEVICE_AUTO, FMT_TABLE, NULL, 1, 0, 0};
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
    const char *o_op = NULL, *o_dtype = NULL, *o_offset = NULL, *o_count = NULL, *o_acc = NULL, *o_noov = NULL,
               *o_read = NULL, *o_chunk = NULL, *o_threads = NULL, *o_opsrc = NULL, *o_ident = NULL, *o_ord = NULL,
               *o_arity = NULL, *o_map = NULL, *o_mapdt = NULL, *o_devices = NULL;
    const cli_opt_t opts[] = {{"--op", "OP", &o_op},           {"--dtype", "T", &o_dtype},
                              {"--offset", "BYTES", &o_offset}, {"--count", "N", &o_count},
                              {"--acc", "T", &o_acc},           {"--no-overlap", NULL, &o_noov},
                              {"--read", "pread|map", &o_read}, {"--chunk", "BYTES", &o_chunk},
                              {"--threads", "N", &o_threads},   {"--op-src", "EXPR", &o_opsrc},
                              {"--identity", "V", &o_ident},    {"--ordered", NULL, &o_ord},
                              {"--arity", "K", &o_arity},       {"--map", "EXPR", &o_map},
                              {"--map-dtype", "T", &o_mapdt},   {"--devices", "SPEC", &o_devices},
                              {NULL, NULL, NULL}};
    const cli_spec_t spec = {"reduce", COMMON_DEVICE | COMMON_JSON | COMMON_CSV, NULL, opts, 1, usage};
    int npos = 0;
    const int pr = cli_parse(&spec, argc, argv, &c, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (o_devices && (o_opsrc || o_map || o_noov || o_read || o_chunk || o_threads || c.device != DEVICE_AUTO)) {
        fprintf(stderr, "gpuprim reduce: --devices goes without --device, --op-src, --map, --no-overlap, --read, "
                        "--chunk and --threads\n");
        return EXIT_USAGE;
    }
    if (o_opsrc || o_map) { /* a user operator (cmd_jit.c) */
        size_t k = 1;
        if (o_arity && (parse_size(o_arity, &k) != 0 || k < 1 || k > 16))
            return bad_value("reduce", "--arity", "a count 1 .. 16", o_arity);
        if (!path) {
            fprintf(stderr, "gpuprim reduce: no input (FILE or -)\n");
            return EXIT_USAGE;
        }
        if (o_acc || o_noov || o_read || o_chunk || o_threads) {
            fprintf(stderr, "gpuprim reduce: --acc, --no-overlap, --read, --chunk and --threads do not apply to "
                            "--op-src / --map\n");
            return EXIT_USAGE;
        }
        if (o_opsrc && o_op) {
            fprintf(stderr, "gpuprim reduce: --op-src replaces --op (give one)\n");
            return EXIT_USAGE;
        }
        const jit_reduce_args_t ja = {c.device, c.fmt, path, o_dtype, o_offset, o_count, o_opsrc, o_ident, o_map,
                                      o_mapdt, o_op, o_ord != NULL, (int)k};
        return reduce_jit(&ja);
    }
    if (o_ident || o_ord || o_arity || o_mapdt) {
        fprintf(stderr, "gpuprim reduce: --identity, --ordered, --arity and --map-dtype go with --op-src or --map\n");
        return EXIT_USAGE;
    }
    if (o_op) {
        if (gp_ordered_op_parse(o_op, &oop) == GP_OK) {
            ordered = 1;
        } else if (gp_reduce_op_parse(o_op, &op) != GP_OK) {
            fprintf(stderr, "gpuprim reduce: --op: unknown op '%s' (sum prod min max minmax argmin argmax and or "
                            "xor count_nonzero; ordered: mat2 mat3 mat4 affine first last)\n", o_op);
            return EXIT_USAGE;
        }
        have_op = 1;
    }
    if (o_dtype) {
        if (gp_dtype_parse(o_dtype, &dtype) != GP_OK) {
            fprintf(stderr, "gpuprim reduce: --dtype: %s\n", gp_last_error());
            return EXIT_USAGE;
        }
        have_dtype = 1;
    }
    if (o_offset && parse_size(o_offset, &offset) != 0) return bad_value("reduce", "--offset", "a byte count", o_offset);
    have_offset = o_offset != NULL;
    if (o_count && parse_size(o_count, &count) != 0) return bad_value("reduce", "--count", "an element count", o_count);
    if (o_acc && gp_dtype_parse(o_acc, &acc) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: --acc: %s\n", gp_last_error());
        return EXIT_USAGE;
    }
    overlap = o_noov == NULL;
    if (o_read) {
        if (strcmp(o_read, "map") != 0 && strcmp(o_read, "pread") != 0)
            return bad_value("reduce", "--read", "pread or map", o_read);
        map_pages = o_read[0] == 'm';
    }
    if (o_chunk && (parse_size(o_chunk, &chunk) != 0 || chunk == 0))
        return bad_value("reduce", "--chunk", "a byte count > 0", o_chunk);
    if (o_threads) {
        size_t t = 0;
        if (parse_size(o_threads, &t) != 0 || t == 0 || t > 64)
            return bad_value("reduce", "--threads", "a count 1 .. 64", o_threads);
        threads = (int)t;
    }
    if (!path || !have_op) {
        fprintf(stderr, "gpuprim reduce: %s\n", !path ? "no input (FILE or -)" : "--op is required");
        usage(stderr);
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    double ctx_secs = 0;
    int rc = EXIT_OK;
    gp_status_t st = GP_OK;
    gp_ctx_t *ctx = NULL;
    gp_reducer_t *red = NULL;
    gp_reduce_result_t r;
    input_t in;
    if ((rc = input_open(&in, "reduce", path, have_dtype, dtype, have_offset, offset, count)) != EXIT_OK) return rc;
    if (ordered && (rc = input_c_order(&in, "reduce")) != EXIT_OK) { /* tuples are rows of the C-order array */
        input_close(&in);
        return rc;
    }
    FILE *f = in.f;
    const gp_array_desc_t d = in.d;
    const size_t want = in.want;
    head_t h;
    memset(&h, 0, sizeof h);
    if (o_devices) {
        if (ordered) {
            fprintf(stderr, "gpuprim reduce: --devices takes the commutative ops (the ordered ones run on one device)\n");
            rc = EXIT_USAGE;
        } else {
            rc = reduce_group(o_devices, &in, op, acc, c.fmt, t0);
        }
        goto out;
    }

    {
        const int fast = d.dtype != GP_F16 && d.dtype != GP_BF16 &&
                         (op == GP_REDUCE_SUM || op == GP_REDUCE_MIN || op == GP_REDUCE_MAX || op == GP_REDUCE_MINMAX ||
                          op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX);
        const work_t w = {ordered ? WORK_ORDERED : fast ? WORK_REDUCE_FAST : WORK_REDUCE_SLOW, input_bytes(&in), 0, 0};
        c.device = pick_device("reduce", c.device, &w, 0);
    }
    progress_bar_t bar = {t0, 0};
    gp_stream_opts_t so;
    memset(&so, 0, sizeof so);
    so.progress = progress_bar;
    so.progress_user = &bar;
    so.chunk_bytes = chunk;
    so.threads = threads;
    so.map_pages = map_pages;
    if (!ordered && overlap && c.device != GP_DEVICE_CPU) {
        if ((rc = head_run(&h, c.device, f, &d, want, op, acc, &so, path, &ctx, &ctx_secs)) != EXIT_OK) goto out;
    } else {
        const double t_ctx = now_seconds();
        if ((rc = open_context_verb("reduce", c.device, &ctx)) != EXIT_OK) goto out;
        ctx_secs = now_seconds() - t_ctx;
    }
    if (ordered) {
        if (acc != GP_DTYPE_COUNT) {
            fprintf(stderr, "gpuprim reduce: --acc applies to sum and prod; %s keeps the dtype\n", gp_ordered_op_name(oop));
            rc = EXIT_USAGE;
        } else {
            rc = reduce_ordered(ctx, f, &d, want, oop, c.fmt, t0, path);
        }
        goto out;
    }
    if ((st = gp_reducer_create_acc(ctx, op, d.dtype, acc, &red)) != GP_OK) {
        fprintf(stderr, "gpuprim reduce: %s\n", gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    const double t_stream = now_seconds();
    reducer_sink_t sink = {red, 0, 0};
    if (h.red) st = gp_reducer_transfer(red, h.red); /* the CPU's head start, continued on this context */
    if (st == GP_OK && !h.at_end)
        st = gp_array_stream(ctx, f, &d, want == GP_COUNT_ALL ? want : want - h.elements, gp_reducer_granule(red), &so,
                             reducer_sink_push, &sink);
    if (bar.shown) fputc('\n', stderr);
    if (st == GP_OK) st = gp_reducer_finish(red, &r);
    const double stream_secs = now_seconds() - t_stream;
    if (st != GP_OK) {
        const char *e = gp_last_error();
        const char *p = strstr(e, "byte ");
        if (st == GP_ERR_FORMAT && p && h.elements) /* count from the array's start, not the stream's */
            fprintf(stderr, "gpuprim reduce: %s: byte %zu: the data ends after %zu of %zu elements\n", path,
                    d.data_offset + (h.elements + sink.elements) * d.elem_size, h.elements + sink.elements, want);
        else
            fprintf(stderr, "gpuprim reduce: %s: %s\n", path, p && st == GP_ERR_FORMAT ? p : e);
        rc = EXIT_FAIL;
        goto out;
    }
    const size_t n = sink.elements + h.elements;
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        const timing_t tm = {now_seconds() - t0, stream_secs, ctx_secs, sink.t_first > 0 ? sink.t_first - t0 : -1,
                             h.elements};
        rc = print_reduce(c.fmt, op, &d, &r, n, &tm, desc);
    }
out:
    input_close(&in);
    gp_reducer_destroy(h.red);
    gp_ctx_destroy(h.cpu);
    gp_reducer_destroy(red);
    gp_ctx_destroy(ctx);
    return rc;
}
