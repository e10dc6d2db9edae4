/*
 * group_sort.c — the sharded sort (gp_group_sort): one gp_sort of the whole array, split across the ranks, laid out
 * again over the same shard sizes, with one GPU's bits (docs/design/group.md, "Sorting").
 *   1. each rank sorts its shard (gp_sort / gp_sort_pairs: stable);
 *   2. the split of every output shard: output rank j starts at global place P_j; a bisection over the radix keys
 *      finds the least v_j whose count of keys <= v_j (summed over the ranks: an all-gather of each rank's counts a
 *      step) reaches P_j; then each rank gives its keys below v_j, and the ties at v_j go in rank order until P_j
 *      are given — equal keys keep their global index order, as a stable sort of the whole keeps them;
 *   3. rank r's slice between its splits j and j + 1 goes to rank j (NCCL grouped send / receive);
 *   4. each rank merges its pieces in rank order (gp_merge, stable: the first input's ties first).
 */
#include "group_internal.h"
#include "../sort/sort_internal.h"

#include <stdlib.h>
#include <string.h>

/* the buffers of one member */
typedef struct part {
    void *a, *av; /* its shard sorted (keys, values) */
    void *b, *bv; /* the pieces it receives, then merge scratch */
} part_t;

/* member i's counts of keys with radix key <= q[k] (nq queries) into out (host) */
static gp_status_t count_le(gp_group_t *g, int i, gp_dtype_t dt, int desc, size_t n, const void *sorted,
                            const uint64_t *q, int nq, uint64_t *out, void *dq)
{
    if (!g->gpu) {
        const gp__sort_xf_t xf = gp__sort_xf(dt, desc);
        const size_t es = gp_dtype_size(dt);
        for (int k = 0; k < nq; k++) {
            size_t lo = 0, hi = n;
            while (lo < hi) {
                const size_t mid = lo + (hi - lo) / 2;
                if (gp__sort_xf_key(&xf, gp__sort_bits((const char *)sorted + mid * es, es), es) <= q[k]) lo = mid + 1;
                else hi = mid;
            }
            out[k] = lo;
        }
        return GP_OK;
    }
    GP_TRY_RET(gp__ctx_enter(g->ctx[i], "gp_group_sort"));
    uint64_t *dqq = dq, *dout = (uint64_t *)dq + nq;
    cudaError_t e = cudaMemcpyAsync(dqq, q, (size_t)nq * 8, cudaMemcpyHostToDevice, g->stream[i]);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_sort", __FILE__, __LINE__);
    GP_TRY_RET(gp__group_sort_count_gpu(dt, desc, n, sorted, nq, dqq, dout, g->stream[i]));
    return gp__group_to_host(g, i, out, dout, (size_t)nq * 8);
}

/* every rank's counts for the same queries: all[r * nq + k] */
static gp_status_t counts_all(gp_group_t *g, gp_dtype_t dt, int desc, const size_t *counts, part_t *pt,
                              const uint64_t *q, int nq, uint64_t *local, uint64_t *all, void **dq)
{
    for (int i = 0; i < g->nlocal; i++)
        GP_TRY_RET(count_le(g, i, dt, desc, counts[i], pt[i].a, q, nq, local + (size_t)i * nq, dq[i]));
    return gp__group_allgather_host(g, local, all, (size_t)nq * 8);
}

/* member i's pieces, merged pairwise in rank order until one is left in out (and vout): levels alternate between
 * out and b, the pieces received into whichever makes the last level write out */
