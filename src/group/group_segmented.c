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
#define NPIECE 4           /* a GPU member's own segments go in up to this many calls, their copies beside them */
#define PIECE_MIN 4096     /* segments, at least, in a piece */
#define NEV (3 * NPIECE + 4) /* events a GPU member's pieces use */


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

/* The first s in [a, b) with offsets[s + 1] < offsets[s] (b if none: not a place to report); par: in parallel */
static size_t first_decrease(const int64_t *offsets, size_t a, size_t b, int par)
{
    long long bad = (long long)b;
#pragma omp parallel for schedule(static) reduction(min : bad) if (par && b - a > 65536)
    for (long long s = (long long)a; s < (long long)b; s++)
        if (offsets[s + 1] < offsets[s] && s < bad) bad = s;
    return (size_t)bad;
}

/* GP_ERR_INVALID_ARG naming the decrease at s */
static gp_status_t order_error(const char *fn, const int64_t *offsets, size_t s)
{
    return gp__error(GP_ERR_INVALID_ARG, "%s: offsets[%zu] = %lld is below offsets[%zu] = %lld (the sharded reduction "
                                         "takes nondecreasing offsets)", fn, s + 1, (long long)offsets[s + 1], s,
                     (long long)offsets[s]);
}

/* The call's plan and state, phase by phase (each a function below, marked with GP__PHASE for bench/tune probes). */
typedef struct seg_plan {
    const char *fn;
    gp_group_t *g;
    gp_reduce_op_t op;
    gp_dtype_t dtype;
    const size_t *counts;
    const void *const *shards;
    size_t nseg;
    const int64_t *offsets;
    void *out_host;
    int P, L;           /* ranks, members here */
    size_t es, vb, N;   /* element and value bytes, the whole array's elements */
    rk_t *rk;           /* per rank */
    size_t *all;        /* every rank's count */
    size_t *cross, ncross; /* the segments crossing a shard edge */
    item_t *items;      /* the pieces assembled on the host, in segment and chunk order */
    size_t nitems, capitems;
    size_t bad;         /* the first decrease of offsets found (nseg: none) */
    unsigned char *host; /* host scratch: P blobs of maxblob bytes, then each member's offsets */
    size_t hbytes, maxblob;
    int64_t **offs;     /* each member's offsets (in the host scratch), read by its call */
    void **blob;        /* each member's blob in its memory; [L, 2L): the gathered blobs (other processes) */
    cudaEvent_t *evs;   /* NEV a GPU member */
    int64_t **doff;     /* each GPU member's offsets in its memory */
    int *nev, *npiece;
    size_t *cursor;     /* the host combine: each rank's next shipped element */
    unsigned char *tmp, *vals;
} seg_plan_t;

#define O(s) oc(offsets, (s), N) /* in a phase with locals offsets and N */

static gp_status_t plan_open(seg_plan_t *pl)
{
    const size_t P = (size_t)pl->g->size, L = (size_t)pl->g->nlocal;
    pl->P = (int)P, pl->L = (int)L;
    pl->es = gp_dtype_size(pl->dtype), pl->vb = gp_dtype_size(gp_reduce_acc_dtype(pl->op, pl->dtype));
    pl->bad = pl->nseg;
    pl->rk = calloc(P, sizeof *pl->rk);
    pl->all = calloc(P, sizeof *pl->all);
    pl->blob = calloc(2 * L, sizeof *pl->blob);
    pl->offs = calloc(L, sizeof *pl->offs);
    pl->evs = calloc(L * NEV, sizeof *pl->evs);
    pl->doff = calloc(L, sizeof *pl->doff);
    pl->nev = calloc(L, sizeof *pl->nev), pl->npiece = calloc(L, sizeof *pl->npiece);
    pl->cross = malloc(P * sizeof *pl->cross);
    if (!pl->rk || !pl->all || !pl->blob || !pl->offs || !pl->evs || !pl->doff || !pl->nev || !pl->npiece || !pl->cross)
        return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: %zu segments over %zu ranks", pl->fn, pl->nseg, P);
    return GP_OK;
}

