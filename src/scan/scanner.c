/*
 * scanner.c — gp_scanner: a scan over pieces. Each push is one gp_scan-order pass over whole tiles started from the
 * carry of the pieces before (I of their last tile, docs/design/scan.md), which the reference defines to give the bits of
 * one pass; the carry out of each push goes to the other of two slots (device memory on a GPU, host memory on the CPU
 * backend), so a push never reads and writes the same slot. Pushes on different streams are ordered by an event.
 */
#include "scan_internal.h"

#include <stdlib.h>
#include <string.h>

#define SLOT 128 /* bytes per carry: the widest element, mat4 of f64 */

struct gp_scanner {
    gp_ctx_t *ctx;
    gp_reduce_op_t op;
    gp_dtype_t dtype, acc, out; /* input, accumulator (the carries' type), output (gp__scan_plan) */
    int ord;                    /* -1, or the gp_ordered_op_t of an ordered scanner (dtype = acc = out) */
    int excl;
    int gpu;
    void *slot[2];    /* the carries: slot[cur] holds the latest (once count > 0) */
    int cur;
    size_t count;     /* elements pushed */
    int ended;        /* a partial piece was pushed */
    cudaEvent_t last; /* GPU: the end of the latest push */
    int have_last;
};

/* ord >= 0: an ordered scanner of that gp_ordered_op_t (op and acc_req unused) */
static gp_status_t create(const char *fn, gp_ctx_t *ctx, gp_reduce_op_t op, int ord, gp_dtype_t dtype, int acc_req,
                          gp_scan_kind_t kind, gp_scanner_t **scanner)
{
    GP_ARG_NONNULL(fn, scanner);
    *scanner = NULL;
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    gp_dtype_t acc = dtype, out = dtype;
    if (ord >= 0) GP_TRY_RET(gp__oscan_check(fn, (gp_ordered_op_t)ord, dtype, (int)kind));
    else GP_TRY_RET(gp__scan_plan(fn, op, dtype, acc_req, &acc, &out));
    if (kind != GP_SCAN_INCLUSIVE && kind != GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not a gp_scan_kind_t", fn, (int)kind);
    GP_NO_CAPTURE(ctx, fn, "a scanner allocates its carries");
    gp_scanner_t *s = calloc(1, sizeof *s);
    if (!s) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the scanner", fn);
    s->ctx = ctx;
    s->op = op;
    s->dtype = dtype;
    s->acc = acc;
    s->out = out;
    s->ord = ord;
    s->excl = kind == GP_SCAN_EXCLUSIVE;
    s->gpu = !gp__is_cpu(ctx);
    cudaError_t e = cudaSuccess;
    if (s->gpu) {
        void *p = NULL;
        e = cudaMalloc(&p, 2 * SLOT);
        if (e == cudaSuccess) {
            s->slot[0] = p;
            s->slot[1] = (char *)p + SLOT;
            e = cudaEventCreateWithFlags(&s->last, cudaEventDisableTiming);
            if (e != cudaSuccess) cudaFree(p);
        }
    } else if ((s->slot[0] = malloc(2 * SLOT)) != NULL) {
        s->slot[1] = (char *)s->slot[0] + SLOT;
    } else {
        free(s);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the carries", fn);
    }
    if (e != cudaSuccess) {
        free(s);
        return gp__cuda_error(e, "gp_scanner_create: the carries", __FILE__, __LINE__);
    }
    *scanner = s;
    return GP_OK;
}

gp_status_t gp_scanner_create(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind,
                              gp_scanner_t **scanner)
{
    return create("gp_scanner_create", ctx, op, -1, dtype, -1, kind, scanner);
}

gp_status_t gp_scanner_create_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                  gp_scan_kind_t kind, gp_scanner_t **scanner)
{
    return create("gp_scanner_create_acc", ctx, op, -1, dtype, (int)acc, kind, scanner);
}

