/*
 * reduce_common.h — data and references shared by test_reduce.c (CPU) and gpu_reduce.c (GPU).
 * rc_fill makes data whose exact answer is known: floats are small integers (so sums are exact in f32/f64), products
 * are of +-1 with rare +-2 / +-0.5 (exact powers of two), a share of zeros for count_nonzero; rc_reference computes
 * the exact answer with plain loops, independent of the tile tree.
 */
#ifndef GP_TESTS_REDUCE_COMMON_H
#define GP_TESTS_REDUCE_COMMON_H

#include "common.h"

#include <unistd.h>

#include "reduce/reduce_internal.h"

static const gp_dtype_t rc_dtypes[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32,
                                       GP_U64, GP_I64, GP_F16, GP_BF16, GP_F32, GP_F64};
#define RC_NDTYPES (sizeof rc_dtypes / sizeof rc_dtypes[0])

static inline int rc_is_float(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16 || d == GP_F32 || d == GP_F64; }

/* Float to f16 / bf16 bits for exactly representable small values (|v| <= 2048 integers, +-0.5, +-2, NaN). */
static inline uint16_t rc_to_f16(double v)
{
    if (v != v) return 0x7e00;
    uint16_t sign = v < 0 || (v == 0 && 1 / v < 0) ? 0x8000 : 0;
    double a = fabs(v);
    if (a == 0) return sign;
    int e = 0;
    while (a >= 2) a /= 2, e++;
    while (a < 1) a *= 2, e--;
    return (uint16_t)(sign | (uint16_t)(e + 15) << 10 | (uint16_t)((a - 1) * 1024));
}
static inline uint16_t rc_to_bf16(double v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    return (uint16_t)(b >> 16); /* exact for the values used here */
}

static inline void rc_store(void *x, gp_dtype_t dt, size_t i, double v)
{
    switch (dt) {
    case GP_U8: ((uint8_t *)x)[i] = (uint8_t)(int64_t)v; break;
    case GP_I8: ((int8_t *)x)[i] = (int8_t)v; break;
    case GP_U16: ((uint16_t *)x)[i] = (uint16_t)(int64_t)v; break;
    case GP_I16: ((int16_t *)x)[i] = (int16_t)v; break;
    case GP_U32: ((uint32_t *)x)[i] = (uint32_t)(int64_t)v; break;
    case GP_I32: ((int32_t *)x)[i] = (int32_t)v; break;
    case GP_U64: ((uint64_t *)x)[i] = (uint64_t)(int64_t)v; break;
    case GP_I64: ((int64_t *)x)[i] = (int64_t)v; break;
    case GP_F16: ((uint16_t *)x)[i] = rc_to_f16(v); break;
    case GP_BF16: ((uint16_t *)x)[i] = rc_to_bf16(v); break;
    case GP_F32: ((float *)x)[i] = (float)v; break;
    case GP_F64: ((double *)x)[i] = v; break;
    default: break;
    }
}

/* Fill for op: integers use their whole range except for products (small) and floats use small integers. */
static inline void rc_fill(void *x, gp_dtype_t dt, size_t n, gp_reduce_op_t op)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tc_next();
        if (op == GP_REDUCE_PROD) {
            unsigned k = (unsigned)(r % 20000);
            double v = k == 0 ? 2.0 : k == 1 ? 0.5 : 1.0;
            if (!rc_is_float(dt) && v == 0.5) v = 3.0;
            if ((r >> 20) & 1) v = -v;
            if ((dt == GP_U8 || dt == GP_U16 || dt == GP_U32 || dt == GP_U64) && v < 0) v = -v;
            rc_store(x, dt, i, v);
        } else if (rc_is_float(dt)) {
            double v = (double)((int)(r % 15) - 7); /* -7..7: about one in 15 is zero */
            if (op == GP_REDUCE_COUNT_NONZERO && (r >> 30) % 8 == 0) v = -0.0;
            rc_store(x, dt, i, v);
        } else {
            tc_fill((char *)x + i * gp_dtype_size(dt), 1, GP_U8); /* a byte at a time keeps every dtype random */
            for (size_t b = 1; b < gp_dtype_size(dt); b++) tc_fill((char *)x + i * gp_dtype_size(dt) + b, 1, GP_U8);
            if (op == GP_REDUCE_COUNT_NONZERO && r % 5 == 0) memset((char *)x + i * gp_dtype_size(dt), 0, gp_dtype_size(dt));
        }
    }
}

