/*
 * test_core.c — CPU tests of the core API: version, status strings and details, dtypes, contexts (the CPU backend,
 * and a GPU context where there is none), memory on the CPU backend (kinds, pitched 2D/3D, copies), timers, and the
 * error paths: NULL, bad kind, overflow, out of memory — the right status, a message, nothing written.
 * Run: ctest -R test_core (or build/tests/test_core).
 */
#include "common.h"

static void test_version_status(void)
{
    CHECK(gp_version() == GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH, "%d", gp_version());
    for (int s = GP_OK; s <= GP_ERR_USER_TRAP; s++)
        CHECK(strcmp(gp_status_string((gp_status_t)s), "unknown status") != 0, "status %d has no name", s);
    CHECK(strcmp(gp_status_string((gp_status_t)999), "unknown status") == 0, "999");
}

static void test_dtypes(void)
{
    static const size_t sizes[GP_DTYPE_COUNT] = {1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};
    for (int d = 0; d < GP_DTYPE_COUNT; d++) {
        gp_dtype_t back;
        CHECK(gp_dtype_size((gp_dtype_t)d) == sizes[d], "dtype %d", d);
        OK(gp_dtype_parse(gp_dtype_name((gp_dtype_t)d), &back));
        CHECK(back == (gp_dtype_t)d, "%s parsed as %d", gp_dtype_name((gp_dtype_t)d), (int)back);
    }
    CHECK(gp_dtype_size((gp_dtype_t)GP_DTYPE_COUNT) == 0, "invalid size");
    gp_dtype_t d = GP_U8;
    OK(gp_dtype_parse("float32", &d));
    CHECK(d == GP_F32, "alias");
    d = GP_U16;
    CHECK_ST(gp_dtype_parse("f33", &d), GP_ERR_INVALID_ARG);
    CHECK(d == GP_U16, "output written on error");
    CHECK(strstr(gp_last_error(), "f33") != NULL, "detail names the input: %s", gp_last_error());
    CHECK_ST(gp_dtype_parse(NULL, &d), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "name") != NULL, "detail names the argument: %s", gp_last_error());
    /* NumPy's spellings: names, np. prefixes, type strings with a byte order, one-character codes */
    static const struct { const char *s; gp_dtype_t d; } np_names[] = {
        {"f4", GP_F32}, {"<f4", GP_F32}, {"=f8", GP_F64}, {"|u1", GP_U8}, {"<i8", GP_I64}, {"<u8", GP_U64},
        {"<f2", GP_F16}, {"i2", GP_I16}, {"u4", GP_U32}, {"np.float32", GP_F32}, {"numpy.int16", GP_I16},
        {"float64", GP_F64}, {"double", GP_F64}, {"single", GP_F32}, {"f", GP_F32}, {"d", GP_F64}, {"B", GP_U8},
        {"i8", GP_I8}, {"u8", GP_U8}, /* gpuprim's own 8-bit names win over NumPy's 8-byte 'i8' */
    };
    for (size_t k = 0; k < sizeof np_names / sizeof np_names[0]; k++) {
        d = GP_BF16;
        OK(gp_dtype_parse(np_names[k].s, &d));
        CHECK(d == np_names[k].d, "'%s' parsed as %s", np_names[k].s, gp_dtype_name(d));
    }
    static const char *const refused[] = {"f3", "<f", "f 4", "f+4", "<f4 ", "np.f33", "", "f44", "<c8", "i16x"};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        d = GP_BF16;
        CHECK(gp_dtype_parse(refused[k], &d) == GP_ERR_INVALID_ARG && d == GP_BF16, "'%s' accepted", refused[k]);
    }
    CHECK_ST(gp_dtype_parse(">f4", &d), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "big-endian") != NULL, "big-endian detail: %s", gp_last_error());
}

