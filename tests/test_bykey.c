/*
 * test_bykey.c — reduce and scan by key on the CPU backend: the runs the reference finds by value (bykey_common.h)
 * give the keys out (each run's first key, every bit) and the values' bits — the scans through gp_scan_segmented over
 * those runs; the one-pass reductions (f32 / f64 / i64 / u64 values) as the inclusive segmented scan's value at each
 * run's last element, the others through gp_reduce_segmented; an integer sum also against its own arithmetic. Key
 * dtypes with NaN and ±0 x value dtypes x sum / min / max x n = 0, 1, odd, many runs and long ones; the asynchronous
 * calls = the _sync ones; the refusals.
 */
#include "bykey_common.h"

static void check(gp_ctx_t *ctx, gp_dtype_t kt, gp_dtype_t vt, gp_reduce_op_t op, size_t n, size_t maxrun)
{
    const size_t ks = gp_dtype_size(kt), vs = gp_dtype_size(vt), as = 8;
    unsigned char *k = malloc(n * ks + 1), *ko = malloc(n * ks + 1), *v = malloc(n * vs + 1), *vo = malloc(n * as + 1),
                  *want = malloc(n * as + 1), *y = malloc(n * as + 1), *wy = malloc(n * as + 1);
    int64_t *off = malloc((n + 1) * 8);
    bykey_fill(k, n, kt, maxrun);
    tc_fill(v, n, vt == GP_F64 ? GP_F64 : vt == GP_F32 ? GP_F32 : GP_I32);
    if (vt == GP_U64)
        for (size_t i = 0; i < n; i++) ((uint64_t *)(void *)v)[i] = tc_next() >> 20;
    size_t runs = 0, got = 7;
    bykey_runs(k, n, kt, off, &runs);
    tc_poison(ko, n * ks), tc_poison(vo, n * as);
    OK(gp_reduce_by_key_sync(ctx, op, kt, n, k, vt, v, ko, vo, &got));
    const size_t accb = gp_dtype_size(gp_reduce_acc_dtype(op, vt));
    const int onepass = (vt == GP_F32 || vt == GP_F64 || vt == GP_I64 || vt == GP_U64);
    if (onepass) { /* each run's value: the inclusive segmented scan at its last element */
        OK(gp_scan_segmented(ctx, op, vt, GP_SCAN_INCLUSIVE, n, v, runs, off, wy, NULL));
        for (size_t r = 0; r < runs; r++) memcpy(want + r * accb, wy + (size_t)(off[r + 1] - 1) * vs, accb);
    } else {
        OK(gp_reduce_segmented(ctx, op, vt, n, v, runs, off, want, NULL));
    }
    size_t bad = got != runs;
    for (size_t r = 0; r < runs && !bad; r++)
        bad += memcmp(ko + r * ks, k + (size_t)off[r] * ks, ks) != 0 || memcmp(vo + r * accb, want + r * accb, accb) != 0;
    CHECK(bad == 0, "reduce_by_key %s keys %s values op %d n=%zu: %zu runs (want %zu), %zu differ", gp_dtype_name(kt),
          gp_dtype_name(vt), (int)op, n, got, runs, bad);
    if (onepass) { /* the asynchronous call: the same keys, values and count */
        uint64_t rd = 12345;
        tc_poison(y, n * vs), tc_poison(wy, n * ks);
        OK(gp_reduce_by_key(ctx, op, kt, n, k, vt, v, wy, y, &rd, NULL));
        CHECK(rd == got && memcmp(wy, ko, got * ks) == 0 && memcmp(y, vo, got * accb) == 0,
              "gp_reduce_by_key %s keys %s values op %d n=%zu = the _sync call's", gp_dtype_name(kt), gp_dtype_name(vt),
              (int)op, n);
    } else {
        uint64_t rd = 0;
        CHECK_ST(gp_reduce_by_key(ctx, op, kt, n, k, vt, v, wy, y, &rd, NULL), GP_ERR_UNSUPPORTED);
        CHECK(strstr(gp_last_error(), "gp_reduce_by_key_sync") != NULL, "points to the _sync call: %s", gp_last_error());
    }
    if (op == GP_REDUCE_SUM && vt == GP_U64 && got == runs) { /* the sums themselves */
        size_t wrong = 0;
        for (size_t r = 0; r < runs; r++) {
            uint64_t s = 0;
            for (int64_t i = off[r]; i < off[r + 1]; i++) s += ((uint64_t *)(void *)v)[i];
            wrong += ((uint64_t *)(void *)vo)[r] != s;
        }
        CHECK(wrong == 0, "reduce_by_key %s u64 sums: %zu runs wrong", gp_dtype_name(kt), wrong);
    }
    for (int kind = 0; kind < 2; kind++) {
        tc_poison(y, n * vs);
        OK(gp_scan_by_key_sync(ctx, op, kt, n, k, vt, (gp_scan_kind_t)kind, v, y));
        OK(gp_scan_segmented(ctx, op, vt, (gp_scan_kind_t)kind, n, v, runs, off, wy, NULL));
        CHECK(memcmp(y, wy, n * vs) == 0, "scan_by_key %s keys %s values op %d kind %d n=%zu: differs from the segmented "
              "scan over the runs", gp_dtype_name(kt), gp_dtype_name(vt), (int)op, kind, n);
        memcpy(y, v, n * vs); /* in place, asynchronous */
        OK(gp_scan_by_key(ctx, op, kt, n, k, vt, (gp_scan_kind_t)kind, y, y, NULL));
        CHECK(memcmp(y, wy, n * vs) == 0, "gp_scan_by_key in place %s keys %s values op %d kind %d n=%zu",
              gp_dtype_name(kt), gp_dtype_name(vt), (int)op, kind, n);
    }
    free(k), free(ko), free(v), free(vo), free(want), free(y), free(wy), free(off);
}