gp_status_t gp_scanner_create_ordered(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind,
                                      gp_scanner_t **scanner)
{
    if ((unsigned)op >= GP_ORDERED_OP_COUNT) { /* before the cast to int below could hide a bad value */
        if (scanner) *scanner = NULL;
        return gp__error(GP_ERR_INVALID_ARG, "gp_scanner_create_ordered: op %d is not a gp_ordered_op_t", (int)op);
    }
    return create("gp_scanner_create_ordered", ctx, GP_REDUCE_SUM, (int)op, dtype, -1, kind, scanner);
}

gp_dtype_t gp_scanner_out_dtype(const gp_scanner_t *scanner) { return scanner ? scanner->out : GP_DTYPE_COUNT; }

gp_status_t gp_scanner_push(gp_scanner_t *s, size_t n, const void *x, void *y, gp_stream_t stream)
{
    static const char fn[] = "gp_scanner_push";
    GP_ARG_NONNULL(fn, s);
    GP_TRY_RET(gp__ctx_enter(s->ctx, fn));
    if (s->ord >= 0) GP_TRY_RET(gp__oscan_check_arrays(fn, (gp_ordered_op_t)s->ord, s->dtype, n, x, y));
    else GP_TRY_RET(gp__scan_check_xy(fn, s->dtype, s->out, n, x, y));
    GP_NO_CAPTURE(s->ctx, fn, "a scanner orders its pushes with an event of its own");
    if (n == 0) return GP_OK;
    if (s->ended)
        return gp__error(GP_ERR_INVALID_ARG, "%s: the array already ended with a piece that was not a multiple of "
                                             "GP_SCAN_GRANULE (%d) elements, after %zu elements; reset the scanner "
                                             "to start another", fn, GP_SCAN_GRANULE, s->count);
    if (s->count + n < s->count) return gp__error(GP_ERR_OVERFLOW, "%s: more than SIZE_MAX elements", fn);
    const void *cin = s->count ? s->slot[s->cur] : NULL;
    void *cout = s->slot[s->cur ^ 1];
    if (s->gpu) {
        cudaStream_t st = (cudaStream_t)stream;
        cudaError_t e = s->have_last ? cudaStreamWaitEvent(st, s->last, 0) : cudaSuccess;
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_scanner_push: cudaStreamWaitEvent", __FILE__, __LINE__);
        if (s->ord >= 0)
            GP_TRY_RET(gp__scan_gpu_ops.ordered(s->ctx, (gp_ordered_op_t)s->ord, s->dtype, n, x, y, s->excl, cin, cout, st));
        else
            GP_TRY_RET(gp__scan_gpu_ops.scan(s->ctx, s->op, s->dtype, s->acc, s->out, n, x, y, s->excl, cin, cout, st));
        e = cudaEventRecord(s->last, st);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_scanner_push: cudaEventRecord", __FILE__, __LINE__);
        s->have_last = 1;
    } else {
        if (s->ord >= 0)
            GP_TRY_RET(gp__oscan_cpu((gp_ordered_op_t)s->ord, s->dtype, n, x, y, s->excl, cin, cout, 1));
        else
            GP_TRY_RET(gp__scan_cpu_x(s->op, s->dtype, s->acc, s->out, n, x, y, s->excl, cin, cout, 1));
    }
    s->cur ^= 1;
    s->count += n;
    if (n % GP_SCAN_GRANULE) s->ended = 1;
    return GP_OK;
}

