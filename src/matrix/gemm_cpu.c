/*
 * gemm_cpu.c — the CPU backend of gp_gemm: a packed, blocked GEMM in the GotoBLAS/BLIS layering (Goto and van de
 * Geijn, "Anatomy of high-performance matrix multiplication", TOMS 2008): B' in KC x NC panels and A' in MC x KC
 * blocks, both packed into slivers of NR columns / MR rows, and a register-blocked MR x NR micro-kernel over them.
 * x86-64 CPUs with AVX-512F, or AVX2 and FMA (checked at run time), get an intrinsics micro-kernel; elsewhere a
 * portable one.
 *
 * Arithmetic: products accumulate in the operand type with fused multiply-adds, in order of l within each KC block;
 * the blocks are added into C one after another (C = alpha * AB_0 + beta * C, then C += alpha * AB_p) — the
 * accuracy of a BLAS (error within the (4 sqrt(k) + 8) u bound the tests check), not bitwise the GPU's.
 * Threads (OpenMP, one team for the whole call): B panels and A blocks are packed cooperatively, then the team
 * splits the (NR sliver, MR sliver) pairs of the block, so small M or small N still use every thread.
 */
#include "matrix_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MR 6
#ifndef GP_GEMM_KC /* -D to tune (bench/tune/gemm_cpu_tune.sh) */
#define GP_GEMM_KC 384
#endif
#define KC GP_GEMM_KC
#ifndef GP_GEMM_MC
#define GP_GEMM_MC 144 /* a multiple of MR */
#endif
#define MC GP_GEMM_MC

typedef struct gemm_type {
    size_t es, nr, nc;
    /* C tile (mr x nr valid of MR x nr) = alpha * a b + beta * C; beta == 0 never reads C */
    void (*kernel)(size_t kc, const void *a, const void *b, void *c, size_t ldc, size_t mr, size_t nr, double alpha,
                   double beta);
} gemm_type_t;


/* Sliver of the A block (rows i0 .. i0+mr, depth pc .. pc+kc): element (r, l) at dst[l*MR + r], zero-padded to MR.
 * Sliver of the B panel (columns j0 .. j0+nr): element (l, c) at dst[l*nrf + c], zero-padded to nrf. Each reads its
 * operand along its storage: rows through MR (nrf) row pointers, or contiguous runs. */
