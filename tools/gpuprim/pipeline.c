/*
 * pipeline.c — the data verbs' streaming core (pipeline.h). Why a head start, and what it measured:
 * docs/design/io.md, "Tuning".
 */
#define _POSIX_C_SOURCE 200809L
#include "pipeline.h"
#include "output.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

/* When the GPU is worth it: a context (OPEN_S) streaming at GPU_GBS, no faster than its outputs are written
 * (WRITE_GBS), must save more than FIXED_S on what is left; the head measures its own rate first (MEASURE_S).
 * What set them: docs/design/io.md, "Tuning". */
#define GPU_GBS 6.0
#define WRITE_GBS 4.0
#define OPEN_S 0.3
#define FIXED_S 0.3
#define MEASURE_S 0.02

/* Test hooks: GPUPRIM_TEST_CONTEXT_DELAY_MS holds the context back that long (a slow driver);
 * GPUPRIM_TEST_HEAD_CHUNKS=K stops the head after K chunks and waits for the context (a hand-over every time, also on
 * a machine with no GPU, where the context that takes over is the CPU backend's). Either opens the context at once. */
static double open_delay(void)
{
    const char *e = getenv("GPUPRIM_TEST_CONTEXT_DELAY_MS");
    return e && atoi(e) > 0 ? atoi(e) / 1000.0 : 0.0;
}
static int head_chunks(void)
{
    const char *e = getenv("GPUPRIM_TEST_HEAD_CHUNKS");
    return e && atoi(e) > 0 ? atoi(e) : 0;
}

static int pipe_ready(void *user)
{
    pipe_t *p = user;
    return p->opening == NULL || (gp_ctx_open_ready(p->opening) && now_seconds() >= p->t0 + open_delay());
}

static int start_opening(pipe_t *p)
{
    p->deferred = 0;
    return gp_ctx_open_start(p->device, &p->opening) == GP_OK;
}

int pipe_open(pipe_t *p, const char *verb, const input_t *in, int device, int head, double t0)
{
    memset(p, 0, sizeof *p);
    p->verb = verb, p->path = in->name, p->t0 = t0;
    p->device = device;
    if (head && device != GP_DEVICE_CPU) {
        /* the default device with a known size: decided by the head; a GPU asked for by number, or a pipe: at once */
        if (device == DEVICE_DEFAULT && input_bytes(in) >= 0 && !head_chunks() && open_delay() == 0) {
            p->deferred = 1;
            return EXIT_OK;
        }
        if (start_opening(p)) return EXIT_OK;
    }
    const double t = now_seconds();
    const int rc = open_context_verb(verb, device, &p->ctx);
    p->ctx_secs = now_seconds() - t;
    return rc;
}

int pipe_wait(pipe_t *p, gp_ctx_t **ctx)
{
    if (p->opening) {
        const double d = p->t0 + open_delay() - now_seconds();
        if (d > 0) {
            const struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
            nanosleep(&ts, NULL);
        }
        gp_ctx_opening_t *o = p->opening;
        p->opening = NULL;
        const gp_status_t st = gp_ctx_open_finish(o, &p->ctx);
        p->ctx_secs = now_seconds() - p->t0;
        const int rc = context_opened(p->verb, p->device, st, p->ctx);
        if (rc != EXIT_OK) return rc;
    } else if (!p->ctx) { /* deferred, and now needed */
        p->deferred = 0;
        const int rc = open_context_verb(p->verb, p->device, &p->ctx);
        p->ctx_secs = now_seconds() - p->t0;
        if (rc != EXIT_OK) return rc;
    }
    *ctx = p->ctx;
    p->taken = 1; /* the verb holds it (an operator made on it): the stream runs on it */
    return EXIT_OK;
}

gp_ctx_t *pipe_lane_ctx(const pipe_t *p, int lane) { return lane == LANE_HEAD ? p->cpu : p->ctx; }

void pipe_close(pipe_t *p)
{
    if (p->opening) gp_ctx_open_abandon(p->opening); /* main leaves with _exit while it finishes */
    p->opening = NULL;
    gp_ctx_destroy(p->cpu);
    gp_ctx_destroy(p->ctx);
    p->cpu = p->ctx = NULL;
}

