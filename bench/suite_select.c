/*
 * suite_select.c — `gpuprim bench select`: gp_select / gp_partition (f32, x > 0 on values in [-1, 1): about half
 * kept), gp_unique and gp_run_length_encode (i32 in [-1024, 1023]) against cub::DeviceSelect::If, DevicePartition::If,
 * DeviceSelect::Unique and DeviceRunLengthEncode::Encode in the same run, with the D2D copy ceiling; n (default 2^28)
 * and select at 2^10 .. 2^20; select, partition and unique at n again on each single-pass kernel forced ([block]: a
 * block per tile; [engine]: the tile engine). GB/s counts bytes read + written (the kept elements; partition: all n; run-length
 * encoding: each run's value and u64 length). ratio = CUB time / ours. Every result is checked on a GPU: the count
 * and the kept elements (runs: values and lengths) against the CPU backend, and against CUB's (both stable; CUB's
 * partition reverses the rejected, so only the kept part is compared with it).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

enum { J_SELECT, J_PARTITION, J_UNIQUE, J_RLE };

typedef struct seljob {
    gp_ctx_t *ctx;
    int job;
    gp_dtype_t dtype;
    size_t n;
    gp_pred_t pred;
    void *x, *y, *peer_out;
    uint64_t *count, *lengths;
    gp_peer_cub_t peer;
    char err[256];
} seljob_t;

static gp_status_t run_ours(void *u, int rep, gp_stream_t s)
{
    seljob_t *j = u;
    (void)rep;
    if (j->job == J_UNIQUE) return gp_unique(j->ctx, j->dtype, j->n, j->x, j->y, j->count, s);
    if (j->job == J_RLE) return gp_run_length_encode(j->ctx, j->dtype, j->n, j->x, j->y, j->lengths, j->count, s);
    return (j->job == J_PARTITION ? gp_partition : gp_select)(j->ctx, j->dtype, j->n, j->x, &j->pred, j->y, j->count, s);
}

static gp_status_t run_peer(void *u, int rep, gp_stream_t s)
{
    seljob_t *j = u;
    (void)rep;
    return gp_peer_cub(NULL, j->peer, j->n, j->x, j->peer_out, s, j->err) ? GP_ERR_CUDA : GP_OK;
}

typedef struct select_opts {
    const char *n;
} select_opts_t;
static const cli_opt_t opts_bench_select[] = {
    {"-n", OPT_COUNT, "N", OPT_AT(select_opts_t, n), "elements of each case", "2^28; 2^22 on the CPU backend", NULL,
     NULL},
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_bench_select = {
    "bench select", COMMON_ALL, NULL, opts_bench_select, 0, "[options]",
    "gp_select / gp_partition (f32 x > 0, about half kept), gp_unique and gp_run_length_encode (i32) against CUB's\n"
    "DeviceSelect::If, DevicePartition::If, DeviceSelect::Unique and DeviceRunLengthEncode::Encode and the D2D\n"
    "copy, same run, at n and select at 2^10 .. 2^20, the first three again on each kernel forced ([block],\n"
    "[engine]); every result checked. On the CPU backend the peer is NumPy's nearest statement (x[x > 0], a\n"
    "stable partition by the mask, x at the heads) on the same array.",
    NULL};

static int suite_select(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, -1, -1, 0};
    select_opts_t opt;
    int npos = 0;
    const int pr = cli_parse(&spec_bench_select, argc, argv, &c, &opt, NULL, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    size_t n = 0;
    if (opt.n && (parse_size(opt.n, &n) != 0 || n == 0 || n > ((size_t)1 << 31)))
        return bad_value("bench select", "-n", "an element count 1 .. 2^31", opt.n);
    gp_ctx_t *ctx = NULL, *cpu = NULL;
    report_t r;
    char desc[512];
    bench_ceilings_t ce;
    int rc = bench_begin_checked("gpuprim bench select", &c, "CUB (cub::DeviceSelect, cub::DevicePartition) from the CUDA toolkit",
                                 "count and kept elements = the CPU backend's and CUB's", &n, &ctx, &cpu, &r, &ce, desc, sizeof desc);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    if (!gpu) bench_numpy_meta(&r);
    struct {
        int job;
        gp_dtype_t dt;
        size_t n;
        gp_peer_cub_t peer;
        int kernel; /* 0: the library's choice; 1 the block-per-tile kernel, 2 the tile engine, forced */
    } cases[24];
    int nc = 0;
    cases[nc].job = J_SELECT, cases[nc].dt = GP_F32, cases[nc].n = n, cases[nc++].peer = GP_PEER_SELECT_GT0_F32;
    cases[nc].job = J_PARTITION, cases[nc].dt = GP_F32, cases[nc].n = n, cases[nc++].peer = GP_PEER_PARTITION_GT0_F32;
    cases[nc].job = J_UNIQUE, cases[nc].dt = GP_I32, cases[nc].n = n, cases[nc++].peer = GP_PEER_UNIQUE_I32;
    cases[nc].job = J_RLE, cases[nc].dt = GP_I32, cases[nc].n = n, cases[nc++].peer = GP_PEER_RLE_I32;
    for (size_t k = 1u << 10; k <= (1u << 20) && k < n; k <<= 2)
        cases[nc].job = J_SELECT, cases[nc].dt = GP_F32, cases[nc].n = k, cases[nc++].peer = GP_PEER_SELECT_GT0_F32;
    for (int k = 0; k < nc; k++) cases[k].kernel = 0;
    /* select, partition and unique at n again on each single-pass kernel, forced */
    for (int kern = 1; kern <= 2 && gpu; kern++)
        for (int k = 0; k < 3; k++) {
            cases[nc] = cases[k];
            cases[nc++].kernel = kern;
        }
    static bench_bars_t bars;
    bars.n = 0;
    static const char *const names[] = {"select gt:0", "partition gt:0", "unique", "rle"};
    for (int ci = 0; ci < nc && rc == EXIT_OK; ci++) {
        const size_t m = cases[ci].n, es = gp_dtype_size(cases[ci].dt), bytes = m * es;
        gp_buffer_t bx = {0}, by = {0}, bp = {0}, bc = {0}, bl = {0};
        seljob_t j = {ctx, cases[ci].job, cases[ci].dt, m, {GP_PRED_GT, 0, 0, NULL}, NULL, NULL, NULL, NULL, NULL,
                      cases[ci].peer, ""};
        const int rle = j.job == J_RLE;
        if (gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &bx) != GP_OK || gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &by) != GP_OK ||
            gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &bc) != GP_OK ||
            (rle && gp_mem_alloc(ctx, GP_MEM_DEVICE, m * 8, &bl) != GP_OK) ||
            (gpu && gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &bp) != GP_OK) ||
            bench_fill_random(ctx, bx.device, m, cases[ci].dt, 11 + (unsigned)ci) != GP_OK) {
            fprintf(stderr, "gpuprim bench select: %zu bytes: %s\n", bytes, gp_last_error());
            rc = EXIT_FAIL;
        }
        j.x = bx.device, j.y = by.device, j.peer_out = bp.device, j.count = (uint64_t *)bc.device;
        j.lengths = (uint64_t *)bl.device;
        bench_stats_t so = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
        bench_scan_force_kernel(cases[ci].kernel);
        /* the CPU backend's peer: NumPy's nearest statement on the same array, timed alternately with ours (ours' times
         * are those rounds'; ours alone below where no peer ran); the check below reads the last call's output */
        char np_name[128] = "";
        double np_ms = 0;
        if (rc == EXIT_OK && !gpu) {
            static const char *const stmts[] = {
                "x[x > 0]", "m = x > 0; np.concatenate((x[m], x[~m]))", "x[np.r_[True, x[1:] != x[:-1]]]",
                "i = np.flatnonzero(np.r_[True, x[1:] != x[:-1]]); x[i]; np.diff(np.r_[i, x.size])"};
            static const char *const whats[] = {"x[x > 0]", "stable partition by a mask", "x[heads]",
                                                "values and lengths at the heads"};
            np_ms = bench_numpy_peer1(ctx, run_ours, &j, &so, stmts[j.job], whats[j.job], j.x, j.dtype, m, 1,
                                      c.warmup, c.reps, np_name, sizeof np_name);
            if (np_ms < 0) { /* ours failed in the alternated rounds */
                fprintf(stderr, "gpuprim bench select: %s\n", gp_last_error());
                rc = EXIT_FAIL, np_ms = 0;
            }
        }
        if (rc == EXIT_OK && so.reps == 0 &&
            bench_time(ctx, run_ours, NULL, &j, c.warmup, c.reps, NULL, &so) != GP_OK) {
            fprintf(stderr, "gpuprim bench select: %s\n", gp_last_error());
            rc = EXIT_FAIL;
        }
        bench_scan_force_kernel(0);
        if (rc == EXIT_OK && gpu &&
            (gp_peer_cub_prepare(NULL, j.peer, m, j.err) != 0 ||
             bench_time(ctx, run_peer, NULL, &j, c.warmup, c.reps, NULL, &sp) != GP_OK)) {
            fprintf(stderr, "gpuprim bench select: %s\n", j.err);
            rc = EXIT_FAIL;
        }
        /* the check, and the kept count for the bytes */
        int same = 1;
        uint64_t kept = 0;
        if (rc == EXIT_OK) {
            void *hx = malloc(bytes), *ho = malloc(bytes), *hr = malloc(bytes);
            uint64_t *hl = rle ? malloc(m * 8) : NULL, *hw = rle ? malloc(m * 8) : NULL;
            size_t want = 0;
            same = hx && ho && hr && (!rle || (hl && hw)) && gp_memcpy_sync(ctx, &kept, bc.device, 8) == GP_OK;
            if (same && gpu) {
                gp_status_t st = GP_OK;
                same = gp_memcpy_sync(ctx, hx, bx.device, bytes) == GP_OK &&
                       gp_memcpy_sync(ctx, ho, by.device, bytes) == GP_OK;
                if (same) {
                    if (j.job == J_UNIQUE) st = gp_unique_sync(cpu, j.dtype, m, hx, hr, &want);
                    else if (rle) st = gp_run_length_encode_sync(cpu, j.dtype, m, hx, hr, hw, &want);
                    else st = (j.job == J_PARTITION ? gp_partition_sync : gp_select_sync)(cpu, j.dtype, m, hx, &j.pred,
                                                                                          hr, &want);
                    same = st == GP_OK && want == kept && memcmp(ho, hr, (j.job == J_PARTITION ? m : want) * es) == 0;
                }
                if (same && rle)
                    same = gp_memcpy_sync(ctx, hl, bl.device, kept * 8) == GP_OK && memcmp(hl, hw, kept * 8) == 0;
                uint64_t pk = 0;
                const unsigned long long *pc = gp_peer_selected(), *pl = gp_peer_rle_lengths();
                if (same)
                    same = pc && gp_memcpy_sync(ctx, &pk, pc, 8) == GP_OK && pk == kept &&
                           gp_memcpy_sync(ctx, hr, bp.device, kept * es) == GP_OK && memcmp(ho, hr, kept * es) == 0;
                if (same && rle)
                    same = pl && gp_memcpy_sync(ctx, hw, pl, kept * 8) == GP_OK && memcmp(hl, hw, kept * 8) == 0;
            }
            if (!same) rc = EXIT_MISMATCH;
            free(hx), free(ho), free(hr), free(hl), free(hw);
        }
        if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
            char name[48];
            snprintf(name, sizeof name, "%s%s%s", names[j.job],
                     cases[ci].kernel == 1 ? " [block]" : cases[ci].kernel == 2 ? " [engine]" : "",
                     same ? "" : " CHECK FAILED");
            const double moved = (double)bytes + (double)(j.job == J_PARTITION ? m : (size_t)kept) * (double)(es + (rle ? 8 : 0));
            vec_row(&r, name, gp_dtype_name(j.dtype), m, moved, &so, &ce, gpu ? gp_peer_cub_name(j.peer) : np_name,
                    gpu ? sp.median_ms : np_ms);
            bench_bars_add(&bars, bench_gbs(moved, so.median_ms), "%s %s n=%zu", name, gp_dtype_name(j.dtype), m);
            if (gpu) bench_bars_add(&bars, bench_gbs(moved, sp.median_ms), "%s", gp_peer_cub_name(j.peer));
        }
        gp_mem_free(ctx, &bx), gp_mem_free(ctx, &by), gp_mem_free(ctx, &bp), gp_mem_free(ctx, &bc), gp_mem_free(ctx, &bl);
    }
    if (rc == EXIT_OK || rc == EXIT_MISMATCH) {
        report_print(&r, c.fmt, stdout);
        if (c.svg && svg_bar_chart(c.svg, "gpuprim bench select", "GB/s (read + write)", bars.labels, bars.values,
                                   bars.n, ce.d2d_gbs, "D2D cudaMemcpy") != 0 && rc == EXIT_OK)
            rc = EXIT_FAIL;
    }
    if (rc == EXIT_MISMATCH) fprintf(stderr, "gpuprim bench select: a result differs from the CPU backend's or CUB's\n");
    report_free(&r);
    gp_ctx_destroy(cpu);
    gp_ctx_destroy(ctx);
    return rc;
}

const verb_t bench_suite_select = {"select", "", "gp_select / gp_partition / gp_unique / gp_run_length_encode against CUB", &spec_bench_select, suite_select, NULL};
