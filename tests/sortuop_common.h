/*
 * sortuop_common.h — gp_sort_uop cases run on any context (test_sortuop.c: the CPU backend; gpu_sortuop.c: the GPU,
 * and the GPU against the CPU): comparisons checked against a reference stable merge sort of the same order written
 * in C here (integer keys with few distinct values and their places as values, so stability shows; descending; a
 * lexicographic pair; a 24-byte key ordered by one component), NumPy's order spelled as a comparison against
 * gp_sort_pairs' bits (f32 with NaN payloads and signed zeros, f16), values of every size, in place, sizes around
 * the tiles and runs, refusals. su_ctx-independent: results are compared on the host.
 */
#ifndef GP_TESTS_SORTUOP_COMMON_H
#define GP_TESTS_SORTUOP_COMMON_H

#include "common.h"

static gp_uop_t *su_less(gp_ctx_t *ctx, gp_dtype_t dt, int arity, const char *src)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_LESS;
    d.dtype = dt;
    d.arity = arity;
    d.src = src;
    gp_uop_t *op = NULL;
    const gp_status_t st = gp_uop_create(ctx, &d, &op);
    CHECK(st == GP_OK && op, "gp_uop_create less '%s' over %d x %s: %s", src, arity, gp_dtype_name(dt),
          gp_status_string(st));
    return op;
}

/* n values of dt: floats in [-1, 1) (tc_fill) for f32 / f64, random bits for every other dtype (f16 / bf16 NaN
 * and infinities included) */
static void su_fill(void *p, size_t n, gp_dtype_t dt)
{
    if (dt == GP_F32 || dt == GP_F64) {
        tc_fill(p, n, dt);
        return;
    }
    for (size_t i = 0; i < n * gp_dtype_size(dt); i++) ((unsigned char *)p)[i] = (unsigned char)(tc_next() >> 45);
}

/* The reference: a stable top-down merge sort of positions by a C comparison. */
typedef int (*su_cmp_t)(const void *a, const void *b);
static void su_msort(uint64_t *p, uint64_t *t, size_t n, const unsigned char *k, size_t es, su_cmp_t less)
{
    if (n < 2) return;
    const size_t h = n / 2;
    su_msort(p, t, h, k, es, less);
    su_msort(p + h, t, n - h, k, es, less);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) t[o++] = less(k + p[j] * es, k + p[i] * es) ? p[j++] : p[i++];
    while (i < h) t[o++] = p[i++];
    while (j < n) t[o++] = p[j++];
    memcpy(p, t, n * sizeof *p);
}

static int su_lt_u32(const void *a, const void *b) { return *(const uint32_t *)a < *(const uint32_t *)b; }
static int su_gt_i64(const void *a, const void *b) { return *(const int64_t *)a > *(const int64_t *)b; }
static int su_lex_i32(const void *a, const void *b)
{
    const int32_t *x = a, *y = b;
    return x[0] < y[0] || (x[0] == y[0] && x[1] < y[1]);
}
static int su_mid_u64(const void *a, const void *b) { return ((const uint64_t *)a)[1] < ((const uint64_t *)b)[1]; }
static int su_lt_u8(const void *a, const void *b) { return *(const uint8_t *)a < *(const uint8_t *)b; }

/* One sort through the context: keys (es bytes each) and values (vb bytes, 0: none) copied in, sorted (out of
 * place, or in place), copied back into ko / vo. */
