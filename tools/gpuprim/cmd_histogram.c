/*
 * cmd_histogram.c — `gpuprim histogram FILE|- --bins N (--range LO,HI | --edges E0,E1,... | --direct) [--dtype T]
 * [--offset B] [--count N] [-d cpu|ID] [--json|--csv] [--svg FILE]`: the histogram of a .npy / raw file or standard
 * input, streamed in chunks through gp_array_stream (any size; a progress bar on a terminal after a second), each
 * chunk's counts added on the device into one set of 64-bit counts (gp_histogram_accumulate), copied back once.
 * Prints a bar chart for up to 64 bins, else a summary; --json: bins, lo, hi, counts, below, above, nan, elements,
 * seconds, gbps, device; --csv: one row per bin; --svg: a chart (up to 256 bins).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "group_run.h"
#include "input.h"
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct hjob {
    gp_ctx_t *ctx;
    gp_dtype_t dtype;
    int mode; /* 0 even, 1 range, 2 direct */
    int closed; /* NumPy's rule: the last bin holds hi */
    size_t nbins;
    double lo, hi;
    const double *edges;
    void *dcounts;   /* nbins + 3 u64: device memory on a GPU, host on the CPU backend */
    uint64_t *total; /* host copy at the end */
    size_t elements;
} hjob_t;

/* One chunk: its counts added on the context into dcounts (no copy, no wait: the chunks' kernels queue up). */
static gp_status_t count_chunk(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    hjob_t *j = user;
    (void)first;
    const gp_hist_bins_t bins = {(gp_hist_mode_t)j->mode, j->nbins, j->lo, j->hi, j->edges, j->closed, 1};
    gp_status_t st = gp_histogram_accumulate(j->ctx, j->dtype, n, x, &bins, GP_U64, j->dcounts, s);
    if (st == GP_OK) j->elements += n;
    return st;
}


/* --devices: member i's chunk into its own counts (jobs[i]); the members' counts are summed once at the end. */
static gp_status_t count_member(void *user, int member, const void *x, size_t n, size_t first, gp_stream_t s)
{
    return count_chunk((hjob_t *)user + member, x, n, first, s);
}

/* The single-device stage: each lane's chunks counted into its own counters (device memory on a GPU, host memory on
 * the CPU backend); the head's counts are added to the rest's at the end, so nothing moves at the hand-over. */
typedef struct hstage {
    gp_dtype_t dtype;
    gp_hist_bins_t bins;
    size_t slots;
    gp_ctx_t *ctx[2];
    gp_buffer_t buf[2];
    void *counts[2];
} hstage_t;

static gp_status_t h_bind(void *s, int lane, gp_ctx_t *ctx)
{
    hstage_t *h = s;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    gp_status_t st = gp_mem_alloc(ctx, gpu ? GP_MEM_DEVICE : GP_MEM_PAGEABLE, h->slots * 8, &h->buf[lane]);
    if (st != GP_OK) return st;
    h->ctx[lane] = ctx;
    h->counts[lane] = gpu ? h->buf[lane].device : h->buf[lane].host;
    if ((st = gp_memset(ctx, h->counts[lane], 0, h->slots * 8, NULL)) == GP_OK) st = gp_stream_sync(ctx, NULL);
    return st;
}
static gp_status_t h_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t st)
{
    hstage_t *h = s;
    (void)first;
    return gp_histogram_accumulate(h->ctx[lane], h->dtype, n, x, &h->bins, GP_U64, h->counts[lane], st);
}
static void h_unbind(void *s, int lane)
{
    hstage_t *h = s;
    if (h->ctx[lane]) gp_mem_free(h->ctx[lane], &h->buf[lane]);
    h->ctx[lane] = NULL, h->counts[lane] = NULL;
}
static const stage_ops_t hstage_ops = {h_bind, NULL, h_push, NULL, h_unbind, 0, 0, NULL};

/* Every bound lane's counts added into total (slots u64). */
static gp_status_t h_total(hstage_t *h, uint64_t *total, uint64_t *tmp)
{
    memset(total, 0, h->slots * 8);
    for (int lane = 0; lane < 2; lane++) {
        if (!h->ctx[lane]) continue;
        const gp_status_t st = gp_memcpy_sync(h->ctx[lane], tmp, h->counts[lane], h->slots * 8);
        if (st != GP_OK) return st;
        for (size_t k = 0; k < h->slots; k++) total[k] += tmp[k];
    }
    return GP_OK;
}

