/*
 * test_select.c — gp_select / gp_partition on the CPU backend against an independent reference (each predicate
 * evaluated in long double from its definition): every dtype x the predicate table (constants between integers, at
 * ±inf, NaN, past the type's range), sizes 0, 1, odd and past the OpenMP threshold, the count (async and _sync), the
 * outputs poisoned first (select leaves y[count, n) alone), flags, gp_pred_parse, and the refusals; gp_unique and
 * gp_run_length_encode against runs taken from the definition (NaN equals nothing, -0 == +0).
 */
#include "select_common.h"

static const size_t k_sizes[] = {0, 1, 2, 31, 4097, 100003, (5u << 20) + 7}; /* the last: 40 MB of f64 */

static void test_dtype(gp_ctx_t *ctx, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt), maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1];
    unsigned char *x = malloc(maxn * es), *y = malloc(maxn * es), *ref = malloc(maxn * es);
    const long before = tc_fail;
    for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
        const size_t n = k_sizes[si];
        sel_fill(x, n, dt);
        for (size_t pi = 0; pi < NPREDS; pi++) {
            if (n > 200000 && pi % 4) continue; /* the big size: a few predicates */
            for (int part = 0; part < 2; part++) {
                const size_t want = sel_reference(&k_preds[pi], dt, n, x, part, ref);
                tc_poison(y, maxn * es);
                uint64_t got = 12345;
                OK((part ? gp_partition : gp_select)(ctx, dt, n, x, &k_preds[pi], y, &got, NULL));
                CHECK(got == want, "%s pred %zu n=%zu %s: count %llu, want %zu", gp_dtype_name(dt), pi, n,
                      part ? "partition" : "select", (unsigned long long)got, want);
                CHECK(memcmp(y, ref, (part ? n : want) * es) == 0, "%s pred %zu n=%zu %s: elements differ",
                      gp_dtype_name(dt), pi, n, part ? "partition" : "select");
                if (!part && want < n) {
                    unsigned char *pz = malloc((n - want) * es);
                    tc_poison(pz, (n - want) * es);
                    CHECK(memcmp(y + want * es, pz, (n - want) * es) == 0, "%s select wrote past its count",
                          gp_dtype_name(dt));
                    free(pz);
                }
            }
        }
    }
    /* _sync and flags */
    const size_t n = 4097;
    uint8_t *fl = malloc(n);
    for (size_t i = 0; i < n; i++) fl[i] = (uint8_t)(tc_next() % 3 == 0 ? 1 + tc_next() % 255 : 0);
    const gp_pred_t pf = {GP_PRED_FLAGS, 0, 0, fl};
    const size_t want = sel_reference(&pf, dt, n, x, 1, ref);
    size_t got = 0;
    OK(gp_partition_sync(ctx, dt, n, x, &pf, y, &got));
    CHECK(got == want && memcmp(y, ref, n * es) == 0, "%s flags partition_sync", gp_dtype_name(dt));
    OK(gp_select_sync(ctx, dt, n, x, &pf, y, &got));
    CHECK(got == want && memcmp(y, ref, want * es) == 0, "%s flags select_sync", gp_dtype_name(dt));
    free(fl);
    printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before ? "ok" : "FAILED");
    free(x), free(y), free(ref);
}

/* gp_unique and gp_run_length_encode against the reference, at the same sizes, outputs poisoned. */
static void test_runs(gp_ctx_t *ctx, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt), maxn = 100003;
    unsigned char *x = malloc(maxn * es), *y = malloc(maxn * es), *ref = malloc(maxn * es);
    uint64_t *len = malloc(maxn * 8), *rlen = malloc(maxn * 8);
    for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0] && k_sizes[si] <= maxn; si++) {
        const size_t n = k_sizes[si];
        sel_fill_runs(x, n, dt);
        const size_t want = sel_runs_reference(dt, n, x, ref, rlen);
        tc_poison(y, maxn * es);
        size_t got = 0;
        OK(gp_unique_sync(ctx, dt, n, x, y, &got));
        CHECK(got == want && memcmp(y, ref, want * es) == 0, "%s unique n=%zu: %zu runs, want %zu", gp_dtype_name(dt),
              n, got, want);
        tc_poison(y, maxn * es), tc_poison(len, maxn * 8);
        uint64_t runs = 0;
        OK(gp_run_length_encode(ctx, dt, n, x, y, len, &runs, NULL));
        CHECK(runs == want && memcmp(y, ref, want * es) == 0 && memcmp(len, rlen, want * 8) == 0,
              "%s rle n=%zu: %llu runs, want %zu", gp_dtype_name(dt), n, (unsigned long long)runs, want);
    }
    free(x), free(y), free(ref), free(len), free(rlen);
}

