/*
 * test_scan_ordered.c — CPU tests of the ordered scans (gp_scan_ordered): every op x dtype at run and tile edges,
 * every prefix against the serial left fold (u32 bit-exact, floats within rounding), exclusive = the identity then
 * the inclusive values shifted, serial == OpenMP == in place bits, the order matters (reversed input differs),
 * first / last of every dtype, refusals naming the argument.
 */
#include "ordered_common.h"

#include "scan/scan_internal.h"

static void identity(gp_ordered_op_t op, gp_dtype_t dt, void *v)
{
    const size_t k = gp_ordered_width(op);
    const int d = op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : op == GP_ORDERED_MAT4 ? 4 : 1;
    for (size_t c = 0; c < k; c++) {
        const int one = op == GP_ORDERED_AFFINE ? c == 0 : (int)c / d == (int)c % d;
        if (dt == GP_F32) ((float *)v)[c] = (float)one;
        else if (dt == GP_F64) ((double *)v)[c] = one;
        else ((uint32_t *)v)[c] = (uint32_t)one;
    }
}

static void test_against_fold(gp_ctx_t *ctx)
{
    for (size_t o = 0; o < 4; o++)
        for (size_t di = 0; di < 3; di++) {
            const gp_ordered_op_t op = oc_ops[o];
            const gp_dtype_t dt = oc_dtypes[di];
            if (op == GP_ORDERED_AFFINE && dt == GP_U32) continue;
            const size_t R = (size_t)gp__oscan_run(op, dt), t = 256 * R, k = gp_ordered_width(op),
                         w = k * gp_dtype_size(dt);
            const size_t sizes[] = {1, 2, R - 1 ? R - 1 : 1, R + 1, 32 * R + 1, t - 1, t, t + 1, 3 * t + 17, 40 * t + 3};
            const long fails = tc_fail;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                const size_t n = sizes[si];
                unsigned char *x = malloc(n * w), *y = malloc(n * w), *ys = malloc(n * w), *ye = malloc(n * w),
                              *ip = malloc(n * w), *rev = malloc(n * w);
                oc_fill(x, op, dt, n);
                tc_poison(y, n * w), tc_poison(ys, n * w), tc_poison(ye, n * w);
                OK(gp_scan_ordered(ctx, op, dt, GP_SCAN_INCLUSIVE, n, x, y, NULL));
                OK(gp__oscan_cpu(op, dt, n, x, ys, 0, NULL, NULL, 0)); /* serial */
                CHECK(memcmp(y, ys, n * w) == 0, "%s %s n=%zu: OpenMP and serial bits differ", gp_ordered_op_name(op),
                      gp_dtype_name(dt), n);
                /* every prefix against the left fold */
                long double a[16];
                uint32_t u[16];
                oc_identity(op, a, u);
                size_t bad = 0, first = 0;
                double worst = 0;
                for (size_t e = 0; e < n; e++) {
                    oc_fold_step(op, dt, a, u, x, e);
                    double err = 0;
                    if (!oc_close(op, dt, e + 1, y + e * w, a, u, oc_tol(dt, e + 1), &err) && !bad++) first = e;
                    if (err > worst) worst = err;
                }
                CHECK(bad == 0, "%s %s n=%zu: %zu prefixes off the left fold, first at %zu (worst relative %.3g)",
                      gp_ordered_op_name(op), gp_dtype_name(dt), n, bad, first, worst);
                /* exclusive: the identity, then the inclusive values shifted by one */
                OK(gp_scan_ordered(ctx, op, dt, GP_SCAN_EXCLUSIVE, n, x, ye, NULL));
                unsigned char id[128];
                identity(op, dt, id);
                CHECK(memcmp(ye, id, w) == 0 && memcmp(ye + w, y, (n - 1) * w) == 0, "%s %s n=%zu: exclusive",
                      gp_ordered_op_name(op), gp_dtype_name(dt), n);
                /* in place */
                memcpy(ip, x, n * w);
                OK(gp_scan_ordered(ctx, op, dt, GP_SCAN_INCLUSIVE, n, ip, ip, NULL));
                CHECK(memcmp(ip, y, n * w) == 0, "%s %s n=%zu: in place", gp_ordered_op_name(op), gp_dtype_name(dt), n);
                if (n >= 3) { /* the order matters */
                    for (size_t e = 0; e < n; e++) memcpy(rev + e * w, x + (n - 1 - e) * w, w);
                    OK(gp_scan_ordered(ctx, op, dt, GP_SCAN_INCLUSIVE, n, rev, ip, NULL));
                    CHECK(memcmp(ip + (n - 1) * w, y + (n - 1) * w, w) != 0, "%s %s n=%zu: reversed input, same total",
                          gp_ordered_op_name(op), gp_dtype_name(dt), n);
                }
                free(x), free(y), free(ys), free(ye), free(ip), free(rev);
            }
            printf("  %-6s %-4s run %2zu, %zu sizes up to %zu: %s\n", gp_ordered_op_name(op), gp_dtype_name(dt), R,
                   sizeof sizes / sizeof sizes[0], 40 * t + 3, tc_fail == fails ? "ok" : "FAILED");
        }
}

