/*
 * gemm_versions.cu — the SGEMM progression from the primers' kernels to production as numbered versions of one job
 * (C = A B, row-major packed f32: A M x K, B K x N, C M x N) and their table, the only list of them.
 * `gpuprim lab gemm` checks each against a float64 reference and times them; versions 08-10 run the GEMM kernels of
 * the same numbers through the library's launcher (lab_gemm_kernel). Version 10 is production's kernel for rows not
 * 16-byte aligned; the kernels production runs otherwise are among `gpuprim lab gemm --variants`.
 * Every version takes any M, N, K (edges guarded, tiles zero-filled).
 */
#include "lab_versions.h"
#include "matrix/matrix_internal.h"

#include <stdlib.h>

namespace {

/* Rows of a grid of 16 x 16 blocks: y covers at most 65535 blocks, so blocks stride over the rest. */
#define GP_ROWS_LOOP(r0, step, M) for (size_t r0 = (size_t)blockIdx.y * (step); r0 < (M); r0 += (size_t)gridDim.y * (step))

/* g01: the global-memory kernel with lanes along rows: every lane reads its own row of A (32 rows per load) and the
 * C writes are 32 rows apart: uncoalesced, each loaded sector serves one lane. */
__global__ void g01_global_uncoalesced(size_t M, size_t N, size_t K, const float *A, const float *B, float *C)
{
    GP_ROWS_LOOP(r0, 16, M)
    {
        const size_t row = r0 + threadIdx.x, col = (size_t)blockIdx.x * 16 + threadIdx.y;
        if (row >= M || col >= N) continue;
        float s = 0.0f;
        for (size_t l = 0; l < K; l++) s += A[row * K + l] * B[l * N + col];
        C[row * N + col] = s;
    }
}

/* g02: the primers' global-memory kernel (lanes along columns): B and C coalesced, A broadcast; every operand
 * element is fetched from L2/DRAM K times over. */
__global__ void g02_global_coalesced(size_t M, size_t N, size_t K, const float *A, const float *B, float *C)
{
    GP_ROWS_LOOP(r0, 16, M)
    {
        const size_t row = r0 + threadIdx.y, col = (size_t)blockIdx.x * 16 + threadIdx.x;
        if (row >= M || col >= N) continue;
        float s = 0.0f;
        for (size_t l = 0; l < K; l++) s += A[row * K + l] * B[l * N + col];
        C[row * N + col] = s;
    }
}

/* g03 / g04: the primers' shared-memory kernel: TS x TS sub-matrices of A and B staged in shared memory, each
 * element read from global memory N/TS (M/TS) times instead of N (M); one FMA per two shared loads. */
template <int TS> __global__ void g_smem_tiled(size_t M, size_t N, size_t K, const float *A, const float *B, float *C)
{
    __shared__ float As[TS][TS], Bs[TS][TS];
    GP_ROWS_LOOP(r0, TS, M)
    {
        const size_t row = r0 + threadIdx.y, col = (size_t)blockIdx.x * TS + threadIdx.x;
        float s = 0.0f;
        for (size_t l0 = 0; l0 < K; l0 += TS) {
            As[threadIdx.y][threadIdx.x] = row < M && l0 + threadIdx.x < K ? A[row * K + l0 + threadIdx.x] : 0.0f;
            Bs[threadIdx.y][threadIdx.x] = l0 + threadIdx.y < K && col < N ? B[(l0 + threadIdx.y) * N + col] : 0.0f;
            __syncthreads();
#pragma unroll
            for (int e = 0; e < TS; e++) s += As[threadIdx.y][e] * Bs[e][threadIdx.x];
            __syncthreads();
        }
        if (row < M && col < N) C[row * N + col] = s;
    }
}

/* g05: 1D register blocking: a 64 x 64 tile, BK 8, 512 threads, 8 results of one column per thread: each B value
 * loaded from shared memory serves 8 FMAs. */
__global__ void __launch_bounds__(512) g05_1d_blocking(size_t M, size_t N, size_t K, const float *A, const float *B, float *C)
{
    constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
    __shared__ float As[BM][BK], Bs[BK][BN];
    const size_t m0 = (size_t)blockIdx.y * BM, n0 = (size_t)blockIdx.x * BN;
    const int tid = threadIdx.x, tr = tid / BN, tc = tid % BN; /* this thread: rows tr*8 .. +7, column tc */
    const int ar = tid / BK, ac = tid % BK, br = tid / BN, bc = tid % BN;
    float acc[TM] = {0};
    for (size_t l0 = 0; l0 < K; l0 += BK) {
        As[ar][ac] = m0 + ar < M && l0 + ac < K ? A[(m0 + ar) * K + l0 + ac] : 0.0f;
        Bs[br][bc] = l0 + br < K && n0 + bc < N ? B[(l0 + br) * N + n0 + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            const float b = Bs[k][tc];
#pragma unroll
            for (int t = 0; t < TM; t++) acc[t] += As[tr * TM + t][k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int t = 0; t < TM; t++)
        if (m0 + tr * TM + t < M && n0 + tc < N) C[(m0 + tr * TM + t) * N + n0 + tc] = acc[t];
}

/* g06: 2D register blocking: 128 x 128 tile, BK 8, 256 threads, 8 x 8 results each: an outer product of 8 A and
 * 8 B values per k (16 shared loads for 64 FMAs). */
__global__ void __launch_bounds__(256) g06_2d_blocking(size_t M, size_t N, size_t K, const float *A, const float *B, float *C)
{
    constexpr int BM = 128, BN = 128, BK = 8, TT = 8;
    __shared__ float As[BM][BK], Bs[BK][BN];
    const size_t m0 = (size_t)blockIdx.y * BM, n0 = (size_t)blockIdx.x * BN;
    const int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
    float acc[TT][TT] = {{0}};
    for (size_t l0 = 0; l0 < K; l0 += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            const int r = e / BK, c = e % BK;
            As[r][c] = m0 + r < M && l0 + c < K ? A[(m0 + r) * K + l0 + c] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            const int r = e / BN, c = e % BN;
            Bs[r][c] = l0 + r < K && n0 + c < N ? B[(l0 + r) * N + n0 + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TT], b[TT];
#pragma unroll
            for (int i = 0; i < TT; i++) a[i] = As[tr * TT + i][k], b[i] = Bs[k][tc * TT + i];
#pragma unroll
            for (int i = 0; i < TT; i++)
#pragma unroll
                for (int j = 0; j < TT; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TT; i++)
        for (int j = 0; j < TT; j++)
            if (m0 + tr * TT + i < M && n0 + tc * TT + j < N) C[(m0 + tr * TT + i) * N + n0 + tc * TT + j] = acc[i][j];
}

/* g07: v06 with 16-byte loads: A's tile stored transposed (As[k][m]) so that fragments are float4 reads too; global
 * float4 loads where K and N are multiples of 4 (else scalar). Fragment reads of 8 consecutive values per thread
 * still collide in shared-memory banks across the warp. */
__global__ void __launch_bounds__(256) g07_vectorized(size_t M, size_t N, size_t K, const float *A, const float *B, float *C,
                                                      int vec)
{
    constexpr int BM = 128, BN = 128, BK = 8, TT = 8;
    __shared__ __align__(16) float As[BK][BM], Bs[BK][BN];
    const size_t m0 = (size_t)blockIdx.y * BM, n0 = (size_t)blockIdx.x * BN;
    const int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
    const int ar = tid / 2, ac = tid % 2 * 4, br = tid / 32, bc = tid % 32 * 4;
    float acc[TT][TT] = {{0}};
    for (size_t l0 = 0; l0 < K; l0 += BK) {
        float a[4], b[4];
        const size_t gr = m0 + ar, gk = l0 + ac;
        if (vec && gr < M && gk + 4 <= K) {
            const float4 v = *reinterpret_cast<const float4 *>(A + gr * K + gk);
            a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
        } else
            for (int j = 0; j < 4; j++) a[j] = gr < M && gk + j < K ? A[gr * K + gk + j] : 0.0f;
        for (int j = 0; j < 4; j++) As[ac + j][ar] = a[j];
        const size_t gl = l0 + br, gc = n0 + bc;
        if (vec && gl < K && gc + 4 <= N) {
            const float4 v = *reinterpret_cast<const float4 *>(B + gl * N + gc);
            b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
        } else
            for (int j = 0; j < 4; j++) b[j] = gl < K && gc + j < N ? B[gl * N + gc + j] : 0.0f;
        *reinterpret_cast<float4 *>(&Bs[br][bc]) = make_float4(b[0], b[1], b[2], b[3]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float x[TT], y[TT];
            const float4 x0 = *reinterpret_cast<const float4 *>(&As[k][tr * TT]), x1 = *reinterpret_cast<const float4 *>(&As[k][tr * TT + 4]);
            const float4 y0 = *reinterpret_cast<const float4 *>(&Bs[k][tc * TT]), y1 = *reinterpret_cast<const float4 *>(&Bs[k][tc * TT + 4]);
            x[0] = x0.x, x[1] = x0.y, x[2] = x0.z, x[3] = x0.w, x[4] = x1.x, x[5] = x1.y, x[6] = x1.z, x[7] = x1.w;
            y[0] = y0.x, y[1] = y0.y, y[2] = y0.z, y[3] = y0.w, y[4] = y1.x, y[5] = y1.y, y[6] = y1.z, y[7] = y1.w;
#pragma unroll
            for (int i = 0; i < TT; i++)
#pragma unroll
                for (int j = 0; j < TT; j++) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < TT; i++)
        for (int j = 0; j < TT; j++)
            if (m0 + tr * TT + i < M && n0 + tc * TT + j < N) C[(m0 + tr * TT + i) * N + n0 + tc * TT + j] = acc[i][j];
}

unsigned rows_grid(size_t M, size_t step) { const size_t g = (M + step - 1) / step; return g > 65535 ? 65535u : (unsigned)g; }

gp_status_t grid2d_ok(size_t M, size_t N, size_t bm, size_t bn, const char *v)
{
    if ((N + bn - 1) / bn > 0x7fffffffu || (M + bm - 1) / bm > 65535)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu x %zu is beyond its grid", v, M, N);
    return GP_OK;
}

gp_status_t run01(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    if (M == 0 || N == 0) return GP_OK;
    g01_global_uncoalesced<<<dim3((unsigned)((N + 15) / 16), rows_grid(M, 16)), dim3(16, 16), 0, s>>>(M, N, K, A, B, C);
    return GP_CHECK_LAUNCH("g01_global_uncoalesced");
}
gp_status_t run02(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    if (M == 0 || N == 0) return GP_OK;
    g02_global_coalesced<<<dim3((unsigned)((N + 15) / 16), rows_grid(M, 16)), dim3(16, 16), 0, s>>>(M, N, K, A, B, C);
    return GP_CHECK_LAUNCH("g02_global_coalesced");
}
template <int TS>
gp_status_t run_smem(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    if (M == 0 || N == 0) return GP_OK;
    g_smem_tiled<TS><<<dim3((unsigned)((N + TS - 1) / TS), rows_grid(M, TS)), dim3(TS, TS), 0, s>>>(M, N, K, A, B, C);
    return GP_CHECK_LAUNCH("g_smem_tiled");
}
gp_status_t run05(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    if (M == 0 || N == 0) return GP_OK;
    GP_TRY_RET(grid2d_ok(M, N, 64, 64, "gemm_v05"));
    g05_1d_blocking<<<dim3((unsigned)((N + 63) / 64), (unsigned)((M + 63) / 64)), 512, 0, s>>>(M, N, K, A, B, C);
    return GP_CHECK_LAUNCH("g05_1d_blocking");
}
gp_status_t run06(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    if (M == 0 || N == 0) return GP_OK;
    GP_TRY_RET(grid2d_ok(M, N, 128, 128, "gemm_v06"));
    g06_2d_blocking<<<dim3((unsigned)((N + 127) / 128), (unsigned)((M + 127) / 128)), 256, 0, s>>>(M, N, K, A, B, C);
    return GP_CHECK_LAUNCH("g06_2d_blocking");
}
gp_status_t run07(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    if (M == 0 || N == 0) return GP_OK;
    GP_TRY_RET(grid2d_ok(M, N, 128, 128, "gemm_v07"));
    const int vec = K % 4 == 0 && N % 4 == 0 && (uintptr_t)A % 16 == 0 && (uintptr_t)B % 16 == 0;
    g07_vectorized<<<dim3((unsigned)((N + 127) / 128), (unsigned)((M + 127) / 128)), 256, 0, s>>>(M, N, K, A, B, C, vec);
    return GP_CHECK_LAUNCH("g07_vectorized");
}
template <int VARIANT>
gp_status_t run_prod(gp_ctx_t *ctx, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t s)
{
    const gp__gemm_t g = {M, N, K, A, B, C, K, N, N, 1, 0, 1.0, 0.0};
    return gp__gemm_gpu(ctx, GP_F32, &g, lab_gemm_kernel(GP_F32, VARIANT), s);
}

gp_status_t cpu_serial(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t)
{
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) C[i * N + j] = 0.0f;
        for (size_t l = 0; l < K; l++) {
            const float a = A[i * K + l];
            for (size_t j = 0; j < N; j++) C[i * N + j] += a * B[l * N + j];
        }
    }
    return GP_OK;
}
gp_status_t cpu_backend(gp_ctx_t *, size_t M, size_t N, size_t K, const float *A, const float *B, float *C, cudaStream_t)
{
    const gp__gemm_t g = {M, N, K, A, B, C, K, N, N, 1, 0, 1.0, 0.0};
    return gp__gemm_cpu(GP_F32, &g, 1);
}

} // namespace

extern "C" {

const lab_version_t lab_gemm_versions[] = {
    {1, "gemm_v01_global_uncoalesced", 1, "one thread per C element, lanes along rows: every load its own sector",
     "", 2048, 0, 0, (lab_fn_t)run01},
    {2, "gemm_v02_global_coalesced", 1, "the primers' global kernel: lanes along columns, B and C coalesced",
     "", 4096, 0, 0, (lab_fn_t)run02},
    {3, "gemm_v03_smem_tiled16", 1, "the primers' shared-memory kernel, 16 x 16 sub-matrices",
     "", 0, 0, 0, (lab_fn_t)run_smem<16>},
    {4, "gemm_v04_smem_tiled32", 1, "the same with 32 x 32 sub-matrices: half the global traffic",
     "", 0, 0, 0, (lab_fn_t)run_smem<32>},
    {5, "gemm_v05_1d_blocking", 1, "64 x 64 tile, 8 results per thread in a column: 8 FMAs per B load",
     "", 0, 0, 0, (lab_fn_t)run05},
    {6, "gemm_v06_2d_blocking", 1, "128 x 128 tile, 8 x 8 results per thread: outer products in registers",
     "", 0, 0, 0, (lab_fn_t)run06},
    {7, "gemm_v07_vectorized", 1, "16-byte global and shared loads, A's tile stored transposed",
     "", 0, 0, 0, (lab_fn_t)run07},
    {8, "gemm_v08_warp_tiling", 1, "warp tile 64 x 32, lanes 8 x 4: conflict-free 16-byte fragment reads, BK 16",
     "", 0, 0, 0, (lab_fn_t)run_prod<8>},
    {9, "gemm_v09_double_buffer", 1, "two shared stages, next tile's loads in registers during the math",
     "", 0, 0, 0, (lab_fn_t)run_prod<9>},
    {10, "gemm_v10_cp_async", 1, "two stages, cp.async for the operand stored k-major (no registers)",
     "", 0, 0, 0, (lab_fn_t)run_prod<10>},
    {90, "gemm_cpu_serial", 0, "CPU: the i-k-j triple loop in float, one core",
     "", 512, 0, 0, (lab_fn_t)cpu_serial},
    {91, "gemm_cpu_backend", 0, "CPU backend: packed rows, double accumulation, OpenMP",
     "", 1024, 0, 0, (lab_fn_t)cpu_backend},
};
const int lab_gemm_nversions = (int)(sizeof lab_gemm_versions / sizeof lab_gemm_versions[0]);

/* the tensor-core progression: each row is a kernel of src/matrix/ run by gp_gemm_ex (sel: the context's plan, gp__gemm_tc_plan_set) */
const lab_version_t lab_gemm_tc_versions[] = {
    {11, "gemm_v11_mma_sync", 1, "tensor cores by warp: mma.sync m16n8k16 (TF32 m16n8k8), 128 x 128 tiles, 8 warps, "
     "ldmatrix fragments, a 4-stage cp.async ring", "sm_80 and later", 0, 1, 0, NULL},
    {12, "gemm_v12_wgmma", 1, "Hopper's warpgroup MMA: m64n256k16 from shared-memory descriptors, 128-byte swizzle, "
     "one group in flight; every thread copies (cp.async)", "sm_90a; operands K-major", 0, 2, 0, NULL},
    {13, "gemm_v13_tma_warp_specialized", 1, "the copy engine (TMA) fills a 4-stage ring, full / empty mbarriers, a "
     "producer warpgroup at 40 registers, two consumer warpgroups at 232", "sm_90a", 0, 3, 0, NULL},
    {14, "gemm_v14_two_blocks_per_sm", 1, "128 x 128 tiles, 3 stages, one producer warp: two blocks per SM, so one "
     "block's fill and epilogue hide under the other's main loop", "sm_90a", 0, 4, 0, NULL},
    {15, "gemm_v15_cluster_multicast", 1, "clusters of two blocks along M: each fetches half of their shared B tile, "
     "TMA multicast writes it into both (a third less L2 traffic)", "sm_90a", 0, 5, 0, NULL},
    {16, "gemm_v16_cluster_128", 1, "v14's tiles in clusters of two (multicast B)", "sm_90a", 0, 6, 0, NULL},
    {17, "gemm_v17_persistent", 1, "v13 on a persistent grid: one block per SM walks the tiles in the grouped order; "
     "the ring runs on across tiles, so the next tile's loads overlap this one's epilogue", "sm_90a", 0, 7, 0, NULL},
    {92, "gemm_tc_cpu_backend", 0, "CPU backend: inputs rounded as the tensor cores take them, f64 GEMM", "", 512, 0,
     0, NULL},
};
const int lab_gemm_tc_nversions = (int)(sizeof lab_gemm_tc_versions / sizeof lab_gemm_tc_versions[0]);

} /* extern "C" */
