/*
 * gpuprim.h — the public C11 API of libgpuprim, GPU parallel primitives in CUDA C with a CPU backend.
 *
 * This header compiles with a plain C11 compiler and needs no CUDA header:
 *     gcc -std=c11 -pedantic -c my.c $(pkg-config --cflags gpuprim)
 *     gcc my.o $(pkg-config --libs gpuprim)
 *
 * Conventions (every function below follows them):
 *   - Every call that acts returns gp_status_t; GP_OK == 0. gp_status_string() names a status, gp_last_error() gives
 *     a thread-local detail string for the most recent failing call on this thread ("gp_vec_add: x is NULL").
 *     The exceptions are pure getters, which cannot fail and change nothing: names (gp_*_name, gp_status_string,
 *     gp_last_error, gp_ctx_fallback_reason, gp_group_transport), sizes and counts (gp_dtype_size,
 *     gp_ordered_width, gp_*_granule, gp_scanner_count, gp_uop_value_bytes, gp_group_size/_local_count/_rank),
 *     handles (gp_ctx_device, gp_group_ctx, gp_group_stream), derived dtypes (gp_reduce_acc_dtype,
 *     gp_scan_out_dtype, gp_scanner_out_dtype), gp_version, gp_uop_build_seconds and the head-start queries
 *     (gp_ctx_open_ready, gp_ctx_opens_pending, gp_ctx_open_stop). Every destroy and free returns a status (the
 *     first error met while waiting for the object's work; the object is freed either way) and accepts NULL.
 *   - Arguments are validated before anything is launched or written: on a non-OK status no output was touched.
 *   - The library never prints, aborts or exits.
 *   - A context (gp_ctx_t) belongs to one device, or to the CPU backend (GP_DEVICE_CPU). A context is reentrant but
 *     not thread-safe: use one context per thread. Calls that use the context's workspace (gp_vec_dot*) must not run
 *     concurrently on two streams of one context; create a context per concurrent stream instead (as with a cuBLAS
 *     handle and its workspace).
 *   - The stream is the last argument of every device operation and is ABI-identical to cudaStream_t (NULL is the
 *     legacy default stream). Operations are asynchronous on the stream unless the name ends in _sync. On a CPU
 *     context the stream argument is ignored and every operation completes before it returns.
 *   - Sizes are element counts (size_t) unless the name says bytes. Pointers passed to typed operations must be
 *     aligned to the element size; 16-byte alignment is not required (the kernels handle any offset).
 *   - Units: bytes, elements, seconds or milliseconds as named, GB/s = 1e9 bytes per second.
 */
#ifndef GPUPRIM_H
#define GPUPRIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GP_API __attribute__((visibility("default")))
#else
#define GP_API
#endif

/* ---------------------------------------------------------------------------------------------- version */
#define GP_VERSION_MAJOR 0
#define GP_VERSION_MINOR 3
#define GP_VERSION_PATCH 0
/* GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH, as compiled into the library. */
GP_API int gp_version(void);

/* ---------------------------------------------------------------------------------------------- status */
/* Append-only: values never change meaning. */
typedef enum gp_status {
    GP_OK = 0,
    GP_ERR_INVALID_ARG = 1,   /* NULL pointer, bad enum, misaligned pointer, value out of range */
    GP_ERR_OVERFLOW = 2,      /* a size computation (n * element size, ...) overflows */
    GP_ERR_OUT_OF_MEMORY = 3, /* host or device allocation failed */
    GP_ERR_NO_DEVICE = 4,     /* no CUDA device, or the device id does not exist */
    GP_ERR_NO_DRIVER = 5,     /* no usable CUDA driver (missing, or older than the runtime) */
    GP_ERR_UNSUPPORTED = 6,   /* the backend or device cannot do this (e.g. pinned memory on a CPU context) */
    GP_ERR_CUDA = 7,          /* any other CUDA runtime error; gp_last_error() holds the call and message */
    GP_ERR_IO = 8,            /* file read/write failed */
    GP_ERR_FORMAT = 9,        /* malformed input file */
    GP_ERR_INTERNAL = 10,     /* a bug in gpuprim */
    GP_ERR_COMPILE = 11,      /* a user operator did not compile; gp_last_error() holds the compiler's messages */
    GP_ERR_USER_TRAP = 12     /* a user operator trapped on the CPU backend (division by zero, invalid address) */
} gp_status_t;

GP_API const char *gp_status_string(gp_status_t status);
/* Detail of the most recent failing call on this thread; "" if none. Valid until the next failing call. */
GP_API const char *gp_last_error(void);

/* ---------------------------------------------------------------------------------------------- dtypes */
typedef enum gp_dtype {
    GP_U8 = 0, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64, GP_F16, GP_BF16, GP_F32, GP_F64,
    GP_DTYPE_COUNT
} gp_dtype_t;

GP_API size_t gp_dtype_size(gp_dtype_t dtype);       /* 0 for an invalid dtype */
GP_API const char *gp_dtype_name(gp_dtype_t dtype);  /* "f32", ...; "?" for an invalid dtype */
GP_API gp_status_t gp_dtype_parse(const char *name, gp_dtype_t *dtype);
/* IEEE half and bfloat16 bits to float (exact), and float to their bits rounding to nearest even (as NumPy's
 * astype(float16) and torch's .bfloat16() do: overflow to infinity, NaN kept a quiet NaN). */
GP_API float gp_f16_to_f32(uint16_t bits);
GP_API float gp_bf16_to_f32(uint16_t bits);
GP_API uint16_t gp_f32_to_f16(float value);
GP_API uint16_t gp_f32_to_bf16(float value);

/* ---------------------------------------------------------------------------------------------- streams */
/* ABI-identical to cudaStream_t; pass a cudaStream_t directly, or NULL for the legacy default stream. */
typedef struct CUstream_st *gp_stream_t;

/* ---------------------------------------------------------------------------------------------- context */
typedef struct gp_ctx gp_ctx_t;
#define GP_DEVICE_CPU (-1)
#define GP_DEVICE_DEFAULT (-2) /* GPU 0 when a GPU and a driver answer, else the CPU backend */

/* device: a CUDA device ordinal, GP_DEVICE_CPU for the CPU backend (always available), or GP_DEVICE_DEFAULT (GPU 0,
 * falling back to the CPU backend: gp_ctx_device says which was taken, gp_ctx_fallback_reason why). */
GP_API gp_status_t gp_ctx_create(gp_ctx_t **ctx, int device);
GP_API gp_status_t gp_ctx_destroy(gp_ctx_t *ctx);     /* NULL is accepted; waits for the device's work */
GP_API int gp_ctx_device(const gp_ctx_t *ctx);         /* the device ordinal, or GP_DEVICE_CPU */
/* Why a GP_DEVICE_DEFAULT context is on the CPU backend (the GPU's error); "" for every other context. */
GP_API const char *gp_ctx_fallback_reason(const gp_ctx_t *ctx);

/* A context opened in the background. A GPU context costs the driver 0.1-0.5 s to make; meanwhile the caller can
 * work on the CPU backend and hand its partial state over (gp_reducer_transfer, gp_scanner_transfer), streaming with
 * gp_stream_opts_t.stop = gp_ctx_open_stop to leave the CPU when the context is up.
 *   gp_ctx_open_start   begins gp_ctx_create(device) on a thread of the library's;
 *   gp_ctx_open_ready   nonzero once it has finished (made or failed);
 *   gp_ctx_open_finish  waits, and gives the context or gp_ctx_create's error (status and message); frees opening;
 *   gp_ctx_open_abandon the caller goes on without it: the thread destroys the context when it is made (frees
 *                       opening). The process should not return from main while gp_ctx_opens_pending() is nonzero:
 *                       a CUDA runtime torn down under a starting context may crash; leave with _exit, or wait.
 * gp_ctx_open_stop(opening): a gp_stream_opts_t.stop that ends a stream once the context is ready. */
typedef struct gp_ctx_opening gp_ctx_opening_t;
GP_API gp_status_t gp_ctx_open_start(int device, gp_ctx_opening_t **opening);
GP_API int gp_ctx_open_ready(const gp_ctx_opening_t *opening);
GP_API gp_status_t gp_ctx_open_finish(gp_ctx_opening_t *opening, gp_ctx_t **ctx);
GP_API gp_status_t gp_ctx_open_abandon(gp_ctx_opening_t *opening);
GP_API int gp_ctx_opens_pending(void);
GP_API int gp_ctx_open_stop(void *opening);

/* Number of CUDA devices. With no device or no driver: *count = 0 and GP_ERR_NO_DEVICE / GP_ERR_NO_DRIVER,
 * with gp_last_error() naming the cause. */
GP_API gp_status_t gp_device_count(int *count);

/* Streams of the context's device (non-blocking with respect to the legacy stream). On a CPU context these
 * return a NULL stream and do nothing. */
GP_API gp_status_t gp_stream_create(gp_ctx_t *ctx, gp_stream_t *stream);
GP_API gp_status_t gp_stream_destroy(gp_ctx_t *ctx, gp_stream_t stream);
GP_API gp_status_t gp_stream_sync(gp_ctx_t *ctx, gp_stream_t stream);

/* ---------------------------------------------------------------------------------------------- graphs */
/* Capture a sequence of gpuprim calls issued on one stream into a CUDA graph, then replay it with one launch.
 *   gp_graph_begin(ctx, stream);  ...gpuprim calls on ctx and stream...;  gp_graph_end(ctx, &graph);
 *   gp_graph_launch(graph, stream);  ...  gp_graph_destroy(graph);
 * Between begin and end the calls are recorded, not run: their results appear when the graph is launched. Every
 * asynchronous call can be captured (vector ops, reductions (commutative, segmented, ordered), histograms, matrix
 * add / transpose / GEMM, gp_memcpy / gp_memset / gp_memcpy_kernel / 2D and 3D copies between device-accessible
 * buffers); calls that wait, read back, allocate, free or migrate (every _sync call, gp_stream_sync, gp_mem_alloc /
 * free / register, prefetch and advice, reducers, file streaming, timers, stream creation, copies or sets of pageable
 * host memory, the persisting-L2 setting) return GP_ERR_UNSUPPORTED during a
 * capture and leave it intact. A captured call's scratch memory and last-block counters belong to the graph:
 * calls made outside it (before, after, between launches) never reuse or free them, so they cannot invalidate a
 * graph; two launches of one graph must not overlap (launch it on one stream). Pointers and sizes are fixed at
 * capture: a replay reads and writes the same buffers. A CPU context has nothing to capture: GP_ERR_UNSUPPORTED.
 * stream must be a stream of the context's device (gp_stream_create), not NULL (the legacy stream cannot capture). */
typedef struct gp_graph gp_graph_t;
GP_API gp_status_t gp_graph_begin(gp_ctx_t *ctx, gp_stream_t stream);
/* Ends the capture begun on ctx and instantiates it. On failure (a call failed or the capture was invalidated) no
 * graph is made, *graph is NULL, and the context is back to direct calls. */
GP_API gp_status_t gp_graph_end(gp_ctx_t *ctx, gp_graph_t **graph);
GP_API gp_status_t gp_graph_launch(gp_graph_t *graph, gp_stream_t stream);
/* Waits for the graph's launches, then frees it and its scratch memory. NULL is accepted. */
GP_API gp_status_t gp_graph_destroy(gp_graph_t *graph);

/* Keeps a hot buffer in the L2 for the work on one stream (a histogram's bins, a lookup table): sets aside L2 for
 * persisting lines (cudaLimitPersistingL2CacheSize: min(bytes, the device's maximum, gp_device_info's
 * persisting_l2_max_bytes)) and gives stream an access-policy window over [ptr, ptr + bytes) (at most the device's
 * window size): hit_ratio of its lines are kept (persisting), the rest and every other access stream through. When
 * bytes exceed the set-aside, hit_ratio is lowered to set-aside / bytes so the kept lines fit (the CUDA guide's
 * advice). bytes = 0 removes the stream's window, resets persisting lines to normal and returns the set-aside.
 * stream: a stream of the context (not NULL: the legacy stream takes no attributes). GPU contexts only where the
 * device has persisting L2 (sm_80 and later), else GP_ERR_UNSUPPORTED; a CPU context: GP_OK, nothing to do. Not
 * inside a graph capture. The set-aside is per device: contexts and processes on it share it. */
GP_API gp_status_t gp_ctx_set_persisting_l2(gp_ctx_t *ctx, const void *ptr, size_t bytes, double hit_ratio,
                                            gp_stream_t stream);

