/*
 * test_search.c — gp_searchsorted and gp_topk on the CPU backend against the reference order of sort_common.h (NumPy's
 * comparison written from the values): every dtype x random values (NaN payloads of both signs, ±0, ±inf,
 * subnormals), few distinct, all equal x n = 0, 1, 2, odd, several thousand; searchsorted both sides with queries
 * taken from the keys (ties, ±0 of the other sign) and fresh ones, u32 and i64 places; top-k smallest and largest,
 * k = 0, 1, 7, n / 2, n, one row and several, ties to the lower index; merges of two sorted runs (unequal lengths,
 * either empty) with values, both orders, equal to the stable sort of a followed by b; np.unique's values, first
 * indices, inverse and counts (every NaN one key, ±0 one key, each kept as its first occurrence); the refusals.
 */
#include "sort_common.h"

static const size_t k_sizes[] = {0, 1, 2, 31, 4097, 20011};

/* the reference's stable order of the n elements of x (desc: largest first) */
static size_t *ref_perm(gp_dtype_t dt, const unsigned char *x, size_t n, int desc)
{
    const size_t es = gp_dtype_size(dt);
    g_dt = dt, g_desc = desc, g_lo = 0, g_hi = 8 * (int)es;
    free(g_v);
    g_v = malloc((n ? n : 1) * sizeof *g_v);
    for (size_t i = 0; i < n; i++) g_v[i] = decode(dt, bits_at(x, es, i));
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    ref_argsort(n, perm);
    return perm;
}

static void check_search(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const unsigned char *x, const char *what)
{
    const size_t es = gp_dtype_size(dt), m = 2 * n + 40;
    size_t *perm = ref_perm(dt, x, n, 0);
    unsigned char *a = malloc(n * es + 1), *q = malloc(m * es);
    for (size_t i = 0; i < n; i++) memcpy(a + i * es, x + perm[i] * es, es);
    sort_fill(q, m, dt, M_RANDOM);
    for (size_t i = 0; i < m && n; i += 2) { /* every other query one of the keys, some with the other zero */
        uint64_t b = bits_at(a, es, (size_t)(tc_next() % n));
        const int fl = dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64;
        const uint64_t sign = 1ull << (8 * es - 1);
        if (fl && (b & (sign - 1)) == 0 && (tc_next() & 1)) b ^= sign;
        memcpy(q + i * es, &b, es);
    }
    val_t *va = malloc((n ? n : 1) * sizeof *va);
    for (size_t i = 0; i < n; i++) va[i] = decode(dt, bits_at(a, es, i));
    uint64_t *got = malloc(m * 8);
    for (int side = 0; side < 2; side++)
        for (int w64 = 0; w64 < 2; w64++) {
            tc_poison(got, m * 8);
            OK(gp_searchsorted_sync(ctx, dt, n, a, m, q, side, w64 ? GP_I64 : GP_U32, got));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < m; i++) {
                const val_t v = decode(dt, bits_at(q, es, i));
                size_t want = 0; /* left: the keys before the query; right: the keys not after it */
                for (size_t j = 0; j < n; j++) want += side ? !before(&v, &va[j]) : before(&va[j], &v);
                const uint64_t g = w64 ? got[i] : bits_at((const unsigned char *)got, 4, i);
                if (g != want && bad++ == 0) first = i;
            }
            CHECK(bad == 0, "%s %s n=%zu searchsorted %s %s: %zu of %zu places differ (first: query %zu)",
                  gp_dtype_name(dt), what, n, side ? "right" : "left", w64 ? "i64" : "u32", bad, m, first);
        }
    free(perm), free(a), free(q), free(va), free(got);
}

/* searchsorted past the CPU backend's sampled size (2^17 keys): 4099 queries (half of them keys, some with the other
 * zero; NaN among the floats), the reference a binary search by the reference's order over the sorted keys */
