/*
 * reducer.c — gp_reducer: the fixed reduction tree of reduce_internal.h, computed over an array that arrives in
 * pieces. Each push appends its tile results to level 0; whenever a level holds a full group of 4096 entries, the
 * group is folded into one entry of the next level (exactly the fold the one-launch path does, since a level with
 * 4096 entries always gets folded). finish folds the partial group left at each level, from the bottom up, until a
 * level that ever held only one entry: that entry is the result. So the bits equal gp_reduce's over the whole array.
 * The levels live in the reducer's own buffers (device memory on a GPU context, host memory on the CPU backend).
 */
#include "reduce_internal.h"

#include <stdlib.h>
#include <string.h>

#define LEVELS 6 /* 4096^5 tiles of 64 KiB: more than any size_t array */

struct gp_reducer {
    gp_ctx_t *ctx;
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    int wide; /* accumulate f16 / bf16 / f32 in double */
    int gpu;
    size_t esz;             /* bytes per entry */
    size_t granule;         /* elements per tile */
    void *lvl[LEVELS];      /* entries not yet folded, at the front */
    size_t cap[LEVELS];     /* entries each buffer holds */
    size_t cnt[LEVELS];     /* entries held now */
    size_t made[LEVELS];    /* entries ever produced at this level (for this array) */
    size_t total;           /* elements pushed */
    int ended;              /* a partial tile was pushed: the array is complete */
    cudaEvent_t last;       /* GPU: the end of the latest push */
    int have_last;
};

static void lvl_free(gp_reducer_t *r, void *p)
{
    if (!p) return;
    if (r->gpu) cudaFree(p);
    else free(p);
}

/* Room for `need` entries at level L, keeping the ones held. Growing a GPU level waits for the reducer's work. */
static gp_status_t ensure(gp_reducer_t *r, int L, size_t need)
{
    static const char fn[] = "gp_reducer_push";
    if (L >= LEVELS) return gp__error(GP_ERR_OVERFLOW, "%s: the array exceeds %d tree levels", fn, LEVELS);
    if (need <= r->cap[L]) return GP_OK;
    size_t cap = r->cap[L] ? r->cap[L] : GP__REDUCE_GROUP;
    while (cap < need) cap *= 2;
    size_t bytes;
    if (!gp__mul_ok(cap, r->esz, &bytes)) return gp__error(GP_ERR_OVERFLOW, "%s: %zu tree entries", fn, cap);
    void *p = NULL;
    if (r->gpu) {
        cudaError_t e = cudaSuccess;
        if (r->have_last) e = cudaEventSynchronize(r->last);
        if (e == cudaSuccess) e = cudaMalloc(&p, bytes);
        if (e == cudaSuccess && r->cnt[L]) e = cudaMemcpy(p, r->lvl[L], r->cnt[L] * r->esz, cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) {
            if (p) cudaFree(p);
            return gp__cuda_error(e, "gp_reducer: growing a tree level", __FILE__, __LINE__);
        }
    } else {
        p = malloc(bytes);
        if (!p) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu bytes of tree entries", fn, bytes);
        if (r->cnt[L]) memcpy(p, r->lvl[L], r->cnt[L] * r->esz);
    }
    lvl_free(r, r->lvl[L]);
    r->lvl[L] = p;
    r->cap[L] = cap;
    return GP_OK;
}

static void *entry(gp_reducer_t *r, int L, size_t i) { return (char *)r->lvl[L] + i * r->esz; }

/* Folds the first m entries of level L (m a multiple of 4096, or the partial group left at finish) into level L+1,
 * and moves the entries after them to the front. */
static gp_status_t fold(gp_reducer_t *r, int L, size_t m, cudaStream_t s)
{
    const size_t groups = (m + GP__REDUCE_GROUP - 1) / GP__REDUCE_GROUP;
    GP_TRY_RET(ensure(r, L + 1, r->cnt[L + 1] + groups));
    void *dst = entry(r, L + 1, r->cnt[L + 1]);
    const size_t rest = r->cnt[L] - m;
    if (r->gpu) {
        GP_TRY_RET(gp__reduce_gpu_ops.fold(r->ctx, r->op, r->dtype, r->wide, m, r->lvl[L], dst, s));
        /* rest < 4096 <= m: source and destination do not overlap */
        if (rest) {
            cudaError_t e = cudaMemcpyAsync(r->lvl[L], entry(r, L, m), rest * r->esz, cudaMemcpyDeviceToDevice, s);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_reducer: moving tree entries", __FILE__, __LINE__);
        }
    } else {
        gp__reduce_cpu_fold(r->op, r->dtype, r->wide, m, r->lvl[L], dst);
        if (rest) memmove(r->lvl[L], entry(r, L, m), rest * r->esz);
    }
    r->cnt[L] = rest;
    r->cnt[L + 1] += groups;
    r->made[L + 1] += groups;
    return GP_OK;
}