/* every rank's shard: [F, F + C) of the whole array */
static gp_status_t plan_shards(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    rk_t *rk = pl->rk;
    GP_TRY(gp__group_allgather_host(pl->g, pl->counts, pl->all, sizeof *pl->all));
    size_t N = 0;
    for (int r = 0; r < pl->P; r++) {
        rk[r].F = N;
        rk[r].C = pl->all[r];
        rk[r].sr = rk[r].sl = -1;
        if (N + pl->all[r] < N) return gp__error(GP_ERR_OVERFLOW, "%s: the shards hold more than SIZE_MAX elements",
                                                 pl->fn);
        N += pl->all[r];
    }
    pl->N = N;
fail:
    return st;
}

/* the segments inside each shard (a range of indices), those crossing a shard edge (at most P - 1), and the items:
 * what of the crossing segments is assembled on the host */
static gp_status_t plan_segments(seg_plan_t *pl)
{
    const int P = pl->P;
    const size_t nseg = pl->nseg, N = pl->N;
    const int64_t *offsets = pl->offsets;
    rk_t *rk = pl->rk;
    size_t *cross = pl->cross;
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
        if (O(sc) < k->F && O(sc + 1) > k->F && (pl->ncross == 0 || cross[pl->ncross - 1] != sc))
            cross[pl->ncross++] = sc;
    }
    for (size_t c = 0; c < pl->ncross; c++) {
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
            if (pl->nitems == pl->capitems) {
                pl->capitems = pl->capitems ? 2 * pl->capitems : 16;
                item_t *ni = realloc(pl->items, pl->capitems * sizeof *pl->items);
                if (!ni) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the items", pl->fn);
                pl->items = ni;
            }
            pl->items[pl->nitems++] = (item_t){p, q, s, b - a <= CH ? SIZE_MAX : k};
            if (b - a <= CH) break;
        }
    }
    return GP_OK;
}

/* each rank's call: its values (the segments, a junk segment, each run's chunks) and its shipped elements, one blob;
 * the host scratch for the blobs and the members' offsets */
static gp_status_t plan_blobs(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    gp_group_t *g = pl->g;
    const int P = pl->P, L = pl->L;
    const size_t N = pl->N, es = pl->es, vb = pl->vb;
    const int64_t *offsets = pl->offsets;
    rk_t *rk = pl->rk;
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
        for (size_t t = 0; t < pl->nitems; t++) {
            const size_t lo = pl->items[t].p > k->F ? pl->items[t].p : k->F;
            const size_t hi = pl->items[t].q < k->F + k->C ? pl->items[t].q : k->F + k->C;
            if (hi > lo) k->pieces += hi - lo;
        }
        const size_t bytes = (k->nvals * vb + 15) / 16 * 16 + k->pieces * es;
        if (bytes > maxblob) maxblob = (bytes + 15) / 16 * 16;
    }
    pl->maxblob = maxblob;
    /* host scratch slot 1: the blobs (P * maxblob), then each member's offsets (page-locked on a GPU: the copies
     * run at full speed, asynchronously) */
    size_t hbytes, obytes = 0;
    for (int i = 0; i < L; i++) obytes += rk[g->rank0 + i].C ? (rk[g->rank0 + i].nvals + 1) * sizeof(int64_t) : 0;
    if (!gp__mul_ok((size_t)P, maxblob, &hbytes) || hbytes + obytes < hbytes)
        return gp__error(GP_ERR_OVERFLOW, "%s: %d blobs of %zu bytes", pl->fn, P, maxblob);
    pl->hbytes = hbytes;
    void *p = NULL;
    GP_TRY(gp__group_host_scratch(g, 1, hbytes + obytes, &p));
    pl->host = p;
    size_t at = hbytes;
    for (int i = 0; i < L; i++)
        if (rk[g->rank0 + i].C) {
            pl->offs[i] = (int64_t *)(pl->host + at);
            at += (rk[g->rank0 + i].nvals + 1) * sizeof(int64_t);
        }