static void check_search_big(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const unsigned char *x, const char *what)
{
    const size_t es = gp_dtype_size(dt), m = 4099;
    size_t *perm = ref_perm(dt, x, n, 0);
    unsigned char *a = malloc(n * es + 1), *q = malloc(m * es);
    for (size_t i = 0; i < n; i++) memcpy(a + i * es, x + perm[i] * es, es);
    sort_fill(q, m, dt, M_RANDOM);
    for (size_t i = 0; i < m; i += 2) {
        uint64_t b = bits_at(a, es, i < 8 ? (i ? n - 1 : 0) : (size_t)(tc_next() % n)); /* the ends too */
        const int fl = dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64;
        const uint64_t sign = 1ull << (8 * es - 1);
        if (fl && (b & (sign - 1)) == 0 && (tc_next() & 1)) b ^= sign;
        memcpy(q + i * es, &b, es);
    }
    val_t *va = malloc(n * sizeof *va);
    for (size_t i = 0; i < n; i++) va[i] = decode(dt, bits_at(a, es, i));
    uint64_t *got = malloc(m * 8);
    for (int side = 0; side < 2; side++) {
        tc_poison(got, m * 8);
        OK(gp_searchsorted_sync(ctx, dt, n, a, m, q, side, GP_I64, got));
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < m; i++) {
            const val_t v = decode(dt, bits_at(q, es, i));
            size_t lo = 0, hi = n; /* left: the keys before the query; right: the keys not after it */
            while (lo < hi) {
                const size_t mid = lo + (hi - lo) / 2;
                if (side ? !before(&v, &va[mid]) : before(&va[mid], &v)) lo = mid + 1;
                else hi = mid;
            }
            if (got[i] != lo && bad++ == 0) first = i;
        }
        CHECK(bad == 0, "%s %s n=%zu searchsorted %s: %zu of %zu places differ (first: query %zu)", gp_dtype_name(dt),
              what, n, side ? "right" : "left", bad, m, first);
    }
    free(perm), free(a), free(q), free(va), free(got);
}

static void check_topk(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const unsigned char *x, const char *what)
{
    const size_t es = gp_dtype_size(dt);
    const size_t ks[] = {0, 1, 7, n / 100, n / 2, n};
    for (int largest = 0; largest < 2; largest++) {
        size_t **perm = malloc(rows * sizeof *perm);
        for (size_t r = 0; r < rows; r++) perm[r] = ref_perm(dt, x + r * n * es, n, largest);
        for (int ki = 0; ki < 6; ki++) {
            const size_t k = ks[ki];
            if (k > n) continue;
            unsigned char *vals = malloc(rows * k * es + 1), *idx = malloc(rows * k * 8 + 1);
            for (int w64 = 0; w64 < 2; w64++) {
                const size_t ib = w64 ? 8 : 4;
                tc_poison(vals, rows * k * es), tc_poison(idx, rows * k * ib);
                OK(gp_topk_sync(ctx, dt, rows, n, x, k, largest, vals, w64 ? GP_I64 : GP_U32, idx));
                size_t bad = 0;
                for (size_t r = 0; r < rows; r++)
                    for (size_t j = 0; j < k; j++) {
                        const size_t p = perm[r][j];
                        bad += bits_at(idx, ib, r * k + j) != p ||
                               memcmp(vals + (r * k + j) * es, x + (r * n + p) * es, es) != 0;
                    }
                CHECK(bad == 0, "%s %s rows=%zu n=%zu k=%zu %s u%zu: %zu of %zu differ", gp_dtype_name(dt), what,
                      rows, n, k, largest ? "largest" : "smallest", 8 * ib, bad, rows * k);
            }
            if (k) { /* one output alone */
                tc_poison(vals, rows * k * es);
                OK(gp_topk_sync(ctx, dt, rows, n, x, k, largest, vals, GP_U32, NULL));
                size_t bad = 0;
                for (size_t r = 0; r < rows; r++)
                    for (size_t j = 0; j < k; j++) bad += memcmp(vals + (r * k + j) * es, x + (r * n + perm[r][j]) * es, es) != 0;
                CHECK(bad == 0, "%s %s n=%zu k=%zu: values alone differ", gp_dtype_name(dt), what, n, k);
            }
            free(vals), free(idx);
        }
        for (size_t r = 0; r < rows; r++) free(perm[r]);
        free(perm);
    }
}

