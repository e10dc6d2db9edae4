/*
 * gemm.cu — the GPU GEMM launcher: picks the kernel of gemm_kernels.cuh for the dtype, the operands' storage
 * (K-inner or not) and their alignment, over a 1-D grid of 128 x 128 tiles.
 */
#include "matrix_internal.h"

#include "gemm_kernels.cuh"

namespace {

int vec_flags(const gp__gemm_t *g, size_t es)
{
    const size_t vb = 16 / es; /* elements per 16-byte vector */
    int f = 0;
    if (g->lda % vb == 0 && (uintptr_t)g->A % 16 == 0) f |= gemmk::VEC_A;
    if (g->ldb % vb == 0 && (uintptr_t)g->B % 16 == 0) f |= gemmk::VEC_B;
    if (g->ldc % vb == 0 && (uintptr_t)g->C % 16 == 0) f |= gemmk::VEC_C;
    return f;
}

template <bool AK, bool BK, bool DBUF, bool ASYNC>
gp_status_t s_launch(const gp__gemm_t *g, size_t K, unsigned grid, cudaStream_t s)
{
    gemmk::sgemm_128x128<AK, BK, DBUF, ASYNC><<<grid, 256, 0, s>>>(
        g->M, g->N, K, (float)g->alpha, (const float *)g->A, g->lda, (const float *)g->B, g->ldb, (float)g->beta,
        (float *)g->C, g->ldc, vec_flags(g, 4));
    return GP_CHECK_LAUNCH("sgemm_128x128");
}

template <bool DBUF, bool ASYNC> gp_status_t s_layouts(const gp__gemm_t *g, size_t K, unsigned grid, cudaStream_t s)
{
    if (g->a_kin) return g->b_kin ? s_launch<true, true, DBUF, ASYNC>(g, K, grid, s) : s_launch<true, false, DBUF, ASYNC>(g, K, grid, s);
    return g->b_kin ? s_launch<false, true, DBUF, ASYNC>(g, K, grid, s) : s_launch<false, false, DBUF, ASYNC>(g, K, grid, s);
}

template <bool AK, bool BK> gp_status_t d_launch(const gp__gemm_t *g, size_t K, unsigned grid, cudaStream_t s)
{
    gemmk::dgemm_dmma<AK, BK, true><<<grid, 256, 0, s>>>(g->M, g->N, K, g->alpha, (const double *)g->A, g->lda,
                                                          (const double *)g->B, g->ldb, g->beta, (double *)g->C,
                                                          g->ldc, vec_flags(g, 8));
    return GP_CHECK_LAUNCH("dgemm_dmma");
}

} // namespace

extern "C" gp_status_t gp__gemm_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__gemm_t *g, int variant,
                                    cudaStream_t stream)
{
    (void)ctx;
    if (g->M == 0 || g->N == 0) return GP_OK;
    const size_t tiles = ((g->M + 127) / 128) * ((g->N + 127) / 128);
    if (tiles > 0x7fffffffu)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm: %zu x %zu is more than 2^31 tiles of 128 x 128", g->M, g->N);
    const unsigned grid = (unsigned)tiles;
    const size_t K = g->alpha == 0.0 ? 0 : g->K; /* alpha = 0: A and B are not read */
    if (dtype == GP_F64) {
        if (g->a_kin) return g->b_kin ? d_launch<true, true>(g, K, grid, stream) : d_launch<true, false>(g, K, grid, stream);
        return g->b_kin ? d_launch<false, true>(g, K, grid, stream) : d_launch<false, false>(g, K, grid, stream);
    }
    if (dtype != GP_F32) return gp__error(GP_ERR_INTERNAL, "gp_gemm: dtype %d", (int)dtype);
    switch (variant == 0 ? GP__GEMM_F32_PRODUCTION : variant) {
    case 8: return s_layouts<false, false>(g, K, grid, stream);
    case 9: return s_layouts<true, false>(g, K, grid, stream);
    case 10: return s_layouts<true, true>(g, K, grid, stream);
    default: return gp__error(GP_ERR_INVALID_ARG, "gp_gemm: no f32 variant %d", variant);
    }
}
