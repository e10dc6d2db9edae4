/*
 * sort_internal.h — the sort family's order and its CPU backend (docs/design/sort.md).
 *
 * The order is NumPy's: ascending, floats as numbers with every NaN last (any sign or payload) and -0.0 equal to
 * +0.0; every sort is stable (equal keys keep their input order), so an argsort is np.argsort(x, kind='stable').
 * Descending is torch.sort(x, descending=True, stable=True): NaN first, ties still in input order (not a reversed
 * ascending sort). A radix sort gets that order from an unsigned radix key per element — the same for equal keys,
 * ordered as the keys are — computed from the element's bits on every pass; what moves is the element itself, so
 * the output keeps every bit of the input (NaN payloads, the sign of a zero).
 */
#ifndef GP_SORT_INTERNAL_H
#define GP_SORT_INTERNAL_H

#include "../core/internal.h"

#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The radix key of an element of dtype dt whose bits are b (zero-extended), ascending; descending is its
 * complement. Unsigned integers: b. Signed: b with the sign bit flipped. Floats: every NaN -> all ones (last), -0 ->
 * +0's key, else the sign-magnitude bits made ordered as unsigned (negative: all bits flipped; positive: sign set).
 * The dtype's part is resolved once per sort into three constants (gp__sort_xf); gp__sort_xf_key applies them, and
 * the GPU's passes apply the same three at their key width (sort.cu, Xf). */
static inline int gp__sort_width(gp_dtype_t dt)
{
    switch (dt) {
    case GP_U8: case GP_I8: return 8;
    case GP_U16: case GP_I16: case GP_F16: case GP_BF16: return 16;
    case GP_U32: case GP_I32: case GP_F32: return 32;
    default: return 64;
    }
}
typedef struct {
    uint64_t xr;   /* integers: what is xor-ed in (the sign bit of a signed key) */
    uint64_t inf;  /* floats: infinity's bits (a larger magnitude is NaN); 0: an integer key */
    uint64_t flip; /* descending: all ones of the key's width */
} gp__sort_xf_t;
static inline gp__sort_xf_t gp__sort_xf(gp_dtype_t dt, int descending)
{
    const int w = gp__sort_width(dt);
    const uint64_t ones = w == 64 ? ~0ull : (1ull << w) - 1, sign = 1ull << (w - 1);
    gp__sort_xf_t x = {0, 0, descending ? ones : 0};
    if (dt == GP_I8 || dt == GP_I16 || dt == GP_I32 || dt == GP_I64) x.xr = sign;
    x.inf = dt == GP_F64 ? 0x7ff0000000000000ull : dt == GP_F32 ? 0x7f800000ull : dt == GP_BF16 ? 0x7f80ull
            : dt == GP_F16 ? 0x7c00ull : 0;
    return x;
}
/* the radix key of bits b of a ks-byte key under x (inlined into the CPU backend's loops, ks a constant there) */
static inline __attribute__((always_inline)) uint64_t gp__sort_xf_key(const gp__sort_xf_t *x, uint64_t b, size_t ks)
{
    const uint64_t ones = ks == 8 ? ~0ull : (1ull << (8 * ks)) - 1, sign = 1ull << (8 * ks - 1);
    uint64_t k;
    if (x->inf) { /* branch-free in the sign (a random sign would mispredict every other key): NaN and zero select */
        const uint64_t mag = b & (sign - 1), neg = (uint64_t)0 - (b >> (8 * ks - 1));
        k = b ^ (sign | (neg & ones));
        k = mag == 0 ? sign : k;
        k = mag > x->inf ? ones : k;
    } else
        k = b ^ x->xr;
    return k ^ x->flip;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX512) && !defined(__CUDACC__)
