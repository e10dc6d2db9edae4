/*
 * group_reduce.c — sharded reductions with the bits of one GPU (docs/design/group.md).
 *
 * The tree of docs/design/reduce.md over the whole array of n elements: T = ceil(n / E) tiles of E elements (64 KiB) at
 * level 0; level L + 1 has N(L+1) = ceil(N(L) / G) nodes, node k folding nodes [kG, min(kG + G, N(L))) of level L
 * (G = 4096); the top level has one node, the result. Node values depend only on n and the data, so any machine
 * that knows a node's children computes its bits.
 *
 * Rank r holds elements [s_r, e_r). Its local tiles are those wholly inside: [ceil(s_r / E), e_r == n ? T :
 * floor(e_r / E)). Going up, the nodes whose children are all local are local, level by level (lo and hi below).
 * A local node whose parent is not local is "canonical": each rank folds its local nodes on its own device and
 * exports only its canonical ones (fewer than 2G per level, a few dozen for an even split). The tiles no rank holds
 * wholly (a shard edge inside a tile) are rebuilt from the shards' edge fragments (head: before the shard's first
 * tile boundary; tail: after its last one). One all-gather moves the canonical entries (and, only when some shard
 * edge is off a tile boundary, the fragments); then every process folds the nodes above them on the host with the
 * CPU backend's fold, which gives the GPU's bits (the determinism contract the tests hold), and so every rank gets
 * the result of one GPU reducing the whole array.
 */
#include "group_internal.h"
#include "../reduce/reduce_internal.h"

#include <stdlib.h>
#include <string.h>

#define G ((size_t)GP__REDUCE_GROUP)
#define MAXLEV 8

typedef struct member {
    int started, ended;
    size_t start, end; /* elements pushed: [start, end) of the whole array */
    size_t ta;         /* the first tile boundary at or after start, in tiles */
    size_t ntiles;     /* level-0 entries held: tiles ta, ta + 1, ... */
    size_t cap0;
    void *lvl0;
    void *frag; /* 2E elements: the head fragment at 0, the tail fragment at E */
    size_t head, tail;
    void *scratch; /* the levels above 0 */
    size_t scratch_cap;
    void *exp, *recv, *frecv; /* exported entries and what the all-gathers bring */
    size_t exp_cap, recv_cap, frecv_cap;
    cudaEvent_t last;
    int have_last;
} member_t;

struct gp_group_reducer {
    gp_group_t *g;
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    int wide;
    size_t es, E, esz; /* element bytes, elements per tile, bytes per entry on the members' backend */
    member_t *m;
};

/* A rank's local nodes: level L holds [lo[L], hi[L]) (empty when lo >= hi); canonical nodes are cl = [lo, cut_lo)
 * and cr = [cut_hi, hi) at each level. */
typedef struct plan {
    int nlev; /* levels 0 .. nlev - 1, the last one the root's */
    size_t N[MAXLEV], lo[MAXLEV], hi[MAXLEV], cut_lo[MAXLEV], cut_hi[MAXLEV];
    size_t count; /* canonical entries in all */
} plan_t;

static size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }

static void make_plan(size_t T, size_t ta, size_t tb, plan_t *p)
{
    memset(p, 0, sizeof *p);
    size_t N = T, lo = ta, hi = tb > ta ? tb : ta;
    int L = 0;
    for (;;) {
        p->N[L] = N;
        p->lo[L] = lo;
        p->hi[L] = hi;
        if (N == 1) {
            p->cut_lo[L] = p->cut_hi[L] = hi; /* everything held here is canonical */
            p->nlev = L + 1;
            break;
        }
        const size_t nlo = cdiv(lo, G), nhi = hi == N ? cdiv(N, G) : hi / G;
        if (lo < hi && nlo < nhi) {
            p->cut_lo[L] = nlo * G;
            p->cut_hi[L] = nhi * G < N ? nhi * G : N;
        } else {
            p->cut_lo[L] = p->cut_hi[L] = hi; /* nothing goes up: all canonical */
        }
        N = cdiv(N, G);
        if (lo < hi && nlo < nhi) {
            lo = nlo;
            hi = nhi;
        } else {
            lo = hi = 0;
        }
        L++;
    }
    for (int k = 0; k < p->nlev; k++)
        if (p->lo[k] < p->hi[k]) p->count += (p->cut_lo[k] - p->lo[k]) + (p->hi[k] - p->cut_hi[k]);
}

