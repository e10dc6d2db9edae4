/*
 * matrix_common.h — the matrix tests' cases (test_matrix.c on the CPU, gpu_matrix.c): gp_matrix_transpose over every
 * dtype x layout pair x shape (empty, 1 x 1, row and column vectors, odd, non-multiples of the 32 tile) x leading
 * dimension padding, against an element-by-element reference, with dst poisoned: every storage byte that is not an
 * element of dst must keep its poison. gp_matrix_copy between lds, gp_matrix_alloc, and the refusals.
 */
#ifndef GP_TESTS_MATRIX_COMMON_H
#define GP_TESTS_MATRIX_COMMON_H

#include "common.h"
#include "core/half.h"

#include <math.h>
#include <stdint.h>

static const gp_dtype_t mc_dtypes[] = {GP_F32, GP_F64, GP_I32, GP_U8};
/* The transpose moves elements by size: one dtype of each size 1, 2, 4, 8 besides the above. */
static const gp_dtype_t mc_tdtypes[] = {GP_F32, GP_F64, GP_I32, GP_U8, GP_F16, GP_I16, GP_I64};

static inline size_t mc_inner(size_t rows, size_t cols, gp_layout_t l) { return l == GP_ROW_MAJOR ? cols : rows; }
static inline size_t mc_outer(size_t rows, size_t cols, gp_layout_t l) { return l == GP_ROW_MAJOR ? rows : cols; }
static inline size_t mc_off(const gp_matrix_t *m, size_t i, size_t j)
{
    return m->layout == GP_ROW_MAJOR ? i * m->ld + j : j * m->ld + i;
}
static inline size_t mc_span(size_t rows, size_t cols, gp_layout_t l, size_t ld)
{
    return rows && cols ? (mc_outer(rows, cols, l) - 1) * ld + mc_inner(rows, cols, l) : 0;
}

/* One transpose on ctx: src rows x cols (layout ls, ld padding pads), dst (layout ld_, padding padd). Memory from
 * gp_mem_alloc(GP_MEM_DEVICE) (host memory on the CPU backend). */
static inline void mc_transpose_case(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, size_t rows, size_t cols,
                                     gp_layout_t ls, size_t pads, gp_layout_t lds, size_t padd)
{
    const size_t es = gp_dtype_size(dt);
    gp_matrix_t src = {NULL, rows, cols, mc_inner(rows, cols, ls) + pads, dt, ls};
    gp_matrix_t dst = {NULL, cols, rows, mc_inner(cols, rows, lds) + padd, dt, lds};
    if (src.ld == 0) src.ld = 1;
    if (dst.ld == 0) dst.ld = 1;
    const size_t ns = mc_span(rows, cols, ls, src.ld), nd = mc_span(cols, rows, lds, dst.ld);
    unsigned char *hs = malloc(ns * es + 1), *hd = malloc(nd * es + 1);
    for (size_t b = 0; b < ns * es; b++) hs[b] = (unsigned char)(tc_next() >> 24);
    memset(hd, 0xa5, nd * es + 1);
    gp_buffer_t bs, bd;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, ns * es + 16, &bs));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nd * es + 16, &bd));
    OK(gp_memcpy_sync(ctx, bs.device, hs, ns * es));
    OK(gp_memcpy_sync(ctx, bd.device, hd, nd * es));
    src.data = bs.device, dst.data = bd.device;
    OK(gp_matrix_transpose(ctx, &dst, &src, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, hd, bd.device, nd * es));
    /* expected: poison everywhere, then the elements */
    unsigned char *want = malloc(nd * es + 1);
    memset(want, 0xa5, nd * es + 1);
    gp_matrix_t hsrc = src, hdst = dst;
    for (size_t i = 0; i < cols; i++)
        for (size_t j = 0; j < rows; j++)
            memcpy(want + mc_off(&hdst, i, j) * es, hs + mc_off(&hsrc, j, i) * es, es);
    size_t bad = 0;
    for (size_t b = 0; b < nd * es; b++) bad += hd[b] != want[b];
    CHECK(bad == 0, "transpose %s %zux%zu %s(+%zu) -> %s(+%zu): %zu bytes differ", gp_dtype_name(dt), rows, cols,
          ls == GP_ROW_MAJOR ? "row" : "col", pads, lds == GP_ROW_MAJOR ? "row" : "col", padd, bad);
    gp_mem_free(ctx, &bs), gp_mem_free(ctx, &bd);
    free(hs), free(hd), free(want);
}

static inline void mc_transpose_all(gp_ctx_t *ctx, gp_stream_t s, int big)
{
    static const size_t shapes[][2] = {{0, 5}, {5, 0}, {1, 1}, {1, 1000}, {1000, 1}, {31, 33}, {32, 32},
                                       {33, 31}, {257, 1031}, {1000, 3}, {3, 999}};
    for (size_t d = 0; d < sizeof mc_tdtypes / sizeof mc_tdtypes[0]; d++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int l = 0; l < 4; l++)
                mc_transpose_case(ctx, s, mc_tdtypes[d], shapes[k][0], shapes[k][1], (gp_layout_t)(l & 1),
                                  (k % 3) * 3, (gp_layout_t)(l >> 1), (k % 2) * 5);
    if (big)
        for (size_t d = 0; d < sizeof mc_tdtypes / sizeof mc_tdtypes[0]; d++) {
            mc_transpose_case(ctx, s, mc_tdtypes[d], 4097, 3001, GP_ROW_MAJOR, 0, GP_ROW_MAJOR, 7);
            mc_transpose_case(ctx, s, mc_tdtypes[d], 70001, 33, GP_COL_MAJOR, 1, GP_COL_MAJOR, 0);
            mc_transpose_case(ctx, s, mc_tdtypes[d], 1030, 4100, GP_ROW_MAJOR, 0, GP_ROW_MAJOR, 2);
        }
}

