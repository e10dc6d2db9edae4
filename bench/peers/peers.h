/*
 * peers.h — the peers gpuprim benchmarks itself against (C++ inside, C linkage here). Linked into the CLI only.
 * Every call returns 0 on success, else non-zero with a message in err (at least 256 bytes).
 */
#ifndef GP_PEERS_H
#define GP_PEERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gp_peer gp_peer_t;
typedef struct CUstream_st *gp_peer_stream_t;

int gp_peer_create(gp_peer_t **peer, int device, char *err);
void gp_peer_destroy(gp_peer_t *peer);
/* cuBLAS axpy: y = alpha * x + y (the peer of triad). dtype_size 4: float (Saxpy), 8: double (Daxpy). */
int gp_peer_axpy(gp_peer_t *peer, int dtype_size, size_t n, double alpha, const void *x, void *y,
                 gp_peer_stream_t stream, char *err);
/* cuBLAS dot: *result_dev = x . y (float or double in device memory; the peer of dot). */
int gp_peer_dot(gp_peer_t *peer, int dtype_size, size_t n, const void *x, const void *y, void *result_dev,
                gp_peer_stream_t stream, char *err);
/* One-input CUB device algorithms (reductions, scans, selections, run-length encoding, radix sorts), the peers of
 * gp_reduce, gp_scan, gp_select and the sorts. Temporary storage is sized and allocated by gp_peer_cub_prepare
 * (outside any timed region); gp_peer_cub then only launches. */
typedef enum {
    GP_PEER_SUM_F32 = 0, /* DeviceReduce::Sum, float -> float */
    GP_PEER_SUM_I32,     /* DeviceReduce::Sum, int -> int */
    GP_PEER_MAX_F32,     /* DeviceReduce::Max, float */
    GP_PEER_MIN_I32,     /* DeviceReduce::Min, int */
    GP_PEER_SUM_U8_U64,  /* DeviceReduce::TransformReduce, uint8 -> uint64 sum */
    GP_PEER_SCAN_MAT2_F32, /* DeviceScan::InclusiveScan of 2x2 f32 matrix products (its last element is the ordered
                              reduction; CUB has no non-commutative reduce). Writes n matrices to its own buffer. */
    GP_PEER_SCAN_SUM_F32,  /* DeviceScan::InclusiveSum, float: n floats into out_dev (the peer of gp_scan) */
    GP_PEER_EXSCAN_SUM_U32, /* DeviceScan::ExclusiveSum, unsigned: n words into out_dev */
    GP_PEER_SELECT_GT0_F32, /* DeviceSelect::If x > 0, float: the kept ones into out_dev (count: gp_peer_selected) */
    GP_PEER_PARTITION_GT0_F32, /* DevicePartition::If x > 0, float: kept first, rejected after (reversed) */
    GP_PEER_UNIQUE_I32,     /* DeviceSelect::Unique, int */
    GP_PEER_SCAN_AFFINE_F32, /* DeviceScan::InclusiveScan of f32 affine maps (a, b), x -> a x + b, applied in order:
                                n pairs into out_dev (the peer of gp_scan_ordered affine) */
    GP_PEER_RLE_I32,         /* DeviceRunLengthEncode::Encode, int: the runs' values into out_dev, their u64 lengths
                                into gp_peer_rle_lengths() (count: gp_peer_selected) */
    GP_PEER_SORT_U32,        /* DeviceRadixSort::SortKeys, unsigned: n keys into out_dev */
    GP_PEER_SORT_F32,        /* DeviceRadixSort::SortKeys, float (CUB's bit order: -0 before +0, NaN by sign) */
    GP_PEER_SORT_U64,        /* DeviceRadixSort::SortKeys, unsigned long long */
    GP_PEER_SORT_PAIRS_U32,  /* DeviceRadixSort::SortPairs, unsigned keys with u32 values (the module's own) */
    GP_PEER_SORT_PAIRS_U64,  /* DeviceRadixSort::SortPairs, unsigned long long keys with u32 values */
    GP_PEER_CUB_COUNT
} gp_peer_cub_t;
int gp_peer_cub_prepare(gp_peer_t *peer, gp_peer_cub_t kind, size_t n, char *err);
int gp_peer_cub(gp_peer_t *peer, gp_peer_cub_t kind, size_t n, const void *x, void *out_dev,
                   gp_peer_stream_t stream, char *err);
const char *gp_peer_cub_name(gp_peer_cub_t kind);
/* The count the last select / partition / unique peer call wrote (device memory; read after the stream is done). */
unsigned long long *gp_peer_selected(void);
/* The run lengths the last run-length-encode peer call wrote (device memory, n u64 after its prepare). */
unsigned long long *gp_peer_rle_lengths(void);
/* cub::DeviceSegmentedReduce::Sum of float segments given by CSR int64 offsets (nseg + 1, device memory) into
 * out_dev (nseg floats). prepare sizes and allocates its temporary storage outside any timed region. */
