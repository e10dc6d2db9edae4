/*
 * internal.h — what src/ shares inside libgpuprim: the context layout, error recording, GP_CUDA_TRY, size checks.
 * Included by C files and by .cu files (C linkage). Never installed.
 */
#ifndef GP_CORE_INTERNAL_H
#define GP_CORE_INTERNAL_H

#include "gpuprim.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GP_INTERNAL __attribute__((visibility("hidden")))

struct gp_ctx {
    int device;                  /* ordinal or GP_DEVICE_CPU */
    int sm_count;
    int cc_major;                /* compute capability major (9: Hopper, programmatic dependent launch) */
    int max_threads_per_sm;
    int l2_bytes;
    int unified_addressing;
    int can_map_host_memory;
    int managed_memory;
    int concurrent_managed_access;
    void *ws;                    /* device workspace, grown on demand (gp__workspace) */
    size_t ws_bytes;
    unsigned int *counters;      /* GP__NCOUNTERS device words, zero between operations (last-block guards) */
    void *host_result;           /* 64 pinned bytes for _sync results */
    void *dev_result;            /* 64 device bytes where _sync operations put their result first */
    char note[320];              /* GP_DEVICE_DEFAULT that fell back to the CPU: why (else empty) */
    struct gp__capture *cap;     /* non-NULL between gp_graph_begin and gp_graph_end (graph.c) */
    struct gp__attach *attached; /* what families keep on the context (gp__ctx_attach), released at destroy */
};
/* What a family keeps on a context and frees at destroy (jit: its compiled modules), so that core knows no family:
 * the slot of `key` (the family's own static address), made on first use with `release`, NULL when out of memory.
 * Released newest first at gp_ctx_destroy, the context's device current, before the context's own memory. */
typedef struct gp__attach {
    const void *key;
    void *data;
    void (*release)(gp_ctx_t *ctx, void *data);
    struct gp__attach *next;
} gp__attach_t;
GP_INTERNAL void **gp__ctx_attach(gp_ctx_t *ctx, const void *key, void (*release)(gp_ctx_t *ctx, void *data));
#define GP__NCOUNTERS 16
#define GP__COUNTER_DOT 0

