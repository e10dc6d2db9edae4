/*
 * sort_simd.c — the CPU backend's sort of 4- and 8-byte keys alone with AVX-512 (docs/design/sort.md, "The CPU
 * backend"): the keys become their radix keys (sort_internal.h), a quicksort sorts those as unsigned integers —
 * partitions by compress-stores, eight vectors' keys and fewer by sorting networks in registers, the parts as OpenMP
 * tasks; sort_simd_body.h, once per width — and the radix keys become the keys again as each part is final. Keys that
 * are equal as the order says but differ in bits (-0.0 and +0.0, NaN payloads) would lose their input order and
 * payloads, so a float array holding one has its zeros' and NaNs' bits gathered in input order first and written over
 * their places after (they are contiguous once sorted). A CPU without AVX-512F takes sort_avx2.c's AVX2 quicksort, one
 * without either the radix sort (sort_cpu.c). The same bits come out every way.
 */
#include "sort_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

size_t gp__sort_cpu_simd_min = GP_SORT_CPU_SIMD_MIN, gp__sort_cpu_simd_split_min = GP_SORT_CPU_SIMD_SPLIT_MIN;
int gp__sort_cpu_simd_split_threads = GP_SORT_CPU_SIMD_SPLIT_THREADS, gp__sort_cpu_isa = 2;
size_t gp__sort_cpu_split_nt_bytes = GP_SORT_CPU_SPLIT_NT_BYTES;
size_t gp__sort_cpu_simd_split_any = GP_SORT_CPU_SIMD_SPLIT_ANY;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512)
#include <immintrin.h>

#define SIMD __attribute__((target("avx512f")))
#define ALWAYS __attribute__((always_inline))
#if defined(__clang__) /* a pragma clang cannot honour is a warning; it unrolls these constant-bound loops itself */
#define UNROLL
#else
#define UNROLL _Pragma("GCC unroll 16") /* the networks' loops (sort_simd_body.h) */
#endif
enum { TASK_MIN = 1 << 13, SPLIT_B = 256, SPLIT_C = 256 }; /* SPLIT_*: sort_split's buckets and chunks */

/* whether sort_keys takes the sample-sort level first for n keys (it may still decline: sort_split) */
static int split_wanted(size_t n)
{
    return n >= gp__sort_cpu_simd_split_min &&
           (n >= gp__sort_cpu_simd_split_any || gp__omp_max_threads() >= gp__sort_cpu_simd_split_threads);
}

#define W 32
#include "sort_simd_body.h"
#undef W
#define W 64
#include "sort_simd_body.h"
#undef W

/* unsigned words: no conversion either way; the vectors' count a constant in each call (v[] in registers) */
static SIMD void words_small(uint64_t *a, size_t n)
{
    __m512i v[8];
    const size_t nv = (n + 7) / 8;
    if (nv <= 1) small_c_64(a, n, v, 0, 0, 0);
    else if (nv <= 2) small_c_64(a, n, v, 1, 0, 0);
    else if (nv <= 4) small_c_64(a, n, v, 2, 0, 0);
    else small_c_64(a, n, v, 3, 0, 0);
}

int gp__sort_cpu_words_small(uint64_t *a, size_t n)
{
    if (n > 64 || gp__sort_cpu_isa < 2 || !(gp__cpu_features() & GP__CPU_AVX512F)) return 0;
    if (n > 1) words_small(a, n);
    return 1;
}

int gp__sort_cpu_simd(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, int descending)
{
    const int kind = gp__sort_simd_kind(kt, n, keys_in, keys_out);
    if (kind < 0) return 0;
    if (gp__sort_cpu_isa < 2 || !(gp__cpu_features() & GP__CPU_AVX512F))
        return gp__sort_cpu_avx2(gp_dtype_size(kt), kind, n, keys_in, keys_out, descending);
    return gp_dtype_size(kt) == 4 ? sort_keys_32(keys_in, keys_out, n, kind, descending)
                                  : sort_keys_64(keys_in, keys_out, n, kind, descending);
}

/* the packed words of keys [i0, i1) of ks bytes: radix key (order and ties as the sort's) above, position below */
static inline __attribute__((always_inline)) void pack_words(const gp__sort_xf_t *xf, const unsigned char *x,
                                                             size_t ks, uint64_t *P, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++) P[i] = gp__sort_xf_key(xf, gp__sort_bits(x + i * ks, ks), ks) << 32 | i;
}