/* np.histogram's even bins are np.linspace(lo, hi, n + 1) in the result type of the range and the data: float32
 * edges for float32 (and bfloat16) data, float16 for float16, float64 for everything else; edge k = k * step + lo in
 * double (step = (hi - lo) / n), the last edge hi, then rounded to that type. A value v is in bin k when
 * edge k <= v < edge k+1 (the last bin closed). */
typedef enum { EDGE_F64, EDGE_F32, EDGE_F16 } edge_type_t;
static edge_type_t edge_type(gp_dtype_t data)
{
    return data == GP_F32 || data == GP_BF16 ? EDGE_F32 : data == GP_F16 ? EDGE_F16 : EDGE_F64;
}
static double edge_round(edge_type_t t, double v)
{
    return t == EDGE_F32 ? (double)(float)v : t == EDGE_F16 ? (double)gp_f16_to_f32(gp_f32_to_f16((float)v)) : v;
}
static double numpy_edge(edge_type_t t, double lo, double hi, size_t n, size_t k)
{
    volatile double p = (double)k * ((hi - lo) / (double)n); /* apart from the sum: no fused multiply-add */
    return edge_round(t, k == n ? hi : p + lo);
}
/* The library spells out NumPy's edges for its dtypes (gp_hist_bins_t.numpy_edges: float edges for f32 data, double
 * for the rest); float16 data, converted to f32 as read, keeps NumPy's float16 edges, given here as range bins. The
 * edges are computed here too for the report and the "too many bins" refusal. */
static int even_is_numpy(gp_dtype_t data) { return data != GP_F16; }

static gp_status_t range_push(void *user, int member, const void *chunk, size_t count, size_t first, gp_stream_t s)
{
    return gp_group_reducer_push(user, member, first, count, chunk, s);
}

/* The data's finite range for NumPy's default bins: a min/max pass over the input (streamed, like the histogram),
 * then the input is rewound; NumPy widens an empty range to [v - 0.5, v + 0.5] and an empty input to [0, 1].
 * With a group (--devices): the min/max pass split over its members like the histogram. */
