/*
 * test_vector.c — CPU tests of the vector ops: the CPU backend's versions (serial, OpenMP) and the public API on a
 * CPU context, against the higher-precision reference, on fresh random data, every docs/ARCHITECTURE.md size, aligned
 * and misaligned pointers, poisoned outputs with guard elements; the dot's bitwise determinism; and the error paths
 * (nothing written). Run: ctest -R test_vector.
 */
#include "lab_versions.h"
#include "common.h"

#include "vector/vector_internal.h"

static const gp_dtype_t k_dtypes[] = {GP_F32, GP_F64, GP_I32};

/* Tolerances against the reference: f32/f64 rounding of one fused or unfused multiply-add. */
static void tol_for(gp_dtype_t dt, double *atol, double *rtol)
{
    *atol = dt == GP_F32 ? 1e-6 : dt == GP_F64 ? 1e-14 : 0;
    *rtol = dt == GP_F32 ? 1e-6 : dt == GP_F64 ? 1e-14 : 0;
}

/* Runs version v (or the public API when v is NULL) on n elements at element offset off and checks everything. */
static void check_one(gp_ctx_t *ctx, const lab_version_t *v, gp__vec_op_t op, gp_dtype_t dt, size_t n, size_t off)
{
    const size_t es = gp_dtype_size(dt), guard = 4, tot = n + off + guard;
    char *x = malloc(tot * es), *y = malloc(tot * es), *z = malloc(tot * es), *ref = malloc(tot * es);
    REQUIRE(x && y && z && ref, "host memory");
    tc_fill(x, tot, dt);
    tc_fill(y, tot, dt);
    tc_poison(z, tot * es);
    double alpha = dt == GP_I32 ? (double)(int32_t)(tc_next() >> 40) : (double)(tc_next() >> 11) * 0x1p-52 * 4 - 2;
    char dotv[8], dotref[8];
    tc_poison(dotv, 8);
    gp__vec_args_t a = {op, dt, n, alpha, x + off * es, y + off * es, op == GP__VEC_DOT ? (void *)dotv : z + off * es};
    gp__vec_args_t r = a;
    r.z = op == GP__VEC_DOT ? (void *)dotref : ref + off * es;
    lab_vec_reference(&r);
    gp_status_t st;
    if (v)
        st = LAB_FN(lab_vec_fn, v)(ctx, &a, NULL);
    else {
        switch (op) {
        case GP__VEC_COPY: st = gp_vec_copy(ctx, dt, n, a.x, a.z, NULL); break;
        case GP__VEC_SCALE: st = gp_vec_scale(ctx, dt, n, alpha, a.x, a.z, NULL); break;
        case GP__VEC_ADD: st = gp_vec_add(ctx, dt, n, a.x, a.y, a.z, NULL); break;
        case GP__VEC_TRIAD: st = gp_vec_triad(ctx, dt, n, alpha, a.x, a.y, a.z, NULL); break;
        default: st = gp_vec_dot_sync(ctx, dt, n, a.x, a.y, dotv); break;
        }
    }
    char what[160];
    snprintf(what, sizeof what, "%s %s %s n=%zu off=%zu", v ? v->name : "api", gp__vec_op_name(op), gp_dtype_name(dt),
             n, off);
    CHECK(st == GP_OK, "%s: %s", what, gp_status_string(st));
    if (op == GP__VEC_DOT) {
        CHECK(tc_dot_matches(what, dt, n, a.x, a.y, dotv, dotref), "%s", what);
    } else {
        double atol, rtol;
        tol_for(dt, &atol, &rtol);
        CHECK(tc_compare(what, dt, z + off * es, ref + off * es, n, atol, rtol) == 0, "%s", what);
        /* Guards before and after: untouched. */
        int guards_ok = 1;
        for (size_t b = 0; b < off * es; b++) guards_ok &= (unsigned char)z[b] == 0xff;
        for (size_t b = (off + n) * es; b < tot * es; b++) guards_ok &= (unsigned char)z[b] == 0xff;
        CHECK(guards_ok, "%s: wrote outside [x, x+n)", what);
    }
    free(x);
    free(y);
    free(z);
    free(ref);
}

static void test_versions_and_api(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    for (int vi = -1; vi < lab_vec_nversions; vi++) {
        const lab_version_t *v = vi < 0 ? NULL : &lab_vec_versions[vi];
        if (v && v->gpu) continue;
        for (int op = 0; op < GP__VEC_NOPS; op++) {
            if (v && !(v->sel & (1u << op))) continue;
            for (size_t d = 0; d < sizeof k_dtypes / sizeof k_dtypes[0]; d++)
                for (size_t s = 0; s < TC_NSIZES; s++)
                    for (size_t off = 0; off < 2; off++)
                        check_one(ctx, v, (gp__vec_op_t)op, k_dtypes[d], tc_sizes[s], off);
        }
    }
    gp_ctx_destroy(ctx);
}