#include <immintrin.h>
/* gp__sort_xf_key's rule in the 16 lanes of 4-byte keys v (AVX-512F; the caller's function is compiled for it) */
static inline __attribute__((target("avx512f"), always_inline)) __m512i gp__sort_xf_key16(const gp__sort_xf_t *x,
                                                                                          __m512i v)
{
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    __m512i k = _mm512_xor_si512(v, _mm512_set1_epi32((int)(uint32_t)x->xr));
    if (x->inf) {
        const __m512i mag = _mm512_and_si512(v, _mm512_set1_epi32(0x7fffffff));
        k = _mm512_xor_si512(v, _mm512_or_si512(sign, _mm512_srai_epi32(v, 31)));
        k = _mm512_mask_mov_epi32(k, _mm512_cmpeq_epi32_mask(mag, _mm512_setzero_si512()), sign);
        k = _mm512_mask_mov_epi32(k, _mm512_cmpgt_epu32_mask(mag, _mm512_set1_epi32((int)(uint32_t)x->inf)),
                                  _mm512_set1_epi32(-1));
    }
    return _mm512_xor_si512(k, _mm512_set1_epi32((int)(uint32_t)x->flip));
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GP_NO_AVX2) && !defined(__CUDACC__)
#include <immintrin.h>
/* gp__sort_xf_key's rule in the 8 lanes of 4-byte keys v (AVX2; the caller's function is compiled for it) */
static inline __attribute__((target("avx2"), always_inline)) __m256i gp__sort_xf_key8(const gp__sort_xf_t *x, __m256i v)
{
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
    __m256i k = _mm256_xor_si256(v, _mm256_set1_epi32((int)(uint32_t)x->xr));
    if (x->inf) { /* magnitudes are below 2^31: the signed comparisons order them */
        const __m256i mag = _mm256_and_si256(v, _mm256_set1_epi32(0x7fffffff));
        k = _mm256_xor_si256(v, _mm256_or_si256(sign, _mm256_srai_epi32(v, 31)));
        k = _mm256_blendv_epi8(k, sign, _mm256_cmpeq_epi32(mag, _mm256_setzero_si256()));
        k = _mm256_or_si256(k, _mm256_cmpgt_epi32(mag, _mm256_set1_epi32((int)(uint32_t)x->inf)));
    }
    return _mm256_xor_si256(k, _mm256_set1_epi32((int)(uint32_t)x->flip));
}
#endif

/* a quiet NaN's bits of a float dtype (whose radix key is every NaN's); 0 for the integers */
static inline uint64_t gp__sort_nan_bits(gp_dtype_t dt)
{
    return dt == GP_F64 ? 0x7ff8000000000000ull : dt == GP_F32 ? 0x7fc00000ull : dt == GP_BF16 ? 0x7fc0ull
           : dt == GP_F16 ? 0x7e00ull : 0;
}

