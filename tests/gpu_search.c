/*
 * gpu_search.c — gp_searchsorted and gp_topk on the GPU against the CPU backend's answers (test_search.c holds that to
 * the reference order): every dtype x random (NaN payloads, ±0, ±inf), few distinct and all-equal inputs; searchsorted
 * through the line tables (many queries; keys aligned and one element off) and the sample (33 queries), n around the
 * sample's stride and the tables' sizes, both sides, u32 and i64 places; top-k smallest and
 * largest, k around the in-shared-memory order's limit (2048), one row and many, ties taken by position, long rows
 * through the sampled bound and its fallback (sorted rows, equal rows); np.unique's four outputs (integers also in
 * narrow ranges at offsets, even and skewed: the counted path); merges with
 * values, both orders, runs across the tiles; u8 top-k over
 * 2^32 + 5 elements with the answer known by construction. Outputs poisoned first. GP_TEST_QUICK=1: the small sizes
 * (sanitizers); GP_TEST_FILTER=u32,f64: only those dtypes.
 */
#include "sort_common.h"

static int g_quick;

static void check_search(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt, size_t n, const unsigned char *x, size_t m,
                         const unsigned char *q, const char *what)
{
    const size_t es = gp_dtype_size(dt);
    unsigned char *a = malloc(n * es + 1);
    OK(gp_sort(cpu, dt, n, x, a, NULL, NULL));
    gp_buffer_t da, dq, dout;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 16, &da));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, m * es, &dq));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, m * 8, &dout));
    OK(gp_memcpy_sync(gpu, dq.device, q, m * es));
    unsigned char *want = malloc(m * 8), *got = malloc(m * 8);
    for (int c = 0; c < 5; c++) { /* left / right x u32 / i64 places, then right u32 with the keys one element off */
        const int side = c & 1, w64 = (c >> 1) & 1;
        const size_t off = c == 4 ? es : 0;
        const gp_dtype_t it = w64 ? GP_I64 : GP_U32;
        const size_t ib = w64 ? 8 : 4;
        if (n && (c == 0 || c == 4)) OK(gp_memcpy_sync(gpu, (char *)da.device + off, a, n * es));
        OK(gp_searchsorted_sync(cpu, dt, n, a, m, q, side, it, want));
        OK(gp_memset(gpu, dout.device, 0xff, m * ib, NULL));
        OK(gp_searchsorted_sync(gpu, dt, n, (char *)da.device + off, m, dq.device, side, it, dout.device));
        OK(gp_memcpy_sync(gpu, got, dout.device, m * ib));
        CHECK(memcmp(got, want, m * ib) == 0, "%s %s n=%zu m=%zu searchsorted %s u%zu%s: differs from the CPU's",
              gp_dtype_name(dt), what, n, m, side ? "right" : "left", 8 * ib, off ? " (keys misaligned)" : "");
    }
    gp_mem_free(gpu, &da), gp_mem_free(gpu, &dq), gp_mem_free(gpu, &dout);
    free(a), free(want), free(got);
}

static void check_topk(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt, size_t rows, size_t n, const unsigned char *x,
                       size_t k, const char *what)
{
    const size_t es = gp_dtype_size(dt), vb = rows * k * es;
    gp_buffer_t dx, dv, di;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, rows * n * es, &dx));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, vb + 1, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, rows * k * 8 + 1, &di));
    OK(gp_memcpy_sync(gpu, dx.device, x, rows * n * es));
    unsigned char *wv = malloc(vb + 1), *wi = malloc(rows * k * 8 + 1), *gv = malloc(vb + 1), *gi = malloc(rows * k * 8 + 1);
    for (int largest = 0; largest < 2; largest++)
        for (int w64 = 0; w64 < 2; w64++) {
            const gp_dtype_t it = w64 ? GP_I64 : GP_U32;
            const size_t ib = w64 ? 8 : 4;
            OK(gp_topk_sync(cpu, dt, rows, n, x, k, largest, wv, it, wi));
            OK(gp_memset(gpu, dv.device, 0xff, vb + 1, NULL));
            OK(gp_memset(gpu, di.device, 0xff, rows * k * ib + 1, NULL));
            OK(gp_topk_sync(gpu, dt, rows, n, dx.device, k, largest, dv.device, it, di.device));
            OK(gp_memcpy_sync(gpu, gv, dv.device, vb));
            OK(gp_memcpy_sync(gpu, gi, di.device, rows * k * ib));
            CHECK(memcmp(gv, wv, vb) == 0 && memcmp(gi, wi, rows * k * ib) == 0,
                  "%s %s rows=%zu n=%zu k=%zu %s u%zu: top-k differs from the CPU's", gp_dtype_name(dt), what, rows,
                  n, k, largest ? "largest" : "smallest", 8 * ib);
        }
    /* the indices alone */
    OK(gp_memset(gpu, di.device, 0xff, rows * k * 4, NULL));
    OK(gp_topk_sync(cpu, dt, rows, n, x, k, 0, NULL, GP_U32, wi));
    OK(gp_topk_sync(gpu, dt, rows, n, dx.device, k, 0, NULL, GP_U32, di.device));
    OK(gp_memcpy_sync(gpu, gi, di.device, rows * k * 4));
    CHECK(memcmp(gi, wi, rows * k * 4) == 0, "%s %s rows=%zu n=%zu k=%zu: indices alone differ", gp_dtype_name(dt),
          what, rows, n, k);
    gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &di);
    free(wv), free(wi), free(gv), free(gi);
}