/* Element i as exact long double / int64 / uint64 / raw bits. */
static inline long double rc_fval(const void *x, gp_dtype_t dt, size_t i)
{
    switch (dt) {
    case GP_F16: return gp__f16_to_f32(((const uint16_t *)x)[i]);
    case GP_BF16: return gp__bf16_to_f32(((const uint16_t *)x)[i]);
    case GP_F32: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}
static inline int64_t rc_ival(const void *x, gp_dtype_t dt, size_t i)
{
    switch (dt) {
    case GP_U8: return ((const uint8_t *)x)[i];
    case GP_I8: return ((const int8_t *)x)[i];
    case GP_U16: return ((const uint16_t *)x)[i];
    case GP_I16: return ((const int16_t *)x)[i];
    case GP_U32: return ((const uint32_t *)x)[i];
    case GP_I32: return ((const int32_t *)x)[i];
    case GP_U64: return (int64_t)((const uint64_t *)x)[i];
    default: return ((const int64_t *)x)[i];
    }
}
static inline int rc_unsigned(gp_dtype_t d) { return d == GP_U8 || d == GP_U16 || d == GP_U32 || d == GP_U64; }

/* The exact answer, by plain loops. */
static inline void rc_reference(const void *x, gp_dtype_t dt, size_t n, gp_reduce_op_t op, gp_reduce_result_t *r)
{
    gp__reduce_identity(op, dt, r); /* fields and the n = 0 answer */
    if (n == 0) return;
    const int flt = rc_is_float(dt), f32 = r->acc_dtype == GP_F32, uns = rc_unsigned(dt);
    long double fs = op == GP_REDUCE_PROD ? 1 : 0, fmin = 0, fmax = 0;
    uint64_t us = op == GP_REDUCE_PROD ? 1 : 0, bits = op == GP_REDUCE_AND ? UINT64_MAX : 0;
    int64_t imin = 0, imax = 0, amin = -1, amax = -1, firstnan = -1;
    for (size_t i = 0; i < n; i++) {
        if (flt) {
            long double v = rc_fval(x, dt, i);
            if (v != v) {
                if (firstnan < 0) firstnan = (int64_t)i;
                continue;
            }
            if (op == GP_REDUCE_PROD) fs *= v; else fs += v;
            if (op == GP_REDUCE_COUNT_NONZERO) us += v != 0;
            if (amin < 0 || v < fmin) fmin = v, amin = (int64_t)i;
            if (amax < 0 || v > fmax) fmax = v, amax = (int64_t)i;
        } else {
            int64_t v = rc_ival(x, dt, i);
            uint64_t raw = (uint64_t)v & (gp_dtype_size(dt) == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * gp_dtype_size(dt))) - 1);
            us = op == GP_REDUCE_PROD ? us * (uint64_t)v : us + (op == GP_REDUCE_COUNT_NONZERO ? (v != 0) : (uint64_t)v);
            bits = op == GP_REDUCE_AND ? bits & raw : op == GP_REDUCE_OR ? bits | raw : bits ^ raw;
            int lt = uns ? (uint64_t)v < (uint64_t)imin : v < imin, gt = uns ? (uint64_t)v > (uint64_t)imax : v > imax;
            if (amin < 0 || lt) imin = v, amin = (int64_t)i;
            if (amax < 0 || gt) imax = v, amax = (int64_t)i;
        }
    }
    gp_scalar_t mn, mx;
    mn.u64 = mx.u64 = 0;
    if (flt) {
        if (f32) mn.f32 = (float)fmin, mx.f32 = (float)fmax;
        else mn.f64 = (double)fmin, mx.f64 = (double)fmax;
        if (firstnan >= 0) {
            if (f32) mn.f32 = mx.f32 = NAN; else mn.f64 = mx.f64 = NAN;
            amin = amax = firstnan;
        }
    } else {
        mn.i64 = imin, mx.i64 = imax;
    }
    switch (op) {
    case GP_REDUCE_SUM:
    case GP_REDUCE_PROD:
        if (!flt) r->value.u64 = us;
        else if (f32) r->value.f32 = firstnan >= 0 ? NAN : (float)fs;
        else r->value.f64 = firstnan >= 0 ? NAN : (double)fs;
        break;
    case GP_REDUCE_COUNT_NONZERO: r->value.u64 = us + (firstnan >= 0 ? 0 : 0); break;
    case GP_REDUCE_MIN: r->value = mn; break;
    case GP_REDUCE_MAX: r->value = mx; break;
    case GP_REDUCE_MINMAX: r->value = mn, r->value2 = mx; break;
    case GP_REDUCE_ARGMIN: r->value = mn, r->index = amin; break;
    case GP_REDUCE_ARGMAX: r->value = mx, r->index = amax; break;
    default: r->value.u64 = bits; break;
    }
}

