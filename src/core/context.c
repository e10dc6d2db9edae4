/* context.c — contexts, streams, timers, the context-owned workspace. */
#define _DEFAULT_SOURCE /* madvise */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

void *gp__host_alloc(size_t bytes)
{
    if (bytes == 0) return NULL;
    void *p = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* from 4 MiB: 2 MiB-aligned and advised, so Linux may back it with huge pages — a first touch then costs one
     * fault per 2 MiB where 4 KiB pages took 512 */
    enum { HUGE = 2u << 20 };
    if (bytes >= 2 * (size_t)HUGE) {
        const size_t whole = (bytes + HUGE - 1) / HUGE * HUGE;
        if (posix_memalign(&p, HUGE, whole) != 0) return NULL;
        (void)madvise(p, whole, MADV_HUGEPAGE); /* advice: refused where huge pages are off, said nothing */
        return p;
    }
#endif
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

void gp__host_free(void *p) { free(p); }

gp_status_t gp_device_count(int *count)
{
    GP_ARG_NONNULL("gp_device_count", count);
    *count = 0;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gp__cuda_error(e, "gp_device_count: cudaGetDeviceCount", __FILE__, __LINE__);
    }
    *count = n;
    if (n == 0) return gp__error(GP_ERR_NO_DEVICE, "gp_device_count: the driver reports no CUDA device");
    return GP_OK;
}

gp_status_t gp__ctx_enter(gp_ctx_t *ctx, const char *fn)
{
    if (ctx == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
    if (ctx->device == GP_DEVICE_CPU) return GP_OK;
    cudaError_t e = cudaSetDevice(ctx->device);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, fn, __FILE__, __LINE__);
}

void **gp__ctx_attach(gp_ctx_t *ctx, const void *key, void (*release)(gp_ctx_t *ctx, void *data))
{
    for (gp__attach_t *a = ctx->attached; a; a = a->next)
        if (a->key == key) return &a->data;
    gp__attach_t *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->key = key, a->release = release, a->next = ctx->attached;
    ctx->attached = a;
    return &a->data;
}

/* Releases what a context holds without touching the thread's error detail (create's failure path keeps its own). */
static cudaError_t ctx_release(gp_ctx_t *ctx)
{
    cudaError_t e = cudaSuccess;
    if (ctx->cap) gp__capture_abandon(ctx);
    if (ctx->attached && ctx->device != GP_DEVICE_CPU) (void)cudaSetDevice(ctx->device);
    while (ctx->attached) {
        gp__attach_t *a = ctx->attached;
        ctx->attached = a->next;
        if (a->release) a->release(ctx, a->data);
        free(a);
    }
    if (ctx->device != GP_DEVICE_CPU && (ctx->ws || ctx->counters || ctx->host_result || ctx->dev_result)) {
        e = cudaSetDevice(ctx->device);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (ctx->ws) cudaFree(ctx->ws);
        if (ctx->counters) cudaFree(ctx->counters);
        if (ctx->host_result) cudaFreeHost(ctx->host_result);
        if (ctx->dev_result) cudaFree(ctx->dev_result);
        (void)cudaGetLastError();
    }
    free(ctx);
    return e;
}

