/*
 * gemm_kernels.cuh — the GEMM kernels that production (gemm.cu) and the lab (lab/gemm_versions.cu) share, for one
 * canonical problem: C (M x N, row-major storage, ldc) = alpha * A' B' + beta * C, where
 *   A' (M x K): element (i, l) at A[i*lda + l] when AK ("K-inner"), else at A[l*lda + i];
 *   B' (K x N): element (l, j) at B[j*ldb + l] when BK, else at B[l*ldb + j].
 * Every layout / op combination of gp_gemm reduces to this (gemm.cu). Tiles past the edges of M, N, K are zero-filled
 * in shared memory, so any size works; 16-byte global loads are used where a row's vector is in bounds and the
 * operand is aligned (flags bit 0: A, bit 1: B, bit 2: C).
 *
 *  - sgemm_128x128: FP32 on the CUDA cores (exact FP32, fmaf). 128 x 128 block tile, BK 16, 256 threads, 8 x 8
 *    results per thread as 2 x 2 sub-tiles of 4 x 4 (warp tile 64 x 32, lanes 8 x 4: each 16-byte shared read is one
 *    wavefront). A K-inner operand is transposed on its way into shared memory (registers, then scalar stores);
 *    DBUF: two shared stages, next tile's loads in flight during the math, one barrier per tile; ASYNC: the operands
 *    that need no transpose go global -> shared by cp.async (no registers).
 *  - dgemm_dmma: FP64 on the tensor cores (mma.sync m16n8k8 or m8n8k4 .f64: IEEE double fused multiply-adds).
 *    128 x 128 (or 128 x 64) block tile, 256 threads, warp tile 64 x 32 (or 32 x 32).
 *  - dgemm_cp: FP64, m16n8k8 (or m16n8k16) (sm_90) fed by a 3- or 4-stage cp.async ring, every layout with 16-byte
 *    rows, 128 x 64 block tile, warp tile 64 x 32.
 */
#ifndef GP_GEMM_KERNELS_CUH
#define GP_GEMM_KERNELS_CUH

#include <stddef.h>
#include <stdint.h>