static int data_range(pipe_t *pp, gp_group_t *grp, input_t *in, const char *path, double *lo, double *hi)
{
    size_t elements = 0;
    gp_reduce_result_t r;
    gp_status_t st = GP_OK;
    FILE *f = in->f;
    off_t pos = 0;
    if (grp) {
        gp_group_reducer_t *gr = NULL;
        if ((st = gp_group_reducer_create(grp, GP_REDUCE_MINMAX, in->d.dtype, GP_DTYPE_COUNT, &gr)) == GP_OK) {
            const int rc = group_stream("histogram", grp, in, 65536 / in->d.elem_size, range_push, gr);
            if (rc != EXIT_OK) {
                gp_group_reducer_destroy(gr);
                return rc;
            }
            st = gp_group_reducer_finish(gr, &r);
            elements = in->want;
        }
        gp_group_reducer_destroy(gr);
        goto have;
    }
    pos = ftello(f);
    if (pos < 0 || fseeko(f, pos, SEEK_SET) != 0) { /* a pipe: spool it to an unlinked temporary file, its data at
                                                     * the stream's own offset so messages name the stream's bytes */
        FILE *t = tmpfile();
        if (t && fseeko(t, (off_t)in->d.data_offset, SEEK_SET) != 0) fclose(t), t = NULL;
        char buf[1 << 16];
        size_t k, total = 0, want = in->want == GP_COUNT_ALL ? (size_t)-1 : in->want * in->d.elem_size;
        while (t && total < want && (k = fread(buf, 1, want - total < sizeof buf ? want - total : sizeof buf, f)) > 0) {
            if (fwrite(buf, 1, k, t) != k) {
                fclose(t);
                t = NULL;
            }
            total += k;
        }
        if (t == NULL || fflush(t) != 0 || fseeko(t, (off_t)in->d.data_offset, SEEK_SET) != 0) {
            fprintf(stderr, "gpuprim histogram: %s: cannot spool the input for its range (give --range LO,HI)\n", path);
            if (t) fclose(t);
            return EXIT_FAIL;
        }
        if (in->owned) fclose(f);
        in->f = f = t, in->owned = 1, pos = (off_t)in->d.data_offset;
    }
    {
        reduce_stage_t rs = {GP_REDUCE_MINMAX, in->d.dtype, GP_DTYPE_COUNT, {NULL, NULL}, 0};
        int lane = LANE_MAIN;
        const int rc = pipe_run(pp, in, &reduce_stage_ops, &rs, &lane);
        if (rc == EXIT_OK) st = gp_reducer_finish(rs.red[lane], &r);
        stage_end(&reduce_stage_ops, &rs);
        if (rc != EXIT_OK) return rc;
        elements = pp->elements;
    }
have:
    if (st != GP_OK) {
        const char *e = gp_last_error(), *p = strstr(e, "byte ");
        fprintf(stderr, "gpuprim histogram: %s: %s\n", path, p && st == GP_ERR_FORMAT ? p : e);
        return EXIT_FAIL;
    }
    if (!grp && fseeko(f, pos, SEEK_SET) != 0) {
        fprintf(stderr, "gpuprim histogram: %s: cannot rewind the input after its range pass\n", path);
        return EXIT_FAIL;
    }
    const int fl = r.acc_dtype == GP_F32, f64 = r.acc_dtype == GP_F64, sgn = r.acc_dtype == GP_I64;
    double a = fl ? (double)r.value.f32 : f64 ? r.value.f64 : sgn ? (double)r.value.i64 : (double)r.value.u64;
    double b = fl ? (double)r.value2.f32 : f64 ? r.value2.f64 : sgn ? (double)r.value2.i64 : (double)r.value2.u64;
    if (elements == 0) a = 0, b = 1;
    if (!isfinite(a) || !isfinite(b)) {
        fprintf(stderr, "gpuprim histogram: %s: the data's range [%g, %g] is not finite (NaN or infinity in the "
                        "data): give --range LO,HI\n", path, a, b);
        return EXIT_FAIL;
    }
    *lo = a, *hi = b;
    return EXIT_OK;
}

