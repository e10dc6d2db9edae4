/*
 * scan_internal.h — the scan's fixed association order (docs/design/scan.md) and its CPU reference (scan_cpu.c).
 * Every backend gives these bits: the CPU reference here, the GPU kernel (scan.cu), behind gp_scan (scan.c).
 *   tile     GP__SCAN_TILE = 256 runs x 16 consecutive elements; a partial tile is padded with the op's exact
 *            two-sided identity (-0.0 for float sums), which changes no output bit;
 *   runs     r_k: the left fold of the run's elements 0..k; R_i = the run's last r;
 *   in-tile  the 256 R_i scanned Kogge-Stone inside each group of 32 (d = 1, 2, 4, 8, 16: S[l] = S[l-d] (+) S[l]),
 *            the 8 group totals likewise (d = 1, 2, 4); E_i = G[g-1] (+) S[i-1] (whichever exist; none for i = 0);
 *            L_k = E_i (+) r_k (r_k alone for run 0);
 *   carry    A_t = the L of the tile's last (real) element — in a partial tile not the L at the padded end, which
 *            the padded runs' place in the Kogge-Stone steps can round differently; I_t = I_{t-1} (+) A_t (I_0 = A_0);
 *            out = I_{t-1} (+) L (L alone in tile 0).
 *            So the last output of a tile is I_t, and a scan resumed from I_t (a stream of whole tiles) gives the
 *            same bits as one pass, and a decoupled look-back that folds predecessors' A forward from an I is exact.
 *   exclusive  out[0] = the op's identity (+0.0 for float sums), out[j] = inclusive[j-1].
 * (+) is combine(left, right): integer sums and products wrap; float min/max keep the first NaN, and on a tie the
 * left operand; float sums and products round once per combine.
 */
#ifndef GP_SCAN_INTERNAL_H
#define GP_SCAN_INTERNAL_H

#include "../core/internal.h"
#include "../core/half.h"

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GP__SCAN_RUN 16
#define GP__SCAN_RUNS 256
#define GP__SCAN_TILE (GP__SCAN_RUN * GP__SCAN_RUNS)

/* gp_scan's checks, shared with the scanner (scan.c): op, dtype and kind; then n's size, x and y (non-NULL for n > 0,
 * element-aligned, overlapping only when equal). */
GP_INTERNAL gp_status_t gp__scan_check(const char *fn, gp_reduce_op_t op, gp_dtype_t dtype, int kind);
GP_INTERNAL gp_status_t gp__scan_check_arrays(const char *fn, gp_dtype_t dtype, size_t n, const void *x,
                                              const void *y);
/* 1 when the reference takes (op, dtype): sum prod min max over f32 f64 i32 u32 i64 u64, and or xor over the
 * integers. */
GP_INTERNAL int gp__scan_supported(gp_reduce_op_t op, gp_dtype_t dtype);
/* y = the inclusive (exclusive = 0) or exclusive scan of x[0, n); y == x allowed; carry_in (NULL: none) is an I to
 * continue from (the last output of the previous whole tiles), carry_out (NULL: not wanted) receives this part's
 * last I. parallel: OpenMP over tiles. Returns GP_ERR_UNSUPPORTED for a pair gp__scan_supported refuses. */
/* the CPU scans' tiles for the exact ops too (scan_cpu.c; the tests compare with the sequential pass) */
GP_INTERNAL extern int gp__scan_cpu_tiles_only;
GP_INTERNAL gp_status_t gp__scan_cpu(gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *y,
                                     int exclusive, const void *carry_in, void *carry_out, int parallel);

/* The GPU kernels (scan.cu), one launch each, the same bits: the look-back kernel (a block of one or two tiles of
 * 256 threads x 16 items in ticket order, decoupled look-back folding predecessors forward, exact in the order
 * above) and, on sm_90, the tile engine (same-type 4- and 8-byte scans of n >= 2^16 from 16-byte aligned pointers);
 * the workspace holds the tile descriptors. carry_in / carry_out: device pointers to one value (NULL: none), as in
 * gp__scan_cpu; n > 0. */
GP_INTERNAL gp_status_t gp__scan_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                     void *y, int exclusive, const void *carry_in, void *carry_out,
                                     cudaStream_t stream);

/* Which of those kernels the scans take: AUTO (the tuning table's choice), or one forced for the whole process —
 * for the tests, the lab and the bench, which compare them (a forced ENGINE still falls back where it cannot run).
 * Defined in scan.c; not for concurrent use with other threads' scans. */
