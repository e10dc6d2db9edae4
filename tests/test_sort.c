/*
 * test_sort.c — the sort family's CPU backend (src/sort/sort_cpu.c) against an independent reference: a stable merge
 * sort of positions under NumPy's comparison, written from the values (floats decoded to double: NaN last ascending
 * and first descending, -0 == +0; integers as integers), not from the radix keys. Every dtype x ascending /
 * descending x random values with NaN payloads of both signs, ±0, ±inf and subnormals, few distinct keys, all equal,
 * sorted, reverse-sorted; n = 0, 1, 2, odd, past the parallel threshold; argsort (u32 and u64 positions), keys (every
 * output bit: the input's element at the reference position), pairs with 1- to 16-byte values, in place; integer bit
 * ranges against the bits themselves; the refusals.
 */
#include "sort_common.h"

#include <math.h>

static const size_t k_sizes[] = {0, 1, 2, 31, 4097, 100003, (1u << 20) + 7};

static void fill(unsigned char *x, size_t n, gp_dtype_t dt, int mode)
{
    const size_t es = gp_dtype_size(dt);
    sort_fill(x, n, dt, mode >= M_SORTED ? M_RANDOM : mode);
    if (mode == M_SORTED || mode == M_REVERSED) { /* the reference's own order of the random values */
        g_v = malloc((n ? n : 1) * sizeof *g_v);
        for (size_t i = 0; i < n; i++) g_v[i] = decode(dt, bits_at(x, es, i));
        size_t *perm = malloc((n ? n : 1) * sizeof *perm);
        const int keep = g_desc;
        g_desc = mode == M_REVERSED;
        ref_argsort(n, perm);
        g_desc = keep;
        unsigned char *y = malloc(n * es + 1);
        for (size_t i = 0; i < n; i++) memcpy(y + i * es, x + perm[i] * es, es);
        memcpy(x, y, n * es);
        free(y), free(perm), free(g_v);
        g_v = NULL;
    }
}

/* every form of the sort of x (n keys of dt) against the reference permutation */
static void check_all(gp_dtype_t dt, size_t n, const unsigned char *x, int desc, int lo, int hi, int big,
                      const char *what)
{
    const size_t es = gp_dtype_size(dt);
    g_dt = dt, g_desc = desc, g_lo = lo, g_hi = hi;
    g_v = malloc((n ? n : 1) * sizeof *g_v);
    for (size_t i = 0; i < n; i++) g_v[i] = decode(dt, bits_at(x, es, i));
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    ref_argsort(n, perm);
    const char *dn = gp_dtype_name(dt), *od = desc ? "desc" : "asc";

    /* argsort, u32 and u64 positions */
    for (size_t ib = 4; ib <= 8; ib += 4) {
        if (big && ib == 8) continue;
        unsigned char *idx = malloc(n * ib + 1);
        tc_poison(idx, n * ib);
        OK(gp__sort_cpu(dt, n, x, NULL, ib, NULL, idx, desc, lo, hi));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += bits_at(idx, ib, i) != perm[i];
        CHECK(bad == 0, "%s %s %s n=%zu argsort u%zu: %zu positions differ", dn, od, what, n, 8 * ib, bad);
        /* with the sorted keys wanted too: every bit the element's at its position */
        unsigned char *ko = malloc(n * es + 1);
        tc_poison(ko, n * es), tc_poison(idx, n * ib);
        OK(gp__sort_cpu(dt, n, x, ko, ib, NULL, idx, desc, lo, hi));
        bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += bits_at(idx, ib, i) != perm[i] || memcmp(ko + i * es, x + perm[i] * es, es) != 0;
        CHECK(bad == 0, "%s %s %s n=%zu argsort u%zu with keys: %zu differ", dn, od, what, n, 8 * ib, bad);
        free(ko);
        free(idx);
    }
    /* keys: every output bit is the input element's at the reference position */
    unsigned char *y = malloc(n * es + 1), *want = malloc(n * es + 1);
    for (size_t i = 0; i < n; i++) memcpy(want + i * es, x + perm[i] * es, es);
    tc_poison(y, n * es);
    OK(gp__sort_cpu(dt, n, x, y, 0, NULL, NULL, desc, lo, hi));
    CHECK(memcmp(y, want, n * es) == 0, "%s %s %s n=%zu keys differ", dn, od, what, n);
    /* pairs, values of 1 .. 16 bytes, out of place and in place */
    static const size_t vsizes[] = {1, 2, 4, 8, 16};
    for (size_t vi = 0; vi < 5; vi++) {
        const size_t vs = vsizes[vi];
        if (big && vs != 8) continue;
        unsigned char *v = malloc(n * vs + 1), *vo = malloc(n * vs + 1), *vw = malloc(n * vs + 1);
        for (size_t i = 0; i < n * vs; i++) v[i] = (unsigned char)tc_next();
        for (size_t i = 0; i < n; i++) memcpy(vw + i * vs, v + perm[i] * vs, vs);
        tc_poison(y, n * es), tc_poison(vo, n * vs);
        OK(gp__sort_cpu(dt, n, x, y, vs, v, vo, desc, lo, hi));
        CHECK(memcmp(y, want, n * es) == 0 && memcmp(vo, vw, n * vs) == 0, "%s %s %s n=%zu pairs (%zu-byte values) differ",
              dn, od, what, n, vs);
        if (vs == 4 || vs == 16) { /* in place: keys and values */
            memcpy(y, x, n * es);
            OK(gp__sort_cpu(dt, n, y, y, vs, v, v, desc, lo, hi));
            CHECK(memcmp(y, want, n * es) == 0 && memcmp(v, vw, n * vs) == 0, "%s %s %s n=%zu pairs in place differ",
                  dn, od, what, n);
        }
        free(v), free(vo), free(vw);
    }
    free(y), free(want), free(perm), free(g_v);
    g_v = NULL;
}