static inline int rc_isnan(const gp_reduce_result_t *r, int second)
{
    const gp_scalar_t *v = second ? &r->value2 : &r->value;
    return r->acc_dtype == GP_F32 ? v->f32 != v->f32 : r->acc_dtype == GP_F64 ? v->f64 != v->f64 : 0;
}

/* Bitwise equality, except that two NaNs are equal whatever their payloads. -0.0 vs +0.0 differ. */
static inline int rc_same(const gp_reduce_result_t *a, const gp_reduce_result_t *b)
{
    if (a->acc_dtype != b->acc_dtype || a->op != b->op || a->index != b->index) return 0;
    for (int k = 0; k < 2; k++) {
        const gp_scalar_t *x = k ? &a->value2 : &a->value, *y = k ? &b->value2 : &b->value;
        if (rc_isnan(a, k) && rc_isnan(b, k)) continue;
        if (a->acc_dtype == GP_F32 ? memcmp(&x->f32, &y->f32, 4) != 0 : x->u64 != y->u64) return 0;
    }
    return 1;
}

/* Equality of value up to -0.0 == +0.0 (the exact reference does not track the sign of zero). */
static inline int rc_equal_value(const gp_reduce_result_t *a, const gp_reduce_result_t *b)
{
    if (a->acc_dtype != b->acc_dtype || a->op != b->op || a->index != b->index) return 0;
    for (int k = 0; k < 2; k++) {
        const gp_scalar_t *x = k ? &a->value2 : &a->value, *y = k ? &b->value2 : &b->value;
        if (rc_isnan(a, k) || rc_isnan(b, k)) {
            if (!(rc_isnan(a, k) && rc_isnan(b, k))) return 0;
        } else if (a->acc_dtype == GP_F32 ? x->f32 != y->f32 : a->acc_dtype == GP_F64 ? x->f64 != y->f64 : x->u64 != y->u64) {
            return 0;
        }
    }
    return 1;
}

static inline void rc_print(const char *what, const gp_reduce_result_t *r)
{
    fprintf(stderr, "    %s: value 0x%016llx (%.9g) value2 0x%016llx index %lld acc %s op %s\n", what,
            (unsigned long long)r->value.u64,
            r->acc_dtype == GP_F32 ? (double)r->value.f32 : r->acc_dtype == GP_F64 ? r->value.f64 : (double)r->value.i64,
            (unsigned long long)r->value2.u64, (long long)r->index, gp_dtype_name((gp_dtype_t)r->acc_dtype),
            gp_reduce_op_name((gp_reduce_op_t)r->op));
}

/* gp_reducer over x (memory of ctx: device on a GPU context) pushed in pieces of `tiles` tiles (the last piece holds
 * the rest), alternating between streams s1 and s2: the result must be bitwise *want (gp_reduce's over x). */
static inline void rc_check_reducer(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dt, const void *x, size_t n,
                                    size_t tiles, gp_stream_t s1, gp_stream_t s2, const gp_reduce_result_t *want)
{
    gp_reducer_t *r = NULL;
    OK(gp_reducer_create(ctx, op, dt, &r));
    if (!r) return;
    const size_t g = gp_reducer_granule(r), piece = tiles * g, es = gp_dtype_size(dt);
    CHECK(g == 65536 / es, "granule %zu", g);
    size_t k = 0;
    for (size_t i = 0; i < n; i += piece, k++) {
        const size_t c = n - i < piece ? n - i : piece;
        OK(gp_reducer_push(r, (const char *)x + i * es, c, (k & 1) ? s2 : s1));
    }
    gp_reduce_result_t got;
    memset(&got, 0x5a, sizeof got);
    OK(gp_reducer_finish(r, &got));
    if (!rc_same(&got, want)) {
        CHECK(0, "reducer %s %s n=%zu in pieces of %zu tiles differs from gp_reduce", gp_reduce_op_name(op),
              gp_dtype_name(dt), n, tiles);
        rc_print("reducer", &got), rc_print("reduce ", want);
    } else {
        tc_pass++;
    }
    /* reusable after finish: the whole array in one push */
    OK(gp_reducer_push(r, x, n, s1));
    OK(gp_reducer_finish(r, &got));
    CHECK(rc_same(&got, want), "reducer reuse %s %s n=%zu", gp_reduce_op_name(op), gp_dtype_name(dt), n);
    gp_reducer_destroy(r);
}