static void test_contexts(void)
{
    gp_ctx_t *ctx = (gp_ctx_t *)0x1;
    CHECK_ST(gp_ctx_create(NULL, GP_DEVICE_CPU), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_ctx_create(&ctx, -7), GP_ERR_INVALID_ARG);
    CHECK(ctx == (gp_ctx_t *)0x1, "ctx written on error");
    CHECK(strstr(gp_last_error(), "-7") != NULL, "%s", gp_last_error());
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    CHECK(gp_ctx_device(ctx) == GP_DEVICE_CPU, "device %d", gp_ctx_device(ctx));
    gp_stream_t s = (gp_stream_t)0x1;
    OK(gp_stream_create(ctx, &s));
    CHECK(s == NULL, "CPU stream must be NULL");
    OK(gp_stream_sync(ctx, s));
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    OK(gp_ctx_destroy(NULL));

    /* Without a GPU: count 0, a status naming the cause, and GPU contexts refused. With one: consistent. */
    int n = -1;
    gp_status_t st = gp_device_count(&n);
    if (st == GP_OK) {
        CHECK(n > 0, "count %d", n);
    } else {
        CHECK(st == GP_ERR_NO_DEVICE || st == GP_ERR_NO_DRIVER, "status %s", gp_status_string(st));
        CHECK(n == 0, "count %d", n);
        CHECK(strlen(gp_last_error()) > 10, "detail '%s'", gp_last_error());
        gp_ctx_t *g = (gp_ctx_t *)0x1;
        CHECK_ST(gp_ctx_create(&g, 0), st);
        CHECK(g == (gp_ctx_t *)0x1, "ctx written on error");
        gp_device_info_t info;
        memset(&info, 0x5a, sizeof info);
        CHECK_ST(gp_device_info(0, &info), st);
        CHECK(((unsigned char *)&info)[0] == 0x5a, "info written on error");
    }
    gp_cpu_info_t c;
    OK(gp_cpu_info(&c));
    CHECK(c.logical_cores >= 1 && c.omp_max_threads >= 1 && c.total_mem_bytes > 0, "cores %d mem %zu",
          c.logical_cores, c.total_mem_bytes);
    CHECK_ST(gp_cpu_info(NULL), GP_ERR_INVALID_ARG);
}

static void test_memory_cpu(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    gp_buffer_t b, poison;
    memset(&poison, 0x5a, sizeof poison);

    /* Kinds a CPU context does not have: UNSUPPORTED, buffer untouched, message names the kind. */
    for (int k = GP_MEM_PINNED; k < GP_MEM_KIND_COUNT; k++) {
        b = poison;
        CHECK(gp_mem_alloc(ctx, (gp_mem_kind_t)k, 64, &b) != GP_OK, "kind %s", gp_mem_kind_name((gp_mem_kind_t)k));
        CHECK(memcmp(&b, &poison, sizeof b) == 0, "buffer written on error (%s)", gp_mem_kind_name((gp_mem_kind_t)k));
    }
    b = poison;
    CHECK_ST(gp_mem_alloc(ctx, GP_MEM_PINNED, 64, &b), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "pinned") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_mem_alloc(ctx, (gp_mem_kind_t)42, 64, &b), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "kind") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_mem_alloc(ctx, GP_MEM_DEVICE, 64, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_mem_alloc(NULL, GP_MEM_DEVICE, 64, &b), GP_ERR_INVALID_ARG);
    CHECK(memcmp(&b, &poison, sizeof b) == 0, "buffer written on error");
    /* Out of memory: 2^60 bytes. */
    CHECK_ST(gp_mem_alloc(ctx, GP_MEM_DEVICE, (size_t)1 << 60, &b), GP_ERR_OUT_OF_MEMORY);
    CHECK(memcmp(&b, &poison, sizeof b) == 0, "buffer written on OOM");
    CHECK(strstr(gp_last_error(), "bytes") != NULL, "%s", gp_last_error());

    /* Zero bytes: a valid, empty buffer that frees. */
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 0, &b));
    CHECK(b.host == NULL && b.device == NULL && b.bytes == 0, "empty buffer");
    OK(gp_mem_free(ctx, &b));

    /* Copies, memset, kernel copy (the CPU backend does them with memmove) at odd sizes and offsets. */
    const size_t n = 100003;
    gp_buffer_t a, c;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n + 16, &a));
    OK(gp_mem_alloc(ctx, GP_MEM_PAGEABLE, n + 16, &c));
    REQUIRE(a.host && a.device == a.host && c.host, "CPU buffers are host memory");
    CHECK(((uintptr_t)a.host & 63) == 0, "64-byte aligned");
    tc_fill(a.host, n + 16, GP_U8);
    tc_poison(c.host, n + 16);
    OK(gp_memcpy(ctx, (char *)c.host + 3, (char *)a.host + 1, n, NULL));
    CHECK(memcmp((char *)c.host + 3, (char *)a.host + 1, n) == 0, "gp_memcpy");
    CHECK(((unsigned char *)c.host)[2] == 0xff && ((unsigned char *)c.host)[n + 3] == 0xff, "outside written");
    tc_poison(c.host, n + 16);
    OK(gp_memcpy_kernel(ctx, c.host, a.host, n, NULL));
    CHECK(memcmp(c.host, a.host, n) == 0, "gp_memcpy_kernel");
    OK(gp_memcpy_sync(ctx, c.host, a.host, 0));
    OK(gp_memset(ctx, c.host, 7, 5, NULL));
    CHECK(((unsigned char *)c.host)[4] == 7 && ((unsigned char *)c.host)[5] == ((unsigned char *)a.host)[5],
          "memset");
    CHECK_ST(gp_memcpy(ctx, NULL, a.host, 4, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "dst") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_memcpy_sync(ctx, c.host, NULL, 4), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "src") != NULL, "%s", gp_last_error());
    OK(gp_memcpy(ctx, NULL, NULL, 0, NULL)); /* nothing to copy */

    /* Managed-only calls refuse CPU contexts and non-managed buffers. */
    CHECK_ST(gp_mem_prefetch(ctx, &a, 0, 16, 0, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_mem_advise(ctx, &a, 0, 16, GP_ADVISE_READ_MOSTLY), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_mem_register(ctx, c.host, 64, &b), GP_ERR_UNSUPPORTED);

    /* A buffer of another device is refused by free. */
    gp_buffer_t other = a;
    other.device_id = 3;
    CHECK_ST(gp_mem_free(ctx, &other), GP_ERR_INVALID_ARG);
    OK(gp_mem_free(ctx, &a));
    CHECK(a.host == NULL && a.bytes == 0, "free zeroes");
    OK(gp_mem_free(ctx, &a)); /* twice is harmless */
    OK(gp_mem_free(ctx, &c));
    gp_ctx_destroy(ctx);
}