#define PACKERS(T, SFX, NR) /* NR: the portable kernel's width */                                                    \
    static void pack_a_##SFX(T *dst, const gp__gemm_t *g, size_t i0, size_t mr, size_t pc, size_t kc)                \
    {                                                                                                                \
        const T *A = g->A;                                                                                           \
        if (g->a_kin) { /* A'(i, l) = A[i*lda + l]: MR row pointers */                                              \
            const T *row[MR];                                                                                        \
            for (size_t r = 0; r < MR; r++) row[r] = r < mr ? A + (i0 + r) * g->lda + pc : NULL;                     \
            if (mr == MR) {                                                                                          \
                for (size_t l = 0; l < kc; l++)                                                                      \
                    for (size_t r = 0; r < MR; r++) dst[l * MR + r] = row[r][l];                                     \
            } else {                                                                                                 \
                for (size_t l = 0; l < kc; l++)                                                                      \
                    for (size_t r = 0; r < MR; r++) dst[l * MR + r] = r < mr ? row[r][l] : (T)0;                     \
            }                                                                                                        \
        } else { /* A'(i, l) = A[l*lda + i]: a run of mr per l */                                                    \
            for (size_t l = 0; l < kc; l++) {                                                                        \
                const T *src = A + (pc + l) * g->lda + i0;                                                           \
                for (size_t r = 0; r < MR; r++) dst[l * MR + r] = r < mr ? src[r] : (T)0;                            \
            }                                                                                                        \
        }                                                                                                            \
    }                                                                                                                \
    static void pack_b_##SFX(T *dst, const gp__gemm_t *g, size_t j0, size_t nr, size_t pc, size_t kc, size_t nrf)    \
    {                                                                                                                \
        const T *B = g->B;                                                                                           \
        if (g->b_kin) { /* B'(l, j) = B[j*ldb + l]: nr column pointers */                                           \
            for (size_t c = 0; c < nrf; c++) {                                                                       \
                const T *col = c < nr ? B + (j0 + c) * g->ldb + pc : NULL;                                           \
                for (size_t l = 0; l < kc; l++) dst[l * nrf + c] = col ? col[l] : (T)0;                              \
            }                                                                                                        \
        } else { /* B'(l, j) = B[l*ldb + j]: a run of nr per l */                                                    \
            for (size_t l = 0; l < kc; l++) {                                                                        \
                memcpy(dst + l * nrf, B + (pc + l) * g->ldb + j0, nr * sizeof(T));                                   \
                for (size_t c = nr; c < nrf; c++) dst[l * nrf + c] = (T)0;                                           \
            }                                                                                                        \
        }                                                                                                            \
    }                                                                                                                \
    /* the acc tile (rows of nrf) into C (mr x nr valid) */                                                          \
    static void store_##SFX(const T *acc, size_t nrf, T *c, size_t ldc, size_t mr, size_t nr, T alpha, T beta)       \
    {                                                                                                                \
        for (size_t r = 0; r < mr; r++)                                                                              \
            for (size_t j = 0; j < nr; j++) {                                                                        \
                T *p = c + r * ldc + j;                                                                              \
                *p = beta == (T)0 ? alpha * acc[r * nrf + j] : alpha * acc[r * nrf + j] + beta * *p;                 \
            }                                                                                                        \
    }                                                                                                                \
    /* portable micro-kernel: MR x NR accumulators the compiler keeps in vector registers */                         \
    static void kernel_##SFX##_c(size_t kc, const void *av, const void *bv, void *cv, size_t ldc, size_t mr,         \
                                 size_t nr, double alpha, double beta)                                               \
    {                                                                                                                \
        const T *a = av, *b = bv;                                                                                    \
        T acc[MR * NR];                                                                                              \
        memset(acc, 0, sizeof acc);                                                                                  \
        for (size_t l = 0; l < kc; l++)                                                                              \
            for (size_t r = 0; r < MR; r++)                                                                          \
                for (size_t j = 0; j < NR; j++) acc[r * NR + j] += a[l * MR + r] * b[l * NR + j];                    \
        store_##SFX(acc, NR, cv, ldc, mr, nr, (T)alpha, (T)beta);                                                        \
    }

PACKERS(float, f32, 16)
PACKERS(double, f64, 8)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GP_GEMM_AVX2 1
/* The 6 x 2 vector accumulators are named variables, not an array: an array whose address is taken (the edge
 * store) would be kept in memory and reloaded at every step. One kernel per (ISA, type): E the element type, V the
 * vector type, W its lanes, P/S the intrinsics' prefix and suffix (_mm256 / _mm512, ps / pd). */
#define UK_OP(P, OP, S) P##_##OP##_##S
#define UK_STEP(R, P, S) x = UK_OP(P, set1, S)(a[(R)]), c##R##0 = UK_OP(P, fmadd, S)(x, b0, c##R##0),                       \
                   c##R##1 = UK_OP(P, fmadd, S)(x, b1, c##R##1)
