/*
 * group_sort.c — the sharded sort (gp_group_sort, gp_group_argsort): one gp_sort of the whole array, split across the
 * ranks, laid out again over the same shard sizes, with one GPU's bits (docs/design/group.md, "Sorting").
 *   1. each rank sorts its shard (gp_sort / gp_sort_pairs: stable; argsort: pairs with the global positions);
 *   2. the splits: output rank j holds global places [P_j, P_j+1), cut into S sub-ranges; for every boundary G a
 *      search over the radix keys finds the least v whose count of keys <= v (summed over the ranks: an all-gather of
 *      each rank's counts a round, SPLIT_Q candidates per boundary and round) reaches G; then each rank gives its keys
 *      below v, and the ties at v go in rank order until G are given — equal keys keep their global index order, as
 *      a stable sort keeps them;
 *   3. round t of S: rank r's slice for sub-range t of rank j goes to rank j (NCCL grouped send / receive), and
 *   4. while round t + 1 moves, each rank merges round t's pieces in rank order into its sub-range t (gp_merge,
 *      stable: the first input's ties first) on its copy stream.
 */
#include "group_internal.h"
#include "core/backend.h"
#include "../sort/sort_internal.h"

#include <stdlib.h>
#include <string.h>

/* candidates per split and round: the range of a split's key shrinks by this factor a round (32-bit keys: 5 rounds) */
#define SPLIT_Q 128
/* sub-ranges per output shard: the exchange goes in this many rounds, each round's merges beside the next round */
#define SUBR 4

/* the buffers of one member (its scratch slots: a, av, k, dq in slot 0; b, bv, t, tv in slot 1) */
typedef struct part {
    void *a, *av; /* its shard sorted (keys, values) */
    void *b, *bv; /* the pieces it receives (bv: argsort's positions before the sort) */
    void *t, *tv; /* the merges' middle levels (three ranks or more) */
    void *k;      /* argsort: the sorted keys (the caller gets only the positions) */
    void *dq;     /* the split search's queries and counts */
} part_t;

/* every rank's counts of keys with radix key <= q[k] (nq queries): all[r * nq + k]. q and local are host scratch
 * (page-locked on a GPU group): each member's count is launched, then all are waited for */
static gp_status_t counts_all(gp_group_t *g, gp_dtype_t dt, int desc, const size_t *counts, part_t *pt,
                              const uint64_t *q, int nq, uint64_t *local, uint64_t *all)
{
    for (int i = 0; i < g->nlocal; i++) {
        const size_t n = counts[i];
        uint64_t *out = local + (size_t)i * nq;
        if (!g->gpu) {
            const gp__sort_xf_t xf = gp__sort_xf(dt, desc);
            const size_t es = gp_dtype_size(dt);
            for (int k = 0; k < nq; k++) {
                size_t lo = 0, hi = n;
                while (lo < hi) {
                    const size_t mid = lo + (hi - lo) / 2;
                    if (gp__sort_xf_key(&xf, gp__sort_bits((const char *)pt[i].a + mid * es, es), es) <= q[k])
                        lo = mid + 1;
                    else hi = mid;
                }
                out[k] = lo;
            }
            continue;
        }
        GP_TRY_RET(gp__ctx_enter(g->ctx[i], "gp_group_sort"));
        uint64_t *dqq = pt[i].dq, *dout = (uint64_t *)pt[i].dq + nq;
        cudaError_t e = cudaMemcpyAsync(dqq, q, (size_t)nq * 8, cudaMemcpyHostToDevice, g->stream[i]);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_sort", __FILE__, __LINE__);
        GP_TRY_RET(gp__group_gpu_ops.sort_count(dt, desc, n, pt[i].a, nq, dqq, dout, g->stream[i]));
        e = cudaMemcpyAsync(out, dout, (size_t)nq * 8, cudaMemcpyDeviceToHost, g->stream[i]);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_sort", __FILE__, __LINE__);
    }
    if (g->gpu) GP_TRY_RET(gp_group_sync(g));
    return gp__group_allgather_host(g, local, all, (size_t)nq * 8);
}

