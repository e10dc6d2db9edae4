/*
 * uop_common.h — user-operator cases run on any context (test_uop.c: the CPU backend; gpu_uop.c: the GPU, and the GPU
 * against the CPU): user ops that are built-in ops give the built-in's bits (sum f32 / f64 / i32 -> wrapping at the
 * type, xor u8, max f32, the ordered affine and mat2), maps against a C loop, transform-reduce against reduce of the
 * map's output, segmented reductions (the built-in segmented bits, exact tuples, ordered products against the serial
 * fold with overlapping offsets, each segment = gp_reduce_uop of it alone), sizes 0, 1, odd, tile edges. uc_ctx is the context under test; results are compared on the host.
 */
#ifndef GP_TESTS_UOP_COMMON_H
#define GP_TESTS_UOP_COMMON_H

#include "common.h"

#include "reduce/reduce_internal.h"

static gp_uop_t *uc_make(gp_ctx_t *ctx, gp_uop_kind_t kind, gp_dtype_t dt, int arity, gp_dtype_t out,
                         const char *src, const char *id, int comm)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    d.dtype = dt;
    d.arity = arity;
    d.out_dtype = out;
    d.src = src;
    d.identity = id;
    d.commutative = comm;
    gp_uop_t *op = NULL;
    gp_status_t st = gp_uop_create(ctx, &d, &op);
    CHECK(st == GP_OK && op, "gp_uop_create '%s' over %s: %s", src, gp_dtype_name(dt), gp_status_string(st));
    return op;
}

/* x (host) copied to a fresh buffer of the context (+ off bytes of misalignment); returns its pointer */
static void *uc_put(gp_ctx_t *ctx, gp_buffer_t *b, const void *x, size_t bytes, size_t off)
{
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, bytes + 64, b));
    char *p = (char *)b->device + off;
    if (bytes) OK(gp_memcpy_sync(ctx, p, x, bytes));
    return p;
}

/* User ops that spell a built-in op (and its identity); seg: also checked against gp_reduce_segmented. */
static const struct uc_builtin {
    gp_dtype_t dt;
    const char *src, *id;
    gp_reduce_op_t op;
    int seg;
} uc_builtins[] = {
    {GP_F32, "a + b", "-0.0f", GP_REDUCE_SUM, 1},
    {GP_F64, "a + b", "-0.0", GP_REDUCE_SUM, 1},
    {GP_F32, "a * b", "1.0f", GP_REDUCE_PROD, 0},
    {GP_I64, "a + b", "0", GP_REDUCE_SUM, 0},
    {GP_U8, "a ^ b", "0", GP_REDUCE_XOR, 1},
    {GP_I32, "a > b ? a : b", "-2147483647 - 1", GP_REDUCE_MAX, 1},
    {GP_F32, "b > a ? b : a", "-INFINITY", GP_REDUCE_MAX, 0},
    {GP_F64, "{ if (b < a) return b; return a; }", "INFINITY", GP_REDUCE_MIN, 0},
};
#define UC_NBUILTINS (sizeof uc_builtins / sizeof uc_builtins[0])

/* The built-ins' bits through user ops, over sizes around the tile. */
static void uc_reduce_builtin(gp_ctx_t *ctx, int quick)
{
    const struct uc_builtin *cs = uc_builtins;
    for (size_t c = 0; c < UC_NBUILTINS; c++) {
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, cs[c].dt, 1, 0, cs[c].src, cs[c].id, 1);
        if (!op) continue;
        const size_t es = gp_dtype_size(cs[c].dt), tile = 65536 / es;
        const size_t sizes[] = {0, 1, 2, 7, 255, 4097, tile - 1, tile, tile + 1, 3 * tile + 5, 4096 * tile + 77};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if (quick && n > 4 * tile) continue;
            unsigned char *x = malloc(n * es + 16);
            tc_fill(x, n, cs[c].dt);
            if (cs[c].op == GP_REDUCE_PROD)
                for (size_t i = 0; i < n; i++) ((float *)x)[i] = 1.0f + ((float *)x)[i] * 1e-4f;
            gp_buffer_t b;
            for (size_t off = 0; off < (n > 1 ? 2u : 1u); off++) {
                const void *p = uc_put(ctx, &b, x, n * es, off * es);
                unsigned char got[16];
                memset(got, 0xff, sizeof got);
                gp_reduce_result_t ref;
                OK(gp_uop_value_bytes(op) == es ? GP_OK : GP_ERR_INTERNAL);
                OK(gp_reduce_uop_sync(ctx, op, n, p, got));
                OK(gp_reduce_sync(ctx, cs[c].op, cs[c].dt, n, p, &ref));
                int same;
                if (n == 0) { /* the user's identity; the built-in's sum of nothing is +0 (ours -0.0): by value */
                    same = cs[c].dt == GP_F32   ? *(float *)got == ref.value.f32
                           : cs[c].dt == GP_F64 ? *(double *)got == ref.value.f64
                           : cs[c].dt == GP_U8  ? got[0] == (unsigned char)ref.value.u64
                           : cs[c].dt == GP_I32 ? (int64_t) * (int32_t *)got == ref.value.i64
                                                : *(int64_t *)got == ref.value.i64;
                } else if (cs[c].dt == GP_F32) {
                    same = memcmp(got, &ref.value.f32, 4) == 0;
                } else if (cs[c].dt == GP_F64) {
                    same = memcmp(got, &ref.value.f64, 8) == 0;
                } else if (cs[c].dt == GP_I64) {
                    same = memcmp(got, &ref.value.i64, 8) == 0;
                } else if (cs[c].dt == GP_U8) {
                    same = got[0] == (unsigned char)ref.value.u64;
                } else { /* i32 max */
                    int32_t g;
                    memcpy(&g, got, 4);
                    same = (int64_t)g == ref.value.i64;
                }
                CHECK(same, "user '%s' %s n=%zu off=%zu: not the built-in %s's bits", cs[c].src,
                      gp_dtype_name(cs[c].dt), n, off, gp_reduce_op_name(cs[c].op));
                gp_mem_free(ctx, &b);
            }
            free(x);
        }
        gp_uop_destroy(op);
    }
}