/* The first pass of the MSD path writes whole lines where its destination takes them: keys of 4 and 8 bytes with
 * values of 0, 4 and 8 bytes (and argsort positions), output arrays at every element offset within a line and at odd
 * byte offsets (which take the plain scatter), the whole key (the scratch first) and its low digits (the output
 * first), each against the LSD path's answer (itself checked against the reference above). */
static void check_lines(void)
{
    static const gp_dtype_t types[] = {GP_U32, GP_F32, GP_U64, GP_I64};
    const size_t n = 5003, pad = 64;
    for (size_t ti = 0; ti < 4; ti++) {
        const gp_dtype_t dt = types[ti];
        const size_t es = gp_dtype_size(dt);
        const int w = 8 * (int)es;
        unsigned char *x = malloc(n * es), *ky = malloc(n * es + pad + 2), *want = malloc(n * es), *v = malloc(n * 8);
        unsigned char *vy = malloc(n * 8 + pad), *vwant = malloc(n * 8);
        sort_fill(x, n, dt, M_RANDOM);
        for (size_t i = 0; i < n * 8; i++) v[i] = (unsigned char)tc_next();
        for (int arg = 0; arg < 2; arg++)
            for (size_t vs = 0; vs <= 8; vs += 4) {
                if (arg && vs == 0) continue;
                for (int top = 0; top < 2; top++) { /* hi = w: the scratch first; hi = w - 8: the output first */
                    const int hi = w - 8 * top;
                    const void *vin = arg ? NULL : v;
                    gp__sort_cpu_msd_min = (size_t)1 << 40;
                    OK(gp__sort_cpu(dt, n, x, want, vs, vin, vwant, 0, 0, hi));
                    gp__sort_cpu_msd_min = 2;
                    for (size_t ko = 0; ko < pad + 2; ko += ko < pad ? es : 1)
                        for (size_t vo = 0; vo <= (vs ? 16 : 0); vo += 4) {
                            unsigned char *kd = ky + ko, *vd = vy + vo; /* ko past the pad: odd bytes, no lines */
                            tc_poison(ky, n * es + pad + 2), tc_poison(vy, n * 8 + pad);
                            OK(gp__sort_cpu(dt, n, x, kd, vs, vin, vd, 0, 0, hi));
                            CHECK(memcmp(kd, want, n * es) == 0 && (vs == 0 || memcmp(vd, vwant, n * vs) == 0),
                                  "%s lines: %s values %zu, bits [0, %d), keys at +%zu, values at +%zu differ",
                                  gp_dtype_name(dt), arg ? "argsort" : "pairs", vs, hi, ko, vo);
                        }
                }
            }
        free(x), free(ky), free(want), free(v), free(vy), free(vwant);
    }
    gp__sort_cpu_msd_min = GP_SORT_CPU_MSD_MIN;
    printf("  the first pass's lines at every offset %s\n", tc_fail ? "FAILED" : "ok");
}

