/*
 * scan_ordered.c — ordered (non-commutative) scans: gp_scan_ordered's checks, first / last, and the CPU backend of
 * the matrix and affine scans in the association order of docs/design/scan.md with runs of gp__oscan_run(op, dtype)
 * elements (the GPU kernel, scan_ordered.cu, computes exactly it). Products and sums are rounded one at a time
 * (C11 on x86-64: no contraction into FMA, no excess precision), as in the ordered reductions (reduce/ordered.c).
 * A tile without a carry (tile 0) is never combined with an identity: identity products are not exact in floats
 * (0 * inf is NaN, -0 + 0 is +0), so the values are the ones a fold of the real elements gives.
 */
#include "scan_internal.h"
#include "../reduce/ordered_cpu.h"

#include <stdlib.h>
#include <string.h>

int gp__oscan_run(gp_ordered_op_t op, gp_dtype_t dtype)
{
    const size_t vb = gp_ordered_width(op) * gp_dtype_size(dtype);
    return vb <= 8 ? 16 : vb <= 16 ? 8 : vb <= 32 ? 4 : vb <= 64 ? 2 : 1;
}

static int dim(int op) { return op == GP_ORDERED_MAT2 ? 2 : op == GP_ORDERED_MAT3 ? 3 : op == GP_ORDERED_MAT4 ? 4 : 0; }