/* Ordered user ops = gp_reduce_ordered (affine f32 / f64, mat2 f32, mat3 u32). */
static void uc_reduce_ordered(gp_ctx_t *ctx, int quick)
{
    static const char *aff = "r[0] = b[0] * a[0]; r[1] = b[0] * a[1] + b[1];";
    static const char *m2 = "for (int i = 0; i < 2; i++)\n  for (int j = 0; j < 2; j++)\n"
                            "    r[2*i+j] = a[2*i] * b[j] + a[2*i+1] * b[2+j];";
    static const char *m3 = "for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++)\n"
                            "  r[3*i+j] = a[3*i] * b[j] + a[3*i+1] * b[3+j] + a[3*i+2] * b[6+j];";
    struct {
        gp_ordered_op_t op;
        gp_dtype_t dt;
        int k;
        const char *src, *id;
    } cs[] = {
        {GP_ORDERED_AFFINE, GP_F32, 2, aff, "1.0f, 0.0f"},
        {GP_ORDERED_AFFINE, GP_F64, 2, aff, "1, 0"},
        {GP_ORDERED_MAT2, GP_F32, 4, m2, "1, 0, 0, 1"},
        {GP_ORDERED_MAT3, GP_U32, 9, m3, "1, 0, 0,\n 0, 1, 0,\n 0, 0, 1"},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, cs[c].dt, cs[c].k, 0, cs[c].src, cs[c].id, 0);
        if (!op) continue;
        const size_t eb = (size_t)cs[c].k * gp_dtype_size(cs[c].dt), R = 256 / eb, t = 256 * (R ? R : 1);
        const size_t sizes[] = {1, 2, 33, t - 1, t, t + 1, 5 * t + 3, t * t + 9};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if ((quick && n > 6 * t) || n * eb > ((size_t)256 << 20)) continue;
            unsigned char *x = malloc(n * eb);
            for (size_t e = 0; e < n; e++) { /* near-identity elements so long products stay finite */
                for (int q = 0; q < cs[c].k; q++) {
                    const int d = cs[c].op == GP_ORDERED_MAT2 ? 2 : 3;
                    const double diag = cs[c].op == GP_ORDERED_AFFINE ? q == 0 : q / d == q % d;
                    const double r = (double)(tc_next() >> 11) * 0x1p-53 - 0.5;
                    if (cs[c].dt == GP_F32) ((float *)x)[e * cs[c].k + q] = (float)(diag + (diag ? 1e-4 : 0.3) * r);
                    else if (cs[c].dt == GP_F64) ((double *)x)[e * cs[c].k + q] = diag + (diag ? 1e-4 : 0.3) * r;
                    else ((uint32_t *)x)[e * cs[c].k + q] = (uint32_t)tc_next();
                }
            }
            for (size_t off = 0; off < 2; off++) { /* off: one component past 16-byte alignment */
                gp_buffer_t b;
                const void *p = uc_put(ctx, &b, x, n * eb, off * gp_dtype_size(cs[c].dt));
                unsigned char got[128], ref[128];
                memset(got, 0xff, sizeof got);
                OK(gp_reduce_uop_sync(ctx, op, n, p, got));
                OK(gp_reduce_ordered_sync(ctx, cs[c].op, cs[c].dt, n, p, ref));
                CHECK(memcmp(got, ref, eb) == 0, "user %s %s n=%zu off=%zu: not gp_reduce_ordered's bits",
                      gp_ordered_op_name(cs[c].op), gp_dtype_name(cs[c].dt), n, off);
                gp_mem_free(ctx, &b);
            }
            free(x);
        }
        unsigned char id[128];
        OK(gp_reduce_uop_sync(ctx, op, 0, NULL, id)); /* n = 0: the identity */
        CHECK(cs[c].dt != GP_F32 || (((float *)id)[0] == 1.0f && ((float *)id)[1] == 0.0f) || cs[c].k != 2,
              "affine f32 identity");
        gp_uop_destroy(op);
    }
}