/* The quicksort of 4- and 8-byte keys alone (sort_simd.c with AVX-512, sort_avx2.c with AVX2; the radix sort where
 * the CPU has neither): the patterns that stress a partition's room and a pivot's ties — random, seven values, all
 * equal, ascending, descending, the two extremes alternating, a sawtooth — at sizes around its vector, block and task
 * edges, ascending
 * and descending, into another buffer and in place, against qsort of the same values (floats without NaN or -0.0,
 * whose equal keys are equal bits); and floats holding -0.0, +0.0 and NaN payloads of both signs against the radix
 * sort's bits (equal keys in input order). simd_min: the smallest n it takes (2: the sorting networks alone). */
static gp_dtype_t g_qdt;
static int cmp_q(const void *a, const void *b)
{
    const size_t es = gp_dtype_size(g_qdt);
    const val_t x = decode(g_qdt, bits_at(a, es, 0)), y = decode(g_qdt, bits_at(b, es, 0));
    if (g_qdt == GP_F32 || g_qdt == GP_F64) return (x.f > y.f) - (x.f < y.f);
    if (g_qdt == GP_I32 || g_qdt == GP_I64) return (x.s > y.s) - (x.s < y.s);
    return (x.u > y.u) - (x.u < y.u);
}
static void check_simd_patterns(gp_ctx_t *ctx, size_t simd_min)
{
    static const size_t sizes[] = {2, 15, 16, 17, 33, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4113, 65537, 100003,
                                   (1u << 20) + 5};
    static const gp_dtype_t types[] = {GP_U32, GP_I32, GP_F32, GP_U64, GP_I64, GP_F64};
    gp__sort_cpu_simd_min = simd_min;
    g_lo = 0, g_hi = 64; /* decode's whole keys */
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        if (n < simd_min) continue;
        unsigned char *x = malloc(n * 8), *y = malloc(n * 8), *want = malloc(n * 8);
        for (int dist = 0; dist < 8; dist++)
            for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
                if ((n < 200000 || dist <= 1 || dist >= 5) && /* the largest size: random, few values, extremes */
                    (dist < 7 || types[ti] == GP_F32 || types[ti] == GP_F64))
                for (int desc = 0; desc < 2; desc++) {
                    const gp_dtype_t dt = types[ti];
                    const size_t es = gp_dtype_size(dt);
                    for (size_t i = 0; i < n; i++) {
                        uint64_t v = tc_next();
                        switch (dist) {
                        case 1: v %= 7; break;
                        case 2: v = 42; break;
                        case 3: v = i; break;
                        case 4: v = n - i; break;
                        case 5: v = i % 2 ? UINT64_MAX : 0; break;
                        case 6: v = i % 1000; break;
                        default: break;
                        }
                        if (dist == 7) { /* -0.0, +0.0 and NaNs with payloads and both signs among others */
                            const uint64_t r = tc_next() % 8;
                            const int f32 = dt == GP_F32;
                            const uint64_t sg = (tc_next() & 1) ? (f32 ? 0x80000000ull : 1ull << 63) : 0;
                            const uint64_t nanb = f32 ? 0x7fc00000ull | (tc_next() & 0x3fffff)
                                                      : 0x7ff8000000000000ull | (tc_next() & 0xfffffffffffffull);
                            if (r < 3) v = sg; /* a zero */
                            else if (r < 5) v = sg | nanb;
                            else if (f32) { const float h = (float)((int32_t)v) / 1000.0f; uint32_t u; memcpy(&u, &h, 4); v = u; }
                            else { const double h = (double)(int32_t)v / 1000.0; memcpy(&v, &h, 8); }
                        } else if (dt == GP_F32 || dt == GP_F64) { /* finite, no -0.0: integers and thousandths */
                            double f = dist == 5 ? (i % 2 ? 3e38 : -3e38) : (double)(int32_t)v / (dist ? 1.0 : 1000.0);
                            if (f == 0.0) f = 0.0;
                            if (dt == GP_F32) {
                                const float h = (float)f;
                                uint32_t u;
                                memcpy(&u, &h, 4);
                                v = u;
                            } else {
                                memcpy(&v, &f, 8);
                            }
                        }
                        memcpy(x + i * es, &v, es); /* the low bytes (little-endian) */
                    }
                    const gp_sort_opts_t o = {desc, 0, 0};
                    if (dist == 7) { /* the radix sort's bits (NumPy's order, stable) are the reference */
                        const size_t keep = gp__sort_cpu_simd_min;
                        gp__sort_cpu_simd_min = (size_t)-1;
                        OK(gp_sort(ctx, dt, n, x, want, &o, NULL));
                        gp__sort_cpu_simd_min = keep;
                    } else {
                        memcpy(want, x, n * es);
                        g_qdt = dt;
                        qsort(want, n, es, cmp_q);
                    }
                    if (desc && dist != 7)
                        for (size_t i = 0; i < n / 2; i++) {
                            unsigned char t[8];
                            memcpy(t, want + i * es, es);
                            memcpy(want + i * es, want + (n - 1 - i) * es, es);
                            memcpy(want + (n - 1 - i) * es, t, es);
                        }
                    tc_poison(y, n * es);
                    OK(gp_sort(ctx, dt, n, x, y, &o, NULL));
                    CHECK(memcmp(y, want, n * es) == 0, "simd %s n=%zu pattern %d %s: keys differ", gp_dtype_name(dt),
                          n, dist, desc ? "descending" : "ascending");
                    OK(gp_sort(ctx, dt, n, x, x, &o, NULL));
                    CHECK(memcmp(x, want, n * es) == 0, "simd %s n=%zu pattern %d %s in place: keys differ",
                          gp_dtype_name(dt), n, dist, desc ? "descending" : "ascending");
                }
        free(x), free(y), free(want);
    }
    gp__sort_cpu_simd_min = GP_SORT_CPU_SIMD_MIN;
}

