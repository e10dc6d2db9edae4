/*
 * gpu_reduce.c — GPU tests of gp_reduce: every dtype x op at the docs/ARCHITECTURE.md sizes and tile edges, aligned and
 * misaligned, against the exact reference AND bitwise against the CPU backend (the determinism contract);
 * real-valued float sums bitwise equal to the CPU's; more than 4096 tiles (a third tree level); n > 2^31; repeated
 * runs on two streams; NaN rules; error paths (nothing written). Exit 77 without a GPU.
 * GP_TEST_QUICK=1 (compute-sanitizer): sizes up to 65537, no large cases.
 */
#define _POSIX_C_SOURCE 200809L
#include "lab_versions.h"
#include "reduce_common.h"

#include <cuda_runtime_api.h>

static int g_quick;
static const size_t k_sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 16383, 16384, 16385, 65537, (1u << 20) + 3};

/* Runs op on host data x (copied to the device at element offset off), checks against want and the CPU backend. */
static int check_one(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dt, const void *x, size_t n, size_t off,
                     const gp_reduce_result_t *want, gp_stream_t s, gp_buffer_t *dx, gp_buffer_t *dres)
{
    const size_t es = gp_dtype_size(dt);
    REQUIRE((n + off) * es <= dx->bytes, "device buffer too small");
    OK(gp_memcpy_sync(ctx, (char *)dx->device + off * es, x, n * es));
    OK(gp_memset(ctx, dres->device, 0xa5, sizeof(gp_reduce_result_t), NULL));
    OK(gp_stream_sync(ctx, NULL));
    gp_reduce_result_t got, cpu;
    OK(gp_reduce(ctx, op, dt, n, (char *)dx->device + off * es, (gp_reduce_result_t *)dres->device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, &got, dres->device, sizeof got));
    if (n > 0) OK(gp__reduce_cpu(op, dt, 0, n, x, &cpu, 1));
    else gp__reduce_identity(op, dt, &cpu);
    int ok = 1;
    if (want && !rc_equal_value(&got, want)) {
        ok = 0;
        CHECK(0, "%s %s n=%zu off=%zu: GPU differs from the exact answer", gp_reduce_op_name(op), gp_dtype_name(dt), n, off);
        rc_print("gpu ", &got), rc_print("want", want);
    }
    if (!rc_same(&got, &cpu)) {
        ok = 0;
        CHECK(0, "%s %s n=%zu off=%zu: GPU and CPU bits differ", gp_reduce_op_name(op), gp_dtype_name(dt), n, off);
        rc_print("gpu", &got), rc_print("cpu", &cpu);
    } else {
        tc_pass++;
    }
    return ok;
}

static void test_all(gp_ctx_t *ctx, gp_buffer_t *dx, gp_buffer_t *dres)
{
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    for (size_t d = 0; d < RC_NDTYPES; d++) {
        const gp_dtype_t dt = rc_dtypes[d];
        long before = tc_fail;
        for (int op = 0; op < GP_REDUCE_OP_COUNT; op++) {
            if (gp_reduce_acc_dtype((gp_reduce_op_t)op, dt) == GP_DTYPE_COUNT) continue;
            for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
                const size_t n = k_sizes[si];
                if (g_quick && n > 65537) continue;
                for (size_t off = 0; off < 2; off++) {
                    char *x = malloc(n * gp_dtype_size(dt) + 1);
                    rc_fill(x, dt, n, (gp_reduce_op_t)op);
                    gp_reduce_result_t want;
                    rc_reference(x, dt, n, (gp_reduce_op_t)op, &want);
                    check_one(ctx, (gp_reduce_op_t)op, dt, x, n, off, &want, off ? s : NULL, dx, dres);
                    free(x);
                }
            }
        }
        printf("  %-5s all ops, all sizes, 2 alignments: %s\n", gp_dtype_name(dt), tc_fail == before ? "ok" : "FAILED");
    }
    OK(gp_stream_destroy(ctx, s));
}