/* One value type: c = a o b (c may alias a or b), the identity, and the scan of whole tiles. */
#define DEFINE_OSCAN(T, SFX)                                                                                        \
    static void comb_##SFX(int op, const T *a, const T *b, T *c) { gp__ordered_comb_##SFX(op, a, b, c); }          \
    static void ident_##SFX(int op, T *v)                                                                           \
    {                                                                                                               \
        const int d = dim(op), k = op == GP_ORDERED_AFFINE ? 2 : d * d;                                             \
        for (int i = 0; i < k; i++) v[i] = (T)(op == GP_ORDERED_AFFINE ? i == 0 : i / d == i % d);                  \
    }                                                                                                               \
    /* L (the in-tile values) of a tile of m <= 256 r elements; S: 256 run totals, G: 8 group totals (scratch) */  \
    static void tile_##SFX(int op, int k, int r, const T *x, size_t m, T *L, T *S, T *G)                            \
    {                                                                                                               \
        const size_t kk = (size_t)k, R = (size_t)r;                                                                 \
        for (size_t i = 0; i < GP__SCAN_RUNS; i++) {                                                                \
            for (size_t q = 0; q < R; q++) {                                                                        \
                const size_t j = i * R + q;                                                                         \
                T v[16];                                                                                            \
                if (j < m) memcpy(v, x + j * kk, kk * sizeof(T));                                                   \
                else ident_##SFX(op, v); /* padding: changes no real element's value */                            \
                if (q == 0) memcpy(L + j * kk, v, kk * sizeof(T));                                                  \
                else comb_##SFX(op, L + (j - 1) * kk, v, L + j * kk);                                               \
            }                                                                                                       \
            memcpy(S + i * kk, L + (i * R + R - 1) * kk, kk * sizeof(T));                                           \
        }                                                                                                           \
        for (size_t g = 0; g < GP__SCAN_RUNS / 32; g++) /* Kogge-Stone in each group of 32 */                       \
            for (size_t d = 1; d < 32; d <<= 1)                                                                     \
                for (size_t l = 31; l >= d; l--)                                                                    \
                    comb_##SFX(op, S + (g * 32 + l - d) * kk, S + (g * 32 + l) * kk, S + (g * 32 + l) * kk);         \
        for (size_t g = 0; g < GP__SCAN_RUNS / 32; g++) memcpy(G + g * kk, S + (g * 32 + 31) * kk, kk * sizeof(T)); \
        for (size_t d = 1; d < GP__SCAN_RUNS / 32; d <<= 1)                                                         \
            for (size_t g = GP__SCAN_RUNS / 32 - 1; g >= d; g--) comb_##SFX(op, G + (g - d) * kk, G + g * kk, G + g * kk); \
        for (size_t i = 1; i < GP__SCAN_RUNS && i * R < m; i++) {                                                   \
            const size_t g = i / 32, l = i % 32;                                                                    \
            T E[16];                                                                                                \
            if (g && l) comb_##SFX(op, G + (g - 1) * kk, S + (i - 1) * kk, E);                                      \
            else memcpy(E, g ? G + (g - 1) * kk : S + (i - 1) * kk, kk * sizeof(T));                                \
            for (size_t q = 0; q < R; q++) comb_##SFX(op, E, L + (i * R + q) * kk, L + (i * R + q) * kk);          \
        }                                                                                                           \
    }                                                                                                               \
    /* the outputs of one tile after the carry C (NULL: none — tile 0 without a carry in) */                       \
    static void out_##SFX(int op, int k, const T *L, size_t m, const T *C, int excl, T *y)                         \
    {                                                                                                               \
        const size_t kk = (size_t)k;                                                                                \
        if (!excl) {                                                                                                \
            for (size_t j = 0; j < m; j++)                                                                          \
                if (C) comb_##SFX(op, C, L + j * kk, y + j * kk);                                                   \
                else memcpy(y + j * kk, L + j * kk, kk * sizeof(T));                                                \
            return;                                                                                                 \
        }                                                                                                           \
        if (C) memcpy(y, C, kk * sizeof(T));                                                                        \
        else ident_##SFX(op, y);                                                                                    \
        for (size_t j = 1; j < m; j++)                                                                              \
            if (C) comb_##SFX(op, C, L + (j - 1) * kk, y + j * kk);                                                 \
            else memcpy(y + j * kk, L + (j - 1) * kk, kk * sizeof(T));                                              \
    }                                                                                                               \
    static gp_status_t scan_##SFX(int op, int R, size_t n, const T *x, T *y, int excl, const T *cin, T *cout,      \
                                  int par)                                                                         \
    {                                                                                                               \
        const int k = op == GP_ORDERED_AFFINE ? 2 : dim(op) * dim(op);                                              \
        const size_t kk = (size_t)k, tile = (size_t)GP__SCAN_RUNS * (size_t)R, nt = (n + tile - 1) / tile;         \
        const size_t lb = (tile + 2 * GP__SCAN_RUNS) * kk * sizeof(T); /* L, S, G */                               \
        T *C = malloc((nt + 1) * kk * sizeof(T)); /* C[t]: the carry into tile t (t >= 1) */                       \
        int fail = C == NULL;                                                                                       \
        const int p = gp__cpu_par(par, n * kk * sizeof(T)) && nt > 1;                                               \
        _Pragma("omp parallel if (p) reduction(| : fail)")                                                          \
        {                                                                                                           \
            T *L = malloc(lb);                                                                                      \
            fail |= L == NULL;                                                                                      \
            T *S = L ? L + tile * kk : NULL, *G = S ? S + GP__SCAN_RUNS * kk : NULL;                                \
            _Pragma("omp for schedule(static)") for (size_t t = 0; t < nt; t++) {                                   \
                if (L == NULL || C == NULL) continue;                                                               \
                const size_t m = n - t * tile < tile ? n - t * tile : tile;                                         \
                tile_##SFX(op, k, R, x + t * tile * kk, m, L, S, G);                                                \
                memcpy(C + (t + 1) * kk, L + (m - 1) * kk, kk * sizeof(T)); /* A_t, until the carries */           \
            }                                                                                                       \
            _Pragma("omp single") if (C) { /* I_0 = A_0 (or cin o A_0), I_t = I_(t-1) o A_t */                     \
                if (cin) comb_##SFX(op, cin, C + kk, C + kk);                                                       \
                for (size_t t = 2; t <= nt; t++) comb_##SFX(op, C + (t - 1) * kk, C + t * kk, C + t * kk);           \
            }                                                                                                       \
            _Pragma("omp for schedule(static)") for (size_t t = 0; t < nt; t++) {                                   \
                if (L == NULL || C == NULL) continue;                                                               \
                const size_t m = n - t * tile < tile ? n - t * tile : tile;                                         \
                tile_##SFX(op, k, R, x + t * tile * kk, m, L, S, G);                                                \
                out_##SFX(op, k, L, m, t ? C + t * kk : cin, excl, y + t * tile * kk);                              \
            }                                                                                                       \
            free(L);                                                                                                \
        }                                                                                                           \
        if (!fail && cout) memcpy(cout, C + nt * kk, kk * sizeof(T)); /* the last element's inclusive value */     \
        free(C);                                                                                                    \
        return fail ? gp__error(GP_ERR_OUT_OF_MEMORY, "gp_scan_ordered: tile buffers") : GP_OK;                    \
    }

DEFINE_OSCAN(float, f32)
DEFINE_OSCAN(double, f64)
DEFINE_OSCAN(uint32_t, u32)