namespace gemmk {

enum { VEC_A = 1, VEC_B = 2, VEC_C = 4 };

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

template <typename T, int VW> struct Vec;
template <> struct Vec<float, 4> {
    __device__ static void load(const float *p, float *r)
    {
        const float4 v = *reinterpret_cast<const float4 *>(p);
        r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
    }
    __device__ static void store(float *p, const float *r) { *reinterpret_cast<float4 *>(p) = make_float4(r[0], r[1], r[2], r[3]); }
};
template <> struct Vec<double, 2> {
    __device__ static void load(const double *p, double *r)
    {
        const double2 v = *reinterpret_cast<const double2 *>(p);
        r[0] = v.x, r[1] = v.y;
    }
    __device__ static void store(double *p, const double *r) { *reinterpret_cast<double2 *>(p) = make_double2(r[0], r[1]); }
};

/* One operand's BK x BT slice in shared memory as S[k][t] (pitch SP elements): t indexes M (for A) or N (for B).
 * KIN: element (t, k) at X[t*ld + k] (vectors run along k; stored transposed), else at X[k*ld + t] (vectors along
 * t, stored as they are). Each of NT threads moves NV vectors of VW elements. */
template <typename T, int BT, int BK, int SP, int NT, int VW, bool KIN> struct Tile {
    static constexpr int NV = BT * BK / VW / NT;
    static_assert(NV * VW * NT == BT * BK, "tile not divisible among the threads");
    T r[NV][VW];

    __device__ static void coords(int tid, int v, int &t, int &k)
    {
        const int idx = tid + v * NT;
        if (KIN) t = idx % BT, k = idx / BT * VW;
        else k = idx / (BT / VW), t = idx % (BT / VW) * VW;
    }
    /* global -> registers; Tn, Kn: the operand's extent; (t0, k0): the slice's corner */
    __device__ void load(const T *X, size_t ld, size_t Tn, size_t Kn, size_t t0, size_t k0, int tid, bool vec)
    {
#pragma unroll
        for (int v = 0; v < NV; v++) {
            int t, k;
            coords(tid, v, t, k);
            const size_t gt = t0 + t, gk = k0 + k;
            if (KIN) {
                const T *p = X + gt * ld + gk;
                if (vec && gt < Tn && gk + VW <= Kn) Vec<T, VW>::load(p, r[v]);
                else
#pragma unroll
                    for (int j = 0; j < VW; j++) r[v][j] = gt < Tn && gk + j < Kn ? p[j] : T(0);
            } else {
                const T *p = X + gk * ld + gt;
                if (vec && gk < Kn && gt + VW <= Tn) Vec<T, VW>::load(p, r[v]);
                else
#pragma unroll
                    for (int j = 0; j < VW; j++) r[v][j] = gk < Kn && gt + j < Tn ? p[j] : T(0);
            }
        }
    }
    /* registers -> shared */
    __device__ void store(T *S, int tid) const
    {
#pragma unroll
        for (int v = 0; v < NV; v++) {
            int t, k;
            coords(tid, v, t, k);
            if (KIN)
#pragma unroll
                for (int j = 0; j < VW; j++) S[(k + j) * SP + t] = r[v][j];
            else Vec<T, VW>::store(&S[k * SP + t], r[v]);
        }
    }
    /* global -> shared without registers (!KIN only): cp.async for in-bounds aligned vectors, plain stores at the
     * edges (the caller's barrier orders both) */
    __device__ static void load_async(T *S, const T *X, size_t ld, size_t Tn, size_t Kn, size_t t0, size_t k0, int tid,
                                      bool vec)
    {
        static_assert(!KIN, "cp.async cannot transpose");
#pragma unroll
        for (int v = 0; v < NV; v++) {
            int t, k;
            coords(tid, v, t, k);
            const size_t gt = t0 + t, gk = k0 + k;
            const T *p = X + gk * ld + gt;
            T *d = &S[k * SP + t];
            if (vec && gk < Kn && gt + VW <= Tn) cp_async16(d, p);
            else
#pragma unroll
                for (int j = 0; j < VW; j++) d[j] = gk < Kn && gt + j < Tn ? p[j] : T(0);
        }
    }
};

/* Block tile (tm, tn) of a 1-D grid, in groups of G tile rows so that blocks resident together share A and B tiles
 * in L2. */
__device__ __forceinline__ void tile_of_block(size_t tiles_m, size_t tiles_n, size_t &tm, size_t &tn)
{
    constexpr size_t G = 8;
    const size_t bid = blockIdx.x, per_group = G * tiles_n, group = bid / per_group, first = group * G;
    const size_t gs = tiles_m - first < G ? tiles_m - first : G, r = bid % per_group;
    tm = first + r % gs, tn = r / gs;
}

/* Both operands' way into shared memory for one stage: global -> registers -> shared (the K-inner operand, stored
 * transposed), or global -> shared by cp.async (AA / BA). fetch starts a stage, land completes it. */
template <class TA, class TB, bool AA, bool BA> struct Stager {
    TA ta;
    TB tb;
    template <typename T>
    __device__ __forceinline__ void fetch(T *as, T *bs, const T *A, size_t lda, size_t M, const T *B, size_t ldb,
                                          size_t N, size_t K, size_t m0, size_t n0, size_t k0, int tid, bool va, bool vb)
    {
        if constexpr (AA) TA::load_async(as, A, lda, M, K, m0, k0, tid, va);
        else ta.load(A, lda, M, K, m0, k0, tid, va);
        if constexpr (BA) TB::load_async(bs, B, ldb, N, K, n0, k0, tid, vb);
        else tb.load(B, ldb, N, K, n0, k0, tid, vb);
        if (AA || BA) cp_async_commit();
    }
    template <typename T> __device__ __forceinline__ void land(T *as, T *bs, int tid)
    {
        if (!AA) ta.store(as, tid);
        if (!BA) tb.store(bs, tid);
        if (AA || BA) cp_async_wait_all();
    }
};

/* The k loop over nk tiles of bkk from kb. Two stages: the next tile's loads are in flight during the math, one
 * barrier per tile. One stage: load, barrier, math, barrier. fetch(stage, k0), land(stage), math(stage). */
template <bool TWO, class F, class L, class X>
__device__ __forceinline__ void k_loop(size_t nk, size_t kb, size_t bkk, F fetch, L land, X math)
{
    if (!TWO) {
        for (size_t kt = 0; kt < nk; kt++) {
            fetch(0, kb + kt * bkk);
            land(0);
            __syncthreads();
            math(0);
            __syncthreads();
        }
        return;
    }
    if (nk > 0) {
        fetch(0, kb);
        land(0);
        __syncthreads();
    }
    for (size_t kt = 0; kt < nk; kt++) {
        const int cur = (int)(kt & 1), nxt = cur ^ 1;
        const bool more = kt + 1 < nk;
        if (more) fetch(nxt, kb + (kt + 1) * bkk);
        math(cur);
        if (more) land(nxt);
        __syncthreads();
    }
}

/* VW results v of one row into c (room: columns left in the row): c = alpha v + beta c, 16-byte accesses where vec
 * and the whole vector is in the row; beta == 0 never reads c. */
template <typename T, int VW>
__device__ __forceinline__ void store_c(T *c, const T *v, size_t room, bool vec, T alpha, T beta)
{
    const bool readc = beta != T(0);
    if (vec && room >= VW) {
        T o[VW];
        if (readc) Vec<T, VW>::load(c, o);
#pragma unroll
        for (int j = 0; j < VW; j++) o[j] = readc ? alpha * v[j] + beta * o[j] : alpha * v[j];
        Vec<T, VW>::store(c, o);
    } else {
#pragma unroll
        for (int j = 0; j < VW; j++)
            if (j < room) c[j] = readc ? alpha * v[j] + beta * c[j] : alpha * v[j];
    }
}

/* TMH: 2 for a 128 x 128 block (warp tile 64 x 32, 8 x 8 per thread), 1 for 128 x 64 (warp tile 32 x 32, 4 x 8 per
 * thread: the tile for n <= 64). MINB: the blocks per SM the registers are held to (2: at most 128 registers).
 * PF: fragments of step k + 1 loaded explicitly before the FMAs of step k (two fragment sets in registers). */
template <bool AK, bool BK, bool DBUF, bool ASYNC, int TMH = 2, int MINB = 2, bool PF = false>
__global__ void __launch_bounds__(256, MINB)
    sgemm_128x128(size_t M, size_t N, size_t Kall, float alpha, const float *__restrict__ A, size_t lda,
                  const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C, size_t ldc, int flags,
                  size_t Kc, float *__restrict__ W)
{
    constexpr int BM = 128, BN = 64 * TMH, BKK = 16, NT = 256, NS = DBUF ? 2 : 1, TM = 4 * TMH;
    constexpr int WM = 32 * TMH, WN_COUNT = BN / 32; /* warp tile WM x 32; warps: (BM / WM) x WN_COUNT */
    constexpr bool AA = ASYNC && !AK, BA = ASYNC && !BK; /* operands moved by cp.async */
    __shared__ __align__(16) float As[NS][BKK][BM];
    __shared__ __align__(16) float Bs[NS][BKK][BN];
    Stager<Tile<float, BM, BKK, BM, NT, 4, AK>, Tile<float, BN, BKK, BN, NT, 4, BK>, AA, BA> st;
    size_t tm, tn;
    tile_of_block((M + BM - 1) / BM, (N + BN - 1) / BN, tm, tn);
    const size_t m0 = tm * BM, n0 = tn * BN;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = (warp / WN_COUNT) * WM, wn = (warp % WN_COUNT) * 32, lm = lane >> 2, ln = lane & 3;
    const bool va = flags & VEC_A, vb = flags & VEC_B;
    /* split K: block row y of the grid takes K range [kb, K) (one range when gridDim.y is 1) */
    const size_t kb = (size_t)blockIdx.y * Kc, K = kb + Kc < Kall ? kb + Kc : Kall;
    const size_t nk = K > kb ? (K - kb + BKK - 1) / BKK : 0;
    float acc[TM][8];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

    auto fetch = [&](int s, size_t k0) {
        st.fetch(&As[s][0][0], &Bs[s][0][0], A, lda, M, B, ldb, N, K, m0, n0, k0, tid, va, vb);
    };
    auto land = [&](int s) { st.land(&As[s][0][0], &Bs[s][0][0], tid); };
    auto frag = [&](int s, int k, float *a, float *b) {
        Vec<float, 4>::load(&As[s][k][wm + lm * 4], a);
        if (TMH == 2) Vec<float, 4>::load(&As[s][k][wm + 32 + lm * 4], a + 4);
        Vec<float, 4>::load(&Bs[s][k][wn + ln * 4], b);
        Vec<float, 4>::load(&Bs[s][k][wn + 16 + ln * 4], b + 4);
    };
    auto math = [&](int s) {
        if constexpr (PF) {
            float a[2][TM], b[2][8];
            frag(s, 0, a[0], b[0]);
#pragma unroll
            for (int k = 0; k < BKK; k++) {
                if (k + 1 < BKK) frag(s, k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
#pragma unroll
                for (int i = 0; i < TM; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
            }
        } else {
#pragma unroll
            for (int k = 0; k < BKK; k++) {
                float a[TM], b[8];
                frag(s, k, a, b);
#pragma unroll
                for (int i = 0; i < TM; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
    };

    k_loop<DBUF>(nk, kb, BKK, fetch, land, math);

    /* epilogue: C = alpha * acc + beta * C; beta == 0 never reads C. Split K: alpha * acc into this range's slice of
     * W (M x N, packed); a second kernel adds the slices. */
    const bool split = gridDim.y > 1;
    if (split) C = W + (size_t)blockIdx.y * M * N, ldc = N, beta = 0.0f;
    const bool vc = split ? N % 4 == 0 : (flags & VEC_C) != 0;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const size_t row = m0 + wm + (i >> 2) * 32 + lm * 4 + (i & 3);
        if (row >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const size_t col = n0 + wn + h * 16 + ln * 4;
            if (col < N) store_c<float, 4>(C + row * ldc + col, &acc[i][h * 4], N - col, vc, alpha, beta);
        }
    }
}

__device__ __forceinline__ void dmma_m8n8k4(double (&d)[2], double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
}

/* m16n8k8: A 16 x 8 (a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)), B 8 x 8 (b0 (t, g), b1 (t+4, g)),
 * C 16 x 8 (c0, c1 (g, 2t + 0/1), c2, c3 (g+8, 2t + 0/1)); g = lane / 4, t = lane % 4. */
__device__ __forceinline__ void dmma_m16n8k8(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}

/* BIG: m16n8k8 instructions (Hopper's larger FP64 shape, 1024 FMAs each), else m8n8k4 (256 FMAs, the Ampere shape).
 * Block tile 128 x BN with 8 warps: BN 128 gives warp tiles of 64 x 32 (64 accumulators, ~200 registers: one block
 * per SM), BN 64 warp tiles of 32 x 32 (two blocks per SM: twice the warps to hide the DMMA latency). */
template <bool AK, bool BK, bool ASYNC, bool BIG, int BKK, int BN>
__global__ void __launch_bounds__(256, BN == 64 ? 2 : 1)
    dgemm_dmma(size_t M, size_t N, size_t Kall, double alpha, const double *__restrict__ A, size_t lda,
               const double *__restrict__ B, size_t ldb, double beta, double *__restrict__ C, size_t ldc, int flags,
               size_t Kc, double *__restrict__ W)
{
    /* Pitch = 4 mod 16 doubles: a fragment read (rows k..k+3, 8 doubles each) is served by half-warps whose four rows
     * start 8 banks apart, so each half-warp is one wavefront. (Pitch 8 mod 16 put rows k and k+2 on the same banks:
     * Nsight Compute counted half of all shared-load wavefronts as conflicts.) */
    constexpr int BM = 128, SP = 132, SPB = BN + 4, NT = 256;
    constexpr int WM = BN == 128 ? 64 : 32, MI = WM / 8, NJ = 4; /* warp tile WM x 32: MI x NJ tiles of 8 x 8 */
    constexpr bool AA = ASYNC && !AK, BA = ASYNC && !BK;
    extern __shared__ __align__(16) double dsm[]; /* dgemm_smem_bytes(BKK, BN): As[2][BKK][SP], then Bs[2][BKK][SPB] */
    static_assert(SP % 16 == 4 && SPB % 16 == 4, "fragment reads need pitch = 4 mod 16");
    double(*As)[BKK][SP] = reinterpret_cast<double(*)[BKK][SP]>(dsm);
    double(*Bs)[BKK][SPB] = reinterpret_cast<double(*)[BKK][SPB]>(dsm + 2 * BKK * SP);
    Stager<Tile<double, BM, BKK, SP, NT, 2, AK>, Tile<double, BN, BKK, SPB, NT, 2, BK>, AA, BA> st;
    size_t tm, tn;
    tile_of_block((M + BM - 1) / BM, (N + BN - 1) / BN, tm, tn);
    const size_t m0 = tm * BM, n0 = tn * BN;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = (warp / (BN / 32)) * WM, wn = (warp % (BN / 32)) * 32, g = lane >> 2, q = lane & 3;
    const bool va = flags & VEC_A, vb = flags & VEC_B;
    /* split K: block row y of the grid takes K range [kb, K) (one range when gridDim.y is 1) */
    const size_t kb = (size_t)blockIdx.y * Kc, K = kb + Kc < Kall ? kb + Kc : Kall;
    const size_t nk = K > kb ? (K - kb + BKK - 1) / BKK : 0;
    double acc[MI][NJ][2];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j][0] = acc[i][j][1] = 0.0;

    auto fetch = [&](int s, size_t k0) {
        st.fetch(&As[s][0][0], &Bs[s][0][0], A, lda, M, B, ldb, N, K, m0, n0, k0, tid, va, vb);
    };
    auto land = [&](int s) { st.land(&As[s][0][0], &Bs[s][0][0], tid); };
    auto math = [&](int cur) {
        if constexpr (BIG) {
#pragma unroll
          for (int kk = 0; kk < BKK; kk += 8) {
            double a[MI / 2][4], b[NJ][2];
#pragma unroll
            for (int i = 0; i < MI / 2; i++) {
                const int m = wm + i * 16 + g;
                a[i][0] = As[cur][kk + q][m], a[i][1] = As[cur][kk + q][m + 8], a[i][2] = As[cur][kk + q + 4][m],
                a[i][3] = As[cur][kk + q + 4][m + 8];
            }
#pragma unroll
            for (int j = 0; j < 4; j++)
                b[j][0] = Bs[cur][kk + q][wn + j * 8 + g], b[j][1] = Bs[cur][kk + q + 4][wn + j * 8 + g];
#pragma unroll
            for (int i = 0; i < MI / 2; i++)
#pragma unroll
                for (int j = 0; j < NJ; j++) {
                    /* acc[2i][j] holds rows g (c0, c1) and acc[2i+1][j] rows g + 8 (c2, c3) of the 16 x 8 tile */
                    double d[4] = {acc[2 * i][j][0], acc[2 * i][j][1], acc[2 * i + 1][j][0], acc[2 * i + 1][j][1]};
                    dmma_m16n8k8(d, a[i], b[j]);
                    acc[2 * i][j][0] = d[0], acc[2 * i][j][1] = d[1], acc[2 * i + 1][j][0] = d[2], acc[2 * i + 1][j][1] = d[3];
                }
          }
        } else {
#pragma unroll
            for (int kk = 0; kk < BKK; kk += 4) {
                double a[MI], b[NJ];
#pragma unroll
                for (int i = 0; i < MI; i++) a[i] = As[cur][kk + q][wm + i * 8 + g];
#pragma unroll
                for (int j = 0; j < NJ; j++) b[j] = Bs[cur][kk + q][wn + j * 8 + g];
#pragma unroll
                for (int i = 0; i < MI; i++)
#pragma unroll
                    for (int j = 0; j < NJ; j++) dmma_m8n8k4(acc[i][j], a[i], b[j]);
            }
        }
    };
    k_loop<true>(nk, kb, BKK, fetch, land, math);

    const bool split = gridDim.y > 1;
    if (split) C = W + (size_t)blockIdx.y * M * N, ldc = N, beta = 0.0;
    const bool vc = split ? N % 2 == 0 : (flags & VEC_C) != 0;
#pragma unroll
    for (int i = 0; i < MI; i++) {
        const size_t row = m0 + wm + i * 8 + g;
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < NJ; j++) {
            const size_t col = n0 + wn + j * 8 + q * 2;
            if (col < N) store_c<double, 2>(C + row * ldc + col, acc[i][j], N - col, vc, alpha, beta);
        }
    }
}

/* dynamic shared memory of dgemm_dmma: two stages of A and B tiles */
constexpr size_t dgemm_smem_bytes(int bkk, int bn) { return (size_t)2 * bkk * (132 + bn + 4) * sizeof(double); }

/* cp.async of 16 bytes of which the first `bytes` (0 to 16) are read, the rest zero-filled */
__device__ __forceinline__ void cp_async16_zfill(void *smem, const void *gmem, unsigned bytes)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

/* m16n8k16 .f64 (sm_90): A 16 x 16 (a[2r] (g, 4r + t), a[2r+1] (g + 8, 4r + t)), B 16 x 8 (b[r] (4r + t, g)), C as
 * m16n8k8 (c0, c1 (g, 2t + 0/1), c2, c3 (g + 8, 2t + 0/1)); g = lane / 4, t = lane % 4. */
__device__ __forceinline__ void dmma_m16n8k16(double (&d)[4], const double (&a)[8], const double (&b)[4])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, "
                 "%11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
                   "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

/* dgemm_cp (sm_90): FP64 mma.sync fed by a DC_ST-deep cp.async ring, 128 x BN blocks, operands with 16-byte rows; MODE 2
 * takes any layout, MODE 0 / 1 (paired fragment loads) A K-inner and B N-inner only. The shared layouts, the fragment
 * map and why: docs/design/matrix.md, "f64: the FP64 tensor cores". */
constexpr int DC_BK = 16, DC_ST = 4;
__host__ __device__ constexpr int dgemm_cp_pitch(int mode) { return mode == 2 ? 20 : 18; }
/* stages: 4, or 3 where both operands are K-inner (two blocks of 4 stages would pass the SM's shared memory) */
__host__ __device__ constexpr int dgemm_cp_stages(bool ak, bool bk) { return ak && bk ? 3 : DC_ST; }
/* doubles per stage of A and of B: a K-inner operand rows x pitch, an M- / N-inner one 16 x rows */
__host__ __device__ constexpr int dgemm_cp_sa(int mode, bool ak) { return ak ? 128 * dgemm_cp_pitch(mode) : DC_BK * 128; }
__host__ __device__ constexpr int dgemm_cp_sb(int bn, bool bk) { return bk ? bn * 20 : DC_BK * bn; }
constexpr size_t dgemm_cp_smem_bytes(int bn, int mode, bool ak, bool bk)
{
    return (size_t)dgemm_cp_stages(ak, bk) * (dgemm_cp_sa(mode, ak) + dgemm_cp_sb(bn, bk)) * sizeof(double);
}

template <int BN, int MODE, bool AK = true, bool BK = false>
__global__ void __launch_bounds__(2 * BN, BN == 64 ? 2 : 1)
    dgemm_cp(size_t M, size_t N, size_t Kall, double alpha, const double *__restrict__ A, size_t lda,
             const double *__restrict__ B, size_t ldb, double beta, double *__restrict__ C, size_t ldc, int flags,
             size_t Kc, double *__restrict__ W)
{
    /* pitch of a K-inner A; threads; doubles per stage; B chunks per row (N-inner) */
    constexpr int DC_PA = dgemm_cp_pitch(MODE), NT = 2 * BN, SA = dgemm_cp_sa(MODE, AK), SB = dgemm_cp_sb(BN, BK),
                  CPR = BN / 2, ST = dgemm_cp_stages(AK, BK);
    static_assert(NT == 4 * CPR && DC_BK == 16, "B: four rows per pass, rows rb + 4e");
    static_assert(MODE == 2 || (AK && !BK), "paired fragment loads: A K-inner, B N-inner only");
    static_assert(BN == 64 || (AK && !BK), "other layouts: 128 x 64 blocks");
    extern __shared__ __align__(16) double dsm[];
    double *As = dsm, *Bs = dsm + ST * SA;
    size_t tm, tn;
    tile_of_block((M + 127) / 128, (N + BN - 1) / BN, tm, tn);
    const size_t m0 = tm * 128, n0 = tn * BN;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
    const int wm = (warp / (BN / 32)) * 64, wn = (warp % (BN / 32)) * 32;
    /* split K: grid row y takes the range [kb, K) (kb and the range a multiple of 16) */
    const size_t kb = (size_t)blockIdx.y * Kc, K = kb + Kc < Kall ? kb + Kc : Kall;
    const size_t nk = K > kb ? (K - kb + DC_BK - 1) / DC_BK : 0;

    /* each thread's copies, set once: a chunk column and rows (K-inner A: chunk ca of rows ra + e NT / 8; M-inner A:
     * chunk ca of k rows ra + 2e; N-inner B: chunk cb of k rows rb + 4e; K-inner B: chunk cb of rows rb + 16e),
     * pointers, masks of the rows inside M / N, the byte count of a column chunk */
    const int ca = AK ? tid & 7 : tid & 63, ra = AK ? tid >> 3 : tid >> 6;
    const int cb = BK ? tid & 7 : tid % CPR, rb = BK ? tid >> 3 : tid / CPR;
    const double *pa = AK ? A + (m0 + ra) * lda + 2 * ca : A + ra * lda + m0 + 2 * ca;
    const double *pb = BK ? B + (n0 + rb) * ldb + 2 * cb : B + rb * ldb + n0 + 2 * cb;
    unsigned amask = 0, bmask = 0, acol = 0, bcol = 0;
    if constexpr (AK) {
#pragma unroll
        for (int e = 0; e < 1024 / NT; e++) amask |= (m0 + ra + (size_t)e * (NT / 8) < M) << e;
    } else {
        const size_t gm = m0 + 2 * ca;
        acol = gm < M ? (gm + 1 < M ? 16u : 8u) : 0u;
    }
    if constexpr (BK) {
#pragma unroll
        for (int e = 0; e < 4; e++) bmask |= (n0 + rb + (size_t)e * 16 < N) << e;
    } else {
        const size_t gn = n0 + 2 * cb;
        bcol = gn < N ? (gn + 1 < N ? 16u : 8u) : 0u;
    }
    auto kbytes = [&](size_t gk) { return gk < K ? (gk + 1 < K ? 16u : 8u) : 0u; };
    auto load = [&](int s, size_t k0) {
        double *as = As + s * SA, *bs = Bs + s * SB;
        if constexpr (AK) {
            const unsigned kb16 = kbytes(k0 + 2 * ca);
#pragma unroll
            for (int e = 0; e < 1024 / NT; e++) { /* 128 rows x 8 chunks of 2 doubles */
                const unsigned bytes = amask >> e & 1 ? kb16 : 0u;
                cp_async16_zfill(as + (ra + e * (NT / 8)) * DC_PA + 2 * ca,
                                 bytes ? pa + (size_t)e * (NT / 8) * lda + k0 : A, bytes);
            }
        } else {
#pragma unroll
            for (int e = 0; e < 8; e++) { /* 16 k rows x 64 chunks; chunk c of row k at c ^ 2 (k mod 4) */
                const int r = ra + 2 * e;
                const unsigned bytes = k0 + r < K ? acol : 0u;
                cp_async16_zfill(as + r * 128 + 2 * (ca ^ (2 * (r & 3))), bytes ? pa + (k0 + 2 * e) * lda : A, bytes);
            }
        }
        if constexpr (BK) {
            const unsigned kb16 = kbytes(k0 + 2 * cb);
#pragma unroll
            for (int e = 0; e < 4; e++) { /* 64 rows x 8 chunks, pitch 20 */
                const unsigned bytes = bmask >> e & 1 ? kb16 : 0u;
                cp_async16_zfill(bs + (rb + 16 * e) * 20 + 2 * cb, bytes ? pb + (size_t)e * 16 * ldb + k0 : B, bytes);
            }
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++) { /* 16 rows x BN / 2 chunks */
                const unsigned bytes = k0 + rb + 4 * e < K ? bcol : 0u;
                const int swz = MODE == 2 ? 2 * rb : 2 * e; /* 2 (k mod 4) or 2 (k / 4 mod 4) of row rb + 4e */
                cp_async16_zfill(bs + (rb + 4 * e) * BN + 2 * (cb ^ swz), bytes ? pb + (k0 + 4 * e) * ldb : B, bytes);
            }
        }
    };

    /* MODE 0 / 1: columns 16h + 2g and + 1 of B row k (k / 4 mod 4 = t: the row's swizzle 2t) in one 16-byte load */
    auto bpair = [&](const double *bs, int k, int h) {
        return *reinterpret_cast<const double2 *>(bs + k * BN + 2 * (((wn >> 1) + 8 * h + g) ^ (2 * q)));
    };
    double acc[4][4][4]; /* [m16 tile i][n8 tile j][c0..c3] */
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) acc[i][j][c] = 0.0;
#pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        if ((size_t)s < nk) load(s, kb + (size_t)s * DC_BK);
        cp_async_commit();
    }
    for (size_t kt = 0; kt < nk; kt++) {
        cp_async_wait<ST - 2>(); /* stage kt has landed (this thread's copies) ... */
        __syncthreads();         /* ... everyone's, and everyone is done with stage kt - 1 */
        const size_t nx = kt + ST - 1;
        if (nx < nk) load((int)(nx % ST), kb + nx * DC_BK);
        cp_async_commit();
        const double *as = As + (kt % ST) * SA, *bs = Bs + (kt % ST) * SB;
        if constexpr (MODE == 2) {
            /* natural slots, each double loaded into its place (8-byte loads): A rows g / g + 8 of k t / t + 4
             * (pitch 20: a half-warp covers the banks once), B rows t / t + 4 of column g (chunk swizzle 2 (k mod 4)) */
#pragma unroll
            for (int h2 = 0; h2 < 2; h2++) {
                double b[4][2];
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    const int k = 8 * h2 + q + 4 * r;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const int n = wn + 8 * j + g;
                        b[j][r] = BK ? bs[n * 20 + k] : bs[k * BN + 2 * ((n >> 1) ^ (2 * (k & 3))) + (n & 1)];
                    }
                }
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    double a[4];
                    if constexpr (AK) {
                        const double *p0 = as + (wm + 16 * i + g) * DC_PA + 8 * h2 + q;
                        a[0] = p0[0], a[1] = p0[8 * DC_PA], a[2] = p0[4], a[3] = p0[8 * DC_PA + 4];
                    } else { /* rows k = 8 h2 + t (+ 4): swizzle 2t; m and m + 8 four chunks apart */
                        const int m = wm + 16 * i + g, k = 8 * h2 + q;
                        const double *r0 = as + k * 128 + (m & 1), *r1 = r0 + 4 * 128;
                        const int c0 = 2 * ((m >> 1) ^ (2 * q)), c1 = 2 * (((m + 8) >> 1) ^ (2 * q));
                        a[0] = r0[c0], a[1] = r0[c1], a[2] = r1[c0], a[3] = r1[c1];
                    }
#pragma unroll
                    for (int j = 0; j < 4; j++) dmma_m16n8k8(acc[i][j], a, b[j]);
                }
            }
        } else if constexpr (MODE == 1) {
            double b[4][4];
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const int k = 4 * q + r; /* (k / 4) mod 4 = q: the swizzle of this row */
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const double2 v = bpair(bs, k, h);
                    b[2 * h][r] = v.x, b[2 * h + 1][r] = v.y;
                }
            }
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const double *p0 = as + (wm + 16 * i + g) * DC_PA + 4 * q, *p1 = p0 + 8 * DC_PA;
                const double2 x0 = *reinterpret_cast<const double2 *>(p0), x1 = *reinterpret_cast<const double2 *>(p0 + 2);
                const double2 y0 = *reinterpret_cast<const double2 *>(p1), y1 = *reinterpret_cast<const double2 *>(p1 + 2);
                const double a[8] = {x0.x, y0.x, x0.y, y0.y, x1.x, y1.x, x1.y, y1.y};
