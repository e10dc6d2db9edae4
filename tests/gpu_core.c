/*
 * gpu_core.c — GPU tests of the core: device info, contexts, every memory kind, sync and async copies between
 * every pair of kinds, kernel (SM) copies at every alignment class, managed prefetch/advise, pitched 2D/3D, timers,
 * streams, and the error paths (out of memory, bad kind, wrong buffer, NULL) with nothing written and no device
 * memory leaked. Exit 77 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L /* fseeko, ftruncate (load_common.h) */
#include "common.h"
#include "load_common.h"

#include <cuda_runtime_api.h>

/* A buffer of each kind; registered memory is malloc'd here and registered. */
typedef struct kbuf {
    gp_buffer_t b;
    void *raw;
} kbuf_t;

static gp_status_t kalloc(gp_ctx_t *ctx, gp_mem_kind_t k, size_t bytes, kbuf_t *out)
{
    memset(out, 0, sizeof *out);
    if (k != GP_MEM_REGISTERED) return gp_mem_alloc(ctx, k, bytes, &out->b);
    if (bytes == 0) return GP_OK;
    out->raw = malloc(bytes);
    return out->raw ? gp_mem_register(ctx, out->raw, bytes, &out->b) : GP_ERR_OUT_OF_MEMORY;
}

static void kfree(gp_ctx_t *ctx, kbuf_t *k)
{
    OK(gp_mem_free(ctx, &k->b));
    free(k->raw);
    k->raw = NULL;
}

/* Any pointer a copy may use: the host side where there is one, else the device side. */
static void *anyptr(const kbuf_t *k) { return k->b.host ? k->b.host : k->b.device; }

static void test_info(void)
{
    int n = 0;
    OK(gp_device_count(&n));
    for (int d = 0; d < n; d++) {
        gp_device_info_t i;
        OK(gp_device_info(d, &i));
        CHECK(i.name[0] && i.sm_count > 0 && i.cc_major >= 3 && i.warp_size == 32, "device %d: %s", d, i.name);
        CHECK(i.mem_bandwidth_gbs > 100 && i.total_mem_bytes > ((size_t)1 << 30), "bandwidth %g", i.mem_bandwidth_gbs);
        CHECK(i.free_mem_bytes <= i.total_mem_bytes && i.l2_bytes > 0 && i.smem_per_block_optin >= i.smem_per_block,
              "memory fields");
        CHECK(i.max_threads_per_block >= 1024 && i.max_grid_dim[0] > 65535 && i.async_engines >= 1, "limits");
        CHECK(i.driver_version >= i.runtime_version / 1000 * 1000 && i.runtime_version > 0, "versions %d %d",
              i.driver_version, i.runtime_version);
        CHECK(strncmp(i.uuid, "GPU-", 4) == 0, "uuid %s", i.uuid);
        printf("  device %d: %s, sm_%d%d, %d SMs, %.0f GB/s theoretical\n", d, i.name, i.cc_major, i.cc_minor,
               i.sm_count, i.mem_bandwidth_gbs);
    }
    gp_device_info_t i;
    CHECK_ST(gp_device_info(n, &i), GP_ERR_NO_DEVICE);
    gp_ctx_t *c = (gp_ctx_t *)0x1;
    CHECK_ST(gp_ctx_create(&c, n), GP_ERR_NO_DEVICE);
    CHECK(c == (gp_ctx_t *)0x1, "ctx written on error");
    CHECK(strstr(gp_last_error(), "does not exist") != NULL, "detail lost in cleanup: %s", gp_last_error());
}