typedef struct run {
    pipe_t *p;
    const stage_ops_t *ops;
    void *stage;
    int lane;
    size_t base, count, es; /* elements before this lane's stream; elements it streamed; element size */
    int stopped;            /* the head's stream ended because the context was ready */
    int chunks;             /* the head's chunks so far */
    size_t want;            /* the elements of the whole run (GP_COUNT_ALL: unknown) */
    size_t count_then;      /* count after the first chunk, */
    double t_then;          /* and when: the rate is measured from there */
    progress_bar_t bar;
} run_t;

static gp_status_t lane_push(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    run_t *r = user;
    const gp_status_t st = r->ops->push(r->stage, r->lane, x, n, r->base + first, s);
    if (st == GP_OK) r->count += n;
    return st;
}

/* After each of the head's chunks: open a context when the CPU has enough left to do, and stop for it when it is up
 * (and still worth it). */
static int head_stop(void *user)
{
    run_t *r = user;
    pipe_t *p = r->p;
    const double now = now_seconds();
    r->chunks++;
    if (r->chunks == 1) r->count_then = r->count, r->t_then = now; /* the first chunk warms up: measured from its end */
    const double rate = now > r->t_then ? (double)(r->count - r->count_then) * (double)r->es / (now - r->t_then) : 0;
    const int k = head_chunks();
    if (k) return r->stopped = r->chunks >= k;
    /* the seconds a GPU would save on bytes still to go (unknown size: a GPU always pays) */
    double left = 1e30, saved_per_byte = 1;
    if (r->want != GP_COUNT_ALL && rate > 0) {
        left = (double)(r->want - r->count) * (double)r->es;
        const double ratio = r->ops->out_ratio, gpu = ratio > 0 && WRITE_GBS / ratio < GPU_GBS ? WRITE_GBS / ratio
                                                                                                : GPU_GBS;
        saved_per_byte = 1.0 / rate - 1.0 / (gpu * 1e9);
    }
    if (p->deferred) {
        const double after_open = left - rate * OPEN_S;
        if (r->chunks >= 3 && now - r->t_then >= MEASURE_S && after_open * saved_per_byte > FIXED_S)
            start_opening(p); /* a rate over 2 chunks and MEASURE_S at least */
        return 0;
    }
    return r->stopped = pipe_ready(p) && left * saved_per_byte > FIXED_S;
}

static void lane_progress(void *user, size_t done, size_t total)
{
    run_t *r = user;
    const size_t before = r->base * r->es;
    progress_bar(&r->bar, before + done, total ? before + total : 0);
}

/* Says why the run failed: an output that cannot be written, else the input's error counted from the array's first
 * byte. Returns the exit code. */
static int run_failed(const pipe_t *p, const run_t *r, const input_t *in, gp_status_t st, size_t total)
{
    if (r->ops->explain && r->ops->explain(r->stage, st)) return EXIT_FAIL;
    const arr_out_t *const *o = (const arr_out_t *const *)p->outs;
    for (int k = 0; k < 2; k++)
        if (o[k] && o[k]->err) return stream_failed(p->verb, p->path, st, o[k], NULL);
    const char *e = gp_last_error();
    const char *tail = p->outs[0] ? " (nothing written)" : "";
    if (st == GP_ERR_FORMAT && strstr(e, "the data ends after")) {
        fprintf(stderr, "gpuprim %s: %s: byte %zu: the data ends after %zu of %zu elements%s\n", p->verb, p->path,
                in->d.data_offset + total * in->d.elem_size, total, in->want, tail);
        return EXIT_FAIL;
    }
    const char *b = strstr(e, "byte ");
    fprintf(stderr, "gpuprim %s: %s: %s%s\n", p->verb, p->path, b && st == GP_ERR_FORMAT ? b : e, tail);
    return st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
}