/* gp_matrix_alloc + gp_matrix_copy host -> pitched -> host with different lds; refusals write nothing. */
static inline void mc_alloc_copy_errors(gp_ctx_t *ctx)
{
    gp_matrix_t m;
    gp_pitched_t mem;
    OK(gp_matrix_alloc(ctx, 37, 101, GP_F64, GP_COL_MAJOR, &m, &mem));
    CHECK(m.ld >= 37 && m.rows == 37 && m.cols == 101 && m.data == mem.ptr, "alloc: ld %zu", m.ld);
    double *h = malloc(40 * 101 * sizeof *h), *back = malloc(40 * 101 * sizeof *back);
    for (size_t i = 0; i < 40 * 101; i++) h[i] = (double)(tc_next() >> 11), back[i] = -1;
    gp_matrix_t hm = {h, 37, 101, 40, GP_F64, GP_COL_MAJOR}, hb = {back, 37, 101, 40, GP_F64, GP_COL_MAJOR};
    OK(gp_matrix_copy(ctx, &m, &hm, NULL));
    OK(gp_matrix_copy(ctx, &hb, &m, NULL));
    OK(gp_stream_sync(ctx, NULL));
    size_t bad = 0;
    for (size_t j = 0; j < 101; j++)
        for (size_t i = 0; i < 40; i++) bad += back[j * 40 + i] != (i < 37 ? h[j * 40 + i] : -1.0);
    CHECK(bad == 0, "copy through a pitched matrix: %zu differ", bad);
    /* refusals */
    gp_matrix_t t = {back, 101, 37, 37, GP_F64, GP_ROW_MAJOR};
    CHECK_ST(gp_matrix_copy(ctx, &t, &m, NULL), GP_ERR_INVALID_ARG);
    gp_matrix_t small = hm;
    small.ld = 36;
    CHECK_ST(gp_matrix_copy(ctx, &m, &small, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "ld = 36") != NULL, "%s", gp_last_error());
    gp_matrix_t wrong = {back, 37, 101, 101, GP_F64, GP_ROW_MAJOR};
    CHECK_ST(gp_matrix_transpose(ctx, &wrong, &m, NULL), GP_ERR_INVALID_ARG);
    gp_matrix_t f16 = {back, 10, 10, 10, GP_F16, GP_ROW_MAJOR}, f32b = {h, 10, 10, 10, GP_F32, GP_ROW_MAJOR};
    CHECK_ST(gp_matrix_transpose(ctx, &f16, &f32b, NULL), GP_ERR_INVALID_ARG); /* dtypes differ */
    gp_matrix_t a = {h, 10, 10, 10, GP_F64, GP_ROW_MAJOR}, b = {h + 50, 10, 10, 10, GP_F64, GP_ROW_MAJOR};
    CHECK_ST(gp_matrix_transpose(ctx, &b, &a, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "overlap") != NULL, "%s", gp_last_error());
    gp_matrix_t nul = {NULL, 3, 3, 3, GP_F32, GP_ROW_MAJOR};
    CHECK_ST(gp_matrix_transpose(ctx, &nul, &a, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_matrix_transpose(ctx, NULL, &a, NULL), GP_ERR_INVALID_ARG);
    gp_matrix_t badl = a;
    badl.layout = (gp_layout_t)5;
    CHECK_ST(gp_matrix_copy(ctx, &badl, &a, NULL), GP_ERR_INVALID_ARG);
    size_t changed = 0;
    for (size_t j = 0; j < 101; j++)
        for (size_t i = 0; i < 40; i++) changed += back[j * 40 + i] != (i < 37 ? h[j * 40 + i] : -1.0);
    CHECK(changed == 0, "a refused call wrote %zu elements", changed);
    OK(gp_mem_free_pitched(ctx, &mem));
    free(h), free(back);
}


/* ------------------------------------------------------------------ add and GEMM */
static inline double mc_unit(void) { return (double)(tc_next() >> 11) * (2.0 / 9007199254740992.0) - 1.0; }

/* A matrix on ctx and its host copy: storage span filled with random values of dt (floats in [-1, 1), bf16 / f16
 * rounded from them). */
typedef struct mc_mat {
    gp_matrix_t dev, host;
    gp_buffer_t buf;
    size_t span;
} mc_mat_t;

static inline void mc_make(gp_ctx_t *ctx, mc_mat_t *m, gp_dtype_t dt, size_t rows, size_t cols, gp_layout_t l,
                           size_t pad, int fill_nan)
{
    const size_t es = gp_dtype_size(dt);
    m->host = (gp_matrix_t){NULL, rows, cols, mc_inner(rows, cols, l) + pad, dt, l};
    if (m->host.ld == 0) m->host.ld = 1;
    m->span = mc_span(rows, cols, l, m->host.ld);
    m->host.data = malloc(m->span * es + 8);
    for (size_t e = 0; e < m->span; e++) {
        char *p = (char *)m->host.data + e * es;
        if (fill_nan && dt == GP_F32) *(float *)p = NAN;
        else if (fill_nan && dt == GP_F64) *(double *)p = NAN;
        else if (dt == GP_F32) *(float *)p = (float)mc_unit();
        else if (dt == GP_F64) *(double *)p = mc_unit();
        else if (dt == GP_I32) *(int32_t *)p = (int32_t)(uint32_t)tc_next();
        else if (dt == GP_BF16 || dt == GP_F16) { /* [-1, 1) rounded to the type (NaN when poisoned) */
            const float v = fill_nan ? NAN : (float)mc_unit();
            *(uint16_t *)p = dt == GP_BF16 ? gp__f32_to_bf16(v) : gp__f32_to_f16(v);
        } else *(uint8_t *)p = (uint8_t)tc_next();
    }
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, m->span * es + 16, &m->buf));
    if (m->span) OK(gp_memcpy_sync(ctx, m->buf.device, m->host.data, m->span * es));
    m->dev = m->host;
    m->dev.data = m->buf.device;
}
static inline void mc_fetch(gp_ctx_t *ctx, const mc_mat_t *m, void *dst)
{
    if (m->span) OK(gp_memcpy_sync(ctx, dst, m->dev.data, m->span * gp_dtype_size(m->host.dtype)));
}
static inline void mc_free(gp_ctx_t *ctx, mc_mat_t *m)
{
    gp_mem_free(ctx, &m->buf);
    free(m->host.data);
}
static inline double mc_get(const gp_matrix_t *m, const void *data, size_t i, size_t j)
{
    const size_t o = mc_off(m, i, j);
    switch (m->dtype) {
    case GP_F32: return ((const float *)data)[o];
    case GP_F64: return ((const double *)data)[o];
    case GP_I32: return ((const int32_t *)data)[o];
    default: return ((const uint8_t *)data)[o];
    }
}