/* pack_words at a constant width for each loop */
static void pack_range(const gp__sort_xf_t *xf, const unsigned char *x, size_t ks, uint64_t *P, size_t i0, size_t i1)
{
    if (ks == 4) pack_words(xf, x, 4, P, i0, i1);
    else if (ks == 2) pack_words(xf, x, 2, P, i0, i1);
    else pack_words(xf, x, 1, P, i0, i1);
}
/* positions [i0, i1) of the sorted words out (ib bytes each, at any alignment; P may be pos_out), and the keys they
 * name where ko */
static void unpack_range(const uint64_t *P, const unsigned char *x, size_t ks, unsigned char *ko, void *pos_out,
                         size_t ib, size_t i0, size_t i1)
{
    unsigned char *po = pos_out;
    if (ib == 4)
        for (size_t i = i0; i < i1; i++) {
            const uint32_t v = (uint32_t)P[i];
            memcpy(po + i * 4, &v, 4);
        }
    else
        for (size_t i = i0; i < i1; i++) {
            const uint64_t v = P[i] & 0xffffffffu;
            memcpy(po + i * 8, &v, 8);
        }
    if (ko)
        for (size_t i = i0; i < i1; i++) memcpy(ko + i * ks, x + (P[i] & 0xffffffffu) * ks, ks);
}

int gp__sort_cpu_simd_argsort(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, size_t ib,
                              void *pos_out, int descending)
{
    const size_t ks = gp_dtype_size(kt);
    const unsigned char *x = keys_in;
    unsigned char *ko = keys_out;
    const int avx512 = gp__sort_cpu_isa >= 2 && (gp__cpu_features() & GP__CPU_AVX512F);
    if (ks > 4 || n < gp__sort_cpu_simd_min || n > (size_t)UINT32_MAX + 1 || (ib != 4 && ib != 8) ||
        (ko && ko < x + n * ks && x < ko + n * ks) ||
        (!avx512 && (gp__sort_cpu_isa < 1 || !(gp__cpu_features() & GP__CPU_AVX2))))
        return 0; /* (keys_out over the keys: the radix sort, which moves them) */
    /* unsigned words ascending (AVX-512, else AVX2): equal keys by position, so stable. Where 8-byte positions are
     * aligned the words are sorted in their place, each becoming its position where it lies: packed there and sorted
     * in place, or, where the sample-sort level runs (which sorts in place through a copy), packed aside and sorted
     * into it */
    uint64_t *S = ib == 8 && (uintptr_t)pos_out % 8 == 0 ? pos_out : NULL;
    uint64_t *P = S && !(avx512 && split_wanted(n)) ? S : gp__sort_scratch_alloc(n * sizeof *P);
    if (!P) return 0;
    if (!S) S = P;
    const gp__sort_xf_t xf = gp__sort_xf(kt, descending);
    const int par = gp__cpu_par(1, n * 8 * 64);
    if (par) {
#pragma omp parallel for schedule(static)
        for (size_t c = 0; c < 64; c++) pack_range(&xf, x, ks, P, n * c / 64, n * (c + 1) / 64);
    } else /* no OpenMP region: even one thread's costs a team's set-up */
        pack_range(&xf, x, ks, P, 0, n);
    if (avx512) sort_keys_64(P, S, n, 0, 0);
    else gp__sort_cpu_avx2(8, 0, n, P, S, 0); /* AVX2 is there (above); unsigned keys need no memory: it sorts */
    if (par) {
#pragma omp parallel for schedule(static)
        for (size_t c = 0; c < 64; c++) unpack_range(S, x, ks, ko, pos_out, ib, n * c / 64, n * (c + 1) / 64);
    } else
        unpack_range(S, x, ks, ko, pos_out, ib, 0, n);
    if (P != pos_out) free(P);
    return 1;
}

#else
int gp__sort_cpu_words_small(uint64_t *a, size_t n)
{
    (void)a, (void)n;
    return 0;
}
int gp__sort_cpu_simd(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, int descending)
{
    const int kind = gp__sort_simd_kind(kt, n, keys_in, keys_out);
    return kind < 0 ? 0 : gp__sort_cpu_avx2(gp_dtype_size(kt), kind, n, keys_in, keys_out, descending);
}
int gp__sort_cpu_simd_argsort(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, size_t ib,
                              void *pos_out, int descending)
{
    (void)kt, (void)n, (void)keys_in, (void)keys_out, (void)ib, (void)pos_out, (void)descending;
    return 0;
}
#endif
