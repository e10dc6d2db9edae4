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

/* How the grid covers the problem: tiles in x, K split into S ranges of Kc in y (S > 1 writes slices to W). */
typedef struct plan {
    unsigned grid;
    int S;
    size_t K, Kc;
    void *W;
} plan_t;

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

/* variants 15, 16, 18, 20, 25, 30 - 32: sgemm_cp with ST stages on BM x BN blocks, a K-inner A taken by way AX
 * (gemm_kernels.cuh); rows 16-byte aligned (the caller checks) */
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

/* the block tiles of the sgemm_cp variants (the launches in gp__gemm_gpu's switch take the same shapes) */
void scp_tile(int dv, size_t *bm, size_t *bn)
{
    static const int tiles[][3] = {{15, 128, 128}, {16, 128, 128}, {18, 256, 128}, {20, 128, 256},
                                   {25, 128, 256}, {30, 128, 256}, {31, 256, 64},  {32, 128, 64}};
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++)
        if (tiles[i][0] == dv) *bm = (size_t)tiles[i][1], *bn = (size_t)tiles[i][2];
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

/* variants 5 / 6 / 7: dgemm_cp, 128 x BN blocks; 5 / 6 (paired fragment loads) need A K-inner and B N-inner, 7 takes
 * every layout; rows 16-byte aligned (the caller checks) */
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
gp_status_t dcp_layouts(const gp__gemm_t *g, const plan_t *p, cudaStream_t s)
{
    if (g->a_kin) return g->b_kin ? dcp_launch<64, 2, true, true>(g, p, s) : dcp_launch<64, 2, true, false>(g, p, s);
    return g->b_kin ? dcp_launch<64, 2, false, true>(g, p, s) : dcp_launch<64, 2, false, false>(g, p, s);
}

size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* An operand whose rows are not 16-byte aligned would be read element by element: for large problems it is cheaper
 * to copy it once (cudaMemcpy2DAsync) into the workspace with a 16-byte-aligned ld. */
gp_status_t pack(char *ws, size_t *off, const void **X, size_t *ld, size_t inner, size_t outer, size_t es,
                 cudaStream_t s)
{
    const size_t nld = round_up(inner, 16 / es);
    gp_status_t st = GP_OK;
    GP_CUDA_TRY(cudaMemcpy2DAsync(ws + *off, nld * es, *X, *ld * es, inner * es, outer, cudaMemcpyDeviceToDevice, s));
    *X = ws + *off, *ld = nld;
    *off += round_up(nld * outer * es, 256);
fail:
    return st;
}

} // namespace

