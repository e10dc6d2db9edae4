/*
 * scan_cpu.c — the scan's CPU reference: exactly the association order of scan_internal.h (docs/design/scan.md), serial or
 * OpenMP over tiles (tile aggregates in parallel, their carries folded in order, then every tile's outputs in
 * parallel), the same bits either way.
 */
#include "scan_internal.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef gp_status_t (*scan_fn)(size_t n, const void *x, void *y, int excl, const void *cin, void *cout, int par);

/* The exact ops — integers (wrapping), float min / max under the NaN and tie rules — give the same bits in any
 * association, so they scan in one sequential pass (in parallel: chunks' aggregates, then each chunk from its carry)
 * instead of the tiles' tree, which the float sums and products need. gp__scan_cpu_tiles_only: the tiles for every
 * op (the tests compare the two). */
int gp__scan_cpu_tiles_only = 0;
enum { SEQ_MAX = 64 };
static int gp__seq_chunks(void)
{
#ifdef _OPENMP
    const int t = omp_get_max_threads();
    return t < 1 ? 1 : t > SEQ_MAX ? SEQ_MAX : t;
#else
    return 1;
#endif
}

/* One (type, op): combine, the padding identity (exact on both sides), the exclusive scan's first value. The tile
 * function writes L (the in-tile values) for m <= TILE elements; the scan applies the carries. */
