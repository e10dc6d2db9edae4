/* memory.c — every memory kind behind one API, copies between any two, pitched 2D/3D memory, managed hints. */
#include "internal.h"
#include "backend.h"

#include <stdio.h>
#include <string.h>

static const char *const g_kind_names[GP_MEM_KIND_COUNT] = {
    [GP_MEM_DEVICE] = "device",   [GP_MEM_PAGEABLE] = "pageable",         [GP_MEM_PINNED] = "pinned",
    [GP_MEM_PORTABLE] = "portable", [GP_MEM_WRITE_COMBINED] = "write_combined", [GP_MEM_MAPPED] = "mapped",
    [GP_MEM_MANAGED] = "managed", [GP_MEM_REGISTERED] = "registered",
};

const char *gp_mem_kind_name(gp_mem_kind_t kind)
{
    return (unsigned)kind < GP_MEM_KIND_COUNT ? g_kind_names[kind] : "?";
}

gp_status_t gp_mem_kind_parse(const char *name, gp_mem_kind_t *kind)
{
    GP_ARG_NONNULL("gp_mem_kind_parse", name);
    GP_ARG_NONNULL("gp_mem_kind_parse", kind);
    for (int i = 0; i < GP_MEM_KIND_COUNT; i++)
        if (strcmp(name, g_kind_names[i]) == 0) {
            *kind = (gp_mem_kind_t)i;
            return GP_OK;
        }
    if (strcmp(name, "wc") == 0) {
        *kind = GP_MEM_WRITE_COMBINED;
        return GP_OK;
    }
    return gp__error(GP_ERR_INVALID_ARG, "gp_mem_kind_parse: unknown memory kind '%s'", name);
}