typedef enum { GP__SCAN_KERNEL_AUTO = 0, GP__SCAN_KERNEL_LOOKBACK = 1, GP__SCAN_KERNEL_ENGINE = 2 } gp__scan_kernel_t;
GP_INTERNAL void gp__scan_force_kernel(gp__scan_kernel_t kernel);
GP_INTERNAL gp__scan_kernel_t gp__scan_forced_kernel(void);
/* the kernel AUTO takes for a same-type scan of dtype of n >= 2^16 on sm_90 (the tuning table's choice) */
GP_INTERNAL gp__scan_kernel_t gp__scan_auto_kernel(gp_dtype_t dtype);

/* The look-back workspace of the general kernels (scan_general.cu, and user operators' scans, src/jit): the ticket
 * (16 bytes), a status word per tile (rounded up to 16 bytes) — the head, cleared before each launch — then the
 * tiles' aggregates and inclusive prefixes, vbytes each. */
static inline size_t gp__lb_head_bytes(size_t ntiles) { return 16 + (ntiles * 4 + 15) / 16 * 16; }
static inline size_t gp__lb_bytes(size_t ntiles, size_t vbytes) { return gp__lb_head_bytes(ntiles) + 2 * ntiles * vbytes; }

/* Bytes of workspace the GPU scan of n elements of dtype takes from the front of the context's workspace. */
GP_INTERNAL size_t gp__scan_gpu_workspace_bytes(gp_dtype_t dtype, size_t n);

/* ---- ordered scans (scan_ordered.c, scan_ordered.cu): the same order with runs of gp__oscan_run(op, dtype)
 * elements (16 for elements of up to 8 bytes, 8 to 16, 4 to 32, 2 to 64, 1 beyond: 128 bytes per run), tiles of 256
 * runs; no identity is combined into real values (tile 0 without a carry takes L as it is). first / last: copies. */
GP_INTERNAL int gp__oscan_run(gp_ordered_op_t op, gp_dtype_t dtype);
/* gp_scan_ordered's checks (op, dtype, kind; then n elements of x and y), shared with the scanner; the identity element
 * of a matrix / affine op (f32 f64 u32). */
GP_INTERNAL gp_status_t gp__oscan_check(const char *fn, gp_ordered_op_t op, gp_dtype_t dtype, int kind);
GP_INTERNAL gp_status_t gp__oscan_check_arrays(const char *fn, gp_ordered_op_t op, gp_dtype_t dtype, size_t n,
                                               const void *x, const void *y);
GP_INTERNAL void gp__oscan_identity(gp_ordered_op_t op, gp_dtype_t dtype, void *v);
/* carry_in / carry_out: NULL or one element (the inclusive value before this part / of its last element), as the
 * scalar scans' (a part of whole tiles resumed from its carry gives one pass's bits). */
GP_INTERNAL gp_status_t gp__oscan_cpu(gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *y,
                                      int exclusive, const void *carry_in, void *carry_out, int parallel);
/* n > 0, the arguments checked by gp_scan_ordered; the carries in device-accessible memory. */
GP_INTERNAL gp_status_t gp__oscan_gpu(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                      void *y, int exclusive, const void *carry_in, void *carry_out,
                                      cudaStream_t stream);

/* ---- segmented scans (scan_cpu.c, scan_general.cu): the scalar ops over (head, value) pairs, (f, v) o (g, w) =
 * (f | g, g ? w : v (+) w), in the order above with runs of 16 (4-byte types) or 8 (8-byte types) and no identity
 * combined into tile 0 (as the ordered scans). Heads: one byte per element (nonzero: a segment starts there), or
 * made from offsets (each value in [0, n) starts a segment). Exclusive: the op's first value at every head. */
GP_INTERNAL int gp__segscan_run(gp_dtype_t dtype);
GP_INTERNAL gp_status_t gp__segscan_cpu(gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                        const uint8_t *heads, void *y, int exclusive, int parallel);
/* n > 0; heads, or offsets (noffsets values) when heads is NULL */
GP_INTERNAL gp_status_t gp__segscan_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                        const uint8_t *heads, const int64_t *offsets, size_t noffsets, void *y,
                                        int exclusive, cudaStream_t stream);

/* ---- select / partition (select.c, select.cu) */
/* A predicate normalized once on the host for one dtype: floats compare in double (kind as given); integers test an
 * inclusive range of the type's values, [lo, hi] (then inverted for ne and nonzero), exactly what the real-number
 * comparison with the constants keeps; CONST keeps all (value 1) or none (0). */
enum { GP__PM_FLOAT, GP__PM_SINT, GP__PM_UINT, GP__PM_FLAGS, GP__PM_CONST };
typedef struct gp__pred {
    int mode;
    int kind;            /* GP__PM_FLOAT: the gp_pred_kind_t */
    double a, b;
    long long ilo, ihi;  /* GP__PM_SINT */
    unsigned long long ulo, uhi; /* GP__PM_UINT */
    int invert;
    int value;           /* GP__PM_CONST */
    const uint8_t *flags;
} gp__pred_t;