/* ---------------------------------------------------------------------------------------------- timing */
/* Stream-ordered timer: CUDA events on a GPU context, a monotonic clock on a CPU context. */
typedef struct gp_timer gp_timer_t;
GP_API gp_status_t gp_timer_create(gp_ctx_t *ctx, gp_timer_t **timer);
GP_API gp_status_t gp_timer_destroy(gp_timer_t *timer);  /* NULL is accepted */
GP_API gp_status_t gp_timer_start(gp_timer_t *timer, gp_stream_t stream);
GP_API gp_status_t gp_timer_stop(gp_timer_t *timer, gp_stream_t stream);
/* Waits for the stop mark, then gives the milliseconds between start and stop. */
GP_API gp_status_t gp_timer_elapsed_ms(gp_timer_t *timer, double *ms);

/* ---------------------------------------------------------------------------------------------- device info */
typedef struct gp_device_info {
    int device;                       /* ordinal */
    char name[256];
    char uuid[48];                    /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    int cc_major, cc_minor;           /* compute capability */
    int sm_count;
    int clock_khz;                    /* peak SM clock */
    int mem_clock_khz;                /* peak memory clock */
    int mem_bus_width_bits;
    double mem_bandwidth_gbs;         /* theoretical: 2 (DDR) * mem_clock * bus width / 8, in 1e9 B/s */
    size_t total_mem_bytes, free_mem_bytes;
    int l2_bytes, persisting_l2_max_bytes;
    size_t smem_per_block, smem_per_sm, smem_per_block_optin, const_mem_bytes;
    int regs_per_block, regs_per_sm, warp_size;
    int max_threads_per_block, max_threads_per_sm, max_blocks_per_sm;
    int max_block_dim[3], max_grid_dim[3];
    int async_engines;                /* copy engines */
    int unified_addressing, managed_memory, concurrent_managed_access, pageable_memory_access;
    int can_map_host_memory, host_register_supported, cluster_launch, cooperative_launch;
    int ecc_enabled, integrated, memory_pools;
    int pci_domain, pci_bus, pci_device;
    int driver_version, runtime_version;  /* 13000 = 13.0 */
} gp_device_info_t;

GP_API gp_status_t gp_device_info(int device, gp_device_info_t *info);

typedef struct gp_cpu_info {
    char model[128];
    int logical_cores;                /* online processors */
    int omp_max_threads;              /* threads the CPU backend uses */
    size_t total_mem_bytes, avail_mem_bytes;
} gp_cpu_info_t;

GP_API gp_status_t gp_cpu_info(gp_cpu_info_t *info);

/* ---------------------------------------------------------------------------------------------- memory */
typedef enum gp_mem_kind {
    GP_MEM_DEVICE = 0,          /* cudaMalloc; on a CPU context: 64-byte aligned host memory */
    GP_MEM_PAGEABLE,            /* malloc'd host memory (64-byte aligned) */
    GP_MEM_PINNED,              /* page-locked host memory (cudaHostAlloc default) */
    GP_MEM_PORTABLE,            /* pinned for every CUDA context (cudaHostAllocPortable) */
    GP_MEM_WRITE_COMBINED,      /* pinned, write-combined: fast host writes and H2D, very slow host reads */
    GP_MEM_MAPPED,              /* pinned and mapped (zero-copy): kernels read/write it over the bus */
    GP_MEM_MANAGED,             /* cudaMallocManaged: migrates on demand; see gp_mem_prefetch / gp_mem_advise */
    GP_MEM_REGISTERED,          /* caller's host memory page-locked with gp_mem_register (never by gp_mem_alloc) */
    GP_MEM_KIND_COUNT
} gp_mem_kind_t;

GP_API const char *gp_mem_kind_name(gp_mem_kind_t kind);  /* "device", "pageable", ... */
GP_API gp_status_t gp_mem_kind_parse(const char *name, gp_mem_kind_t *kind);

/* A buffer of one kind. host: where the CPU may read/write it (NULL for device memory on a GPU context).
 * device: where kernels may read/write it (NULL for pageable memory). Both point to the same bytes. */
typedef struct gp_buffer {
    void *host;
    void *device;
    size_t bytes;
    gp_mem_kind_t kind;
    int device_id;                    /* the context's device, or GP_DEVICE_CPU */
} gp_buffer_t;

/* Allocates bytes (0 allowed: both pointers NULL) of kind. On a CPU context only GP_MEM_DEVICE and
 * GP_MEM_PAGEABLE exist (both plain host memory); other kinds return GP_ERR_UNSUPPORTED. */
GP_API gp_status_t gp_mem_alloc(gp_ctx_t *ctx, gp_mem_kind_t kind, size_t bytes, gp_buffer_t *buf);
/* Page-locks and maps the caller's memory [host, host + bytes) (cudaHostRegister, mapped). Kind GP_MEM_REGISTERED.
 * gp_mem_free unregisters it and leaves the memory to the caller. */
GP_API gp_status_t gp_mem_register(gp_ctx_t *ctx, void *host, size_t bytes, gp_buffer_t *buf);
/* Frees (or unregisters) and zeroes *buf. A zeroed buffer is accepted and does nothing. */
GP_API gp_status_t gp_mem_free(gp_ctx_t *ctx, gp_buffer_t *buf);

/* Managed memory: migrate [offset, offset + bytes) of a GP_MEM_MANAGED buffer to the context's device
 * (to_cpu = 0) or to the host (to_cpu = 1), asynchronously on the stream. */
GP_API gp_status_t gp_mem_prefetch(gp_ctx_t *ctx, const gp_buffer_t *buf, size_t offset, size_t bytes, int to_cpu,
                                   gp_stream_t stream);
typedef enum gp_mem_advice {
    GP_ADVISE_READ_MOSTLY = 0,        /* read-only copies on each processor that reads */
    GP_ADVISE_UNSET_READ_MOSTLY,
    GP_ADVISE_PREFER_DEVICE,          /* preferred location: the context's device */
    GP_ADVISE_PREFER_CPU,             /* preferred location: the host */
    GP_ADVISE_ACCESSED_BY_DEVICE,     /* keep a mapping for the context's device */
    GP_ADVISE_COUNT
} gp_mem_advice_t;
GP_API gp_status_t gp_mem_advise(gp_ctx_t *ctx, const gp_buffer_t *buf, size_t offset, size_t bytes,
                                 gp_mem_advice_t advice);

/* Copies between any two kinds (the direction is inferred from the pointers: unified addressing). Use
 * buf.device for device memory and buf.host (or buf.device) for host kinds. Async copies involving pageable
 * memory are staged by the driver and may return before or after the copy completes; pinned kinds overlap. */
GP_API gp_status_t gp_memcpy(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, gp_stream_t stream);
GP_API gp_status_t gp_memcpy_sync(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes);
/* Sets bytes to value: device-addressable memory asynchronously on the stream; pageable host memory after
 * waiting for the stream (like an async copy from pageable memory). */
GP_API gp_status_t gp_memset(gp_ctx_t *ctx, void *dst, int value, size_t bytes, gp_stream_t stream);
/* Copy by a kernel on the SMs rather than by a copy engine: dst and src must be device-accessible (device,
 * mapped, managed, registered, or pinned memory's device pointer). Any byte alignment. */
GP_API gp_status_t gp_memcpy_kernel(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes, gp_stream_t stream);

/* Pitched 2D / 3D device memory (cudaMallocPitch / cudaMalloc3D): row r of slice s starts at
 * (char *)ptr + (s * height + r) * pitch. On a CPU context: host memory with rows padded to 64 bytes. */
typedef struct gp_pitched {
    void *ptr;
    size_t pitch;                     /* bytes between rows, >= width_bytes */
    size_t width_bytes, height, depth;  /* depth = 1 for 2D */
} gp_pitched_t;
GP_API gp_status_t gp_mem_alloc_2d(gp_ctx_t *ctx, size_t width_bytes, size_t height, gp_pitched_t *out);
GP_API gp_status_t gp_mem_alloc_3d(gp_ctx_t *ctx, size_t width_bytes, size_t height, size_t depth,
                                   gp_pitched_t *out);
GP_API gp_status_t gp_mem_free_pitched(gp_ctx_t *ctx, gp_pitched_t *p);
/* Copies a width_bytes x height block of rows between any two memories, each with its own pitch. */
GP_API gp_status_t gp_memcpy_2d(gp_ctx_t *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width_bytes, size_t height, gp_stream_t stream);
/* Copies a width_bytes x height x depth box; slices are dheight / sheight rows apart in dst / src. */
GP_API gp_status_t gp_memcpy_3d(gp_ctx_t *ctx, void *dst, size_t dpitch, size_t dheight, const void *src,
                                size_t spitch, size_t sheight, size_t width_bytes, size_t height, size_t depth,
                                gp_stream_t stream);

/* ---------------------------------------------------------------------------------------------- vector */
/* The BabelStream set over dtypes GP_F32, GP_F64 and GP_I32 (others: GP_ERR_UNSUPPORTED). Any n >= 0, including
 * more than 2^32. x, y, z must be device-accessible on a GPU context. The output may be the same pointer as an
 * input (in place); partial overlaps are undefined. Integer arithmetic wraps modulo 2^32. alpha is converted to
 * the dtype; for GP_I32 it must be an integer in the int32 range (else GP_ERR_INVALID_ARG). */
GP_API gp_status_t gp_vec_copy(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y,
                               gp_stream_t stream);                                       /* y = x         */
GP_API gp_status_t gp_vec_scale(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, double alpha, const void *x, void *y,
                                gp_stream_t stream);                                      /* y = alpha * x */
GP_API gp_status_t gp_vec_add(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const void *y, void *z,
                              gp_stream_t stream);                                        /* z = x + y     */
GP_API gp_status_t gp_vec_triad(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, double alpha, const void *x,
                                const void *y, void *z, gp_stream_t stream);              /* z = x + alpha*y */
/* Dot product sum_i x[i] * y[i]. The result is a double for GP_F32 and GP_F64 (products and sums in double) and
 * an int64_t for GP_I32 (exact, wrapping modulo 2^64). gp_vec_dot writes it to device-accessible memory
 * asynchronously; gp_vec_dot_sync writes it to host memory and waits. n = 0 gives 0. */
GP_API gp_status_t gp_vec_dot(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const void *y,
                              void *result, gp_stream_t stream);
GP_API gp_status_t gp_vec_dot_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const void *y,
                                   void *result_host);

/* ---------------------------------------------------------------------------------------------- reduce */
/* Device-wide reductions of n elements of any dtype. One launch for any n (the last block to finish combines).
 * Deterministic: the result's bits depend only on the data, never on the grid, stream, GPU model or backend —
 * the reduction tree is fixed over 64 KiB tiles (docs/design/reduce.md), and the CPU backend computes the same tree, so
 * GPU and CPU results are bitwise equal (NaN results: NaN on both, payloads may differ).
 *   sum, prod         integers: int64 (signed) / uint64 (unsigned) accumulators, wrapping mod 2^64;
 *                     f16, bf16, f32: f32 accumulator; f64: f64.
 *   min, max, minmax  the extreme value (integers widened to int64/uint64; f16/bf16 to f32). Any NaN makes the
 *                     result NaN (NumPy's rule); -0.0 and +0.0 compare equal.
 *   argmin, argmax    the extreme and the FIRST index holding it; with NaNs, the index of the first NaN (as NumPy).
 *   and, or, xor      integers only: the dtype's bits, zero-extended to uint64.
 *   count_nonzero     uint64; NaN counts as nonzero, -0.0 as zero.
 * n = 0 gives the identity: sum 0, prod 1, min/max the dtype's largest/smallest value (+-inf for floats), and all ones
 * of the dtype, or/xor/count 0, argmin/argmax index -1. */
typedef enum gp_reduce_op {
    GP_REDUCE_SUM = 0, GP_REDUCE_PROD, GP_REDUCE_MIN, GP_REDUCE_MAX, GP_REDUCE_MINMAX, GP_REDUCE_ARGMIN,
    GP_REDUCE_ARGMAX, GP_REDUCE_AND, GP_REDUCE_OR, GP_REDUCE_XOR, GP_REDUCE_COUNT_NONZERO,
    GP_REDUCE_OP_COUNT
} gp_reduce_op_t;

typedef union gp_scalar {
    double f64;
    float f32;
    int64_t i64;
    uint64_t u64;
} gp_scalar_t;

typedef struct gp_reduce_result {
    gp_scalar_t value;   /* the result; minmax: the min; argmin/argmax: the extreme value */
    gp_scalar_t value2;  /* minmax: the max; else 0 */
    int64_t index;       /* argmin/argmax: first index of the extreme (-1 when n = 0); else -1 */
    int32_t acc_dtype;   /* gp_dtype_t of value and value2: GP_F32, GP_F64, GP_I64 or GP_U64 */
    int32_t op;          /* the gp_reduce_op_t computed */
} gp_reduce_result_t;

