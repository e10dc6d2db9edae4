/* util.c — CLI helpers: options, devices, contexts, progress (values of options are parsed by lab/parse.c). */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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

/* The model behind --device auto: per-core CPU rates of the CPU backend, the GPU's start-up, page-cache reads;
 * the rates below and where they were measured: docs/design/io.md, "Tuning". */
#define EST_GPU_STARTUP 0.25
#define EST_READ_GBS 6.0
#define EST_H2D_GBS 20.0

void work_estimate(const work_t *w, double *cpu_s, double *gpu_s)
{
    gp_cpu_info_t ci;
    int threads = w->threads;
    if (threads <= 0) threads = gp_cpu_info(&ci) == GP_OK && ci.omp_max_threads > 0 ? ci.omp_max_threads : 1;
    double per_core = 10.0; /* GB/s */
    switch (w->kind) {
    case WORK_REDUCE_FAST: per_core = 10.0; break;
    case WORK_REDUCE_SLOW: per_core = 0.5; break;
    case WORK_ORDERED: per_core = 1.0; break;
    case WORK_HIST: per_core = 1.1; break;
    case WORK_HIST_WIDE: per_core = 0.1; break;
    case WORK_TRANSPOSE: per_core = 4.5; break;
    case WORK_GEMM: per_core = 0; break;
    case WORK_SCAN: per_core = 1.0; break; /* the tile pass twice over (aggregates, then outputs) */
    }
    const double b = w->bytes < 0 ? 1e9 : w->bytes; /* unknown: compare per GB, without start-up */
    const double cpu_dev = w->kind == WORK_GEMM ? w->flops / (85e9 * threads) : b / (per_core * 1e9 * threads);
    const double gpu_dev = w->kind == WORK_GEMM ? w->flops / 40e12 : 0;
    double cpu = b / (EST_READ_GBS * 1e9), gpu = cpu;
    if (w->kind == WORK_REDUCE_FAST || w->kind == WORK_REDUCE_SLOW || w->kind == WORK_ORDERED || w->kind == WORK_HIST ||
        w->kind == WORK_HIST_WIDE) {
        cpu = cpu > cpu_dev ? cpu : cpu_dev; /* the streamed CPU backend reduces as it reads (threads) */
        gpu += b / (EST_H2D_GBS * 1e9) * 0.1; /* copies overlap the reads: a tail */
    } else {
        cpu += cpu_dev;
        gpu += 2 * b / (EST_H2D_GBS * 1e9) + gpu_dev;
    }
    if (w->bytes >= 0) gpu += EST_GPU_STARTUP;
    *cpu_s = cpu, *gpu_s = gpu;
}

int pick_device(const char *verb, int device, const work_t *w, int quiet)
{
    if (device != DEVICE_FASTEST) return device;
    double c, g;
    work_estimate(w, &c, &g);
    const int cpu = c <= g;
    if (!quiet) {
        if (w->bytes < 0)
            fprintf(stderr, "gpuprim %s: --device auto: the %s (input of unknown size: %.2f s/GB on the CPU, %.2f s/GB "
                    "on a GPU, estimated)\n", verb, cpu ? "CPU backend" : "GPU", c, g);
        else
            fprintf(stderr, "gpuprim %s: --device auto: the %s (estimated %.3f s on the CPU backend, %.3f s on a GPU "
                    "with its start-up)\n", verb, cpu ? "CPU backend" : "GPU", c, g);
    }
    return cpu ? GP_DEVICE_CPU : DEVICE_AUTO;
}


/* A scalar of kind acc (GP_F32, GP_F64, GP_I64 or else unsigned) as JSON or text: %.9g / %.17g, nan and inf as
 * strings in JSON. */
void print_scalar(FILE *o, int32_t acc, gp_scalar_t v, int json)
{
    double d = acc == GP_F32 ? (double)v.f32 : acc == GP_F64 ? v.f64 : 0;
    if ((acc == GP_F32 || acc == GP_F64) && !isfinite(d)) {
        const char *s = isnan(d) ? "nan" : d > 0 ? "inf" : "-inf";
        fprintf(o, json ? "\"%s\"" : "%s", s);
    } else if (acc == GP_F32) {
        fprintf(o, "%.9g", d);
    } else if (acc == GP_F64) {
        fprintf(o, "%.17g", d);
    } else if (acc == GP_I64) {
        fprintf(o, "%lld", (long long)v.i64);
    } else {
        fprintf(o, "%llu", (unsigned long long)v.u64);
    }
}

/* One value of dtype at p, as JSON or text. */
void print_elem(FILE *o, gp_dtype_t dt, const void *p, int json)
{
    gp_scalar_t v;
    int32_t kind = GP_I64;
    v.u64 = 0;
    switch (dt) {
    case GP_U8: v.u64 = *(const uint8_t *)p, kind = GP_U64; break;
    case GP_U16: v.u64 = *(const uint16_t *)p, kind = GP_U64; break;
    case GP_U32: v.u64 = *(const uint32_t *)p, kind = GP_U64; break;
    case GP_U64: memcpy(&v.u64, p, 8), kind = GP_U64; break;
    case GP_I8: v.i64 = *(const int8_t *)p; break;
    case GP_I16: v.i64 = *(const int16_t *)p; break;
    case GP_I32: v.i64 = *(const int32_t *)p; break;
    case GP_I64: memcpy(&v.i64, p, 8); break;
    case GP_F16: v.f32 = gp_f16_to_f32(*(const uint16_t *)p), kind = GP_F32; break;
    case GP_BF16: v.f32 = gp_bf16_to_f32(*(const uint16_t *)p), kind = GP_F32; break;
    case GP_F32: memcpy(&v.f32, p, 4), kind = GP_F32; break;
    default: memcpy(&v.f64, p, 8), kind = GP_F64; break;
    }
    print_scalar(o, kind, v, json);
}


