/*
 * matrix.c — matrix views: pitched allocation, 2D copies and the out-of-place transpose (API, checks, the CPU
 * backend). A transpose between different layouts keeps every element's storage position (a 2D copy); between equal
 * layouts it transposes storage (transpose.cu on a GPU, cache-blocked loops here on the CPU).
 */
#include "matrix_internal.h"
#include "core/backend.h"

#include <string.h>

static gp__phys_t phys(const gp_matrix_t *m)
{
    gp__phys_t p;
    p.data = (char *)m->data;
    p.prows = m->layout == GP_ROW_MAJOR ? m->rows : m->cols;
    p.pcols = m->layout == GP_ROW_MAJOR ? m->cols : m->rows;
    p.ld = m->ld;
    p.es = gp_dtype_size(m->dtype);
    return p;
}

/* Checks a view: layout, dtype, ld, size, data. */
static gp_status_t check_view(const char *fn, const char *name, const gp_matrix_t *m)
{
    if (m == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is NULL", fn, name);
    if (m->layout != GP_ROW_MAJOR && m->layout != GP_COL_MAJOR)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s->layout %d is not a gp_layout_t", fn, name, (int)m->layout);
    if ((unsigned)m->dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s->dtype %d is not a gp_dtype_t", fn, name, (int)m->dtype);
    const gp__phys_t p = phys(m);
    if (p.prows == 0 || p.pcols == 0) return GP_OK; /* empty: data may be anything */
    if (m->ld < p.pcols)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s->ld = %zu is less than its %s (%zu)", fn, name, m->ld,
                         m->layout == GP_ROW_MAJOR ? "cols" : "rows", p.pcols);
    size_t span;
    if (!gp__mul_ok(p.prows - 1, m->ld, &span) || span > SIZE_MAX - p.pcols || !gp__mul_ok(span + p.pcols, p.es, &span))
        return gp__error(GP_ERR_OVERFLOW, "%s: %s spans more than the address space", fn, name);
    if (m->data == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: %s->data is NULL", fn, name);
    if ((uintptr_t)m->data % p.es)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s->data is not %zu-byte aligned", fn, name, p.es);
    return GP_OK;
}

static size_t span_bytes(const gp__phys_t *p) { return p->prows && p->pcols ? ((p->prows - 1) * p->ld + p->pcols) * p->es : 0; }

gp_status_t gp_matrix_alloc(gp_ctx_t *ctx, size_t rows, size_t cols, gp_dtype_t dtype, gp_layout_t layout,
                            gp_matrix_t *m, gp_pitched_t *mem)
{
    static const char fn[] = "gp_matrix_alloc";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if (m == NULL || mem == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: m or mem is NULL", fn);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (layout != GP_ROW_MAJOR && layout != GP_COL_MAJOR)
        return gp__error(GP_ERR_INVALID_ARG, "%s: layout %d is not a gp_layout_t", fn, (int)layout);
    const size_t es = gp_dtype_size(dtype), prows = layout == GP_ROW_MAJOR ? rows : cols,
                 pcols = layout == GP_ROW_MAJOR ? cols : rows;
    size_t wb;
    if (!gp__mul_ok(pcols, es, &wb)) return gp__error(GP_ERR_OVERFLOW, "%s: %zu x %zu is too large", fn, rows, cols);
    GP_TRY_RET(gp_mem_alloc_2d(ctx, wb, prows, mem));
    m->data = mem->ptr;
    m->rows = rows, m->cols = cols;
    m->ld = mem->pitch / es > pcols ? mem->pitch / es : pcols;
    m->dtype = dtype, m->layout = layout;
    return GP_OK;
}

gp_status_t gp_matrix_copy(gp_ctx_t *ctx, const gp_matrix_t *dst, const gp_matrix_t *src, gp_stream_t stream)
{
    static const char fn[] = "gp_matrix_copy";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(check_view(fn, "dst", dst));
    GP_TRY_RET(check_view(fn, "src", src));
    if (dst->rows != src->rows || dst->cols != src->cols || dst->dtype != src->dtype || dst->layout != src->layout)
        return gp__error(GP_ERR_INVALID_ARG,
                         "%s: dst (%zu x %zu %s %s) and src (%zu x %zu %s %s) differ (gp_matrix_transpose changes "
                         "layouts)", fn, dst->rows, dst->cols, gp_dtype_name(dst->dtype),
                         dst->layout == GP_ROW_MAJOR ? "row-major" : "column-major", src->rows, src->cols,
                         gp_dtype_name(src->dtype), src->layout == GP_ROW_MAJOR ? "row-major" : "column-major");
    const gp__phys_t d = phys(dst), s = phys(src);
    if (d.prows == 0 || d.pcols == 0) return GP_OK;
    return gp_memcpy_2d(ctx, d.data, d.ld * d.es, s.data, s.ld * s.es, s.pcols * s.es, s.prows, stream);
}

/* 32 x 32 blocks, typed: the inner loop reads a row of the block and writes a column (one cache line of the
 * output per row of the block); the element size picks the type (every dtype is 1, 2, 4 or 8 bytes). */
#define TRANSPOSE_CPU(T)                                                                                              \
    do {                                                                                                              \
        const T *I = (const T *)in->data;                                                                             \
        T *O = (T *)out->data;                                                                                        \
        _Pragma("omp parallel for schedule(static) if (par)")                                                       \
        for (long long pb = 0; pb < (long long)P; pb += B)                                                            \
            for (size_t qb = 0; qb < Q; qb += B) {                                                                    \
                const size_t pe = (size_t)pb + B < P ? (size_t)pb + B : P, qe = qb + B < Q ? qb + B : Q;              \
                for (size_t q = qb; q < qe; q++)                                                                      \
                    for (size_t p = (size_t)pb; p < pe; p++) O[q * out->ld + p] = I[p * in->ld + q];                \
            }                                                                                                         \
    } while (0)

void gp__transpose_cpu(const gp__phys_t *out, const gp__phys_t *in)
{
    enum { B = 32 };
    const size_t es = in->es, P = in->prows, Q = in->pcols;
    const int par = gp__cpu_par(1, P * Q * es * 2);
    if (es == 4) TRANSPOSE_CPU(uint32_t);
    else if (es == 8) TRANSPOSE_CPU(uint64_t);
    else if (es == 2) TRANSPOSE_CPU(uint16_t);
    else TRANSPOSE_CPU(uint8_t);
}

gp_status_t gp_matrix_transpose(gp_ctx_t *ctx, const gp_matrix_t *dst, const gp_matrix_t *src, gp_stream_t stream)
{
    static const char fn[] = "gp_matrix_transpose";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(check_view(fn, "dst", dst));
    GP_TRY_RET(check_view(fn, "src", src));
    if (dst->dtype != src->dtype)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dst is %s, src is %s", fn, gp_dtype_name(dst->dtype),
                         gp_dtype_name(src->dtype));
    if (dst->rows != src->cols || dst->cols != src->rows)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dst is %zu x %zu, the transpose of %zu x %zu src is %zu x %zu", fn,
                         dst->rows, dst->cols, src->rows, src->cols, src->cols, src->rows);
    const gp__phys_t d = phys(dst), s = phys(src);
    if (s.prows == 0 || s.pcols == 0) return GP_OK;
    const size_t db = span_bytes(&d), sb = span_bytes(&s);
    if (d.data < s.data + sb && s.data < d.data + db)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dst and src overlap (the transpose is out of place)", fn);
    if (dst->layout != src->layout) /* every element keeps its storage position */
        return gp_memcpy_2d(ctx, d.data, d.ld * d.es, s.data, s.ld * s.es, s.pcols * s.es, s.prows, stream);
    if (gp__is_cpu(ctx)) {
        gp__transpose_cpu(&d, &s);
        return GP_OK;
    }
    return gp__matrix_gpu_ops.transpose(ctx, &d, &s, (cudaStream_t)stream);
}

/* c and a share no byte of storage. */
static int apart(const gp_matrix_t *c, const gp_matrix_t *a)
{
    const gp__phys_t pc = phys(c), pa = phys(a);
    const size_t bc = span_bytes(&pc), ba = span_bytes(&pa);
    return !(bc && ba && pc.data < pa.data + ba && pa.data < pc.data + bc);
}

/* c is a itself (elementwise in place is safe), or they do not overlap at all. */
static int same_or_apart(const gp_matrix_t *c, const gp_matrix_t *a)
{
    return (c->data == a->data && c->ld == a->ld && c->layout == a->layout) || apart(c, a);
}

static gp_status_t check_int_factor(const char *fn, const char *name, double x)
{
    if (!(x == x) || x != (double)(long long)x || x > 9007199254740992.0 || x < -9007199254740992.0)
        return gp__error(GP_ERR_INVALID_ARG, "%s: %s = %g is not an integer (integer dtypes need integer factors)", fn,
                         name, x);
    return GP_OK;
}

gp_status_t gp_matrix_add(gp_ctx_t *ctx, double alpha, const gp_matrix_t *a, double beta, const gp_matrix_t *b,
                          const gp_matrix_t *c, gp_stream_t stream)
{
    static const char fn[] = "gp_matrix_add";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(check_view(fn, "a", a));
    GP_TRY_RET(check_view(fn, "b", b));
    GP_TRY_RET(check_view(fn, "c", c));
    const gp_dtype_t dt = c->dtype;
    if (dt != GP_F32 && dt != GP_F64 && dt != GP_I32 && dt != GP_U8)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: dtype %s (f32 f64 i32 u8 are supported)", fn, gp_dtype_name(dt));
    if (a->dtype != dt || b->dtype != dt)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtypes differ (a %s, b %s, c %s)", fn, gp_dtype_name(a->dtype),
                         gp_dtype_name(b->dtype), gp_dtype_name(dt));
    if (a->rows != c->rows || a->cols != c->cols || b->rows != c->rows || b->cols != c->cols)
        return gp__error(GP_ERR_INVALID_ARG, "%s: shapes differ (a %zu x %zu, b %zu x %zu, c %zu x %zu)", fn, a->rows,
                         a->cols, b->rows, b->cols, c->rows, c->cols);
    if (dt == GP_I32 || dt == GP_U8) {
        GP_TRY_RET(check_int_factor(fn, "alpha", alpha));
        GP_TRY_RET(check_int_factor(fn, "beta", beta));
    }
    if (!same_or_apart(c, a) || !same_or_apart(c, b))
        return gp__error(GP_ERR_INVALID_ARG, "%s: c overlaps a or b without being the same view", fn);
    const gp__phys_t pa = phys(a), pb = phys(b), pc = phys(c);
    gp__add_t op = {pc.prows, pc.pcols, pa.data, pb.data, pc.data, a->ld, b->ld, c->ld,
                    a->layout != c->layout, b->layout != c->layout, alpha != 0.0, beta != 0.0, alpha, beta};
    if (op.P == 0 || op.Q == 0) return GP_OK;
    if (gp__is_cpu(ctx)) {
        gp__add_cpu(dt, &op);
        return GP_OK;
    }
    return gp__matrix_gpu_ops.add(ctx, dt, &op, (cudaStream_t)stream);
}

