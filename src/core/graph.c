/*
 * graph.c — capturing gpuprim calls into a CUDA graph and replaying it (gp_graph_*, gpuprim.h).
 *
 * While a context captures, what its calls would otherwise share with direct calls belongs to the capture: the
 * scratch memory gp__workspace hands out comes from blocks the graph owns (a call gets the largest block when it is
 * big enough, else a new one; captured calls run in stream order, so one block serves them all in turn), the
 * last-block counters are the graph's own, and host bytes a call uploads (histogram slot tables, edges, identities)
 * are staged in pinned blocks the graph owns. The context's own workspace and counters are untouched, so direct
 * calls made before, between or after launches can grow or free them without invalidating the graph. The CUDA
 * allocations a capture needs are made with this thread's capture mode relaxed for the one call
 * (cudaThreadExchangeStreamCaptureMode), the documented way to allocate during a capture; every other call that
 * waits, reads back or allocates is refused (gp__no_capture) before it reaches CUDA.
 */
#include "internal.h"
#include "backend.h"

#include <stdlib.h>
#include <string.h>

enum { CAP_MAX_BLOCKS = 64 };

struct gp__capture {
    cudaStream_t stream;
    void *dev[CAP_MAX_BLOCKS];   /* workspace blocks, device memory */
    size_t dev_bytes[CAP_MAX_BLOCKS];
    int ndev;
    void *host[CAP_MAX_BLOCKS];  /* pinned staging blocks */
    int nhost;
    unsigned int *counters;      /* GP__NCOUNTERS words, zeroed before the capture */
    void *saved_ws;              /* the context's own, put back at the end */
    size_t saved_ws_bytes;
    unsigned int *saved_counters;
    gp_status_t failed;          /* the first failure of a captured call's bookkeeping */
};

struct gp_graph {
    gp_ctx_t *ctx;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    struct gp__capture *cap;     /* the memory the graph's nodes use */
};

static _Thread_local int tl_capturing;
int gp__thread_capturing(void) { return tl_capturing; }

/* Frees what a capture allocated (after the device is done with it). */
static void capture_free(struct gp__capture *c)
{
    if (c == NULL) return;
    for (int i = 0; i < c->ndev; i++) cudaFree(c->dev[i]);
    for (int i = 0; i < c->nhost; i++) cudaFreeHost(c->host[i]);
    if (c->counters) cudaFree(c->counters);
    (void)cudaGetLastError();
    free(c);
}

/* A CUDA allocation made while the stream captures: relaxed for this one call. */
static cudaError_t relaxed_alloc(void **p, size_t bytes, int pinned)
{
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaError_t e = cudaThreadExchangeStreamCaptureMode(&mode);
    if (e != cudaSuccess) return e;
    e = pinned ? cudaHostAlloc(p, bytes, cudaHostAllocDefault) : cudaMalloc(p, bytes);
    cudaThreadExchangeStreamCaptureMode(&mode); /* back to the capture's mode */
    return e;
}

gp_status_t gp__capture_workspace(gp_ctx_t *ctx, size_t bytes, void **ptr)
{
    struct gp__capture *c = ctx->cap;
    int best = -1;
    for (int i = 0; i < c->ndev; i++)
        if (best < 0 || c->dev_bytes[i] > c->dev_bytes[best]) best = i;
    if (best >= 0 && c->dev_bytes[best] >= bytes) {
        *ptr = c->dev[best];
        return GP_OK;
    }
    if (c->ndev == CAP_MAX_BLOCKS)
        return c->failed = gp__error(GP_ERR_UNSUPPORTED, "gp_graph: more than %d scratch blocks in one capture",
                                     CAP_MAX_BLOCKS);
    const size_t want = bytes < 256 ? 256 : bytes;
    cudaError_t e = relaxed_alloc(&c->dev[c->ndev], want, 0);
    if (e != cudaSuccess) return c->failed = gp__cuda_error(e, "gp_graph: scratch for a captured call", __FILE__, __LINE__);
    c->dev_bytes[c->ndev] = want;
    *ptr = c->dev[c->ndev++];
    return GP_OK;
}

gp_status_t gp__no_capture(const gp_ctx_t *ctx, const char *fn, const char *why)
{
    if (ctx == NULL || ctx->cap == NULL) return GP_OK;
    return gp__error(GP_ERR_UNSUPPORTED,
                     "%s: cannot run inside a graph capture (%s); call it before gp_graph_begin or after gp_graph_end",
                     fn, why);
}

