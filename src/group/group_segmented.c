/*
 * group_segmented.c — the sharded segmented reduction: gp_reduce_segmented over the whole array split across the
 * ranks, with one GPU's bits for every segment. A segment's tree depends only on its length (docs/design/reduce.md): up to
 * GP__SEG_CHUNK elements one warp or one block; longer, chunks of GP__SEG_CHUNK from its start, each by the block
 * path, their values folded lane-strided and by the block tree. So:
 *   - a segment inside one shard is reduced there, by gp_reduce_segmented itself (offsets shifted to the shard, the
 *     segments that cross its edges made empty so no element is reduced twice);
 *   - a segment that crosses a shard edge (at most ranks - 1 of them: offsets are nondecreasing) of up to
 *     GP__SEG_CHUNK elements is shipped to the host whole and reduced by the CPU backend (the GPU's bits);
 *   - a longer one: each rank reduces the full chunks inside its shard (appended to the same call as segments of
 *     GP__SEG_CHUNK: the block path, the chunk's bits), the chunks cut by a shard edge and a partial last chunk are
 *     shipped and reduced on the host, and the host folds the chunk values in order.
 * Each rank's values and shipped elements form one blob in its memory; local groups read the blobs, ranks in other
 * processes all-gather them. The host bookkeeping is the same on every rank (the counts are gathered first).
 */
#include "group_internal.h"
#include "../reduce/reduce_internal.h"

#include <stdlib.h>
#include <string.h>

#define CH ((size_t)GP__SEG_CHUNK)

typedef struct {
    size_t F, C;          /* the shard: elements [F, F + C) of the whole array */
    size_t lo, hi;        /* the segments inside it: [lo, hi) (monotone offsets: a range), values 0 .. hi - lo */
    long long sr, sl;     /* the segments crossing its right / left edge, -1 if none (the same one if it spans) */
    size_t k0[2], k1[2];  /* run j: chunks [k0, k1) of segment sr (j = 0) / sl (j = 1), full and inside the shard */
    size_t base[2];       /* the value index of run j's first chunk */
    size_t nvals;         /* values written by the rank's call (0: no call) */
    size_t pieces;        /* elements shipped */
} rk_t;

typedef struct {
    size_t p, q; /* elements [p, q) of the whole array, assembled on the host */
    size_t s, k; /* segment, chunk (k = SIZE_MAX: the whole segment) */
} item_t;

