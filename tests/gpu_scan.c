/*
 * gpu_scan.c — gp_scan on the GPU gives the CPU reference's bits (docs/design/scan.md) for every op x dtype, inclusive and
 * exclusive, at sizes across the run, tile and look-back-window edges (and 4097 tiles), from misaligned pointers and in
 * place, outputs poisoned first; twice the same bits; a graph replay the same bits; the scanner's pieces on two
 * streams = one pass; a u32 sum past 2^32 elements
 * where memory allows (sampled, exact) — each on the look-back kernel and on the tile engine. Exit 77 without a GPU.
 * GP_TEST_FILTER=engine: the tile engine's pass alone. GP_TEST_QUICK=1 (compute-sanitizer): small sizes.
 */
#include "scan_common.h"

#include "scan/scan_internal.h"

static void fill_na(void *p, size_t n, gp_dtype_t dt, gp_reduce_op_t op)
{
    if (dt != GP_F16 && dt != GP_BF16 && dt != GP_F32) {
        tc_fill(p, n, dt);
        if (op == GP_REDUCE_PROD)
            for (size_t i = 0; i < n * gp_dtype_size(dt); i += gp_dtype_size(dt)) ((unsigned char *)p)[i] |= 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(tc_next() >> 11) * 0x1p-53;
        float f = op == GP_REDUCE_PROD ? (float)(1.0 + (u - 0.5) * 1e-3) : (float)(2 * u - 1);
        if ((op == GP_REDUCE_MIN || op == GP_REDUCE_MAX) && i % 1000 == 7) f = i % 2000 == 7 ? -0.0f : 0.0f;
        if (dt == GP_F32) ((float *)p)[i] = f;
        else ((uint16_t *)p)[i] = dt == GP_F16 ? gp__f32_to_f16(f) : gp__f32_to_bf16(f);
    }
}

static int g_quick;
static size_t g_min_n; /* test_pairs' smallest size (the engine takes none below 2^16) */
/* sizes at the tile engine's edges too (it takes the 4- and 8-byte scans of n >= 2^16): whole tiles, a tail of fewer
 * elements than a 128-byte row, a last tile of one row and one element (k_engine_quick also under GP_TEST_QUICK, for
 * compute-sanitizer) */
static const size_t k_engine_quick = (1u << 16) + 31;
static const size_t k_sizes[] = {1,           2,          17,          4095,        4096,
                                 4097,        8192,       3 * 4096,    33 * 4096 + 5, 1u << 16,
                                 (1u << 16) + 31, 50 * 4096 + 33, (1u << 20) + 3, (4097u * 4096) + 11};
static const gp_dtype_t k_types[] = {GP_F32, GP_F64, GP_I32, GP_U32, GP_I64, GP_U64};
static const gp_reduce_op_t k_ops[] = {GP_REDUCE_SUM, GP_REDUCE_PROD, GP_REDUCE_MIN, GP_REDUCE_MAX,
                                       GP_REDUCE_AND,  GP_REDUCE_OR,   GP_REDUCE_XOR};

/* a failure's particulars: the bits at the first difference (got, want; the tile's first element too) and, for
 * floats, where the input's first NaN is (a carry that lost or gained it shows there) */
static void describe_diff(char *why, size_t cap, const unsigned char *x, const unsigned char *got,
                          const unsigned char *ref, size_t n, size_t first, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt), t0 = first / GP__SCAN_TILE * GP__SCAN_TILE;
    uint64_t g = 0, r = 0, g0 = 0, r0 = 0;
    memcpy(&g, got + first * es, es), memcpy(&r, ref + first * es, es);
    memcpy(&g0, got + t0 * es, es), memcpy(&r0, ref + t0 * es, es);
    size_t nan = n;
    for (size_t i = 0; i < n && nan == n && (dt == GP_F32 || dt == GP_F64); i++)
        if (dt == GP_F32 ? isnan(((const float *)x)[i]) : isnan(((const double *)x)[i])) nan = i;
    snprintf(why, cap, " (got 0x%llx, want 0x%llx; tile start %zu: got 0x%llx, want 0x%llx; first NaN in at %zu)",
             (unsigned long long)g, (unsigned long long)r, t0, (unsigned long long)g0, (unsigned long long)r0, nan);
}

