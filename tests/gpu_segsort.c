/*
 * gpu_segsort.c — gp_sort_segmented on the GPU against the CPU backend's bits (test_segsort.c holds those to the
 * reference order): every dtype x random (NaN payloads, ±0, ±inf), few distinct and all-equal keys x the segment mixes
 * (random short ones, every bucket's edge — the warp, group and block tiles and the blocks through global memory —,
 * a power law, one segment with elements outside it), both orders, values of every size, in place and not, a bit
 * range; long segments (a block each to 2^15, then the passes over all of them at once), one past 2^29 (the
 * device-wide sort); the refusals (a decrease, a value past
 * n: named, nothing written). Outputs poisoned first. GP_TEST_QUICK=1: the small sizes (sanitizers);
 * GP_TEST_FILTER=u32,f64: only those dtypes.
 */
#include "sort_common.h"

static const size_t k_vs[] = {0, 4, 16, 8, 1, 2};

static void check(gp_ctx_t *gpu, gp_ctx_t *cpu, gp_dtype_t dt, size_t n, const unsigned char *x, const int64_t *o,
                  size_t nseg, int desc, size_t vs, int inplace, int lo, int hi, const char *what)
{
    const size_t es = gp_dtype_size(dt);
    unsigned char *v = malloc(n * vs + 1), *wy = malloc(n * es + 1), *wv = malloc(n * vs + 1);
    unsigned char *gy = malloc(n * es + 1), *gv = malloc(n * vs + 1);
    for (size_t i = 0; i < n * vs; i++) v[i] = (unsigned char)tc_next();
    const gp_sort_opts_t opts = {desc, lo, hi == 8 * (int)es && lo == 0 ? 0 : hi};
    OK(gp_sort_segmented_sync(cpu, dt, n, x, wy, vs, vs ? v : NULL, vs ? wv : NULL, nseg, o, &opts));
    gp_buffer_t dx, dy, dv, dvy, doff;
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 1, &dx));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * es + 1, &dy));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * vs + 16, &dv));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, n * vs + 16, &dvy));
    OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, (nseg + 1) * 8, &doff));
    OK(gp_memcpy_sync(gpu, dx.device, x, n * es));
    OK(gp_memcpy_sync(gpu, dv.device, v, n * vs));
    OK(gp_memcpy_sync(gpu, doff.device, o, (nseg + 1) * 8));
    void *ky = inplace ? dx.device : dy.device, *vy = inplace ? dv.device : dvy.device;
    if (!inplace) {
        OK(gp_memset(gpu, dy.device, 0xff, n * es + 1, NULL));
        OK(gp_memset(gpu, dvy.device, 0xff, n * vs + 1, NULL));
    }
    OK(gp_sort_segmented_sync(gpu, dt, n, dx.device, ky, vs, vs ? dv.device : NULL, vs ? vy : NULL, nseg,
                              (const int64_t *)doff.device, &opts));
    OK(gp_memcpy_sync(gpu, gy, ky, n * es));
    OK(gp_memcpy_sync(gpu, gv, vy, n * vs));
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (memcmp(gy + i * es, wy + i * es, es) || memcmp(gv + i * vs, wv + i * vs, vs)) first = i;
    CHECK(first == n,
          "%s %s n=%zu (%zu segments) %s values %zu%s bits [%d, %d): differs from the CPU's at element %zu",
          gp_dtype_name(dt), what, n, nseg, desc ? "desc" : "asc", vs, inplace ? " in place" : "", lo, hi, first);
    gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dy), gp_mem_free(gpu, &dv), gp_mem_free(gpu, &dvy);
    gp_mem_free(gpu, &doff);
    free(v), free(wy), free(wv), free(gy), free(gv);
}

/* long segments: n elements in segments of len (the last shorter), with a few short ones between */
static size_t seg_long(int64_t *o, size_t n, size_t len)
{
    size_t k = 0, at = 0;
    o[0] = 0;
    while (at < n) {
        size_t l = k % 5 == 4 ? (size_t)(tc_next() % 300) : len;
        if (l > n - at) l = n - at;
        at += l;
        o[++k] = (int64_t)at;
    }
    return k;
}