GP_API const char *gp_reduce_op_name(gp_reduce_op_t op); /* "sum", ..., "count_nonzero" */
GP_API gp_status_t gp_reduce_op_parse(const char *name, gp_reduce_op_t *op);
/* The accumulator dtype of op over dtype (GP_DTYPE_COUNT when the pair is unsupported). */
GP_API gp_dtype_t gp_reduce_acc_dtype(gp_reduce_op_t op, gp_dtype_t dtype);
/* result: device-accessible memory (written asynchronously on the stream); 8-byte aligned. */
GP_API gp_status_t gp_reduce(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                             gp_reduce_result_t *result, gp_stream_t stream);
/* result_host: host memory; waits for the result (legacy default stream). */
GP_API gp_status_t gp_reduce_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                  gp_reduce_result_t *result_host);

/* Segmented reduction: out[i] = op over x[offsets[i], offsets[i+1]) for i < nseg (CSR offsets: nseg + 1 int64 values,
 * nondecreasing, within [0, n]; out-of-range values are clamped, and a decreasing pair is an empty segment).
 * Ops: sum, prod, min, max, and, or, xor, count_nonzero (same accumulators and NaN rules as gp_reduce); out holds nseg
 * values of gp_reduce_acc_dtype(op, dtype) (float for f16/bf16/f32, else 8 bytes); an empty segment gives the op's
 * identity. Skewed mixes (empty, tiny, huge) are balanced by a global work queue: blocks fetch groups of segments,
 * then the chunks of large segments, with atomicAdd on a queue head (fetch when done). Deterministic: each segment's
 * tree depends only on its length (docs/design/reduce.md); the CPU backend gives the same bits. GPU: x, offsets and out in
 * device-accessible memory, asynchronous on the stream; uses the context's workspace (one at a time per context). */
GP_API gp_status_t gp_reduce_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                       size_t nseg, const int64_t *offsets, void *out, gp_stream_t stream);

/* Ordered (non-commutative) reductions: the left fold x0 o x1 o ... o x(n-1), which CUB's reductions cannot do.
 * An element is a row-major tuple of the dtype:
 *   mat2, mat3, mat4  2x2 / 3x3 / 4x4 matrices (4, 9, 16 values); the result is the product M0 M1 ... M(n-1).
 *                     f32, f64, and u32 (products and sums wrap modulo 2^32: exact, for tests).
 *   affine            (a, b) for the map x -> a x + b; the result is the composition applying x0 first, then x1, ...:
 *                     (a, b) o (c, d) = (c a, c b + d). f32, f64.
 *   first, last       x0 and x(n-1); any dtype (tuple of 1).
 * Deterministic: a fixed ordered tree over tiles (docs/design/reduce.md) with explicitly rounded products and sums (no FMA),
 * computed identically by the CPU backend: the same bits on any GPU and the CPU. Float results differ from a serial
 * left fold only by rounding (the fold is associative in exact arithmetic). n = 0 gives the identity (the identity
 * matrix; (1, 0)); first and last of nothing are GP_ERR_INVALID_ARG. x is aligned to the dtype. gp_reduce_ordered
 * writes the tuple to device-accessible memory asynchronously; _sync writes host memory and waits. */
typedef enum gp_ordered_op {
    GP_ORDERED_MAT2 = 0, GP_ORDERED_MAT3, GP_ORDERED_MAT4, GP_ORDERED_AFFINE, GP_ORDERED_FIRST, GP_ORDERED_LAST,
    GP_ORDERED_OP_COUNT
} gp_ordered_op_t;
GP_API const char *gp_ordered_op_name(gp_ordered_op_t op); /* "mat2", "mat3", "mat4", "affine", "first", "last" */
GP_API gp_status_t gp_ordered_op_parse(const char *name, gp_ordered_op_t *op);
GP_API size_t gp_ordered_width(gp_ordered_op_t op);        /* values per element: 4, 9, 16, 2, 1, 1 (0: bad op) */
GP_API gp_status_t gp_reduce_ordered(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                     void *result, gp_stream_t stream);
GP_API gp_status_t gp_reduce_ordered_sync(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n,
                                          const void *x, void *result_host);

/* Selectable accumulators: acc = GP_DTYPE_COUNT (or the default gp_reduce_acc_dtype) is gp_reduce; GP_F64 for sum and
 * prod of f16, bf16 and f32 data accumulates in double (the same tree; GPU and CPU bits equal; result.value.f64).
 * Any other choice is GP_ERR_UNSUPPORTED naming the choices. */
GP_API gp_status_t gp_reduce_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, size_t n,
                                 const void *x, gp_reduce_result_t *result, gp_stream_t stream);
GP_API gp_status_t gp_reduce_acc_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, size_t n,
                                      const void *x, gp_reduce_result_t *result_host);

/* An array that arrives in pieces (a file, a pipe, data larger than the GPU): push the pieces in order, then finish.
 * The result is bitwise gp_reduce's over the whole array (same tree: docs/design/reduce.md), for any piece sizes.
 * GPU context: pieces are device-accessible memory; a push is asynchronous on its stream, and pushes on different
 * streams are ordered after one another (each waits for the previous one); x may be reused once the stream has passed
 * the push. CPU context: host memory, synchronous. Every push but the last must hold a whole number of tiles:
 * a multiple of gp_reducer_granule elements (65536 bytes); a push that is not ends the sequence. finish waits, writes
 * the result (the op's identity when nothing was pushed) and empties the reducer for another array. A reducer is used
 * by one host thread at a time; it holds its own device memory (a few hundred KiB), not the context's workspace. */
typedef struct gp_reducer gp_reducer_t;
GP_API gp_status_t gp_reducer_create(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_reducer_t **reducer);
/* The same with an accumulator choice as gp_reduce_acc (GP_DTYPE_COUNT: the default). */
GP_API gp_status_t gp_reducer_create_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                         gp_reducer_t **reducer);
GP_API size_t gp_reducer_granule(const gp_reducer_t *reducer);
GP_API gp_status_t gp_reducer_push(gp_reducer_t *reducer, const void *x, size_t count, gp_stream_t stream);
GP_API gp_status_t gp_reducer_finish(gp_reducer_t *reducer, gp_reduce_result_t *result_host);
GP_API gp_status_t gp_reducer_destroy(gp_reducer_t *reducer); /* NULL is accepted; waits for its last push */
/* Moves the array src has begun to dst: the same op, dtype and accumulator, dst empty, on any context (GPU or CPU,
 * another device). Later pushes to dst continue the array, and finish gives the bits pushing everything to dst would
 * have given (the tree's partial levels move, converted between the backends' layouts). src is left empty. Waits for
 * src's pushes. Use: start on the CPU backend while a GPU context starts, then hand over. */
GP_API gp_status_t gp_reducer_transfer(gp_reducer_t *dst, gp_reducer_t *src);

/* ---------------------------------------------------------------------------------------------- scan */
/* y[i] = x[0] op x[1] op ... op x[i] (GP_SCAN_INCLUSIVE), or the same shifted right by one with the op's identity
 * first (GP_SCAN_EXCLUSIVE: +0.0 for float sums, 1 for products, +inf / -inf or the type's limits for min / max,
 * all ones for and, 0 for or / xor). Ops: sum, prod, min, max over f32 f64 i32 u32 i64 u64; and, or, xor over the
 * integers, every dtype: u8 i8 u16 i16 are scanned in 32 bits and written back in their width (sums and products
 * wrap there), f16 / bf16 accumulate in f32 and each output is rounded to the dtype (nearest even); wider accumulators:
 * gp_scan_acc. (Ordered ops: gp_scan_ordered; segmented: gp_scan_heads, gp_scan_segmented.) Deterministic: the association order of
 * docs/design/scan.md on every GPU, every launch and the CPU backend — the same bits; integer sums and products wrap; float
 * min / max keep the first NaN (NumPy's rule). x and y: device-accessible on a GPU (host memory on the CPU backend),
 * element-aligned; y == x (in place) is allowed, any other overlap is refused. Asynchronous on the stream; uses the
 * context's workspace (one call at a time per context); can be captured into a graph. */
typedef enum gp_scan_kind { GP_SCAN_INCLUSIVE = 0, GP_SCAN_EXCLUSIVE = 1 } gp_scan_kind_t;
GP_API gp_status_t gp_scan(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n,
                           const void *x, void *y, gp_stream_t stream);

/* gp_scan with an accumulator choice, the output in the accumulator's type (y holds n values of it; no scan in
 * place when its size differs from the dtype's): acc = GP_DTYPE_COUNT is the default — gp_reduce_acc_dtype for sums
 * and products (f32 for f16 / bf16 / f32, i64 / u64 for the integers), gp_scan's own for the other ops (f32 outputs
 * for f16 / bf16); acc = the dtype is gp_scan; f32 for f16 / bf16 (every op); for sums and products f64 over f16 /
 * bf16 / f32 and i64 / u64 (by signedness) over integers of up to 4 bytes. Anything else is GP_ERR_UNSUPPORTED naming
 * the choices. The same order and determinism as gp_scan (GPU = CPU bits). */
GP_API gp_status_t gp_scan_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, gp_scan_kind_t kind,
                               size_t n, const void *x, void *y, gp_stream_t stream);
/* The dtype gp_scan_acc writes for (op, dtype, acc); GP_DTYPE_COUNT when the choice is refused. */
GP_API gp_dtype_t gp_scan_out_dtype(gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc);

/* Ordered (non-commutative) scans, the prefixes of gp_reduce_ordered's left fold: y[i] = x0 o x1 o ... o xi
 * (GP_SCAN_INCLUSIVE), or the identity (the identity matrix; (1, 0)) followed by those shifted by one (exclusive).
 * Ops and dtypes as gp_reduce_ordered: mat2 mat3 mat4 over f32 f64 u32, affine over f32 f64 — the linear recurrence
 * x_t = a_t x_(t-1) + b_t: with x_(-1) = 0 the inclusive scan's b is x_t, and x_t = a x_(-1) + b for any start —,
 * first and last over any dtype (inclusive only: they have no identity). An element is gp_ordered_width(op) values
 * of dtype; n counts elements. Deterministic: the association order of docs/design/scan.md, its runs R elements long (R =
 * 16 for elements of up to 8 bytes, 8 up to 16, 4 up to 32, 2 up to 64, 1 beyond), products and sums rounded one at
 * a time (no FMA): the same bits on every GPU and the CPU backend; within rounding of a serial left fold. x and y as
 * in gp_scan (y == x allowed, element-aligned to the dtype); asynchronous; the context's workspace; capturable. */
GP_API gp_status_t gp_scan_ordered(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n,
                                   const void *x, void *y, gp_stream_t stream);

/* Segmented scans: gp_scan restarted at every segment head — y[i] = x[h] op ... op x[i] for the last head h <= i
 * (exclusive: the op's first value at every head, then the inclusive values shifted by one within the segment).
 * Ops and dtypes as gp_scan. gp_scan_heads: heads[i] != 0 starts a segment at i (n bytes). gp_scan_segmented: CSR
 * offsets as gp_reduce_segmented's (nseg + 1 int64 values): every offset in [0, n) starts a segment (order and
 * repeats do not matter; values outside [0, n) are ignored; the elements before the first offset are a segment of
 * their own, as are those after the last). Deterministic: the order of docs/design/scan.md applied to (head, value) pairs
 * under (f, v) o (g, w) = (f | g, g ? w : v op w), runs of 16 elements (4-byte types) or 8 (8-byte types): the same bits
 * on every GPU and the CPU backend. x, y as in gp_scan (y == x allowed); heads / offsets device-accessible on a GPU
 * (host memory on the CPU backend); GPU: one launch (gp_scan_segmented: two more, the heads made in the workspace as
 * bits, n / 8 bytes); asynchronous; the context's workspace; capturable. */
GP_API gp_status_t gp_scan_heads(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n,
                                 const void *x, const uint8_t *heads, void *y, gp_stream_t stream);
GP_API gp_status_t gp_scan_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind,
                                     size_t n, const void *x, size_t nseg, const int64_t *offsets, void *y,
                                     gp_stream_t stream);

/* A scan of an array that arrives in pieces (a file larger than memory, a stream): each push scans its piece
 * continuing from the ones before, and the bits equal one gp_scan over the whole array. Every push but the last must
 * hold a multiple of GP_SCAN_GRANULE elements (whole tiles of the association order: docs/design/scan.md); a push after a
 * partial one is refused. Pushes may come on different streams: each waits for the previous one. x and y as in
 * gp_scan (y == x allowed). gp_scanner_total_sync gives the inclusive result of everything pushed so far (the
 * exclusive scan's first value when nothing was); gp_scanner_reset starts a new array. Not inside a graph capture. */
#define GP_SCAN_GRANULE 4096
typedef struct gp_scanner gp_scanner_t;
GP_API gp_status_t gp_scanner_create(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind,
                                     gp_scanner_t **scanner);
/* The same with gp_scan_acc's accumulator choice: pushes write gp_scanner_out_dtype values, the total is one of them
 * (the carry between pushes stays in the accumulator's type, so the bits equal one gp_scan_acc). */