int pipe_run(pipe_t *p, input_t *in, const stage_ops_t *ops, void *stage, int *lane)
{
    const size_t es = in->d.elem_size, want = in->want;
    run_t r = {p, ops, stage, LANE_HEAD, 0, 0, es, 0, 0, want, 0, now_seconds(), {p->t0, 0}};
    gp_stream_opts_t so;
    memset(&so, 0, sizeof so);
    so.chunk_bytes = p->chunk_bytes ? p->chunk_bytes : ops->chunk_bytes;
    so.threads = p->threads;
    so.map_pages = p->map_pages > 0;
    so.progress = lane_progress;
    so.progress_user = &r;
    p->head_elements = p->elements = 0;
    gp_status_t st = GP_OK;
    int rc = EXIT_OK, headed = 0;
    if (p->ctx && !p->cpu && !p->taken && gp_ctx_device(p->ctx) == GP_DEVICE_CPU) /* the CPU backend: the head's lane */
        p->cpu = p->ctx, p->ctx = NULL, p->cpu_only = 1;
    if (((p->opening && (!pipe_ready(p) || head_chunks())) || p->deferred || p->cpu_only) &&
        (p->cpu || gp_ctx_create(&p->cpu, GP_DEVICE_CPU) == GP_OK) && ops->bind(stage, LANE_HEAD, p->cpu) == GP_OK) {
        /* Teams of one size for the reads and the tiles, and a core left for the driver's start-up and the output's
         * writer (docs/design/io.md, "Tuning"). */
        const int procs = omp_get_num_procs(), saved = omp_get_max_threads();
        const int spare = procs > 4 ? procs - 1 : procs;
        int t = so.threads ? so.threads : spare < saved ? spare : saved;
        if (t < 1) t = 1;
        gp_stream_opts_t ho = so;
        ho.threads = t;
        ho.map_pages = p->map_pages >= 0; /* no copy: the CPU reads the page cache in place */
        ho.stop = p->cpu_only ? NULL : head_stop;
        ho.stop_user = &r;
        omp_set_num_threads(t);
        st = gp_array_stream(p->cpu, in->f, &in->d, want, ops->granule ? ops->granule(stage, LANE_HEAD) : 1, &ho,
                             lane_push, &r);
        omp_set_num_threads(saved);
        headed = 1;
        p->elements = r.count;
        p->head_elements = p->cpu_only ? 0 : r.count; /* a head is what the CPU did while a GPU started */
        if (st != GP_OK) {
            if (r.bar.shown) fputc('\n', stderr);
            return run_failed(p, &r, in, st, r.count);
        }
        if (!r.stopped || (want != GP_COUNT_ALL && r.count == want)) { /* the CPU reached the end first */
            if (r.bar.shown) fputc('\n', stderr);
            if (p->opening && gp_ctx_open_ready(p->opening) && open_delay() == 0) { /* its notes, said as usual */
                gp_ctx_t *c = NULL;
                if ((rc = pipe_wait(p, &c)) != EXIT_OK) return rc;
            } else if (p->opening) {
                char who[64];
                snprintf(who, sizeof who, "gpuprim %s", p->verb);
                note_cpu(who, "the CPU finished the input before a GPU context was ready",
                         "the result is the CPU backend's (the same bits)");
            }
            *lane = LANE_HEAD;
            return EXIT_OK;
        }
    }
    gp_ctx_t *ctx = NULL;
    if ((rc = pipe_wait(p, &ctx)) != EXIT_OK) return rc;
    if ((st = ops->bind(stage, LANE_MAIN, ctx)) != GP_OK || (headed && ops->handoff && (st = ops->handoff(stage)) != GP_OK)) {
        fprintf(stderr, "gpuprim %s: %s\n", p->verb, gp_last_error());
        return st == GP_ERR_UNSUPPORTED || st == GP_ERR_INVALID_ARG ? EXIT_USAGE : EXIT_FAIL;
    }
    gp_array_desc_t d = in->d; /* the rest of the array, its offsets the input's own */
    d.data_offset += r.count * es;
    r.lane = LANE_MAIN, r.base = r.count, r.stopped = 0;
    st = gp_array_stream(ctx, in->f, &d, want == GP_COUNT_ALL ? want : want - r.base,
                         ops->granule ? ops->granule(stage, LANE_MAIN) : 1, &so, lane_push, &r);
    if (r.bar.shown) fputc('\n', stderr);
    p->elements = r.base + r.count;
    if (st != GP_OK) return run_failed(p, &r, in, st, p->elements);
    *lane = LANE_MAIN;
    return EXIT_OK;
}

