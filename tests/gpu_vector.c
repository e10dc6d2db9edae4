/*
 * gpu_vector.c — GPU tests of the vector ops: every GPU version of the table and the public API, every op and
 * dtype, the docs/ARCHITECTURE.md sizes, aligned and misaligned pointers (same and different offsets mod 16), poisoned
 * outputs with guards, against the higher-precision reference; streams; dot determinism; one n > 2^32 where
 * memory allows; error paths on a GPU context (nothing written). Exit 77 without a GPU.
 * GP_TEST_QUICK=1 (used under compute-sanitizer): sizes up to 1025 plus 2^18 + 3 (capped versions stop at 1025),
 * three pointer-offset patterns, and no > 2^32 case. GP_TEST_FILTER=text runs only the versions (and public-API ops)
 * whose name contains text (racecheck/synccheck use "dot": the only kernels with shared memory and barriers).
 */
#include "lab_versions.h"
#include "common.h"

#include "vector/vector_internal.h"

#include <cuda_runtime_api.h>

static const gp_dtype_t k_dtypes[] = {GP_F32, GP_F64, GP_I32};
static int g_quick;
static const char *g_filter;

typedef struct dev_bufs {
    gp_buffer_t x, y, z;
    size_t bytes;
} dev_bufs_t;

static void tol_for(gp_dtype_t dt, double *atol, double *rtol)
{
    *atol = dt == GP_F32 ? 1e-6 : dt == GP_F64 ? 1e-14 : 0;
    *rtol = dt == GP_F32 ? 1e-6 : dt == GP_F64 ? 1e-14 : 0;
}

/* Element offsets of x, y, z: all equal (vector path) or different (scalar fallback). */
typedef struct offs {
    size_t x, y, z;
} offs_t;

static void check_one(gp_ctx_t *ctx, dev_bufs_t *d, const lab_version_t *v, gp__vec_op_t op, gp_dtype_t dt,
                      size_t n, offs_t o, gp_stream_t stream)
{
    const size_t es = gp_dtype_size(dt), guard = 4, tot = n + 8 + guard;
    REQUIRE(tot * es <= d->bytes, "buffers too small");
    char *x = malloc(tot * es), *y = malloc(tot * es), *z = malloc(tot * es), *ref = malloc(tot * es);
    REQUIRE(x && y && z && ref, "host memory");
    tc_fill(x, tot, dt);
    tc_fill(y, tot, dt);
    double alpha = dt == GP_I32 ? (double)(int32_t)(tc_next() >> 40) : (double)(tc_next() >> 11) * 0x1p-52 * 4 - 2;
    OK(gp_memcpy_sync(ctx, d->x.device, x, tot * es));
    OK(gp_memcpy_sync(ctx, d->y.device, y, tot * es));
    OK(gp_memset(ctx, d->z.device, 0xff, tot * es, NULL));
    OK(gp_stream_sync(ctx, NULL));
    char *dx = (char *)d->x.device + o.x * es, *dy = (char *)d->y.device + o.y * es;
    const size_t zb = op == GP__VEC_DOT ? 8 * o.z : o.z * es; /* a dot result must be 8-byte aligned */
    char *dz = (char *)d->z.device + zb;
    gp__vec_args_t a = {op, dt, n, alpha, dx, dy, dz};
    gp__vec_args_t r = {op, dt, n, alpha, x + o.x * es, y + o.y * es, ref};
    char dotref[8], dotv[8];
    if (op == GP__VEC_DOT) r.z = dotref;
    lab_vec_reference(&r);
    gp_status_t st;
    if (v) {
        st = LAB_FN(lab_vec_fn, v)(ctx, &a, (cudaStream_t)stream);
    } else {
        switch (op) {
        case GP__VEC_COPY: st = gp_vec_copy(ctx, dt, n, dx, dz, stream); break;
        case GP__VEC_SCALE: st = gp_vec_scale(ctx, dt, n, alpha, dx, dz, stream); break;
        case GP__VEC_ADD: st = gp_vec_add(ctx, dt, n, dx, dy, dz, stream); break;
        case GP__VEC_TRIAD: st = gp_vec_triad(ctx, dt, n, alpha, dx, dy, dz, stream); break;
        default: st = gp_vec_dot(ctx, dt, n, dx, dy, dz, stream); break;
        }
    }
    char what[200];
    snprintf(what, sizeof what, "%s %s %s n=%zu off=%zu/%zu/%zu", v ? v->name : "api", gp__vec_op_name(op),
             gp_dtype_name(dt), n, o.x, o.y, o.z);
    CHECK(st == GP_OK, "%s: %s", what, gp_status_string(st));
    OK(gp_stream_sync(ctx, stream));
    OK(gp_memcpy_sync(ctx, z, d->z.device, tot * es));
    if (op == GP__VEC_DOT) {
        memcpy(dotv, z + zb, 8);
        CHECK(tc_dot_matches(what, dt, n, r.x, r.y, dotv, dotref), "%s", what);
        /* Nothing but the 8 result bytes was written. */
        int guards_ok = 1;
        for (size_t b = 0; b < tot * es; b++)
            if (b < zb || b >= zb + 8) guards_ok &= (unsigned char)z[b] == 0xff;
        CHECK(guards_ok, "%s: wrote beside the result", what);
    } else {
        double atol, rtol;
        tol_for(dt, &atol, &rtol);
        CHECK(tc_compare(what, dt, z + o.z * es, ref, n, atol, rtol) == 0, "%s", what);
        int guards_ok = 1;
        for (size_t b = 0; b < o.z * es; b++) guards_ok &= (unsigned char)z[b] == 0xff;
        for (size_t b = (o.z + n) * es; b < tot * es; b++) guards_ok &= (unsigned char)z[b] == 0xff;
        CHECK(guards_ok, "%s: wrote outside [z, z+n)", what);
    }
    free(x);
    free(y);
    free(z);
    free(ref);
}