GP_API gp_status_t gp_scanner_create_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                         gp_scan_kind_t kind, gp_scanner_t **scanner);
GP_API gp_dtype_t gp_scanner_out_dtype(const gp_scanner_t *scanner); /* GP_DTYPE_COUNT for NULL */
/* Moves the array src has begun to dst (as gp_reducer_transfer): the same op, dtype, accumulator and kind, dst
 * empty, on any context. Later pushes to dst continue the scan with the bits one scanner would give; src is left
 * empty. Waits for src's pushes. */
GP_API gp_status_t gp_scanner_transfer(gp_scanner_t *dst, gp_scanner_t *src);
/* An ordered scanner (gp_scan_ordered's ops, dtypes and kinds): pushes of n elements (tuples of gp_ordered_width(op)
 * values) continue the product of the pieces before, the bits of one gp_scan_ordered; the total is one element (the
 * identity when nothing was pushed; first / last of nothing: GP_ERR_INVALID_ARG). */
GP_API gp_status_t gp_scanner_create_ordered(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind,
                                             gp_scanner_t **scanner);
GP_API gp_status_t gp_scanner_push(gp_scanner_t *scanner, size_t n, const void *x, void *y, gp_stream_t stream);
GP_API gp_status_t gp_scanner_total_sync(gp_scanner_t *scanner, void *value_host);
GP_API size_t gp_scanner_count(const gp_scanner_t *scanner); /* elements pushed since create / reset */
GP_API gp_status_t gp_scanner_reset(gp_scanner_t *scanner);
GP_API gp_status_t gp_scanner_destroy(gp_scanner_t *scanner); /* NULL is accepted; waits for its last push */

/* ---------------------------------------------------------------------------------------------- select, partition */
/* Which elements to keep. The constants are compared with each element's value exactly: integers as the real numbers
 * they are (x > 2.5 keeps 3 and up; no rounding of the constant into the type), floats (f16, bf16, f32, f64) widened
 * to double; a NaN fails every comparison but ne and counts as nonzero (NumPy's rules). in: a <= v < b.
 * GP_PRED_FLAGS keeps x[i] where flags[i] != 0 (n bytes, device-accessible on a GPU, host memory on the CPU). */
typedef enum gp_pred_kind {
    GP_PRED_NONZERO = 0, GP_PRED_EQ, GP_PRED_NE, GP_PRED_LT, GP_PRED_LE, GP_PRED_GT, GP_PRED_GE, GP_PRED_IN,
    GP_PRED_NAN, GP_PRED_NOT_NAN, GP_PRED_FLAGS, GP_PRED_KIND_COUNT
} gp_pred_kind_t;
typedef struct gp_pred {
    gp_pred_kind_t kind;
    double a, b;          /* the constants: a for the comparisons, [a, b) for in */
    const uint8_t *flags; /* GP_PRED_FLAGS only */
} gp_pred_t;
/* "nonzero", "eq:X", "ne:X", "lt:X", "le:X", "gt:X", "ge:X", "in:LO,HI", "nan", "notnan" into *pred. */
GP_API gp_status_t gp_pred_parse(const char *text, gp_pred_t *pred);
/* y[0, count) = the elements of x[0, n) that pred keeps, in their order (stable); gp_partition then puts the rejected
 * ones after them, also in their order: y[count, n). Any dtype. count_dev (NULL: not wanted): one u64 written on the
 * stream (device memory on a GPU, host memory on the CPU backend); the _sync variants return it. x and y must not
 * overlap. GPU: an exclusive scan of the keep flags (gp_scan's kernel, exact for any n) and a scatter, in the
 * context's workspace; asynchronous on the stream. */
GP_API gp_status_t gp_select(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred, void *y,
                             uint64_t *count_dev, gp_stream_t stream);
GP_API gp_status_t gp_select_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred,
                                  void *y, size_t *count);
GP_API gp_status_t gp_partition(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred,
                                void *y, uint64_t *count_dev, gp_stream_t stream);
GP_API gp_status_t gp_partition_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred,
                                     void *y, size_t *count);
/* Consecutive duplicates: y[0, count) = x[i] for i = 0 and every i with x[i] != x[i-1], in order (std::unique,
 * CUB's DeviceSelect::Unique). Equality is by value: floats compare as numbers (NaN equals nothing, so each NaN is
 * kept; -0.0 equals +0.0, so the first of them is kept), integers exactly. Counts as in gp_select. */
GP_API gp_status_t gp_unique(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y, uint64_t *count_dev,
                             gp_stream_t stream);
GP_API gp_status_t gp_unique_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y, size_t *count);
/* Run-length encoding with the same equality: runs of equal consecutive elements; values[r] = the run's first
 * element, lengths[r] (u64) its length, for r < runs. values and lengths must hold as many runs as there may be (n at
 * most). runs_dev (NULL: not wanted) as gp_select's count; the _sync variant returns it. */
GP_API gp_status_t gp_run_length_encode(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *values,
                                        uint64_t *lengths, uint64_t *runs_dev, gp_stream_t stream);
GP_API gp_status_t gp_run_length_encode_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *values,
                                             uint64_t *lengths, size_t *runs);

/* By key (CUB's ReduceByKey / ScanByKey): runs of equal consecutive keys — gp_unique's equality: floats by value,
 * NaN equal to nothing, -0.0 == +0.0; integers exactly — group the values (n keys of key_dtype, n values of dtype).
 * gp_scan_by_key: y = the scan (kind) restarted at every run: the bits of gp_scan_segmented over the same runs (its
 * ops and dtypes; y == values allowed, y must not overlap keys). One pass on the GPU, asynchronous on stream.
 * gp_reduce_by_key: for r < runs, keys_out[r] = the run's first key and values_out[r] = op over the run's values in
 * the accumulator dtype (gp_reduce_acc_dtype); keys_out and values_out hold n at most; *runs_dev (device memory, or
 * host memory on the CPU backend; NULL: not wanted) = the number of runs. One pass, asynchronous, for f32, f64, i64
 * and u64 values (sum prod min max; and or xor of the integers): each run's value is the inclusive scan by key's
 * value at the run's last element (docs/design/scan.md, "By key"), so float sums are in the segmented scan's order.
 * gp_reduce_by_key_sync also takes every other (op, dtype) of gp_reduce_segmented — f16 / bf16 values in
 * gp_reduce_segmented's order, integers exact in any order — composing run-length encoding and gp_reduce_segmented
 * with (n + 1) 8-byte run offsets allocated on the context for the call. The _sync variants run on the context's
 * default stream and return when the result is in place. */
GP_API gp_status_t gp_reduce_by_key(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                                    gp_dtype_t dtype, const void *values, void *keys_out, void *values_out,
                                    uint64_t *runs_dev, gp_stream_t stream);
GP_API gp_status_t gp_reduce_by_key_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n,
                                         const void *keys, gp_dtype_t dtype, const void *values, void *keys_out,
                                         void *values_out, size_t *runs);
GP_API gp_status_t gp_scan_by_key(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                                  gp_dtype_t dtype, gp_scan_kind_t kind, const void *values, void *y,
                                  gp_stream_t stream);
GP_API gp_status_t gp_scan_by_key_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n,
                                       const void *keys, gp_dtype_t dtype, gp_scan_kind_t kind, const void *values,
                                       void *y);

/* ---------------------------------------------------------------------------------------------- sort */
/* How to sort. Ascending is NumPy's order: floats as numbers with every NaN last (any sign or payload) and -0.0 equal
 * to +0.0, integers as integers; descending puts NaN first (torch.sort(descending=True, stable=True)). Every sort is
 * stable: equal keys keep their input order, so gp_argsort is np.argsort(keys, kind='stable'). CUB orders floats by
 * their bits instead (-0 before +0, negative NaNs first). begin_bit / end_bit: integer keys only — only those bits of
 * the key take part (signed keys: with the sign bit flipped first, as CUB's); 0 and 0 mean the whole key. NULL opts:
 * ascending, the whole key. */
typedef struct gp_sort_opts {
    int descending;
    int begin_bit, end_bit;
} gp_sort_opts_t;
/* keys_out[0, n) = keys[0, n) in order; every bit of each element is kept (NaN payloads, the sign of zeros). Any
 * dtype, any n; keys_out may be keys (in place) and must not overlap it otherwise. GPU: an LSD radix sort in 8-bit
 * digits (Onesweep), asynchronous on the stream; workspace from the context (gp_sort_workspace_bytes): one copy of
 * the keys and about n / 3 bytes of counts. CPU backend: the same order (OpenMP), scratch from malloc. */
GP_API gp_status_t gp_sort(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                           const gp_sort_opts_t *opts, gp_stream_t stream);
/* The same, each key's value (value_bytes: 1, 2, 4, 8 or 16; the pointers aligned to min(value_bytes, 8)) moved with
 * it; values_out may be values. GPU workspace: also one copy of the values. */
GP_API gp_status_t gp_sort_pairs(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                                 size_t value_bytes, const void *values, void *values_out, const gp_sort_opts_t *opts,
                                 gp_stream_t stream);
/* indices[0, n) = the positions of the keys in sorted order: index_dtype GP_I64 (NumPy's), GP_U64, or GP_U32
 * (n <= 2^32). keys are left as they are. GPU workspace: the counts, two copies of the keys and one of the indices. */
GP_API gp_status_t gp_argsort(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, gp_dtype_t index_dtype,
                              void *indices, const gp_sort_opts_t *opts, gp_stream_t stream);
/* *bytes = the context workspace a sort of n keys of dtype takes on ctx: value_bytes 0 for gp_sort, 1 to 16 for
 * gp_sort_pairs; argsort != 0 for gp_argsort, value_bytes then the index bytes (4 or 8). 0 on the CPU backend (its
 * scratch comes from malloc: a copy of the keys and of the values). */
GP_API gp_status_t gp_sort_workspace_bytes(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, size_t value_bytes, int argsort,
                                           size_t *bytes);
/* The _sync variants run on the context's default stream and return when the result is in place. */
GP_API gp_status_t gp_sort_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                                const gp_sort_opts_t *opts);
GP_API gp_status_t gp_sort_pairs_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                                      size_t value_bytes, const void *values, void *values_out,
                                      const gp_sort_opts_t *opts);
GP_API gp_status_t gp_argsort_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys,
                                   gp_dtype_t index_dtype, void *indices, const gp_sort_opts_t *opts);

/* Segmented sort: each segment [offsets[i], offsets[i + 1]) of keys sorted on its own, as gp_sort sorts (the order,
 * stability, every bit kept; opts as gp_sort's), each key's value moved with it (value_bytes 1, 2, 4, 8 or 16; 0:
 * keys only, values and values_out NULL). offsets: nseg + 1 int64 values, nondecreasing, within [0, n] (checked: a
 * value out of range or a decrease is GP_ERR_INVALID_ARG naming it, nothing written); elements before offsets[0] and
 * from offsets[nseg] on are copied as they are. keys_out may be keys (values_out values) and must not overlap it
 * otherwise. GPU: keys, values and offsets in device memory; the segments are bucketed by length — a warp, a group of
 * warps or a block sorts a short one in shared memory, a block sorts a long one through global memory, and one past
 * about n / (2 x SMs) elements goes to the device-wide sort — after one read-back of a summary of the lengths (the call
 * waits for the stream that far, so it cannot be captured in a graph; a second read-back lists the device-wide ones).
 * Workspace from the context: the segment lists, and a copy of the keys and values when some segment is long.
 * CPU backend: host memory, the same bits. */
GP_API gp_status_t gp_sort_segmented(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys, void *keys_out,
                                     size_t value_bytes, const void *values, void *values_out, size_t nseg,
                                     const int64_t *offsets, const gp_sort_opts_t *opts, gp_stream_t stream);
GP_API gp_status_t gp_sort_segmented_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *keys,
                                          void *keys_out, size_t value_bytes, const void *values, void *values_out,
                                          size_t nseg, const int64_t *offsets, const gp_sort_opts_t *opts);

/* Searching sorted keys (np.searchsorted). sorted[0, n): ascending in gp_sort's order (NaN last; not checked: an
 * unsorted input gives some position). out[i] = where queries[i] goes so that the order holds: side 0 ('left'): the
 * first such place (every key before it is < the query), side 1 ('right'): the last (every key before it is <= the
 * query). NaN queries go after every number (left: before the NaN keys, right: after them); -0.0 == +0.0, as NumPy.
 * index_dtype GP_U32 (n < 2^32), GP_I64 or GP_U64. GPU: one thread a query, the first levels of the search from a
 * sample of the keys in shared memory. CPU backend: host memory (OpenMP). */
GP_API gp_status_t gp_searchsorted(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *sorted, size_t m,
                                   const void *queries, int side, gp_dtype_t index_dtype, void *out,
                                   gp_stream_t stream);