/* gp_partition_kth_sync: each row's first k = its stable sort's first k, then the other positions in input order */
static void check_partition(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const unsigned char *x,
                            const char *what)
{
    const size_t es = gp_dtype_size(dt);
    const size_t ks[] = {0, 1, 7, n / 2, n};
    size_t **perm = malloc(rows * sizeof *perm);
    for (size_t r = 0; r < rows; r++) perm[r] = ref_perm(dt, x + r * n * es, n, 0);
    unsigned char *vals = malloc(rows * n * es + 1), *idx = malloc(rows * n * 8 + 1), *mark = malloc(n + 1);
    size_t *want = malloc((n + 1) * sizeof *want);
    for (int ki = 0; ki < 5; ki++) {
        const size_t k = ks[ki];
        if (k > n) continue;
        for (int w64 = 0; w64 < 2; w64++) {
            const size_t ib = w64 ? 8 : 4;
            tc_poison(vals, rows * n * es), tc_poison(idx, rows * n * ib);
            OK(gp_partition_kth_sync(ctx, dt, rows, n, x, k, w64 ? vals : NULL, w64 ? GP_I64 : GP_U32, idx));
            if (!w64) OK(gp_partition_kth_sync(ctx, dt, rows, n, x, k, vals, GP_U32, NULL));
            size_t bad = 0;
            for (size_t r = 0; r < rows; r++) {
                memset(mark, 0, n);
                for (size_t j = 0; j < k; j++) want[j] = perm[r][j], mark[perm[r][j]] = 1;
                for (size_t i = 0, o = k; i < n; i++)
                    if (!mark[i]) want[o++] = i;
                for (size_t j = 0; j < n; j++)
                    bad += bits_at(idx, ib, r * n + j) != want[j] ||
                           memcmp(vals + (r * n + j) * es, x + (r * n + want[j]) * es, es) != 0;
            }
            CHECK(bad == 0, "%s %s partition rows=%zu n=%zu k=%zu u%zu: %zu of %zu differ", gp_dtype_name(dt), what,
                  rows, n, k, 8 * ib, bad, rows * n);
        }
    }
    for (size_t r = 0; r < rows; r++) free(perm[r]);
    free(perm), free(vals), free(idx), free(mark), free(want);
}

/* x's first na elements and the next nb, each sorted (desc: largest first), merged: the reference is the stable
 * order of a followed by b, with 8-byte values (positions in that concatenation) */
static void check_merge(gp_ctx_t *ctx, gp_dtype_t dt, size_t na, size_t nb, const unsigned char *x, int desc,
                        const char *what)
{
    const size_t es = gp_dtype_size(dt), n = na + nb;
    unsigned char *ab = malloc(n * es + 1), *out = malloc(n * es + 1);
    uint64_t *v = malloc((n + 1) * 8), *vo = malloc((n + 1) * 8);
    const size_t cut[2][2] = {{0, na}, {na, nb}};
    for (int h = 0; h < 2; h++) { /* each run sorted by the reference */
        size_t *p = ref_perm(dt, x + cut[h][0] * es, cut[h][1], desc);
        for (size_t i = 0; i < cut[h][1]; i++) memcpy(ab + (cut[h][0] + i) * es, x + (cut[h][0] + p[i]) * es, es);
        free(p);
    }
    for (size_t i = 0; i < n; i++) v[i] = i;
    size_t *want = ref_perm(dt, ab, n, desc);
    tc_poison(out, n * es), tc_poison(vo, n * 8);
    OK(gp_merge_sync(ctx, dt, na, ab, nb, ab + na * es, out, 8, v, v + na, vo, desc));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += vo[i] != want[i] || memcmp(out + i * es, ab + want[i] * es, es) != 0;
    CHECK(bad == 0, "%s %s merge na=%zu nb=%zu %s: %zu of %zu differ", gp_dtype_name(dt), what, na, nb,
          desc ? "desc" : "asc", bad, n);
    tc_poison(out, n * es);
    OK(gp_merge_sync(ctx, dt, na, ab, nb, ab + na * es, out, 0, NULL, NULL, NULL, desc));
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(out + i * es, ab + want[i] * es, es) != 0;
    CHECK(bad == 0, "%s %s merge of keys na=%zu nb=%zu: %zu differ", gp_dtype_name(dt), what, na, nb, bad);
    free(ab), free(out), free(v), free(vo), free(want);
}