/* Real-valued data: the float results are bitwise the CPU backend's, and the same on every run and stream. */
static void test_bitwise_real(gp_ctx_t *ctx, gp_buffer_t *dx, gp_buffer_t *dres)
{
    const gp_dtype_t dts[] = {GP_F32, GP_F64, GP_F16, GP_BF16};
    const size_t n = g_quick ? 40000 : 5 * (1u << 20) + 11;
    for (size_t d = 0; d < 4; d++) {
        const gp_dtype_t dt = dts[d];
        const size_t es = gp_dtype_size(dt);
        char *x = malloc(n * es);
        if (dt == GP_F32 || dt == GP_F64) {
            tc_fill(x, n, dt);
        } else {
            for (size_t i = 0; i < n; i++) ((uint16_t *)x)[i] = (uint16_t)(tc_next() >> 48) & 0xbfff; /* finite-ish */
            for (size_t i = 0; i < n; i++)
                if ((((uint16_t *)x)[i] & (dt == GP_F16 ? 0x7c00 : 0x7f80)) == (dt == GP_F16 ? 0x7c00 : 0x7f80))
                    ((uint16_t *)x)[i] = 0x3c00; /* no inf/NaN */
        }
        const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_PROD, GP_REDUCE_MINMAX, GP_REDUCE_ARGMAX};
        for (size_t o = 0; o < 4; o++) check_one(ctx, ops[o], dt, x, n, 0, NULL, NULL, dx, dres);
        /* Twenty more runs alternating streams: the same bits. */
        gp_reduce_result_t first, again;
        OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, dt, n, dx->device, &first));
        gp_stream_t s = NULL;
        OK(gp_stream_create(ctx, &s));
        int same = 1;
        for (int r = 0; r < 20; r++) {
            OK(gp_reduce(ctx, GP_REDUCE_SUM, dt, n, dx->device, (gp_reduce_result_t *)dres->device, r & 1 ? s : NULL));
            OK(gp_stream_sync(ctx, r & 1 ? s : NULL));
            OK(gp_memcpy_sync(ctx, &again, dres->device, sizeof again));
            same &= memcmp(&first, &again, sizeof first) == 0;
        }
        CHECK(same, "%s sum changed between runs", gp_dtype_name(dt));
        OK(gp_stream_destroy(ctx, s));
        free(x);
    }
}

/* More than 4096 tiles (three tree levels) and n > 2^31: u8 sums and xor, f64 minmax. */
static void test_large(gp_ctx_t *ctx)
{
    const size_t sizes[] = {(size_t)4097 * 65536 + 5, ((size_t)1 << 31) + 12345};
    for (size_t k = 0; k < 2; k++) {
        const size_t n = sizes[k];
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        if (fr < n + ((size_t)1 << 30)) {
            printf("  n = %zu: NOT RUN (needs %.1f GB of GPU memory)\n", n, n / 1e9);
            continue;
        }
        uint8_t *x = malloc(n);
        REQUIRE(x, "host memory");
        const uint64_t seed = tc_next();
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) x[i] = (uint8_t)(((uint64_t)i * 0x9e3779b97f4a7c15ull + seed) >> 56);
        gp_buffer_t d;
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n, &d));
        OK(gp_memcpy_sync(ctx, d.device, x, n));
        const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_XOR, GP_REDUCE_ARGMIN};
        for (size_t o = 0; o < 3; o++) {
            gp_reduce_result_t got, cpu;
            OK(gp_reduce_sync(ctx, ops[o], GP_U8, n, d.device, &got));
            OK(gp__reduce_cpu(ops[o], GP_U8, 0, n, x, &cpu, 1));
            CHECK(rc_same(&got, &cpu), "u8 %s n=%zu", gp_reduce_op_name(ops[o]), n);
            rc_check_reducer(ctx, ops[o], GP_U8, d.device, n, 777, NULL, NULL, &got);
            if (ops[o] == GP_REDUCE_SUM) {
                uint64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
                for (long long i = 0; i < (long long)n; i++) s += x[i];
                CHECK(got.value.u64 == s, "u8 sum n=%zu: %llu want %llu", n, (unsigned long long)got.value.u64,
                      (unsigned long long)s);
                printf("  u8 n = %zu (%zu tiles): sum %llu %s\n", n, (n + 65535) / 65536,
                       (unsigned long long)got.value.u64, got.value.u64 == s ? "ok" : "FAILED");
            }
        }
        gp_mem_free(ctx, &d);
        free(x);
    }
}

/* Every lab version (the primers' progression) gives the exact sum of integer-valued floats at every size, aligned
 * and not; the result is poisoned first. */
