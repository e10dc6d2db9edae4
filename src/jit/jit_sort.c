/*
 * jit_sort.c — gp_sort_uop: a stable merge sort by a user comparison (GP_UOP_LESS). GPU: the kernels of
 * jit_sort.cuh (a block sort of tiles, then passes of merge-path partitions and merges that double the sorted runs,
 * ping-ponging between the output and a workspace copy so that the last pass lands in the output); CPU: sorted
 * runs (jit_host.h) merged pairwise in parallel pieces split by the merge path. docs/design/jit.md.
 */
#include "jit_internal.h"
#include "core/backend.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int vslot(size_t vb) { return vb == 1 ? 0 : vb == 2 ? 1 : vb == 4 ? 2 : vb == 8 ? 3 : vb == 16 ? 4 : -1; }

/* ------------------------------------------------------------------------------------------ GPU */
static gp_status_t sort_gpu(const char *fn, gp_ctx_t *ctx, const gp_uop_t *op, size_t es, size_t n,
                            const void *keys, void *keys_out, size_t vb, const void *vals, void *vals_out,
                            cudaStream_t s)
{
    gp_uop_t *mo = (gp_uop_t *)op;
    gp__jit_mod_t *m = op->mod;
    if (vb) {
        gp__jit_mod_t **slot = &mo->sort_mod[vslot(vb)];
        if (!*slot) { /* the kernels that move values of this size, built on first use */
            GP_TRY_RET(gp__no_capture(ctx, fn, "its first call with values of this size compiles their kernels"));
            char *src = NULL;
            int source = 0;
            GP_TRY_RET(gp__jit_sort_source(op, vb, &src));
            const gp_status_t st = gp__jit_module(ctx, fn, src, 0, slot, &source);
            free(src);
            if (st != GP_OK) return st;
        }
        m = *slot;
    }
    if (!m->k_bsort || !m->k_part || !m->k_merge)
        return gp__error(GP_ERR_INTERNAL, "%s: the module has no sort kernels", fn);
    /* block-sorted runs of btile, then passes over output tiles of `tile` (a divisor of btile) */
    const size_t tile = (size_t)256 * (size_t)gp__jit_sort_ipt(es, vb), ntiles = (n + tile - 1) / tile;
    const size_t bst = (size_t)gp__jit_sort_bst(es, vb), btile = tile / 256 * bst, nbt = (n + btile - 1) / btile;
    if (ntiles > 0x7fffffffu / 32) return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu tiles (at most 2^26 - 1)", fn, ntiles);
    int passes = 0;
    while (((size_t)1 << passes) < nbt) passes++;
    /* buffers: [0] the output, [1] the workspace; the block sort writes where `passes` merges end in [0] */
    char *kbuf[2] = {keys_out, NULL}, *vbuf[2] = {vals_out, NULL};
    unsigned long long *parts = NULL;
    if (passes) {
        const size_t kb = (n * es + 255) / 256 * 256, vbb = (n * vb + 255) / 256 * 256;
        void *ws = NULL;
        GP_TRY_RET(gp__workspace(ctx, kb + vbb + ntiles * 8, &ws));
        kbuf[1] = ws;
        vbuf[1] = (char *)ws + kb;
        parts = (unsigned long long *)((char *)ws + kb + vbb);
    }
    unsigned long long nn = n, w = btile, nt = ntiles;
    const void *kin = keys, *vin = vals;
    void *kout = kbuf[passes & 1], *vout = vbuf[passes & 1];
    void *a0[] = {(void *)&kin, (void *)&vin, &nn, &kout, &vout};
    cudaError_t e = cudaLaunchKernel((const void *)m->k_bsort, gp__jit_dim3(nbt), gp__jit_dim3(bst), a0, 0, s);
    if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    for (int p = 0; p < passes; p++, w *= 2) {
        const void *ksrc = kbuf[(passes - p) & 1], *vsrc = vbuf[(passes - p) & 1];
        void *kdst = kbuf[(passes - p - 1) & 1], *vdst = vbuf[(passes - p - 1) & 1];
        void *a1[] = {(void *)&ksrc, &nn, &w, &nt, (void *)&parts};
        e = cudaLaunchKernel((const void *)m->k_part, gp__jit_dim3((ntiles * 32 + 255) / 256), gp__jit_dim3(256), a1, 0, s);
        if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
        void *a2[] = {(void *)&ksrc, (void *)&vsrc, &nn, &w, (void *)&parts, &kdst, &vdst};
        e = cudaLaunchKernel((const void *)m->k_merge, gp__jit_dim3(ntiles), gp__jit_dim3(256), a2, 0, s);
        if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
    }
    return GP_CHECK_LAUNCH(fn);
}

