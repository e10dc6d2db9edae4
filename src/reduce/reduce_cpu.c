/*
 * reduce_cpu.c — the CPU backend of gp_reduce: the same fixed tree as the GPU (reduce_internal.h), tile by tile
 * (tiles in parallel with OpenMP: each tile's result does not depend on who computes it), then the levels serially.
 * So the results are bitwise the GPU's, whatever the thread count. Float arithmetic is plain IEEE single/double
 * (C11 mode: no contraction, no excess precision on x86-64).
 */
#include "reduce_internal.h"
#include "../core/half.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

float gp__bf16_to_f32(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

float gp__f16_to_f32(uint16_t h) { return gp__f16_bits_to_f32(h); }

typedef enum { K_F32, K_F64, K_I64, K_U64 } kind_t; /* the arithmetic domain */

typedef struct st {
    union {
        float f;
        double d;
        int64_t i;
        uint64_t u;
    } v, v2;
    int64_t idx;
} st_t;

typedef struct job {
    gp_reduce_op_t op;
    gp_dtype_t dt;
    kind_t k;
    const void *x;
    size_t n;
    int64_t idx0; /* x[0] is element idx0 of the whole array */
} job_t;

static kind_t kind_of(gp_reduce_op_t op, gp_dtype_t dt, int wide)
{
    if (wide) return K_F64;
    if (op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR || op == GP_REDUCE_COUNT_NONZERO) return K_U64;
    if (dt == GP_F64) return K_F64;
    if (dt == GP_F16 || dt == GP_BF16 || dt == GP_F32) return K_F32;
    if (op == GP_REDUCE_SUM || op == GP_REDUCE_PROD) return K_U64; /* integers wrap */
    return dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64 ? K_I64 : K_U64;
}

static st_t identity(const job_t *j)
{
    st_t s;
    memset(&s, 0, sizeof s);
    s.idx = INT64_MAX;
    switch (j->op) {
    case GP_REDUCE_SUM:
        if (j->k == K_F32) s.v.f = -0.0f;
        else if (j->k == K_F64) s.v.d = -0.0;
        break;
    case GP_REDUCE_PROD:
        if (j->k == K_F32) s.v.f = 1.0f;
        else if (j->k == K_F64) s.v.d = 1.0;
        else s.v.u = 1;
        break;
    case GP_REDUCE_MIN:
    case GP_REDUCE_MAX:
    case GP_REDUCE_MINMAX:
    case GP_REDUCE_ARGMIN:
    case GP_REDUCE_ARGMAX: {
        st_t hi, lo;
        memset(&hi, 0, sizeof hi);
        memset(&lo, 0, sizeof lo);
        if (j->k == K_F32) hi.v.f = INFINITY, lo.v.f = -INFINITY;
        else if (j->k == K_F64) hi.v.d = INFINITY, lo.v.d = -INFINITY;
        else if (j->k == K_I64) hi.v.i = INT64_MAX, lo.v.i = INT64_MIN;
        else hi.v.u = UINT64_MAX, lo.v.u = 0;
        s.v = (j->op == GP_REDUCE_MAX || j->op == GP_REDUCE_ARGMAX) ? lo.v : hi.v;
        s.v2 = lo.v;
        break;
    }
    case GP_REDUCE_AND: s.v.u = UINT64_MAX; break;
    default: break;
    }
    return s;
}

static st_t make(const job_t *j, size_t i)
{
    st_t s;
    memset(&s, 0, sizeof s);
    s.idx = j->idx0 + (int64_t)i;
    uint64_t bits = 0; /* the element's bits, zero-extended */
    double fv = 0;     /* floats: the value */
    int64_t iv = 0;    /* integers: the value (sign- or zero-extended) */
    switch (j->dt) {
    case GP_U8: bits = ((const uint8_t *)j->x)[i], iv = (int64_t)bits; break;
    case GP_I8: iv = ((const int8_t *)j->x)[i], bits = (uint8_t)iv; break;
    case GP_U16: bits = ((const uint16_t *)j->x)[i], iv = (int64_t)bits; break;
    case GP_I16: iv = ((const int16_t *)j->x)[i], bits = (uint16_t)iv; break;
    case GP_U32: bits = ((const uint32_t *)j->x)[i], iv = (int64_t)bits; break;
    case GP_I32: iv = ((const int32_t *)j->x)[i], bits = (uint32_t)iv; break;
    case GP_U64: bits = ((const uint64_t *)j->x)[i], iv = (int64_t)bits; break;
    case GP_I64: iv = ((const int64_t *)j->x)[i], bits = (uint64_t)iv; break;
    case GP_F16: fv = gp__f16_to_f32(((const uint16_t *)j->x)[i]); break;
    case GP_BF16: fv = gp__bf16_to_f32(((const uint16_t *)j->x)[i]); break;
    case GP_F32: fv = ((const float *)j->x)[i]; break;
    case GP_F64: fv = ((const double *)j->x)[i]; break;
    default: break;
    }
    const int flt = j->dt == GP_F16 || j->dt == GP_BF16 || j->dt == GP_F32 || j->dt == GP_F64;
    if (j->op == GP_REDUCE_AND || j->op == GP_REDUCE_OR || j->op == GP_REDUCE_XOR) {
        s.v.u = bits;
    } else if (j->op == GP_REDUCE_COUNT_NONZERO) {
        s.v.u = flt ? (fv != 0) : (iv != 0);
    } else if (j->k == K_F32) {
        s.v.f = (float)fv;
    } else if (j->k == K_F64) {
        s.v.d = fv;
    } else if (j->k == K_I64) {
        s.v.i = iv;
    } else {
        s.v.u = (uint64_t)iv; /* sign-extended for signed sums/products, then wrapping */
    }
    s.v2 = s.v;
    return s;
}

static int isnan_k(kind_t k, const st_t *s, int second)
{
    if (k == K_F32) return isnan(second ? s->v2.f : s->v.f);
    if (k == K_F64) return isnan(second ? s->v2.d : s->v.d);
    return 0;
}

/* b < a in the value domain (second: compare v2). */
static int less(kind_t k, const st_t *b, const st_t *a, int second)
{
    switch (k) {
    case K_F32: return second ? b->v2.f < a->v2.f : b->v.f < a->v.f;
    case K_F64: return second ? b->v2.d < a->v2.d : b->v.d < a->v.d;
    case K_I64: return second ? b->v2.i < a->v2.i : b->v.i < a->v.i;
    default: return second ? b->v2.u < a->v2.u : b->v.u < a->v.u;
    }
}

/* vmin / vmax of the GPU: NaN in a, else NaN in b, else the smaller (larger) keeping a on ties. */
static void pick(kind_t k, st_t *a, const st_t *b, int want_max, int second)
{
    if (isnan_k(k, a, second)) return;
    int take = isnan_k(k, b, second) || (want_max ? less(k, a, b, second) : less(k, b, a, second));
    if (take) {
        if (second) a->v2 = b->v2;
        else a->v = b->v;
    }
}

static st_t combine(const job_t *j, st_t a, const st_t *b)
{
    const kind_t k = j->k;
    switch (j->op) {
    case GP_REDUCE_SUM:
    case GP_REDUCE_COUNT_NONZERO:
        if (k == K_F32) a.v.f = a.v.f + b->v.f;
        else if (k == K_F64) a.v.d = a.v.d + b->v.d;
        else a.v.u = a.v.u + b->v.u;
        return a;
    case GP_REDUCE_PROD:
        if (k == K_F32) a.v.f = a.v.f * b->v.f;
        else if (k == K_F64) a.v.d = a.v.d * b->v.d;
        else a.v.u = a.v.u * b->v.u;
        return a;
    case GP_REDUCE_MIN: pick(k, &a, b, 0, 0); return a;
    case GP_REDUCE_MAX: pick(k, &a, b, 1, 0); return a;
    case GP_REDUCE_MINMAX:
        pick(k, &a, b, 0, 0);
        pick(k, &a, b, 1, 1);
        return a;
    case GP_REDUCE_AND: a.v.u &= b->v.u; return a;
    case GP_REDUCE_OR: a.v.u |= b->v.u; return a;
    case GP_REDUCE_XOR: a.v.u ^= b->v.u; return a;
    default: { /* argmin / argmax */
        const int an = isnan_k(k, &a, 0), bn = isnan_k(k, b, 0), mx = j->op == GP_REDUCE_ARGMAX;
        if (an != bn) return an ? a : *b;
        if (!an) {
            if (mx ? less(k, &a, b, 0) : less(k, b, &a, 0)) return *b;
            if (mx ? less(k, b, &a, 0) : less(k, &a, b, 0)) return a;
        }
        return b->idx < a.idx ? *b : a;
    }
    }
}

/* The in-block tree of reduce_internal.h over 256 lane states. */
static st_t tree(const job_t *j, st_t *s)
{
    for (int w = 0; w < GP__REDUCE_LANES / 32; w++)
        for (int o = 16; o > 0; o >>= 1)
            for (int l = 0; l < o; l++) s[32 * w + l] = combine(j, s[32 * w + l], &s[32 * w + l + o]);
    st_t wr[GP__REDUCE_LANES / 32];
    for (int i = 0; i < GP__REDUCE_LANES / 32; i++) wr[i] = s[32 * i];
    for (int o = GP__REDUCE_LANES / 64; o > 0; o >>= 1)
        for (int i = 0; i < o; i++) wr[i] = combine(j, wr[i], &wr[i + o]);
    return wr[0];
}

/* ---- Fast paths for sums (docs/design/reduce.md, "The CPU backend"). Integer sums, products, bit ops and
 * count_nonzero wrap or count in 64 bits: exact in any order, so a tile's result is a plain loop over it. Float sums
 * keep the tree's order — lane l adds its 16-byte vectors v = 0 .. 15 (elements e ascending) to the identity -0, then
 * the block tree — with typed loops; a whole f32 / f64 tile's lanes are added side by side in SIMD registers (the
 * lanes' elements transposed), the same IEEE additions in the same order. Bitwise the generic path's (tested). */

/* The tree of reduce_internal.h over 256 lane sums, typed (combine(a, b) = a + b, a first). */
#define SUM_TREE(SFX, T)                                                                                            \
    static T tree_##SFX(T *s)                                                                                       \
    {                                                                                                               \
        for (int w = 0; w < GP__REDUCE_LANES / 32; w++)                                                             \
            for (int o = 16; o > 0; o >>= 1)                                                                        \
                for (int l = 0; l < o; l++) s[32 * w + l] = s[32 * w + l] + s[32 * w + l + o];                    \
        T wr[GP__REDUCE_LANES / 32];                                                                                \
        for (int i = 0; i < GP__REDUCE_LANES / 32; i++) wr[i] = s[32 * i];                                          \
        for (int o = GP__REDUCE_LANES / 64; o > 0; o >>= 1)                                                         \
            for (int i = 0; i < o; i++) wr[i] = wr[i] + wr[i + o];                                                  \
        return wr[0];                                                                                               \
    }
SUM_TREE(f32, float)
SUM_TREE(f64, double)

/* Lane sums of the tile at x holding L elements (W to a 16-byte vector; ACC the sum's type), any L up to a tile, or a
 * block segment's (up to GP__SEG_CHUNK elements: 8-byte types' lanes take more than a tile's 16 vectors). */
#define SUM_LANES(SFX, T, ACC, W)                                                                                   \
    static void lanes_##SFX(const T *x, size_t L, ACC *acc)                                                         \
    {                                                                                                               \
        for (size_t l = 0; l < GP__REDUCE_LANES; l++) acc[l] = (ACC)-0.0;                                          \
        for (size_t v = 0; GP__REDUCE_LANES * v * (W) < L; v++) /* vectors holding any (a segment: past 16) */  \
            for (size_t l = 0; l < GP__REDUCE_LANES; l++) {                                                        \
                const size_t i0 = (l + GP__REDUCE_LANES * v) * (W);                                                \
                ACC a = acc[l];                                                                                     \
                if (i0 + (W) <= L)                                                                                  \
                    for (size_t e = 0; e < (W); e++) a = a + (ACC)x[i0 + e];                                        \
                else                                                                                                \
                    for (size_t e = 0; e < (W) && i0 + e < L; e++) a = a + (ACC)x[i0 + e];                          \
                acc[l] = a;                                                                                         \
            }                                                                                                       \
    }
SUM_LANES(f32, float, float, 4)
SUM_LANES(f32w, float, double, 4)
SUM_LANES(f64, double, double, 2)

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* how far ahead of its loads a tile's loop prefetches, in bytes: the loop holds few loads in flight for the work
 * around each (transposes, adds), so memory is asked for early (2^20 f32 out of cache: 281 -> see reduce.md) */
#ifndef GP_REDUCE_CPU_PF
#define GP_REDUCE_CPU_PF 8192
#endif
enum { PF_AHEAD = GP_REDUCE_CPU_PF };
/* A whole tile's lane sums, SSE2 (every x86-64): four f32 lanes (two f64) a register, their vectors transposed so
 * each register holds one element e of each of its lanes. */
static void tile_f32_sse2(const float *x, float *acc)
{
    __m128 a[GP__REDUCE_LANES / 4];
    for (int g = 0; g < GP__REDUCE_LANES / 4; g++) a[g] = _mm_set1_ps(-0.0f);
    for (int v = 0; v < GP__REDUCE_VECS; v++)
        for (int g = 0; g < GP__REDUCE_LANES / 4; g++) {
            const float *p = x + (size_t)(4 * g + GP__REDUCE_LANES * v) * 4; /* lanes 4g .. 4g + 3 */
            __m128 r0 = _mm_loadu_ps(p), r1 = _mm_loadu_ps(p + 4), r2 = _mm_loadu_ps(p + 8), r3 = _mm_loadu_ps(p + 12);
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            a[g] = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_add_ps(a[g], r0), r1), r2), r3);
        }
    for (int g = 0; g < GP__REDUCE_LANES / 4; g++) _mm_storeu_ps(acc + 4 * g, a[g]);
}
static void tile_f64_sse2(const double *x, double *acc)
{
    __m128d a[GP__REDUCE_LANES / 2];
    for (int g = 0; g < GP__REDUCE_LANES / 2; g++) a[g] = _mm_set1_pd(-0.0);
    for (int v = 0; v < GP__REDUCE_VECS; v++)
        for (int g = 0; g < GP__REDUCE_LANES / 2; g++) {
            const double *p = x + (size_t)(2 * g + GP__REDUCE_LANES * v) * 2; /* lanes 2g, 2g + 1 */
            const __m128d r0 = _mm_loadu_pd(p), r1 = _mm_loadu_pd(p + 2);
            a[g] = _mm_add_pd(_mm_add_pd(a[g], _mm_unpacklo_pd(r0, r1)), _mm_unpackhi_pd(r0, r1));
        }
    for (int g = 0; g < GP__REDUCE_LANES / 2; g++) _mm_storeu_pd(acc + 2 * g, a[g]);
}
/* AVX2: eight f32 lanes a register (four f64), transposed within each 128-bit half, so a register holds the lanes
 * 0 2 4 6 1 3 5 7 (f64: 0 2 1 3) of its group; they are put back in order at the end. */
