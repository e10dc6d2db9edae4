/*
 * gpu_scan_ordered.c — gp_scan_ordered on the GPU gives the CPU backend's bits (docs/design/scan.md) for every op x dtype,
 * inclusive and exclusive, at sizes across the run, tile and look-back-window edges, from pointers one value off
 * (the kernel's unvectorized path) and in place, outputs poisoned first; the last prefix within rounding of the
 * serial left fold; the same bits twice and from a graph replay; first / last of every dtype. Exit 77 without a GPU.
 * GP_TEST_QUICK=1 (compute-sanitizer): small sizes.
 */
#include "ordered_common.h"

#include "scan/scan_internal.h"

static int g_quick;

static void test_ops(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t maxb = (size_t)80 << 20;
    unsigned char *hx = malloc(maxb), *ref = malloc(maxb), *got = malloc(maxb);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxb + 64, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxb + 64, &dy));
    for (size_t o = 0; o < 4; o++)
        for (size_t di = 0; di < 3; di++) {
            const gp_ordered_op_t op = oc_ops[o];
            const gp_dtype_t dt = oc_dtypes[di];
            if (op == GP_ORDERED_AFFINE && dt == GP_U32) continue;
            const size_t R = (size_t)gp__oscan_run(op, dt), t = 256 * R, es = gp_dtype_size(dt),
                         w = gp_ordered_width(op) * es;
            /* 300 tiles: past several look-back windows; the last: as many elements as 80 MiB holds, odd */
            const size_t big = (maxb / w - 3) | 1;
            const size_t sizes[] = {1, 2, R + 1, t - 1, t, t + 1, 33 * t + 5, 300 * t + 7, big};
            const long before = tc_fail;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                const size_t n = sizes[si];
                if (g_quick && n > 40 * t) continue;
                oc_fill(hx, op, dt, n);
                for (int excl = 0; excl < 2; excl++) {
                    OK(gp__oscan_cpu(op, dt, n, hx, ref, excl, NULL, NULL, 1));
                    for (int mode = 0; mode < 3; mode++) { /* 0 aligned, 1 one value off, 2 in place */
                        const size_t off = mode == 1 ? es : 0;
                        char *x = (char *)dx.device + off, *y = mode == 2 ? x : (char *)dy.device + off;
                        OK(gp_memcpy_sync(ctx, x, hx, n * w));
                        if (mode != 2) OK(gp_memset(ctx, y, 0xff, n * w, s));
                        OK(gp_scan_ordered(ctx, op, dt, excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE, n, x, y, s));
                        OK(gp_stream_sync(ctx, s));
                        OK(gp_memcpy_sync(ctx, got, y, n * w));
                        size_t bad = 0, first = 0;
                        for (size_t i = 0; i < n; i++)
                            if (memcmp(got + i * w, ref + i * w, w) != 0 && !bad++) first = i;
                        CHECK(bad == 0, "%s %s n=%zu %s mode %d: %zu differ from the CPU bits, first at %zu",
                              gp_ordered_op_name(op), gp_dtype_name(dt), n, excl ? "exclusive" : "inclusive", mode,
                              bad, first);
                    }
                }
                /* the last inclusive prefix is the product: within rounding of the left fold */
                if (n <= 40 * t) {
                    OK(gp__oscan_cpu(op, dt, n, hx, ref, 0, NULL, NULL, 1));
                    long double rf[16];
                    uint32_t ru[16];
                    oc_reference(op, dt, n, hx, rf, ru);
                    double err = 0;
                    CHECK(oc_close(op, dt, n, ref + (n - 1) * w, rf, ru, oc_tol(dt, n), &err),
                          "%s %s n=%zu: last prefix off the left fold by %.3g", gp_ordered_op_name(op),
                          gp_dtype_name(dt), n, err);
                }
            }
            printf("  %-6s %-4s run %2zu, up to %zu elements: %s\n", gp_ordered_op_name(op), gp_dtype_name(dt), R,
                   g_quick ? 33 * t + 5 : big, tc_fail == before ? "ok" : "FAILED");
        }
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    free(hx), free(ref), free(got);
}

/* affine f32 (the linear recurrence): the same bits three times and from a graph replay */
static void test_determinism(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = g_quick ? 100003 : (size_t)(1u << 24) + 77, w = 8;
    unsigned char *hx = malloc(n * w), *a = malloc(n * w), *b = malloc(n * w);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * w, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * w, &dy));
    oc_fill(hx, GP_ORDERED_AFFINE, GP_F32, n);
    OK(gp_memcpy_sync(ctx, dx.device, hx, n * w));
    OK(gp_scan_ordered(ctx, GP_ORDERED_AFFINE, GP_F32, GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, a, dy.device, n * w));
    for (int rep = 0; rep < 3; rep++) {
        OK(gp_memset(ctx, dy.device, 0xff, n * w, s));
        OK(gp_scan_ordered(ctx, GP_ORDERED_AFFINE, GP_F32, GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, b, dy.device, n * w));
        CHECK(memcmp(a, b, n * w) == 0, "run %d differs", rep);
    }
    gp_graph_t *g = NULL;
    OK(gp_memset(ctx, dy.device, 0xff, n * w, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_graph_begin(ctx, s));
    OK(gp_scan_ordered(ctx, GP_ORDERED_AFFINE, GP_F32, GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
    OK(gp_graph_end(ctx, &g));
    if (g) {
        OK(gp_graph_launch(g, s));
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, b, dy.device, n * w));
        CHECK(memcmp(a, b, n * w) == 0, "graph replay differs");
        OK(gp_graph_destroy(g));
    }
    printf("  determinism, graph replay: done\n");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    free(hx), free(a), free(b);
}