/* gp_reducer_transfer mid-array, twice: the first t1 tiles go to a reducer on ctx a (x_a: x in a's memory), the
 * partial tree moves to a reducer on ctx b, the next tiles up to t2 go there (x_b), it moves back to a for the rest:
 * the result must be bitwise *want. GPU <-> CPU when a and b are of both kinds. */
static inline void rc_check_transfer(gp_ctx_t *a, const void *x_a, gp_ctx_t *b, const void *x_b, gp_reduce_op_t op,
                                     gp_dtype_t dt, size_t n, size_t t1, size_t t2, const gp_reduce_result_t *want)
{
    gp_reducer_t *ra = NULL, *rb = NULL;
    OK(gp_reducer_create(a, op, dt, &ra));
    OK(gp_reducer_create(b, op, dt, &rb));
    if (!ra || !rb) {
        gp_reducer_destroy(ra), gp_reducer_destroy(rb);
        return;
    }
    const size_t g = gp_reducer_granule(ra), es = gp_dtype_size(dt);
    size_t e1 = t1 * g, e2 = t2 * g;
    if (e1 > n) e1 = n;
    if (e2 > n) e2 = n;
    if (e1) OK(gp_reducer_push(ra, x_a, e1, NULL));
    OK(gp_reducer_transfer(rb, ra));
    if (e2 > e1) OK(gp_reducer_push(rb, (const char *)x_b + e1 * es, e2 - e1, NULL));
    OK(gp_reducer_transfer(ra, rb));
    if (n > e2) OK(gp_reducer_push(ra, (const char *)x_a + e2 * es, n - e2, NULL));
    gp_reduce_result_t got;
    memset(&got, 0x5a, sizeof got);
    OK(gp_reducer_finish(ra, &got));
    if (!rc_same(&got, want)) {
        CHECK(0, "transfer %s %s n=%zu at tiles %zu and %zu differs from gp_reduce", gp_reduce_op_name(op),
              gp_dtype_name(dt), n, t1, t2);
        rc_print("transfer", &got), rc_print("reduce  ", want);
    } else {
        tc_pass++;
    }
    /* the source is left empty: finishing it gives the identity */
    gp_reduce_result_t id, none;
    OK(gp_reducer_finish(rb, &none));
    gp__reduce_identity(op, dt, &id);
    CHECK(rc_same(&none, &id), "transfer leaves src empty");
    /* misuse: a non-empty dst; a different op or dtype; the same reducer */
    if (n >= 1) {
        OK(gp_reducer_push(ra, x_a, 1, NULL));
        OK(gp_reducer_push(rb, x_b, 1, NULL));
        CHECK_ST(gp_reducer_transfer(rb, ra), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "dst already holds") != NULL, "%s", gp_last_error());
        OK(gp_reducer_finish(rb, &none));
        OK(gp_reducer_finish(ra, &none));
    }
    CHECK_ST(gp_reducer_transfer(ra, ra), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reducer_transfer(NULL, ra), GP_ERR_INVALID_ARG);
    gp_reducer_t *other = NULL;
    OK(gp_reducer_create(b, op == GP_REDUCE_SUM ? GP_REDUCE_MAX : GP_REDUCE_SUM, dt, &other));
    CHECK_ST(gp_reducer_transfer(other, ra), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "differ in op") != NULL, "%s", gp_last_error());
    gp_reducer_destroy(other);
    gp_reducer_destroy(ra);
    gp_reducer_destroy(rb);
}

