/*
 * suite_sort.c — `gpuprim bench sort`: gp_sort / gp_sort_pairs / gp_argsort against CUB's DeviceRadixSort in the same
 * run, with the D2D copy ceiling: keys u32, f32, u64 and pairs u32/u32, u64/u32 at n (default 2^28; 2^22 on the CPU
 * backend), argsort f32 (u32 positions; CUB has none), keys u32 at 2^10, 2^12, 2^13, 2^14, 2^16, 2^20, 2^24; top-k f32 k = 16, 1000, 65536
 * of n, searchsorted of n / 16 f32 queries into n sorted keys, the merge of two sorted u32 halves of n, np.unique
 * with counts of n i32 keys of 2^20 distinct values (no CUB peer for these: torch's figures are in docs); the by-key
 * sum and inclusive scan of f32 values over i32 keys in runs of 1 to 15 (and of exactly 1 and 1000) against CUB's
 * ReduceByKey / InclusiveSumByKey (checked against the CPU backend's bits, the run keys and count against CUB's), the
 * runs of 1 to 15 again on each one-pass kernel forced
 * ([block]: a block per tile; [engine]: the tile engine); the segmented sort of n u32 keys
 * in segments of 64, 1024, 65536 and of Pareto lengths (8 up, shape 0.8, at most 2^24) against the better of CUB's
 * DeviceSegmentedSort and DeviceSegmentedRadixSort (the other's time in the peer's name); gp_sort_uop of n / 4 u32
 * keys by the comparison `a < b` (NVRTC) against cub::DeviceMergeSort with the same functor. GB/s
 * counts the keys (and values) read once and written once (top-k, unique: read once; searchsorted: queries and places);
 * ratio = CUB time / ours. On the CPU backend the peer is NumPy's nearest call (np.sort, np.argsort(kind='stable'),
 * argpartition + sort of the k, np.searchsorted, the stable sort of the halves concatenated, np.unique with counts)
 * over the same arrays, timed in the same run by python3 (bench/numpy_peer.c). Every result is checked on a GPU: the keys' bits (and
 * values) against the CPU backend's, and the integer keys against CUB's (CUB orders floats by their bits, NumPy —
 * and gpuprim — as numbers: -0 == +0, NaN last).
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { J_KEYS, J_PAIRS, J_ARG, J_TOPK, J_SEARCH, J_MERGE, J_UNIQUE, J_RBK, J_SBK, J_SEG, J_UOP };
#define IS_BYKEY(job) ((job) == J_RBK || (job) == J_SBK)
#define PEER_BYKEY ((int)GP_PEER_CUB_COUNT) /* CUB's by-key ops: gp_peer_bykey, not a gp_peer_cub kind */
#define PEER_SEG (PEER_BYKEY + 1)              /* CUB's two segmented sorts: gp_peer_segsort */
#define PEER_MSORT (PEER_SEG + 1)              /* CUB's merge sort with a functor: gp_peer_mergesort */

