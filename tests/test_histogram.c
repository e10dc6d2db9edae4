/*
 * test_histogram.c — CPU tests of gp_histogram_even / _range / _direct: every dtype x mode x bin count (1 .. 2^20)
 * against the binary-search reference, values at lo, hi and every edge, NaN and -0.0, skew (one bin), u32 and u64
 * counts, n = 0 and 1, errors (nothing written).
 */
#include "hist_common.h"

static void check(gp_ctx_t *ctx, gp_dtype_t dt, int mode, size_t nbins, size_t n, int skew)
{
    double lo, hi;
    hc_range(dt, nbins, &lo, &hi);
    double *edges = mode == 1 ? malloc((nbins + 1) * sizeof *edges) : NULL;
    if (edges) hc_edges(edges, nbins, lo, hi);
    const size_t es = gp_dtype_size(dt);
    void *x = malloc(n * es + 8);
    if (mode == 2) {
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = tc_next();
            double v = skew ? (double)(nbins / 2) : (double)(r % (nbins + 6)) - (dt == GP_I32 ? 3.0 : 0.0);
            hc_put(x, dt, i, v);
        }
    } else {
        hc_fill(x, dt, n, lo, hi, nbins, edges, skew);
    }
    uint64_t *want = malloc((nbins + 3) * 8), *got = malloc((nbins + 3) * 8);
    uint32_t *got32 = malloc((nbins + 3) * 4);
    hc_reference(x, dt, n, mode, nbins, lo, hi, edges, want);
    memset(got, 0xa5, (nbins + 3) * 8);
    gp_status_t st = mode == 0 ? gp_histogram_even(ctx, dt, n, x, nbins, lo, hi, GP_U64, got, NULL)
                     : mode == 1 ? gp_histogram_range(ctx, dt, n, x, nbins, edges, GP_U64, got, NULL)
                                 : gp_histogram_direct(ctx, dt, n, x, nbins, GP_U64, got, NULL);
    OK(st);
    size_t bad = 0, first = 0;
    for (size_t b = 0; b < nbins + 3; b++)
        if (got[b] != want[b] && !bad++) first = b;
    CHECK(bad == 0, "%s mode %d nbins %zu n %zu skew %d: %zu slots differ (first %zu: %llu vs %llu)", gp_dtype_name(dt),
          mode, nbins, n, skew, bad, first, (unsigned long long)got[first], (unsigned long long)want[first]);
    if (mode == 0) {
        OK(gp_histogram_even(ctx, dt, n, x, nbins, lo, hi, GP_U32, got32, NULL));
        size_t bad32 = 0;
        for (size_t b = 0; b < nbins + 3; b++) bad32 += got32[b] != (uint32_t)want[b];
        CHECK(bad32 == 0, "%s u32 counts: %zu slots differ", gp_dtype_name(dt), bad32);
    }
    free(x), free(want), free(got), free(got32), free(edges);
}

static void test_errors(gp_ctx_t *ctx)
{
    float x[4] = {1, 2, 3, 4};
    uint32_t c[8];
    memset(c, 0x5a, sizeof c);
    CHECK_ST(gp_histogram_even(ctx, GP_I8, 4, x, 2, 0, 1, GP_U32, c, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_histogram_even(ctx, GP_F32, 4, x, 0, 0, 1, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "nbins is 0") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_histogram_even(ctx, GP_F32, 4, x, 2, 1, 1, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_histogram_even(ctx, GP_F32, 4, x, 2, 0, INFINITY, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_histogram_even(ctx, GP_F32, 4, x, 2, 0, 1, GP_F32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_histogram_even(ctx, GP_F32, 4, NULL, 2, 0, 1, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_histogram_even(ctx, GP_F32, 4, x, 2, 0, 1, GP_U32, NULL, NULL), GP_ERR_INVALID_ARG);
    const double bad_edges[3] = {0, 2, 1}, nan_edges[3] = {0, NAN, 1};
    CHECK_ST(gp_histogram_range(ctx, GP_F32, 4, x, 2, bad_edges, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "edges must increase") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_histogram_range(ctx, GP_F32, 4, x, 2, nan_edges, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_histogram_range(ctx, GP_F32, 4, x, 2, NULL, GP_U32, c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_histogram_direct(ctx, GP_F32, 4, x, 2, GP_U32, c, NULL), GP_ERR_UNSUPPORTED);
    CHECK(c[0] == 0x5a5a5a5a && c[7] == 0x5a5a5a5a, "counts written on error");
    /* a worked example: [0, 1) in 4 bins; 0.25 opens bin 1; 1.0 is above; NaN counted apart */
    const float v[7] = {0.0f, 0.25f, 0.5f, 0.999f, 1.0f, -0.5f, NAN};
    OK(gp_histogram_even(ctx, GP_F32, 7, v, 4, 0, 1, GP_U32, c, NULL));
    CHECK(c[0] == 1 && c[1] == 1 && c[2] == 1 && c[3] == 1 && c[4] == 1 && c[5] == 1 && c[6] == 1,
          "example: %u %u %u %u | %u %u %u", c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
    OK(gp_histogram_even(ctx, GP_F32, 0, NULL, 4, 0, 1, GP_U32, c, NULL));
    CHECK(c[0] == 0 && c[6] == 0, "n = 0 gives zeros");
}

int main(void)
{
    tc_seed("test_histogram");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    for (size_t d = 0; d < sizeof hc_dtypes / sizeof hc_dtypes[0]; d++) {
        const long before = tc_fail;
        for (int mode = 0; mode < 3; mode++) {
            if (mode == 2 && hc_float(hc_dtypes[d])) continue;
            for (size_t b = 0; b < sizeof hc_bins / sizeof hc_bins[0]; b++) {
                const size_t nb = hc_bins[b];
                if (hc_dtypes[d] == GP_U8 && mode != 2 && nb > 256) continue; /* more bins than values: still fine, but slow */
                check(ctx, hc_dtypes[d], mode, nb, nb >= 65536 ? 200003 : 100003, 0);
                if (nb == 256) check(ctx, hc_dtypes[d], mode, nb, 100003, 1);
            }
            check(ctx, hc_dtypes[d], mode, 7, 1, 0);
        }
        printf("  %-4s even, range%s, bins 1 .. 2^20, skew: %s\n", gp_dtype_name(hc_dtypes[d]),
               hc_float(hc_dtypes[d]) ? "" : ", direct", tc_fail == before ? "ok" : "FAILED");
    }
    long before = tc_fail;
    hc_check_accumulate(ctx, NULL);
    hc_check_closed(ctx, NULL);
    hc_numpy = 1; /* NumPy's edges (float edges for f32) */
    hc_check_accumulate(ctx, NULL);
    hc_check_closed(ctx, NULL);
    hc_numpy = 0;
    printf("  gp_histogram_accumulate (even, range, direct; pieces, u32 wrap, refusals): %s\n",
           tc_fail == before ? "ok" : "FAILED");
    test_errors(ctx);
    gp_ctx_destroy(ctx);
    return tc_finish("test_histogram");
}