/* One add: every element against the formula (bitwise), every byte of c's storage that is not an element kept. */
static inline void mc_add_case(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, size_t rows, size_t cols, const gp_layout_t l[3],
                               size_t pad, double alpha, double beta)
{
    const size_t es = gp_dtype_size(dt);
    mc_mat_t a, b, c;
    mc_make(ctx, &a, dt, rows, cols, l[0], pad, alpha == 0.0);
    mc_make(ctx, &b, dt, rows, cols, l[1], pad + 1, beta == 0.0);
    mc_make(ctx, &c, dt, rows, cols, l[2], pad + 2, 0);
    OK(gp_matrix_add(ctx, alpha, &a.dev, beta, &b.dev, &c.dev, s));
    OK(gp_stream_sync(ctx, s));
    unsigned char *got = malloc(c.span * es + 8), *want = malloc(c.span * es + 8);
    mc_fetch(ctx, &c, got);
    memcpy(want, c.host.data, c.span * es);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            const size_t oa = mc_off(&a.host, i, j), ob = mc_off(&b.host, i, j), oc = mc_off(&c.host, i, j);
            const int ua = alpha != 0.0, ub = beta != 0.0;
            if (dt == GP_F32) {
                const float x = ((float *)a.host.data)[oa], y = ((float *)b.host.data)[ob], al = (float)alpha,
                            be = (float)beta;
                ((float *)want)[oc] = ua && ub ? fmaf(al, x, be * y) : ua ? al * x : ub ? be * y : 0.0f;
            } else if (dt == GP_F64) {
                const double x = ((double *)a.host.data)[oa], y = ((double *)b.host.data)[ob];
                ((double *)want)[oc] = ua && ub ? fma(alpha, x, beta * y) : ua ? alpha * x : ub ? beta * y : 0.0;
            } else {
                const uint32_t al = (uint32_t)(int64_t)alpha, be = (uint32_t)(int64_t)beta;
                uint32_t x = dt == GP_I32 ? ((uint32_t *)a.host.data)[oa] : ((uint8_t *)a.host.data)[oa];
                uint32_t y = dt == GP_I32 ? ((uint32_t *)b.host.data)[ob] : ((uint8_t *)b.host.data)[ob];
                const uint32_t r = (ua ? al * x : 0u) + (ub ? be * y : 0u);
                if (dt == GP_I32) ((uint32_t *)want)[oc] = r;
                else ((uint8_t *)want)[oc] = (uint8_t)r;
            }
        }
    size_t bad = 0;
    for (size_t e = 0; e < c.span * es; e++) bad += got[e] != want[e];
    CHECK(bad == 0, "add %s %zux%zu layouts %d%d%d pad %zu alpha %g beta %g: %zu bytes differ", gp_dtype_name(dt), rows,
          cols, l[0], l[1], l[2], pad, alpha, beta, bad);
    free(got), free(want);
    mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
}

static inline void mc_add_all(gp_ctx_t *ctx, gp_stream_t s, int big)
{
    static const size_t shapes[][2] = {{0, 4}, {1, 1}, {1, 77}, {77, 1}, {33, 31}, {64, 64}, {131, 257}};
    static const double fac[][2] = {{1.5, -0.25}, {0, 2}, {3, 0}, {0, 0}, {-1, 1}};
    for (size_t d = 0; d < 4; d++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int l = 0; l < 8; l++) {
                const gp_layout_t ls[3] = {(gp_layout_t)(l & 1), (gp_layout_t)(l >> 1 & 1), (gp_layout_t)(l >> 2)};
                const size_t f = (k + (size_t)l) % 5;
                const int integer = mc_dtypes[d] == GP_I32 || mc_dtypes[d] == GP_U8;
                mc_add_case(ctx, s, mc_dtypes[d], shapes[k][0], shapes[k][1], ls, k % 3,
                            integer ? floor(fac[f][0] * 2) : fac[f][0], integer ? floor(fac[f][1] * 7) : fac[f][1]);
            }
    if (big) {
        const gp_layout_t rrc[3] = {GP_ROW_MAJOR, GP_COL_MAJOR, GP_ROW_MAJOR};
        for (size_t d = 0; d < 4; d++) mc_add_case(ctx, s, mc_dtypes[d], 2049, 3001, rrc, 3, 2, -3);
    }
    /* in place: c = a; refusals */
    mc_mat_t a, b;
    mc_make(ctx, &a, GP_F32, 40, 50, GP_ROW_MAJOR, 2, 0);
    mc_make(ctx, &b, GP_F32, 40, 50, GP_ROW_MAJOR, 2, 0);
    OK(gp_matrix_add(ctx, 2.0, &a.dev, 1.0, &b.dev, &a.dev, s));
    OK(gp_stream_sync(ctx, s));
    float *got = malloc(a.span * 4);
    mc_fetch(ctx, &a, got);
    size_t bad = 0;
    for (size_t i = 0; i < 40; i++)
        for (size_t j = 0; j < 50; j++) {
            const size_t o = i * 52 + j;
            bad += got[o] != fmaf(2.0f, ((float *)a.host.data)[o], 1.0f * ((float *)b.host.data)[o]);
        }
    CHECK(bad == 0, "add in place: %zu differ", bad);
    gp_matrix_t shifted = a.dev;
    shifted.data = (float *)a.dev.data + 1;
    shifted.cols = 49;
    gp_matrix_t b49 = b.dev, i32 = b.dev;
    b49.cols = 49;
    i32.dtype = GP_I32;
    CHECK_ST(gp_matrix_add(ctx, 1, &shifted, 1, &b49, &shifted, s), GP_OK);
    gp_matrix_t a49 = a.dev;
    a49.cols = 49;
    CHECK_ST(gp_matrix_add(ctx, 1, &a49, 1, &b49, &shifted, s), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "overlaps") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_matrix_add(ctx, 1, &a.dev, 1, &b49, &a.dev, s), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_matrix_add(ctx, 1, &a.dev, 1, &i32, &a.dev, s), GP_ERR_INVALID_ARG);
    gp_matrix_t ia = a.dev, ib = b.dev;
    ia.dtype = ib.dtype = GP_I32;
    CHECK_ST(gp_matrix_add(ctx, 0.5, &ia, 1, &ib, &ib, s), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "alpha") != NULL, "%s", gp_last_error());
    gp_matrix_t h = a.dev;
    h.dtype = GP_F16;
    CHECK_ST(gp_matrix_add(ctx, 1, &h, 1, &h, &h, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_matrix_add(ctx, 1, NULL, 1, &b.dev, &a.dev, s), GP_ERR_INVALID_ARG);
    free(got);
    mc_free(ctx, &a), mc_free(ctx, &b);
}

