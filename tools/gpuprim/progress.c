/* progress.c — what a verb shows while it works (util.h): a progress bar for streamed work, a spinner for work that
 * reports no steps; both on a terminal only, after progress_after() seconds. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void progress_bar(void *user, size_t done, size_t total)
{
    progress_bar_t *b = user;
    if (!isatty(2)) return;
    const double el = now_seconds() - b->t0;
    if (el < progress_after()) return; /* only work that takes over a second shows a bar */
    if (total) {
        int w = 40, k = (int)((double)done / (double)total * w);
        fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.0f MB/s", k, "########################################", w - k, "",
                100.0 * (double)done / (double)total, (double)done / el / 1e6);
    } else {
        fprintf(stderr, "\r%.1f MB  %.0f MB/s", (double)done / 1e6, (double)done / el / 1e6);
    }
    b->shown = 1;
}

double progress_after(void)
{
    const char *e = getenv("GPUPRIM_PROGRESS_AFTER");
    double v;
    if (e && parse_number(e, &v) == 0 && v >= 0) return v;
    return 1.0;
}

typedef struct spin_impl {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, shown;
    double t0, after;
    char what[96];
} spin_impl_t;

static void *spin_main(void *arg)
{
    spin_impl_t *p = arg;
    static const char marks[] = "|/-\\";
    int k = 0;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        const double el = now_seconds() - p->t0;
        if (el >= p->after) {
            fprintf(stderr, "\r%c %s  %.1f s", marks[k++ % 4], p->what, el);
            fflush(stderr);
            p->shown = 1;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void spinner_start(spinner_t *s, const char *what)
{
    s->impl = NULL;
    if (!isatty(2)) return;
    spin_impl_t *p = calloc(1, sizeof *p);
    if (p == NULL) return; /* no spinner is no failure */
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->t0 = now_seconds(), p->after = progress_after();
    snprintf(p->what, sizeof p->what, "%s", what);
    if (p->after <= 0) { /* at once: the first frame before the work starts */
        fprintf(stderr, "\r| %s  0.0 s", p->what);
        p->shown = 1;
    }
    if (pthread_create(&p->th, NULL, spin_main, p) != 0) {
        if (p->shown) fprintf(stderr, "\r%*s\r", (int)strlen(p->what) + 16, "");
        pthread_cond_destroy(&p->cv), pthread_mutex_destroy(&p->mu), free(p);
        return;
    }
    s->impl = p;
}

void spinner_set(spinner_t *s, const char *fmt, ...)
{
    spin_impl_t *p = s->impl;
    if (p == NULL) return;
    char what[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&p->mu);
    if (p->shown) fprintf(stderr, "\r%*s", (int)strlen(p->what) + 16, ""); /* the longer label's tail cleared */
    snprintf(p->what, sizeof p->what, "%s", what);
    const double el = now_seconds() - p->t0;
    if (el >= p->after) { /* the new phase drawn at once */
        fprintf(stderr, "\r| %s  %.1f s", p->what, el);
        fflush(stderr);
        p->shown = 1;
    }
    pthread_mutex_unlock(&p->mu);
}

void spinner_stop(spinner_t *s)
{
    spin_impl_t *p = s->impl;
    if (p == NULL) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->th, NULL);
    if (p->shown) fprintf(stderr, "\r%*s\r", (int)strlen(p->what) + 16, "");
    pthread_cond_destroy(&p->cv), pthread_mutex_destroy(&p->mu), free(p);
    s->impl = NULL;
}