#pragma unroll
                for (int j = 0; j < 4; j++) dmma_m16n8k16(acc[i][j], a, b[j]);
            }
        } else {
            /* two m16n8k8 per 16 k: the half h2 takes k 4t + 2 h2 + {0, 1} (slots t, t + 4) — the same adjacent
             * pairs, half the fragment registers live at once */
#pragma unroll
            for (int h2 = 0; h2 < 2; h2++) {
                double b[4][2];
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    const int k = 4 * q + 2 * h2 + r;
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const double2 v = bpair(bs, k, h);
                        b[2 * h][r] = v.x, b[2 * h + 1][r] = v.y;
                    }
                }
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const double *p0 = as + (wm + 16 * i + g) * DC_PA + 4 * q + 2 * h2;
                    const double2 x = *reinterpret_cast<const double2 *>(p0);
                    const double2 y = *reinterpret_cast<const double2 *>(p0 + 8 * DC_PA);
                    const double a[4] = {x.x, y.x, x.y, y.y};
#pragma unroll
                    for (int j = 0; j < 4; j++) dmma_m16n8k8(acc[i][j], a, b[j]);
                }
            }
        }
    }
    cp_async_wait<0>();

    const bool split = gridDim.y > 1;
    if (split) C = W + (size_t)blockIdx.y * M * N, ldc = N, beta = 0.0;
    const bool vc = split ? N % 2 == 0 : (flags & VEC_C) != 0;
    if constexpr (MODE == 2) { /* acc[i][j][2s + c]: row 16i + g + 8s, column 8j + 2t + c */
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int s = 0; s < 2; s++) {
                const size_t row = m0 + wm + 16 * i + g + 8 * s;
                if (row >= M) continue;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const size_t col = n0 + wn + 8 * j + 2 * q;
                    if (col < N) store_c<double, 2>(C + row * ldc + col, &acc[i][j][2 * s], N - col, vc, alpha, beta);
                }
            }
    } else {
        /* acc[i][j][2s + c]: row 16i + g + 8s, column 16 (j / 2) + 4t + 2c + j % 2 of the warp tile: per row and tile
         * pair, four adjacent columns */
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int s = 0; s < 2; s++) {
                const size_t row = m0 + wm + 16 * i + g + 8 * s;
                if (row >= M) continue;
#pragma unroll
                for (int h = 0; h < 2; h++)
#pragma unroll
                    for (int c = 0; c < 2; c++) {
                        const size_t col = n0 + wn + 16 * h + 4 * q + 2 * c;
                        const double v[2] = {acc[i][2 * h][2 * s + c], acc[i][2 * h + 1][2 * s + c]};
                        if (col < N) store_c<double, 2>(C + row * ldc + col, v, N - col, vc, alpha, beta);
                    }
            }
    }
}

