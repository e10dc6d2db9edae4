/*
 * matrix_internal.h — what src/matrix shares: the physical view of a matrix (its storage rows) and the backends.
 */
#ifndef GP_MATRIX_INTERNAL_H
#define GP_MATRIX_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A matrix as stored: prows storage rows of pcols elements, ld elements apart (row-major: rows x cols; column-major:
 * cols x rows). */
typedef struct gp__phys {
    char *data;
    size_t prows, pcols, ld, es;
} gp__phys_t;

/* out[q][p] = in[p][q] for p < in.prows, q < in.pcols (out: in.pcols x in.prows). */
GP_INTERNAL gp_status_t gp__transpose_gpu(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in,
                                          cudaStream_t stream);
GP_INTERNAL void gp__transpose_cpu(const gp__phys_t *out, const gp__phys_t *in);

/* The transpose versions are TV<NN> of transpose_kernels.cuh (the lab's table: lab/transpose_versions.cu); the one
 * gp_matrix_transpose runs on a GPU (transpose.cu) is this one. Promote another by moving its template from the lab and changing the number. */
#define GP__TRANSPOSE_PRODUCTION 21

/* C = alpha * A + beta * B on storage: C is P x Q (ldc); A (B) is stored like C when a_t (b_t) is 0, else
 * transposed (element (p, q) at q * ld + p). use_a / use_b 0: that operand is not read (its factor is 0).
 * Floats: fma(alpha, a, beta * b) in the dtype; integers: modulo 2^bits with alpha, beta as wrapped integers. */
typedef struct gp__add {
    size_t P, Q;
    const char *A, *B;
    char *C;
    size_t lda, ldb, ldc;
    int a_t, b_t, use_a, use_b;
    double alpha, beta;
} gp__add_t;
GP_INTERNAL gp_status_t gp__add_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__add_t *a, cudaStream_t stream);
GP_INTERNAL void gp__add_cpu(gp_dtype_t dtype, const gp__add_t *a);

/* GEMM in canonical form (gemm_kernels.cuh): C (M x N, row-major storage, ldc) = alpha * A' B' + beta * C;
 * A' (i, l) at A[i*lda + l] if a_kin else A[l*lda + i]; B' (l, j) at B[j*ldb + l] if b_kin else B[l*ldb + j].
 * beta == 0: C is not read. */
typedef struct gp__gemm {
    size_t M, N, K;
    const void *A, *B;
    void *C;
    size_t lda, ldb, ldc;
    int a_kin, b_kin;
    double alpha, beta;
} gp__gemm_t;
/* How the launcher covers a problem: tiles in x, K split into S ranges of Kc in y (S > 1: slices into W, summed by a
 * second kernel). */
typedef struct gp__gemm_grid {
    unsigned grid;
    int S;
    size_t K, Kc;
    void *W;
} gp__gemm_grid_t;
/* One f32 / f64 GEMM kernel as gp__gemm_gpu runs it (instantiated from gemm_launch.cuh): its block tile, the blocks
 * an SM holds (the split of K fills sm_count x per_sm), what it needs of the operands, and what runs instead where
 * that fails. The library holds production's kernels alone (gemm.cu's tuning table); the lab's variants are more
 * of the same (lab/gemm_variants.cu), numbered as docs/design/matrix.md numbers them. */
enum { GP__GEMM_ROWS16 = 1, /* operands' rows 16-byte aligned (after packing) */
       GP__GEMM_AK_BN = 2   /* A K-inner and B N-inner */ };
typedef struct gp__gemm_kernel {
    int number;
    const char *name;
    gp_dtype_t dtype;
    unsigned bm, bn;
    int per_sm;
    int needs;
    const struct gp__gemm_kernel *fallback;
    gp_status_t (*launch)(const gp__gemm_t *g, const gp__gemm_grid_t *grid, cudaStream_t stream);
} gp__gemm_kernel_t;
/* kernel NULL: production's choice (the tuning table; operands packed to aligned rows and K split where that
 * pays); else that kernel alone, as the caller stored the operands, K unsplit (its fallback where its needs fail). */
GP_INTERNAL gp_status_t gp__gemm_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__gemm_t *g,
                                     const gp__gemm_kernel_t *kernel, cudaStream_t stream);
/* Production's kernels by number (NULL for any other): what the lab's and the tests' tables take from the library. */
GP_INTERNAL const gp__gemm_kernel_t *gp__gemm_kernel_production(gp_dtype_t dtype, int number);
/* The kernel production runs for a dtype and n (before any fallback): the lab marks it. */
GP_INTERNAL const gp__gemm_kernel_t *gp__gemm_kernel_pick(gp_dtype_t dtype, size_t n);
GP_INTERNAL gp_status_t gp__gemm_cpu(gp_dtype_t dtype, const gp__gemm_t *g, int parallel);
/* A strided batch of GEMMs in canonical form: count problems, operand i at A + i sa, B + i sb, C + i sc (elements;
 * 0 = one matrix for all). NULL or count 1: one GEMM. */
