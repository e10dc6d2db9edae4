/*
 * gemm_launch.cuh — the launches of the f32 / f64 GEMM kernels of gemm_kernels.cuh over a gp__gemm_grid_t, one
 * template per kernel family and storage combination. gemm.cu instantiates production's (its tuning table); the lab
 * instantiates the other variants from the same templates (lab/gemm_variants.cu).
 */
#ifndef GP_GEMM_LAUNCH_CUH
#define GP_GEMM_LAUNCH_CUH

#include "matrix_internal.h"

#include "gemm_kernels.cuh"

namespace gemml {

inline int vec_flags(const gp__gemm_t *g, size_t es)
{
    const size_t vb = 16 / es; /* elements per 16-byte vector */
    int f = 0;
    if (g->lda % vb == 0 && (uintptr_t)g->A % 16 == 0) f |= gemmk::VEC_A;
    if (g->ldb % vb == 0 && (uintptr_t)g->B % 16 == 0) f |= gemmk::VEC_B;
    if (g->ldc % vb == 0 && (uintptr_t)g->C % 16 == 0) f |= gemmk::VEC_C;
    return f;
}

typedef gp__gemm_grid_t plan_t;

template <bool AK, bool BK, bool DBUF, bool ASYNC, int TMH, int MINB, bool PF>
gp_status_t s_launch(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    gemmk::sgemm_128x128<AK, BK, DBUF, ASYNC, TMH, MINB, PF><<<dim3(p->grid, p->S), 256, 0, s>>>(
        g->M, g->N, p->K, (float)g->alpha, (const float *)g->A, g->lda, (const float *)g->B, g->ldb, (float)g->beta,
        (float *)g->C, g->ldc, vec_flags(g, 4), p->Kc, (float *)p->W);
    return GP_CHECK_LAUNCH("sgemm_128x128");
}

template <bool DBUF, bool ASYNC, int TMH = 2, int MINB = 2, bool PF = false>
gp_status_t s_layouts(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    if (g->a_kin)
        return g->b_kin ? s_launch<true, true, DBUF, ASYNC, TMH, MINB, PF>(g, p, s)
                        : s_launch<true, false, DBUF, ASYNC, TMH, MINB, PF>(g, p, s);
    return g->b_kin ? s_launch<false, true, DBUF, ASYNC, TMH, MINB, PF>(g, p, s)
                    : s_launch<false, false, DBUF, ASYNC, TMH, MINB, PF>(g, p, s);
}

/* sgemm_cp with ST stages on BM x BN blocks, a K-inner A taken by way AX (gemm_kernels.cuh); rows 16-byte aligned
 * (the caller checks) */
template <int ST, int BM, int BN, int AX, bool AK, bool BK>
gp_status_t scp_launch(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    constexpr size_t smem = gemmk::sgemm_cp_smem_bytes(ST, BM, BN, AK, BK, AX);
    gp_status_t st = GP_OK;
    GP_CUDA_TRY(cudaFuncSetAttribute(gemmk::sgemm_cp<ST, BM, BN, AK, BK, AX>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem));
    gemmk::sgemm_cp<ST, BM, BN, AK, BK, AX><<<dim3(p->grid, p->S), 256, smem, s>>>(
        g->M, g->N, p->K, (float)g->alpha, (const float *)g->A, g->lda, (const float *)g->B, g->ldb, (float)g->beta,
        (float *)g->C, g->ldc, vec_flags(g, 4), p->Kc, (float *)p->W);
    return GP_CHECK_LAUNCH("sgemm_cp");
fail:
    return st;
}
template <int ST, int BM, int BN = 128, int AX = 0>
gp_status_t scp_layouts(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    if (g->a_kin)
        return g->b_kin ? scp_launch<ST, BM, BN, AX, true, true>(g, p, s) : scp_launch<ST, BM, BN, AX, true, false>(g, p, s);
    return g->b_kin ? scp_launch<ST, BM, BN, AX, false, true>(g, p, s) : scp_launch<ST, BM, BN, AX, false, false>(g, p, s);
}

template <bool AK, bool BK, bool BIG, int BKK, int BN>
gp_status_t d_launch(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    constexpr size_t smem = gemmk::dgemm_smem_bytes(BKK, BN);
    gp_status_t st = GP_OK;
    if (smem > 48 * 1024)
        GP_CUDA_TRY(cudaFuncSetAttribute(gemmk::dgemm_dmma<AK, BK, true, BIG, BKK, BN>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    gemmk::dgemm_dmma<AK, BK, true, BIG, BKK, BN><<<dim3(p->grid, p->S), 256, smem, s>>>(
        g->M, g->N, p->K, g->alpha, (const double *)g->A, g->lda, (const double *)g->B, g->ldb, g->beta,
        (double *)g->C, g->ldc, vec_flags(g, 8), p->Kc, (double *)p->W);
    return GP_CHECK_LAUNCH("dgemm_dmma");
fail:
    return st;
}

template <bool BIG, int BKK, int BN> gp_status_t d_layouts(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    if (g->a_kin) return g->b_kin ? d_launch<true, true, BIG, BKK, BN>(g, p, s) : d_launch<true, false, BIG, BKK, BN>(g, p, s);
    return g->b_kin ? d_launch<false, true, BIG, BKK, BN>(g, p, s) : d_launch<false, false, BIG, BKK, BN>(g, p, s);
}

/* dgemm_cp, 128 x BN blocks; MODE 0 / 1 (paired fragment loads) need A K-inner and B N-inner, MODE 2 takes every
 * layout; rows 16-byte aligned (the caller checks) */
template <int BN, int MODE, bool AK, bool BK> gp_status_t dcp_launch(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    constexpr size_t smem = gemmk::dgemm_cp_smem_bytes(BN, MODE, AK, BK);
    gp_status_t st = GP_OK;
    GP_CUDA_TRY(cudaFuncSetAttribute(gemmk::dgemm_cp<BN, MODE, AK, BK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem));
    gemmk::dgemm_cp<BN, MODE, AK, BK><<<dim3(p->grid, p->S), 2 * BN, smem, s>>>(
        g->M, g->N, p->K, g->alpha, (const double *)g->A, g->lda, (const double *)g->B, g->ldb, g->beta,
        (double *)g->C, g->ldc, vec_flags(g, 8), p->Kc, (double *)p->W);
    return GP_CHECK_LAUNCH("dgemm_cp");
fail:
    return st;
}
inline gp_status_t dcp_layouts(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    if (g->a_kin) return g->b_kin ? dcp_launch<64, 2, true, true>(g, p, s) : dcp_launch<64, 2, true, false>(g, p, s);
    return g->b_kin ? dcp_launch<64, 2, false, true>(g, p, s) : dcp_launch<64, 2, false, false>(g, p, s);
}

} // namespace gemml

#endif