__attribute__((target("avx2"))) static void tile_f32_avx2(const float *x, float *acc)
{
    __m256 a[GP__REDUCE_LANES / 8];
    for (int g = 0; g < GP__REDUCE_LANES / 8; g++) a[g] = _mm256_set1_ps(-0.0f);
    for (int v = 0; v < GP__REDUCE_VECS; v++)
        for (int g = 0; g < GP__REDUCE_LANES / 8; g++) {
            const float *p = x + (size_t)(8 * g + GP__REDUCE_LANES * v) * 4; /* lanes 8g .. 8g + 7 */
            _mm_prefetch((const char *)p + PF_AHEAD, _MM_HINT_T0);
            _mm_prefetch((const char *)p + PF_AHEAD + 64, _MM_HINT_T0);
            const __m256 A = _mm256_loadu_ps(p), B = _mm256_loadu_ps(p + 8), C = _mm256_loadu_ps(p + 16),
                         D = _mm256_loadu_ps(p + 24);
            const __m256 t0 = _mm256_unpacklo_ps(A, B), t1 = _mm256_unpackhi_ps(A, B), t2 = _mm256_unpacklo_ps(C, D),
                         t3 = _mm256_unpackhi_ps(C, D);
            __m256 s = _mm256_add_ps(a[g], _mm256_shuffle_ps(t0, t2, 0x44));
            s = _mm256_add_ps(s, _mm256_shuffle_ps(t0, t2, 0xEE));
            s = _mm256_add_ps(s, _mm256_shuffle_ps(t1, t3, 0x44));
            a[g] = _mm256_add_ps(s, _mm256_shuffle_ps(t1, t3, 0xEE));
        }
    static const int perm[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (int g = 0; g < GP__REDUCE_LANES / 8; g++) {
        float o[8];
        _mm256_storeu_ps(o, a[g]);
        for (int i = 0; i < 8; i++) acc[8 * g + perm[i]] = o[i];
    }
}
__attribute__((target("avx2"))) static void tile_f64_avx2(const double *x, double *acc)
{
    __m256d a[GP__REDUCE_LANES / 4];
    for (int g = 0; g < GP__REDUCE_LANES / 4; g++) a[g] = _mm256_set1_pd(-0.0);
    for (int v = 0; v < GP__REDUCE_VECS; v++)
        for (int g = 0; g < GP__REDUCE_LANES / 4; g++) {
            const double *p = x + (size_t)(4 * g + GP__REDUCE_LANES * v) * 2; /* lanes 4g .. 4g + 3 */
            _mm_prefetch((const char *)p + PF_AHEAD, _MM_HINT_T0);
            const __m256d A = _mm256_loadu_pd(p), B = _mm256_loadu_pd(p + 4);
            a[g] = _mm256_add_pd(_mm256_add_pd(a[g], _mm256_unpacklo_pd(A, B)), _mm256_unpackhi_pd(A, B));
        }
    static const int perm[4] = {0, 2, 1, 3};
    for (int g = 0; g < GP__REDUCE_LANES / 4; g++) {
        double o[4];
        _mm256_storeu_pd(o, a[g]);
        for (int i = 0; i < 4; i++) acc[4 * g + perm[i]] = o[i];
    }
}
/* the bytes' sum (each xor flip) by psadbw: eight bytes' sum a 64-bit lane, 64 bytes a step */
static uint64_t sum_bytes(const uint8_t *x, size_t L, unsigned flip)
{
    const __m128i z = _mm_setzero_si128(), f = _mm_set1_epi8((char)flip);
    __m128i a = z, b = z;
    size_t i = 0;
    for (; i + 64 <= L; i += 64) {
        _mm_prefetch((const char *)(x + i) + PF_AHEAD, _MM_HINT_T0);
        const __m128i *p = (const __m128i *)(const void *)(x + i);
        a = _mm_add_epi64(a, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128(p), f), z));
        b = _mm_add_epi64(b, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128(p + 1), f), z));
        a = _mm_add_epi64(a, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128(p + 2), f), z));
        b = _mm_add_epi64(b, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128(p + 3), f), z));
    }
    a = _mm_add_epi64(a, b);
    uint64_t r = (uint64_t)_mm_cvtsi128_si64(a) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(a, a));
    for (; i < L; i++) r += (uint8_t)(x[i] ^ flip);
    return r;
}
/* 16-bit integers (each xor flip, as i16) by pmaddwd: pairs' sums as i32, a line's four added (below 2^19 in
 * magnitude) then widened to i64 lanes */