/* sgemm_cp: exact FP32 (fmaf) fed by an ST-deep cp.async ring of shared stages, BM x BN blocks of 256 threads; a
 * K-inner A kept as stored (AX 0), transposed by 4-byte cp.async (1) or through registers (2, production). The lane
 * map, the shared layouts and the register-bank measurements behind AX 2: docs/design/matrix.md, "f32". */
__host__ __device__ constexpr int sgemm_cp_so(bool kin, int rows) { return kin ? rows * 20 : 16 * rows; }
/* a K-inner A transposed on its way in (AX 1, 2): [16 k][BM + 4] */
__host__ __device__ constexpr int sgemm_cp_sa(bool ak, int bm, int ax) { return ak && ax ? 16 * (bm + 4) : sgemm_cp_so(ak, bm); }
constexpr size_t sgemm_cp_smem_bytes(int st, int bm, int bn, bool ak, bool bk, int ax)
{
    return (size_t)st * (sgemm_cp_sa(ak, bm, ax) + sgemm_cp_so(bk, bn)) * sizeof(float);
}

/* cp.async of 4 bytes, `bytes` (0 or 4) read, the rest zero-filled */
__device__ __forceinline__ void cp_async4_zfill(void *smem, const void *gmem, unsigned bytes)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}

/* cp.async of 4 bytes, all read */
__device__ __forceinline__ void cp_async4(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem));
}

