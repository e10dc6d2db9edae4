/*
 * test_reduce.c — CPU tests of gp_reduce: every dtype x op at the docs/ARCHITECTURE.md sizes and at tile edges, aligned
 * and misaligned, against exact references (integer-valued floats make float sums exact); NaN rules; the n = 0
 * identities; bitwise determinism between the serial and the OpenMP backend on real-valued data; error paths.
 * Run: ctest -R test_reduce.
 */
#define _POSIX_C_SOURCE 200809L
#include "reduce_common.h"

static const size_t k_sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 16383, 16384, 16385, 65537, (1u << 20) + 3};

static void test_against_reference(gp_ctx_t *ctx)
{
    for (size_t d = 0; d < RC_NDTYPES; d++) {
        const gp_dtype_t dt = rc_dtypes[d];
        long before = tc_fail;
        for (int op = 0; op < GP_REDUCE_OP_COUNT; op++) {
            if (gp_reduce_acc_dtype((gp_reduce_op_t)op, dt) == GP_DTYPE_COUNT) continue;
            for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++)
                for (size_t off = 0; off < 2; off++) {
                    const size_t n = k_sizes[si], es = gp_dtype_size(dt);
                    char *buf = malloc((n + 1) * es + 1), *x = buf + off * es;
                    rc_fill(x, dt, n, (gp_reduce_op_t)op);
                    gp_reduce_result_t got, want;
                    memset(&got, 0xa5, sizeof got);
                    rc_reference(x, dt, n, (gp_reduce_op_t)op, &want);
                    OK(gp_reduce_sync(ctx, (gp_reduce_op_t)op, dt, n, x, &got));
                    int ok = rc_equal_value(&got, &want);
                    CHECK(ok, "%s %s n=%zu off=%zu", gp_reduce_op_name((gp_reduce_op_t)op), gp_dtype_name(dt), n, off);
                    if (!ok) rc_print("got ", &got), rc_print("want", &want);
                    free(buf);
                }
        }
        printf("  %-5s all ops, %zu sizes x 2 alignments: %s\n", gp_dtype_name(dt), sizeof k_sizes / sizeof k_sizes[0],
               tc_fail == before ? "ok" : "FAILED");
    }
}

/* NaN anywhere: min/max/minmax are NaN, argmin/argmax give the first NaN's index, sums are NaN, count includes it. */
static void test_nan(gp_ctx_t *ctx)
{
    const gp_dtype_t dts[] = {GP_F16, GP_BF16, GP_F32, GP_F64};
    const size_t n = 50000, pos[] = {0, 17, 16384, 49999};
    for (size_t d = 0; d < 4; d++)
        for (size_t p = 0; p < 4; p++) {
            const gp_dtype_t dt = dts[d];
            char *x = malloc(n * gp_dtype_size(dt));
            rc_fill(x, dt, n, GP_REDUCE_SUM);
            rc_store(x, dt, pos[p], NAN);
            if (pos[p] + 100 < n) rc_store(x, dt, pos[p] + 100, NAN); /* a second, later NaN */
            for (int op = GP_REDUCE_SUM; op <= GP_REDUCE_ARGMAX; op++) {
                gp_reduce_result_t got, want;
                rc_reference(x, dt, n, (gp_reduce_op_t)op, &want);
                OK(gp_reduce_sync(ctx, (gp_reduce_op_t)op, dt, n, x, &got));
                CHECK(rc_equal_value(&got, &want), "NaN at %zu: %s %s", pos[p], gp_reduce_op_name((gp_reduce_op_t)op),
                      gp_dtype_name(dt));
                if (op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX)
                    CHECK(got.index == (int64_t)pos[p], "%s: index %lld, first NaN at %zu",
                          gp_reduce_op_name((gp_reduce_op_t)op), (long long)got.index, pos[p]);
            }
            free(x);
        }
    /* Ties: argmin/argmax take the first index; -0.0 and +0.0 tie. */
    float t[6] = {3, 0.0f, -0.0f, -1, -1, 3};
    gp_reduce_result_t r;
    OK(gp_reduce_sync(ctx, GP_REDUCE_ARGMIN, GP_F32, 6, t, &r));
    CHECK(r.index == 3 && r.value.f32 == -1, "argmin tie: %lld", (long long)r.index);
    OK(gp_reduce_sync(ctx, GP_REDUCE_ARGMAX, GP_F32, 6, t, &r));
    CHECK(r.index == 0, "argmax tie: %lld", (long long)r.index);
    OK(gp_reduce_sync(ctx, GP_REDUCE_ARGMIN, GP_F32, 3, t, &r));
    CHECK(r.index == 1, "argmin +-0 tie: %lld", (long long)r.index);
}

