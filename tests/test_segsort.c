/*
 * test_segsort.c — gp_sort_segmented on the CPU backend against the reference order (sort_common.h: each segment's
 * stable sort from the decoded values): every dtype x random (NaN payloads, ±0, ±inf), few distinct and all-equal
 * keys x the segment mixes (random short, every bucket's edge, a power law, one segment with elements outside it),
 * both orders, values of every size, in place and not, a bit range; a known answer; the refusals (offsets out of
 * range or decreasing, named, nothing written).
 */
#include "sort_common.h"

static const size_t k_vs[] = {0, 4, 16, 8, 1, 2};

static void check(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const unsigned char *x, int mix, int desc, size_t vs,
                  int inplace, int lo, int hi, const char *what)
{
    const size_t es = gp_dtype_size(dt);
    int64_t *o = malloc((n + 2) * sizeof *o);
    const size_t nseg = seg_make(o, n, mix);
    unsigned char *v = malloc(n * 16 + 1), *wy = malloc(n * es + 1), *wv = malloc(n * 16 + 1);
    unsigned char *gy = malloc(n * es + 1), *gv = malloc(n * 16 + 1);
    for (size_t i = 0; i < n * vs; i++) v[i] = (unsigned char)tc_next();
    g_desc = desc, g_lo = lo, g_hi = hi;
    ref_segsort(dt, n, x, v, vs, nseg, o, wy, wv);
    const gp_sort_opts_t opts = {desc, lo, hi == 8 * (int)es && lo == 0 ? 0 : hi};
    if (inplace) {
        memcpy(gy, x, n * es), memcpy(gv, v, n * vs);
        OK(gp_sort_segmented_sync(ctx, dt, n, gy, gy, vs, vs ? gv : NULL, vs ? gv : NULL, nseg, o, &opts));
    } else {
        tc_poison(gy, n * es + 1), tc_poison(gv, n * 16 + 1);
        OK(gp_sort_segmented_sync(ctx, dt, n, x, gy, vs, vs ? v : NULL, vs ? gv : NULL, nseg, o, &opts));
    }
    CHECK(memcmp(gy, wy, n * es) == 0 && memcmp(gv, wv, n * vs) == 0,
          "%s %s n=%zu mix %d (%zu segments) %s values %zu%s bits [%d, %d): differs from the reference",
          gp_dtype_name(dt), what, n, mix, nseg, desc ? "desc" : "asc", vs, inplace ? " in place" : "", lo, hi);
    free(o), free(v), free(wy), free(wv), free(gy), free(gv);
}

int main(void)
{
    tc_seed("test_segsort");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "CPU context");
    static const size_t sizes[] = {0, 1, 2, 33, 5000, 90001};
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++) {
        const gp_dtype_t dt = k_types[ti];
        const size_t es = gp_dtype_size(dt);
        const int w = 8 * (int)es, integer = !(dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64);
        const long before_fail = tc_fail;
        unsigned char *x = malloc(90001 * es);
        int turn = 0;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            for (int mode = M_RANDOM; mode <= M_EQUAL; mode++) {
                static const char *const names[] = {"random", "few", "equal"};
                if (n > 5000 && mode == M_EQUAL) continue;
                sort_fill(x, n, dt, mode);
                for (int mix = 0; mix < SEG_MIXES; mix++)
                    for (int desc = 0; desc < 2; desc++, turn++) {
                        const size_t vs = k_vs[turn % 6];
                        check(ctx, dt, n, x, mix, desc, vs, turn % 3 == 0, 0, w, names[mode]);
                    }
                if (integer && mode == M_RANDOM) check(ctx, dt, n, x, SEG_EDGES, 0, 4, 0, 3, w - 2, "bits");
            }
        }
        printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before_fail ? "ok" : "FAILED");
        free(x);
    }
    /* a known answer: [3, nan, -0, 1 | 0, -nan, 2, -1 | 5], segments [1, 4) and [4, 8), 3 and 5 outside */
    {
        const uint32_t x[9] = {0x40400000u, 0x7fc00123u, 0x80000000u, 0x3f800000u, 0,
                               0xffc00000u, 0x40000000u, 0xbf800000u, 0x40a00000u};
        const int64_t o[3] = {1, 4, 8};
        const uint32_t want[9] = {0x40400000u, 0x80000000u, 0x3f800000u, 0x7fc00123u, 0xbf800000u,
                                  0,           0x40000000u, 0xffc00000u, 0x40a00000u};
        const uint16_t v[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, wantv[9] = {0, 2, 3, 1, 7, 4, 6, 5, 8};
        uint32_t y[9];
        uint16_t vy[9];
        OK(gp_sort_segmented_sync(ctx, GP_F32, 9, x, y, 2, v, vy, 2, o, NULL));
        CHECK(memcmp(y, want, sizeof y) == 0 && memcmp(vy, wantv, sizeof vy) == 0,
              "the known answer: keys or values differ");
    }
    /* the refusals name the argument and write nothing */
    {
        const float x[6] = {5, 4, 3, 2, 1, 0};
        float y[6] = {7, 7, 7, 7, 7, 7};
        const int64_t down[3] = {0, 4, 2}, out[3] = {0, 3, 7}, neg[2] = {-1, 2};
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 0, NULL, NULL, 2, down, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "offsets[2] = 2") != NULL, "a decrease is named: %s", gp_last_error());
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 0, NULL, NULL, 2, out, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "offsets[2] = 7") != NULL, "past n is named: %s", gp_last_error());
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 0, NULL, NULL, 1, neg, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 0, NULL, NULL, 1, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "offsets") != NULL, "NULL offsets named: %s", gp_last_error());
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 3, x, y, 1, out, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "value_bytes") != NULL, "value_bytes named: %s", gp_last_error());
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, (float *)x + 1, 0, NULL, NULL, 1, out, NULL),
                 GP_ERR_INVALID_ARG);
        const gp_sort_opts_t bits = {0, 0, 8};
        const int64_t ok[2] = {0, 6};
        CHECK_ST(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 0, NULL, NULL, 1, ok, &bits), GP_ERR_INVALID_ARG);
        int all7 = 1;
        for (int i = 0; i < 6; i++) all7 &= y[i] == 7;
        CHECK(all7, "a refused call wrote its output");
        /* no segments: a copy */
        OK(gp_sort_segmented_sync(ctx, GP_F32, 6, x, y, 0, NULL, NULL, 0, ok, NULL));
        CHECK(memcmp(x, y, sizeof y) == 0, "no segments: the keys copied");
    }
    free(g_v);
    gp_ctx_destroy(ctx);
    return tc_finish("test_segsort");
}
