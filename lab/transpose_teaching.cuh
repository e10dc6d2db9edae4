/*
 * transpose_teaching.cuh — the transpose versions production does not run, over src/matrix/transpose_kernels.cuh:
 * version 00 (the same-shape copy, the ceiling a transpose chases), the primers' naive kernels (01, 02), the shared-
 * memory tile with and without padding and a persistent grid (03-09), and t_vec's other tile shapes and orders (10-20,
 * 22). lab/transpose_versions.cu includes this after transpose_kernels.cuh.
 */
#ifndef GP_LAB_TRANSPOSE_TEACHING_CUH
#define GP_LAB_TRANSPOSE_TEACHING_CUH

#include "matrix/transpose_kernels.cuh"

namespace {

/* t01: one thread per element, lanes along q: reads coalesced, writes 4-8 bytes each into 32 different rows. */
template <typename T> __global__ void __launch_bounds__(256) t01_naive_row(T *out, size_t ldo, const T *in, size_t ldi, size_t P, size_t Q)
{
    const size_t tq = (Q + 31) / 32, t = blockIdx.x, p0 = t / tq * 32, q = t % tq * 32 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += 8) {
        const size_t p = p0 + r;
        if (p < P && q < Q) out[q * ldo + p] = in[p * ldi + q];
    }
}

/* t02: lanes along p: writes coalesced, reads scattered over 32 rows (the read side pays now; reads are cached,
 * so it does better than t01). */
template <typename T> __global__ void __launch_bounds__(256) t02_naive_col(T *out, size_t ldo, const T *in, size_t ldi, size_t P, size_t Q)
{
    const size_t tp = (P + 31) / 32, t = blockIdx.x, q0 = t / tp * 32, p = t % tp * 32 + threadIdx.x;
    for (int r = threadIdx.y; r < 32; r += 8) {
        const size_t q = q0 + r;
        if (p < P && q < Q) out[q * ldo + p] = in[p * ldi + q];
    }
}

/* The shared-memory tile: a TILE x TILE block of in read along rows, written out along rows of out; 32 x ROWS
 * threads, TILE / 32 x TILE / ROWS elements each. PAD: one element of padding per tile row, so a column of the tile
 * spans all banks. PERSIST: a grid sized to the GPU striding over the tiles, else one tile per block. */
template <typename T, int TILE, int ROWS, bool PAD, bool PERSIST>
__global__ void __launch_bounds__(32 * ROWS) t_tile(T *out, size_t ldo, const T *in, size_t ldi, size_t P, size_t Q)
{
    __shared__ T tile[TILE][TILE + (PAD ? 1 : 0)];
    const size_t tq = (Q + TILE - 1) / TILE, ntiles = (P + TILE - 1) / TILE * tq;
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const size_t p0 = t / tq * TILE, q0 = t % tq * TILE;
#pragma unroll
        for (int r = threadIdx.y; r < TILE; r += ROWS)
#pragma unroll
            for (int c = threadIdx.x; c < TILE; c += 32) {
                const size_t p = p0 + r, q = q0 + c;
                if (p < P && q < Q) tile[r][c] = in[p * ldi + q];
            }
        __syncthreads();
#pragma unroll
        for (int r = threadIdx.y; r < TILE; r += ROWS)
#pragma unroll
            for (int c = threadIdx.x; c < TILE; c += 32) {
                const size_t q = q0 + r, p = p0 + c;
                if (p < P && q < Q) out[q * ldo + p] = tile[c][r];
            }
        if (ntiles > gridDim.x) __syncthreads(); /* the tile is reused */
    }
}

/* t00 in 16-byte vectors (the ceiling as the hardware sees it): rows of in copied to rows of out. */
template <typename T>
__global__ void __launch_bounds__(256) t00_copy_vec(T *out, size_t ldo, const T *in, size_t ldi, size_t P, size_t Q, int vec)
{
    constexpr int VW = 16 / sizeof(T);
    const size_t vpr = (Q + VW - 1) / VW, nv = P * vpr;
    for (size_t e = (size_t)blockIdx.x * 256 + threadIdx.x; e < nv; e += (size_t)gridDim.x * 256) {
        const size_t p = e / vpr, q = e % vpr * VW;
        if (vec && q + VW <= Q) *reinterpret_cast<uint4 *>(out + p * ldo + q) = *reinterpret_cast<const uint4 *>(in + p * ldi + q);
        else
            for (int j = 0; j < VW && q + j < Q; j++) out[p * ldo + q + j] = in[p * ldi + q + j];
    }
}
template <typename T> gp_status_t run00v(gp_ctx_t *, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)
{
    constexpr size_t VW = 16 / sizeof(T);
    const size_t nv = i->prows * ((i->pcols + VW - 1) / VW), blocks = (nv + 255) / 256;
    if (nv == 0) return GP_OK;
    const int vec = i->ld % VW == 0 && o->ld % VW == 0 && (uintptr_t)i->data % 16 == 0 && (uintptr_t)o->data % 16 == 0;
    t00_copy_vec<T><<<(unsigned)(blocks > 0x7fffffffu ? 0x7fffffffu : blocks), 256, 0, s>>>(
        (T *)o->data, o->ld, (const T *)i->data, i->ld, i->prows, i->pcols, vec);
    return GP_CHECK_LAUNCH("t00_copy_vec");
}