static void test_pitched_cpu(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    const size_t w = 1001, h = 37, d = 5;
    gp_pitched_t p2, p3;
    OK(gp_mem_alloc_2d(ctx, w, h, &p2));
    CHECK(p2.pitch >= w && p2.pitch % 64 == 0 && p2.depth == 1, "pitch %zu", p2.pitch);
    OK(gp_mem_alloc_3d(ctx, w, h, d, &p3));
    CHECK(p3.pitch >= w && p3.depth == d, "3d");
    unsigned char *src = malloc(w * h * d), *dst = malloc((w + 5) * h * d);
    REQUIRE(src && dst, "host");
    tc_fill(src, w * h * d, GP_U8);
    tc_poison(dst, (w + 5) * h * d);
    OK(gp_memcpy_2d(ctx, p2.ptr, p2.pitch, src, w, w, h, NULL));
    OK(gp_memcpy_2d(ctx, dst, w + 5, p2.ptr, p2.pitch, w, h, NULL));
    size_t bad = 0;
    for (size_t y = 0; y < h; y++) {
        bad += memcmp(dst + y * (w + 5), src + y * w, w) != 0;
        bad += dst[y * (w + 5) + w] != 0xff; /* the 5 padding bytes stay untouched */
    }
    CHECK(bad == 0, "2D round trip: %zu bad rows", bad);
    tc_poison(dst, (w + 5) * h * d);
    OK(gp_memcpy_3d(ctx, p3.ptr, p3.pitch, h, src, w, h, w, h, d, NULL));
    OK(gp_memcpy_3d(ctx, dst, w, h, p3.ptr, p3.pitch, h, w, h, d, NULL));
    CHECK(memcmp(dst, src, w * h * d) == 0, "3D round trip");
    CHECK_ST(gp_memcpy_2d(ctx, dst, w - 1, src, w, w, h, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "pitch") != NULL, "%s", gp_last_error());
    gp_pitched_t q;
    memset(&q, 0x5a, sizeof q);
    CHECK_ST(gp_mem_alloc_3d(ctx, (size_t)1 << 40, (size_t)1 << 20, (size_t)1 << 10, &q), GP_ERR_OVERFLOW);
    CHECK(((unsigned char *)&q)[0] == 0x5a, "written on overflow");
    OK(gp_mem_free_pitched(ctx, &p2));
    OK(gp_mem_free_pitched(ctx, &p3));
    free(src);
    free(dst);
    gp_ctx_destroy(ctx);
}