fail:
    return st;
}

/* each member's CSR (offs[i]): its segments shifted to the shard, then the runs: the right edge's segment's chunks
 * (from its start, which is where the shard's own segments end), then the left edge's (below that): the junk segments
 * between the parts are empty or decreasing, so no element is reduced twice. The runs' entries now; the own segments'
 * as each piece goes (a GPU member's first piece starts at once). A CPU member's call is made here; a GPU member gets
 * its events, its offsets' device copy and its piece count, its copy stream ordered after its earlier work. */
static gp_status_t stage_members(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    gp_group_t *g = pl->g;
    const int L = pl->L;
    const size_t N = pl->N;
    const int64_t *offsets = pl->offsets;
    const rk_t *rk = pl->rk;
    int64_t **offs = pl->offs;
    for (int i = 0; i < L; i++) {
        const rk_t *k = &rk[g->rank0 + i];
        if (!k->C) continue;
        for (int j = 0; j < 2; j++) {
            const long long sj = j == 0 ? k->sr : k->sl;
            for (size_t c = k->k0[j]; k->k1[j] > k->k0[j] && c <= k->k1[j]; c++)
                offs[i][k->base[j] + (c - k->k0[j])] = (int64_t)(O(sj) + c * CH - k->F);
        }
        if (!g->gpu && k->hi > k->lo)
            for (size_t q = k->lo; q <= k->hi; q++) offs[i][q - k->lo] = (int64_t)(O(q) - k->F);
    }
    for (int i = 0; i < L; i++) {
        const rk_t *k = &rk[g->rank0 + i];
        GP_TRY(gp__group_scratch(g, i, 0, pl->maxblob, &pl->blob[i]));
        if (!k->C) continue;
        const size_t own = k->hi > k->lo ? k->hi - k->lo : 0;
        if (!g->gpu) {
            if (k->nvals)
                GP_TRY(gp_reduce_segmented(g->ctx[i], pl->op, pl->dtype, k->C, pl->shards[i], k->nvals, offs[i],
                                           pl->blob[i], NULL));
            continue;
        }
        GP_TRY(gp__ctx_enter(g->ctx[i], pl->fn));
        cudaEvent_t *ev = pl->evs + (size_t)i * NEV;
        pl->nev[i] = NEV;
        for (int e = 0; e < NEV; e++) GP_CUDA_TRY(cudaEventCreateWithFlags(&ev[e], cudaEventDisableTiming));
        void *dp = NULL;
        GP_TRY(gp__group_scratch(g, i, 1, (k->nvals + 1) * sizeof(int64_t), &dp));
        pl->doff[i] = dp;
        pl->npiece[i] = own ? (int)((own + PIECE_MIN - 1) / PIECE_MIN < NPIECE ? (own + PIECE_MIN - 1) / PIECE_MIN
                                                                                : NPIECE)
                            : 0;
        GP_CUDA_TRY(cudaEventRecord(ev[0], g->stream[i])); /* the copy stream starts after the member's earlier work */
        GP_CUDA_TRY(cudaStreamWaitEvent(g->cstream[i], ev[0], 0));
    }
fail:
    return st;
}

/* A GPU member's own segments in up to NPIECE pieces, round-robin over the members, each piece's offsets staged and
 * copied in on the member's copy stream and (every rank here) its values copied out there as soon as its kernel is
 * done, so the copies and the host's staging run beside the kernels; then one call for the runs. */