static void test_identities(gp_ctx_t *ctx)
{
    gp_reduce_result_t r;
    OK(gp_reduce_sync(ctx, GP_REDUCE_MIN, GP_U8, 0, NULL, &r));
    CHECK(r.value.u64 == 255 && r.acc_dtype == GP_U64, "min u8 of nothing: %llu", (unsigned long long)r.value.u64);
    OK(gp_reduce_sync(ctx, GP_REDUCE_MAX, GP_I16, 0, NULL, &r));
    CHECK(r.value.i64 == -32768 && r.acc_dtype == GP_I64, "max i16 of nothing: %lld", (long long)r.value.i64);
    OK(gp_reduce_sync(ctx, GP_REDUCE_MINMAX, GP_F32, 0, NULL, &r));
    CHECK(isinf(r.value.f32) && r.value.f32 > 0 && isinf(r.value2.f32) && r.value2.f32 < 0, "minmax f32 of nothing");
    OK(gp_reduce_sync(ctx, GP_REDUCE_ARGMAX, GP_F64, 0, NULL, &r));
    CHECK(r.index == -1 && isinf(r.value.f64), "argmax of nothing: %lld", (long long)r.index);
    OK(gp_reduce_sync(ctx, GP_REDUCE_PROD, GP_F16, 0, NULL, &r));
    CHECK(r.value.f32 == 1.0f && r.acc_dtype == GP_F32, "prod f16 of nothing");
    OK(gp_reduce_sync(ctx, GP_REDUCE_AND, GP_U16, 0, NULL, &r));
    CHECK(r.value.u64 == 0xffff, "and u16 of nothing: %llx", (unsigned long long)r.value.u64);
    OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_I32, 0, NULL, &r));
    CHECK(r.value.i64 == 0 && r.index == -1 && r.op == GP_REDUCE_SUM, "sum of nothing");
    /* half conversions */
    CHECK(gp__f16_to_f32(0x3c00) == 1.0f && gp__f16_to_f32(0x0001) == 0x1p-24f && gp__f16_to_f32(0x7bff) == 65504.0f &&
              gp__f16_to_f32(0x8400) == -0x1p-14f && isinf(gp__f16_to_f32(0xfc00)) && isnan(gp__f16_to_f32(0x7e00)) &&
              gp__f16_to_f32(0x03ff) == 1023 * 0x1p-24f,
          "f16 conversion");
    CHECK(gp__bf16_to_f32(0x3f80) == 1.0f && gp__bf16_to_f32(0xc040) == -3.0f, "bf16 conversion");
}

/* Real-valued floats: serial and OpenMP give the same bits, and the sum is close to the exact one. */
static void test_determinism(void)
{
    const size_t n = 3 * (1u << 20) + 7;
    float *x = malloc(n * sizeof *x);
    tc_fill(x, n, GP_F32);
    gp_reduce_result_t a, b;
    OK(gp__reduce_cpu(GP_REDUCE_SUM, GP_F32, 0, n, x, &a, 0));
    OK(gp__reduce_cpu(GP_REDUCE_SUM, GP_F32, 0, n, x, &b, 1));
    CHECK(memcmp(&a, &b, sizeof a) == 0, "serial %.9g vs OpenMP %.9g", a.value.f32, b.value.f32);
    long double exact = 0, mag = 0;
    for (size_t i = 0; i < n; i++) exact += x[i], mag += fabsl((long double)x[i]);
    CHECK(fabsl(a.value.f32 - exact) <= 1e-5L * mag, "sum %.9g vs exact %.12Lg", a.value.f32, exact);
    free(x);
}