int gp_peer_segsum_prepare(size_t nseg, const long long *offsets, char *err);
int gp_peer_segsum(size_t nseg, const long long *offsets, const float *x, float *out_dev, gp_peer_stream_t stream,
                   char *err);

/* CUB's by-key ops over int keys and float values, the peers of gp_reduce_by_key_sync / gp_scan_by_key_sync: scan 0:
 * cub::DeviceReduce::ReduceByKey with a sum (the runs' keys into keys_out, their sums into vals_out, the run count
 * into gp_peer_selected()); scan 1: cub::DeviceScan::InclusiveSumByKey (n sums into vals_out; keys_out unused).
 * prepare sizes and allocates the temporary storage outside any timed region; n < 2^31. */
int gp_peer_bykey_prepare(int scan, size_t n, char *err);
int gp_peer_bykey(int scan, size_t n, const int *keys, const float *vals, int *keys_out, float *vals_out,
                  gp_peer_stream_t stream, char *err);

/* CUB's segmented sorts of u32 keys over CSR int64 offsets (nseg + 1, device memory; segment i is [o[i], o[i + 1])):
 * radix 0: cub::DeviceSegmentedSort::SortKeys, 1: cub::DeviceSegmentedRadixSort::SortKeys. prepare sizes and
 * allocates the temporary storage outside any timed region; n and nseg < 2^31. */
int gp_peer_segsort_prepare(int radix, size_t n, size_t nseg, const long long *offsets, char *err);
int gp_peer_segsort(int radix, size_t n, size_t nseg, const long long *offsets, const unsigned *keys,
                    unsigned *keys_out, gp_peer_stream_t stream, char *err);

/* cub::DeviceMergeSort::SortKeysCopy of u32 keys with a device functor `a < b` (n < 2^31): prepare sizes and
 * allocates the temporary storage outside any timed region. */
int gp_peer_mergesort_prepare(size_t n, char *err);
int gp_peer_mergesort(size_t n, const unsigned *keys, unsigned *keys_out, gp_peer_stream_t stream, char *err);

/* cub::DeviceHistogram::HistogramEven with nbins + 1 levels over [lo, hi) into counts_dev (nbins unsigned, device
 * memory): u8 samples (int levels) when u8, else f32 samples (float levels); n < 2^31. prepare sizes and allocates
 * the temporary storage outside any timed region. */
int gp_peer_histogram_prepare(int u8, size_t n, int nbins, double lo, double hi, char *err);
int gp_peer_histogram(int u8, size_t n, const void *x, int nbins, double lo, double hi, unsigned *counts_dev,
                      gp_peer_stream_t stream, char *err);

/* cublasSgeam transpose: out (cols x rows, row-major, ldo) = in^T (rows x cols, row-major, ldi); device memory. */
int gp_peer_transpose_f32(gp_peer_t *peer, size_t rows, size_t cols, const float *in, size_t ldi, float *out,
                          size_t ldo, gp_peer_stream_t stream, char *err);

/* cuBLAS GEMM of row-major packed matrices: C (m x n) = A (m x k) B (k x n); f64 0: cublasSgemm_64 with
 * CUBLAS_PEDANTIC_MATH (true FP32, no TF32); f64 1: cublasDgemm_64 (default math). Device memory. */
int gp_peer_gemm(gp_peer_t *peer, int f64, size_t m, size_t n, size_t k, const void *a, const void *b, void *c,
                 gp_peer_stream_t stream, char *err);

/* cublasGemmEx of row-major packed matrices with f32 C: prec 1 TF32 (f32 A, B; CUBLAS_COMPUTE_32F_FAST_TF32), 2 BF16,
 * 3 FP16 (16-bit A, B; CUBLAS_COMPUTE_32F). alpha 1, beta 0. Device memory. */
int gp_peer_gemm_ex(gp_peer_t *peer, int prec, size_t m, size_t n, size_t k, const void *a, const void *b, float *c,
                    gp_peer_stream_t stream, char *err);

/* cublasGemmStridedBatchedEx of batch row-major packed problems (A m x k, B k x n, C m x n f32, each packed after
 * the previous), precisions as gp_peer_gemm_ex. */
int gp_peer_gemm_batched_ex(gp_peer_t *peer, int prec, size_t m, size_t n, size_t k, size_t batch, const void *a,
                            const void *b, float *c, gp_peer_stream_t stream, char *err);

/* A name and version for reports, e.g. "cuBLAS 13.0.0". */
const char *gp_peer_version(gp_peer_t *peer);

#ifdef __cplusplus
}
#endif
#endif