GP_API gp_status_t gp_searchsorted_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *sorted, size_t m,
                                        const void *queries, int side, gp_dtype_t index_dtype, void *out);

/* Merging two sorted inputs: out[0, na + nb) = a[0, na) and b[0, nb), each in gp_sort's order (ascending, or
 * descending != 0: NaN first), merged stably — equal keys from a before those from b, each input's in its own order:
 * the stable sort of a followed by b. Inputs not in order are not checked (the output is then some interleaving).
 * value_bytes 0: keys only (va, vb, vout NULL); 1, 2, 4, 8 or 16: each key's value moves with it into vout. out and
 * vout overlap no input. GPU: merge path (a tile's split of a and b found by a binary search along its diagonal, the
 * tile merged in shared memory). CPU backend: the same splits, a thread each (OpenMP). */
GP_API gp_status_t gp_merge(gp_ctx_t *ctx, gp_dtype_t dtype, size_t na, const void *a, size_t nb, const void *b,
                            void *out, size_t value_bytes, const void *va, const void *vb, void *vout, int descending,
                            gp_stream_t stream);
GP_API gp_status_t gp_merge_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t na, const void *a, size_t nb, const void *b,
                                 void *out, size_t value_bytes, const void *va, const void *vb, void *vout,
                                 int descending);
/* Whether keys are in gp_sort's order (a check of gp_merge's and gp_searchsorted's inputs; std::is_sorted_until):
 * *until = the first i in [1, n) whose key goes before x[i - 1] (ascending: NaN last, -0.0 == +0.0; descending != 0:
 * NaN first), or n when x[0, n) is in order. Host memory (any context's data read back first), any dtype, OpenMP for
 * long arrays; no context: a check, not a device operation. */
GP_API gp_status_t gp_sorted_until(gp_dtype_t dtype, size_t n, const void *x, int descending, size_t *until);

/* Top-k of each of `rows` rows of n elements (C order, rows x n): the k smallest in gp_sort's ascending order, or the
 * k largest (largest != 0) in its descending order (NaN first, as torch.topk), each row's values[r * k, (r + 1) * k)
 * and positions within the row, indices (index_dtype GP_U32, GP_I64 or GP_U64) — exactly the first k of that row's
 * stable sort and argsort: ties go to the lower index. 0 <= k <= n; values or indices may be NULL (not both). GPU: a
 * radix select (one counting read of the rows per 8-bit digit, only where ties need it a select of the positions),
 * one read gathering the k, then the k ordered; workspace from the context. CPU backend: the same selection. */
GP_API gp_status_t gp_topk(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k,
                           int largest, void *values, gp_dtype_t index_dtype, void *indices, gp_stream_t stream);
GP_API gp_status_t gp_topk_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x, size_t k,
                                int largest, void *values, gp_dtype_t index_dtype, void *indices);
/* np.partition / np.argpartition along rows (rows x n, C order): each row rearranged so its k smallest in gp_sort's
 * order come first, in that order (the first k of its stable sort: ties to the lower index), then the row's other
 * n - k elements in their input order. So for every kth < k the element at kth is the one a sort puts there, every
 * element before it is not after it and none after it is before it: NumPy's guarantee for kth (for several kth, k =
 * the largest + 1), with a placement NumPy leaves unspecified made deterministic. values (rows x n of dtype) and
 * indices (rows x n positions within the row, index_dtype GP_U32, GP_I64 or GP_U64): either may be NULL, not both;
 * 0 <= k <= n; neither overlaps x. The CPU backend selects as gp_topk does; on a GPU the k are gp_topk's on the device
 * and the rest of each row is gathered on the host (the rows read back and written back: the same bits, with a copy
 * of the rows each way). */
GP_API gp_status_t gp_partition_kth_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t rows, size_t n, const void *x,
                                         size_t k, void *values, gp_dtype_t index_dtype, void *indices);

/* np.unique(x, return_index, return_inverse, return_counts): y[0, *count) = the distinct keys of x in gp_sort's order
 * (ascending, NaN last). Keys are equal as the sort orders them: every NaN equals every other (NumPy's equal_nan) and
 * -0.0 equals +0.0; each distinct key is written as its first occurrence in x (every bit: a NaN's payload, a zero's
 * sign). first_index[u] = that first occurrence's position, inverse[i] = the u with y[u] equal to x[i] (so
 * y[inverse] equals x), counts[u] = how many elements equal y[u]. index_dtype GP_U32 (n <= 2^32), GP_I64 or GP_U64
 * for first_index and inverse; y, first_index and counts have room for n, inverse n (y's and counts' elements past
 * *count may be overwritten: the GPU uses them as scratch); any of the four may be NULL (not wanted), count may not.
 * The keys sorted (with their positions where first_index or inverse is wanted), a scan of the run heads and one
 * launch writing the outputs; on a GPU integer keys wanted with their counts alone are counted where their range is
 * narrow, else sorted and run-length encoded (docs/design/sort.md, "Sorted unique"): up to 16 bytes an element of
 * device memory (kept on the context up to 64 MiB, beyond that allocated for the call), on the context's default
 * stream; returns when the outputs are in place. */
GP_API gp_status_t gp_unique_sorted_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y,
                                         gp_dtype_t index_dtype, void *first_index, void *inverse, uint64_t *counts,
                                         size_t *count);
/* gp_unique_sorted_sync's options; zero-initialized (or opts NULL) = np.unique's defaults. */
typedef struct gp_unique_opts {
    size_t size;      /* sizeof(gp_unique_opts_t), or 0: the fields below (the struct may grow; older sizes stay valid) */
    int nan_distinct; /* 0: every NaN equals every other (np.unique's equal_nan=True); 1: each NaN is a key of its
                       * own (equal_nan=False): kept in y as it is, after every number in input order, count 1, its
                       * own first_index and inverse slot. Integers: no effect. */
} gp_unique_opts_t;
GP_API gp_status_t gp_unique_sorted_opts_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y,
                                              gp_dtype_t index_dtype, void *first_index, void *inverse,
                                              uint64_t *counts, size_t *count, const gp_unique_opts_t *opts);

/* ---------------------------------------------------------------------------------------------- user operators */
/* Operators written as a line of C, compiled at run time: NVRTC for the context's GPU (libnvrtc is loaded with
 * dlopen on the first gp_uop_create of a GPU context: a program that never creates one does not need it), the
 * system C compiler (GP_CC, else cc) into a shared object for the CPU backend. docs/design/jit.md has the rules.
 *   GP_UOP_BINARY  a o b over elements of `arity` components of dtype. arity 1: src is an expression over `a` and `b`
 *                  of type T (or a body with `return`); arity k > 1: statements over `a[i]`, `b[i]` that set `r[0]` ..
 *                  `r[k-1]` (r never aliases a or b). identity: k C expressions, comma-separated (required).
 *                  commutative = 1: reduced by the tile tree of docs/design/reduce.md (gp_reduce's, so `a + b` with identity
 *                  -0.0 gives gp_reduce's bits; element sizes 1, 2, 4, 8 or 16 bytes), 0: by the ordered tree of
 *                  gp_reduce_ordered (any size; a left fold up to rounding).
 *   GP_UOP_MAP     an expression (or body) over `x` of type T giving out_dtype's value type U (arity 1).
 *   GP_UOP_PRED    an expression over `x` of type T, nonzero = keep (arity 1; gp_select_if).
 *   GP_UOP_LESS    an expression (or body) over keys `a` and `b`, nonzero when a goes before b (gp_sort_uop): of type
 *                  T for arity 1, `const T *` with components a[0] .. a[k-1] for arity k > 1 (keys of k components).
 * T is the dtype's value type: the C integer types, float, double; f16 and bf16 are computed in float (values widen
 * on load, map outputs round to nearest even). Integer arithmetic is the C type's (u8 a + b wraps at 8 bits: widen
 * with a map first). Floating point: no FMA contraction on either side, so + - * / and sqrt give the same bits on
 * the GPU and the CPU; other library functions (expf, ...) may differ in the last place. The source is compiled in
 * a translation unit of its own; it may use the C math functions and INFINITY / NAN (an identity may also say inf,
 * -inf and nan) and call nothing else: on the CPU backend a call of any other function (exit, abort, a misspelt name)
 * is GP_ERR_COMPILE naming it, found in the compiled object before any of it runs; preprocessor directives are
 * refused (no #include, #define: GP_ERR_INVALID_ARG), and src and identity are at most 16 KiB each. Compile errors return GP_ERR_COMPILE with the messages at line:column of src (or of
 * identity) in gp_last_error(). The C compiler runs bounded: GP_JIT_TIMEOUT seconds (default 60) and GP_JIT_MEMORY
 * MiB of address space (default 4096), else GP_ERR_COMPILE saying which limit it met.
 * SECURITY: src is code run with the caller's rights, in the caller's process (CPU backend) or on its GPU; compile
 * only text you would run yourself. The check of the functions it calls is no sandbox: code can still make a system
 * call itself (inline assembly, a computed address) and end or harm the process. On the CPU backend a trap in it
 * (integer division by zero, an invalid address, a stack overflow) becomes GP_ERR_USER_TRAP for the call (handlers
 * for SIGFPE, SIGILL, SIGSEGV and SIGBUS are installed while an operator runs on any thread, then restored; they run
 * on the thread's alternate signal stack, one of 64 KiB made and kept where the thread has none) and its output is
 * undefined. Compiled code is cached per context and on disk
 * (GP_JIT_CACHE=DIR, or "off"; else $XDG_CACHE_HOME/gpuprim or ~/.cache/gpuprim): the directory is created mode
 * 0700 and used only while it is owned by the caller and writable by nobody else (otherwise gp_uop_create fails
 * naming it); entries are opened without following links, used only when owned by the caller, not writable by
 * others and matching their key and checksum, and written through a private temporary renamed into place; compiles
 * run in a private directory (mode 0700) removed after. A uop is used with the context it was created on and
 * destroyed before it. */
typedef enum gp_uop_kind { GP_UOP_BINARY = 0, GP_UOP_MAP = 1, GP_UOP_PRED = 2, GP_UOP_LESS = 3 } gp_uop_kind_t;
typedef struct gp_uop_desc {
    gp_uop_kind_t kind;
    gp_dtype_t dtype;     /* the element's (or x's) dtype */
    int arity;            /* binary, less: components per element, 1..16 (0: 1); maps and predicates: 0 or 1 */
    gp_dtype_t out_dtype; /* maps: the output dtype; ignored otherwise */
    const char *src;
    const char *identity; /* binary: the identity's components */
    int commutative;      /* binary: 1 = the tile tree, 0 = the ordered tree */
} gp_uop_desc_t;
typedef struct gp_uop gp_uop_t;
GP_API gp_status_t gp_uop_create(gp_ctx_t *ctx, const gp_uop_desc_t *desc, gp_uop_t **op);
GP_API gp_status_t gp_uop_destroy(gp_uop_t *op); /* NULL is accepted */
/* Bytes of one result element of a binary op: arity * the value type's size (f16 / bf16: 4). 0 for NULL. */
GP_API size_t gp_uop_value_bytes(const gp_uop_t *op);
/* Seconds the create took and whether its code came from the disk cache (1), memory (2) or a compile (0). */
GP_API double gp_uop_build_seconds(const gp_uop_t *op, int *source);
/* The fold of x[0, n) (n elements of arity components of dtype) by a binary op, into result (value bytes, device
 * memory on a GPU: asynchronous; host memory on the CPU backend). n = 0 gives the identity. */
GP_API gp_status_t gp_reduce_uop(gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x, void *result,
                                 gp_stream_t stream);
GP_API gp_status_t gp_reduce_uop_sync(gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x, void *result_host);
/* Segmented reduction by a binary op: out[i] = the fold of x[offsets[i], offsets[i+1]) for i < nseg (CSR offsets as
 * gp_reduce_segmented's: nseg + 1 int64 values, clamped to [0, n], a decreasing pair an empty segment); out holds
 * nseg values of gp_uop_value_bytes(op), aligned to the value type; an empty segment gives the identity.
 * Deterministic (docs/design/jit.md): commutative ops use gp_reduce_segmented's tree (so `a + b` with identity -0.0 gives
 * its sum bits on every non-empty segment), non-commutative ones reduce each segment exactly as gp_reduce_uop
 * reduces it alone (the ordered tree). The work queue of gp_reduce_segmented balances skewed mixes. GPU: x, offsets
 * and out in device-accessible memory, asynchronous on the stream; uses the context's workspace; the first call
 * compiles the segmented kernel (cached as the op's other code). CPU backend: host memory, the same bits. */
GP_API gp_status_t gp_reduce_segmented_uop(gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *x, size_t nseg,
                                           const int64_t *offsets, void *out, gp_stream_t stream);
/* y[i] = map(x[i]) (x: dtype, y: out_dtype; in place when the sizes agree). */
GP_API gp_status_t gp_transform(gp_ctx_t *ctx, const gp_uop_t *map, size_t n, const void *x, void *y,
                                gp_stream_t stream);
