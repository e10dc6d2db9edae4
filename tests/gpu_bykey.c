/*
 * gpu_bykey.c — reduce and scan by key on the GPU against the CPU backend's bits (test_bykey.c holds those to the
 * reference runs): key dtypes with NaN and ±0 x value dtypes x sum / min / max, short and long runs, sizes across the
 * tiles; the _sync calls and the asynchronous ones on a stream of their own (the run count left in device memory),
 * the one-pass reduction's 64-bit run counts (GP_BYKEY_WIDE_COUNT) and the scan in place. Outputs poisoned first.
 * Each on both one-pass kernels, forced: the block-per-tile look-back kernel and the tile engine (sm_90; 4-byte
 * values, n >= 2^16). GP_TEST_FILTER=engine: the tile engine's pass alone (compute-sanitizer).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "bykey_common.h"

#include "scan/scan_internal.h"

static gp_stream_t g_stream;

static void check(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t kt, gp_dtype_t vt, gp_reduce_op_t op, size_t n, size_t maxrun)
{
    const size_t ks = gp_dtype_size(kt), vs = gp_dtype_size(vt), as = 8;
    unsigned char *k = malloc(n * ks), *v = malloc(n * vs), *wk = malloc(n * ks), *wv = malloc(n * as),
                  *gk = malloc(n * ks), *gv = malloc(n * as);
    bykey_fill(k, n, kt, maxrun);
    tc_fill(v, n, vt == GP_F64 ? GP_F64 : vt == GP_F32 ? GP_F32 : GP_I32);
    if (vt == GP_U64)
        for (size_t i = 0; i < n; i++) ((uint64_t *)(void *)v)[i] = tc_next();
    gp_buffer_t dk, dv, dko, dvo;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * ks, &dk));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * vs, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * ks, &dko));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * as, &dvo));
    OK(gp_memcpy_sync(gpu, dk.device, k, n * ks));
    OK(gp_memcpy_sync(gpu, dv.device, v, n * vs));
    size_t wr = 0, gr = 1;
    OK(gp_reduce_by_key_sync(cpu, op, kt, n, k, vt, v, wk, wv, &wr));
    OK(gp_memset(gpu, dko.device, 0xff, n * ks, NULL));
    OK(gp_memset(gpu, dvo.device, 0xff, n * as, NULL));
    OK(gp_reduce_by_key_sync(gpu, op, kt, n, dk.device, vt, dv.device, dko.device, dvo.device, &gr));
    const size_t accb = gp_dtype_size(gp_reduce_acc_dtype(op, vt));
    OK(gp_memcpy_sync(gpu, gk, dko.device, gr * ks));
    OK(gp_memcpy_sync(gpu, gv, dvo.device, gr * accb));
    CHECK(gr == wr && memcmp(gk, wk, wr * ks) == 0 && memcmp(gv, wv, wr * accb) == 0,
          "reduce_by_key %s keys %s values op %d n=%zu: %zu runs (CPU %zu) or their bits differ", gp_dtype_name(kt),
          gp_dtype_name(vt), (int)op, n, gr, wr);
    const int onepass = vt == GP_F32 || vt == GP_F64 || vt == GP_I64 || vt == GP_U64;
    if (onepass) { /* asynchronous on a stream of its own, the count in device memory; f32 also with 64-bit counts */
        gp_buffer_t dr;
        OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, 8, &dr));
        for (int wide = 0; wide < 1 + (vt == GP_F32); wide++) {
            if (wide) setenv("GP_BYKEY_WIDE_COUNT", "1", 1);
            OK(gp_memset(gpu, dko.device, 0xff, n * ks, NULL));
            OK(gp_memset(gpu, dvo.device, 0xff, n * as, NULL));
            OK(gp_memset(gpu, dr.device, 0xff, 8, NULL));
            OK(gp_stream_sync(gpu, NULL));
            OK(gp_reduce_by_key(gpu, op, kt, n, dk.device, vt, dv.device, dko.device, dvo.device, dr.device, g_stream));
            OK(gp_stream_sync(gpu, g_stream));
            unsetenv("GP_BYKEY_WIDE_COUNT");
            uint64_t r = 0;
            OK(gp_memcpy_sync(gpu, &r, dr.device, 8));
            OK(gp_memcpy_sync(gpu, gk, dko.device, wr * ks));
            OK(gp_memcpy_sync(gpu, gv, dvo.device, wr * accb));
            CHECK(r == wr && memcmp(gk, wk, wr * ks) == 0 && memcmp(gv, wv, wr * accb) == 0,
                  "gp_reduce_by_key %s keys %s values op %d n=%zu%s: %llu runs (CPU %zu) or their bits differ",
                  gp_dtype_name(kt), gp_dtype_name(vt), (int)op, n, wide ? " (64-bit counts)" : "",
                  (unsigned long long)r, wr);
        }
        gp_mem_free(gpu, &dr);
    }
    for (int kind = 0; kind < 2; kind++) {
        OK(gp_scan_by_key_sync(cpu, op, kt, n, k, vt, (gp_scan_kind_t)kind, v, wv));
        OK(gp_memset(gpu, dvo.device, 0xff, n * vs, NULL));
        OK(gp_scan_by_key_sync(gpu, op, kt, n, dk.device, vt, (gp_scan_kind_t)kind, dv.device, dvo.device));
        OK(gp_memcpy_sync(gpu, gv, dvo.device, n * vs));
        CHECK(memcmp(gv, wv, n * vs) == 0, "scan_by_key %s keys %s values op %d kind %d n=%zu: differs from the CPU's",
              gp_dtype_name(kt), gp_dtype_name(vt), (int)op, kind, n);
        OK(gp_memcpy_sync(gpu, dvo.device, v, n * vs)); /* in place, asynchronous, on a stream of its own */
        OK(gp_scan_by_key(gpu, op, kt, n, dk.device, vt, (gp_scan_kind_t)kind, dvo.device, dvo.device, g_stream));
        OK(gp_stream_sync(gpu, g_stream));
        OK(gp_memcpy_sync(gpu, gv, dvo.device, n * vs));
        CHECK(memcmp(gv, wv, n * vs) == 0, "gp_scan_by_key in place %s keys %s values op %d kind %d n=%zu",
              gp_dtype_name(kt), gp_dtype_name(vt), (int)op, kind, n);
    }
    gp_mem_free(gpu, &dk), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &dko), gp_mem_free(gpu, &dvo);
    free(k), free(v), free(wk), free(wv), free(gk), free(gv);
}

