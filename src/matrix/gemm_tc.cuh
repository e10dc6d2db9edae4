/*
 * gemm_tc.cuh — GEMM on the tensor cores with mma.sync (sm_80 and later): TF32 (m16n8k8, f32 inputs truncated to
 * TF32: the low 13 bits masked off), BF16 and FP16 (m16n8k16), f32 accumulation. Canonical form of matrix_internal.h (C row-major
 * M x N; A' K-inner or M-inner, B' K-inner or N-inner: AK / BK). Block tile 128 x 128 x (64 bytes of K), 8 warps
 * of 64 x 32, a STAGES-deep cp.async pipeline (16-byte copies with the bytes past an edge zero-filled: any M, N, K;
 * rows must be 16-byte aligned, which the launcher ensures by packing), fragments by ldmatrix (16-bit types; .trans
 * for an M- or N-inner operand) or 32-bit shared loads (TF32), rows padded by 16 bytes so neither conflicts in the
 * banks. Epilogue: alpha * acc + beta * C in f32, written as f32 or the input type (nearest even).
 * This is the kernel on every architecture from sm_80 but Hopper, where gemm_wgmma.cu's wgmma / TMA kernels run
 * (docs/design/matrix.md).
 */
#ifndef GP_GEMM_TC_CUH
#define GP_GEMM_TC_CUH

#include "../core/half.h"

#include <stdint.h>

namespace gemmtc {

enum { P_TF32 = 1, P_BF16 = 2, P_FP16 = 3 };
constexpr int BM = 128, BN = 128, THREADS = 256, STAGES = 4;

template <int P> struct Cfg {
    static constexpr int ES = P == P_TF32 ? 4 : 2;       /* input element bytes */
    static constexpr int BK = 64 / ES;                    /* K per stage: 64 bytes of a row */
    static constexpr int KS = P == P_TF32 ? 8 : 16;       /* K per mma */
    static constexpr int PK = 16 / ES;                    /* padding of a K-inner row (16 bytes) */
    static constexpr int PM = P == P_TF32 ? 8 : 8;        /* padding of an M/N-inner row (elements) */
    static constexpr int LDK = BK + PK;                   /* K-inner row pitch (elements) */
    static constexpr int LDM = BM + PM;                   /* M/N-inner row pitch (elements) */
    static constexpr int TILE_K = BM * LDK, TILE_M = BK * LDM; /* one operand's stage, elements */
};

template <int P> constexpr size_t smem_bytes(bool ak, bool bk)
{
    typedef Cfg<P> C;
    return (size_t)STAGES * ((ak ? C::TILE_K : C::TILE_M) + (bk ? C::TILE_K : C::TILE_M)) * C::ES;
}

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* 16 bytes global -> shared, `bytes` of them read (0..16), the rest zero-filled */
__device__ __forceinline__ void cp16(void *dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(bytes));
}

