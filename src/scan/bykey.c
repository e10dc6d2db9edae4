/*
 * bykey.c — reduce and scan by key (docs/design/scan.md, "By key"): the checks, the CPU backend and the GPU call.
 * A run is a maximal stretch of equal consecutive keys (gp_unique's equality). The scans, and the reductions of
 * f32 / f64 / i64 / u64 values, are the segmented scan over the runs' heads: on the GPU one pass that finds the heads
 * in the keys (bykey.cu); on the CPU the head bytes, gp__segscan_cpu, and (reduce) each run's last value gathered.
 * Other reductions (f16 / bf16 values, integers of up to 4 bytes, count_nonzero) compose gp_run_length_encode, a
 * scan of the lengths and gp_reduce_segmented, and exist only as _sync.
 */
#include "scan_internal.h"
#include "../core/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the CPU backend: h[i] = 1 where key i starts a run (the equalities of GP__EQ_KINDS) */
#define GP_HEADS_DEF(NAME, T, EQ)                                                                                  \
    static void heads_##NAME(size_t n, const void *kv, uint8_t *h)                                                 \
    {                                                                                                              \
        const T *k = kv;                                                                                           \
        _Pragma("omp parallel for schedule(static) if (n > 65536)") for (size_t i = 0; i < n; i++)                 \
        {                                                                                                          \
            h[i] = (uint8_t)(i == 0 || !EQ(k[i], k[i - 1]));                                                       \
        }                                                                                                          \
    }
GP__EQ_KINDS(GP_HEADS_DEF)
#define GP_HEADS_NAME(NAME, T, EQ) heads_##NAME,

static void key_heads(gp_dtype_t kt, size_t n, const void *keys, uint8_t *h)
{
    static void (*const f[])(size_t, const void *, uint8_t *) = {GP__EQ_KINDS(GP_HEADS_NAME)};
    f[gp__eq_kind(kt)](n, keys, h);
}

/* one element of es bytes (1, 2, 4 or 8) from s to d: a move of that width */
static inline void put_el(unsigned char *d, const unsigned char *s, size_t es)
{
    switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    default: memcpy(d, s, 8); break;
    }
}

/* a reduction's outputs from the head bytes and the inclusive values: each run's first key and last value, in
 * contiguous chunks counted first (so any team size gives the same writes); returns the run count */
enum { GATHER_CHUNKS = 64, GATHER_MIN = 1 << 16 };
static size_t gather_runs(size_t n, const uint8_t *h, const unsigned char *k, size_t ks, const unsigned char *incl,
                          size_t vs, unsigned char *ko, unsigned char *vo)
{
    const int C = n < GATHER_MIN ? 1 : GATHER_CHUNKS;
    size_t start[GATHER_CHUNKS + 1];
#pragma omp parallel for schedule(static) if (C > 1)
    for (int c = 0; c < C; c++) {
        size_t m = 0;
        for (size_t i = n * (size_t)c / (size_t)C, b = n * (size_t)(c + 1) / (size_t)C; i < b; i++) m += h[i];
        start[c + 1] = m;
    }
    start[0] = 0;
    for (int c = 0; c < C; c++) start[c + 1] += start[c];
#pragma omp parallel for schedule(static) if (C > 1)
    for (int c = 0; c < C; c++) {
        size_t r = start[c]; /* runs begun before this element */
        for (size_t i = n * (size_t)c / (size_t)C, b = n * (size_t)(c + 1) / (size_t)C; i < b; i++) {
            if (h[i]) put_el(ko + r++ * ks, k + i * ks, ks);
            if (i == n - 1 || h[i + 1]) put_el(vo + (r - 1) * vs, incl + i * vs, vs);
        }
    }
    return start[C];
}

/* the one-pass ops on the CPU: the head bytes, the segmented scan (into y, or for a reduction into scratch), and a
 * reduction's keys and values gathered at the heads and the runs' ends */
static gp_status_t cpu_pass(const char *fn, gp_reduce_op_t op, gp_dtype_t kt, size_t n, const void *keys, gp_dtype_t vt,
                            const void *values, int excl, void *y, void *keys_out, void *values_out, size_t *runs)
{
    const size_t ks = gp_dtype_size(kt), vs = gp_dtype_size(vt);
    uint8_t *h = malloc(n);
    unsigned char *tmp = keys_out ? malloc(n * vs) : NULL;
    if (h == NULL || (keys_out && tmp == NULL)) {
        free(h), free(tmp);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes of run heads and values", fn, keys_out ? n * (vs + 1) : n);
    }
    key_heads(kt, n, keys, h);
    gp_status_t st = gp__segscan_cpu(op, vt, n, values, h, keys_out ? tmp : y, excl, 1);
    if (st == GP_OK && keys_out) *runs = gather_runs(n, h, keys, ks, tmp, vs, keys_out, values_out);
    free(h), free(tmp);
    return st;
}