static void test_pairs(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1] + 8;
    unsigned char *hx = malloc(maxn * 8), *ref = malloc(maxn * 8), *got = malloc(maxn * 8);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8 + 64, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8 + 64, &dy));
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++)
        for (size_t oi = 0; oi < sizeof k_ops / sizeof k_ops[0]; oi++) {
            const gp_dtype_t dt = k_types[ti];
            const gp_reduce_op_t op = k_ops[oi];
            if (!gp__scan_supported(op, dt)) continue;
            const size_t es = gp_dtype_size(dt);
            const long before = tc_fail;
            for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
                const size_t n = k_sizes[si];
                if ((g_quick && n > 40000 && n != k_engine_quick) || n < g_min_n) continue;
                scan_fill(hx, n, dt, op);
                for (int excl = 0; excl < 2; excl++)
                    for (int mode = 0; mode < 3; mode++) { /* 0 aligned, 1 x and y one element off, 2 in place */
                        const size_t off = mode == 1 ? es : 0;
                        char *x = (char *)dx.device + off, *y = mode == 2 ? x : (char *)dy.device + off;
                        OK(gp__scan_cpu(op, dt, n, hx, ref, excl, NULL, NULL, 1));
                        OK(gp_memcpy_sync(ctx, x, hx, n * es));
                        if (mode != 2) OK(gp_memset(ctx, y, 0xff, n * es, s));
                        OK(gp_scan(ctx, op, dt, excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE, n, x, y, s));
                        OK(gp_stream_sync(ctx, s));
                        OK(gp_memcpy_sync(ctx, got, y, n * es));
                        size_t bad = 0, first = 0;
                        for (size_t i = 0; i < n; i++)
                            if (memcmp(got + i * es, ref + i * es, es) != 0 && !bad++) first = i;
                        char why[160] = "";
                        if (bad) describe_diff(why, sizeof why, hx, got, ref, n, first, dt);
                        CHECK(bad == 0, "%s %s n=%zu %s mode %d: %zu differ from the CPU bits, first at %zu%s",
                              gp_reduce_op_name(op), gp_dtype_name(dt), n, excl ? "exclusive" : "inclusive", mode, bad,
                              first, why);
                    }
            }
            printf("  %-5s %-4s %s\n", gp_reduce_op_name(op), gp_dtype_name(dt), tc_fail == before ? "ok" : "FAILED");
        }
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    free(hx), free(ref), free(got);
}

/* Twice, and replayed from a graph: the same bits (f32 sum, where the order matters most). */
static void test_determinism(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = g_quick ? 100003 : (size_t)(1u << 24) + 77;
    float *hx = malloc(n * 4), *a = malloc(n * 4), *b = malloc(n * 4);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &dy));
    scan_fill(hx, n, GP_F32, GP_REDUCE_SUM);
    OK(gp_memcpy_sync(ctx, dx.device, hx, n * 4));
    OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, a, dy.device, n * 4));
    for (int rep = 0; rep < 3; rep++) {
        OK(gp_memset(ctx, dy.device, 0xff, n * 4, s));
        OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, b, dy.device, n * 4));
        CHECK(memcmp(a, b, n * 4) == 0, "run %d differs", rep);
    }
    gp_graph_t *g = NULL;
    OK(gp_memset(ctx, dy.device, 0xff, n * 4, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_graph_begin(ctx, s));
    OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, dx.device, dy.device, s));
    OK(gp_graph_end(ctx, &g));
    if (g) {
        OK(gp_graph_launch(g, s));
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, b, dy.device, n * 4));
        CHECK(memcmp(a, b, n * 4) == 0, "graph replay differs");
        OK(gp_graph_destroy(g));
    }
    printf("  %-10s %s\n", "determinism, graph replay", "done");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    free(hx), free(a), free(b);
}