static uint64_t sum_halves(const uint16_t *x, size_t L, unsigned flip)
{
    const __m128i one = _mm_set1_epi16(1), f = _mm_set1_epi16((short)flip);
    __m128i a = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 32 <= L; i += 32) {
        _mm_prefetch((const char *)(x + i) + PF_AHEAD, _MM_HINT_T0);
        const __m128i *p = (const __m128i *)(const void *)(x + i);
        const __m128i s01 = _mm_add_epi32(_mm_madd_epi16(_mm_xor_si128(_mm_loadu_si128(p), f), one),
                                          _mm_madd_epi16(_mm_xor_si128(_mm_loadu_si128(p + 1), f), one));
        const __m128i s23 = _mm_add_epi32(_mm_madd_epi16(_mm_xor_si128(_mm_loadu_si128(p + 2), f), one),
                                          _mm_madd_epi16(_mm_xor_si128(_mm_loadu_si128(p + 3), f), one));
        const __m128i s = _mm_add_epi32(s01, s23), sg = _mm_srai_epi32(s, 31);
        a = _mm_add_epi64(a, _mm_add_epi64(_mm_unpacklo_epi32(s, sg), _mm_unpackhi_epi32(s, sg)));
    }
    uint64_t r = (uint64_t)_mm_cvtsi128_si64(a) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(a, a));
    for (; i < L; i++) r += (uint64_t)(int64_t)(int16_t)(x[i] ^ flip);
    return r;
}
/* wider integers: each 64-byte line's elements widened and added (the compiler's vectors), a prefetch a line */
#define SUM_LINES(NAME, T)                                                                                          \
    static uint64_t NAME(const T *x, size_t L)                                                                      \
    {                                                                                                               \
        enum { PER = 64 / sizeof(T) };                                                                              \
        uint64_t r = 0;                                                                                             \
        size_t i = 0;                                                                                               \
        for (; i + PER <= L; i += PER) {                                                                            \
            _mm_prefetch((const char *)(x + i) + PF_AHEAD, _MM_HINT_T0);                                            \
            for (size_t e = 0; e < PER; e++) r += (uint64_t)(int64_t)x[i + e];                                      \
        }                                                                                                           \
        for (; i < L; i++) r += (uint64_t)(int64_t)x[i];                                                            \
        return r;                                                                                                   \
    }