/* ---------------------------------------------------------------------------------------------- member memory */
static gp_status_t grow(gp_group_reducer_t *r, int i, void **p, size_t *cap, size_t bytes, int keep)
{
    if (bytes <= *cap) return GP_OK;
    member_t *m = &r->m[i];
    size_t c = *cap ? *cap : 4096;
    while (c < bytes) c *= 2;
    void *q = NULL;
    if (r->g->gpu && m->have_last) {
        GP_TRY_RET(gp__ctx_enter(r->g->ctx[i], "gp_group_reducer"));
        cudaError_t e = cudaEventSynchronize(m->last);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_reducer: waiting", __FILE__, __LINE__);
    }
    GP_TRY_RET(gp__group_alloc(r->g, i, c, &q));
    if (keep && *cap) {
        if (r->g->gpu) {
            /* done before the member's stream writes past it (that stream is not ordered after this one) */
            cudaError_t e = cudaMemcpyAsync(q, *p, *cap, cudaMemcpyDeviceToDevice, cudaStreamLegacy);
            if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);
            if (e != cudaSuccess) {
                gp__group_free(r->g, i, q);
                return gp__cuda_error(e, "gp_group_reducer: growing", __FILE__, __LINE__);
            }
        } else {
            memcpy(q, *p, *cap);
        }
    }
    gp__group_free(r->g, i, *p);
    *p = q;
    *cap = c;
    return GP_OK;
}

static void member_reset(member_t *m)
{
    m->started = m->ended = 0;
    m->start = m->end = m->ta = m->ntiles = m->head = m->tail = 0;
}

gp_status_t gp_group_reducer_create(gp_group_t *g, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc,
                                    gp_group_reducer_t **out)
{
    static const char fn[] = "gp_group_reducer_create";
    GP_ARG_NONNULL(fn, out);
    *out = NULL;
    GP_TRY_RET(gp__group_check(fn, g));
    uint64_t dummy = 0;
    int wide = 0;
    GP_TRY_RET(gp__reduce_check(fn, g->ctx[0], op, dtype, 0, NULL, &dummy));
    GP_TRY_RET(gp__reduce_acc_check(fn, op, dtype, acc, &wide));
    if (gp__reduce_cpu_entry_bytes() != 3 * sizeof(uint64_t))
        return gp__error(GP_ERR_INTERNAL, "%s: CPU entries of %zu bytes", fn, gp__reduce_cpu_entry_bytes());
    gp_group_reducer_t *r = calloc(1, sizeof *r);
    if (!r) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the reducer", fn);
    r->m = calloc((size_t)g->nlocal, sizeof *r->m);
    if (!r->m) {
        free(r);
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d members", fn, g->nlocal);
    }
    r->g = g;
    r->op = op;
    r->dtype = dtype;
    r->wide = wide;
    r->es = gp_dtype_size(dtype);
    r->E = GP__REDUCE_TILE_BYTES / r->es;
    r->esz = g->gpu ? gp__reduce_gpu_ops.entry_bytes(op, dtype, wide) : gp__reduce_cpu_entry_bytes();
    gp_status_t st = GP_OK;
    for (int i = 0; i < g->nlocal; i++) {
        if (g->gpu) {
            GP_TRY(gp__ctx_enter(g->ctx[i], fn));
            GP_CUDA_TRY(cudaEventCreateWithFlags(&r->m[i].last, cudaEventDisableTiming));
        }
        GP_TRY(gp__group_alloc(g, i, 2 * r->E * r->es, &r->m[i].frag));
    }
    *out = r;
    return GP_OK;
fail:
    gp_group_reducer_destroy(r);
    return st;
}

gp_status_t gp_group_reducer_destroy(gp_group_reducer_t *r)
{
    if (!r) return GP_OK;
    gp_status_t st = GP_OK;
    for (int i = 0; i < r->g->nlocal; i++) {
        member_t *m = &r->m[i];
        if (r->g->gpu && m->last) {
            cudaSetDevice(gp_ctx_device(r->g->ctx[i]));
            const cudaError_t e = cudaEventSynchronize(m->last);
            if (e != cudaSuccess && st == GP_OK)
                st = gp__cuda_error(e, "gp_group_reducer_destroy: a member's last push", __FILE__, __LINE__);
            cudaEventDestroy(m->last);
        }
        gp__group_free(r->g, i, m->lvl0);
        gp__group_free(r->g, i, m->frag);
        gp__group_free(r->g, i, m->scratch);
        gp__group_free(r->g, i, m->exp);
        gp__group_free(r->g, i, m->recv);
        gp__group_free(r->g, i, m->frecv);
    }
    free(r->m);
    free(r);
    return st;
}