extern "C" gp_status_t gp__gemm_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__gemm_t *g, int variant,
                                    cudaStream_t stream)
{
    if (g->M == 0 || g->N == 0) return GP_OK;
    if (dtype != GP_F32 && dtype != GP_F64) return gp__error(GP_ERR_INTERNAL, "gp_gemm: dtype %d", (int)dtype);
    const size_t es = dtype == GP_F64 ? 8 : 4, K0 = g->alpha == 0.0 ? 0 : g->K; /* alpha = 0: A and B are not read */
    /* operands whose rows are not 16-byte aligned, in problems of >= 2^20 outputs: copied with an aligned ld */
    const int flags = vec_flags(g, es);
    const int pa = !(flags & gemmk::VEC_A) && K0 > 0 && variant == 0 && g->M * g->N >= (1u << 20);
    const int pb = !(flags & gemmk::VEC_B) && K0 > 0 && variant == 0 && g->M * g->N >= (1u << 20);
    /* the variant: production picks a 128 x 64 tile for n <= 64 (f32: sgemm_cp's where rows are 16-byte aligned,
     * else variant 12), else the production kernel; f64 variants 5 / 6 take A K-inner and B N-inner, 7 any layout,
     * all with 16-byte rows (after packing), else variant 2 runs */
    const int rows16 = ((flags & gemmk::VEC_A) || pa) && ((flags & gemmk::VEC_B) || pb);
    int dv = variant                 ? variant
             : dtype == GP_F64       ? GP__GEMM_F64_PRODUCTION
             : g->N > 64             ? GP__GEMM_F32_PRODUCTION
             : rows16                ? GP__GEMM_F32_NARROW
                                     : 12;
    if (dtype == GP_F64 && (dv == 5 || dv == 6) && !(g->a_kin && !g->b_kin && rows16)) dv = 2;
    if (dtype == GP_F64 && dv == 7 && !rows16) dv = 2;
    if (dtype == GP_F32 && dv >= 15 && !rows16) dv = 10;
    /* block tile bm x bn: 128 x 128 unless the variant's own (sgemm_cp's from its table, next to the launches) */
    size_t bm = 128, bn = (dtype == GP_F64 && dv >= 4) || (dtype == GP_F32 && dv == 12) ? 64 : 128;
    if (dtype == GP_F32) scp_tile(dv, &bm, &bn);
    const size_t tiles = ((g->M + bm - 1) / bm) * ((g->N + bn - 1) / bn);
    if (tiles > 0x7fffffffu)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm: %zu x %zu is more than 2^31 tiles of %zu x %zu", g->M, g->N, bm, bn);
    plan_t p = {(unsigned)tiles, 1, K0, 0, NULL};
    p.Kc = p.K;
    /* Split K where the tiles leave the GPU idle (fewer than the resident blocks): S ranges of at least 256. */
    const size_t slots = (size_t)ctx->sm_count * ((dtype == GP_F64 && bn == 128) || bm * bn > 128 * 128 ? 1 : 2);
    if (variant == 0 && tiles < slots && p.K >= 512) {
        size_t S = slots / tiles;
        if (S > p.K / 256) S = p.K / 256;
        if (S > 16) S = 16;
        if (S >= 2) p.S = (int)S, p.Kc = round_up((p.K + S - 1) / S, 16);
    }
    gp__gemm_t q = *g;
    size_t bytes = 0, off = 0;
    if (pa) bytes += round_up(round_up(g->a_kin ? p.K : g->M, 4) * (g->a_kin ? g->M : p.K) * es, 256);
    if (pb) bytes += round_up(round_up(g->b_kin ? p.K : g->N, 4) * (g->b_kin ? g->N : p.K) * es, 256);
    const size_t wbytes = p.S > 1 ? (size_t)p.S * g->M * g->N * es : 0;
    if (bytes + wbytes > 0) {
        void *ws = NULL;
        GP_TRY_RET(gp__workspace(ctx, bytes + wbytes, &ws));
        if (pa) GP_TRY_RET(pack((char *)ws, &off, &q.A, &q.lda, g->a_kin ? p.K : g->M, g->a_kin ? g->M : p.K, es, stream));
        if (pb) GP_TRY_RET(pack((char *)ws, &off, &q.B, &q.ldb, g->b_kin ? p.K : g->N, g->b_kin ? g->N : p.K, es, stream));
        p.W = (char *)ws + off;
    }
    gp_status_t st;
    if (dtype == GP_F64) {
        switch (dv) {
        case 1: st = d_layouts<false, 8, 128>(&q, &p, stream); break;
        case 2: st = d_layouts<true, 8, 128>(&q, &p, stream); break;
        case 3: st = d_layouts<true, 16, 128>(&q, &p, stream); break;
        case 4: st = d_layouts<true, 8, 64>(&q, &p, stream); break;
        case 5: st = dcp_launch<64, 0, true, false>(&q, &p, stream); break;
        case 6: st = dcp_launch<64, 1, true, false>(&q, &p, stream); break;
        case 7: st = dcp_layouts(&q, &p, stream); break;
        default: return gp__error(GP_ERR_INVALID_ARG, "gp_gemm: no f64 variant %d", variant);
        }
    } else {
        switch (dv) {
        case 8: st = s_layouts<false, false>(&q, &p, stream); break;
        case 9: st = s_layouts<true, false>(&q, &p, stream); break;
        case 10: st = s_layouts<true, true>(&q, &p, stream); break;
        case 11: st = s_layouts<true, true, 2, 1>(&q, &p, stream); break;
        case 12: st = s_layouts<true, true, 1, 2>(&q, &p, stream); break;
        case 13: st = s_layouts<true, true, 2, 1, true>(&q, &p, stream); break;
        case 14: st = s_layouts<true, true, 2, 2, true>(&q, &p, stream); break;
        case 15: st = scp_layouts<3, 128>(&q, &p, stream); break;
        case 16: st = scp_layouts<4, 128>(&q, &p, stream); break;
        case 18: st = scp_layouts<4, 256>(&q, &p, stream); break;
        case 20: st = scp_layouts<4, 128, 256>(&q, &p, stream); break;
        case 25: st = scp_layouts<4, 128, 256, 1>(&q, &p, stream); break;
        case 30: st = scp_layouts<4, 128, 256, 2>(&q, &p, stream); break;
        case 31: st = scp_layouts<4, 256, 64, 2>(&q, &p, stream); break;
        case 32: st = scp_layouts<4, 128, 64, 2>(&q, &p, stream); break;
        default: return gp__error(GP_ERR_INVALID_ARG, "gp_gemm: no f32 variant %d", variant);
        }
    }
    if (st != GP_OK || p.S == 1) return st;
    const size_t mn = g->M * g->N;
    const unsigned blocks = (unsigned)(mn / 256 + 1 < (size_t)ctx->sm_count * 8 ? mn / 256 + 1 : (size_t)ctx->sm_count * 8);
    if (dtype == GP_F64)
        gemmk::splitk_sum<double><<<blocks, 256, 0, stream>>>(g->M, g->N, p.S, (const double *)p.W, g->beta,
                                                              (double *)g->C, g->ldc);
    else
        gemmk::splitk_sum<float><<<blocks, 256, 0, stream>>>(g->M, g->N, p.S, (const float *)p.W, (float)g->beta,
                                                             (float *)g->C, g->ldc);
    return GP_CHECK_LAUNCH("splitk_sum");
}
