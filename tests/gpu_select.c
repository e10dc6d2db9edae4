/*
 * gpu_select.c — gp_select / gp_partition on the GPU against the independent reference of select_common.h: every
 * dtype x the predicate table at sizes across the scan's tile and look-back edges, outputs poisoned first, the count
 * written to device memory and by the _sync calls, device flags, a graph replay, and past 2^32 elements (u8, where
 * memory allows: the flags and positions go 64-bit); gp_unique and gp_run_length_encode against the runs from the
 * definition. Each on both single-pass kernels, forced: the block-per-tile kernel and the tile engine (sm_90; 2- to
 * 8-byte types, n >= 2^16). Exit 77 without a GPU. GP_TEST_QUICK=1: small sizes (the engine's smallest);
 * GP_TEST_FILTER=engine: the tile engine's pass alone (compute-sanitizer).
 */
#include "select_common.h"

#include "scan/scan_internal.h"

static int g_quick;
static size_t g_min_n; /* sizes below it skipped (the tile engine's pass: it takes n >= 2^16) */
/* the single-pass tile is 1024 16-byte vectors: 2048 (8-byte types) ... 16384 (1-byte) elements */
static const size_t k_sizes[] = {1, 2, 2047, 2049, 4095, 4097, 8193, 16385, 33 * 4096 + 5, 5 * 16384 + 3,
                                 (1u << 20) + 3};

static void test_dtype(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt), maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1];
    unsigned char *hx = malloc(maxn * es), *ref = malloc(maxn * es), *got = malloc(maxn * es);
    gp_buffer_t dx, dy, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * es, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * es, &dy));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &dc));
    const long before = tc_fail;
    for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
        const size_t n = k_sizes[si];
        if ((g_quick && n > (g_min_n ? 100000 : 5000)) || n < g_min_n) continue;
        sel_fill(hx, n, dt);
        OK(gp_memcpy_sync(ctx, dx.device, hx, n * es));
        for (size_t pi = 0; pi < NPREDS; pi++)
            for (int part = 0; part < 2; part++) {
                const size_t want = sel_reference(&k_preds[pi], dt, n, hx, part, ref);
                OK(gp_memset(ctx, dy.device, 0xa5, n * es, s));
                OK(gp_memset(ctx, dc.device, 0xff, 8, s));
                OK((part ? gp_partition : gp_select)(ctx, dt, n, dx.device, &k_preds[pi], dy.device, dc.device, s));
                OK(gp_stream_sync(ctx, s));
                uint64_t c = 0;
                OK(gp_memcpy_sync(ctx, &c, dc.device, 8));
                OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
                CHECK(c == want, "%s pred %zu n=%zu %s: count %llu, want %zu", gp_dtype_name(dt), pi, n,
                      part ? "partition" : "select", (unsigned long long)c, want);
                CHECK(memcmp(got, ref, (part ? n : want) * es) == 0, "%s pred %zu n=%zu %s: elements differ",
                      gp_dtype_name(dt), pi, n, part ? "partition" : "select");
                size_t stray = 0;
                for (size_t i = want * es; !part && i < n * es; i++) stray += got[i] != 0xa5;
                CHECK(stray == 0, "%s select n=%zu wrote %zu bytes past its count", gp_dtype_name(dt), n, stray);
            }
    }
    /* x one element past a 16-byte boundary: the tiles' scalar path */
    {
        const size_t n = 70001; /* past the engine's least n: a misaligned x falls back */
        sel_fill(hx, n, dt);
        OK(gp_memcpy_sync(ctx, (char *)dx.device + es, hx, n * es));
        for (int part = 0; part < 2; part++) {
            const size_t want = sel_reference(&k_preds[1], dt, n, hx, part, ref);
            OK(gp_memset(ctx, dc.device, 0xff, 8, s));
            OK((part ? gp_partition : gp_select)(ctx, dt, n, (char *)dx.device + es, &k_preds[1], dy.device,
                                                 dc.device, s));
            OK(gp_stream_sync(ctx, s));
            uint64_t c = 0;
            OK(gp_memcpy_sync(ctx, &c, dc.device, 8));
            OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
            CHECK(c == want && memcmp(got, ref, (part ? n : want) * es) == 0, "%s unaligned x %s differs",
                  gp_dtype_name(dt), part ? "partition" : "select");
        }
    }
    /* device flags, and the _sync count */
    const size_t n = 4097 * 17; /* past the engine's least n */
    uint8_t *hf = malloc(n);
    for (size_t i = 0; i < n; i++) hf[i] = (uint8_t)(tc_next() % 3 == 0 ? 1 + tc_next() % 255 : 0);
    gp_buffer_t df;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n, &df));
    OK(gp_memcpy_sync(ctx, df.device, hf, n));
    sel_fill(hx, n, dt);
    OK(gp_memcpy_sync(ctx, dx.device, hx, n * es));
    const gp_pred_t ph = {GP_PRED_FLAGS, 0, 0, hf}, pd = {GP_PRED_FLAGS, 0, 0, df.device};
    const size_t want = sel_reference(&ph, dt, n, hx, 1, ref);
    size_t c = 0;
    OK(gp_partition_sync(ctx, dt, n, dx.device, &pd, dy.device, &c));
    OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
    CHECK(c == want && memcmp(got, ref, n * es) == 0, "%s flags partition_sync", gp_dtype_name(dt));
    gp_mem_free(ctx, &df);
    free(hf);
    printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before ? "ok" : "FAILED");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy), gp_mem_free(ctx, &dc);
    free(hx), free(ref), free(got);
}