void stage_end(const stage_ops_t *ops, void *stage)
{
    ops->unbind(stage, LANE_HEAD);
    ops->unbind(stage, LANE_MAIN);
}

static gp_status_t red_bind(void *s, int lane, gp_ctx_t *ctx)
{
    reduce_stage_t *r = s;
    return gp_reducer_create_acc(ctx, r->op, r->dtype, r->acc, &r->red[lane]);
}
static size_t red_granule(void *s, int lane) { return gp_reducer_granule(((reduce_stage_t *)s)->red[lane]); }
static gp_status_t red_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t st)
{
    reduce_stage_t *r = s;
    (void)first;
    if (lane == LANE_MAIN && r->t_first == 0) r->t_first = now_seconds();
    return gp_reducer_push(r->red[lane], x, n, st);
}
static gp_status_t red_handoff(void *s)
{
    reduce_stage_t *r = s;
    return gp_reducer_transfer(r->red[LANE_MAIN], r->red[LANE_HEAD]);
}
static void red_unbind(void *s, int lane)
{
    reduce_stage_t *r = s;
    gp_reducer_destroy(r->red[lane]);
    r->red[lane] = NULL;
}
const stage_ops_t reduce_stage_ops = {red_bind, red_granule, red_push, red_handoff, red_unbind, 0, 0, NULL};

