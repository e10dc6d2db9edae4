/*
 * add.cu — C = alpha * A + beta * B on the GPU, C walked in its own storage order in 32 x 32 tiles (32 x 8 threads,
 * 4 elements each). An operand stored like C is read straight (coalesced); one stored transposed (the other layout)
 * goes through a padded shared tile, as in the transpose, so both sides stay coalesced.
 */
#include "matrix_internal.h"

#include <stdint.h>

namespace {

/* The arithmetic, one definition per dtype (the CPU backend writes the same). */
template <typename T> struct AddOp;
template <> struct AddOp<float> {
    float a, b;
    __device__ float operator()(float x, float y, int ua, int ub) const
    {
        return ua && ub ? fmaf(a, x, b * y) : ua ? a * x : ub ? b * y : 0.0f;
    }
};
template <> struct AddOp<double> {
    double a, b;
    __device__ double operator()(double x, double y, int ua, int ub) const
    {
        return ua && ub ? fma(a, x, b * y) : ua ? a * x : ub ? b * y : 0.0;
    }
};
template <typename U> struct IntOp { /* modulo 2^bits: unsigned arithmetic, truncated */
    uint32_t a, b;
    __device__ U operator()(U x, U y, int ua, int ub) const
    {
        return (U)((ua ? a * (uint32_t)x : 0u) + (ub ? b * (uint32_t)y : 0u));
    }
};
template <> struct AddOp<uint32_t> : IntOp<uint32_t> {};
template <> struct AddOp<uint8_t> : IntOp<uint8_t> {};

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(256) k_add(size_t P, size_t Q, AddOp<T> op, const T *__restrict__ A, size_t lda,
                                             const T *__restrict__ B, size_t ldb, T *__restrict__ C, size_t ldc,
                                             int ua, int ub)
{
    __shared__ T sa[TA ? 32 : 1][33], sb[TB ? 32 : 1][33];
    const size_t tq = (Q + 31) / 32, ntiles = (P + 31) / 32 * tq;
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const size_t p0 = t / tq * 32, q0 = t % tq * 32;
        if (TA || TB) { /* transposed operands: rows of q, lanes along p */
#pragma unroll
            for (int r = threadIdx.y; r < 32; r += 8) {
                const size_t q = q0 + r, p = p0 + threadIdx.x;
                const bool in = p < P && q < Q;
                if (TA && ua && in) sa[r][threadIdx.x] = A[q * lda + p];
                if (TB && ub && in) sb[r][threadIdx.x] = B[q * ldb + p];
            }
            __syncthreads();
        }
#pragma unroll
        for (int r = threadIdx.y; r < 32; r += 8) {
            const size_t p = p0 + r, q = q0 + threadIdx.x;
            if (p >= P || q >= Q) continue;
            const T x = !ua ? T(0) : TA ? sa[threadIdx.x][r] : A[p * lda + q];
            const T y = !ub ? T(0) : TB ? sb[threadIdx.x][r] : B[p * ldb + q];
            C[p * ldc + q] = op(x, y, ua, ub);
        }
        if (TA || TB) __syncthreads();
    }
}

template <typename T> AddOp<T> make_op(const gp__add_t *a);
template <> AddOp<float> make_op<float>(const gp__add_t *a) { AddOp<float> o; o.a = (float)a->alpha, o.b = (float)a->beta; return o; }
template <> AddOp<double> make_op<double>(const gp__add_t *a) { AddOp<double> o; o.a = a->alpha, o.b = a->beta; return o; }
template <> AddOp<uint32_t> make_op<uint32_t>(const gp__add_t *a)
{
    AddOp<uint32_t> o;
    o.a = (uint32_t)(uint64_t)(int64_t)a->alpha, o.b = (uint32_t)(uint64_t)(int64_t)a->beta;
    return o;
}
template <> AddOp<uint8_t> make_op<uint8_t>(const gp__add_t *a)
{
    AddOp<uint8_t> o;
    o.a = (uint32_t)(uint64_t)(int64_t)a->alpha, o.b = (uint32_t)(uint64_t)(int64_t)a->beta;
    return o;
}

template <typename T, bool TA, bool TB> gp_status_t launch(gp_ctx_t *ctx, const gp__add_t *a, cudaStream_t s)
{
    const size_t tiles = (a->P + 31) / 32 * ((a->Q + 31) / 32);
    size_t grid = (size_t)gp__fill_grid(ctx, 256) * 8;
    if (grid > tiles) grid = tiles;
    k_add<T, TA, TB><<<(unsigned)grid, dim3(32, 8), 0, s>>>(a->P, a->Q, make_op<T>(a), (const T *)a->A, a->lda,
                                                           (const T *)a->B, a->ldb, (T *)a->C, a->ldc, a->use_a,
                                                           a->use_b);
    return GP_CHECK_LAUNCH("k_add");
}

template <typename T> gp_status_t dispatch(gp_ctx_t *ctx, const gp__add_t *a, cudaStream_t s)
{
    const bool ta = a->a_t && a->use_a, tb = a->b_t && a->use_b;
    if (ta) return tb ? launch<T, true, true>(ctx, a, s) : launch<T, true, false>(ctx, a, s);
    return tb ? launch<T, false, true>(ctx, a, s) : launch<T, false, false>(ctx, a, s);
}

} // namespace

extern "C" gp_status_t gp__add_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, const gp__add_t *a, cudaStream_t stream)
{
    if (a->P == 0 || a->Q == 0) return GP_OK;
    switch (dtype) {
    case GP_F32: return dispatch<float>(ctx, a, stream);
    case GP_F64: return dispatch<double>(ctx, a, stream);
    case GP_I32: return dispatch<uint32_t>(ctx, a, stream);
    case GP_U8: return dispatch<uint8_t>(ctx, a, stream);
    default: return gp__error(GP_ERR_INTERNAL, "gp_matrix_add: dtype %d", (int)dtype);
    }
}