static void test_first_last(gp_ctx_t *ctx, gp_stream_t s)
{
    static const gp_dtype_t all[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64, GP_F16, GP_BF16,
                                     GP_F32, GP_F64};
    const size_t n = 100003;
    unsigned char *hx = malloc(n * 8), *got = malloc(n * 8);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 8, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 8, &dy));
    for (size_t d = 0; d < 12; d++) {
        const size_t es = gp_dtype_size(all[d]);
        tc_fill(hx, n * es, GP_U8);
        OK(gp_memcpy_sync(ctx, dx.device, hx, n * es));
        OK(gp_memset(ctx, dy.device, 0xff, n * es, s));
        OK(gp_scan_ordered(ctx, GP_ORDERED_FIRST, all[d], GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += memcmp(got + i * es, hx, es) != 0;
        CHECK(bad == 0, "first %s: %zu differ", gp_dtype_name(all[d]), bad);
        OK(gp_scan_ordered(ctx, GP_ORDERED_FIRST, all[d], GP_SCAN_INCLUSIVE, n, dx.device, dx.device, s)); /* in place */
        OK(gp_scan_ordered(ctx, GP_ORDERED_LAST, all[d], GP_SCAN_INCLUSIVE, n, dy.device, dx.device, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, hx, dx.device, n * es));
        CHECK(memcmp(got, hx, n * es) == 0, "first in place, last %s", gp_dtype_name(all[d]));
    }
    printf("  first, last: 12 dtypes done\n");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    free(hx), free(got);
}

/* The ordered scanner on the GPU: pieces on two streams (one empty, the last partial) = the CPU's one pass, and the
 * total = its last inclusive element; first / last too. */
static void test_scanner(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = 37 * GP_SCAN_GRANULE + 1001,
                 pieces[] = {GP_SCAN_GRANULE, 0, 20 * GP_SCAN_GRANULE, GP_SCAN_GRANULE, 15 * GP_SCAN_GRANULE + 1001};
    static const gp_ordered_op_t ops[] = {GP_ORDERED_MAT2, GP_ORDERED_MAT3, GP_ORDERED_MAT4, GP_ORDERED_AFFINE,
                                          GP_ORDERED_FIRST, GP_ORDERED_LAST};
    gp_stream_t s2 = NULL;
    OK(gp_stream_create(ctx, &s2));
    unsigned char *hx = malloc(n * 128), *ref = malloc(n * 128), *got = malloc(n * 128), *inc = malloc(n * 128);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 128, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 128, &dy));
    const long before = tc_fail;
    for (size_t o = 0; o < 6; o++)
        for (size_t d = 0; d < 3; d++) {
            const gp_ordered_op_t op = ops[o];
            const gp_dtype_t dt = oc_dtypes[d];
            if (op == GP_ORDERED_AFFINE && dt == GP_U32) continue;
            const size_t w = gp_ordered_width(op) * gp_dtype_size(dt);
            if (op >= GP_ORDERED_FIRST) tc_fill(hx, n * w, GP_U8);
            else oc_fill(hx, op, dt, n);
            OK(gp_memcpy_sync(ctx, dx.device, hx, n * w));
            OK(gp__oscan_cpu(op, dt, n, hx, inc, 0, NULL, NULL, 1));
            for (int kind = 0; kind < (op >= GP_ORDERED_FIRST ? 1 : 2); kind++) {
                OK(gp__oscan_cpu(op, dt, n, hx, ref, kind, NULL, NULL, 1));
                OK(gp_memset(ctx, dy.device, 0xff, n * w, s));
                OK(gp_stream_sync(ctx, s));
                gp_scanner_t *sc = NULL;
                OK(gp_scanner_create_ordered(ctx, op, dt, (gp_scan_kind_t)kind, &sc));
                size_t off = 0;
                for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
                    OK(gp_scanner_push(sc, pieces[k], (char *)dx.device + off * w, (char *)dy.device + off * w,
                                       k % 2 ? s2 : s));
                    off += pieces[k];
                }
                unsigned char tot[128];
                OK(gp_scanner_total_sync(sc, tot));
                OK(gp_stream_sync(ctx, s));
                OK(gp_stream_sync(ctx, s2));
                OK(gp_memcpy_sync(ctx, got, dy.device, n * w));
                const size_t tw = op >= GP_ORDERED_FIRST ? gp_dtype_size(dt) : w;
                CHECK(memcmp(got, ref, n * w) == 0 && memcmp(tot, inc + (n - 1) * w, tw) == 0,
                      "scanner %s %s kind %d: pieces or total differ from the CPU's one pass", gp_ordered_op_name(op),
                      gp_dtype_name(dt), kind);
                gp_scanner_destroy(sc);
            }
        }
    printf("  ordered scanner (pieces on two streams): %s\n", tc_fail == before ? "ok" : "FAILED");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    OK(gp_stream_destroy(ctx, s2));
    free(hx), free(ref), free(got), free(inc);
}

int main(void)
{
    tc_require_gpu("gpu_scan_ordered");
    tc_seed("gpu_scan_ordered");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    test_ops(ctx, s);
    test_determinism(ctx, s);
    test_first_last(ctx, s);
    test_scanner(ctx, s);
    float f[8];
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_AFFINE, GP_U32, GP_SCAN_INCLUSIVE, 4, f, f, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_FIRST, GP_F32, GP_SCAN_EXCLUSIVE, 4, f, f, s), GP_ERR_UNSUPPORTED);
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_scan_ordered");
}
