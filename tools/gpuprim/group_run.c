/* group_run.c — `--devices` for the data verbs: see group_run.h. */
#define _POSIX_C_SOURCE 200809L
#include "group_run.h"
#include "output.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef struct job {
    gp_group_t *g;
    int member;
    const input_t *in;
    size_t first, count, granule;
    member_chunk_fn fn;
    void *user;
    gp_status_t st;
    size_t done; /* elements streamed */
    char err[400];
} job_t;

static gp_status_t job_chunk(void *user, const void *chunk, size_t count, size_t first, gp_stream_t s)
{
    job_t *j = user;
    const gp_status_t st = j->fn(j->user, j->member, chunk, count, j->first + first, s);
    if (st == GP_OK) j->done = first + count;
    return st;
}

static void *job_main(void *p)
{
    job_t *j = p;
    FILE *f = fopen(j->in->name, "rb");
    if (!f) {
        j->st = GP_ERR_IO;
        snprintf(j->err, sizeof j->err, "cannot open the file again for member %d", j->member);
        return NULL;
    }
    const gp_array_desc_t *d = &j->in->d;
    const off_t at = (off_t)(d->data_offset + j->first * d->elem_size);
    if (fseeko(f, at, SEEK_SET) != 0) {
        j->st = GP_ERR_IO;
        snprintf(j->err, sizeof j->err, "cannot seek to byte %lld", (long long)at);
    } else if (j->count) {
        gp_stream_opts_t so;
        memset(&so, 0, sizeof so);
        so.threads = 8 / gp_group_local_count(j->g) > 1 ? 8 / gp_group_local_count(j->g) : 1;
        j->st = gp_array_stream(gp_group_ctx(j->g, j->member), f, d, j->count, j->granule, &so, job_chunk, j);
        if (j->st != GP_OK) {
            const char *e = gp_last_error(), *b = strstr(e, "byte ");
            snprintf(j->err, sizeof j->err, "%s", b && j->st == GP_ERR_FORMAT ? b : e);
        }
    }
    fclose(f);
    return NULL;
}

int group_stream(const char *verb, gp_group_t *g, const input_t *in, size_t granule, member_chunk_fn fn, void *user)
{
    if (!in->owned || strcmp(in->name, "-") == 0 || in->want == GP_COUNT_ALL) {
        fprintf(stderr, "gpuprim %s: --devices and --ranks need a file of known length (each GPU reads its own "
                        "part); standard input goes to one device\n", verb);
        return EXIT_USAGE;
    }
    const int k = gp_group_local_count(g);
    job_t *jobs = calloc((size_t)k, sizeof *jobs);
    pthread_t *th = calloc((size_t)k, sizeof *th);
    int *started = calloc((size_t)k, sizeof *started);
    if (!jobs || !th || !started) {
        fprintf(stderr, "gpuprim %s: out of memory\n", verb);
        free(jobs), free(th), free(started);
        return EXIT_FAIL;
    }
    for (int i = 0; i < k; i++) {
        job_t *j = &jobs[i];
        j->g = g, j->member = i, j->in = in, j->granule = granule, j->fn = fn, j->user = user;
        gp_group_split(g, in->d.dtype, in->want, gp_group_rank(g, i), &j->first, &j->count);
        started[i] = pthread_create(&th[i], NULL, job_main, j) == 0;
        if (!started[i]) job_main(j); /* no thread: this member here, in turn */
    }
    int rc = EXIT_OK;
    for (int i = 0; i < k; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        if (jobs[i].st != GP_OK && rc == EXIT_OK) {
            fprintf(stderr, "gpuprim %s: %s: member %d (elements %zu ..): %s\n", verb, in->name, i, jobs[i].first,
                    jobs[i].err);
            rc = EXIT_FAIL;
        }
    }
    free(jobs), free(th), free(started);
    return rc;
}

/* ------------------------------------------------------------------------------------ data held over the group */
static gp_status_t load_chunk(void *user, int member, const void *chunk, size_t count, size_t first, gp_stream_t s)
{
    group_data_t *d = user;
    return gp_memcpy(gp_group_ctx(d->g, member), (char *)d->x[member] + (first - d->first[member]) * d->es, chunk,
                     count * d->es, s);
}