/* ---- the checks every by-key call makes: a scan's y (scan), or a reduction's keys_out and values_out (acc) */
static gp_status_t check(const char *fn, int scan, gp_dtype_t kt, size_t n, const void *keys, gp_dtype_t vt,
                         const void *values, const void *y, const void *keys_out, const void *values_out,
                         gp_dtype_t acc)
{
    if ((unsigned)kt >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: key_dtype %d is not a gp_dtype_t", fn, (int)kt);
    if (n > (SIZE_MAX >> 4)) return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu overflows", fn, n);
    if (n == 0) return GP_OK;
    const size_t ks = gp_dtype_size(kt), vs = gp_dtype_size(vt), kb = n * ks, vb = n * vs;
    GP_ARG_NONNULL(fn, keys);
    GP_ARG_NONNULL(fn, values);
    if ((uintptr_t)keys % ks) return gp__error(GP_ERR_INVALID_ARG, "%s: keys is not %zu-byte aligned", fn, ks);
    if ((uintptr_t)values % vs) return gp__error(GP_ERR_INVALID_ARG, "%s: values is not %zu-byte aligned", fn, vs);
    if (scan) {
        if (y == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: y is NULL", fn);
        if ((uintptr_t)y % vs) return gp__error(GP_ERR_INVALID_ARG, "%s: y is not %zu-byte aligned", fn, vs);
        if (y != values && gp__overlap(y, vb, values, vb))
            return gp__error(GP_ERR_INVALID_ARG, "%s: values and y overlap without being the same array (in place: "
                                                 "y == values)", fn);
        if (gp__overlap(y, vb, keys, kb)) return gp__error(GP_ERR_INVALID_ARG, "%s: y overlaps keys", fn);
        return GP_OK;
    }
    GP_ARG_NONNULL(fn, keys_out);
    GP_ARG_NONNULL(fn, values_out);
    const size_t as = gp_dtype_size(acc);
    if ((uintptr_t)keys_out % ks) return gp__error(GP_ERR_INVALID_ARG, "%s: keys_out is not %zu-byte aligned", fn, ks);
    if ((uintptr_t)values_out % as)
        return gp__error(GP_ERR_INVALID_ARG, "%s: values_out is not %zu-byte aligned", fn, as);
    if (gp__overlap(keys_out, kb, keys, kb) || gp__overlap(keys_out, kb, values, vb))
        return gp__error(GP_ERR_INVALID_ARG, "%s: keys_out overlaps keys or values", fn);
    if (gp__overlap(values_out, n * as, keys, kb) || gp__overlap(values_out, n * as, values, vb) ||
        gp__overlap(values_out, n * as, keys_out, kb))
        return gp__error(GP_ERR_INVALID_ARG, "%s: values_out overlaps keys, values or keys_out", fn);
    return GP_OK;
}

static gp_status_t check_reduce(const char *fn, gp_reduce_op_t op, gp_dtype_t kt, size_t n, const void *keys,
                                gp_dtype_t vt, const void *values, const void *keys_out, const void *values_out)
{
    if ((unsigned)vt >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)vt);
    const gp_dtype_t acc = gp_reduce_acc_dtype(op, vt);
    if (acc == GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d over %s (gp_reduce_segmented's ops)", fn, (int)op,
                         gp_dtype_name(vt));
    return check(fn, 0, kt, n, keys, vt, values, NULL, keys_out, values_out, acc);
}

/* ---- reduce by key */

/* the composition, for the reductions one pass does not take: the run offsets in (n + 1) words allocated on ctx */
static gp_status_t compose_reduce(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t kt, size_t n,
                                  const void *keys, gp_dtype_t vt, const void *values, void *keys_out,
                                  void *values_out, size_t *runs)
{
    GP_NO_CAPTURE(ctx, fn, "it waits for the number of runs");
    const int cpu = gp__is_cpu(ctx);
    gp_buffer_t buf;
    GP_TRY_RET(gp_mem_alloc(ctx, cpu ? GP_MEM_PAGEABLE : GP_MEM_DEVICE, (n + 1) * 8, &buf));
    uint64_t *o = (uint64_t *)(cpu ? buf.host : buf.device);
    size_t r = 0;
    gp_status_t st = gp_run_length_encode_sync(ctx, kt, n, keys, keys_out, o + 1, &r);
    if (st == GP_OK) st = gp_memset(ctx, o, 0, 8, NULL);
    if (st == GP_OK) st = gp_scan(ctx, GP_REDUCE_SUM, GP_U64, GP_SCAN_INCLUSIVE, r, o + 1, o + 1, NULL);
    if (st == GP_OK) st = gp_reduce_segmented(ctx, op, vt, n, values, r, (const int64_t *)o, values_out, NULL);
    if (st == GP_OK) st = gp_stream_sync(ctx, NULL);
    if (st != GP_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", gp_last_error());
        gp_mem_free(ctx, &buf);
        return gp__error(st, "%s: %s", fn, why);
    }
    gp_mem_free(ctx, &buf);
    *runs = r;
    return GP_OK;
}

gp_status_t gp_reduce_by_key(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                             gp_dtype_t dtype, const void *values, void *keys_out, void *values_out,
                             uint64_t *runs_dev, gp_stream_t stream)
{
    static const char fn[] = "gp_reduce_by_key";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(check_reduce(fn, op, key_dtype, n, keys, dtype, values, keys_out, values_out));
    if (!gp__bykey_onepass(op, dtype))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s of %s values is gp_reduce_by_key_sync's only (this call takes "
                                             "f32, f64, i64 and u64 values)", fn, gp_reduce_op_name(op),
                         gp_dtype_name(dtype));
    if (runs_dev && (uintptr_t)runs_dev % 8)
        return gp__error(GP_ERR_INVALID_ARG, "%s: runs_dev is not 8-byte aligned", fn);
    if (gp__is_cpu(ctx)) {
        size_t r = 0;
        if (n) GP_TRY_RET(cpu_pass(fn, op, key_dtype, n, keys, dtype, values, 0, NULL, keys_out, values_out, &r));
        if (runs_dev) *runs_dev = r;
        return GP_OK;
    }
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, 0, &s));
    if (n == 0) {
        const cudaError_t e = runs_dev ? cudaMemsetAsync(runs_dev, 0, 8, s) : cudaSuccess;
        return e == cudaSuccess ? GP_OK : gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    return gp__scan_gpu_ops.bykey(ctx, fn, op, key_dtype, n, keys, dtype, values, keys_out, values_out, runs_dev,
                                  GP__BYKEY_REDUCE, s);
}