/* ---- the scan's dtypes and accumulators (scan.c): dtype scanned in *acc and written as *out. gp_scan (acc_req =
 * -1): the dtype itself; u8 i8 u16 i16 in 32 bits (wrapping in their width), f16 / bf16 in f32, written back in the
 * dtype. gp_scan_acc: acc_req = GP_DTYPE_COUNT (the default: gp_reduce_acc_dtype for sums and products, else as
 * gp_scan with 2-byte floats in f32), the dtype, or a wider one (sum / prod: f16 bf16 f32 -> f64, integers of up to
 * 4 bytes -> i64 / u64; f16 / bf16 -> f32 for every op); the output is in the accumulator's type. */
GP_INTERNAL gp_status_t gp__scan_plan(const char *fn, gp_reduce_op_t op, gp_dtype_t dtype, int acc_req,
                                      gp_dtype_t *acc, gp_dtype_t *out);
/* x (n of dtype) and y (n of out): as gp__scan_check_arrays, and no overlap at all when the sizes differ. */
GP_INTERNAL gp_status_t gp__scan_check_xy(const char *fn, gp_dtype_t dtype, gp_dtype_t out, size_t n, const void *x,
                                          const void *y);
/* The CPU backend of a planned scan (din -> dacc -> dout), by converting chunks of whole tiles around gp__scan_cpu. */
/* carry_in / carry_out: NULL or one value of dacc (as gp__scan_cpu / gp__scan_gpu). */
GP_INTERNAL gp_status_t gp__scan_cpu_x(gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, gp_dtype_t dout, size_t n,
                                       const void *x, void *y, int exclusive, const void *carry_in, void *carry_out,
                                       int parallel);
GP_INTERNAL gp_status_t gp__scan_gpu_x(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc,
                                       gp_dtype_t dout, size_t n, const void *x, void *y, int exclusive,
                                       const void *carry_in, void *carry_out, cudaStream_t stream);
/* A sharded scan's first pass (src/group): the aggregates A_t of the n / GP__SCAN_TILE whole tiles of x (n a
 * multiple of the tile), as the scan of (din, dacc, dout) computes them, written to aggs (values of dacc): GPU (device
 * memory, asynchronous on the stream: the scan kernel with y = NULL, which stops before its look-back) and CPU. */