int main(void)
{
    tc_require_gpu("gpu_bykey");
    tc_seed("gpu_bykey");
    const int quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *gpu = NULL, *cpu = NULL;
    REQUIRE(gp_ctx_create(&gpu, 0) == GP_OK, "GPU context");
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    REQUIRE(gp_stream_create(gpu, &g_stream) == GP_OK, "a stream");
    static const size_t sizes[] = {1, 33, 4097, 4096 * 3 + 17, 100003, (1u << 22) + 3};
    static const struct {
        gp__scan_kernel_t k;
        const char *name;
    } kernels[] = {{GP__SCAN_KERNEL_LOOKBACK, "block-per-tile kernel"}, {GP__SCAN_KERNEL_ENGINE, "tile engine"}};
    const char *only = getenv("GP_TEST_FILTER");
    for (size_t kk = only && strcmp(only, "engine") == 0 ? 1 : 0; kk < sizeof kernels / sizeof kernels[0]; kk++) {
        const int te = kernels[kk].k == GP__SCAN_KERNEL_ENGINE;
        const long before = tc_fail;
        gp__scan_force_kernel(kernels[kk].k);
        for (size_t ki = 0; ki < sizeof k_key_types / sizeof k_key_types[0]; ki++)
            for (size_t vi = 0; vi < sizeof k_val_types / sizeof k_val_types[0]; vi++)
                for (size_t oi = 0; oi < sizeof k_ops / sizeof k_ops[0]; oi++)
                    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                        const size_t n = sizes[si];
                        if ((te && n < ((size_t)1 << 16)) || (quick && n > (te ? (size_t)100003 : (size_t)4096 * 3 + 17)))
                            continue;
                        check(gpu, cpu, k_key_types[ki], k_val_types[vi], k_ops[oi], n, si % 3 == 1 ? 8 : si % 3 ? 1000 : 5000);
                    }
        printf("%s (forced): %s\n", kernels[kk].name, tc_fail == before ? "ok" : "FAILED");
    }
    gp__scan_force_kernel(GP__SCAN_KERNEL_AUTO);
    gp_stream_destroy(gpu, g_stream);
    gp_ctx_destroy(gpu), gp_ctx_destroy(cpu);
    free(g_v);
    return tc_finish("gpu_bykey");
}
