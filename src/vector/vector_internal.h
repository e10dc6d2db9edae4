/* vector_internal.h — what src/vector shares with its kernels, the tests and the lab: arguments, production, backends. */
#ifndef GP_VECTOR_INTERNAL_H
#define GP_VECTOR_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gp__vec_op { GP__VEC_COPY = 0, GP__VEC_SCALE, GP__VEC_ADD, GP__VEC_TRIAD, GP__VEC_DOT, GP__VEC_NOPS } gp__vec_op_t;
#define GP__VEC_EW_OPS ((1u << GP__VEC_COPY) | (1u << GP__VEC_SCALE) | (1u << GP__VEC_ADD) | (1u << GP__VEC_TRIAD))
#define GP__VEC_DOT_OPS (1u << GP__VEC_DOT)

GP_INTERNAL const char *gp__vec_op_name(gp__vec_op_t op);
/* Elements read and written per element of n (for GB/s): copy 1+1, scale 1+1, add 2+1, triad 2+1, dot 2+0. */
GP_INTERNAL int gp__vec_op_streams(gp__vec_op_t op);

/* Validated arguments. Elementwise ops write z (copy/scale: z = f(x)); dot writes its double/int64 result to z. */
typedef struct gp__vec_args {
    gp__vec_op_t op;
    gp_dtype_t dtype;
    size_t n;
    double alpha;
    const void *x, *y;
    void *z;
} gp__vec_args_t;

/* Production, said once: the versions of vector_kernels.cuh that vector.cu runs (vec_version<NN>; chosen from
 * `gpuprim lab vector --op all -n 2^28` on an H200: docs/guide/lab.md), and the CPU backend's number in the lab's
 * table (91, gp__vec_cpu_omp). Promote a version by moving its template from lab/vector_teaching.cuh and changing the number. */
#define GP__VEC_PRODUCTION_EW 9   /* vector_v09_vec16_per_thread: copy, scale, add, triad */
#define GP__VEC_PRODUCTION_DOT 11 /* vector_v11_dot_single_pass */
#define GP__VEC_PRODUCTION_CPU 91 /* vector_cpu_openmp */
/* The production id of op on a GPU (gpu 1) or the CPU backend (gpu 0); -1 for an unknown op. */
GP_INTERNAL int gp__vec_production_id(gp__vec_op_t op, int gpu);
/* The production GPU kernels (vector.cu), arguments checked. */
GP_INTERNAL gp_status_t gp__vec_gpu(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);

/* Checks everything a public vector call needs; fills *a. */
GP_INTERNAL gp_status_t gp__vec_check(const char *fn, gp_ctx_t *ctx, gp__vec_op_t op, gp_dtype_t dtype, size_t n,
                                      double alpha, const void *x, const void *y, void *z, gp__vec_args_t *a);


/* CPU backend (vector_cpu.c): serial loop and OpenMP. Dot sums fixed 64 Ki-element chunks in double and adds the
 * chunk sums in index order, so both give the same bits whatever the thread count. */
GP_INTERNAL gp_status_t gp__vec_cpu_serial(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__vec_cpu_omp(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);

/* The family's GPU launchers (vector.cu), reached through this table: core/backend.h */
typedef struct gp__vec_gpu_ops {
    __typeof__(gp__vec_gpu) *run;
} gp__vec_gpu_ops_t;
GP_INTERNAL extern const gp__vec_gpu_ops_t gp__vec_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