/* One GEMM against a long double reference: |got - ref| <= (4 sqrt(k) + 8) u (|alpha| sum |a||b| + |beta c|);
 * beta = 0 runs with c poisoned with NaN; padding must keep its bytes. */
static inline void mc_gemm_case(gp_ctx_t *ctx, gp_stream_t s, gp_dtype_t dt, gp_op_t oa, gp_op_t ob, const gp_layout_t l[3],
                                size_t m, size_t n, size_t k, double alpha, double beta)
{
    const size_t es = gp_dtype_size(dt);
    mc_mat_t a, b, c;
    mc_make(ctx, &a, dt, oa == GP_OP_N ? m : k, oa == GP_OP_N ? k : m, l[0], (m + k) % 3, 0);
    mc_make(ctx, &b, dt, ob == GP_OP_N ? k : n, ob == GP_OP_N ? n : k, l[1], (n + 1) % 4, 0);
    mc_make(ctx, &c, dt, m, n, l[2], (m + n) % 5, beta == 0.0);
    OK(gp_gemm(ctx, oa, ob, alpha, &a.dev, &b.dev, beta, &c.dev, s));
    OK(gp_stream_sync(ctx, s));
    unsigned char *got = malloc(c.span * es + 8);
    mc_fetch(ctx, &c, got);
    const double u = dt == GP_F32 ? 1.0 / 16777216.0 : 1.0 / 9007199254740992.0;
    size_t bad = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            long double ref = 0, mag = 0;
            for (size_t l = 0; l < k && alpha != 0.0; l++) {
                const double x = oa == GP_OP_N ? mc_get(&a.host, a.host.data, i, l) : mc_get(&a.host, a.host.data, l, i);
                const double y = ob == GP_OP_N ? mc_get(&b.host, b.host.data, l, j) : mc_get(&b.host, b.host.data, j, l);
                ref += (long double)x * y, mag += fabsl((long double)x * y);
            }
            ref *= alpha, mag *= fabs(alpha);
            if (beta != 0.0) {
                const double c0 = mc_get(&c.host, c.host.data, i, j);
                ref += (long double)beta * c0, mag += fabsl((long double)beta * c0);
            }
            const double g = mc_get(&c.host, got, i, j);
            const double tol = (4.0 * sqrt((double)k) + 8.0) * u * (double)mag + 1e-300;
            if (!(fabs(g - (double)ref) <= tol)) {
                if (bad < 3)
                    fprintf(stderr, "    gemm (%zu, %zu): got %.17g want %.17Lg tol %.3g\n", i, j, g, ref, tol);
                bad++;
            }
        }
    /* padding untouched */
    size_t pad_changed = 0;
    for (size_t e = 0; e < c.span; e++) {
        const size_t o = c.host.layout == GP_ROW_MAJOR ? e % c.host.ld : e % c.host.ld;
        const size_t inner = mc_inner(m, n, c.host.layout);
        if (o >= inner) pad_changed += memcmp(got + e * es, (char *)c.host.data + e * es, es) != 0;
    }
    CHECK(bad == 0 && pad_changed == 0,
          "gemm %s op%c%c layouts %d%d%d m %zu n %zu k %zu alpha %g beta %g: %zu wrong, %zu padding changed",
          gp_dtype_name(dt), oa == GP_OP_N ? 'N' : 'T', ob == GP_OP_N ? 'N' : 'T', l[0], l[1], l[2], m, n, k, alpha,
          beta, bad, pad_changed);
    free(got);
    mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
}