static gp_status_t launch_pieces(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    gp_group_t *g = pl->g;
    const int P = pl->P, L = pl->L;
    const size_t N = pl->N, vb = pl->vb;
    const int64_t *offsets = pl->offsets;
    for (int c = 0; g->gpu && c <= NPIECE; c++) {
        for (int i = 0; i < L; i++) {
            const int r = g->rank0 + i, np = pl->npiece[i];
            const rk_t *k = &pl->rk[r];
            const size_t own = k->hi > k->lo ? k->hi - k->lo : 0;
            if (!k->C || c > np || (c == np && k->nvals <= own)) continue; /* piece np: the runs, entries [own, E) */
            const size_t s0 = c < np ? own * (size_t)c / (size_t)np : own;
            const size_t s1 = c < np ? own * (size_t)(c + 1) / (size_t)np : k->nvals;
            int64_t *off = pl->offs[i], *dof = pl->doff[i];
            cudaStream_t ks = g->stream[i], cs = g->cstream[i];
            cudaEvent_t *ev = pl->evs + (size_t)i * NEV;
            GP_TRY(gp__ctx_enter(g->ctx[i], pl->fn));
            const size_t from = c ? s0 + 1 : 0; /* entry s0 went with the piece before */
            if (c < np)
                for (size_t q = from; q <= s1; q++) {
                    off[q] = (int64_t)(O(k->lo + q) - k->F);
                    if (q && offsets[k->lo + q] < offsets[k->lo + q - 1] && k->lo + q - 1 < pl->bad)
                        pl->bad = k->lo + q - 1;
                }
            GP_CUDA_TRY(cudaMemcpyAsync(dof + from, off + from, (s1 + 1 - from) * sizeof *off, cudaMemcpyHostToDevice,
                                        cs));
            GP_CUDA_TRY(cudaEventRecord(ev[1 + c], cs));
            GP_CUDA_TRY(cudaStreamWaitEvent(ks, ev[1 + c], 0));
            GP_TRY(gp_reduce_segmented(g->ctx[i], pl->op, pl->dtype, k->C, pl->shards[i], s1 - s0, dof + s0,
                                       (char *)pl->blob[i] + s0 * vb, (gp_stream_t)ks));
            if (L == P && c < np) { /* the piece's values to the host blob, beside the next piece's kernel */
                GP_CUDA_TRY(cudaEventRecord(ev[NPIECE + 2 + c], ks));
                GP_CUDA_TRY(cudaStreamWaitEvent(cs, ev[NPIECE + 2 + c], 0));
                GP_CUDA_TRY(cudaMemcpyAsync(pl->host + (size_t)r * pl->maxblob + s0 * vb, (char *)pl->blob[i] + s0 * vb,
                                            (s1 - s0) * vb, cudaMemcpyDeviceToHost, cs));
                GP_CUDA_TRY(cudaEventRecord(ev[2 * NPIECE + 3 + c], cs));
            }
        }
    }
fail:
    return st;
}

/* the elements shipped to the host into each member's blob, and (every rank here) the runs' values and those
 * elements read back */
static gp_status_t ship_elements(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    gp_group_t *g = pl->g;
    const int P = pl->P, L = pl->L;
    const size_t es = pl->es, vb = pl->vb;
    for (int i = 0; i < L; i++) {
        const int r = g->rank0 + i;
        const rk_t *k = &pl->rk[r];
        if (!k->C) continue;
        const size_t own = k->hi > k->lo ? k->hi - k->lo : 0, vo = (k->nvals * vb + 15) / 16 * 16;
        if (g->gpu) GP_TRY(gp__ctx_enter(g->ctx[i], pl->fn));
        size_t at = vo;
        for (size_t t = 0; t < pl->nitems; t++) {
            const size_t lo = pl->items[t].p > k->F ? pl->items[t].p : k->F;
            const size_t hi = pl->items[t].q < k->F + k->C ? pl->items[t].q : k->F + k->C;
            if (hi <= lo) continue;
            const char *src = (const char *)pl->shards[i] + (lo - k->F) * es;
            if (g->gpu)
                GP_CUDA_TRY(cudaMemcpyAsync((char *)pl->blob[i] + at, src, (hi - lo) * es, cudaMemcpyDeviceToDevice,
                                            g->stream[i]));
            else
                memcpy((char *)pl->blob[i] + at, src, (hi - lo) * es);
            at += (hi - lo) * es;
        }
        if (!g->gpu) continue;
        if (L == P && at > own * vb)
            GP_CUDA_TRY(cudaMemcpyAsync(pl->host + (size_t)r * pl->maxblob + own * vb, (char *)pl->blob[i] + own * vb,
                                        at - own * vb, cudaMemcpyDeviceToHost, g->stream[i]));
        cudaEvent_t *ev = pl->evs + (size_t)i * NEV; /* the copy stream's work joined into the member's stream */
        GP_CUDA_TRY(cudaEventRecord(ev[NEV - 1], g->cstream[i]));
        GP_CUDA_TRY(cudaStreamWaitEvent(g->stream[i], ev[NEV - 1], 0));
    }
fail:
    return st;
}