static void test_parse(void)
{
    gp_pred_t p;
    OK(gp_pred_parse("gt:2.5", &p));
    CHECK(p.kind == GP_PRED_GT && p.a == 2.5, "gt:2.5");
    OK(gp_pred_parse("in:-1,1e3", &p));
    CHECK(p.kind == GP_PRED_IN && p.a == -1 && p.b == 1000, "in:-1,1e3");
    OK(gp_pred_parse("notnan", &p));
    CHECK(p.kind == GP_PRED_NOT_NAN, "notnan");
    OK(gp_pred_parse("ne:nan", &p));
    CHECK(p.kind == GP_PRED_NE && isnan(p.a), "ne:nan");
    OK(gp_pred_parse("le:-inf", &p));
    CHECK(p.kind == GP_PRED_LE && isinf(p.a) && p.a < 0, "le:-inf");
    static const char *const bad[] = {"", "gt", "gt:", "gt:x", "gt:1,2", "in:1", "in:1,", "nonzero:3", "between:1,2",
                                      "eq:1 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_ST(gp_pred_parse(bad[i], &p), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "gp_pred_parse") != NULL, "'%s': names the function: %s", bad[i], gp_last_error());
    }
    CHECK_ST(gp_pred_parse(NULL, &p), GP_ERR_INVALID_ARG);
}

int main(void)
{
    tc_seed("test_select");
    gp_ctx_t *ctx = NULL;
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    for (int d = 0; d < GP_DTYPE_COUNT; d++) test_dtype(ctx, (gp_dtype_t)d);
    for (int d = 0; d < GP_DTYPE_COUNT; d++) test_runs(ctx, (gp_dtype_t)d);
    test_parse();
    { /* the documented float equality: -0 == +0 (the first kept), each NaN its own run */
        const float f[6] = {-0.0f, 0.0f, NAN, NAN, 1.0f, 1.0f};
        float v[6];
        uint64_t l[6];
        size_t r = 0;
        OK(gp_run_length_encode_sync(ctx, GP_F32, 6, f, v, l, &r));
        CHECK(r == 4 && signbit(v[0]) && l[0] == 2 && isnan(v[1]) && isnan(v[2]) && l[1] == 1 && l[2] == 1 &&
                  v[3] == 1.0f && l[3] == 2, "float runs: %zu", r);
        CHECK_ST(gp_run_length_encode_sync(ctx, GP_F32, 6, f, v, NULL, &r), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_run_length_encode_sync(ctx, GP_F32, 2, f, v, (uint64_t *)(void *)v, &r), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_unique(ctx, GP_F32, 6, f, (void *)(f + 1), NULL, NULL), GP_ERR_INVALID_ARG);
    }
    /* refusals: nothing written */
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
    const gp_pred_t gt = {GP_PRED_GT, 2, 0, NULL}, bad_kind = {(gp_pred_kind_t)99, 0, 0, NULL},
                    no_flags = {GP_PRED_FLAGS, 0, 0, NULL};
    uint64_t c = 77;
    CHECK_ST(gp_select(ctx, GP_F32, 8, x, NULL, y, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_select(ctx, GP_F32, 8, x, &bad_kind, y, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_select(ctx, GP_F32, 8, x, &no_flags, y, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "flags") != NULL, "names the flags: %s", gp_last_error());
    CHECK_ST(gp_select(ctx, GP_F32, 6, x, &gt, x + 2, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "overlap") != NULL, "names the overlap: %s", gp_last_error());
    CHECK_ST(gp_select(ctx, GP_F32, 4, (char *)x + 1, &gt, y, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_select(ctx, GP_F32, 4, NULL, &gt, y, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_select(ctx, (gp_dtype_t)40, 4, x, &gt, y, &c, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_select(ctx, GP_F32, (size_t)1 << 62, x, &gt, y, &c, NULL), GP_ERR_OVERFLOW);
    CHECK_ST(gp_select_sync(ctx, GP_F32, 8, x, &gt, y, NULL), GP_ERR_INVALID_ARG);
    CHECK(c == 77, "a refused call wrote the count");
    OK(gp_select(ctx, GP_F32, 0, NULL, &gt, NULL, &c, NULL));
    CHECK(c == 0, "n = 0: count 0");
    OK(gp_ctx_destroy(ctx));
    return tc_finish("test_select");
}