gp_status_t gp__oscan_cpu(gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *y, int exclusive,
                          const void *carry_in, void *carry_out, int parallel)
{
    const size_t es = gp_dtype_size(dtype), w = es * gp_ordered_width(op);
    if (n == 0) {
        if (carry_in && carry_out) memcpy(carry_out, carry_in, w);
        return GP_OK;
    }
    if (op == GP_ORDERED_FIRST) {
        char first[8];
        memcpy(first, carry_in ? carry_in : x, es);
        for (size_t i = 0; i < n; i++) memcpy((char *)y + i * w, first, es);
        if (carry_out) memcpy(carry_out, first, es);
        return GP_OK;
    }
    if (op == GP_ORDERED_LAST) {
        if (x != y) memcpy(y, x, n * w);
        if (carry_out) memcpy(carry_out, (const char *)x + (n - 1) * w, es);
        return GP_OK;
    }
    const int R = gp__oscan_run(op, dtype);
    switch (dtype) {
    case GP_F32: return scan_f32((int)op, R, n, x, y, exclusive, carry_in, carry_out, parallel);
    case GP_F64: return scan_f64((int)op, R, n, x, y, exclusive, carry_in, carry_out, parallel);
    case GP_U32: return scan_u32((int)op, R, n, x, y, exclusive, carry_in, carry_out, parallel);
    default: return gp__error(GP_ERR_UNSUPPORTED, "gp_scan_ordered: dtype %s", gp_dtype_name(dtype));
    }
}

gp_status_t gp__oscan_check(const char *fn, gp_ordered_op_t op, gp_dtype_t dtype, int kind)
{
    if ((unsigned)op >= GP_ORDERED_OP_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: op %d is not a gp_ordered_op_t", fn, (int)op);
    if ((unsigned)dtype >= GP_DTYPE_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "%s: dtype %d is not a gp_dtype_t", fn, (int)dtype);
    if (kind != GP_SCAN_INCLUSIVE && kind != GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_INVALID_ARG, "%s: kind %d is not a gp_scan_kind_t", fn, kind);
    const int anyd = op == GP_ORDERED_FIRST || op == GP_ORDERED_LAST;
    if (!anyd && !(dtype == GP_F32 || dtype == GP_F64 || (dtype == GP_U32 && op != GP_ORDERED_AFFINE)))
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s is defined for %s, not %s", fn, gp_ordered_op_name(op),
                         op == GP_ORDERED_AFFINE ? "f32 and f64" : "f32, f64 and u32", gp_dtype_name(dtype));
    if (anyd && kind == GP_SCAN_EXCLUSIVE)
        return gp__error(GP_ERR_UNSUPPORTED, "%s: %s has no identity for an exclusive scan's first element "
                                             "(inclusive only)", fn, gp_ordered_op_name(op));
    return GP_OK;
}

gp_status_t gp__oscan_check_arrays(const char *fn, gp_ordered_op_t op, gp_dtype_t dtype, size_t n, const void *x,
                                   const void *y)
{
    const size_t w = gp_ordered_width(op);
    size_t vals = 0;
    if (!gp__mul_ok(n, w, &vals))
        return gp__error(GP_ERR_OVERFLOW, "%s: n * %zu values = %zu * %zu overflows", fn, w, n, w);
    return gp__scan_check_arrays(fn, dtype, vals, x, y);
}

void gp__oscan_identity(gp_ordered_op_t op, gp_dtype_t dtype, void *v)
{
    if (dtype == GP_F32) ident_f32((int)op, v);
    else if (dtype == GP_F64) ident_f64((int)op, v);
    else ident_u32((int)op, v);
}

gp_status_t gp_scan_ordered(gp_ctx_t *ctx, gp_ordered_op_t op, gp_dtype_t dtype, gp_scan_kind_t kind, size_t n,
                            const void *x, void *y, gp_stream_t stream)
{
    static const char fn[] = "gp_scan_ordered";
    GP_TRY_RET(gp__ctx_enter(ctx, fn));
    GP_TRY_RET(gp__oscan_check(fn, op, dtype, (int)kind));
    GP_TRY_RET(gp__oscan_check_arrays(fn, op, dtype, n, x, y));
    if (n == 0) return GP_OK;
    if (gp__is_cpu(ctx)) return gp__oscan_cpu(op, dtype, n, x, y, kind == GP_SCAN_EXCLUSIVE, NULL, NULL, 1);
    return gp__scan_gpu_ops.ordered(ctx, op, dtype, n, x, y, kind == GP_SCAN_EXCLUSIVE, NULL, NULL, (cudaStream_t)stream);
}