/* The CPU backend's fast sums, products and counts give the generic path's bits (a NaN's payload aside): real-valued
 * floats, and floats with zeros of both signs, NaNs of two payloads and infinities; full-range integers; whole and
 * partial tiles. */
static void set_f(void *x, gp_dtype_t dt, size_t i, double v);
static void test_fast_paths(void)
{
    static const gp_dtype_t dts[] = {GP_F32, GP_F64, GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64};
    static const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_PROD, GP_REDUCE_COUNT_NONZERO};
    static const size_t sizes[] = {1, 5, 1023, 16384, 7 * 16384 + 4321};
    const double nan2 = -(double)NAN;
    int cases = 0;
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int pat = 0; pat < 3; pat++)
                for (int wide = 0; wide < 2; wide++) {
                    const gp_dtype_t dt = dts[d];
                    const int flt = dt == GP_F32 || dt == GP_F64;
                    const size_t n = sizes[z];
                    if ((wide && dt != GP_F32) || (!flt && pat > 0)) continue;
                    void *x = malloc(n * 8);
                    if (flt) tc_fill(x, n, dt);
                    else rc_fill(x, dt, n, GP_REDUCE_XOR); /* full-range random bits */
                    for (size_t i = 0; i < n && pat; i++) {
                        const double r = (double)(((i + 377) * 2654435761u) % 1000) / 1000;
                        if (pat == 1) set_f(x, dt, i, r < 0.2 ? 0.0 : r < 0.4 ? -0.0 : r < 0.41 ? INFINITY : r - 0.5);
                        if (pat == 2 && r < 0.01) set_f(x, dt, i, r < 0.005 ? NAN : nan2);
                    }
                    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                        if (wide && ops[o] != GP_REDUCE_SUM) continue;
                        gp_reduce_result_t fast, slow;
                        memset(&fast, 0, sizeof fast), memset(&slow, 0, sizeof slow);
                        OK(gp__reduce_cpu(ops[o], dt, wide, n, x, &fast, 1));
                        gp__reduce_cpu_generic_only = 1;
                        OK(gp__reduce_cpu(ops[o], dt, wide, n, x, &slow, 1));
                        gp__reduce_cpu_generic_only = 0;
                        CHECK(rc_same(&fast, &slow), /* a sum's NaN payload is not kept (the GPU's is canonical) */
                              "fast %s %s%s n=%zu pattern %d: 0x%016llx vs generic 0x%016llx", gp_reduce_op_name(ops[o]),
                              gp_dtype_name(dt), wide ? ">f64" : "", n, pat, (unsigned long long)fast.value.u64,
                              (unsigned long long)slow.value.u64);
                        cases++;
                    }
                    free(x);
                }
    CHECK(cases == 5 * (3 * (2 * 3) + 3 * 1 + 8 * 3), "%d cases", cases);
}

/* The min/max/argmin/argmax fast paths give the generic path's bits, also where only the tree's order decides: zeros
 * of both signs, NaNs of several payloads, infinities, ties of the extreme at many indices. */
static void set_f(void *x, gp_dtype_t dt, size_t i, double v)
{
    if (dt == GP_F32) ((float *)x)[i] = (float)v;
    else ((double *)x)[i] = v;
}

