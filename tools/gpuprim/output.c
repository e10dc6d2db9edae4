/*
 * output.c — arr_out (output.h): a streamed array to a .npy or raw file, written whole or not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

FILE *summary_stream(const char *out_path) { return out_path && strcmp(out_path, "-") == 0 ? stderr : stdout; }

/* The .npy header for count elements (a->like's trailing dimensions). */
static gp_status_t arr_header(const arr_out_t *a, size_t count, size_t min_bytes, unsigned char *head, size_t cap,
                              size_t *bytes)
{
    gp_array_desc_t d = a->like;
    size_t inner = 1;
    for (int k = 1; k < d.ndim; k++) inner *= d.shape[k];
    if (d.ndim == 0 && count != 1) d.ndim = 1; /* a 0-d input cannot hold another count */
    if (d.ndim >= 1) d.shape[0] = count == (size_t)-1 ? count : inner ? count / inner : d.shape[0]; /* (r, 0): r */
    if (d.ndim >= 1 && count != (size_t)-1 && inner && count % inner) d.ndim = 1, d.shape[0] = count;
    if (count == (size_t)-1) /* the longest header any count can need */
        for (int k = 0; k < d.ndim; k++) d.shape[k] = (size_t)-1;
    d.fortran_order = 0;
    return gp_npy_header_desc(&d, min_bytes, head, cap, bytes);
}

static int arr_open(arr_out_t *a, const char *verb, const char *path, const gp_array_desc_t *like, int npy, int whole,
                    size_t total)
{
    memset(a, 0, sizeof *a);
    a->like = *like;
    a->npy = npy;
    a->whole = whole, a->total = total;
    if ((a->f = out_open(&a->o, path)) == NULL) {
        char why[4400];
        out_describe(&a->o, 0, why, sizeof why);
        fprintf(stderr, "gpuprim %s: cannot write %s: %s\n", verb, path, why);
        return EXIT_FAIL;
    }
    if (a->npy) { /* room for the longest count */
        unsigned char head[1024];
        const char *why = NULL;
        if (like->dtype == GP_BF16)
            why = "bf16 has no .npy dtype (NumPy has no bfloat16): write raw elements (a name not ending in .npy)";
        else if (arr_header(a, (size_t)-1, 0, head, sizeof head, &a->hbytes) != GP_OK)
            why = gp_last_error();
        else if (fwrite(head, 1, a->hbytes, a->f) != a->hbytes)
            why = strerror(errno ? errno : EIO);
        if (why) {
            fprintf(stderr, "gpuprim %s: %s: %s (nothing written)\n", verb, path, why);
            out_close(&a->o, 0);
            a->f = NULL;
            return EXIT_FAIL;
        }
    }
    return EXIT_OK;
}

int arr_out_open_like(arr_out_t *a, const char *verb, const char *path, const gp_array_desc_t *like)
{
    const int npy = out_is_npy(path);
    if (!npy && strcmp(path, "-") != 0) { /* a name with no extension at all: said, since np.save would add .npy */
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        struct stat sb;
        if (!strchr(base, '.') && !(stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)))
            fprintf(stderr, "gpuprim %s: note: %s does not end in .npy: raw elements written (name it .npy for a "
                            ".npy file)\n", verb, path);
    }
    return arr_open(a, verb, path, like, npy, 0, 0);
}

int arr_out_open_part(arr_out_t *a, const char *verb, const char *path, const gp_array_desc_t *like, int npy,
                      size_t total)
{
    return arr_open(a, verb, path, like, npy, 1, total);
}

int arr_out_open(arr_out_t *a, const char *verb, const char *path, gp_dtype_t dtype)
{
    gp_array_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = dtype, d.ndim = 1;
    return arr_out_open_like(a, verb, path, &d);
}

/* ------------------------------------------------------------------------------------------ the writer thread
 * A ring of QDEPTH queued writes, each the caller's buffer (submit) or a copy (write); the thread writes them in order
 * and is the only one to touch a->f until arr_out_drain returns. */
enum { QDEPTH = 4 };
typedef struct arr_writer {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* queue changed (either way) */
    struct wq {
        const void *p;
        size_t bytes;
        void *own; /* a copy to free once written (arr_out_write) */
    } q[QDEPTH];
    int head, n, busy; /* busy: the thread holds q[head] (written, not yet popped) */
    int stop, err;
} arr_writer_t;