int gather_held(const char *verb, input_t *in, gp_ctx_t *ctx, double t0, gather_t *g)
{
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->es = in->d.elem_size;
    const gp_mem_kind_t kind = held_kind(ctx);
    const char *where = kind == GP_MEM_DEVICE ? "GPU" : "host";
    /* straight into the held buffer (the library's loader: parallel reads, pinned stages on a GPU, no staging copy);
     * a pipe of unknown length into a buffer that doubles as it fills */
    progress_bar_t bar = {t0, 0};
    gp_stream_opts_t so;
    memset(&so, 0, sizeof so);
    so.progress = progress_bar;
    so.progress_user = &bar;
    gp_status_t st;
    int room = 0; /* the held buffer could not be had */
    if (in->want == GP_COUNT_ALL) {
        size_t got = 0;
        if ((st = gp_array_load(ctx, in->f, &in->d, GP_COUNT_ALL, kind, &so, &g->buf, &got)) == GP_OK) g->have = got;
    } else if ((st = gp_mem_alloc(ctx, kind, in->want * in->d.elem_size, &g->buf)) != GP_OK) {
        room = 1;
    } else if ((st = gp_array_read(ctx, in->f, &in->d, in->want, &so, buf_at(ctx, &g->buf))) == GP_OK) {
        g->have = in->want;
    }
    if (bar.shown) fputc('\n', stderr);
    if (st != GP_OK) {
        const char *e = gp_last_error(), *at = strstr(e, "byte ");
        if (room || st == GP_ERR_OUT_OF_MEMORY)
            fprintf(stderr, "gpuprim %s: %s: the whole input is held in %s memory: %s\n", verb, in->name, where, e);
        else
            fprintf(stderr, "gpuprim %s: %s: %s (nothing written)\n", verb, in->name, at && st == GP_ERR_FORMAT ? at : e);
        gp_mem_free(ctx, &g->buf);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int held_pair_open(const char *verb, const char *const names[2], const char *const pos[2], const char *out,
                   const char *o_dtype, int same_dtype, input_t in[2])
{
    if (strcmp(pos[0], "-") == 0 && strcmp(pos[1], "-") == 0) {
        fprintf(stderr, "gpuprim %s: %s and %s cannot both be standard input\n", verb, names[0], names[1]);
        return EXIT_USAGE;
    }
    if (out_same_target(out, pos[0]) || out_same_target(out, pos[1])) {
        fprintf(stderr, "gpuprim %s: %s is also an input (write elsewhere)\n", verb, out);
        return EXIT_USAGE;
    }
    int rc = input_open_opts(&in[0], verb, pos[0], o_dtype, NULL, NULL);
    if (rc != EXIT_OK) return rc;
    if ((rc = input_open_opts(&in[1], verb, pos[1], o_dtype, NULL, NULL)) != EXIT_OK) {
        input_close(&in[0]);
        return rc;
    }
    if (same_dtype && (in[0].d.dtype != in[1].d.dtype || in[0].d.bool_values != in[1].d.bool_values)) {
        fprintf(stderr, "gpuprim %s: %s %s is %s, %s %s is %s: both of one dtype (NumPy would cast; convert one "
                        "first)\n", verb, names[0], pos[0], gp_dtype_name(in[0].d.dtype), names[1], pos[1],
                gp_dtype_name(in[1].d.dtype));
        input_close(&in[1]), input_close(&in[0]);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int held_gather(const char *verb, int device, input_t *in, pipe_t *p, gp_ctx_t **ctx, gather_t *g, double t0)
{
    const work_t w = {WORK_ORDERED, input_bytes(in), 0, 0};
    int rc = pipe_open(p, verb, in, pick_device(verb, device, &w, 0), 0, t0);
    if (rc == EXIT_OK) rc = pipe_wait(p, ctx);
    if (rc == EXIT_OK) rc = gather_held(verb, in, *ctx, t0, g);
    return rc;
}

int held_pair_gather(const char *verb, int device, input_t in[2], pipe_t *p, gp_ctx_t **ctx, gather_t g[2], double t0)
{
    const work_t w = {WORK_ORDERED, input_bytes(&in[0]) + input_bytes(&in[1]), 0, 0};
    int rc = pipe_open(p, verb, &in[0], pick_device(verb, device, &w, 0), 0, t0);
    if (rc == EXIT_OK) rc = pipe_wait(p, ctx);
    if (rc == EXIT_OK) rc = gather_held(verb, &in[0], *ctx, t0, &g[0]);
    if (rc == EXIT_OK) rc = gather_held(verb, &in[1], *ctx, t0, &g[1]);
    return rc;
}

gp_mem_kind_t held_kind(gp_ctx_t *ctx) { return gp_ctx_device(ctx) == GP_DEVICE_CPU ? GP_MEM_PAGEABLE : GP_MEM_DEVICE; }

void *buf_at(gp_ctx_t *ctx, const gp_buffer_t *b) { return gp_ctx_device(ctx) == GP_DEVICE_CPU ? b->host : b->device; }

/* n buffers of bytes of kind in st: 0, or -1 with none left allocated */
static int alloc_stages(gp_ctx_t *ctx, gp_mem_kind_t kind, size_t bytes, gp_buffer_t *st, int n)
{
    memset(st, 0, (size_t)n * sizeof *st);
    for (int b = 0; b < n; b++)
        if (gp_mem_alloc(ctx, kind, bytes, &st[b]) != GP_OK) {
            while (b-- > 0) gp_mem_free(ctx, &st[b]);
            return -1;
        }
    return 0;
}

int out_write_ctx(gp_ctx_t *ctx, arr_out_t *a, const void *p, size_t n, size_t es, out_check_fn check, void *user)
{
    if (!check) return arr_out_put(a, ctx, p, n);
    const size_t step = ((size_t)16 << 20) / es;
    if (gp_ctx_device(ctx) == GP_DEVICE_CPU) {
        /* host memory written as it is (queued, not copied: the caller keeps it until the output is closed), each
         * piece checked before it is queued */
        for (size_t i = 0; i < n; i += step) {
            const size_t m = n - i < step ? n - i : step;
            if (check && check(user, (const char *)p + i * es, m, i)) return -2;
            if (arr_out_submit(a, (const char *)p + i * es, m) != 0) return -1;
        }
        return 0;
    }
    /* device memory: copied into pinned stages, each queued to the output's writer whole while the next is copied
     * (the writer thread writes stage b while stage b + 1 fills); pageable memory when pinned is refused */
    enum { STAGES = 3 };
    const size_t piece = (n < step / 2 ? n : step / 2) * es; /* 8 MiB stages: pinning costs about 1 ms a MiB */
    gp_buffer_t stage[STAGES];
    if (alloc_stages(ctx, GP_MEM_PINNED, piece, stage, STAGES) != 0 &&
        alloc_stages(ctx, GP_MEM_PAGEABLE, piece, stage, STAGES) != 0)
        return -1;
    int r = 0;
    const size_t m_max = piece / es;
    for (size_t i = 0, k = 0; i < n && r == 0; i += m_max, k++) {
        const size_t m = n - i < m_max ? n - i : m_max;
        void *h = stage[k % STAGES].host;
        arr_out_release(a, h); /* the writer is done with this stage's last piece */
        if (gp_memcpy_sync(ctx, h, (const char *)p + i * es, m * es) != GP_OK) r = -1;
        else if (check && check(user, h, m, i)) r = -2;
        else r = arr_out_submit(a, h, m);
    }
    for (int b = 0; b < STAGES; b++) {
        if (stage[b].host) arr_out_release(a, stage[b].host);
        gp_mem_free(ctx, &stage[b]);
    }
    return r;
}

int held_write(const char *verb, gp_ctx_t *ctx, const char *path, const gp_array_desc_t *like, const void *p, size_t n,
               size_t es)
{
    return held_write_checked(verb, ctx, path, like, p, n, es, NULL, NULL);
}

int held_write_checked(const char *verb, gp_ctx_t *ctx, const char *path, const gp_array_desc_t *like, const void *p,
                       size_t n, size_t es, out_check_fn check, void *user)
{
    arr_out_t o;
    int rc = arr_out_open_like(&o, verb, path, like);
    if (rc != EXIT_OK) return rc;
    const int w = out_write_ctx(ctx, &o, p, n, es, check, user);
    if (w != 0) {
        arr_out_close(&o, verb, 0);
        if (w == -1)
            fprintf(stderr, "gpuprim %s: writing %s failed%s%s (nothing written)\n", verb, path, o.why[0] ? ": " : "",
                    o.why);
        return EXIT_FAIL;
    }
    return arr_out_close(&o, verb, 1);
}

int held_write_all(const char *verb, gp_ctx_t *ctx, int n, const held_out_t *o)
{
    arr_out_t a[HELD_OUTS_MAX], *ap[HELD_OUTS_MAX];
    if (n > HELD_OUTS_MAX) return EXIT_FAIL;
    for (int i = 0; i < n; i++) {
        const int rc = arr_out_open_like(&a[i], verb, o[i].path, o[i].like);
        if (rc != EXIT_OK) {
            for (int j = 0; j < i; j++) arr_out_close(&a[j], verb, 0);
            return rc;
        }
        ap[i] = &a[i];
    }
    for (int i = 0; i < n; i++)
        if (out_write_ctx(ctx, &a[i], o[i].p, o[i].n, o[i].es, NULL, NULL) != 0) {
            for (int j = 0; j < n; j++) arr_out_close(&a[j], verb, 0);
            fprintf(stderr, "gpuprim %s: writing %s failed%s%s (nothing written)\n", verb, o[i].path,
                    a[i].why[0] ? ": " : "", a[i].why);
            return EXIT_FAIL;
        }
    return arr_out_close_all(ap, n, verb);
}

int held_write_pair(const char *verb, gp_ctx_t *ctx, const char *path_a, const gp_array_desc_t *la, const void *pa,
                    size_t na, size_t esa, const char *path_b, const gp_array_desc_t *lb, const void *pb, size_t nb,
                    size_t esb)
{
    const held_out_t o[2] = {{path_a, la, pa, na, esa}, {path_b, lb, pb, nb, esb}};
    return held_write_all(verb, ctx, 2, o);
}
