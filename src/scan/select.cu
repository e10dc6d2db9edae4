/*
 * select.cu — the GPU select / partition: the keep flags (u32, or u64 past 2^32 - 1 elements), their exclusive scan
 * in place by gp_scan's kernel (exact: an integer sum) with its carry out = the kept count, then a scatter: a kept
 * x[i] goes to y[pos[i]], a rejected one (partition) to y[count + i - pos[i]] — both stable. Three launches over the
 * context's workspace: [the scan's descriptors | the count | the flags]. A first slice: correct for any n and dtype;
 * a single-pass kernel (flags, counts and look-back in one) is the next step for speed (docs/SCAN.md).
 */
#include "scan_internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace {

constexpr int THREADS = 256;

template <gp_dtype_t D> struct E;
#define GP_E(D, S, EXPR)                                                                                           \
    template <> struct E<D> {                                                                                      \
        typedef S type;                                                                                            \
        static __device__ __forceinline__ int keep(const gp__pred_t &q, S v) { return EXPR; }                      \
    };
GP_E(GP_U8, uint8_t, gp__keep_u(&q, v))
GP_E(GP_U16, uint16_t, gp__keep_u(&q, v))
GP_E(GP_U32, uint32_t, gp__keep_u(&q, v))
GP_E(GP_U64, uint64_t, gp__keep_u(&q, v))
GP_E(GP_I8, int8_t, gp__keep_s(&q, v))
GP_E(GP_I16, int16_t, gp__keep_s(&q, v))
GP_E(GP_I32, int32_t, gp__keep_s(&q, v))
GP_E(GP_I64, int64_t, gp__keep_s(&q, (long long)v))
GP_E(GP_F16, uint16_t, gp__keep_f(&q, (double)__half2float(__ushort_as_half(v))))
GP_E(GP_BF16, uint16_t, gp__keep_f(&q, (double)__bfloat162float(__ushort_as_bfloat16(v))))
GP_E(GP_F32, float, gp__keep_f(&q, (double)v))
GP_E(GP_F64, double, gp__keep_f(&q, v))
#undef GP_E

template <gp_dtype_t D>
__device__ __forceinline__ int keep_at(const gp__pred_t &q, const typename E<D>::type *x, size_t i)
{
    if (q.mode == GP__PM_FLAGS) return q.flags[i] != 0;
    if (q.mode == GP__PM_CONST) return q.value;
    return E<D>::keep(q, x[i]);
}

template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS) k_flags(const typename E<D>::type *x, size_t n, gp__pred_t q, F *f)
{
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        f[i] = (F)keep_at<D>(q, x, i);
}

template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS)
    k_scatter(const typename E<D>::type *x, size_t n, gp__pred_t q, const F *pos, const F *total, int partition,
              typename E<D>::type *y, uint64_t *count_out)
{
    const size_t tot = (size_t)*total;
    if (count_out && blockIdx.x == 0 && threadIdx.x == 0) *count_out = tot;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS) {
        const size_t p = (size_t)pos[i];
        if (keep_at<D>(q, x, i)) y[p] = x[i];
        else if (partition) y[tot + i - p] = x[i];
    }
}

template <gp_dtype_t D, typename F>
gp_status_t launch(gp_ctx_t *ctx, gp_dtype_t fd, size_t n, const void *x, const gp__pred_t &q, int partition, void *y,
                   uint64_t *count_dev, cudaStream_t s)
{
    typedef typename E<D>::type S;
    /* the scan takes the front of the workspace (gp__scan_gpu asks for no more, so it gets the same block); the count
     * and the flags follow it */
    const size_t front = (gp__scan_gpu_workspace_bytes(fd, n) + 255) / 256 * 256;
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, front + 256 + n * sizeof(F), &ws));
    F *total = (F *)((char *)ws + front), *f = (F *)((char *)ws + front + 256);
    const unsigned fill = gp__fill_grid(ctx, THREADS);
    const size_t need = (n + THREADS - 1) / THREADS;
    const unsigned grid = need < fill ? (unsigned)need : fill;
    k_flags<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, q, f);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_select (flags)"));
    GP_TRY_RET(gp__scan_gpu(ctx, GP_REDUCE_SUM, fd, n, f, f, 1, NULL, total, s));
    k_scatter<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, q, f, total, partition, (S *)y, count_dev);
    return GP_CHECK_LAUNCH("gp_select (scatter)");
}

template <gp_dtype_t D>
gp_status_t by_width(gp_ctx_t *ctx, size_t n, const void *x, const gp__pred_t &q, int partition, void *y,
                     uint64_t *count_dev, cudaStream_t s)
{
    if (n <= UINT32_MAX) return launch<D, uint32_t>(ctx, GP_U32, n, x, q, partition, y, count_dev, s);
    return launch<D, unsigned long long>(ctx, GP_U64, n, x, q, partition, y, count_dev, s);
}

} // namespace

extern "C" gp_status_t gp__select_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp__pred_t *p,
                                      int partition, void *y, uint64_t *count_dev, cudaStream_t stream)
{
    const gp__pred_t &q = *p;
    switch (dtype) {
    case GP_U8: return by_width<GP_U8>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_I8: return by_width<GP_I8>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_U16: return by_width<GP_U16>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_I16: return by_width<GP_I16>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_U32: return by_width<GP_U32>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_I32: return by_width<GP_I32>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_U64: return by_width<GP_U64>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_I64: return by_width<GP_I64>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_F16: return by_width<GP_F16>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_BF16: return by_width<GP_BF16>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_F32: return by_width<GP_F32>(ctx, n, x, q, partition, y, count_dev, stream);
    case GP_F64: return by_width<GP_F64>(ctx, n, x, q, partition, y, count_dev, stream);
    default: return gp__error(GP_ERR_INVALID_ARG, "gp_select: dtype %d", (int)dtype);
    }
}
