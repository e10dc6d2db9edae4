/*
 * gpu_histogram.c — GPU tests of the histograms. Every dtype x mode (even, range, direct) x bin count (1, 2, 255, 256,
 * 257, 4096, 65536, 2^20) through the public API (automatic strategy) and through every counting strategy forced
 * (global, block, warp, lane, lane_rmw, cluster — where it can hold the bins), u32 and u64 counts poisoned before,
 * against the binary-search reference; skew (every value in one bin); inputs at odd element offsets (the unaligned
 * head) and odd sizes; the integer-width binners (ident, shift, multiply-high) on ranges made for them; every cluster
 * size 2, 3, 4, 8, 16; accumulation over pieces equal to the whole; n = 0 and 1; > 2^32 elements (u8, u32 counts wrapping);
 * errors. Exit 77 without a GPU. GP_TEST_QUICK=1 (compute-sanitizer): small n, bins up to 65536, every strategy
 * forced on 2, 257 and 65536 bins only, no huge case.
 */
#include "hist_common.h"
#include "histogram/histogram_internal.h"

static int g_quick;
static int g_seen[GP__HS_COUNT][8]; /* strategy x binner kind exercised (ident int f32 f64 range lut) */

/* One case: data x (host, n values at element offset off of the device copy), bins; checks the public API (mode
 * auto) and, when all, every strategy forced. */
static void run_case(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, int mode, size_t nbins, double lo, double hi,
                     const double *edges, const void *x, size_t n, size_t off, int all, const char *what)
{
    const size_t es = gp_dtype_size(dt), S = nbins + 3;
    uint64_t *want = malloc(S * 8), *got = malloc(S * 8);
    hc_reference(x, dt, n, mode, nbins, lo, hi, edges, want);
    gp_buffer_t dx, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (n + off) * es + 16, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, S * 8, &dc));
    void *xd = (char *)dx.device + off * es;
    OK(gp_memcpy_sync(ctx, xd, x, n * es));
    gp__hist_spec_t spec = {mode == 0 ? GP__HIST_EVEN : mode == 1 ? GP__HIST_RANGE : GP__HIST_DIRECT, nbins, lo, hi,
                            mode == 0 ? (double)nbins / (hi - lo) : 0, edges};
    for (int strat = -1; strat < (all ? GP__HS_COUNT : 0); strat++) {
        for (int c64 = 1; c64 >= 0; c64--) {
            const gp_dtype_t cdt = c64 ? GP_U64 : GP_U32;
            const int accumulate = strat < 0 && mode == 0 && hc_numpy; /* NumPy's edges: the bins' flag */
            OK(gp_memset(ctx, dc.device, accumulate ? 0 : 0xa5, S * 8, NULL));
            OK(gp_stream_sync(ctx, NULL));
            gp_status_t st;
            gp__hist_plan_t plan = {-1, -1, 0, 0, 0, 0};
            if (accumulate) {
                const gp_hist_bins_t bins = {GP_HIST_EVEN, nbins, lo, hi, NULL, 0, 1};
                st = gp_histogram_accumulate(ctx, dt, n, xd, &bins, cdt, dc.device, s);
            } else if (strat < 0) {
                st = mode == 0 ? gp_histogram_even(ctx, dt, n, xd, nbins, lo, hi, cdt, dc.device, s)
                     : mode == 1 ? gp_histogram_range(ctx, dt, n, xd, nbins, edges, cdt, dc.device, s)
                                 : gp_histogram_direct(ctx, dt, n, xd, nbins, cdt, dc.device, s);
            } else {
                st = gp__hist_gpu_ops.run(ctx, &spec, dt, n, xd, cdt, dc.device, (cudaStream_t)s, strat, 0, 0, &plan);
                if (st == GP_ERR_UNSUPPORTED) continue; /* this strategy cannot hold these bins */
            }
            OK(st);
            if (st != GP_OK) continue;
            if (strat >= 0 && plan.strategy >= 0 && plan.kind >= 0) g_seen[plan.strategy][plan.kind] = 1;
            OK(gp_stream_sync(ctx, s));
            OK(gp_memcpy_sync(ctx, got, dc.device, S * gp_dtype_size(cdt)));
            size_t bad = 0, first = 0;
            for (size_t b = 0; b < S; b++) {
                const uint64_t g = c64 ? got[b] : ((const uint32_t *)got)[b];
                if (g != (c64 ? want[b] : (uint32_t)want[b]) && !bad++) first = b;
            }
            CHECK(bad == 0, "%s %s mode %d nbins %zu n %zu off %zu %s strategy %s (%s): %zu slots differ (first %zu: "
                  "want %llu got %llu)", what, gp_dtype_name(dt), mode, nbins, n, off, gp_dtype_name(cdt),
                  gp__hist_gpu_ops.strategy_name(strat), strat >= 0 ? gp__hist_gpu_ops.kind_name(plan.kind) : "auto", bad, first,
                  (unsigned long long)want[first],
                  (unsigned long long)(c64 ? got[first] : ((const uint32_t *)got)[first]));
        }
    }
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
    free(want), free(got);
}

