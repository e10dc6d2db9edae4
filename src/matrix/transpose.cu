/*
 * transpose.cu — the GPU transpose of storage: out[q][p] = in[p][q]. The primers' shared-memory tile with the +1
 * padding against bank conflicts (32 x 33 elements), a 32 x 8 block taking 4 rows per thread, a one-dimensional
 * grid striding over the tiles (any size, no 65535 limit on a grid dimension).
 */
#include "matrix_internal.h"

#include <stdint.h>

namespace {

constexpr int TILE = 32, ROWS = 8;

template <typename T>
__global__ void __launch_bounds__(TILE *ROWS)
    transpose_tiled(T *__restrict__ out, size_t ldo, const T *__restrict__ in, size_t ldi, size_t P, size_t Q)
{
    __shared__ T tile[TILE][TILE + 1];
    const size_t tq = (Q + TILE - 1) / TILE, tp = (P + TILE - 1) / TILE;
    for (size_t t = (size_t)blockIdx.y * gridDim.x + blockIdx.x; t < tp * tq; t += (size_t)gridDim.x * gridDim.y) {
        const size_t p0 = t / tq * TILE, q0 = t % tq * TILE;
        for (int r = threadIdx.y; r < TILE; r += ROWS) {
            const size_t p = p0 + r, q = q0 + threadIdx.x;
            if (p < P && q < Q) tile[r][threadIdx.x] = in[p * ldi + q];
        }
        __syncthreads();
        for (int r = threadIdx.y; r < TILE; r += ROWS) {
            const size_t q = q0 + r, p = p0 + threadIdx.x;
            if (q < Q && p < P) out[q * ldo + p] = tile[threadIdx.x][r];
        }
        __syncthreads();
    }
}

template <typename T> gp_status_t launch(gp_ctx_t *ctx, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)
{
    const size_t tiles = ((i->prows + TILE - 1) / TILE) * ((i->pcols + TILE - 1) / TILE);
    size_t grid = (size_t)gp__fill_grid(ctx, TILE * ROWS) * 4;
    if (grid > tiles) grid = tiles;
    transpose_tiled<T><<<dim3((unsigned)grid), dim3(TILE, ROWS), 0, s>>>((T *)o->data, o->ld, (const T *)i->data,
                                                                         i->ld, i->prows, i->pcols);
    return GP_CHECK_LAUNCH("gp_matrix_transpose");
}

} // namespace

extern "C" gp_status_t gp__transpose_gpu(gp_ctx_t *ctx, const gp__phys_t *out, const gp__phys_t *in,
                                         cudaStream_t stream)
{
    switch (in->es) {
    case 1: return launch<uint8_t>(ctx, out, in, stream);
    case 4: return launch<uint32_t>(ctx, out, in, stream);
    case 8: return launch<uint64_t>(ctx, out, in, stream);
    default: return gp__error(GP_ERR_INTERNAL, "gp_matrix_transpose: element size %zu", in->es);
    }
}