/* A GPU group: the order of the offsets the staging did not read, while the kernels run. */
static gp_status_t check_order(seg_plan_t *pl)
{
    gp_group_t *g = pl->g;
    const int L = pl->L;
    if (!g->gpu) return GP_OK;
    size_t at = 0;
    for (int i = 0; i <= L; i++) { /* invariant: every pair below at is checked */
        const rk_t *k = i < L ? &pl->rk[g->rank0 + i] : NULL;
        const int staged = k && k->C && pl->npiece[i] && k->hi > k->lo; /* its pairs [lo, hi) were */
        if (i < L && !staged) continue;
        const size_t end = i < L ? k->lo : pl->nseg;
        if (end > at) {
            const size_t f = first_decrease(pl->offsets, at, end, 0);
            if (f < end && f < pl->bad) pl->bad = f;
        }
        if (i < L && k->hi > at) at = k->hi;
    }
    return pl->bad < pl->nseg ? order_error(pl->fn, pl->offsets, pl->bad) : GP_OK;
}

/* every rank's blob in the host scratch: copied from the members' memory (a CPU group; a GPU group's copies are
 * already under way), or all-gathered from the other processes */
static gp_status_t gather_blobs(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    gp_group_t *g = pl->g;
    const int P = pl->P, L = pl->L;
    if (L == P && !g->gpu) {
        for (int i = 0; i < L; i++)
            if (pl->rk[i].C) memcpy(pl->host + (size_t)i * pl->maxblob, pl->blob[i], pl->maxblob);
    } else if (L != P) {
        for (int i = 0; i < L; i++) GP_TRY(gp__group_scratch(g, i, 1, pl->hbytes, &pl->blob[L + i]));
        GP_TRY(gp__group_allgather(g, (const void *const *)pl->blob, pl->blob + L, pl->maxblob));
        GP_TRY(gp__group_to_host(g, 0, pl->host, pl->blob[L], pl->hbytes));
    }
fail:
    return st;
}

/* the identity where no rank's own segments are (a rank of 0 elements has none; the crossing segments are written
 * later), each rank's own segments as a block (empty segments on an edge belong to both ranks: the identity from
 * either) — a GPU rank's piece by piece as its copies land */
