/*
 * cmd_sort.c — `gpuprim sort FILE|- -o OUT [--values V --values-out VOUT] [--segments OFFSETS]` and `gpuprim argsort
 * FILE|- -o IDX`, each with [--descending] [--flatten] [--dtype T] [--offset B] [--count N] [-d cpu|ID] [--json|--csv]:
 * the input held in memory (device memory on a GPU), sorted by gp_sort / gp_sort_pairs / gp_argsort in NumPy's order
 * (NaN last, -0 == +0, stable; docs/design/sort.md), written as .npy or raw, whole or not at all. argsort writes int64
 * positions, as np.argsort(x, kind='stable') does. An N-d input is sorted along its last axis, as NumPy does (each row
 * a segment of gp_sort_segmented; argsort: the positions within the row); --flatten sorts its C-order elements as one
 * array (axis=None). --segments: int64 CSR offsets, each segment sorted on its own (gp_sort_segmented). --cmp-src:
 * the user's comparison compiled at run time, each row (or the whole input) sorted by gp_sort_uop. --devices SPEC /
 * --ranks env: the keys of a 1-D file held over a group of GPUs, gp_group_sort / gp_group_argsort (one device's bits),
 * written in rank order (group_run.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "group_run.h"
#include "input.h"
#include "output.h"
#include "pipeline.h"
#include "sort_external.h"

#include <stdlib.h>
#include <string.h>

typedef struct sort_opts {
    const char *dtype, *offset, *count, *out, *desc, *flat, *vals, *vout, *segs, *cmp, *mem, *devices, *ranks;
} sort_opts_t;
#define AT(m) OPT_AT(sort_opts_t, m)

#define SORT_CMP_HELP                                                                                                  \
    "your comparison over a, b in C (nonzero: a goes first; a strict weak order): a stable merge sort compiled at "    \
    "run time and run with your rights (docs/design/jit.md), e.g. 'fabsf(a) < fabsf(b)'; descending: write b < a"
static const cli_opt_t opts_sort[] = {
    {"-o|--output", OPT_FILE, "OUT", AT(out), "the sorted keys (.npy or raw; - for stdout)", NULL, NULL, NULL},
    {"--descending", OPT_FLAG, NULL, AT(desc), "descending: NaN first, ties in input order", NULL, "--cmp-src", NULL},
    {"--flatten", OPT_FLAG, NULL, AT(flat), "an N-d input's elements sorted as one array (axis=None)", NULL, NULL,
     NULL},
    {"--values", OPT_FILE, "V", AT(vals), "a second array of as many elements (1-8 byte dtype) moved with its keys",
     NULL, NULL, NULL},
    {"--values-out", OPT_FILE, "VOUT", AT(vout), "where --values' array goes, in its keys' order", NULL, NULL, NULL},
    {"--segments", OPT_FILE, "OFFSETS", AT(segs), "an int64 .npy of nseg + 1 nondecreasing offsets in [0, n]: each "
     "segment [o[i], o[i+1]) sorted on its own, the elements outside them kept",
     NULL, "--cmp-src", NULL},
    {"--cmp-src", OPT_TEXT, "EXPR", AT(cmp), SORT_CMP_HELP, NULL, NULL, NULL},
    {"--mem-limit", OPT_COUNT, "BYTES", AT(mem), "the data the sort holds (runs, merge buffers, what the writer holds; "
     "the process adds a few MiB): past it, sorted runs in an unlinked file beside OUT ($TMPDIR for stdout) merged "
     "into OUT; keys only, ascending, 1-D or flattened (docs/design/sort.md)",
     "the GPU's free memory; half the host's on the CPU backend", NULL, NULL},
    INPUT_OPTIONS(sort_opts_t),
    GROUP_OPTIONS(sort_opts_t, "it writes its part to OUT.RANK (rank 0's with OUT's .npy header: the parts "
                               "concatenated are OUT); keys of a regular file, 1-D or flattened"),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_opt_t opts_argsort[] = {
    {"-o|--output", OPT_FILE, "IDX", AT(out), "the int64 positions in sorted order (.npy or raw; - for stdout)", NULL,
     NULL, NULL},
    {"--descending", OPT_FLAG, NULL, AT(desc), "descending: NaN first, ties in input order", NULL, "--cmp-src", NULL},
    {"--flatten", OPT_FLAG, NULL, AT(flat), "the positions of all of an N-d input's elements (axis=None)", NULL, NULL,
     NULL},
    {"--cmp-src", OPT_TEXT, "EXPR", AT(cmp), SORT_CMP_HELP, NULL, NULL, NULL},
    INPUT_OPTIONS(sort_opts_t),
    GROUP_OPTIONS(sort_opts_t, "it writes its part to OUT.RANK (rank 0's with OUT's .npy header: the parts "
                               "concatenated are OUT); 1-D or flattened"),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_sort = {
    "sort", COMMON_DATA, NULL, opts_sort, 1, "FILE|- -o OUT [--values V --values-out VOUT] [options]",
    "FILE (.npy, raw with --dtype, or - for stdin) sorted in NumPy's order: ascending, every NaN last, -0.0 == +0.0,\n"
    "stable (equal keys keep their order). An N-d .npy is sorted along its last axis (np.sort(x)). Larger than\n"
    "memory (or --mem-limit): sorted out of core.",
    NULL};
static const cli_spec_t spec_argsort = {
    "argsort", COMMON_DATA, NULL, opts_argsort, 1, "FILE|- -o IDX [options]",
    "IDX = the int64 positions of FILE's elements in sorted order: np.argsort(x, kind='stable'). An N-d .npy:\n"
    "along its last axis (the positions within each row, np.argsort(x, axis=-1)).",
    NULL};

/* a GPU sort holds its input, its outputs and its workspace in device memory: refused at once, with the bytes named,
 * when the device has less free (inputs of unknown length find out when their memory is allocated) */