gp_status_t gp_scanner_total_sync(gp_scanner_t *s, void *value_host)
{
    static const char fn[] = "gp_scanner_total_sync";
    GP_ARG_NONNULL(fn, s);
    GP_ARG_NONNULL(fn, value_host);
    GP_TRY_RET(gp__ctx_enter(s->ctx, fn));
    GP_NO_CAPTURE(s->ctx, fn, "it waits for the scanner's work and reads its carry back");
    const size_t ea = gp_dtype_size(s->acc) * (s->ord >= 0 ? gp_ordered_width((gp_ordered_op_t)s->ord) : 1);
    unsigned char a[SLOT] = {0};
    if (s->ord >= 0 && s->count == 0) { /* nothing pushed: the identity (first / last have none) */
        if (s->ord == GP_ORDERED_FIRST || s->ord == GP_ORDERED_LAST)
            return gp__error(GP_ERR_INVALID_ARG, "%s: %s of nothing (no element pushed)", fn,
                             gp_ordered_op_name((gp_ordered_op_t)s->ord));
        gp__oscan_identity((gp_ordered_op_t)s->ord, s->dtype, a);
    } else if (s->count == 0) { /* nothing pushed: the exclusive scan's first value, from a one-element exclusive scan */
        unsigned char one[8] = {0};
        GP_TRY_RET(gp__scan_cpu(s->op, s->acc, 1, one, a, 1, NULL, NULL, 0));
    } else if (!s->gpu) {
        memcpy(a, s->slot[s->cur], ea);
    } else {
        cudaError_t e = cudaEventSynchronize(s->last);
        if (e == cudaSuccess) e = cudaMemcpy(a, s->slot[s->cur], ea, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_scanner_total_sync", __FILE__, __LINE__);
    }
    if (s->ord >= 0) memcpy(value_host, a, ea);
    else gp__scan_narrow1(s->acc, s->out, a, value_host); /* in the output dtype, rounded as the outputs are */
    return GP_OK;
}

gp_status_t gp_scanner_transfer(gp_scanner_t *dst, gp_scanner_t *src)
{
    static const char fn[] = "gp_scanner_transfer";
    GP_ARG_NONNULL(fn, dst);
    GP_ARG_NONNULL(fn, src);
    if (dst == src) return gp__error(GP_ERR_INVALID_ARG, "%s: dst and src are one scanner", fn);
    if (dst->op != src->op || dst->dtype != src->dtype || dst->acc != src->acc || dst->out != src->out ||
        dst->ord != src->ord || dst->excl != src->excl)
        return gp__error(GP_ERR_INVALID_ARG, "%s: the scanners differ in op, dtype, accumulator or kind", fn);
    if (dst->count != 0) return gp__error(GP_ERR_INVALID_ARG, "%s: dst has begun an array (%zu elements)", fn, dst->count);
    GP_TRY_RET(gp__ctx_enter(src->ctx, fn));
    GP_NO_CAPTURE(src->ctx, fn, "it waits for src's pushes");
    if (src->count == 0) return GP_OK;
    const size_t ea = gp_dtype_size(src->acc) * (src->ord >= 0 ? gp_ordered_width((gp_ordered_op_t)src->ord) : 1);
    unsigned char a[SLOT];
    cudaError_t e = cudaSuccess;
    if (src->gpu) {
        e = cudaEventSynchronize(src->last);
        if (e == cudaSuccess) e = cudaMemcpy(a, src->slot[src->cur], ea, cudaMemcpyDeviceToHost);
    } else {
        memcpy(a, src->slot[src->cur], ea);
    }
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_scanner_transfer: src's carry", __FILE__, __LINE__);
    GP_TRY_RET(gp__ctx_enter(dst->ctx, fn));
    if (dst->gpu) {
        if (dst->have_last) e = cudaEventSynchronize(dst->last);
        if (e == cudaSuccess) e = cudaMemcpy(dst->slot[dst->cur], a, ea, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_scanner_transfer: dst's carry", __FILE__, __LINE__);
    } else {
        memcpy(dst->slot[dst->cur], a, ea);
    }
    dst->count = src->count, dst->ended = src->ended;
    src->count = 0, src->ended = 0;
    return GP_OK;
}

size_t gp_scanner_count(const gp_scanner_t *s) { return s ? s->count : 0; }

gp_status_t gp_scanner_reset(gp_scanner_t *s)
{
    GP_ARG_NONNULL("gp_scanner_reset", s);
    s->count = 0;
    s->ended = 0;
    return GP_OK;
}

gp_status_t gp_scanner_destroy(gp_scanner_t *s)
{
    if (!s) return GP_OK;
    gp_status_t st = GP_OK;
    if (s->gpu) {
        if (s->have_last) {
            const cudaError_t e = cudaEventSynchronize(s->last);
            if (e != cudaSuccess) st = gp__cuda_error(e, "gp_scanner_destroy: the last push", __FILE__, __LINE__);
        }
        cudaEventDestroy(s->last);
        cudaFree(s->slot[0]);
    } else {
        free(s->slot[0]);
    }
    free(s);
    return st;
}