/* Every (src kind, dst kind) pair, sync and async, at several sizes. */
static void test_copy_matrix(gp_ctx_t *ctx)
{
    static const size_t sizes[] = {0, 1, 4097, (1u << 20) + 3};
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        unsigned char *src = malloc(n + 1), *back = malloc(n + 1);
        REQUIRE(src && back, "host");
        long before = tc_fail;
        for (int a = 0; a < GP_MEM_KIND_COUNT; a++)
            for (int b = 0; b < GP_MEM_KIND_COUNT; b++)
                for (int async = 0; async < 2; async++) {
                    kbuf_t A, B;
                    OK(kalloc(ctx, (gp_mem_kind_t)a, n, &A));
                    OK(kalloc(ctx, (gp_mem_kind_t)b, n, &B));
                    tc_fill(src, n, GP_U8);
                    tc_poison(back, n + 1);
                    OK(gp_memcpy_sync(ctx, anyptr(&A), src, n));
                    OK(gp_memset(ctx, anyptr(&B), 0xee, n, NULL));
                    OK(gp_stream_sync(ctx, NULL));
                    if (async) {
                        OK(gp_memcpy(ctx, anyptr(&B), anyptr(&A), n, s));
                        OK(gp_stream_sync(ctx, s));
                    } else {
                        OK(gp_memcpy_sync(ctx, anyptr(&B), anyptr(&A), n));
                    }
                    OK(gp_memcpy_sync(ctx, back, anyptr(&B), n));
                    CHECK(memcmp(back, src, n) == 0 && back[n] == 0xff, "%s -> %s (%s), %zu bytes",
                          gp_mem_kind_name((gp_mem_kind_t)a), gp_mem_kind_name((gp_mem_kind_t)b),
                          async ? "async" : "sync", n);
                    if (n) CHECK(A.b.bytes == n && A.b.kind == (gp_mem_kind_t)a, "buffer fields");
                    if (n && a != GP_MEM_PAGEABLE) CHECK(A.b.device != NULL, "%s has no device pointer",
                                                         gp_mem_kind_name((gp_mem_kind_t)a));
                    if (n && a != GP_MEM_DEVICE) CHECK(A.b.host != NULL, "host pointer");
                    kfree(ctx, &A);
                    kfree(ctx, &B);
                }
        printf("  copies between all %d x %d kinds, %zu bytes: %s\n", GP_MEM_KIND_COUNT, GP_MEM_KIND_COUNT, n,
               tc_fail == before ? "ok" : "FAILED");
        free(src);
        free(back);
    }
    OK(gp_stream_destroy(ctx, s));
}

/* Kernel copies between device-addressable kinds, with byte offsets that pick each path (16-byte, 4-byte, byte). */
static void test_kernel_copies(gp_ctx_t *ctx)
{
    static const int kinds[] = {GP_MEM_DEVICE, GP_MEM_PINNED, GP_MEM_WRITE_COMBINED, GP_MEM_MAPPED, GP_MEM_MANAGED,
                                GP_MEM_REGISTERED};
    static const size_t offs[][2] = {{0, 0}, {5, 5}, {4, 8}, {1, 3}, {15, 2}};
    const size_t n = (1u << 18) + 7, cap = n + 32;
    unsigned char *src = malloc(cap), *back = malloc(cap);
    long before = tc_fail;
    for (size_t a = 0; a < sizeof kinds / sizeof kinds[0]; a++)
        for (size_t b = 0; b < sizeof kinds / sizeof kinds[0]; b++)
            for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
                kbuf_t A, B;
                OK(kalloc(ctx, (gp_mem_kind_t)kinds[a], cap, &A));
                OK(kalloc(ctx, (gp_mem_kind_t)kinds[b], cap, &B));
                tc_fill(src, cap, GP_U8);
                OK(gp_memcpy_sync(ctx, anyptr(&A), src, cap));
                OK(gp_memset(ctx, B.b.device, 0xff, cap, NULL));
                OK(gp_memcpy_kernel(ctx, (char *)B.b.device + offs[o][1], (char *)A.b.device + offs[o][0], n, NULL));
                OK(gp_stream_sync(ctx, NULL));
                OK(gp_memcpy_sync(ctx, back, anyptr(&B), cap));
                int guards = 1;
                for (size_t i = 0; i < offs[o][1]; i++) guards &= back[i] == 0xff;
                for (size_t i = offs[o][1] + n; i < cap; i++) guards &= back[i] == 0xff;
                CHECK(memcmp(back + offs[o][1], src + offs[o][0], n) == 0 && guards, "kernel copy %s+%zu -> %s+%zu",
                      gp_mem_kind_name((gp_mem_kind_t)kinds[a]), offs[o][0], gp_mem_kind_name((gp_mem_kind_t)kinds[b]),
                      offs[o][1]);
                kfree(ctx, &A);
                kfree(ctx, &B);
            }
    printf("  kernel copies between device-addressable kinds, 5 alignment classes: %s\n",
           tc_fail == before ? "ok" : "FAILED");
    CHECK_ST(gp_memcpy_kernel(ctx, NULL, src, 4, NULL), GP_ERR_INVALID_ARG);
    free(src);
    free(back);
}