static void test_timer_cpu(void)
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "cpu ctx");
    gp_timer_t *t = NULL;
    OK(gp_timer_create(ctx, &t));
    OK(gp_timer_start(t, NULL));
    volatile double x = 0;
    for (int i = 0; i < 1000000; i++) x += i * 0.5;
    OK(gp_timer_stop(t, NULL));
    double ms = -1;
    OK(gp_timer_elapsed_ms(t, &ms));
    CHECK(ms > 0 && ms < 10000, "ms %g", ms);
    CHECK_ST(gp_timer_elapsed_ms(t, NULL), GP_ERR_INVALID_ARG);
    OK(gp_timer_destroy(t));
    /* a timer never started, or started and not stopped, has no elapsed time */
    OK(gp_timer_create(ctx, &t));
    ms = -7;
    CHECK_ST(gp_timer_elapsed_ms(t, &ms), GP_ERR_INVALID_ARG);
    CHECK(ms == -7 && strstr(gp_last_error(), "never started") != NULL, "unstarted timer: %s", gp_last_error());
    CHECK_ST(gp_timer_stop(t, NULL), GP_ERR_INVALID_ARG);
    OK(gp_timer_start(t, NULL));
    CHECK_ST(gp_timer_elapsed_ms(t, &ms), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "not stopped") != NULL, "unstopped timer: %s", gp_last_error());
    OK(gp_timer_stop(t, NULL));
    OK(gp_timer_elapsed_ms(t, &ms));
    OK(gp_timer_destroy(t));
    /* a buffer of no gp_mem_kind_t is refused even when its pointers are NULL; gp_memcpy_2d names itself */
    gp_buffer_t bogus;
    memset(&bogus, 0, sizeof bogus);
    bogus.kind = (gp_mem_kind_t)42;
    CHECK_ST(gp_mem_free(ctx, &bogus), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "kind") != NULL, "kind 42: %s", gp_last_error());
    char a[8], b[8];
    CHECK_ST(gp_memcpy_2d(ctx, a, 2, b, 8, 4, 2, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "gp_memcpy_2d") != NULL, "2d copy names itself: %s", gp_last_error());
    /* GP_DEVICE_DEFAULT: a context on GPU 0 or, with the reason kept, on the CPU backend */
    gp_ctx_t *dflt = NULL;
    OK(gp_ctx_create(&dflt, GP_DEVICE_DEFAULT));
    int ngpu = 0;
    const int have_gpu = gp_device_count(&ngpu) == GP_OK && ngpu > 0;
    CHECK(gp_ctx_device(dflt) == (have_gpu ? 0 : GP_DEVICE_CPU), "default context on %d", gp_ctx_device(dflt));
    CHECK(have_gpu ? gp_ctx_fallback_reason(dflt)[0] == 0 : gp_ctx_fallback_reason(dflt)[0] != 0,
          "fallback reason '%s'", gp_ctx_fallback_reason(dflt));
    gp_ctx_destroy(dflt);
    OK(gp_timer_destroy(NULL));
    gp_ctx_destroy(ctx);
}

/* Graphs on the CPU backend: there is nothing to capture (each call runs when it is made), said plainly; the other
 * graph calls refuse what they were not given. */
static void test_graph_cpu(void)
{
    gp_ctx_t *ctx = NULL;
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    CHECK_ST(gp_graph_begin(ctx, NULL), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "gp_graph_begin") && strstr(gp_last_error(), "CPU"), "says why: %s", gp_last_error());
    gp_graph_t *g = (gp_graph_t *)&g;
    CHECK_ST(gp_graph_end(ctx, &g), GP_ERR_INVALID_ARG);
    CHECK(g == NULL, "end without a capture gives no graph");
    CHECK_ST(gp_graph_end(ctx, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_graph_begin(NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_graph_launch(NULL, NULL), GP_ERR_INVALID_ARG);
    OK(gp_graph_destroy(NULL));
    /* the persisting-L2 window: checked arguments, nothing to do on the CPU */
    float x[3] = {1, 2, 3};
    CHECK_ST(gp_ctx_set_persisting_l2(ctx, x, sizeof x, 1.5, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_ctx_set_persisting_l2(ctx, x, sizeof x, NAN, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_ctx_set_persisting_l2(ctx, NULL, 64, 1.0, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_ctx_set_persisting_l2(NULL, x, sizeof x, 1.0, NULL), GP_ERR_INVALID_ARG);
    OK(gp_ctx_set_persisting_l2(ctx, x, sizeof x, 0.6, NULL));
    OK(gp_ctx_set_persisting_l2(ctx, NULL, 0, 0.0, NULL));
    /* the context still works */
    gp_reduce_result_t r;
    OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, 3, x, &r));
    CHECK(r.value.f32 == 6.0f, "sum after the refusals: %g", (double)r.value.f32);
    OK(gp_ctx_destroy(ctx));
}

int main(void)
{
    tc_seed("test_core");
    test_graph_cpu();
    test_version_status();
    test_dtypes();
    test_contexts();
    test_memory_cpu();
    test_pitched_cpu();
    test_timer_cpu();
    return tc_finish("test_core");
}