/* gp_partition_kth_sync on both backends (the GPU's k by gp_topk, the rest gathered on the host): the same bits */
static void check_partition(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt, size_t rows, size_t n,
                            const unsigned char *x, size_t k, const char *what)
{
    const size_t es = gp_dtype_size(dt), t = rows * n;
    gp_buffer_t dx, dv, di;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, t * es + 1, &dx));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, t * es + 1, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, t * 8 + 1, &di));
    OK(gp_memcpy_sync(gpu, dx.device, x, t * es));
    unsigned char *wv = malloc(t * es + 1), *wi = malloc(t * 8 + 1), *gv = malloc(t * es + 1), *gi = malloc(t * 8 + 1);
    for (int w64 = 0; w64 < 2; w64++) {
        const gp_dtype_t it = w64 ? GP_I64 : GP_U32;
        const size_t ib = w64 ? 8 : 4;
        OK(gp_partition_kth_sync(cpu, dt, rows, n, x, k, wv, it, wi));
        OK(gp_memset(gpu, dv.device, 0xff, t * es + 1, NULL));
        OK(gp_memset(gpu, di.device, 0xff, t * ib + 1, NULL));
        OK(gp_partition_kth_sync(gpu, dt, rows, n, dx.device, k, dv.device, it, di.device));
        OK(gp_memcpy_sync(gpu, gv, dv.device, t * es));
        OK(gp_memcpy_sync(gpu, gi, di.device, t * ib));
        CHECK(memcmp(gv, wv, t * es) == 0 && memcmp(gi, wi, t * ib) == 0,
              "%s %s rows=%zu n=%zu k=%zu u%zu: the partition differs from the CPU's", gp_dtype_name(dt), what, rows, n,
              k, 8 * ib);
    }
    gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &di);
    free(wv), free(wi), free(gv), free(gi);
}