/* gp_unique and gp_run_length_encode on the GPU against the runs from the definition. */
static void test_runs(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt), maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1];
    unsigned char *hx = malloc(maxn * es), *ref = malloc(maxn * es), *got = malloc(maxn * es);
    uint64_t *rlen = malloc(maxn * 8), *glen = malloc(maxn * 8);
    gp_buffer_t dx, dy, dl, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * es, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * es, &dy));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8, &dl));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &dc));
    const long before = tc_fail;
    /* the sizes with short runs, then 2^20 + 3 with runs of ~20000 (tiles without a head: zero aggregates), then
     * one run of them all (no head after the first tile) */
    const size_t nk = sizeof k_sizes / sizeof k_sizes[0];
    for (size_t si = 0; si <= nk + 1; si++) {
        const int lng = si >= nk;
        const size_t n = lng ? maxn : k_sizes[si];
        if ((g_quick && n > (g_min_n ? 100000 : 5000)) || n < g_min_n) continue;
        sel_fill_runs(hx, n, dt);
        for (size_t i = 1; lng && i < n; i++)
            if (si > nk || tc_next() % 20000) memcpy(hx + i * es, hx + (i - 1) * es, es);
        OK(gp_memcpy_sync(ctx, dx.device, hx, n * es));
        const size_t want = sel_runs_reference(dt, n, hx, ref, rlen);
        size_t k = 0;
        OK(gp_memset(ctx, dy.device, 0xa5, n * es, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_unique_sync(ctx, dt, n, dx.device, dy.device, &k));
        OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
        CHECK(k == want && memcmp(got, ref, want * es) == 0, "%s unique n=%zu%s: %zu, want %zu", gp_dtype_name(dt), n,
              lng ? " (long runs)" : "", k, want);
        OK(gp_memset(ctx, dl.device, 0xa5, n * 8, s));
        OK(gp_run_length_encode(ctx, dt, n, dx.device, dy.device, dl.device, dc.device, s));
        OK(gp_stream_sync(ctx, s));
        uint64_t runs = 0;
        OK(gp_memcpy_sync(ctx, &runs, dc.device, 8));
        OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
        OK(gp_memcpy_sync(ctx, glen, dl.device, n * 8));
        CHECK(runs == want && memcmp(got, ref, want * es) == 0 && memcmp(glen, rlen, want * 8) == 0,
              "%s rle n=%zu: %llu runs, want %zu", gp_dtype_name(dt), n, (unsigned long long)runs, want);
    }
    printf("  %-5s unique / rle %s\n", gp_dtype_name(dt), tc_fail == before ? "ok" : "FAILED");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy), gp_mem_free(ctx, &dl), gp_mem_free(ctx, &dc);
    free(hx), free(ref), free(got), free(rlen), free(glen);
}

