/*
 * reduce_internal.h — what src/reduce shares with the tests and the CLI: the fixed reduction tree's constants, the
 * GPU launcher and the CPU backend. The tree (docs/design/reduce.md):
 *   tile      64 KiB of input = 256 lanes x 16 vectors of 16 bytes. Lane l takes vectors l, l+256, ..., l+3840 of the
 *             tile and folds their elements in index order into its state (starting from the identity);
 *   in-tile   lanes combine as a warp-shuffle tree: within each warp of 32, for o = 16, 8, 4, 2, 1: s[l] = s[l] (+)
 *             s[l+o] for l < o; then the 8 warp results w[i], for o = 4, 2, 1: w[i] = w[i] (+) w[i+o];
 *   levels    the tile results, as an array, are folded the same way in groups of 4096 (lane l takes entries l,
 *             l+256, ..., l+3840), level after level, until one remains.
 * (+) is applied as combine(lower, higher). Every backend computes exactly this, so results are bitwise equal.
 */
#ifndef GP_REDUCE_INTERNAL_H
#define GP_REDUCE_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP__REDUCE_TILE_BYTES 65536
#define GP__REDUCE_LANES 256
#define GP__REDUCE_VECS 16 /* 16-byte vectors per lane per tile, and states per lane per group */
#define GP__REDUCE_GROUP (GP__REDUCE_LANES * GP__REDUCE_VECS)
#define GP__COUNTER_REDUCE 1
#define GP__COUNTER_ORDERED 3
#define GP__COUNTER_SEGMENTED 4
/* Segmented reductions: the tree of a segment of L elements (docs/design/reduce.md): L = 0 the identity; L <= WARP_MAX a
 * warp (lane l folds l, l+32, ..., then the warp's shuffle tree); L <= CHUNK the block (lane l folds the 16-byte
 * groups l, l+256, ... counted from the segment's start, element by element, then the block tree); larger: chunks of
 * CHUNK each reduced like a block, their results folded lane-strided by a block. The queue: seg_queue.cuh. */
#define GP__SEG_WARP_MAX 2048
#define GP__SEG_CHUNK 16384
/* Ordered reductions: a lane's run in a tile is 64 four-byte words (R = 64 / words-per-element elements). */
#define GP__ORDERED_RUN_WORDS 64

/* Validated call: the op/dtype pair is supported, pointers and sizes checked. */
GP_INTERNAL gp_status_t gp__reduce_check(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype,
                                         size_t n, const void *x, const void *result);
/* The n = 0 result. */
GP_INTERNAL void gp__reduce_identity(gp_reduce_op_t op, gp_dtype_t dtype, gp_reduce_result_t *r);
/* n >= 1. GPU: one launch writing *result (device memory) on the stream. CPU: writes *result (host memory). */
/* wide = 1: f16 / bf16 / f32 data accumulated in double (gp_reduce_acc with GP_F64); 0: the default accumulators. */
GP_INTERNAL gp_status_t gp__reduce_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n,
                                       const void *x, gp_reduce_result_t *result, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__reduce_cpu(gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n, const void *x,
                                       gp_reduce_result_t *result, int parallel);
/* Test hook: 1 makes the CPU backend use its generic per-element path only (the fast typed sums must match it). */
GP_INTERNAL extern int gp__reduce_cpu_generic_only;
/* Validates an accumulator choice for gp_reduce_acc: *wide = 1 for GP_F64 over f16/bf16/f32 sum or prod. */
GP_INTERNAL gp_status_t gp__reduce_acc_check(const char *fn, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                             int *wide);
/* The n = 0 result (wide: in double). */
GP_INTERNAL void gp__reduce_identity_acc(gp_reduce_op_t op, gp_dtype_t dtype, int wide, gp_reduce_result_t *r);
/* The streaming path (gp_reducer, reducer.c): tile results of x[0, n) into dst (x is element idx0 of the whole array),
 * one level of folding of src[0, m) into dst[0, ceil(m / 4096)), the bytes of one entry, and an entry's result.
 * GPU entries are 8-byte slots in device memory; CPU entries are the CPU backend's own states. */