/* np.unique's four outputs on both backends: the same bits */
/* nan_distinct: np.unique(equal_nan=False) on both */
static void check_unique(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt, size_t n, const unsigned char *x, const char *what,
                         int nan_distinct)
{
    const gp_unique_opts_t uo = {sizeof uo, nan_distinct};
    const size_t es = gp_dtype_size(dt);
    gp_buffer_t dx, dy, df, di, dc;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 1, &dx));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 1, &dy));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 8 + 8, &df));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 8 + 8, &di));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 8 + 8, &dc));
    if (n) OK(gp_memcpy_sync(gpu, dx.device, x, n * es));
    unsigned char *w = malloc(4 * (n * 8 + 8)), *g = malloc(4 * (n * 8 + 8));
    for (int w64 = 0; w64 < 2; w64++) {
        const gp_dtype_t it = w64 ? GP_I64 : GP_U32;
        const size_t ib = w64 ? 8 : 4, S = n * 8 + 8;
        size_t wu = 0, gu = 0;
        OK(gp_unique_sorted_opts_sync(cpu, dt, n, x, w, it, w + S, w + 2 * S, (uint64_t *)(void *)(w + 3 * S), &wu, &uo));
        OK(gp_memset(gpu, dy.device, 0xff, n * es + 1, NULL));
        OK(gp_memset(gpu, df.device, 0xff, S, NULL));
        OK(gp_memset(gpu, di.device, 0xff, S, NULL));
        OK(gp_memset(gpu, dc.device, 0xff, S, NULL));
        OK(gp_unique_sorted_opts_sync(gpu, dt, n, dx.device, dy.device, it, df.device, di.device, (uint64_t *)dc.device,
                                      &gu, &uo));
        if (gu) {
            OK(gp_memcpy_sync(gpu, g, dy.device, gu * es));
            OK(gp_memcpy_sync(gpu, g + S, df.device, gu * ib));
            OK(gp_memcpy_sync(gpu, g + 3 * S, dc.device, gu * 8));
        }
        if (n) OK(gp_memcpy_sync(gpu, g + 2 * S, di.device, n * ib));
        CHECK(gu == wu && memcmp(g, w, gu * es) == 0 && memcmp(g + S, w + S, gu * ib) == 0 &&
                  memcmp(g + 2 * S, w + 2 * S, n * ib) == 0 && memcmp(g + 3 * S, w + 3 * S, gu * 8) == 0,
              "%s %s n=%zu unique%s u%zu: %zu distinct (CPU %zu) or the outputs differ", gp_dtype_name(dt), what, n,
              nan_distinct ? " (NaNs distinct)" : "", 8 * ib, gu, wu);
    }
    /* keys and counts alone (np.unique(return_counts=True); integers take the sort and run-length encoding, or are
     * counted), with the scratch apart and in counts' bytes (gp__unique_in_counts) */
    for (int ic = 0; ic < 2; ic++) {
        gp__unique_in_counts = ic;
        const size_t S = n * 8 + 8;
        size_t wu = 0, gu = 0;
        OK(gp_unique_sorted_opts_sync(cpu, dt, n, x, w, GP_U32, NULL, NULL, (uint64_t *)(void *)(w + 3 * S), &wu, &uo));
        OK(gp_memset(gpu, dy.device, 0xff, n * es + 1, NULL));
        OK(gp_memset(gpu, dc.device, 0xff, S, NULL));
        OK(gp_unique_sorted_opts_sync(gpu, dt, n, dx.device, dy.device, GP_U32, NULL, NULL, (uint64_t *)dc.device, &gu,
                                      &uo));
        if (gu) {
            OK(gp_memcpy_sync(gpu, g, dy.device, gu * es));
            OK(gp_memcpy_sync(gpu, g + 3 * S, dc.device, gu * 8));
        }
        CHECK(gu == wu && memcmp(g, w, gu * es) == 0 && memcmp(g + 3 * S, w + 3 * S, gu * 8) == 0,
              "%s %s n=%zu unique%s, keys and counts alone%s: %zu distinct (CPU %zu) or the outputs differ",
              gp_dtype_name(dt), what, n, nan_distinct ? " (NaNs distinct)" : "", ic ? " (in counts)" : "", gu, wu);
    }
    gp__unique_in_counts = GP_UNIQUE_IN_COUNTS;
    gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dy), gp_mem_free(gpu, &df), gp_mem_free(gpu, &di), gp_mem_free(gpu, &dc);
    free(w), free(g);
}

/* integer keys in a range [base, base + span) (skew: 70% of them one value): the GPU counts those that span under
 * 2^13 values or differ in at most 20 bits (from 2^16 keys), or in at most 28 with a small table (two passes first;
 * the table's limit lowered to the keys' bytes here: 21 bits of 2^22 i32, 22 of 2^22 i64), sorts others over the bits
 * they differ in; every output as the CPU backend's (check_unique). GP_TEST_QUICK: one two-pass case (i32, u64) */
