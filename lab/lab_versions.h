/*
 * lab_versions.h — the lab library's tables of numbered versions (lab/, linked into the CLI and the tests, never into
 * libgpuprim): the reduce and SGEMM progressions, the vector reference. Production kernels stay in src/<family>/;
 * a table's production row points at the library's entry (never a copy of it).
 */
#ifndef GP_LAB_VERSIONS_H
#define GP_LAB_VERSIONS_H

#include "core/internal.h"
#include "matrix/matrix_internal.h"
#include "reduce/reduce_internal.h"
#include "vector/vector_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lab's progression (reduce_versions.cu): each version sums n floats into *result (device memory for GPU versions,
 * host memory for CPU ones). */
typedef gp_status_t (*lab_reduce_fn)(gp_ctx_t *ctx, const float *x, size_t n, float *result,
                                            cudaStream_t stream);
typedef struct lab_reduce_version {
    int id;
    const char *name;
    int gpu;
    const char *teaches;
    size_t lab_max_n; /* the lab times it at most at this n (0: no cap) */
    lab_reduce_fn launch;
} lab_reduce_version_t;
extern const lab_reduce_version_t lab_reduce_versions[];
extern const int lab_reduce_nversions;
gp_status_t lab_reduce_cpu_serial(gp_ctx_t *ctx, const float *x, size_t n, float *result,
                                                  cudaStream_t stream);
gp_status_t lab_reduce_cpu_backend(gp_ctx_t *ctx, const float *x, size_t n, float *result,
                                                   cudaStream_t stream);

/* The SGEMM lab (gemm_versions.cu): each version computes C = A B for row-major, packed f32 A (M x K), B (K x N),
 * C (M x N) in device memory (host memory for the CPU entries). */
typedef gp_status_t (*lab_sgemm_fn)(gp_ctx_t *ctx, size_t M, size_t N, size_t K, const float *A, const float *B,
                                        float *C, cudaStream_t stream);
typedef struct lab_gemm_version {
    int id;
    const char *name;
    int gpu;
    const char *teaches;
    size_t lab_max_n; /* the lab times it at most at this size (0: no cap) */
    lab_sgemm_fn launch;
} lab_gemm_version_t;
extern const lab_gemm_version_t lab_gemm_versions[];
extern const int lab_gemm_nversions;

/* Higher-precision serial reference (vector_ref.c) for tests and the lab; writes a->z like the op would. */
void lab_vec_reference(const gp__vec_args_t *a);

#ifdef __cplusplus
}
#endif
#endif
