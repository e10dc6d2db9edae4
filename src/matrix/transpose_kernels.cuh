/*
 * transpose_kernels.cuh — the transpose of storage, out[q][p] = in[p][q], as production runs it: t_vec (a tile moved in
 * vectors on both sides) and its launcher, as templates; version NN is TV<NN> below. transpose.cu instantiates the
 * production one (GP__TRANSPOSE_PRODUCTION, matrix_internal.h); the primers' progression and the other tile shapes are
 * the lab's (lab/transpose_teaching.cuh). Every version takes any element size (1, 2, 4, 8 bytes), any P x Q and any
 * leading dimensions. Include once per .cu (an anonymous namespace).
 */
#ifndef GP_TRANSPOSE_KERNELS_CUH
#define GP_TRANSPOSE_KERNELS_CUH

#include "matrix_internal.h"

#include <stdint.h>

namespace {

/* Vectors of VW elements of T moved as one access (16 bytes for 4- and 8-byte elements, 8 for 2-byte). */
template <typename T, int VW> struct VecT;
template <> struct VecT<uint32_t, 4> { typedef uint4 V; };
template <> struct VecT<uint64_t, 2> { typedef ulonglong2 V; };
template <> struct VecT<uint16_t, 4> { typedef ushort4 V; };
template <> struct VecT<uint8_t, 4> { typedef uchar4 V; };

/* t_vec: a TP x TQ tile moved in VW-element vectors on both sides: each thread loads vectors along a row of in and,
 * after the barrier, gathers VW elements down a column of the tile into one vector store along a row of out. Four
 * times fewer memory instructions than t_tile for f32; edges and unaligned rows fall back to elements. The tile lives
 * in dynamic shared memory (TP x (TQ + 1) elements). Reads run TQ elements along a row, writes TP. */
/* The order blocks take tiles in (ORD): 0 along rows of tiles (consecutive blocks read the same input rows), 1 down
 * columns of tiles (consecutive blocks write the same output rows), 2 in groups of 8 x 8 tiles (both sides stay in
 * fewer DRAM pages at a time). */
__device__ __forceinline__ void tile_order(int ord, size_t t, size_t tp, size_t tq, size_t &ti, size_t &tj)
{
    if (ord == 0) ti = t / tq, tj = t % tq;
    else if (ord == 1) ti = t % tp, tj = t / tp;
    else { /* groups of G tile rows, walked column by column inside */
        const size_t G = 8, per = G * tq, g0 = t / per * G, gs = tp - g0 < G ? tp - g0 : G, r = t % per;
        ti = g0 + r % gs, tj = r / gs;
    }
}

template <typename T, int VW, int TP, int TQ, int NT, int ORD = 0>
__global__ void __launch_bounds__(NT) t_vec(T *out, size_t ldo, const T *in, size_t ldi, size_t P, size_t Q, int vec)
{
    constexpr int SQ = TQ + 1, RV = TQ / VW, WV = TP / VW; /* tile pitch; vectors per read row, per write row */
    typedef typename VecT<T, VW>::V V;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *tile = reinterpret_cast<T *>(smem_raw);
    const size_t tq = (Q + TQ - 1) / TQ, tp = (P + TP - 1) / TP, ntiles = tp * tq;
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        size_t ti, tj;
        tile_order(ORD, t, tp, tq, ti, tj);
        const size_t p0 = ti * TP, q0 = tj * TQ;
#pragma unroll
        for (int e = threadIdx.x; e < TP * RV; e += NT) {
            const int r = e / RV, c = e % RV * VW;
            const size_t p = p0 + r, q = q0 + c;
            if (p >= P) continue;
            if (vec && q + VW <= Q) {
                const V v = *reinterpret_cast<const V *>(in + p * ldi + q);
                const T *w = reinterpret_cast<const T *>(&v);
#pragma unroll
                for (int j = 0; j < VW; j++) tile[r * SQ + c + j] = w[j];
            } else
#pragma unroll
                for (int j = 0; j < VW; j++)
                    if (q + j < Q) tile[r * SQ + c + j] = in[p * ldi + q + j];
        }
        __syncthreads();
#pragma unroll
        for (int e = threadIdx.x; e < TQ * WV; e += NT) {
            const int r = e / WV, c = e % WV * VW; /* out row q0 + r, columns p0 + c .. */
            const size_t q = q0 + r, p = p0 + c;
            if (q >= Q) continue;
            if (vec && p + VW <= P) {
                V v;
                T *w = reinterpret_cast<T *>(&v);
#pragma unroll
                for (int j = 0; j < VW; j++) w[j] = tile[(c + j) * SQ + r];
                *reinterpret_cast<V *>(out + q * ldo + p) = v;
            } else
#pragma unroll
                for (int j = 0; j < VW; j++)
                    if (p + j < P) out[q * ldo + p + j] = tile[(c + j) * SQ + r];
        }
        if (ntiles > gridDim.x) __syncthreads();
    }
}

template <int TP, int TQ, int NT, typename T, int ORD = 0>
gp_status_t run_vec(gp_ctx_t *, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)
{
    constexpr int VW = sizeof(T) == 8 ? 2 : 4;
    const size_t tiles = ((i->prows + TP - 1) / TP) * ((i->pcols + TQ - 1) / TQ);
    if (tiles == 0) return GP_OK;
    const size_t vb = VW * sizeof(T), smem = (size_t)TP * (TQ + 1) * sizeof(T);
    const int vec = i->ld % VW == 0 && o->ld % VW == 0 && (uintptr_t)i->data % vb == 0 && (uintptr_t)o->data % vb == 0;
    gp_status_t st = GP_OK;
    if (smem > 48 * 1024)
        GP_CUDA_TRY(cudaFuncSetAttribute(t_vec<T, VW, TP, TQ, NT, ORD>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    t_vec<T, VW, TP, TQ, NT, ORD><<<(unsigned)(tiles > 0x7fffffffu ? 0x7fffffffu : tiles), NT, smem, s>>>(
        (T *)o->data, o->ld, (const T *)i->data, i->ld, i->prows, i->pcols, vec);
    return GP_CHECK_LAUNCH("t_vec");
fail:
    return st;
}

/* Version NN: TV<NN>::run<T> for an element type T; t_version<NN> dispatches on the element size. Here the production
 * version 21 (GP__TRANSPOSE_PRODUCTION); the others are lab/transpose_teaching.cuh's, made with the same macro. */
template <int ID> struct TV;
#define GP_T_VERSION(id, call)                                                                                \
    template <> struct TV<id> {                                                                                \
        template <typename T>                                                                                  \
        static gp_status_t run(gp_ctx_t *ctx, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)        \
        {                                                                                                      \
            (void)ctx;                                                                                         \
            return call;                                                                                       \
        }                                                                                                      \
    };
GP_T_VERSION(21, (run_vec<32, 32, 64, T, 1>(ctx, o, i, s)))

template <int ID> gp_status_t t_version(gp_ctx_t *ctx, const gp__phys_t *o, const gp__phys_t *i, cudaStream_t s)
{
    switch (i->es) {
    case 1: return TV<ID>::template run<uint8_t>(ctx, o, i, s);
    case 2: return TV<ID>::template run<uint16_t>(ctx, o, i, s);
    case 4: return TV<ID>::template run<uint32_t>(ctx, o, i, s);
    case 8: return TV<ID>::template run<uint64_t>(ctx, o, i, s);
    default: return gp__error(GP_ERR_INTERNAL, "transpose: element size %zu", i->es);
    }
}

} // namespace

#endif