/* The device pointer of pinned host memory, or NULL if the device cannot address it. */
static void *mapped_device_ptr(void *host)
{
    void *d = NULL;
    if (cudaHostGetDevicePointer(&d, host, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return d;
}

gp_status_t gp_mem_alloc(gp_ctx_t *ctx, gp_mem_kind_t kind, size_t bytes, gp_buffer_t *buf)
{
    static const char fn[] = "gp_mem_alloc";
    GP_ARG_NONNULL(fn, buf);
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, fn, "it allocates memory");
    if ((unsigned)kind >= GP_MEM_KIND_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not a gp_mem_kind_t", fn, (int)kind);
    if (kind == GP_MEM_REGISTERED)
        return gp__error(GP_ERR_INVALID_ARG, "%s: registered memory comes from gp_mem_register, not gp_mem_alloc", fn);
    gp_buffer_t b = {NULL, NULL, bytes, kind, ctx->device};
    if (gp__is_cpu(ctx) && kind != GP_MEM_DEVICE && kind != GP_MEM_PAGEABLE)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s memory needs a GPU context (this one is the CPU backend)", fn,
                         g_kind_names[kind]);
    if (bytes == 0) {
        *buf = b;
        return GP_OK;
    }
    void *p = NULL;
    switch (kind) {
    case GP_MEM_DEVICE:
        if (gp__is_cpu(ctx)) {
            if ((p = gp__host_alloc(bytes)) == NULL) goto oom;
            b.host = b.device = p;
        } else {
            GP_CUDA_TRY(cudaMalloc(&p, bytes));
            b.device = p;
        }
        break;
    case GP_MEM_PAGEABLE:
        if ((p = gp__host_alloc(bytes)) == NULL) goto oom;
        b.host = p;
        if (gp__is_cpu(ctx)) b.device = p;
        break;
    case GP_MEM_PINNED:
    case GP_MEM_PORTABLE:
    case GP_MEM_WRITE_COMBINED:
    case GP_MEM_MAPPED: {
        unsigned flags = kind == GP_MEM_PORTABLE          ? cudaHostAllocPortable
                         : kind == GP_MEM_WRITE_COMBINED ? cudaHostAllocWriteCombined
                         : kind == GP_MEM_MAPPED         ? cudaHostAllocMapped
                                                         : cudaHostAllocDefault;
        if (kind == GP_MEM_MAPPED && !ctx->can_map_host_memory)
            return gp__error(GP_ERR_UNSUPPORTED, "%s: device %d cannot map host memory", fn, ctx->device);
        GP_CUDA_TRY(cudaHostAlloc(&p, bytes, flags));
        b.host = p;
        b.device = mapped_device_ptr(p);
        if (kind == GP_MEM_MAPPED && b.device == NULL) {
            cudaFreeHost(p);
            return gp__error(GP_ERR_CUDA, "%s: cudaHostGetDevicePointer failed for mapped memory", fn);
        }
        break;
    }
    case GP_MEM_MANAGED:
        if (!ctx->managed_memory)
            return gp__error(GP_ERR_UNSUPPORTED, "%s: device %d does not support managed memory", fn, ctx->device);
        GP_CUDA_TRY(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
        b.host = b.device = p;
        break;
    default: break;
    }
    *buf = b;
    return GP_OK;
oom:
    return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes of %s memory", fn, bytes, g_kind_names[kind]);
fail:
    (void)cudaGetLastError();
    {
        char cause[512];
        snprintf(cause, sizeof cause, "%s", gp_last_error());
        return gp__error(st, "%s: %zu bytes of %s memory on device %d: %s", fn, bytes, g_kind_names[kind],
                         ctx->device, cause);
    }
}

gp_status_t gp_mem_register(gp_ctx_t *ctx, void *host, size_t bytes, gp_buffer_t *buf)
{
    static const char fn[] = "gp_mem_register";
    GP_ARG_NONNULL(fn, buf);
    GP_ARG_NONNULL(fn, host);
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, fn, "it registers host memory");
    if (gp__is_cpu(ctx))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: registering host memory needs a GPU context", fn);
    if (bytes == 0) return gp__error(GP_ERR_INVALID_ARG, "%s: bytes is 0", fn);
    GP_CUDA_TRY(cudaHostRegister(host, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));
    gp_buffer_t b = {host, mapped_device_ptr(host), bytes, GP_MEM_REGISTERED, ctx->device};
    *buf = b;
    return GP_OK;
fail:
    (void)cudaGetLastError();
    return st;
}

gp_status_t gp_mem_free(gp_ctx_t *ctx, gp_buffer_t *buf)
{
    static const char fn[] = "gp_mem_free";
    GP_ARG_NONNULL(fn, buf);
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, fn, "it frees memory");
    if ((unsigned)buf->kind >= GP_MEM_KIND_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: buf->kind %d is not a gp_mem_kind_t", fn, (int)buf->kind);
    if (buf->host == NULL && buf->device == NULL) {
        memset(buf, 0, sizeof *buf);
        return GP_OK;
    }
    if (buf->device_id != ctx->device)
        return gp__error(GP_ERR_INVALID_ARG, "%s: buffer of device %d freed through a context of device %d", fn,
                         buf->device_id, ctx->device);
    switch (buf->kind) {
    case GP_MEM_DEVICE:
        if (gp__is_cpu(ctx))
            gp__host_free(buf->host);
        else
            GP_CUDA_TRY(cudaFree(buf->device));
        break;
    case GP_MEM_PAGEABLE: gp__host_free(buf->host); break;
    case GP_MEM_PINNED:
    case GP_MEM_PORTABLE:
    case GP_MEM_WRITE_COMBINED:
    case GP_MEM_MAPPED: GP_CUDA_TRY(cudaFreeHost(buf->host)); break;
    case GP_MEM_MANAGED: GP_CUDA_TRY(cudaFree(buf->device)); break;
    case GP_MEM_REGISTERED: GP_CUDA_TRY(cudaHostUnregister(buf->host)); break;
    default: break;
    }
    memset(buf, 0, sizeof *buf);
    return GP_OK;
fail:
    return st;
}

static gp_status_t check_managed_range(const char *fn, gp_ctx_t *ctx, const gp_buffer_t *buf, size_t offset,
                                       size_t bytes)
{
    GP_ARG_NONNULL(fn, buf);
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (gp__is_cpu(ctx)) return gp__error(GP_ERR_UNSUPPORTED, "%s: managed memory needs a GPU context", fn);
    if (buf->kind != GP_MEM_MANAGED)
        return gp__error(GP_ERR_INVALID_ARG, "%s: buf is %s memory, not managed", fn, gp_mem_kind_name(buf->kind));
    if (offset > buf->bytes || bytes > buf->bytes - offset)
        return gp__error(GP_ERR_INVALID_ARG, "%s: range [%zu, %zu + %zu) exceeds the buffer's %zu bytes", fn, offset,
                         offset, bytes, buf->bytes);
    return GP_OK;
}

gp_status_t gp_mem_prefetch(gp_ctx_t *ctx, const gp_buffer_t *buf, size_t offset, size_t bytes, int to_cpu,
                            gp_stream_t stream)
{
    static const char fn[] = "gp_mem_prefetch";
    gp_status_t st = check_managed_range(fn, ctx, buf, offset, bytes);
    if (st != GP_OK || bytes == 0) return st;
    GP_NO_CAPTURE(ctx, fn, "migrations are not captured into graphs here; prefetch before gp_graph_begin");
    if (!ctx->concurrent_managed_access)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: device %d cannot prefetch managed memory", fn, ctx->device);
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = to_cpu ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    loc.id = to_cpu ? 0 : ctx->device;
    GP_CUDA_TRY(cudaMemPrefetchAsync((char *)buf->device + offset, bytes, loc, 0, stream));
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_mem_advise(gp_ctx_t *ctx, const gp_buffer_t *buf, size_t offset, size_t bytes, gp_mem_advice_t advice)
{
    static const char fn[] = "gp_mem_advise";
    gp_status_t st = check_managed_range(fn, ctx, buf, offset, bytes);
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, fn, "advice is not stream-ordered");
    if ((unsigned)advice >= GP_ADVISE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: advice %d is not a gp_mem_advice_t", fn, (int)advice);
    if (bytes == 0) return GP_OK;
    struct cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = cudaMemLocationTypeDevice;
    loc.id = ctx->device;
    enum cudaMemoryAdvise a = cudaMemAdviseSetReadMostly;
    switch (advice) {
    case GP_ADVISE_READ_MOSTLY: a = cudaMemAdviseSetReadMostly; break;
    case GP_ADVISE_UNSET_READ_MOSTLY: a = cudaMemAdviseUnsetReadMostly; break;
    case GP_ADVISE_PREFER_DEVICE: a = cudaMemAdviseSetPreferredLocation; break;
    case GP_ADVISE_PREFER_CPU:
        a = cudaMemAdviseSetPreferredLocation;
        loc.type = cudaMemLocationTypeHost;
        loc.id = 0;
        break;
    case GP_ADVISE_ACCESSED_BY_DEVICE: a = cudaMemAdviseSetAccessedBy; break;
    default: break;
    }
    GP_CUDA_TRY(cudaMemAdvise((char *)buf->device + offset, bytes, a, loc));
    return GP_OK;
fail:
    return st;
}

/* ---------------------------------------------------------------------------------------------- copies */
/* While ctx captures: a copy from or to pageable host memory cannot be a node of a graph (CUDA stages it on the
 * host when the call is made). */
static gp_status_t no_pageable_in_capture(const gp_ctx_t *ctx, const char *fn, const void *a, const void *b)
{
    if (ctx->cap == NULL) return GP_OK;
    const void *p[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        struct cudaPointerAttributes pa;
        if (cudaPointerGetAttributes(&pa, p[k]) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        if (pa.type == cudaMemoryTypeUnregistered)
            return gp__no_capture(ctx, fn, k == 0 ? "dst is pageable host memory" : "src is pageable host memory");
    }
    return GP_OK;
}

static gp_status_t copy_args(const char *fn, gp_ctx_t *ctx, const void *dst, const void *src, size_t bytes)
{
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (bytes == 0) return GP_OK;
    GP_ARG_NONNULL(fn, dst);
    GP_ARG_NONNULL(fn, src);
    return GP_OK;
}

gp_status_t gp_memcpy(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, gp_stream_t stream)
{
    gp_status_t st = copy_args("gp_memcpy", ctx, dst, src, bytes);
    if (st != GP_OK || bytes == 0) return st;
    if (gp__is_cpu(ctx)) {
        memmove(dst, src, bytes);
        return GP_OK;
    }
    GP_TRY_RET(no_pageable_in_capture(ctx, "gp_memcpy", dst, src));
    GP_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_memcpy_sync(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes)
{
    gp_status_t st = copy_args("gp_memcpy_sync", ctx, dst, src, bytes);
    if (st == GP_OK) st = gp__no_capture(ctx, "gp_memcpy_sync", "it waits for the copy");
    if (st != GP_OK || bytes == 0) return st;
    if (gp__is_cpu(ctx)) {
        memmove(dst, src, bytes);
        return GP_OK;
    }
    GP_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
    /* cudaMemcpy from pageable memory returns once the bytes are staged, before the DMA lands; work on a
     * non-blocking stream is not ordered after it. _sync means done: wait for the legacy stream. */
    GP_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_memset(gp_ctx_t *ctx, void *dst, int value, size_t bytes, gp_stream_t stream)
{
    gp_status_t st = gp__ctx_enter(ctx, "gp_memset");
    if (st != GP_OK || bytes == 0) return st;
    GP_ARG_NONNULL("gp_memset", dst);
    if (gp__is_cpu(ctx)) {
        memset(dst, value, bytes);
        return GP_OK;
    }
    /* Pageable host memory is not device-addressable: order it after the stream's work, then set it here (like
     * cudaMemcpyAsync, which is synchronous for pageable memory). */
    struct cudaPointerAttributes pa;
    GP_CUDA_TRY(cudaPointerGetAttributes(&pa, dst));
    if (pa.type == cudaMemoryTypeUnregistered) {
        GP_TRY(gp__no_capture(ctx, "gp_memset", "dst is pageable host memory"));
        GP_CUDA_TRY(cudaStreamSynchronize(stream));
        memset(dst, value, bytes);
        return GP_OK;
    }
    GP_CUDA_TRY(cudaMemsetAsync(dst, value, bytes, stream));
    return GP_OK;
fail:
    return st;
}

gp_status_t gp_memcpy_kernel(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, gp_stream_t stream)
{
    gp_status_t st = copy_args("gp_memcpy_kernel", ctx, dst, src, bytes);
    if (st != GP_OK || bytes == 0) return st;
    if (gp__is_cpu(ctx)) {
        memmove(dst, src, bytes);
        return GP_OK;
    }
    return gp__core_gpu_ops.copy(ctx, dst, src, bytes, stream);
}

/* ---------------------------------------------------------------------------------------------- pitched */
static gp_status_t alloc_pitched(const char *fn, gp_ctx_t *ctx, size_t w, size_t h, size_t d, gp_pitched_t *out)
{
    GP_ARG_NONNULL(fn, out);
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, fn, "it allocates memory");
    gp_pitched_t p = {NULL, 0, w, h, d};
    size_t rows = 0, total = 0;
    if (!gp__mul_ok(h, d, &rows) || !gp__mul_ok(w, rows, &total))
        return gp__error(GP_ERR_OVERFLOW, "%s: %zu x %zu x %zu bytes overflows size_t", fn, w, h, d);
    if (total == 0) {
        *out = p;
        return GP_OK;
    }
    if (gp__is_cpu(ctx)) {
        size_t pitch = (w + 63) / 64 * 64, bytes = 0;
        if (pitch < w || !gp__mul_ok(pitch, rows, &bytes))
            return gp__error(GP_ERR_OVERFLOW, "%s: pitched size overflows size_t", fn);
        if ((p.ptr = gp__host_alloc(bytes)) == NULL)
            return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory", fn, bytes);
        p.pitch = pitch;
    } else if (d == 1) {
        GP_CUDA_TRY(cudaMallocPitch(&p.ptr, &p.pitch, w, h));
    } else {
        struct cudaPitchedPtr pp;
        struct cudaExtent ext = {w, h, d};
        GP_CUDA_TRY(cudaMalloc3D(&pp, ext));
        p.ptr = pp.ptr;
        p.pitch = pp.pitch;
    }
    *out = p;
    return GP_OK;
fail:
    (void)cudaGetLastError();
    return st;
}

gp_status_t gp_mem_alloc_2d(gp_ctx_t *ctx, size_t width_bytes, size_t height, gp_pitched_t *out)
{
    return alloc_pitched("gp_mem_alloc_2d", ctx, width_bytes, height, 1, out);
}

gp_status_t gp_mem_alloc_3d(gp_ctx_t *ctx, size_t width_bytes, size_t height, size_t depth, gp_pitched_t *out)
{
    return alloc_pitched("gp_mem_alloc_3d", ctx, width_bytes, height, depth, out);
}

gp_status_t gp_mem_free_pitched(gp_ctx_t *ctx, gp_pitched_t *p)
{
    GP_ARG_NONNULL("gp_mem_free_pitched", p);
    gp_status_t st = gp__ctx_enter(ctx, "gp_mem_free_pitched");
    if (st != GP_OK) return st;
    GP_NO_CAPTURE(ctx, "gp_mem_free_pitched", "it frees memory");
    if (p->ptr != NULL) {
        if (gp__is_cpu(ctx))
            gp__host_free(p->ptr);
        else
            GP_CUDA_TRY(cudaFree(p->ptr));
    }
    memset(p, 0, sizeof *p);
    return GP_OK;
fail:
    return st;
}

static gp_status_t copy_3d(const char *fn, gp_ctx_t *ctx, void *dst, size_t dpitch, size_t dheight, const void *src,
                           size_t spitch, size_t sheight, size_t width_bytes, size_t height, size_t depth,
                           gp_stream_t stream);

gp_status_t gp_memcpy_2d(gp_ctx_t *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width_bytes, size_t height, gp_stream_t stream)
{
    return copy_3d("gp_memcpy_2d", ctx, dst, dpitch, height, src, spitch, height, width_bytes, height, 1, stream);
}

gp_status_t gp_memcpy_3d(gp_ctx_t *ctx, void *dst, size_t dpitch, size_t dheight, const void *src, size_t spitch,
                         size_t sheight, size_t width_bytes, size_t height, size_t depth, gp_stream_t stream)
{
    return copy_3d("gp_memcpy_3d", ctx, dst, dpitch, dheight, src, spitch, sheight, width_bytes, height, depth, stream);
}

static gp_status_t copy_3d(const char *fn, gp_ctx_t *ctx, void *dst, size_t dpitch, size_t dheight, const void *src,
                           size_t spitch, size_t sheight, size_t width_bytes, size_t height, size_t depth,
                           gp_stream_t stream)
{
    gp_status_t st = gp__ctx_enter(ctx, fn);
    if (st != GP_OK) return st;
    if (width_bytes == 0 || height == 0 || depth == 0) return GP_OK;
    GP_ARG_NONNULL(fn, dst);
    GP_ARG_NONNULL(fn, src);
    if (dpitch < width_bytes || spitch < width_bytes)
        return gp__error(GP_ERR_INVALID_ARG, "%s: pitch (dst %zu, src %zu) is less than width_bytes %zu", fn, dpitch,
                         spitch, width_bytes);
    if (dheight < height || sheight < height)
        return gp__error(GP_ERR_INVALID_ARG, "%s: slice height (dst %zu, src %zu) is less than height %zu", fn,
                         dheight, sheight, height);
    size_t t = 0;
    if (!gp__mul_ok(dpitch, dheight, &t) || !gp__mul_ok(t, depth, &t) || !gp__mul_ok(spitch, sheight, &t) ||
        !gp__mul_ok(t, depth, &t))
        return gp__error(GP_ERR_OVERFLOW, "%s: extent overflows size_t", fn);
    if (gp__is_cpu(ctx)) {
        for (size_t z = 0; z < depth; z++)
            for (size_t y = 0; y < height; y++)
                memmove((char *)dst + (z * dheight + y) * dpitch, (const char *)src + (z * sheight + y) * spitch,
                        width_bytes);
        return GP_OK;
    }
    GP_TRY(no_pageable_in_capture(ctx, fn, dst, src));
    if (depth == 1) {
        GP_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width_bytes, height, cudaMemcpyDefault, stream));
        return GP_OK;
    }
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    struct cudaPitchedPtr sp = {(void *)src, spitch, width_bytes, sheight}, dp = {dst, dpitch, width_bytes, dheight};
    struct cudaExtent ext = {width_bytes, height, depth};
    p.srcPtr = sp;
    p.dstPtr = dp;
    p.extent = ext;
    p.kind = cudaMemcpyDefault;
    GP_CUDA_TRY(cudaMemcpy3DAsync(&p, stream));
    return GP_OK;
fail:
    return st;
}

const gp__core_gpu_ops_t gp__core_gpu_ops = {
    .copy = GP_GPU_SLOT(gp__launch_copy_kernel),
    .read = GP_GPU_SLOT(gp__launch_read_kernel),
    .fill_random = GP_GPU_SLOT(gp__launch_fill_random),
};