static inline void mc_gemm_all(gp_ctx_t *ctx, gp_stream_t s, int big)
{
    static const size_t shapes[][3] = {{0, 5, 3}, {4, 0, 2}, {3, 4, 0}, {1, 1, 1}, {1, 37, 19}, {37, 1, 300},
                                       {33, 65, 17}, {129, 130, 131}};
    static const double fac[][2] = {{1.0, 0.0}, {-0.5, 2.0}, {0.0, 1.5}, {2.0, 0.0}};
    for (int d = 0; d < 2; d++)
        for (int ops = 0; ops < 4; ops++)
            for (int l = 0; l < 8; l++)
                for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                    const gp_layout_t ls[3] = {(gp_layout_t)(l & 1), (gp_layout_t)(l >> 1 & 1), (gp_layout_t)(l >> 2)};
                    const size_t f = (k + (size_t)l + (size_t)ops) % 4;
                    mc_gemm_case(ctx, s, d ? GP_F64 : GP_F32, (gp_op_t)(ops & 1), (gp_op_t)(ops >> 1), ls, shapes[k][0],
                                 shapes[k][1], shapes[k][2], fac[f][0], fac[f][1]);
                }
    if (big) {
        /* (2000 x 48 x 1500: n <= 64 with 16-byte rows and K split five ways) */
        static const size_t bshapes[][3] = {{1000, 1000, 1000}, {257, 4099, 515}, {8192, 64, 129}, {300, 200, 3000},
                                            {1031, 1029, 515}, {2000, 48, 1500}};
        for (int d = 0; d < 2; d++)
            for (size_t k = 0; k < sizeof bshapes / sizeof bshapes[0]; k++) {
                const gp_layout_t rr[3] = {GP_ROW_MAJOR, GP_ROW_MAJOR, GP_ROW_MAJOR},
                                  mix[3] = {GP_COL_MAJOR, GP_ROW_MAJOR, GP_COL_MAJOR};
                mc_gemm_case(ctx, s, d ? GP_F64 : GP_F32, GP_OP_N, GP_OP_N, rr, bshapes[k][0], bshapes[k][1],
                             bshapes[k][2], 1.0, 0.0);
                mc_gemm_case(ctx, s, d ? GP_F64 : GP_F32, GP_OP_T, GP_OP_N, mix, bshapes[k][1] % 700 + 3,
                             bshapes[k][0] % 900 + 5, bshapes[k][2], 0.75, -1.25);
            }
    }
    /* refusals: nothing written */
    mc_mat_t a, b, c;
    mc_make(ctx, &a, GP_F32, 8, 6, GP_ROW_MAJOR, 0, 0);
    mc_make(ctx, &b, GP_F32, 6, 5, GP_ROW_MAJOR, 0, 0);
    mc_make(ctx, &c, GP_F32, 8, 5, GP_ROW_MAJOR, 0, 0);
    CHECK_ST(gp_gemm(ctx, GP_OP_T, GP_OP_N, 1, &a.dev, &b.dev, 0, &c.dev, s), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "chain") != NULL, "%s", gp_last_error());
    CHECK_ST(gp_gemm(ctx, (gp_op_t)7, GP_OP_N, 1, &a.dev, &b.dev, 0, &c.dev, s), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_gemm(ctx, GP_OP_N, GP_OP_N, 1, &a.dev, &b.dev, 0, &a.dev, s), GP_ERR_INVALID_ARG);
    gp_matrix_t i32 = c.dev;
    i32.dtype = GP_I32;
    CHECK_ST(gp_gemm(ctx, GP_OP_N, GP_OP_N, 1, &a.dev, &b.dev, 0, &i32, s), GP_ERR_UNSUPPORTED);
    gp_matrix_t f64 = b.dev;
    f64.dtype = GP_F64;
    CHECK_ST(gp_gemm(ctx, GP_OP_N, GP_OP_N, 1, &a.dev, &f64, 0, &c.dev, s), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_gemm(ctx, GP_OP_N, GP_OP_N, 1, &a.dev, NULL, 0, &c.dev, s), GP_ERR_INVALID_ARG);
    OK(gp_stream_sync(ctx, s));
    float *back = malloc(c.span * 4);
    mc_fetch(ctx, &c, back);
    CHECK(memcmp(back, c.host.data, c.span * 4) == 0, "a refused gemm wrote into c");
    free(back);
    mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
}

/* ------------------------------------------------------------------ gp_gemm_ex: TF32, BF16, FP16 */
static inline gp_dtype_t mc_in_dtype(gp_gemm_precision_t p)
{
    return p == GP_GEMM_TF32 ? GP_F32 : p == GP_GEMM_BF16 ? GP_BF16 : GP_F16;
}
/* the value the tensor cores multiply: f32 truncated to TF32, or the 16-bit value widened */
static inline double mc_tc_get(gp_gemm_precision_t p, const gp_matrix_t *m, const void *data, size_t i, size_t j)
{
    const size_t o = mc_off(m, i, j);
    if (m->dtype == GP_F32) return p == GP_GEMM_TF32 ? gp__f32_to_tf32(((const float *)data)[o]) : ((const float *)data)[o];
    const uint16_t h = ((const uint16_t *)data)[o];
    return m->dtype == GP_BF16 ? gp__bf16_bits_to_f32(h) : gp__f16_bits_to_f32(h);
}
/* f32 / bf16 / f16 matrices for gp_gemm_ex: mc_make's (values in [-1, 1), 16-bit ones rounded; NaN when poison) */
static inline void mc_make_tc(gp_ctx_t *ctx, mc_mat_t *m, gp_dtype_t dt, size_t rows, size_t cols, gp_layout_t l,
                              size_t pad, int poison)
{
    mc_make(ctx, m, dt, rows, cols, l, pad, poison);
}

/* element (i, j) of gp_gemm_ex's result got against a long double reference over the rounded inputs (below) */
static inline int mc_gemm_ex_ok(gp_gemm_precision_t p, gp_dtype_t cdt, gp_op_t oa, gp_op_t ob, const mc_mat_t *a,
                                const mc_mat_t *b, const mc_mat_t *c, const unsigned char *got, size_t i, size_t j,
                                size_t k, double alpha, double beta, int show)
{
    const double u = 1.0 / 16777216.0, uo = cdt == GP_BF16 ? 1.0 / 256 : cdt == GP_F16 ? 1.0 / 2048 : 0.0;
    long double ref = 0, mag = 0;
    for (size_t q = 0; q < k && alpha != 0.0; q++) {
        const double x = oa == GP_OP_N ? mc_tc_get(p, &a->host, a->host.data, i, q) : mc_tc_get(p, &a->host, a->host.data, q, i);
        const double y = ob == GP_OP_N ? mc_tc_get(p, &b->host, b->host.data, q, j) : mc_tc_get(p, &b->host, b->host.data, j, q);
        ref += (long double)x * y, mag += fabsl((long double)x * y);
    }
    ref *= (float)alpha, mag *= fabs((float)alpha);
    if (beta != 0.0) {
        const double c0 = mc_tc_get(GP_GEMM_FP32, &c->host, c->host.data, i, j);
        ref += (long double)(float)beta * c0, mag += fabsl((long double)beta * c0);
    }
    const double g = mc_tc_get(GP_GEMM_FP32, &c->host, got, i, j);
    const double tol = (4.0 * sqrt((double)k) + 8.0) * u * (double)mag + uo * fabs((double)ref) +
                       (cdt == GP_F16 ? 0x1p-24 : 1e-300); /* an f16 subnormal: half of 2^-24 */
    const int ok = fabs(g - (double)ref) <= tol;
    if (!ok && show) fprintf(stderr, "    gemm_ex (%zu, %zu): got %.9g want %.9Lg tol %.3g\n", i, j, g, ref, tol);
    return ok;
}

