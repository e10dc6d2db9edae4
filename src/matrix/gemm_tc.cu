/*
 * gemm_tc.cu — the launcher of the tensor-core GEMM (gemm_tc.cuh): TF32, BF16, FP16 with f32 accumulation. Operands
 * whose rows are not 16-byte aligned are first copied into the workspace with an aligned ld (the kernel's copies are
 * 16-byte cp.async); the grid is one block per 128 x 128 tile of C in a grouped order.
 */
#include "matrix_internal.h"

#include "gemm_tc.cuh"

namespace {

using namespace gemmtc;

template <int P, bool AK, bool BK, typename OT>
gp_status_t launch(const gp__gemm_t *g, size_t K, unsigned tm, unsigned tn, cudaStream_t s)
{
    constexpr size_t smem = smem_bytes<P>(AK, BK);
    gp_status_t st = GP_OK;
    GP_CUDA_TRY(cudaFuncSetAttribute(gemm_mma<P, AK, BK, OT>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    gemm_mma<P, AK, BK, OT><<<tm * tn, THREADS, smem, s>>>(g->M, g->N, K, (float)g->alpha, g->A, g->lda, g->B, g->ldb,
                                                             (float)g->beta, (OT *)g->C, g->ldc, tm, tn);
    return GP_CHECK_LAUNCH("gemm_mma");
fail:
    return st;
}

template <int P, typename OT>
gp_status_t layouts(const gp__gemm_t *g, size_t K, unsigned tm, unsigned tn, cudaStream_t s)
{
    if (g->a_kin)
        return g->b_kin ? launch<P, true, true, OT>(g, K, tm, tn, s) : launch<P, true, false, OT>(g, K, tm, tn, s);
    return g->b_kin ? launch<P, false, true, OT>(g, K, tm, tn, s) : launch<P, false, false, OT>(g, K, tm, tn, s);
}

size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* out = in (TR 0) or in^T (TR 1) through 32 x 32 shared-memory tiles, a batch of them (one grid layer each, si / so
 * elements apart): in is rows x cols (ldi), out cols x rows (TR) or rows x cols (ldo) */
template <typename T, bool TR>
__global__ void pack_tile(const T *__restrict__ in, size_t ldi, T *__restrict__ out, size_t ldo, size_t rows,
                          size_t cols, size_t si, size_t so)
{
    __shared__ T t[32][33];
    in += blockIdx.z * si, out += blockIdx.z * so;
    const size_t r0 = (size_t)blockIdx.y * 32, c0 = (size_t)blockIdx.x * 32;
    for (int i = threadIdx.y; i < 32; i += 8) {
        const size_t r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols) t[i][threadIdx.x] = in[r * ldi + c];
    }
    __syncthreads();
    for (int i = threadIdx.y; i < 32; i += 8) {
        if (TR) {
            const size_t c = c0 + i, r = r0 + threadIdx.x;
            if (c < cols && r < rows) out[c * ldo + r] = t[threadIdx.x][i];
        } else {
            const size_t r = r0 + i, c = c0 + threadIdx.x;
            if (r < rows && c < cols) out[r * ldo + c] = t[i][threadIdx.x];
        }
    }
}

/* Does operand X need rewriting for the wgmma path (K-major, 16-byte rows and batch strides)? TF32 operands are read
 * as stored: the tensor cores take the top 19 bits of each f32 (gp__f32_to_tf32) */
int needs_pack(size_t es, size_t ld, const void *X, int kin, size_t stride)
{
    return !kin || (ld * es) % 16 || (uintptr_t)X % 16 || (stride * es) % 16;
}
/* Bytes of one rewritten matrix: outer rows of the inner count rounded to 16 bytes, rounded to 256 bytes. */
size_t packed_bytes(size_t es, size_t outer, size_t inner) { return round_up(round_up(inner, 16 / es) * outer * es, 256); }

/* X' (outer rows of inner elements, K-major, 16-byte rows) for the wgmma path, for count matrices *stride elements
 * apart (0: one for all): as is when it already is that, else written into the workspace at *off (the new stride:
 * packed_bytes / es). One matrix goes at copy speed: a 2-D copy (K-major) or, TF32, the production transpose (32 x
 * 32 tiles, 16-byte vectors both sides); the rest (a batch: a grid layer per matrix) through pack_tile. */
template <typename T>
gp_status_t kmajor(gp_ctx_t *ctx, const void **X, size_t *ld, size_t *stride, int kin, size_t outer, size_t inner,
                   size_t count, char *ws, size_t *off, cudaStream_t s)
{
    constexpr size_t es = sizeof(T), vb = 16 / sizeof(T);
    if (!needs_pack(es, *ld, *X, kin, *stride)) return GP_OK;
    const size_t nld = round_up(inner, vb), per = packed_bytes(es, outer, inner), nm = *stride ? count : 1;
    T *dst = (T *)(ws + *off);
    const size_t rows = kin ? outer : inner, cols = kin ? inner : outer; /* as stored */
    if (nm == 1 && kin) {
        const cudaError_t e = cudaMemcpy2DAsync(dst, nld * es, *X, *ld * es, cols * es, rows, cudaMemcpyDeviceToDevice, s);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_gemm_ex: copying an unaligned operand", __FILE__, __LINE__);
    } else if (nm == 1 && es == 4) {
        const gp__phys_t in = {(char *)*X, rows, cols, *ld, es}, out = {(char *)dst, cols, rows, nld, es};
        GP_TRY_RET(gp__transpose_gpu(ctx, &out, &in, s));
    } else {
        const dim3 grid((unsigned)((cols + 31) / 32), (unsigned)((rows + 31) / 32), (unsigned)nm), block(32, 8);
        if (grid.y > 65535 || nm > 65535)
            return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm_ex: %zu operands of %zu rows to pack", nm, rows);
        if (kin) pack_tile<T, false><<<grid, block, 0, s>>>((const T *)*X, *ld, dst, nld, rows, cols, *stride, per / es);
        else pack_tile<T, true><<<grid, block, 0, s>>>((const T *)*X, *ld, dst, nld, rows, cols, *stride, per / es);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_gemm_ex: packing an operand"));
    }
    *X = dst, *ld = nld;
    if (*stride) *stride = per / es;
    *off += per * nm;
    return GP_OK;
}

} // namespace

/* the most a split K's f32 partials may take of the workspace (a batch runs in pieces that fit) */
static const size_t SPLITK_MAX_BYTES = (size_t)1 << 30;


/* one GEMM (or, on sm_90, a batch bt of them in one launch) */
static gp_status_t tc_gpu(gp_ctx_t *ctx, gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g,
                          const gp__batch_t *bt, cudaStream_t stream)
{
    if (g->M == 0 || g->N == 0) return GP_OK;
    if (ctx->cc_major < 8)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm_ex: %s needs the tensor cores of sm_80 or later (this GPU is "
                         "sm_%d)", prec == GP_GEMM_TF32 ? "TF32" : prec == GP_GEMM_BF16 ? "BF16" : "FP16", ctx->cc_major * 10);
    const size_t tm = (g->M + BM - 1) / BM, tn = (g->N + BN - 1) / BN;
    if (tm * tn > 0x7fffffffu)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_gemm_ex: %zu x %zu is more than 2^31 tiles of 128 x 128", g->M, g->N);
    const size_t es = prec == GP_GEMM_TF32 ? 4 : 2, K = g->alpha == 0.0 ? 0 : g->K; /* alpha = 0: A, B not read */
    gp__gemm_t q = *g;
#ifdef GP_HAVE_WGMMA
    /* Hopper (sm_90): wgmma, operands K-major with aligned rows (TF32 included: read as stored), or MN-major where
     * the kernel reads them so (bmn, am, sw) */
    const int plan = gp__gemm_tc_plan(ctx);
    if (ctx->cc_major == 9 && plan != 1) {
        const int t = prec == GP_GEMM_TF32; /* TF32 has no transpose bit (am / sw below, else transposed) */
        const int wk = plan == 2 ? GP__WG_CPASYNC : plan >= 3 ? plan : GP__WG_AUTO;
        gp__batch_t b = bt ? *bt : (gp__batch_t){1, 0, 0, 0};
        const size_t na = b.sa ? b.count : 1, nb = b.sb ? b.count : 1;
        /* a 16-bit N-inner B with 16-byte rows and strides goes to the TMA kernel as it is (the wgmma's transpose
         * bit reads it MN-major): no transpose pass */
        const int tma = K && gp__gemm_wgmma_tma_ok(g, K, wk); /* the TMA kernel runs (not the cp.async one) */
        const int bmn = !t && !g->b_kin && tma &&
                        (g->ldb * es) % 16 == 0 && (uintptr_t)g->B % 16 == 0 && (b.sb * es) % 16 == 0;
        /* split K where the tiles leave most SMs idle and K is long (the production choice only; decided for one
         * problem alone, so a batched problem gets the bits it gets alone) */
        unsigned splits = wk == GP__WG_AUTO && tma ? gp__gemm_wgmma_splits(g->M, g->N, K, es, ctx->sm_count) : 1;
        size_t wsplit = splits > 1 ? round_up((size_t)splits * b.count * g->M * g->N * 4, 256) : 0;
        if (wsplit > SPLITK_MAX_BYTES) splits = 1, wsplit = 0;
        /* TF32 on 128 x 256 tiles (unsplit; a batch's tiles all counted): one aligned MN-major operand is read as
         * stored too, through registers (the wgmma's A; an MN-major B by the swapped problem C^T = B^T A^T): am, A;
         * sw, B. The same bits as the transposed operand's kernel (tested). */
        int am = 0, sw = 0;
        if (t && tma && splits == 1 && (wk == GP__WG_TMA_128x256 || wk == GP__WG_AUTO)) {
            const int ok_a = !g->a_kin && !needs_pack(es, g->lda, g->A, 1, b.sa),
                      ok_b = !g->b_kin && !needs_pack(es, g->ldb, g->B, 1, b.sb);
            const int sms = ctx->sm_count;
            if (ok_a && (wk != GP__WG_AUTO || gp__gemm_wgmma_pick_batch(g->M, g->N, b.count, sms) == GP__WG_TMA_128x256))
                am = 1;
            else if (ok_b && g->a_kin &&
                     (wk != GP__WG_AUTO || gp__gemm_wgmma_pick_batch(g->N, g->M, b.count, sms) == GP__WG_TMA_128x256))
                sw = 1;
        }
        const size_t wa = K && !am && needs_pack(es, g->lda, g->A, g->a_kin, b.sa) ? packed_bytes(es, g->M, K) * na : 0,
                     wb = K && !bmn && !sw && needs_pack(es, g->ldb, g->B, g->b_kin, b.sb) ? packed_bytes(es, g->N, K) * nb : 0;
        float *wpart = NULL;
        if (wa + wb + wsplit) {
            void *ws = NULL;
            size_t off = 0;
            GP_TRY_RET(gp__workspace(ctx, wa + wb + wsplit, &ws));
            char *w = (char *)ws;
            if (wsplit) wpart = (float *)(w + wa + wb); /* after the packed operands (256-byte multiples) */
            if (t) {
                if (wa) GP_TRY_RET((kmajor<float>(ctx, &q.A, &q.lda, &b.sa, g->a_kin, g->M, K, b.count, w, &off, stream)));
                if (wb) GP_TRY_RET((kmajor<float>(ctx, &q.B, &q.ldb, &b.sb, g->b_kin, g->N, K, b.count, w, &off, stream)));
            } else {
                if (wa) GP_TRY_RET((kmajor<uint16_t>(ctx, &q.A, &q.lda, &b.sa, g->a_kin, g->M, K, b.count, w, &off, stream)));
                if (wb) GP_TRY_RET((kmajor<uint16_t>(ctx, &q.B, &q.ldb, &b.sb, g->b_kin, g->N, K, b.count, w, &off, stream)));
            }
        }
        q.a_kin = am ? 0 : 1;
        q.b_kin = bmn || sw ? 0 : 1;
        return gp__gemm_wgmma(prec, cdt, &q, K, &b, wk, ctx->sm_count, splits, wpart, stream);
    }
#endif
    (void)bt; /* the mma.sync kernels run one problem */
    /* rows that are not 16-byte aligned: copy the operand once with an aligned ld */
    const int pa = K && ((g->lda * es) % 16 || (uintptr_t)g->A % 16);
    const int pb = K && ((g->ldb * es) % 16 || (uintptr_t)g->B % 16);
    const size_t ai = g->a_kin ? K : g->M, ao = g->a_kin ? g->M : K, bi = g->b_kin ? K : g->N, bo = g->b_kin ? g->N : K;
    const size_t abytes = pa ? round_up(round_up(ai, 16 / es) * ao * es, 256) : 0,
                 bbytes = pb ? round_up(round_up(bi, 16 / es) * bo * es, 256) : 0;
    if (abytes + bbytes) {
        void *ws = NULL;
        GP_TRY_RET(gp__workspace(ctx, abytes + bbytes, &ws));
        cudaError_t e = cudaSuccess;
        if (pa) {
            const size_t nld = round_up(ai, 16 / es);
            e = cudaMemcpy2DAsync(ws, nld * es, g->A, g->lda * es, ai * es, ao, cudaMemcpyDeviceToDevice, stream);
            q.A = ws, q.lda = nld;
        }
        if (pb && e == cudaSuccess) {
            const size_t nld = round_up(bi, 16 / es);
            e = cudaMemcpy2DAsync((char *)ws + abytes, nld * es, g->B, g->ldb * es, bi * es, bo,
                                  cudaMemcpyDeviceToDevice, stream);
            q.B = (char *)ws + abytes, q.ldb = nld;
        }
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_gemm_ex: packing an unaligned operand", __FILE__, __LINE__);
    }
    const unsigned um = (unsigned)tm, un = (unsigned)tn;
    switch (prec) {
    case GP_GEMM_TF32: return layouts<P_TF32, float>(&q, K, um, un, stream);
    case GP_GEMM_BF16:
        return cdt == GP_F32 ? layouts<P_BF16, float>(&q, K, um, un, stream)
                             : layouts<P_BF16, uint16_t>(&q, K, um, un, stream);
    case GP_GEMM_FP16:
        return cdt == GP_F32 ? layouts<P_FP16, float>(&q, K, um, un, stream)
                             : layouts<P_FP16, uint16_t>(&q, K, um, un, stream);
    default: return gp__error(GP_ERR_INTERNAL, "gp_gemm_ex: precision %d reached the tensor-core launcher", (int)prec);
    }
}

extern "C" gp_status_t gp__gemm_tc_gpu(gp_ctx_t *ctx, gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g,
                                       const gp__batch_t *bt, cudaStream_t stream)
{
    if (bt == NULL || bt->count <= 1) return tc_gpu(ctx, prec, cdt, g, NULL, stream);
#ifdef GP_HAVE_WGMMA
    /* sm_90: the whole batch in one launch (a grid row per problem), in pieces of at most 65535 */
    const int plan = gp__gemm_tc_plan(ctx);
    if (ctx->cc_major == 9 && plan != 1) {
        const size_t es = prec == GP_GEMM_TF32 ? 4 : 2, ces = cdt == GP_F32 ? 4 : 2;
        /* pieces of at most 65535 problems, and, where production splits each problem's K, few enough that their
         * partials fit the SPLITK_MAX_BYTES tc_gpu allows (so every problem still splits as it does alone: the same bits) */
        size_t piece = 65535;
        if (plan == 0 && g->alpha != 0.0 && g->K) {
            const unsigned sp = gp__gemm_wgmma_splits(g->M, g->N, g->K, es, ctx->sm_count);
            const size_t per = (size_t)sp * g->M * g->N * 4, fit = per ? SPLITK_MAX_BYTES / per : piece;
            if (sp > 1 && fit < piece) piece = fit ? fit : 1;
        }
        for (size_t i = 0; i < bt->count; i += piece) {
            gp__batch_t b = *bt;
            b.count = bt->count - i < piece ? bt->count - i : piece;
            gp__gemm_t q = *g;
            q.A = (const char *)g->A + i * bt->sa * es, q.B = (const char *)g->B + i * bt->sb * es;
            q.C = (char *)g->C + i * bt->sc * ces;
            GP_TRY_RET(tc_gpu(ctx, prec, cdt, &q, &b, stream));
        }
        return GP_OK;
    }
#endif
    /* elsewhere: one launch per problem */
    const size_t es = prec == GP_GEMM_TF32 ? 4 : 2, ces = cdt == GP_F32 ? 4 : 2;
    for (size_t i = 0; i < bt->count; i++) {
        gp__gemm_t q = *g;
        q.A = (const char *)g->A + i * bt->sa * es, q.B = (const char *)g->B + i * bt->sb * es;
        q.C = (char *)g->C + i * bt->sc * ces;
        GP_TRY_RET(tc_gpu(ctx, prec, cdt, &q, NULL, stream));
    }
    return GP_OK;
}
