/*
 * runs_stream.c — the streamed runs of `gpuprim unique --consecutive` and `gpuprim rle` (runs_stream.h): consecutive
 * duplicates removed, or runs of equal consecutive elements (their first element and their length, u64), chunk by
 * chunk through gp_unique / gp_run_length_encode (any size). A run that crosses a chunk edge is joined: the last input
 * element of each chunk is kept, and the next chunk's first run merges with the last one held back. Consecutive
 * equality is by value (floats as numbers: NaN equals nothing, -0 == +0), as in the library. Outputs .npy or raw,
 * written whole or not at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "runs_stream.h"

#include "input.h"
#include "output.h"
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES ((size_t)16 << 20)

typedef struct runjob {
    gp_ctx_t *ctx;
    gp_dtype_t dtype;
    int rle, gpu;
    size_t es, cap;
    void *dout;         /* GPU: a chunk's values */
    uint64_t *dlen;     /* GPU: its lengths (rle) */
    uint64_t *dcnt;     /* GPU: its count */
    void *hout;         /* host copies (pinned on a GPU) */
    uint64_t *hlen, *hcnt;
    arr_out_t *vout, *lout;
    gp_ctx_t *lctx[2];  /* each lane's context and buffers (bd bl bc bh bhl bhc), the fields above set from them */
    gp_buffer_t b[2][6];
    unsigned char prev[8]; /* the previous chunk's last input element */
    int have_prev;
    unsigned char pend[8]; /* rle: the last run, held back (its value and length) */
    uint64_t pend_len;
    size_t elements, runs;
} runjob_t;

/* a == b by value (the library's rule). */
static int same_value(gp_dtype_t dt, const void *a, const void *b)
{
    uint16_t h1, h2;
    switch (dt) {
    case GP_F16: memcpy(&h1, a, 2), memcpy(&h2, b, 2); return gp_f16_to_f32(h1) == gp_f16_to_f32(h2);
    case GP_BF16: memcpy(&h1, a, 2), memcpy(&h2, b, 2); return gp_bf16_to_f32(h1) == gp_bf16_to_f32(h2);
    case GP_F32: {
        float x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        return x == y;
    }
    case GP_F64: {
        double x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        return x == y;
    }
    default: return memcmp(a, b, gp_dtype_size(dt)) == 0;
    }
}

static gp_status_t runs_chunk(void *user, const void *x, size_t n, size_t first, gp_stream_t s)
{
    runjob_t *j = user;
    (void)first;
    if (n > j->cap) return GP_ERR_INTERNAL; /* the stream's chunks are at most CHUNK_BYTES */
    gp_status_t st;
    size_t k = 0;
    unsigned char last[8];
    if (j->gpu) {
        st = j->rle ? gp_run_length_encode(j->ctx, j->dtype, n, x, j->dout, j->dlen, j->dcnt, s)
                    : gp_unique(j->ctx, j->dtype, n, x, j->dout, j->dcnt, s);
        if (st != GP_OK) return st;
        if ((st = gp_memcpy(j->ctx, j->hcnt, j->dcnt, 8, s)) != GP_OK ||
            (st = gp_memcpy(j->ctx, last, (const char *)x + (n - 1) * j->es, j->es, s)) != GP_OK ||
            (st = gp_stream_sync(j->ctx, s)) != GP_OK)
            return st;
        k = (size_t)*j->hcnt;
        if ((st = gp_memcpy(j->ctx, j->hout, j->dout, k * j->es, s)) != GP_OK ||
            (j->rle && (st = gp_memcpy(j->ctx, j->hlen, j->dlen, k * 8, s)) != GP_OK) ||
            (st = gp_stream_sync(j->ctx, s)) != GP_OK)
            return st;
    } else {
        st = j->rle ? gp_run_length_encode_sync(j->ctx, j->dtype, n, x, j->hout, j->hlen, &k)
                    : gp_unique_sync(j->ctx, j->dtype, n, x, j->hout, &k);
        if (st != GP_OK) return st;
        memcpy(last, (const char *)x + (n - 1) * j->es, j->es);
    }
    /* the chunk's first run continues the previous chunk's last one? */
    const int joins = j->have_prev && k > 0 && same_value(j->dtype, j->prev, j->hout);
    size_t from = 0;
    if (!j->rle) {
        from = joins ? 1 : 0;
    } else {
        if (joins) j->pend_len += j->hlen[0], from = 1;
        if (k > from) { /* every run but the chunk's last is complete: the held one first, then those */
            if (j->pend_len && (arr_out_write(j->vout, j->pend, 1) != 0 || arr_out_write(j->lout, &j->pend_len, 1) != 0))
                return GP_ERR_IO;
            if (arr_out_write(j->vout, (char *)j->hout + from * j->es, k - 1 - from) != 0 ||
                arr_out_write(j->lout, j->hlen + from, k - 1 - from) != 0)
                return GP_ERR_IO;
            memcpy(j->pend, (char *)j->hout + (k - 1) * j->es, j->es);
            j->pend_len = j->hlen[k - 1];
        }
        from = k; /* nothing else to write now */
    }
    if (from < k && arr_out_write(j->vout, (char *)j->hout + from * j->es, k - from) != 0) return GP_ERR_IO;
    if (!j->rle) j->runs += k - from;
    memcpy(j->prev, last, j->es);
    j->have_prev = 1;
    j->elements += n;
    return GP_OK;
}