/* One gp_gemm_ex against a long double reference over the rounded inputs: |got - ref| <= (4 sqrt(k) + 8) u32
 * (|alpha| sum |a||b| + |beta c|) (f32 accumulation), plus half an ulp of a 16-bit c; beta = 0 runs on NaN c;
 * padding keeps its bytes. off: elements the operands start past their allocation (misaligned rows). */
static inline void mc_gemm_ex_case(gp_ctx_t *ctx, gp_stream_t s, gp_gemm_precision_t p, gp_dtype_t cdt, gp_op_t oa,
                                   gp_op_t ob, const gp_layout_t l[3], size_t m, size_t n, size_t k, double alpha,
                                   double beta, size_t pad)
{
    const gp_dtype_t it = mc_in_dtype(p);
    const size_t es = gp_dtype_size(cdt);
    mc_mat_t a, b, c;
    mc_make_tc(ctx, &a, it, oa == GP_OP_N ? m : k, oa == GP_OP_N ? k : m, l[0], pad, 0);
    mc_make_tc(ctx, &b, it, ob == GP_OP_N ? k : n, ob == GP_OP_N ? n : k, l[1], pad ? pad + 1 : 0, 0);
    mc_make_tc(ctx, &c, cdt, m, n, l[2], (m + n) % 3, beta == 0.0);
    OK(gp_gemm_ex(ctx, p, oa, ob, alpha, &a.dev, &b.dev, beta, &c.dev, s));
    OK(gp_stream_sync(ctx, s));
    unsigned char *got = malloc(c.span * es + 8);
    mc_fetch(ctx, &c, got);
    size_t bad = 0;
    /* rows in parallel (the reference is the slow part); the first misses printed afterwards, in order */
#pragma omp parallel for reduction(+ : bad) schedule(dynamic, 8)
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) bad += !mc_gemm_ex_ok(p, cdt, oa, ob, &a, &b, &c, got, i, j, k, alpha, beta, 0);
    for (size_t i = 0, shown = 0; bad && i < m && shown < 3; i++)
        for (size_t j = 0; j < n && shown < 3; j++)
            shown += !mc_gemm_ex_ok(p, cdt, oa, ob, &a, &b, &c, got, i, j, k, alpha, beta, 1);
    size_t pad_changed = 0;
    const size_t inner = mc_inner(m, n, c.host.layout);
    for (size_t e = 0; e < c.span; e++)
        if (e % c.host.ld >= inner) pad_changed += memcmp(got + e * es, (char *)c.host.data + e * es, es) != 0;
    CHECK(bad == 0 && pad_changed == 0,
          "gemm_ex %s -> %s op%c%c layouts %d%d%d m %zu n %zu k %zu alpha %g beta %g pad %zu: %zu wrong, %zu padding "
          "changed", gp_gemm_precision_name(p), gp_dtype_name(cdt), oa == GP_OP_N ? 'N' : 'T', ob == GP_OP_N ? 'N' : 'T',
          l[0], l[1], l[2], m, n, k, alpha, beta, pad, bad, pad_changed);
    free(got);
    mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
}