static void test_minmax_fast_paths(void)
{
    static const gp_dtype_t dts[] = {GP_F32, GP_F64, GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64};
    static const gp_reduce_op_t ops[] = {GP_REDUCE_MIN, GP_REDUCE_MAX, GP_REDUCE_MINMAX, GP_REDUCE_ARGMIN,
                                         GP_REDUCE_ARGMAX};
    static const size_t sizes[] = {1, 5, 17, 16384, 7 * 16384 + 4321};
    const double nan2 = -(double)NAN; /* a NaN with the sign bit: different bits from NAN */
    int cases = 0;
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
            for (int pat = 0; pat < 8; pat++) {
                const gp_dtype_t dt = dts[d];
                const int flt = dt == GP_F32 || dt == GP_F64;
                const size_t n = sizes[z];
                if (!flt && pat > 1) continue;
                void *x = malloc(n * 8);
                if (flt) tc_fill(x, n, dt);
                else rc_fill(x, dt, n, GP_REDUCE_XOR);
                for (size_t i = 0; i < n && flt; i++) {
                    const double r = (double)(((i + 377) * 2654435761u) % 1000) / 1000;
                    if (pat == 1) set_f(x, dt, i, (double)((i * 7919) % 5)); /* ties everywhere */
                    if (pat == 2) set_f(x, dt, i, r < 0.01 ? 0.0 : r < 0.02 ? -0.0 : r); /* min is +0 and -0, sparse */
                    if (pat == 3) set_f(x, dt, i, r < 0.3 ? -0.0 : r);                 /* min is -0 only */
                    if (pat == 4 && r < 0.01) set_f(x, dt, i, NAN);                    /* one NaN payload */
                    if (pat == 5 && r < 0.01) set_f(x, dt, i, r < 0.005 ? NAN : nan2); /* two payloads */
                    if (pat == 6 && r < 0.01) set_f(x, dt, i, r < 0.005 ? INFINITY : -INFINITY);
                    if (pat == 7) set_f(x, dt, i, r < 0.01 ? -0.0 : r < 0.02 ? 0.0 : -r); /* max is +0 and -0 */
                }
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                    gp_reduce_result_t fast, slow;
                    memset(&fast, 0, sizeof fast), memset(&slow, 0, sizeof slow);
                    OK(gp__reduce_cpu(ops[o], dt, 0, n, x, &fast, 1));
                    gp__reduce_cpu_generic_only = 1;
                    OK(gp__reduce_cpu(ops[o], dt, 0, n, x, &slow, 1));
                    gp__reduce_cpu_generic_only = 0;
                    CHECK(memcmp(&fast, &slow, sizeof fast) == 0,
                          "fast %s %s n=%zu pattern %d: 0x%016llx/0x%016llx @%lld vs generic 0x%016llx/0x%016llx @%lld",
                          gp_reduce_op_name(ops[o]), gp_dtype_name(dt), n, pat, (unsigned long long)fast.value.u64,
                          (unsigned long long)fast.value2.u64, (long long)fast.index, (unsigned long long)slow.value.u64,
                          (unsigned long long)slow.value2.u64, (long long)slow.index);
                    cases++;
                }
                free(x);
            }
    CHECK(cases == 5 * 5 * (2 * 8 + 8 * 2), "%d cases", cases);
}

static void test_errors(gp_ctx_t *ctx)
{
    float x[4] = {1, 2, 3, 4};
    gp_reduce_result_t r;
    memset(&r, 0x5a, sizeof r);
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_XOR, GP_F32, 4, x, &r), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "xor is not defined for f32") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_reduce_sync(ctx, (gp_reduce_op_t)77, GP_F32, 4, x, &r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_SUM, (gp_dtype_t)77, 4, x, &r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, 4, NULL, &r), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "x is NULL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, 3, (const char *)x + 1, &r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F64, (size_t)1 << 61, x, &r), GP_ERR_OVERFLOW);
    CHECK(((unsigned char *)&r)[0] == 0x5a, "result written on error");
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, 4, x, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "result is NULL") != NULL, "%s", gp_last_error());
    gp_reduce_op_t op;
    OK(gp_reduce_op_parse("count_nonzero", &op));
    CHECK(op == GP_REDUCE_COUNT_NONZERO, "parse");
    CHECK_ST(gp_reduce_op_parse("median", &op), GP_ERR_INVALID_ARG);
}