static void check_unique_ranges(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt);
    const int sgn = dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64;
    const uint64_t tspan = es == 8 ? UINT64_MAX : (1ull << (8 * es)); /* values of the type (u64: less one) */
    static const uint64_t spans[] = {1,     2,     100,      8191,           8192,     8193,
                                     65537, 1u << 20, (1u << 20) + 1, 1u << 23, (1u << 21) + 1};
    const size_t ns[] = {65535, 65539, (1u << 20) + 7, (1u << 22) + 5}, wide = ns[3];
    unsigned char *x = malloc(wide * es);
    REQUIRE(x != NULL, "%zu bytes of keys", wide * es);
    for (size_t ni = 0; ni < 4; ni++) {
        const size_t n = ns[ni];
        if (g_quick && n > 70000 && (n != wide || (dt != GP_I32 && dt != GP_U64))) continue;
        if (n == wide && es < 4) continue;
        for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++) {
            const uint64_t span = spans[si];
            if (span > tspan || (n == 65535 && span != 65537)) continue;
            if (n != wide ? span == (1u << 21) + 1 : span != (1u << 21) + 1 && span != (1u << 20) + 1) continue;
            if (n == wide && g_quick && span != (1u << 20) + 1) continue;
            for (int bi = 0; bi < 3; bi++) {
                if (n == wide && g_quick && bi != 1) continue;
                /* bases: 0 (or the least for signed), crossing zero (signed) or an offset, and high bits set */
                int64_t base;
                if (bi == 0) base = sgn ? (span == tspan ? -(int64_t)(tspan / 2) : 0) : 0;
                else if (bi == 1) base = sgn ? -(int64_t)(span / 3) - 5 : 7;
                else base = es == 8 ? (int64_t)(1ull << 40) + 3 : (int64_t)(tspan / (sgn ? 2 : 1) - span) - 1;
                if (span == tspan && bi) continue;
                if (!range_fits(dt, base, span, tspan)) continue;
                for (int skew = 0; skew < 2; skew++) {
                    if (n == wide && g_quick && !skew) continue;
                    range_fill(x, n, dt, base, span, skew);
                    char what[64];
                    snprintf(what, sizeof what, "range %llu from %lld%s", (unsigned long long)span, (long long)base,
                             skew ? " skewed" : "");
                    gp__unique_wide_ratio = n == wide ? 1 : GP_UNIQUE_WIDE_RATIO;
                    check_unique(gpu, cpu, dt, n, x, what, 0);
                    gp__unique_wide_ratio = GP_UNIQUE_WIDE_RATIO;
                }
            }
        }
    }
    free(x);
}

/* a (na) and b (nb) sorted on the CPU, merged on both with 4-byte values: the same bits */
static void check_merge(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt, size_t na, size_t nb, const unsigned char *x,
                        int desc, const char *what)
{
    const size_t es = gp_dtype_size(dt), n = na + nb;
    const gp_sort_opts_t o = {desc, 0, 0};
    unsigned char *ab = malloc(n * es + 1), *want = malloc(n * es + 1), *got = malloc(n * es + 1);
    uint32_t *v = malloc((n + 1) * 4), *wv = malloc((n + 1) * 4), *gv = malloc((n + 1) * 4);
    OK(gp_sort(cpu, dt, na, x, ab, &o, NULL));
    OK(gp_sort(cpu, dt, nb, x + na * es, ab + na * es, &o, NULL));
    for (size_t i = 0; i < n; i++) v[i] = (uint32_t)tc_next();
    OK(gp_merge_sync(cpu, dt, na, ab, nb, ab + na * es, want, 4, v, v + na, wv, desc));
    gp_buffer_t dab, dout, dv, dvo;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 1, &dab));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 1, &dout));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 4 + 4, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * 4 + 4, &dvo));
    OK(gp_memcpy_sync(gpu, dab.device, ab, n * es));
    OK(gp_memcpy_sync(gpu, dv.device, v, n * 4));
    OK(gp_memset(gpu, dout.device, 0xff, n * es, NULL));
    OK(gp_memset(gpu, dvo.device, 0xff, n * 4, NULL));
    OK(gp_merge_sync(gpu, dt, na, dab.device, nb, (char *)dab.device + na * es, dout.device, 4, dv.device,
                     (char *)dv.device + na * 4, dvo.device, desc));
    OK(gp_memcpy_sync(gpu, got, dout.device, n * es));
    OK(gp_memcpy_sync(gpu, gv, dvo.device, n * 4));
    CHECK(memcmp(got, want, n * es) == 0 && memcmp(gv, wv, n * 4) == 0,
          "%s %s merge na=%zu nb=%zu %s: differs from the CPU's", gp_dtype_name(dt), what, na, nb, desc ? "desc" : "asc");
    gp_mem_free(gpu, &dab), gp_mem_free(gpu, &dout), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &dvo);
    free(ab), free(want), free(got), free(v), free(wv), free(gv);
}

/* u8, n = 2^32 + 5: every element 1 + i % 200 but three zeros (at 5 and past 2^32); the 10 smallest are the zeros,
 * then the ones at the lowest positions — ties over 33-bit positions */
