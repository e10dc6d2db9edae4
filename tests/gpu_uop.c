/*
 * gpu_uop.c — user operators on the GPU (NVRTC): the cases of uop_common.h on the device (user ops = the built-ins'
 * bits, maps, transform-reduce, refusals, compile errors at line:column), then GPU == CPU backend bit for bit for
 * ops no built-in has (f16 / bf16 tuples, a 12-byte ordered tuple, a saturating add, a max-by-key), the asynchronous
 * form on a stream into device memory, and (not quick) n > 2^32 u8 elements. Exit 77 without a GPU.
 * GP_TEST_QUICK=1 (compute-sanitizer): small sizes.
 */
#include "uop_common.h"

/* the same op on both contexts, same data: the same bits */
static void same_bits_at(gp_ctx_t *g, gp_ctx_t *c, gp_dtype_t dt, int k, const char *src, const char *id, int comm,
                         size_t n, size_t off)
{
    gp_uop_t *og = uc_make(g, GP_UOP_BINARY, dt, k, 0, src, id, comm);
    gp_uop_t *oc = uc_make(c, GP_UOP_BINARY, dt, k, 0, src, id, comm);
    if (!og || !oc) goto out;
    const size_t eb = (size_t)k * gp_dtype_size(dt), vb = gp_uop_value_bytes(og);
    unsigned char *x = malloc(n * eb + 1);
    if (dt == GP_F16 || dt == GP_BF16) { /* finite normal values of magnitude 2^-2 .. 2^2 */
        for (size_t i = 0; i < n * (size_t)k; i++) {
            const uint64_t r = tc_next();
            const unsigned sign = (unsigned)(r >> 63), e = (unsigned)((r >> 40) % 4);
            ((uint16_t *)x)[i] = dt == GP_F16 ? (uint16_t)(sign << 15 | (13u + e) << 10 | (unsigned)(r & 0x3ff))
                                              : (uint16_t)(sign << 15 | (125u + e) << 7 | (unsigned)(r & 0x7f));
            /* an ordered pair (affine): a = +-(1 +- 8 ulp), so long products neither overflow nor vanish (a NaN's
             * sign and payload are the hardware's own: the GPU's and x86's differ) */
            if (!comm && k == 2 && i % 2 == 0 && dt == GP_F16) /* 1 + k 2^-10 or 1 - k 2^-10: no drift */
                ((uint16_t *)x)[i] = (uint16_t)(sign << 15 | ((r >> 8) & 1 ? 0x3c00u + (unsigned)(r & 7)
                                                                          : 0x3c00u - 2u * (unsigned)(r & 7)));
        }
    } else if (dt == GP_F32) {
        tc_fill(x, n * (size_t)k, GP_F32);
    } else {
        for (size_t i = 0; i < n * eb; i++) x[i] = (unsigned char)(tc_next() >> 56);
    }
    gp_buffer_t b;
    const void *p = uc_put(g, &b, x, n * eb, off);
    unsigned char rg[128], rc[128];
    memset(rg, 0xee, sizeof rg);
    memset(rc, 0xdd, sizeof rc);
    OK(gp_reduce_uop_sync(g, og, n, p, rg));
    OK(gp_reduce_uop_sync(c, oc, n, x, rc));
    CHECK(memcmp(rg, rc, vb) == 0, "'%s' over %d x %s, n = %zu, %zu bytes off: GPU and CPU bits differ", src, k,
          gp_dtype_name(dt), n, off);
    /* asynchronous: into device memory on a stream, twice on two streams: the same bits */
    gp_stream_t s1, s2;
    gp_buffer_t r;
    OK(gp_stream_create(g, &s1));
    OK(gp_stream_create(g, &s2));
    OK(gp_mem_alloc(g, GP_MEM_DEVICE, 2 * 128, &r));
    OK(gp_reduce_uop(g, og, n, p, r.device, s1));
    OK(gp_stream_sync(g, s1));
    OK(gp_reduce_uop(g, og, n, p, (char *)r.device + 128, s2));
    OK(gp_stream_sync(g, s2));
    unsigned char back[256];
    OK(gp_memcpy_sync(g, back, r.device, 256));
    CHECK(memcmp(back, rc, vb) == 0 && memcmp(back + 128, rc, vb) == 0, "'%s': the async results differ", src);
    gp_mem_free(g, &r);
    gp_stream_destroy(g, s1);
    gp_stream_destroy(g, s2);
    gp_mem_free(g, &b);
    free(x);
out:
    gp_uop_destroy(og);
    gp_uop_destroy(oc);
}

static void same_bits(gp_ctx_t *g, gp_ctx_t *c, gp_dtype_t dt, int k, const char *src, const char *id, int comm,
                      size_t n)
{
    same_bits_at(g, c, dt, k, src, id, comm, n, 0);
}