/* Launches kernel K over one block per 32 x 32 tile (versions 00-02). */
#define GP_T_SIMPLE(fn, kern, tiles_of)                                                                       \
    template <typename T> gp_status_t fn(gp_ctx_t *, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s) \
    {                                                                                                          \
        const size_t tiles = tiles_of;                                                                         \
        if (tiles == 0) return GP_OK;                                                                          \
        if (tiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "transpose: %zu tiles", tiles);        \
        kern<T><<<(unsigned)tiles, dim3(32, 8), 0, s>>>((T *)o->data, o->ld, (const T *)i->data, i->ld,        \
                                                          i->prows, i->pcols);                                 \
        return GP_CHECK_LAUNCH(#kern);                                                                         \
    }
#define GP_T_TILES32 ((i->prows + 31) / 32) * ((i->pcols + 31) / 32)
GP_T_SIMPLE(run01, t01_naive_row, GP_T_TILES32)
GP_T_SIMPLE(run02, t02_naive_col, GP_T_TILES32)

template <typename T, int TILE, int ROWS, bool PAD, bool PERSIST>
gp_status_t run_tile(gp_ctx_t *ctx, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)
{
    const size_t tiles = ((i->prows + TILE - 1) / TILE) * ((i->pcols + TILE - 1) / TILE);
    if (tiles == 0) return GP_OK;
    size_t grid = tiles;
    if (PERSIST) {
        const size_t fill = (size_t)gp__fill_grid(ctx, 32 * ROWS) * 4;
        if (grid > fill) grid = fill;
    }
    if (grid > 0x7fffffffu) grid = 0x7fffffffu; /* the blocks then stride */
    t_tile<T, TILE, ROWS, PAD, PERSIST><<<(unsigned)grid, dim3(32, ROWS), 0, s>>>(
        (T *)o->data, o->ld, (const T *)i->data, i->ld, i->prows, i->pcols);
    return GP_CHECK_LAUNCH("t_tile");
}

GP_T_VERSION(0, (run00v<T>(ctx, o, i, s)))
GP_T_VERSION(1, (run01<T>(ctx, o, i, s)))
GP_T_VERSION(2, (run02<T>(ctx, o, i, s)))
GP_T_VERSION(3, (run_tile<T, 32, 32, false, false>(ctx, o, i, s)))
GP_T_VERSION(4, (run_tile<T, 32, 32, true, false>(ctx, o, i, s)))
GP_T_VERSION(5, (run_tile<T, 32, 8, true, false>(ctx, o, i, s)))
GP_T_VERSION(6, (run_tile<T, 32, 8, true, true>(ctx, o, i, s)))
GP_T_VERSION(7, (run_tile<T, 64, 8, true, false>(ctx, o, i, s)))
GP_T_VERSION(8, (run_tile<T, 64, 16, true, false>(ctx, o, i, s)))
GP_T_VERSION(9, (run_tile<T, 64, 8, true, true>(ctx, o, i, s)))
GP_T_VERSION(10, (run_vec<64, 64, 256, T>(ctx, o, i, s)))
GP_T_VERSION(11, (run_vec<128, 128, 512, T>(ctx, o, i, s)))
GP_T_VERSION(12, (run_vec<64, 256, 512, T>(ctx, o, i, s)))
GP_T_VERSION(13, (run_vec<256, 64, 512, T>(ctx, o, i, s)))
GP_T_VERSION(14, (run_vec<64, 64, 128, T>(ctx, o, i, s)))
GP_T_VERSION(15, (run_vec<32, 32, 64, T>(ctx, o, i, s)))
GP_T_VERSION(16, (run_vec<64, 64, 512, T>(ctx, o, i, s)))
GP_T_VERSION(17, (run_vec<32, 32, 32, T>(ctx, o, i, s)))
GP_T_VERSION(18, (run_vec<32, 32, 128, T>(ctx, o, i, s)))
GP_T_VERSION(19, (run_vec<32, 64, 64, T>(ctx, o, i, s)))
GP_T_VERSION(20, (run_vec<64, 32, 64, T>(ctx, o, i, s)))
GP_T_VERSION(22, (run_vec<32, 32, 64, T, 2>(ctx, o, i, s)))
#undef GP_T_VERSION

} // namespace

#endif
