/*
 * transpose_versions.cu — the transpose of storage, out[q][p] = in[p][q], from the primers' exercise to production,
 * as numbered versions and their table (the only list of them; `gpuprim lab transpose` times them, production
 * gp__transpose_gpu points at one by id). Every version takes any element size (1, 4, 8 bytes), any P x Q and any
 * leading dimensions. Version 00 is not a transpose: it is the same-shape 2D copy, the ceiling a transpose chases.
 */
#include "matrix_internal.h"

#include <stdint.h>

namespace {

/* t00: a 2D copy out[p][q] = in[p][q] in 32-wide rows, 8 rows per pass: the bytes a transpose moves, coalesced on
 * both sides. */
template <typename T> __global__ void __launch_bounds__(256) t00_copy(T *out, size_t ldo, const T *in, size_t ldi, size_t P, size_t Q)
{
    const size_t tq = (Q + 31) / 32, t = blockIdx.x, p0 = t / tq * 32, q = t % tq * 32 + threadIdx.x;
#pragma unroll
    for (int r = threadIdx.y; r < 32; r += 8) {
        const size_t p = p0 + r;
        if (p < P && q < Q) out[p * ldo + q] = in[p * ldi + q];
    }
}

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
GP_T_SIMPLE(run00, t00_copy, GP_T_TILES32)
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

/* Element-size dispatch: one entry per version. */
#define GP_T_ENTRY(name, call)                                                                                \
    gp_status_t name(gp_ctx_t *ctx, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)                   \
    {                                                                                                          \
        switch (i->es) {                                                                                       \
        case 1: { typedef uint8_t T; return call; }                                                            \
        case 4: { typedef uint32_t T; return call; }                                                           \
        case 8: { typedef uint64_t T; return call; }                                                           \
        default: return gp__error(GP_ERR_INTERNAL, "transpose: element size %zu", i->es);                     \
        }                                                                                                      \
    }
GP_T_ENTRY(v00, (run00<T>(ctx, o, i, s)))
GP_T_ENTRY(v01, (run01<T>(ctx, o, i, s)))
GP_T_ENTRY(v02, (run02<T>(ctx, o, i, s)))
GP_T_ENTRY(v03, (run_tile<T, 32, 32, false, false>(ctx, o, i, s)))
GP_T_ENTRY(v04, (run_tile<T, 32, 32, true, false>(ctx, o, i, s)))
GP_T_ENTRY(v05, (run_tile<T, 32, 8, true, false>(ctx, o, i, s)))
GP_T_ENTRY(v06, (run_tile<T, 32, 8, true, true>(ctx, o, i, s)))
GP_T_ENTRY(v07, (run_tile<T, 64, 8, true, false>(ctx, o, i, s)))
GP_T_ENTRY(v08, (run_tile<T, 64, 16, true, false>(ctx, o, i, s)))
GP_T_ENTRY(v09, (run_tile<T, 64, 8, true, true>(ctx, o, i, s)))

} // namespace

extern "C" {

const gp__transpose_version_t gp__transpose_versions[] = {
    {0, "transpose_v00_copy_ceiling", 1, "not a transpose: the same-shape 2D copy, the bytes moved at best", v00},
    {1, "transpose_v01_naive_row_read", 1, "thread per element, reads coalesced, writes 32 rows apart", v01},
    {2, "transpose_v02_naive_col_read", 1, "thread per element, writes coalesced, reads 32 rows apart", v02},
    {3, "transpose_v03_smem_tile", 1, "32 x 32 shared tile, 1024 threads: both sides coalesced, 32-way bank conflicts",
     v03},
    {4, "transpose_v04_padded_tile", 1, "tile rows padded to 33: a tile column spans all 32 banks", v04},
    {5, "transpose_v05_four_per_thread", 1, "32 x 8 threads, 4 elements each (the primers' BLOCK_ROWS)", v05},
    {6, "transpose_v06_grid_stride", 1, "v05 with a GPU-sized grid striding over the tiles", v06},
    {7, "transpose_v07_tile64", 1, "64 x 64 tiles, 16 elements per thread: 256-byte runs on both sides", v07},
    {8, "transpose_v08_tile64_512", 1, "v07 with 512 threads, 8 elements each", v08},
    {9, "transpose_v09_tile64_grid_stride", 1, "v07 with a GPU-sized grid striding over the tiles", v09},
    {90, "transpose_cpu_backend", 0, "CPU: 32 x 32 cache blocks, OpenMP over block rows", NULL},
};
const int gp__transpose_nversions = (int)(sizeof gp__transpose_versions / sizeof gp__transpose_versions[0]);

gp_status_t gp__transpose_version(int id, gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in,
                                  cudaStream_t stream)
{
    for (int v = 0; v < gp__transpose_nversions; v++)
        if (gp__transpose_versions[v].id == id && gp__transpose_versions[v].launch)
            return gp__transpose_versions[v].launch(ctx, out, in, stream);
    return gp__error(GP_ERR_INVALID_ARG, "transpose: no GPU version %d", id);
}

gp_status_t gp__transpose_gpu(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in, cudaStream_t stream)
{
    return gp__transpose_version(GP__TRANSPOSE_PRODUCTION, ctx, out, in, stream);
}

} /* extern "C" */
