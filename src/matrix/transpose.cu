/*
 * transpose.cu — the production transpose of storage: the version GP__TRANSPOSE_PRODUCTION (matrix_internal.h) of
 * transpose_kernels.cuh, for 1-, 4- and 8-byte elements. The other versions are the lab's (lab/transpose_versions.cu);
 * promote one by moving its template from lab/transpose_teaching.cuh and changing that number.
 */
#include "transpose_kernels.cuh"

extern "C" gp_status_t gp__transpose_gpu(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in,
                                         cudaStream_t stream)
{
    return t_version<GP__TRANSPOSE_PRODUCTION>(ctx, out, in, stream);
}
