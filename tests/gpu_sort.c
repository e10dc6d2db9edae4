/*
 * gpu_sort.c — gp_sort, gp_sort_pairs and gp_argsort on a GPU against the CPU backend (test_sort checks that against
 * an independent reference): every dtype x ascending / descending x random values with NaN payloads of both signs,
 * ±0, ±inf and subnormals, few distinct keys, all equal, sorted, reverse-sorted; sizes across the counted ranks' limits
 * (4096 and 8192), the tiles (4096 elements for 8-byte keys, 6144 for the rest) and past 2^20; keys (every bit), pairs
 * with 1- to 16-byte values, in place, argsort with u32 and u64 positions, integer bit ranges; outputs poisoned first;
 * u8 pairs past 2^32 elements (several look-back portions), u32 pairs and f64 keys past 2^29 (two portions over several
 * passes). GP_TEST_FILTER=u32,f64 sweeps only those dtypes; a filter naming "rank" only the sizes up to 8193.
 */
#include "sort_common.h"

/* sizes across the counting path's limits (4096 elements of 8-byte keys, 8192 of the rest), the tiles, the
 * one-cluster path's blocks (8192) and its largest clusters (8 and 16 blocks), then past it; quick runs (sanitizers)
 * take those up to 20000, the largest cluster (131072) and K_QUICK_BIG, the first size past it */
#define K_QUICK_BIG ((size_t)131073)
static const size_t k_sizes[] = {1, 2, 3, 33, 1000, 4095, 4096, 4097, 6144, 6145, 8191, 8192, 8193, 3 * 4096 + 1,
                                 65536, 65537, 100003, 131072, K_QUICK_BIG, (1u << 20) + 7};
static int g_quick;

static void check(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_stream_t s, gp_dtype_t dt, size_t n, const void *hx,
                  const gp_sort_opts_t *o, const char *what)
{
    const size_t es = gp_dtype_size(dt), kb = n * es;
    const char *dn = gp_dtype_name(dt), *od = o->descending ? "desc" : "asc";
    gp_buffer_t dx, dy, dv, dvo;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, kb, &dx));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, kb, &dy));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 16, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 16, &dvo));
    unsigned char *want = malloc(kb), *got = malloc(kb), *hv = malloc(n * 16), *wv = malloc(n * 16),
                  *gv = malloc(n * 16);
    OK(gp_memcpy_sync(gpu, dx.device, hx, kb));
    /* keys */
    OK(gp_sort(cpu, dt, n, hx, want, o, NULL));
    OK(gp_memset(gpu, dy.device, 0xff, kb, s));
    OK(gp_sort(gpu, dt, n, dx.device, dy.device, o, s));
    OK(gp_stream_sync(gpu, s));
    OK(gp_memcpy_sync(gpu, got, dy.device, kb));
    CHECK(memcmp(got, want, kb) == 0, "%s %s %s n=%zu: keys differ from the CPU backend's", dn, od, what, n);
    /* argsort, u32 and u64 */
    for (int w64 = 0; w64 < 2; w64++) {
        const gp_dtype_t it = w64 ? GP_U64 : GP_U32;
        const size_t ib = w64 ? 8 : 4;
        OK(gp_argsort(cpu, dt, n, hx, it, wv, o, NULL));
        OK(gp_memset(gpu, dvo.device, 0xff, n * ib, s));
        OK(gp_argsort(gpu, dt, n, dx.device, it, dvo.device, o, s));
        OK(gp_stream_sync(gpu, s));
        OK(gp_memcpy_sync(gpu, gv, dvo.device, n * ib));
        CHECK(memcmp(gv, wv, n * ib) == 0, "%s %s %s n=%zu: argsort u%zu differs", dn, od, what, n, 8 * ib);
    }
    /* pairs */
    static const size_t vsizes[] = {1, 2, 4, 8, 16};
    for (int vi = 0; vi < 5; vi++) {
        const size_t vs = vsizes[vi];
        if (g_quick && vs != 4) continue;
        for (size_t i = 0; i < n * vs; i++) hv[i] = (unsigned char)tc_next();
        OK(gp_sort_pairs(cpu, dt, n, hx, want, vs, hv, wv, o, NULL));
        OK(gp_memcpy_sync(gpu, dv.device, hv, n * vs));
        OK(gp_memset(gpu, dy.device, 0xff, kb, s));
        OK(gp_memset(gpu, dvo.device, 0xff, n * vs, s));
        OK(gp_sort_pairs(gpu, dt, n, dx.device, dy.device, vs, dv.device, dvo.device, o, s));
        OK(gp_stream_sync(gpu, s));
        OK(gp_memcpy_sync(gpu, got, dy.device, kb));
        OK(gp_memcpy_sync(gpu, gv, dvo.device, n * vs));
        CHECK(memcmp(got, want, kb) == 0 && memcmp(gv, wv, n * vs) == 0, "%s %s %s n=%zu: pairs (%zu-byte values) differ",
              dn, od, what, n, vs);
        if (vs == 8) { /* in place, keys and values */
            OK(gp_memcpy_sync(gpu, dy.device, hx, kb));
            OK(gp_sort_pairs_sync(gpu, dt, n, dy.device, dy.device, vs, dv.device, dv.device, o));
            OK(gp_memcpy_sync(gpu, got, dy.device, kb));
            OK(gp_memcpy_sync(gpu, gv, dv.device, n * vs));
            CHECK(memcmp(got, want, kb) == 0 && memcmp(gv, wv, n * vs) == 0, "%s %s %s n=%zu: pairs in place differ",
                  dn, od, what, n);
        }
    }
    gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dy), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &dvo);
    free(want), free(got), free(hv), free(wv), free(gv);
}