/* Captured once, replayed twice: the same output. */
static void test_graph(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = 100003;
    float *hx = malloc(n * 4), *ref = malloc(n * 4), *got = malloc(n * 4);
    sel_fill(hx, n, GP_F32);
    gp_buffer_t dx, dy, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &dy));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &dc));
    OK(gp_memcpy_sync(ctx, dx.device, hx, n * 4));
    const size_t want = sel_reference(&k_preds[1], GP_F32, n, hx, 1, ref);
    gp_graph_t *g = NULL;
    OK(gp_graph_begin(ctx, s));
    OK(gp_partition(ctx, GP_F32, n, dx.device, &k_preds[1], dy.device, dc.device, s));
    OK(gp_graph_end(ctx, &g));
    for (int rep = 0; g && rep < 2; rep++) {
        OK(gp_memset(ctx, dy.device, 0, n * 4, s));
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        uint64_t c = 0;
        OK(gp_memcpy_sync(ctx, &c, dc.device, 8));
        OK(gp_memcpy_sync(ctx, got, dy.device, n * 4));
        CHECK(c == want && memcmp(got, ref, n * 4) == 0, "graph replay %d differs", rep);
    }
    if (g) OK(gp_graph_destroy(g));
    printf("  %-5s %s\n", "graph", "done");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy), gp_mem_free(ctx, &dc);
    free(hx), free(ref), free(got);
}

/* Past 2^32 elements: u8 x[i] = i mod 251, keep >= 125 (126 of every 251), sampled. */
static void test_huge(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = ((size_t)1 << 32) + 4099;
    gp_device_info_t info;
    OK(gp_device_info(gp_ctx_device(ctx), &info));
    if (g_quick || info.free_mem_bytes < n * 11 + ((size_t)2 << 30)) {
        printf("  n = 2^32 + 4099: skipped (%s)\n", g_quick ? "quick" : "not enough free memory");
        return;
    }
    const size_t blk = (size_t)251 << 20; /* a multiple of 251: the pattern continues across blocks */
    uint8_t *h = malloc(blk);
    for (size_t i = 0; i < blk; i++) h[i] = (uint8_t)(i % 251);
    gp_buffer_t dx, dy, dc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n, &dy));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &dc));
    for (size_t o = 0; o < n; o += blk) OK(gp_memcpy_sync(ctx, (char *)dx.device + o, h, n - o < blk ? n - o : blk));
    const gp_pred_t p = {GP_PRED_GE, 125, 0, NULL};
    OK(gp_partition(ctx, GP_U8, n, dx.device, &p, dy.device, dc.device, s));
    OK(gp_stream_sync(ctx, s));
    uint64_t c = 0;
    OK(gp_memcpy_sync(ctx, &c, dc.device, 8));
    const size_t full = n / 251, rest = n % 251, want = full * 126 + (rest > 125 ? rest - 125 : 0);
    CHECK(c == want, "n = 2^32 + 4099: count %llu, want %zu", (unsigned long long)c, want);
    size_t bad = 0;
    for (int k = 0; k < 2048; k++) { /* kept j-th: 125 + j % 126; rejected j-th: j % 125 */
        const size_t j = k < 8 ? (size_t)k : tc_next() % want, r = tc_next() % (n - want);
        uint8_t a = 0, b = 0;
        OK(gp_memcpy_sync(ctx, &a, (char *)dy.device + j, 1));
        OK(gp_memcpy_sync(ctx, &b, (char *)dy.device + want + r, 1));
        bad += a != 125 + j % 126;
        bad += b != r % 125;
    }
    CHECK(bad == 0, "n = 2^32 + 4099: %zu of 4096 samples wrong", bad);
    printf("  n = 2^32 + 4099 (u8 partition): %s\n", bad || c != want ? "FAILED" : "ok");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy), gp_mem_free(ctx, &dc);
    free(h);
}

int main(void)
{
    tc_require_gpu("gpu_select");
    tc_seed("gpu_select");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    static const struct {
        gp__scan_kernel_t k;
        const char *name;
    } kernels[] = {{GP__SCAN_KERNEL_LOOKBACK, "block-per-tile kernel"}, {GP__SCAN_KERNEL_ENGINE, "tile engine"}};
    const char *only = getenv("GP_TEST_FILTER");
    const int engine_only = only && strcmp(only, "engine") == 0;
    for (size_t ki = engine_only ? 1 : 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        printf("%s (forced):\n", kernels[ki].name);
        gp__scan_force_kernel(kernels[ki].k);
        g_min_n = kernels[ki].k == GP__SCAN_KERNEL_ENGINE ? (size_t)1 << 16 : 0;
        for (int d = 0; d < GP_DTYPE_COUNT; d++) test_dtype(ctx, s, (gp_dtype_t)d);
        for (int d = 0; d < GP_DTYPE_COUNT; d++) test_runs(ctx, s, (gp_dtype_t)d);
        test_graph(ctx, s);
    }
    gp__scan_force_kernel(GP__SCAN_KERNEL_AUTO);
    g_min_n = 0;
    if (!engine_only) test_huge(ctx, s);
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_select");
}