/* AX 1: a K-inner operand of BT rows transposed on its way into shared memory by 4-byte cp.async: stage [16 k][BT + 4].
 * Thread tid copies k c .. c + 7 (c = 8 (tid % 2)) of rows tid / 2 + 128g (g < BT / 128): one pointer per row group,
 * the eight sources and destinations at fixed offsets from it; a warp's first copy reads 16 rows, the next seven hit
 * the lines in L1 (.ca); its shared writes (pitch BT + 4) touch each bank at most twice. Tiles wholly inside M and
 * the K range take unpredicated copies; edge tiles zero-fill what is outside. */
template <int BT> struct FCopyT {
    static constexpr int G = BT / 128, PT = BT + 4;
    const float *X, *px;
    size_t ld;
    int c, r;
    unsigned mask;
    bool full; /* all BT rows inside */
    __device__ FCopyT(const float *X_, size_t ld_, size_t t0, size_t Tn, int tid) : X(X_), ld(ld_), mask(0)
    {
        c = (tid & 1) * 8, r = tid >> 1;
        px = X + (t0 + r) * ld + c;
        full = t0 + BT <= Tn;
#pragma unroll
        for (int g = 0; g < G; g++) mask |= (unsigned)(t0 + r + (size_t)g * 128 < Tn) << g;
    }
    __device__ __forceinline__ void copy(float *xs, size_t k0, size_t K) const
    {
        if (full && k0 + 16 <= K) {
#pragma unroll
            for (int g = 0; g < G; g++) {
                const float *p = px + (size_t)g * 128 * ld + k0;
                float *d = xs + c * PT + r + 128 * g;
#pragma unroll
                for (int j = 0; j < 8; j++) cp_async4(d + j * PT, p + j);
            }
        } else {
#pragma unroll
            for (int g = 0; g < G; g++) {
                const float *p = px + (size_t)g * 128 * ld + k0;
                float *d = xs + c * PT + r + 128 * g;
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    const unsigned bytes = (mask >> g & 1) && k0 + c + j < K ? 4u : 0u;
                    cp_async4_zfill(d + j * PT, bytes ? p + j : X, bytes);
                }
            }
        }
    }
};