/* the bits of the es-byte element at p, zero-extended (host code) */
static inline __attribute__((always_inline)) uint64_t gp__sort_bits(const void *p, size_t es)
{
    switch (es) {
    case 1: return *(const uint8_t *)p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

#ifdef __cplusplus
extern "C" {
#endif

/* opts checked for dtype (NULL: ascending, the whole key): *desc, and the radix key's bits [*lo, *hi) (sort.c) */
GP_INTERNAL gp_status_t gp__sort_opts(const char *fn, gp_dtype_t dtype, const gp_sort_opts_t *opts, int *desc,
                                      int *lo, int *hi);

/* The CPU backend: a stable LSD radix sort of n keys (dtype kt) from keys_in to keys_out, carrying values of vsize
 * bytes (0: none; 1, 2, 4, 8 or 16) from vals_in to vals_out; idx_bytes (4 or 8, vals_in NULL): the values are the
 * input positions (an argsort). Bits [lo_bit, hi_bit) of the radix key take part (the whole key: 0 and its width).
 * keys_out may be keys_in (and vals_out vals_in); keys_out may be NULL for an argsort (a scratch copy is used).
 * Workspace: one more copy of the keys and the values, from malloc. */
/* from this many keys the most significant live digit goes first and its buckets are sorted one by one in cache */
#ifndef GP_SORT_CPU_MSD_MIN
#define GP_SORT_CPU_MSD_MIN (1u << 20)
#endif
/* a part of the keys (and values) larger than this is split again by its top live digit before its LSD passes */
#ifndef GP_SORT_CPU_SPLIT_BYTES
#define GP_SORT_CPU_SPLIT_BYTES (256u << 10)
#endif
/* ... and only where its parts average this many keys (a part's fixed cost is its digit tables) */
#ifndef GP_SORT_CPU_SPLIT_PART
#define GP_SORT_CPU_SPLIT_PART 4096
#endif
/* ... and its first pass writes whole lines past the caches from this many bytes of keys and values (below, the
 * buckets are read back from a cache the plain stores left them in) */
#ifndef GP_SORT_CPU_LINES_MIN
#define GP_SORT_CPU_LINES_MIN (8u << 20)
#endif
/* how far ahead of a read over memory the family's CPU loops (the sort's counting and line passes, top-k's reads)
 * prefetch, in bytes: their loads wait on memory otherwise (the hardware's prefetch alone kept a one-digit count of
 * 16 MiB at 2-3 GB/s on a Xeon VM) */
#ifndef GP_SORT_CPU_PF
#define GP_SORT_CPU_PF 4096
#endif
/* sort_cpu.c's shape (the tests set them to reach every path at small n): from gp__sort_cpu_msd_min keys the most
 * significant live digit goes first; a part of more than gp__sort_cpu_split_bytes of keys and values whose parts would
 * average gp__sort_cpu_split_part keys is split again */
GP_INTERNAL extern size_t gp__sort_cpu_msd_min, gp__sort_cpu_split_bytes, gp__sort_cpu_split_part,
    gp__sort_cpu_lines_min;
/* topk.c's CPU rows from this many elements (and k <= n / 16) first try a threshold from a sample and one read
 * (the tests lower it to reach the path at small n; shorter rows sort) */
#ifndef GP_TOPK_CPU_SAMPLE_MIN
#define GP_TOPK_CPU_SAMPLE_MIN 4097u
#endif
GP_INTERNAL extern size_t gp__topk_cpu_sample_min;
/* unique.c's counted path of integer keys after two passes (a range of 2^20 to 2^28 values) where its table of 8 bytes
 * a value times this is no larger than the keys: on an H100, 2^28 i32 in [0, 2^24) (1/8 the keys' bytes) 7758.7 ->
 * 5105.4 µs, in [0, 2^27) (as large as the keys) 9777.2 where the sort takes ~8.5 ms (the tests lower it to reach the
 * path at small n) */
#ifndef GP_UNIQUE_WIDE_RATIO
#define GP_UNIQUE_WIDE_RATIO 4u
#endif
GP_INTERNAL extern size_t gp__unique_wide_ratio;
/* 1: unique.c's GPU keys-and-counts paths keep their n keys (2- and 4-byte keys, sorted) and their table (where 2 R
 * <= n) in counts' own bytes instead of scratch (docs/design/sort.md, "Sorted unique"); not yet run on a GPU, so 0
 * (gpu_search runs both) */
#ifndef GP_UNIQUE_IN_COUNTS
#define GP_UNIQUE_IN_COUNTS 0
#endif
GP_INTERNAL extern int gp__unique_in_counts;
/* unique_count_cpu.c: the distinct integer keys of x (into y, and their counts, each may be NULL) and their number,
 * counted where the keys span at most n values (from 4096 keys): 1 done (*st its status), 0 not taken */
GP_INTERNAL int gp__unique_count_cpu(gp_dtype_t dt, size_t n, const void *x, void *y, uint64_t *counts, size_t *count,
                                     gp_status_t *st);
/* sort_simd.c: 4- and 8-byte keys alone, the whole key, aligned to their size, from this many keys, sorted by an
 * AVX-512 quicksort where the CPU has AVX-512F; 1 done, 0 not taken (nothing written) */
#ifndef GP_SORT_CPU_SIMD_MIN
#define GP_SORT_CPU_SIMD_MIN 256
#endif
/* keys alone sort on a team of 16 threads or more from GP__CPU_PAR_BYTES / this many bytes of keys (16 MiB / 256:
 * 64 KiB, 2^14 u32): on a 16-thread Xeon the team took u32 2^15 / 2^16 from 0.97 / 0.99x NumPy to 1.78 / 2.14x and
 * lost at 2^13 (0.70x). A team of T < 16 from (16 / T)^2 times that (gp__sort_cpu_keys_team) */
#define GP__SORT_CPU_TEAM_WEIGHT 256
/* the threads a team may get */
static inline int gp__omp_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
/* whether a sort of `bytes` of keys alone takes a team: a team of T saves at most 1 - 1/T of the time while waking it
 * costs as much, and more where few threads share a VM's cores (docs/design/sort.md, "The CPU backend") */
static inline int gp__sort_cpu_keys_team(size_t bytes, int threads)
{
    const size_t t = threads < 1 ? 1 : threads > 16 ? 16 : (size_t)threads;
    return gp__cpu_par(t > 1, bytes * (GP__SORT_CPU_TEAM_WEIGHT / 16) * t * t / 16);
}
/* from this many keys and a team of this many asked for, or from SPLIT_ANY keys on any team, one sample-sort level
 * splits the keys into 256 buckets for the quicksort first (docs/design/sort.md, "The CPU backend": on one or two
 * threads below SPLIT_ANY its two passes cost more than the quicksort's top levels in the caches) */
#ifndef GP_SORT_CPU_SIMD_SPLIT_MIN
#define GP_SORT_CPU_SIMD_SPLIT_MIN ((size_t)1 << 22)
#endif
#ifndef GP_SORT_CPU_SIMD_SPLIT_THREADS
#define GP_SORT_CPU_SIMD_SPLIT_THREADS 8
#endif
#ifndef GP_SORT_CPU_SIMD_SPLIT_ANY
#define GP_SORT_CPU_SIMD_SPLIT_ANY ((size_t)1 << 24)
#endif
/* from this many bytes of keys the sample-sort level stores its buckets' keys a whole line at a time past the caches */
#ifndef GP_SORT_CPU_SPLIT_NT_BYTES
#define GP_SORT_CPU_SPLIT_NT_BYTES ((size_t)64 << 20)
#endif
GP_INTERNAL extern size_t gp__sort_cpu_simd_min, gp__sort_cpu_simd_split_min, gp__sort_cpu_simd_split_any;
GP_INTERNAL extern size_t gp__sort_cpu_split_nt_bytes;
GP_INTERNAL extern int gp__sort_cpu_simd_split_threads;
GP_INTERNAL int gp__sort_cpu_simd(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, int descending);
/* sort_simd.c: n <= 64 unsigned 64-bit words ascending in place, in AVX-512 registers (1 done; 0 not taken: n past 64,
 * no AVX-512F, gp__sort_cpu_isa below 2) */
GP_INTERNAL int gp__sort_cpu_words_small(uint64_t *a, size_t n);
/* The quicksorts' kind of n keys alone of kt, from keys_in to keys_out: 0 unsigned, 1 signed, 2 float; -1 where they
 * do not take them (other dtypes, fewer than gp__sort_cpu_simd_min, no output, keys not aligned to their size: the
 * radix sort, which reads them by bytes) */
static inline int gp__sort_simd_kind(gp_dtype_t kt, size_t n, const void *keys_in, const void *keys_out)
{
    const int kind = kt == GP_U32 || kt == GP_U64 ? 0 : kt == GP_I32 || kt == GP_I64 ? 1
                   : kt == GP_F32 || kt == GP_F64 ? 2 : -1;
    const size_t ks = gp_dtype_size(kt);
    return kind < 0 || n < gp__sort_cpu_simd_min || keys_out == NULL || (uintptr_t)keys_in % ks ||
                   (uintptr_t)keys_out % ks
               ? -1
               : kind;
}
/* sort_avx2.c: the same sort with AVX2 where the CPU has no AVX-512F, of ks-byte keys (4 or 8) of the kind
 * gp__sort_simd_kind gives (1 done, 0 not taken). gp__sort_cpu_isa: the widest vector ISA the keys' quicksort may
 * take — 2 AVX-512, 1 AVX2, 0 none (the radix sort); the tests lower it */
GP_INTERNAL int gp__sort_cpu_avx2(size_t ks, int kind, size_t n, const void *keys_in, void *keys_out, int descending);
GP_INTERNAL extern int gp__sort_cpu_isa;
/* sort_simd.c: the argsort of 1- to 4-byte keys (n <= 2^32) as one AVX-512 (or AVX2: gp__sort_cpu_isa) sort of 8-byte
 * words, each a key's radix key above its position (equal keys by position: stable); ib-byte positions, the keys
 * gathered into keys_out (NULL: not wanted; over the keys: not taken); 1 done, 0 not taken (nothing written) */
GP_INTERNAL int gp__sort_cpu_simd_argsort(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, size_t ib,
                                          void *pos_out, int descending);
GP_INTERNAL gp_status_t gp__sort_cpu(gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out, size_t vsize,
                                     const void *vals_in, void *vals_out, int descending, int lo_bit, int hi_bit);
/* n bytes of scratch for the CPU backend's passes over memory: 64-byte aligned, from 4 MiB 2 MiB-aligned and advised
 * for huge pages (sort_cpu.c); freed with free() */
GP_INTERNAL void *gp__sort_scratch_alloc(size_t bytes);
/* The backends' one rule for an argsort: values asked for (vsize) with no values given (vals_in NULL) — the values
 * are then the input positions, vsize bytes each. */
static inline int gp__sort_is_argsort(const void *vals_in, size_t vsize) { return vals_in == NULL && vsize != 0; }

/* The GPU backend's workspace for n keys of kt with values of vsize bytes (argsort: vsize index bytes, two key
 * copies), the whole key sorted (a bit range needs no more): what gp__sort_gpu asks gp__workspace for. */
GP_INTERNAL size_t gp__sort_gpu_workspace_bytes(gp_dtype_t kt, size_t n, size_t vsize, int argsort);
/* The GPU backend (sort.cu), the same arguments and order, asynchronous on the stream: an LSD radix sort in 8-bit
 * digits as Onesweep (one counting launch, then one launch per digit with a per-digit look-back). Workspace (the
 * context's): the digit counts and starts, look-back words (2 KiB per tile of 6144 elements, 4096 for 8-byte keys:
 * 0.33 or 0.5 bytes per element), one copy of the keys (two for an argsort without keys_out) and one of the values.
 * n > 0, any size (inputs past 2^29 elements run as portions). */
GP_INTERNAL gp_status_t gp__sort_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in, void *keys_out,
                                     size_t vsize, const void *vals_in, void *vals_out, int descending, int lo_bit,
                                     int hi_bit, cudaStream_t stream);

/* gp__sort_gpu of keys alone, integers, n above the ranks' size (GP_SORT_RANK_MAX*), each radix key + add (modulo
 * 2^bits) sorted over bits [lo_bit, hi_bit): a range of keys [-add, 2^b - add) in b bits (unique.c) */
GP_INTERNAL gp_status_t gp__sort_gpu_keys_add(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in,
                                              void *keys_out, uint64_t add, int lo_bit, int hi_bit,
                                              cudaStream_t stream);

/* gp_sort_segmented on the GPU (segmented.cu): nseg + 1 offsets in device memory, checked there (fn names the call in
 * the message), then the segments bucketed by length and sorted, asynchronous on the stream after the read-back. */
GP_INTERNAL gp_status_t gp__sort_segmented_gpu(gp_ctx_t *ctx, gp_dtype_t kt, size_t n, const void *keys_in,
                                               void *keys_out, size_t vsize, const void *vals_in, void *vals_out,
                                               size_t nseg, const int64_t *offsets, int descending, int lo_bit,
                                               int hi_bit, const char *fn, cudaStream_t stream);

/* the bytes of an index dtype: GP_U32 4, GP_I64 / GP_U64 8, else 0 (search.c) */
GP_INTERNAL size_t gp__sort_index_bytes(gp_dtype_t t);
/* gp_searchsorted on the GPU (search.cu): out[i] (ib = 4 or 8 bytes) for m queries into n sorted keys, right = side
 * 'right'; n may be 0. Workspace: 2048 keys' sample. */
GP_INTERNAL gp_status_t gp__searchsorted_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t n, const void *sorted, size_t m,
                                             const void *queries, int right, size_t ib, void *out,
                                             cudaStream_t stream);
/* gp_merge on the GPU (merge.cu): na + nb > 0, vsize 0 or 1, 2, 4, 8, 16. */
GP_INTERNAL gp_status_t gp__merge_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t na, const void *a, size_t nb, const void *b,
                                      void *out, size_t vsize, const void *va, const void *vb, void *vout,
                                      int descending, cudaStream_t stream);