/* The reducer and the file stream give gp_reduce's bits: pieces of 1 and 3 tiles, more than 4096 tiles (a fold at
 * push time and at finish), a partial last tile; files read in parallel and pipes. */
static void test_streaming(gp_ctx_t *ctx)
{
    gp_ctx_t *ctx2 = NULL; /* a second CPU context: transfers between reducers of two contexts */
    OK(gp_ctx_create(&ctx2, GP_DEVICE_CPU));
    static const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_ARGMIN, GP_REDUCE_MINMAX, GP_REDUCE_XOR};
    static const gp_dtype_t dts[] = {GP_F32, GP_U8, GP_F64, GP_I16};
    static const size_t sizes[] = {1, 16383, 16384, 16385, 5 * 16384 + 77};
    for (size_t o = 0; o < 4; o++)
        for (size_t si = 0; si < 5; si++) {
            const gp_dtype_t dt = dts[o];
            const size_t n = sizes[si] * (4 / (gp_dtype_size(dt) < 4 ? gp_dtype_size(dt) : 4));
            void *x = malloc(n * gp_dtype_size(dt));
            if (ops[o] == GP_REDUCE_SUM || ops[o] == GP_REDUCE_MINMAX) tc_fill(x, n, dt == GP_F32 || dt == GP_F64 ? dt : GP_U8);
            else rc_fill(x, dt, n, ops[o]);
            gp_reduce_result_t want;
            OK(gp_reduce_sync(ctx, ops[o], dt, n, x, &want));
            rc_check_reducer(ctx, ops[o], dt, x, n, 1, NULL, NULL, &want);
            rc_check_reducer(ctx, ops[o], dt, x, n, 3, NULL, NULL, &want);
            rc_check_transfer(ctx, x, ctx2, x, ops[o], dt, n, 1, 3, &want);
            rc_check_file_stream(ctx, ops[o], dt, x, n, 65536 * 2, &want);
            free(x);
        }
    /* 4099 tiles of real-valued f32 (268 MB): a level fold at push time, another at finish */
    const size_t n = (size_t)(4096 + 3) * 16384 + 1234;
    float *x = malloc(n * sizeof *x);
    REQUIRE(x, "%zu floats", n);
    tc_fill(x, n, GP_F32);
    gp_reduce_result_t want;
    OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, n, x, &want));
    rc_check_reducer(ctx, GP_REDUCE_SUM, GP_F32, x, n, 1000, NULL, NULL, &want);
    rc_check_transfer(ctx, x, ctx2, x, GP_REDUCE_SUM, GP_F32, n, 4097, 4098, &want); /* level 1 moves too */
    rc_check_file_stream(ctx, GP_REDUCE_SUM, GP_F32, x, n, (size_t)64 << 20, &want);
    free(x);
    float x8[2 * 16384] __attribute__((aligned(16)));
    tc_fill(x8, 2 * 16384, GP_F32);
    rc_reducer_errors(ctx, x8);
    gp_ctx_destroy(ctx2);
}

/* The segmented reduction's fast paths (warp segments' float sums by 32 typed lanes, block segments' by a tile's
 * lanes, exact integer ops, min / max) give the generic path's bits: real-valued f32 / f64 (and ±0, infinities and
 * NaNs of two payloads), full-range integers, segments of every length class (empty, warp, block, chunked) at odd
 * offsets. */