/* gp_sorted_until against the reference order: in order (n), and with one inversion made at a random place the
 * first i whose element the reference puts strictly before its predecessor */
static size_t ref_until(gp_dtype_t dt, size_t n, const unsigned char *x, int desc)
{
    const size_t es = gp_dtype_size(dt);
    g_dt = dt, g_desc = desc, g_lo = 0, g_hi = 8 * (int)es;
    for (size_t i = 1; i < n; i++) {
        const val_t a = decode(dt, bits_at(x, es, i)), b = decode(dt, bits_at(x, es, i - 1));
        if (before(&a, &b)) return i;
    }
    return n;
}
static void check_sorted_until(gp_dtype_t dt, size_t n, const unsigned char *x, int desc, const char *what)
{
    const size_t es = gp_dtype_size(dt);
    unsigned char *s = malloc(n * es + 1);
    size_t *p = ref_perm(dt, x, n, desc);
    for (size_t i = 0; i < n; i++) memcpy(s + i * es, x + p[i] * es, es);
    free(p);
    size_t until = 7;
    OK(gp_sorted_until(dt, n, s, desc, &until));
    CHECK(until == n, "%s %s sorted_until of the sorted n=%zu %s: %zu", gp_dtype_name(dt), what, n, desc ? "desc" : "asc",
          until);
    for (int k = 0; k < 3 && n > 1; k++) { /* swap a pair of neighbours: an inversion unless they tie */
        const size_t i = 1 + (size_t)(tc_next() % (n - 1));
        unsigned char t[8];
        memcpy(t, s + i * es, es), memcpy(s + i * es, s + (i - 1) * es, es), memcpy(s + (i - 1) * es, t, es);
        const size_t want = ref_until(dt, n, s, desc);
        OK(gp_sorted_until(dt, n, s, desc, &until));
        CHECK(until == want, "%s %s sorted_until n=%zu %s after a swap at %zu: %zu, want %zu", gp_dtype_name(dt), what,
              n, desc ? "desc" : "asc", i, until, want);
    }
    free(s);
}

/* np.unique with its index, inverse and counts: the reference's stable order, runs of reference-equal neighbours
 * (every NaN equal, -0 == +0), each kept as its first occurrence */
/* nan_distinct: np.unique(equal_nan=False), each NaN a run of its own */
static void check_unique(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const unsigned char *x, const char *what,
                         int nan_distinct)
{
    const gp_unique_opts_t uo = {sizeof uo, nan_distinct};
    const size_t es = gp_dtype_size(dt);
    size_t *perm = ref_perm(dt, x, n, 0), u = 0;
    unsigned char *wy = malloc(n * es + 1), *gy = malloc(n * es + 1);
    uint64_t *wf = malloc(n * 8 + 8), *wi = malloc(n * 8 + 8), *wc = malloc(n * 8 + 8);
    uint64_t *gf = malloc(n * 8 + 8), *gi = malloc(n * 8 + 8), *gc = malloc(n * 8 + 8);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || before(&g_v[perm[i - 1]], &g_v[perm[i]]) || (nan_distinct && g_v[perm[i]].nan)) {
            memcpy(wy + u * es, x + perm[i] * es, es);
            wf[u] = perm[i], wc[u] = 0, u++;
        }
        wi[perm[i]] = u - 1, wc[u - 1]++;
    }
    for (int w64 = 0; w64 < 2; w64++) {
        const size_t ib = w64 ? 8 : 4;
        size_t got = 7;
        tc_poison(gy, n * es + 1), tc_poison(gf, n * 8 + 8), tc_poison(gi, n * 8 + 8), tc_poison(gc, n * 8 + 8);
        OK(gp_unique_sorted_opts_sync(ctx, dt, n, x, gy, w64 ? GP_I64 : GP_U32, gf, gi, gc, &got, &uo));
        size_t bad = got != u;
        for (size_t j = 0; j < u && !bad; j++) {
            const uint64_t f = ib == 4 ? ((uint32_t *)gf)[j] : gf[j];
            bad += memcmp(gy + j * es, wy + j * es, es) != 0 || f != wf[j] || gc[j] != wc[j];
        }
        for (size_t i = 0; i < n && !bad; i++) bad += (ib == 4 ? ((uint32_t *)gi)[i] : gi[i]) != wi[i];
        CHECK(bad == 0, "%s %s n=%zu unique%s u%zu: %zu distinct, wanted %zu, or the outputs differ", gp_dtype_name(dt),
              what, n, nan_distinct ? " (NaNs distinct)" : "", 8 * ib, got, u);
    }
    for (int with_counts = 0; with_counts < 2; with_counts++) { /* values (and counts) alone: the sorted keys' runs */
        size_t got = 7;
        tc_poison(gy, n * es + 1), tc_poison(gc, n * 8 + 8);
        OK(gp_unique_sorted_opts_sync(ctx, dt, n, x, gy, GP_U32, NULL, NULL, with_counts ? gc : NULL, &got, &uo));
        size_t bad = got != u;
        for (size_t j = 0; j < u && !bad; j++)
            bad += memcmp(gy + j * es, wy + j * es, es) != 0 || (with_counts && gc[j] != wc[j]);
        CHECK(bad == 0, "%s %s n=%zu unique%s values%s: %zu distinct, wanted %zu, or the outputs differ",
              gp_dtype_name(dt), what, n, nan_distinct ? " (NaNs distinct)" : "", with_counts ? " and counts" : "", got,
              u);
    }
    size_t got = 7; /* the count alone */
    OK(gp_unique_sorted_opts_sync(ctx, dt, n, x, NULL, GP_U32, NULL, NULL, NULL, &got, &uo));
    CHECK(got == u, "%s %s n=%zu unique count alone: %zu, wanted %zu", gp_dtype_name(dt), what, n, got, u);
    free(perm), free(wy), free(gy), free(wf), free(wi), free(wc), free(gf), free(gi), free(gc);
}