/* ------------------------------------------------------------------------------------------ CPU */
/* One run's sort: k[0, cnt) and its values in place (tk, tv: scratch of cnt). */
typedef struct {
    const gp__jit_mod_t *m;
    size_t cnt, vbytes;
    char *k, *v, *tk, *tv;
} runcall_t;

static void run_sort(void *arg)
{
    const runcall_t *c = arg;
    c->m->h_sortrun(c->k, c->v, c->cnt, c->vbytes, c->tk, c->tv);
}

/* One piece of a merge: outputs [d0, d1) of the merge of a[0, na) and b[0, nb) into o (+ d0). */
typedef struct {
    const gp__jit_mod_t *m;
    const char *ka, *va, *kb, *vb;
    size_t na, nb, es, vbytes, d0, d1;
    char *ko, *vo;
} piece_t;

static void piece_run(void *arg)
{
    const piece_t *p = arg;
    const size_t sa = p->m->h_split(p->ka, p->na, p->kb, p->nb, p->d0), sb = p->d0 - sa;
    p->m->h_merge(p->ka + sa * p->es, p->va + sa * p->vbytes, p->na - sa, p->kb + sb * p->es, p->vb + sb * p->vbytes,
                  p->nb - sb, p->vbytes, p->ko + p->d0 * p->es, p->vo + p->d0 * p->vbytes, p->d1 - p->d0);
}