/* The fold of map(x[i]) by op in one pass (no temporary): op's dtype must be map's out_dtype. The tree is the tile
 * tree over x's elements (16 / sizeof(x's dtype) per vector), so it equals gp_reduce_uop of gp_transform's output
 * when the two dtypes have the same size; op must be commutative and of arity 1. */
GP_API gp_status_t gp_transform_reduce(gp_ctx_t *ctx, const gp_uop_t *map, const gp_uop_t *op, size_t n,
                                       const void *x, void *result, gp_stream_t stream);
GP_API gp_status_t gp_transform_reduce_sync(gp_ctx_t *ctx, const gp_uop_t *map, const gp_uop_t *op, size_t n,
                                            const void *x, void *result_host);
/* The scan of x[0, n) by a binary op (inclusive or exclusive: the identity first), y in x's dtype (f16 / bf16
 * values narrowed back; in place allowed): gp_scan_ordered's kernel and association order (docs/design/scan.md) over the
 * op, commutative or not, so a user affine or matrix scan gives gp_scan_ordered's bits. Elements must be whole
 * 4-byte words (arity x dtype size a multiple of 4; x and y 4-byte aligned), and not f16 / bf16 (they compute in f32:
 * scan their f32 widening). The first call on a GPU compiles the
 * scan kernel (cached as the op's other code). Asynchronous on the stream; needs the gp_scan_kind_t of gp_scan. */
GP_API gp_status_t gp_scan_uop(gp_ctx_t *ctx, const gp_uop_t *op, gp_scan_kind_t kind, size_t n, const void *x, void *y,
                               gp_stream_t stream);
/* y[0, count) = the elements of x[0, n) a predicate (GP_UOP_PRED) keeps, in their order: gp_select's own single pass
 * over the user's predicate. count_dev (NULL: not wanted) as gp_select's; the _sync variant returns it. x and y must
 * not overlap. */
GP_API gp_status_t gp_select_if(gp_ctx_t *ctx, const gp_uop_t *pred, size_t n, const void *x, void *y,
                                uint64_t *count_dev, gp_stream_t stream);
GP_API gp_status_t gp_select_if_sync(gp_ctx_t *ctx, const gp_uop_t *pred, size_t n, const void *x, void *y,
                                     size_t *count);

/* A stable sort by a comparison (GP_UOP_LESS): keys_out[0, n) = keys[0, n) (n keys of the op's arity components of
 * its dtype) ordered by less, equal keys (neither less than the other) in their input order, so with a strict weak
 * order the result is unique and the GPU and the CPU backend give the same bits. Each key's value (value_bytes 0, 1,
 * 2, 4, 8 or 16; pointers aligned to min(value_bytes, 8)) moves with it; keys_out may be keys and values_out values
 * (in place), other overlaps are refused. less must be a strict weak order: `a < b` over floats with NaN is not (use
 * `a < b || (a == a && b != b)` for NumPy's NaN-last order); with one that is not, the output is an unspecified
 * arrangement of input elements (never outside the arrays), and may repeat or drop some. GPU: a merge sort (tiles of
 * up to 4096 keys sorted per block, then merge-path passes that double the sorted runs), asynchronous on the
 * stream; workspace from the context: one copy of the keys and values and 8 bytes per tile; the first call with
 * values of a new size compiles their kernels. CPU backend: sorted runs merged in parallel (OpenMP), scratch from
 * malloc; a trap in less gives GP_ERR_USER_TRAP. */
GP_API gp_status_t gp_sort_uop(gp_ctx_t *ctx, const gp_uop_t *less, size_t n, const void *keys, void *keys_out,
                               size_t value_bytes, const void *values, void *values_out, gp_stream_t stream);
GP_API gp_status_t gp_sort_uop_sync(gp_ctx_t *ctx, const gp_uop_t *less, size_t n, const void *keys, void *keys_out,
                                    size_t value_bytes, const void *values, void *values_out);

/* ---------------------------------------------------------------------------------------------- histogram */
/* Histograms of n values (dtype u8, u16, i32, u32, f32 or f64) into counts: nbins bin counts, then three more:
 * below (values under the first edge), above (at or over the last edge) and NaN. count_dtype GP_U32 (wrapping modulo
 * 2^32) or GP_U64; counts are overwritten.
 *   even    nbins equal bins over [lo, hi): bin k holds edge_k <= v < edge_(k+1) with edge_k = lo + (hi - lo) * k /
 *           nbins computed in double, each step rounded (so a value exactly at an edge opens its bin; v == hi is
 *           above). lo < hi, both finite. NumPy's own edges: gp_histogram_accumulate with numpy_edges (below).
 *   range   edges[0..nbins] (host memory), strictly increasing: bin k holds edges[k] <= v < edges[k+1].
 *   direct  integer dtypes: bin = v for 0 <= v < nbins; negative values are below, v >= nbins above.
 * GPU: x and counts in device-accessible memory, asynchronous on the stream (range mode copies the edges first; it
 * uses the context workspace). The CPU backend counts the same bins. */
GP_API gp_status_t gp_histogram_even(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins, double lo,
                                     double hi, gp_dtype_t count_dtype, void *counts, gp_stream_t stream);
GP_API gp_status_t gp_histogram_range(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                                      const double *edges, gp_dtype_t count_dtype, void *counts, gp_stream_t stream);
GP_API gp_status_t gp_histogram_direct(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins,
                                       gp_dtype_t count_dtype, void *counts, gp_stream_t stream);
/* The bins of the three calls above as one value, for gp_histogram_accumulate. */
typedef enum { GP_HIST_EVEN = 0, GP_HIST_RANGE = 1, GP_HIST_DIRECT = 2 } gp_hist_mode_t;
typedef struct gp_hist_bins {
    gp_hist_mode_t mode;
    size_t nbins;
    double lo, hi;       /* GP_HIST_EVEN */
    const double *edges; /* GP_HIST_RANGE: nbins + 1 increasing edges, host memory */
    int closed_last;     /* 0: every bin half-open, [lo, hi) (a value equal to hi is "above"); 1: NumPy's rule, the
                          * last bin closed, [e_{n-1}, hi] (GP_HIST_EVEN / _RANGE; runs as range bins with the even
                          * edges spelled out) */
    int numpy_edges;     /* GP_HIST_EVEN, 1: NumPy's edges, those of np.histogram (np.linspace(lo, hi, nbins + 1):
                          * k * ((hi - lo) / nbins) + lo, each step rounded, the last edge hi, every edge rounded to
                          * float for f32 data, as np.histogram computes them in the data's float type), spelled out
                          * on the host and run as range bins (on a GPU estimated as even ones, the edges deciding
                          * near an edge: docs/design/histogram.md); edges that do not
                          * increase are GP_ERR_INVALID_ARG (NumPy's "too many bins"). 0: gp_histogram_even's rule */
} gp_hist_bins_t;
/* Adds the histogram of x to counts (nbins + 3 counters, as above) instead of overwriting them: a stream's chunks,
 * one after another, into one histogram on the device (u32 counts wrap modulo 2^32). The same checks, bins and
 * streams as the calls above; counts must hold valid counts (zero them first). */
GP_API gp_status_t gp_histogram_accumulate(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x,
                                           const gp_hist_bins_t *bins, gp_dtype_t count_dtype, void *counts,
                                           gp_stream_t stream);

/* ---------------------------------------------------------------------------------------------- matrices */
/* A dense matrix view (no ownership): element (i, j), 0 <= i < rows, 0 <= j < cols, lives at
 *   row-major:    data + (i * ld + j) * dtype size        (ld >= cols)
 *   column-major: data + (j * ld + i) * dtype size        (ld >= rows)
 * ld is the leading dimension in elements (a pitched allocation's pitch / element size). */
typedef enum { GP_ROW_MAJOR = 0, GP_COL_MAJOR = 1 } gp_layout_t;
typedef struct gp_matrix {
    void *data;
    size_t rows, cols, ld;
    gp_dtype_t dtype;
    gp_layout_t layout;
} gp_matrix_t;
/* A rows x cols matrix in pitched memory (gp_mem_alloc_2d: device memory on a GPU, host memory on the CPU backend);
 * *m views it (ld = pitch / element size), *mem is what gp_mem_free_pitched releases. */
GP_API gp_status_t gp_matrix_alloc(gp_ctx_t *ctx, size_t rows, size_t cols, gp_dtype_t dtype, gp_layout_t layout,
                                   gp_matrix_t *m, gp_pitched_t *mem);
/* dst = src (same shape, dtype and layout; each its own ld) between any two memories (cudaMemcpy2DAsync). */
GP_API gp_status_t gp_matrix_copy(gp_ctx_t *ctx, const gp_matrix_t *dst, const gp_matrix_t *src, gp_stream_t stream);
/* dst = src^T, out of place: dst is src.cols x src.rows, any layouts and lds, every dtype. On a GPU
 * both in device-accessible memory; they must not overlap. Where the layouts differ the transpose is a 2D copy. */
GP_API gp_status_t gp_matrix_transpose(gp_ctx_t *ctx, const gp_matrix_t *dst, const gp_matrix_t *src,
                                       gp_stream_t stream);
/* c = alpha * a + beta * b, element by element (a, b, c: the same rows x cols and dtype; each its own layout and ld).
 * f32 / f64: fma(alpha, a, beta * b) in the dtype (alpha, beta rounded to it); i32 / u8: alpha and beta must be
 * integers (|x| <= 2^53) and the arithmetic wraps modulo 2^32 / 2^8. A factor of 0 means its operand is not read
 * (NaN there does not spread). c may be a or b itself (same data, ld and layout); any other overlap is refused. */
GP_API gp_status_t gp_matrix_add(gp_ctx_t *ctx, double alpha, const gp_matrix_t *a, double beta, const gp_matrix_t *b,
                                 const gp_matrix_t *c, gp_stream_t stream);

/* GEMM: c = alpha * op(a) * op(b) + beta * c with op(x) = x (GP_OP_N) or x^T (GP_OP_T); op(a) is m x k, op(b) k x n,
 * c m x n; f32 or f64 (all three the same), each matrix its own layout and ld; any m, n, k >= 0. k = 0 or alpha = 0:
 * c = beta * c and a, b are not read; beta = 0: c is not read (NaN there does not spread). c must not overlap a or b.
 * On a GPU: f32 is exact FP32 on the CUDA cores (no TF32), f64 runs on the FP64 tensor cores (IEEE double fused
 * multiply-adds). The CPU backend accumulates f32 products in double. */
typedef enum { GP_OP_N = 0, GP_OP_T = 1 } gp_op_t;
GP_API gp_status_t gp_gemm(gp_ctx_t *ctx, gp_op_t opa, gp_op_t opb, double alpha, const gp_matrix_t *a,
                           const gp_matrix_t *b, double beta, const gp_matrix_t *c, gp_stream_t stream);

/* GEMM at a chosen precision (the caller's explicit choice; gp_gemm is GP_GEMM_FP32):
 *   GP_GEMM_FP32  exact: gp_gemm (a, b, c all f32 or all f64).
 *   GP_GEMM_TF32  a, b, c f32; a and b taken as TF32 the way the tensor cores read an f32: the top 19 bits (10
 *                 mantissa bits), the low 13 dropped (truncation toward zero; cuBLAS's TF32 mode reads them the
 *                 same way), exact products accumulated in f32.
 *   GP_GEMM_BF16  a, b bf16; c f32 or bf16. GP_GEMM_FP16: a, b f16; c f32 or f16. Exact products, f32 accumulation.
 * c = alpha * acc + beta * c in f32 (alpha, beta rounded to f32), then written as c's dtype (nearest even). The
 * shapes, ops, layouts, lds, overlap and alpha = 0 / beta = 0 rules are gp_gemm's. GPU: mma.sync on the tensor
 * cores of sm_80 and later (GP_ERR_UNSUPPORTED before); summation order depends on the kernel, so results differ from
 * an f64 reference by f32 accumulation error (docs/design/matrix.md gives the bound the tests use). CPU backend: the rounded
 * inputs multiplied and summed in f64, rounded once to f32 (and then to c's dtype). */
typedef enum gp_gemm_precision { GP_GEMM_FP32 = 0, GP_GEMM_TF32 = 1, GP_GEMM_BF16 = 2, GP_GEMM_FP16 = 3 } gp_gemm_precision_t;
GP_API gp_status_t gp_gemm_ex(gp_ctx_t *ctx, gp_gemm_precision_t precision, gp_op_t opa, gp_op_t opb, double alpha,
                              const gp_matrix_t *a, const gp_matrix_t *b, double beta, const gp_matrix_t *c,
                              gp_stream_t stream);