/* integer keys in a range [base, base + span) (skew: 70% of them one value): counted where the range has at most n
 * values (unique_count_cpu.c), sorted otherwise; check_unique's reference either way */
static void check_unique_ranges(gp_ctx_t *ctx, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt);
    const int sgn = dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64;
    const uint64_t tspan = es == 8 ? UINT64_MAX : (1ull << (8 * es)); /* values of the type (u64: less one) */
    const size_t ns[] = {4095, 4096, 70001, (1u << 20) + 3};
    unsigned char *x = malloc(ns[3] * es);
    REQUIRE(x != NULL, "%zu bytes of keys", ns[3] * es);
    for (size_t ni = 0; ni < 4; ni++) {
        const size_t n = ns[ni];
        if (n > 70001 && dt != GP_I32 && dt != GP_U64) continue; /* the team's count (past GP_CPU_PAR_BYTES) */
        const uint64_t spans[] = {1, 2, 100, 4095, n - 1, n, n + 1, 65537};
        for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++) {
            const uint64_t span = spans[si];
            if (span > tspan) continue;
            for (int bi = 0; bi < 3; bi++) {
                /* bases: 0 (or the least for signed), crossing zero (signed) or an offset, and the type's top */
                int64_t base;
                if (bi == 0) base = sgn ? (span == tspan ? -(int64_t)(tspan / 2) : 0) : 0;
                else if (bi == 1) base = sgn ? -(int64_t)(span / 3) - 5 : 7;
                else base = es == 8 ? (sgn ? INT64_MAX - (int64_t)span + 1 : -(int64_t)span)
                                    : (int64_t)(tspan / (sgn ? 2 : 1) - span);
                if (span == tspan && bi) continue;
                if (!range_fits(dt, base, span, tspan)) continue;
                for (int skew = 0; skew < 2; skew++) {
                    range_fill(x, n, dt, base, span, skew);
                    char what[64];
                    snprintf(what, sizeof what, "range %llu from %lld%s", (unsigned long long)span, (long long)base,
                             skew ? " skewed" : "");
                    check_unique(ctx, dt, n, x, what, 0);
                }
            }
        }
    }
    free(x);
}