int main(void)
{
    tc_seed("test_bykey");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "CPU context");
    static const size_t sizes[] = {1, 2, 31, 4097, 100003};
    for (size_t ki = 0; ki < sizeof k_key_types / sizeof k_key_types[0]; ki++)
        for (size_t vi = 0; vi < sizeof k_val_types / sizeof k_val_types[0]; vi++)
            for (size_t oi = 0; oi < sizeof k_ops / sizeof k_ops[0]; oi++)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                    check(ctx, k_key_types[ki], k_val_types[vi], k_ops[oi], sizes[si], si % 2 ? 9 : 3000);
    size_t runs = 5;
    float k[4] = {1, 1, 2, 2}, v[4] = {1, 2, 3, 4}, ko[4], vo[4];
    OK(gp_reduce_by_key_sync(ctx, GP_REDUCE_SUM, GP_F32, 0, NULL, GP_F32, NULL, NULL, NULL, &runs));
    CHECK(runs == 0, "an empty input has no runs");
    CHECK_ST(gp_reduce_by_key_sync(ctx, GP_REDUCE_SUM, GP_F32, 4, k, GP_F32, v, ko, vo, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_by_key_sync(ctx, GP_REDUCE_SUM, (gp_dtype_t)99, 4, k, GP_F32, v, ko, vo, &runs), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "key_dtype") != NULL, "names key_dtype: %s", gp_last_error());
    CHECK_ST(gp_scan_by_key_sync(ctx, GP_REDUCE_SUM, GP_F32, 4, k, GP_F32, GP_SCAN_INCLUSIVE, v, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "gp_scan_by_key_sync") != NULL, "names the call: %s", gp_last_error());
    OK(gp_reduce_by_key_sync(ctx, GP_REDUCE_SUM, GP_F32, 4, k, GP_F32, v, ko, vo, &runs));
    CHECK(runs == 2 && ko[0] == 1 && ko[1] == 2 && vo[0] == 3 && vo[1] == 7, "sums by key of {1,1,2,2} / {1,2,3,4}");
    uint64_t rd = 9;
    OK(gp_reduce_by_key(ctx, GP_REDUCE_SUM, GP_F32, 0, NULL, GP_F32, NULL, NULL, NULL, &rd, NULL));
    CHECK(rd == 0, "an empty input has no runs (asynchronous)");
    CHECK_ST(gp_scan_by_key(ctx, GP_REDUCE_SUM, GP_F32, 4, k, GP_F32, GP_SCAN_INCLUSIVE, v, k, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "keys") != NULL, "y over the keys is refused by name: %s", gp_last_error());
    CHECK_ST(gp_scan_by_key(ctx, GP_REDUCE_SUM, GP_F32, 3, k, GP_F32, GP_SCAN_INCLUSIVE, v, v + 1, NULL),
             GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_by_key(ctx, GP_REDUCE_SUM, GP_F32, 4, k, GP_F32, v, ko, v, &rd, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "values_out") != NULL, "names values_out: %s", gp_last_error());
    CHECK_ST(gp_reduce_by_key(ctx, GP_REDUCE_SUM, GP_F32, 4, k, GP_F32, (const char *)v + 1, ko, vo, &rd, NULL),
             GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "aligned") != NULL, "a misaligned values: %s", gp_last_error());
    gp_ctx_destroy(ctx);
    free(g_v);
    return tc_finish("test_bykey");
}