gp_status_t gp_reduce_by_key_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                                  gp_dtype_t dtype, const void *values, void *keys_out, void *values_out, size_t *runs)
{
    static const char fn[] = "gp_reduce_by_key_sync";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_ARG_NONNULL(fn, runs);
    *runs = 0;
    GP_TRY_RET(check_reduce(fn, op, key_dtype, n, keys, dtype, values, keys_out, values_out));
    if (n == 0) return GP_OK;
    if (!gp__bykey_onepass(op, dtype))
        return compose_reduce(fn, ctx, op, key_dtype, n, keys, dtype, values, keys_out, values_out, runs);
    if (gp__is_cpu(ctx)) return cpu_pass(fn, op, key_dtype, n, keys, dtype, values, 0, NULL, keys_out, values_out, runs);
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, NULL, 1, &s));
    GP_TRY_RET(gp__scan_gpu_ops.bykey(ctx, fn, op, key_dtype, n, keys, dtype, values, keys_out, values_out,
                                      (uint64_t *)ctx->dev_result, GP__BYKEY_REDUCE, s));
    const cudaError_t e = cudaMemcpyAsync(ctx->host_result, ctx->dev_result, 8, cudaMemcpyDeviceToHost, s);
    if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    GP_TRY_RET(gp__gpu_wait(fn, s, 1));
    uint64_t r = 0;
    memcpy(&r, ctx->host_result, 8);
    *runs = (size_t)r;
    return GP_OK;
}

/* ---- scan by key */

static gp_status_t scan_by_key(const char *fn, int sync, gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype,
                               size_t n, const void *keys, gp_dtype_t dtype, gp_scan_kind_t kind, const void *values,
                               void *y, gp_stream_t stream)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(gp__scan_check(fn, op, dtype, (int)kind));
    GP_TRY_RET(check(fn, 1, key_dtype, n, keys, dtype, values, y, NULL, NULL, GP_DTYPE_COUNT));
    if (n == 0) return GP_OK;
    const int excl = kind == GP_SCAN_EXCLUSIVE;
    if (gp__is_cpu(ctx)) return cpu_pass(fn, op, key_dtype, n, keys, dtype, values, excl, y, NULL, NULL, NULL);
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(gp__scan_gpu_ops.bykey(ctx, fn, op, key_dtype, n, keys, dtype, values, NULL, y, NULL,
                                      excl ? GP__BYKEY_SCAN_EXCL : GP__BYKEY_SCAN, s));
    return gp__gpu_wait(fn, s, sync);
}

gp_status_t gp_scan_by_key(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                           gp_dtype_t dtype, gp_scan_kind_t kind, const void *values, void *y, gp_stream_t stream)
{
    return scan_by_key("gp_scan_by_key", 0, ctx, op, key_dtype, n, keys, dtype, kind, values, y, stream);
}

gp_status_t gp_scan_by_key_sync(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n, const void *keys,
                                gp_dtype_t dtype, gp_scan_kind_t kind, const void *values, void *y)
{
    return scan_by_key("gp_scan_by_key_sync", 1, ctx, op, key_dtype, n, keys, dtype, kind, values, y, NULL);
}