/* gp_scanner on the GPU: pieces of whole tiles pushed on two streams in turn (one empty, the last partial) give the
 * CPU backend's one-pass bits, inclusive and exclusive, and the total is the last inclusive value. */
/* The pieces pushed on the two streams in turn (x elements of es bytes, y of os), then the total; both streams done. */
static void push_pieces(gp_ctx_t *ctx, gp_scanner_t *sc, const size_t *pieces, size_t np, void *x, void *y, size_t es,
                        size_t os, gp_stream_t s, gp_stream_t s2, unsigned char *tot)
{
    size_t off = 0;
    for (size_t k = 0; k < np; k++) {
        OK(gp_scanner_push(sc, pieces[k], (char *)x + off * es, (char *)y + off * os, k % 2 ? s2 : s));
        off += pieces[k];
    }
    OK(gp_scanner_total_sync(sc, tot));
    OK(gp_stream_sync(ctx, s));
    OK(gp_stream_sync(ctx, s2));
}

static void test_scanner(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = 37 * GP_SCAN_GRANULE + 1001, pieces[] = {GP_SCAN_GRANULE, 0, 20 * GP_SCAN_GRANULE, GP_SCAN_GRANULE,
                                                               15 * GP_SCAN_GRANULE + 1001};
    gp_stream_t s2 = NULL;
    OK(gp_stream_create(ctx, &s2));
    unsigned char *hx = malloc(n * 8), *ref = malloc(n * 8), *got = malloc(n * 8), *inc = malloc(n * 8);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 8, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 8, &dy));
    const long before = tc_fail;
    for (size_t pi = 0; pi < SCANNER_PAIRS; pi++) {
        const gp_dtype_t dt = k_scanner_pairs[pi].dt;
        const gp_reduce_op_t op = k_scanner_pairs[pi].op;
        const size_t es = gp_dtype_size(dt);
        scan_fill(hx, n, dt, op);
        OK(gp_memcpy_sync(ctx, dx.device, hx, n * es));
        OK(gp__scan_cpu(op, dt, n, hx, inc, 0, NULL, NULL, 1));
        for (int kind = 0; kind < 2; kind++) {
            OK(gp__scan_cpu(op, dt, n, hx, ref, kind, NULL, NULL, 1));
            OK(gp_memset(ctx, dy.device, 0xff, n * es, s));
            OK(gp_stream_sync(ctx, s));
            gp_scanner_t *sc = NULL;
            OK(gp_scanner_create(ctx, op, dt, (gp_scan_kind_t)kind, &sc));
            unsigned char tot[8];
            push_pieces(ctx, sc, pieces, sizeof pieces / sizeof pieces[0], dx.device, dy.device, es, es, s, s2, tot);
            OK(gp_memcpy_sync(ctx, got, dy.device, n * es));
            CHECK(memcmp(got, ref, n * es) == 0, "scanner %s %s kind %d: pieces differ from the CPU's one pass",
                  gp_reduce_op_name(op), gp_dtype_name(dt), kind);
            CHECK(memcmp(tot, inc + (n - 1) * es, es) == 0, "scanner %s %s kind %d: the total differs",
                  gp_reduce_op_name(op), gp_dtype_name(dt), kind);
            CHECK_ST(gp_scanner_push(sc, 4, dx.device, dy.device, s), GP_ERR_INVALID_ARG);
            gp_scanner_destroy(sc);
        }
    }
    /* narrow dtypes and accumulators: the carry between pieces stays in the accumulator, the total is an output */
    {
        static const struct { gp_dtype_t dt; gp_reduce_op_t op; int acc; } nc[] = {
            {GP_U8, GP_REDUCE_SUM, GP_U64}, {GP_F16, GP_REDUCE_SUM, -1}, {GP_BF16, GP_REDUCE_MAX, GP_F32},
            {GP_I16, GP_REDUCE_XOR, -1}, {GP_F32, GP_REDUCE_SUM, GP_F64}};
        for (size_t c = 0; c < sizeof nc / sizeof nc[0]; c++) {
            gp_dtype_t acc, out;
            OK(gp__scan_plan("test", nc[c].op, nc[c].dt, nc[c].acc, &acc, &out));
            const size_t es = gp_dtype_size(nc[c].dt), os = gp_dtype_size(out);
            fill_na(hx, n, nc[c].dt, nc[c].op);
            OK(gp_memcpy_sync(ctx, dx.device, hx, n * es));
            OK(gp__scan_cpu_x(nc[c].op, nc[c].dt, acc, out, n, hx, inc, 0, NULL, NULL, 1));
            for (int kind = 0; kind < 2; kind++) {
                OK(gp__scan_cpu_x(nc[c].op, nc[c].dt, acc, out, n, hx, ref, kind, NULL, NULL, 1));
                OK(gp_memset(ctx, dy.device, 0xff, n * os, s));
                OK(gp_stream_sync(ctx, s));
                gp_scanner_t *sc = NULL;
                if (nc[c].acc < 0) OK(gp_scanner_create(ctx, nc[c].op, nc[c].dt, (gp_scan_kind_t)kind, &sc));
                else OK(gp_scanner_create_acc(ctx, nc[c].op, nc[c].dt, (gp_dtype_t)nc[c].acc, (gp_scan_kind_t)kind, &sc));
                CHECK(gp_scanner_out_dtype(sc) == out, "scanner out dtype");
                unsigned char tot[8];
                push_pieces(ctx, sc, pieces, sizeof pieces / sizeof pieces[0], dx.device, dy.device, es, os, s, s2, tot);
                OK(gp_memcpy_sync(ctx, got, dy.device, n * os));
                CHECK(memcmp(got, ref, n * os) == 0 && memcmp(tot, inc + (n - 1) * os, os) == 0,
                      "scanner %s %s acc %s kind %d: pieces or total differ from the CPU's one pass",
                      gp_reduce_op_name(nc[c].op), gp_dtype_name(nc[c].dt), gp_dtype_name(acc), kind);
                gp_scanner_destroy(sc);
            }
        }
    }
    /* The carry out of a partial last tile (what racecheck exposed on the H200, 2026-11-23): the total of a float sum
     * of m < 4096 elements must be the last element's inclusive value, not the L at the padded tile's end, which the
     * Kogge-Stone steps can round differently. Many m, so some rounding difference is all but certain to show. */
    for (size_t m = 1; m < GP_SCAN_GRANULE; m += 61) {
        for (int dd = 0; dd < 2; dd++) {
            const gp_dtype_t dt = dd ? GP_F64 : GP_F32;
            const size_t es = gp_dtype_size(dt);
            scan_fill(hx, m, dt, GP_REDUCE_SUM);
            OK(gp_memcpy_sync(ctx, dx.device, hx, m * es));
            unsigned char want[8], tot[8];
            OK(gp__scan_cpu(GP_REDUCE_SUM, dt, m, hx, ref, 0, NULL, want, 0));
            gp_scanner_t *sc = NULL;
            OK(gp_scanner_create(ctx, GP_REDUCE_SUM, dt, GP_SCAN_INCLUSIVE, &sc));
            OK(gp_scanner_push(sc, m, dx.device, dy.device, s));
            OK(gp_scanner_total_sync(sc, tot));
            CHECK(memcmp(tot, want, es) == 0, "scanner sum %s of a partial tile, m = %zu: the total differs",
                  gp_dtype_name(dt), m);
            gp_scanner_destroy(sc);
        }
    }
    printf("  %-10s %s\n", "scanner (pieces on two streams)", tc_fail == before ? "ok" : "FAILED");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    OK(gp_stream_destroy(ctx, s2));
    free(hx), free(ref), free(got), free(inc);
}