static void *writer_main(void *p)
{
    arr_out_t *a = p;
    arr_writer_t *w = a->w;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->n == 0 && !w->stop) pthread_cond_wait(&w->cv, &w->mu);
        if (w->n == 0) break;
        const struct wq job = w->q[w->head];
        w->busy = 1;
        const int failed = w->err != 0;
        pthread_mutex_unlock(&w->mu);
        int e = 0;
        if (!failed && job.bytes && fwrite(job.p, 1, job.bytes, a->f) != job.bytes) e = errno ? errno : EIO;
        free(job.own);
        pthread_mutex_lock(&w->mu);
        if (e && !w->err) w->err = e;
        w->head = (w->head + 1) % QDEPTH, w->n--, w->busy = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int queue_write(arr_out_t *a, const void *p, size_t bytes, void *own)
{
    arr_writer_t *w = a->w;
    if (!w) { /* no thread: written here */
        const int e = bytes && fwrite(p, 1, bytes, a->f) != bytes ? (errno ? errno : EIO) : 0;
        free(own);
        if (e) a->err = e;
        return e ? -1 : 0;
    }
    pthread_mutex_lock(&w->mu);
    while (w->n == QDEPTH && !w->err) pthread_cond_wait(&w->cv, &w->mu);
    const int e = w->err;
    if (!e) {
        w->q[(w->head + w->n) % QDEPTH] = (struct wq){p, bytes, own};
        w->n++;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    if (e) {
        free(own);
        a->err = e;
        return -1;
    }
    return 0;
}

/* The thread is started with the first write (an output that is never written costs no thread). */
static void writer_start(arr_out_t *a)
{
    arr_writer_t *w = calloc(1, sizeof *w);
    if (!w) return;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    a->w = w;
    if (pthread_create(&w->th, NULL, writer_main, a) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        a->w = NULL;
    }
}

int arr_out_drain(arr_out_t *a)
{
    arr_writer_t *w = a->w;
    if (!w) return a->err ? -1 : 0;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    if (w->err && !a->err) a->err = w->err;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
    a->w = NULL;
    return a->err ? -1 : 0;
}

void arr_out_release(arr_out_t *a, const void *buf)
{
    arr_writer_t *w = a->w;
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        int held = 0;
        for (int k = 0; k < w->n; k++) held |= w->q[(w->head + k) % QDEPTH].p == buf;
        if (!held) break;
        pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
}

int arr_out_submit(arr_out_t *a, const void *buf, size_t n)
{
    if (a->err) return -1;
    if (!a->w && n) writer_start(a);
    if (queue_write(a, buf, n * gp_dtype_size(a->like.dtype), NULL) != 0) return -1;
    a->count += n;
    return 0;
}

int arr_out_write(arr_out_t *a, const void *data, size_t n)
{
    if (a->err) return -1;
    const size_t bytes = n * gp_dtype_size(a->like.dtype);
    if (!a->w && n) writer_start(a);
    void *copy = NULL;
    if (a->w && bytes) {
        if ((copy = malloc(bytes)) == NULL) { /* no room for a copy: wait for the queue, then write it here */
            if (arr_out_drain(a) != 0) return -1;
        } else {
            memcpy(copy, data, bytes);
        }
    }
    if (queue_write(a, copy ? copy : data, bytes, copy) != 0) return -1;
    a->count += n;
    return 0;
}

int arr_out_put(arr_out_t *a, gp_ctx_t *ctx, const void *p, size_t n)
{
    if (a->err || arr_out_drain(a) != 0) return -1;
    gp_stream_opts_t so;
    memset(&so, 0, sizeof so);
    so.map_pages = 1;
    if (gp_array_write(ctx, a->f, p, n * gp_dtype_size(a->like.dtype), &so) != GP_OK) {
        snprintf(a->why, sizeof a->why, "%s", gp_last_error());
        a->err = EIO;
        return -1;
    }
    a->count += n;
    return 0;
}

/* Flushes a, its real header written: 0, or -1 with a->err set (the temporary removed). */
static int arr_finish(arr_out_t *a)
{
    arr_out_drain(a);
    int ok = !a->err;
    if (ok && a->npy) { /* the real count into the reserved header */
        unsigned char head[1024];
        size_t h2 = 0;
        if (arr_header(a, a->whole ? a->total : a->count, a->hbytes, head, sizeof head, &h2) != GP_OK ||
            h2 != a->hbytes ||
            fflush(a->f) != 0 || fseeko(a->f, 0, SEEK_SET) != 0 || fwrite(head, 1, h2, a->f) != h2)
            ok = 0, a->err = errno ? errno : EIO;
    }
    if (out_finish(&a->o, ok) != 0) {
        if (!a->err) a->err = a->o.err ? a->o.err : EIO;
        ok = 0;
    }
    a->f = NULL;
    return ok ? 0 : -1;
}

static int arr_failed(const arr_out_t *a, const char *verb)
{
    char why[4400];
    out_describe(&a->o, a->err, why, sizeof why);
    fprintf(stderr, "gpuprim %s: cannot write %s: %s\n", verb, a->o.path, why);
    return EXIT_FAIL;
}

int arr_out_close(arr_out_t *a, const char *verb, int ok)
{
    if (a->f == NULL) return ok ? EXIT_FAIL : EXIT_OK;
    if (!ok) { /* discarded on purpose */
        arr_out_drain(a);
        out_finish(&a->o, 0);
        a->f = NULL;
        return EXIT_OK;
    }
    if (arr_finish(a) != 0) return arr_failed(a, verb);
    if (out_commit(&a->o) != 0) {
        a->err = a->o.err;
        return arr_failed(a, verb);
    }
    return EXIT_OK;
}

int arr_out_close_all(arr_out_t *const *a, int n, const char *verb)
{
    for (int i = 0; i < n; i++)
        if (a[i]->f == NULL) return EXIT_FAIL;
    for (int i = 0; i < n; i++) /* every output finished before any is committed */
        if (arr_finish(a[i]) != 0) {
            for (int j = 0; j < n; j++)
                if (j < i) out_discard(&a[j]->o);
                else if (j > i) arr_out_close(a[j], verb, 0);
            return arr_failed(a[i], verb);
        }
    for (int i = 0; i < n; i++)
        if (out_commit(&a[i]->o) != 0) {
            a[i]->err = a[i]->o.err;
            for (int j = i + 1; j < n; j++) out_discard(&a[j]->o);
            if (i == 0) return arr_failed(a[0], verb);
            fprintf(stderr, "gpuprim %s: %s could not be written: %s (", verb, a[i]->o.path, strerror(a[i]->err));
            for (int j = 0; j < i; j++) fprintf(stderr, "%s%s", j ? ", " : "", a[j]->o.path);
            fprintf(stderr, " %s)\n", i > 1 ? "were written" : "was written");
            return EXIT_FAIL;
        }
    return EXIT_OK;
}

int arr_out_close_pair(arr_out_t *a, arr_out_t *b, const char *verb)
{
    arr_out_t *const two[2] = {a, b};
    return arr_out_close_all(two, 2, verb);
}

int stream_failed(const char *verb, const char *path, gp_status_t st, const arr_out_t *a, const arr_out_t *b)
{
    const int err = a && a->err ? a->err : b && b->err ? b->err : 0;
    if (err) {
        const arr_out_t *w = a && a->err ? a : b;
        char why[4400];
        out_describe(&w->o, err, why, sizeof why);
        fprintf(stderr, "gpuprim %s: cannot write %s: %s\n", verb, w->o.path, why);
        return EXIT_FAIL;
    }
    const char *e = gp_last_error(), *p = strstr(e, "byte ");
    fprintf(stderr, "gpuprim %s: %s: %s (nothing written)\n", verb, path, p && st == GP_ERR_FORMAT ? p : e);
    return EXIT_FAIL;
}

void rec_emit(const record_t *r, out_format_t fmt, const char *line, FILE *f)
{
    if (fmt != FMT_TABLE) {
        rec_print(r, fmt, f);
        return;
    }
    for (const char *p = line; *p; p++) {
        const char *end = *p == '{' ? strchr(p, '}') : NULL;
        if (!end) {
            fputc(*p, f);
            continue;
        }
        char key[64], num[32] = "";
        const size_t len = (size_t)(end - p - 1);
        snprintf(key, sizeof key, "%.*s", (int)(len < sizeof key ? len : sizeof key - 1), p + 1);
        char *colon = strchr(key, ':');
        if (colon) snprintf(num, sizeof num, "%s", colon + 1), *colon = 0;
        int k = 0;
        while (k < r->n && strcmp(r->key[k], key) != 0) k++;
        if (k == r->n) {
            fputc('?', f);
        } else if (num[0]) {
            fprintf(f, num, strtod(r->val[k], NULL));
        } else {
            for (const char *c = r->val[k]; *c; c++) /* a JSON value's strings ("nan") shown bare */
                if (!(r->raw[k] && *c == '"')) fputc(*c, f);
        }
        p = end;
    }
}

void rec_add_run(record_t *r, double secs, double bytes, size_t head_elements, const char *device)
{
    rec_add(r, "seconds", 1, "%.6f", secs);
    rec_add(r, "gbps", 1, "%.3f", secs > 0 ? bytes / secs / 1e9 : 0.0);
    rec_add(r, "cpu_head_elements", 1, "%zu", head_elements);
    rec_add(r, "device", 0, "%s", device);
}