static void check(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, int mode, size_t nbins, size_t n, int skew, int all)
{
    double lo, hi;
    hc_range(dt, nbins, &lo, &hi);
    double *edges = mode == 1 ? malloc((nbins + 1) * sizeof *edges) : NULL;
    if (edges) hc_edges(edges, nbins, lo, hi);
    void *x = malloc(n * gp_dtype_size(dt) + 8);
    if (mode == 2)
        for (size_t i = 0; i < n; i++)
            hc_put(x, dt, i, skew ? (double)(nbins / 2) : (double)(tc_next() % (nbins + 6)) - (dt == GP_I32 ? 3.0 : 0.0));
    else
        hc_fill(x, dt, n, lo, hi, nbins, edges, skew);
    run_case(ctx, s, dt, mode, nbins, lo, hi, edges, x, n, (nbins + n) % 3, all, skew ? "skew" : "mixed");
    free(x), free(edges);
}

/* Range edges near even ones: edge k moved off lo + (hi - lo) k / nbins by up to p bins (p < 1/128: the estimate
 * is tried and trusted only farther than p from an edge; larger p: binary search). Values sit at the edges, beside
 * them within 2p bins, and anywhere; every strategy forced where `all`. */
static void check_near_even(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, size_t nbins, size_t n, double p, int all)
{
    double lo, hi;
    hc_range(dt, nbins, &lo, &hi);
    const double w = (hi - lo) / (double)nbins;
    double *e = malloc((nbins + 1) * sizeof *e);
    for (size_t k = 0; k <= nbins; k++) {
        const double u = (double)(tc_next() >> 11) * 0x1p-53 * 2 - 1;
        e[k] = lo + ((hi - lo) * (double)k) / (double)nbins + (k % 3 ? u * p * w : 0); /* some edges exactly even */
        if (dt == GP_F32) e[k] = (double)(float)e[k];
        if (k > 0 && !(e[k] > e[k - 1])) e[k] = nextafter(e[k - 1], INFINITY);
    }
    void *x = malloc(n * gp_dtype_size(dt) + 8);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tc_next();
        const double ed = e[(r >> 8) % (nbins + 1)], u = (double)(r >> 40) * 0x1p-24 * 2 - 1;
        double v = r % 4 == 0 ? ed : r % 4 == 1 ? ed + u * 2 * p * w : lo - 0.1 * (hi - lo) + 1.2 * (hi - lo) * u * u;
        if (r % 64 == 2) v = nextafter(ed, (r >> 7) & 1 ? INFINITY : -INFINITY);
        if (r % 64 == 3 && dt == GP_F32) v = nextafterf((float)ed, (r >> 7) & 1 ? INFINITY : -INFINITY);
        hc_put(x, dt, i, v);
    }
    /* the binner the automatic choice takes: the estimate within the bound, the search past it */
    gp_buffer_t dx, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * gp_dtype_size(dt) + 8, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (nbins + 3) * 8, &dc));
    OK(gp_memcpy_sync(ctx, dx.device, x, n * gp_dtype_size(dt)));
    const gp__hist_spec_t spec = {GP__HIST_RANGE, nbins, e[0], e[nbins], 0, e};
    gp__hist_plan_t plan = {-1, -1, 0, 0, 0, 0};
    OK(gp__hist_gpu_ops.run(ctx, &spec, dt, n, dx.device, GP_U64, dc.device, (cudaStream_t)s, GP__HS_AUTO, 0, 0,
                            &plan));
    OK(gp_stream_sync(ctx, s));
    const char *kind = gp__hist_gpu_ops.kind_name(plan.kind), *want = p >= 1.0 / 128 ? "range" : dt == GP_F32 ? "f32"
                                                                                                         : "f64";
    CHECK(strcmp(kind, want) == 0, "near-even edges %s p %g: binner %s, want %s", gp_dtype_name(dt), p, kind, want);
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
    char what[64];
    snprintf(what, sizeof what, "near-even edges (p = %g bins)", p);
    run_case(ctx, s, dt, 1, nbins, lo, hi, e, x, n, 1, all, what);
    free(x), free(e);
}