/* Past 2^32 elements, in place: u32 words 0x01010101, so y[i] = (i + 1) * 0x01010101 mod 2^32 (sampled). */
static void test_huge(gp_ctx_t *ctx, gp_stream_t s)
{
    const size_t n = ((size_t)1 << 32) + 4097;
    gp_device_info_t info;
    OK(gp_device_info(gp_ctx_device(ctx), &info));
    if (g_quick || info.free_mem_bytes < n * 4 + ((size_t)2 << 30)) {
        printf("  n = 2^32 + 4097: skipped (%s)\n", g_quick ? "quick" : "not enough free memory");
        return;
    }
    gp_buffer_t d;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4, &d));
    OK(gp_memset(ctx, d.device, 0x01, n * 4, s));
    OK(gp_scan(ctx, GP_REDUCE_SUM, GP_U32, GP_SCAN_INCLUSIVE, n, d.device, d.device, s));
    OK(gp_stream_sync(ctx, s));
    size_t bad = 0;
    for (int k = 0; k < 4096; k++) {
        const size_t i = k < 16 ? n - 1 - (size_t)k : k < 32 ? ((size_t)1 << 32) - 16 + (size_t)(k - 16)
                                                     : tc_next() % n;
        uint32_t v = 0;
        OK(gp_memcpy_sync(ctx, &v, (uint32_t *)d.device + i, 4));
        bad += v != (uint32_t)((uint64_t)(i + 1) * 0x01010101u);
    }
    CHECK(bad == 0, "n = 2^32 + 4097: %zu of 4096 samples wrong", bad);
    printf("  n = 2^32 + 4097 (u32 sum in place): %s\n", bad ? "FAILED" : "ok");
    gp_mem_free(ctx, &d);
}