typedef struct histogram_opts {
    const char *bins, *range, *range_dtype, *edges, *direct, *half, *dtype, *offset, *count, *devices, *ranks;
} histogram_opts_t;
#define AT(m) OPT_AT(histogram_opts_t, m)
static const cli_opt_t opts_histogram[] = {
    {"--bins", OPT_COUNT, "N", AT(bins), "how many bins (--edges gives them)", NULL, NULL, NULL},
    {"--range", OPT_TEXT, "LO,HI", AT(range), "N even bins over [LO, HI]", "the data's min and max, found in a first "
     "pass (a pipe is spooled to a temporary file for it)",
     "--edges|--direct", NULL},
    {"--range-dtype", OPT_WORD, "data|f64", AT(range_dtype), "the range's type as NumPy sees it: data (Python floats, "
     "which take the data's float type: range=(LO, HI)) or f64 (a float64 array, range=np.array([LO, HI]): edges and "
     "comparisons in double); with --range",
     "data", NULL, NULL},
    {"--edges", OPT_TEXT, "E0,E1,...", AT(edges), "explicit, strictly increasing bin edges", NULL, "--direct", NULL},
    {"--direct", OPT_FLAG, NULL, AT(direct), "bin = value, for integer input", NULL, NULL, NULL},
    {"--half-open", OPT_FLAG, NULL, AT(half), "the last bin half-open too, so HI counts as above", NULL, NULL, NULL},
    INPUT_OPTIONS(histogram_opts_t),
    GROUP_OPTIONS(histogram_opts_t, "each counts its part of FILE (the same path on every host), rank 0 prints the "
                                    "counts"),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_histogram = {
    "histogram", COMMON_DATA | COMMON_SVG, NULL, opts_histogram, 1, "FILE|- --bins N [options]",
    "NumPy's np.histogram of a .npy (dtype from its header), a raw file (--dtype) or standard input: every bin is\n"
    "half-open except the last, which holds HI. Values below, above and NaN are counted apart.",
    NULL};

static int cmd_histogram(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    const char *path = NULL;
    size_t nbins = 0, offset = 0, count = GP_COUNT_ALL;
    int have_dtype = 0, have_offset = 0, mode = -1, have_range = 0, half_open = 0;
    gp_dtype_t dtype = GP_F32;
    double lo = 0, hi = 0, *edges = NULL;
    size_t nedges = 0;
    int npos = 0;
    histogram_opts_t opt;
    const int pr = cli_parse(&spec_histogram, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (opt.bins && (parse_size(opt.bins, &nbins) != 0 || nbins == 0))
        return bad_value("histogram", "--bins", "a bin count > 0", opt.bins);
    if (opt.range) {
        double *list = NULL;
        const size_t m = parse_number_list(opt.range, &list);
        if (m != 2) {
            free(list);
            return bad_value("histogram", "--range", "LO,HI", opt.range);
        }
        lo = list[0], hi = list[1], mode = 0, have_range = 1;
        free(list);
    }
    int range_f64 = 0;
    if (opt.range_dtype) {
        if (!opt.range) {
            fprintf(stderr, "gpuprim histogram: --range-dtype goes with --range\n");
            return EXIT_USAGE;
        }
        range_f64 = strcmp(opt.range_dtype, "f64") == 0;
    }
    if (opt.edges) {
        nedges = parse_number_list(opt.edges, &edges);
        if (nedges < 2) {
            free(edges);
            return bad_value("histogram", "--edges", "at least two numbers", opt.edges);
        }
        mode = 1;
    }
    if (opt.direct) mode = 2;
    half_open = opt.half != NULL;
    if (opt.dtype) {
        if (gp_dtype_parse(opt.dtype, &dtype) != GP_OK) {
            fprintf(stderr, "gpuprim histogram: --dtype: %s\n", gp_last_error());
            free(edges);
            return EXIT_USAGE;
        }
        have_dtype = 1;
    }
    if (opt.offset && parse_size(opt.offset, &offset) != 0) {
        free(edges);
        return bad_value("histogram", "--offset", "a byte count", opt.offset);
    }
    if (opt.count && parse_size(opt.count, &count) != 0) {
        free(edges);
        return bad_value("histogram", "--count", "an element count", opt.count);
    }
    have_offset = opt.offset != NULL;
    if (mode == 1) {
        if (nbins && nbins != nedges - 1) {
            fprintf(stderr, "gpuprim histogram: --bins %zu, but --edges gives %zu bins\n", nbins, nedges - 1);
            free(edges);
            return EXIT_USAGE;
        }
        nbins = nedges - 1;
    }
    if (mode < 0) mode = 0; /* even bins over the data's range */
    if (!path || nbins == 0) {
        fprintf(stderr, "gpuprim histogram: %s\n", !path ? "no input (FILE or -)" : "--bins is required");
        cli_usage(&spec_histogram, stderr);
        free(edges);
        return EXIT_USAGE;
    }
    if (mode == 0 && have_range && !(isfinite(lo) && isfinite(hi))) {
        fprintf(stderr, "gpuprim histogram: --range: the range [%g, %g] is not finite\n", lo, hi);
        free(edges);
        return EXIT_USAGE;
    }
    if (mode == 0 && have_range && lo > hi) {
        fprintf(stderr, "gpuprim histogram: --range: LO <= HI needed (max must be larger than min), got %g,%g\n", lo,
                hi);
        free(edges);
        return EXIT_USAGE;
    }
    for (size_t k = 0; mode == 1 && k < nedges; k++)
        if (isnan(edges[k]) || (k && edges[k] <= edges[k - 1])) {
            fprintf(stderr, "gpuprim histogram: --edges: the edges must increase strictly (and not be NaN): %g after %g\n",
                    edges[k], k ? edges[k - 1] : edges[k]);
            free(edges);
            return EXIT_USAGE;
        }
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open(&in, "histogram", path, have_dtype, dtype, have_offset, offset, count);
    if (rc != EXIT_OK) {
        free(edges);
        return rc;
    }
    { /* the binners take u8 u16 i32 u32 f32 f64: the rest converted as read, to the values NumPy bins */
        const gp_dtype_t dt = in.d.dtype;
        const gp_dtype_t to = dt == GP_I8 || dt == GP_I16 ? GP_I32
                              : dt == GP_F16 || dt == GP_BF16 ? GP_F32
                              : dt == GP_I64 || dt == GP_U64 ? (mode == 2 ? GP_I32 : GP_F64) : dt;
        if (to != dt && opt.devices) {
            fprintf(stderr, "gpuprim histogram: --devices takes u8 u16 i32 u32 f32 f64 (and bool) input, not %s\n",
                    gp_dtype_name(dt));
            rc = EXIT_USAGE;
        }
        if (rc != EXIT_OK || (rc = input_convert(&in, "histogram", to)) != EXIT_OK) {
            input_close(&in);
            free(edges);
            return rc;
        }
    }
    gp_ctx_t *ctx = NULL; /* the context the counts came from: the group's first, or the lane that finished */
    gp_group_t *grp = NULL;
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    hstage_t hs;
    memset(&hs, 0, sizeof hs);
    gp_buffer_t dc[64];
    memset(dc, 0, sizeof dc);
    const size_t slots = nbins + 3;
    hjob_t j = {NULL, in.d.dtype, mode, 0, nbins, lo, hi, edges, NULL, calloc(slots, 8), 0};
    hjob_t jobs[64];
    int members = 0;
    gp_status_t st = GP_OK;
    if (!j.total) {
        fprintf(stderr, "gpuprim histogram: %zu counters: out of memory\n", slots);
        rc = EXIT_FAIL;
        goto out;
    }
    if (opt.devices || opt.ranks) {
        if (c.device != DEVICE_DEFAULT) {
            fprintf(stderr, "gpuprim histogram: %s goes without --device\n", opt.devices ? "--devices" : "--ranks");
            rc = EXIT_USAGE;
            goto out;
        }
        rc = opt.ranks ? group_open_ranks("histogram", opt.ranks, &grp) : group_open("histogram", opt.devices, &grp);
        if (rc != EXIT_OK) goto out;
        ctx = gp_group_ctx(grp, 0);
    } else {
        const work_t w = {nbins > 65536 ? WORK_HIST_WIDE : WORK_HIST, input_bytes(&in), 0, 0};
        c.device = pick_device("histogram", c.device, &w, 0);
        if ((rc = pipe_open(&pp, "histogram", &in, c.device, 1, t0)) != EXIT_OK) goto out;
    }
    const int derived = mode == 0 && !have_range; /* even bins over the data's own range */
    if (derived && (rc = data_range(&pp, grp, &in, path, &lo, &hi)) != EXIT_OK) goto out;
    /* --range-dtype f64: the range as a float64 array, whose type joins the data's (np.histogram(x32,
     * range=np.array([lo, hi])): double edges and comparisons); by default the range is Python floats, which take
     * the data's float type (NEP 50), as np.histogram(x32, range=(lo, hi)) does. */
    const edge_type_t et = range_f64 ? EDGE_F64 : edge_type(in.from);
    double lo_np = lo, hi_np = hi; /* NumPy's range, before its edges are rounded to their type */
    if (mode == 0) {
        if (lo == hi) { /* NumPy widens an empty range, in the data's float type when it is the data's */
            if (derived && et == EDGE_F32) lo = (float)(lo - 0.5), hi = (float)(hi + 0.5);
            else lo -= 0.5, hi += 0.5;
        }
        lo_np = lo, hi_np = hi;
        for (size_t k = 1; k <= nbins; k++)
            if (!(numpy_edge(et, lo, hi, nbins, k - 1) < numpy_edge(et, lo, hi, nbins, k))) {
                fprintf(stderr, "gpuprim histogram: too many bins for the data range: %zu bins over [%.17g, %.17g] "
                                "cannot all be finite-sized in %s (NumPy refuses too)\n", nbins, lo, hi,
                        et == EDGE_F32 ? "float32" : et == EDGE_F16 ? "float16" : "float64");
                rc = EXIT_USAGE;
                goto out;
            }
        if (!even_is_numpy(in.from) || et != edge_type(in.from)) { /* NumPy's edges as range bins */
            if ((edges = malloc((nbins + 1) * sizeof *edges)) == NULL) {
                fprintf(stderr, "gpuprim histogram: %zu edges: out of memory\n", nbins + 1);
                rc = EXIT_FAIL;
                goto out;
            }
            for (size_t k = 0; k <= nbins; k++) edges[k] = numpy_edge(et, lo_np, hi_np, nbins, k);
            mode = 1, nedges = nbins + 1;
            j.mode = mode, j.edges = edges;
        }
    }
    /* NumPy's rule by default: the last bin closed. Over the data's own range nothing lies above hi, so the faster
     * half-open bins give the same counts once "above" (the values equal to the max) joins the last bin. */
    const int fold_above = derived && !half_open;
    j.lo = lo, j.hi = hi;
    j.closed = mode != 2 && !half_open && !fold_above;
    if (grp) {
        const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
        void *bufs[64];
        for (int m = 0; m < gp_group_local_count(grp); m++, members++) {
            gp_ctx_t *mc = gp_group_ctx(grp, m);
            if (gp_mem_alloc(mc, gpu ? GP_MEM_DEVICE : GP_MEM_PAGEABLE, slots * 8, &dc[m]) != GP_OK ||
                gp_memset(mc, gpu ? dc[m].device : dc[m].host, 0, slots * 8, NULL) != GP_OK ||
                gp_stream_sync(mc, NULL) != GP_OK) {
                fprintf(stderr, "gpuprim histogram: %zu counters: out of memory\n", slots);
                members++;
                rc = EXIT_FAIL;
                goto out;
            }
            jobs[m] = j;
            jobs[m].ctx = mc;
            jobs[m].dcounts = bufs[m] = gpu ? dc[m].device : dc[m].host;
        }
        j.ctx = ctx, j.dcounts = jobs[0].dcounts;
        if ((rc = group_stream("histogram", grp, &in, 1, count_member, jobs)) != EXIT_OK) goto out;
        st = gp_group_allreduce(grp, GP_U64, slots, bufs); /* the members' counts summed (NCCL) */
        if (st == GP_OK) st = gp_group_sync(grp);
        j.elements = in.want; /* the whole file's, every rank's part counted */
        if (st == GP_OK && j.elements == 0) /* no data: still validate the bins (and report zeros) */
            st = count_chunk(&j, NULL, 0, 0, NULL);
        if (st == GP_OK) st = gp_memcpy_sync(ctx, j.total, j.dcounts, slots * 8); /* waits for every chunk */
    } else {
        const gp_hist_bins_t bins = {(gp_hist_mode_t)j.mode, nbins, lo, hi, j.edges, j.closed, 1};
        hs.dtype = in.d.dtype, hs.bins = bins, hs.slots = slots;
        int lane = LANE_MAIN;
        if ((rc = pipe_run(&pp, &in, &hstage_ops, &hs, &lane)) != EXIT_OK) goto out;
        j.elements = pp.elements;
        ctx = pipe_lane_ctx(&pp, lane);
        if (j.elements == 0) st = h_push(&hs, lane, NULL, 0, 0, NULL); /* no data: still validate the bins */
        uint64_t *tmp = malloc(slots * 8);
        if (st == GP_OK) st = tmp ? h_total(&hs, j.total, tmp) : GP_ERR_OUT_OF_MEMORY;
        free(tmp);
    }
    if (st != GP_OK) {
        const char *e = gp_last_error(), *p = strstr(e, "byte ");
        fprintf(stderr, "gpuprim histogram: %s: %s\n", path, p && st == GP_ERR_FORMAT ? p : e);
        rc = st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    if (fold_above) j.total[nbins - 1] += j.total[nbins + 1], j.total[nbins + 1] = 0;
    if (grp && gp_group_rank(grp, 0) != 0) goto out; /* one answer for the group: rank 0's */
    {
        const double secs = now_seconds() - t0, bytes = (double)j.elements * (double)in.d.elem_size;
        const double glo = mode == 0 ? numpy_edge(et, lo_np, hi_np, nbins, 0) : mode == 1 ? edges[0] : 0,
                     ghi = mode == 0 ? numpy_edge(et, lo_np, hi_np, nbins, nbins) : mode == 1 ? edges[nbins] : (double)nbins;
        const int closed = mode != 2 && !half_open;
        char desc[512];
        if (grp) group_describe(grp, desc, sizeof desc);
        else describe_device(ctx, desc, sizeof desc);
#define EDGE(k) (mode == 1 ? edges[k] : mode == 2 ? (double)(k) : numpy_edge(et, lo_np, hi_np, nbins, (k)))
        if (c.fmt == FMT_JSON) {
            printf("{\"bins\": %zu, \"lo\": %.17g, \"hi\": %.17g, \"last_bin\": \"%s\", \"counts\": [", nbins, glo, ghi,
                   closed ? "closed" : "half-open");
            for (size_t b = 0; b < nbins; b++) printf(b ? ", %llu" : "%llu", (unsigned long long)j.total[b]);
            printf("], \"below\": %llu, \"above\": %llu, \"nan\": %llu, \"elements\": %zu, \"dtype\": \"%s\", "
                   "\"seconds\": %.6f, \"gbps\": %.3f, \"cpu_head_elements\": %zu, \"device\": ",
                   (unsigned long long)j.total[nbins], (unsigned long long)j.total[nbins + 1],
                   (unsigned long long)j.total[nbins + 2], j.elements, gp_dtype_name(in.from), secs,
                   secs > 0 ? bytes / secs / 1e9 : 0.0, pp.head_elements);
            json_string(stdout, desc);
            printf("}\n");
        } else if (c.fmt == FMT_CSV) { /* kind: bin, below, above or nan; bin: the index (bins only) */
            printf("kind,bin,lo,hi,count\n");
            for (size_t b = 0; b < nbins; b++)
                printf("bin,%zu,%.17g,%.17g,%llu\n", b, EDGE(b), EDGE(b + 1), (unsigned long long)j.total[b]);
            printf("below,,,%.17g,%llu\nabove,,%.17g,,%llu\nnan,,,,%llu\n", glo, (unsigned long long)j.total[nbins], ghi,
                   (unsigned long long)j.total[nbins + 1], (unsigned long long)j.total[nbins + 2]);
        } else {
            uint64_t top = 0;
            size_t at = 0;
            for (size_t b = 0; b < nbins; b++)
                if (j.total[b] > top) top = j.total[b], at = b;
            printf("histogram of %zu %s elements, %zu bins over [%g, %g%s%s  (%.3f s, %.2f GB/s; %s)\n", j.elements,
                   gp_dtype_name(in.from), nbins, glo, ghi, closed ? "]" : ")",
                   mode == 0 && !have_range ? " (the data's range)" : "", secs, secs > 0 ? bytes / secs / 1e9 : 0.0,
                   desc);
            if (nbins <= 64) {
                for (size_t b = 0; b < nbins; b++) {
                    const int w = top ? (int)(50.0 * (double)j.total[b] / (double)top + 0.5) : 0;
                    printf("[%12.6g, %12.6g%s %12llu %.*s\n", EDGE(b), EDGE(b + 1), closed && b + 1 == nbins ? "]" : ")",
                           (unsigned long long)j.total[b], w, "##################################################");
                }
            } else {
                printf("fullest bin %zu [%g, %g): %llu\n", at, EDGE(at), EDGE(at + 1), (unsigned long long)top);
            }
            printf("below %llu, above %llu, NaN %llu\n", (unsigned long long)j.total[nbins],
                   (unsigned long long)j.total[nbins + 1], (unsigned long long)j.total[nbins + 2]);
        }
        if (c.svg) {
            char title[700];
            snprintf(title, sizeof title, "gpuprim histogram %s\n%zu %s elements, %zu bins over [%g, %g%s; %s", path,
                     j.elements, gp_dtype_name(in.from), nbins, glo, ghi, closed ? "]" : ")", desc);
            if (svg_histogram(c.svg, title, glo, ghi, j.total, nbins) != 0) rc = EXIT_FAIL;
        }
#undef EDGE
    }
out:
    for (int m = 0; m < members; m++) gp_mem_free(gp_group_ctx(grp, m), &dc[m]);
    stage_end(&hstage_ops, &hs);
    pipe_close(&pp);
    gp_group_destroy(grp);
    input_close(&in);
    free(j.total), free(edges);
    return rc;
}

const verb_t verb_histogram = {"histogram", "FILE|- --bins N", "np.histogram of a .npy / raw file or stdin (even, explicit edges or direct)",
                         &spec_histogram, cmd_histogram, NULL};