gp_status_t gp_ctx_create(gp_ctx_t **out, int device)
{
    GP_ARG_NONNULL("gp_ctx_create", out);
    if (device == GP_DEVICE_DEFAULT) {
        /* GPU 0 when a device and a driver answer, else the CPU backend; the reason stays with the context. */
        gp_status_t st = gp_ctx_create(out, 0);
        if (st == GP_OK) return st;
        char why[sizeof((gp_ctx_t *)0)->note];
        snprintf(why, sizeof why, "%s", gp_last_error());
        st = gp_ctx_create(out, GP_DEVICE_CPU);
        if (st == GP_OK) snprintf((*out)->note, sizeof (*out)->note, "%s", why);
        return st;
    }
    if (device < GP_DEVICE_CPU)
        return gp__error(GP_ERR_INVALID_ARG, "gp_ctx_create: device %d is neither an ordinal nor GP_DEVICE_CPU",
                         device);
    gp_status_t st = GP_OK;
    gp_ctx_t *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_ctx_create: no host memory for the context");
    ctx->device = device;
    if (device != GP_DEVICE_CPU) {
        int n = 0;
        GP_TRY(gp_device_count(&n));
        if (device >= n) {
            st = gp__error(GP_ERR_NO_DEVICE, "gp_ctx_create: device %d does not exist (%d present)", device, n);
            goto fail;
        }
        GP_CUDA_TRY(cudaSetDevice(device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->cc_major, cudaDevAttrComputeCapabilityMajor, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->l2_bytes, cudaDevAttrL2CacheSize, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->unified_addressing, cudaDevAttrUnifiedAddressing, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->can_map_host_memory, cudaDevAttrCanMapHostMemory, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->managed_memory, cudaDevAttrManagedMemory, device));
        GP_CUDA_TRY(cudaDeviceGetAttribute(&ctx->concurrent_managed_access, cudaDevAttrConcurrentManagedAccess,
                                           device));
        GP_CUDA_TRY(cudaMalloc((void **)&ctx->counters, GP__NCOUNTERS * sizeof(unsigned int)));
        GP_CUDA_TRY(cudaMemset(ctx->counters, 0, GP__NCOUNTERS * sizeof(unsigned int)));
        GP_CUDA_TRY(cudaHostAlloc(&ctx->host_result, 64, cudaHostAllocDefault));
        GP_CUDA_TRY(cudaMalloc(&ctx->dev_result, 64));
        /* Room for the per-block partials of any single-pass reduction (at most 32 blocks per SM, 8 bytes each). */
        void *ws = NULL;
        GP_TRY(gp__workspace(ctx, (size_t)ctx->sm_count * 32 * 8 + 256, &ws));
        GP_CUDA_TRY(cudaDeviceSynchronize());
    }
    *out = ctx;
    return GP_OK;
fail:
    ctx_release(ctx);
    return st;
}

gp_status_t gp_ctx_destroy(gp_ctx_t *ctx)
{
    if (ctx == NULL) return GP_OK;
    cudaError_t e = ctx_release(ctx);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_ctx_destroy", __FILE__, __LINE__);
}

int gp_ctx_device(const gp_ctx_t *ctx) { return ctx ? ctx->device : GP_DEVICE_CPU; }

const char *gp_ctx_fallback_reason(const gp_ctx_t *ctx) { return ctx ? ctx->note : ""; }

gp_status_t gp__workspace(gp_ctx_t *ctx, size_t bytes, void **ptr)
{
    if (ctx->cap) return gp__capture_workspace(ctx, bytes, ptr); /* a captured call: the graph's own blocks */
    if (bytes > ctx->ws_bytes) {
        size_t want = bytes < 2 * ctx->ws_bytes ? 2 * ctx->ws_bytes : bytes;
        /* cudaFree waits for the device, so no operation in flight still uses the old block. */
        if (ctx->ws) cudaFree(ctx->ws);
        ctx->ws = NULL;
        ctx->ws_bytes = 0;
        cudaError_t e = cudaMalloc(&ctx->ws, want);
        if (e != cudaSuccess) {
            ctx->ws = NULL;
            return gp__cuda_error(e, "workspace cudaMalloc", __FILE__, __LINE__);
        }
        ctx->ws_bytes = want;
    }
    *ptr = ctx->ws;
    return GP_OK;
}

unsigned int gp__fill_grid(const gp_ctx_t *ctx, int threads)
{
    int per_sm = ctx->max_threads_per_sm / threads;
    long g = (long)ctx->sm_count * (per_sm > 0 ? per_sm : 1);
    return g > 0 ? (unsigned int)g : 1u;
}