/* Even bins made for the integer binners: [lo, lo + w * nbins) with integer w (ident: u8/u16 over [0, 2^bits) with
 * width 1; shift: w a power of two; multiply-high: other w), values across and beyond the range. */
static void check_int_widths(gp_ctx_t *ctx, gp_stream_t s, size_t n)
{
    static const struct {
        gp_dtype_t dt;
        double lo;
        double w;
        size_t nbins;
    } c[] = {
        {GP_U8, 0, 1, 256},       {GP_U8, 0, 4, 64},      {GP_U8, 10, 3, 77},       {GP_U8, 0, 1, 200},
        {GP_U16, 0, 1, 65536},    {GP_U16, 100, 7, 9000}, {GP_U16, 0, 256, 256},    {GP_I32, -5000, 1, 10000},
        {GP_I32, -1000000, 13, 250}, {GP_I32, -2147483648.0, 16777216, 256}, {GP_U32, 0, 4294967296.0, 1},
        {GP_U32, 7, 1000003, 4096}, {GP_U32, 0, 1, 257},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        const double lo = c[k].lo, hi = c[k].lo + c[k].w * (double)c[k].nbins;
        void *x = malloc(n * gp_dtype_size(c[k].dt) + 8);
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = tc_next();
            double v = r % 8 == 0 ? lo + c[k].w * (double)((r >> 8) % (c[k].nbins + 1)) - (double)((r >> 40) % 2)
                                  : lo - 0.05 * (hi - lo) + 1.1 * (hi - lo) * (double)(r >> 11) * 0x1p-53;
            hc_put(x, c[k].dt, i, floor(v));
        }
        run_case(ctx, s, c[k].dt, 0, c[k].nbins, lo, hi, NULL, x, n, k % 2, 1, "int-width");
        free(x);
    }
}

/* Every cluster size on 65536 bins (f32), and 16 (non-portable) where the device allows it. */
static void check_clusters(gp_ctx_t *ctx, gp_stream_t s, size_t n)
{
    const size_t nbins = 65536;
    double lo, hi;
    hc_range(GP_F32, nbins, &lo, &hi);
    float *x = malloc(n * sizeof *x);
    hc_fill(x, GP_F32, n, lo, hi, nbins, NULL, 0);
    uint64_t *want = malloc((nbins + 3) * 8), *got = malloc((nbins + 3) * 8);
    hc_reference(x, GP_F32, n, 0, nbins, lo, hi, NULL, want);
    gp_buffer_t dx, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (nbins + 3) * 8, &dc));
    OK(gp_memcpy_sync(ctx, dx.device, x, n * 4));
    gp__hist_spec_t spec = {GP__HIST_EVEN, nbins, lo, hi, (double)nbins / (hi - lo), NULL};
    static const int sizes[] = {2, 3, 4, 8, 16};
    for (size_t ci = 0; ci < sizeof sizes / sizeof sizes[0]; ci++) {
        const int c = sizes[ci];
        OK(gp_memset(ctx, dc.device, 0xa5, (nbins + 3) * 8, NULL));
        gp__hist_plan_t plan;
        gp_status_t st = gp__hist_gpu_ops.run(ctx, &spec, GP_F32, n, dx.device, GP_U64, dc.device, (cudaStream_t)s,
                                         GP__HS_CLUSTER, c, 0, &plan);
        if (st == GP_ERR_UNSUPPORTED && c == 16) {
            printf("  cluster size 16: not available here (%s)\n", gp_last_error());
            continue;
        }
        OK(st);
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, got, dc.device, (nbins + 3) * 8));
        size_t bad = 0;
        for (size_t b = 0; b < nbins + 3; b++) bad += got[b] != want[b];
        CHECK(bad == 0 && plan.cluster == c, "cluster %d (ran %d): %zu slots differ", c, plan.cluster, bad);
    }
    /* accumulation: three pieces added into the same counts equal the whole */
    OK(gp_memset(ctx, dc.device, 0, (nbins + 3) * 8, NULL));
    const size_t cut[4] = {0, n / 3 + 1, n / 3 + 2, n};
    for (int p = 0; p < 3; p++)
        OK(gp__hist_gpu_ops.run(ctx, &spec, GP_F32, cut[p + 1] - cut[p], (float *)dx.device + cut[p], GP_U64, dc.device,
                           (cudaStream_t)s, p == 1 ? GP__HS_GLOBAL : GP__HS_AUTO, 0, 1, NULL));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, got, dc.device, (nbins + 3) * 8));
    size_t bad = 0;
    for (size_t b = 0; b < nbins + 3; b++) bad += got[b] != want[b];
    CHECK(bad == 0, "accumulated pieces: %zu slots differ", bad);
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
    free(x), free(want), free(got);
}