/* a scan on both contexts: the same bits (inclusive and exclusive) */
static void same_scan(gp_ctx_t *g, gp_ctx_t *c, gp_dtype_t dt, int k, const char *src, const char *id, size_t n)
{
    gp_uop_t *og = uc_make(g, GP_UOP_BINARY, dt, k, 0, src, id, 0);
    gp_uop_t *oc = uc_make(c, GP_UOP_BINARY, dt, k, 0, src, id, 0);
    const size_t eb = (size_t)k * gp_dtype_size(dt);
    unsigned char *x = malloc(n * eb + 4), *yc = malloc(n * eb + 4), *yg = malloc(n * eb + 4);
    if (!og || !oc) goto out;
    /* finite data only: a NaN's sign and payload are the hardware's own (the GPU's and x86's differ) */
    for (size_t i = 0; i < n * (size_t)k; i++) {
        const uint64_t r = tc_next();
        if (dt == GP_F16) /* affine pairs: a = 1 +- k 2^-10 (no drift), b in [0.5, 2): x_t stays finite */
            ((uint16_t *)x)[i] = i % 2 == 0 ? (uint16_t)((r >> 8) & 1 ? 0x3c00u + (unsigned)(r & 7)
                                                                      : 0x3c00u - 2u * (unsigned)(r & 7))
                                            : (uint16_t)(0x3800u + (unsigned)(r & 0x7ff));
        else if (dt == GP_F32) ((float *)x)[i] = 0.5f + (float)(r >> 40) * 0x1p-24f;
        else if (gp_dtype_size(dt) == 1) x[i] = (unsigned char)(r >> 56);
        else ((uint32_t *)x)[i] = (uint32_t)r;
    }
    for (int excl = 0; excl < 2; excl++) {
        const gp_scan_kind_t kind = excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE;
        gp_buffer_t bx, by;
        void *px = uc_put(g, &bx, x, n * eb, 0);
        OK(gp_mem_alloc(g, GP_MEM_DEVICE, n * eb + 4, &by));
        OK(gp_scan_uop(g, og, kind, n, px, by.device, NULL));
        OK(gp_stream_sync(g, NULL));
        OK(gp_memcpy_sync(g, yg, by.device, n * eb));
        OK(gp_scan_uop(c, oc, kind, n, x, yc, NULL));
        CHECK(memcmp(yg, yc, n * eb) == 0, "scan '%s' over %d x %s, n = %zu, %s: GPU and CPU bits differ", src, k,
              gp_dtype_name(dt), n, excl ? "exclusive" : "inclusive");
        gp_mem_free(g, &bx);
        gp_mem_free(g, &by);
    }
out:
    free(x), free(yc), free(yg);
    gp_uop_destroy(og);
    gp_uop_destroy(oc);
}

static void test_gpu_vs_cpu(gp_ctx_t *g, gp_ctx_t *c, int quick)
{
    const size_t sizes[] = {1, 3, 4095, 65536, 65537, 1000003, 20000001};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        const size_t n = sizes[si];
        if (quick && n > 70000) continue;
        same_bits(g, c, GP_F16, 1, "a + b", "0.0f", 1, n);
        same_bits(g, c, GP_BF16, 2, "r[0] = a[0] + b[0]; r[1] = fmaxf(a[1], b[1]);", "0, -INFINITY", 1, n);
        same_bits(g, c, GP_F32, 3, "r[0] = a[0] * b[0];\nr[1] = a[1] * b[0] + b[1];\nr[2] = a[2] + b[2] * a[0];",
                  "1, 0, 0", 0, n / 3 + 1);
        same_bits(g, c, GP_I16, 1, "{ int s = a + b; return s > 32767 ? 32767 : s < -32768 ? -32768 : s; }", "0", 1,
                  n);
        /* max-by-key over (key, value) u32 pairs: the larger key, ties to the smaller value */
        same_bits(g, c, GP_U32, 2,
                  "if (a[0] > b[0] || (a[0] == b[0] && a[1] <= b[1])) { r[0] = a[0]; r[1] = a[1]; }\n"
                  "else { r[0] = b[0]; r[1] = b[1]; }", "0, 0xffffffffu", 1, n);
        same_bits(g, c, GP_F32, 1, "a * a + b", "0.0f", 0, n); /* not associative: ordered tree, no FMA on either side */
        /* the ordered tree's staging paths: 16-byte aligned (vectors), 4-byte aligned (words), neither (direct) */
        static const char *aff = "r[0] = b[0] * a[0]; r[1] = b[0] * a[1] + b[1];";
        same_bits_at(g, c, GP_F32, 2, aff, "1, 0", 0, n, 4);
        same_bits_at(g, c, GP_F16, 2, aff, "1, 0", 0, n, 0);
        same_bits_at(g, c, GP_F16, 2, aff, "1, 0", 0, n, 2);
        static const char *u8m = "for (int i = 0; i < 4; i++) r[i] = (unsigned char)(a[i] * 3 + b[(i + 1) % 4]);";
        same_bits_at(g, c, GP_U8, 4, u8m, "0, 0, 0, 0", 0, n, 0);
        same_bits_at(g, c, GP_U8, 4, u8m, "0, 0, 0, 0", 0, n, 1);
        same_bits_at(g, c, GP_U16, 3, "r[0] = a[0] + b[0]; r[1] = a[1] ^ b[2]; r[2] = a[2] - b[1];", "0, 0, 0", 0, n, 0);
        same_scan(g, c, GP_U8, 4, u8m, "0, 0, 0, 0", n);
        same_scan(g, c, GP_F32, 1, "a * b + 0.25f * b", "1", n);
        same_scan(g, c, GP_F32, 3, "r[0] = a[0] * b[0]; r[1] = a[1] * b[0] + b[1]; r[2] = fmaxf(a[2], b[2]);",
                  "1, 0, -INFINITY", n);
    }
}