/* ---------------------------------------------------------------------------------------------- streams */
gp_status_t gp_stream_create(gp_ctx_t *ctx, gp_stream_t *stream)
{
    GP_ARG_NONNULL("gp_stream_create", stream);
    gp_status_t st = gp__ctx_enter(ctx, "gp_stream_create");
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, "gp_stream_create", "streams are made outside a capture");
    *stream = NULL;
    if (gp__is_cpu(ctx)) return GP_OK;
    cudaStream_t s = NULL;
    GP_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = s;
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_stream_destroy(gp_ctx_t *ctx, gp_stream_t stream)
{
    gp_status_t st = gp__ctx_enter(ctx, "gp_stream_destroy");
    if (st == GP_OK) st = gp__no_capture(ctx, "gp_stream_destroy", "streams are destroyed outside a capture");
    if (st != GP_OK || gp__is_cpu(ctx) || stream == NULL) return st;
    GP_CUDA_TRY(cudaStreamDestroy(stream));
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_stream_sync(gp_ctx_t *ctx, gp_stream_t stream)
{
    gp_status_t st = gp__ctx_enter(ctx, "gp_stream_sync");
    if (st == GP_OK) st = gp__no_capture(ctx, "gp_stream_sync", "it waits for the stream");
    if (st != GP_OK || gp__is_cpu(ctx)) return st;
    GP_CUDA_TRY(cudaStreamSynchronize(stream));
    return GP_OK;
fail:
    return st;
}

/* ---------------------------------------------------------------------------------------------- timers */
struct gp_timer {
    gp_ctx_t *ctx;
    cudaEvent_t start, stop;
    struct timespec t0, t1;
    int marks; /* bit 0: started, bit 1: stopped since the start */
};

gp_status_t gp_timer_create(gp_ctx_t *ctx, gp_timer_t **out)
{
    GP_ARG_NONNULL("gp_timer_create", out);
    gp_status_t st = gp__ctx_enter(ctx, "gp_timer_create");
    if (st != GP_OK) return st;
    gp_timer_t *t = calloc(1, sizeof *t);
    if (t == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_timer_create: no host memory");
    t->ctx = ctx;
    if (!gp__is_cpu(ctx)) {
        GP_CUDA_TRY(cudaEventCreate(&t->start));
        GP_CUDA_TRY(cudaEventCreate(&t->stop));
    }
    *out = t;
    return GP_OK;
fail:
    gp_timer_destroy(t);
    return st;
}

gp_status_t gp_timer_destroy(gp_timer_t *t)
{
    if (t == NULL) return GP_OK;
    if (t->start) cudaEventDestroy(t->start);
    if (t->stop) cudaEventDestroy(t->stop);
    free(t);
    return GP_OK;
}

static gp_status_t timer_mark(gp_timer_t *t, int which, gp_stream_t stream, const char *fn)
{
    GP_ARG_NONNULL(fn, t);
    gp_status_t st = gp__ctx_enter(t->ctx, fn);
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(t->ctx, fn, "a timer measures direct calls; time gp_graph_launch instead");
    if (which && !(t->marks & 1))
        return gp__error(GP_ERR_INVALID_ARG, "%s: the timer was never started (gp_timer_start first)", fn);
    if (gp__is_cpu(t->ctx))
        clock_gettime(CLOCK_MONOTONIC, which ? &t->t1 : &t->t0);
    else
        GP_CUDA_TRY(cudaEventRecord(which ? t->stop : t->start, stream));
    t->marks = which ? 3 : 1;
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_timer_start(gp_timer_t *t, gp_stream_t stream) { return timer_mark(t, 0, stream, "gp_timer_start"); }
gp_status_t gp_timer_stop(gp_timer_t *t, gp_stream_t stream) { return timer_mark(t, 1, stream, "gp_timer_stop"); }

gp_status_t gp_timer_elapsed_ms(gp_timer_t *t, double *ms)
{
    GP_ARG_NONNULL("gp_timer_elapsed_ms", t);
    GP_ARG_NONNULL("gp_timer_elapsed_ms", ms);
    gp_status_t st = gp__ctx_enter(t->ctx, "gp_timer_elapsed_ms");
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(t->ctx, "gp_timer_elapsed_ms", "it waits for the stop mark");
    if (t->marks != 3)
        return gp__error(GP_ERR_INVALID_ARG, "gp_timer_elapsed_ms: the timer was %s", t->marks ? "started but not stopped"
                                                                                            : "never started");
    if (gp__is_cpu(t->ctx)) {
        *ms = (double)(t->t1.tv_sec - t->t0.tv_sec) * 1e3 + (double)(t->t1.tv_nsec - t->t0.tv_nsec) * 1e-6;
        return GP_OK;
    }
    float f = 0;
    GP_CUDA_TRY(cudaEventSynchronize(t->stop));
    GP_CUDA_TRY(cudaEventElapsedTime(&f, t->start, t->stop));
    *ms = f;
    return GP_OK;
fail:
    return st;
}