/* More than 2^32 u8 values (4 GiB + 77): u32 counts wrap modulo 2^32, u64 counts exact. */
static void check_huge(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = ((size_t)1 << 32) + 77;
    gp_buffer_t dx, dc;
    if (gp_mem_alloc(ctx, GP_MEM_DEVICE, n, &dx) != GP_OK) {
        printf("  > 2^32 elements: skipped (%s)\n", gp_last_error());
        return;
    }
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 259 * 8, &dc));
    /* byte i = i mod 251: counts known in closed form */
    const size_t blk = (size_t)251 << 20;
    uint8_t *h = malloc(blk);
    for (size_t i = 0; i < blk; i++) h[i] = (uint8_t)(i % 251);
    for (size_t o = 0; o < n; o += blk) OK(gp_memcpy_sync(ctx, (char *)dx.device + o, h, n - o < blk ? n - o : blk));
    uint64_t want[259] = {0};
    for (int v = 0; v < 251; v++) want[v] = n / 251 + ((size_t)v < n % 251);
    uint64_t got[259];
    uint32_t got32[259];
    OK(gp_histogram_even(ctx, GP_U8, n, dx.device, 256, 0, 256, GP_U64, dc.device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, got, dc.device, sizeof got));
    OK(gp_histogram_even(ctx, GP_U8, n, dx.device, 256, 0, 256, GP_U32, dc.device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, got32, dc.device, sizeof got32));
    size_t bad = 0;
    for (int b = 0; b < 259; b++) bad += got[b] != want[b] || got32[b] != (uint32_t)want[b];
    CHECK(bad == 0, "u8 n = 2^32 + 77: %zu slots differ (bin 0: %llu vs %llu)", bad, (unsigned long long)got[0],
          (unsigned long long)want[0]);
    printf("  u8 n = 2^32 + 77, 256 bins: u64 exact, u32 wrapped: %s\n", bad ? "FAILED" : "ok");
    free(h);
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dc);
}