/* Maps against C loops; transform-reduce = reduce of the map's output (same element size: the same tree). */
static void uc_maps(gp_ctx_t *ctx, int quick)
{
    const size_t n = quick ? 100003 : 3000017;
    float *x = malloc(n * 4), *y = malloc(n * 4);
    double *yd = malloc(n * 8);
    uint16_t *h = malloc(n * 2);
    tc_fill(x, n, GP_F32);
    gp_uop_t *sq = uc_make(ctx, GP_UOP_MAP, GP_F32, 1, GP_F32, "x * x", NULL, 1);
    gp_uop_t *wide = uc_make(ctx, GP_UOP_MAP, GP_F32, 1, GP_F64, "(double)x * 3.0 + 1.0", NULL, 1);
    gp_uop_t *half = uc_make(ctx, GP_UOP_MAP, GP_F32, 1, GP_F16, "x * 1000.0f", NULL, 1);
    gp_uop_t *back = uc_make(ctx, GP_UOP_MAP, GP_F16, 1, GP_F32, "{ float t = x; return t - 1.0f; }", NULL, 1);
    gp_uop_t *sum = uc_make(ctx, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "-0.0f", 1);
    gp_uop_t *band = uc_make(ctx, GP_UOP_MAP, GP_F32, 1, GP_U64, "x >= -0.25f && x < 0.5f", NULL, 1);
    gp_uop_t *cnt = uc_make(ctx, GP_UOP_BINARY, GP_U64, 1, 0, "a + b", "0", 1);
    if (sq && wide && half && back && sum && band && cnt) {
        gp_buffer_t bx, by, bw, bh;
        void *px = uc_put(ctx, &bx, x, n * 4, 0);
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 8, &by));
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 8, &bw));
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * 2, &bh));
        OK(gp_transform(ctx, sq, n, px, by.device, NULL));
        OK(gp_transform(ctx, wide, n, px, bw.device, NULL));
        OK(gp_transform(ctx, half, n, px, bh.device, NULL));
        OK(gp_stream_sync(ctx, NULL));
        OK(gp_memcpy_sync(ctx, y, by.device, n * 4));
        OK(gp_memcpy_sync(ctx, yd, bw.device, n * 8));
        OK(gp_memcpy_sync(ctx, h, bh.device, n * 2));
        size_t bad = 0, badd = 0;
        for (size_t i = 0; i < n; i++) {
            const float r = x[i] * x[i];
            bad += memcmp(&r, &y[i], 4) != 0;
            const double rd = (double)x[i] * 3.0 + 1.0;
            badd += memcmp(&rd, &yd[i], 8) != 0;
        }
        CHECK(bad == 0, "map x * x: %zu of %zu differ", bad, n);
        CHECK(badd == 0, "map f32 -> f64: %zu of %zu differ", badd, n);
        size_t badh = 0; /* f16 outputs: |x * 1000| < 1000 rounds to a half within half an ulp (2^-1 at 512..1024) */
        for (size_t i = 0; i < n; i++) {
            const float v = x[i] * 1000.0f, g = gp_f16_to_f32(h[i]);
            badh += !(fabsf(g - v) <= 0.25f * (fabsf(v) >= 512 ? 2 : 1) + 1e-3f);
        }
        CHECK(badh == 0, "map f32 -> f16: %zu of %zu not the nearest half", badh, n);
        /* f16 back to f32 (in place over the f32 output buffer) */
        OK(gp_transform(ctx, back, n, bh.device, by.device, NULL));
        OK(gp_stream_sync(ctx, NULL));
        OK(gp_memcpy_sync(ctx, y, by.device, n * 4));
        bad = 0;
        for (size_t i = 0; i < n; i++) bad += y[i] != gp_f16_to_f32(h[i]) - 1.0f;
        CHECK(bad == 0, "map f16 -> f32: %zu of %zu differ", bad, n);
        /* transform-reduce: sum of squares = reduce of the squares, bitwise; count in a band */
        OK(gp_transform(ctx, sq, n, px, by.device, NULL));
        float a = -1, b = -2;
        OK(gp_transform_reduce_sync(ctx, sq, sum, n, px, &a));
        OK(gp_reduce_uop_sync(ctx, sum, n, by.device, &b));
        CHECK(memcmp(&a, &b, 4) == 0, "transform-reduce %.9g != reduce of the map %.9g", a, b);
        gp_reduce_result_t rr;
        OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, n, by.device, &rr));
        CHECK(memcmp(&a, &rr.value.f32, 4) == 0, "sum of squares %.9g != gp_reduce of the squares %.9g", a,
              rr.value.f32);
        uint64_t count = 0, want = 0;
        OK(gp_transform_reduce_sync(ctx, band, cnt, n, px, &count));
        for (size_t i = 0; i < n; i++) want += x[i] >= -0.25f && x[i] < 0.5f;
        CHECK(count == want, "count in a band %llu, wanted %llu", (unsigned long long)count, (unsigned long long)want);
        OK(gp_transform_reduce_sync(ctx, sq, sum, 0, NULL, &a)); /* n = 0: the identity */
        CHECK(a == 0.0f && signbit(a), "transform-reduce of nothing: -0.0, got %g", a);
        gp_mem_free(ctx, &bx);
        gp_mem_free(ctx, &by);
        gp_mem_free(ctx, &bw);
        gp_mem_free(ctx, &bh);
    }
    gp_uop_destroy(sq);
    gp_uop_destroy(wide);
    gp_uop_destroy(half);
    gp_uop_destroy(back);
    gp_uop_destroy(sum);
    gp_uop_destroy(band);
    gp_uop_destroy(cnt);
    free(x);
    free(y);
    free(yd);
    free(h);
}