static gp_status_t merge_pieces(gp_group_t *g, int i, gp_dtype_t dt, size_t vb, int desc, int np, size_t *off,
                                void *src, void *srcv, void *dst, void *dstv)
{
    const size_t es = gp_dtype_size(dt);
    gp_ctx_t *c = g->ctx[i];
    const gp_stream_t s = gp_group_stream(g, i);
    while (np > 1) {
        int q = 0;
        for (int k = 0; k < np; k += 2) {
            const size_t na = off[k + 1] - off[k], nb = k + 1 < np ? off[k + 2] - off[k + 1] : 0;
            char *d = (char *)dst + off[k] * es, *dv = vb ? (char *)dstv + off[k] * vb : NULL;
            const char *x = (const char *)src + off[k] * es, *xv = vb ? (const char *)srcv + off[k] * vb : NULL;
            if (na && nb) {
                GP_TRY_RET(gp_merge(c, dt, na, x, nb, x + na * es, d, vb, xv, vb ? xv + na * vb : NULL, dv, desc, s));
            } else if (na + nb) { /* one side empty: its neighbour moves as it is */
                GP_TRY_RET(gp_memcpy(c, d, x, (na + nb) * es, s));
                if (vb) GP_TRY_RET(gp_memcpy(c, dv, xv, (na + nb) * vb, s));
            }
            off[q++] = off[k];
        }
        off[q] = off[np];
        np = q;
        void *t = src, *tv = srcv;
        src = dst, srcv = dstv, dst = t, dstv = tv;
    }
    return GP_OK;
}