#define UK_STORE(R, E, W, P, S)                                                                                                \
    do {                                                                                                             \
        if (full) {                                                                                                  \
            E *p = C + (size_t)(R) * ldc;                                                                            \
            if (beta == 0.0) {                                                                                       \
                UK_OP(P, storeu, S)(p, UK_OP(P, mul, S)(al, c##R##0));                                               \
                UK_OP(P, storeu, S)(p + W, UK_OP(P, mul, S)(al, c##R##1));                                           \
            } else {                                                                                                 \
                UK_OP(P, storeu, S)(p, UK_OP(P, fmadd, S)(al, c##R##0, UK_OP(P, mul, S)(be, UK_OP(P, loadu, S)(p))));  \
                UK_OP(P, storeu, S)(p + W, UK_OP(P, fmadd, S)(al, c##R##1,                                           \
                                                              UK_OP(P, mul, S)(be, UK_OP(P, loadu, S)(p + W))));     \
            }                                                                                                        \
        } else {                                                                                                     \
            UK_OP(P, storeu, S)(acc + (R) * 2 * W, c##R##0), UK_OP(P, storeu, S)(acc + (R) * 2 * W + W, c##R##1);    \
        }                                                                                                            \
    } while (0)
#define UK_KERNEL(NAME, TARGET, SFX, E_, V_, W_, P_, S_)                                                             \
    __attribute__((target(TARGET))) static void NAME(size_t kc, const void *av, const void *bv, void *cv,           \
                                                     size_t ldc, size_t mr, size_t nr, double alpha, double beta)    \
    {                                                                                                                \
        UK_BODY(SFX, E_, V_, W_, P_, S_);                                                                            \
    }
#define UK_BODY(SFX, E, V, W, P, S)                                                                                  \
    const E *a = av, *b = bv;                                                                                        \
    V c00 = UK_OP(P, setzero, S)(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00,     \
      c40 = c00, c41 = c00, c50 = c00, c51 = c00, x;                                                                 \
    for (size_t l = 0; l < kc; l++, a += MR, b += 2 * W) {                                                           \
        const V b0 = UK_OP(P, loadu, S)(b), b1 = UK_OP(P, loadu, S)(b + W);                                          \
        UK_STEP(0, P, S), UK_STEP(1, P, S), UK_STEP(2, P, S), UK_STEP(3, P, S), UK_STEP(4, P, S), UK_STEP(5, P, S);                                      \
    }                                                                                                                \
    E *C = cv, acc[MR * 2 * W];                                                                                      \
    const V al = UK_OP(P, set1, S)((E)alpha), be = UK_OP(P, set1, S)((E)beta);                                       \
    const int full = mr == MR && nr == 2 * W;                                                                        \
    UK_STORE(0, E, W, P, S); UK_STORE(1, E, W, P, S); UK_STORE(2, E, W, P, S);                                    \
    UK_STORE(3, E, W, P, S); UK_STORE(4, E, W, P, S); UK_STORE(5, E, W, P, S);                                    \
    if (!full) store_##SFX(acc, 2 * W, C, ldc, mr, nr, (E)alpha, (E)beta)

UK_KERNEL(kernel_f32_avx2, "avx2,fma", f32, float, __m256, 8, _mm256, ps)   /* 6 x 16 */
UK_KERNEL(kernel_f64_avx2, "avx2,fma", f64, double, __m256d, 4, _mm256, pd) /* 6 x 8 */
/* AVX-512: 6 x 32 f32 and 6 x 16 f64 (half the instructions of AVX2 for the same work; on cores with two 512-bit
 * FMA pipes, twice the rate) */
UK_KERNEL(kernel_f32_avx512, "avx512f", f32, float, __m512, 16, _mm512, ps)
UK_KERNEL(kernel_f64_avx512, "avx512f", f64, double, __m512d, 8, _mm512, pd)
#endif

int gp__gemm_cpu_max_isa = 2;

/* 2: AVX-512F, 1: AVX2 + FMA, 0: the portable kernel */
static int isa_level(void)
{
#ifdef GP_GEMM_AVX2
    if (gp__gemm_cpu_max_isa >= 2 && __builtin_cpu_supports("avx512f")) return 2;
    if (gp__gemm_cpu_max_isa >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
    return 0;
}

const char *gp__gemm_cpu_kernel_name(void)
{
    static const char *names[] = {"portable 6x16 / 6x8", "AVX2+FMA 6x16 / 6x8", "AVX-512 6x32 / 6x16"};
    return names[isa_level()];
}

/* K == 0 or alpha == 0: C = beta C (beta == 0: zeros, C not read). */
static void scale_c(int f64, const gp__gemm_t *g)
{
    for (size_t i = 0; i < g->M; i++)
        for (size_t j = 0; j < g->N; j++) {
            const size_t off = i * g->ldc + j;
            if (f64) {
                double *c = (double *)g->C + off;
                *c = g->beta == 0.0 ? 0.0 : g->beta * *c;
            } else {
                float *c = (float *)g->C + off;
                *c = g->beta == 0.0 ? 0.0f : (float)g->beta * *c;
            }
        }
}

gp_status_t gp__gemm_cpu(gp_dtype_t dtype, const gp__gemm_t *g, int parallel)
{
    const int f64 = dtype == GP_F64;
    if (g->M == 0 || g->N == 0) return GP_OK;
    if (g->K == 0 || g->alpha == 0.0) {
        scale_c(f64, g);
        return GP_OK;
    }
    gemm_type_t t;
    const int isa = isa_level();
    t.es = f64 ? 8 : 4;
    t.nr = (f64 ? 8 : 16) << (isa == 2);
    t.nc = f64 ? 2048 : 4096;
    t.kernel = f64 ? kernel_f64_c : kernel_f32_c;
#ifdef GP_GEMM_AVX2
    if (isa == 1) t.kernel = f64 ? kernel_f64_avx2 : kernel_f32_avx2;
    if (isa == 2) t.kernel = f64 ? kernel_f64_avx512 : kernel_f32_avx512;
#endif
    const size_t M = g->M, N = g->N, K = g->K, nc_max = N < t.nc ? (N + t.nr - 1) / t.nr * t.nr : t.nc;
    const size_t kc_max = K < KC ? K : KC, mc_max = M < MC ? (M + MR - 1) / MR * MR : MC;
    size_t work;
    if (!gp__mul_ok(M, N, &work) || !gp__mul_ok(work, K, &work)) work = (size_t)-1;
    const int par = gp__cpu_par(parallel, work);
    void *bp = malloc(kc_max * nc_max * t.es), *ap = malloc(kc_max * mc_max * t.es);
    if (bp == NULL || ap == NULL) {
        free(bp), free(ap);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_gemm: CPU backend: no memory for the packed panels");
    }
#pragma omp parallel if (par)
    for (size_t jc = 0; jc < N; jc += t.nc) {
        const size_t nc = N - jc < t.nc ? N - jc : t.nc, nslb = (nc + t.nr - 1) / t.nr;
        for (size_t pc = 0; pc < K; pc += KC) {
            const size_t kc = K - pc < KC ? K - pc : KC;
            const double beta = pc == 0 ? g->beta : 1.0;
#pragma omp for schedule(static)
            for (long long s = 0; s < (long long)nslb; s++) {
                const size_t j0 = jc + (size_t)s * t.nr, nr = jc + nc - j0 < t.nr ? jc + nc - j0 : t.nr;
                char *dst = (char *)bp + (size_t)s * t.nr * kc * t.es;
                if (f64) pack_b_f64((double *)dst, g, j0, nr, pc, kc, t.nr);
                else pack_b_f32((float *)dst, g, j0, nr, pc, kc, t.nr);
            }
            for (size_t ic = 0; ic < M; ic += MC) {
                const size_t mc = M - ic < MC ? M - ic : MC, nsla = (mc + MR - 1) / MR;
#pragma omp for schedule(static)
                for (long long s = 0; s < (long long)nsla; s++) {
                    const size_t i0 = ic + (size_t)s * MR, mr = ic + mc - i0 < MR ? ic + mc - i0 : MR;
                    char *dst = (char *)ap + (size_t)s * MR * kc * t.es;
                    if (f64) pack_a_f64((double *)dst, g, i0, mr, pc, kc);
                    else pack_a_f32((float *)dst, g, i0, mr, pc, kc);
                }
#pragma omp for schedule(static)
                for (long long q = 0; q < (long long)(nslb * nsla); q++) {
                    const size_t sb = (size_t)q / nsla, sa = (size_t)q % nsla;
                    const size_t i0 = ic + sa * MR, j0 = jc + sb * t.nr;
                    const size_t mr = ic + mc - i0 < MR ? ic + mc - i0 : MR, nr = jc + nc - j0 < t.nr ? jc + nc - j0 : t.nr;
                    t.kernel(kc, (const char *)ap + sa * MR * kc * t.es, (const char *)bp + sb * t.nr * kc * t.es,
                             (char *)g->C + (i0 * g->ldc + j0) * t.es, g->ldc, mr, nr, g->alpha, beta);
                }
            }
        }
    }
    free(bp), free(ap);
    return GP_OK;
}