static void test_lab_versions(gp_ctx_t *ctx, gp_buffer_t *dx, gp_buffer_t *dres)
{
    for (int vi = 0; vi < lab_reduce_nversions; vi++) {
        const lab_version_t *v = &lab_reduce_versions[vi];
        if (!v->gpu) continue;
        long before = tc_fail;
        for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++)
            for (size_t off = 0; off < 2; off++) {
                const size_t n = k_sizes[si];
                if (g_quick && n > 65537) continue;
                float *x = malloc((n + 1) * sizeof *x);
                long long exact = 0;
                for (size_t i = 0; i < n; i++) {
                    x[i] = (float)((int)(tc_next() % 15) - 7);
                    exact += (long long)x[i];
                }
                OK(gp_memcpy_sync(ctx, (float *)dx->device + off, x, n * sizeof *x));
                OK(gp_memset(ctx, dres->device, 0xff, 64, NULL));
                OK(LAB_FN(lab_reduce_fn, v)(ctx, (const float *)dx->device + off, n, (float *)dres->device, NULL));
                OK(gp_stream_sync(ctx, NULL));
                float got = 0;
                OK(gp_memcpy_sync(ctx, &got, dres->device, sizeof got));
                CHECK(got == (float)exact, "%s n=%zu off=%zu: %.9g, exact %lld", v->name, n, off, got, exact);
                free(x);
            }
        printf("  %-32s %s\n", v->name, tc_fail == before ? "ok" : "FAILED");
    }
}

/* gp_reducer on device pieces over two streams, and files streamed through the pinned pipeline, equal the in-memory
 * GPU result and the CPU backend's, bit for bit. */
static void test_streaming(gp_ctx_t *ctx)
{
    static const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_ARGMIN, GP_REDUCE_MINMAX, GP_REDUCE_XOR,
                                         GP_REDUCE_SUM};
    static const gp_dtype_t dts[] = {GP_F32, GP_U8, GP_F64, GP_I16, GP_BF16};
    static const size_t sizes[] = {1, 16383, 16384, 16385, 5 * 16384 + 77, (size_t)4099 * 16384 + 1234};
    gp_stream_t s1, s2;
    gp_ctx_t *cpuctx = NULL;
    OK(gp_ctx_create(&cpuctx, GP_DEVICE_CPU));
    OK(gp_stream_create(ctx, &s1));
    OK(gp_stream_create(ctx, &s2));
    for (size_t o = 0; o < 5; o++)
        for (size_t si = 0; si < 6; si++) {
            const gp_dtype_t dt = dts[o];
            const size_t es = gp_dtype_size(dt);
            const size_t n = sizes[si] * (4 / (es < 4 ? es : 4));
            if (g_quick && n > 65536 * 8) continue;
            void *x = malloc(n * es);
            if (dt == GP_F32 || dt == GP_F64) tc_fill(x, n, dt);
            else if (dt == GP_BF16)
                for (size_t i = 0; i < n; i++) ((uint16_t *)x)[i] = (uint16_t)(0x3c00 + tc_next() % 0x300) | (tc_next() & 0x8000);
            else rc_fill(x, dt, n, ops[o]);
            gp_buffer_t d;
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es, &d));
            OK(gp_memcpy_sync(ctx, d.device, x, n * es));
            gp_reduce_result_t want, cpu;
            OK(gp_reduce_sync(ctx, ops[o], dt, n, d.device, &want));
            OK(gp__reduce_cpu(ops[o], dt, 0, n, x, &cpu, 1));
            CHECK(rc_same(&want, &cpu), "in-memory GPU vs CPU %s %s n=%zu", gp_reduce_op_name(ops[o]), gp_dtype_name(dt), n);
            rc_check_reducer(ctx, ops[o], dt, d.device, n, 1, s1, s2, &want);
            rc_check_reducer(ctx, ops[o], dt, d.device, n, 5, s1, s2, &want);
            /* CPU -> GPU -> CPU mid-array; the big size moves a level-1 entry as well */
            rc_check_transfer(cpuctx, x, ctx, d.device, ops[o], dt, n, si == 5 ? 4097 : 1, si == 5 ? 4098 : 3, &want);
            rc_check_transfer(ctx, d.device, cpuctx, x, ops[o], dt, n, 2, 3, &want);
            rc_check_file_stream(ctx, ops[o], dt, x, n, si == 5 ? (size_t)32 << 20 : 65536 * 2, &want);
            if (si == 5)
                printf("  streamed %s %s n = %zu (%zu tiles): reducer and file pipeline bitwise equal to in-memory\n",
                       gp_reduce_op_name(ops[o]), gp_dtype_name(dt), n, (n * es + 65535) / 65536);
            gp_mem_free(ctx, &d);
            free(x);
        }
    OK(gp_stream_destroy(ctx, s1));
    OK(gp_stream_destroy(ctx, s2));
    gp_ctx_destroy(cpuctx);
    gp_buffer_t e;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 2 * 65536, &e));
    float *h = malloc(2 * 65536);
    tc_fill(h, 2 * 16384, GP_F32);
    OK(gp_memcpy_sync(ctx, e.device, h, 2 * 65536));
    free(h);
    rc_reducer_errors(ctx, e.device);
    gp_mem_free(ctx, &e);
}