static void test_segmented_fast_paths(void)
{
    static const gp_dtype_t dts[] = {GP_F32, GP_F64, GP_I32, GP_U64, GP_I8};
    static const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_MIN, GP_REDUCE_MAX, GP_REDUCE_COUNT_NONZERO};
    static const size_t lens[] = {0, 1, 7, 31, 32, 33, 100, 2047, 2048, 2049, 4097, 8191, 8192, 8193,
                                  16383, 16384, 16385, 40000, 3};
    enum { NL = sizeof lens / sizeof lens[0] };
    size_t n = 5; /* an odd first offset */
    int64_t off[NL + 1];
    for (size_t i = 0; i < NL; i++) off[i] = (int64_t)n, n += lens[i];
    off[NL] = (int64_t)n;
    const double nan2 = -(double)NAN;
    int cases = 0;
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (int pat = 0; pat < 2; pat++) {
            const gp_dtype_t dt = dts[d];
            const int flt = dt == GP_F32 || dt == GP_F64;
            if (!flt && pat) continue;
            void *x = malloc(n * 8);
            if (flt) tc_fill(x, n, dt);
            else rc_fill(x, dt, n, GP_REDUCE_XOR); /* full-range random bits */
            for (size_t i = 0; i < n && pat; i++) {
                const double r = (double)(((i + 377) * 2654435761u) % 1000) / 1000;
                set_f(x, dt, i, r < 0.1 ? 0.0 : r < 0.2 ? -0.0 : r < 0.21 ? INFINITY : r < 0.215 ? NAN
                                : r < 0.22 ? nan2 : r - 0.5);
            }
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                const size_t osz = gp_dtype_size(gp_reduce_acc_dtype(ops[o], dt));
                unsigned char fast[NL * 8], slow[NL * 8];
                memset(fast, 0x5a, sizeof fast), memset(slow, 0xa5, sizeof slow);
                gp__reduce_cpu_segmented(ops[o], dt, n, x, NL, (const long long *)off, fast, 1);
                gp__reduce_cpu_generic_only = 1;
                gp__reduce_cpu_segmented(ops[o], dt, n, x, NL, (const long long *)off, slow, 1);
                gp__reduce_cpu_generic_only = 0;
                for (size_t i = 0; i < NL; i++) {
                    const unsigned char *f = fast + i * osz, *g = slow + i * osz;
                    int same = memcmp(f, g, osz) == 0;
                    if (!same && ops[o] == GP_REDUCE_SUM && flt) { /* a sum's NaN payload is not kept */
                        const double a = osz == 4 ? (double)*(const float *)f : *(const double *)f,
                                     b = osz == 4 ? (double)*(const float *)g : *(const double *)g;
                        same = a != a && b != b;
                    }
                    CHECK(same, "segmented fast %s %s pattern %d, a segment of %zu: differs from the generic path",
                          gp_reduce_op_name(ops[o]), gp_dtype_name(dt), pat, lens[i]);
                }
                cases++;
            }
            free(x);
        }
    CHECK(cases == 4 * (2 * 2 + 3), "%d cases", cases);
}

int main(void)
{
    tc_seed("test_reduce");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    test_against_reference(ctx);
    test_nan(ctx);
    test_identities(ctx);
    test_determinism();
    test_fast_paths();
    test_minmax_fast_paths();
    test_segmented_fast_paths();
    test_errors(ctx);
    test_streaming(ctx);
    rc_test_segmented(ctx, 300007, NULL);
    printf("  segmented: every op x dtype on skewed and invalid layouts, uniform lengths, overlapping huge segments\n");
    {
        const size_t n = 5 * 16384 + 333;
        float *xf = malloc(n * sizeof *xf);
        uint16_t *xh = malloc(n * sizeof *xh);
        tc_fill(xf, n, GP_F32);
        rc_test_acc(ctx, xf, xf, n, GP_F32);
        for (size_t i = 0; i < n; i++) xh[i] = (uint16_t)(0x3000 + tc_next() % 0x1000) | (uint16_t)(tc_next() & 0x8000);
        rc_test_acc(ctx, xh, xh, n, GP_F16);
        rc_test_acc(ctx, xh, xh, n, GP_BF16);
        free(xf), free(xh);
        printf("  accumulators: f32, f16, bf16 sums in f64\n");
    }
    gp_ctx_destroy(ctx);
    return tc_finish("test_reduce");
}