/* Records "fmt..." as this thread's detail and returns status. */
GP_INTERNAL gp_status_t gp__error(gp_status_t status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Maps a CUDA error to a status and records "what: cudaErrorName: message (file:line)". */
GP_INTERNAL gp_status_t gp__cuda_error(cudaError_t err, const char *what, const char *file, int line);
/* After a launch: cudaGetLastError, and with GP_SYNC_CHECK also a device synchronize. */
GP_INTERNAL gp_status_t gp__check_launch(const char *kernel, const char *file, int line);
#define GP_CHECK_LAUNCH(name) gp__check_launch((name), __FILE__, __LINE__)

/* In a function with `gp_status_t st` and a `fail:` label that cleans up. */
#define GP_CUDA_TRY(expr)                                                                   \
    do {                                                                                    \
        cudaError_t gp_e_ = (expr);                                                         \
        if (gp_e_ != cudaSuccess) {                                                         \
            st = gp__cuda_error(gp_e_, #expr, __FILE__, __LINE__);                          \
            goto fail;                                                                      \
        }                                                                                   \
    } while (0)
#define GP_TRY(expr)                                                                        \
    do {                                                                                    \
        st = (expr);                                                                        \
        if (st != GP_OK) goto fail;                                                         \
    } while (0)

/* In a function without cleanup: return the status of expr unless it is GP_OK. */
#define GP_TRY_RET(expr)                                                                    \
    do {                                                                                    \
        gp_status_t gp_r_ = (expr);                                                         \
        if (gp_r_ != GP_OK) return gp_r_;                                                   \
    } while (0)

/* Argument checks: return an INVALID_ARG naming the function and argument. */
#define GP_ARG_NONNULL(fn, p)                                                               \
    do {                                                                                    \
        if ((p) == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", (fn), #p);  \
    } while (0)

/* CPU backend: an OpenMP team only for work long enough to pay for waking one. An idle team starts in microseconds,
 * but on busy cores every region can wait for a scheduler slice (8 ms measured for a 2^20-element copy that takes
 * 87 us serially). Below gp__cpu_par_bytes() of memory traffic (or as many multiply-adds) loops run serially:
 * GP__CPU_PAR_BYTES, or the environment's GP_CPU_PAR_BYTES (read once; docs/design/core.md). */
#define GP__CPU_PAR_BYTES ((size_t)16 << 20)
GP_INTERNAL size_t gp__cpu_par_bytes(void);
static inline int gp__cpu_par(int parallel, size_t bytes) { return parallel && bytes >= gp__cpu_par_bytes(); }
/* The x86-64 vector extensions this CPU has, asked once (0 elsewhere): the CPU backend's loops written for them */
enum { GP__CPU_AVX2 = 1, GP__CPU_AVX512F = 2 };
GP_INTERNAL int gp__cpu_features(void);
/* A dtype as a refusal names it: its name ("i16"), or its number when it is no gp_dtype_t ("dtype 99"). */
#define GP__DTYPE_LABEL(buf, t)                                                                                      \
    ((unsigned)(t) < GP_DTYPE_COUNT ? gp_dtype_name(t) : (snprintf((buf), sizeof(buf), "%d", (int)(t)), (buf)))
/* Whether the byte ranges [a, a + an) and [b, b + bn) share a byte (an empty range shares none). */
static inline int gp__overlap(const void *a, size_t an, const void *b, size_t bn)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return an && bn && x < y + bn && y < x + an;
}

/* a * b into *out; returns 0 on overflow. */
static inline int gp__mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > (size_t)-1 / a) return 0;
    *out = a * b;
    return 1;
}

static inline int gp__is_cpu(const gp_ctx_t *ctx) { return ctx->device == GP_DEVICE_CPU; }

/* Validates ctx and makes its device current on this thread. */
GP_INTERNAL gp_status_t gp__ctx_enter(gp_ctx_t *ctx, const char *fn);
/* Device workspace of at least bytes (grown, never shrunk; growing waits for the device). */
GP_INTERNAL gp_status_t gp__workspace(gp_ctx_t *ctx, size_t bytes, void **ptr);
/* Graph capture (graph.c). While ctx captures, gp__workspace hands out the graph's own blocks and ctx->counters are
 * the graph's. gp__no_capture refuses a call that waits, reads back or allocates ("fn: why"), leaving the capture
 * intact. gp__upload copies bytes of host memory (pageable is fine) to device memory on the stream: directly, or,
 * while capturing, through a pinned block the graph owns (the copy is then a node of the graph). */
GP_INTERNAL gp_status_t gp__no_capture(const gp_ctx_t *ctx, const char *fn, const char *why);
GP_INTERNAL gp_status_t gp__upload(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__capture_workspace(gp_ctx_t *ctx, size_t bytes, void **ptr);
/* Ends a capture nobody will finish (the context is being destroyed) and frees what it allocated. */
GP_INTERNAL void gp__capture_abandon(gp_ctx_t *ctx);
/* 1 while this thread captures a graph (GP_SYNC_CHECK then skips its device synchronize). */
GP_INTERNAL int gp__thread_capturing(void);
#define GP_NO_CAPTURE(ctx, fn, why) GP_TRY_RET(gp__no_capture((ctx), (fn), (why)))

/* Blocks of `threads` that fill the device once (all SMs at full occupancy), at least 1. */
GP_INTERNAL unsigned int gp__fill_grid(const gp_ctx_t *ctx, int threads);

/* 64-byte aligned host allocation (NULL on failure or bytes == 0; from 4 MiB 2 MiB-aligned and advised for huge
 * pages) and its free (free()). */
GP_INTERNAL void *gp__host_alloc(size_t bytes);
GP_INTERNAL void gp__host_free(void *p);

/* Reverses the bytes of each of count elements of es bytes (src/io/npy.c). */
GP_INTERNAL void gp__swap_bytes(void *buf, size_t count, size_t es);
/* NumPy bools as read (gp_array_desc_t.bool_values): every nonzero byte becomes 1 (src/io/npy.c). */
GP_INTERNAL void gp__bool_bytes(void *buf, size_t count);

/* Kernels of src/core/memory_kernels.cu. */
GP_INTERNAL gp_status_t gp__launch_copy_kernel(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes,
                                               cudaStream_t stream);
/* Reads bytes (16-byte aligned, multiple of 16) once and folds them into *sink (device memory): the read-only
 * bandwidth ceiling of the benchmarks. */
GP_INTERNAL gp_status_t gp__launch_read_kernel(gp_ctx_t *ctx, const void *src, size_t bytes, unsigned int *sink,
                                               cudaStream_t stream);
/* Fills n elements (f32, f64, i32) with values hashed from (seed, index): floats in [-1, 1), ints in
 * [-1024, 1023]. For benchmarks: fresh non-zero data at device speed. */
GP_INTERNAL gp_status_t gp__launch_fill_random(gp_ctx_t *ctx, void *dst, size_t n, gp_dtype_t dtype,
                                               unsigned long long seed, cudaStream_t stream);

/* The family's GPU launchers (the core's kernels (src/core/kernels.cu)), reached through this table: core/backend.h */
typedef struct gp__core_gpu_ops {
    __typeof__(gp__launch_copy_kernel) *copy;
    __typeof__(gp__launch_read_kernel) *read;
    __typeof__(gp__launch_fill_random) *fill_random;
} gp__core_gpu_ops_t;
GP_INTERNAL extern const gp__core_gpu_ops_t gp__core_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