const char *gp_gemm_precision_name(gp_gemm_precision_t p)
{
    switch (p) {
    case GP_GEMM_FP32: return "fp32";
    case GP_GEMM_TF32: return "tf32";
    case GP_GEMM_BF16: return "bf16";
    case GP_GEMM_FP16: return "fp16";
    default: return NULL;
    }
}

/* bytes from a view's first element to one past its last */
static size_t view_span(const gp_matrix_t *m)
{
    const gp__phys_t p = phys(m);
    return p.prows && p.pcols ? ((p.prows - 1) * m->ld + p.pcols) * p.es : 0;
}

/* the byte ranges of batch matrices stride elements apart do not meet */
static int batch_apart(const gp_matrix_t *x, size_t sx, const gp_matrix_t *y, size_t sy, size_t batch)
{
    const size_t ex = gp_dtype_size(x->dtype), ey = gp_dtype_size(y->dtype);
    const char *x0 = x->data, *y0 = y->data;
    const size_t bx = view_span(x) + (batch - 1) * sx * ex, by = view_span(y) + (batch - 1) * sy * ey;
    return !(view_span(x) && view_span(y) && x0 < y0 + by && y0 < x0 + bx);
}

static gp_status_t gemm(const char *fn, gp_ctx_t *ctx, gp_gemm_precision_t prec, gp_op_t opa, gp_op_t opb,
                        double alpha, const gp_matrix_t *a, const gp_matrix_t *b, double beta, const gp_matrix_t *c,
                        const gp__batch_t *bt, gp_stream_t stream)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if (gp_gemm_precision_name(prec) == NULL)
        return gp__error(GP_ERR_INVALID_ARG, "%s: precision %d is not a gp_gemm_precision_t", fn, (int)prec);
    if (opa != GP_OP_N && opa != GP_OP_T) return gp__error(GP_ERR_INVALID_ARG, "%s: opa %d is not a gp_op_t", fn, (int)opa);
    if (opb != GP_OP_N && opb != GP_OP_T) return gp__error(GP_ERR_INVALID_ARG, "%s: opb %d is not a gp_op_t", fn, (int)opb);
    GP_TRY_RET(check_view(fn, "a", a));
    GP_TRY_RET(check_view(fn, "b", b));
    GP_TRY_RET(check_view(fn, "c", c));
    const gp_dtype_t dt = c->dtype;
    if (prec == GP_GEMM_FP32) {
        if (dt != GP_F32 && dt != GP_F64)
            return gp__error(GP_ERR_UNSUPPORTED, "%s: dtype %s (f32 and f64 are supported)", fn, gp_dtype_name(dt));
        if (a->dtype != dt || b->dtype != dt)
            return gp__error(GP_ERR_INVALID_ARG, "%s: dtypes differ (a %s, b %s, c %s)", fn, gp_dtype_name(a->dtype),
                             gp_dtype_name(b->dtype), gp_dtype_name(dt));
    } else {
        const gp_dtype_t in = prec == GP_GEMM_TF32 ? GP_F32 : prec == GP_GEMM_BF16 ? GP_BF16 : GP_F16;
        if (a->dtype != in || b->dtype != in)
            return gp__error(GP_ERR_INVALID_ARG, "%s: precision %s takes a and b of %s (a is %s, b %s)", fn,
                             gp_gemm_precision_name(prec), gp_dtype_name(in), gp_dtype_name(a->dtype),
                             gp_dtype_name(b->dtype));
        if (dt != GP_F32 && dt != in)
            return gp__error(GP_ERR_INVALID_ARG, "%s: precision %s writes c as f32%s%s (c is %s)", fn,
                             gp_gemm_precision_name(prec), in == GP_F32 ? "" : " or ", in == GP_F32 ? "" : gp_dtype_name(in),
                             gp_dtype_name(dt));
    }
    const size_t m = opa == GP_OP_N ? a->rows : a->cols, k = opa == GP_OP_N ? a->cols : a->rows;
    const size_t kb = opb == GP_OP_N ? b->rows : b->cols, n = opb == GP_OP_N ? b->cols : b->rows;
    if (k != kb || c->rows != m || c->cols != n)
        return gp__error(GP_ERR_INVALID_ARG,
                         "%s: shapes do not chain: op(a) is %zu x %zu, op(b) %zu x %zu, c %zu x %zu (c must be %zu x "
                         "%zu)", fn, m, k, kb, n, c->rows, c->cols, m, n);
    if (!apart(c, a) || !apart(c, b)) return gp__error(GP_ERR_INVALID_ARG, "%s: c overlaps a or b", fn);
    if (bt) {
        size_t lim;
        if (bt->count > 1 && view_span(c) && bt->sc * gp_dtype_size(dt) < view_span(c))
            return gp__error(GP_ERR_INVALID_ARG, "%s: stride_c = %zu elements: c's matrices would overlap (each spans "
                             "%zu bytes)", fn, bt->sc, view_span(c));
        if (bt->count > 1 && (!batch_apart(c, bt->sc, a, bt->sa, bt->count) || !batch_apart(c, bt->sc, b, bt->sb, bt->count)))
            return gp__error(GP_ERR_INVALID_ARG, "%s: the c matrices overlap the a or b matrices", fn);
        if (!gp__mul_ok(bt->count, bt->sa > bt->sb ? (bt->sa > bt->sc ? bt->sa : bt->sc) : (bt->sb > bt->sc ? bt->sb : bt->sc), &lim) ||
            !gp__mul_ok(lim, 8, &lim))
            return gp__error(GP_ERR_OVERFLOW, "%s: batch = %zu of the strides spans more than the address space", fn,
                             bt->count);
        if (bt->count == 0) return GP_OK;
    }
    if (m == 0 || n == 0) return GP_OK;
    /* canonical form: C row-major; a column-major C is C^T = op(b)^T op(a)^T (operands swap) */
    const int a_kin = (opa == GP_OP_N) == (a->layout == GP_ROW_MAJOR);
    const int b_kin = (opb == GP_OP_T) == (b->layout == GP_ROW_MAJOR);
    gp__gemm_t g;
    if (c->layout == GP_ROW_MAJOR)
        g = (gp__gemm_t){m, n, k, a->data, b->data, c->data, a->ld, b->ld, c->ld, a_kin, b_kin, alpha, beta};
    else
        g = (gp__gemm_t){n, m, k, b->data, a->data, c->data, b->ld, a->ld, c->ld, b_kin, a_kin, alpha, beta};
    gp__batch_t bb = bt ? *bt : (gp__batch_t){1, 0, 0, 0};
    if (c->layout != GP_ROW_MAJOR) { /* the operands swapped: so do their strides */
        const size_t t = bb.sa;
        bb.sa = bb.sb, bb.sb = t;
    }
    if (prec != GP_GEMM_FP32 && !gp__is_cpu(ctx)) return gp__matrix_gpu_ops.gemm_tc(ctx, prec, dt, &g, &bb, (cudaStream_t)stream);
    /* one problem at a time */
    const size_t ea = gp_dtype_size(a->dtype), ec = gp_dtype_size(dt);
    for (size_t i = 0; i < bb.count; i++) {
        gp__gemm_t q = g;
        q.A = (const char *)g.A + i * bb.sa * ea, q.B = (const char *)g.B + i * bb.sb * ea, q.C = (char *)g.C + i * bb.sc * ec;
        gp_status_t st = prec != GP_GEMM_FP32 ? gp__gemm_tc_cpu(prec, dt, &q)
                         : gp__is_cpu(ctx)    ? gp__gemm_cpu(dt, &q, 1)
                                              : gp__matrix_gpu_ops.gemm(ctx, dt, &q, NULL, (cudaStream_t)stream);
        if (st != GP_OK) return st;
    }
    return GP_OK;
}