static void su_run(gp_ctx_t *ctx, gp_uop_t *op, size_t n, const void *k, size_t es, const void *v, size_t vb,
                   int in_place, void *ko, void *vo)
{
    gp_buffer_t bk, bv, bko, bvo;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 64, &bk));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * vb + 64, &bv));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 64, &bko));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * vb + 64, &bvo));
    if (n) OK(gp_memcpy_sync(ctx, bk.device, k, n * es));
    if (n && vb) OK(gp_memcpy_sync(ctx, bv.device, v, n * vb));
    OK(gp_memset(ctx, bko.device, 0xa5, n * es + 64, NULL)); /* poisoned */
    OK(gp_memset(ctx, bvo.device, 0x5a, n * vb + 64, NULL));
    OK(gp_stream_sync(ctx, NULL));
    void *outk = in_place ? bk.device : bko.device, *outv = in_place ? bv.device : bvo.device;
    OK(gp_sort_uop_sync(ctx, op, n, bk.device, outk, vb, vb ? bv.device : NULL, vb ? outv : NULL));
    if (n) OK(gp_memcpy_sync(ctx, ko, outk, n * es));
    if (n && vb) OK(gp_memcpy_sync(ctx, vo, outv, n * vb));
    if (!in_place) { /* nothing past n written */
        unsigned char tail[64];
        OK(gp_memcpy_sync(ctx, tail, (char *)bko.device + n * es, 64));
        int clean = 1;
        for (int i = 0; i < 64; i++) clean &= tail[i] == 0xa5;
        CHECK(clean, "n = %zu: bytes past the keys written", n);
    }
    gp_mem_free(ctx, &bk);
    gp_mem_free(ctx, &bv);
    gp_mem_free(ctx, &bko);
    gp_mem_free(ctx, &bvo);
}

/* Keys against the reference for one comparison: keys only, with their places (u32 / u64 values), with values of
 * 1, 2, 16 bytes, in place. */
static void su_against_ref(gp_ctx_t *ctx, gp_dtype_t dt, int arity, const char *src, su_cmp_t cmp,
                           const size_t *sizes, size_t nsizes, unsigned distinct)
{
    gp_uop_t *op = su_less(ctx, dt, arity, src);
    if (!op) return;
    const size_t es = (size_t)arity * gp_dtype_size(dt);
    for (size_t si = 0; si < nsizes; si++) {
        const size_t n = sizes[si];
        unsigned char *k = malloc(n * es + 1), *ko = malloc(n * es + 1), *want = malloc(n * es + 1);
        unsigned char *v = malloc(n * 16 + 1), *vo = malloc(n * 16 + 1), *vwant = malloc(n * 16 + 1);
        uint64_t *p = malloc((n + 1) * 8), *t = malloc((n + 1) * 8);
        for (size_t i = 0; i < n * es; i++) k[i] = (unsigned char)(tc_next() >> 40);
        if (distinct) /* few distinct keys: each component's low byte kept small, the rest cleared */
            for (size_t i = 0; i < n * (size_t)arity; i++) {
                const size_t ts = gp_dtype_size(dt);
                memset(k + i * ts, 0, ts);
                k[i * ts] = (unsigned char)(tc_next() % distinct);
            }
        for (size_t i = 0; i < n; i++) p[i] = i;
        su_msort(p, t, n, k, es, cmp);
        for (size_t i = 0; i < n; i++) memcpy(want + i * es, k + p[i] * es, es);
        static const size_t vbs[] = {0, 4, 8, 1, 2, 16};
        for (size_t vi = 0; vi < sizeof vbs / sizeof vbs[0]; vi++) {
            const size_t vb = vbs[vi];
            if (n > 300000 && vb != 0 && vb != 8) continue;
            for (size_t i = 0; i < n * vb; i++) v[i] = (unsigned char)(tc_next() >> 32);
            if (vb == 4)
                for (size_t i = 0; i < n; i++) ((uint32_t *)v)[i] = (uint32_t)i;
            if (vb == 8)
                for (size_t i = 0; i < n; i++) ((uint64_t *)v)[i] = i;
            for (size_t i = 0; i < n; i++) memcpy(vwant + i * vb, v + p[i] * vb, vb);
            const int in_place = vi == 5 || (vb == 0 && n % 2 == 1);
            memset(ko, 0xee, n * es + 1);
            su_run(ctx, op, n, k, es, v, vb, in_place, ko, vo);
            CHECK(memcmp(ko, want, n * es) == 0, "'%s' over %d x %s, n = %zu, values %zu%s: keys differ from the "
                  "reference", src, arity, gp_dtype_name(dt), n, vb, in_place ? " (in place)" : "");
            CHECK(!vb || memcmp(vo, vwant, n * vb) == 0, "'%s' over %d x %s, n = %zu: values of %zu bytes differ "
                  "(stability)", src, arity, gp_dtype_name(dt), n, vb);
        }
        free(k), free(ko), free(want), free(v), free(vo), free(vwant), free(p), free(t);
    }
    gp_uop_destroy(op);
}