/* Segmented scans: the CPU backend's bits for every op x dtype, sparse / dense / no heads, inclusive and exclusive,
 * aligned, one element (and one head byte) off, in place; offsets on the device = the same heads (shuffled, one
 * repeated, two outside [0, n)). */
static void test_segmented(gp_ctx_t *ctx, gp_stream_t s)
{
    static const size_t sizes[] = {1, 17, 2049, 4095, 4097, 33 * 4096 + 5, (1u << 20) + 3, (3u << 20) + 1};
    const size_t maxn = (3u << 20) + 1 + 8;
    unsigned char *hx = malloc(maxn * 8), *ref = malloc(maxn * 8), *got = malloc(maxn * 8), *h = malloc(maxn);
    int64_t *off = malloc((maxn + 5) * sizeof *off);
    gp_buffer_t dx, dy, dh, doff;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8 + 64, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8 + 64, &dy));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn + 64, &dh));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (maxn + 5) * 8, &doff));
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++)
        for (size_t oi = 0; oi < sizeof k_ops / sizeof k_ops[0]; oi++) {
            const gp_dtype_t dt = k_types[ti];
            const gp_reduce_op_t op = k_ops[oi];
            if (!gp__scan_supported(op, dt)) continue;
            const size_t es = gp_dtype_size(dt);
            const long before = tc_fail;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (int pat = 0; pat < 3; pat++) { /* none, 1 in 500, 1 in 3 */
                    const size_t n = sizes[si];
                    if ((g_quick && n > (g_min_n ? 140000 : 40000)) || n < g_min_n) continue;
                    scan_fill(hx, n, dt, op);
                    size_t nseg = 0;
                    off[0] = 0;
                    for (size_t i = 0; i < n; i++) {
                        h[i] = (pat == 1 && tc_next() % 500 == 0) || (pat == 2 && tc_next() % 3 == 0);
                        if (h[i]) off[++nseg] = (int64_t)i;
                    }
                    off[++nseg] = (int64_t)n;
                    /* the device's offsets in another order, with a repeat and values outside [0, n): the same heads */
                    for (size_t i = nseg; i > 0; i--) {
                        const size_t j = tc_next() % (i + 1);
                        const int64_t t = off[i];
                        off[i] = off[j], off[j] = t;
                    }
                    off[++nseg] = off[0];
                    off[++nseg] = -7;
                    off[++nseg] = (int64_t)n + 3;
                    for (int excl = 0; excl < 2; excl++) {
                        OK(gp__segscan_cpu(op, dt, n, hx, h, ref, excl, 1));
                        for (int mode = 0; mode < 4; mode++) { /* aligned, one off, in place, offsets */
                            const size_t o = mode == 1 ? es : 0;
                            char *x = (char *)dx.device + o, *y = mode == 2 ? x : (char *)dy.device + o;
                            uint8_t *dhh = (uint8_t *)dh.device + (mode == 1);
                            OK(gp_memcpy_sync(ctx, x, hx, n * es));
                            OK(gp_memcpy_sync(ctx, dhh, h, n));
                            if (mode == 3) OK(gp_memcpy_sync(ctx, doff.device, off, (nseg + 1) * 8));
                            if (mode != 2) OK(gp_memset(ctx, y, 0xff, n * es, s));
                            const gp_scan_kind_t k = excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE;
                            if (mode == 3) OK(gp_scan_segmented(ctx, op, dt, k, n, x, nseg, doff.device, y, s));
                            else OK(gp_scan_heads(ctx, op, dt, k, n, x, dhh, y, s));
                            OK(gp_stream_sync(ctx, s));
                            OK(gp_memcpy_sync(ctx, got, y, n * es));
                            size_t bad = 0, first = 0;
                            for (size_t i = 0; i < n; i++)
                                if (memcmp(got + i * es, ref + i * es, es) != 0 && !bad++) first = i;
                            CHECK(bad == 0, "segmented %s %s n=%zu heads %d %s mode %d: %zu differ, first at %zu",
                                  gp_reduce_op_name(op), gp_dtype_name(dt), n, pat, excl ? "exclusive" : "inclusive",
                                  mode, bad, first);
                        }
                    }
                }
            printf("  segmented %-5s %-4s %s\n", gp_reduce_op_name(op), gp_dtype_name(dt),
                   tc_fail == before ? "ok" : "FAILED");
        }
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy), gp_mem_free(ctx, &dh), gp_mem_free(ctx, &doff);
    free(hx), free(ref), free(got), free(h), free(off);
}