/* n > 2^32: u8 xor through a user op = gp_reduce's */
static void test_huge(gp_ctx_t *g)
{
    const size_t n = ((size_t)1 << 32) + 4099;
    gp_buffer_t b;
    if (gp_mem_alloc(g, GP_MEM_DEVICE, n, &b) != GP_OK) {
        printf("gpu_uop: n > 2^32 SKIPPED: %s\n", gp_last_error());
        return;
    }
    unsigned char *chunk = malloc((size_t)1 << 26);
    for (size_t i = 0; i < ((size_t)1 << 26); i++) chunk[i] = (unsigned char)(tc_next() >> 56);
    for (size_t o = 0; o < n; o += (size_t)1 << 26) {
        const size_t m = n - o < ((size_t)1 << 26) ? n - o : ((size_t)1 << 26);
        chunk[o % 251] ^= (unsigned char)o; /* not periodic */
        OK(gp_memcpy_sync(g, (char *)b.device + o, chunk, m));
    }
    gp_uop_t *x = uc_make(g, GP_UOP_BINARY, GP_U8, 1, 0, "a ^ b", "0", 1);
    gp_uop_t *s = uc_make(g, GP_UOP_BINARY, GP_U16, 1, 0, "a + b", "0", 1);
    unsigned char got = 0;
    uint16_t gs = 0;
    gp_reduce_result_t ref, refs;
    OK(gp_reduce_uop_sync(g, x, n, b.device, &got));
    OK(gp_reduce_sync(g, GP_REDUCE_XOR, GP_U8, n, b.device, &ref));
    CHECK(got == (unsigned char)ref.value.u64, "u8 xor n = 2^32 + 4099: %u vs %u", got, (unsigned)ref.value.u64);
    OK(gp_reduce_uop_sync(g, s, n / 2, b.device, &gs)); /* u16 wrapping sum = the u64 sum mod 2^16 */
    OK(gp_reduce_sync(g, GP_REDUCE_SUM, GP_U16, n / 2, b.device, &refs));
    CHECK(gs == (uint16_t)refs.value.u64, "u16 sum mod 2^16, n = 2^31 + 2049: %u vs %u", gs, (unsigned)(uint16_t)refs.value.u64);
    printf("gpu_uop: n > 2^32 (u8 xor) and n > 2^31 (u16 sum) checked\n");
    gp_uop_destroy(x);
    gp_uop_destroy(s);
    free(chunk);
    gp_mem_free(g, &b);
}

int main(void)
{
    tc_require_gpu("gpu_uop");
    tc_seed("gpu_uop");
    const int quick = getenv("GP_TEST_QUICK") != NULL;
    gp_ctx_t *g, *c;
    REQUIRE(gp_ctx_create(&g, 0) == GP_OK, "GPU context");
    REQUIRE(gp_ctx_create(&c, GP_DEVICE_CPU) == GP_OK, "CPU context");
    uc_errors(g);
    printf("gpu_uop: errors ok\n");
    uc_reduce_builtin(g, quick);
    printf("gpu_uop: built-in bits ok\n");
    uc_reduce_ordered(g, quick);
    printf("gpu_uop: ordered ok\n");
    uc_maps(g, quick);
    printf("gpu_uop: maps, transform-reduce ok\n");
    uc_scans(g, quick);
    printf("gpu_uop: scans ok\n");
    uc_select(g, quick);
    printf("gpu_uop: select_if ok\n");
    uc_segmented(g, quick);
    printf("gpu_uop: segmented ok\n");
    test_gpu_vs_cpu(g, c, quick);
    printf("gpu_uop: GPU == CPU ok\n");
    if (!quick) test_huge(g);
    gp_ctx_destroy(c);
    gp_ctx_destroy(g);
    return tc_finish("gpu_uop");
}