static void test_all_versions(gp_ctx_t *ctx, dev_bufs_t *d)
{
    static const offs_t offsets[] = {{0, 0, 0}, {1, 1, 1}, {0, 1, 2}, {3, 3, 3}, {1, 0, 0}};
    const size_t noffs = g_quick ? 3 : sizeof offsets / sizeof offsets[0];
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    for (int vi = -1; vi < lab_vec_nversions; vi++) {
        const lab_version_t *v = vi < 0 ? NULL : &lab_vec_versions[vi];
        if (v && !v->gpu) continue;
        if (g_filter && v && !strstr(v->name, g_filter)) continue;
        long before = tc_fail;
        for (int op = 0; op < GP__VEC_NOPS; op++) {
            if (v && !(v->sel & (1u << op))) continue;
            if (g_filter && !v && !strstr(gp__vec_op_name((gp__vec_op_t)op), g_filter)) continue;
            for (size_t di = 0; di < sizeof k_dtypes / sizeof k_dtypes[0]; di++)
                for (size_t si = 0; si < TC_NSIZES; si++) {
                    size_t n = tc_sizes[si];
                    if (g_quick && n > 1025) n = (1u << 18) + 3;
                    /* Slow teaching versions stop at their lab cap (their code has no size-dependent path). */
                    if (v && v->max_n && n > v->max_n) n = g_quick ? 0 : v->max_n + 3;
                    if (g_quick && n == 0 && si != 0) continue;
                    for (size_t oi = 0; oi < noffs; oi++)
                        check_one(ctx, d, v, (gp__vec_op_t)op, k_dtypes[di], n, offsets[oi], oi & 1 ? s : NULL);
                }
        }
        printf("  %-32s %s\n", v ? v->name : "public API (production)", tc_fail == before ? "ok" : "FAILED");
    }
    OK(gp_stream_destroy(ctx, s));
}

/* The dot gives the same bits on every run and stream (fixed grid, fixed combine order). */
static void test_dot_repeatable(gp_ctx_t *ctx, dev_bufs_t *d)
{
    const size_t n = g_quick ? 40000 : (1u << 20) + 3;
    float *h = malloc(n * 4);
    tc_fill(h, n, GP_F32);
    OK(gp_memcpy_sync(ctx, d->x.device, h, n * 4));
    tc_fill(h, n, GP_F32);
    OK(gp_memcpy_sync(ctx, d->y.device, h, n * 4));
    double first = 0, again = 0;
    OK(gp_vec_dot_sync(ctx, GP_F32, n, d->x.device, d->y.device, &first));
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    int same = 1;
    for (int r = 0; r < 20; r++) {
        OK(gp_vec_dot(ctx, GP_F32, n, d->x.device, d->y.device, d->z.device, r & 1 ? s : NULL));
        OK(gp_stream_sync(ctx, r & 1 ? s : NULL));
        OK(gp_memcpy_sync(ctx, &again, d->z.device, 8));
        same &= memcmp(&first, &again, 8) == 0;
    }
    CHECK(same, "dot changed between runs: %.17g vs %.17g", first, again);
    OK(gp_stream_destroy(ctx, s));
    free(h);
}