/* member i's np pieces (keys pk[k], values pv[k], len[k] each, anywhere), merged pairwise in rank order until one is
 * left in out (and outv): level l of the L writes out when L - l is even, else tmp, so the last writes out; the first
 * level reads the pieces where they are, the later ones the contiguous runs of the level before (off: np + 1) */
static gp_status_t merge_pieces(gp_group_t *g, int i, gp_dtype_t dt, size_t vb, int desc, int np, const char *const *pk,
                                const char *const *pv, const size_t *len, size_t *off, void *out, void *outv,
                                void *tmp, void *tmpv, gp_stream_t s)
{
    const size_t es = gp_dtype_size(dt);
    gp_ctx_t *c = g->ctx[i];
    int levels = 0;
    while ((1 << levels) < np) levels++;
    char *dst = levels % 2 ? out : tmp, *dstv = levels % 2 ? outv : tmpv; /* level 1 */
    const char *src = NULL, *srcv = NULL;
    for (int l = 1; np > 1; l++) {
        int q = 0;
        size_t at = 0;
        for (int k = 0; k < np; k += 2) {
            const size_t na = l == 1 ? len[k] : off[k + 1] - off[k];
            const size_t nb = k + 1 >= np ? 0 : l == 1 ? len[k + 1] : off[k + 2] - off[k + 1];
            const char *x = l == 1 ? pk[k] : src + off[k] * es, *xv = !vb ? NULL : l == 1 ? pv[k] : srcv + off[k] * vb;
            const char *y = l == 1 ? (k + 1 < np ? pk[k + 1] : NULL) : x + na * es;
            const char *yv = !vb ? NULL : l == 1 ? (k + 1 < np ? pv[k + 1] : NULL) : xv + na * vb;
            char *d = dst + at * es, *dv = vb ? dstv + at * vb : NULL;
            if (na && nb) {
                GP_TRY_RET(gp_merge(c, dt, na, x, nb, y, d, vb, xv, yv, dv, desc, s));
            } else if (na + nb) { /* one side empty: the other moves as it is */
                GP_TRY_RET(gp_memcpy(c, d, na ? x : y, (na + nb) * es, s));
                if (vb) GP_TRY_RET(gp_memcpy(c, dv, na ? xv : yv, (na + nb) * vb, s));
            }
            off[q++] = at;
            at += na + nb;
        }
        off[q] = at;
        np = q;
        src = dst, srcv = dstv;
        dst = src == (char *)out ? tmp : out, dstv = src == (char *)out ? tmpv : outv;
    }
    return GP_OK;
}

/* member i's global positions base + k (ib-byte unsigned) into out */
static gp_status_t positions(gp_group_t *g, int i, size_t ib, size_t n, uint64_t base, void *out)
{
    if (g->gpu) {
        GP_TRY_RET(gp__ctx_enter(g->ctx[i], "gp_group_argsort"));
        return gp__group_gpu_ops.sort_iota(ib, n, base, out, g->stream[i]);
    }
    for (size_t k = 0; k < n; k++) {
        if (ib == 4) ((uint32_t *)out)[k] = (uint32_t)(base + k);
        else ((uint64_t *)out)[k] = base + k;
    }
    return GP_OK;
}

static size_t up256(size_t b) { return (b + 255) / 256 * 256; }
static size_t down16(size_t b) { return b / 16 * 16; }
static size_t up16(size_t b) { return (b + 15) / 16 * 16; }
/* A slice of bytes [x, y) of its sender travels as [down16(x), up16(y)) (empty: nothing), from and to 16-byte aligned
 * places: NCCL's copies between misaligned places ran at ~60% of the aligned rate (bench/tune/group_sort_phases.c).
 * The bytes around the slice are read from within the sender's buffer and ignored on arrival. */
static size_t wire(size_t x, size_t y) { return y > x ? up16(y) - down16(x) : 0; }

/* member i's scratch: slot 0 holds a, av, k, dq; slot 1 holds b, bv (with 32 bytes a piece for the pieces' own
 * alignment) and, for a middle merge level, t, tv (kept by the group for its next call) */