gp_status_t gp__gpu_stream(const gp_ctx_t *ctx, const char *fn, gp_stream_t stream, int sync, cudaStream_t *s)
{
    *s = sync ? NULL : (cudaStream_t)stream;
    return sync ? gp__no_capture(ctx, fn, "it waits for the result") : GP_OK;
}

gp_status_t gp__gpu_wait(const char *fn, cudaStream_t s, int sync)
{
    if (!sync) return GP_OK;
    const cudaError_t e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, fn, __FILE__, __LINE__);
}

gp_status_t gp__upload(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, cudaStream_t stream)
{
    if (bytes == 0) return GP_OK;
    struct gp__capture *c = ctx->cap;
    if (c == NULL) {
        /* from pageable memory the call returns once the bytes are staged: src may be reused right after */
        cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream);
        return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "uploading host bytes", __FILE__, __LINE__);
    }
    if (c->nhost == CAP_MAX_BLOCKS)
        return c->failed = gp__error(GP_ERR_UNSUPPORTED, "gp_graph: more than %d uploads in one capture", CAP_MAX_BLOCKS);
    void *h = NULL;
    cudaError_t e = relaxed_alloc(&h, bytes, 1);
    if (e != cudaSuccess) return c->failed = gp__cuda_error(e, "gp_graph: staging for a captured upload", __FILE__, __LINE__);
    c->host[c->nhost++] = h;
    memcpy(h, src, bytes); /* the graph's copy node reads these bytes at every launch */
    e = cudaMemcpyAsync(dst, h, bytes, cudaMemcpyHostToDevice, stream);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_graph: a captured upload", __FILE__, __LINE__);
}