/* past 2^32 elements (the look-back's counts run in portions of 2^29): u8 keys with u8 values, every value its
 * position's low byte plus noise, so the values carry the order of equal keys across portions */
static void huge(gp_ctx_t *gpu, gp_ctx_t *cpu)
{
    const size_t n = ((size_t)1 << 32) + 5;
    unsigned char *x = malloc(n), *v = malloc(n), *wk = malloc(n), *wv = malloc(n), *gk = malloc(n), *gv = malloc(n);
    REQUIRE(x && v && wk && wv && gk && gv, "host memory for %zu keys", n);
    for (size_t i = 0; i < n; i += 8) {
        const uint64_t r = tc_next();
        memcpy(x + i, &r, n - i < 8 ? n - i : 8);
    }
    for (size_t i = 0; i < n; i++) v[i] = (unsigned char)(i * 7 + (i >> 29));
    gp_buffer_t dk, dko, dv, dvo;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n, &dk));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n, &dko));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n, &dvo));
    OK(gp_memcpy_sync(gpu, dk.device, x, n));
    OK(gp_memcpy_sync(gpu, dv.device, v, n));
    for (int desc = 0; desc < 2; desc++) {
        const gp_sort_opts_t o = {desc, 0, 0};
        OK(gp_sort_pairs(cpu, GP_U8, n, x, wk, 1, v, wv, &o, NULL));
        OK(gp_memset(gpu, dvo.device, 0xee, n, NULL));
        OK(gp_sort_pairs_sync(gpu, GP_U8, n, dk.device, dko.device, 1, dv.device, dvo.device, &o));
        OK(gp_memcpy_sync(gpu, gk, dko.device, n));
        OK(gp_memcpy_sync(gpu, gv, dvo.device, n));
        CHECK(memcmp(gk, wk, n) == 0 && memcmp(gv, wv, n) == 0, "u8 pairs n=%zu %s: differ from the CPU backend's", n,
              desc ? "desc" : "asc");
        printf("  u8 pairs n = 2^32 + 5 %s: %s\n", desc ? "desc" : "asc", memcmp(gv, wv, n) ? "FAILED" : "ok");
    }
    gp_mem_free(gpu, &dk), gp_mem_free(gpu, &dko), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &dvo);
    free(x), free(v), free(wk), free(wv), free(gk), free(gv);
}