GP_INTERNAL gp_status_t gp__reduce_gpu_tiles(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n,
                                             const void *x, long long idx0, void *dst, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__reduce_gpu_fold(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t m,
                                            const void *src, void *dst, cudaStream_t stream);
GP_INTERNAL size_t gp__reduce_gpu_entry_bytes(gp_reduce_op_t op, gp_dtype_t dtype, int wide);
GP_INTERNAL size_t gp__reduce_cpu_entry_bytes(void);
GP_INTERNAL void gp__reduce_cpu_tiles(gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n, const void *x,
                                      long long idx0, void *dst, int parallel);
GP_INTERNAL void gp__reduce_cpu_fold(gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t m, const void *src,
                                     void *dst);
/* A GPU entry (gpu_esz bytes of 8-byte slots: v, then v2 for minmax or the index for argmin / argmax) in the CPU
 * backend's layout ({v, v2, idx}, gp__reduce_cpu_entry_bytes): the same state, so folding it gives the same bits. */
GP_INTERNAL void gp__reduce_entry_to_cpu(gp_reduce_op_t op, size_t gpu_esz, const void *gpu_entry, void *cpu_entry);
GP_INTERNAL void gp__reduce_cpu_entry_result(gp_reduce_op_t op, gp_dtype_t dtype, int wide, const void *entry,
                                             gp_reduce_result_t *result);

/* Segmented: out[i] (accumulator values) for nseg segments of x[0, n) given by offsets[0..nseg] (clamped). */
GP_INTERNAL gp_status_t gp__reduce_gpu_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n,
                                                 const void *x, size_t nseg, const long long *offsets, void *out,
                                                 cudaStream_t stream);
GP_INTERNAL void gp__reduce_cpu_segmented(gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x, size_t nseg,
                                          const long long *offsets, void *out, int parallel);
/* The pieces of one segment longer than GP__SEG_CHUNK (src/group: a segment split between ranks): one chunk's value
 * (m <= GP__SEG_CHUNK elements by the block path, whatever m), and the segment's value from its nch chunk values in
 * order (lane-strided, then the block tree). Values as gp_reduce_segmented writes them: the GPU's bits. */
GP_INTERNAL void gp__reduce_cpu_seg_chunk(gp_reduce_op_t op, gp_dtype_t dtype, size_t m, const void *x, void *value);
GP_INTERNAL void gp__reduce_cpu_seg_fold(gp_reduce_op_t op, gp_dtype_t dtype, size_t nch, const void *values,
                                         void *out);

/* Ordered reductions (ordered.cu / ordered.c), n >= 1, matrices and affine maps. GPU: the result K-tuple goes to
 * `result` (device memory, asynchronous) or, when host is not NULL, to host (waits). */
GP_INTERNAL gp_status_t gp__ordered_gpu(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                        void *result, void *host, cudaStream_t stream);
GP_INTERNAL void gp__ordered_cpu(gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *result,
                                 int parallel);


/* IEEE half and bfloat16 to float (exact). */
GP_INTERNAL float gp__f16_to_f32(uint16_t h);
GP_INTERNAL float gp__bf16_to_f32(uint16_t h);

/* The family's GPU launchers (reduce.cu, ordered.cu), reached through this table: core/backend.h */
typedef struct gp__reduce_gpu_ops {
    __typeof__(gp__reduce_gpu) *reduce;
    __typeof__(gp__reduce_gpu_tiles) *tiles;
    __typeof__(gp__reduce_gpu_fold) *fold;
    __typeof__(gp__reduce_gpu_entry_bytes) *entry_bytes;
    __typeof__(gp__reduce_gpu_segmented) *segmented;
    __typeof__(gp__ordered_gpu) *ordered;
} gp__reduce_gpu_ops_t;
GP_INTERNAL extern const gp__reduce_gpu_ops_t gp__reduce_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
