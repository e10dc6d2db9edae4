/*
 * matrix_common.h — the matrix tests' cases (test_matrix.c on the CPU, gpu_matrix.c): gp_matrix_transpose over every
 * dtype x layout pair x shape (empty, 1 x 1, row and column vectors, odd, non-multiples of the 32 tile) x leading
 * dimension padding, against an element-by-element reference, with dst poisoned: every storage byte that is not an
 * element of dst must keep its poison. gp_matrix_copy between lds, gp_matrix_alloc, and the refusals.
 */
#ifndef GP_TESTS_MATRIX_COMMON_H
#define GP_TESTS_MATRIX_COMMON_H

#include "common.h"

static const gp_dtype_t mc_dtypes[] = {GP_F32, GP_F64, GP_I32, GP_U8};

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
    for (size_t d = 0; d < sizeof mc_dtypes / sizeof mc_dtypes[0]; d++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int l = 0; l < 4; l++)
                mc_transpose_case(ctx, s, mc_dtypes[d], shapes[k][0], shapes[k][1], (gp_layout_t)(l & 1),
                                  (k % 3) * 3, (gp_layout_t)(l >> 1), (k % 2) * 5);
    if (big)
        for (size_t d = 0; d < sizeof mc_dtypes / sizeof mc_dtypes[0]; d++) {
            mc_transpose_case(ctx, s, mc_dtypes[d], 4097, 3001, GP_ROW_MAJOR, 0, GP_ROW_MAJOR, 7);
            mc_transpose_case(ctx, s, mc_dtypes[d], 70001, 33, GP_COL_MAJOR, 1, GP_COL_MAJOR, 0);
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
    gp_matrix_t f16 = {back, 10, 10, 10, GP_F16, GP_ROW_MAJOR}, f16b = {h, 10, 10, 10, GP_F16, GP_ROW_MAJOR};
    CHECK_ST(gp_matrix_transpose(ctx, &f16, &f16b, NULL), GP_ERR_UNSUPPORTED);
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

#endif