static void test_errors(gp_ctx_t *ctx, dev_bufs_t *d)
{
    OK(gp_memset(ctx, d->z.device, 0xff, 64, NULL));
    char *dx = d->x.device, *dz = d->z.device;
    CHECK_ST(gp_vec_add(ctx, GP_F32, 8, dx + 2, dx, dz, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "x is not 4-byte aligned") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_dot(ctx, GP_F64, 8, dx, dx, dz + 4, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "result") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_vec_triad(ctx, GP_F64, (size_t)1 << 62, 1.0, dx, dx, dz, NULL), GP_ERR_OVERFLOW);
    CHECK_ST(gp_vec_scale(ctx, GP_I16, 8, 1.0, dx, dz, NULL), GP_ERR_UNSUPPORTED);
    unsigned char back[64];
    OK(gp_memcpy_sync(ctx, back, dz, 64));
    int untouched = 1;
    for (int i = 0; i < 64; i++) untouched &= back[i] == 0xff;
    CHECK(untouched, "output written on error");
}

/* The device fill's value for element i (gp__launch_fill_random, f32): splitmix64 of (seed, i). */
static float fill_value(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x2545f4914f6cdd1dull + i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)((double)(z >> 40) * 0x1p-23 - 1.0);
}

/* n > 2^32: triad and dot over 2^32 + 37 f32 elements (17 GB per array), inputs made on the device by a hash the host
 * recomputes, so the host holds only the result; every element is checked. */
static void test_huge(gp_ctx_t *ctx)
{
    const size_t n = ((size_t)1 << 32) + 37, bytes = n * 4;
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    gp_cpu_info_t ci;
    gp_cpu_info(&ci);
    float *z = fr >= 3 * bytes + ((size_t)1 << 30) && ci.total_mem_bytes >= 2 * bytes ? malloc(bytes) : NULL;
    if (z == NULL) {
        printf("  n > 2^32: NOT RUN: needs %.1f GB free on the GPU (%.1f free) and %.1f GB of host memory\n",
               (3.0 * bytes + (1 << 30)) / 1e9, fr / 1e9, bytes / 1e9);
        return;
    }
    const uint64_t sx = tc_next() >> 8, sy = tc_next() >> 8;
    gp_buffer_t dx, dy, dz;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &dx));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &dy));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes, &dz));
    OK(gp__core_gpu_ops.fill_random(ctx, dx.device, n, GP_F32, sx, NULL));
    OK(gp__core_gpu_ops.fill_random(ctx, dy.device, n, GP_F32, sy, NULL));
    OK(gp_memset(ctx, dz.device, 0xff, bytes, NULL));
    OK(gp_vec_triad(ctx, GP_F32, n, 0.75, dx.device, dy.device, dz.device, NULL));
    OK(gp_memcpy_sync(ctx, z, dz.device, bytes));
    long long bad = 0;
    double want_dot = 0, mag = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad, want_dot, mag)
    for (long long i = 0; i < (long long)n; i++) {
        const double x = fill_value(sx, (uint64_t)i), y = fill_value(sy, (uint64_t)i), want = x + 0.75 * y;
        bad += !(fabs(z[i] - want) <= 1e-6 + 1e-6 * fabs(want));
        want_dot += x * y;
        mag += fabs(x * y);
    }
    CHECK(bad == 0, "triad n = 2^32 + 37: %lld mismatches (last element %g)", bad, z[n - 1]);
    double got = 0;
    OK(gp_vec_dot_sync(ctx, GP_F32, n, dx.device, dy.device, &got));
    CHECK(fabs(got - want_dot) <= 1e-10 * mag, "dot n = 2^32 + 37: %.17g want %.17g", got, want_dot);
    printf("  n = 2^32 + 37 (%.1f GB per array): triad %s (%lld mismatches), dot %.17g vs host %.17g\n", bytes / 1e9,
           bad == 0 ? "ok" : "FAILED", bad, got, want_dot);
    gp_mem_free(ctx, &dx);
    gp_mem_free(ctx, &dy);
    gp_mem_free(ctx, &dz);
    free(z);
}

int main(void)
{
    tc_require_gpu("gpu_vector");
    tc_seed("gpu_vector");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    g_filter = getenv("GP_TEST_FILTER");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    dev_bufs_t d;
    d.bytes = ((size_t)(1u << 20) + 64) * 8;
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, d.bytes, &d.x) == GP_OK, "x");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, d.bytes, &d.y) == GP_OK, "y");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, d.bytes, &d.z) == GP_OK, "z");
    test_all_versions(ctx, &d);
    test_dot_repeatable(ctx, &d);
    test_errors(ctx, &d);
    if (!g_quick) test_huge(ctx);
    gp_mem_free(ctx, &d.x);
    gp_mem_free(ctx, &d.y);
    gp_mem_free(ctx, &d.z);
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_vector");
}