/* A strided batch: for i < batch, c_i = alpha op(a_i) op(b_i) + beta c_i where x_i is the view x with its data
 * i * stride_x elements further (a stride of 0 uses one matrix for every i; c's matrices must not overlap: stride_c at
 * least c's span). Every precision of gp_gemm_ex; the rules of gp_gemm_ex for each problem. On sm_90 the TF32 / BF16 /
 * FP16 batch runs as one launch per 65535 problems (each problem gets the bits it gets alone); elsewhere, and FP32 /
 * FP64, one launch per problem. batch = 0 does nothing. */
GP_API gp_status_t gp_gemm_batched(gp_ctx_t *ctx, gp_gemm_precision_t precision, gp_op_t opa, gp_op_t opb, double alpha,
                                   const gp_matrix_t *a, size_t stride_a, const gp_matrix_t *b, size_t stride_b,
                                   double beta, const gp_matrix_t *c, size_t stride_c, size_t batch, gp_stream_t stream);
/* The name of a precision ("fp32", "tf32", "bf16", "fp16"; NULL for others). */
GP_API const char *gp_gemm_precision_name(gp_gemm_precision_t precision);

/* ---------------------------------------------------------------------------------------------- files */
/* NumPy .npy (format versions 1.0, 2.0, 3.0; C or Fortran order; '<', '>', '|', '=' byte orders) and raw binary
 * arrays (like np.memmap: the dtype is given, an offset skipped). Readers return data in the host's byte order.
 * Malformed input gives GP_ERR_FORMAT with "byte N" in gp_last_error(): the file offset where parsing failed;
 * a file shorter than its header promises gives GP_ERR_FORMAT naming the offset where it ends. Descriptors:
 * f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8, and b1 (bool, read as u8). bf16 has no .npy descriptor. */
#define GP_NPY_MAX_DIMS 32
#define GP_NPY_MAX_HEADER (1 << 20) /* header dicts longer than this are refused (NumPy's own default is 10000) */
#define GP_COUNT_ALL ((size_t)-1)

typedef struct gp_array_desc {
    gp_dtype_t dtype;
    int ndim;                         /* 0: a scalar (count 1) */
    size_t shape[GP_NPY_MAX_DIMS];
    int fortran_order;                /* 1: column-major element order in the file */
    int big_endian;                   /* 1: the file stores multi-byte elements big-endian */
    int version_major, version_minor; /* .npy format version; 0.0 for raw files */
    size_t data_offset;               /* file offset of element 0 */
    size_t count;                     /* elements (product of shape) */
    size_t elem_size;                 /* bytes per element */
    int bool_values;                  /* 1: NumPy bool ('|b1'): dtype GP_U8, every nonzero byte read as 1 */
} gp_array_desc_t;

/* Parses a .npy header held in the first len bytes of a file. If len is too short, GP_ERR_FORMAT says how many bytes
 * the header needs (gp_npy_header_size tells that from the first 12 bytes). */
GP_API gp_status_t gp_npy_parse_header(const void *buf, size_t len, gp_array_desc_t *desc);
/* Total header bytes (= data offset) from the first len >= 12 bytes (10 suffice for version 1.x). */
GP_API gp_status_t gp_npy_header_size(const void *buf, size_t len, size_t *header_bytes);
/* Formats the .npy header of an array (little-endian data of dtype and shape) into buf (cap bytes): magic, version,
 * the dict, padded with spaces to a multiple of 64 bytes and to at least min_bytes (0: as short as the format
 * allows), so a writer that learns the shape only at the end can reserve the room and rewrite it in place. *bytes =
 * its length (= the data offset). GP_ERR_INVALID_ARG when cap is too small (saying how much is needed). */
GP_API gp_status_t gp_npy_header(gp_dtype_t dtype, int ndim, const size_t *shape, int fortran_order,
                                 size_t min_bytes, void *buf, size_t cap, size_t *bytes);
/* gp_npy_header for the array desc describes (dtype, ndim, shape, fortran_order, bool_values: '|b1' for a GP_U8
 * array of NumPy bools); the other fields are ignored. */
GP_API gp_status_t gp_npy_header_desc(const gp_array_desc_t *desc, size_t min_bytes, void *buf, size_t cap,
                                      size_t *bytes);
/* Parses the header of the .npy file at path and checks that the file holds all its elements. */
GP_API gp_status_t gp_npy_inspect(const char *path, gp_array_desc_t *desc);
/* Reads the whole array into *data (malloc'd; release with free()), in host byte order and file element order. */
GP_API gp_status_t gp_npy_load(const char *path, gp_array_desc_t *desc, void **data);
/* Writes a version 1.0 .npy file (2.0 when the header needs it), little-endian, C order unless fortran_order. */
GP_API gp_status_t gp_npy_save(const char *path, gp_dtype_t dtype, int ndim, const size_t *shape, int fortran_order,
                               const void *data);
/* A .npy array as a host matrix: 2-D (rows, cols); 1-D is a 1 x n row, 0-D 1 x 1. C order gives a row-major view,
 * Fortran order a column-major one (the file's element order, no reordering), ld = the inner extent. m->data is
 * malloc'd: release it with free(). More than 2 dimensions: GP_ERR_FORMAT naming the shape. */
GP_API gp_status_t gp_npy_load_matrix(const char *path, gp_matrix_t *m);
/* Writes a host matrix as a 2-D .npy: row-major as C order, column-major as Fortran order (rows packed whatever the
 * ld). */
GP_API gp_status_t gp_npy_save_matrix(const char *path, const gp_matrix_t *m);
/* Describes a raw binary file of dtype: elements start at offset; count elements, or GP_COUNT_ALL for all whole
 * elements after offset. Checks the file holds them. */
GP_API gp_status_t gp_raw_inspect(const char *path, gp_dtype_t dtype, size_t offset, size_t count,
                                  gp_array_desc_t *desc);
/* Reads up to count elements from f's current position (placed by the caller, e.g. at desc->data_offset) into buf,
 * swapping to host byte order; *got = elements read (fewer only at end of file or on error). Works on pipes. */
GP_API gp_status_t gp_array_fread(FILE *f, const gp_array_desc_t *desc, size_t count, void *buf, size_t *got);


/* Streams count elements (GP_COUNT_ALL: up to the end of the input; a trailing partial element is ignored) from f's
 * current position through the context, chunk by chunk, calling fn on each chunk in order:
 *   fn(user, chunk, count, first, stream): chunk holds elements [first, first + count) in host byte order; every
 *   chunk but the last holds a multiple of `granule` elements (0 or 1: any). GPU context: chunk is device memory,
 *   ready on stream; enqueue work on stream and return (the buffer is reused once the stream passes that work).
 *   CPU context: host memory, stream NULL; the buffer is reused when fn returns.
 * GPU pipeline: several threads read a regular file (pread) into reused pinned buffers while earlier chunks are
 * copied to the device and processed on other streams: file read, H2D copy and kernels overlap. With
 * opts->map_pages, a regular file in host byte order is instead mapped and each chunk's pages pinned in place
 * (cudaHostRegisterReadOnly) so the copy engine reads the page cache directly (falling back to pread if refused); on
 * the CPU backend each chunk is then the mapping's own read-only pages, no copy made (where the elements are aligned
 * and the kernel populates pages on request, Linux 5.14 on; else pread). A mapped file that shrinks meanwhile gives
 * GP_ERR_IO before fn sees the missing pages, or SIGBUS while fn reads a chunk it already has: map only files nobody
 * truncates meanwhile.
 * Pipes and terminals are read sequentially. A short input gives GP_ERR_FORMAT naming the byte offset where it ends (when count
 * is not GP_COUNT_ALL); fn's error stops the stream and is returned. The progress callback, if any, is called on the
 * calling thread after each chunk is read (total 0 when unknown). Waits for all work before returning. */
typedef gp_status_t (*gp_chunk_fn)(void *user, const void *chunk, size_t count, size_t first, gp_stream_t stream);
typedef void (*gp_progress_fn)(void *user, size_t bytes_done, size_t bytes_total);
typedef struct gp_stream_opts {
    size_t chunk_bytes;      /* 0: 16 MiB (rounded down to whole granules, at least one) */
    int buffers;             /* pinned and device buffers in the ring, 2..8; 0: 3 */
    int threads;             /* reader threads for regular files; 0: up to 8 */
    gp_progress_fn progress; /* may be NULL */
    void *progress_user;
    int map_pages;           /* 1: map a regular file (pinned on a GPU, read in place on the CPU) (see above) */
    int (*stop)(void *user); /* may be NULL; polled after each chunk: nonzero ends the stream there (GP_OK), f left */
    void *stop_user;         /* just past the elements handed to fn (gp_ctx_open_stop: once a context is ready) */
} gp_stream_opts_t;
GP_API gp_status_t gp_array_stream(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc, size_t count,
                                   size_t granule, const gp_stream_opts_t *opts, gp_chunk_fn fn, void *user);

/* An array read whole into its final place, in one pass (the loader of the verbs that hold their input):
 *   gp_array_read  count elements (not GP_COUNT_ALL) from f's current position into dst, which holds them: device
 *                  memory on a GPU context (told by its address), else host memory of any kind.
 *   gp_array_load  count elements (GP_COUNT_ALL: to the end of the input, a trailing partial element ignored) into a
 *                  buffer of kind allocated here (release with gp_mem_free; GP_MEM_DEVICE is host memory on the CPU
 *                  backend): *buf and *got (elements read). A regular file is sized from the file; a pipe of unknown
 *                  length fills a buffer that doubles as it grows (buf->bytes may exceed *got x the element size).
 * Host byte order and bools 0 / 1 as gp_array_fread gives them. Host memory is filled straight from the file (a regular
 * file: slices read by several threads with pread, no staging copy); device memory through a ring of pinned stages,
 * each copied to its place while the next is read (no device-side copy). opts: chunk_bytes (stage size, 0: 32 MiB),
 * buffers (stages, 0: 3), threads, progress, as gp_array_stream; map_pages and stop are ignored. Both wait for their
 * copies (and nothing else: work of the caller's streams on dst is the caller's to finish first). A short input gives
 * GP_ERR_FORMAT naming the byte where it ends; on any failure nothing is allocated and f's position is unspecified. */
GP_API gp_status_t gp_array_read(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc, size_t count,
                                 const gp_stream_opts_t *opts, void *dst);
GP_API gp_status_t gp_array_load(gp_ctx_t *ctx, FILE *f, const gp_array_desc_t *desc, size_t count,
                                 gp_mem_kind_t kind, const gp_stream_opts_t *opts, gp_buffer_t *buf, size_t *got);
/* The counterpart: `bytes` of src (device memory on a GPU context, told by its address, else host memory of any kind)
 * written to f at its current position, which is left just past them (f flushed first; its bytes as they are, so an
 * array goes out in host byte order). Device memory comes out through a ring of pinned stages (chunk_bytes, 0: 4 MiB;
 * buffers 2..8, 0: 4), each stage written while the next is copied. opts->map_pages = 1 with a regular file opened
 * for reading and writing (not appending), 8 MiB or more: the range is allocated in the file first (fallocate; no
 * room: GP_ERR_IO naming the byte, nothing written), then filled through a shared mapping by `threads` threads (0:
 * the processors', up to 8) — several times the rate of one writer, whose buffered writes the file system takes one
 * at a time. The mapped file must not be truncated by anyone else meanwhile (the process would get SIGBUS); a file
 * system without fallocate or shared mappings is written in order. progress as gp_array_stream's (bytes, of
 * `bytes`); stop ignored. Waits for its copies; on failure the range's bytes are unspecified. */
GP_API gp_status_t gp_array_write(gp_ctx_t *ctx, FILE *f, const void *src, size_t bytes,
                                  const gp_stream_opts_t *opts);

/* ---------------------------------------------------------------------------------------------- groups (several GPUs) */
/* A group is a set of contexts, one per GPU, that work on one array split into shards: rank r holds elements
 * [first_r, first_r + count_r) of the whole, the shards of ranks 0, 1, ... following one another (a shard may be
 * empty). Results are combined through NCCL (loaded with dlopen on first use; set GP_NCCL to its path to override).
 *   gp_group_create_local   the GPUs of this process (devices[0..ndev-1]; devices NULL: 0..ndev-1; ndev 0: every
 *                           GPU), one NCCL communicator each (ncclCommInitAll); member i is rank i.
 *   gp_group_create_rank    one GPU of a group spread over processes or hosts (ncclCommInitRank): every process
 *                           calls it with the same id (made once by gp_group_unique_id and passed on by the caller:
 *                           MPI, a file, ...), nranks and its own rank; it waits until all ranks have joined. The
 *                           process that made the id must live until then.
 *   gp_group_create_emulated nmembers contexts on one device (a GPU ordinal or GP_DEVICE_CPU) that exchange through
 *                           host copies instead of NCCL: the same results as a group of that many GPUs, on a
 *                           machine with fewer (tests, the CPU backend, a fallback without NCCL).
 * Without NCCL (not found at build time, or not loadable) the NCCL calls return GP_ERR_UNSUPPORTED saying why.
 * A group's calls are made by one host thread at a time; they run on the members' own streams (gp_group_stream)
 * and the calls that return host results wait for them. Collective calls on a multi-process group must be made by
 * every rank, in the same order. */