/* Sorts too short for a team of their own, called inside the caller's parallel region (a team of one, then of two):
 * the quicksort's parts once were tasks of the caller's team, deferred past the keys' conversion back (signed keys
 * then came out in unsigned order). i64 and f32 keys of a few values around zero, against the same sort outside. */
static void check_inside_region(gp_ctx_t *ctx)
{
#ifdef _OPENMP
    const size_t n = 25000; /* below the team threshold: n * 8 * 64 < 16 MiB */
    int64_t *x = malloc(n * 8), *want = malloc(n * 8), *got = malloc(n * 8);
    float *f = malloc(n * 4), *fwant = malloc(n * 4), *fgot = malloc(n * 4);
    REQUIRE(x && want && got && f && fwant && fgot, "memory");
    for (size_t i = 0; i < n; i++) x[i] = (int64_t)(tc_next() % 5) - 2, f[i] = (float)x[i] * 0.5f;
    CHECK(gp_sort(ctx, GP_I64, n, x, want, NULL, NULL) == GP_OK && gp_sort(ctx, GP_F32, n, f, fwant, NULL, NULL) == GP_OK,
          "the sorts outside a region");
    uint64_t *pwant = malloc(n * 8), *pgot = malloc(n * 8);
    REQUIRE(pwant && pgot, "memory");
    CHECK(gp_argsort(ctx, GP_F32, n, f, GP_U64, pwant, NULL, NULL) == GP_OK, "the argsort outside a region");
    for (int threads = 1; threads <= 2; threads++) {
        memset(got, 0x5a, n * 8), memset(fgot, 0x5a, n * 4), memset(pgot, 0x5a, n * 8);
        gp_status_t s1 = GP_ERR_INTERNAL, s2 = GP_ERR_INTERNAL, s3 = GP_ERR_INTERNAL;
#pragma omp parallel num_threads(threads)
#pragma omp single
        {
            s1 = gp_sort(ctx, GP_I64, n, x, got, NULL, NULL);
            s2 = gp_sort(ctx, GP_F32, n, f, fgot, NULL, NULL);
            s3 = gp_argsort(ctx, GP_F32, n, f, GP_U64, pgot, NULL, NULL);
        }
        CHECK(s1 == GP_OK && memcmp(got, want, n * 8) == 0, "i64 sort inside a region of %d threads", threads);
        CHECK(s2 == GP_OK && memcmp(fgot, fwant, n * 4) == 0, "f32 sort inside a region of %d threads", threads);
        CHECK(s3 == GP_OK && memcmp(pgot, pwant, n * 8) == 0, "f32 argsort inside a region of %d threads", threads);
    }
    free(pwant), free(pgot);
    size_t bad = 0;
    for (size_t i = 1; i < n; i++) bad += want[i - 1] > want[i];
    CHECK(bad == 0, "the i64 sort outside a region is sorted (%zu inversions)", bad);
    free(x), free(want), free(got), free(f), free(fwant), free(fgot);
#else
    (void)ctx;
#endif
}