/* past one look-back portion (2^29 elements) with several passes: every pass after the first reads portions that
 * hold other elements than the input's. u32 keys (ties: 30 random bits) with their positions as values, and f64 keys
 * (four passes more) descending, against the CPU backend bit for bit. */
static void portions(gp_ctx_t *gpu, gp_ctx_t *cpu)
{
    const size_t n = ((size_t)1 << 29) + 4099;
    uint32_t *x = malloc(n * 4), *v = malloc(n * 4), *wk = malloc(n * 8), *wv = malloc(n * 4), *gk = malloc(n * 8);
    uint32_t *gv = malloc(n * 4);
    REQUIRE(x && v && wk && wv && gk && gv, "host memory for %zu keys", n);
    for (size_t i = 0; i < n; i++) x[i] = (uint32_t)(tc_next() >> 34), v[i] = (uint32_t)i;
    gp_buffer_t dk, dko, dv, dvo;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 8, &dk));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 8, &dko));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 4, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 4, &dvo));
    const gp_sort_opts_t asc = {0, 0, 0}, desc = {1, 0, 0};
    OK(gp_memcpy_sync(gpu, dk.device, x, n * 4));
    OK(gp_memcpy_sync(gpu, dv.device, v, n * 4));
    OK(gp_sort_pairs(cpu, GP_U32, n, x, wk, 4, v, wv, &asc, NULL));
    OK(gp_memset(gpu, dvo.device, 0xee, n * 4, NULL));
    OK(gp_sort_pairs_sync(gpu, GP_U32, n, dk.device, dko.device, 4, dv.device, dvo.device, &asc));
    OK(gp_memcpy_sync(gpu, gk, dko.device, n * 4));
    OK(gp_memcpy_sync(gpu, gv, dvo.device, n * 4));
    int ok = memcmp(gk, wk, n * 4) == 0 && memcmp(gv, wv, n * 4) == 0;
    CHECK(ok, "u32 pairs n=2^29+4099: differ from the CPU backend's");
    printf("  u32 pairs n = 2^29 + 4099 (two portions, four passes): %s\n", ok ? "ok" : "FAILED");
    double *xd = (double *)gk; /* f64 keys: the u32 draws spread over signs and exponents */
    for (size_t i = 0; i < n; i++) xd[i] = ((double)x[i] - 536870912.0) * ((i & 7) ? 1.0 : 1e-300);
    OK(gp_memcpy_sync(gpu, dk.device, xd, n * 8));
    OK(gp_sort(cpu, GP_F64, n, xd, wk, &desc, NULL));
    OK(gp_sort_sync(gpu, GP_F64, n, dk.device, dko.device, &desc));
    OK(gp_memcpy_sync(gpu, gk, dko.device, n * 8));
    ok = memcmp(gk, wk, n * 8) == 0;
    CHECK(ok, "f64 keys descending n=2^29+4099: differ from the CPU backend's");
    printf("  f64 keys descending n = 2^29 + 4099 (two portions, eight passes): %s\n", ok ? "ok" : "FAILED");
    gp_mem_free(gpu, &dk), gp_mem_free(gpu, &dko), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &dvo);
    free(x), free(v), free(wk), free(wv), free(gk), free(gv);
}