static void test_first_last(gp_ctx_t *ctx)
{
    static const gp_dtype_t all[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32, GP_U64, GP_I64, GP_F16, GP_BF16,
                                     GP_F32, GP_F64};
    for (size_t d = 0; d < 12; d++) {
        const size_t es = gp_dtype_size(all[d]), n = 1000 + d;
        unsigned char *x = malloc(n * es), *y = malloc(n * es);
        tc_fill(x, n * es, GP_U8);
        tc_poison(y, n * es);
        OK(gp_scan_ordered(ctx, GP_ORDERED_FIRST, all[d], GP_SCAN_INCLUSIVE, n, x, y, NULL));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += memcmp(y + i * es, x, es) != 0;
        CHECK(bad == 0, "first %s: %zu differ", gp_dtype_name(all[d]), bad);
        OK(gp_scan_ordered(ctx, GP_ORDERED_LAST, all[d], GP_SCAN_INCLUSIVE, n, x, y, NULL));
        CHECK(memcmp(y, x, n * es) == 0, "last %s", gp_dtype_name(all[d]));
        CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_LAST, all[d], GP_SCAN_EXCLUSIVE, n, x, y, NULL), GP_ERR_UNSUPPORTED);
        CHECK(strstr(gp_last_error(), "identity") != NULL, "says why: %s", gp_last_error());
        free(x), free(y);
    }
}

/* The ordered scanner: pieces of whole granules (one empty, the last partial) = one gp_scan_ordered pass, the total =
 * the last inclusive element; first / last carry their element; nothing pushed: the identity, or an error. */
static void test_scanner(gp_ctx_t *ctx)
{
    const size_t n = 9 * GP_SCAN_GRANULE + 333, cuts[] = {0, GP_SCAN_GRANULE, GP_SCAN_GRANULE, 5 * GP_SCAN_GRANULE, n};
    static const gp_ordered_op_t ops[] = {GP_ORDERED_MAT2, GP_ORDERED_MAT3, GP_ORDERED_MAT4, GP_ORDERED_AFFINE,
                                          GP_ORDERED_FIRST, GP_ORDERED_LAST};
    const long before = tc_fail;
    for (size_t o = 0; o < 6; o++)
        for (size_t d = 0; d < 3; d++) {
            const gp_ordered_op_t op = ops[o];
            const gp_dtype_t dt = oc_dtypes[d];
            if (op == GP_ORDERED_AFFINE && dt == GP_U32) continue;
            const size_t w = gp_ordered_width(op) * gp_dtype_size(dt);
            unsigned char *x = malloc(n * w), *a = malloc(n * w), *b = malloc(n * w), tot[128];
            if (op == GP_ORDERED_FIRST || op == GP_ORDERED_LAST) tc_fill(x, n * w, GP_U8);
            else oc_fill(x, op, dt, n);
            for (int kind = 0; kind < (op >= GP_ORDERED_FIRST ? 1 : 2); kind++) {
                gp_scanner_t *sc = NULL;
                OK(gp_scanner_create_ordered(ctx, op, dt, (gp_scan_kind_t)kind, &sc));
                tc_poison(a, n * w);
                for (int k = 0; k < 4; k++)
                    OK(gp_scanner_push(sc, cuts[k + 1] - cuts[k], x + cuts[k] * w, a + cuts[k] * w, NULL));
                OK(gp_scanner_total_sync(sc, tot));
                OK(gp_scan_ordered(ctx, op, dt, (gp_scan_kind_t)kind, n, x, b, NULL));
                CHECK(memcmp(a, b, n * w) == 0, "scanner %s %s kind %d: pieces != one pass", gp_ordered_op_name(op),
                      gp_dtype_name(dt), kind);
                OK(gp_scan_ordered(ctx, op, dt, GP_SCAN_INCLUSIVE, n, x, b, NULL));
                CHECK(memcmp(tot, b + (n - 1) * w, op >= GP_ORDERED_FIRST ? gp_dtype_size(dt) : w) == 0,
                      "scanner %s %s kind %d: total", gp_ordered_op_name(op), gp_dtype_name(dt), kind);
                gp_scanner_reset(sc);
                if (op >= GP_ORDERED_FIRST) {
                    CHECK_ST(gp_scanner_total_sync(sc, tot), GP_ERR_INVALID_ARG);
                } else {
                    unsigned char id[128];
                    long double la[16];
                    uint32_t lu[16];
                    oc_identity(op, la, lu);
                    for (size_t c = 0; c < gp_ordered_width(op); c++) {
                        if (dt == GP_F32) ((float *)id)[c] = (float)la[c];
                        else if (dt == GP_F64) ((double *)id)[c] = (double)la[c];
                        else ((uint32_t *)id)[c] = lu[c];
                    }
                    OK(gp_scanner_total_sync(sc, tot));
                    CHECK(memcmp(tot, id, w) == 0, "scanner %s %s: the identity when empty", gp_ordered_op_name(op),
                          gp_dtype_name(dt));
                }
                gp_scanner_destroy(sc);
            }
            free(x), free(a), free(b);
        }
    gp_scanner_t *sc = NULL;
    CHECK_ST(gp_scanner_create_ordered(ctx, GP_ORDERED_AFFINE, GP_U32, GP_SCAN_INCLUSIVE, &sc), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scanner_create_ordered(ctx, GP_ORDERED_LAST, GP_U8, GP_SCAN_EXCLUSIVE, &sc), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scanner_create_ordered(ctx, (gp_ordered_op_t)77, GP_F32, GP_SCAN_INCLUSIVE, &sc), GP_ERR_INVALID_ARG);
    CHECK(sc == NULL, "a refused create leaves NULL");
    printf("  ordered scanner: %s\n", tc_fail == before ? "ok" : "FAILED");
}