static int fits_gpu(const char *verb, const char *path, gp_ctx_t *ctx, const input_t *in, const input_t *vin, int argsort)
{
    if (gp_ctx_device(ctx) == GP_DEVICE_CPU || in->want == GP_COUNT_ALL) return EXIT_OK;
    const size_t n = in->want, es = in->d.elem_size, vs = vin ? vin->d.elem_size : 0;
    size_t ws = 0;
    gp_device_info_t di;
    if (gp_sort_workspace_bytes(ctx, in->d.dtype, n, argsort ? 8 : vs, argsort, &ws) != GP_OK ||
        gp_device_info(gp_ctx_device(ctx), &di) != GP_OK)
        return EXIT_OK; /* the allocations will say */
    const double need = (double)n * es + (double)n * (argsort ? 8 : es) + 2.0 * n * vs + (double)ws;
    if (need <= (double)di.free_mem_bytes) return EXIT_OK;
    fprintf(stderr, "gpuprim %s: %s: %zu elements need %.2f GiB of GPU memory (input, output%s and %.2f GiB of "
                    "workspace); GPU %d has %.2f GiB free. The sort holds its data in GPU memory: -d cpu sorts in "
                    "host memory\n", verb, path, n, need / 1073741824.0, vs ? "s, values" : "",
            (double)ws / 1073741824.0, gp_ctx_device(ctx), (double)di.free_mem_bytes / 1073741824.0);
    return EXIT_FAIL;
}

/* The segments in held memory: rows of `last` elements (last > 0: an N-d input along its last axis; an argsort also
 * gets each element's position within its row in *pos), else the int64 offsets of --segments (nothing checked here:
 * gp_sort_segmented names a bad one). */