static void test_managed(gp_ctx_t *ctx)
{
    gp_device_info_t info;
    OK(gp_device_info(gp_ctx_device(ctx), &info));
    if (!info.concurrent_managed_access) {
        printf("  managed prefetch: not supported by this device\n");
        return;
    }
    const size_t n = (8u << 20) + 5;
    gp_buffer_t m, d;
    OK(gp_mem_alloc(ctx, GP_MEM_MANAGED, n, &m));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n, &d));
    CHECK(m.host == m.device && m.host != NULL, "managed pointers");
    tc_fill(m.host, n, GP_U8);
    OK(gp_mem_advise(ctx, &m, 0, n, GP_ADVISE_READ_MOSTLY));
    OK(gp_mem_advise(ctx, &m, 0, n, GP_ADVISE_UNSET_READ_MOSTLY));
    OK(gp_mem_advise(ctx, &m, 0, n, GP_ADVISE_PREFER_DEVICE));
    OK(gp_mem_advise(ctx, &m, 0, n, GP_ADVISE_ACCESSED_BY_DEVICE));
    OK(gp_mem_prefetch(ctx, &m, 0, n, 0, NULL));
    OK(gp_memcpy_kernel(ctx, d.device, m.device, n, NULL));
    OK(gp_mem_advise(ctx, &m, 0, n, GP_ADVISE_PREFER_CPU));
    OK(gp_mem_prefetch(ctx, &m, 0, n, 1, NULL));
    OK(gp_stream_sync(ctx, NULL));
    unsigned char *back = malloc(n);
    OK(gp_memcpy_sync(ctx, back, d.device, n));
    CHECK(memcmp(back, m.host, n) == 0, "managed -> device after prefetch");
    CHECK_ST(gp_mem_prefetch(ctx, &d, 0, 16, 0, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "device memory, not managed") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_mem_prefetch(ctx, &m, n - 4, 8, 0, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "exceeds") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_mem_advise(ctx, &m, 0, n, (gp_mem_advice_t)99), GP_ERR_INVALID_ARG);
    free(back);
    OK(gp_mem_free(ctx, &m));
    OK(gp_mem_free(ctx, &d));
}

static void test_pitched(gp_ctx_t *ctx)
{
    const size_t w = 1001, h = 37, dd = 5;
    gp_pitched_t p2, p3, q2;
    OK(gp_mem_alloc_2d(ctx, w, h, &p2));
    OK(gp_mem_alloc_2d(ctx, w, h, &q2));
    OK(gp_mem_alloc_3d(ctx, w, h, dd, &p3));
    CHECK(p2.pitch >= w && p2.pitch % 32 == 0 && p3.pitch >= w, "pitch %zu %zu", p2.pitch, p3.pitch);
    unsigned char *src = malloc(w * h * dd), *back = malloc((w + 3) * h * dd);
    tc_fill(src, w * h * dd, GP_U8);
    tc_poison(back, (w + 3) * h * dd);
    OK(gp_memcpy_2d(ctx, p2.ptr, p2.pitch, src, w, w, h, NULL));
    OK(gp_memcpy_2d(ctx, q2.ptr, q2.pitch, p2.ptr, p2.pitch, w, h, NULL)); /* device to device, pitched */
    OK(gp_memcpy_2d(ctx, back, w + 3, q2.ptr, q2.pitch, w, h, NULL));
    OK(gp_stream_sync(ctx, NULL));
    size_t bad = 0;
    for (size_t y = 0; y < h; y++)
        bad += memcmp(back + y * (w + 3), src + y * w, w) != 0 || back[y * (w + 3) + w] != 0xff;
    CHECK(bad == 0, "2D round trip: %zu bad rows", bad);
    tc_poison(back, (w + 3) * h * dd);
    OK(gp_memcpy_3d(ctx, p3.ptr, p3.pitch, h, src, w, h, w, h, dd, NULL));
    OK(gp_memcpy_3d(ctx, back, w, h, p3.ptr, p3.pitch, h, w, h, dd, NULL));
    OK(gp_stream_sync(ctx, NULL));
    CHECK(memcmp(back, src, w * h * dd) == 0, "3D round trip");
    OK(gp_mem_free_pitched(ctx, &p2));
    OK(gp_mem_free_pitched(ctx, &q2));
    OK(gp_mem_free_pitched(ctx, &p3));
    free(src);
    free(back);
}

