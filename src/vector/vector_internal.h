/* vector_internal.h — what src/vector shares with the tests and the CLI (lab, bench): arguments and the version table. */
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

/* Every version has this signature; CPU versions ignore ctx and stream. */
typedef gp_status_t (*gp__vec_launch_fn)(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);

typedef struct gp__vec_version {
    int id;                  /* NN of vector_vNN_<idea> */
    const char *name;
    int gpu;                 /* 1: a CUDA kernel; 0: CPU backend */
    unsigned ops;            /* bitmask of 1 << gp__vec_op_t it implements */
    const char *teaches;     /* what it adds over the previous version, and where the next bottleneck is */
    const char *constraints; /* what it needs or where it is slow */
    size_t lab_max_n;        /* the lab times it at most at this n (0: no cap): it is correct at any n, just slow */
    gp__vec_launch_fn launch;
} gp__vec_version_t;

/* The one table of versions (vector_versions.cu), and the versions production points at. */
GP_INTERNAL extern const gp__vec_version_t gp__vec_versions[];
GP_INTERNAL extern const int gp__vec_nversions;
GP_INTERNAL const gp__vec_version_t *gp__vec_version(int id);
GP_INTERNAL int gp__vec_production_id(gp__vec_op_t op, int gpu);

/* Checks everything a public vector call needs; fills *a. */
GP_INTERNAL gp_status_t gp__vec_check(const char *fn, gp_ctx_t *ctx, gp__vec_op_t op, gp_dtype_t dtype, size_t n,
                                      double alpha, const void *x, const void *y, void *z, gp__vec_args_t *a);


/* CPU backend (vector_cpu.c): serial loop and OpenMP. Dot sums fixed 64 Ki-element chunks in double and adds the
 * chunk sums in index order, so both give the same bits whatever the thread count. */
GP_INTERNAL gp_status_t gp__vec_cpu_serial(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__vec_cpu_omp(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