template <int KG> struct FVec;
template <> struct FVec<4> {
    __device__ static void load(const float *p, float *r) { Vec<float, 4>::load(p, r); }
};
template <> struct FVec<2> {
    __device__ static void load(const float *p, float *r)
    {
        const float2 v = *reinterpret_cast<const float2 *>(p);
        r[0] = v.x, r[1] = v.y;
    }
};

/* One operand's copies into a stage, each thread's share set once: a K-inner operand of BT rows is BT x 4 chunks
 * (chunk tid % 4 of rows tid / 4 + 64e), the other 16 k rows x BT / 4 chunks (chunk tid % (BT / 4) of k rows
 * tid / (BT / 4) + (1024 / BT) e); BT / 64 copies per thread either way. The row mask (K-inner: rows inside M / N)
 * or the byte count of the thread's chunk column (the other) is fixed per block; copies wholly inside skip the byte
 * counts. */
template <bool KIN, int BT> struct FCopy {
    static constexpr int E = BT / 64, RS = KIN ? 64 : 1024 / BT;
    const float *X, *px;
    size_t ld;
    int c, r;
    unsigned mc; /* K-inner: the row mask; else the chunk column's byte count */
    __device__ static unsigned chunk_bytes(size_t g, size_t lim)
    {
        return g < lim ? (lim - g >= 4 ? 16u : 4u * (unsigned)(lim - g)) : 0u;
    }
    /* t0: the block's first row (K-inner) or column (else) of the operand; Tn its extent */
    __device__ FCopy(const float *X_, size_t ld_, size_t t0, size_t Tn, int tid) : X(X_), ld(ld_), mc(0)
    {
        c = KIN ? tid & 3 : tid % (BT / 4), r = KIN ? tid >> 2 : tid / (BT / 4);
        px = KIN ? X + (t0 + r) * ld + 4 * c : X + r * ld + t0 + 4 * c;
        if (KIN)
#pragma unroll
            for (int e = 0; e < E; e++) mc |= (unsigned)(t0 + r + (size_t)e * RS < Tn) << e;
        else mc = chunk_bytes(t0 + 4 * c, Tn);
    }
    __device__ __forceinline__ void copy(float *xs, size_t k0, size_t K) const
    {
        if ((KIN ? mc == (1u << E) - 1 : mc == 16u) && k0 + 16 <= K) { /* all inside: no byte counts */
#pragma unroll
            for (int e = 0; e < E; e++) {
                if (KIN) cp_async16(xs + (r + RS * e) * 20 + 4 * c, px + (size_t)e * RS * ld + k0);
                else cp_async16(xs + (r + RS * e) * BT + 4 * c, px + (k0 + RS * e) * ld);
            }
            return;
        }
        const unsigned kbytes = KIN ? chunk_bytes(k0 + 4 * c, K) : 0u;
#pragma unroll
        for (int e = 0; e < E; e++) {
            if (KIN) {
                const unsigned bytes = mc >> e & 1 ? kbytes : 0u;
                cp_async16_zfill(xs + (r + RS * e) * 20 + 4 * c, bytes ? px + (size_t)e * RS * ld + k0 : X, bytes);
            } else {
                const unsigned bytes = k0 + r + RS * e < K ? mc : 0u;
                cp_async16_zfill(xs + (r + RS * e) * BT + 4 * c, bytes ? px + (k0 + RS * e) * ld : X, bytes);
            }
        }
    }
};