static gp_status_t combine_own(seg_plan_t *pl)
{
    gp_status_t st = GP_OK;
    gp_group_t *g = pl->g;
    const int P = pl->P, L = pl->L;
    const size_t nseg = pl->nseg, vb = pl->vb;
    const rk_t *rk = pl->rk;
    unsigned char *out = pl->out_host;
    unsigned char idv[8];
    {
        const int64_t zero[2] = {0, 0};
        gp__reduce_cpu_segmented(pl->op, pl->dtype, 0, NULL, 1, (const long long *)zero, idv, 0);
    }
    size_t cur = 0;
    for (int r = 0; r < P; r++) {
        if (!rk[r].C || rk[r].hi <= rk[r].lo) continue;
        for (size_t s = cur; s < rk[r].lo; s++) memcpy(out + s * vb, idv, vb);
        if (rk[r].hi > cur) cur = rk[r].hi;
    }
    for (size_t s = cur; s < nseg; s++) memcpy(out + s * vb, idv, vb);
    for (int r = 0; r < P; r++) {
        if (!rk[r].C || rk[r].hi <= rk[r].lo) continue;
        const size_t own = rk[r].hi - rk[r].lo;
        const int i = r - g->rank0, np = L == P && g->gpu ? pl->npiece[i] : 0;
        for (int c = 0; c < np; c++) {
            const size_t s0 = own * (size_t)c / (size_t)np, s1 = own * (size_t)(c + 1) / (size_t)np;
            GP_CUDA_TRY(cudaEventSynchronize(pl->evs[(size_t)i * NEV + 2 * NPIECE + 3 + c]));
            memcpy(out + (rk[r].lo + s0) * vb, pl->host + (size_t)r * pl->maxblob + s0 * vb, (s1 - s0) * vb);
        }
        if (!np) memcpy(out + rk[r].lo * vb, pl->host + (size_t)r * pl->maxblob, own * vb);
    }
fail:
    return st;
}

/* the crossing segments: assembled from the blobs (whole, or chunk by chunk with the runs' chunk values), folded in
 * chunk order on the host */
static gp_status_t combine_crossing(seg_plan_t *pl)
{
    const int P = pl->P;
    const size_t N = pl->N, es = pl->es, vb = pl->vb;
    const int64_t *offsets = pl->offsets;
    const rk_t *rk = pl->rk;
    pl->cursor = calloc((size_t)P, sizeof *pl->cursor);
    pl->tmp = malloc(CH * es);
    pl->vals = malloc(((N + CH - 1) / CH + 1) * vb);
    if (!pl->cursor || !pl->tmp || !pl->vals) return gp__error(GP_ERR_OUT_OF_MEMORY, "%s: the host combine", pl->fn);
    size_t *cursor = pl->cursor;
    unsigned char *tmp = pl->tmp, *vals = pl->vals, *host = pl->host;
    const size_t maxblob = pl->maxblob;
    for (int r = 0; r < P; r++) cursor[r] = (rk[r].nvals * vb + 15) / 16 * 16;
    size_t it = 0;
    for (size_t c = 0; c < pl->ncross; c++) {
        const size_t s = pl->cross[c];
        unsigned char *dst = (unsigned char *)pl->out_host + s * vb;
        const size_t a = O(s), b = O(s + 1);
        const size_t nch = (b - a + CH - 1) / CH;
        for (size_t k = 0; k < nch; k++) {
            const int whole = b - a <= CH;
            if (it < pl->nitems && pl->items[it].s == s && (whole || pl->items[it].k == k)) { /* from the blobs */
                const item_t *m = &pl->items[it++];
                for (int r = rank_of(rk, P, m->p); r <= rank_of(rk, P, m->q - 1); r++) {
                    const size_t lo = m->p > rk[r].F ? m->p : rk[r].F;
                    const size_t hi = m->q < rk[r].F + rk[r].C ? m->q : rk[r].F + rk[r].C;
                    if (hi <= lo) continue;
                    memcpy(tmp + (lo - m->p) * es, host + (size_t)r * maxblob + cursor[r], (hi - lo) * es);
                    cursor[r] += (hi - lo) * es;
                }
                if (whole) {
                    const int64_t pair[2] = {0, (int64_t)(b - a)};
                    gp__reduce_cpu_segmented(pl->op, pl->dtype, b - a, tmp, 1, (const long long *)pair, dst, 0);
                    break;
                }
                gp__reduce_cpu_seg_chunk(pl->op, pl->dtype, m->q - m->p, tmp, vals + k * vb);
                continue;
            }
            /* a full chunk inside one shard: its rank's run */
            const int r = rank_of(rk, P, a + k * CH);
            const int j = rk[r].sr == (long long)s ? 0 : 1;
            if (rk[r].k1[j] <= k || k < rk[r].k0[j]) /* cannot happen: the items cover every other chunk */
                return gp__error(GP_ERR_INTERNAL, "%s: chunk %zu of segment %zu has no value", pl->fn, k, s);
            memcpy(vals + k * vb, host + (size_t)r * maxblob + (rk[r].base[j] + k - rk[r].k0[j]) * vb, vb);
        }
        if (b - a > CH) gp__reduce_cpu_seg_fold(pl->op, pl->dtype, nch, vals, dst);
    }
    return GP_OK;
}
#undef O

