/*
 * select.c — gp_select, gp_partition, gp_unique and gp_run_length_encode: the checks, the predicate normalized for
 * the dtype (gp__pred_t), the CPU backend (select / partition: counts per chunk in parallel, their prefix, then each
 * chunk copied to its place, stable; unique / RLE: one serial pass), and the GPU call (select.cu). Also gp_pred_parse.
 */
#include "scan_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

gp_status_t gp_pred_parse(const char *text, gp_pred_t *pred)
{
    static const char fn[] = "gp_pred_parse";
    GP_ARG_NONNULL(fn, text);
    GP_ARG_NONNULL(fn, pred);
    static const struct {
        const char *name;
        gp_pred_kind_t kind;
        int args;
    } k[] = {{"nonzero", GP_PRED_NONZERO, 0}, {"eq", GP_PRED_EQ, 1}, {"ne", GP_PRED_NE, 1}, {"lt", GP_PRED_LT, 1},
             {"le", GP_PRED_LE, 1},           {"gt", GP_PRED_GT, 1}, {"ge", GP_PRED_GE, 1}, {"in", GP_PRED_IN, 2},
             {"nan", GP_PRED_NAN, 0},         {"notnan", GP_PRED_NOT_NAN, 0}};
    const char *colon = strchr(text, ':');
    const size_t len = colon ? (size_t)(colon - text) : strlen(text);
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (strlen(k[i].name) != len || strncmp(text, k[i].name, len) != 0) continue;
        gp_pred_t p = {k[i].kind, 0, 0, NULL};
        if (k[i].args == 0) {
            if (colon) return gp__error(GP_ERR_INVALID_ARG, "%s: '%s' takes no value ('%s')", fn, k[i].name, text);
            *pred = p;
            return GP_OK;
        }
        if (!colon) return gp__error(GP_ERR_INVALID_ARG, "%s: '%s' needs a value ('%s:X')", fn, k[i].name, k[i].name);
        char *end = NULL;
        p.a = strtod(colon + 1, &end);
        if (end == colon + 1) return gp__error(GP_ERR_INVALID_ARG, "%s: '%s': no number after ':'", fn, text);
        if (k[i].args == 2) {
            if (*end != ',') return gp__error(GP_ERR_INVALID_ARG, "%s: '%s': in needs LO,HI", fn, text);
            const char *second = end + 1;
            p.b = strtod(second, &end);
            if (end == second) return gp__error(GP_ERR_INVALID_ARG, "%s: '%s': no number after ','", fn, text);
        }
        if (*end != '\0') return gp__error(GP_ERR_INVALID_ARG, "%s: '%s': unexpected '%s'", fn, text, end);
        *pred = p;
        return GP_OK;
    }
    return gp__error(GP_ERR_INVALID_ARG, "%s: '%s' is not a predicate (nonzero, eq:X, ne:X, lt:X, le:X, gt:X, ge:X, "
                                         "in:LO,HI, nan, notnan)", fn, text);
}

static int is_float(gp_dtype_t d) { return d == GP_F16 || d == GP_BF16 || d == GP_F32 || d == GP_F64; }
static int is_signed(gp_dtype_t d) { return d == GP_I8 || d == GP_I16 || d == GP_I32 || d == GP_I64; }

/* The integer values v of [tmin, tmax] with lo <= v <= hi for real lo, hi (lo = ceil, hi = floor already). */
static void int_range(gp__pred_t *q, int sgn, long double lo, long double hi, long double tmin, long double tmax)
{
    if (lo < tmin) lo = tmin;
    if (hi > tmax) hi = tmax;
    if (!(lo <= hi)) { /* empty (or NaN bounds): keeps none, or all when inverted */
        q->mode = GP__PM_CONST;
        q->value = q->invert;
        return;
    }
    if (sgn) q->ilo = (long long)lo, q->ihi = (long long)hi;
    else q->ulo = (unsigned long long)lo, q->uhi = (unsigned long long)hi;
}