/* Copies bytes within member memory on stream s. */
static gp_status_t mcopy(gp_group_reducer_t *r, void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    if (!bytes) return GP_OK;
    if (!r->g->gpu) {
        memcpy(dst, src, bytes);
        return GP_OK;
    }
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_group_reducer: copying", __FILE__, __LINE__);
}

gp_status_t gp_group_reducer_push(gp_group_reducer_t *r, int member, size_t first, size_t count, const void *x,
                                  gp_stream_t stream)
{
    static const char fn[] = "gp_group_reducer_push";
    GP_ARG_NONNULL(fn, r);
    gp_group_t *g = r->g;
    if (member < 0 || member >= g->nlocal)
        return gp__error(GP_ERR_INVALID_ARG, "%s: member %d is outside [0, %d)", fn, member, g->nlocal);
    member_t *m = &r->m[member];
    gp_ctx_t *ctx = g->ctx[member];
    uint64_t dummy = 0;
    GP_TRY_RET(gp__reduce_check(fn, ctx, r->op, r->dtype, count, x, &dummy));
    if (count == 0) return GP_OK;
    if (first + count < first) return gp__error(GP_ERR_OVERFLOW, "%s: first %zu + count %zu", fn, first, count);
    if (m->started && m->ended)
        return gp__error(GP_ERR_INVALID_ARG, "%s: member %d's piece ending at element %zu is off a tile boundary "
                                             "(%zu elements), so it was the member's last", fn, member, m->end, r->E);
    if (m->started && first != m->end)
        return gp__error(GP_ERR_INVALID_ARG, "%s: member %d's pieces must follow one another: this one starts at "
                                             "element %zu, the previous one ended at %zu", fn, member, first, m->end);
    const cudaStream_t s = stream ? (cudaStream_t)stream : g->stream[member];
    if (g->gpu) {
        GP_TRY_RET(gp__ctx_enter(ctx, fn));
        if (m->have_last) {
            cudaError_t e = cudaStreamWaitEvent(s, m->last, 0);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_reducer_push: waiting", __FILE__, __LINE__);
        }
    }
    const size_t E = r->E;
    if (!m->started) {
        m->started = 1;
        m->start = m->end = first;
        m->ta = cdiv(first, E);
    }
    const char *p = x;
    size_t at = first, left = count;
    if (at < m->ta * E) { /* the head: elements before the shard's first tile boundary */
        const size_t h = left < m->ta * E - at ? left : m->ta * E - at;
        GP_TRY_RET(mcopy(r, (char *)m->frag + m->head * r->es, p, h * r->es, s));
        m->head += h;
        p += h * r->es;
        at += h;
        left -= h;
    }
    if (left) { /* whole tiles (and perhaps a partial one at the end) */
        const size_t nt = cdiv(left, E);
        GP_TRY_RET(grow(r, member, &m->lvl0, &m->cap0, (m->ntiles + nt) * r->esz, 1));
        void *dst = (char *)m->lvl0 + m->ntiles * r->esz;
        if (g->gpu)
            GP_TRY_RET(gp__reduce_gpu_ops.tiles(ctx, r->op, r->dtype, r->wide, left, p, (long long)at, dst, s));
        else
            gp__reduce_cpu_tiles(r->op, r->dtype, r->wide, left, p, (long long)at, dst, 1);
        m->ntiles += nt;
        if (left % E) { /* the tail: kept in case the tile continues on the next rank */
            m->tail = left % E;
            GP_TRY_RET(mcopy(r, (char *)m->frag + E * r->es, p + (left - m->tail) * r->es, m->tail * r->es, s));
        }
    }
    m->end = first + count;
    if (m->end % E) m->ended = 1;
    if (g->gpu) {
        cudaError_t e = cudaEventRecord(m->last, s);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_group_reducer_push: cudaEventRecord", __FILE__, __LINE__);
        m->have_last = 1;
    }
    return GP_OK;
}

/* ---------------------------------------------------------------------------------------------- finish */
typedef struct hent {
    size_t idx;
    uint64_t e[3]; /* a CPU entry */
} hent_t;