static void reset(gp_reducer_t *r)
{
    memset(r->cnt, 0, sizeof r->cnt);
    memset(r->made, 0, sizeof r->made);
    r->total = 0;
    r->ended = 0;
}

gp_status_t gp_reducer_create(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_reducer_t **reducer)
{
    return gp_reducer_create_acc(ctx, op, dtype, GP_DTYPE_COUNT, reducer);
}

gp_status_t gp_reducer_create_acc(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                  gp_reducer_t **reducer)
{
    static const char fn[] = "gp_reducer_create";
    GP_ARG_NONNULL(fn, reducer);
    *reducer = NULL;
    uint64_t dummy = 0;
    int wide = 0;
    GP_TRY_RET(gp__reduce_check(fn, ctx, op, dtype, 0, NULL, &dummy));
    GP_TRY_RET(gp__reduce_acc_check(fn, op, dtype, acc, &wide));
    GP_NO_CAPTURE(ctx, fn, "a reducer allocates and reads its result back");
    gp_reducer_t *r = calloc(1, sizeof *r);
    if (!r) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the reducer", fn);
    r->ctx = ctx;
    r->op = op;
    r->dtype = dtype;
    r->wide = wide;
    r->gpu = !gp__is_cpu(ctx);
    r->esz = r->gpu ? gp__reduce_gpu_ops.entry_bytes(op, dtype, wide) : gp__reduce_cpu_entry_bytes();
    r->granule = GP__REDUCE_TILE_BYTES / gp_dtype_size(dtype);
    if (r->gpu) {
        cudaError_t e = cudaEventCreateWithFlags(&r->last, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            free(r);
            return gp__cuda_error(e, "gp_reducer_create: cudaEventCreate", __FILE__, __LINE__);
        }
    }
    gp_status_t st = ensure(r, 0, GP__REDUCE_GROUP);
    if (st != GP_OK) {
        gp_reducer_destroy(r);
        return st;
    }
    *reducer = r;
    return GP_OK;
}

size_t gp_reducer_granule(const gp_reducer_t *reducer) { return reducer ? reducer->granule : 0; }

gp_status_t gp_reducer_push(gp_reducer_t *r, const void *x, size_t count, gp_stream_t stream)
{
    static const char fn[] = "gp_reducer_push";
    GP_ARG_NONNULL(fn, r);
    GP_TRY_RET(gp__reduce_check(fn, r->ctx, r->op, r->dtype, count, x, &r->total));
    GP_NO_CAPTURE(r->ctx, fn, "a reducer grows its levels and reads its result back");
    if (count == 0) return GP_OK;
    if (r->ended)
        return gp__error(GP_ERR_INVALID_ARG, "%s: a push of %zu elements (not a multiple of the granule %zu) ended "
                                             "the array; finish it first", fn, r->total, r->granule);
    if (r->total + count < r->total) return gp__error(GP_ERR_OVERFLOW, "%s: more than SIZE_MAX elements", fn);
    const size_t nt = (count + r->granule - 1) / r->granule;
    GP_TRY_RET(ensure(r, 0, r->cnt[0] + nt));
    cudaStream_t s = (cudaStream_t)stream;
    if (r->gpu && r->have_last) {
        cudaError_t e = cudaStreamWaitEvent(s, r->last, 0);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_reducer_push: cudaStreamWaitEvent", __FILE__, __LINE__);
    }
    if (r->gpu)
        GP_TRY_RET(gp__reduce_gpu_ops.tiles(r->ctx, r->op, r->dtype, r->wide, count, x, (long long)r->total,
                                        entry(r, 0, r->cnt[0]), s));
    else
        gp__reduce_cpu_tiles(r->op, r->dtype, r->wide, count, x, (long long)r->total, entry(r, 0, r->cnt[0]), 1);
    r->cnt[0] += nt;
    r->made[0] += nt;
    r->total += count;
    if (count % r->granule) r->ended = 1;
    for (int L = 0; L + 1 < LEVELS && r->cnt[L] >= GP__REDUCE_GROUP; L++)
        GP_TRY_RET(fold(r, L, r->cnt[L] / GP__REDUCE_GROUP * GP__REDUCE_GROUP, s));
    if (r->gpu) {
        cudaError_t e = cudaEventRecord(r->last, s);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_reducer_push: cudaEventRecord", __FILE__, __LINE__);
        r->have_last = 1;
    }
    return GP_OK;
}