static gp_status_t part_make(gp_group_t *g, int i, size_t n, size_t es, size_t vb, int argsort, int nq, int npieces,
                             int middle, part_t *p)
{
    const size_t pad = 32 * ((size_t)npieces + 1);
    const size_t ka = up256(n * es), va = up256(n * vb), kk = argsort ? ka : 0, qa = up256((size_t)nq * 16);
    const size_t kb = up256(n * es + pad), vbb = vb ? up256(n * vb + pad) : 0;
    const size_t kt = middle ? ka : 0, vt = middle ? va : 0;
    void *s0 = NULL, *s1 = NULL;
    GP_TRY_RET(gp__group_scratch(g, i, 0, ka + va + kk + qa, &s0));
    GP_TRY_RET(gp__group_scratch(g, i, 1, kb + vbb + kt + vt, &s1));
    char *c0 = s0, *c1 = s1;
    p->a = c0, p->av = vb ? c0 + ka : NULL, p->k = argsort ? c0 + ka + va : NULL, p->dq = c0 + ka + va + kk;
    p->b = c1, p->bv = vb ? c1 + kb : NULL;
    p->t = middle ? c1 + kb + vbb : NULL, p->tv = middle && vb ? c1 + kb + vbb + kt : NULL;
    return GP_OK;
}