__device__ __forceinline__ void ldsm_x4(unsigned *r, const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x4_t(unsigned *r, const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

/* TF32 as the wgmma path reads it (gp__f32_to_tf32: the low 13 bits dropped), explicit here so every architecture
 * gives the same bits */
__device__ __forceinline__ unsigned to_tf32(float f) { return __float_as_uint(f) & 0xffffe000u; }

template <int P> __device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
{
    if constexpr (P == P_TF32) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else if constexpr (P == P_BF16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

/* One operand's stage: R rows (of the block tile) x the K range [k0, k0 + BK), from X (ld elements per row). KIN:
 * rows are along M (or N) and K is contiguous; else rows are along K and M (N) is contiguous. R0: the tile's first
 * row or column (m0 / n0), RN: M (N). Every thread issues its share of the 16-byte copies. */
template <int P, bool KIN>
__device__ __forceinline__ void load_stage(char *s, const char *X, size_t ld, size_t r0, size_t RN, size_t k0, size_t K)
{
    typedef Cfg<P> C;
    constexpr int ES = C::ES, CPR = KIN ? 64 / 16 : BM * ES / 16; /* 16-byte chunks per smem row */
    constexpr int CH = (KIN ? BM : C::BK) * CPR;                   /* chunks per stage: 512 */
    static_assert(CH % THREADS == 0, "whole chunks per thread");
#pragma unroll
    for (int i = 0; i < CH / THREADS; i++) {
        const int c = threadIdx.x + i * THREADS, row = c / CPR, col = (c % CPR) * (16 / ES);
        size_t gr, gc, glim; /* global row, column, the column limit */
        bool rowok;
        if (KIN) {
            gr = r0 + row, gc = k0 + col, glim = K, rowok = gr < RN;
        } else {
            gr = k0 + row, gc = r0 + col, glim = RN, rowok = gr < K;
        }
        int bytes = 0;
        if (rowok && gc < glim) bytes = glim - gc >= (size_t)(16 / ES) ? 16 : (int)((glim - gc) * ES);
        const char *src = bytes ? X + (gr * ld + gc) * ES : X;
        char *dst = s + ((size_t)row * (KIN ? C::LDK : C::LDM) + col) * ES;
        cp16(dst, src, bytes);
    }
}

template <int P, bool AK, bool BK, typename OT>
__global__ void __launch_bounds__(THREADS, 2)
    gemm_mma(size_t M, size_t N, size_t K, float alpha, const void *__restrict__ Av, size_t lda,
             const void *__restrict__ Bv, size_t ldb, float beta, OT *__restrict__ Cm, size_t ldc, unsigned tiles_m,
             unsigned tiles_n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap(); /* the launcher refuses devices before sm_80 */
#else
    typedef Cfg<P> C;
    constexpr int ES = C::ES;
    constexpr int A_ST = AK ? C::TILE_K : C::TILE_M, B_ST = BK ? C::TILE_K : C::TILE_M; /* elements per stage */
    extern __shared__ __align__(16) char smem[];
    char *sA = smem, *sB = smem + (size_t)STAGES * A_ST * ES;
    const char *A = (const char *)Av, *B = (const char *)Bv;

    /* grouped order: 8 row tiles share their column tiles in L2 */
    const unsigned bid = blockIdx.x, group = 8, per_group = group * tiles_n;
    const unsigned g0 = bid / per_group * group, gsz = tiles_m - g0 < group ? tiles_m - g0 : group;
    const unsigned tm = g0 + (bid % per_group) % gsz, tn = (bid % per_group) / gsz;
    const size_t m0 = (size_t)tm * BM, n0 = (size_t)tn * BN;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wm = warp >> 2, wn = warp & 3;
    const int g = lane >> 2, t = lane & 3;
    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int q = 0; q < 4; q++) acc[i][j][q] = 0.0f;

    const size_t KT = (K + C::BK - 1) / C::BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if ((size_t)s < KT) {
            load_stage<P, AK>(sA + (size_t)s * A_ST * ES, A, lda, m0, M, (size_t)s * C::BK, K);
            load_stage<P, BK>(sB + (size_t)s * B_ST * ES, B, ldb, n0, N, (size_t)s * C::BK, K);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    }
    for (size_t kt = 0; kt < KT; kt++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        __syncthreads();
        {
            const size_t nk = kt + STAGES - 1;
            if (nk < KT) {
                const int st = (int)(nk % STAGES);
                load_stage<P, AK>(sA + (size_t)st * A_ST * ES, A, lda, m0, M, nk * C::BK, K);
                load_stage<P, BK>(sB + (size_t)st * B_ST * ES, B, ldb, n0, N, nk * C::BK, K);
            }
            asm volatile("cp.async.commit_group;\n" ::);
        }
        const int st = (int)(kt % STAGES);
        const char *a_s = sA + (size_t)st * A_ST * ES, *b_s = sB + (size_t)st * B_ST * ES;
#pragma unroll
        for (int kk = 0; kk < C::BK; kk += C::KS) {
            unsigned af[4][4], bf[4][2];
            if constexpr (P == P_TF32) {
                const float *fa = (const float *)a_s, *fb = (const float *)b_s;
#pragma unroll
                for (int mi = 0; mi < 4; mi++) {
                    const int m = wm * 64 + mi * 16 + g;
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        const int mm = m + (q & 1) * 8, k = kk + t + (q >> 1) * 4;
                        af[mi][q] = to_tf32(AK ? fa[mm * C::LDK + k] : fa[k * C::LDM + mm]);
                    }
                }
#pragma unroll
                for (int nj = 0; nj < 4; nj++) {
                    const int n = wn * 32 + nj * 8 + g;
#pragma unroll
                    for (int q = 0; q < 2; q++) {
                        const int k = kk + t + q * 4;
                        bf[nj][q] = to_tf32(BK ? fb[n * C::LDK + k] : fb[k * C::LDM + n]);
                    }
                }
            } else {
                const uint16_t *ha = (const uint16_t *)a_s, *hb = (const uint16_t *)b_s;
                const int q = lane >> 3, r = lane & 7;
#pragma unroll
                for (int mi = 0; mi < 4; mi++) {
                    const int mb = wm * 64 + mi * 16;
                    if (AK) ldsm_x4(af[mi], ha + (mb + (lane & 15)) * C::LDK + kk + (lane >> 4) * 8);
                    else ldsm_x4_t(af[mi], ha + (kk + r + (q >> 1) * 8) * C::LDM + mb + (q & 1) * 8);
                }
#pragma unroll
                for (int p = 0; p < 2; p++) {
                    const int nb = wn * 32 + p * 16;
                    unsigned rr[4];
                    if (BK) ldsm_x4(rr, hb + (nb + (q >> 1) * 8 + r) * C::LDK + kk + (q & 1) * 8);
                    else ldsm_x4_t(rr, hb + (kk + r + (q & 1) * 8) * C::LDM + nb + (q >> 1) * 8);
                    bf[2 * p][0] = rr[0], bf[2 * p][1] = rr[1], bf[2 * p + 1][0] = rr[2], bf[2 * p + 1][1] = rr[3];
                }
            }
#pragma unroll
            for (int mi = 0; mi < 4; mi++)
#pragma unroll
                for (int nj = 0; nj < 4; nj++) mma<P>(acc[mi][nj], af[mi], bf[nj]);
        }
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");

    /* epilogue: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1) of each 16 x 8 tile */
#pragma unroll
    for (int mi = 0; mi < 4; mi++)
#pragma unroll
        for (int nj = 0; nj < 4; nj++)
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const size_t i = m0 + wm * 64 + mi * 16 + g + (q >> 1) * 8, j = n0 + wn * 32 + nj * 8 + 2 * t + (q & 1);
                if (i >= M || j >= N) continue;
                OT *c = Cm + i * ldc + j;
                float v = alpha * acc[mi][nj][q];
                if (beta != 0.0f) {
                    float old;
                    if constexpr (sizeof(OT) == 4) old = *c;
                    else if constexpr (P == P_BF16) old = gp__bf16_bits_to_f32(*c);
                    else old = gp__f16_bits_to_f32(*c);
                    v = fmaf(beta, old, v);
                }
                if constexpr (sizeof(OT) == 4) *c = v;
                else if constexpr (P == P_BF16) *c = gp__f32_to_bf16(v);
                else *c = gp__f32_to_f16(v);
            }
#endif
}

} // namespace gemmtc

#endif