gp_status_t gp_reducer_finish(gp_reducer_t *r, gp_reduce_result_t *result_host)
{
    static const char fn[] = "gp_reducer_finish";
    GP_ARG_NONNULL(fn, r);
    GP_ARG_NONNULL(fn, result_host);
    GP_TRY_RET(gp__ctx_enter(r->ctx, fn));
    GP_NO_CAPTURE(r->ctx, fn, "it waits for the result");
    gp_status_t st = GP_OK;
    if (r->total == 0) {
        gp__reduce_identity_acc(r->op, r->dtype, r->wide, result_host);
        reset(r);
        return GP_OK;
    }
    cudaStream_t s = NULL;
    if (r->gpu && r->have_last) GP_CUDA_TRY(cudaStreamWaitEvent(s, r->last, 0));
    int L = 0;
    while (r->made[L] != 1) {
        if (r->cnt[L]) GP_TRY(fold(r, L, r->cnt[L], s));
        L++;
    }
    if (r->gpu) {
        unsigned long long e[2] = {0, 0};
        GP_CUDA_TRY(cudaMemcpyAsync(r->ctx->host_result, r->lvl[L], r->esz, cudaMemcpyDeviceToHost, s));
        GP_CUDA_TRY(cudaStreamSynchronize(s));
        memcpy(e, r->ctx->host_result, r->esz);
        gp_reduce_result_t out;
        gp__reduce_identity_acc(r->op, r->dtype, r->wide, &out);
        out.value.u64 = e[0];
        out.value2.u64 = r->op == GP_REDUCE_MINMAX ? e[1] : 0;
        out.index = (r->op == GP_REDUCE_ARGMIN || r->op == GP_REDUCE_ARGMAX) ? (int64_t)e[1] : -1;
        *result_host = out;
    } else {
        gp__reduce_cpu_entry_result(r->op, r->dtype, r->wide, r->lvl[L], result_host);
    }
fail:
    reset(r);
    return st;
}

/* One entry in the other backend's layout. A GPU entry is 8-byte slots: v, then v2 (minmax) or the index (argmin,
 * argmax); a CPU entry is reduce_cpu.c's {v, v2, idx}. The value's 8 bytes mean the same on both sides (a float in
 * the low 4, as gp_reduce_result_t's scalar). */
void gp__reduce_entry_to_cpu(gp_reduce_op_t op, size_t gpu_esz, const void *src, void *dst)
{
    const int two = op == GP_REDUCE_MINMAX, arg = op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX;
    uint64_t cpu[3]; /* v, v2, idx: reduce_cpu.c's st_t, three 8-byte fields */
    uint64_t slot[2] = {0, 0};
    memcpy(slot, src, gpu_esz);
    cpu[0] = slot[0];
    cpu[1] = two ? slot[1] : slot[0];
    cpu[2] = arg ? slot[1] : (uint64_t)INT64_MAX;
    memcpy(dst, cpu, sizeof cpu);
}

static void entry_convert(const gp_reducer_t *from, const gp_reducer_t *to, const void *src, void *dst)
{
    if (from->gpu == to->gpu) {
        memcpy(dst, src, from->esz);
        return;
    }
    if (from->gpu) {
        gp__reduce_entry_to_cpu(from->op, from->esz, src, dst);
        return;
    }
    const int two = from->op == GP_REDUCE_MINMAX;
    uint64_t cpu[3], slot[2];
    memcpy(cpu, src, sizeof cpu);
    slot[0] = cpu[0];
    slot[1] = two ? cpu[1] : cpu[2];
    memcpy(dst, slot, to->esz);
}