SUM_LINES(sum_lines_u32, uint32_t)
SUM_LINES(sum_lines_i32, int32_t)
SUM_LINES(sum_lines_u64, uint64_t)
SUM_LINES(sum_lines_i64, int64_t)
static int have_avx2(void) { return (gp__cpu_features() & GP__CPU_AVX2) != 0; }
#define TILE_F32(x, acc) (have_avx2() ? tile_f32_avx2(x, acc) : tile_f32_sse2(x, acc))
#define TILE_F64(x, acc) (have_avx2() ? tile_f64_avx2(x, acc) : tile_f64_sse2(x, acc))
#else
#define TILE_F32(x, acc) lanes_f32(x, GP__REDUCE_TILE_BYTES / 4, acc)
#define TILE_F64(x, acc) lanes_f64(x, GP__REDUCE_TILE_BYTES / 8, acc)
#endif

/* The exact ops of integers (and count_nonzero of any dtype) over [base, base + L): their value in any order. */
#define EXACT_LOOP(T, EXPR, INIT, OP)                                                                               \
    do {                                                                                                            \
        const T *x = (const T *)j->x + base;                                                                        \
        uint64_t r = (INIT);                                                                                        \
        for (size_t i = 0; i < L; i++) r = r OP (uint64_t)(EXPR);                                                   \
        return r;                                                                                                   \
    } while (0)
#define EXACT_TYPES(EXPRI, EXPRF, INIT, OP)                                                                         \
    switch (j->dt) {                                                                                                \
    case GP_U8: EXACT_LOOP(uint8_t, EXPRI, INIT, OP);                                                               \
    case GP_I8: EXACT_LOOP(int8_t, EXPRI, INIT, OP);                                                                \
    case GP_U16: EXACT_LOOP(uint16_t, EXPRI, INIT, OP);                                                             \
    case GP_I16: EXACT_LOOP(int16_t, EXPRI, INIT, OP);                                                              \
    case GP_U32: EXACT_LOOP(uint32_t, EXPRI, INIT, OP);                                                             \
    case GP_I32: EXACT_LOOP(int32_t, EXPRI, INIT, OP);                                                              \
    case GP_U64: EXACT_LOOP(uint64_t, EXPRI, INIT, OP);                                                             \
    case GP_I64: EXACT_LOOP(int64_t, EXPRI, INIT, OP);                                                              \
    case GP_F32: EXACT_LOOP(float, EXPRF, INIT, OP);                                                                \
    case GP_F64: EXACT_LOOP(double, EXPRF, INIT, OP);                                                               \
    default: break;                                                                                                 \
    }
/* sums and products of integers (sign-extended, wrapping) and count_nonzero: the tile's u64 value */
static uint64_t exact_sum(const job_t *j, size_t base, size_t L)
{
#if defined(__x86_64__) && defined(__GNUC__)
    /* integer sums a 64-byte line at a time, a prefetch ahead of each: out of cache this VM's hardware prefetch alone
     * kept a u8 sum of 4 MiB at 1.7 GB/s (docs/design/reduce.md) */
    switch (j->dt) {
    case GP_U8: return sum_bytes((const uint8_t *)j->x + base, L, 0);
    case GP_I8: return sum_bytes((const uint8_t *)j->x + base, L, 0x80) - (uint64_t)L * 128u; /* x + 128 as u8 */
    case GP_U16: return sum_halves((const uint16_t *)j->x + base, L, 0x8000) + (uint64_t)L * 32768u; /* x - 2^15 */
    case GP_I16: return sum_halves((const uint16_t *)j->x + base, L, 0);
    case GP_U32: return sum_lines_u32((const uint32_t *)j->x + base, L);
    case GP_I32: return sum_lines_i32((const int32_t *)j->x + base, L);
    case GP_U64: return sum_lines_u64((const uint64_t *)j->x + base, L);
    case GP_I64: return sum_lines_i64((const int64_t *)j->x + base, L);
    default: break;
    }
#endif
    EXACT_TYPES((int64_t)x[i], x[i] != 0, 0, +)
    return 0;
}
static uint64_t exact_count(const job_t *j, size_t base, size_t L)
{
    EXACT_TYPES(x[i] != 0, x[i] != 0, 0, +)
    return 0;
}
static uint64_t exact_prod(const job_t *j, size_t base, size_t L)
{
    EXACT_TYPES((int64_t)x[i], ((void)x[i], 0), 1, *) /* called for integers only */
    return 0;
}

/* 1 and *out set where a fast sum took the tile [base, base + L) */
static int sum_tile(const job_t *j, size_t base, size_t L, st_t *out)
{
    const int full = L == GP__REDUCE_TILE_BYTES / gp_dtype_size(j->dt);
    const int integer = j->dt != GP_F16 && j->dt != GP_BF16 && j->dt != GP_F32 && j->dt != GP_F64;
    st_t r = identity(j);
    if (j->op == GP_REDUCE_COUNT_NONZERO && j->dt != GP_F16 && j->dt != GP_BF16) r.v.u = exact_count(j, base, L);
    else if (j->op == GP_REDUCE_SUM && integer && j->k == K_U64) r.v.u = exact_sum(j, base, L);
    else if (j->op == GP_REDUCE_PROD && integer && j->k == K_U64) r.v.u = exact_prod(j, base, L);
    else if (j->op == GP_REDUCE_SUM && j->dt == GP_F32 && j->k == K_F32) {
        float acc[GP__REDUCE_LANES];
        if (full) TILE_F32((const float *)j->x + base, acc);
        else lanes_f32((const float *)j->x + base, L, acc);
        r.v.f = tree_f32(acc);
    } else if (j->op == GP_REDUCE_SUM && j->dt == GP_F64 && j->k == K_F64) {
        double acc[GP__REDUCE_LANES];
        if (full) TILE_F64((const double *)j->x + base, acc);
        else lanes_f64((const double *)j->x + base, L, acc);
        r.v.d = tree_f64(acc);
    } else if (j->op == GP_REDUCE_SUM && j->dt == GP_F32 && j->k == K_F64) {
        double acc[GP__REDUCE_LANES];
        lanes_f32w((const float *)j->x + base, L, acc);
        r.v.d = tree_f64(acc);
    } else {
        return 0;
    }
    *out = r;
    return 1;
}

int gp__reduce_cpu_generic_only = 0;

/* Fast paths for min/max/minmax/argmin/argmax over one tile (any length). These results do not depend on the order
 * of the tree except where equal-comparing values have different bits: +0 and -0, and NaNs with different payloads.
 * One vectorizable pass finds the min, the max and whether a NaN is there; where the answer could depend on the
 * order (zeros of both signs, NaNs of different bits) the tile goes to the generic path. argmin/argmax keep the first
 * index of the extreme value (or of the first NaN), which is what the tree's tie rule gives in any order. */
#define MM_LANES 16
#define MM_ISNAN(v) ((v) != (v))
#define MM_NONAN(v) ((void)(v), 0)