typedef struct gp_group gp_group_t;
typedef struct gp_group_id {
    unsigned char bytes[128]; /* NCCL's unique id */
} gp_group_id_t;
GP_API gp_status_t gp_group_unique_id(gp_group_id_t *id);
GP_API gp_status_t gp_group_create_local(gp_group_t **group, int ndev, const int *devices);
GP_API gp_status_t gp_group_create_rank(gp_group_t **group, const gp_group_id_t *id, int nranks, int rank,
                                        int device);
GP_API gp_status_t gp_group_create_emulated(gp_group_t **group, int nmembers, int device);
/* Processes started by a launcher (mpirun, srun, torchrun-style scripts, or by hand on each host) join one group
 * through the environment they already get. gp_group_env reads rank, size and local rank from the first family of
 * variables present, in this order (a family is present when its rank or size variable is set; its local rank
 * defaults to the rank):
 *   GPUPRIM_RANK, GPUPRIM_SIZE, GPUPRIM_LOCAL_RANK           (by hand)
 *   RANK, WORLD_SIZE, LOCAL_RANK                             (torchrun)
 *   OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK                 (Open MPI's mpirun)
 *   PMI_RANK, PMI_SIZE, MPI_LOCALRANKID                      (MPICH / Hydra)
 *   SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID                (srun)
 * A missing half (a rank without a size), a value that is not a whole number, or a rank or local rank not below the
 * size is GP_ERR_INVALID_ARG naming the variable; none at all says how to set them. source names the family.
 * gp_group_create_from_env is gp_group_create_rank for this process: its GPU is GPUPRIM_DEVICE if set, else GPU 0
 * where the process sees one (the launcher split CUDA_VISIBLE_DEVICES), else its local rank. The ranks meet through
 * NCCL's own bootstrap: NCCL_COMM_ID=HOST:PORT if set, else MASTER_ADDR:MASTER_PORT (one port up where
 * TORCHELASTIC_USE_AGENT_STORE says torchrun's agent holds MASTER_PORT), which the call puts in NCCL_COMM_ID while it
 * runs (so other threads should not change the environment meanwhile): rank 0's NCCL listens there and every rank
 * derives the same id from it. A size above 1 with neither is GP_ERR_INVALID_ARG. Waits until every rank has
 * joined. */
typedef struct gp_group_env {
    int rank, size, local_rank;
    char source[16]; /* "GPUPRIM", "torchrun", "Open MPI", "PMI", "Slurm" */
} gp_group_env_t;
GP_API gp_status_t gp_group_env(gp_group_env_t *env);
GP_API gp_status_t gp_group_create_from_env(gp_group_t **group);
GP_API gp_status_t gp_group_destroy(gp_group_t *group); /* NULL is accepted; waits for the members' work */
GP_API int gp_group_size(const gp_group_t *group);         /* ranks in the group (0 for NULL) */
GP_API int gp_group_local_count(const gp_group_t *group);  /* members in this process (0 for NULL) */
GP_API int gp_group_rank(const gp_group_t *group, int member); /* the rank of local member `member`, -1 if none */
GP_API gp_ctx_t *gp_group_ctx(const gp_group_t *group, int member);      /* NULL if no such member */
GP_API gp_stream_t gp_group_stream(const gp_group_t *group, int member); /* NULL on a CPU member */
GP_API const char *gp_group_transport(const gp_group_t *group);        /* "nccl", "emulated" */
GP_API gp_status_t gp_group_sync(gp_group_t *group);                     /* waits for every member's stream */

/* In-place all-reduce: bufs[i] (count values of dtype in member i's memory) becomes the sum over all ranks
 * (ncclAllReduce; emulated: added in rank order). dtype GP_U32, GP_U64, GP_I64, GP_F32 or GP_F64 (integers wrap).
 * Asynchronous on the members' group streams (gp_group_sync waits). For counts a caller accumulated itself (the
 * CLI's streamed histograms), and `gpuprim bench group`'s bus bandwidth. */
GP_API gp_status_t gp_group_allreduce(gp_group_t *group, gp_dtype_t dtype, size_t count, void *const *bufs);

/* The even split of n elements of dtype: rank r's shard [*first, *first + *count). Every shard but the last is a
 * whole number of 64 KiB tiles (so no reduction tile spans two GPUs); the counts differ by at most one tile. */
GP_API gp_status_t gp_group_split(const gp_group_t *group, gp_dtype_t dtype, size_t n, int rank, size_t *first,
                                  size_t *count);
/* Copies the local members' shards of the even split of a host array (host: n elements of dtype, the whole array)
 * into new device buffers: shards[i] is member i's (gp_mem_alloc GP_MEM_DEVICE on its context; free them with
 * gp_group_free_shards). Waits for the copies. */
GP_API gp_status_t gp_group_scatter(gp_group_t *group, gp_dtype_t dtype, size_t n, const void *host,
                                    gp_buffer_t *shards);
GP_API gp_status_t gp_group_free_shards(gp_group_t *group, gp_buffer_t *shards);

/* Sharded reduction: every op and accumulator of gp_reduce_acc (acc GP_DTYPE_COUNT: the default), over the shards
 * counts[i] elements at shards[i] (device memory of local member i), rank order being array order. The result, on
 * every rank, has the bits of gp_reduce over the whole array on one GPU (or the CPU backend), for any shard sizes:
 * each rank folds the nodes of docs/design/reduce.md's tree that lie wholly in its shard, the nodes that span ranks
 * (and the tiles split between shards) are folded from the exchanged entries (docs/design/group.md). Waits. */
GP_API gp_status_t gp_group_reduce(gp_group_t *group, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                   const size_t *counts, const void *const *shards, gp_reduce_result_t *result_host);
/* The same over shards that arrive in pieces (a file split across the GPUs): push(member, first, count, x, stream)
 * gives elements [first, first + count) of the whole array (x: device memory of the member's device), each
 * member's pieces in order and contiguous; every piece but a member's last must end at a multiple of
 * gp_reducer_granule elements (a 64 KiB tile boundary of the whole array). Asynchronous on stream (NULL: the
 * member's group stream); pushes to one member are ordered. finish combines (collective), writes the result and
 * empties the reducer; the members' shards must follow one another in rank order. */
typedef struct gp_group_reducer gp_group_reducer_t;
GP_API gp_status_t gp_group_reducer_create(gp_group_t *group, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                           gp_group_reducer_t **reducer);
GP_API gp_status_t gp_group_reducer_push(gp_group_reducer_t *reducer, int member, size_t first, size_t count,
                                         const void *x, gp_stream_t stream);
GP_API gp_status_t gp_group_reducer_finish(gp_group_reducer_t *reducer, gp_reduce_result_t *result_host);
GP_API gp_status_t gp_group_reducer_destroy(gp_group_reducer_t *reducer); /* NULL is accepted */

/* Sharded histogram: each member counts its shard (gp_histogram_accumulate's bins and count dtypes), the counts are
 * summed across ranks (NCCL all-reduce; u32 wraps modulo 2^32 as on one GPU) and written to counts_host (nbins + 3
 * values of count_dtype) on every rank: the same counts as one GPU over the whole array. Waits. */
GP_API gp_status_t gp_group_histogram(gp_group_t *group, gp_dtype_t dtype, const size_t *counts,
                                      const void *const *shards, const gp_hist_bins_t *bins, gp_dtype_t count_dtype,
                                      void *counts_host);
/* Sharded dot product (gp_vec_dot's dtypes and result types): each member's gp_vec_dot, the partial results added
 * in rank order on every rank. i32: exact, the bits of one GPU; f32 / f64: a double sum whose association follows
 * the shards (deterministic for a given split, within rounding of one GPU's). Waits. */
GP_API gp_status_t gp_group_dot(gp_group_t *group, gp_dtype_t dtype, const size_t *counts, const void *const *x,
                                const void *const *y, void *result_host);
/* Sharded vector ops: each member runs the op on its shard (z, x, y indexed by member; y unused by copy and scale,
 * alpha by copy and add), asynchronously on the members' group streams (gp_group_sync waits). Elementwise, so the
 * bits are one GPU's. */
typedef enum gp_group_vec_op { GP_GROUP_COPY = 0, GP_GROUP_SCALE, GP_GROUP_ADD, GP_GROUP_TRIAD } gp_group_vec_op_t;
GP_API gp_status_t gp_group_vec(gp_group_t *group, gp_group_vec_op_t op, gp_dtype_t dtype, const size_t *counts,
                                double alpha, const void *const *x, const void *const *y, void *const *z);

/* Sharded scan: gp_scan_acc over the whole array (rank order is array order; acc as gp_scan_acc: the dtype itself is
 * gp_scan, GP_DTYPE_COUNT the default), x[i] / y[i]: counts[i] elements of member i (y in gp_scan_out_dtype(op,
 * dtype, acc); y[i] == x[i] allowed when the types agree). Every rank's shard but the last rank's must hold whole
 * scan tiles (a multiple of GP_SCAN_GRANULE elements; gp_group_split's shards do; empty shards anywhere). The bits of
 * one gp_scan / gp_scan_acc over the whole array on one GPU (or the CPU backend): each rank computes its tiles'
 * aggregates (one read of its shard), they are gathered, every rank folds the carry chain of the tiles before its
 * shard in order on the host, then scans its shard from that carry (docs/design/group.md). Waits. */
GP_API gp_status_t gp_group_scan(gp_group_t *group, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                 gp_scan_kind_t kind, const size_t *counts, const void *const *x, void *const *y);
/* Sharded segmented reduction: gp_reduce_segmented over the whole array, with offsets (host memory, the same on every
 * rank: nseg + 1 int64 values of the whole array's CSR, clamped to [0, total], nondecreasing — refused otherwise)
 * and out_host (nseg values of gp_reduce_acc_dtype(op, dtype)) written on every rank. Every segment has the bits of
 * gp_reduce_segmented on one GPU, whatever the shard edges: a segment inside a shard is reduced by its rank; one
 * across an edge is rebuilt from the full chunks of its tree reduced by the ranks holding them and the cut pieces
 * (at most 16384 elements per edge: the tree's chunk) reduced on the host (docs/design/group.md). Waits. */
GP_API gp_status_t gp_group_reduce_segmented(gp_group_t *group, gp_reduce_op_t op, gp_dtype_t dtype,
                                             const size_t *counts, const void *const *shards, size_t nseg,
                                             const int64_t *offsets, void *out_host);
/* Sharded sort: the whole array (rank order is array order; counts[i] keys at keys[i], member i's memory) sorted as
 * gp_sort / gp_sort_pairs sorts it on one GPU — stable, NumPy's order, descending != 0 as gp_sort_opts — and laid out
 * again over the same shard sizes: member i's keys_out[i] holds elements [first_i, first_i + counts[i]) of the
 * sorted whole, so the ranks' outputs concatenated are one GPU's bits. value_bytes 0: keys only (values and
 * values_out NULL); 1, 2, 4, 8 or 16: values[i] move with their keys into values_out[i]. Outputs overlap no input.
 * Each rank sorts its shard (gp_sort), the split points of every output shard's sub-ranges are found by a search
 * over the radix keys (an all-gather of the ranks' counts a round, the ties at a split taken in rank order), the
 * slices are exchanged in rounds (NCCL grouped send / receive; emulated: copies), and each rank merges a round's
 * pieces in rank order (gp_merge) while the next round moves. Scratch: two more copies of the keys (and values) in
 * member memory, three from three ranks up, kept by the group for its next call until gp_group_destroy
 * (docs/design/group.md). Waits. */
GP_API gp_status_t gp_group_sort(gp_group_t *group, gp_dtype_t dtype, const size_t *counts, const void *const *keys,
                                 void *const *keys_out, size_t value_bytes, const void *const *values,
                                 void *const *values_out, int descending);
/* Sharded argsort: indices[i] (counts[i] values of index_dtype, GP_U32 when the ranks hold at most 2^32 keys, or
 * GP_U64) = the global positions (rank order is array order) of the keys that gp_group_sort would place there, so the
 * ranks' outputs concatenated are np.argsort(whole, kind='stable') (descending: the stable descending order). keys
 * are left as they are. gp_group_sort's way with the positions as values; scratch also one more copy of the keys. */
GP_API gp_status_t gp_group_argsort(gp_group_t *group, gp_dtype_t dtype, const size_t *counts,
                                    const void *const *keys, gp_dtype_t index_dtype, void *const *indices,
                                    int descending);

#ifdef __cplusplus
}
#endif
#endif /* GPUPRIM_H */