int main(void)
{
    tc_seed("test_scan_ordered");
    gp_ctx_t *ctx = NULL;
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    test_against_fold(ctx);
    test_first_last(ctx);
    test_scanner(ctx);
    /* refusals */
    float f[64];
    for (int i = 0; i < 64; i++) f[i] = 1;
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_AFFINE, GP_U32, GP_SCAN_INCLUSIVE, 4, f, f + 8, NULL), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "f32 and f64") != NULL, "names the dtypes: %s", gp_last_error());
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_MAT2, GP_I32, GP_SCAN_INCLUSIVE, 4, f, f + 16, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan_ordered(ctx, (gp_ordered_op_t)9, GP_F32, GP_SCAN_INCLUSIVE, 4, f, f + 16, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_MAT2, GP_F32, (gp_scan_kind_t)3, 4, f, f + 16, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_MAT2, GP_F32, GP_SCAN_INCLUSIVE, 4, f, f + 4, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "overlap") != NULL, "names the overlap: %s", gp_last_error());
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_MAT2, GP_F32, GP_SCAN_INCLUSIVE, 4, NULL, f, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_MAT2, GP_F32, GP_SCAN_INCLUSIVE, 4, (char *)f + 2, f + 32, NULL),
             GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan_ordered(ctx, GP_ORDERED_MAT4, GP_F64, GP_SCAN_INCLUSIVE, (size_t)1 << 61, f, f + 32, NULL),
             GP_ERR_OVERFLOW);
    OK(gp_scan_ordered(ctx, GP_ORDERED_MAT2, GP_F32, GP_SCAN_INCLUSIVE, 0, NULL, NULL, NULL));
    /* run lengths: 128 bytes of elements, 16 at most */
    CHECK(gp__oscan_run(GP_ORDERED_AFFINE, GP_F32) == 16 && gp__oscan_run(GP_ORDERED_MAT2, GP_F32) == 8 &&
              gp__oscan_run(GP_ORDERED_MAT2, GP_F64) == 4 && gp__oscan_run(GP_ORDERED_MAT3, GP_F32) == 2 &&
              gp__oscan_run(GP_ORDERED_MAT4, GP_F32) == 2 && gp__oscan_run(GP_ORDERED_MAT4, GP_F64) == 1,
          "run lengths");
    OK(gp_ctx_destroy(ctx));
    return tc_finish("test_scan_ordered");
}