/* The stage: per lane its buffers; the runs' state (the previous element, the run held back) is on the host, so
 * nothing moves at the hand-over. */
enum { B_D, B_L, B_C, B_H, B_HL, B_HC };
static gp_status_t runs_bind(void *s, int lane, gp_ctx_t *ctx)
{
    runjob_t *j = s;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    const gp_mem_kind_t hk = gpu ? GP_MEM_PINNED : GP_MEM_PAGEABLE;
    gp_buffer_t *b = j->b[lane];
    gp_status_t st = GP_OK;
    j->lctx[lane] = ctx;
    if ((st = gp_mem_alloc(ctx, hk, j->cap * j->es, &b[B_H])) != GP_OK ||
        (j->rle && (st = gp_mem_alloc(ctx, hk, j->cap * 8, &b[B_HL])) != GP_OK))
        return st;
    if (gpu && ((st = gp_mem_alloc(ctx, GP_MEM_DEVICE, j->cap * j->es, &b[B_D])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &b[B_C])) != GP_OK ||
                (st = gp_mem_alloc(ctx, GP_MEM_PINNED, 8, &b[B_HC])) != GP_OK ||
                (j->rle && (st = gp_mem_alloc(ctx, GP_MEM_DEVICE, j->cap * 8, &b[B_L])) != GP_OK)))
        return st;
    return GP_OK;
}

static gp_status_t runs_push(void *s, int lane, const void *x, size_t n, size_t first, gp_stream_t st)
{
    runjob_t *j = s;
    gp_buffer_t *b = j->b[lane];
    j->ctx = j->lctx[lane], j->gpu = gp_ctx_device(j->ctx) != GP_DEVICE_CPU;
    j->dout = b[B_D].device, j->dlen = b[B_L].device, j->dcnt = b[B_C].device;
    j->hout = b[B_H].host, j->hlen = b[B_HL].host, j->hcnt = b[B_HC].host;
    return runs_chunk(j, x, n, first, st);
}

static void runs_unbind(void *s, int lane)
{
    runjob_t *j = s;
    if (!j->lctx[lane]) return;
    for (int k = 0; k < 6; k++) gp_mem_free(j->lctx[lane], &j->b[lane][k]);
    j->lctx[lane] = NULL;
}

static const stage_ops_t runs_ops = {runs_bind, NULL, runs_push, NULL, runs_unbind, CHUNK_BYTES, 3, NULL};