static int segments_held(const sort_opts_t *opt, const char *verb, gp_ctx_t *ctx, size_t last, size_t n, int argsort, double t0,
                         gp_buffer_t *segb, gp_buffer_t *pos, size_t *nseg)
{
    const gp_mem_kind_t kind = held_kind(ctx);
    if (last == 0 && !opt->segs) { /* an N-d input with no elements in a row */
        *nseg = 0;
        return gp_mem_alloc(ctx, kind, 8, segb) == GP_OK && gp_memset(ctx, buf_at(ctx, segb), 0, 8, NULL) == GP_OK
                   ? EXIT_OK
                   : (fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error()), EXIT_FAIL);
    }
    if (opt->segs) {
        input_t si;
        gather_t gs = {0};
        int rc = input_open_opts(&si, verb, opt->segs, NULL, NULL, NULL);
        if (rc != EXIT_OK) return rc;
        if (si.d.dtype != GP_I64 && si.d.dtype != GP_U64) {
            fprintf(stderr, "gpuprim %s: --segments %s: offsets are int64 (np.int64; np.cumsum gives them), not %s\n",
                    verb, opt->segs, gp_dtype_name(si.d.dtype));
            input_close(&si);
            return EXIT_USAGE;
        }
        if (si.d.ndim != 1) {
            fprintf(stderr, "gpuprim %s: --segments %s is %d-d: offsets are a 1-D int64 array (nseg + 1 of them)\n",
                    verb, opt->segs, si.d.ndim);
            input_close(&si);
            return EXIT_USAGE;
        }
        if (rc == EXIT_OK) rc = gather_held(verb, &si, ctx, t0, &gs);
        input_close(&si);
        if (rc != EXIT_OK) return rc;
        if (gs.have == 0) {
            fprintf(stderr, "gpuprim %s: --segments %s: no offsets (nseg + 1 of them, at least one)\n", verb, opt->segs);
            gp_mem_free(ctx, &gs.buf);
            return EXIT_USAGE;
        }
        if (si.d.dtype == GP_U64) { /* the library reads int64: a u64 past 2^63 - 1 is named as the value given */
            uint64_t *u = malloc(gs.have * 8);
            size_t bad = gs.have;
            if (u && gp_memcpy_sync(ctx, u, buf_at(ctx, &gs.buf), gs.have * 8) == GP_OK)
                for (size_t i = 0; i < gs.have && bad == gs.have; i++)
                    if (u[i] > (uint64_t)INT64_MAX) bad = i;
            if (bad < gs.have)
                fprintf(stderr, "gpuprim %s: --segments %s: offsets[%zu] = %llu is outside [0, n] (n = %zu)\n", verb,
                        opt->segs, bad, (unsigned long long)u[bad], n);
            free(u);
            if (bad < gs.have) {
                gp_mem_free(ctx, &gs.buf);
                return EXIT_USAGE;
            }
        }
        *segb = gs.buf;
        *nseg = gs.have - 1;
        return EXIT_OK;
    }
    const size_t r = n / last;
    int64_t *h = malloc((r + 1) * sizeof *h);
    int64_t *p = argsort ? malloc((n ? n : 1) * sizeof *p) : NULL;
    int rc = EXIT_OK;
    if (!h || (argsort && !p)) {
        fprintf(stderr, "gpuprim %s: no host memory for %zu rows' offsets\n", verb, r);
        rc = EXIT_FAIL;
    }
    for (size_t i = 0; rc == EXIT_OK && i <= r; i++) h[i] = (int64_t)(i * last);
    for (size_t i = 0; rc == EXIT_OK && p && i < n; i++) p[i] = (int64_t)(i % last);
    if (rc == EXIT_OK && (gp_mem_alloc(ctx, kind, (r + 1) * 8, segb) != GP_OK ||
                          gp_memcpy_sync(ctx, buf_at(ctx, segb), h, (r + 1) * 8) != GP_OK ||
                          (p && n && (gp_mem_alloc(ctx, kind, n * 8, pos) != GP_OK ||
                                      gp_memcpy_sync(ctx, buf_at(ctx, pos), p, n * 8) != GP_OK)))) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, gp_last_error());
        rc = EXIT_FAIL;
    }
    free(h), free(p);
    *nseg = r;
    return rc;
}

/* --cmp-src: n keys in rows of `last` (the whole input: last = n) sorted by the user's comparison into out (an
 * argsort: the int64 positions within each row into out, the keys sorted aside), vb-byte values moved with them.
 * A failure to compile or allocate sets *rc and was printed (a compile error with the user's line and a caret). */