/* gp_topk on the GPU (topk.cu): rows x n elements, 0 < k <= n, values and/or indices (ib = 4 or 8 bytes). */
GP_INTERNAL gp_status_t gp__topk_gpu(gp_ctx_t *ctx, gp_dtype_t dt, size_t rows, size_t n, const void *x, size_t k,
                                     int largest, void *values, size_t ib, void *indices, cudaStream_t stream);

/* gp_unique_sorted_sync on the GPU (unique.cu), wb (4 or 8) the bytes of the positions and run words: p[i] = i (the
 * values an argsort carries); h[i] = 1 where the sorted keys s start a run of equal radix keys; then, with h scanned
 * inclusively (run ids + 1), every wanted output (NULL: not wanted; perm: the positions sorted with the keys, needed
 * for first and inverse; counts zeroed before). */
GP_INTERNAL gp_status_t gp__unique_iota_gpu(size_t wb, size_t n, void *p, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__unique_heads_gpu(gp_dtype_t dt, size_t wb, size_t n, const void *s, void *h,
                                             cudaStream_t stream);
GP_INTERNAL gp_status_t gp__unique_emit_gpu(gp_dtype_t dt, size_t wb, size_t ib, size_t n, const void *s,
                                            const void *perm, const void *h, void *y, void *first, void *inverse,
                                            uint64_t *counts, cudaStream_t stream);

/* The counted path of integer keys (unique.cu). Over the radix keys rk of x[i * step], i < n: w[0] = ~ the least
 * rk, w[1] = the greatest (widened to 64 bits; w zeroed here). Then with every rk - off below 2^b (b <= 20), T (2^b
 * u64, zeroed here) counts each value of rk - off, from s (sh > 0: x sorted by bits [sh, b) of rk - off, sh <= 12;
 * sh = 0: x itself, b <= 13), and its nonzero counts go in order to counts, their keys to y, their number to *m; bc:
 * 4 bytes per 2048 values of scratch. sms: the device's multiprocessors. */
GP_INTERNAL gp_status_t gp__unique_range_gpu(gp_dtype_t dt, size_t n, size_t step, const void *x, int sms,
                                             uint64_t *w, cudaStream_t stream);
GP_INTERNAL gp_status_t gp__unique_dense_gpu(gp_dtype_t dt, size_t n, const void *s, uint64_t off, int b, int sh,
                                             int sms, void *T, void *bc, void *y, uint64_t *counts, uint64_t *m,
                                             cudaStream_t stream);

/* The family's GPU launchers (the .cu files of src/sort), reached through this table: core/backend.h */
typedef struct gp__sort_gpu_ops {
    __typeof__(gp__sort_gpu_workspace_bytes) *workspace_bytes;
    __typeof__(gp__sort_gpu) *sort;
    __typeof__(gp__sort_segmented_gpu) *segmented;
    __typeof__(gp__searchsorted_gpu) *searchsorted;
    __typeof__(gp__merge_gpu) *merge;
    __typeof__(gp__topk_gpu) *topk;
    __typeof__(gp__unique_iota_gpu) *unique_iota;
    __typeof__(gp__unique_heads_gpu) *unique_heads;
    __typeof__(gp__unique_emit_gpu) *unique_emit;
    __typeof__(gp__sort_gpu_keys_add) *sort_keys_add;
    __typeof__(gp__unique_range_gpu) *unique_range;
    __typeof__(gp__unique_dense_gpu) *unique_dense;
} gp__sort_gpu_ops_t;
GP_INTERNAL extern const gp__sort_gpu_ops_t gp__sort_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
