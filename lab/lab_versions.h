/*
 * lab_versions.h — the lab's numbered versions (lab/, linked into the CLI and the tests, never into libgpuprim): one
 * descriptor for every topic's table, and the call signature of each topic's versions. Production kernels stay in
 * src/<family>/; which one is production is said once by the family (lab_is_production reads it), and a production
 * row runs the library's own code, never a copy of it. Internal to the lab and the tests (it needs the CUDA runtime
 * header); the CLI sees the topics through lab.h only.
 */
#ifndef GP_LAB_VERSIONS_H
#define GP_LAB_VERSIONS_H

#include "lab.h"

#include "core/internal.h"
#include "matrix/matrix_internal.h"
#include "reduce/reduce_internal.h"
#include "vector/vector_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A version's launcher, stored untyped; LAB_FN casts it back to the topic's signature below. */
typedef void (*lab_fn_t)(void);
#define LAB_FN(type, v) ((type)(v)->fn)

/* One numbered version of a topic: <topic>_vNN_<idea> (GPU) or <topic>_cpu_<what> (ids 90 and up). */
typedef struct lab_version {
    int id;
    const char *name;
    int gpu;                 /* 1: a CUDA kernel; 0: the CPU */
    const char *teaches;     /* what it adds over the previous version, and where the next bottleneck is */
    const char *constraints; /* what it needs or where it is slow ("" none) */
    size_t max_n;            /* the lab times it at most at this size (0: no cap): correct at any size, just slow */
    unsigned sel;            /* the topic's selector: vector ops bitmask (1 << gp__vec_op_t), histogram strategy */
    int arg;                 /* the topic's argument: histogram cluster size (0: automatic) */
    lab_fn_t fn;             /* the launcher (NULL where the topic calls the library directly) */
} lab_version_t;

/* Which topic a table belongs to, for lab_is_production. */
typedef enum {
    LAB_T_VECTOR, LAB_T_REDUCE, LAB_T_HISTOGRAM, LAB_T_TRANSPOSE, LAB_T_GEMM, LAB_T_GEMM_TC, LAB_T_SORT, LAB_T_SEGSORT,
    LAB_T_SELECT
} lab_table_t;
/* 1 when v is the version the library runs in production (read from the family's one place: gp__vec_production_id,
 * GP__TRANSPOSE_PRODUCTION, gp__gemm_kernel_pick, the histogram's automatic pick, reduce's gp_reduce row, sort's
 * gp_sort row). */
int lab_is_production(lab_table_t t, const lab_version_t *v);
/* `gpuprim lab TOPIC --list`: id, name, on, teaches [constraints], production marked. */
void lab_list_versions(FILE *f, lab_table_t t, const lab_version_t *v, int n);

/* One GPU version (number id, called name) timed the lab's way: warm-up + reps runs (reps capped at 64) on stream s,
 * each after the n 32-bit output words at out are poisoned, between two CUDA events; the first timed run's output is
 * copied back into got and compared word by word with ref (a mismatch: lab_fail naming the `what` and its position,
 * *bad = 1). launch(ctx, id, n) enqueues the version (a library call's failure returned as cudaErrorUnknown, its
 * message in gp_last_error()).
 * Returns 0 with the median in *ms, or -1 after saying on stderr which version failed how (lab/timing.c). */
typedef cudaError_t (*lab_launch_fn)(void *ctx, int id, size_t n);
int lab_time_checked(lab_run_t *r, int id, const char *name, int reps, cudaStream_t s, lab_launch_fn launch,
                     void *ctx, uint32_t *out, size_t n, const uint32_t *ref, uint32_t *got, const char *what,
                     float *ms, int *bad);

/* sort (lab/sort.cu): the row that calls gp_sort itself */
#define LAB_SORT_LIBRARY 6
/* segsort (lab/segsort.cu): the row that calls gp_sort_segmented itself */
#define LAB_SEGSORT_LIBRARY 4
/* select (lab/select.cu): the row that calls gp_topk itself */
#define LAB_SELECT_LIBRARY 4

/* vector (lab/vector_versions.cu): the op of a (elementwise z = f(x, y), or dot into the 8 bytes at z). */
typedef gp_status_t (*lab_vec_fn)(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);
extern const lab_version_t lab_vec_versions[];
extern const int lab_vec_nversions;
/* Higher-precision serial reference (vector_ref.c) for tests and the lab; writes a->z like the op would. */
void lab_vec_reference(const gp__vec_args_t *a);

/* reduce (reduce_versions.cu): the f32 sum of n elements into *result (device memory for GPU versions, host memory
 * for CPU ones). Row LAB_REDUCE_LIBRARY calls gp_reduce itself. */
typedef gp_status_t (*lab_reduce_fn)(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t stream);
#define LAB_REDUCE_LIBRARY 13
extern const lab_version_t lab_reduce_versions[];
extern const int lab_reduce_nversions;
gp_status_t lab_reduce_cpu_serial(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t stream);
gp_status_t lab_reduce_cpu_backend(gp_ctx_t *ctx, const float *x, size_t n, float *result, cudaStream_t stream);

/* transpose (transpose_versions.cu): out[q][p] = in[p][q]; v00 (the copy ceiling) copies instead. */
typedef gp_status_t (*lab_transpose_fn)(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in,
                                        cudaStream_t stream);
extern const lab_version_t lab_transpose_versions[];
extern const int lab_transpose_nversions;

/* SGEMM (gemm_versions.cu): C = A B for row-major, packed f32 A (M x K), B (K x N), C (M x N) in device memory (host
 * memory for the CPU entries). */
typedef gp_status_t (*lab_sgemm_fn)(gp_ctx_t *ctx, size_t M, size_t N, size_t K, const float *A, const float *B,
                                    float *C, cudaStream_t stream);
extern const lab_version_t lab_gemm_versions[];
extern const int lab_gemm_nversions;
/* The f32 / f64 GEMM kernels by number (gemm_variants.cu): the lab's variants and, from the library, production's;
 * NULL for an unknown number. lab_gemm_variant_numbers: every number of a dtype, in order (the count). */
const gp__gemm_kernel_t *lab_gemm_kernel(gp_dtype_t dtype, int number);
int lab_gemm_variant_numbers(gp_dtype_t dtype, int *out, int cap);
/* The tensor-core GEMM (gp_gemm_ex, `gpuprim lab gemm --precision tf32|bf16|fp16`): sel is the kernel the library
 * runs (the context's plan, gp__gemm_tc_plan_set: 1 mma.sync, 2 wgmma fed by cp.async, 3..6 the TMA kernel's shapes); fn unused. */
extern const lab_version_t lab_gemm_tc_versions[];
extern const int lab_gemm_tc_nversions;

/* histogram (histogram.c): sel is the strategy (GP__HS_*), arg the cluster size; fn unused. */
extern const lab_version_t lab_hist_versions[];
extern const int lab_hist_nversions;

#ifdef __cplusplus
}
#endif
#endif