GP_INTERNAL gp_status_t gp__scan_gpu_aggs(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc,
                                          gp_dtype_t dout, size_t n, const void *x, void *aggs, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__scan_cpu_aggs(gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, size_t n,
                                          const void *x, void *aggs, int parallel);
/* The carry chain I = I (+) A over m aggregates (values of dacc), in order, from *carry (in and out): what the scan
 * does between tiles, so folding the aggregates of the tiles before a shard gives the carry into it (the pieces'
 * rule of docs/design/scan.md). The chain of a scan with no carry starts from gp__scan_cpu's padding identity (n = 0). */
GP_INTERNAL gp_status_t gp__scan_fold(gp_reduce_op_t op, gp_dtype_t dacc, size_t m, const void *aggs, void *carry);
/* One accumulator value as the output dtype (narrowed as the scans narrow; a copy when the types agree). */
GP_INTERNAL void gp__scan_narrow1(gp_dtype_t dacc, gp_dtype_t dout, const void *a, void *o);

static inline GP__HD int gp__keep_f(const gp__pred_t *p, double v)
{
    switch (p->kind) {
    case GP_PRED_NONZERO: return v != 0.0; /* NaN != 0 */
    case GP_PRED_EQ: return v == p->a;
    case GP_PRED_NE: return v != p->a;
    case GP_PRED_LT: return v < p->a;
    case GP_PRED_LE: return v <= p->a;
    case GP_PRED_GT: return v > p->a;
    case GP_PRED_GE: return v >= p->a;
    case GP_PRED_IN: return v >= p->a && v < p->b;
    case GP_PRED_NAN: return v != v;
    default: return v == v; /* GP_PRED_NOT_NAN */
    }
}
static inline GP__HD int gp__keep_s(const gp__pred_t *p, long long v) { return (v >= p->ilo && v <= p->ihi) != p->invert; }
static inline GP__HD int gp__keep_u(const gp__pred_t *p, unsigned long long v)
{
    return (v >= p->ulo && v <= p->uhi) != p->invert;
}

/* The GPU passes over keep flags. job 0 (select): y = the elements p keeps; 1 (partition): then the rejected ones,
 * both stable; 2 (unique): y = each run's first element (p unused, may be NULL); 3 (run-length encoding): y = the
 * runs' values, lengths = their lengths. *count_dev (may be NULL) = how many were kept / runs. n > 0; the arrays
 * device-accessible, not overlapping — but for job 3 on 2- or 4-byte types x may lie in lengths' bytes at or past byte
 * (8 - es) n (gp_unique_sorted_sync's keys): each tile reads its elements before any later tile writes, and run r's
 * length goes to byte 8 r, below every element a later tile reads. */
GP_INTERNAL gp_status_t gp__select_gpu(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp__pred_t *p,
                                       int job, void *y, uint64_t *lengths, uint64_t *count_dev, cudaStream_t stream);

/* The eight kinds of value equality of unique, run-length encoding and the by-key ops (floats as numbers: NaN
 * equals nothing, -0 == +0; integers by their bits): DEF(name, storage type, EQ) for each, EQ(a, b) an expression. */
#define GP__EQ_BITS(a, b) ((a) == (b))
#define GP__EQ_F16(a, b) (gp_f16_to_f32(a) == gp_f16_to_f32(b))
#define GP__EQ_BF16(a, b) (gp_bf16_to_f32(a) == gp_bf16_to_f32(b))
#define GP__EQ_KINDS(DEF)                                                                                          \
    DEF(b1, uint8_t, GP__EQ_BITS) DEF(b2, uint16_t, GP__EQ_BITS) DEF(b4, uint32_t, GP__EQ_BITS)                    \
    DEF(b8, uint64_t, GP__EQ_BITS) DEF(f16, uint16_t, GP__EQ_F16) DEF(bf16, uint16_t, GP__EQ_BF16)                 \
    DEF(f32, float, GP__EQ_BITS) DEF(f64, double, GP__EQ_BITS)
/* the name of dtype's kind in GP__EQ_KINDS, as an index: 0 b1, 1 b2, 2 b4, 3 b8, 4 f16, 5 bf16, 6 f32, 7 f64 */
static inline int gp__eq_kind(gp_dtype_t dt)
{
    switch (dt) {
    case GP_F16: return 4;
    case GP_BF16: return 5;
    case GP_F32: return 6;
    case GP_F64: return 7;
    default: break; /* integers: equal values are equal bits */
    }
    const size_t es = gp_dtype_size(dt);
    return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3;
}

/* By key in one pass (bykey.cu): job GP__BYKEY_SCAN / _SCAN_EXCL (out = y, the segmented scan over the keys' runs) or
 * GP__BYKEY_REDUCE (keys_out, out = the runs' values in the accumulator dtype, *runs_dev the count); the ops and
 * dtypes gp__bykey_onepass takes. n > 0. */
enum { GP__BYKEY_SCAN, GP__BYKEY_SCAN_EXCL, GP__BYKEY_REDUCE };
GP_INTERNAL gp_status_t gp__bykey_gpu(gp_ctx_t *ctx, const char *fn, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n,
                                      const void *keys, gp_dtype_t dtype, const void *values, void *keys_out,
                                      void *out, uint64_t *runs_dev, int job, cudaStream_t stream);
/* whether reduce by key of op over dtype runs in one pass: values of 4 or 8 bytes whose accumulator is their own
 * width — f32, f64, i64, u64 (sum prod min max; and or xor over the 8-byte integers) */
static inline int gp__bykey_onepass(gp_reduce_op_t op, gp_dtype_t dtype)
{
    const int bits = op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR;
    if (dtype == GP_I64 || dtype == GP_U64) return op != GP_REDUCE_COUNT_NONZERO && (unsigned)op < GP_REDUCE_OP_COUNT &&
                                                   (bits || op == GP_REDUCE_SUM || op == GP_REDUCE_PROD ||
                                                    op == GP_REDUCE_MIN || op == GP_REDUCE_MAX);
    return (dtype == GP_F32 || dtype == GP_F64) &&
           (op == GP_REDUCE_SUM || op == GP_REDUCE_PROD || op == GP_REDUCE_MIN || op == GP_REDUCE_MAX);
}

/* The family's GPU launchers (scan.cu, scan_general.cu, select.cu, bykey.cu), reached through this table: core/backend.h */
typedef struct gp__scan_gpu_ops {
    __typeof__(gp__scan_gpu_x) *scan;
    __typeof__(gp__scan_gpu_aggs) *aggs;
    __typeof__(gp__oscan_gpu) *ordered;
    __typeof__(gp__segscan_gpu) *segmented;
    __typeof__(gp__select_gpu) *select;
    __typeof__(gp__bykey_gpu) *bykey;
} gp__scan_gpu_ops_t;
GP_INTERNAL extern const gp__scan_gpu_ops_t gp__scan_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