/* Scans: user affine / mat2 = gp_scan_ordered's bits; integer sums = gp_scan's (exact in any order); in place. */
static void uc_scans(gp_ctx_t *ctx, int quick)
{
    static const char *aff = "r[0] = b[0] * a[0]; r[1] = b[0] * a[1] + b[1];";
    static const char *m2 = "for (int i = 0; i < 2; i++)\n  for (int j = 0; j < 2; j++)\n"
                            "    r[2*i+j] = a[2*i] * b[j] + a[2*i+1] * b[2+j];";
    struct {
        gp_dtype_t dt;
        int k;
        const char *src, *id;
        int ordered; /* gp_ordered_op_t + 1, or 0: gp_scan sum */
    } cs[] = {
        {GP_F32, 2, aff, "1, 0", GP_ORDERED_AFFINE + 1},
        {GP_F64, 2, aff, "1, 0", GP_ORDERED_AFFINE + 1},
        {GP_F32, 4, m2, "1, 0, 0, 1", GP_ORDERED_MAT2 + 1},
        {GP_I64, 1, "a + b", "0", 0},
        {GP_I32, 1, "a + b", "0", 0},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, cs[c].dt, cs[c].k, 0, cs[c].src, cs[c].id, 0);
        if (!op) continue;
        const size_t eb = (size_t)cs[c].k * gp_dtype_size(cs[c].dt), vb = eb;
        const size_t R = vb <= 8 ? 16 : vb <= 16 ? 8 : vb <= 32 ? 4 : vb <= 64 ? 2 : 1, t = 256 * R;
        const size_t sizes[] = {0, 1, 7, t - 1, t, t + 1, 33 * t + 5, 1000003};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if (quick && n > 40 * t) continue;
            unsigned char *x = malloc(n * eb + 8), *got = malloc(n * eb + 8), *ref = malloc(n * eb + 8);
            for (size_t e = 0; e < n; e++)
                for (int q = 0; q < cs[c].k; q++) {
                    const double diag = cs[c].k == 2 ? q == 0 : q / 2 == q % 2;
                    const double r = (double)(tc_next() >> 11) * 0x1p-53 - 0.5;
                    if (cs[c].dt == GP_F32) ((float *)x)[e * cs[c].k + q] = (float)(diag + (diag ? 1e-4 : 0.3) * r);
                    else if (cs[c].dt == GP_F64) ((double *)x)[e * cs[c].k + q] = diag + (diag ? 1e-4 : 0.3) * r;
                    else if (cs[c].dt == GP_I64) ((int64_t *)x)[e] = (int64_t)tc_next();
                    else ((int32_t *)x)[e] = (int32_t)tc_next();
                }
            for (int excl = 0; excl < 2; excl++) {
                const gp_scan_kind_t kind = excl ? GP_SCAN_EXCLUSIVE : GP_SCAN_INCLUSIVE;
                gp_buffer_t bx, by;
                void *px = uc_put(ctx, &bx, x, n * eb, 0);
                OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * eb + 8, &by));
                OK(gp_scan_uop(ctx, op, kind, n, px, by.device, NULL));
                OK(gp_stream_sync(ctx, NULL));
                if (n) OK(gp_memcpy_sync(ctx, got, by.device, n * eb));
                if (cs[c].ordered)
                    OK(gp_scan_ordered(ctx, (gp_ordered_op_t)(cs[c].ordered - 1), cs[c].dt, kind, n, px, by.device, NULL));
                else
                    OK(gp_scan(ctx, GP_REDUCE_SUM, cs[c].dt, kind, n, px, by.device, NULL));
                OK(gp_stream_sync(ctx, NULL));
                if (n) OK(gp_memcpy_sync(ctx, ref, by.device, n * eb));
                CHECK(memcmp(got, ref, n * eb) == 0, "user scan '%s' over %d x %s, n = %zu, %s: not the built-in's bits",
                      cs[c].src, cs[c].k, gp_dtype_name(cs[c].dt), n, excl ? "exclusive" : "inclusive");
                /* in place */
                OK(gp_scan_uop(ctx, op, kind, n, px, px, NULL));
                OK(gp_stream_sync(ctx, NULL));
                if (n) OK(gp_memcpy_sync(ctx, got, px, n * eb));
                CHECK(memcmp(got, ref, n * eb) == 0, "user scan '%s' n = %zu in place differs", cs[c].src, n);
                gp_mem_free(ctx, &bx);
                gp_mem_free(ctx, &by);
            }
            free(x), free(got), free(ref);
        }
        gp_uop_destroy(op);
    }
    /* refusals: 2-byte elements, misaligned */
    gp_uop_t *h = uc_make(ctx, GP_UOP_BINARY, GP_U16, 1, 0, "a + b", "0", 1);
    uint16_t hx[4] = {1, 2, 3, 4}, hy[4] = {9, 9, 9, 9};
    gp_buffer_t b;
    char *p = uc_put(ctx, &b, hx, sizeof hx, 0);
    CHECK_ST(gp_scan_uop(ctx, h, GP_SCAN_INCLUSIVE, 4, p, p, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan_uop(ctx, h, (gp_scan_kind_t)7, 4, p, p, NULL), GP_ERR_INVALID_ARG);
    gp_uop_t *h2 = uc_make(ctx, GP_UOP_BINARY, GP_F16, 2, 0, "r[0] = a[0] + b[0]; r[1] = a[1] * b[1];", "0, 1", 1);
    CHECK_ST(gp_scan_uop(ctx, h2, GP_SCAN_INCLUSIVE, 2, p, p, NULL), GP_ERR_UNSUPPORTED); /* f16 computes in f32 */
    CHECK(strstr(gp_last_error(), "f16") != NULL, "names the dtype: %s", gp_last_error());
    gp_uop_destroy(h2);
    OK(gp_memcpy_sync(ctx, hy, p, sizeof hy));
    CHECK(hy[0] == 1 && hy[3] == 4, "refused scans write nothing");
    gp_mem_free(ctx, &b);
    gp_uop_destroy(h);
}