gp_status_t gp_graph_begin(gp_ctx_t *ctx, gp_stream_t stream)
{
    static const char fn[] = "gp_graph_begin";
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (gp__is_cpu(ctx))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: a CPU context runs each call when it is made: there is nothing to "
                                             "capture (issue the calls directly)", fn);
    if (ctx->cap) return gp__error(GP_ERR_INVALID_ARG, "%s: ctx is already capturing (gp_graph_end first)", fn);
    if (stream == NULL || (cudaStream_t)stream == cudaStreamLegacy || (cudaStream_t)stream == cudaStreamPerThread)
        return gp__error(GP_ERR_INVALID_ARG, "%s: stream is a default stream, which cannot be captured: use a stream "
                                             "from gp_stream_create", fn);
    enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    GP_CUDA_TRY(cudaStreamIsCapturing((cudaStream_t)stream, &cs));
    if (cs != cudaStreamCaptureStatusNone)
        return gp__error(GP_ERR_INVALID_ARG, "%s: stream is already capturing", fn);
    struct gp__capture *c = calloc(1, sizeof *c);
    if (c == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    /* the graph's counters, zero like the context's (last-block guards reset them after each use) */
    cudaError_t e = cudaMalloc((void **)&c->counters, GP__NCOUNTERS * sizeof(unsigned int));
    if (e == cudaSuccess) e = cudaMemset(c->counters, 0, GP__NCOUNTERS * sizeof(unsigned int));
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaStreamBeginCapture((cudaStream_t)stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
        capture_free(c);
        return gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    c->stream = (cudaStream_t)stream;
    c->saved_ws = ctx->ws, c->saved_ws_bytes = ctx->ws_bytes, c->saved_counters = ctx->counters;
    ctx->counters = c->counters;
    ctx->cap = c;
    tl_capturing = 1;
    return GP_OK;
fail:
    return st;
}

/* Puts the context's own workspace and counters back; returns the capture. */
static struct gp__capture *capture_leave(gp_ctx_t *ctx)
{
    struct gp__capture *c = ctx->cap;
    ctx->ws = c->saved_ws, ctx->ws_bytes = c->saved_ws_bytes, ctx->counters = c->saved_counters;
    ctx->cap = NULL;
    tl_capturing = 0;
    return c;
}

void gp__capture_abandon(gp_ctx_t *ctx)
{
    if (ctx->cap == NULL) return;
    struct gp__capture *c = capture_leave(ctx);
    cudaGraph_t graph = NULL;
    if (cudaStreamEndCapture(c->stream, &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    capture_free(c);
}

gp_status_t gp_graph_end(gp_ctx_t *ctx, gp_graph_t **out)
{
    static const char fn[] = "gp_graph_end";
    GP_ARG_NONNULL(fn, out);
    *out = NULL;
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (ctx->cap == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: ctx is not capturing (gp_graph_begin first)", fn);
    struct gp__capture *c = capture_leave(ctx);
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamEndCapture(c->stream, &graph);
    const gp_status_t failed = c->failed;
    if (e != cudaSuccess || failed != GP_OK) {
        if (graph) cudaGraphDestroy(graph);
        capture_free(c);
        if (failed != GP_OK && e == cudaSuccess)
            return gp__error(failed, "%s: a captured call failed (%s)", fn, gp_last_error());
        return gp__cuda_error(e, "gp_graph_end: cudaStreamEndCapture (a call inside the capture did what a capture "
                                 "cannot)", __FILE__, __LINE__);
    }
    gp_graph_t *g = calloc(1, sizeof *g);
    if (g == NULL) {
        cudaGraphDestroy(graph);
        capture_free(c);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
    }
    g->ctx = ctx, g->graph = graph, g->cap = c;
    e = cudaGraphInstantiate(&g->exec, graph, 0);
    if (e != cudaSuccess) {
        st = gp__cuda_error(e, "gp_graph_end: cudaGraphInstantiate", __FILE__, __LINE__);
        gp_graph_destroy(g);
        return st;
    }
    *out = g;
    return GP_OK;
}

gp_status_t gp_graph_launch(gp_graph_t *g, gp_stream_t stream)
{
    static const char fn[] = "gp_graph_launch";
    GP_ARG_NONNULL(fn, g);
    gp_status_t st = gp__ctx_enter(g->ctx, fn);
    if (st != GP_OK) return st;
    GP_CUDA_TRY(cudaGraphLaunch(g->exec, (cudaStream_t)stream));
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_graph_destroy(gp_graph_t *g)
{
    if (g == NULL) return GP_OK;
    cudaError_t e = cudaSetDevice(g->ctx->device);
    if (e == cudaSuccess) e = cudaDeviceSynchronize(); /* no launch still uses its memory */
    if (g->exec) cudaGraphExecDestroy(g->exec);
    if (g->graph) cudaGraphDestroy(g->graph);
    capture_free(g->cap);
    free(g);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_graph_destroy", __FILE__, __LINE__);
}

/* ---------------------------------------------------------------------------------------------- persisting L2 */
gp_status_t gp_ctx_set_persisting_l2(gp_ctx_t *ctx, const void *ptr, size_t bytes, double hit_ratio, gp_stream_t stream)
{
    static const char fn[] = "gp_ctx_set_persisting_l2";
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (!(hit_ratio >= 0.0 && hit_ratio <= 1.0))
        return gp__error(GP_ERR_INVALID_ARG, "%s: hit_ratio %g is not in [0, 1]", fn, hit_ratio);
    if (bytes > 0 && ptr == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: ptr is NULL (bytes %zu)", fn, bytes);
    if (gp__is_cpu(ctx)) return GP_OK;
    GP_NO_CAPTURE(ctx, fn, "the L2 set-aside is a device limit, not stream work");
    if (stream == NULL || (cudaStream_t)stream == cudaStreamLegacy)
        return gp__error(GP_ERR_INVALID_ARG, "%s: stream is the legacy default stream, which takes no access policy: "
                                             "use a stream from gp_stream_create", fn);
    int max_persist = 0, max_window = 0;
    GP_CUDA_TRY(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, ctx->device));
    GP_CUDA_TRY(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, ctx->device));
    if (max_persist <= 0 || max_window <= 0)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: device %d has no persisting L2 (compute capability 8.0 or later)", fn,
                         ctx->device);
    cudaStreamAttrValue attr;
    memset(&attr, 0, sizeof attr);
    if (bytes == 0) { /* no window; persisting lines back to normal; no set-aside */
        attr.accessPolicyWindow.num_bytes = 0;
        attr.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
        attr.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
        GP_CUDA_TRY(cudaStreamSetAttribute((cudaStream_t)stream, cudaStreamAttributeAccessPolicyWindow, &attr));
        GP_CUDA_TRY(cudaCtxResetPersistingL2Cache());
        GP_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
        return GP_OK;
    }
    const size_t setaside = bytes < (size_t)max_persist ? bytes : (size_t)max_persist;
    const size_t window = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    GP_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, setaside));
    size_t granted = 0;
    GP_CUDA_TRY(cudaDeviceGetLimit(&granted, cudaLimitPersistingL2CacheSize));
    double ratio = hit_ratio;
    if (granted < window && (double)granted / (double)window < ratio) ratio = (double)granted / (double)window;
    attr.accessPolicyWindow.base_ptr = (void *)ptr;
    attr.accessPolicyWindow.num_bytes = window;
    attr.accessPolicyWindow.hitRatio = (float)ratio;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    GP_CUDA_TRY(cudaStreamSetAttribute((cudaStream_t)stream, cudaStreamAttributeAccessPolicyWindow, &attr));
    return GP_OK;
fail:
    return st;
}