/* After the vector part: the tail, and an exact look for NaNs when the v - v sums say there may be one. */
#define MM_FINISH(T, ISN)                                                                                            \
    int any = ISN(zs) || ISN(x[0]);                                                                                  \
    for (; i < L; i++) {                                                                                             \
        const T v = x[i];                                                                                            \
        lo = v < lo ? v : lo;                                                                                        \
        hi = v > hi ? v : hi;                                                                                        \
        any |= ISN(v);                                                                                               \
    }                                                                                                                \
    if (any) {                                                                                                       \
        any = 0;                                                                                                     \
        for (i = 0; i < L && !any; i++) any = ISN(x[i]);                                                             \
    }                                                                                                                \
    *mn = lo, *mx = hi, *nan = any

/* Portable scan (integers; floats off x86): 16 independent lanes the compiler may vectorize. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MM_CLONES __attribute__((target_clones("avx2", "default"))) /* the integer min / max in AVX2 where it is */
#else
#define MM_CLONES
#endif
#define MM_SCAN(SFX, T, ISN)                                                                                         \
    MM_CLONES static void mm_scan_##SFX(const T *x, size_t L, T *mn, T *mx, int *nan)                                \
    {                                                                                                                \
        T a[MM_LANES], b[MM_LANES], z[MM_LANES]; /* z: v - v summed, NaN after a NaN or an infinity */              \
        for (size_t k = 0; k < MM_LANES; k++) a[k] = b[k] = x[0], z[k] = 0;                                          \
        size_t i = 0;                                                                                                \
        for (; i + MM_LANES <= L; i += MM_LANES)                                                                     \
            for (size_t k = 0; k < MM_LANES; k++) {                                                                  \
                if (k == 0) __builtin_prefetch((const char *)(x + i) + 8192);                                        \
                const T v = x[i + k];                                                                                \
                a[k] = v < a[k] ? v : a[k];                                                                          \
                b[k] = v > b[k] ? v : b[k];                                                                          \
                z[k] += v - v;                                                                                       \
            }                                                                                                        \
        T lo = a[0], hi = b[0], zs = z[0];                                                                           \
        for (size_t k = 1; k < MM_LANES; k++) {                                                                      \
            lo = a[k] < lo ? a[k] : lo;                                                                              \
            hi = b[k] > hi ? b[k] : hi;                                                                              \
            zs += z[k];                                                                                              \
        }                                                                                                            \
        MM_FINISH(T, ISN);                                                                                           \
    }

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
enum { MM_PF = 8192 }; /* bytes ahead that the min / max scan prefetches: few loads in flight otherwise */
/* SSE2 (every x86-64): _mm_min_ps(v, a) is exactly v < a ? v : a, the scalar rule below. Two vectors of W lanes per
 * step; V the vector type, S the intrinsics' suffix (ps / pd). */
#define MM_OP(OP, S) _mm_##OP##_##S
#define MM_SSE2(SFX, T, V, W, S)                                                                                     \
    static void mm_scan_sse2_##SFX(const T *x, size_t L, T *mn, T *mx, int *nan)                                     \
    {                                                                                                                \
        V a0 = MM_OP(set1, S)(x[0]), a1 = a0, b0 = a0, b1 = a0, z0 = MM_OP(setzero, S)(), z1 = z0;                   \
        size_t i = 0;                                                                                                \
        for (; i + 2 * W <= L; i += 2 * W) {                                                                         \
            _mm_prefetch((const char *)(x + i) + MM_PF, _MM_HINT_T0);                                                 \
            const V v0 = MM_OP(loadu, S)(x + i), v1 = MM_OP(loadu, S)(x + i + W);                                    \
            a0 = MM_OP(min, S)(v0, a0), a1 = MM_OP(min, S)(v1, a1);                                                  \
            b0 = MM_OP(max, S)(v0, b0), b1 = MM_OP(max, S)(v1, b1);                                                  \
            z0 = MM_OP(add, S)(z0, MM_OP(sub, S)(v0, v0)), z1 = MM_OP(add, S)(z1, MM_OP(sub, S)(v1, v1));            \
        }                                                                                                            \
        T av[2 * W], bv[2 * W], zv[2 * W];                                                                           \
        MM_OP(storeu, S)(av, a0), MM_OP(storeu, S)(av + W, a1), MM_OP(storeu, S)(bv, b0);                            \
        MM_OP(storeu, S)(bv + W, b1), MM_OP(storeu, S)(zv, z0), MM_OP(storeu, S)(zv + W, z1);                        \
        T lo = av[0], hi = bv[0], zs = zv[0];                                                                        \
        for (int k = 1; k < 2 * W; k++) lo = av[k] < lo ? av[k] : lo, hi = bv[k] > hi ? bv[k] : hi, zs += zv[k];    \
        MM_FINISH(T, MM_ISNAN);                                                                                      \
    }
MM_SSE2(f32, float, __m128, 4, ps)
MM_SSE2(f64, double, __m128d, 2, pd)
#if defined(__GNUC__) && !defined(GP_NO_AVX512)
#include <immintrin.h>
/* AVX-512F where the CPU has it: the same rule (vminps / vmaxps: v < a ? v : a), W lanes a register, four registers a
 * step so the min, max and v - v chains overlap (docs/design/reduce.md, "The CPU backend") */
#define MM_OP5(OP, S) _mm512_##OP##_##S
#define MM_AVX512(SFX, T, V, W, S)                                                                                   \
    __attribute__((target("avx512f"))) static void mm_scan_avx512_##SFX(const T *x, size_t L, T *mn, T *mx,         \
                                                                         int *nan)                                   \
    {                                                                                                                \
        V a[4], b[4], z[4];                                                                                          \
        for (int k = 0; k < 4; k++) a[k] = MM_OP5(set1, S)(x[0]), b[k] = a[k], z[k] = MM_OP5(setzero, S)();         \
        size_t i = 0;                                                                                                \
        for (; i + 4 * W <= L; i += 4 * W) {                                                                         \
            for (int k = 0; k < 4; k++) {                                                                            \
                _mm_prefetch((const char *)(x + i) + MM_PF + 64 * k, _MM_HINT_T0);                                   \
                const V v = MM_OP5(loadu, S)(x + i + (size_t)k * W);                                                 \
                a[k] = MM_OP5(min, S)(v, a[k]), b[k] = MM_OP5(max, S)(v, b[k]);                                      \
                z[k] = MM_OP5(add, S)(z[k], MM_OP5(sub, S)(v, v));                                                   \
            }                                                                                                        \
        }                                                                                                            \
        T av[4 * W], bv[4 * W], zv[4 * W];                                                                           \
        for (int k = 0; k < 4; k++)                                                                                  \
            MM_OP5(storeu, S)(av + k * W, a[k]), MM_OP5(storeu, S)(bv + k * W, b[k]),                                \
                MM_OP5(storeu, S)(zv + k * W, z[k]);                                                                 \
        T lo = av[0], hi = bv[0], zs = zv[0];                                                                        \
        for (int k = 1; k < 4 * W; k++) lo = av[k] < lo ? av[k] : lo, hi = bv[k] > hi ? bv[k] : hi, zs += zv[k];    \
        MM_FINISH(T, MM_ISNAN);                                                                                      \
    }                                                                                                                \
    static void mm_scan_##SFX(const T *x, size_t L, T *mn, T *mx, int *nan)                                          \
    {                                                                                                                \
        if (gp__cpu_features() & GP__CPU_AVX512F) mm_scan_avx512_##SFX(x, L, mn, mx, nan);                          \
        else mm_scan_sse2_##SFX(x, L, mn, mx, nan);                                                                  \
    }