int main(void)
{
    tc_seed("test_search");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "CPU context");
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++) {
        const gp_dtype_t dt = k_types[ti];
        const size_t es = gp_dtype_size(dt);
        const long before_fail = tc_fail;
        unsigned char *x = malloc(3 * 20011 * es);
        for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
            const size_t n = k_sizes[si];
            for (int mode = M_RANDOM; mode <= M_EQUAL; mode++) {
                static const char *const names[] = {"random", "few", "equal"};
                sort_fill(x, 3 * n, dt, mode);
                if (n <= 4097) check_search(ctx, dt, n, x, names[mode]);
                check_unique(ctx, dt, n, x, names[mode], 0);
                check_unique(ctx, dt, n, x, names[mode], 1);
                check_topk(ctx, dt, 1, n, x, names[mode]);
                if (n <= 4097) check_topk(ctx, dt, 3, n, x, names[mode]);
                if (n >= 4096) { /* the sampled threshold's path (topk.c) at this n too, its gather by each ISA the
                                    CPU has (AVX-512, AVX2, scalar) */
                    gp__topk_cpu_sample_min = 2;
                    for (int isa = 2; isa >= 0; isa--) {
                        gp__sort_cpu_isa = isa;
                        check_topk(ctx, dt, 1, n, x, mode == M_RANDOM ? "random, sampled" : mode == M_FEW ? "few, sampled"
                                                                                                          : "equal, sampled");
                    }
                    gp__sort_cpu_isa = 2;
                    if (mode == M_RANDOM && (dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64)) {
                        /* the least keys are zeros of both signs: their bits come from the row, not the key */
                        unsigned char *y = malloc(n * es);
                        memcpy(y, x, n * es);
                        for (size_t i = 0; i < n; i++) {
                            y[i * es + es - 1] &= 0x7f;
                            if (i % 37 == 5) memset(y + i * es, 0, es), y[i * es + es - 1] = (i / 37) % 2 ? 0x80 : 0;
                        }
                        check_topk(ctx, dt, 1, n, y, "zeros of both signs least, sampled");
                        free(y);
                    }
                    check_topk(ctx, dt, 2, n / 2, x, "two rows, sampled");
                    gp__topk_cpu_sample_min = GP_TOPK_CPU_SAMPLE_MIN;
                }
                check_partition(ctx, dt, 1, n, x, names[mode]);
                if (n <= 4097) check_partition(ctx, dt, 3, n, x, names[mode]);
                for (int desc = 0; desc < 2; desc++) {
                    check_merge(ctx, dt, n, n / 3 + (n & 1), x, desc, names[mode]);
                    check_merge(ctx, dt, n / 5, n, x, desc, names[mode]);
                    check_sorted_until(dt, n, x, desc, names[mode]);
                }
            }
        }
        /* past the CPU backend's chunking (top-k: chunks of 2^15 keys, each chunk's keys below the k-th and ties at
         * it; unique: 64 chunks of the sorted keys, runs across their edges) */
        if (es >= 2) {
            const size_t big = 300007;
            unsigned char *xb = malloc(big * es);
            for (int mode = M_RANDOM; mode <= M_FEW; mode++) {
                sort_fill(xb, big, dt, mode);
                check_topk(ctx, dt, 1, big, xb, mode == M_RANDOM ? "random, chunked" : "few, chunked");
                check_unique(ctx, dt, big, xb, mode == M_RANDOM ? "random, chunked" : "few, chunked", 0);
                check_unique(ctx, dt, big, xb, mode == M_RANDOM ? "random, chunked" : "few, chunked", 1);
                check_partition(ctx, dt, 1, big, xb, mode == M_RANDOM ? "random, chunked" : "few, chunked");
            }
            free(xb);
        }
        if (dt != GP_F16 && dt != GP_BF16 && dt != GP_F32 && dt != GP_F64) check_unique_ranges(ctx, dt);
        printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before_fail ? "ok" : "FAILED");
        free(x);
    }
    /* unique past the CPU backend's one-chunk size (65536): its runs counted and written in 64 chunks, the runs
     * across the chunk edges (few values: long runs; random: short ones; NaN payloads among the floats) */
    {
        static const gp_dtype_t big[] = {GP_F32, GP_I16, GP_U64};
        const size_t n = 70001;
        for (size_t bi = 0; bi < sizeof big / sizeof big[0]; bi++) {
            unsigned char *x = malloc(3 * n * gp_dtype_size(big[bi]));
            for (int mode = M_RANDOM; mode <= M_FEW; mode++) {
                sort_fill(x, 3 * n, big[bi], mode);
                check_unique(ctx, big[bi], n, x, mode == M_RANDOM ? "random, 70001" : "few, 70001", 0);
                check_unique(ctx, big[bi], n, x, mode == M_RANDOM ? "random, 70001" : "few, 70001", 1);
            }
            free(x);
        }
        /* searchsorted from 2^17 keys: the sampled search, at sizes on and off the sample's multiple */
        static const size_t bn[] = {(size_t)1 << 17, ((size_t)1 << 18) + 37};
        for (size_t bi = 0; bi < sizeof big / sizeof big[0]; bi++)
            for (size_t si = 0; si < 2; si++) {
                unsigned char *x = malloc(bn[si] * gp_dtype_size(big[bi]));
                for (int mode = M_RANDOM; mode <= M_FEW; mode++) {
                    sort_fill(x, bn[si], big[bi], mode);
                    check_search_big(ctx, big[bi], bn[si], x, mode == M_RANDOM ? "random" : "few");
                }
                free(x);
            }
    }
    /* the refusals name the argument and write nothing */
    {
        float a[4] = {1, 2, 3, 4}, q[2] = {2, 5};
        uint64_t out[2] = {7, 7};
        uint32_t o32[2];
        CHECK_ST(gp_searchsorted_sync(ctx, GP_F32, 4, a, 2, q, 2, GP_I64, out), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "side") != NULL, "side refusal names it: %s", gp_last_error());
        CHECK_ST(gp_searchsorted_sync(ctx, GP_F32, 4, a, 2, q, 0, GP_F32, out), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_searchsorted_sync(ctx, GP_F32, 4, a, 2, NULL, 0, GP_I64, out), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_searchsorted_sync(ctx, GP_F32, 4, a, 2, q, 0, GP_I64, (uint64_t *)(void *)a), GP_ERR_INVALID_ARG);
        CHECK(out[0] == 7 && out[1] == 7, "a refused call wrote its output");
        const gp_unique_opts_t small = {4, 1}, two = {sizeof two, 2};
        size_t ucount = 9;
        CHECK_ST(gp_unique_sorted_opts_sync(ctx, GP_F32, 4, a, q, GP_U32, NULL, NULL, NULL, &ucount, &small),
                 GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "opts->size 4") != NULL, "unique's opts size named: %s", gp_last_error());
        CHECK_ST(gp_unique_sorted_opts_sync(ctx, GP_F32, 4, a, q, GP_U32, NULL, NULL, NULL, &ucount, &two),
                 GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "nan_distinct 2") != NULL, "nan_distinct named: %s", gp_last_error());
        int64_t pi[4] = {7, 7, 7, 7};
        CHECK_ST(gp_partition_kth_sync(ctx, GP_F32, 1, 4, a, 5, NULL, GP_I64, pi), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "k = 5") != NULL, "partition names k: %s", gp_last_error());
        CHECK_ST(gp_partition_kth_sync(ctx, GP_F32, 1, 4, a, 2, NULL, GP_I16, pi), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "index dtype i16") != NULL, "partition names the index dtype: %s",
              gp_last_error());
        CHECK_ST(gp_partition_kth_sync(ctx, GP_F32, 1, 4, a, 2, NULL, GP_I64, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_partition_kth_sync(ctx, GP_F32, 1, 4, a, 2, a, GP_I64, NULL), GP_ERR_INVALID_ARG);
        CHECK(pi[0] == 7 && pi[3] == 7, "a refused partition wrote its output");
        size_t until = 9;
        CHECK_ST(gp_sorted_until((gp_dtype_t)99, 4, a, 0, &until), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "dtype 99") != NULL, "sorted_until names the dtype: %s", gp_last_error());
        CHECK_ST(gp_sorted_until(GP_F32, 4, NULL, 0, &until), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sorted_until(GP_F32, 4, a, 2, &until), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sorted_until(GP_F32, 4, a, 0, NULL), GP_ERR_INVALID_ARG);
        CHECK(until == 9, "a refused gp_sorted_until wrote its answer");
        OK(gp_sorted_until(GP_F32, 0, NULL, 0, &until));
        CHECK(until == 0, "sorted_until of nothing: %zu", until);
        OK(gp_sorted_until(GP_F32, 4, a, 1, &until));
        CHECK(until == 1, "ascending keys, descending order: %zu", until);
        size_t cnt = 9;
        CHECK_ST(gp_unique_sorted_sync(ctx, GP_F32, 4, a, q, GP_U32, NULL, NULL, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "count") != NULL, "unique's count refusal names it: %s", gp_last_error());
        CHECK_ST(gp_unique_sorted_sync(ctx, GP_F32, 4, a, NULL, GP_F32, o32, NULL, NULL, &cnt), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "index dtype") != NULL && cnt == 0, "unique's index dtype refusal: %s",
              gp_last_error());
        /* np.unique([3, nan, -0., 1, 0., -nan, 3], return_index, return_inverse, return_counts) */
        const uint32_t ub[7] = {0x40400000u, 0x7fc00123u, 0x80000000u, 0x3f800000u, 0, 0xffc00000u, 0x40400000u};
        uint32_t uy[7], uf[7], ui[7];
        uint64_t uc[7];
        OK(gp_unique_sorted_sync(ctx, GP_F32, 7, ub, uy, GP_U32, uf, ui, uc, &cnt));
        const uint32_t wy[4] = {0x80000000u, 0x3f800000u, 0x40400000u, 0x7fc00123u}, wf[4] = {2, 3, 0, 1},
                       wi[7] = {2, 3, 0, 1, 0, 3, 2};
        const uint64_t wc[4] = {2, 1, 2, 2};
        CHECK(cnt == 4 && !memcmp(uy, wy, 16) && !memcmp(uf, wf, 16) && !memcmp(ui, wi, 28) && !memcmp(uc, wc, 32),
              "np.unique of [3, nan, -0, 1, 0, -nan, 3]: %zu distinct", cnt);
        OK(gp_searchsorted_sync(ctx, GP_F32, 4, a, 2, q, 1, GP_U32, o32));
        CHECK(o32[0] == 2 && o32[1] == 4, "searchsorted right of {2, 5} in {1, 2, 3, 4}: %u %u", o32[0], o32[1]);
        float v[2];
        CHECK_ST(gp_topk_sync(ctx, GP_F32, 1, 4, a, 5, 0, v, GP_U32, o32), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "k = 5") != NULL, "k refusal names it: %s", gp_last_error());
        CHECK_ST(gp_topk_sync(ctx, GP_F32, 1, 4, a, 2, 0, NULL, GP_U32, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_topk_sync(ctx, GP_F32, 1, 4, a, 2, 0, v, GP_I8, o32), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_topk_sync(ctx, GP_F32, 1, 4, a, 2, 0, a + 1, GP_U32, o32), GP_ERR_INVALID_ARG);
        float mo[8];
        CHECK_ST(gp_merge_sync(ctx, GP_F32, 4, a, 2, q, mo, 3, NULL, NULL, NULL, 0), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "value_bytes") != NULL, "merge names value_bytes: %s", gp_last_error());
        CHECK_ST(gp_merge_sync(ctx, GP_F32, 4, a, 2, q, a + 2, 0, NULL, NULL, NULL, 0), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_merge_sync(ctx, GP_F32, 4, a, 2, q, mo, 4, NULL, NULL, NULL, 0), GP_ERR_INVALID_ARG);
        OK(gp_merge_sync(ctx, GP_F32, 4, a, 2, q, mo, 0, NULL, NULL, NULL, 0));
        CHECK(mo[0] == 1 && mo[1] == 2 && mo[2] == 2 && mo[3] == 3 && mo[4] == 4 && mo[5] == 5, "merge of {1..4} and {2, 5}");
        OK(gp_topk_sync(ctx, GP_F32, 1, 4, a, 2, 1, v, GP_U32, o32));
        CHECK(v[0] == 4 && v[1] == 3 && o32[0] == 3 && o32[1] == 2, "top-2 largest of {1, 2, 3, 4}");
    }
    free(g_v);
    gp_ctx_destroy(ctx);
    return tc_finish("test_search");
}