/* keys_out NULL: argsort (values_out the positions in index dtype ib = vb; values unused) */
static gp_status_t group_sort(const char *fn, gp_group_t *g, gp_dtype_t dt, const size_t *counts,
                              const void *const *keys, void *const *keys_out, size_t vb, const void *const *values,
                              void *const *values_out, int desc)
{
    const int argsort = keys_out == NULL;
    const size_t es = gp_dtype_size(dt);
    const int R = g->size, L = g->nlocal, W = gp__sort_width(dt);
    int levels = 0;
    while ((1 << levels) < R) levels++;
    gp_status_t st = GP_OK;
    part_t *pt = calloc((size_t)L, sizeof *pt);
    size_t *all = calloc((size_t)R, sizeof *all), *P = calloc((size_t)R + 1, sizeof *P);
    cudaEvent_t *ev = calloc((size_t)L * (SUBR + 1), sizeof *ev); /* member i: round t moved (t < S), merges done */
    int nev = 0;
    uint64_t *q = NULL, *local = NULL, *lo = NULL, *hi = NULL, *cnt = NULL, *tgt = NULL;
    size_t *cut = NULL, *soff = NULL, *sb = NULL, *roff = NULL, *rb = NULL, *voff = NULL, *len = NULL, *off = NULL;
    size_t *at = NULL, *atv = NULL;
    const char **pk = NULL;
    void **sa = NULL, **kout = calloc((size_t)L, sizeof *kout);
    if (!pt || !all || !P || !ev || !kout) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, R);
        goto fail;
    }
    /* every rank's count (the same checks everywhere: all refuse together, before any exchange) */
    GP_TRY(gp__group_allgather_host(g, counts, all, sizeof *all));
    for (int r = 0; r < R; r++) P[r + 1] = P[r] + all[r];
    GP__PHASE(g, "counts gathered");
    if (argsort && vb == 4 && P[R] > ((size_t)1 << 32)) {
        st = gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype u32 holds positions below 2^32; the ranks hold %zu keys "
                                           "(use u64)", fn, P[R]);
        goto fail;
    }
    /* S sub-ranges an output shard (one for a small sort: a round costs a few NCCL launches); boundary b = j S + u
     * of rank j's sub-range u is the global place G_b; the M = R S - 1 inner ones are searched */
    const int S = R > 1 && P[R] >= (size_t)64 * R * SUBR ? SUBR : 1, NB = R * S, M = NB - 1;
    const int nq = (M > 0 ? M : 1) * SPLIT_Q;
    lo = calloc((size_t)NB, 8), hi = calloc((size_t)NB, 8), tgt = calloc((size_t)NB + 1, 8);
    cnt = calloc((size_t)R * nq, 8);
    cut = calloc((size_t)R * (NB + 1), sizeof *cut); /* cut[r * (NB + 1) + b]: rank r's keys before boundary b */
    soff = calloc((size_t)L * R, sizeof *soff), sb = calloc((size_t)L * R, sizeof *sb);
    roff = calloc((size_t)L * R, sizeof *roff), rb = calloc((size_t)L * R, sizeof *rb);
    voff = calloc((size_t)L * R * 4, sizeof *voff), len = calloc((size_t)L * R, sizeof *len);
    off = calloc((size_t)R + 1, sizeof *off);
    pk = calloc((size_t)L * R * 2, sizeof *pk), sa = calloc((size_t)L * 4, sizeof *sa);
    if (!lo || !hi || !tgt || !cnt || !cut || !soff || !sb || !roff || !rb || !voff || !len || !off || !pk || !sa) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, R);
        goto fail;
    }
    for (int j = 0; j < R; j++)
        for (int u = 0; u < S; u++) tgt[j * S + u] = P[j] + (P[j + 1] - P[j]) * (size_t)u / (size_t)S;
    tgt[NB] = P[R];
    {   /* the queries and each member's counts in host scratch (page-locked on a GPU: the copies overlap) */
        void *h = NULL;
        GP_TRY(gp__group_host_scratch(g, 0, ((size_t)nq + (size_t)L * nq) * 8, &h));
        q = h, local = q + nq;
    }
    /* 1. each shard sorted into a (argsort: its global positions sorted along, into av); one rank: into the outputs */
    const gp_sort_opts_t so = {desc, 0, 0};
    for (int i = 0; i < L; i++) {
        const size_t n = counts[i];
        GP_TRY(part_make(g, i, n, es, vb, argsort, nq, NB, levels > 1, &pt[i]));
        kout[i] = argsort ? pt[i].k : keys_out[i];
        if (!n) continue;
        const void *v = vb && values ? values[i] : NULL;
        if (argsort) {
            GP_TRY(positions(g, i, vb, n, P[g->rank0 + i], pt[i].bv));
            v = pt[i].bv;
        }
        void *ko = R == 1 ? kout[i] : pt[i].a, *vo = R == 1 ? (vb ? values_out[i] : NULL) : pt[i].av;
        if (vb) {
            GP_TRY(gp_sort_pairs(g->ctx[i], dt, n, keys[i], ko, vb, v, vo, &so, gp_group_stream(g, i)));
        } else {
            GP_TRY(gp_sort(g->ctx[i], dt, n, keys[i], ko, &so, gp_group_stream(g, i)));
        }
    }
    GP__PHASE(g, "local sorts");
    if (R == 1) {
        GP_TRY(gp_group_sync(g));
        goto fail; /* done: st is GP_OK */
    }
    /* 2. for boundary m + 1 (m < M) the least radix key v_m whose count of keys at or below it reaches tgt[m + 1]:
     *    each round asks SPLIT_Q candidates spread over [lo_m, hi_m] (the last hi_m); the first that reaches the target
     *    and the one before it bound the next range. Invariant: count(<= hi_m) >= target > count(< lo_m). */
    {
        const uint64_t top = W == 64 ? ~0ull : (1ull << W) - 1;
        for (int m = 0; m < M; m++) lo[m] = 0, hi[m] = top;
        for (;;) {
            int open = 0;
            for (int m = 0; m < M; m++) {
                uint64_t *qm = q + (size_t)m * SPLIT_Q;
                const uint64_t span = hi[m] - lo[m], w = span / SPLIT_Q + 1;
                open |= span > 0;
                for (int k = 0; k < SPLIT_Q - 1; k++) {
                    const uint64_t o = (uint64_t)(k + 1) * w - 1;
                    qm[k] = lo[m] + (o < span ? o : span);
                }
                qm[SPLIT_Q - 1] = hi[m];
            }
            if (!open) break;
            GP_TRY(counts_all(g, dt, desc, counts, pt, q, nq, local, cnt));
            for (int m = 0; m < M; m++) {
                if (lo[m] >= hi[m]) continue;
                const uint64_t *qm = q + (size_t)m * SPLIT_Q;
                int k = 0;
                for (; k < SPLIT_Q - 1; k++) {
                    uint64_t sum = 0;
                    for (int r = 0; r < R; r++) sum += cnt[(size_t)r * nq + (size_t)m * SPLIT_Q + k];
                    if (sum >= tgt[m + 1]) break;
                }
                const uint64_t nlo = k ? qm[k - 1] + 1 : lo[m];
                hi[m] = qm[k];
                lo[m] = nlo;
            }
        }
        /* every rank's counts at or below v_m and below it (at or below v_m - 1; none below 0) */
        for (int m = 0; m < M; m++) q[m] = lo[m], q[M + m] = lo[m] ? lo[m] - 1 : 0;
        GP_TRY(counts_all(g, dt, desc, counts, pt, q, 2 * M, local, cnt));
        for (int m = 0; m < M; m++) { /* the keys below v_m go, then the ties at it rank by rank: stable */
            uint64_t need = tgt[m + 1];
            for (int r = 0; r < R; r++) need -= lo[m] ? cnt[(size_t)r * 2 * M + M + m] : 0;
            for (int r = 0; r < R; r++) {
                const uint64_t le = cnt[(size_t)r * 2 * M + m], lt = lo[m] ? cnt[(size_t)r * 2 * M + M + m] : 0;
                const uint64_t t = le - lt < need ? le - lt : need;
                cut[(size_t)r * (NB + 1) + m + 1] = (size_t)(lt + t);
                need -= t;
            }
        }
    }
    for (int r = 0; r < R; r++) {
        cut[(size_t)r * (NB + 1)] = 0, cut[(size_t)r * (NB + 1) + NB] = all[r];
        for (int b = 0; b < NB; b++)
            if (cut[(size_t)r * (NB + 1) + b + 1] < cut[(size_t)r * (NB + 1) + b]) {
                st = gp__error(GP_ERR_INTERNAL, "%s: rank %d's splits are not in order", fn, r);
                goto fail;
            }
    }
    GP__PHASE(g, "splits");
    if (g->gpu) /* a member's copy stream merges after its stream's work so far (the sorts) */
        for (int i = 0; i < L; i++) {
            GP_TRY(gp__ctx_enter(g->ctx[i], fn));
            for (int e = 0; e <= S; e++) GP_CUDA_TRY(cudaEventCreateWithFlags(&ev[(size_t)i * (SUBR + 1) + e],
                                                                              cudaEventDisableTiming));
            nev = i + 1;
        }
    /* 3, 4. round u: rank r's keys [cut r,(jS+u) ; cut r,(jS+u+1)) to rank j (as wire() widens them), each piece
     *    received at the next 16-byte place in b (values in bv); the own piece is read in a. Then each member merges
     *    the round's pieces into its sub-range u on its copy stream while the next round moves. */
    at = calloc((size_t)L * 2, sizeof *at); /* each member's next free byte in b, then in bv */
    if (!at) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d members", fn, L);
        goto fail;
    }
    atv = at + L;
    for (int u = 0; u < S; u++) {
        for (int i = 0; i < L; i++) {
            const int me = g->rank0 + i;
            for (int j = 0; j < R; j++) {
                const size_t k = (size_t)i * R + (size_t)j;
                const size_t *sp = cut + (size_t)me * (NB + 1) + (size_t)j * S + u;  /* mine for rank j */
                const size_t *rp = cut + (size_t)j * (NB + 1) + (size_t)me * S + u;  /* rank j's for me */
                const size_t m = rp[1] - rp[0];
                const int self = j == me;
                soff[k] = down16(sp[0] * es), sb[k] = self ? 0 : wire(sp[0] * es, sp[1] * es);
                voff[k] = down16(sp[0] * vb), voff[(size_t)L * R + k] = self ? 0 : wire(sp[0] * vb, sp[1] * vb);
                roff[k] = at[i], rb[k] = self ? 0 : wire(rp[0] * es, rp[1] * es);
                voff[(size_t)2 * L * R + k] = atv[i];
                voff[(size_t)3 * L * R + k] = self ? 0 : wire(rp[0] * vb, rp[1] * vb);
                pk[k] = self ? (const char *)pt[i].a + rp[0] * es : (const char *)pt[i].b + at[i] + rp[0] * es % 16;
                pk[(size_t)L * R + k] = !vb ? NULL : self ? (const char *)pt[i].av + rp[0] * vb
                                                          : (const char *)pt[i].bv + atv[i] + rp[0] * vb % 16;
                len[k] = m;
                at[i] += rb[k], atv[i] += voff[(size_t)3 * L * R + k];
            }
            sa[i] = pt[i].a, sa[L + i] = pt[i].b, sa[2 * L + i] = pt[i].av, sa[3 * L + i] = pt[i].bv;
        }
        GP_TRY(gp__group_alltoallv(g, (const void *const *)sa, soff, sb, sa + L, roff, rb));
        if (vb) {
            GP_TRY(gp__group_alltoallv(g, (const void *const *)(sa + 2 * L), voff, voff + (size_t)L * R, sa + 3 * L,
                                       voff + (size_t)2 * L * R, voff + (size_t)3 * L * R));
        }
        for (int i = 0; i < L; i++) {
            const int me = g->rank0 + i;
            const size_t o = tgt[me * S + u] - P[me], n = tgt[me * S + u + 1] - tgt[me * S + u]; /* sub-range u */
            size_t tot = 0;
            for (int j = 0; j < R; j++) tot += len[(size_t)i * R + j];
            if (tot != n) {
                st = gp__error(GP_ERR_INTERNAL, "%s: rank %d would receive %zu keys for its %zu", fn, me, tot, n);
                goto fail;
            }
            gp_stream_t ms = NULL; /* the merges' stream: the copy stream, after this round's exchange */
            if (g->gpu) {
                cudaEvent_t e = ev[(size_t)i * (SUBR + 1) + u];
                GP_TRY(gp__ctx_enter(g->ctx[i], fn));
                GP_CUDA_TRY(cudaEventRecord(e, g->stream[i]));
                GP_CUDA_TRY(cudaStreamWaitEvent(g->cstream[i], e, 0));
                ms = (gp_stream_t)g->cstream[i];
            }
            if (!n) continue; /* (its output may be NULL) */
            char *ko = (char *)kout[i] + o * es, *vo = vb ? (char *)values_out[i] + o * vb : NULL;
            char *tk = pt[i].t ? (char *)pt[i].t + o * es : NULL, *tv = pt[i].tv ? (char *)pt[i].tv + o * vb : NULL;
            GP_TRY(merge_pieces(g, i, dt, vb, desc, R, pk + (size_t)i * R, pk + (size_t)L * R + (size_t)i * R,
                                len + (size_t)i * R, off, ko, vo, tk, tv, ms));
        }
        if (u == 0) GP__PHASE(g, "first round");
    }
    if (g->gpu) /* the members' streams go on when their merges are done */
        for (int i = 0; i < L; i++) {
            cudaEvent_t e = ev[(size_t)i * (SUBR + 1) + S];
            GP_TRY(gp__ctx_enter(g->ctx[i], fn));
            GP_CUDA_TRY(cudaEventRecord(e, g->cstream[i]));
            GP_CUDA_TRY(cudaStreamWaitEvent(g->stream[i], e, 0));
        }
    GP__PHASE(g, "rounds and merges");
    GP_TRY(gp_group_sync(g));
