/* harness.c — the measuring harness of the bench suites and the lab topics (bench.h). */
#include "bench.h"

#include "core/internal.h"
#include "core/half.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_stats_of(double *ms, int reps, bench_stats_t *out)
{
    qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
    out->reps = reps;
    out->min_ms = ms[0];
    out->max_ms = ms[reps - 1];
    out->median_ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

gp_status_t bench_time(gp_ctx_t *ctx, bench_fn fn, bench_fn setup, void *user, int warmup, int reps,
                       gp_stream_t stream, bench_stats_t *out)
{
    gp_status_t st = GP_OK;
    gp_timer_t *t = NULL;
    double *ms = calloc((size_t)(reps > 0 ? reps : 1), sizeof *ms);
    if (ms == NULL) return GP_ERR_OUT_OF_MEMORY;
    if ((st = gp_timer_create(ctx, &t)) != GP_OK) goto done;
    for (int r = 0; r < warmup; r++) {
        if (setup && (st = setup(user, r, stream)) != GP_OK) goto done;
        if ((st = fn(user, r, stream)) != GP_OK) goto done;
    }
    if ((st = gp_stream_sync(ctx, stream)) != GP_OK) goto done;
    for (int r = 0; r < reps; r++) {
        if (setup && (st = setup(user, warmup + r, stream)) != GP_OK) goto done;
        if ((st = gp_timer_start(t, stream)) != GP_OK) goto done;
        if ((st = fn(user, warmup + r, stream)) != GP_OK) goto done;
        if ((st = gp_timer_stop(t, stream)) != GP_OK) goto done;
        if ((st = gp_timer_elapsed_ms(t, &ms[r])) != GP_OK) goto done;
    }
    bench_stats_of(ms, reps, out);
done:
    gp_timer_destroy(t);
    free(ms);
    return st;
}

gp_status_t bench_time_pair(gp_ctx_t *ctx, bench_fn a, bench_fn b, void *user, int warmup, int reps,
                            gp_stream_t stream, bench_stats_t *sa, bench_stats_t *sb)
{
    gp_status_t st = GP_OK;
    gp_timer_t *t = NULL;
    const int n = reps > 0 ? reps : 1;
    double *ma = calloc((size_t)n, sizeof *ma), *mb = calloc((size_t)n, sizeof *mb);
    if (ma == NULL || mb == NULL) {
        st = GP_ERR_OUT_OF_MEMORY;
        goto done;
    }
    if ((st = gp_timer_create(ctx, &t)) != GP_OK) goto done;
    for (int r = 0; r < warmup; r++)
        if ((st = a(user, r, stream)) != GP_OK || (st = b(user, r, stream)) != GP_OK) goto done;
    if ((st = gp_stream_sync(ctx, stream)) != GP_OK) goto done;
    for (int r = 0; r < n; r++) /* A then B, then B then A: neither is always first after the other */
        for (int k = 0; k < 2; k++) {
            const int first_a = r % 2 == 0;
            const int run_a = k == 0 ? first_a : !first_a;
            if ((st = gp_timer_start(t, stream)) != GP_OK) goto done;
            if ((st = (run_a ? a : b)(user, warmup + r, stream)) != GP_OK) goto done;
            if ((st = gp_timer_stop(t, stream)) != GP_OK) goto done;
            if ((st = gp_timer_elapsed_ms(t, run_a ? &ma[r] : &mb[r])) != GP_OK) goto done;
        }
    bench_stats_of(ma, n, sa);
    bench_stats_of(mb, n, sb);
done:
    gp_timer_destroy(t);
    free(ma);
    free(mb);
    return st;
}

int bench_rotation_sets(gp_ctx_t *ctx, size_t set_bytes, int max_sets)
{
    int dev = gp_ctx_device(ctx);
    size_t l2 = 64u << 20; /* CPU: assume a large last-level cache */
    gp_device_info_t d;
    if (dev != GP_DEVICE_CPU && gp_device_info(dev, &d) == GP_OK) l2 = (size_t)d.l2_bytes;
    if (set_bytes == 0) return 1;
    size_t k = 2 * l2 / set_bytes + 1;
    if (k < 1) k = 1;
    if (k > (size_t)max_sets) k = (size_t)max_sets;
    return (int)k;
}

typedef struct ceil_job {
    gp_ctx_t *ctx;
    void *a, *b;
    unsigned int *sink;
    size_t bytes;
} ceil_job_t;

static gp_status_t run_d2d(void *u, int rep, gp_stream_t s)
{
    ceil_job_t *j = u;
    if (gp_ctx_device(j->ctx) == GP_DEVICE_CPU) {
        const long long nb = 64;
        size_t chunk = (j->bytes + nb - 1) / nb;
#pragma omp parallel for schedule(static)
        for (long long c = 0; c < nb; c++) {
            size_t lo = (size_t)c * chunk, hi = lo + chunk < j->bytes ? lo + chunk : j->bytes;
            if (lo < hi) memcpy((char *)j->b + lo, (const char *)j->a + lo, hi - lo);
        }
        return GP_OK;
    }
    return rep & 1 ? gp_memcpy(j->ctx, j->a, j->b, j->bytes, s) : gp_memcpy(j->ctx, j->b, j->a, j->bytes, s);
}

static gp_status_t run_read(void *u, int rep, gp_stream_t s)
{
    ceil_job_t *j = u;
    (void)rep;
    if (gp_ctx_device(j->ctx) == GP_DEVICE_CPU) {
        const uint64_t *w = j->a;
        long long nw = (long long)(j->bytes / 8);
        uint64_t acc = 0;
#pragma omp parallel for schedule(static) reduction(^ : acc)
        for (long long i = 0; i < nw; i++) acc ^= w[i];
        if (acc == 0x9e3779b97f4a7c15ull) *j->sink = 1;
        return GP_OK;
    }
    return gp__core_gpu_ops.read(j->ctx, j->a, j->bytes, j->sink, s);
}

gp_status_t bench_ceilings(gp_ctx_t *ctx, size_t bytes, int warmup, int reps, bench_ceilings_t *out)
{
    gp_status_t st;
    gp_buffer_t a = {0}, b = {0}, sink = {0};
    bytes &= ~(size_t)15;
    if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &a)) != GP_OK) goto done;
    if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &b)) != GP_OK) goto done;
    if ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, 64, &sink)) != GP_OK) goto done;
    if ((st = bench_fill_random(ctx, a.device, bytes / 4, GP_I32, 11)) != GP_OK) goto done;
    if ((st = gp_memset(ctx, b.device, 0x5a, bytes, NULL)) != GP_OK) goto done;
    ceil_job_t j = {ctx, a.device, b.device, sink.device, bytes};
    bench_stats_t sd, sr;
    if ((st = bench_time(ctx, run_d2d, NULL, &j, warmup, reps, NULL, &sd)) != GP_OK) goto done;
    if ((st = bench_time(ctx, run_read, NULL, &j, warmup, reps, NULL, &sr)) != GP_OK) goto done;
    out->bytes = bytes;
    out->d2d_gbs = bench_gbs(2.0 * (double)bytes, sd.median_ms);
    out->read_gbs = bench_gbs((double)bytes, sr.median_ms);