static gp_status_t sort_by_cmp(const sort_opts_t *opt, const char *verb, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, size_t last, int argsort,
                               const void *keys, void *out, size_t vb, const void *vals, void *vals_out, int *rc)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_LESS;
    d.dtype = dtype;
    d.src = opt->cmp;
    gp_uop_t *less = NULL;
    if ((*rc = jit_make_uop(verb, ctx, &d, &less)) != EXIT_OK) return GP_ERR_INVALID_ARG;
    const size_t es = gp_dtype_size(dtype);
    gp_buffer_t kb = {0}, pb = {0};
    gp_status_t st = GP_OK;
    if (argsort) { /* the positions within each row moved as values; the keys sorted aside */
        int64_t *h = malloc(n * sizeof *h);
        for (size_t i = 0; h && i < n; i++) h[i] = (int64_t)(i % last);
        const gp_mem_kind_t kind = held_kind(ctx);
        if (!h) {
            fprintf(stderr, "gpuprim %s: no host memory for %zu positions\n", verb, n);
            *rc = EXIT_FAIL;
            st = GP_ERR_OUT_OF_MEMORY;
        } else if ((st = gp_mem_alloc(ctx, kind, n * es, &kb)) == GP_OK &&
                   (st = gp_mem_alloc(ctx, kind, n * 8, &pb)) == GP_OK) {
            st = gp_memcpy_sync(ctx, buf_at(ctx, &pb), h, n * 8);
        }
        free(h);
        vb = 8, vals = buf_at(ctx, &pb), vals_out = out, out = buf_at(ctx, &kb);
    }
    for (size_t r0 = 0; st == GP_OK && r0 < n; r0 += last)
        st = gp_sort_uop(ctx, less, last, (const char *)keys + r0 * es, (char *)out + r0 * es, vb,
                         vb ? (const char *)vals + r0 * vb : NULL, vb ? (char *)vals_out + r0 * vb : NULL, NULL);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    gp_mem_free(ctx, &kb);
    gp_mem_free(ctx, &pb);
    gp_uop_destroy(less);
    return st;
}

/* The run's one-record report (output: the part written, only where it is not -o's OUT: a group's rank) */
static void sort_report(out_format_t fmt, const char *verb, gp_dtype_t dtype, size_t n, const char *order,
                        size_t segments, double sort_secs, double secs, const char *desc, const char *output,
                        FILE *to)
{
    record_t r = {0};
    rec_add(&r, "verb", 0, "%s", verb);
    rec_add(&r, "dtype", 0, "%s", gp_dtype_name(dtype));
    rec_add(&r, "elements", 1, "%zu", n);
    rec_add(&r, "order", 0, "%s", order);
    rec_add(&r, "segments", 1, "%zu", segments);
    rec_add(&r, "sort_seconds", 1, "%.6f", sort_secs);
    rec_add(&r, "seconds", 1, "%.6f", secs);
    rec_add(&r, "device", 0, "%s", desc);
    if (output) rec_add(&r, "output", 0, "%s", output);
    rec_emit(&r, fmt,
             output ? "{verb}: {elements} {dtype} {order} -> {output}  ({sort_seconds:%.3f} s sorting, {seconds:%.3f} s "
                      "end to end; {device})\n"
                    : "{verb}: {elements} {dtype} {order}  ({sort_seconds:%.3f} s sorting, {seconds:%.3f} s end to end; "
                      "{device})\n",
             to);
}

/* --devices / --ranks: the keys split over the group's members, held in their memory, sorted across them
 * (gp_group_sort / gp_group_argsort to int64 positions) and written in rank order; the summary from rank 0 */