MM_AVX512(f32, float, __m512, 16, ps)
MM_AVX512(f64, double, __m512d, 8, pd)
#else
static void mm_scan_f32(const float *x, size_t L, float *mn, float *mx, int *nan) { mm_scan_sse2_f32(x, L, mn, mx, nan); }
static void mm_scan_f64(const double *x, size_t L, double *mn, double *mx, int *nan)
{
    mm_scan_sse2_f64(x, L, mn, mx, nan);
}
#endif
#else
MM_SCAN(f32, float, MM_ISNAN)
MM_SCAN(f64, double, MM_ISNAN)
#endif
MM_SCAN(u8, uint8_t, MM_NONAN)
MM_SCAN(i8, int8_t, MM_NONAN)
MM_SCAN(u16, uint16_t, MM_NONAN)
MM_SCAN(i16, int16_t, MM_NONAN)
MM_SCAN(u32, uint32_t, MM_NONAN)
MM_SCAN(i32, int32_t, MM_NONAN)
MM_SCAN(u64, uint64_t, MM_NONAN)
MM_SCAN(i64, int64_t, MM_NONAN)

/* mm_first's start: floats skip the 16-element blocks that do not hold v (SSE2 compares; NaN: unordered), others
 * start at 0 */
#if defined(__SSE2__)
/* W lanes a register, four registers a block (V the vector type, S the intrinsics' suffix) */
#define MM_SKIP_DEF(SFX, T, V, S, W)                                                                                 \
    static size_t mm_skip_##SFX(const T *x, size_t L, T v)                                                          \
    {                                                                                                                \
        const V t = MM_OP(set1, S)(v);                                                                               \
        const int nan = v != v;                                                                                      \
        size_t i = 0;                                                                                                \
        for (; i + 4 * W <= L; i += 4 * W) {                                                                         \
            const V a = MM_OP(loadu, S)(x + i), b = MM_OP(loadu, S)(x + i + W), c = MM_OP(loadu, S)(x + i + 2 * W), \
                    d = MM_OP(loadu, S)(x + i + 3 * W);                                                              \
            const V m = nan ? MM_OP(or, S)(MM_OP(or, S)(MM_OP(cmpunord, S)(a, a), MM_OP(cmpunord, S)(b, b)),         \
                                           MM_OP(or, S)(MM_OP(cmpunord, S)(c, c), MM_OP(cmpunord, S)(d, d)))         \
                            : MM_OP(or, S)(MM_OP(or, S)(MM_OP(cmpeq, S)(a, t), MM_OP(cmpeq, S)(b, t)),               \
                                           MM_OP(or, S)(MM_OP(cmpeq, S)(c, t), MM_OP(cmpeq, S)(d, t)));              \
            if (MM_OP(movemask, S)(m)) break;                                                                        \
        }                                                                                                            \
        return i;                                                                                                    \
    }
MM_SKIP_DEF(f32, float, __m128, ps, 4)
MM_SKIP_DEF(f64, double, __m128d, pd, 2)
static size_t mm_skip_none(const void *x, size_t L, double v)
{
    (void)x, (void)L, (void)v;
    return 0;
}
#define MM_SKIP(x, L, v)                                                                                            \
    _Generic((x), const float *: mm_skip_f32, const double *: mm_skip_f64, default: mm_skip_none)(x, L, v)
#else
#define MM_SKIP(x, L, v) ((void)(x), (void)(L), (void)(v), (size_t)0)
#endif