typedef struct sortjob {
    gp_ctx_t *ctx;
    int job;
    gp_dtype_t dtype;
    size_t n, k; /* k: top-k's k, searchsorted's queries */
    void *x, *y, *v, *vo, *peer_out;
    gp_peer_cub_t peer;
    char err[256];
    const long long *off; /* J_SEG: nseg + 1 offsets (device memory) */
    uint64_t *runs;       /* J_RBK: the run count (device memory) */
    size_t nseg;
    int radix; /* J_SEG's peer: 0 cub::DeviceSegmentedSort, 1 cub::DeviceSegmentedRadixSort */
    gp_uop_t *less; /* J_UOP: `a < b` over u32 */
} sortjob_t;

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    sortjob_t *j = u;
    (void)rep;
    if (j->job == J_ARG) return gp_argsort(j->ctx, j->dtype, j->n, j->x, GP_U32, j->vo, NULL, s);
    if (j->job == J_TOPK) return gp_topk(j->ctx, j->dtype, 1, j->n, j->x, j->k, 0, j->y, GP_U32, j->vo, s);
    if (j->job == J_SEARCH) return gp_searchsorted(j->ctx, j->dtype, j->n, j->y, j->k, j->v, 0, GP_U32, j->vo, s);
    if (j->job == J_MERGE) /* the sorted halves of y into x */
        return gp_merge(j->ctx, j->dtype, j->n / 2, j->y, j->n - j->n / 2,
                        (char *)j->y + j->n / 2 * gp_dtype_size(j->dtype), j->x, 0, NULL, NULL, NULL, 0, s);
    if (j->job == J_UNIQUE) { /* np.unique with counts (torch.unique(sorted=True, return_counts=True)) */
        size_t u = 0;
        return gp_unique_sorted_sync(j->ctx, j->dtype, j->n, j->x, j->y, GP_U32, NULL, NULL, (uint64_t *)j->vo, &u);
    }
    if (j->job == J_RBK) /* sums of runs of i32 keys over f32 values, the run count in device memory (as CUB's) */
        return gp_reduce_by_key(j->ctx, GP_REDUCE_SUM, GP_I32, j->n, j->x, GP_F32, j->v, j->y, j->vo, j->runs, s);
    if (j->job == J_SBK)
        return gp_scan_by_key(j->ctx, GP_REDUCE_SUM, GP_I32, j->n, j->x, GP_F32, GP_SCAN_INCLUSIVE, j->v, j->vo, s);
    if (j->job == J_SEG)
        return gp_sort_segmented(j->ctx, j->dtype, j->n, j->x, j->y, 0, NULL, NULL, j->nseg, (const int64_t *)j->off,
                                 NULL, s);
    if (j->job == J_UOP) return gp_sort_uop(j->ctx, j->less, j->n, j->x, j->y, 0, NULL, NULL, s);
    if (j->job == J_PAIRS) return gp_sort_pairs(j->ctx, j->dtype, j->n, j->x, j->y, 4, j->v, j->vo, NULL, s);
    return gp_sort(j->ctx, j->dtype, j->n, j->x, j->y, NULL, s);
}

static gp_status_t run_peer(void *u, int rep, gp_stream_t s)
{
    sortjob_t *j = u;
    (void)rep;
    if (j->job == J_SEG)
        return gp_peer_segsort(j->radix, j->n, j->nseg, j->off, j->x, j->peer_out, s, j->err) ? GP_ERR_CUDA : GP_OK;
    if (j->job == J_UOP) return gp_peer_mergesort(j->n, j->x, j->peer_out, s, j->err) ? GP_ERR_CUDA : GP_OK;
    if (IS_BYKEY(j->job)) /* keys out at peer_out, values after them */
        return gp_peer_bykey(j->job == J_SBK, j->n, j->x, j->v, j->peer_out,
                             (float *)(void *)((char *)j->peer_out + j->n * 4), s, j->err)
                   ? GP_ERR_CUDA
                   : GP_OK;
    return gp_peer_cub(NULL, j->peer, j->n, j->x, j->peer_out, s, j->err) ? GP_ERR_CUDA : GP_OK;
}