static void check_errors(gp_ctx_t *ctx)
{
    gp_buffer_t dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 64, &dc));
    float x = 1;
    gp__hist_spec_t spec = {GP__HIST_EVEN, 5, 0, 1, 5, NULL};
    CHECK_ST(gp__hist_gpu_ops.run(ctx, &spec, GP_F32, 1, &x, GP_U32, dc.device, NULL, GP__HS_COUNT, 0, 0, NULL),
             GP_ERR_INVALID_ARG);
    spec.nbins = 4096;
    CHECK_ST(gp__hist_gpu_ops.run(ctx, &spec, GP_F32, 1, &x, GP_U32, dc.device, NULL, GP__HS_LANE, 0, 0, NULL),
             GP_ERR_UNSUPPORTED);
    CHECK_ST(gp__hist_gpu_ops.run(ctx, &spec, GP_F32, 1, &x, GP_U32, dc.device, NULL, GP__HS_CLUSTER, 17, 0, NULL),
             GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "cluster size 17") != NULL, "%s", gp_last_error());
    spec.nbins = (size_t)1 << 31;
    CHECK_ST(gp__hist_gpu_ops.run(ctx, &spec, GP_F32, 1, &x, GP_U32, dc.device, NULL, GP__HS_AUTO, 0, 0, NULL),
             GP_ERR_UNSUPPORTED);
    gp_mem_free(ctx, &dc);
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
    const size_t n = g_quick ? 30011 : 1000003;
    for (size_t d = 0; d < sizeof hc_dtypes / sizeof hc_dtypes[0]; d++) {
        const long before = tc_fail;
        for (int mode = 0; mode < 3; mode++) {
            if (mode == 2 && hc_float(hc_dtypes[d])) continue;
            for (size_t b = 0; b < sizeof hc_bins / sizeof hc_bins[0]; b++) {
                const size_t nb = hc_bins[b];
                if (g_quick && nb > 65536) continue;
                const int all = !g_quick || nb == 2 || nb == 257 || nb == 65536; /* every strategy forced */
                check(ctx, s, hc_dtypes[d], mode, nb, n, 0, all);
                if (nb == 256 || nb == 65536 || nb == 1) check(ctx, s, hc_dtypes[d], mode, nb, n, 1, all);
            }
            check(ctx, s, hc_dtypes[d], mode, 7, 1, 0, 1);
            check(ctx, s, hc_dtypes[d], mode, 7, 0, 0, 1);
            check(ctx, s, hc_dtypes[d], mode, 300, 37, 0, 1);
        }
        if (!g_quick) check(ctx, s, hc_dtypes[d], 0, 256, ((size_t)1 << 26) + 3, 0, 0);
        printf("  %-4s even, range%s; bins 1 .. 2^20; every strategy; skew; GPU == reference: %s\n",
               gp_dtype_name(hc_dtypes[d]), hc_float(hc_dtypes[d]) ? "" : ", direct",
               tc_fail == before ? "ok" : "FAILED");
    }
    long before = tc_fail;
    check_int_widths(ctx, s, n);
    printf("  integer widths (ident, shift, multiply-high), every strategy: %s\n", tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    check_clusters(ctx, s, g_quick ? 100003 : 4000037);
    printf("  cluster sizes 2, 3, 4, 8, 16 (65536 bins), accumulated pieces: %s\n", tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    hc_check_accumulate(ctx, s);
    hc_check_closed(ctx, s);
    printf("  gp_histogram_accumulate (even, range, direct; pieces, u32 wrap, refusals): %s\n",
           tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    hc_numpy = 1; /* NumPy's edges (float edges for f32; run as range bins): 2 .. 2^20 bins, accumulated, closed */
    static const size_t nbs[] = {2, 257, 4096, 65536, (size_t)1 << 20};
    for (size_t d = 0; d < 2; d++)
        for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; b++) check(ctx, s, d ? GP_F64 : GP_F32, 0, nbs[b], n, 0, 0);
    hc_check_accumulate(ctx, s);
    hc_check_closed(ctx, s);
    hc_numpy = 0;
    printf("  NumPy's edges (f32, f64; accumulated; closed last bin): %s\n", tc_fail == before ? "ok" : "FAILED");
    before = tc_fail;
    static const gp_dtype_t near_dt[] = {GP_I32, GP_U32, GP_F32, GP_F64};
    for (size_t d = 0; d < sizeof near_dt / sizeof near_dt[0]; d++) {
        check_near_even(ctx, s, near_dt[d], 100, n, 1e-3, 1);
        check_near_even(ctx, s, near_dt[d], 100, n, 0.0, 0);
        check_near_even(ctx, s, near_dt[d], 4096, n, 1e-5, 0);
        check_near_even(ctx, s, near_dt[d], 257, n, 0.02, 0); /* past the bound: searched */
    }
    printf("  range edges near even ones (estimated, then searched near an edge): %s\n",
           tc_fail == before ? "ok" : "FAILED");
    if (!g_quick) check_huge(ctx, s);
    check_errors(ctx);
    printf("  strategy x binner exercised:");
    for (int st = 0; st < GP__HS_COUNT; st++) {
        printf(" %s[", gp__hist_gpu_ops.strategy_name(st));
        for (int k = 0; k < 6; k++)
            if (g_seen[st][k]) printf(" %s", gp__hist_gpu_ops.kind_name(k));
        printf(" ]");
    }
    printf("\n");
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_histogram");
}