/* NumPy's ascending order as a comparison equals gp_sort_pairs' bits (positions as values). */
static void su_numpy_order(gp_ctx_t *ctx, gp_dtype_t dt, const char *src, size_t n)
{
    gp_uop_t *op = su_less(ctx, dt, 1, src);
    if (!op) return;
    const size_t es = gp_dtype_size(dt);
    unsigned char *k = malloc(n * es + 1), *ko = malloc(n * es + 1), *kw = malloc(n * es + 1);
    uint32_t *v = malloc(n * 4 + 4), *vo = malloc(n * 4 + 4), *vw = malloc(n * 4 + 4);
    su_fill(k, n, dt);
    for (size_t i = 0; i < n; i++) { /* NaN payloads of both signs, signed zeros, repeats */
        const uint64_t r = tc_next();
        if (dt == GP_F32 && r % 17 == 0) ((uint32_t *)k)[i] = (r & 1 ? 0xffc00000u : 0x7f800000u) | (uint32_t)(r >> 40) | 1u;
        if (dt == GP_F32 && r % 13 == 0) ((uint32_t *)k)[i] = r & 2 ? 0x80000000u : 0;
        if (dt == GP_F16 && r % 11 == 0) ((uint16_t *)k)[i] = (uint16_t)(r & 4 ? 0x8000u : 0);
        if (i && r % 7 == 0) memcpy(k + i * es, k + (i - 1) * es, es);
        v[i] = (uint32_t)i;
    }
    su_run(ctx, op, n, k, es, v, 4, 0, ko, vo);
    gp_buffer_t bk, bv, bko, bvo;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 16, &bk));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4 + 16, &bv));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 16, &bko));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 4 + 16, &bvo));
    OK(gp_memcpy_sync(ctx, bk.device, k, n * es));
    OK(gp_memcpy_sync(ctx, bv.device, v, n * 4));
    OK(gp_sort_pairs_sync(ctx, dt, n, bk.device, bko.device, 4, bv.device, bvo.device, NULL));
    OK(gp_memcpy_sync(ctx, kw, bko.device, n * es));
    OK(gp_memcpy_sync(ctx, vw, bvo.device, n * 4));
    CHECK(memcmp(ko, kw, n * es) == 0 && memcmp(vo, vw, n * 4) == 0,
          "'%s' over %s, n = %zu: not gp_sort_pairs' bits", src, gp_dtype_name(dt), n);
    gp_mem_free(ctx, &bk), gp_mem_free(ctx, &bv), gp_mem_free(ctx, &bko), gp_mem_free(ctx, &bvo);
    free(k), free(ko), free(kw), free(v), free(vo), free(vw);
    gp_uop_destroy(op);
}

