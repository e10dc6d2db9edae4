/*
 * gpu_histogram.c — GPU tests of the histograms: every dtype x mode x bin count (1 .. 2^20; the shared-memory path
 * up to 12285 bins, global atomics beyond) equal to the CPU backend's counts and to the binary-search reference,
 * u32 and u64 counts, skew (every value in one bin), n = 0, 1 and 2^26 + 3, a stream, errors (nothing written).
 * Exit 77 without a GPU. GP_TEST_QUICK=1 (compute-sanitizer): smaller n, bins up to 4096.
 */
#include "hist_common.h"

static int g_quick;

static void check(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, int mode, size_t nbins, size_t n, int skew)
{
    double lo, hi;
    hc_range(dt, nbins, &lo, &hi);
    double *edges = mode == 1 ? malloc((nbins + 1) * sizeof *edges) : NULL;
    if (edges) hc_edges(edges, nbins, lo, hi);
    const size_t es = gp_dtype_size(dt);
    void *x = malloc(n * es + 8);
    if (mode == 2)
        for (size_t i = 0; i < n; i++)
            hc_put(x, dt, i, skew ? (double)(nbins / 2) : (double)(tc_next() % (nbins + 6)) - (dt == GP_I32 ? 3.0 : 0.0));
    else
        hc_fill(x, dt, n, lo, hi, nbins, edges, skew);
    uint64_t *want = malloc((nbins + 3) * 8), *got = malloc((nbins + 3) * 8);
    uint32_t *got32 = malloc((nbins + 3) * 4);
    hc_reference(x, dt, n, mode, nbins, lo, hi, edges, want);
    gp_buffer_t dx, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 8, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (nbins + 3) * 8, &dc));
    OK(gp_memcpy_sync(ctx, dx.device, x, n * es));
    for (int c64 = 1; c64 >= 0; c64--) {
        const gp_dtype_t cdt = c64 ? GP_U64 : GP_U32;
        OK(gp_memset(ctx, dc.device, 0xa5, (nbins + 3) * 8, NULL));
        OK(gp_stream_sync(ctx, NULL));
        gp_status_t st = mode == 0 ? gp_histogram_even(ctx, dt, n, dx.device, nbins, lo, hi, cdt, dc.device, s)
                         : mode == 1 ? gp_histogram_range(ctx, dt, n, dx.device, nbins, edges, cdt, dc.device, s)
                                     : gp_histogram_direct(ctx, dt, n, dx.device, nbins, cdt, dc.device, s);
        OK(st);
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, c64 ? (void *)got : (void *)got32, dc.device, (nbins + 3) * gp_dtype_size(cdt)));
        size_t bad = 0, first = 0;
        for (size_t b = 0; b < nbins + 3; b++)
            if ((c64 ? got[b] : (uint64_t)got32[b]) != (c64 ? want[b] : (uint32_t)want[b]) && !bad++) first = b;
        CHECK(bad == 0, "%s mode %d nbins %zu n %zu skew %d %s: %zu slots differ (first %zu: want %llu)",
              gp_dtype_name(dt), mode, nbins, n, skew, gp_dtype_name(cdt), bad, first,
              (unsigned long long)want[first]);
    }
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
    free(x), free(want), free(got), free(got32), free(edges);
}

int main(void)
{
    tc_require_gpu("gpu_histogram");
    tc_seed("gpu_histogram");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s;
    OK(gp_stream_create(ctx, &s));
    for (size_t d = 0; d < sizeof hc_dtypes / sizeof hc_dtypes[0]; d++) {
        const long before = tc_fail;
        for (int mode = 0; mode < 3; mode++) {
            if (mode == 2 && hc_float(hc_dtypes[d])) continue;
            for (size_t b = 0; b < sizeof hc_bins / sizeof hc_bins[0]; b++) {
                const size_t nb = hc_bins[b];
                if (g_quick && nb > 4096) continue;
                check(ctx, s, hc_dtypes[d], mode, nb, g_quick ? 30011 : 1000003, 0);
                if (nb == 256 || nb == 65536) check(ctx, s, hc_dtypes[d], mode, nb, g_quick ? 30011 : 1000003, 1);
            }
            check(ctx, s, hc_dtypes[d], mode, 7, 1, 0);
            check(ctx, s, hc_dtypes[d], mode, 7, 0, 0);
        }
        if (!g_quick) check(ctx, s, hc_dtypes[d], 0, 256, ((size_t)1 << 26) + 3, 0);
        printf("  %-4s even, range%s, bins 1 .. 2^20, skew, GPU == reference: %s\n", gp_dtype_name(hc_dtypes[d]),
               hc_float(hc_dtypes[d]) ? "" : ", direct", tc_fail == before ? "ok" : "FAILED");
    }
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_histogram");
}