/* pred for dtype, checked and normalized (infinite and NaN constants keep their meaning: x < inf, x != NaN). */
static gp_status_t normalize(const char *fn, gp_dtype_t dt, size_t n, const gp_pred_t *pred, gp__pred_t *q)
{
    memset(q, 0, sizeof *q);
    if ((unsigned)pred->kind >= GP_PRED_KIND_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: pred->kind %d is not a gp_pred_kind_t", fn, (int)pred->kind);
    q->kind = pred->kind, q->a = pred->a, q->b = pred->b;
    if (pred->kind == GP_PRED_FLAGS) {
        if (n && pred->flags == NULL) return gp__error(GP_ERR_INVALID_ARG, "%s: pred->flags is NULL", fn);
        q->mode = GP__PM_FLAGS;
        q->flags = pred->flags;
        return GP_OK;
    }
    if (is_float(dt)) {
        q->mode = GP__PM_FLOAT;
        return GP_OK;
    }
    const int sgn = is_signed(dt);
    const size_t bits = gp_dtype_size(dt) * 8;
    const long double tmax = sgn ? ldexpl(1.0L, (int)bits - 1) - 1 : ldexpl(1.0L, (int)bits) - 1,
                      tmin = sgn ? -ldexpl(1.0L, (int)bits - 1) : 0;
    const long double a = pred->a, b = pred->b, inf = INFINITY;
    q->mode = sgn ? GP__PM_SINT : GP__PM_UINT;
    switch (pred->kind) {
    case GP_PRED_NONZERO: q->invert = 1, int_range(q, sgn, 0, 0, tmin, tmax); break;
    case GP_PRED_EQ: int_range(q, sgn, ceill(a), floorl(a), tmin, tmax); break;
    case GP_PRED_NE: q->invert = 1, int_range(q, sgn, ceill(a), floorl(a), tmin, tmax); break;
    case GP_PRED_LT: int_range(q, sgn, -inf, ceill(a) - 1, tmin, tmax); break;
    case GP_PRED_LE: int_range(q, sgn, -inf, floorl(a), tmin, tmax); break;
    case GP_PRED_GT: int_range(q, sgn, floorl(a) + 1, inf, tmin, tmax); break;
    case GP_PRED_GE: int_range(q, sgn, ceill(a), inf, tmin, tmax); break;
    case GP_PRED_IN: int_range(q, sgn, ceill(a), ceill(b) - 1, tmin, tmax); break;
    case GP_PRED_NAN: q->mode = GP__PM_CONST, q->value = 0; break;
    default: q->mode = GP__PM_CONST, q->value = 1; break; /* GP_PRED_NOT_NAN */
    }
    /* a NaN constant: every comparison false, ne true */
    if (pred->kind != GP_PRED_NONZERO && pred->kind < GP_PRED_NAN && (isnan(pred->a) || (pred->kind == GP_PRED_IN &&
                                                                                         isnan(pred->b)))) {
        q->mode = GP__PM_CONST;
        q->value = pred->kind == GP_PRED_NE;
    }
    return GP_OK;
}

/* Typed passes over [b, e): the kept count, and the copies (kept to y[k...], rejected to y[r...] for partition). The
 * predicate's mode and kind are loop-invariant, so the compiler specializes each loop. */
#define GP_SEL_DEF(NAME, T, KEEP)                                                                                    \
    static size_t count_##NAME(const gp__pred_t *q, const T *x, size_t b, size_t e)                                \
    {                                                                                                              \
        size_t k = 0;                                                                                              \
        for (size_t i = b; i < e; i++) {                                                                           \
            const T v = x[i];                                                                                      \
            k += (size_t)(KEEP);                                                                                   \
        }                                                                                                          \
        return k;                                                                                                  \
    }                                                                                                              \
    static void copy_##NAME(const gp__pred_t *q, const T *x, size_t b, size_t e, T *y, size_t k, size_t r, int part) \
    { /* branch-free: every element is stored into a small buffer whose end moves only when it is kept */          \
        T kb[256], rb[256];                                                                                        \
        size_t nk = 0, nr = 0;                                                                                     \
        for (size_t i = b; i < e; i++) {                                                                           \
            const T v = x[i];                                                                                      \
            const size_t keep = (size_t)(KEEP);                                                                    \
            kb[nk] = v, rb[nr] = v;                                                                                \
            nk += keep, nr += 1 - keep;                                                                            \
            if (nk == 256) memcpy(y + k, kb, sizeof kb), k += 256, nk = 0;                                         \
            if (nr == 256) {                                                                                       \
                if (part) memcpy(y + r, rb, sizeof rb);                                                            \
                r += 256, nr = 0;                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
        memcpy(y + k, kb, nk * sizeof(T));                                                                         \
        if (part) memcpy(y + r, rb, nr * sizeof(T));                                                               \
    }
GP_SEL_DEF(u8, uint8_t, gp__keep_u(q, v))
GP_SEL_DEF(u16, uint16_t, gp__keep_u(q, v))
GP_SEL_DEF(u32, uint32_t, gp__keep_u(q, v))
GP_SEL_DEF(u64, uint64_t, gp__keep_u(q, v))
GP_SEL_DEF(i8, int8_t, gp__keep_s(q, v))
GP_SEL_DEF(i16, int16_t, gp__keep_s(q, v))
GP_SEL_DEF(i32, int32_t, gp__keep_s(q, v))
GP_SEL_DEF(i64, int64_t, gp__keep_s(q, v))
GP_SEL_DEF(f16, uint16_t, gp__keep_f(q, (double)gp_f16_to_f32(v)))
GP_SEL_DEF(bf16, uint16_t, gp__keep_f(q, (double)gp_bf16_to_f32(v)))
GP_SEL_DEF(f32, float, gp__keep_f(q, (double)v))
GP_SEL_DEF(f64, double, gp__keep_f(q, v))
/* flags and constant predicates, any element size (the bytes are copied) */
static size_t count_any(const gp__pred_t *q, size_t b, size_t e)
{
    if (q->mode == GP__PM_CONST) return q->value ? e - b : 0;
    size_t k = 0;
    for (size_t i = b; i < e; i++) k += q->flags[i] != 0;
    return k;
}
static void copy_any(const gp__pred_t *q, const unsigned char *x, size_t es, size_t b, size_t e, unsigned char *y,
                     size_t k, size_t r, int part)
{
    for (size_t i = b; i < e; i++) {
        const int keep = q->mode == GP__PM_CONST ? q->value : q->flags[i] != 0;
        if (keep) memcpy(y + k++ * es, x + i * es, es);
        else if (part) memcpy(y + r++ * es, x + i * es, es);
    }
}

static size_t count_range(const gp__pred_t *q, gp_dtype_t dt, const void *x, size_t b, size_t e)
{
    if (q->mode == GP__PM_CONST || q->mode == GP__PM_FLAGS) return count_any(q, b, e);
    switch (dt) {
#define GP_SEL_CASE(D, NAME, T) case D: return count_##NAME(q, (const T *)x, b, e);
        GP_SEL_CASE(GP_U8, u8, uint8_t) GP_SEL_CASE(GP_U16, u16, uint16_t) GP_SEL_CASE(GP_U32, u32, uint32_t)
        GP_SEL_CASE(GP_U64, u64, uint64_t) GP_SEL_CASE(GP_I8, i8, int8_t) GP_SEL_CASE(GP_I16, i16, int16_t)
        GP_SEL_CASE(GP_I32, i32, int32_t) GP_SEL_CASE(GP_I64, i64, int64_t) GP_SEL_CASE(GP_F16, f16, uint16_t)
        GP_SEL_CASE(GP_BF16, bf16, uint16_t) GP_SEL_CASE(GP_F32, f32, float)
#undef GP_SEL_CASE
    default: return count_f64(q, (const double *)x, b, e);
    }
}

static void copy_range(const gp__pred_t *q, gp_dtype_t dt, const void *x, size_t b, size_t e, void *y, size_t k,
                       size_t r, int part)
{
    if (q->mode == GP__PM_CONST || q->mode == GP__PM_FLAGS) {
        copy_any(q, x, gp_dtype_size(dt), b, e, y, k, r, part);
        return;
    }
    switch (dt) {
#define GP_SEL_CASE(D, NAME, T) case D: copy_##NAME(q, (const T *)x, b, e, (T *)y, k, r, part); return;
        GP_SEL_CASE(GP_U8, u8, uint8_t) GP_SEL_CASE(GP_U16, u16, uint16_t) GP_SEL_CASE(GP_U32, u32, uint32_t)
        GP_SEL_CASE(GP_U64, u64, uint64_t) GP_SEL_CASE(GP_I8, i8, int8_t) GP_SEL_CASE(GP_I16, i16, int16_t)
        GP_SEL_CASE(GP_I32, i32, int32_t) GP_SEL_CASE(GP_I64, i64, int64_t) GP_SEL_CASE(GP_F16, f16, uint16_t)
        GP_SEL_CASE(GP_BF16, bf16, uint16_t) GP_SEL_CASE(GP_F32, f32, float)
#undef GP_SEL_CASE
    default: copy_f64(q, (const double *)x, b, e, (double *)y, k, r, part);
    }
}

/* CPU backend: chunks counted in parallel, their kept / rejected prefixes, then each chunk copied in order. */
static gp_status_t select_cpu(gp_dtype_t dt, size_t n, const void *x, const gp__pred_t *q, int partition, void *y,
                              size_t *kept)
{
    const size_t es = gp_dtype_size(dt);
    const int par = gp__cpu_par(1, n * es);
    const size_t chunks = par ? 256 : 1, per = (n + chunks - 1) / chunks;
    size_t *cnt = calloc(chunks + 1, sizeof *cnt);
    if (cnt == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "select: chunk counts");
#pragma omp parallel for schedule(static) if (par)
    for (size_t c = 0; c < chunks; c++) {
        const size_t b = c * per < n ? c * per : n, e = b + per < n ? b + per : n;
        cnt[c + 1] = count_range(q, dt, x, b, e);
    }
    for (size_t c = 0; c < chunks; c++) cnt[c + 1] += cnt[c]; /* cnt[c]: kept before chunk c */
    const size_t total = cnt[chunks];
#pragma omp parallel for schedule(static) if (par)
    for (size_t c = 0; c < chunks; c++) {
        const size_t b = c * per < n ? c * per : n, e = b + per < n ? b + per : n;
        copy_range(q, dt, x, b, e, y, cnt[c], total + b - cnt[c], partition); /* rejected before: b - cnt[c] */
    }
    free(cnt);
    *kept = total;
    return GP_OK;
}

/* CPU unique (lengths NULL) or run-length encoding: one pass, typed, by the equalities of GP__EQ_KINDS. */
#define GP_RUNS_DEF(NAME, T, EQ)                                                                                   \
    static size_t runs_##NAME(size_t n, const void *xv, void *yv, uint64_t *lengths)                               \
    {                                                                                                              \
        const T *x = xv;                                                                                           \
        T *y = yv;                                                                                                 \
        size_t r = 0;                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                                           \
            const T a = x[i];                                                                                      \
            if (i == 0 || !EQ(a, x[i - 1])) {                                                                      \
                y[r] = a;                                                                                          \
                if (lengths) lengths[r] = 1;                                                                       \
                r++;                                                                                               \
            } else if (lengths) {                                                                                  \
                lengths[r - 1]++;                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
        return r;                                                                                                  \
    }
GP__EQ_KINDS(GP_RUNS_DEF)
#define GP_RUNS_NAME(NAME, T, EQ) runs_##NAME,

static size_t runs_cpu(gp_dtype_t dt, size_t n, const void *x, void *y, uint64_t *lengths)
{
    static size_t (*const f[])(size_t, const void *, void *, uint64_t *) = {GP__EQ_KINDS(GP_RUNS_NAME)};
    return f[gp__eq_kind(dt)](n, x, y, lengths);
}

/* job: 0 select, 1 partition, 2 unique, 3 run-length encoding (y = values; lengths). */
static gp_status_t select_enqueue(const char *fn, gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x,
                                  const gp_pred_t *pred, int job, void *y, uint64_t *lengths, uint64_t *count_dev,
                                  size_t *count_host, gp_stream_t stream)
{
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (job < 2) GP_ARG_NONNULL(fn, pred);
    const size_t es = gp_dtype_size(dtype);
    size_t bytes = 0;
    if (!gp__mul_ok(n, es, &bytes) || bytes > (size_t)INT64_MAX || n > (SIZE_MAX >> 4))
        return gp__error(GP_ERR_OVERFLOW, "%s: n * sizeof(%s) = %zu * %zu overflows", fn, gp_dtype_name(dtype), n, es);
    gp__pred_t q;
    memset(&q, 0, sizeof q);
    if (job < 2) GP_TRY_RET(normalize(fn, dtype, n, pred, &q));
    if (n) {
        GP_ARG_NONNULL(fn, x);
        GP_ARG_NONNULL(fn, y);
        if (job == 3) GP_ARG_NONNULL(fn, lengths);
        if ((uintptr_t)x % es) return gp__error(GP_ERR_INVALID_ARG, "%s: x is not %zu-byte aligned", fn, es);
        if ((uintptr_t)y % es) return gp__error(GP_ERR_INVALID_ARG, "%s: %s is not %zu-byte aligned", fn,
                                                job == 3 ? "values" : "y", es);
        if (job == 3 && (uintptr_t)lengths % 8)
            return gp__error(GP_ERR_INVALID_ARG, "%s: lengths is not 8-byte aligned", fn);
        if (gp__overlap(x, bytes, y, bytes)) return gp__error(GP_ERR_INVALID_ARG, "%s: x and %s overlap", fn,
                                                          job == 3 ? "values" : "y");
        if (job == 3 && (gp__overlap(lengths, n * 8, x, bytes) || gp__overlap(lengths, n * 8, y, bytes)))
            return gp__error(GP_ERR_INVALID_ARG, "%s: lengths overlaps x or values", fn);
    }
    if (gp__is_cpu(ctx)) {
        size_t k = 0;
        if (n && job < 2) GP_TRY_RET(select_cpu(dtype, n, x, &q, job, y, &k));
        else if (n) k = runs_cpu(dtype, n, x, y, job == 3 ? lengths : NULL);
        if (count_dev) *count_dev = k;
        if (count_host) *count_host = k;
        return GP_OK;
    }
    if (count_host) { /* _sync: the count through the context's result slots */
        GP_NO_CAPTURE(ctx, fn, "it waits for the count");
        gp_status_t st = GP_OK;
        if (n) GP_TRY(gp__scan_gpu_ops.select(ctx, dtype, n, x, &q, job, y, lengths, (uint64_t *)ctx->dev_result, NULL));
        else GP_CUDA_TRY(cudaMemsetAsync(ctx->dev_result, 0, 8, NULL));
        GP_CUDA_TRY(cudaMemcpyAsync(ctx->host_result, ctx->dev_result, 8, cudaMemcpyDeviceToHost, NULL));
        GP_CUDA_TRY(cudaStreamSynchronize(NULL));
        uint64_t k = 0;
        memcpy(&k, ctx->host_result, 8);
        *count_host = (size_t)k;
        return GP_OK;
    fail:
        return st;
    }
    if (n == 0) {
        if (count_dev) {
            cudaError_t e = cudaMemsetAsync(count_dev, 0, 8, (cudaStream_t)stream);
            if (e != cudaSuccess) return gp__cuda_error(e, fn, __FILE__, __LINE__);
        }
        return GP_OK;
    }
    return gp__scan_gpu_ops.select(ctx, dtype, n, x, &q, job, y, lengths, count_dev, (cudaStream_t)stream);
}

gp_status_t gp_select(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred, void *y,
                      uint64_t *count_dev, gp_stream_t stream)
{
    return select_enqueue("gp_select", ctx, dtype, n, x, pred, 0, y, NULL, count_dev, NULL, stream);
}

gp_status_t gp_select_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred, void *y,
                           size_t *count)
{
    GP_ARG_NONNULL("gp_select_sync", count);
    return select_enqueue("gp_select_sync", ctx, dtype, n, x, pred, 0, y, NULL, NULL, count, NULL);
}

gp_status_t gp_partition(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred, void *y,
                         uint64_t *count_dev, gp_stream_t stream)
{
    return select_enqueue("gp_partition", ctx, dtype, n, x, pred, 1, y, NULL, count_dev, NULL, stream);
}

gp_status_t gp_partition_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, const gp_pred_t *pred,
                              void *y, size_t *count)
{
    GP_ARG_NONNULL("gp_partition_sync", count);
    return select_enqueue("gp_partition_sync", ctx, dtype, n, x, pred, 1, y, NULL, NULL, count, NULL);
}

gp_status_t gp_unique(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y, uint64_t *count_dev,
                      gp_stream_t stream)
{
    return select_enqueue("gp_unique", ctx, dtype, n, x, NULL, 2, y, NULL, count_dev, NULL, stream);
}

gp_status_t gp_unique_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *y, size_t *count)
{
    GP_ARG_NONNULL("gp_unique_sync", count);
    return select_enqueue("gp_unique_sync", ctx, dtype, n, x, NULL, 2, y, NULL, NULL, count, NULL);
}

gp_status_t gp_run_length_encode(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *values,
                                 uint64_t *lengths, uint64_t *runs_dev, gp_stream_t stream)
{
    return select_enqueue("gp_run_length_encode", ctx, dtype, n, x, NULL, 3, values, lengths, runs_dev, NULL, stream);
}

gp_status_t gp_run_length_encode_sync(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, void *values,
                                      uint64_t *lengths, size_t *runs)
{
    GP_ARG_NONNULL("gp_run_length_encode_sync", runs);
    return select_enqueue("gp_run_length_encode_sync", ctx, dtype, n, x, NULL, 3, values, lengths, NULL, runs, NULL);
}