typedef struct sort_opts {
    const char *n;
} sort_opts_t;
static const cli_opt_t opts_bench_sort[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(sort_opts_t, n), "elements of each case", "2^28; 2^22 on the CPU backend", NULL,
     NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_sort = {
    "bench sort", COMMON_ALL, NULL, opts_bench_sort, 0, "[options]",
    "gp_sort / gp_sort_pairs / gp_argsort against cub::DeviceRadixSort and the D2D copy, same run: keys u32, f32,\n"
    "u64, pairs u32/u32 and u64/u32 at n, argsort f32, keys u32 at 2^16, 2^20, 2^24; top-k, searchsorted, merge,\n"
    "np.unique, by-key ops (again on each one-pass kernel forced: [block], [engine]); segmented sorts of u32 in\n"
    "segments of 64, 1024, 65536 and a power law against CUB's two; gp_sort_uop of n/4 u32 by `a < b` against\n"
    "cub::DeviceMergeSort; every result checked. On the CPU backend the peer is NumPy's nearest call, where\n"
    "python3 has NumPy, timed alternately with ours.",
    NULL};

static int suite_sort(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    sort_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_sort, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    size_t n = 0;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n == 0 || n > ((size_t)1 << 31)))
        return bad_value("bench sort", "-n", "an element count 1 .. 2^31", opt.n);
    gp_ctx_t *ctx = NULL, *cpu = NULL;
    report_t r;
    char desc[512];
    bench_ceilings_t ce;
    int rc = bench_begin_checked("gpuprim bench sort", &c, "CUB (cub::DeviceRadixSort) from the CUDA toolkit",
                                 "keys and values = the CPU backend's; integer keys = CUB's", &n, &ctx, &cpu, &r, &ce, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (!gpu && bench_numpy_version())
        report_meta(&r, "peer", "NumPy %s (python3, one thread) on the same arrays, the nearest call each row, "
                    "alternately with ours",
                    bench_numpy_version());
    struct {
        int job;
        gp_dtype_t dt;
        size_t n;
        int peer; /* a gp_peer_cub_t, or -1 */
        size_t k;
        int kernel; /* by key: 0 the library's choice; 1 the block-per-tile kernel, 2 the tile engine, forced */
    } cases[40];
    int nc = 0;
#define CASE(J, D, N, P)                                                                                           \
    cases[nc].job = (J), cases[nc].dt = (D), cases[nc].n = (N), cases[nc].k = 0, cases[nc].kernel = 0,             \
    cases[nc++].peer = (P)
    CASE(J_KEYS, GP_U32, n, GP_PEER_SORT_U32);
    CASE(J_KEYS, GP_F32, n, GP_PEER_SORT_F32);
    CASE(J_KEYS, GP_U64, n, GP_PEER_SORT_U64);
    CASE(J_PAIRS, GP_U32, n, GP_PEER_SORT_PAIRS_U32);
    CASE(J_PAIRS, GP_U64, n, GP_PEER_SORT_PAIRS_U64);
    CASE(J_ARG, GP_F32, n, -1);
    static const size_t smalls[] = {1u << 10, 1u << 12, 1u << 13, 1u << 14, 1u << 16, 1u << 20, 1u << 24};
    for (int t = 0; t < 7; t++)
        if (smalls[t] < n) CASE(J_KEYS, GP_U32, smalls[t], GP_PEER_SORT_U32);
    static const size_t topks[] = {16, 1000, 65536};
    for (int t = 0; t < 3; t++)
        if (topks[t] <= n) CASE(J_TOPK, GP_F32, n, -1), cases[nc - 1].k = topks[t];
    CASE(J_SEARCH, GP_F32, n, -1), cases[nc - 1].k = n / 16; /* 2^24 queries into 2^28 keys by default */
    CASE(J_MERGE, GP_U32, n, -1);
    CASE(J_UNIQUE, GP_I32, n, -1); /* 2^20 distinct values */
    CASE(J_RBK, GP_I32, n, PEER_BYKEY); /* i32 keys in runs of 1 to 15, f32 values */
    CASE(J_SBK, GP_I32, n, PEER_BYKEY);
    static const size_t runlens[] = {1, 1000}; /* k: every run that long (0: 1 to 15) */
    for (int r = 0; r < 2; r++) {
        CASE(J_RBK, GP_I32, n, PEER_BYKEY), cases[nc - 1].k = runlens[r];
        CASE(J_SBK, GP_I32, n, PEER_BYKEY), cases[nc - 1].k = runlens[r];
    }
    for (int kern = 1; kern <= 2 && gpu; kern++) { /* both again on each one-pass kernel, forced */
        CASE(J_RBK, GP_I32, n, PEER_BYKEY), cases[nc - 1].kernel = kern;
        CASE(J_SBK, GP_I32, n, PEER_BYKEY), cases[nc - 1].kernel = kern;
    }
    static const size_t seglens[] = {64, 1024, 65536, 0}; /* 0: a power law */
    for (int t = 0; t < 4; t++) CASE(J_SEG, GP_U32, n, PEER_SEG), cases[nc - 1].k = seglens[t];
    if (n >= 4) CASE(J_UOP, GP_U32, n / 4, PEER_MSORT); /* 2^26 by default */
#undef CASE
    static bench_bars_t bars;
    bars.n = 0;
    static const char *const names[] = {"keys", "pairs +u32", "argsort u32"};
    for (int ci = 0; ci < nc && rc == EXIT_OK; ci++) {
        const size_t m = cases[ci].n, es = gp_dtype_size(cases[ci].dt), kb = m * es,
                     vb = m * (cases[ci].job == J_UNIQUE ? 8 : 4); /* unique: up to m u64 counts */
        const int has_peer = gpu && cases[ci].peer >= 0;
        gp_buffer_t bx = {0}, by = {0}, bv = {0}, bvo = {0}, bp = {0}, bo = {0};
        sortjob_t j = {ctx, cases[ci].job, cases[ci].dt, m, cases[ci].k, NULL, NULL, NULL, NULL, NULL,
                       (gp_peer_cub_t)(has_peer && cases[ci].peer < PEER_BYKEY ? cases[ci].peer : 0), "", NULL,
                       NULL, 0, 0, NULL};
        size_t nruns = 0; /* by key: the runs the keys make */
        if (j.job == J_UOP) { /* the comparison compiled (or taken from the cache) before any timing */
            gp_uop_desc_t d;
            memset(&d, 0, sizeof d);
            d.kind = GP_UOP_LESS;
            d.dtype = GP_U32;
            d.src = "a < b";
            if (gp_uop_create(ctx, &d, &j.less) != GP_OK) {
                fprintf(stderr, "gpuprim bench sort: %s\n", gp_last_error());
                rc = EXIT_FAIL;
            }
        }
        int64_t *hoff = NULL; /* J_SEG: the offsets, made on the host */
        if (rc == EXIT_OK && j.job == J_SEG) {
            hoff = malloc((m + 1) * sizeof *hoff);
            size_t at = 0, s = 0;
            if (hoff) hoff[0] = 0;
            while (hoff && at < m) {
                size_t len = j.k;
                if (len == 0) { /* Pareto lengths from 8 (shape 0.8: a few long segments hold much of it), to 2^24 */
                    uint64_t z = (uint64_t)s * 0x9e3779b97f4a7c15ull + 5;
                    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull, z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                    const double u = (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
                    const double l = 8.0 / pow(1.0 - u, 1.25);
                    len = l > (double)(1u << 24) ? (size_t)1 << 24 : (size_t)l;
                }
                at += len < m - at ? len : m - at;
                hoff[++s] = (int64_t)at;
            }
            j.nseg = s;
            if (!hoff || gp_mem_alloc(ctx, GP_MEM_DEVICE, (s + 1) * 8, &bo) != GP_OK ||
                gp_memcpy_sync(ctx, bo.device, hoff, (s + 1) * 8) != GP_OK) {
                fprintf(stderr, "gpuprim bench sort: %s\n", hoff ? gp_last_error() : "no host memory for offsets");
                rc = EXIT_FAIL;
            }
            j.off = bo.device;
        }
        if (cases[ci].job == J_RBK) { /* the run count, left in device memory */
            if (gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &bo) != GP_OK) {
                fprintf(stderr, "gpuprim bench sort: %s\n", gp_last_error());
                rc = EXIT_FAIL;
            }
            j.runs = bo.device;
        }
        if (gp_mem_alloc(ctx, GP_MEM_DEVICE, kb, &bx) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, kb, &by) != GP_OK ||
            gp_mem_alloc(ctx, GP_MEM_DEVICE, vb, &bv) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, vb, &bvo) != GP_OK ||
            (has_peer && gp_mem_alloc(ctx, GP_MEM_DEVICE, IS_BYKEY(cases[ci].job) ? kb + vb : kb, &bp) != GP_OK) ||
            bench_fill_random(ctx, bx.device, m, cases[ci].dt == GP_F32 ? GP_F32 : GP_U32, 21 + (unsigned)ci) != GP_OK ||
            (cases[ci].dt == GP_U64 && bench_fill_random(ctx, (char *)bx.device + kb / 2, m, GP_U32, 99 + (unsigned)ci) != GP_OK) ||
            bench_fill_random(ctx, bv.device, m, IS_BYKEY(cases[ci].job) ? GP_F32 : GP_U32, 41 + (unsigned)ci) != GP_OK) {
            fprintf(stderr, "gpuprim bench sort: %zu bytes: %s\n", kb, gp_last_error());
            rc = EXIT_FAIL;
        }
        j.x = bx.device, j.y = by.device, j.v = bv.device, j.vo = bvo.device, j.peer_out = bp.device;
        if (rc == EXIT_OK && j.job == J_MERGE && /* two sorted halves in y */
            (gp_sort_sync(ctx, j.dtype, m / 2, j.x, j.y, NULL) != GP_OK ||
             gp_sort_sync(ctx, j.dtype, m - m / 2, (char *)j.x + m / 2 * es, (char *)j.y + m / 2 * es, NULL) != GP_OK)) {
            fprintf(stderr, "gpuprim bench sort: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        if (rc == EXIT_OK && (j.job == J_UNIQUE || IS_BYKEY(j.job))) { /* i32 keys made on the host */
            int32_t *h = malloc(kb), key = 0;
            size_t left = 0;
            for (size_t i = 0; h && i < m; i++) {
                uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + 77;
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull, z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                z ^= z >> 31;
                if (j.job == J_UNIQUE) h[i] = (int32_t)(z % (1u << 20)) - (1 << 19); /* 2^20 distinct values */
                else { /* runs of 1 to 15 (about 8), or of j.k */
                    if (left == 0) /* rising keys */
                        left = j.k ? j.k : 1 + (size_t)(z % 15), key += 1 + (int32_t)(z >> 60), nruns++;
                    h[i] = key, left--;
                }
            }
            if (!h || gp_memcpy_sync(ctx, j.x, h, kb) != GP_OK) {
                fprintf(stderr, "gpuprim bench sort: %s\n", h ? gp_last_error() : "no host memory for the keys");
                rc = EXIT_FAIL;
            }
            free(h);
        }
        if (rc == EXIT_OK && j.job == J_SEARCH && /* sorted keys; queries from the same distribution */
            (gp_sort_sync(ctx, j.dtype, m, j.x, j.y, NULL) != GP_OK ||
             bench_fill_random(ctx, bv.device, j.k, GP_F32, 61) != GP_OK)) {
            fprintf(stderr, "gpuprim bench sort: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        bench_scan_force_kernel(cases[ci].kernel); /* until the row's check is done */
        /* the CPU backend's peer: NumPy's nearest call on the same arrays, timed alternately with ours (ours' times
         * are those rounds'; ours alone below where no peer ran). No row's call writes over its inputs. */
        char np_name[128] = "";
        double np_ms = 0, np_min = 0;
        if (rc == EXIT_OK && !gpu && bench_numpy_version()) {
            char stmt[256] = "";
            const char *nm[2] = {"x", "v"};
            const void *dp[2] = {j.x, j.v};
            gp_dtype_t dt2[2] = {j.dtype, GP_U32};
            size_t cnt[2] = {m, m};
            int na = 1;
            const char *what = NULL;
            if (j.job == J_KEYS) what = "np.sort", snprintf(stmt, sizeof stmt, "np.sort(x)");
            else if (j.job == J_PAIRS)
                what = "argsort(stable) + 2 gathers", na = 2,
                snprintf(stmt, sizeof stmt, "o = np.argsort(x, kind='stable'); x[o]; v[o]");
            else if (j.job == J_ARG) what = "np.argsort(stable)", snprintf(stmt, sizeof stmt, "np.argsort(x, kind='stable')");
            else if (j.job == J_TOPK)
                what = "argpartition + sort of k",
                snprintf(stmt, sizeof stmt, "i = np.argpartition(x, %zu)[:%zu]; i = i[np.argsort(x[i], kind='stable')]; x[i]",
                         j.k - 1, j.k);
            else if (j.job == J_SEARCH)
                what = "np.searchsorted", na = 2, dp[0] = j.y, dt2[1] = j.dtype, cnt[1] = j.k,
                snprintf(stmt, sizeof stmt, "np.searchsorted(x, v)");
            else if (j.job == J_MERGE)
                what = "np.sort(concatenate, stable)", na = 2, nm[0] = "a", nm[1] = "b", dp[0] = j.y,
                dp[1] = (char *)j.y + m / 2 * es, dt2[1] = j.dtype, cnt[0] = m / 2, cnt[1] = m - m / 2,
                snprintf(stmt, sizeof stmt, "np.sort(np.concatenate((a, b)), kind='stable')");
            else if (j.job == J_UNIQUE)
                what = "np.unique(return_counts)", snprintf(stmt, sizeof stmt, "np.unique(x, return_counts=True)");
            const int nr = what ? bench_numpy_time(ctx, run_ours, &j, &so, stmt, na, nm, dp, dt2, cnt, c.warmup,
                                                   c.reps, &np_ms, &np_min)
                                : -1;
            if (nr == 0) snprintf(np_name, sizeof np_name, "NumPy %s %s", bench_numpy_version(), what);
            else np_ms = 0;
            if (nr == -2) {
                fprintf(stderr, "gpuprim bench sort: %s\n", gp_last_error());
                rc = EXIT_FAIL;
            }
        }
        if (rc == EXIT_OK && so.reps == 0 &&
            bench_time(ctx, run_ours, NULL, &j, c.warmup, c.reps, NULL, &so) != GP_OK) {
            fprintf(stderr, "gpuprim bench sort: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        bench_stats_t sp_seg[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}}; /* J_SEG: CUB's two, the better one in sp */
        if (rc == EXIT_OK && has_peer && j.job == J_SEG) {
            for (j.radix = 0; j.radix < 2 && rc == EXIT_OK; j.radix++)
                if (gp_peer_segsort_prepare(j.radix, m, j.nseg, j.off, j.err) != 0 ||
                    bench_time(ctx, run_peer, NULL, &j, c.warmup, c.reps, NULL, &sp_seg[j.radix]) != GP_OK) {
                    fprintf(stderr, "gpuprim bench sort: %s\n", j.err);
                    rc = EXIT_FAIL;
                }
            j.radix = 1; /* the last one run: its keys are in peer_out */
            sp = sp_seg[sp_seg[1].median_ms < sp_seg[0].median_ms];
        }
        if (rc == EXIT_OK && has_peer && j.job != J_SEG &&
            ((IS_BYKEY(j.job)     ? gp_peer_bykey_prepare(j.job == J_SBK, m, j.err)
              : j.job == J_UOP ? gp_peer_mergesort_prepare(m, j.err)
                               : gp_peer_cub_prepare(NULL, j.peer, m, j.err)) != 0 ||
             bench_time(ctx, run_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK)) {
            fprintf(stderr, "gpuprim bench sort: %s\n", j.err);
            rc = EXIT_FAIL;
        }
        int same = 1;
        if (rc == EXIT_OK && gpu) { /* the bits against the CPU backend's; integer keys against CUB's */
            unsigned char *hx = malloc(kb), *ho = malloc(kb), *hr = malloc(kb), *hv = malloc(vb), *hvo = malloc(vb),
                          *hw = malloc(vb);
            same = hx && ho && hr && hv && hvo && hw && gp_memcpy_sync(ctx, hx, bx.device, kb) == GP_OK &&
                   gp_memcpy_sync(ctx, hv, bv.device, vb) == GP_OK;
            if (same && (j.job == J_TOPK || j.job == J_SEARCH)) {
                const size_t q = j.k; /* top-k: k values (in ho) and positions; searchsorted: q places */
                if (j.job == J_TOPK)
                    same = gp_topk(cpu, j.dtype, 1, m, hx, q, 0, hr, GP_U32, hw, NULL) == GP_OK &&
                           gp_memcpy_sync(ctx, ho, by.device, q * es) == GP_OK && memcmp(ho, hr, q * es) == 0;
                else
                    same = gp_memcpy_sync(ctx, ho, by.device, kb) == GP_OK &&
                           gp_searchsorted(cpu, j.dtype, m, ho, q, hv, 0, GP_U32, hw, NULL) == GP_OK;
                same = same && gp_memcpy_sync(ctx, hvo, bvo.device, q * 4) == GP_OK && memcmp(hvo, hw, q * 4) == 0;
            } else if (same && j.job == J_UNIQUE) { /* the distinct keys and their counts, as the CPU backend's */
                size_t u = 0, gu = 0;
                same = gp_unique_sorted_sync(cpu, j.dtype, m, hx, hr, GP_U32, NULL, NULL, (uint64_t *)(void *)hw, &u) ==
                           GP_OK &&
                       gp_unique_sorted_sync(ctx, j.dtype, m, j.x, j.y, GP_U32, NULL, NULL, (uint64_t *)j.vo, &gu) ==
                           GP_OK &&
                       gu == u && u * 8 <= vb && gp_memcpy_sync(ctx, ho, by.device, u * es) == GP_OK &&
                       gp_memcpy_sync(ctx, hvo, bvo.device, u * 8) == GP_OK && memcmp(ho, hr, u * es) == 0 &&
                       memcmp(hvo, hw, u * 8) == 0;
            } else if (same && IS_BYKEY(j.job)) { /* the CPU backend's bits; the run keys and count as CUB's */
                size_t runs = 0, gruns = 0;
                unsigned long long cub_runs = 0;
                if (j.job == J_RBK)
                    same = gp_reduce_by_key_sync(cpu, GP_REDUCE_SUM, GP_I32, m, hx, GP_F32, hv, hr, hw, &runs) == GP_OK &&
                           gp_reduce_by_key_sync(ctx, GP_REDUCE_SUM, GP_I32, m, j.x, GP_F32, j.v, j.y, j.vo, &gruns) ==
                               GP_OK &&
                           gruns == runs && gp_memcpy_sync(ctx, ho, by.device, runs * 4) == GP_OK &&
                           gp_memcpy_sync(ctx, hvo, bvo.device, runs * 4) == GP_OK && memcmp(ho, hr, runs * 4) == 0 &&
                           memcmp(hvo, hw, runs * 4) == 0 && run_peer(&j, 0, NULL) == GP_OK &&
                           gp_memcpy_sync(ctx, &cub_runs, gp_peer_selected(), 8) == GP_OK && cub_runs == runs &&
                           gp_memcpy_sync(ctx, hx, bp.device, runs * 4) == GP_OK && memcmp(hx, hr, runs * 4) == 0;
                else
                    same = gp_scan_by_key_sync(cpu, GP_REDUCE_SUM, GP_I32, m, hx, GP_F32, GP_SCAN_INCLUSIVE, hv, hw) ==
                               GP_OK &&
                           gp_memcpy_sync(ctx, hvo, bvo.device, vb) == GP_OK && memcmp(hvo, hw, vb) == 0;
            } else if (same && j.job == J_MERGE) { /* x now holds the merge of y's halves: the sort of y */
                same = gp_memcpy_sync(ctx, ho, by.device, kb) == GP_OK && gp_memcpy_sync(ctx, hx, bx.device, kb) == GP_OK &&
                       gp_sort(cpu, j.dtype, m, ho, hr, NULL, NULL) == GP_OK && memcmp(hx, hr, kb) == 0;
            } else if (same && j.job == J_SEG) /* the CPU backend's bits (CUB's radix sort's keys: below) */
                same = gp_memcpy_sync(ctx, ho, by.device, kb) == GP_OK &&
                       gp_sort_segmented_sync(cpu, j.dtype, m, hx, hr, 0, NULL, NULL, j.nseg, hoff, NULL) == GP_OK &&
                       memcmp(ho, hr, kb) == 0;
            else if (same && j.job == J_ARG)
                same = gp_argsort(cpu, j.dtype, m, hx, GP_U32, hw, NULL, NULL) == GP_OK &&
                       gp_memcpy_sync(ctx, hvo, bvo.device, vb) == GP_OK && memcmp(hvo, hw, vb) == 0;
            else if (same)
                same = gp_memcpy_sync(ctx, ho, by.device, kb) == GP_OK &&
                       (j.job == J_PAIRS ? gp_sort_pairs(cpu, j.dtype, m, hx, hr, 4, hv, hw, NULL, NULL)
                                         : gp_sort(cpu, j.dtype, m, hx, hr, NULL, NULL)) == GP_OK &&
                       memcmp(ho, hr, kb) == 0 &&
                       (j.job != J_PAIRS ||
                        (gp_memcpy_sync(ctx, hvo, bvo.device, vb) == GP_OK && memcmp(hvo, hw, vb) == 0));
            if (same && has_peer && j.dtype != GP_F32 && !IS_BYKEY(j.job))
                same = gp_memcpy_sync(ctx, hr, bp.device, kb) == GP_OK && memcmp(ho, hr, kb) == 0;
            if (!same) rc = EXIT_MISMATCH;
            free(hx), free(ho), free(hr), free(hv), free(hvo), free(hw);
        }
        bench_scan_force_kernel(0);
        if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
            char name[64];
            if (j.job == J_TOPK) snprintf(name, sizeof name, "topk k=%zu%s", j.k, same ? "" : " CHECK FAILED");
            else if (j.job == J_SEARCH) snprintf(name, sizeof name, "searchsorted %zu%s", j.k, same ? "" : " CHECK FAILED");
            else if (j.job == J_MERGE) snprintf(name, sizeof name, "merge 2 x n/2%s", same ? "" : " CHECK FAILED");
            else if (j.job == J_UNIQUE) snprintf(name, sizeof name, "unique +counts%s", same ? "" : " CHECK FAILED");
            else if (j.job == J_SEG && j.k)
                snprintf(name, sizeof name, "segsort %zu (%zu segs)%s", j.k, j.nseg, same ? "" : " CHECK FAILED");
            else if (j.job == J_SEG)
                snprintf(name, sizeof name, "segsort power-law (%zu segs)%s", j.nseg, same ? "" : " CHECK FAILED");
            else if (j.job == J_UOP) snprintf(name, sizeof name, "sort_uop a < b%s", same ? "" : " CHECK FAILED");
            else if (IS_BYKEY(j.job))
            {
                char runs[32] = "";
                if (j.k) snprintf(runs, sizeof runs, " runs %zu", j.k);
                snprintf(name, sizeof name, "%s f32%s%s%s", j.job == J_RBK ? "reduce_by_key sum" : "scan_by_key sum",
                         runs, cases[ci].kernel == 1 ? " [block]" : cases[ci].kernel == 2 ? " [engine]" : "",
                         same ? "" : " CHECK FAILED");
            }
            else snprintf(name, sizeof name, "%s%s", names[j.job], same ? "" : " CHECK FAILED");
            /* top-k: one read of the keys is its floor; searchsorted: the queries read and the places written */
            const double moved = j.job == J_TOPK || j.job == J_UNIQUE ? (double)kb
                                 : j.job == J_SBK                  ? (double)(kb + 2 * vb) /* keys, values, sums */
                                 : j.job == J_RBK ? (double)(kb + vb) + 8.0 * (double)nruns /* + a key, a sum a run */
                                 : j.job == J_SEARCH               ? 8.0 * (double)j.k
                                 : 2.0 * (double)(j.job == J_ARG || j.job == J_PAIRS ? kb + vb : kb);
            char segpeer[96]; /* the better of CUB's two segmented sorts, the other's time beside it */
            const int rb = sp_seg[1].median_ms < sp_seg[0].median_ms;
            snprintf(segpeer, sizeof segpeer, "cub::DeviceSegmented%sSort (%sSort %.1f us)", rb ? "Radix" : "",
                     rb ? "Segmented" : "SegmentedRadix", 1000.0 * sp_seg[!rb].median_ms);
            const char *pname = !has_peer ? "" : j.job == J_SEG ? segpeer
                                : j.job == J_UOP ? "cub::DeviceMergeSort::SortKeysCopy (a < b functor)"
                                : !IS_BYKEY(j.job) ? gp_peer_cub_name(j.peer)
                                : j.job == J_RBK ? "cub::DeviceReduce::ReduceByKey" : "cub::DeviceScan::InclusiveSumByKey";
            if (np_ms > 0) pname = np_name;
            vec_row(&r, name, gp_dtype_name(j.dtype), m, moved, &so, &ce, pname,
                    has_peer ? sp.median_ms : np_ms);
            bench_bars_add(&bars, bench_gbs(moved, so.median_ms), "%s %s n=%zu", name, gp_dtype_name(j.dtype), m);
            if (has_peer || np_ms > 0) bench_bars_add(&bars, bench_gbs(moved, has_peer ? sp.median_ms : np_ms), "%s", pname);
        }
        gp_mem_free(ctx, &bx), gp_mem_free(ctx, &by), gp_mem_free(ctx, &bv), gp_mem_free(ctx, &bvo),
            gp_mem_free(ctx, &bp), gp_mem_free(ctx, &bo);
        free(hoff);
        gp_uop_destroy(j.less);
    }
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
        report_print(&r, c.fmt, stdout);
        if (c.svg && svg_bar_chart(c.svg, "gpuprim bench sort", "GB/s (keys and values read + written once)",
                                   bars.labels, bars.values, bars.n, ce.d2d_gbs, "D2D cudaMemcpy") != 0 &&
            rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim bench sort: a result differs from the CPU backend's or CUB's\n");
    report_free(&r);
    gp_ctx_destroy(cpu);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_sort = {"sort", "", "gp_sort / gp_sort_pairs / gp_argsort against CUB's DeviceRadixSort",
                                 &spec_bench_sort, suite_sort, NULL};