static int hent_cmp(const void *a, const void *b)
{
    const size_t x = ((const hent_t *)a)->idx, y = ((const hent_t *)b)->idx;
    return x < y ? -1 : x > y;
}

typedef struct rank_info {
    uint64_t nonempty, start, end;
} rank_info_t;

/* The rank's local tiles [*ta, *tb). */
static void local_tiles(const rank_info_t *ri, size_t n, size_t E, size_t *ta, size_t *tb)
{
    const size_t T = cdiv(n, E);
    if (!ri->nonempty) {
        *ta = *tb = 0;
        return;
    }
    *ta = cdiv(ri->start, E);
    *tb = ri->end == n ? T : ri->end / E;
    if (*tb < *ta) *tb = *ta;
}

/* Member i folds its local nodes and writes its canonical entries, level by level (left, then right), to m->exp. */
static gp_status_t member_export(gp_group_reducer_t *r, int i, const plan_t *p, size_t ta)
{
    gp_group_t *g = r->g;
    member_t *m = &r->m[i];
    const cudaStream_t s = g->stream[i];
    const size_t esz = r->esz;
    size_t need = 0; /* scratch for levels >= 1 */
    for (int L = 1; L < p->nlev; L++)
        if (p->lo[L] < p->hi[L]) need += (p->hi[L] - p->lo[L]) * esz;
    GP_TRY_RET(grow(r, i, &m->scratch, &m->scratch_cap, need, 0));
    GP_TRY_RET(grow(r, i, &m->exp, &m->exp_cap, p->count * esz, 0));
    const char *lvl = (const char *)m->lvl0 + (p->lo[0] - ta) * esz; /* level L's held nodes, from lo[L] */
    char *next = m->scratch, *out = m->exp;
    for (int L = 0; L < p->nlev; L++) {
        if (p->lo[L] >= p->hi[L]) break;
        const size_t nl = p->cut_lo[L] - p->lo[L], nr = p->hi[L] - p->cut_hi[L];
        GP_TRY_RET(mcopy(r, out, lvl, nl * esz, s));
        out += nl * esz;
        GP_TRY_RET(mcopy(r, out, lvl + (p->cut_hi[L] - p->lo[L]) * esz, nr * esz, s));
        out += nr * esz;
        if (L + 1 < p->nlev && p->lo[L + 1] < p->hi[L + 1]) {
            const size_t mcount = p->cut_hi[L] - p->cut_lo[L];
            const char *src = lvl + nl * esz;
            if (g->gpu)
                GP_TRY_RET(gp__reduce_gpu_ops.fold(g->ctx[i], r->op, r->dtype, r->wide, mcount, src, next, s));
            else
                gp__reduce_cpu_fold(r->op, r->dtype, r->wide, mcount, src, next);
            lvl = next;
            next += (p->hi[L + 1] - p->lo[L + 1]) * esz;
        }
    }
    return GP_OK;
}

static gp_status_t append(hent_t **v, size_t *n, size_t *cap, size_t idx, const void *cpu_entry)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        hent_t *q = realloc(*v, c * sizeof *q);
        if (!q) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_group_reducer_finish: %zu tree entries", c);
        *v = q;
        *cap = c;
    }
    (*v)[*n].idx = idx;
    memcpy((*v)[*n].e, cpu_entry, sizeof (*v)[*n].e);
    (*n)++;
    return GP_OK;
}