static void test_errors(gp_ctx_t *ctx, gp_buffer_t *dx, gp_buffer_t *dres)
{
    OK(gp_memset(ctx, dres->device, 0x5a, sizeof(gp_reduce_result_t), NULL));
    CHECK_ST(gp_reduce(ctx, GP_REDUCE_AND, GP_F64, 8, dx->device, (gp_reduce_result_t *)dres->device, NULL),
             GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reduce(ctx, GP_REDUCE_SUM, GP_I32, 8, (char *)dx->device + 2, (gp_reduce_result_t *)dres->device, NULL),
             GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce(ctx, GP_REDUCE_SUM, GP_I32, 8, dx->device, (gp_reduce_result_t *)((char *)dres->device + 4), NULL),
             GP_ERR_INVALID_ARG);
    unsigned char back[sizeof(gp_reduce_result_t)];
    OK(gp_memcpy_sync(ctx, back, dres->device, sizeof back));
    int untouched = 1;
    for (size_t i = 0; i < sizeof back; i++) untouched &= back[i] == 0x5a;
    CHECK(untouched, "result written on error");
}

int main(void)
{
    tc_require_gpu("gpu_reduce");
    tc_seed("gpu_reduce");
    g_quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_buffer_t dx, dres;
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, ((size_t)5 << 20) * 8 + 1024, &dx) == GP_OK, "x");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, 256, &dres) == GP_OK, "result");
    test_all(ctx, &dx, &dres);
    test_bitwise_real(ctx, &dx, &dres);
    test_lab_versions(ctx, &dx, &dres);
    test_errors(ctx, &dx, &dres);
    test_streaming(ctx);
    {
        gp_stream_t s;
        OK(gp_stream_create(ctx, &s));
        const long before = tc_fail;
        rc_test_segmented(ctx, g_quick ? 200003 : (size_t)3000017, s);
        printf("  segmented: every op x dtype, skewed / invalid / uniform / overlapping layouts: %s\n",
               tc_fail == before ? "ok (GPU == CPU bits, exact answers)" : "FAILED");
        OK(gp_stream_destroy(ctx, s));
    }
    {
        const size_t sizes[] = {1, 16385, (size_t)4099 * 16384 + 7};
        for (size_t k = 0; k < 3; k++) {
            const size_t n = sizes[k];
            if (g_quick && n > 100000) continue;
            float *xf = malloc(n * sizeof *xf);
            uint16_t *xh = malloc(n * sizeof *xh);
            tc_fill(xf, n, GP_F32);
            for (size_t i = 0; i < n; i++) xh[i] = (uint16_t)(0x3000 + tc_next() % 0x1000) | (uint16_t)(tc_next() & 0x8000);
            gp_buffer_t d;
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * sizeof *xf, &d));
            OK(gp_memcpy_sync(ctx, d.device, xf, n * sizeof *xf));
            rc_test_acc(ctx, d.device, xf, n, GP_F32);
            OK(gp_memcpy_sync(ctx, d.device, xh, n * sizeof *xh));
            rc_test_acc(ctx, d.device, xh, n, GP_F16);
            rc_test_acc(ctx, d.device, xh, n, GP_BF16);
            gp_mem_free(ctx, &d);
            free(xf), free(xh);
        }
        printf("  accumulators: f32, f16, bf16 sums in f64, GPU == CPU bits, reducer == in-memory\n");
    }
    if (!g_quick) test_large(ctx);
    gp_mem_free(ctx, &dx);
    gp_mem_free(ctx, &dres);
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_reduce");
}