static inline void mc_gemm_ex_all(gp_ctx_t *ctx, gp_stream_t s, int big)
{
    static const gp_gemm_precision_t ps[] = {GP_GEMM_TF32, GP_GEMM_BF16, GP_GEMM_BF16, GP_GEMM_FP16, GP_GEMM_FP16};
    static const gp_dtype_t cs[] = {GP_F32, GP_F32, GP_BF16, GP_F32, GP_F16};
    static const size_t shapes[][3] = {{0, 5, 3}, {4, 0, 2}, {3, 4, 0}, {1, 1, 1}, {1, 37, 19}, {37, 1, 300},
                                       {33, 65, 17}, {129, 130, 131}, {130, 257, 72}};
    static const double fac[][2] = {{1.0, 0.0}, {-0.5, 2.0}, {0.0, 1.5}, {2.0, 0.0}};
    for (int pi = 0; pi < 5; pi++)
        for (int ops = 0; ops < 4; ops++)
            for (int l = 0; l < 8; l++)
                for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                    const gp_layout_t ls[3] = {(gp_layout_t)(l & 1), (gp_layout_t)(l >> 1 & 1), (gp_layout_t)(l >> 2)};
                    const size_t f = (k + (size_t)l + (size_t)ops) % 4;
                    mc_gemm_ex_case(ctx, s, ps[pi], cs[pi], (gp_op_t)(ops & 1), (gp_op_t)(ops >> 1), ls, shapes[k][0],
                                    shapes[k][1], shapes[k][2], fac[f][0], fac[f][1], (k + (size_t)l) % 3);
                }
    if (big) {
        static const size_t bshapes[][3] = {{513, 1000, 777}, {8192, 64, 129}, {1031, 1029, 515}};
        for (int pi = 0; pi < 5; pi++)
            for (size_t k = 0; k < 3; k++) {
                const gp_layout_t rr[3] = {GP_ROW_MAJOR, GP_ROW_MAJOR, GP_ROW_MAJOR},
                                  mix[3] = {GP_COL_MAJOR, GP_ROW_MAJOR, GP_COL_MAJOR};
                mc_gemm_ex_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, bshapes[k][0], bshapes[k][1],
                                bshapes[k][2], 1.0, 0.0, 0);
                if (k == 0)
                    mc_gemm_ex_case(ctx, s, ps[pi], cs[pi], GP_OP_T, GP_OP_N, mix, 300, 200, 1000, 0.75, -1.25, 1);
            }
    }
    /* few tiles and a long K (on sm_90 the production choice splits K: partial products summed in order) */
    for (int pi = 0; pi < 5; pi++) {
        const gp_layout_t rr[3] = {GP_ROW_MAJOR, GP_ROW_MAJOR, GP_ROW_MAJOR}, mix[3] = {GP_COL_MAJOR, GP_COL_MAJOR, GP_ROW_MAJOR};
        mc_gemm_ex_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, 130, 40, 4100, 1.5, 0.0, 0);
        mc_gemm_ex_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_T, mix, 129, 33, 5001, -0.5, 0.75, 1);
        if (big) mc_gemm_ex_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, 300, 70, 8200, 1.0, 0.0, 0);
    }
    /* TF32 reads the top 19 bits of each f32 (the low 13 dropped, toward zero): one product per element of C (A m x
     * kk row-major, B as n x kk row-major with op T, only column 0 non-zero) is exact in f32, so C must equal the
     * product of the truncated values bit for bit: ties and near-ties of rounding (1 + 2^-11 -> 1, 1 + 3 2^-12 -> 1,
     * -(1 + 2^-10 + 2^-11) -> -(1 + 2^-10)), fresh random values with low bits set, a subnormal, a NaN whose payload
     * is only in the low 13 bits (reads as an infinity); -0 sums to +0. kk = 2: rows not 16-byte aligned (rewritten by a pass); kk =
     * 4: both operands K-major and aligned, read by the kernel as stored. */
    for (size_t kk = 2; kk <= 4; kk += 2) {
        enum { TM = 37, TN = 9 };
        mc_mat_t a, b, c;
        mc_make_tc(ctx, &a, GP_F32, TM, kk, GP_ROW_MAJOR, 0, 0);
        mc_make_tc(ctx, &b, GP_F32, TN, kk, GP_ROW_MAJOR, 0, 0);
        mc_make_tc(ctx, &c, GP_F32, TM, TN, GP_ROW_MAJOR, 0, 1);
        const uint32_t nan_lo = 0x7f800001u, sub = 0x00400fffu;
        float xa[TM * 4] = {0}, xb[TN * 4] = {0}, got[TM * TN];
        const float fixed[6] = {1.0f + 0x1p-11f, 1.0f + 0x3p-12f, -(1.0f + 0x1p-10f + 0x1p-11f), 1.0f + 0x1p-12f,
                                -0.0f, 3.0f};
        for (int i = 0; i < TM; i++) {
            float v = i < 6 ? fixed[i] : (float)((double)(tc_next() >> 40) * 0x1p-23 - 1.0);
            if (i == 6) memcpy(&v, &sub, 4);
            if (i == 7) memcpy(&v, &nan_lo, 4);
            if (i >= 8) { /* low 13 bits all set, or random */
                uint32_t u;
                memcpy(&u, &v, 4);
                u |= i % 2 ? 0x1fffu : (uint32_t)(tc_next() & 0x1fffu);
                memcpy(&v, &u, 4);
            }
            xa[i * kk] = v;
        }
        for (int j = 0; j < TN; j++) {
            float v = j == 0 ? 1.0f : j == 1 ? 1.0f + 0x1p-11f : (float)((double)(tc_next() >> 40) * 0x1p-23 - 1.0);
            uint32_t u;
            memcpy(&u, &v, 4);
            if (j >= 2) u |= 0x1000u;
            memcpy(&v, &u, 4);
            xb[j * kk] = v;
        }
        OK(gp_memcpy_sync(ctx, a.dev.data, xa, TM * kk * 4));
        OK(gp_memcpy_sync(ctx, b.dev.data, xb, TN * kk * 4));
        OK(gp_gemm_ex(ctx, GP_GEMM_TF32, GP_OP_N, GP_OP_T, 1.0, &a.dev, &b.dev, 0.0, &c.dev, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, got, c.dev.data, sizeof got));
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < TN; j++) {
                const float want = gp__f32_to_tf32(xa[i * kk]) * gp__f32_to_tf32(xb[j * kk]), g = got[i * TN + j];
                uint32_t gu, wu, au;
                memcpy(&gu, &g, 4), memcpy(&wu, &want, 4), memcpy(&au, &xa[i * kk], 4);
                CHECK(isnan(g) ? isnan(want) : gu == wu || (g == 0 && want == 0), "TF32 truncation (k %zu): a 0x%08x x b %.9g: got 0x%08x (%.9g), "
                      "want 0x%08x (%.9g)", kk, au, (double)xb[j * kk], gu, (double)g, wu, (double)want);
            }
        if (kk == 2) {
        /* refusals: wrong input dtypes, a 16-bit c for TF32, a precision that is none, nothing written */
        CHECK_ST(gp_gemm_ex(ctx, GP_GEMM_BF16, GP_OP_N, GP_OP_T, 1, &a.dev, &b.dev, 0, &c.dev, s), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "bf16") != NULL, "names the dtype: %s", gp_last_error());
        gp_matrix_t c16 = c.dev;
        c16.dtype = GP_F16;
        CHECK_ST(gp_gemm_ex(ctx, GP_GEMM_TF32, GP_OP_N, GP_OP_T, 1, &a.dev, &b.dev, 0, &c16, s), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_gemm_ex(ctx, (gp_gemm_precision_t)9, GP_OP_N, GP_OP_T, 1, &a.dev, &b.dev, 0, &c.dev, s),
                 GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "precision") != NULL, "names the precision: %s", gp_last_error());
        }
        mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
    }
}

/* gp_gemm_batched: each problem's bits equal gp_gemm_ex's on the same matrices (the same kernel per problem), with
 * gaps between the matrices, a broadcast operand (stride 0), and odd shapes; refusals. */
