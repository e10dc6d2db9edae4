/*
 * test_ordered.c — CPU tests of the ordered (non-commutative) reductions: every op x dtype at tile edges against the
 * serial left fold (u32 bit-exact, floats within rounding), non-commutativity is respected (reversing the input
 * changes the answer), first/last of every dtype, identities, serial == OpenMP bits, errors.
 */
#include "ordered_common.h"

static void test_against_fold(gp_ctx_t *ctx)
{
    for (size_t o = 0; o < 4; o++)
        for (size_t d = 0; d < 3; d++) {
            const gp_ordered_op_t op = oc_ops[o];
            const gp_dtype_t dt = oc_dtypes[d];
            if (op == GP_ORDERED_AFFINE && dt == GP_U32) continue;
            const size_t t = oc_tile(op, dt), k = gp_ordered_width(op), es = gp_dtype_size(dt);
            const size_t sizes[] = {0, 1, 2, 3, 31, 33, 255, 257, t - 1, t, t + 1, 3 * t + 17, t * t + 5};
            long fails = tc_fail;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                const size_t n = sizes[si];
                if (n > 300000) continue; /* three levels: the GPU test */
                void *x = malloc(n * k * es + 1), *got = malloc(k * es), *rev = malloc(n * k * es + 1);
                oc_fill(x, op, dt, n);
                memset(got, 0x7f, k * es);
                OK(gp_reduce_ordered_sync(ctx, op, dt, n, x, got));
                long double rf[16];
                uint32_t ru[16];
                oc_reference(op, dt, n, x, rf, ru);
                double err = 0;
                CHECK(oc_close(op, dt, n, got, rf, ru, oc_tol(dt, n), &err), "%s %s n=%zu: relative error %.3g",
                      gp_ordered_op_name(op), gp_dtype_name(dt), n, err);
                if (n >= 3) { /* the order matters: reversed input gives another product */
                    for (size_t e = 0; e < n; e++) memcpy((char *)rev + e * k * es, (char *)x + (n - 1 - e) * k * es, k * es);
                    void *g2 = malloc(k * es);
                    OK(gp_reduce_ordered_sync(ctx, op, dt, n, rev, g2));
                    CHECK(memcmp(g2, got, k * es) != 0, "%s %s n=%zu: reversed input gave the same result",
                          gp_ordered_op_name(op), gp_dtype_name(dt), n);
                    free(g2);
                }
                free(x), free(got), free(rev);
            }
            printf("  %-6s %-4s %zu sizes up to %zu: %s\n", gp_ordered_op_name(op), gp_dtype_name(dt),
                   sizeof sizes / sizeof sizes[0], 3 * t + 17, tc_fail == fails ? "ok" : "FAILED");
        }
}

static void test_first_last_identity(gp_ctx_t *ctx)
{
    static const gp_dtype_t all[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64, GP_F16, GP_BF16,
                                     GP_F32, GP_F64};
    for (size_t d = 0; d < 12; d++) {
        const size_t es = gp_dtype_size(all[d]), n = 1000 + d;
        unsigned char *x = malloc(n * es), got[8];
        tc_fill(x, n * es, GP_U8);
        OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_FIRST, all[d], n, x, got));
        CHECK(memcmp(got, x, es) == 0, "first %s", gp_dtype_name(all[d]));
        OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_LAST, all[d], n, x, got));
        CHECK(memcmp(got, x + (n - 1) * es, es) == 0, "last %s", gp_dtype_name(all[d]));
        CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_LAST, all[d], 0, x, got), GP_ERR_INVALID_ARG);
        free(x);
    }
    double m[16];
    OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT4, GP_F64, 0, NULL, m));
    int ident = 1;
    for (int i = 0; i < 16; i++) ident &= m[i] == (i / 4 == i % 4 ? 1.0 : 0.0);
    CHECK(ident, "mat4 of nothing is the identity");
    float a[2];
    OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_AFFINE, GP_F32, 0, NULL, a));
    CHECK(a[0] == 1.0f && a[1] == 0.0f, "affine of nothing is (1, 0)");
    /* a worked example: x -> 2x + 1, then x -> 3x - 4: 3(2x + 1) - 4 = 6x - 1 */
    float ab[4] = {2, 1, 3, -4};
    OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_AFFINE, GP_F32, 2, ab, a));
    CHECK(a[0] == 6.0f && a[1] == -1.0f, "affine example: (%g, %g)", a[0], a[1]);
    /* [[1,1],[0,1]] [[1,0],[1,1]] = [[2,1],[1,1]]; the other order gives [[1,1],[1,2]] */
    uint32_t mm[8] = {1, 1, 0, 1, 1, 0, 1, 1}, r[4];
    OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_U32, 2, mm, r));
    CHECK(r[0] == 2 && r[1] == 1 && r[2] == 1 && r[3] == 1, "mat2 example: %u %u %u %u", r[0], r[1], r[2], r[3]);
}

static void test_serial_equals_parallel(void)
{
    const size_t n = 5 * oc_tile(GP_ORDERED_MAT3, GP_F32) + 11;
    float *x = malloc(n * 9 * sizeof *x), a[9], b[9];
    oc_fill(x, GP_ORDERED_MAT3, GP_F32, n);
    gp__ordered_cpu(GP_ORDERED_MAT3, GP_F32, n, x, a, 0);
    gp__ordered_cpu(GP_ORDERED_MAT3, GP_F32, n, x, b, 1);
    CHECK(memcmp(a, b, sizeof a) == 0, "serial and OpenMP bits differ");
    free(x);
}

static void test_errors(gp_ctx_t *ctx)
{
    float x[8] = {1, 0, 0, 1, 1, 0, 0, 1}, r[4] = {7, 7, 7, 7};
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_AFFINE, GP_U32, 2, x, r), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "affine is defined for f32 and f64") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_I32, 2, x, r), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reduce_ordered_sync(ctx, (gp_ordered_op_t)9, GP_F32, 2, x, r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_F32, 2, NULL, r), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "x is NULL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_F32, 1, (char *)x + 2, r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_F32, 2, x, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT4, GP_F64, (size_t)1 << 60, x, r), GP_ERR_OVERFLOW);
    CHECK(r[0] == 7 && r[3] == 7, "result written on error");
    gp_ordered_op_t op;
    OK(gp_ordered_op_parse("affine", &op));
    CHECK(op == GP_ORDERED_AFFINE && gp_ordered_width(op) == 2, "parse");
    CHECK_ST(gp_ordered_op_parse("mat5", &op), GP_ERR_INVALID_ARG);
}

int main(void)
{
    tc_seed("test_ordered");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    test_against_fold(ctx);
    test_first_last_identity(ctx);
    test_serial_equals_parallel();
    test_errors(ctx);
    gp_ctx_destroy(ctx);
    return tc_finish("test_ordered");
}