/* In place (y == x) is allowed for the elementwise ops. */
static void test_in_place(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    const size_t n = 4099;
    float *x = malloc(n * 4), *ref = malloc(n * 4);
    tc_fill(x, n, GP_F32);
    for (size_t i = 0; i < n; i++) ref[i] = 3.0f * x[i];
    OK(gp_vec_scale(ctx, GP_F32, n, 3.0, x, x, NULL));
    CHECK(tc_compare("scale in place", GP_F32, x, ref, n, 0, 0) == 0, "in place");
    free(x);
    free(ref);
    gp_ctx_destroy(ctx);
}

/* The dot is bitwise the same for the serial and the OpenMP versions (fixed chunks, fixed order). */
static void test_dot_determinism(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    const size_t n = (1u << 22) + 12345;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    tc_fill(x, n, GP_F32);
    tc_fill(y, n, GP_F32);
    double a = 1, b = 2;
    gp__vec_args_t args = {GP__VEC_DOT, GP_F32, n, 0, x, y, &a};
    OK(gp__vec_cpu_serial(ctx, &args, NULL));
    args.z = &b;
    OK(gp__vec_cpu_omp(ctx, &args, NULL));
    CHECK(memcmp(&a, &b, 8) == 0, "serial %.17g vs OpenMP %.17g", a, b);
    double c = 3;
    OK(gp_vec_dot_sync(ctx, GP_F32, n, x, y, &c));
    CHECK(memcmp(&a, &c, 8) == 0, "api %.17g", c);
    free(x);
    free(y);
    gp_ctx_destroy(ctx);
}

/* Bad arguments: the right status, a detail naming the argument, and the output untouched. */
static void test_errors(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, z[8];
    int32_t xi[4] = {1, 2, 3, 4}, zi[4];
    double res;
    tc_poison(z, sizeof z);
    tc_poison(zi, sizeof zi);
    tc_poison(&res, sizeof res);
#define UNTOUCHED() CHECK(((unsigned char *)z)[0] == 0xff && ((unsigned char *)z)[31] == 0xff, "z written")
    CHECK_ST(gp_vec_add(ctx, GP_F32, 8, NULL, x, z, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "gp_vec_add: x is NULL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_add(ctx, GP_F32, 8, x, NULL, z, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "y is NULL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_triad(ctx, GP_F32, 8, 2.0, x, x, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "z is NULL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_copy(NULL, GP_F32, 8, x, z, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "ctx") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_copy(ctx, GP_U8, 8, x, z, NULL), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "u8") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_copy(ctx, (gp_dtype_t)77, 8, x, z, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "dtype") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_copy(ctx, GP_F32, (size_t)1 << 62, x, z, NULL), GP_ERR_OVERFLOW);
    CHECK(strstr(gp_last_error(), "overflows") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_copy(ctx, GP_F32, 4, (const char *)x + 2, z, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "aligned") != NULL, "%s", gp_last_error());
    UNTOUCHED();
    CHECK_ST(gp_vec_scale(ctx, GP_I32, 4, 0.5, xi, zi, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "alpha") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_triad(ctx, GP_I32, 4, 3e10, xi, xi, zi, NULL), GP_ERR_INVALID_ARG);
    CHECK(((unsigned char *)zi)[0] == 0xff, "zi written");
    CHECK_ST(gp_vec_dot_sync(ctx, GP_F32, 8, x, x, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_vec_dot(ctx, GP_F32, 8, x, NULL, &res, NULL), GP_ERR_INVALID_ARG);
    CHECK(((unsigned char *)&res)[0] == 0xff, "res written");
    /* n = 0: nothing read (NULL inputs are fine), dot gives 0. */
    OK(gp_vec_add(ctx, GP_F32, 0, NULL, NULL, z, NULL));
    UNTOUCHED();
    OK(gp_vec_dot_sync(ctx, GP_F64, 0, NULL, NULL, &res));
    CHECK(res == 0.0, "empty dot %g", res);
    gp_ctx_destroy(ctx);
}

int main(void)
{
    tc_seed("test_vector");
    test_versions_and_api();
    test_in_place();
    test_dot_determinism();
    test_errors();
    return tc_finish("test_vector");
}