#define GP_SCAN_DEF(T, NAME, COMB, PAD, FIRST, EXACT)                                                                \
    static inline T comb_##NAME(T a, T b) { return COMB; }                                                         \
    /* an exact op: x[a, b) after the carry I, sequentially; the carry after them */                              \
    static T seqrun_##NAME(const T *x, T *y, size_t a, size_t b, T I, int excl, int head)                          \
    {                                                                                                              \
        if (!excl)                                                                                                 \
            for (size_t j = a; j < b; j++) y[j] = I = comb_##NAME(I, x[j]);                                        \
        else                                                                                                       \
            for (size_t j = a; j < b; j++) {                                                                       \
                const T v = x[j]; /* read before y[j] is written: x may be y */                                     \
                y[j] = j == a && head ? (T)(FIRST) : I;                                                            \
                I = comb_##NAME(I, v);                                                                             \
            }                                                                                                      \
        return I;                                                                                                  \
    }                                                                                                              \
    static gp_status_t seq_##NAME(size_t n, const T *x, T *y, int excl, const void *cin, void *cout, int par)      \
    {                                                                                                              \
        const T I0 = cin ? *(const T *)cin : (T)(PAD);                                                             \
        int nc = 1;                                                                                                \
        if (gp__cpu_par(par, n * sizeof(T)) && n >= 2 * (size_t)GP__SCAN_TILE) nc = gp__seq_chunks();             \
        if (nc <= 1) {                                                                                             \
            const T I = seqrun_##NAME(x, y, 0, n, I0, excl, !cin);                                                 \
            if (cout) *(T *)cout = I;                                                                              \
            return GP_OK;                                                                                          \
        }                                                                                                          \
        T C[SEQ_MAX + 1];                                                                                          \
        _Pragma("omp parallel for schedule(static)") for (int c = 0; c < nc; c++) {                                \
            T s = (T)(PAD);                                                                                        \
            for (size_t j = n * (size_t)c / (size_t)nc; j < n * (size_t)(c + 1) / (size_t)nc; j++)                 \
                s = comb_##NAME(s, x[j]);                                                                          \
            C[c + 1] = s;                                                                                          \
        }                                                                                                          \
        C[0] = I0;                                                                                                 \
        for (int c = 0; c < nc; c++) C[c + 1] = comb_##NAME(C[c], C[c + 1]);                                       \
        _Pragma("omp parallel for schedule(static)") for (int c = 0; c < nc; c++)                                  \
            seqrun_##NAME(x, y, n * (size_t)c / (size_t)nc, n * (size_t)(c + 1) / (size_t)nc, C[c], excl,          \
                          c == 0 && !cin);                                                                         \
        if (cout) *(T *)cout = C[nc];                                                                              \
        return GP_OK;                                                                                              \
    }                                                                                                              \
    static void tile_##NAME(const T *x, size_t m, T *L)                                                            \
    {                                                                                                              \
        T S[GP__SCAN_RUNS], G[GP__SCAN_RUNS / 32];                                                                 \
        for (size_t i = 0; i < GP__SCAN_RUNS; i++) {                                                               \
            T acc = PAD;                                                                                           \
            for (size_t k = 0; k < GP__SCAN_RUN; k++) {                                                            \
                const size_t j = i * GP__SCAN_RUN + k;                                                             \
                const T v = j < m ? x[j] : (T)(PAD);                                                               \
                acc = k == 0 ? v : comb_##NAME(acc, v);                                                            \
                L[j] = acc;                                                                                        \
            }                                                                                                      \
            S[i] = acc;                                                                                            \
        }                                                                                                          \
        for (size_t g = 0; g < GP__SCAN_RUNS / 32; g++) /* Kogge-Stone in each group of 32 */                      \
            for (size_t d = 1; d < 32; d <<= 1)                                                                    \
                for (size_t l = 31; l >= d; l--) S[g * 32 + l] = comb_##NAME(S[g * 32 + l - d], S[g * 32 + l]);    \
        for (size_t g = 0; g < GP__SCAN_RUNS / 32; g++) G[g] = S[g * 32 + 31];                                     \
        for (size_t d = 1; d < GP__SCAN_RUNS / 32; d <<= 1)                                                        \
            for (size_t g = GP__SCAN_RUNS / 32 - 1; g >= d; g--) G[g] = comb_##NAME(G[g - d], G[g]);               \
        for (size_t i = 1; i < GP__SCAN_RUNS; i++) {                                                               \
            const size_t g = i / 32, l = i % 32;                                                                   \
            const T E = g && l ? comb_##NAME(G[g - 1], S[i - 1]) : g ? G[g - 1] : S[i - 1];                        \
            for (size_t k = 0; k < GP__SCAN_RUN; k++) L[i * GP__SCAN_RUN + k] = comb_##NAME(E, L[i * GP__SCAN_RUN + k]); \
        }                                                                                                          \
    }                                                                                                              \
    /* the aggregates of nt whole tiles (a sharded scan's first pass), and the carry chain over m aggregates */   \
    static void aggs_##NAME(size_t nt, const void *xv, void *av, int par)                                          \
    {                                                                                                              \
        const T *x = (const T *)xv;                                                                                \
        T *a = (T *)av;                                                                                            \
        _Pragma("omp parallel for schedule(static) if (par)") for (size_t t = 0; t < nt; t++) {                    \
            T L[GP__SCAN_TILE];                                                                                    \
            tile_##NAME(x + t * GP__SCAN_TILE, GP__SCAN_TILE, L);                                                  \
            a[t] = L[GP__SCAN_TILE - 1];                                                                           \
        }                                                                                                          \
    }                                                                                                              \
    static void fold_##NAME(size_t m, const void *av, void *cv)                                                    \
    {                                                                                                              \
        const T *a = (const T *)av;                                                                                \
        T I = *(T *)cv;                                                                                            \
        for (size_t t = 0; t < m; t++) I = comb_##NAME(I, a[t]);                                                   \
        *(T *)cv = I;                                                                                              \
    }                                                                                                              \
    /* the outputs of one tile of m elements after the carry C (first: the exclusive scan's first value) */      \
    static void out_##NAME(const T *L, size_t m, T C, T first, int excl, T *y)                                     \
    {                                                                                                              \
        if (!excl) {                                                                                               \
            for (size_t j = 0; j < m; j++) y[j] = comb_##NAME(C, L[j]);                                            \
            return;                                                                                                \
        }                                                                                                          \
        y[0] = first;                                                                                              \
        for (size_t j = 1; j < m; j++) y[j] = comb_##NAME(C, L[j - 1]);                                            \
    }                                                                                                              \
    static gp_status_t scan_##NAME(size_t n, const void *xv, void *yv, int excl, const void *cin, void *cout,     \
                                   int par)                                                                        \
    {                                                                                                              \
        const T *x = (const T *)xv;                                                                                \
        T *y = (T *)yv;                                                                                            \
        if (EXACT && n && !gp__scan_cpu_tiles_only) return seq_##NAME(n, x, y, excl, cin, cout, par);              \
        const T I0 = cin ? *(const T *)cin : (T)(PAD);                                                             \
        const size_t nt = (n + GP__SCAN_TILE - 1) / GP__SCAN_TILE;                                                 \
        if (!gp__cpu_par(par, n * sizeof(T)) || nt < 2) {                                                          \
            T *L = malloc(GP__SCAN_TILE * sizeof(T));                                                              \
            if (L == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "scan: a tile buffer");                          \
            T I = I0;                                                                                              \
            for (size_t t = 0; t < nt; t++) {                                                                      \
                const size_t m = n - t * GP__SCAN_TILE < GP__SCAN_TILE ? n - t * GP__SCAN_TILE : GP__SCAN_TILE;    \
                tile_##NAME(x + t * GP__SCAN_TILE, m, L);                                                          \
                out_##NAME(L, m, I, t || cin ? I : (T)(FIRST), excl, y + t * GP__SCAN_TILE);                       \
                I = comb_##NAME(I, L[m - 1]);                                                                      \
            }                                                                                                      \
            if (cout) *(T *)cout = I;                                                                              \
            free(L);                                                                                               \
            return GP_OK;                                                                                          \
        }                                                                                                          \
        T *C = malloc((nt + 1) * sizeof(T)); /* C[t]: the carry into tile t, after phase 2 */                      \
        int fail = C == NULL;                                                                                      \
        _Pragma("omp parallel reduction(| : fail)")                                                                \
        {                                                                                                          \
            T *L = malloc(GP__SCAN_TILE * sizeof(T));                                                              \
            fail |= L == NULL;                                                                                     \
            _Pragma("omp for schedule(static)") for (size_t t = 0; t < nt; t++) {                                  \
                if (L == NULL || C == NULL) continue;                                                              \
                const size_t m = n - t * GP__SCAN_TILE < GP__SCAN_TILE ? n - t * GP__SCAN_TILE : GP__SCAN_TILE;    \
                tile_##NAME(x + t * GP__SCAN_TILE, m, L);                                                          \
                C[t + 1] = L[m - 1]; /* the tile's aggregate A_t, until phase 2 */                                 \
            }                                                                                                      \
            _Pragma("omp single") if (C) {                                                                         \
                C[0] = I0;                                                                                         \
                for (size_t t = 0; t < nt; t++) C[t + 1] = comb_##NAME(C[t], C[t + 1]);                            \
            }                                                                                                      \
            _Pragma("omp for schedule(static)") for (size_t t = 0; t < nt; t++) {                                  \
                if (L == NULL || C == NULL) continue;                                                              \
                const size_t m = n - t * GP__SCAN_TILE < GP__SCAN_TILE ? n - t * GP__SCAN_TILE : GP__SCAN_TILE;    \
                tile_##NAME(x + t * GP__SCAN_TILE, m, L);                                                          \
                out_##NAME(L, m, C[t], t || cin ? C[t] : (T)(FIRST), excl, y + t * GP__SCAN_TILE);                 \
            }                                                                                                      \
            free(L);                                                                                               \
        }                                                                                                          \
        if (fail) {                                                                                                \
            free(C);                                                                                               \
            return gp__error(GP_ERR_OUT_OF_MEMORY, "scan: tile buffers");                                          \
        }                                                                                                          \
        if (cout) *(T *)cout = C[nt];                                                                              \
        free(C);                                                                                                   \
        return GP_OK;                                                                                              \
    }