gp_status_t gp_group_sort(gp_group_t *g, gp_dtype_t dt, const size_t *counts, const void *const *keys,
                          void *const *keys_out, size_t vb, const void *const *values, void *const *values_out,
                          int desc)
{
    static const char fn[] = "gp_group_sort";
    GP_TRY_RET(gp__group_check(fn, g));
    if ((unsigned)dt >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dt);
    if (vb != 0 && vb != 1 && vb != 2 && vb != 4 && vb != 8 && vb != 16)
        return gp__error(GP_ERR_INVALID_ARG, "%s: value_bytes %zu (0, 1, 2, 4, 8 or 16)", fn, vb);
    GP_TRY_RET(gp__group_check_shards(fn, g, dt, counts, keys, "keys"));
    GP_TRY_RET(gp__group_check_shards(fn, g, dt, counts, (const void *const *)keys_out, "keys_out"));
    if (vb) {
        const gp_dtype_t vt = vb == 1 ? GP_U8 : vb == 2 ? GP_U16 : vb == 4 ? GP_U32 : GP_U64; /* alignment by size */
        GP_TRY_RET(gp__group_check_shards(fn, g, vt, counts, values, "values"));
        GP_TRY_RET(gp__group_check_shards(fn, g, vt, counts, (const void *const *)values_out, "values_out"));
    }
    const size_t es = gp_dtype_size(dt);
    for (int i = 0; i < g->nlocal; i++) {
        if (!counts[i]) continue;
        if (gp__overlap(keys_out[i], counts[i] * es, keys[i], counts[i] * es) ||
            (vb && (gp__overlap(values_out[i], counts[i] * vb, values[i], counts[i] * vb) ||
                    gp__overlap(values_out[i], counts[i] * vb, keys[i], counts[i] * es) ||
                    gp__overlap(keys_out[i], counts[i] * es, values[i], counts[i] * vb) ||
                    gp__overlap(values_out[i], counts[i] * vb, keys_out[i], counts[i] * es))))
            return gp__error(GP_ERR_INVALID_ARG, "%s: member %d's outputs overlap its inputs or each other", fn, i);
    }
    const int R = g->size, L = g->nlocal, nq = R - 1 > 0 ? R - 1 : 1;
    const int W = gp__sort_width(dt);
    gp_status_t st = GP_OK;
    part_t *pt = calloc((size_t)L, sizeof *pt);
    size_t *all = calloc((size_t)R, sizeof *all), *P = calloc((size_t)R + 1, sizeof *P);
    uint64_t *lo = calloc((size_t)nq, 8), *hi = calloc((size_t)nq, 8), *mid = calloc((size_t)nq, 8);
    uint64_t *local = calloc((size_t)L * 2 * nq, 8), *cnt = calloc((size_t)R * 2 * nq, 8);
    size_t *split = calloc((size_t)R * (R + 1), sizeof *split); /* split[r * (R + 1) + j]: rank r's cut j */
    size_t *soff = calloc((size_t)L * R, sizeof *soff), *sb = calloc((size_t)L * R, sizeof *sb);
    size_t *roff = calloc((size_t)L * R, sizeof *roff), *rb = calloc((size_t)L * R, sizeof *rb);
    size_t *voff = calloc((size_t)L * R * 4, sizeof *voff), *off = calloc((size_t)R + 1, sizeof *off);
    void **dq = calloc((size_t)L, sizeof *dq), **sa = calloc((size_t)L * 4, sizeof *sa);
    if (!pt || !all || !P || !lo || !hi || !mid || !local || !cnt || !split || !soff || !sb || !roff || !rb || !voff ||
        !off || !dq || !sa) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, R);
        goto fail;
    }
    /* every rank's count (the same checks everywhere: all refuse together, before any exchange) */
    GP_TRY(gp__group_allgather_host(g, counts, all, sizeof *all));
    for (int r = 0; r < R; r++) P[r + 1] = P[r] + all[r];
    /* 1. each shard sorted into a */
    const gp_sort_opts_t so = {desc, 0, 0};
    for (int i = 0; i < L; i++) {
        const size_t n = counts[i];
        GP_TRY(gp__group_alloc(g, i, n * es, &pt[i].a));
        GP_TRY(gp__group_alloc(g, i, n * es, &pt[i].b));
        if (vb) {
            GP_TRY(gp__group_alloc(g, i, n * vb, &pt[i].av));
            GP_TRY(gp__group_alloc(g, i, n * vb, &pt[i].bv));
        }
        if (g->gpu) GP_TRY(gp__group_alloc(g, i, (size_t)nq * 4 * 8, &dq[i])); /* 2 nq queries and counts */
        if (!n) continue;
        if (vb) {
            GP_TRY(gp_sort_pairs(g->ctx[i], dt, n, keys[i], pt[i].a, vb, values[i], pt[i].av, &so,
                                 gp_group_stream(g, i)));
        } else {
            GP_TRY(gp_sort(g->ctx[i], dt, n, keys[i], pt[i].a, &so, gp_group_stream(g, i)));
        }
    }
    /* 2. the least radix key v_j whose count of keys at or below it reaches P_j (j = 1 .. R - 1), by bisection */
    if (R > 1) {
        const uint64_t top = W == 64 ? ~0ull : (1ull << W) - 1;
        for (int j = 0; j < nq; j++) lo[j] = 0, hi[j] = top;
        for (int step = 0; step <= W; step++) {
            int open = 0;
            for (int j = 0; j < nq; j++) {
                mid[j] = lo[j] + (hi[j] - lo[j]) / 2;
                open |= lo[j] < hi[j];
            }
            if (!open) break;
            GP_TRY(counts_all(g, dt, desc, counts, pt, mid, nq, local, cnt, dq));
            for (int j = 0; j < nq; j++) {
                if (lo[j] >= hi[j]) continue;
                uint64_t sum = 0;
                for (int r = 0; r < R; r++) sum += cnt[(size_t)r * nq + j];
                if (sum >= P[j + 1]) hi[j] = mid[j];
                else lo[j] = mid[j] + 1;
            }
        }
        /* every rank's counts at or below v_j and below it (at or below v_j - 1; none below 0) */
        uint64_t *q2 = calloc((size_t)2 * nq, 8);
        if (!q2) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, R);
            goto fail;
        }
        for (int j = 0; j < nq; j++) q2[j] = lo[j], q2[nq + j] = lo[j] ? lo[j] - 1 : 0;
        st = counts_all(g, dt, desc, counts, pt, q2, 2 * nq, local, cnt, dq);
        free(q2);
        if (st != GP_OK) goto fail;
        for (int j = 0; j < nq; j++) { /* the keys below v_j go, then the ties at it rank by rank: stable */
            const uint64_t *c = cnt;
            uint64_t need = P[j + 1];
            for (int r = 0; r < R; r++) need -= lo[j] ? c[(size_t)r * 2 * nq + nq + j] : 0;
            for (int r = 0; r < R; r++) {
                const uint64_t le = c[(size_t)r * 2 * nq + j], lt = lo[j] ? c[(size_t)r * 2 * nq + nq + j] : 0;
                const uint64_t t = le - lt < need ? le - lt : need;
                split[(size_t)r * (R + 1) + j + 1] = (size_t)(lt + t);
                need -= t;
            }
        }
    }
    for (int r = 0; r < R; r++) split[(size_t)r * (R + 1)] = 0, split[(size_t)r * (R + 1) + R] = all[r];
    /* 3. rank r's slice [split r,j ; split r,j+1) to rank j, received in rank order */
    for (int i = 0; i < L; i++) {
        const int me = g->rank0 + i;
        size_t at = 0;
        for (int j = 0; j < R; j++) {
            const size_t k = (size_t)i * R + (size_t)j;
            const size_t *sp = split + (size_t)me * (R + 1), *rp = split + (size_t)j * (R + 1);
            soff[k] = sp[j] * es, sb[k] = (sp[j + 1] - sp[j]) * es;
            roff[k] = at * es, rb[k] = (rp[me + 1] - rp[me]) * es;
            voff[k] = sp[j] * vb, voff[(size_t)L * R + k] = (sp[j + 1] - sp[j]) * vb;
            voff[(size_t)2 * L * R + k] = at * vb, voff[(size_t)3 * L * R + k] = (rp[me + 1] - rp[me]) * vb;
            at += rp[me + 1] - rp[me];
        }
        if (at != counts[i]) {
            st = gp__error(GP_ERR_INTERNAL, "%s: rank %d would receive %zu keys for its %zu", fn, me, at, counts[i]);
            goto fail;
        }
    }
    /* the pieces land where the merge's last level then writes keys_out: in b when the levels are odd in number */
    int levels = 0;
    while ((1 << levels) < R) levels++;
    for (int i = 0; i < L; i++) {
        sa[i] = pt[i].a, sa[L + i] = levels % 2 ? pt[i].b : keys_out[i];
        sa[2 * L + i] = pt[i].av, sa[3 * L + i] = levels % 2 ? pt[i].bv : (vb ? values_out[i] : NULL);
    }
    GP_TRY(gp__group_alltoallv(g, (const void *const *)sa, soff, sb, sa + L, roff, rb));
    if (vb) {
        GP_TRY(gp__group_alltoallv(g, (const void *const *)(sa + 2 * L), voff, voff + (size_t)L * R, sa + 3 * L,
                                   voff + (size_t)2 * L * R, voff + (size_t)3 * L * R));
    }
    /* 4. the pieces merged in rank order */
    for (int i = 0; i < L; i++) {
        const int me = g->rank0 + i;
        off[0] = 0;
        for (int q = 0; q < R; q++) off[q + 1] = off[q] + (split[(size_t)q * (R + 1) + me + 1] - split[(size_t)q * (R + 1) + me]);
        void *src = sa[L + i], *srcv = sa[3 * L + i];
        void *dst = src == keys_out[i] ? pt[i].b : keys_out[i];
        void *dstv = vb ? (srcv == values_out[i] ? pt[i].bv : values_out[i]) : NULL;
        GP_TRY(merge_pieces(g, i, dt, vb, desc, R, off, src, srcv, dst, dstv));
    }
    GP_TRY(gp_group_sync(g));
fail:
    if (pt) {
        if (st != GP_OK) gp_group_sync(g); /* nothing freed while still in use */
        for (int i = 0; i < L; i++) {
            gp__group_free(g, i, pt[i].a), gp__group_free(g, i, pt[i].b);
            gp__group_free(g, i, pt[i].av), gp__group_free(g, i, pt[i].bv);
            if (dq) gp__group_free(g, i, dq[i]);
        }
    }
    free(pt), free(all), free(P), free(lo), free(hi), free(mid), free(local), free(cnt), free(split), free(soff);
    free(sb), free(roff), free(rb), free(voff), free(off), free(dq), free(sa);
    return st;
}