/* The narrow dtypes and the accumulator choice: the CPU backend's bits, inclusive and exclusive, aligned, one element
 * off and (same-size outputs) in place, at sizes across the tile edges, and past the CPU backend's chunk once. */
typedef struct nacase {
    gp_dtype_t dt;
    gp_reduce_op_t op;
    int acc; /* -1: gp_scan; else gp_scan_acc's acc */
} nacase_t;


static void test_narrow(gp_ctx_t *ctx, gp_stream_t s)
{
    nacase_t cs[96];
    int nc = 0;
    static const gp_dtype_t small[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32};
    for (int d = 0; d < 6; d++)
        for (size_t o = 0; o < sizeof k_ops / sizeof k_ops[0]; o++) {
            if (d < 4) cs[nc++] = (nacase_t){small[d], k_ops[o], -1};
            if (o < 2) cs[nc++] = (nacase_t){small[d], k_ops[o], GP_DTYPE_COUNT}; /* sums, products in 64 bits */
        }
    for (int d = 0; d < 3; d++)
        for (int o = 0; o < 4; o++) {
            const gp_dtype_t dt = d == 0 ? GP_F16 : d == 1 ? GP_BF16 : GP_F32;
            if (dt != GP_F32) cs[nc++] = (nacase_t){dt, k_ops[o], -1}, cs[nc++] = (nacase_t){dt, k_ops[o], GP_F32};
            if (o < 2) cs[nc++] = (nacase_t){dt, k_ops[o], GP_F64};
        }
    static const size_t sizes[] = {1, 17, 4095, 4097, 33 * 4096 + 5, (1u << 20) + 3, (size_t)2048 * 4096 + 4099};
    const size_t maxn = (size_t)2048 * 4096 + 4099 + 8;
    unsigned char *hx = malloc(maxn * 4), *ref = malloc(maxn * 8), *got = malloc(maxn * 8);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8 + 64, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, maxn * 8 + 64, &dy));
    long before = tc_fail;
    for (int c = 0; c < nc; c++) {
        const gp_dtype_t dt = cs[c].dt;
        const gp_reduce_op_t op = cs[c].op;
        gp_dtype_t acc, out;
        OK(gp__scan_plan("test", op, dt, cs[c].acc, &acc, &out));
        const size_t es = gp_dtype_size(dt), os = gp_dtype_size(out);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if (g_quick && n > 40000) continue;
            if (si == 6 && !(op == GP_REDUCE_SUM && (dt == GP_U8 || dt == GP_F16))) continue;
            fill_na(hx, n, dt, op);
            for (int excl = 0; excl < 2; excl++) {
                OK(gp__scan_cpu_x(op, dt, acc, out, n, hx, ref, excl, NULL, NULL, 1));
                for (int mode = 0; mode < 3; mode++) { /* aligned, one element off, in place */
                    if (mode == 2 && out != dt) continue;
                    char *x = (char *)dx.device + (mode == 1 ? es : 0);
                    char *y = mode == 2 ? x : (char *)dy.device + (mode == 1 ? os : 0);
                    OK(gp_memcpy_sync(ctx, x, hx, n * es));
                    if (mode != 2) OK(gp_memset(ctx, y, 0xff, n * os, s));
                    const gp_scan_kind_t k = excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE;
                    if (cs[c].acc < 0) OK(gp_scan(ctx, op, dt, k, n, x, y, s));
                    else OK(gp_scan_acc(ctx, op, dt, (gp_dtype_t)cs[c].acc, k, n, x, y, s));
                    OK(gp_stream_sync(ctx, s));
                    OK(gp_memcpy_sync(ctx, got, y, n * os));
                    size_t bad = 0, first = 0;
                    for (size_t i = 0; i < n; i++)
                        if (memcmp(got + i * os, ref + i * os, os) != 0 && !bad++) first = i;
                    CHECK(bad == 0, "%s %s acc %s out %s n=%zu %s mode %d: %zu differ from the CPU bits, first at %zu",
                          gp_reduce_op_name(op), gp_dtype_name(dt), gp_dtype_name(acc), gp_dtype_name(out), n,
                          excl ? "exclusive" : "inclusive", mode, bad, first);
                }
            }
        }
    }
    printf("  narrow dtypes and accumulators: %d cases %s\n", nc, tc_fail == before ? "ok" : "FAILED");
    gp_mem_free(ctx, &dx), gp_mem_free(ctx, &dy);
    free(hx), free(ref), free(got);
}

