// cub_peer.cu — CUB reductions for `gpuprim bench reduce` (C++ allowed here only; never linked into the library).
// Temporary storage is kept per kind and grown in gp_peer_cub_prepare, so timed calls only launch.
#include "peers.h"

#include <cub/cub.cuh>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>

namespace {
struct ToU64 {
    __host__ __device__ unsigned long long operator()(unsigned char v) const { return v; }
};
struct MaxOp {
    __host__ __device__ float operator()(float a, float b) const { return a > b ? a : b; }
};
struct MinOp {
    __host__ __device__ int operator()(int a, int b) const { return a < b ? a : b; }
};
struct GtZero {
    __host__ __device__ bool operator()(float v) const { return v > 0.0f; }
};

struct Mat2 {
    float a, b, c, d; /* row-major [[a, b], [c, d]] */
};
struct Mat2Mul {
    __host__ __device__ Mat2 operator()(const Mat2 &x, const Mat2 &y) const
    {
        return Mat2{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
    }
};

struct Aff {
    float a, b; /* x -> a x + b */
};
struct AffThen { /* x applied first, then y */
    __host__ __device__ Aff operator()(const Aff &x, const Aff &y) const { return Aff{y.a * x.a, y.a * x.b + y.b}; }
};

void *g_temp[GP_PEER_CUB_COUNT];
unsigned long long *g_selected; /* DeviceSelect / DevicePartition's count */
void *g_scan_out;
size_t g_scan_out_bytes;
unsigned long long *g_rle_lengths; /* DeviceRunLengthEncode's lengths: n of them */
size_t g_rle_n;
unsigned *g_sort_vals; /* DeviceRadixSort::SortPairs' values: n in, then n out */
size_t g_sort_n;
size_t g_temp_bytes[GP_PEER_CUB_COUNT];

cudaError_t run(gp_peer_cub_t kind, void *temp, size_t &bytes, size_t n, const void *x, void *out,
                cudaStream_t s)
{
    const int64_t nn = (int64_t)n;
    switch (kind) {
    case GP_PEER_SUM_F32: return cub::DeviceReduce::Sum(temp, bytes, (const float *)x, (float *)out, nn, s);
    case GP_PEER_SUM_I32: return cub::DeviceReduce::Sum(temp, bytes, (const int *)x, (int *)out, nn, s);
    case GP_PEER_MAX_F32:
        return cub::DeviceReduce::Reduce(temp, bytes, (const float *)x, (float *)out, nn, MaxOp(), -INFINITY, s);
    case GP_PEER_MIN_I32:
        return cub::DeviceReduce::Reduce(temp, bytes, (const int *)x, (int *)out, nn, MinOp(), INT32_MAX, s);
    case GP_PEER_SUM_U8_U64:
        return cub::DeviceReduce::TransformReduce(temp, bytes, (const unsigned char *)x, (unsigned long long *)out, nn,
                                                  ::cuda::std::plus<unsigned long long>(), ToU64(), 0ull, s);
    case GP_PEER_SCAN_MAT2_F32:
        return cub::DeviceScan::InclusiveScan(temp, bytes, (const Mat2 *)x, (Mat2 *)g_scan_out, Mat2Mul(), nn, s);
    case GP_PEER_SCAN_SUM_F32: return cub::DeviceScan::InclusiveSum(temp, bytes, (const float *)x, (float *)out, nn, s);
    case GP_PEER_EXSCAN_SUM_U32:
        return cub::DeviceScan::ExclusiveSum(temp, bytes, (const unsigned *)x, (unsigned *)out, nn, s);
    case GP_PEER_SELECT_GT0_F32:
        return cub::DeviceSelect::If(temp, bytes, (const float *)x, (float *)out, g_selected, nn, GtZero(), s);
    case GP_PEER_PARTITION_GT0_F32:
        return cub::DevicePartition::If(temp, bytes, (const float *)x, (float *)out, g_selected, nn, GtZero(), s);
    case GP_PEER_UNIQUE_I32: return cub::DeviceSelect::Unique(temp, bytes, (const int *)x, (int *)out, g_selected, nn, s);
    case GP_PEER_SCAN_AFFINE_F32:
        return cub::DeviceScan::InclusiveScan(temp, bytes, (const Aff *)x, (Aff *)out, AffThen(), nn, s);
    case GP_PEER_SORT_U32:
        return cub::DeviceRadixSort::SortKeys(temp, bytes, (const unsigned *)x, (unsigned *)out, nn, 0, 32, s);
    case GP_PEER_SORT_F32:
        return cub::DeviceRadixSort::SortKeys(temp, bytes, (const float *)x, (float *)out, nn, 0, 32, s);
    case GP_PEER_SORT_U64:
        return cub::DeviceRadixSort::SortKeys(temp, bytes, (const unsigned long long *)x, (unsigned long long *)out,
                                              nn, 0, 64, s);
    case GP_PEER_SORT_PAIRS_U32:
        return cub::DeviceRadixSort::SortPairs(temp, bytes, (const unsigned *)x, (unsigned *)out, g_sort_vals,
                                               g_sort_vals + g_sort_n, nn, 0, 32, s);
    case GP_PEER_SORT_PAIRS_U64:
        return cub::DeviceRadixSort::SortPairs(temp, bytes, (const unsigned long long *)x, (unsigned long long *)out,
                                               g_sort_vals, g_sort_vals + g_sort_n, nn, 0, 64, s);
    case GP_PEER_RLE_I32:
        return cub::DeviceRunLengthEncode::Encode(temp, bytes, (const int *)x, (int *)out, g_rle_lengths, g_selected,
                                                  nn, s);
    default: return cudaErrorInvalidValue;
    }
}
} // namespace

extern "C" const char *gp_peer_cub_name(gp_peer_cub_t kind)
{
    static const char *const names[] = {"cub::Sum f32", "cub::Sum i32", "cub::Max f32", "cub::Min i32",
                                        "cub::TransformReduce u8>u64", "cub::InclusiveScan mat2",
                                        "cub::InclusiveSum f32", "cub::ExclusiveSum u32", "cub::DeviceSelect::If",
                                        "cub::DevicePartition::If", "cub::DeviceSelect::Unique",
                                        "cub::InclusiveScan affine", "cub::DeviceRunLengthEncode::Encode",
                                        "cub::DeviceRadixSort::SortKeys u32", "cub::DeviceRadixSort::SortKeys f32",
                                        "cub::DeviceRadixSort::SortKeys u64", "cub::DeviceRadixSort::SortPairs u32/u32",
                                        "cub::DeviceRadixSort::SortPairs u64/u32"};
    return (unsigned)kind < GP_PEER_CUB_COUNT ? names[kind] : "?";
}

extern "C" int gp_peer_cub_prepare(gp_peer_t *, gp_peer_cub_t kind, size_t n, char *err)
{
    size_t bytes = 0;
    cudaError_t e = cudaSuccess;
    if (kind == GP_PEER_SCAN_MAT2_F32 && n * sizeof(Mat2) > g_scan_out_bytes) {
        if (g_scan_out) cudaFree(g_scan_out);
        g_scan_out = nullptr;
        g_scan_out_bytes = 0;
        e = cudaMalloc(&g_scan_out, n * sizeof(Mat2));
        if (e == cudaSuccess) g_scan_out_bytes = n * sizeof(Mat2);
    }
    if (kind == GP_PEER_RLE_I32 && n > g_rle_n) {
        if (g_rle_lengths) cudaFree(g_rle_lengths);
        g_rle_lengths = nullptr;
        g_rle_n = 0;
        e = cudaMalloc(&g_rle_lengths, n * sizeof *g_rle_lengths);
        if (e == cudaSuccess) g_rle_n = n;
    }
    if ((kind == GP_PEER_SORT_PAIRS_U32 || kind == GP_PEER_SORT_PAIRS_U64) && n > g_sort_n) {
        if (g_sort_vals) cudaFree(g_sort_vals);
        g_sort_vals = nullptr;
        g_sort_n = 0;
        e = cudaMalloc(&g_sort_vals, 2 * n * sizeof *g_sort_vals);
        if (e == cudaSuccess) e = cudaMemset(g_sort_vals, 0, 2 * n * sizeof *g_sort_vals);
        if (e == cudaSuccess) g_sort_n = n;
    }
    if (e == cudaSuccess && g_selected == nullptr) e = cudaMalloc(&g_selected, sizeof *g_selected);
    if (e == cudaSuccess) e = run(kind, nullptr, bytes, n, nullptr, nullptr, nullptr);
    if (e == cudaSuccess && bytes > g_temp_bytes[kind]) {
        if (g_temp[kind]) cudaFree(g_temp[kind]);
        g_temp[kind] = nullptr;
        g_temp_bytes[kind] = 0;
        e = cudaMalloc(&g_temp[kind], bytes);
        if (e == cudaSuccess) g_temp_bytes[kind] = bytes;
    }
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "CUB %s temp storage: %s", gp_peer_cub_name(kind), cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" unsigned long long *gp_peer_selected(void) { return g_selected; }
extern "C" unsigned long long *gp_peer_rle_lengths(void) { return g_rle_lengths; }

extern "C" int gp_peer_cub(gp_peer_t *, gp_peer_cub_t kind, size_t n, const void *x, void *out_dev,
                              gp_peer_stream_t stream, char *err)
{
    size_t bytes = g_temp_bytes[kind];
    cudaError_t e = run(kind, g_temp[kind], bytes, n, x, out_dev, stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "%s: %s", gp_peer_cub_name(kind), cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

namespace {
void *g_seg_temp;
size_t g_seg_temp_bytes;
cudaError_t segsum(void *temp, size_t &bytes, size_t nseg, const long long *off, const float *x, float *out,
                   cudaStream_t s)
{
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, x, out, (int64_t)nseg, off, off + 1, s);
}
} // namespace

extern "C" int gp_peer_segsum_prepare(size_t nseg, const long long *offsets, char *err)
{
    size_t bytes = 0;
    cudaError_t e = segsum(nullptr, bytes, nseg, offsets, nullptr, nullptr, nullptr);
    if (e == cudaSuccess && bytes > g_seg_temp_bytes) {
        if (g_seg_temp) cudaFree(g_seg_temp);
        g_seg_temp = nullptr;
        g_seg_temp_bytes = 0;
        e = cudaMalloc(&g_seg_temp, bytes);
        if (e == cudaSuccess) g_seg_temp_bytes = bytes;
    }
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::DeviceSegmentedReduce temp storage: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" int gp_peer_segsum(size_t nseg, const long long *offsets, const float *x, float *out_dev,
                              gp_peer_stream_t stream, char *err)
{
    size_t bytes = g_seg_temp_bytes;
    cudaError_t e = segsum(g_seg_temp, bytes, nseg, offsets, x, out_dev, stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::DeviceSegmentedReduce::Sum: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

namespace {
void *g_hist_temp;
size_t g_hist_temp_bytes;
cudaError_t hist(void *temp, size_t &bytes, int u8, size_t n, const void *x, int nbins, double lo, double hi,
                 unsigned *counts, cudaStream_t s)
{
    /* int offsets: CUB's common instantiation; the bench's inputs are below 2^31 elements */
    if (u8)
        return cub::DeviceHistogram::HistogramEven(temp, bytes, (const unsigned char *)x, counts, nbins + 1, (int)lo,
                                                   (int)hi, (int)n, s);
    return cub::DeviceHistogram::HistogramEven(temp, bytes, (const float *)x, counts, nbins + 1, (float)lo, (float)hi,
                                               (int)n, s);
}
} // namespace

extern "C" int gp_peer_histogram_prepare(int u8, size_t n, int nbins, double lo, double hi, char *err)
{
    size_t bytes = 0;
    cudaError_t e = n > 0x7fffffff ? cudaErrorInvalidValue : hist(nullptr, bytes, u8, n, nullptr, nbins, lo, hi, nullptr, nullptr);
    if (e == cudaSuccess && bytes > g_hist_temp_bytes) {
        if (g_hist_temp) cudaFree(g_hist_temp);
        g_hist_temp = nullptr;
        g_hist_temp_bytes = 0;
        e = cudaMalloc(&g_hist_temp, bytes);
        if (e == cudaSuccess) g_hist_temp_bytes = bytes;
    }
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::DeviceHistogram temp storage: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" int gp_peer_histogram(int u8, size_t n, const void *x, int nbins, double lo, double hi, unsigned *counts_dev,
                                 gp_peer_stream_t stream, char *err)
{
    size_t bytes = g_hist_temp_bytes;
    cudaError_t e = hist(g_hist_temp, bytes, u8, n, x, nbins, lo, hi, counts_dev, stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::DeviceHistogram::HistogramEven: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

namespace {
void *g_bk_temp[2];
size_t g_bk_temp_bytes[2];
struct SumF {
    __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
cudaError_t bykey(int scan, void *temp, size_t &bytes, size_t n, const int *k, const float *v, int *ko, float *vo,
                  cudaStream_t s)
{
    if (scan) return cub::DeviceScan::InclusiveSumByKey(temp, bytes, k, v, vo, (int)n, ::cuda::std::equal_to<int>(), s);
    return cub::DeviceReduce::ReduceByKey(temp, bytes, k, ko, v, vo, g_selected, SumF(), (int)n, s);
}
} // namespace

extern "C" int gp_peer_bykey_prepare(int scan, size_t n, char *err)
{
    size_t bytes = 0;
    scan = scan != 0;
    cudaError_t e = n > 0x7fffffff ? cudaErrorInvalidValue : cudaSuccess;
    if (e == cudaSuccess && g_selected == nullptr) e = cudaMalloc(&g_selected, sizeof *g_selected);
    if (e == cudaSuccess) e = bykey(scan, nullptr, bytes, n, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (e == cudaSuccess && bytes > g_bk_temp_bytes[scan]) {
        if (g_bk_temp[scan]) cudaFree(g_bk_temp[scan]);
        g_bk_temp[scan] = nullptr;
        g_bk_temp_bytes[scan] = 0;
        e = cudaMalloc(&g_bk_temp[scan], bytes);
        if (e == cudaSuccess) g_bk_temp_bytes[scan] = bytes;
    }
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "CUB %s temp storage: %s", scan ? "InclusiveSumByKey" : "ReduceByKey",
                      cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" int gp_peer_bykey(int scan, size_t n, const int *keys, const float *vals, int *keys_out, float *vals_out,
                             gp_peer_stream_t stream, char *err)
{
    scan = scan != 0;
    size_t bytes = g_bk_temp_bytes[scan];
    cudaError_t e = bykey(scan, g_bk_temp[scan], bytes, n, keys, vals, keys_out, vals_out, stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::%s: %s", scan ? "DeviceScan::InclusiveSumByKey" : "DeviceReduce::ReduceByKey",
                      cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

namespace {
void *g_ss_temp[2];
size_t g_ss_temp_bytes[2];
cudaError_t segsort(int radix, void *temp, size_t &bytes, size_t n, size_t nseg, const long long *o,
                    const unsigned *k, unsigned *ko, cudaStream_t s)
{
    if (radix)
        return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, k, ko, (int)n, (int)nseg, o, o + 1, 0, 32, s);
    return cub::DeviceSegmentedSort::SortKeys(temp, bytes, k, ko, (::cuda::std::int64_t)n,
                                              (::cuda::std::int64_t)nseg, o, o + 1, s);
}
} // namespace

extern "C" int gp_peer_segsort_prepare(int radix, size_t n, size_t nseg, const long long *offsets, char *err)
{
    size_t bytes = 0;
    radix = radix != 0;
    cudaError_t e = n > 0x7fffffff || nseg > 0x7fffffff ? cudaErrorInvalidValue : cudaSuccess;
    if (e == cudaSuccess) e = segsort(radix, nullptr, bytes, n, nseg, offsets, nullptr, nullptr, nullptr);
    if (e == cudaSuccess && bytes > g_ss_temp_bytes[radix]) {
        if (g_ss_temp[radix]) cudaFree(g_ss_temp[radix]);
        g_ss_temp[radix] = nullptr;
        g_ss_temp_bytes[radix] = 0;
        e = cudaMalloc(&g_ss_temp[radix], bytes);
        if (e == cudaSuccess) g_ss_temp_bytes[radix] = bytes;
    }
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "CUB %s temp storage: %s", radix ? "DeviceSegmentedRadixSort" : "DeviceSegmentedSort",
                      cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" int gp_peer_segsort(int radix, size_t n, size_t nseg, const long long *offsets, const unsigned *keys,
                               unsigned *keys_out, gp_peer_stream_t stream, char *err)
{
    radix = radix != 0;
    size_t bytes = g_ss_temp_bytes[radix];
    cudaError_t e = segsort(radix, g_ss_temp[radix], bytes, n, nseg, offsets, keys, keys_out, stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::%s::SortKeys: %s", radix ? "DeviceSegmentedRadixSort" : "DeviceSegmentedSort",
                      cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

namespace {
struct less_u32 {
    __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};
void *g_ms_temp;
size_t g_ms_temp_bytes;
} // namespace

extern "C" int gp_peer_mergesort_prepare(size_t n, char *err)
{
    size_t bytes = 0;
    cudaError_t e = n > 0x7fffffff ? cudaErrorInvalidValue
                                   : cub::DeviceMergeSort::SortKeysCopy(nullptr, bytes, (const unsigned *)nullptr,
                                                                        (unsigned *)nullptr, (int)n, less_u32());
    if (e == cudaSuccess && bytes > g_ms_temp_bytes) {
        if (g_ms_temp) cudaFree(g_ms_temp);
        g_ms_temp = nullptr;
        g_ms_temp_bytes = 0;
        e = cudaMalloc(&g_ms_temp, bytes);
        if (e == cudaSuccess) g_ms_temp_bytes = bytes;
    }
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "CUB DeviceMergeSort temp storage: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" int gp_peer_mergesort(size_t n, const unsigned *keys, unsigned *keys_out, gp_peer_stream_t stream, char *err)
{
    size_t bytes = g_ms_temp_bytes;
    cudaError_t e = cub::DeviceMergeSort::SortKeysCopy(g_ms_temp, bytes, keys, keys_out, (int)n, less_u32(), stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::snprintf(err, 256, "cub::DeviceMergeSort::SortKeysCopy: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