static int sort_group(const sort_opts_t *opt, const char *verb, int argsort, input_t *in, out_format_t fmt, double t0)
{
    gp_group_t *g = NULL;
    int rc = opt->ranks ? group_open_ranks(verb, opt->ranks, &g) : group_open(verb, opt->devices, &g);
    if (rc != EXIT_OK) return rc;
    group_data_t d;
    const size_t es = in->d.elem_size, os = argsort ? 8 : es;
    rc = group_data_load(verb, g, in, os, &d);
    char written[4096] = "";
    double sort_secs = 0;
    if (rc == EXIT_OK) {
        const double ts = now_seconds();
        const gp_status_t st = argsort ? gp_group_argsort(g, in->d.dtype, d.counts, d.x, GP_U64, d.y, opt->desc != NULL)
                                       : gp_group_sort(g, in->d.dtype, d.counts, d.x, d.y, 0, NULL, NULL,
                                                       opt->desc != NULL);
        sort_secs = now_seconds() - ts;
        if (st != GP_OK) {
            fprintf(stderr, "gpuprim %s: %s (nothing written)\n", verb, gp_last_error());
            rc = EXIT_FAIL;
        }
    }
    gp_array_desc_t like = in->d;
    like.ndim = 1;
    if (argsort) like.dtype = GP_I64, like.bool_values = 0, like.elem_size = 8;
    if (rc == EXIT_OK) rc = group_data_write(verb, &d, opt->out, &like, os, written, sizeof written);
    if (rc == EXIT_OK && gp_group_rank(g, 0) == 0) {
        char desc[512];
        group_describe(g, desc, sizeof desc);
        sort_report(fmt, verb, in->d.dtype, d.total, opt->desc ? "descending" : "ascending", 1, sort_secs,
                    now_seconds() - t0, desc, written, summary_stream(opt->out));
    }
    group_data_free(&d);
    gp_group_destroy(g);
    return rc;
}