/* The CLI's head start, in the library: a scan begun on the CPU backend moves to the GPU (gp_scanner_transfer), goes
 * on there, and moves back to the CPU for its tail: one pass's bits, every pair and kind. A GPU context opened in the
 * background (gp_ctx_open_start) works. */
static void test_scanner_transfer(gp_ctx_t *ctx, gp_stream_t s)
{
    gp_ctx_t *cpu = NULL, *bg = NULL;
    OK(gp_ctx_create(&cpu, GP_DEVICE_CPU));
    gp_ctx_opening_t *o = NULL;
    OK(gp_ctx_open_start(0, &o));
    OK(gp_ctx_open_finish(o, &bg));
    CHECK(gp_ctx_device(bg) == 0, "GPU 0 opened in the background");
    const size_t n = 9 * GP_SCAN_GRANULE + 321, h1 = 2 * GP_SCAN_GRANULE, h2 = 7 * GP_SCAN_GRANULE;
    unsigned char *hx = malloc(n * 8), *ref = malloc(n * 8), *got = malloc(n * 8);
    gp_buffer_t dx, dy;
    OK(gp_mem_alloc(bg, GP_MEM_DEVICE, n * 8, &dx));
    OK(gp_mem_alloc(bg, GP_MEM_DEVICE, n * 8, &dy));
    for (size_t pi = 0; pi < SCANNER_PAIRS; pi++) {
        const gp_dtype_t dt = k_scanner_pairs[pi].dt;
        const gp_reduce_op_t op = k_scanner_pairs[pi].op;
        const size_t es = gp_dtype_size(dt);
        scan_fill(hx, n, dt, op);
        OK(gp_memcpy_sync(bg, dx.device, hx, n * es));
        for (int kind = 0; kind < 2; kind++) {
            OK(gp__scan_cpu(op, dt, n, hx, ref, kind, NULL, NULL, 1));
            tc_poison(got, n * es);
            gp_scanner_t *a = NULL, *g = NULL, *c = NULL;
            OK(gp_scanner_create(cpu, op, dt, (gp_scan_kind_t)kind, &a));
            OK(gp_scanner_create(bg, op, dt, (gp_scan_kind_t)kind, &g));
            OK(gp_scanner_create(cpu, op, dt, (gp_scan_kind_t)kind, &c));
            OK(gp_scanner_push(a, h1, hx, got, NULL));
            OK(gp_scanner_transfer(g, a));
            OK(gp_scanner_push(g, h2 - h1, (char *)dx.device + h1 * es, (char *)dy.device + h1 * es, s));
            OK(gp_scanner_transfer(c, g));
            OK(gp_memcpy_sync(bg, got + h1 * es, (char *)dy.device + h1 * es, (h2 - h1) * es));
            OK(gp_scanner_push(c, n - h2, hx + h2 * es, got + h2 * es, NULL));
            CHECK(memcmp(got, ref, n * es) == 0, "CPU -> GPU -> CPU scan %s %s kind %d: differs from one pass",
                  gp_reduce_op_name(op), gp_dtype_name(dt), kind);
            gp_scanner_destroy(a), gp_scanner_destroy(g), gp_scanner_destroy(c);
        }
    }
    OK(gp_mem_free(bg, &dx));
    OK(gp_mem_free(bg, &dy));
    free(hx), free(ref), free(got);
    OK(gp_ctx_destroy(bg));
    OK(gp_ctx_destroy(cpu));
    (void)ctx;
}