/* Reducer misuse: a partial tile ends the array; misaligned and NULL pieces; nothing pushed gives the identity. */
static inline void rc_reducer_errors(gp_ctx_t *ctx, const void *x8 /* 2 granules of f32, 16-byte aligned */)
{
    gp_reducer_t *r = NULL;
    gp_reduce_result_t res, id;
    CHECK_ST(gp_reducer_create(ctx, GP_REDUCE_XOR, GP_F32, &r), GP_ERR_UNSUPPORTED);
    CHECK(r == NULL, "no reducer on error");
    CHECK_ST(gp_reducer_create(ctx, GP_REDUCE_SUM, GP_F32, NULL), GP_ERR_INVALID_ARG);
    OK(gp_reducer_create(ctx, GP_REDUCE_ARGMAX, GP_F32, &r));
    OK(gp_reducer_finish(r, &res));
    gp__reduce_identity(GP_REDUCE_ARGMAX, GP_F32, &id);
    CHECK(rc_same(&res, &id) && res.index == -1, "empty reducer gives the identity");
    CHECK_ST(gp_reducer_push(r, NULL, 5, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reducer_push(r, (const char *)x8 + 2, 5, NULL), GP_ERR_INVALID_ARG);
    OK(gp_reducer_push(r, x8, 100, NULL));
    CHECK_ST(gp_reducer_push(r, x8, 16384, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "ended the array") != NULL, "%s", gp_last_error());
    OK(gp_reducer_finish(r, &res));
    CHECK(res.index >= 0 && res.index < 100, "argmax index %lld", (long long)res.index);
    CHECK_ST(gp_reducer_finish(r, NULL), GP_ERR_INVALID_ARG);
    gp_reducer_destroy(r);
    gp_reducer_destroy(NULL);
}

typedef struct rc_sink {
    gp_reducer_t *r;
    size_t next, chunks, granule, bad;
} rc_sink_t;

static inline gp_status_t rc_sink_push(void *user, const void *chunk, size_t count, size_t first, gp_stream_t s)
{
    rc_sink_t *k = user;
    if (first != k->next) k->bad++;
    if (count % k->granule && k->bad == 0) k->granule = (size_t)-1; /* only the last may be partial: checked later */
    k->next = first + count;
    k->chunks++;
    return gp_reducer_push(k->r, chunk, count, s);
}

/* Writes host array x (n elements of dt) to a temporary file, streams it through gp_array_stream into a reducer on
 * ctx with chunks of chunk_bytes: the result must be bitwise *want. Also through a pipe-like FILE (fmemopen). */
static inline void rc_check_file_stream(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dt, const void *x, size_t n,
                                        size_t chunk_bytes, const gp_reduce_result_t *want)
{
    const size_t es = gp_dtype_size(dt);
    char path[] = "/tmp/gp_stream_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "mkstemp");
    FILE *f = fdopen(fd, "w+b");
    REQUIRE(f && fwrite("HDR", 1, 3, f) == 3 && fwrite(x, es, n, f) == n, "writing %s", path);
    fflush(f);
    for (int pass = 0; pass < 3; pass++) { /* 0: the file (pread), 1: a pipe-like stream, 2: mapped and pinned */
        FILE *in = f;
        void *copy = NULL;
        if (pass == 1) { /* not a regular file: read sequentially */
            copy = malloc(n * es + 3);
            memcpy(copy, "HDR", 3);
            memcpy((char *)copy + 3, x, n * es);
            in = fmemopen(copy, n * es + 3, "rb");
            REQUIRE(in, "fmemopen");
        }
        fseek(in, 3, SEEK_SET);
        gp_array_desc_t d;
        memset(&d, 0, sizeof d);
        d.dtype = dt, d.elem_size = es, d.ndim = 1, d.count = n, d.data_offset = 3;
        gp_reducer_t *r = NULL;
        OK(gp_reducer_create(ctx, op, dt, &r));
        rc_sink_t k = {r, 0, 0, gp_reducer_granule(r), 0};
        gp_stream_opts_t o;
        memset(&o, 0, sizeof o);
        o.chunk_bytes = chunk_bytes;
        o.threads = 4;
        o.map_pages = pass == 2;
        OK(gp_array_stream(ctx, in, &d, pass == 1 ? GP_COUNT_ALL : n, gp_reducer_granule(r), &o, rc_sink_push, &k));
        gp_reduce_result_t got;
        OK(gp_reducer_finish(r, &got));
        CHECK(k.bad == 0 && k.next == n, "chunks in order: next %zu of %zu, %zu out of order", k.next, n, k.bad);
        if (!rc_same(&got, want)) {
            CHECK(0, "streamed %s %s n=%zu chunk %zu (%s) differs from in-memory", gp_reduce_op_name(op),
                  gp_dtype_name(dt), n, chunk_bytes, pass == 1 ? "pipe" : pass ? "file, mapped" : "file");
            rc_print("streamed ", &got), rc_print("in-memory", want);
        } else {
            tc_pass++;
        }
        gp_reducer_destroy(r);
        if (pass == 1) {
            fclose(in);
            free(copy);
        }
    }
    /* A file shorter than the count: an error naming where the data ends. */
    gp_reducer_t *r = NULL;
    OK(gp_reducer_create(ctx, op, dt, &r));
    rc_sink_t k = {r, 0, 0, gp_reducer_granule(r), 0};
    gp_array_desc_t d;
    memset(&d, 0, sizeof d);
    d.dtype = dt, d.elem_size = es, d.ndim = 1, d.count = n + 5, d.data_offset = 3;
    fseek(f, 3, SEEK_SET);
    CHECK_ST(gp_array_stream(ctx, f, &d, n + 5, gp_reducer_granule(r), NULL, rc_sink_push, &k), GP_ERR_FORMAT);
    char want_msg[96];
    snprintf(want_msg, sizeof want_msg, "byte %zu: the data ends after %zu of %zu", 3 + n * es, n, n + 5);
    CHECK(strstr(gp_last_error(), want_msg) != NULL, "%s (wanted '%s')", gp_last_error(), want_msg);
    gp_reducer_destroy(r);
    fclose(f);
    unlink(path);
}

/* Segment bounds as the library clamps them. */
static inline void rc_seg_bounds(const int64_t *off, size_t i, size_t n, size_t *b, size_t *e)
{
    int64_t lo = off[i], hi = off[i + 1];
    lo = lo < 0 ? 0 : lo > (int64_t)n ? (int64_t)n : lo;
    hi = hi < lo ? lo : hi > (int64_t)n ? (int64_t)n : hi;
    *b = (size_t)lo, *e = (size_t)hi;
}

/* A skewed CSR layout over n elements: empties, tiny, the tree's edge lengths, medium, and the rest in huge
 * segments; plus (bad = 1) out-of-range, decreasing and overlapping offsets. Returns nseg; off has nseg + 1 entries. */
static inline size_t rc_seg_layout(int64_t *off, size_t cap, size_t n, int bad)
{
    static const size_t edges[] = {0, 1, 2, 31, 32, 33, 2047, 2048, 2049, 16383, 16384, 16385, 32768, 32769};
    size_t k = 0, pos = 0;
    off[k++] = 0;
    for (size_t i = 0; k + 2 < cap && pos < n; i++) {
        size_t L;
        const uint64_t r = tc_next();
        if (i < sizeof edges / sizeof edges[0]) L = edges[i];
        else if (r % 4 == 0) L = 0;
        else if (r % 4 == 1) L = (size_t)(r >> 8) % 40;
        else if (r % 4 == 2) L = (size_t)(r >> 8) % 5000;
        else L = (r >> 8) % 16 == 0 ? (size_t)(r >> 12) % (n / 4 + 1) : (size_t)(r >> 8) % 300;
        if (L > n - pos) L = n - pos;
        pos += L;
        off[k++] = (int64_t)pos;
    }
    if (bad && k + 6 < cap) {
        off[k++] = (int64_t)n + 100; /* past the end: clamped */
        off[k++] = 5;                /* decreasing: empty */
        off[k++] = (int64_t)n;       /* overlaps what came before */
        off[k++] = -7;               /* negative: clamped */
        off[k++] = (int64_t)n;
    }
    return k - 1;
}

/* gp_reduce_segmented on ctx over host data x (copied to the device on a GPU) against per-segment gp_reduce
 * references (bitwise: the CPU backend's gp_reduce tree differs from the segment tree, so the reference is the exact
 * answer for integer-valued data) and, on a GPU, bitwise against the CPU backend. */
static inline void rc_check_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dt, const void *x, size_t n,
                                      const int64_t *off, size_t nseg, int exact, gp_stream_t stream)
{
    const int gpu = gp_ctx_device(ctx) != GP_DEVICE_CPU;
    const size_t es = gp_dtype_size(dt), osz = gp_dtype_size(gp_reduce_acc_dtype(op, dt));
    unsigned char *got = malloc(nseg * osz + 8), *cpu = malloc(nseg * osz + 8);
    memset(got, 0x7b, nseg * osz);
    if (gpu) {
        gp_buffer_t dx, doff, dout;
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, n * es + 16, &dx));
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, (nseg + 1) * 8, &doff));
        OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nseg * osz + 8, &dout));
        OK(gp_memcpy_sync(ctx, dx.device, x, n * es));
        OK(gp_memcpy_sync(ctx, doff.device, off, (nseg + 1) * 8));
        OK(gp_memset(ctx, dout.device, 0x7b, nseg * osz, NULL));
        OK(gp_stream_sync(ctx, NULL));
        OK(gp_reduce_segmented(ctx, op, dt, n, dx.device, nseg, doff.device, dout.device, stream));
        OK(gp_stream_sync(ctx, stream));
        OK(gp_memcpy_sync(ctx, got, dout.device, nseg * osz));
        gp_mem_free(ctx, &dx), gp_mem_free(ctx, &doff), gp_mem_free(ctx, &dout);
        gp__reduce_cpu_segmented(op, dt, n, x, nseg, (const long long *)off, cpu, 1);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < nseg; i++)
            if (memcmp(got + i * osz, cpu + i * osz, osz) != 0 && !bad++) first = i;
        CHECK(bad == 0, "segmented %s %s: %zu of %zu segments differ from the CPU backend's bits (first %zu)",
              gp_reduce_op_name(op), gp_dtype_name(dt), bad, nseg, first);
    } else {
        OK(gp_reduce_segmented(ctx, op, dt, n, x, nseg, off, got, NULL));
    }
    if (exact) {
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < nseg; i++) {
            size_t b, e;
            rc_seg_bounds(off, i, n, &b, &e);
            gp_reduce_result_t want, g;
            rc_reference((const char *)x + b * es, dt, e - b, op, &want);
            g = want;
            g.value.u64 = 0;
            memcpy(&g.value, got + i * osz, osz);
            if (!rc_equal_value(&g, &want) && !bad++) first = i;
        }
        CHECK(bad == 0, "segmented %s %s: %zu of %zu segments differ from the exact answer (first %zu)",
              gp_reduce_op_name(op), gp_dtype_name(dt), bad, nseg, first);
    }
    free(got), free(cpu);
}