gp_status_t gp_gemm(gp_ctx_t *ctx, gp_op_t opa, gp_op_t opb, double alpha, const gp_matrix_t *a, const gp_matrix_t *b,
                    double beta, const gp_matrix_t *c, gp_stream_t stream)
{
    return gemm("gp_gemm", ctx, GP_GEMM_FP32, opa, opb, alpha, a, b, beta, c, NULL, stream);
}

gp_status_t gp_gemm_ex(gp_ctx_t *ctx, gp_gemm_precision_t precision, gp_op_t opa, gp_op_t opb, double alpha,
                       const gp_matrix_t *a, const gp_matrix_t *b, double beta, const gp_matrix_t *c, gp_stream_t stream)
{
    return gemm("gp_gemm_ex", ctx, precision, opa, opb, alpha, a, b, beta, c, NULL, stream);
}

gp_status_t gp_gemm_batched(gp_ctx_t *ctx, gp_gemm_precision_t precision, gp_op_t opa, gp_op_t opb, double alpha,
                            const gp_matrix_t *a, size_t stride_a, const gp_matrix_t *b, size_t stride_b, double beta,
                            const gp_matrix_t *c, size_t stride_c, size_t batch, gp_stream_t stream)
{
    const gp__batch_t bt = {batch, stride_a, stride_b, stride_c};
    return gemm("gp_gemm_batched", ctx, precision, opa, opb, alpha, a, b, beta, c, &bt, stream);
}

const gp__matrix_gpu_ops_t gp__matrix_gpu_ops = {
    .transpose = GP_GPU_SLOT(gp__transpose_gpu),
    .add = GP_GPU_SLOT(gp__add_gpu),
    .gemm = GP_GPU_SLOT(gp__gemm_gpu),
    .gemm_tc = GP_GPU_SLOT(gp__gemm_tc_gpu),
    .gemm_production = GP_GPU_SLOT(gp__gemm_kernel_production),
    .gemm_pick = GP_GPU_SLOT(gp__gemm_kernel_pick),
};