static void test_errors_and_leaks(gp_ctx_t *ctx)
{
    size_t free0 = 0, free1 = 0, total = 0;
    cudaMemGetInfo(&free0, &total);
    gp_buffer_t b, poison;
    memset(&poison, 0x5a, sizeof poison);
    b = poison;
    CHECK_ST(gp_mem_alloc(ctx, GP_MEM_DEVICE, (size_t)1 << 52, &b), GP_ERR_OUT_OF_MEMORY);
    CHECK(memcmp(&b, &poison, sizeof b) == 0, "buffer written on OOM");
    CHECK(strstr(gp_last_error(), "device memory") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_mem_alloc(ctx, GP_MEM_REGISTERED, 64, &b), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_mem_register(ctx, NULL, 64, &b), GP_ERR_INVALID_ARG);
    CHECK(memcmp(&b, &poison, sizeof b) == 0, "buffer written on error");
    /* The context still works after the failures. */
    for (int r = 0; r < 50; r++) {
        gp_buffer_t t;
        OK(gp_mem_alloc(ctx, (gp_mem_kind_t)(r % 2 ? GP_MEM_DEVICE : GP_MEM_MANAGED), (size_t)(1 + r) << 20, &t));
        OK(gp_mem_free(ctx, &t));
    }
    cudaMemGetInfo(&free1, &total);
    CHECK(free1 + ((size_t)16 << 20) >= free0, "device memory leaked: %zu -> %zu free", free0, free1);
}

static void test_timer_stream(gp_ctx_t *ctx)
{
    gp_timer_t *t = NULL;
    gp_stream_t s = NULL;
    gp_buffer_t b;
    OK(gp_stream_create(ctx, &s));
    CHECK(s != NULL, "stream");
    OK(gp_timer_create(ctx, &t));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (size_t)256 << 20, &b));
    OK(gp_timer_start(t, s));
    OK(gp_memset(ctx, b.device, 1, b.bytes, s));
    OK(gp_timer_stop(t, s));
    double ms = -1;
    OK(gp_timer_elapsed_ms(t, &ms));
    CHECK(ms > 0 && ms < 1000, "memset of 256 MiB took %g ms", ms);
    OK(gp_mem_free(ctx, &b));
    OK(gp_timer_destroy(t));
    OK(gp_stream_destroy(ctx, s));
}

int main(void)
{
    tc_require_gpu("gpu_core");
    tc_seed("gpu_core");
    test_info();
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    CHECK(gp_ctx_device(ctx) == 0, "device");
    test_copy_matrix(ctx);
    test_kernel_copies(ctx);
    test_managed(ctx);
    test_pitched(ctx);
    test_timer_stream(ctx);
    test_errors_and_leaks(ctx);
    /* the loader into device memory (pinned stages), pinned and managed memory (read in place) */
    const gp_mem_kind_t kinds[3] = {GP_MEM_DEVICE, GP_MEM_PINNED, GP_MEM_MANAGED};
    load_cases(ctx, kinds, 3, "/tmp");
    write_cases(ctx, kinds, 3, "/tmp");
    if (!getenv("GP_TEST_QUICK")) load_huge(ctx, GP_MEM_DEVICE, "/tmp");
    OK(gp_ctx_destroy(ctx));
    return tc_finish("gpu_core");
}