static inline void rc_test_segmented(gp_ctx_t *ctx, size_t n, gp_stream_t stream)
{
    static const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_PROD, GP_REDUCE_MIN, GP_REDUCE_MAX, GP_REDUCE_AND,
                                         GP_REDUCE_OR, GP_REDUCE_XOR, GP_REDUCE_COUNT_NONZERO};
    const size_t cap = 200000;
    int64_t *off = malloc(cap * sizeof *off);
    for (size_t d = 0; d < RC_NDTYPES; d++)
        for (size_t o = 0; o < 8; o++) {
            const gp_dtype_t dt = rc_dtypes[d];
            if (gp_reduce_acc_dtype(ops[o], dt) == GP_DTYPE_COUNT) continue;
            void *x = malloc(n * gp_dtype_size(dt) + 8);
            rc_fill(x, dt, n, ops[o]);
            const size_t nseg = rc_seg_layout(off, cap, n, (int)(o & 1));
            rc_check_segmented(ctx, ops[o], dt, x, n, off, nseg, 1, stream);
            free(x);
        }
    /* real-valued f32 sums (rounding differs by tree: bitwise vs the CPU backend on a GPU), uniform segments */
    float *xf = malloc(n * sizeof *xf);
    tc_fill(xf, n, GP_F32);
    for (size_t len = 1; len <= 65536 && len <= n; len *= 8) {
        const size_t nseg = n / len < cap - 1 ? n / len : cap - 2;
        for (size_t i = 0; i <= nseg; i++) off[i] = (int64_t)(i * len);
        rc_check_segmented(ctx, GP_REDUCE_SUM, GP_F32, xf, n, off, nseg, 0, stream);
    }
    /* overlapping huge segments: more chunks than the queue's table holds (the self-reduced path), same bits */
    const size_t reps = 40;
    for (size_t i = 0; i < reps; i++) off[2 * i] = 0, off[2 * i + 1] = (int64_t)n;
    off[2 * reps] = 0;
    rc_check_segmented(ctx, GP_REDUCE_SUM, GP_F32, xf, n, off, 2 * reps - 1, 0, stream);
    OK(gp_reduce_segmented(ctx, GP_REDUCE_SUM, GP_F32, 0, NULL, 0, NULL, NULL, NULL)); /* nseg = 0: nothing to do */
    /* errors name the argument and write nothing */
    float o4[4] = {7, 7, 7, 7};
    int64_t offs[3] = {0, 2, 4};
    CHECK_ST(gp_reduce_segmented(ctx, GP_REDUCE_ARGMAX, GP_F32, 4, xf, 2, offs, o4, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reduce_segmented(ctx, GP_REDUCE_SUM, GP_F32, 4, xf, 2, NULL, o4, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "offsets is NULL") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_reduce_segmented(ctx, GP_REDUCE_SUM, GP_F32, 4, xf, 2, offs, NULL, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_segmented(ctx, GP_REDUCE_SUM, GP_F64, 4, xf, 2, offs, (char *)o4 + 4, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_reduce_segmented(ctx, GP_REDUCE_XOR, GP_F32, 4, xf, 2, offs, o4, NULL), GP_ERR_UNSUPPORTED);
    CHECK(o4[0] == 7 && o4[3] == 7, "out written on error");
    free(xf);
    free(off);
}

/* Selectable accumulators: f16 / bf16 / f32 sums and products in f64 (x in ctx memory, xh the same data on the
 * host): GPU == CPU bits, the reducer gives the in-memory bits, the double sum is near the exact one; bad choices. */
static inline void rc_test_acc(gp_ctx_t *ctx, const void *x, const void *xh, size_t n, gp_dtype_t dt)
{
    gp_reduce_result_t a, b, c;
    OK(gp_reduce_acc_sync(ctx, GP_REDUCE_SUM, dt, GP_F64, n, x, &a));
    CHECK(a.acc_dtype == GP_F64, "acc f64 reports %s", gp_dtype_name((gp_dtype_t)a.acc_dtype));
    OK(gp__reduce_cpu(GP_REDUCE_SUM, dt, 1, n, xh, &b, 1));
    CHECK(memcmp(&a, &b, sizeof a) == 0, "acc f64 sum %s n=%zu: %.17g vs CPU %.17g", gp_dtype_name(dt), n, a.value.f64,
          b.value.f64);
    long double exact = 0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        const long double v = rc_fval(xh, dt, i);
        exact += v, mag += fabsl(v);
    }
    CHECK(fabsl((long double)a.value.f64 - exact) <= 1e-13L * mag + 1e-300L, "acc f64 sum %s n=%zu: %.17g vs exact %.17Lg",
          gp_dtype_name(dt), n, a.value.f64, exact);
    gp_reducer_t *r = NULL;
    OK(gp_reducer_create_acc(ctx, GP_REDUCE_SUM, dt, GP_F64, &r));
    if (r) {
        const size_t piece = 3 * gp_reducer_granule(r), es = gp_dtype_size(dt);
        for (size_t i = 0; i < n; i += piece) OK(gp_reducer_push(r, (const char *)x + i * es, n - i < piece ? n - i : piece, NULL));
        OK(gp_reducer_finish(r, &c));
        CHECK(memcmp(&a, &c, sizeof a) == 0, "acc f64 reducer %s n=%zu: %.17g vs %.17g", gp_dtype_name(dt), n,
              c.value.f64, a.value.f64);
        gp_reducer_destroy(r);
    }
    OK(gp_reduce_acc_sync(ctx, GP_REDUCE_PROD, dt, GP_F64, 0, NULL, &a));
    CHECK(a.value.f64 == 1.0 && a.acc_dtype == GP_F64, "acc f64 prod of nothing");
    OK(gp_reduce_acc_sync(ctx, GP_REDUCE_SUM, dt, GP_DTYPE_COUNT, n, x, &a)); /* the default */
    OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, dt, n, x, &b));
    CHECK(memcmp(&a, &b, sizeof a) == 0, "acc default differs from gp_reduce");
    CHECK_ST(gp_reduce_acc_sync(ctx, GP_REDUCE_MIN, dt, GP_F64, n, x, &a), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "acc f64 for min") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_reduce_acc_sync(ctx, GP_REDUCE_SUM, GP_I32, GP_F32, 1, x, &a), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reduce_acc_sync(ctx, GP_REDUCE_SUM, GP_I32, GP_I64, 1, x, &a), GP_OK); /* naming the default is fine */
    CHECK_ST(gp_reduce_acc_sync(ctx, GP_REDUCE_SUM, dt, (gp_dtype_t)99, n, x, &a), GP_ERR_INVALID_ARG);
}

#endif
