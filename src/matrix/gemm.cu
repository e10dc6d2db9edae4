/*
 * gemm.cu — the GPU GEMM launcher (f32, f64): production's kernels and the tuning table that picks among them by
 * dtype and shape, the packing of misaligned operands, the split of K where tiles leave SMs idle.
 * docs/design/matrix.md says how each was chosen.
 */
#include "gemm_launch.cuh"

#include <stdint.h>

namespace {

using namespace gemml;

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

/* Production's kernels, numbered as the lab numbers every variant (docs/design/matrix.md). */
static const gp__gemm_kernel_t k_s10 = {10, "sgemm_128x128 two stages, cp.async", GP_F32, 128, 128, 2, 0, NULL,
                                        s_layouts<true, true>};
static const gp__gemm_kernel_t k_s12 = {12, "sgemm_128x64 two stages, cp.async", GP_F32, 128, 64, 2, 0, NULL,
                                        s_layouts<true, true, 1, 2>};
static const gp__gemm_kernel_t k_s30 = {30, "sgemm_cp 128x256, 4 stages, A through registers", GP_F32, 128, 256, 1,
                                        GP__GEMM_ROWS16, &k_s10, scp_layouts<4, 128, 256, 2>};
static const gp__gemm_kernel_t k_s32 = {32, "sgemm_cp 128x64, 4 stages, A through registers", GP_F32, 128, 64, 2,
                                        GP__GEMM_ROWS16, &k_s12, scp_layouts<4, 128, 64, 2>};
static const gp__gemm_kernel_t k_d2 = {2, "dgemm_dmma m16n8k8 128x128", GP_F64, 128, 128, 1, 0, NULL,
                                       d_layouts<true, 8, 128>};
static const gp__gemm_kernel_t k_d7 = {7, "dgemm_cp m16n8k8 128x64, 8-byte loads", GP_F64, 128, 64, 2,
                                       GP__GEMM_ROWS16, &k_d2, dcp_layouts};
static const gp__gemm_kernel_t *const k_production[] = {&k_s10, &k_s12, &k_s30, &k_s32, &k_d2, &k_d7};

/* The tuning table: the first row of the dtype whose max_n holds n (H100, docs/design/matrix.md). */
static const struct {
    gp_dtype_t dtype;
    size_t max_n;
    const gp__gemm_kernel_t *kernel;
} k_tuning[] = {
    {GP_F32, 64, &k_s32},       /* narrow C: 128 x 64 tiles fill the SMs */
    {GP_F32, SIZE_MAX, &k_s30}, /* else 128 x 256, one block per SM */
    {GP_F64, SIZE_MAX, &k_d7},
};

extern "C" const gp__gemm_kernel_t *gp__gemm_kernel_production(gp_dtype_t dtype, int number)
{
    for (size_t i = 0; i < sizeof k_production / sizeof k_production[0]; i++)
        if (k_production[i]->dtype == dtype && k_production[i]->number == number) return k_production[i];
    return NULL;
}

extern "C" const gp__gemm_kernel_t *gp__gemm_kernel_pick(gp_dtype_t dtype, size_t n)
{
    for (size_t i = 0; i < sizeof k_tuning / sizeof k_tuning[0]; i++)
        if (k_tuning[i].dtype == dtype && n <= k_tuning[i].max_n) return k_tuning[i].kernel;
    return NULL;
}

extern "C" gp_status_t gp__gemm_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__gemm_t *g, const gp__gemm_kernel_t *kernel,
                                    cudaStream_t stream)
{
    if (g->M == 0 || g->N == 0) return GP_OK;
    if (dtype != GP_F32 && dtype != GP_F64) return gp__error(GP_ERR_INTERNAL, "gp_gemm: dtype %d", (int)dtype);
    if (kernel && kernel->dtype != dtype)
        return gp__error(GP_ERR_INTERNAL, "gp_gemm: kernel %s is not for %s", kernel->name, gp_dtype_name(dtype));
    const int prod = kernel == NULL;
    const size_t es = dtype == GP_F64 ? 8 : 4, K0 = g->alpha == 0.0 ? 0 : g->K; /* alpha = 0: A and B are not read */
    /* operands whose rows are not 16-byte aligned, in problems of >= 2^20 outputs: copied with an aligned ld */
    const int flags = vec_flags(g, es);
    const int pa = !(flags & gemmk::VEC_A) && K0 > 0 && prod && g->M * g->N >= (1u << 20);
    const int pb = !(flags & gemmk::VEC_B) && K0 > 0 && prod && g->M * g->N >= (1u << 20);
    const int rows16 = ((flags & gemmk::VEC_A) || pa) && ((flags & gemmk::VEC_B) || pb);
    const gp__gemm_kernel_t *k = prod ? gp__gemm_kernel_pick(dtype, g->N) : kernel;
    while (k && (((k->needs & GP__GEMM_ROWS16) && !rows16) || ((k->needs & GP__GEMM_AK_BN) && !(g->a_kin && !g->b_kin))))
        k = k->fallback;
    if (!k) return gp__error(GP_ERR_INTERNAL, "gp_gemm: no kernel for these operands");
    const size_t bm = k->bm, bn = k->bn, tiles = ((g->M + bm - 1) / bm) * ((g->N + bn - 1) / bn);
    if (tiles > 0x7fffffffu)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm: %zu x %zu is more than 2^31 tiles of %zu x %zu", g->M, g->N, bm, bn);
    plan_t p = {(unsigned)tiles, 1, K0, 0, NULL};
    p.Kc = p.K;
    /* Split K where the tiles leave the GPU idle (fewer than the resident blocks): S ranges of at least 256. */
    const size_t slots = (size_t)ctx->sm_count * (size_t)k->per_sm;
    if (prod && tiles < slots && p.K >= 512) {
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
    const gp_status_t st = k->launch(&q, &p, stream);
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