/* floats: min / max keep the first NaN, and on a tie the left operand */
#define FMIN(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (b) < (a) ? (b) : (a))
#define FMAX(a, b) (isnan(a) ? (a) : isnan(b) ? (b) : (b) > (a) ? (b) : (a))
#define IMIN(a, b) ((b) < (a) ? (b) : (a))
#define IMAX(a, b) ((b) > (a) ? (b) : (a))

GP_SCAN_DEF(float, sum_f32, a + b, -0.0f, 0.0f, 0)
GP_SCAN_DEF(float, prod_f32, a * b, 1.0f, 1.0f, 0)
GP_SCAN_DEF(float, min_f32, FMIN(a, b), INFINITY, INFINITY, 1)
GP_SCAN_DEF(float, max_f32, FMAX(a, b), -INFINITY, -INFINITY, 1)
GP_SCAN_DEF(double, sum_f64, a + b, -0.0, 0.0, 0)
GP_SCAN_DEF(double, prod_f64, a * b, 1.0, 1.0, 0)
GP_SCAN_DEF(double, min_f64, FMIN(a, b), INFINITY, INFINITY, 1)
GP_SCAN_DEF(double, max_f64, FMAX(a, b), -INFINITY, -INFINITY, 1)
/* integers: sums and products wrap (through the unsigned type) */
#define GP_SCAN_INTS(T, U, TN, TMIN, TMAX)                                                                         \
    GP_SCAN_DEF(T, sum_##TN, (T)((U)a + (U)b), 0, 0, 1)                                                               \
    GP_SCAN_DEF(T, prod_##TN, (T)((U)a * (U)b), 1, 1, 1)                                                              \
    GP_SCAN_DEF(T, min_##TN, IMIN(a, b), TMAX, TMAX, 1)                                                               \
    GP_SCAN_DEF(T, max_##TN, IMAX(a, b), TMIN, TMIN, 1)                                                               \
    GP_SCAN_DEF(T, and_##TN, (T)(a & b), (T)~(U)0, (T)~(U)0, 1)                                                       \
    GP_SCAN_DEF(T, or_##TN, (T)(a | b), 0, 0, 1)                                                                      \
    GP_SCAN_DEF(T, xor_##TN, (T)(a ^ b), 0, 0, 1)
GP_SCAN_INTS(int32_t, uint32_t, i32, INT32_MIN, INT32_MAX)
GP_SCAN_INTS(uint32_t, uint32_t, u32, 0, UINT32_MAX)
GP_SCAN_INTS(int64_t, uint64_t, i64, INT64_MIN, INT64_MAX)
GP_SCAN_INTS(uint64_t, uint64_t, u64, 0, UINT64_MAX)

/* Segmented scans (scan_internal.h): the same tile steps over (head, value) pairs, runs of 16 (4-byte types) or 8
 * (8-byte types), no carry into tile 0; exclusive: FIRST at every head. Padding past the end is never read back. */
typedef gp_status_t (*segscan_fn)(size_t n, const void *x, const uint8_t *h, void *y, int excl, int par);
#define GP_SEG_DEF(T, NAME, FIRST)                                                                                 \
    typedef struct {                                                                                               \
        T v;                                                                                                       \
        int f;                                                                                                     \
    } sp_##NAME;                                                                                                   \
    static inline sp_##NAME scomb_##NAME(sp_##NAME a, sp_##NAME b)                                                 \
    {                                                                                                              \
        sp_##NAME c;                                                                                               \
        c.v = b.f ? b.v : comb_##NAME(a.v, b.v);                                                                   \
        c.f = a.f | b.f;                                                                                           \
        return c;                                                                                                  \
    }                                                                                                              \
    static void stile_##NAME(const T *x, const uint8_t *h, size_t m, size_t R, sp_##NAME *L)                       \
    {                                                                                                              \
        sp_##NAME S[GP__SCAN_RUNS], G[GP__SCAN_RUNS / 32];                                                         \
        for (size_t i = 0; i < GP__SCAN_RUNS; i++) {                                                               \
            for (size_t q = 0; q < R; q++) {                                                                       \
                const size_t j = i * R + q;                                                                        \
                sp_##NAME v;                                                                                       \
                v.v = j < m ? x[j] : (T)0;                                                                         \
                v.f = j < m && h[j] != 0;                                                                          \
                L[j] = q == 0 ? v : scomb_##NAME(L[j - 1], v);                                                     \
            }                                                                                                      \
            S[i] = L[i * R + R - 1];                                                                               \
        }                                                                                                          \
        for (size_t g = 0; g < GP__SCAN_RUNS / 32; g++)                                                            \
            for (size_t d = 1; d < 32; d <<= 1)                                                                    \
                for (size_t l = 31; l >= d; l--) S[g * 32 + l] = scomb_##NAME(S[g * 32 + l - d], S[g * 32 + l]);   \
        for (size_t g = 0; g < GP__SCAN_RUNS / 32; g++) G[g] = S[g * 32 + 31];                                     \
        for (size_t d = 1; d < GP__SCAN_RUNS / 32; d <<= 1)                                                        \
            for (size_t g = GP__SCAN_RUNS / 32 - 1; g >= d; g--) G[g] = scomb_##NAME(G[g - d], G[g]);              \
        for (size_t i = 1; i < GP__SCAN_RUNS && i * R < m; i++) {                                                  \
            const size_t g = i / 32, l = i % 32;                                                                   \
            const sp_##NAME E = g && l ? scomb_##NAME(G[g - 1], S[i - 1]) : g ? G[g - 1] : S[i - 1];               \
            for (size_t q = 0; q < R; q++) L[i * R + q] = scomb_##NAME(E, L[i * R + q]);                           \
        }                                                                                                          \
    }                                                                                                              \
    static void sout_##NAME(const sp_##NAME *L, const uint8_t *h, size_t m, const sp_##NAME *C, int excl, T *y)    \
    {                                                                                                              \
        for (size_t j = 0; j < m; j++) {                                                                           \
            if (!excl) y[j] = C ? scomb_##NAME(*C, L[j]).v : L[j].v;                                               \
            else if (h[j]) y[j] = FIRST;                                                                           \
            else if (j == 0) y[j] = C ? C->v : (T)(FIRST);                                                         \
            else y[j] = C ? scomb_##NAME(*C, L[j - 1]).v : L[j - 1].v;                                             \
        }                                                                                                          \
    }                                                                                                              \
    static gp_status_t segscan_##NAME(size_t n, const void *xv, const uint8_t *h, void *yv, int excl, int par)     \
    {                                                                                                              \
        const T *x = (const T *)xv;                                                                                \
        T *y = (T *)yv;                                                                                            \
        const size_t R = sizeof(T) == 4 ? 16 : 8, tile = GP__SCAN_RUNS * R, nt = (n + tile - 1) / tile;            \
        sp_##NAME *C = malloc((nt + 1) * sizeof *C); /* C[t]: the carry into tile t (t >= 1) */                    \
        int fail = C == NULL;                                                                                      \
        const int p = gp__cpu_par(par, n * sizeof(T)) && nt > 1;                                                   \
        _Pragma("omp parallel if (p) reduction(| : fail)")                                                         \
        {                                                                                                          \
            sp_##NAME *L = malloc(tile * sizeof *L);                                                               \
            fail |= L == NULL;                                                                                     \
            _Pragma("omp for schedule(static)") for (size_t t = 0; t < nt; t++) {                                  \
                if (L == NULL || C == NULL) continue;                                                              \
                const size_t m = n - t * tile < tile ? n - t * tile : tile;                                        \
                stile_##NAME(x + t * tile, h + t * tile, m, R, L);                                                 \
                C[t + 1] = L[m - 1]; /* A_t, until the carries */                                                  \
            }                                                                                                      \
            _Pragma("omp single") if (C) {                                                                         \
                for (size_t t = 2; t <= nt; t++) C[t] = scomb_##NAME(C[t - 1], C[t]);                              \
            }                                                                                                      \
            _Pragma("omp for schedule(static)") for (size_t t = 0; t < nt; t++) {                                  \
                if (L == NULL || C == NULL) continue;                                                              \
                const size_t m = n - t * tile < tile ? n - t * tile : tile;                                        \
                stile_##NAME(x + t * tile, h + t * tile, m, R, L);                                                 \
                sout_##NAME(L, h + t * tile, m, t ? &C[t] : NULL, excl, y + t * tile);                             \
            }                                                                                                      \
            free(L);                                                                                               \
        }                                                                                                          \
        free(C);                                                                                                   \
        return fail ? gp__error(GP_ERR_OUT_OF_MEMORY, "segmented scan: tile buffers") : GP_OK;                     \
    }

GP_SEG_DEF(float, sum_f32, 0.0f)
GP_SEG_DEF(float, prod_f32, 1.0f)
GP_SEG_DEF(float, min_f32, INFINITY)
GP_SEG_DEF(float, max_f32, -INFINITY)
GP_SEG_DEF(double, sum_f64, 0.0)
GP_SEG_DEF(double, prod_f64, 1.0)
GP_SEG_DEF(double, min_f64, INFINITY)
GP_SEG_DEF(double, max_f64, -INFINITY)
#define GP_SEG_INTS(T, U, TN, TMIN, TMAX)                                                                          \
    GP_SEG_DEF(T, sum_##TN, 0)                                                                                     \
    GP_SEG_DEF(T, prod_##TN, 1)                                                                                    \
    GP_SEG_DEF(T, min_##TN, TMAX)                                                                                  \
    GP_SEG_DEF(T, max_##TN, TMIN)                                                                                  \
    GP_SEG_DEF(T, and_##TN, (T)~(U)0)                                                                              \
    GP_SEG_DEF(T, or_##TN, 0)                                                                                      \
    GP_SEG_DEF(T, xor_##TN, 0)
GP_SEG_INTS(int32_t, uint32_t, i32, INT32_MIN, INT32_MAX)
GP_SEG_INTS(uint32_t, uint32_t, u32, 0, UINT32_MAX)
GP_SEG_INTS(int64_t, uint64_t, i64, INT64_MIN, INT64_MAX)
GP_SEG_INTS(uint64_t, uint64_t, u64, 0, UINT64_MAX)

static int op_index(gp_reduce_op_t op)
{
    switch (op) {
    case GP_REDUCE_SUM: return 0;
    case GP_REDUCE_PROD: return 1;
    case GP_REDUCE_MIN: return 2;
    case GP_REDUCE_MAX: return 3;
    case GP_REDUCE_AND: return 4;
    case GP_REDUCE_OR: return 5;
    case GP_REDUCE_XOR: return 6;
    default: return -1;
    }
}

static segscan_fn pick_seg(gp_reduce_op_t op, gp_dtype_t dt)
{
#define GP_SEG_ROW(TN)                                                                                             \
    {segscan_sum_##TN, segscan_prod_##TN, segscan_min_##TN, segscan_max_##TN, segscan_and_##TN, segscan_or_##TN,   \
     segscan_xor_##TN}
    static const segscan_fn f32[7] = {segscan_sum_f32, segscan_prod_f32, segscan_min_f32, segscan_max_f32, NULL, NULL,
                                      NULL};
    static const segscan_fn f64[7] = {segscan_sum_f64, segscan_prod_f64, segscan_min_f64, segscan_max_f64, NULL, NULL,
                                      NULL};
    static const segscan_fn i32[7] = GP_SEG_ROW(i32), u32[7] = GP_SEG_ROW(u32), i64[7] = GP_SEG_ROW(i64),
                            u64[7] = GP_SEG_ROW(u64);
#undef GP_SEG_ROW
    const int k = op_index(op);
    if (k < 0) return NULL;
    switch (dt) {
    case GP_F32: return f32[k];
    case GP_F64: return f64[k];
    case GP_I32: return i32[k];
    case GP_U32: return u32[k];
    case GP_I64: return i64[k];
    case GP_U64: return u64[k];
    default: return NULL;
    }
}

int gp__segscan_run(gp_dtype_t dtype) { return gp_dtype_size(dtype) == 4 ? 16 : 8; }

gp_status_t gp__segscan_cpu(gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x, const uint8_t *heads,
                            void *y, int exclusive, int parallel)
{
    const segscan_fn f = pick_seg(op, dtype);
    if (f == NULL)
        return gp__error(GP_ERR_UNSUPPORTED, "segmented scan: %s of %s", gp_reduce_op_name(op), gp_dtype_name(dtype));
    return n ? f(n, x, heads, y, exclusive, parallel) : GP_OK;
}

static scan_fn pick(gp_reduce_op_t op, gp_dtype_t dt)
{
#define GP_SCAN_ROW(TN)                                                                                            \
    {scan_sum_##TN, scan_prod_##TN, scan_min_##TN, scan_max_##TN, scan_and_##TN, scan_or_##TN, scan_xor_##TN}
    static const scan_fn f32[7] = {scan_sum_f32, scan_prod_f32, scan_min_f32, scan_max_f32, NULL, NULL, NULL};
    static const scan_fn f64[7] = {scan_sum_f64, scan_prod_f64, scan_min_f64, scan_max_f64, NULL, NULL, NULL};
    static const scan_fn i32[7] = GP_SCAN_ROW(i32), u32[7] = GP_SCAN_ROW(u32), i64[7] = GP_SCAN_ROW(i64),
                         u64[7] = GP_SCAN_ROW(u64);
#undef GP_SCAN_ROW
    int k;
    switch (op) {
    case GP_REDUCE_SUM: k = 0; break;
    case GP_REDUCE_PROD: k = 1; break;
    case GP_REDUCE_MIN: k = 2; break;
    case GP_REDUCE_MAX: k = 3; break;
    case GP_REDUCE_AND: k = 4; break;
    case GP_REDUCE_OR: k = 5; break;
    case GP_REDUCE_XOR: k = 6; break;
    default: return NULL;
    }
    switch (dt) {
    case GP_F32: return f32[k];
    case GP_F64: return f64[k];
    case GP_I32: return i32[k];
    case GP_U32: return u32[k];
    case GP_I64: return i64[k];
    case GP_U64: return u64[k];
    default: return NULL;
    }
}

typedef void (*aggs_fn)(size_t nt, const void *x, void *aggs, int par);
typedef void (*fold_fn)(size_t m, const void *aggs, void *carry);
/* the aggregates and the carry chain of (op, dtype): the same rows as pick */
static int pick_chain(gp_reduce_op_t op, gp_dtype_t dt, aggs_fn *af, fold_fn *ff)
{
#define GP_CHAIN_ROW(P, TN) {P##sum_##TN, P##prod_##TN, P##min_##TN, P##max_##TN, P##and_##TN, P##or_##TN, P##xor_##TN}
#define GP_CHAIN_TABLE(P, FT)                                                                                      \
    static const FT P##f32[7] = {P##sum_f32, P##prod_f32, P##min_f32, P##max_f32, NULL, NULL, NULL};             \
    static const FT P##f64[7] = {P##sum_f64, P##prod_f64, P##min_f64, P##max_f64, NULL, NULL, NULL};             \
    static const FT P##i32[7] = GP_CHAIN_ROW(P, i32), P##u32[7] = GP_CHAIN_ROW(P, u32),                          \
                    P##i64[7] = GP_CHAIN_ROW(P, i64), P##u64[7] = GP_CHAIN_ROW(P, u64);
    GP_CHAIN_TABLE(aggs_, aggs_fn)
    GP_CHAIN_TABLE(fold_, fold_fn)
#undef GP_CHAIN_TABLE
#undef GP_CHAIN_ROW
    const int k = op == GP_REDUCE_SUM ? 0 : op == GP_REDUCE_PROD ? 1 : op == GP_REDUCE_MIN ? 2 : op == GP_REDUCE_MAX ? 3
                : op == GP_REDUCE_AND ? 4 : op == GP_REDUCE_OR ? 5 : op == GP_REDUCE_XOR ? 6 : -1;
    if (k < 0) return 0;
    switch (dt) {
    case GP_F32: *af = aggs_f32[k], *ff = fold_f32[k]; break;
    case GP_F64: *af = aggs_f64[k], *ff = fold_f64[k]; break;
    case GP_I32: *af = aggs_i32[k], *ff = fold_i32[k]; break;
    case GP_U32: *af = aggs_u32[k], *ff = fold_u32[k]; break;
    case GP_I64: *af = aggs_i64[k], *ff = fold_i64[k]; break;
    case GP_U64: *af = aggs_u64[k], *ff = fold_u64[k]; break;
    default: return 0;
    }
    return *af != NULL;
}

int gp__scan_supported(gp_reduce_op_t op, gp_dtype_t dtype) { return pick(op, dtype) != NULL; }

gp_status_t gp__scan_cpu(gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x, void *y, int exclusive,
                         const void *carry_in, void *carry_out, int parallel)
{
    const scan_fn f = pick(op, dtype);
    if (f == NULL)
        return gp__error(GP_ERR_UNSUPPORTED, "scan: %s of %s (the reference takes sum prod min max of f32 f64 i32 u32 "
                                             "i64 u64, and or xor of the integers)", gp_reduce_op_name(op),
                         gp_dtype_name(dtype));
    if (n == 0) {
        if (carry_out && carry_in) memcpy(carry_out, carry_in, gp_dtype_size(dtype));
        else if (carry_out) return f(0, x, y, exclusive, NULL, carry_out, 0); /* the padding identity */
        return GP_OK;
    }
    return f(n, x, y, exclusive, carry_in, carry_out, parallel);
}

/* ---- the narrow and widened scans: chunks of whole tiles widened into the accumulator's type, scanned with the
 * carry of the chunks before (which gives one pass's bits, docs/design/scan.md), narrowed into y. */
static void widen(gp_dtype_t din, gp_dtype_t dacc, const void *x, size_t m, void *a)
{
    for (size_t i = 0; i < m; i++) {
        double f = 0;
        int64_t s = 0;
        uint64_t u = 0;
        switch (din) {
        case GP_U8: u = ((const uint8_t *)x)[i]; break;
        case GP_I8: s = ((const int8_t *)x)[i]; break;
        case GP_U16: u = ((const uint16_t *)x)[i]; break;
        case GP_I16: s = ((const int16_t *)x)[i]; break;
        case GP_U32: u = ((const uint32_t *)x)[i]; break;
        case GP_I32: s = ((const int32_t *)x)[i]; break;
        case GP_F16: f = gp_f16_to_f32(((const uint16_t *)x)[i]); break;
        case GP_BF16: f = gp_bf16_to_f32(((const uint16_t *)x)[i]); break;
        case GP_F32: f = ((const float *)x)[i]; break;
        default: break;
        }
        switch (dacc) {
        case GP_U32: ((uint32_t *)a)[i] = (uint32_t)u; break;
        case GP_I32: ((int32_t *)a)[i] = (int32_t)s; break;
        case GP_U64: ((uint64_t *)a)[i] = u; break;
        case GP_I64: ((int64_t *)a)[i] = s; break;
        case GP_F32: ((float *)a)[i] = (float)f; break;
        default: ((double *)a)[i] = f; break;
        }
    }
}

static void narrow(gp_dtype_t dacc, gp_dtype_t dout, const void *a, size_t m, void *y)
{
    if (dacc == dout) {
        memcpy(y, a, m * gp_dtype_size(dout));
        return;
    }
    for (size_t i = 0; i < m; i++) {
        const uint32_t w = ((const uint32_t *)a)[i]; /* the 32-bit accumulators only narrow */
        float f;
        memcpy(&f, &w, 4);
        switch (dout) {
        case GP_U8: case GP_I8: ((uint8_t *)y)[i] = (uint8_t)w; break;
        case GP_U16: case GP_I16: ((uint16_t *)y)[i] = (uint16_t)w; break;
        case GP_F16: ((uint16_t *)y)[i] = gp__f32_to_f16(f); break;
        default: ((uint16_t *)y)[i] = gp__f32_to_bf16(f); break;
        }
    }
}

void gp__scan_narrow1(gp_dtype_t dacc, gp_dtype_t dout, const void *a, void *o) { narrow(dacc, dout, a, 1, o); }

gp_status_t gp__scan_cpu_x(gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, gp_dtype_t dout, size_t n,
                           const void *x, void *y, int exclusive, const void *carry_in, void *carry_out, int parallel)
{
    if (din == dacc && dacc == dout) return gp__scan_cpu(op, din, n, x, y, exclusive, carry_in, carry_out, parallel);
    if (n == 0) return gp__scan_cpu(op, dacc, 0, x, y, exclusive, carry_in, carry_out, 0);
    const size_t chunk = (size_t)2048 * GP__SCAN_TILE, ia = gp_dtype_size(din), aa = gp_dtype_size(dacc),
                 oa = gp_dtype_size(dout), cm = n < chunk ? n : chunk;
    void *a = malloc(cm * aa);
    if (a == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "scan: %zu bytes of accumulators", cm * aa);
    unsigned char carry[2][8];
    gp_status_t st = GP_OK;
    size_t k = 0;
    for (size_t i = 0; i < n && st == GP_OK; i += chunk, k ^= 1) {
        const size_t m = n - i < chunk ? n - i : chunk;
        widen(din, dacc, (const char *)x + i * ia, m, a);
        st = gp__scan_cpu(op, dacc, m, a, a, exclusive, i ? carry[k ^ 1] : carry_in, carry[k], parallel);
        if (st == GP_OK) narrow(dacc, dout, a, m, (char *)y + i * oa);
    }
    if (st == GP_OK && carry_out) memcpy(carry_out, carry[k ^ 1], aa);
    free(a);
    return st;
}

gp_status_t gp__scan_cpu_aggs(gp_reduce_op_t op, gp_dtype_t din, gp_dtype_t dacc, size_t n, const void *x,
                              void *aggs, int parallel)
{
    aggs_fn af;
    fold_fn ff;
    if (!pick_chain(op, dacc, &af, &ff))
        return gp__error(GP_ERR_UNSUPPORTED, "scan aggregates: %s in %s", gp_reduce_op_name(op), gp_dtype_name(dacc));
    const size_t nt = n / GP__SCAN_TILE, aa = gp_dtype_size(dacc);
    if (din == dacc) {
        af(nt, x, aggs, gp__cpu_par(parallel, n * aa));
        return GP_OK;
    }
    const size_t chunk = 2048, ia = gp_dtype_size(din); /* tiles widened at a time */
    void *a = malloc((nt < chunk ? nt : chunk) * GP__SCAN_TILE * aa + 1);
    if (a == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "scan aggregates: the widened tiles");
    for (size_t t = 0; t < nt; t += chunk) {
        const size_t m = nt - t < chunk ? nt - t : chunk;
        widen(din, dacc, (const char *)x + t * GP__SCAN_TILE * ia, m * GP__SCAN_TILE, a);
        af(m, a, (char *)aggs + t * aa, gp__cpu_par(parallel, m * GP__SCAN_TILE * aa));
    }
    free(a);
    return GP_OK;
}

gp_status_t gp__scan_fold(gp_reduce_op_t op, gp_dtype_t dacc, size_t m, const void *aggs, void *carry)
{
    aggs_fn af;
    fold_fn ff;
    if (!pick_chain(op, dacc, &af, &ff))
        return gp__error(GP_ERR_UNSUPPORTED, "scan carry: %s in %s", gp_reduce_op_name(op), gp_dtype_name(dacc));
    ff(m, aggs, carry);
    return GP_OK;
}