gp_status_t gp_group_reducer_finish(gp_group_reducer_t *r, gp_reduce_result_t *result_host)
{
    static const char fn[] = "gp_group_reducer_finish";
    GP_ARG_NONNULL(fn, r);
    GP_ARG_NONNULL(fn, result_host);
    gp_group_t *g = r->g;
    const int size = g->size, nl = g->nlocal;
    const size_t E = r->E, esz = r->esz;
    gp_status_t st = GP_OK;
    rank_info_t *info = calloc((size_t)size + (size_t)nl, sizeof *info), *mine = info + size;
    plan_t *plans = calloc((size_t)size, sizeof *plans);
    size_t *ta = calloc(2 * (size_t)size, sizeof *ta), *tb = ta + size;
    unsigned char *host = NULL, *fhost = NULL, *tilebuf = NULL;
    hent_t *cur = NULL, *nxt = NULL;
    size_t ncur = 0, capcur = 0, nnxt = 0, capnxt = 0;
    void **sendp = calloc(2 * (size_t)nl, sizeof *sendp), **recvp = sendp + nl;
    if (!info || !plans || !ta || !sendp) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, size);
        goto fail;
    }
    /* 1. Every rank's shard. */
    for (int i = 0; i < nl; i++) {
        mine[i].nonempty = r->m[i].started;
        mine[i].start = r->m[i].start;
        mine[i].end = r->m[i].end;
        if (g->gpu && r->m[i].have_last) {
            GP_TRY(gp__ctx_enter(g->ctx[i], fn));
            GP_CUDA_TRY(cudaStreamWaitEvent(g->stream[i], r->m[i].last, 0));
        }
    }
    GP_TRY(gp__group_allgather_host(g, mine, info, sizeof *info));
    size_t n = 0;
    int prev = -1;
    for (int k = 0; k < size; k++) {
        if (!info[k].nonempty) continue;
        if (info[k].start != n) {
            if (prev < 0)
                st = gp__error(GP_ERR_INVALID_ARG, "%s: rank %d's shard starts at element %llu; the first shard must "
                                                   "start at 0", fn, k, (unsigned long long)info[k].start);
            else
                st = gp__error(GP_ERR_INVALID_ARG, "%s: rank %d's shard starts at element %llu but rank %d's ends at "
                                                   "%zu; the shards must follow one another in rank order", fn, k,
                               (unsigned long long)info[k].start, prev, n);
            goto fail;
        }
        n = info[k].end;
        prev = k;
    }
    if (n == 0) {
        gp__reduce_identity_acc(r->op, r->dtype, r->wide, result_host);
        goto fail; /* st == GP_OK: clean up and reset */
    }
    /* 2. The plans, known to every rank. */
    const size_t T = cdiv(n, E);
    size_t most = 0;
    int frags = 0;
    for (int k = 0; k < size; k++) {
        local_tiles(&info[k], n, E, &ta[k], &tb[k]);
        make_plan(T, ta[k], tb[k], &plans[k]);
        most = plans[k].count > most ? plans[k].count : most;
        if (info[k].nonempty && (info[k].start % E || (info[k].end != n && info[k].end % E))) frags = 1;
    }
    /* 3. Each member folds its local nodes; the canonical entries (and fragments) are exchanged. All ranks in this
     * process: each member's entries are read straight to the host (a few hundred bytes: one copy per member, no
     * collective); ranks in other processes: the NCCL all-gather. */
    const int direct = g->nlocal == g->size && !g->rank_path;
    for (int i = 0; i < nl; i++) {
        const int k = g->rank0 + i;
        if (g->gpu) GP_TRY(gp__ctx_enter(g->ctx[i], fn));
        /* every rank sends `most` entries (the all-gather's equal counts): room for them all, the tail unused */
        GP_TRY(grow(r, i, &r->m[i].exp, &r->m[i].exp_cap, (most ? most : 1) * esz, 0));
        if (plans[k].count) GP_TRY(member_export(r, i, &plans[k], ta[k]));
        if (!direct) GP_TRY(grow(r, i, &r->m[i].recv, &r->m[i].recv_cap, (size_t)size * most * esz, 0));
        sendp[i] = r->m[i].exp;
        recvp[i] = r->m[i].recv;
    }
    if (!direct) GP_TRY(gp__group_allgather(g, (const void *const *)sendp, recvp, most * esz));
    if (frags && !direct) {
        for (int i = 0; i < nl; i++) {
            GP_TRY(grow(r, i, &r->m[i].frecv, &r->m[i].frecv_cap, (size_t)size * 2 * E * r->es, 0));
            sendp[i] = r->m[i].frag;
            recvp[i] = r->m[i].frecv;
        }
        GP_TRY(gp__group_allgather(g, (const void *const *)sendp, recvp, 2 * E * r->es));
    }
    /* 4. On the host: the canonical entries of every rank, the split tiles, then the nodes above. */
    host = malloc((size_t)size * most * esz + 1);
    fhost = frags ? malloc((size_t)size * 2 * E * r->es) : NULL;
    tilebuf = frags ? malloc(E * r->es) : NULL;
    if (!host || (frags && (!fhost || !tilebuf))) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu exchanged entries", fn, (size_t)size * most);
        goto fail;
    }
    if (direct) {
        for (int i = 0; i < nl; i++) {
            unsigned char *he = host + (size_t)i * most * esz, *hf = frags ? fhost + (size_t)i * 2 * E * r->es : NULL;
            if (!g->gpu) {
                memcpy(he, r->m[i].exp, most * esz);
                if (hf) memcpy(hf, r->m[i].frag, 2 * E * r->es);
                continue;
            }
            GP_TRY(gp__ctx_enter(g->ctx[i], fn));
            if (most) GP_CUDA_TRY(cudaMemcpyAsync(he, r->m[i].exp, most * esz, cudaMemcpyDeviceToHost, g->stream[i]));
            if (hf) GP_CUDA_TRY(cudaMemcpyAsync(hf, r->m[i].frag, 2 * E * r->es, cudaMemcpyDeviceToHost, g->stream[i]));
        }
        if (g->gpu) GP_TRY(gp_group_sync(g));
    } else {
        if (most) GP_TRY(gp__group_to_host(g, 0, host, r->m[0].recv, (size_t)size * most * esz));
        if (frags) GP_TRY(gp__group_to_host(g, 0, fhost, r->m[0].frecv, (size_t)size * 2 * E * r->es));
    }
    uint64_t ce[3];
    for (int L = 0;; L++) {
        /* level L: the ranks' canonical nodes */
        for (int k = 0; k < size; k++) {
            const plan_t *p = &plans[k];
            if (L >= p->nlev || p->lo[L] >= p->hi[L]) continue;
            size_t off = 0; /* entries before level L in rank k's export */
            for (int j = 0; j < L; j++)
                if (p->lo[j] < p->hi[j]) off += (p->cut_lo[j] - p->lo[j]) + (p->hi[j] - p->cut_hi[j]);
            const unsigned char *base = host + ((size_t)k * most + off) * esz;
            /* the canonical nodes only: [lo, cut_lo) and [cut_hi, hi), never the (up to T) local ones between */
            const size_t span[2][2] = {{p->lo[L], p->cut_lo[L]}, {p->cut_hi[L], p->hi[L]}};
            size_t q = 0;
            for (int h = 0; h < 2; h++)
                for (size_t idx = span[h][0]; idx < span[h][1]; idx++, q++) {
                    if (g->gpu) gp__reduce_entry_to_cpu(r->op, esz, base + q * esz, ce);
                    else memcpy(ce, base + q * esz, sizeof ce);
                    GP_TRY(append(&cur, &ncur, &capcur, idx, ce));
                }
        }
        if (L == 0 && frags) { /* the tiles split between ranks */
            size_t last = (size_t)-1;
            for (int k = 0; k < size; k++) {
                if (!info[k].nonempty) continue;
                size_t cand[2], nc = 0;
                if (info[k].start % E) cand[nc++] = info[k].start / E;
                if (info[k].end != n && info[k].end % E) cand[nc++] = info[k].end / E;
                for (size_t c = 0; c < nc; c++) {
                    const size_t t = cand[c];
                    if (t == last) continue;
                    last = t;
                    const size_t t0 = t * E, len = n - t0 < E ? n - t0 : E;
                    memset(tilebuf, 0, E * r->es);
                    size_t have = 0;
                    for (int j = 0; j < size; j++) {
                        if (!info[j].nonempty) continue;
                        const size_t s0 = info[j].start, e0 = info[j].end;
                        const size_t hend = ta[j] * E < e0 ? ta[j] * E : e0;
                        const unsigned char *fr = fhost + (size_t)j * 2 * E * r->es;
                        if (s0 < hend && s0 / E == t) { /* head */
                            memcpy(tilebuf + (s0 - t0) * r->es, fr, (hend - s0) * r->es);
                            have += hend - s0;
                        }
                        if (ta[j] * E < e0 && e0 % E && e0 / E == t && !(t >= ta[j] && t < tb[j])) { /* tail */
                            memcpy(tilebuf, fr + E * r->es, (e0 - t0) * r->es);
                            have += e0 - t0;
                        }
                    }
                    if (have != len) {
                        st = gp__error(GP_ERR_INTERNAL, "%s: split tile %zu rebuilt from %zu of %zu elements", fn, t,
                                       have, len);
                        goto fail;
                    }
                    gp__reduce_cpu_tiles(r->op, r->dtype, r->wide, len, tilebuf, (long long)t0, ce, 0);
                    GP_TRY(append(&cur, &ncur, &capcur, t, ce));
                }
            }
        }
        if (ncur > 1) qsort(cur, ncur, sizeof *cur, hent_cmp);
        const size_t N = plans[0].N[L];
        if (N == 1) {
            if (ncur != 1 || cur[0].idx != 0) {
                st = gp__error(GP_ERR_INTERNAL, "%s: %zu entries at the root level", fn, ncur);
                goto fail;
            }
            gp__reduce_cpu_entry_result(r->op, r->dtype, r->wide, cur[0].e, result_host);
            break;
        }
        /* the parents of these nodes: each run of siblings must be the parent's whole group */
        nnxt = 0;
        uint64_t *grp = malloc(G * sizeof ce);
        if (!grp) {
            st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: a fold group", fn);
            goto fail;
        }
        for (size_t a = 0; a < ncur && st == GP_OK;) {
            const size_t parent = cur[a].idx / G, c0 = parent * G, want = N - c0 < G ? N - c0 : G;
            size_t b = a;
            while (b < ncur && cur[b].idx / G == parent) {
                if (cur[b].idx != c0 + (b - a)) break;
                memcpy(grp + (b - a) * 3, cur[b].e, sizeof ce);
                b++;
            }
            if (b - a != want) {
                st = gp__error(GP_ERR_INTERNAL, "%s: node %zu of level %d has %zu of its %zu children", fn, parent,
                               L + 1, b - a, want);
                break;
            }
            gp__reduce_cpu_fold(r->op, r->dtype, r->wide, want, grp, ce);
            st = append(&nxt, &nnxt, &capnxt, parent, ce);
            a = b;
        }
        free(grp);
        if (st != GP_OK) goto fail;
        hent_t *t = cur;
        cur = nxt;
        nxt = t;
        const size_t tc = capcur;
        capcur = capnxt;
        capnxt = tc;
        ncur = nnxt;
        if (L + 1 >= MAXLEV) {
            st = gp__error(GP_ERR_INTERNAL, "%s: more than %d levels", fn, MAXLEV);
            goto fail;
        }
    }