static int sort_verb(const char *verb, const cli_spec_t *spec, int argsort, int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    sort_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(spec, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !opt.out) {
        fprintf(stderr, "gpuprim %s: %s\n", verb, !path ? "no input (FILE or -)" : "-o OUT is required");
        cli_usage(spec, stderr);
        return EXIT_USAGE;
    }
    if (!argsort && (opt.vals != NULL) != (opt.vout != NULL)) {
        fprintf(stderr, "gpuprim sort: --values and --values-out go together\n");
        return EXIT_USAGE;
    }
    if (opt.devices || opt.ranks) {
        const char *no = c.device != DEVICE_DEFAULT ? "--device" : opt.vals ? "--values" : opt.segs ? "--segments"
                         : opt.cmp                   ? "--cmp-src"
                         : opt.mem                   ? "--mem-limit"
                                                     : NULL;
        if (no) {
            fprintf(stderr, "gpuprim %s: %s goes without %s (a group sorts the keys of a 1-D input)\n", verb,
                    opt.devices ? "--devices" : "--ranks", no);
            return EXIT_USAGE;
        }
    }
    if (opt.vals && strcmp(path, "-") == 0 && strcmp(opt.vals, "-") == 0) {
        fprintf(stderr, "gpuprim sort: the keys and --values cannot both be standard input\n");
        return EXIT_USAGE;
    }
    const char *outs[2] = {opt.out, opt.vout};
    for (int i = 0; i < 2; i++)
        if (outs[i] && (out_same_target(outs[i], path) || (opt.vals && out_same_target(outs[i], opt.vals)))) {
            fprintf(stderr, "gpuprim %s: %s is also an input (write elsewhere)\n", verb, outs[i]);
            return EXIT_USAGE;
        }
    if (opt.vout && strcmp(opt.out, "-") != 0 && out_same_target(opt.vout, opt.out)) {
        fprintf(stderr, "gpuprim sort: -o and --values-out name the same file\n");
        return EXIT_USAGE;
    }
    const double t0 = now_seconds();
    input_t in, vin;
    memset(&vin, 0, sizeof vin);
    int rc = input_open_opts(&in, verb, path, opt.dtype, opt.offset, opt.count);
    if (rc != EXIT_OK) return rc;
    gather_t g = {0}, gv = {0};
    gp_buffer_t ob = {0}, ovb = {0}, segb = {0}, posb = {0}, kb = {0};
    spinner_t sp = {NULL};
    pipe_t p;
    memset(&p, 0, sizeof p);
    gp_ctx_t *ctx = NULL;
    int have_vin = 0;
    const int rows = in.d.ndim > 1 && !opt.flat; /* along the last axis: each row a segment */
    if (in.d.ndim == 0 && in.d.version_major && !opt.flat && !argsort) { /* np.argsort of a 0-d array is [0] */
        fprintf(stderr, "gpuprim sort: %s is 0-d: it has no axis to sort along (NumPy: AxisError); --flatten sorts "
                        "its one element (axis=None)\n", path);
        input_close(&in);
        return EXIT_USAGE;
    }
    if (rows && opt.segs) {
        fprintf(stderr, "gpuprim %s: --segments sorts a 1-D input; %s is %d-d (its rows are sorted as segments, or "
                        "--flatten)\n", verb, path, in.d.ndim);
        rc = EXIT_USAGE;
        goto out;
    }
    if (opt.segs && strcmp(opt.segs, "-") == 0) {
        fprintf(stderr, "gpuprim sort: --segments is a file (not standard input)\n");
        rc = EXIT_USAGE;
        goto out;
    }
    if (in.d.ndim > 1 && (rc = input_c_order(&in, verb)) != EXIT_OK) goto out;
    if (opt.devices || opt.ranks) {
        if (rows) {
            fprintf(stderr, "gpuprim %s: %s is %d-d: a group sorts it as one array with --flatten (not along its "
                            "rows)\n", verb, path, in.d.ndim);
            rc = EXIT_USAGE;
            goto out;
        }
        rc = sort_group(&opt, verb, argsort, &in, c.fmt, t0);
        goto out;
    }
    if (opt.vals) {
        if ((rc = input_open_opts(&vin, verb, opt.vals, NULL, NULL, NULL)) != EXIT_OK) goto out;
        have_vin = 1;
        if (vin.d.elem_size > 8) {
            fprintf(stderr, "gpuprim sort: --values %s: %zu-byte elements (1 to 8)\n", opt.vals, vin.d.elem_size);
            rc = EXIT_USAGE;
            goto out;
        }
        /* values move with their keys: of the keys' shape (a raw file, 1-D by its count, matches by count) */
        int same = vin.d.ndim == in.d.ndim || vin.d.version_major == 0 || in.d.version_major == 0;
        for (int k = 0; same && vin.d.version_major && in.d.version_major && k < in.d.ndim; k++)
            same = vin.d.shape[k] == in.d.shape[k];
        if (!same) {
            char ks[256] = "", vs[256] = "";
            for (int k = 0; k < in.d.ndim; k++)
                snprintf(ks + strlen(ks), sizeof ks - strlen(ks), "%s%zu", k ? ", " : "", in.d.shape[k]);
            for (int k = 0; k < vin.d.ndim; k++)
                snprintf(vs + strlen(vs), sizeof vs - strlen(vs), "%s%zu", k ? ", " : "", vin.d.shape[k]);
            fprintf(stderr, "gpuprim sort: --values %s has shape (%s%s), the keys (%s%s): values move with their keys, "
                            "so give them the keys' shape (reshape first)\n", opt.vals, vs, vin.d.ndim == 1 ? "," : "",
                    ks, in.d.ndim == 1 ? "," : "");
            rc = EXIT_USAGE;
            goto out;
        }
        if (vin.d.ndim > 1 && (rc = input_c_order(&vin, verb)) != EXIT_OK) goto out;
    }
    {
        const work_t w = {WORK_ORDERED, input_bytes(&in), 0, 0};
        c.device = pick_device(verb, c.device, &w, 0);
    }
    if ((rc = pipe_open(&p, verb, &in, c.device, 0, t0)) != EXIT_OK) goto out;
    if ((rc = pipe_wait(&p, &ctx)) != EXIT_OK) goto out;
    { /* larger than the memory the sort may use: out of core (keys only) */
        size_t limit = 0;
        if (opt.mem && (parse_size(opt.mem, &limit) != 0 || limit == 0)) {
            rc = bad_value(verb, "--mem-limit", "a byte count (e.g. 64M, 2G)", opt.mem);
            goto out;
        }
        const double need = ext_sort_need(ctx, &in);
        if (!limit) limit = ext_sort_default_limit(ctx);
        const int plain = !argsort && !opt.vals && !opt.segs && !opt.cmp && !opt.desc && !rows;
        if ((opt.mem && need == 0) || (limit && need > (double)limit)) { /* a pipe under --mem-limit: out of core too */
            if (!plain && opt.mem) {
                fprintf(stderr, "gpuprim %s: --mem-limit: the out-of-core sort takes the keys of a 1-D input (or "
                                "--flatten) in ascending order: not %s\n", verb,
                        argsort ? "argsort" : opt.vals ? "--values" : opt.segs ? "--segments" : opt.cmp ? "--cmp-src"
                        : opt.desc ? "--descending" : "the rows of an N-d input");
                rc = EXIT_USAGE;
                goto out;
            }
            if (plain) {
                const ext_sort_t e = {verb, path, opt.out, &in, ctx, limit, t0, c.fmt};
                rc = ext_sort_run(&e);
                goto out;
            }
        }
    }
    if ((rc = fits_gpu(verb, path, ctx, &in, opt.vals ? &vin : NULL, argsort)) != EXIT_OK) goto out;
    if ((rc = gather_held(verb, &in, ctx, t0, &g)) != EXIT_OK) goto out;
    const size_t n = g.have, es = in.d.elem_size;
    if (opt.vals) {
        if ((rc = gather_held(verb, &vin, ctx, t0, &gv)) != EXIT_OK) goto out;
        if (gv.have != n) {
            fprintf(stderr, "gpuprim sort: --values %s has %zu elements, the keys %zu\n", opt.vals, gv.have, n);
            rc = EXIT_USAGE;
            goto out;
        }
    }
    const gp_mem_kind_t kind = held_kind(ctx);
    /* segments: the rows' offsets (and an argsort's positions within them) made here, or --segments read */
    size_t nseg = 0;
    if ((rows || opt.segs) && !opt.cmp) {
        if ((rc = segments_held(&opt, verb, ctx, rows ? in.d.shape[in.d.ndim - 1] : 0, n, argsort, t0, &segb, &posb,
                                &nseg)) != EXIT_OK)
            goto out;
    }
    const int seg = (rows || opt.segs) && !opt.cmp;
    const double t_sort = now_seconds();
    spinner_start(&sp, argsort ? "argsort: sorting" : "sort: sorting"); /* a terminal sees the phases */
    const size_t ob_bytes = argsort ? n * 8 : n * es;
    /* the keys (and values) sorted where they were read, where the library sorts in place: no second copy of them,
     * nor its pages to touch; rows, segments and comparisons keep their own outputs */
    const int in_place = !argsort && !seg && !opt.cmp;
    gp_status_t st = n && !in_place ? gp_mem_alloc(ctx, kind, ob_bytes, &ob) : GP_OK;
    if (st == GP_OK && opt.vals && n && !in_place) st = gp_mem_alloc(ctx, kind, n * vin.d.elem_size, &ovb);
    void *keys_at = in_place ? buf_at(ctx, &g.buf) : buf_at(ctx, &ob);
    void *vals_at = opt.vals ? (in_place ? buf_at(ctx, &gv.buf) : buf_at(ctx, &ovb)) : NULL;
    if (st == GP_OK && seg && argsort && n) st = gp_mem_alloc(ctx, kind, n * es, &kb); /* the keys, sorted aside */
    const gp_sort_opts_t so = {opt.desc != NULL, 0, 0};
    const int64_t *offs = seg ? (const int64_t *)buf_at(ctx, &segb) : NULL;
    if (st == GP_OK && opt.cmp && n) /* your comparison: each row (or the whole input) by gp_sort_uop */
        st = sort_by_cmp(&opt, verb, ctx, in.d.dtype, n, rows ? in.d.shape[in.d.ndim - 1] : n, argsort, buf_at(ctx, &g.buf),
                         buf_at(ctx, &ob), opt.vals ? vin.d.elem_size : 0, opt.vals ? buf_at(ctx, &gv.buf) : NULL,
                         opt.vals ? buf_at(ctx, &ovb) : NULL, &rc);
    else if (st == GP_OK && seg && (n || nseg)) {
        if (argsort) /* the positions within each row carried as values */
            st = gp_sort_segmented_sync(ctx, in.d.dtype, n, buf_at(ctx, &g.buf), buf_at(ctx, &kb), 8,
                                        buf_at(ctx, &posb), buf_at(ctx, &ob), nseg, offs, &so);
        else
            st = gp_sort_segmented_sync(ctx, in.d.dtype, n, buf_at(ctx, &g.buf), buf_at(ctx, &ob),
                                        opt.vals ? vin.d.elem_size : 0, opt.vals ? buf_at(ctx, &gv.buf) : NULL,
                                        opt.vals ? buf_at(ctx, &ovb) : NULL, nseg, offs, &so);
    } else if (st == GP_OK && n) {
        if (argsort) st = gp_argsort_sync(ctx, in.d.dtype, n, buf_at(ctx, &g.buf), GP_I64, buf_at(ctx, &ob), &so);
        else if (opt.vals)
            st = gp_sort_pairs_sync(ctx, in.d.dtype, n, buf_at(ctx, &g.buf), keys_at, vin.d.elem_size,
                                    buf_at(ctx, &gv.buf), vals_at, &so);
        else st = gp_sort_sync(ctx, in.d.dtype, n, buf_at(ctx, &g.buf), keys_at, &so);
    }
    if (st != GP_OK && rc != EXIT_OK) goto out; /* sort_by_cmp said why */
    if (st != GP_OK) {
        fprintf(stderr, "gpuprim %s: %s: %s\n", verb, path, gp_last_error());
        rc = st == GP_ERR_UNSUPPORTED ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    const double sort_secs = now_seconds() - t_sort;
    spinner_set(&sp, "%s: writing %s", verb, opt.out);
    {
        gp_array_desc_t like = in.d;
        if (!rows) like.ndim = 1;
        if (argsort) like.dtype = GP_I64, like.bool_values = 0, like.elem_size = 8;
        if (opt.vals) {
            gp_array_desc_t vl = vin.d;
            if (!rows) vl.ndim = 1;
            rc = held_write_pair(verb, ctx, opt.out, &like, keys_at, n, es, opt.vout, &vl, vals_at, n, vin.d.elem_size);
        } else
            rc = held_write(verb, ctx, opt.out, &like, argsort ? buf_at(ctx, &ob) : keys_at, n, argsort ? 8 : es);
        if (rc != EXIT_OK) goto out;
    }
    spinner_stop(&sp);
    {
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        const double secs = now_seconds() - t0;
        const size_t last = rows ? in.d.shape[in.d.ndim - 1] : 0;
        sort_report(c.fmt, verb, in.d.dtype, n, opt.cmp ? opt.cmp : opt.desc ? "descending" : "ascending",
                    seg ? nseg : rows && last ? n / last : (size_t)1, sort_secs, secs, desc, NULL,
                    summary_stream(opt.out));
    }
out:
    spinner_stop(&sp);
    if (ctx) gp_mem_free(ctx, &ob), gp_mem_free(ctx, &ovb), gp_mem_free(ctx, &g.buf), gp_mem_free(ctx, &gv.buf);
    if (ctx) gp_mem_free(ctx, &segb), gp_mem_free(ctx, &posb), gp_mem_free(ctx, &kb);
    pipe_close(&p);
    if (have_vin) input_close(&vin);
    input_close(&in);
    return rc;
}

static int cmd_sort(int argc, char **argv) { return sort_verb("sort", &spec_sort, 0, argc, argv); }
static int cmd_argsort(int argc, char **argv) { return sort_verb("argsort", &spec_argsort, 1, argc, argv); }

const verb_t verb_sort = {"sort", "FILE|- -o OUT", "sort a .npy / raw file or stdin in NumPy's order (stable; keys with values)",
                          &spec_sort, cmd_sort, NULL};
const verb_t verb_argsort = {"argsort", "FILE|- -o IDX", "the int64 positions that sort a .npy / raw file or stdin (np.argsort, stable)",
                             &spec_argsort, cmd_argsort, NULL};