static void su_errors(gp_ctx_t *ctx)
{
    gp_uop_t *lt = su_less(ctx, GP_U32, 1, "a < b");
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = GP_UOP_BINARY;
    d.dtype = GP_U32;
    d.src = "a + b";
    d.identity = "0";
    gp_uop_t *sum = NULL;
    OK(gp_uop_create(ctx, &d, &sum));
    d.kind = GP_UOP_LESS;
    d.arity = 17;
    gp_uop_t *bad = (gp_uop_t *)1;
    CHECK_ST(gp_uop_create(ctx, &d, &bad), GP_ERR_INVALID_ARG);
    CHECK(bad == NULL, "a refused create leaves *op NULL");
    d.arity = 1;
    d.src = "a < c";
    CHECK_ST(gp_uop_create(ctx, &d, &bad), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "less:1:5") != NULL, "the error at less:1:5: %s", gp_last_error());
    if (!lt || !sum) goto out;
    uint32_t h[8] = {5, 3, 9, 1, 7, 2, 8, 4};
    gp_buffer_t b, o;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 64, &b));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 64, &o));
    OK(gp_memcpy_sync(ctx, b.device, h, 32));
    char *p = b.device, *q = o.device;
    CHECK_ST(gp_sort_uop_sync(ctx, NULL, 8, p, q, 0, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_sort_uop_sync(ctx, sum, 8, p, q, 0, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "binary op") != NULL, "names the kind: %s", gp_last_error());
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 8, NULL, q, 0, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 8, p, NULL, 0, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 8, p + 1, q, 0, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 8, p, p + 4, 0, NULL, NULL), GP_ERR_INVALID_ARG); /* overlap */
    CHECK(strstr(gp_last_error(), "overlap") != NULL, "names the overlap: %s", gp_last_error());
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 4, p, q, 3, q + 16, q + 32), GP_ERR_INVALID_ARG); /* value bytes */
    CHECK(strstr(gp_last_error(), "value_bytes") != NULL, "names value_bytes: %s", gp_last_error());
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 4, p, q, 4, NULL, q + 32), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_sort_uop_sync(ctx, lt, 4, p, q, 4, q + 8, q + 32), GP_ERR_INVALID_ARG); /* values on the keys */
    uint32_t back[8];
    OK(gp_memcpy_sync(ctx, back, p, 32));
    CHECK(memcmp(back, h, 32) == 0, "refusals write nothing");
    OK(gp_sort_uop_sync(ctx, lt, 0, NULL, NULL, 0, NULL, NULL));
    OK(gp_sort_uop_sync(ctx, lt, 8, p, p, 0, NULL, NULL));
    OK(gp_memcpy_sync(ctx, back, p, 32));
    CHECK(back[0] == 1 && back[1] == 2 && back[3] == 4 && back[7] == 9, "8 keys in place: %u %u .. %u", back[0],
          back[1], back[7]);
    gp_mem_free(ctx, &b);
    gp_mem_free(ctx, &o);
out:
    gp_uop_destroy(lt);
    gp_uop_destroy(sum);
}

/* Every case; quick: sizes up to a few tiles. */
static void su_all(gp_ctx_t *ctx, int quick)
{
    static const size_t big[] = {0, 1, 2, 7, 16, 17, 255, 4095, 4096, 4097, 8191, 3 * 4096 + 5, 65537, 100003,
                                 (1u << 20) + 13};
    static const size_t small[] = {0, 1, 2, 7, 17, 255, 1000, 4097, 9000};
    const size_t *sz = quick ? small : big;
    const size_t ns = quick ? sizeof small / sizeof small[0] : sizeof big / sizeof big[0];
    su_errors(ctx);
    su_against_ref(ctx, GP_U32, 1, "a < b", su_lt_u32, sz, ns, 0);
    su_against_ref(ctx, GP_U32, 1, "a < b", su_lt_u32, sz, ns, 16);
    su_against_ref(ctx, GP_I64, 1, "{ return a > b; }", su_gt_i64, sz, ns, 40);
    su_against_ref(ctx, GP_I32, 2, "a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])", su_lex_i32, sz, ns, 5);
    su_against_ref(ctx, GP_U64, 3, "a[1] < b[1]", su_mid_u64, sz, ns > 10 ? 10 : ns, 9);
    su_against_ref(ctx, GP_U8, 1, "a < b", su_lt_u8, sz, ns, 0);
    su_numpy_order(ctx, GP_F32, "a < b || (a == a && b != b)", quick ? 5000 : 300001);
    su_numpy_order(ctx, GP_F16, "a < b || (a == a && b != b)", quick ? 3000 : 70001);
}

#endif