int main(void)
{
    tc_require_gpu("gpu_segsort");
    tc_seed("gpu_segsort");
    const int quick = getenv("GP_TEST_QUICK") != NULL;
    const char *filter = getenv("GP_TEST_FILTER");
    gp_ctx_t *gpu = NULL, *cpu = NULL;
    REQUIRE(gp_ctx_create(&gpu, 0) == GP_OK, "GPU context");
    REQUIRE(gp_ctx_create(&cpu, GP_DEVICE_CPU) == GP_OK, "CPU context");
    static const size_t sizes[] = {0, 1, 2, 33, 5000, 300007};
    const size_t maxn = (size_t)3 << 20;
    int64_t *o = malloc((maxn + 2) * sizeof *o);
    for (size_t ti = 0; ti < sizeof k_types / sizeof k_types[0]; ti++) {
        const gp_dtype_t dt = k_types[ti];
        if (filter && !name_listed(filter, gp_dtype_name(dt))) continue;
        const size_t es = gp_dtype_size(dt);
        const int w = 8 * (int)es, integer = !(dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64);
        const long before_fail = tc_fail;
        unsigned char *x = malloc(maxn * es);
        int turn = 0;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if (quick && n > 5000) continue;
            for (int mode = M_RANDOM; mode <= M_EQUAL; mode++) {
                static const char *const names[] = {"random", "few", "equal"};
                if (n > 5000 && mode == M_EQUAL) continue;
                sort_fill(x, n, dt, mode);
                for (int mix = 0; mix < SEG_MIXES; mix++) {
                    const size_t nseg = seg_make(o, n, mix);
                    for (int desc = 0; desc < 2; desc++, turn++)
                        check(gpu, cpu, dt, n, x, o, nseg, desc, k_vs[turn % 6], turn % 3 == 0, 0, w, names[mode]);
                }
                if (integer && mode == M_RANDOM) {
                    const size_t nseg = seg_make(o, n, SEG_EDGES);
                    check(gpu, cpu, dt, n, x, o, nseg, 1, 8, 0, 3, w - 2, "bits");
                }
            }
        }
        { /* blocks through global memory (segments of 9000), passes over tiles (40000) */
            sort_fill(x, 40000, dt, M_RANDOM);
            const size_t nseg = seg_long(o, 40000, 9000);
            check(gpu, cpu, dt, 40000, x, o, nseg, 0, 4, 0, 0, w, "long 9000");
            check(gpu, cpu, dt, 40000, x, o, nseg, 1, 1, 1, 0, w, "long 9000");
            sort_fill(x, 150000, dt, M_RANDOM); /* past 2^15: the passes over every long segment's tiles */
            const size_t nseg2 = seg_long(o, 150000, 40000);
            check(gpu, cpu, dt, 150000, x, o, nseg2, 0, 8, 0, 0, w, "sweep 40000");
            check(gpu, cpu, dt, 150000, x, o, nseg2, 1, 0, 1, 0, w, "sweep 40000");
        }
        if (!quick) { /* more of them, and the device-wide sort (segments of 70001 and 2^20) */
            const size_t n = maxn;
            sort_fill(x, n, dt, M_RANDOM);
            size_t nseg = seg_long(o, (size_t)1 << 20, 9000);
            check(gpu, cpu, dt, (size_t)1 << 20, x, o, nseg, 0, 4, 0, 0, w, "long 9000");
            nseg = seg_long(o, (size_t)1 << 20, 70001);
            check(gpu, cpu, dt, (size_t)1 << 20, x, o, nseg, 1, 16, 1, 0, w, "long 70001");
            nseg = seg_long(o, n, (size_t)1 << 20);
            check(gpu, cpu, dt, n, x, o, nseg, 0, 2, 0, 0, w, "device 2^20");
            check(gpu, cpu, dt, n, x, o, nseg, 1, 0, 1, 0, w, "device 2^20");
            sort_fill(x, n, dt, M_FEW);
            nseg = seg_long(o, (size_t)1 << 20, 20011);
            check(gpu, cpu, dt, (size_t)1 << 20, x, o, nseg, 0, 8, 1, 0, w, "long few");
        }
        printf("  %-5s %s\n", gp_dtype_name(dt), tc_fail == before_fail ? "ok" : "FAILED");
        free(x);
    }
    if (!quick && (!filter || name_listed(filter, "u8"))) { /* a segment past 2^29: the device-wide sort */
        const size_t n = ((size_t)1 << 29) + 3000;
        unsigned char *x = malloc(n);
        sort_fill(x, n, GP_U8, M_RANDOM);
        const int64_t o3[4] = {0, 500, 500 + ((size_t)1 << 29) + 1, (int64_t)n};
        check(gpu, cpu, GP_U8, n, x, o3, 3, 0, 2, 0, 0, 8, "past 2^29");
        free(x);
    }
    /* the refusals: named, nothing written */
    {
        const int64_t bad[2][3] = {{0, 4, 2}, {0, 3, 7}};
        gp_buffer_t dx, dy, doff;
        OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, 24, &dx));
        OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, 24, &dy));
        OK(gp_mem_alloc(gpu, GP_MEM_DEVICE, 24, &doff));
        OK(gp_memset(gpu, dx.device, 1, 24, NULL));
        for (int c = 0; c < 2; c++) {
            OK(gp_memset(gpu, dy.device, 0x77, 24, NULL));
            OK(gp_memcpy_sync(gpu, doff.device, bad[c], 24));
            CHECK_ST(gp_sort_segmented_sync(gpu, GP_F32, 6, dx.device, dy.device, 0, NULL, NULL, 2,
                                            (const int64_t *)doff.device, NULL),
                     GP_ERR_INVALID_ARG);
            CHECK(strstr(gp_last_error(), c ? "offsets[2] = 7" : "offsets[2] = 2") != NULL, "named: %s",
                  gp_last_error());
            unsigned char y[24];
            OK(gp_memcpy_sync(gpu, y, dy.device, 24));
            int same = 1;
            for (int i = 0; i < 24; i++) same &= y[i] == 0x77;
            CHECK(same, "a refused call wrote its output");
        }
        gp_mem_free(gpu, &dx), gp_mem_free(gpu, &dy), gp_mem_free(gpu, &doff);
    }
    free(o);
    free(g_v);
    gp_ctx_destroy(gpu), gp_ctx_destroy(cpu);
    return tc_finish("gpu_segsort");
}