gp_status_t gp_reducer_transfer(gp_reducer_t *dst, gp_reducer_t *src)
{
    static const char fn[] = "gp_reducer_transfer";
    GP_ARG_NONNULL(fn, dst);
    GP_ARG_NONNULL(fn, src);
    if (dst == src) return gp__error(GP_ERR_INVALID_ARG, "%s: dst and src are the same reducer", fn);
    GP_NO_CAPTURE(src->ctx, fn, "it waits for src");
    GP_NO_CAPTURE(dst->ctx, fn, "it moves partial results between contexts");
    if (dst->op != src->op || dst->dtype != src->dtype || dst->wide != src->wide)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dst (%s of %s%s) and src (%s of %s%s) differ in op, dtype or "
                                             "accumulator", fn, gp_reduce_op_name(dst->op), gp_dtype_name(dst->dtype),
                         dst->wide ? ", f64 accumulator" : "", gp_reduce_op_name(src->op), gp_dtype_name(src->dtype),
                         src->wide ? ", f64 accumulator" : "");
    if (dst->total != 0)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dst already holds %zu elements; finish it first", fn, dst->total);
    if (sizeof(uint64_t[3]) != gp__reduce_cpu_entry_bytes())
        return gp__error(GP_ERR_INTERNAL, "%s: CPU entries of %zu bytes", fn, gp__reduce_cpu_entry_bytes());
    if (src->gpu) {
        GP_TRY_RET(gp__ctx_enter(src->ctx, fn));
        if (src->have_last) {
            cudaError_t e = cudaEventSynchronize(src->last);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_reducer_transfer: waiting for src", __FILE__, __LINE__);
        }
    }
    /* Each level holds fewer than 4096 entries between pushes: stage them through the host. */
    size_t most = 0;
    for (int L = 0; L < LEVELS; L++) most = src->cnt[L] > most ? src->cnt[L] : most;
    const size_t eb = src->esz > dst->esz ? src->esz : dst->esz;
    unsigned char *a = malloc(most * eb + 1), *b = malloc(most * eb + 1);
    gp_status_t st = GP_OK;
    if (!a || !b) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu staged entries", fn, most);
        goto fail;
    }
    for (int L = 0; L < LEVELS && st == GP_OK; L++) {
        const size_t m = src->cnt[L];
        if (m == 0) continue;
        if (src->gpu) {
            GP_TRY(gp__ctx_enter(src->ctx, fn));
            cudaError_t e = cudaMemcpy(a, src->lvl[L], m * src->esz, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) {
                st = gp__cuda_error(e, "gp_reducer_transfer: reading src", __FILE__, __LINE__);
                break;
            }
        } else {
            memcpy(a, src->lvl[L], m * src->esz);
        }
        for (size_t i = 0; i < m; i++) entry_convert(src, dst, a + i * src->esz, b + i * dst->esz);
        if (dst->gpu) GP_TRY(gp__ctx_enter(dst->ctx, fn));
        GP_TRY(ensure(dst, L, m));
        if (dst->gpu) {
            if (dst->have_last) GP_CUDA_TRY(cudaEventSynchronize(dst->last));
            GP_CUDA_TRY(cudaMemcpy(dst->lvl[L], b, m * dst->esz, cudaMemcpyHostToDevice));
        } else {
            memcpy(dst->lvl[L], b, m * dst->esz);
        }
    }
    if (st == GP_OK) {
        memcpy(dst->cnt, src->cnt, sizeof dst->cnt);
        memcpy(dst->made, src->made, sizeof dst->made);
        dst->total = src->total;
        dst->ended = src->ended;
        reset(src);
    }
fail:
    free(a);
    free(b);
    return st;
}

gp_status_t gp_reducer_destroy(gp_reducer_t *r)
{
    if (!r) return GP_OK;
    gp_status_t st = GP_OK;
    if (r->gpu) {
        cudaSetDevice(r->ctx->device);
        if (r->have_last) {
            const cudaError_t e = cudaEventSynchronize(r->last);
            if (e != cudaSuccess) st = gp__cuda_error(e, "gp_reducer_destroy: the last push", __FILE__, __LINE__);
        }
        cudaEventDestroy(r->last);
    }
    for (int L = 0; L < LEVELS; L++) lvl_free(r, r->lvl[L]);
    free(r);
    return st;
}