/* Every copy into or out of the host scratch done (the copy streams too, after an error), the events and the plan
 * released; the call's status (a failed final sync if the call had none). */
static gp_status_t plan_close(seg_plan_t *pl, gp_status_t st)
{
    gp_group_t *g = pl->g;
    if (g->gpu) {
        for (int i = 0; i < pl->L && pl->evs && pl->nev; i++) {
            if (!pl->nev[i]) continue;
            (void)gp__ctx_enter(g->ctx[i], pl->fn);
            if (st != GP_OK) cudaStreamSynchronize(g->cstream[i]);
            for (int e = 0; e < pl->nev[i]; e++)
                if (pl->evs[(size_t)i * NEV + e]) cudaEventDestroy(pl->evs[(size_t)i * NEV + e]);
        }
        const gp_status_t ss = gp_group_sync(g);
        if (st == GP_OK) st = ss;
    }
    free(pl->rk);
    free(pl->evs);
    free(pl->doff);
    free(pl->nev);
    free(pl->npiece);
    free(pl->all);
    free(pl->cross);
    free(pl->cursor);
    free(pl->items);
    free(pl->tmp);
    free(pl->vals);
    free(pl->offs);
    free(pl->blob);
    return st;
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
    /* the offsets' order: checked here on CPU groups (in parallel); a GPU group checks them on this thread, the
     * members' own segments as it stages them and the rest while the kernels run (the plan and the kernels are safe
     * with any offsets, and nothing reaches out_host before the check; waking a thread team for it cost more than
     * the check itself on the device machines: docs/design/group.md) */
    if (!g->gpu) {
        const size_t bad = first_decrease(offsets, 0, nseg, 1);
        if (bad < nseg) return order_error(fn, offsets, bad);
    }
    seg_plan_t pl;
    memset(&pl, 0, sizeof pl);
    pl.fn = fn, pl.g = g, pl.op = op, pl.dtype = dtype, pl.counts = counts, pl.shards = shards, pl.nseg = nseg;
    pl.offsets = offsets, pl.out_host = out_host;
    gp_status_t st = plan_open(&pl);
    if (st == GP_OK) st = plan_shards(&pl);
    GP__PHASE(g, "counts gathered");
    if (st == GP_OK) st = plan_segments(&pl);
    GP__PHASE(g, "plan");
    if (st == GP_OK) st = plan_blobs(&pl);
    if (st == GP_OK) st = stage_members(&pl);
    GP__PHASE(g, "runs staged");
    if (st == GP_OK) st = launch_pieces(&pl);
    if (st == GP_OK) st = ship_elements(&pl);
    GP__PHASE(g, "pieces launched");
    if (st == GP_OK) st = check_order(&pl);
    GP__PHASE(g, "order checked");
    if (st == GP_OK) st = gather_blobs(&pl);
    if (st == GP_OK) st = combine_own(&pl);
    GP__PHASE(g, "own values in");
    if (st == GP_OK && g->gpu && pl.L == pl.P) st = gp_group_sync(g); /* the runs' values and shipped elements are in */
    GP__PHASE(g, "synced");
    if (st == GP_OK) st = combine_crossing(&pl);
    GP__PHASE(g, "crossing segments");
    return plan_close(&pl, st);
}
