/* group_run.c — `--devices` for the data verbs: see group_run.h. */
#define _POSIX_C_SOURCE 200809L
#include "group_run.h"

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