/* gp_select_if: user predicates = gp_select's built-in ones (count and kept bits), and a C loop; refusals. */
static void uc_select(gp_ctx_t *ctx, int quick)
{
    struct {
        gp_dtype_t dt;
        const char *src;
        gp_pred_t builtin; /* kind GP_PRED_KIND_COUNT: against the C loop below */
    } cs[] = {
        {GP_F32, "x > 0.0f", {GP_PRED_GT, 0, 0, NULL}},
        {GP_F64, "x < -0.25", {GP_PRED_LT, -0.25, 0, NULL}},
        {GP_U8, "x >= 10 && x < 200", {GP_PRED_IN, 10, 200, NULL}},
        {GP_I32, "(x & 3) == 1", {GP_PRED_KIND_COUNT, 0, 0, NULL}},
        {GP_U16, "{ unsigned v = x; return v % 7u == 0u; }", {GP_PRED_KIND_COUNT, 0, 0, NULL}},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        gp_uop_t *p = uc_make(ctx, GP_UOP_PRED, cs[c].dt, 1, 0, cs[c].src, NULL, 1);
        if (!p) continue;
        const size_t es = gp_dtype_size(cs[c].dt), tile = (size_t)1024 * (16 / es);
        const size_t sizes[] = {0, 1, 5, tile - 1, tile, tile + 1, 37 * tile + 11, 1000003};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            if (quick && n > 40 * tile) continue;
            unsigned char *x = malloc(n * es + 8), *got = malloc(n * es + 8), *ref = malloc(n * es + 8);
            tc_fill(x, n, cs[c].dt == GP_F32 || cs[c].dt == GP_F64 || cs[c].dt == GP_I32 ? cs[c].dt : GP_U8);
            if (cs[c].dt == GP_U16)
                for (size_t i = 0; i < n; i++) ((uint16_t *)x)[i] = (uint16_t)tc_next();
            gp_buffer_t bx, by, bc;
            void *px = uc_put(ctx, &bx, x, n * es, 0);
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 8, &by));
            OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, 8, &bc));
            size_t kept = (size_t)-1, want = 0;
            OK(gp_select_if_sync(ctx, p, n, px, by.device, &kept));
            if (kept <= n && kept) OK(gp_memcpy_sync(ctx, got, by.device, kept * es));
            if (cs[c].builtin.kind != GP_PRED_KIND_COUNT) {
                OK(gp_select_sync(ctx, cs[c].dt, n, px, &cs[c].builtin, by.device, &want));
                if (want) OK(gp_memcpy_sync(ctx, ref, by.device, want * es));
            } else {
                for (size_t i = 0; i < n; i++) {
                    const int k = cs[c].dt == GP_I32 ? (((const int32_t *)x)[i] & 3) == 1
                                                     : ((const uint16_t *)x)[i] % 7u == 0u;
                    if (k) memcpy(ref + want++ * es, x + i * es, es);
                }
            }
            CHECK(kept == want && memcmp(got, ref, want * es) == 0, "select_if '%s' over %s n = %zu: %zu kept, wanted %zu",
                  cs[c].src, gp_dtype_name(cs[c].dt), n, kept, want);
            /* asynchronous: the count in device memory (host memory on the CPU backend) */
            OK(gp_select_if(ctx, p, n, px, by.device, (uint64_t *)bc.device, NULL));
            OK(gp_stream_sync(ctx, NULL));
            uint64_t k2 = 0;
            OK(gp_memcpy_sync(ctx, &k2, bc.device, 8));
            CHECK(k2 == want, "select_if async count %llu, wanted %zu", (unsigned long long)k2, want);
            gp_mem_free(ctx, &bx), gp_mem_free(ctx, &by), gp_mem_free(ctx, &bc);
            free(x), free(got), free(ref);
        }
        if (c == 0) { /* refusals */
            float v[4] = {1, -1, 2, -2};
            size_t k = 77;
            gp_buffer_t b;
            char *q = uc_put(ctx, &b, v, sizeof v, 0);
            CHECK_ST(gp_select_if_sync(ctx, p, 4, q, q + 4, &k), GP_ERR_INVALID_ARG); /* overlap */
            CHECK_ST(gp_select_if_sync(ctx, NULL, 4, q, q, &k), GP_ERR_INVALID_ARG);
            CHECK_ST(gp_select_if_sync(ctx, p, 4, q, NULL, &k), GP_ERR_INVALID_ARG);
            CHECK(k == 77, "refused selects write no count");
            gp_mem_free(ctx, &b);
        }
        gp_uop_destroy(p);
    }
}

/* Refusals name the argument and write nothing; compile errors carry the user's line:column. */
/* ------------------------------------------------------------------------------------------ segmented */
/* CSR offsets over a mix of lengths around the tree's limits (warp_max, chunk): empty, 1, small, warp-sized, medium,
 * exactly a chunk, several chunks; `big` (elements, 0: none) one more segment of that length. *n the total. */
static int64_t *uc_seg_offsets(size_t warp_max, size_t chunk, size_t budget, size_t big, size_t *nseg, size_t *n)
{
    const size_t cap = 4096;
    int64_t *o = malloc((cap + 2) * sizeof *o);
    size_t ns = 0, tot = 0;
    o[0] = 0;
    while (tot < budget && ns < cap - 1) {
        const uint64_t r = tc_next(), v = r >> 8;
        size_t L;
        switch (r % 8) {
        case 0: L = 0; break;
        case 1: L = 1; break;
        case 2: L = 2 + v % 40; break;
        case 3: L = warp_max - v % 3; break;
        case 4: L = warp_max + 1 + v % (chunk - warp_max); break;
        case 5: L = chunk + v % 2; break;
        case 6: L = chunk + 1 + v % (3 * chunk); break;
        default: L = v % (warp_max + 2); break;
        }
        if (ns == 3 && big) L = big; /* the big one early: its chunks overlap the other items' work */
        o[ns + 1] = o[ns] + (int64_t)L;
        ns++;
        tot += L;
    }
    *nseg = ns;
    *n = tot;
    return o;
}

/* gp_reduce_segmented_uop on ctx (x, offsets on the context, out poisoned then copied back) */
static void uc_seg_run(gp_ctx_t *ctx, gp_uop_t *op, size_t n, const void *x, size_t eb, size_t nseg,
                       const int64_t *off, void *out)
{
    const size_t vb = gp_uop_value_bytes(op);
    gp_buffer_t bx, bo, br;
    void *px = uc_put(ctx, &bx, x, n * eb, 0);
    void *po = uc_put(ctx, &bo, off, (nseg + 1) * 8, 0);
    memset(out, 0xa5, nseg * vb);
    void *pr = uc_put(ctx, &br, out, nseg * vb, 0);
    OK(gp_reduce_segmented_uop(ctx, op, n, px, nseg, po, pr, NULL));
    OK(gp_stream_sync(ctx, NULL));
    OK(gp_memcpy_sync(ctx, out, pr, nseg * vb));
    gp_mem_free(ctx, &bx);
    gp_mem_free(ctx, &bo);
    gp_mem_free(ctx, &br);
}