fail:
    if (g->gpu) { /* every member's exchange done before the caller reuses a shard or the reducer */
        const gp_status_t s2 = gp_group_sync(g);
        if (st == GP_OK) st = s2;
    }
    for (int i = 0; i < nl; i++) member_reset(&r->m[i]);
    free(info);
    free(plans);
    free(ta);
    free(sendp);
    free(host);
    free(fhost);
    free(tilebuf);
    free(cur);
    free(nxt);
    return st;
}

gp_status_t gp_group_reduce(gp_group_t *g, gp_reduce_op_t op, gp_dtype_t dtype, gp_dtype_t acc, const size_t *counts,
                            const void *const *shards, gp_reduce_result_t *result_host)
{
    static const char fn[] = "gp_group_reduce";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_ARG_NONNULL(fn, result_host);
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, shards, "shards"));
    /* the group keeps the last call's reducer: its device buffers serve the next call of the same kind */
    gp_group_reducer_t *r = g->cached;
    int wide = 0;
    uint64_t dummy = 0;
    GP_TRY_RET(gp__reduce_check(fn, g->ctx[0], op, dtype, 0, NULL, &dummy));
    GP_TRY_RET(gp__reduce_acc_check(fn, op, dtype, acc, &wide));
    if (!r || r->op != op || r->dtype != dtype || r->wide != wide) {
        gp_group_reducer_destroy(r);
        g->cached = NULL;
        GP_TRY_RET(gp_group_reducer_create(g, op, dtype, acc, &r));
        g->cached = r;
    }
    gp_status_t st = GP_OK;
    /* where each member's shard starts: the counts of the ranks before it */
    uint64_t *all = calloc((size_t)g->size + (size_t)g->nlocal, sizeof *all), *mine = all + g->size;
    if (!all) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, g->size);
        goto fail;
    }
    for (int i = 0; i < g->nlocal; i++) mine[i] = counts[i];
    GP_TRY(gp__group_allgather_host(g, mine, all, sizeof *all));
    size_t first = 0;
    for (int k = 0; k < g->rank0; k++) first += all[k];
    for (int i = 0; i < g->nlocal; i++) {
        GP_TRY(gp_group_reducer_push(r, i, first, counts[i], shards[i], NULL));
        first += counts[i];
    }
    st = gp_group_reducer_finish(r, result_host);
fail:
    free(all);
    if (st != GP_OK) { /* a refused push leaves pieces behind: start the next call afresh */
        g->cached = NULL;
        gp_group_reducer_destroy(r);
    }
    return st;
}