static void check_topk_big(gp_ctx_t *gpu)
{
    const size_t n = ((size_t)1 << 32) + 5, k = 10;
    gp_buffer_t dx, dv, di;
    if (gp_mem_alloc(gpu, GP_MEM_DEVICE, n, &dx) != GP_OK) {
        printf("  u8 top-k n = 2^32 + 5: not run (%s)\n", gp_last_error());
        return;
    }
    unsigned char *h = malloc((size_t)1 << 26);
    for (size_t i = 0; i < n; i += (size_t)1 << 26) {
        const size_t m = n - i < ((size_t)1 << 26) ? n - i : ((size_t)1 << 26);
        for (size_t j = 0; j < m; j++) h[j] = (unsigned char)(1 + (i + j) % 200);
        OK(gp_memcpy_sync(gpu, (char *)dx.device + i, h, m));
    }
    const size_t zeros[3] = {5, ((size_t)1 << 32) + 1, ((size_t)1 << 32) + 3};
    for (int z = 0; z < 3; z++) OK(gp_memset(gpu, (char *)dx.device + zeros[z], 0, 1, NULL));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, k, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, k * 8, &di));
    OK(gp_topk_sync(gpu, GP_U8, 1, n, dx.device, k, 0, dv.device, GP_I64, di.device));
    unsigned char v[10];
    uint64_t idx[10];
    OK(gp_memcpy_sync(gpu, v, dv.device, k));
    OK(gp_memcpy_sync(gpu, idx, di.device, k * 8));
    size_t bad = 0;
    for (size_t j = 0; j < k; j++) {
        const uint64_t want = j < 3 ? zeros[j] : (j - 3) * 200;
        bad += v[j] != (j < 3 ? 0 : 1) || idx[j] != want;
    }
    CHECK(bad == 0, "u8 top-k n = 2^32 + 5: %zu of 10 differ", bad);
    printf("  u8 top-k n = 2^32 + 5: %s\n", bad ? "FAILED" : "ok");
    gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &di);
    free(h);
}