done:
    gp_mem_free(ctx, &a);
    gp_mem_free(ctx, &b);
    gp_mem_free(ctx, &sink);
    return st;
}

gp_status_t bench_fill_random(gp_ctx_t *ctx, void *dst, size_t n, gp_dtype_t dtype, unsigned long long seed)
{
    if (gp_ctx_device(ctx) != GP_DEVICE_CPU) {
        gp_status_t st = gp__core_gpu_ops.fill_random(ctx, dst, n, dtype, seed, NULL);
        return st != GP_OK ? st : gp_stream_sync(ctx, NULL);
    }
    /* The same values as the kernel: splitmix64 of (seed, i). */
#pragma omp parallel for schedule(static)
    for (long long ii = 0; ii < (long long)n; ii++) {
        uint64_t z = seed * 0x2545f4914f6cdd1dull + (uint64_t)ii + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        if (dtype == GP_F32)
            ((float *)dst)[ii] = (float)((double)(z >> 40) * 0x1p-23 - 1.0);
        else if (dtype == GP_F64)
            ((double *)dst)[ii] = (double)(z >> 11) * 0x1p-52 - 1.0;
        else if (dtype == GP_U8)
            ((uint8_t *)dst)[ii] = (uint8_t)(z >> 56);
        else if (dtype == GP_U32)
            ((uint32_t *)dst)[ii] = (uint32_t)(z >> 32);
        else if (dtype == GP_F16 || dtype == GP_BF16) {
            const float v = (float)((double)(z >> 40) * 0x1p-23 - 1.0);
            ((uint16_t *)dst)[ii] = dtype == GP_F16 ? gp__f32_to_f16(v) : gp__f32_to_bf16(v);
        }
        else
            ((int32_t *)dst)[ii] = (int32_t)(z >> 53) - 1024;
    }
    return GP_OK;
}

void bench_bars_add(bench_bars_t *b, double value, const char *fmt, ...)
{
    if (b->n >= BENCH_MAX_BARS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->text[b->n], sizeof b->text[0], fmt, ap);
    va_end(ap);
    b->labels[b->n] = b->text[b->n];
    b->values[b->n++] = value;
}

/* ---------------------------------------------------------------------------------------------- references */
gp_status_t bench_ref_memcpy(void *dst, const void *src, size_t bytes, gp_stream_t stream)
{
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream) == cudaSuccess ? GP_OK
                                                                                                    : GP_ERR_CUDA;
}

struct bench_fork {
    cudaStream_t side;
    cudaEvent_t fork, join;
};

gp_status_t bench_fork_create(bench_fork_t **out)
{
    bench_fork_t *f = calloc(1, sizeof *f);
    *out = NULL;
    if (f == NULL) return GP_ERR_OUT_OF_MEMORY;
    if (cudaStreamCreateWithFlags(&f->side, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&f->fork, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventCreateWithFlags(&f->join, cudaEventDisableTiming) != cudaSuccess) {
        bench_fork_destroy(f);
        return GP_ERR_CUDA;
    }
    *out = f;
    return GP_OK;
}

gp_status_t bench_fork_begin(bench_fork_t *f, gp_stream_t main, gp_stream_t *side)
{
    *side = f->side;
    return cudaEventRecord(f->fork, (cudaStream_t)main) == cudaSuccess &&
                   cudaStreamWaitEvent(f->side, f->fork, 0) == cudaSuccess
               ? GP_OK
               : GP_ERR_CUDA;
}

gp_status_t bench_fork_end(bench_fork_t *f, gp_stream_t main)
{
    return cudaEventRecord(f->join, f->side) == cudaSuccess &&
                   cudaStreamWaitEvent((cudaStream_t)main, f->join, 0) == cudaSuccess
               ? GP_OK
               : GP_ERR_CUDA;
}

void bench_fork_destroy(bench_fork_t *f)
{
    if (f == NULL) return;
    if (f->fork) cudaEventDestroy(f->fork);
    if (f->join) cudaEventDestroy(f->join);
    if (f->side) cudaStreamDestroy(f->side);
    free(f);
}
