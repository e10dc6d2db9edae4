/*
 * gpu_ordered.c — GPU tests of the ordered (non-commutative) reductions: every op x dtype at tile edges, aligned and
 * misaligned (scalar staging path), up to three tree levels, bitwise equal to the CPU backend and close to the serial
 * left fold (u32 exact); the asynchronous form on a stream; first/last; identities; errors write nothing.
 * Exit 77 without a GPU. GP_TEST_QUICK=1 (compute-sanitizer): no three-level sizes.
 */
#include "ordered_common.h"

static void test_all(gp_ctx_t *ctx, int quick)
{
    gp_stream_t s;
    OK(gp_stream_create(ctx, &s));
    gp_buffer_t dres;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 256, &dres));
    for (size_t o = 0; o < 4; o++)
        for (size_t d = 0; d < 3; d++) {
            const gp_ordered_op_t op = oc_ops[o];
            const gp_dtype_t dt = oc_dtypes[d];
            if (op == GP_ORDERED_AFFINE && dt == GP_U32) continue;
            const size_t t = oc_tile(op, dt), k = gp_ordered_width(op), es = gp_dtype_size(dt), eb = k * es;
            const size_t sizes[] = {1, 2, 31, 33, 257, t - 1, t, t + 1, 3 * t + 17, 1000 * t + 3, t * t + 5};
            long fails = tc_fail;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                const size_t n = sizes[si];
                if (n * eb > ((size_t)600 << 20) || (quick && n > 4 * t)) continue;
                unsigned char *x = malloc(n * eb);
                oc_fill(x, op, dt, n);
                unsigned char cpu[128], got[128], got2[128];
                gp__ordered_cpu(op, dt, n, x, cpu, 1);
                gp_buffer_t dx;
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * eb + 64, &dx));
                for (size_t off = 0; off < 2; off++) { /* off: one dtype element past 16-byte alignment */
                    char *p = (char *)dx.device + off * es;
                    OK(gp_memcpy_sync(ctx, p, x, n * eb));
                    memset(got, 0x7f, sizeof got);
                    OK(gp_reduce_ordered_sync(ctx, op, dt, n, p, got));
                    if (memcmp(got, cpu, eb) != 0)
                        CHECK(0, "%s %s n=%zu off=%zu: GPU and CPU bits differ", gp_ordered_op_name(op),
                              gp_dtype_name(dt), n, off);
                    else
                        tc_pass++;
                    OK(gp_memset(ctx, dres.device, 0x7f, 256, NULL));
                    OK(gp_stream_sync(ctx, NULL));
                    OK(gp_reduce_ordered(ctx, op, dt, n, p, dres.device, s));
                    OK(gp_stream_sync(ctx, s));
                    OK(gp_memcpy_sync(ctx, got2, dres.device, eb));
                    CHECK(memcmp(got2, cpu, eb) == 0, "%s %s n=%zu: async result differs", gp_ordered_op_name(op),
                          gp_dtype_name(dt), n);
                }
                long double rf[16];
                uint32_t ru[16];
                oc_reference(op, dt, n, x, rf, ru);
                double err = 0;
                CHECK(oc_close(op, dt, n, got, rf, ru, oc_tol(dt, n), &err), "%s %s n=%zu: relative error %.3g",
                      gp_ordered_op_name(op), gp_dtype_name(dt), n, err);
                if (si == sizeof sizes / sizeof sizes[0] - 1 || (n == 1000 * t + 3 && quick == 0))
                    printf("  %-6s %-4s n = %zu (%zu tiles): GPU == CPU bits, error vs left fold %.2g\n",
                           gp_ordered_op_name(op), gp_dtype_name(dt), n, (n + t - 1) / t, err);
                gp_mem_free(ctx, &dx);
                free(x);
            }
            printf("  %-6s %-4s: %s\n", gp_ordered_op_name(op), gp_dtype_name(dt), tc_fail == fails ? "ok" : "FAILED");
        }
    /* first / last on the device; identities; errors write nothing */
    gp_buffer_t dx;
    unsigned char h[4096], got[16];
    tc_fill(h, sizeof h, GP_U8);
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, sizeof h, &dx));
    OK(gp_memcpy_sync(ctx, dx.device, h, sizeof h));
    OK(gp_reduce_ordered_sync(ctx, GP_ORDERED_LAST, GP_F64, 512, dx.device, got));
    CHECK(memcmp(got, h + 511 * 8, 8) == 0, "last f64");
    OK(gp_reduce_ordered(ctx, GP_ORDERED_FIRST, GP_U16, 2048, dx.device, dres.device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, got, dres.device, 2));
    CHECK(memcmp(got, h, 2) == 0, "first u16");
    OK(gp_reduce_ordered(ctx, GP_ORDERED_MAT2, GP_F32, 0, NULL, dres.device, s));
    float m[4];
    OK(gp_memcpy_sync(ctx, m, dres.device, sizeof m));
    CHECK(m[0] == 1 && m[1] == 0 && m[2] == 0 && m[3] == 1, "mat2 of nothing on the device");
    OK(gp_memset(ctx, dres.device, 0x5a, 256, NULL));
    CHECK_ST(gp_reduce_ordered(ctx, GP_ORDERED_AFFINE, GP_U32, 4, dx.device, dres.device, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reduce_ordered(ctx, GP_ORDERED_MAT2, GP_F32, 4, (char *)dx.device + 1, dres.device, s),
             GP_ERR_INVALID_ARG);
    OK(gp_memcpy_sync(ctx, got, dres.device, 16));
    int untouched = 1;
    for (int i = 0; i < 16; i++) untouched &= got[i] == 0x5a;
    CHECK(untouched, "result written on error");
    gp_mem_free(ctx, &dx);
    gp_mem_free(ctx, &dres);
    OK(gp_stream_destroy(ctx, s));
}

int main(void)
{
    tc_require_gpu("gpu_ordered");
    tc_seed("gpu_ordered");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    test_all(ctx, getenv("GP_TEST_QUICK") != NULL);
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_ordered");
}