int runs_stream(const char *verb, int rle, const char *path, cli_common_t *c, const char *dtype, const char *offset,
                const char *count, const char *out, const char *len)
{
    const double t0 = now_seconds();
    input_t in;
    int rc = input_open_opts(&in, verb, path, dtype, offset, count);
    if (rc == EXIT_OK && (rc = input_c_order(&in, verb)) != EXIT_OK) input_close(&in);
    if (rc != EXIT_OK) return rc;
    runjob_t j;
    memset(&j, 0, sizeof j);
    gp_ctx_t *ctx = NULL;
    arr_out_t vo, lo;
    memset(&vo, 0, sizeof vo);
    memset(&lo, 0, sizeof lo);
    pipe_t pp;
    memset(&pp, 0, sizeof pp);
    gp_status_t st = GP_OK;
    {
        const work_t w = {WORK_SCAN, input_bytes(&in), 0, 0};
        c->device = pick_device(verb, c->device, &w, 0);
    }
    j.dtype = in.d.dtype, j.rle = rle;
    j.es = in.d.elem_size, j.cap = CHUNK_BYTES / j.es, j.vout = &vo, j.lout = &lo;
    {
        gp_array_desc_t like = in.d; /* 1-D, of x's dtype (bools stay bools) */
        like.ndim = 1;
        if ((rc = arr_out_open_like(&vo, verb, out, &like)) != EXIT_OK) goto out;
    }
    if (rle && (rc = arr_out_open(&lo, verb, len, GP_U64)) != EXIT_OK) goto out;
    if ((rc = pipe_open(&pp, verb, &in, c->device, 1, t0)) != EXIT_OK) goto out;
    pp.outs[0] = &vo, pp.outs[1] = rle ? &lo : NULL;
    int lane = LANE_MAIN;
    if ((rc = pipe_run(&pp, &in, &runs_ops, &j, &lane)) != EXIT_OK) goto out;
    ctx = pipe_lane_ctx(&pp, lane);
    if (st == GP_OK && rle && j.pend_len && /* the last run */
        (arr_out_write(&vo, j.pend, 1) != 0 || arr_out_write(&lo, &j.pend_len, 1) != 0))
        st = GP_ERR_IO;
    if (st != GP_OK) {
        rc = stream_failed(verb, path, st, &vo, rle ? &lo : NULL);
        goto out;
    }
    if (rle) j.runs = vo.count;
    if ((rc = rle ? arr_out_close_pair(&vo, &lo, verb) : arr_out_close(&vo, verb, 1)) != EXIT_OK) goto out;
    {
        const double secs = now_seconds() - t0,
                     bytes = (double)(j.elements + j.runs) * (double)j.es + (rle ? 8.0 * (double)j.runs : 0.0);
        char desc[512];
        describe_device(ctx, desc, sizeof desc);
        record_t r = {0};
        rec_add(&r, "dtype", 0, "%s", gp_dtype_name(j.dtype));
        rec_add(&r, "elements", 1, "%zu", j.elements);
        rec_add(&r, rle ? "runs" : "kept", 1, "%zu", j.runs);
        rec_add_run(&r, secs, bytes, pp.head_elements, desc);
        rec_add(&r, "output", 0, "%s", out);
        if (rle) rec_add(&r, "lengths", 0, "%s", len);
        rec_emit(&r, c->fmt,
                 rle ? "rle: {elements} {dtype} elements -> {runs} runs -> {output}, {lengths}  ({seconds:%.3f} s, "
                       "{gbps:%.2f} GB/s read + written; {device})\n"
                     : "unique: {elements} {dtype} elements -> {kept} kept -> {output}  ({seconds:%.3f} s, {gbps:%.2f} "
                       "GB/s read + written; {device})\n",
                 summary_stream(out));
    }
out:
    arr_out_close(&vo, verb, 0);
    arr_out_close(&lo, verb, 0);
    stage_end(&runs_ops, &j);
    pipe_close(&pp);
    input_close(&in);
    return rc;
}