/* AX 2: a K-inner operand of BT rows transposed through registers: fetch loads a thread's 4 rows x 2 k (k 2 (tid % 8) + 0 / 1
 * of rows 4 (tid / 8) + 128g: a warp reads four rows' 64 bytes per load), land stores them as two 16-byte runs along m
 * into [16 k][BT + 4] (two-way bank conflicts at most). Tiles wholly inside take unpredicated 8-byte loads. */
template <int BT> struct FCopyR {
    static constexpr int G = BT / 128, PT = BT + 4;
    const float *px;
    size_t ld;
    int kp, m4;
    unsigned mask; /* bit 4g + q: row m4 + q + 128g inside */
    bool full;
    float2 v[G][4];
    __device__ FCopyR(const float *X, size_t ld_, size_t t0, size_t Tn, int tid) : ld(ld_), mask(0)
    {
        kp = (tid & 7) * 2, m4 = (tid >> 3) * 4;
        px = X + (t0 + m4) * ld + kp;
        full = t0 + BT <= Tn;
#pragma unroll
        for (int g = 0; g < G; g++)
#pragma unroll
            for (int q = 0; q < 4; q++) mask |= (unsigned)(t0 + m4 + q + (size_t)g * 128 < Tn) << (4 * g + q);
    }
    __device__ __forceinline__ void fetch(size_t k0, size_t K)
    {
        if (full && k0 + 16 <= K) {
#pragma unroll
            for (int g = 0; g < G; g++)
#pragma unroll
                for (int q = 0; q < 4; q++) v[g][q] = *reinterpret_cast<const float2 *>(px + ((size_t)g * 128 + q) * ld + k0);
        } else {
            const bool k0in = k0 + kp < K, k1in = k0 + kp + 1 < K;
#pragma unroll
            for (int g = 0; g < G; g++)
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const float *p = px + ((size_t)g * 128 + q) * ld + k0;
                    const bool in = mask >> (4 * g + q) & 1;
                    v[g][q].x = in && k0in ? p[0] : 0.0f, v[g][q].y = in && k1in ? p[1] : 0.0f;
                }
        }
    }
    __device__ __forceinline__ void land(float *xs) const
    {
#pragma unroll
        for (int g = 0; g < G; g++) {
            *reinterpret_cast<float4 *>(xs + kp * PT + m4 + 128 * g) = make_float4(v[g][0].x, v[g][1].x, v[g][2].x, v[g][3].x);
            *reinterpret_cast<float4 *>(xs + (kp + 1) * PT + m4 + 128 * g) =
                make_float4(v[g][0].y, v[g][1].y, v[g][2].y, v[g][3].y);
        }
    }
    __device__ __forceinline__ void copy(float *xs, size_t k0, size_t K)
    {
        fetch(k0, K);
        land(xs);
    }
};

/* which copy a K-inner A takes: FCopyR (AX 2: through registers), FCopyT (AX 1: 4-byte cp.async) or FCopy */
template <int T, bool KIN, int BT> struct FCopySel { using type = FCopy<KIN, BT>; };
template <bool KIN, int BT> struct FCopySel<1, KIN, BT> { using type = FCopyT<BT>; };
template <bool KIN, int BT> struct FCopySel<2, KIN, BT> { using type = FCopyR<BT>; };