int main(void)
{
    tc_require_gpu("gpu_sort");
    tc_seed("gpu_sort");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    /* dtype names, e.g. "u32,f64": only their sweeps (sanitizers); "rank" among them: only the sizes the counted
     * ranks take (up to 8192) and their neighbours, every dtype unless others are named */
    const char *filter = getenv("GP_TEST_FILTER");
    const int rank_only = filter && name_listed(filter, "rank");
    if (rank_only && !strchr(filter, ',')) filter = NULL;
    gp_ctx_t *gpu = NULL, *cpu = NULL;
    REQUIRE(gp_ctx_create(&gpu, 0) == GP_OK, "GPU context");
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    gp_stream_t s = NULL;
    OK(gp_stream_create(gpu, &s));
    const size_t maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1];
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++) {
        const gp_dtype_t dt = k_types[ti];
        if (filter && !name_listed(filter, gp_dtype_name(dt))) continue;
        const size_t es = gp_dtype_size(dt);
        const int w = 8 * (int)es, fl = dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64;
        unsigned char *x = malloc(maxn * es);
        const long before = tc_fail;
        for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
            const size_t n = k_sizes[si];
            if (g_quick && n > 20000 && n != 131072 && n != K_QUICK_BIG) continue;
            if (rank_only && n > 8193) continue;
            for (int mode = 0; mode < M_COUNT; mode++) {
                if ((n > 200000 || (g_quick && n > 5000)) && mode != M_RANDOM) continue; /* quick: several tiles too */
                static const char *const names[] = {"random", "few", "equal", "sorted", "reversed"};
                sort_fill(x, n, dt, mode >= M_SORTED ? M_RANDOM : mode);
                if (mode >= M_SORTED) OK(gp_sort(cpu, dt, n, x, x, NULL, NULL));
                if (mode == M_REVERSED)
                    for (size_t i = 0; i < n / 2; i++) {
                        unsigned char tmp[8];
                        memcpy(tmp, x + i * es, es);
                        memcpy(x + i * es, x + (n - 1 - i) * es, es);
                        memcpy(x + (n - 1 - i) * es, tmp, es);
                    }
                for (int desc = 0; desc < 2; desc++) {
                    const gp_sort_opts_t o = {desc, 0, 0};
                    check(gpu, cpu, s, dt, n, x, &o, names[mode]);
                }
            }
        }
        if (!fl) { /* integer bit ranges: through the passes, and through the counted ranks (5000) */
            for (int r = 0; r < 8; r++) {
                const int lo = (int)(tc_next() % (unsigned)w), hi = lo + 1 + (int)(tc_next() % (unsigned)(w - lo));
                const gp_sort_opts_t o = {r & 1, lo, hi};
                const size_t bn = r < 4 ? 100003 : 5000;
                if (rank_only && bn > 8192) continue;
                sort_fill(x, bn, dt, M_RANDOM);
                check(gpu, cpu, s, dt, bn, x, &o, "bit range");
            }
        }
        printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before ? "ok" : "FAILED");
        free(x);
    }
    { /* the workspace query: at least the copies it names, growing with n */
        size_t k1 = 0, k2 = 0, pr = 0, ar = 0;
        OK(gp_sort_workspace_bytes(gpu, GP_U32, 1 << 20, 0, 0, &k1));
        OK(gp_sort_workspace_bytes(gpu, GP_U32, 1 << 21, 0, 0, &k2));
        OK(gp_sort_workspace_bytes(gpu, GP_U32, 1 << 20, 8, 0, &pr));
        OK(gp_sort_workspace_bytes(gpu, GP_U32, 1 << 20, 8, 1, &ar));
        CHECK(k1 >= (4u << 20) && k2 > k1 && pr >= k1 + (8u << 20) && ar >= k1 + (12u << 20),
              "gp_sort_workspace_bytes: keys %zu (2x n: %zu), pairs %zu, argsort %zu", k1, k2, pr, ar);
    }
    if (!g_quick && !rank_only) huge(gpu, cpu);
    if (!g_quick && !rank_only) portions(gpu, cpu);
    OK(gp_stream_destroy(gpu, s));
    OK(gp_ctx_destroy(cpu));
    OK(gp_ctx_destroy(gpu));
    return tc_finish("gpu_sort");
}