fail:
    if (st != GP_OK && pt) { /* the scratch is the group's: nothing runs on it after a refusal */
        for (int i = 0; g->gpu && i < nev; i++) {
            (void)gp__ctx_enter(g->ctx[i], fn);
            cudaStreamSynchronize(g->cstream[i]);
        }
        gp_group_sync(g);
    }
    for (int i = 0; i < nev; i++) {
        (void)gp__ctx_enter(g->ctx[i], fn);
        for (int e = 0; e <= SUBR; e++)
            if (ev[(size_t)i * (SUBR + 1) + e]) cudaEventDestroy(ev[(size_t)i * (SUBR + 1) + e]);
    }
    free(pt), free(all), free(P), free(ev), free(lo), free(hi), free(tgt), free(cnt), free(cut), free(soff), free(sb);
    free(roff), free(rb), free(voff), free(len), free(off), free(pk), free(sa), free(kout), free(at);
    return st;
}

/* the checks both calls make: the group, the dtype, the shards (ib: the bytes of each value or position) */
static gp_status_t check_args(const char *fn, gp_group_t *g, gp_dtype_t dt, const size_t *counts,
                              const void *const *keys, void *const *keys_out, size_t vb, const void *const *values,
                              void *const *values_out, const char *vname)
{
    GP_TRY_RET(gp__group_check(fn, g));
    if ((unsigned)dt >= GP_DTYPE_COUNT) return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d", fn, (int)dt);
    GP_TRY_RET(gp__group_check_shards(fn, g, dt, counts, keys, "keys"));
    if (keys_out) GP_TRY_RET(gp__group_check_shards(fn, g, dt, counts, (const void *const *)keys_out, "keys_out"));
    if (vb) {
        const gp_dtype_t vt = vb == 1 ? GP_U8 : vb == 2 ? GP_U16 : vb == 4 ? GP_U32 : GP_U64; /* alignment by size */
        if (values) GP_TRY_RET(gp__group_check_shards(fn, g, vt, counts, values, "values"));
        GP_TRY_RET(gp__group_check_shards(fn, g, vt, counts, (const void *const *)values_out, vname));
    }
    const size_t es = gp_dtype_size(dt);
    for (int i = 0; i < g->nlocal; i++) {
        if (!counts[i]) continue;
        const size_t nv = counts[i] * vb, nk = counts[i] * es;
        if ((keys_out && gp__overlap(keys_out[i], nk, keys[i], nk)) ||
            (vb && ((values && gp__overlap(values_out[i], nv, values[i], nv)) ||
                    gp__overlap(values_out[i], nv, keys[i], nk) ||
                    (keys_out && values && gp__overlap(keys_out[i], nk, values[i], nv)) ||
                    (keys_out && gp__overlap(values_out[i], nv, keys_out[i], nk)))))
            return gp__error(GP_ERR_INVALID_ARG, "%s: member %d's outputs overlap its inputs or each other", fn, i);
    }
    return GP_OK;
}