int main(void)
{
    tc_require_gpu("gpu_search");
    tc_seed("gpu_search");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    const char *filter = getenv("GP_TEST_FILTER");
    gp_ctx_t *gpu = NULL, *cpu = NULL;
    REQUIRE(gp_ctx_create(&gpu, 0) == GP_OK, "GPU context");
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    static const size_t sizes[] = {0, 1, 2, 33, 2047, 2048, 2049, 4097, 8192, 8193, 100003, (1u << 18) + 8,
                                   (1u << 20) + 7};
    const size_t maxn = (1u << 20) + 7, m = 100003;
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++) {
        const gp_dtype_t dt = k_types[ti];
        if (filter && !name_listed(filter, gp_dtype_name(dt))) continue;
        const size_t es = gp_dtype_size(dt);
        const long before_fail = tc_fail;
        unsigned char *x = malloc(2 * maxn * es), *q = malloc(m * es); /* merges take up to 2n */
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if (g_quick && n > 5000) continue;
            for (int mode = M_RANDOM; mode <= M_EQUAL; mode++) {
                static const char *const names[] = {"random", "few", "equal"};
                if (n > 200000 && mode != M_RANDOM) continue;
                sort_fill(x, 2 * n, dt, mode);
                sort_fill(q, m, dt, M_RANDOM);
                for (size_t i = 0; i < m && n; i += 3) memcpy(q + i * es, x + (size_t)(tc_next() % n) * es, es);
                check_search(gpu, cpu, dt, n, x, g_quick ? 4099 : m, q, names[mode]); /* the tables */
                check_search(gpu, cpu, dt, n, x, 33, q, names[mode]);                  /* few queries */
                check_unique(gpu, cpu, dt, n, x, names[mode], 0);
                check_unique(gpu, cpu, dt, n, x, names[mode], 1);
                for (int desc = 0; desc < 2; desc++) /* runs across the tiles of 2048, either shorter */
                    check_merge(gpu, cpu, dt, n, n / 3 + 1, x, desc, names[mode]), check_merge(gpu, cpu, dt, n / 7, n, x, desc, names[mode]);
                /* k of up to 2048 counted in shared memory, past it ordered by two sorts (65536, 65537 too) */
                const size_t ks[] = {1, 16, 2048, 2049, n / 3, n, 65536, 65537};
                for (int ki = 0; ki < 8; ki++)
                    if (ks[ki] && ks[ki] <= n && (!g_quick || ks[ki] <= 2049)) check_topk(gpu, cpu, dt, 1, n, x, ks[ki], names[mode]);
            }
        }
        if (dt != GP_F16 && dt != GP_BF16 && dt != GP_F32 && dt != GP_F64) check_unique_ranges(gpu, cpu, dt);
        /* many rows: 300 rows of 1000 (k 1, 16, 1000: the counted ranks), 3 rows of 5000 and of 9000 (k 2049: the
         * counted ranks, then the select and its two-sort order past their limit), 20 rows of 9000 (k 16) */
        sort_fill(x, 300 * 1000, dt, M_RANDOM);
        for (size_t k = 1; k <= 1000; k = k == 1 ? 16 : k == 16 ? 1000 : 1001) check_topk(gpu, cpu, dt, 300, 1000, x, k, "rows");
        check_topk(gpu, cpu, dt, 20, 9000, x, 16, "rows past the ranks");
        sort_fill(x, 3 * 9000, dt, M_FEW);
        check_topk(gpu, cpu, dt, 3, 5000, x, 2049, "rows few");
        check_topk(gpu, cpu, dt, 3, 9000, x, 2049, "rows few past the ranks");
        check_partition(gpu, cpu, dt, 3, 5000, x, 2049, "rows");
        check_partition(gpu, cpu, dt, 1, 70001, x, 1, "one row");
        check_partition(gpu, cpu, dt, 30, 1000, x, 1000, "whole rows");
        /* the sampled bound of long rows: a sorted row (samples at exact quantiles), a random row beside a row of equal
         * keys (the second falls back to the whole row), k = 1, 16, 2049 */
        {
            const size_t nb = 70001;
            const gp_sort_opts_t o = {0, 0, 0};
            sort_fill(x + nb * es, nb, dt, M_RANDOM);
            OK(gp_sort(cpu, dt, nb, x + nb * es, x, &o, NULL));
            sort_fill(x + nb * es, nb, dt, M_EQUAL);
            for (size_t k = 1; k <= 2049; k = k == 1 ? 16 : k == 16 ? 2049 : 2050) {
                check_topk(gpu, cpu, dt, 1, nb, x, k, "sorted");
                check_topk(gpu, cpu, dt, 2, nb, x, k, "sorted+equal rows");
            }
            sort_fill(x, nb, dt, M_RANDOM);
            check_topk(gpu, cpu, dt, 2, nb, x, 16, "random+equal rows");
            /* rows starting at every alignment the filter's 16-byte loads meet (a head before the first aligned key) */
            sort_fill(x, 3 * (nb + 2), dt, M_RANDOM);
            check_topk(gpu, cpu, dt, 3, nb + 2, x, 16, "random rows, misaligned");
            if (dt == GP_F32 || dt == GP_F64) { /* the filter's float test at the special bounds */
                /* a row of NaNs (payloads, both signs) but 1 in 300: the ascending bound at the NaN key */
                sort_fill(x, nb, dt, M_RANDOM);
                for (size_t i = 0; i < nb; i++)
                    if (tc_next() % 300) {
                        const uint64_t r = tc_next();
                        if (es == 4) {
                            const uint32_t b = 0x7f800001u + (uint32_t)(r % 0x7fffffu) + (uint32_t)(r >> 63 << 31);
                            memcpy(x + i * es, &b, 4);
                        } else {
                            const uint64_t b =
                                0x7ff0000000000001ull + (r >> 13) % 0xfffffffffffffull + (r & 1) * (1ull << 63);
                            memcpy(x + i * es, &b, 8);
                        }
                    }
                check_topk(gpu, cpu, dt, 1, nb, x, 16, "mostly NaN");
                /* 301 zeros of either sign in a row of positive keys and one of negative ones: the bound at +-0 */
                sort_fill(x, 2 * nb, dt, M_RANDOM);
                for (size_t i = 0; i < 2 * nb; i++) {
                    unsigned char *e = x + i * es + es - 1; /* the sign's byte */
                    *e = (unsigned char)(i < nb ? *e & 0x7f : *e | 0x80);
                    if (*e == 0x7f || *e == 0xff) *e ^= 0x01; /* no NaN or infinity */
                }
                for (int row = 0; row < 2; row++)
                    for (int z = 0; z < 301; z++) {
                        unsigned char *e = x + ((size_t)row * nb + tc_next() % nb) * es;
                        memset(e, 0, es);
                        e[es - 1] = (unsigned char)(tc_next() & 1 ? 0x80 : 0);
                    }
                check_topk(gpu, cpu, dt, 2, nb, x, 16, "zeros at the bound");
            }
        }
        printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before_fail ? "ok" : "FAILED");
        free(x), free(q);
    }
    if (!g_quick && !filter) check_topk_big(gpu);
    gp_ctx_destroy(gpu), gp_ctx_destroy(cpu);
    return tc_finish("gpu_search");
}