static gp_status_t sort_cpu(const char *fn, const gp__jit_mod_t *m, size_t es, size_t n, const void *keys,
                            void *keys_out, size_t vb, const void *vals, void *vals_out)
{
    if (!m->h_sortrun || !m->h_split || !m->h_merge)
        return gp__error(GP_ERR_INTERNAL, "%s: the module has no sort functions", fn);
    char *k = keys_out, *v = vb ? vals_out : keys_out; /* v: never read without values */
    if (keys != keys_out) memcpy(k, keys, n * es);
    if (vb && vals != vals_out) memcpy(v, vals, n * vb);
    char *tk = malloc(n * es), *tv = vb ? malloc(n * vb) : tk;
    if (!tk || !tv) {
        free(tk);
        if (tv != tk) free(tv);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: scratch for %zu keys", fn, n);
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const int par = gp__cpu_par(1, n * (es + vb));
    /* runs: a few per thread, at least 4096 keys */
    size_t run = par ? (n + (size_t)threads * 4 - 1) / ((size_t)threads * 4) : n;
    if (run < 4096) run = 4096;
    const size_t nruns = (n + run - 1) / run;
    gp__jit_traps_t tr;
    gp__jit_traps_on(&tr);
#pragma omp parallel for schedule(dynamic, 1) if (par && nruns > 1)
    for (long r = 0; r < (long)nruns; r++) {
        const size_t i0 = (size_t)r * run, c = i0 + run < n ? run : n - i0;
        runcall_t u = {m, c, vb, k + i0 * es, v + i0 * vb, tk + i0 * es, tv + i0 * vb};
        gp__jit_guarded(&tr, run_sort, &u);
    }
    /* pairwise merges of runs of w, each pair cut into pieces of `piece` outputs */
    const size_t piece = par ? (n / ((size_t)threads * 4) > 65536 ? n / ((size_t)threads * 4) : 65536) : n;
    char *sk = k, *sv = v, *dk = tk, *dv = tv;
    for (size_t w = run; w < n && tr.trap == 0; w *= 2) {
        const size_t pairs = (n + 2 * w - 1) / (2 * w), per = (2 * w + piece - 1) / piece, jobs = pairs * per;
#pragma omp parallel for schedule(dynamic, 1) if (par && jobs > 1)
        for (long j = 0; j < (long)jobs; j++) {
            const size_t g = (size_t)j / per, q = (size_t)j % per, s0 = g * 2 * w;
            const size_t na = w < n - s0 ? w : n - s0, nb = n - s0 - na < w ? n - s0 - na : w;
            const size_t d0 = q * piece, d1 = d0 + piece < na + nb ? d0 + piece : na + nb;
            if (d0 >= d1) continue;
            piece_t p = {m, sk + s0 * es, sv + s0 * vb, sk + (s0 + na) * es, sv + (s0 + na) * vb, na, nb, es, vb, d0,
                         d1, dk + s0 * es, dv + s0 * vb};
            gp__jit_guarded(&tr, piece_run, &p);
        }
        char *t = sk;
        sk = dk;
        dk = t;
        t = sv;
        sv = dv;
        dv = t;
    }
    const gp_status_t st = gp__jit_traps_off(&tr, fn);
    if (st == GP_OK && sk != k) {
        memcpy(k, sk, n * es);
        if (vb) memcpy(v, sv, n * vb);
    }
    free(tk);
    if (tv != tk) free(tv);
    return st;
}

/* ------------------------------------------------------------------------------------------ the call */
static gp_status_t sort_uop(const char *fn, gp_ctx_t *ctx, const gp_uop_t *op, size_t n, const void *keys,
                            void *keys_out, size_t vb, const void *vals, void *vals_out, gp_stream_t stream, int sync)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if (op == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: less is NULL", fn);
    if (op->ctx != ctx) return gp__error(GP_ERR_INVALID_ARG, "%s: less was created on another context", fn);
    if (op->kind != GP_UOP_LESS)
        return gp__error(GP_ERR_INVALID_ARG, "%s: less is a %s, not a comparison (GP_UOP_LESS)", fn,
                         gp__uop_kind_name(op->kind));
    if (vb != 0 && vslot(vb) < 0)
        return gp__error(GP_ERR_INVALID_ARG, "%s: value_bytes %zu (0, 1, 2, 4, 8 or 16)", fn, vb);
    const size_t ts = gp_dtype_size(op->dtype), es = (size_t)op->arity * ts;
    size_t kb = 0, vbb = 0;
    if (!gp__mul_ok(n, es, &kb) || !gp__mul_ok(n, vb ? vb : 1, &vbb) || n > (SIZE_MAX >> 8))
        return gp__error(GP_ERR_OVERFLOW, "%s: n = %zu keys overflow", fn, n);
    if (!vb) vbb = 0;
    if (n) {
        GP_ARG_NONNULL(fn, keys);
        GP_ARG_NONNULL(fn, keys_out);
        if ((uintptr_t)keys % ts || (uintptr_t)keys_out % ts)
            return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not aligned to its dtype (%zu bytes)", fn,
                             (uintptr_t)keys % ts ? "keys" : "keys_out", ts);
        if (keys_out != keys && gp__overlap(keys, kb, keys_out, kb))
            return gp__error(GP_ERR_INVALID_ARG, "%s: keys and keys_out overlap (equal pointers sort in place)", fn);
        if (vb) {
            GP_ARG_NONNULL(fn, vals);
            GP_ARG_NONNULL(fn, vals_out);
            const size_t va = vb < 8 ? vb : 8;
            if ((uintptr_t)vals % va || (uintptr_t)vals_out % va)
                return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn,
                                 (uintptr_t)vals % va ? "values" : "values_out", va);
            if (vals_out != vals && gp__overlap(vals, vbb, vals_out, vbb))
                return gp__error(GP_ERR_INVALID_ARG, "%s: values and values_out overlap (equal pointers: in place)", fn);
            if (gp__overlap(vals_out, vbb, keys, kb) || gp__overlap(vals_out, vbb, keys_out, kb) || gp__overlap(vals, vbb, keys, kb) ||
                gp__overlap(vals, vbb, keys_out, kb))
                return gp__error(GP_ERR_INVALID_ARG, "%s: the values overlap the keys", fn);
        }
    }
    if (n == 0) return GP_OK;
    if (gp__is_cpu(ctx)) return sort_cpu(fn, op->mod, es, n, keys, keys_out, vb, vals, vals_out);
    cudaStream_t s;
    GP_TRY_RET(gp__gpu_stream(ctx, fn, stream, sync, &s));
    GP_TRY_RET(sort_gpu(fn, ctx, op, es, n, keys, keys_out, vb, vals, vals_out, s));
    return gp__gpu_wait(fn, s, sync);
}

gp_status_t gp_sort_uop(gp_ctx_t *ctx, const gp_uop_t *less, size_t n, const void *keys, void *keys_out,
                        size_t value_bytes, const void *values, void *values_out, gp_stream_t stream)
{
    return sort_uop("gp_sort_uop", ctx, less, n, keys, keys_out, value_bytes, values, values_out, stream, 0);
}

gp_status_t gp_sort_uop_sync(gp_ctx_t *ctx, const gp_uop_t *less, size_t n, const void *keys, void *keys_out,
                             size_t value_bytes, const void *values, void *values_out)
{
    return sort_uop("gp_sort_uop_sync", ctx, less, n, keys, keys_out, value_bytes, values, values_out, NULL, 1);
}