#define MM_FUNCS(SFX, T, ISN, NANV)                                                                                        \
    /* -1: no index; else the first index whose element equals v (by value), or is NaN when v is NaN */              \
    static size_t mm_first_##SFX(const T *x, size_t L, T v)                                                          \
    { /* blocks of 16 tested whole (a loop the compiler vectorizes), then the block that holds it */               \
        size_t i = MM_SKIP(x, L, v);                                                                                 \
        if (ISN(v))                                                                                                  \
            for (; i + 16 <= L; i += 16) {                                                                           \
                int any = 0;                                                                                         \
                for (int k = 0; k < 16; k++) any |= ISN(x[i + (size_t)k]);                                           \
                if (any) break;                                                                                      \
            }                                                                                                        \
        else                                                                                                         \
            for (; i + 16 <= L; i += 16) {                                                                           \
                int any = 0;                                                                                         \
                for (int k = 0; k < 16; k++) any |= x[i + (size_t)k] == v;                                           \
                if (any) break;                                                                                      \
            }                                                                                                        \
        for (; i < L; i++)                                                                                           \
            if (ISN(v) ? ISN(x[i]) : x[i] == v) return i;                                                         \
        return (size_t)-1;                                                                                           \
    }                                                                                                                \
    /* the elements equal to v (by value; NaN: every NaN) all have the same bits */                                 \
    static int mm_same_bits_##SFX(const T *x, size_t L, T v)                                                         \
    {                                                                                                                \
        const size_t f = mm_first_##SFX(x, L, v);                                                                    \
        for (size_t i = f + 1; i < L; i++)                                                                           \
            if ((ISN(v) ? ISN(x[i]) : x[i] == v) && memcmp(&x[i], &x[f], sizeof(T)) != 0) return 0;               \
        return 1;                                                                                                    \
    }                                                                                                                \
    static int mm_tile_##SFX(const job_t *j, size_t base, size_t L, st_t *out)                                       \
    {                                                                                                                \
        const T *x = (const T *)j->x + base;                                                                         \
        T mn, mx;                                                                                                    \
        int nan;                                                                                                     \
        mm_scan_##SFX(x, L, &mn, &mx, &nan);                                                                         \
        if (j->op == GP_REDUCE_ARGMIN || j->op == GP_REDUCE_ARGMAX) {                                                \
            T v = j->op == GP_REDUCE_ARGMIN ? mn : mx;                                                               \
            if (nan) v = (T)NANV;                                                                                     \
            *out = make(j, base + mm_first_##SFX(x, L, v));                                                          \
            return 1;                                                                                                \
        }                                                                                                            \
        if (nan) mn = mx = (T)NANV;                                                                                   \
        /* unordered bits: +0 and -0 both present, or NaNs of several payloads */                                   \
        if ((mn == 0 || nan) && !mm_same_bits_##SFX(x, L, mn)) return 0;                                             \
        if ((mx == 0 || nan) && !mm_same_bits_##SFX(x, L, mx)) return 0;                                             \
        if (nan) mn = mx = x[mm_first_##SFX(x, L, mn)]; /* that NaN's bits */                                        \
        else if (mn == 0) mn = x[mm_first_##SFX(x, L, mn)];                                                          \
        if (!nan && mx == 0) mx = x[mm_first_##SFX(x, L, mx)];                                                       \
        job_t t = *j;                                                                                                \
        st_t r = identity(j), lo, hi;                                                                                \
        t.x = &mn, lo = make(&t, 0);                                                                                 \
        t.x = &mx, hi = make(&t, 0);                                                                                 \
        if (j->op == GP_REDUCE_MIN) r.v = lo.v;                                                                      \
        else if (j->op == GP_REDUCE_MAX) r.v = hi.v;                                                                 \
        else r.v = lo.v, r.v2 = hi.v;                                                                                \
        *out = r;                                                                                                    \
        return 1;                                                                                                    \
    }

MM_FUNCS(f32, float, MM_ISNAN, NAN)
MM_FUNCS(f64, double, MM_ISNAN, NAN)
MM_FUNCS(u8, uint8_t, MM_NONAN, 0)
MM_FUNCS(i8, int8_t, MM_NONAN, 0)
MM_FUNCS(u16, uint16_t, MM_NONAN, 0)
MM_FUNCS(i16, int16_t, MM_NONAN, 0)
MM_FUNCS(u32, uint32_t, MM_NONAN, 0)
MM_FUNCS(i32, int32_t, MM_NONAN, 0)
MM_FUNCS(u64, uint64_t, MM_NONAN, 0)
MM_FUNCS(i64, int64_t, MM_NONAN, 0)

/* 1 and *out set when a fast path took the tile. */
static int minmax_tile(const job_t *j, size_t base, size_t L, st_t *out)
{
    switch (j->dt) {
    case GP_F32: return mm_tile_f32(j, base, L, out);
    case GP_F64: return mm_tile_f64(j, base, L, out);
    case GP_U8: return mm_tile_u8(j, base, L, out);
    case GP_I8: return mm_tile_i8(j, base, L, out);
    case GP_U16: return mm_tile_u16(j, base, L, out);
    case GP_I16: return mm_tile_i16(j, base, L, out);
    case GP_U32: return mm_tile_u32(j, base, L, out);
    case GP_I32: return mm_tile_i32(j, base, L, out);
    case GP_U64: return mm_tile_u64(j, base, L, out);
    case GP_I64: return mm_tile_i64(j, base, L, out);
    default: return 0; /* f16, bf16: the generic path */
    }
}

static st_t tile(const job_t *j, size_t k)
{
    const size_t es = gp_dtype_size(j->dt), w = 16 / es, base = k * (GP__REDUCE_TILE_BYTES / es);
    st_t lanes[GP__REDUCE_LANES];
    if ((j->op == GP_REDUCE_MIN || j->op == GP_REDUCE_MAX || j->op == GP_REDUCE_MINMAX || j->op == GP_REDUCE_ARGMIN ||
         j->op == GP_REDUCE_ARGMAX) &&
        !gp__reduce_cpu_generic_only) {
        const size_t L = j->n - base < GP__REDUCE_TILE_BYTES / es ? j->n - base : GP__REDUCE_TILE_BYTES / es;
        if (minmax_tile(j, base, L, &lanes[0])) return lanes[0];
    }
    if (!gp__reduce_cpu_generic_only) {
        const size_t L = j->n - base < GP__REDUCE_TILE_BYTES / es ? j->n - base : GP__REDUCE_TILE_BYTES / es;
        if (sum_tile(j, base, L, &lanes[0])) return lanes[0];
    }
    for (size_t l = 0; l < GP__REDUCE_LANES; l++) {
        st_t s = identity(j);
        for (size_t v = 0; v < GP__REDUCE_VECS; v++)
            for (size_t e = 0; e < w; e++) {
                const size_t i = base + (l + GP__REDUCE_LANES * v) * w + e;
                if (i < j->n) {
                    st_t m = make(j, i);
                    s = combine(j, s, &m);
                }
            }
        lanes[l] = s;
    }
    return tree(j, lanes);
}

/* Group g of the levels over part[0, m): lane l folds entries g*4096 + l + 256*v in order, then the tree. */
static st_t fold_group(const job_t *j, const st_t *part, size_t m, size_t g)
{
    st_t lanes[GP__REDUCE_LANES];
    for (size_t l = 0; l < GP__REDUCE_LANES; l++) {
        st_t s = identity(j);
        for (size_t v = 0; v < GP__REDUCE_VECS; v++) {
            const size_t e = g * GP__REDUCE_GROUP + v * GP__REDUCE_LANES + l;
            if (e < m) s = combine(j, s, &part[e]);
        }
        lanes[l] = s;
    }
    return tree(j, lanes);
}

static void to_result(const job_t *j, const st_t *s, gp_reduce_result_t *result)
{
    gp_reduce_result_t r;
    memset(&r, 0, sizeof r);
    r.acc_dtype = j->k == K_F64 ? GP_F64 : (int32_t)gp_reduce_acc_dtype(j->op, j->dt);
    r.op = (int32_t)j->op;
    r.index = (j->op == GP_REDUCE_ARGMIN || j->op == GP_REDUCE_ARGMAX) ? s->idx : -1;
    if (j->k == K_F32) {
        r.value.f32 = s->v.f;
        if (j->op == GP_REDUCE_MINMAX) r.value2.f32 = s->v2.f;
    } else {
        r.value.u64 = s->v.u;
        if (j->op == GP_REDUCE_MINMAX) r.value2.u64 = s->v2.u;
    }
    *result = r;
}

size_t gp__reduce_cpu_entry_bytes(void) { return sizeof(st_t); }

void gp__reduce_cpu_tiles(gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n, const void *x, long long idx0,
                          void *dst, int parallel)
{
    const job_t j = {op, dtype, kind_of(op, dtype, wide), x, n, idx0};
    const size_t tile_elems = GP__REDUCE_TILE_BYTES / gp_dtype_size(dtype), ntiles = (n + tile_elems - 1) / tile_elems;
    st_t *part = dst;
    parallel = gp__cpu_par(parallel, n * gp_dtype_size(dtype));
#pragma omp parallel for schedule(static) if (parallel)
    for (long long k = 0; k < (long long)ntiles; k++) part[k] = tile(&j, (size_t)k);
}

void gp__reduce_cpu_fold(gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t m, const void *src, void *dst)
{
    const job_t j = {op, dtype, kind_of(op, dtype, wide), NULL, 0, 0};
    const size_t groups = (m + GP__REDUCE_GROUP - 1) / GP__REDUCE_GROUP;
    for (size_t g = 0; g < groups; g++) ((st_t *)dst)[g] = fold_group(&j, src, m, g);
}

void gp__reduce_cpu_entry_result(gp_reduce_op_t op, gp_dtype_t dtype, int wide, const void *entry,
                                 gp_reduce_result_t *result)
{
    const job_t j = {op, dtype, kind_of(op, dtype, wide), NULL, 0, 0};
    to_result(&j, entry, result);
}

gp_status_t gp__reduce_cpu(gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n, const void *x,
                           gp_reduce_result_t *result, int parallel)
{
    const job_t j = {op, dtype, kind_of(op, dtype, wide), x, n, 0};
    const size_t tile_elems = GP__REDUCE_TILE_BYTES / gp_dtype_size(dtype), ntiles = (n + tile_elems - 1) / tile_elems;
    st_t *part = malloc(ntiles * sizeof *part);
    if (part == NULL) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_reduce (CPU): %zu tile results", ntiles);
    gp__reduce_cpu_tiles(op, dtype, wide, n, x, 0, part, parallel);
    for (size_t m = ntiles; m > 1;) {
        const size_t groups = (m + GP__REDUCE_GROUP - 1) / GP__REDUCE_GROUP;
        for (size_t g = 0; g < groups; g++) part[g] = fold_group(&j, part, m, g);
        m = groups;
    }
    to_result(&j, &part[0], result);
    free(part);
    return GP_OK;
}

/* ------------------------------------------------------------------------------------------ segmented */
/* A warp segment's float sum (L <= GP__SEG_WARP_MAX): lane l adds l, l+32, ... to -0 in order, then the shuffle
 * tree; 32 independent lanes, which the compiler may vectorize without reordering any lane's adds. */
#define SEG_WARP_SUM(SFX, T)                                                                                        \
    static T warp_##SFX(const T *x, size_t L)                                                                       \
    {                                                                                                               \
        T w[32];                                                                                                    \
        for (int l = 0; l < 32; l++) w[l] = (T)-0.0;                                                                \
        size_t i = 0;                                                                                               \
        for (; i + 32 <= L; i += 32)                                                                                \
            for (int l = 0; l < 32; l++) w[l] = w[l] + x[i + l];                                                    \
        for (size_t l = 0; i + l < L; l++) w[l] = w[l] + x[i + l];                                                  \
        for (int o = 16; o > 0; o >>= 1)                                                                            \
            for (int l = 0; l < o; l++) w[l] = w[l] + w[l + o];                                                     \
        return w[0];                                                                                                \
    }
SEG_WARP_SUM(f32, float)
SEG_WARP_SUM(f64, double)

/* One segment [b, b + L) by the fast paths where they give its tree's bits: min / max where minmax_tile decides (any
 * order but for ±0 and NaNs), the exact integer ops and count_nonzero (any order), f32 / f64 sums in the segment's
 * tree — a block segment's is a tile's from b (sum_tile), a warp segment's warp_*. 1 and *out where taken. */
static int seg_fast(const job_t *j, size_t b, size_t L, int warp, st_t *out)
{
    if (gp__reduce_cpu_generic_only) return 0;
    if (j->op == GP_REDUCE_MIN || j->op == GP_REDUCE_MAX) return minmax_tile(j, b, L, out);
    const int f32 = j->dt == GP_F32 && j->k == K_F32, f64 = j->dt == GP_F64 && j->k == K_F64;
    if (!warp || j->op != GP_REDUCE_SUM || !(f32 || f64)) return sum_tile(j, b, L, out);
    st_t r = identity(j);
    if (f32) r.v.f = warp_f32((const float *)j->x + b, L);
    else r.v.d = warp_f64((const double *)j->x + b, L);
    *out = r;
    return 1;
}

/* The GPU's block path: lane l folds the 16-byte groups l, l+256, ... (counted from b) element by element. */
static st_t seg_block(const job_t *j, size_t b, size_t e)
{
    const size_t w = 16 / gp_dtype_size(j->dt);
    st_t lanes[GP__REDUCE_LANES];
    if (seg_fast(j, b, e - b, 0, &lanes[0])) return lanes[0];
    for (size_t l = 0; l < GP__REDUCE_LANES; l++) {
        st_t s = identity(j);
        for (size_t g = b + l * w; g < e; g += GP__REDUCE_LANES * w)
            for (size_t i = g; i < g + w && i < e; i++) {
                st_t m = make(j, i);
                s = combine(j, s, &m);
            }
        lanes[l] = s;
    }
    return tree(j, lanes);
}

static void seg_store(const job_t *j, void *out, size_t i, const st_t *s)
{
    if (j->k == K_F32) ((float *)out)[i] = s->v.f;
    else ((uint64_t *)out)[i] = s->v.u;
}

void gp__reduce_cpu_segmented(gp_reduce_op_t op, gp_dtype_t dtype, size_t n, const void *x, size_t nseg,
                              const long long *offsets, void *out, int parallel)
{
    const job_t j = {op, dtype, kind_of(op, dtype, 0), x, n, 0};
    gp_reduce_result_t id;
    gp__reduce_identity(op, dtype, &id);
    parallel = gp__cpu_par(parallel, n * gp_dtype_size(dtype));
#pragma omp parallel for schedule(dynamic, 64) if (parallel)
    for (long long sg = 0; sg < (long long)nseg; sg++) {
        long long lo = offsets[sg], hi = offsets[sg + 1];
        lo = lo < 0 ? 0 : lo > (long long)n ? (long long)n : lo;
        hi = hi < lo ? lo : hi > (long long)n ? (long long)n : hi;
        const size_t b = (size_t)lo, e = (size_t)hi, L = e - b;
        st_t r;
        if (L == 0) {
            memset(&r, 0, sizeof r);
            if (j.k == K_F32) r.v.f = id.value.f32;
            else r.v.u = id.value.u64;
        } else if (L <= GP__SEG_WARP_MAX) { /* a warp: lane l folds l, l+32, ...; then the shuffle tree */
            if (!seg_fast(&j, b, L, 1, &r)) {
                st_t w[32];
                for (size_t l = 0; l < 32; l++) {
                    w[l] = identity(&j);
                    for (size_t i = b + l; i < e; i += 32) {
                        st_t m = make(&j, i);
                        w[l] = combine(&j, w[l], &m);
                    }
                }
                for (int o = 16; o > 0; o >>= 1)
                    for (int l = 0; l < o; l++) w[l] = combine(&j, w[l], &w[l + o]);
                r = w[0];
            }
        } else if (L <= GP__SEG_CHUNK) {
            r = seg_block(&j, b, e);
        } else { /* chunk results, folded lane-strided, then the block tree */
            st_t lanes[GP__REDUCE_LANES];
            for (size_t l = 0; l < GP__REDUCE_LANES; l++) lanes[l] = identity(&j);
            const size_t nch = (L + GP__SEG_CHUNK - 1) / GP__SEG_CHUNK;
            for (size_t k = 0; k < nch; k++) {
                const size_t cb = b + k * GP__SEG_CHUNK, ce = cb + GP__SEG_CHUNK < e ? cb + GP__SEG_CHUNK : e;
                const st_t c = seg_block(&j, cb, ce);
                lanes[k % GP__REDUCE_LANES] = combine(&j, lanes[k % GP__REDUCE_LANES], &c);
            }
            r = tree(&j, lanes);
        }
        seg_store(&j, out, (size_t)sg, &r);
    }
}

/* A sharded segmented reduction's pieces (src/group): one chunk (m <= GP__SEG_CHUNK elements) by the block path,
 * whatever m, and a long segment's value from its chunks' values in order — the last branch above, cut in two. */
void gp__reduce_cpu_seg_chunk(gp_reduce_op_t op, gp_dtype_t dtype, size_t m, const void *x, void *value)
{
    const job_t j = {op, dtype, kind_of(op, dtype, 0), x, m, 0};
    const st_t r = seg_block(&j, 0, m);
    seg_store(&j, value, 0, &r);
}

void gp__reduce_cpu_seg_fold(gp_reduce_op_t op, gp_dtype_t dtype, size_t nch, const void *values, void *out)
{
    const job_t j = {op, dtype, kind_of(op, dtype, 0), NULL, 0, 0};
    st_t lanes[GP__REDUCE_LANES];
    for (size_t l = 0; l < GP__REDUCE_LANES; l++) lanes[l] = identity(&j);
    for (size_t k = 0; k < nch; k++) {
        st_t c;
        memset(&c, 0, sizeof c);
        if (j.k == K_F32) c.v.f = ((const float *)values)[k];
        else c.v.u = ((const uint64_t *)values)[k];
        c.v2 = c.v;
        lanes[k % GP__REDUCE_LANES] = combine(&j, lanes[k % GP__REDUCE_LANES], &c);
    }
    const st_t r = tree(&j, lanes);
    seg_store(&j, out, 0, &r);
}
