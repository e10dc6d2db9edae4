/*
 * select.cu — the GPU select / partition: the keep flags (u32, or u64 past 2^32 - 1 elements), their exclusive scan
 * in place by gp_scan's kernel (exact: an integer sum) with its carry out = the kept count, then a scatter: a kept
 * x[i] goes to y[pos[i]], a rejected one (partition) to y[count + i - pos[i]] — both stable. gp_unique keeps each
 * run's first element the same way; gp_run_length_encode scatters the heads' values and starts, then turns the starts
 * into lengths at each run's last element. Three (RLE: four) launches over the
 * context's workspace: [the scan's descriptors | the count | the flags]. A first slice: correct for any n and dtype;
 * a single-pass kernel (flags, counts and look-back in one) is the next step for speed (docs/SCAN.md).
 */
#include "scan_internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

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

/* x[i] == x[j] by value: floats as numbers (NaN equals nothing, -0 == +0), integers exactly */
template <gp_dtype_t D> __device__ __forceinline__ bool same(const typename E<D>::type *x, size_t i, size_t j)
{
    if constexpr (D == GP_F16) return __half2float(__ushort_as_half(x[i])) == __half2float(__ushort_as_half(x[j]));
    else if constexpr (D == GP_BF16)
        return __bfloat162float(__ushort_as_bfloat16(x[i])) == __bfloat162float(__ushort_as_bfloat16(x[j]));
    else return x[i] == x[j];
}

/* What a pass keeps: MODE_PRED by the predicate, MODE_HEAD the first element of each run of equal ones. */
enum { MODE_PRED, MODE_HEAD };
template <gp_dtype_t D, int MODE>
__device__ __forceinline__ int keep_at(const gp__pred_t &q, const typename E<D>::type *x, size_t i)
{
    if constexpr (MODE == MODE_HEAD) {
        return i == 0 || !same<D>(x, i, i - 1);
    } else {
        if (q.mode == GP__PM_FLAGS) return q.flags[i] != 0;
        if (q.mode == GP__PM_CONST) return q.value;
        return E<D>::keep(q, x[i]);
    }
}

template <gp_dtype_t D, typename F, int MODE>
__global__ void __launch_bounds__(THREADS) k_flags(const typename E<D>::type *x, size_t n, gp__pred_t q, F *f)
{
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        f[i] = (F)keep_at<D, MODE>(q, x, i);
}

template <gp_dtype_t D, typename F, int MODE>
__global__ void __launch_bounds__(THREADS)
    k_scatter(const typename E<D>::type *x, size_t n, gp__pred_t q, const F *pos, const F *total, int partition,
              typename E<D>::type *y, uint64_t *count_out)
{
    const size_t tot = (size_t)*total;
    if (count_out && blockIdx.x == 0 && threadIdx.x == 0) *count_out = tot;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS) {
        const size_t p = (size_t)pos[i];
        if (keep_at<D, MODE>(q, x, i)) y[p] = x[i];
        else if (partition) y[tot + i - p] = x[i];
    }
}

/* Run-length encoding after the heads' scan: each head writes its run's value and its start into lengths[r]; then
 * (the next launch) each run's last element turns that start into the length. */
template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS)
    k_rle_heads(const typename E<D>::type *x, size_t n, const F *pos, const F *total, typename E<D>::type *values,
                uint64_t *lengths, uint64_t *runs_out)
{
    if (runs_out && blockIdx.x == 0 && threadIdx.x == 0) *runs_out = (uint64_t)*total;
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        if (i == 0 || !same<D>(x, i, i - 1)) {
            values[pos[i]] = x[i];
            lengths[pos[i]] = i;
        }
}
template <gp_dtype_t D, typename F>
__global__ void __launch_bounds__(THREADS)
    k_rle_tails(const typename E<D>::type *x, size_t n, const F *pos, uint64_t *lengths)
{
    for (size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS)
        if (i + 1 == n || !same<D>(x, i + 1, i)) {
            const size_t r = (size_t)pos[i] + (i == 0 || !same<D>(x, i, i - 1)) - 1;
            lengths[r] = i + 1 - lengths[r];
        }
}

/* job: 0 select, 1 partition, 2 unique, 3 run-length encoding (y = values, lengths) */
template <gp_dtype_t D, typename F>
gp_status_t launch(gp_ctx_t *ctx, gp_dtype_t fd, size_t n, const void *x, const gp__pred_t &q, int job, void *y,
                   uint64_t *lengths, uint64_t *count_dev, cudaStream_t s)
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
    if (job < 2) k_flags<D, F, MODE_PRED><<<grid, THREADS, 0, s>>>((const S *)x, n, q, f);
    else k_flags<D, F, MODE_HEAD><<<grid, THREADS, 0, s>>>((const S *)x, n, q, f);
    GP_TRY_RET(GP_CHECK_LAUNCH("gp_select (flags)"));
    GP_TRY_RET(gp__scan_gpu(ctx, GP_REDUCE_SUM, fd, n, f, f, 1, NULL, total, s));
    if (job < 2) {
        k_scatter<D, F, MODE_PRED><<<grid, THREADS, 0, s>>>((const S *)x, n, q, f, total, job, (S *)y, count_dev);
    } else if (job == 2) {
        k_scatter<D, F, MODE_HEAD><<<grid, THREADS, 0, s>>>((const S *)x, n, q, f, total, 0, (S *)y, count_dev);
    } else {
        k_rle_heads<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, f, total, (S *)y, lengths, count_dev);
        GP_TRY_RET(GP_CHECK_LAUNCH("gp_run_length_encode (heads)"));
        k_rle_tails<D, F><<<grid, THREADS, 0, s>>>((const S *)x, n, f, lengths);
    }
    return GP_CHECK_LAUNCH("gp_select (scatter)");
}

template <gp_dtype_t D>
gp_status_t by_width(gp_ctx_t *ctx, size_t n, const void *x, const gp__pred_t &q, int job, void *y, uint64_t *lengths,
                     uint64_t *count_dev, cudaStream_t s)
{
    if (n <= UINT32_MAX) return launch<D, uint32_t>(ctx, GP_U32, n, x, q, job, y, lengths, count_dev, s);
    return launch<D, unsigned long long>(ctx, GP_U64, n, x, q, job, y, lengths, count_dev, s);
}

} // namespace

extern "C" gp_status_t gp__select_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp__pred_t *p,
                                      int job, void *y, uint64_t *lengths, uint64_t *count_dev, cudaStream_t stream)
{
    gp__pred_t none;
    memset(&none, 0, sizeof none);
    const gp__pred_t &q = p ? *p : none;
    switch (dtype) {
    case GP_U8: return by_width<GP_U8>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I8: return by_width<GP_I8>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_U16: return by_width<GP_U16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I16: return by_width<GP_I16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_U32: return by_width<GP_U32>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I32: return by_width<GP_I32>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_U64: return by_width<GP_U64>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_I64: return by_width<GP_I64>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_F16: return by_width<GP_F16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_BF16: return by_width<GP_BF16>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_F32: return by_width<GP_F32>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    case GP_F64: return by_width<GP_F64>(ctx, n, x, q, job, y, lengths, count_dev, stream);
    default: return gp__error(GP_ERR_INVALID_ARG, "gp_select: dtype %d", (int)dtype);
    }
}