static void uc_seg_bounds(const int64_t *off, size_t i, size_t n, size_t *b, size_t *e)
{
    int64_t lo = off[i], hi = off[i + 1];
    lo = lo < 0 ? 0 : lo > (int64_t)n ? (int64_t)n : lo;
    hi = hi < lo ? lo : hi > (int64_t)n ? (int64_t)n : hi;
    *b = (size_t)lo, *e = (size_t)hi;
}

/* 4x4 u32 matrix products (exact modulo 2^32, associative: any tree equals the serial fold) */
static void uc_mat4(const uint32_t *a, const uint32_t *b, uint32_t *r)
{
    uint32_t t[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            t[4 * i + j] = a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j] + a[4 * i + 2] * b[8 + j] + a[4 * i + 3] * b[12 + j];
    memcpy(r, t, sizeof t);
}

static void uc_segmented(gp_ctx_t *ctx, int quick)
{
    /* commutative = gp_reduce_segmented's bits on every non-empty segment; empty = the user's identity */
    const struct uc_builtin *cs = uc_builtins;
    for (size_t c = 0; c < UC_NBUILTINS; c++) {
        if (!cs[c].seg) continue;
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, cs[c].dt, 1, 0, cs[c].src, cs[c].id, 1);
        if (!op) continue;
        const size_t es = gp_dtype_size(cs[c].dt);
        size_t nseg, n;
        int64_t *off = uc_seg_offsets(GP__SEG_WARP_MAX, GP__SEG_CHUNK, (quick ? 6 : 40) * GP__SEG_CHUNK,
                                      quick ? 0 : 37 * GP__SEG_CHUNK + 5, &nseg, &n);
        unsigned char *x = malloc(n * es + 1), *got = malloc(nseg * es + 1), *ref = malloc(nseg * 8 + 8);
        tc_fill(x, n, cs[c].dt);
        uc_seg_run(ctx, op, n, x, es, nseg, off, got);
        gp_buffer_t bx, bo, br;
        void *px = uc_put(ctx, &bx, x, n * es, 0), *po = uc_put(ctx, &bo, off, (nseg + 1) * 8, 0);
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nseg * 8 + 8, &br));
        OK(gp_reduce_segmented(ctx, cs[c].op, cs[c].dt, n, px, nseg, po, br.device, NULL));
        OK(gp_stream_sync(ctx, NULL));
        OK(gp_memcpy_sync(ctx, ref, br.device, nseg * (cs[c].dt == GP_F32 ? 4 : 8)));
        size_t bad = 0;
        for (size_t i = 0; i < nseg; i++) {
            const int empty = off[i + 1] == off[i];
            const unsigned char *g = got + i * es;
            int same;
            if (cs[c].dt == GP_F32) same = empty ? memcmp(g, &(float){-0.0f}, 4) == 0 : memcmp(g, ref + 4 * i, 4) == 0;
            else if (cs[c].dt == GP_F64) same = empty ? memcmp(g, &(double){-0.0}, 8) == 0 : memcmp(g, ref + 8 * i, 8) == 0;
            else if (cs[c].dt == GP_I32) {
                int32_t v;
                int64_t r;
                memcpy(&v, g, 4);
                memcpy(&r, ref + 8 * i, 8);
                same = empty ? v == INT32_MIN : (int64_t)v == r;
            } else {
                same = empty ? g[0] == 0 : g[0] == ref[8 * i];
            }
            if (!same && bad++ < 5)
                printf("  segment %zu of %zu (length %lld): not the built-in's bits\n", i, nseg,
                       (long long)(off[i + 1] - off[i]));
        }
        CHECK(bad == 0, "segmented '%s' %s: %zu of %zu segments differ from gp_reduce_segmented %s", cs[c].src,
              gp_dtype_name(cs[c].dt), bad, nseg, gp_reduce_op_name(cs[c].op));
        gp_mem_free(ctx, &bx);
        gp_mem_free(ctx, &bo);
        gp_mem_free(ctx, &br);
        free(x), free(got), free(ref), free(off);
        gp_uop_destroy(op);
    }

    /* a 16-byte commutative tuple of exact lanes (u32 sum, xor, max, min): any tree gives the loop's result */
    {
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, GP_U32, 4, 0,
                               "r[0] = a[0] + b[0]; r[1] = a[1] ^ b[1]; r[2] = a[2] > b[2] ? a[2] : b[2];\n"
                               "r[3] = a[3] < b[3] ? a[3] : b[3];", "0, 0, 0, 0xffffffffu", 1);
        size_t nseg, n;
        int64_t *off = uc_seg_offsets(GP__SEG_WARP_MAX, GP__SEG_CHUNK, (quick ? 4 : 24) * GP__SEG_CHUNK, 0, &nseg, &n);
        uint32_t *x = malloc(n * 16 + 1), *got = malloc(nseg * 16 + 1);
        for (size_t i = 0; i < 4 * n; i++) x[i] = (uint32_t)(tc_next() >> 32);
        if (op) uc_seg_run(ctx, op, n, x, 16, nseg, off, got);
        size_t bad = 0;
        for (size_t i = 0; op && i < nseg; i++) {
            uint32_t r[4] = {0, 0, 0, 0xffffffffu};
            for (int64_t j = off[i]; j < off[i + 1]; j++) {
                const uint32_t *e = x + 4 * j;
                r[0] += e[0], r[1] ^= e[1], r[2] = e[2] > r[2] ? e[2] : r[2], r[3] = e[3] < r[3] ? e[3] : r[3];
            }
            bad += memcmp(r, got + 4 * i, 16) != 0;
        }
        CHECK(bad == 0, "segmented u32 x 4 (sum, xor, max, min): %zu of %zu segments wrong", bad, nseg);
        free(x), free(got), free(off);
        gp_uop_destroy(op);
    }

    /* ordered: mat4 u32 (exact) against the serial fold, with a segment of more chunks than one level holds (not
     * quick: two levels) and overlapping offsets (the chunk table overflows: blocks reduce segments alone) */
    {
        static const char *m4 = "for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++)\n"
                                "  r[4*i+j] = a[4*i]*b[j] + a[4*i+1]*b[4+j] + a[4*i+2]*b[8+j] + a[4*i+3]*b[12+j];";
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, GP_U32, 16, 0, m4, "1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1", 0);
        const size_t R = 256 / 64, tile = 256 * R; /* 4 elements per run; a chunk = a tile of 1024 */
        size_t nseg, n;
        int64_t *off = uc_seg_offsets(32 * R, tile, (quick ? 8 : 40) * tile, quick ? 0 : (tile + 3) * tile + 17,
                                      &nseg, &n);
        uint32_t *x = malloc(n * 64 + 1), *got = malloc((nseg + 8) * 64);
        for (size_t i = 0; i < 16 * n; i++) x[i] = (uint32_t)(tc_next() >> 32);
        for (int pass = 0; op && pass < 2; pass++) {
            int64_t ov[8] = {0, (int64_t)n, 0, (int64_t)n, -5, (int64_t)n + 9, 7, (int64_t)n - 3};
            const int64_t *o = pass ? ov : off;
            const size_t ns = pass ? 7 : nseg;
            uc_seg_run(ctx, op, n, x, 64, ns, o, got);
            size_t bad = 0;
            for (size_t i = 0; i < ns; i++) {
                size_t b, e;
                uc_seg_bounds(o, i, n, &b, &e);
                uint32_t r[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
                for (size_t j = b; j < e; j++) uc_mat4(r, x + 16 * j, r);
                if (memcmp(r, got + 16 * i, 64) != 0 && bad++ < 5)
                    printf("  segment %zu [%zu, %zu): not the product\n", i, b, e);
            }
            CHECK(bad == 0, "segmented mat4 u32 (%s offsets): %zu of %zu segments wrong",
                  pass ? "overlapping" : "CSR", bad, ns);
        }
        free(x), free(got), free(off);
        gp_uop_destroy(op);
    }

    /* ordered affine f32: each segment has gp_reduce_uop's bits for it alone */
    {
        static const char *aff = "r[0] = b[0] * a[0]; r[1] = b[0] * a[1] + b[1];";
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, GP_F32, 2, 0, aff, "1, 0", 0);
        const size_t R = 256 / 8, tile = 256 * R;
        size_t nseg, n;
        int64_t *off = uc_seg_offsets(32 * R, tile, (quick ? 6 : 30) * tile, quick ? 0 : 300 * tile + 1, &nseg, &n);
        float *x = malloc(n * 8 + 8), *got = malloc(nseg * 8 + 8);
        for (size_t i = 0; i < n; i++) {
            const double r = (double)(tc_next() >> 11) * 0x1p-53 - 0.5;
            x[2 * i] = (float)(1.0 + 1e-4 * r);
            x[2 * i + 1] = (float)(0.3 * r);
        }
        if (op) uc_seg_run(ctx, op, n, x, 8, nseg, off, got);
        gp_buffer_t bx;
        char *px = uc_put(ctx, &bx, x, n * 8, 0);
        size_t bad = 0, tried = 0;
        for (size_t i = 0; op && i < nseg; i++) {
            const size_t L = (size_t)(off[i + 1] - off[i]);
            if (nseg > 64 && L < 32 * R && tc_next() % 8) continue; /* all long segments, a sample of the short */
            float r[2];
            OK(gp_reduce_uop_sync(ctx, op, L, px + (size_t)off[i] * 8, r));
            bad += memcmp(r, got + 2 * i, 8) != 0;
            tried++;
        }
        CHECK(bad == 0, "segmented affine f32: %zu of %zu segments differ from gp_reduce_uop of the segment", bad,
              tried);
        gp_mem_free(ctx, &bx);
        free(x), free(got), free(off);
        gp_uop_destroy(op);
    }

    /* refusals write nothing; no segments is a no-op */
    {
        gp_uop_t *op = uc_make(ctx, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "0.0f", 1);
        gp_uop_t *sq = uc_make(ctx, GP_UOP_MAP, GP_F32, 1, GP_F32, "x * x", NULL, 1);
        float xs[4] = {1, 2, 3, 4}, out[5] = {42, 42, 42, 42, 42};
        int64_t o[3] = {0, 2, 4};
        gp_buffer_t bx, bo, br;
        char *px = uc_put(ctx, &bx, xs, sizeof xs, 0), *po = uc_put(ctx, &bo, o, sizeof o, 0);
        char *pr = uc_put(ctx, &br, out, sizeof out, 0);
        CHECK_ST(gp_reduce_segmented_uop(ctx, op, 4, px, 2, NULL, pr, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "offsets") != NULL, "names offsets: %s", gp_last_error());
        CHECK_ST(gp_reduce_segmented_uop(ctx, op, 4, px, 2, (const int64_t *)(po + 4), pr, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_reduce_segmented_uop(ctx, op, 4, px, 2, (const int64_t *)po, pr + 1, NULL), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "out") != NULL, "names out: %s", gp_last_error());
        CHECK_ST(gp_reduce_segmented_uop(ctx, op, 4, px, 2, (const int64_t *)po, NULL, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_reduce_segmented_uop(ctx, sq, 4, px, 2, (const int64_t *)po, pr, NULL), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_reduce_segmented_uop(ctx, NULL, 4, px, 2, (const int64_t *)po, pr, NULL), GP_ERR_INVALID_ARG);
        OK(gp_reduce_segmented_uop(ctx, op, 4, px, 0, NULL, NULL, NULL));
        OK(gp_stream_sync(ctx, NULL));
        OK(gp_memcpy_sync(ctx, out, pr, sizeof out));
        CHECK(out[0] == 42 && out[1] == 42 && out[2] == 42, "refusals write nothing");
        OK(gp_reduce_segmented_uop(ctx, op, 4, px, 2, (const int64_t *)po, pr, NULL));
        OK(gp_stream_sync(ctx, NULL));
        OK(gp_memcpy_sync(ctx, out, pr, sizeof out));
        CHECK(out[0] == 3 && out[1] == 7 && out[2] == 42, "two segments: %g %g (%g past them)", out[0], out[1], out[2]);
        gp_mem_free(ctx, &bx);
        gp_mem_free(ctx, &bo);
        gp_mem_free(ctx, &br);
        gp_uop_destroy(op);
        gp_uop_destroy(sq);
    }
}