/* the rank holding element pos (pos < total): the last rank starting at or before it */
static int rank_of(const rk_t *rk, int P, size_t pos)
{
    int lo = 0, hi = P - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (rk[mid].F <= pos) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* offsets[s] clamped to [0, N] */
static inline size_t oc(const int64_t *off, size_t s, size_t N)
{
    const int64_t v = off[s];
    return v < 0 ? 0 : (uint64_t)v > N ? N : (size_t)v;
}

/* the first s in [0, m] with oc(s) >= v (m + 1 if none): offsets are nondecreasing */
static size_t first_at_least(const int64_t *off, size_t m, size_t N, size_t v)
{
    size_t lo = 0, hi = m + 1;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (oc(off, mid, N) >= v) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* the full chunks of segment [a, b) inside [F, F + C): [k0, k1) */
static void run_of(size_t a, size_t b, size_t F, size_t C, size_t *k0, size_t *k1)
{
    const size_t lim = F + C < b ? F + C : b;
    *k0 = a >= F ? 0 : (F - a + CH - 1) / CH;
    *k1 = lim > a ? (lim - a) / CH : 0;
    if (*k1 < *k0) *k1 = *k0;
}

gp_status_t gp_group_reduce_segmented(gp_group_t *g, gp_reduce_op_t op, gp_dtype_t dtype, const size_t *counts,
                                      const void *const *shards, size_t nseg, const int64_t *offsets, void *out_host)
{
    static const char fn[] = "gp_group_reduce_segmented";
    GP_TRY_RET(gp__group_check(fn, g));
    GP_TRY_RET(gp__group_check_shards(fn, g, dtype, counts, shards, "shards"));
    for (int i = 0; i < g->nlocal; i++) {
        uint64_t dummy = 0;
        GP_TRY_RET(gp__reduce_check(fn, g->ctx[i], op, dtype, counts[i], shards[i], &dummy));
    }
    if (op == GP_REDUCE_MINMAX || op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s is not supported segmented (sum prod min max and or xor "
                                             "count_nonzero are)", fn, gp_reduce_op_name(op));
    if (nseg > (size_t)INT64_MAX / 16) return gp__error(GP_ERR_OVERFLOW, "%s: nseg %zu", fn, nseg);
    if (nseg && !offsets) return gp__error(GP_ERR_INVALID_ARG, "%s: offsets is NULL with nseg = %zu", fn, nseg);
    if (nseg && !out_host) return gp__error(GP_ERR_INVALID_ARG, "%s: out_host is NULL with nseg = %zu", fn, nseg);
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] < offsets[s])
            return gp__error(GP_ERR_INVALID_ARG, "%s: offsets[%zu] = %lld is below offsets[%zu] = %lld (the sharded "
                                                 "reduction takes nondecreasing offsets)", fn, s + 1,
                             (long long)offsets[s + 1], s, (long long)offsets[s]);
    const int P = g->size, L = g->nlocal;
    const size_t es = gp_dtype_size(dtype), vb = gp_dtype_size(gp_reduce_acc_dtype(op, dtype));
    gp_status_t st = GP_OK;
    rk_t *rk = calloc((size_t)P, sizeof *rk);
    size_t *all = calloc((size_t)P, sizeof *all), *cross = NULL, ncross = 0, *cursor = NULL;
    item_t *items = NULL;
    size_t nitems = 0, capitems = 0;
    unsigned char *host = NULL, *tmp = NULL, *vals = NULL;
    int64_t **offs = NULL; /* each member's offsets (in the group's host scratch), read by its call */
    void **blob = calloc(2 * (size_t)L, sizeof *blob);
    offs = calloc((size_t)L, sizeof *offs);
    if (!rk || !all || !blob || !offs) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu segments over %d ranks", fn, nseg, P);
        goto fail;
    }
    GP_TRY(gp__group_allgather_host(g, counts, all, sizeof *all));
    size_t N = 0;
    for (int r = 0; r < P; r++) {
        rk[r].F = N;
        rk[r].C = all[r];
        rk[r].sr = rk[r].sl = -1;
        if (N + all[r] < N) {
            st = gp__error(GP_ERR_OVERFLOW, "%s: the shards hold more than SIZE_MAX elements", fn);
            goto fail;
        }
        N += all[r];
    }
#define O(s) oc(offsets, (s), N)
    /* the segments inside each shard (a range of indices), and those crossing a shard edge (at most P - 1) */
    cross = malloc((size_t)P * sizeof *cross);
    if (!cross) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %d ranks", fn, P);
        goto fail;
    }
    for (int r = 0; r < P && nseg; r++) {
        rk_t *k = &rk[r];
        k->lo = first_at_least(offsets, nseg, N, k->F);               /* starts at or after F */
        k->hi = first_at_least(offsets, nseg, N, k->F + k->C + 1);    /* ... ends at or before F + C: s + 1 < it */
        k->hi = k->hi ? k->hi - 1 : 0;
        if (k->hi < k->lo) k->hi = k->lo;
        if (r == 0 || !k->C) continue;
        const size_t e = first_at_least(offsets, nseg, N, k->F); /* the segment over edge F: s = e - 1, if any */
        if (e == 0 || e > nseg) continue;
        const size_t sc = e - 1;
        if (O(sc) < k->F && O(sc + 1) > k->F && (ncross == 0 || cross[ncross - 1] != sc)) cross[ncross++] = sc;
    }
    for (size_t c = 0; c < ncross; c++) {
        const size_t s = cross[c], a = O(s), b = O(s + 1);
        const int ra = rank_of(rk, P, a), rb = rank_of(rk, P, b - 1);
        for (int r = ra; r <= rb; r++) {
            if (!rk[r].C) continue;
            if (r > ra) rk[r].sl = (long long)s;
            if (r < rb) rk[r].sr = (long long)s;
        }
        /* the items: the whole segment, or its chunks cut by an edge and a partial last chunk, in chunk order */
        const size_t nch = (b - a + CH - 1) / CH;
        for (size_t k = 0; k < nch; k++) {
            const size_t p = a + k * CH, q = p + CH < b ? p + CH : b;
            int cut = b - a <= CH || q - p < CH || rank_of(rk, P, p) != rank_of(rk, P, q - 1);
            if (!cut) { /* skip the chunks inside one shard quickly: jump to the chunk holding the next edge */
                const int r = rank_of(rk, P, p);
                const size_t end = rk[r].F + rk[r].C < b ? rk[r].F + rk[r].C : b; /* this shard's part ends here */
                const size_t kn = (end - a) / CH;                                    /* the chunk holding `end` */
                if (kn > k + 1) k = kn - 1;
                continue;
            }
            if (nitems == capitems) {
                capitems = capitems ? 2 * capitems : 16;
                item_t *ni = realloc(items, capitems * sizeof *items);
                if (!ni) {
                    st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the items", fn);
                    goto fail;
                }
                items = ni;
            }
            items[nitems++] = (item_t){p, q, s, b - a <= CH ? SIZE_MAX : k};
            if (b - a <= CH) break;
        }
    }
    /* each rank's call: its values (the segments, a junk segment, each run's chunks) and its shipped elements */
    size_t maxblob = 16;
    for (int r = 0; r < P; r++) {
        rk_t *k = &rk[r];
        if (!k->C) continue;
        size_t E = k->hi > k->lo ? k->hi - k->lo + 1 : 0; /* CSR values: its own segments, then the runs */
        for (int j = 0; j < 2; j++) {
            const long long s = j == 0 ? k->sr : (k->sl == k->sr ? -1 : k->sl);
            k->k0[j] = k->k1[j] = 0;
            if (s < 0 || O(s + 1) - O(s) <= CH) continue;
            run_of(O(s), O(s + 1), k->F, k->C, &k->k0[j], &k->k1[j]);
            if (k->k1[j] == k->k0[j]) continue;
            k->base[j] = E; /* after a junk segment between the runs (empty: see the offsets below) */
            E += k->k1[j] - k->k0[j] + 1;
        }
        k->nvals = E ? E - 1 : 0;
        for (size_t t = 0; t < nitems; t++) {
            const size_t lo = items[t].p > k->F ? items[t].p : k->F;
            const size_t hi = items[t].q < k->F + k->C ? items[t].q : k->F + k->C;
            if (hi > lo) k->pieces += hi - lo;
        }
        const size_t bytes = (k->nvals * vb + 15) / 16 * 16 + k->pieces * es;
        if (bytes > maxblob) maxblob = (bytes + 15) / 16 * 16;
    }
    /* host scratch slot 1: the blobs (P * maxblob), then each member's offsets (page-locked on a GPU: the copies
     * run at full speed, asynchronously) */
    size_t hbytes, obytes = 0;
    for (int i = 0; i < L; i++) obytes += rk[g->rank0 + i].C ? (rk[g->rank0 + i].nvals + 1) * sizeof(int64_t) : 0;
    if (!gp__mul_ok((size_t)P, maxblob, &hbytes) || hbytes + obytes < hbytes) {
        st = gp__error(GP_ERR_OVERFLOW, "%s: %d blobs of %zu bytes", fn, P, maxblob);
        goto fail;
    }
    {
        void *p = NULL;
        GP_TRY(gp__group_host_scratch(g, 1, hbytes + obytes, &p));
        host = p;
        size_t at = hbytes;
        for (int i = 0; i < L; i++)
            if (rk[g->rank0 + i].C) {
                offs[i] = (int64_t *)(host + at);
                at += (rk[g->rank0 + i].nvals + 1) * sizeof(int64_t);
            }
    }
    /* the members' calls and blobs */
    for (int i = 0; i < L; i++) {
        const rk_t *k = &rk[g->rank0 + i];
        GP_TRY(gp__group_scratch(g, i, 0, maxblob, &blob[i]));
        if (!k->C) continue;
        const size_t E = k->nvals + 1;
        int64_t *off = offs[i];
        /* its segments shifted to the shard, then the runs: the right edge's segment's chunks (from its start, which
         * is where the shard's own segments end), then the left edge's (below that): the junk segments between the
         * parts are empty or decreasing, so no element is reduced twice */
        if (k->hi > k->lo)
            for (size_t s = k->lo; s <= k->hi; s++) off[s - k->lo] = (int64_t)(O(s) - k->F);
        for (int j = 0; j < 2; j++) {
            const long long s = j == 0 ? k->sr : k->sl;
            for (size_t c = k->k0[j]; k->k1[j] > k->k0[j] && c <= k->k1[j]; c++)
                off[k->base[j] + (c - k->k0[j])] = (int64_t)(O(s) + c * CH - k->F);
        }
        void *doff = NULL;
        const size_t vo = (k->nvals * vb + 15) / 16 * 16;
        if (g->gpu) GP_TRY(gp__ctx_enter(g->ctx[i], fn));
        if (k->nvals) {
            if (g->gpu) {
                GP_TRY(gp__group_scratch(g, i, 1, E * sizeof *off, &doff));
                GP_CUDA_TRY(cudaMemcpyAsync(doff, off, E * sizeof *off, cudaMemcpyHostToDevice, g->stream[i]));
            } else {
                doff = off;
            }
            GP_TRY(gp_reduce_segmented(g->ctx[i], op, dtype, k->C, shards[i], k->nvals, doff, blob[i],
                                       (gp_stream_t)g->stream[i]));
        }
        size_t at = vo;
        for (size_t t = 0; t < nitems; t++) {
            const size_t lo = items[t].p > k->F ? items[t].p : k->F;
            const size_t hi = items[t].q < k->F + k->C ? items[t].q : k->F + k->C;
            if (hi <= lo) continue;
            const char *src = (const char *)shards[i] + (lo - k->F) * es;
            if (g->gpu)
                GP_CUDA_TRY(cudaMemcpyAsync((char *)blob[i] + at, src, (hi - lo) * es, cudaMemcpyDeviceToDevice,
                                            g->stream[i]));
            else
                memcpy((char *)blob[i] + at, src, (hi - lo) * es);
            at += (hi - lo) * es;
        }
    }
    if (L == P) {
        for (int i = 0; i < L; i++)
            if (rk[i].C) GP_TRY(gp__group_to_host(g, i, host + (size_t)i * maxblob, blob[i], maxblob));
    } else {
        for (int i = 0; i < L; i++) GP_TRY(gp__group_scratch(g, i, 1, hbytes, &blob[L + i]));
        GP_TRY(gp__group_allgather(g, (const void *const *)blob, blob + L, maxblob));
        GP_TRY(gp__group_to_host(g, 0, host, blob[L], hbytes));
    }
    /* the host: every segment's value */
    cursor = calloc((size_t)P, sizeof *cursor);
    tmp = malloc(CH * es);
    vals = malloc(((N + CH - 1) / CH + 1) * vb);
    if (!cursor || !tmp || !vals) {
        st = gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the host combine", fn);
        goto fail;
    }
    for (int r = 0; r < P; r++) cursor[r] = (rk[r].nvals * vb + 15) / 16 * 16;
    unsigned char idv[8];
    {
        const int64_t zero[2] = {0, 0};
        gp__reduce_cpu_segmented(op, dtype, 0, NULL, 1, (const long long *)zero, idv, 0);
    }
    /* the identity everywhere (a rank of 0 elements has no values), each rank's own segments as a block (empty
     * segments on an edge belong to both ranks: the identity from either), then the crossing ones */
    if (vb == 4)
        for (size_t s = 0; s < nseg; s++) memcpy((unsigned char *)out_host + s * 4, idv, 4);
    else
        for (size_t s = 0; s < nseg; s++) memcpy((unsigned char *)out_host + s * 8, idv, 8);
    for (int r = 0; r < P; r++)
        if (rk[r].C && rk[r].hi > rk[r].lo)
            memcpy((unsigned char *)out_host + rk[r].lo * vb, host + (size_t)r * maxblob, (rk[r].hi - rk[r].lo) * vb);
    size_t it = 0;
    for (size_t c = 0; c < ncross; c++) {
        const size_t s = cross[c];
        unsigned char *dst = (unsigned char *)out_host + s * vb;
        const size_t a = O(s), b = O(s + 1);
        const size_t nch = (b - a + CH - 1) / CH;
        for (size_t k = 0; k < nch; k++) {
            const int whole = b - a <= CH;
            if (it < nitems && items[it].s == s && (whole || items[it].k == k)) { /* assemble from the blobs */
                const item_t *m = &items[it++];
                for (int r = rank_of(rk, P, m->p); r <= rank_of(rk, P, m->q - 1); r++) {
                    const size_t lo = m->p > rk[r].F ? m->p : rk[r].F;
                    const size_t hi = m->q < rk[r].F + rk[r].C ? m->q : rk[r].F + rk[r].C;
                    if (hi <= lo) continue;
                    memcpy(tmp + (lo - m->p) * es, host + (size_t)r * maxblob + cursor[r], (hi - lo) * es);
                    cursor[r] += (hi - lo) * es;
                }
                if (whole) {
                    const int64_t pair[2] = {0, (int64_t)(b - a)};
                    gp__reduce_cpu_segmented(op, dtype, b - a, tmp, 1, (const long long *)pair, dst, 0);
                    break;
                }
                gp__reduce_cpu_seg_chunk(op, dtype, m->q - m->p, tmp, vals + k * vb);
                continue;
            }
            /* a full chunk inside one shard: its rank's run */
            const int r = rank_of(rk, P, a + k * CH);
            const int j = rk[r].sr == (long long)s ? 0 : 1;
            if (rk[r].k1[j] <= k || k < rk[r].k0[j]) { /* cannot happen: the items cover every other chunk */
                st = gp__error(GP_ERR_INTERNAL, "%s: chunk %zu of segment %zu has no value", fn, k, s);
                goto fail;
            }
            memcpy(vals + k * vb, host + (size_t)r * maxblob + (rk[r].base[j] + k - rk[r].k0[j]) * vb, vb);
        }
        if (b - a > CH) gp__reduce_cpu_seg_fold(op, dtype, nch, vals, dst);
    }
#undef O
fail:
    if (st != GP_OK && g->gpu) gp_group_sync(g);
    free(rk);
    if (st == GP_OK && g->gpu) gp_group_sync(g); /* every copy out of the host scratch has been read */
    free(all);
    free(cross);
    free(cursor);
    free(items);
    free(tmp);
    free(vals);
    free(offs);
    free(blob);
    return st;
}