typedef struct gp__batch {
    size_t count, sa, sb, sc;
} gp__batch_t;
/* gp_gemm_ex's TF32 / BF16 / FP16 (canonical form; cdt: C's dtype, f32 or the inputs' 16-bit type): the tensor-core
 * kernels of gemm_tc.cuh, and the CPU backend (gemm_tc_cpu.c: the inputs as the tensor cores take them, in f64, one rounding at the end). */
GP_INTERNAL gp_status_t gp__gemm_tc_gpu(gp_ctx_t *ctx, gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g,
                                        const gp__batch_t *bt, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__gemm_tc_cpu(gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g);
/* gemm_wgmma.cu (sm_90a, built when GP_HAVE_WGMMA): TF32 / BF16 / FP16 on wgmma; g's operands K-major, rows
 * 16-byte aligned (TF32: as stored); K = 0 when alpha is 0. kind: GP__WG_CPASYNC the cp.async-fed kernel; else the TMA +
 * mbarrier kernel with producer / consumer warpgroups, its block tile and cluster named (GP__WG_AUTO: chosen by
 * gp__gemm_wgmma_pick for the problem on a GPU of sms SMs). bt (count <= 65535, strides of 16-byte multiples): a
 * batch in one launch, one grid row per problem. */
enum {
    GP__WG_CPASYNC = 0,
    GP__WG_AUTO = 1,
    GP__WG_TMA_128x256 = 3,
    GP__WG_TMA_128x128 = 4,      /* two blocks per SM */
    GP__WG_TMA_128x256_C2 = 5,   /* clusters of two blocks sharing (multicasting) their B tile */
    GP__WG_TMA_128x128_C2 = 6,
    GP__WG_TMA_128x256_P = 7     /* a persistent grid: one block per SM, each taking every sms-th tile */
};
GP_INTERNAL gp_status_t gp__gemm_wgmma(gp_gemm_precision_t prec, gp_dtype_t cdt, const gp__gemm_t *g, size_t K,
                                       const gp__batch_t *bt, int kind, int sms, unsigned splits, float *ws,
                                       cudaStream_t stream);
/* The production choice (gemm_tc.cu): the TMA kernel's shape for an M x N problem, and in how many ranges its K is
 * split (splits > 1: the TMA kernel writes splits x count x M x N f32 partials into ws, a second kernel sums them in
 * order; es: bytes per input element). Both depend on the problem alone, never on a batch's size. */
GP_INTERNAL int gp__gemm_wgmma_pick(size_t M, size_t N, int sms);
/* the TMA kernel's shape for a batch of count such problems in one launch: 128 x 256 where the batch's tiles fill two
 * waves (the shape never changes the bits; the split of K stays the one-problem choice) */
GP_INTERNAL int gp__gemm_wgmma_pick_batch(size_t M, size_t N, size_t count, int sms);
GP_INTERNAL unsigned gp__gemm_wgmma_splits(size_t M, size_t N, size_t K, size_t es, int sms);
/* Whether gp__gemm_wgmma takes the TMA kernel for g (kind not GP__WG_CPASYNC, K > 0, sizes within its 32-bit
 * coordinates): only that kernel reads an N-inner 16-bit B directly (b_kin 0). */
GP_INTERNAL int gp__gemm_wgmma_tma_ok(const gp__gemm_t *g, size_t K, int kind);
/* Which tensor-core kernel gp_gemm_ex / gp_gemm_batched run on sm_90 for this context: 0 the production choice
 * (wgmma fed by TMA, shape by gp__gemm_wgmma_pick), 1 mma.sync, 2 wgmma fed by cp.async, 3..7 the TMA kernel with the
 * GP__WG_TMA_* shape of that number. A plan kept on the context (the tests run them all; the lab times them);
 * set returns GP_ERR_INVALID_ARG outside 0..7. */
GP_INTERNAL gp_status_t gp__gemm_tc_plan_set(gp_ctx_t *ctx, int kernel);
GP_INTERNAL int gp__gemm_tc_plan(gp_ctx_t *ctx);
/* gemm_cpu.c: the widest micro-kernel allowed (2 AVX-512, 1 AVX2+FMA, 0 portable; tests lower it), and the one in
 * use */
GP_INTERNAL extern int gp__gemm_cpu_max_isa;
GP_INTERNAL const char *gp__gemm_cpu_kernel_name(void);


/* The family's GPU launchers (transpose.cu, add.cu, gemm.cu), reached through this table: core/backend.h */
typedef struct gp__matrix_gpu_ops {
    __typeof__(gp__transpose_gpu) *transpose;
    __typeof__(gp__add_gpu) *add;
    __typeof__(gp__gemm_gpu) *gemm;
    __typeof__(gp__gemm_tc_gpu) *gemm_tc;
    __typeof__(gp__gemm_kernel_production) *gemm_production;
    __typeof__(gp__gemm_kernel_pick) *gemm_pick;
} gp__matrix_gpu_ops_t;
GP_INTERNAL extern const gp__matrix_gpu_ops_t gp__matrix_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