static void uc_errors(gp_ctx_t *ctx)
{
    gp_uop_desc_t d;
    memset(&d, 0, sizeof d);
    gp_uop_t *op = (gp_uop_t *)1;
    CHECK_ST(gp_uop_create(ctx, NULL, &op), GP_ERR_INVALID_ARG);
    CHECK(op == NULL, "a refused create leaves *op NULL");
    d.kind = GP_UOP_BINARY;
    d.dtype = GP_F32;
    d.src = "a + b";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_INVALID_ARG); /* no identity */
    CHECK(strstr(gp_last_error(), "identity") != NULL, "names the identity: %s", gp_last_error());
    d.identity = "0, 0";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_INVALID_ARG); /* two components for arity 1 */
    d.identity = "0";
    d.arity = 3;
    d.identity = "0, 0, 0";
    d.commutative = 1;
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_UNSUPPORTED); /* 12-byte elements in the tile tree */
    d.arity = 17;
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_INVALID_ARG);
    d.arity = 1;
    d.identity = "0";
    d.dtype = (gp_dtype_t)99;
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_INVALID_ARG);
    d.dtype = GP_F32;
    d.src = "  ";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_INVALID_ARG);
    /* no preprocessor: directives, the digraph and the trigraph are refused; '#' in a literal is text */
    static const char *const directives[] = {"a + b\n#include <stdio.h>", "a %: b", "a ?\?= b", "#define A a\nA + b"};
    for (size_t k = 0; k < sizeof directives / sizeof directives[0]; k++) {
        d.src = directives[k];
        CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "preprocessor") != NULL, "directive refused: %s", gp_last_error());
    }
    d.src = "a + b + (float)(\"#\"[0] - 35) + (float)('#' - 35)";
    OK(gp_uop_create(ctx, &d, &op));
    gp_uop_destroy(op);
    op = NULL;
    /* compile errors: positions in the user's text */
    d.src = "a + c";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "op:1:5") != NULL, "the error at op:1:5: %s", gp_last_error());
    d.src = "a +\n  b *";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "op:2:") != NULL || strstr(gp_last_error(), "op:3:") != NULL,
          "the error on line 2: %s", gp_last_error());
    d.src = "a + b";
    d.identity = "1.0f +* 2";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "identity:1:") != NULL, "the error in the identity: %s", gp_last_error());
    d.kind = GP_UOP_MAP;
    d.out_dtype = GP_F32;
    d.src = "sqrtf(x) + undefined_thing";
    CHECK_ST(gp_uop_create(ctx, &d, &op), GP_ERR_COMPILE);
    CHECK(strstr(gp_last_error(), "map:1:") != NULL, "the error in the map: %s", gp_last_error());
    /* calls: wrong kinds, NULLs, misalignment */
    gp_uop_t *sum = uc_make(ctx, GP_UOP_BINARY, GP_F32, 1, 0, "a + b", "0.0f", 1);
    gp_uop_t *sq = uc_make(ctx, GP_UOP_MAP, GP_F32, 1, GP_F64, "x * x", NULL, 1);
    float buf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r = 42;
    gp_buffer_t b;
    char *p = uc_put(ctx, &b, buf, sizeof buf, 0);
    CHECK_ST(gp_reduce_uop_sync(ctx, NULL, 8, p, &r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_uop_sync(ctx, sq, 8, p, &r), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "map") != NULL, "names the kind: %s", gp_last_error());
    CHECK_ST(gp_reduce_uop_sync(ctx, sum, 8, p + 1, &r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_uop_sync(ctx, sum, 8, NULL, &r), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_uop_sync(ctx, sum, 8, p, NULL), GP_ERR_INVALID_ARG);
    CHECK(r == 42, "refusals write nothing");
    CHECK_ST(gp_transform_reduce_sync(ctx, sq, sum, 8, p, &r), GP_ERR_INVALID_ARG); /* f64 map into an f32 op */
    CHECK_ST(gp_transform(ctx, sum, 8, p, p, NULL), GP_ERR_INVALID_ARG);
    CHECK(r == 42, "refusals write nothing");
    gp_mem_free(ctx, &b);
    gp_uop_destroy(sum);
    gp_uop_destroy(sq);
    gp_uop_destroy(NULL);
}

#endif