static inline void mc_gemm_batched_case(gp_ctx_t *ctx, gp_stream_t s, gp_gemm_precision_t p, gp_dtype_t cdt, gp_op_t oa,
                                        gp_op_t ob, const gp_layout_t l[3], size_t m, size_t n, size_t k, size_t batch,
                                        int bcast_b, double beta, int aligned)
{
    const gp_dtype_t it = p == GP_GEMM_FP32 ? cdt : mc_in_dtype(p);
    const size_t ies = gp_dtype_size(it), ces = gp_dtype_size(cdt);
    mc_mat_t a, b, c;
    mc_make_tc(ctx, &a, it, oa == GP_OP_N ? m : k, oa == GP_OP_N ? k : m, l[0], aligned ? 0 : 1, 0);
    mc_make_tc(ctx, &b, it, ob == GP_OP_N ? k : n, ob == GP_OP_N ? n : k, l[1], 0, 0);
    mc_make_tc(ctx, &c, cdt, m, n, l[2], 2, 0);
    /* batch copies side by side with gaps: strides = span + 8 (a), + 16 (b), + 24 (c) elements (aligned: a and b
     * rounded up to 16 bytes, so K-major operands go to the kernel as they are) */
    const size_t al = aligned ? 8 : 1, sa = (a.span + 8 + al - 1) / al * al,
                 sb = bcast_b ? 0 : (b.span + 16 + al - 1) / al * al, sc = c.span + 24;
    const size_t na = sa * batch, nb = bcast_b ? b.span : sb * batch, nc = sc * batch;
    unsigned char *ha = malloc(na * ies + 8), *hb = malloc(nb * ies + 8), *hc = malloc(nc * ces + 8),
                  *g1 = malloc(nc * ces + 8), *g2 = malloc(nc * ces + 8);
    for (size_t i = 0; i < batch; i++) { /* fresh values per problem: copies of the random matrices, perturbed */
        memcpy(ha + i * sa * ies, a.host.data, a.span * ies);
        if (!bcast_b) memcpy(hb + i * sb * ies, b.host.data, b.span * ies);
        memcpy(hc + i * sc * ces, c.host.data, c.span * ces);
        if (ies == 4) ((float *)ha)[i * sa] = (float)mc_unit();
        else ((uint16_t *)ha)[i * sa] ^= (uint16_t)(i & 7);
    }
    if (bcast_b) memcpy(hb, b.host.data, b.span * ies);
    gp_buffer_t ba, bb, bc;
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, na * ies + 16, &ba));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nb * ies + 16, &bb));
    OK(gp_mem_alloc(ctx, GP_MEM_DEVICE, nc * ces + 16, &bc));
    OK(gp_memcpy_sync(ctx, ba.device, ha, na * ies));
    OK(gp_memcpy_sync(ctx, bb.device, hb, nb * ies));
    OK(gp_memcpy_sync(ctx, bc.device, hc, nc * ces));
    gp_matrix_t va = a.host, vb = b.host, vc = c.host;
    va.data = ba.device, vb.data = bb.device, vc.data = bc.device;
    OK(gp_gemm_batched(ctx, p, oa, ob, 0.75, &va, sa, &vb, sb, beta, &vc, sc, batch, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, g1, bc.device, nc * ces));
    OK(gp_memcpy_sync(ctx, bc.device, hc, nc * ces));
    for (size_t i = 0; i < batch; i++) { /* one at a time */
        gp_matrix_t xa = va, xb = vb, xc = vc;
        xa.data = (char *)ba.device + i * sa * ies, xb.data = (char *)bb.device + i * sb * ies;
        xc.data = (char *)bc.device + i * sc * ces;
        OK(gp_gemm_ex(ctx, p, oa, ob, 0.75, &xa, &xb, beta, &xc, s));
    }
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, g2, bc.device, nc * ces));
    CHECK(memcmp(g1, g2, nc * ces) == 0, "gemm_batched %s -> %s op%c%c layouts %d%d%d %zu x %zu x %zu x %zu%s: not "
          "gp_gemm_ex's bits (or the gaps changed)", gp_gemm_precision_name(p), gp_dtype_name(cdt),
          oa == GP_OP_N ? 'N' : 'T', ob == GP_OP_N ? 'N' : 'T', l[0], l[1], l[2], batch, m, n, k,
          bcast_b ? " (b broadcast)" : "");
    CHECK(memcmp(g1 + c.span * ces, hc + c.span * ces, 24 * ces) == 0, "gemm_batched wrote into the gap after c_0");
    if (batch > 1) { /* c's matrices overlapping: refused, nothing written */
        CHECK_ST(gp_gemm_batched(ctx, p, oa, ob, 1, &va, sa, &vb, sb, 0, &vc, c.span / 2, batch, s), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "stride_c") != NULL, "names stride_c: %s", gp_last_error());
    }
    OK(gp_gemm_batched(ctx, p, oa, ob, 1, &va, sa, &vb, sb, 0, &vc, sc, 0, s)); /* batch 0: nothing */
    gp_mem_free(ctx, &ba), gp_mem_free(ctx, &bb), gp_mem_free(ctx, &bc);
    free(ha), free(hb), free(hc), free(g1), free(g2);
    mc_free(ctx, &a), mc_free(ctx, &b), mc_free(ctx, &c);
}

static inline void mc_gemm_batched_all(gp_ctx_t *ctx, gp_stream_t s, int big)
{
    static const gp_gemm_precision_t ps[] = {GP_GEMM_TF32, GP_GEMM_BF16, GP_GEMM_BF16, GP_GEMM_FP16, GP_GEMM_FP32};
    static const gp_dtype_t cs[] = {GP_F32, GP_F32, GP_BF16, GP_F16, GP_F32};
    const gp_layout_t rr[3] = {GP_ROW_MAJOR, GP_ROW_MAJOR, GP_ROW_MAJOR}, mix[3] = {GP_COL_MAJOR, GP_ROW_MAJOR, GP_COL_MAJOR};
    for (int pi = 0; pi < 5; pi++) {
        mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, 33, 65, 17, 5, 0, 0.0, 0);
        mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_T, GP_OP_N, mix, 129, 70, 131, 3, 1, -0.5, 0);
        mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_T, rr, 1, 1, 1, 2, 0, 1.0, 0);
        /* A row-major N and B row-major T are K-major: with 16-byte rows and strides they are not copied */
        mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_T, rr, 72, 136, 64, 4, 0, 0.5, 1);
        mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_T, rr, 130, 260, 96, 3, 1, 0.0, 1);
        if (big) mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, 256, 256, 256, 40, 0, 0.0, 0);
        /* 140 problems of 2 tiles of 128 x 256: on sm_90 the batch runs 128 x 256 tiles (128 x 128 alone) */
        if (big) mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, 128, 264, 32, 140, 0, 0.0, 0);
        /* few tiles, long K: on sm_90 each problem's K is split (alone and in the batch alike) */
        mc_gemm_batched_case(ctx, s, ps[pi], cs[pi], GP_OP_N, GP_OP_N, rr, 130, 40, 4100, 2, 0, 0.5, 0);
    }
}

#endif