template <int ST, int BM, int BN, bool AK, bool BK, int AX = 0>
__global__ void __launch_bounds__(256, BM * BN <= 128 * 128 ? 2 : 1)
    sgemm_cp(size_t M, size_t N, size_t Kall, float alpha, const float *__restrict__ A, size_t lda,
             const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C, size_t ldc, int flags,
             size_t Kc, float *__restrict__ W)
{
    /* A transposed on its way in (RT: through registers); A read along k */
    constexpr bool AT = AK && AX, AKR = AK && !AT, RT = AK && AX == 2;
    constexpr int BKK = 16, P = 20, SA = sgemm_cp_sa(AK, BM, AX), SB = sgemm_cp_so(BK, BN), KG = BK ? 2 : 4;
    constexpr int PA = AT ? BM + 4 : BM; /* pitch of an [k][m] A */
    constexpr int TN = BM * BN / 2048, WN = 4 * TN, WNC = BN / WN; /* warp tile 64 x WN; warps (BM / 64) x WNC */
    static_assert((BM / 64) * WNC == 8, "eight warps");
    extern __shared__ __align__(16) float fsm[];
    float *As = fsm, *Bs = fsm + ST * SA;
    size_t tm, tn;
    tile_of_block((M + BM - 1) / BM, (N + BN - 1) / BN, tm, tn);
    const size_t m0 = tm * BM, n0 = tn * BN;
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int lm = lane >> 2, ln = lane & 3;
    const int wm = (warp / WNC) * 64, wn = (warp % WNC) * WN;
    /* split K: grid row y takes the range [kb, K) (kb and the range a multiple of 16) */
    const size_t kb = (size_t)blockIdx.y * Kc, K = kb + Kc < Kall ? kb + Kc : Kall;
    const size_t nk = K > kb ? (K - kb + BKK - 1) / BKK : 0;
    typename FCopySel<RT ? 2 : AT ? 1 : 0, AK, BM>::type ca(A, lda, m0, M, tid);
    const FCopy<BK, BN> cb(B, ldb, n0, N, tid);
    auto load = [&](int s, size_t k0) {
        ca.copy(As + s * SA, k0, K);
        cb.copy(Bs + s * SB, k0, K);
    };

    float acc[8][TN];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;
#pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        if ((size_t)s < nk) load(s, kb + (size_t)s * BKK);
        cp_async_commit();
    }
    for (size_t kt = 0; kt < nk; kt++) {
        cp_async_wait<ST - 2>(); /* stage kt has landed (this thread's copies) ... */
        __syncthreads();         /* ... everyone's, and everyone is done with stage kt - 1 */
        const size_t nx = kt + ST - 1;
        if constexpr (RT) { /* A's loads now, its stores after the math */
            if (nx < nk) ca.fetch(kb + nx * BKK, K), cb.copy(Bs + (nx % ST) * SB, kb + nx * BKK, K);
        } else if (nx < nk) load((int)(nx % ST), kb + nx * BKK);
        cp_async_commit();
        const float *as = As + (kt % ST) * SA, *bs = Bs + (kt % ST) * SB;
#pragma unroll
        for (int kq = 0; kq < BKK; kq += KG) {
            float a[8][KG], b[TN][KG];
            if constexpr (AKR) {
#pragma unroll
                for (int i = 0; i < 8; i++) FVec<KG>::load(as + (wm + lm + 8 * i) * P + kq, a[i]);
            } else {
#pragma unroll
                for (int kk = 0; kk < KG; kk++)
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        float v[4];
                        Vec<float, 4>::load(as + (kq + kk) * PA + wm + 32 * h + 4 * lm, v);
#pragma unroll
                        for (int c = 0; c < 4; c++) a[4 * h + c][kk] = v[c];
                    }
            }
            /* an N-inner B's fragment of k step kq + kk (4 x 16-byte loads along n) */
            auto bload = [&](int kk) {
#pragma unroll
                for (int h = 0; h < TN / 4; h++) {
                    float v[4];
                    Vec<float, 4>::load(bs + (kq + kk) * BN + wn + 16 * h + 4 * ln, v);
#pragma unroll
                    for (int c = 0; c < 4; c++) b[4 * h + c][kk] = v[c];
                }
            };
            if constexpr (BK) {
#pragma unroll
                for (int j = 0; j < TN; j++) FVec<KG>::load(bs + (wn + ln + 4 * j) * P + kq, b[j]);
            } else {
#pragma unroll
                for (int kk = 0; kk < KG; kk++) bload(kk);
            }
#pragma unroll
            for (int kk = 0; kk < KG; kk++)
#pragma unroll
                for (int i = 0; i < 8; i++)
#pragma unroll
                    for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[i][kk], b[j][kk], acc[i][j]);
        }
        if constexpr (RT)
            if (nx < nk) ca.land(As + (nx % ST) * SA); /* stage nx (= kt - 1 mod ST): every thread is past its math */
    }
    cp_async_wait<0>();

    /* epilogue as sgemm_128x128's; a K-inner B's columns ln + 4j are stored one by one */
    const bool split = gridDim.y > 1;
    if (split) C = W + (size_t)blockIdx.y * M * N, ldc = N, beta = 0.0f;
    const bool vc = split ? N % 4 == 0 : (flags & VEC_C) != 0, readc = beta != 0.0f;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const size_t row = m0 + wm + (AKR ? lm + 8 * i : 32 * (i >> 2) + 4 * lm + (i & 3));
        if (row >= M) continue;
        float *crow = C + row * ldc;
        if constexpr (BK) {
#pragma unroll
            for (int j = 0; j < TN; j++) {
                const size_t col = n0 + wn + ln + 4 * j;
                if (col < N) crow[col] = readc ? alpha * acc[i][j] + beta * crow[col] : alpha * acc[i][j];
            }
        } else {
#pragma unroll
            for (int h = 0; h < TN / 4; h++) {
                const size_t col = n0 + wn + 16 * h + 4 * ln;
                if (col < N) store_c<float, 4>(crow + col, &acc[i][4 * h], N - col, vc, alpha, beta);
            }
        }
    }
}

/* Split-K: C = sum over the S slices of W (in slice order: deterministic) + beta * C. */
template <typename T>
__global__ void splitk_sum(size_t M, size_t N, int S, const T *__restrict__ W, T beta, T *__restrict__ C, size_t ldc)
{
    const size_t mn = M * N;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < mn; e += (size_t)gridDim.x * blockDim.x) {
        T acc = W[e];
        for (int s = 1; s < S; s++) acc += W[(size_t)s * mn + e];
        T *c = C + e / N * ldc + e % N;
        *c = beta != T(0) ? acc + beta * *c : acc;
    }
}

} // namespace gemmk

#endif