void group_data_free(group_data_t *d)
{
    for (int i = 0; i < d->k && d->xb; i++) {
        gp_mem_free(gp_group_ctx(d->g, i), &d->xb[i]);
        gp_mem_free(gp_group_ctx(d->g, i), &d->yb[i]);
    }
    free(d->first), free(d->counts), free(d->xb), free(d->yb), free(d->x), free(d->y);
    memset(d, 0, sizeof *d);
}

int group_data_load(const char *verb, gp_group_t *g, const input_t *in, size_t out_es, group_data_t *d)
{
    memset(d, 0, sizeof *d);
    d->g = g;
    d->k = gp_group_local_count(g);
    d->total = in->want;
    const size_t k = (size_t)d->k;
    d->first = calloc(k, sizeof *d->first), d->counts = calloc(k, sizeof *d->counts);
    d->xb = calloc(k, sizeof *d->xb), d->yb = calloc(k, sizeof *d->yb);
    d->x = calloc(k, sizeof *d->x), d->y = calloc(k, sizeof *d->y);
    if (!d->first || !d->counts || !d->xb || !d->yb || !d->x || !d->y) {
        fprintf(stderr, "gpuprim %s: out of memory\n", verb);
        group_data_free(d);
        return EXIT_FAIL;
    }
    if (in->want == GP_COUNT_ALL) return group_stream(verb, g, in, 1, load_chunk, d); /* refused there */
    const size_t es = d->es = in->d.elem_size;
    for (int i = 0; i < d->k; i++) {
        gp_ctx_t *c = gp_group_ctx(g, i);
        gp_group_split(g, in->d.dtype, in->want, gp_group_rank(g, i), &d->first[i], &d->counts[i]);
        const size_t n = d->counts[i] ? d->counts[i] : 1;
        if (gp_mem_alloc(c, GP_MEM_DEVICE, n * es, &d->xb[i]) != GP_OK ||
            gp_mem_alloc(c, GP_MEM_DEVICE, n * out_es, &d->yb[i]) != GP_OK) {
            fprintf(stderr, "gpuprim %s: member %d (elements %zu .. %zu of %s): %s\n", verb, i, d->first[i],
                    d->first[i] + d->counts[i], in->name, gp_last_error());
            group_data_free(d);
            return EXIT_FAIL;
        }
        d->x[i] = d->xb[i].device ? d->xb[i].device : d->xb[i].host;
        d->y[i] = d->yb[i].device ? d->yb[i].device : d->yb[i].host;
    }
    return group_stream(verb, g, in, 1, load_chunk, d);
}

int group_data_write(const char *verb, const group_data_t *d, const char *out, const gp_array_desc_t *like,
                     size_t out_es, char *written, size_t wlen)
{
    const int all_here = gp_group_local_count(d->g) == gp_group_size(d->g), rank = gp_group_rank(d->g, 0);
    arr_out_t ao;
    int rc;
    if (all_here) {
        snprintf(written, wlen, "%s", out);
        rc = arr_out_open_like(&ao, verb, out, like);
    } else {
        if (strcmp(out, "-") == 0) {
            fprintf(stderr, "gpuprim %s: -o -: the ranks of a launcher each write their part to OUT.RANK (a file, "
                            "not standard output)\n", verb);
            return EXIT_USAGE;
        }
        snprintf(written, wlen, "%s.%d", out, rank);
        rc = arr_out_open_part(&ao, verb, written, like, rank == 0 && out_is_npy(out),
                               d->total);
    }
    if (rc != EXIT_OK) return rc;
    const size_t piece = ((size_t)16 << 20) / out_es;
    void *h = malloc(piece * out_es);
    gp_status_t st = h ? GP_OK : GP_ERR_OUT_OF_MEMORY;
    for (int i = 0; i < d->k && st == GP_OK; i++)
        for (size_t at = 0; at < d->counts[i] && st == GP_OK; at += piece) {
            const size_t c = d->counts[i] - at < piece ? d->counts[i] - at : piece;
            st = gp_memcpy_sync(gp_group_ctx(d->g, i), h, (const char *)d->y[i] + at * out_es, c * out_es);
            if (st == GP_OK && arr_out_write(&ao, h, c) != 0) st = GP_ERR_IO;
        }
    free(h);
    if (st != GP_OK) {
        rc = stream_failed(verb, written, st, &ao, NULL);
        arr_out_close(&ao, verb, 0);
        return rc;
    }
    return arr_out_close(&ao, verb, 1);
}