int main(void)
{
    tc_require_gpu("gpu_scan");
    tc_seed("gpu_scan");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    /* each kernel in turn (the engine where it runs: sm_90, n >= 2^16, 16-byte aligned; elsewhere it falls back) */
    static const struct { gp__scan_kernel_t k; const char *name; } kernels[] = {
        {GP__SCAN_KERNEL_LOOKBACK, "look-back kernel"}, {GP__SCAN_KERNEL_ENGINE, "tile engine"}};
    const char *only = getenv("GP_TEST_FILTER"); /* "engine": the tile engine's pass alone (compute-sanitizer) */
    const int engine_only = only && strcmp(only, "engine") == 0;
    for (size_t ki = engine_only ? 1 : 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        printf("%s:\n", kernels[ki].name);
        gp__scan_force_kernel(kernels[ki].k);
        g_min_n = kernels[ki].k == GP__SCAN_KERNEL_ENGINE ? (size_t)1 << 16 : 0;
        test_pairs(ctx, s);
        test_determinism(ctx, s);
        test_scanner(ctx, s);
        test_huge(ctx, s);
        test_segmented(ctx, s); /* the engine takes the 4-byte types' from 2^16 (te_lb.cuh) */
    }
    gp__scan_force_kernel(GP__SCAN_KERNEL_AUTO);
    g_min_n = 0;
    if (!engine_only) {
        test_scanner_transfer(ctx, s);
        test_narrow(ctx, s);
    }
    /* errors */
    float f[4];
    CHECK_ST(gp_scan(ctx, GP_REDUCE_ARGMAX, GP_F32, GP_SCAN_INCLUSIVE, 4, f, f, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_SUM, GP_F32, (gp_scan_kind_t)7, 4, f, f, s), GP_ERR_INVALID_ARG);
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_scan");
}