int main(void)
{
    tc_seed("test_sort");
    const size_t maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1];
    /* twice: the backend's own shape, then the most significant digit first from 2 keys and every part of more than
     * 64 bytes split again (MSD all the way down: its passes, buffers and in-place copies at every size) */
    for (int msd = 0; msd < 2; msd++)
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++) {
        const gp_dtype_t dt = k_types[ti];
        const size_t es = gp_dtype_size(dt);
        const int w = 8 * (int)es;
        unsigned char *x = malloc(maxn * es);
        const long before_fail = tc_fail;
        gp__sort_cpu_msd_min = msd ? 2 : GP_SORT_CPU_MSD_MIN;
        gp__sort_cpu_split_bytes = msd ? 64 : GP_SORT_CPU_SPLIT_BYTES;
        gp__sort_cpu_split_part = msd ? 1 : GP_SORT_CPU_SPLIT_PART;
        gp__sort_cpu_lines_min = msd ? 0 : GP_SORT_CPU_LINES_MIN;
        for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
            const size_t n = k_sizes[si];
            const int big = n > 200000;
            if (msd && big) continue;
            for (int mode = 0; mode < M_COUNT; mode++) {
                if (big && mode != M_RANDOM && mode != M_FEW) continue;
                for (int desc = 0; desc < 2; desc++) {
                    g_desc = desc, g_lo = 0, g_hi = w;
                    fill(x, n, dt, mode);
                    static const char *const names[] = {"random", "few", "equal", "sorted", "reversed"};
                    check_all(dt, n, x, desc, 0, w, big, names[mode]);
                }
            }
        }
        /* integer bit ranges: the order of bits [lo, hi) alone (the sign bit flipped for signed types) */
        if (dt != GP_F16 && dt != GP_BF16 && dt != GP_F32 && dt != GP_F64) {
            for (int r = 0; r < 6; r++) {
                const int lo = (int)(tc_next() % (unsigned)w), hi = lo + 1 + (int)(tc_next() % (unsigned)(w - lo));
                g_lo = 0, g_hi = w;
                fill(x, 4097, dt, M_RANDOM);
                check_all(dt, 4097, x, r & 1, lo, hi, 0, "bit range");
            }
        }
        printf("  %-5s%s %s\n", gp_dtype_name(dt), msd ? " (MSD forced)" : "", tc_fail == before_fail ? "ok" : "FAILED");
        free(x);
    }
    gp__sort_cpu_msd_min = GP_SORT_CPU_MSD_MIN, gp__sort_cpu_split_bytes = GP_SORT_CPU_SPLIT_BYTES;
    gp__sort_cpu_split_part = GP_SORT_CPU_SPLIT_PART, gp__sort_cpu_lines_min = 0;
    check_lines();
    gp__sort_cpu_lines_min = GP_SORT_CPU_LINES_MIN;
    /* the public calls on a CPU context: the backend's answers, and what they refuse */
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "CPU context");
    {
        const long before_fail = tc_fail;
        check_simd_patterns(ctx, GP_SORT_CPU_SIMD_MIN);
        check_simd_patterns(ctx, 2);
        check_inside_region(ctx);
        gp__sort_cpu_isa = 1; /* the AVX2 quicksort where the CPU has AVX-512 too (the radix sort where neither) */
        check_simd_patterns(ctx, GP_SORT_CPU_SIMD_MIN);
        check_simd_patterns(ctx, 2);
        check_inside_region(ctx);
        gp__sort_cpu_isa = 2;
        /* the sample-sort level first from 1000 keys on any team (its buckets, and its refusal when one would hold
         * most keys: few values, all equal) */
        gp__sort_cpu_simd_split_min = 1000, gp__sort_cpu_simd_split_threads = 1;
        check_simd_patterns(ctx, GP_SORT_CPU_SIMD_MIN);
        gp__sort_cpu_split_nt_bytes = 0; /* its buckets' keys through whole lines, stored past the caches */
        check_simd_patterns(ctx, GP_SORT_CPU_SIMD_MIN);
        { /* an argsort's packed words sorted by the level into the positions' place */
            unsigned char *x = malloc(100003 * 4);
            for (int desc = 0; desc < 2; desc++) {
                fill(x, 100003, GP_F32, M_RANDOM);
                check_all(GP_F32, 100003, x, desc, 0, 32, 0, "sample-sort level");
            }
            free(x);
        }
        gp__sort_cpu_split_nt_bytes = GP_SORT_CPU_SPLIT_NT_BYTES;
        gp__sort_cpu_simd_split_min = GP_SORT_CPU_SIMD_SPLIT_MIN;
        gp__sort_cpu_simd_split_threads = GP_SORT_CPU_SIMD_SPLIT_THREADS;
        printf("  4- and 8-byte keys alone (the AVX-512 and AVX2 quicksorts where the CPU has them) %s\n",
               tc_fail == before_fail ? "ok" : "FAILED");
    }
    {
        const size_t n = 100003;
        g_dt = GP_F32, g_desc = 1, g_lo = 0, g_hi = 32;
        float *x = malloc(n * 4), *y = malloc(n * 4), *want = malloc(n * 4);
        uint64_t *idx = malloc(n * 8), *v = malloc(n * 8), *vo = malloc(n * 8);
        uint32_t *idx32 = malloc(n * 4);
        sort_fill((unsigned char *)x, n, GP_F32, M_RANDOM);
        for (size_t i = 0; i < n; i++) v[i] = tc_next();
        g_v = malloc(n * sizeof *g_v);
        for (size_t i = 0; i < n; i++) g_v[i] = decode(GP_F32, bits_at((unsigned char *)x, 4, i));
        size_t *perm = malloc(n * sizeof *perm);
        ref_argsort(n, perm);
        for (size_t i = 0; i < n; i++) want[i] = x[perm[i]];
        const gp_sort_opts_t desc = {1, 0, 0};
        OK(gp_sort(ctx, GP_F32, n, x, y, &desc, NULL));
        CHECK(memcmp(y, want, n * 4) == 0, "gp_sort f32 descending differs");
        OK(gp_argsort_sync(ctx, GP_F32, n, x, GP_U64, idx, &desc));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += idx[i] != perm[i];
        CHECK(bad == 0, "gp_argsort_sync f32 descending: %zu positions differ", bad);
        OK(gp_argsort(ctx, GP_F32, n, x, GP_U32, idx32, &desc, NULL));
        bad = 0;
        for (size_t i = 0; i < n; i++) bad += idx32[i] != perm[i];
        CHECK(bad == 0, "gp_argsort f32 descending u32: %zu positions differ", bad);
        OK(gp_sort_pairs_sync(ctx, GP_F32, n, x, y, 8, v, vo, &desc));
        bad = 0;
        for (size_t i = 0; i < n; i++) bad += vo[i] != v[perm[i]];
        CHECK(bad == 0 && memcmp(y, want, n * 4) == 0, "gp_sort_pairs_sync: %zu values differ", bad);
        OK(gp_sort_sync(ctx, GP_F32, 0, NULL, NULL, NULL)); /* nothing to sort */
        /* refusals, each naming the argument */
        const gp_sort_opts_t fbits = {0, 0, 16}, ibits = {0, 8, 40}, inv = {0, 9, 9};
        CHECK_ST(gp_sort(ctx, GP_F32, n, x, y, &fbits, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort(ctx, GP_U32, n, x, y, &ibits, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort(ctx, GP_U32, n, x, y, &inv, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort(ctx, (gp_dtype_t)99, n, x, y, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort(ctx, GP_F32, n, NULL, y, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort(ctx, GP_F32, n, x, NULL, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort(ctx, GP_F32, n, x, x + 1, NULL, NULL), GP_ERR_INVALID_ARG); /* overlap, not equal */
        CHECK_ST(gp_sort(ctx, GP_F32, n - 1, (char *)x + 2, y, NULL, NULL), GP_ERR_INVALID_ARG); /* misaligned */
        CHECK_ST(gp_sort_pairs(ctx, GP_F32, n, x, y, 3, v, vo, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_pairs(ctx, GP_F32, n, x, y, 0, v, vo, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_pairs(ctx, GP_F32, n, x, y, 8, v, NULL, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_pairs(ctx, GP_F32, n, x, y, 8, (uint64_t *)x, vo, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_argsort(ctx, GP_F32, n, x, GP_I32, idx, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "index dtype i32") != NULL, "argsort names the index dtype: %s", gp_last_error());
        CHECK_ST(gp_argsort(ctx, GP_U8, ((size_t)1 << 32) + 2, x, GP_U32, idx, NULL, NULL), GP_ERR_INVALID_ARG);
        { /* int64 positions, as NumPy's argsort gives (and every other call of the family takes) */
            const float k3[3] = {2.0f, -1.0f, 0.5f};
            int64_t p3[3] = {9, 9, 9};
            OK(gp_argsort_sync(ctx, GP_F32, 3, k3, GP_I64, p3, NULL));
            CHECK(p3[0] == 1 && p3[1] == 2 && p3[2] == 0, "argsort into int64: %lld %lld %lld", (long long)p3[0],
                  (long long)p3[1], (long long)p3[2]);
        }
        /* the workspace query: none on the CPU backend; its refusals */
        size_t wb = 99;
        OK(gp_sort_workspace_bytes(ctx, GP_F32, n, 8, 0, &wb));
        CHECK(wb == 0, "gp_sort_workspace_bytes on the CPU backend: %zu, not 0", wb);
        CHECK_ST(gp_sort_workspace_bytes(ctx, GP_F32, n, 3, 0, &wb), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_workspace_bytes(ctx, GP_F32, n, 2, 1, &wb), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_workspace_bytes(ctx, (gp_dtype_t)99, n, 0, 0, &wb), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_workspace_bytes(ctx, GP_F32, n, 0, 0, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_workspace_bytes(ctx, GP_F32, SIZE_MAX / 2, 0, 0, &wb), GP_ERR_OVERFLOW);
        free(x), free(y), free(want), free(idx), free(v), free(vo), free(idx32), free(perm), free(g_v);
        g_v = NULL;
    }
    OK(gp_ctx_destroy(ctx));
    /* the backend's refusals: an empty or inverted bit range, bits past the key */
    unsigned char k[8] = {0}, o[8];
    CHECK_ST(gp__sort_cpu(GP_U32, 2, k, o, 0, NULL, NULL, 0, 5, 5), GP_ERR_INVALID_ARG);
    CHECK_ST(gp__sort_cpu(GP_U32, 2, k, o, 0, NULL, NULL, 0, 0, 33), GP_ERR_INVALID_ARG);
    CHECK_ST(gp__sort_cpu(GP_U16, 2, k, o, 0, NULL, NULL, 0, -1, 8), GP_ERR_INVALID_ARG);
    return tc_finish("test_sort");
}