gp_status_t gp_group_sort(gp_group_t *g, gp_dtype_t dt, const size_t *counts, const void *const *keys,
                          void *const *keys_out, size_t vb, const void *const *values, void *const *values_out,
                          int desc)
{
    static const char fn[] = "gp_group_sort";
    GP_TRY_RET(gp__group_check(fn, g));
    if (vb != 0 && vb != 1 && vb != 2 && vb != 4 && vb != 8 && vb != 16)
        return gp__error(GP_ERR_INVALID_ARG, "%s: value_bytes %zu (0, 1, 2, 4, 8 or 16)", fn, vb);
    if (!keys_out) return gp__error(GP_ERR_INVALID_ARG, "%s: keys_out is NULL", fn);
    if (vb && !values) return gp__error(GP_ERR_INVALID_ARG, "%s: values is NULL with value_bytes %zu", fn, vb);
    GP_TRY_RET(check_args(fn, g, dt, counts, keys, keys_out, vb, values, values_out, "values_out"));
    return group_sort(fn, g, dt, counts, keys, keys_out, vb, values, values_out, desc);
}

gp_status_t gp_group_argsort(gp_group_t *g, gp_dtype_t dt, const size_t *counts, const void *const *keys,
                             gp_dtype_t index_dtype, void *const *indices, int desc)
{
    static const char fn[] = "gp_group_argsort";
    if (index_dtype != GP_U32 && index_dtype != GP_U64)
        return gp__error(GP_ERR_INVALID_ARG, "%s: index_dtype %s (u32 or u64)", fn,
                         (unsigned)index_dtype < GP_DTYPE_COUNT ? gp_dtype_name(index_dtype) : "?");
    const size_t ib = gp_dtype_size(index_dtype);
    GP_TRY_RET(check_args(fn, g, dt, counts, keys, NULL, ib, NULL, indices, "indices"));
    return group_sort(fn, g, dt, counts, keys, NULL, ib, NULL, indices, desc);
}

const gp__group_gpu_ops_t gp__group_gpu_ops = {
    .sort_count = GP_GPU_SLOT(gp__group_sort_count_gpu),
    .sort_iota = GP_GPU_SLOT(gp__group_sort_iota_gpu),
};
