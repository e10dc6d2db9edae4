/*
 * vector.cu — the production vector kernels: the versions GP__VEC_PRODUCTION_EW (copy, scale, add, triad) and
 * GP__VEC_PRODUCTION_DOT (vector_internal.h) of vector_kernels.cuh. The other versions are the lab's
 * (lab/vector_teaching.cuh); promote one by moving its template here and changing those numbers.
 */
#include "vector_kernels.cuh"

extern "C" gp_status_t gp__vec_gpu(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t stream)
{
    if (a->op == GP__VEC_DOT) return vec_version<GP__VEC_PRODUCTION_DOT>(ctx, a, stream);
    return vec_version<GP__VEC_PRODUCTION_EW>(ctx, a, stream);
}
