/*
 * unique_count_cpu.c — the CPU backend's np.unique(x, return_counts=True) of integer keys in a narrow range: counted,
 * not sorted (docs/design/sort.md, "Sorted unique"). The least and greatest key first (a strided sample before, so
 * that keys spanning more values than there are keys cost a few thousand reads); a range of at most n values (and
 * 2^26) is counted by each thread of the team into its own table of u32 counters over its share of the keys; the
 * tables are added block by block of values, each block's nonzero counters counted, then written in order. Counts
 * are integers: the outputs are the sort's, whatever the team.
 */
#include "sort_internal.h"

#include <stdlib.h>
#include <string.h>

enum { CNT_MIN = 4096, CNT_MAX_BITS = 26, CNT_SAMPLE = 4096, CNT_BLOCK = 1 << 14 };

/* the typed loops: T the element, U its unsigned twin (offsets wrap in U: a range below 2^width fits) */
#define CNT_TYPES(X)                                                                                                 \
    X(u8, uint8_t, uint8_t)                                                                                          \
    X(i8, int8_t, uint8_t)                                                                                           \
    X(u16, uint16_t, uint16_t)                                                                                       \
    X(i16, int16_t, uint16_t)                                                                                        \
    X(u32, uint32_t, uint32_t)                                                                                       \
    X(i32, int32_t, uint32_t)                                                                                        \
    X(u64, uint64_t, uint64_t)                                                                                       \
    X(i64, int64_t, uint64_t)

/* the least key of x[i * step], i < m, as U bits, and the greatest less it (computed in U: below 2^width); with a
 * team over 64 fixed chunks, each a plain loop the compiler vectorizes */
#define CNT_RANGE(NAME, T, U)                                                                                         \
    static void minmax_##NAME(const T *x, size_t i0, size_t i1, size_t step, T *lo, T *hi)                          \
    {                                                                                                                \
        T a = x[i0 * step], b = a;                                                                                   \
        for (size_t i = i0; i < i1; i++) {                                                                           \
            const T v = x[i * step];                                                                                 \
            a = v < a ? v : a;                                                                                       \
            b = v > b ? v : b;                                                                                       \
        }                                                                                                            \
        *lo = a, *hi = b;                                                                                            \
    }                                                                                                                \
    static void range_##NAME(const void *xv, size_t m, size_t step, int par, uint64_t *least, uint64_t *span)       \
    {                                                                                                                \
        const T *x = xv;                                                                                             \
        T a, b;                                                                                                      \
        if (!par) minmax_##NAME(x, 0, m, step, &a, &b);                                                              \
        else {                                                                                                       \
            T ca[64], cb[64];                                                                                        \
            _Pragma("omp parallel for schedule(static)") for (size_t c = 0; c < 64; c++)                           \
                minmax_##NAME(x, m * c / 64, m * (c + 1) / 64, step, &ca[c], &cb[c]);                               \
            a = ca[0], b = cb[0];                                                                                    \
            for (int c = 1; c < 64; c++) a = ca[c] < a ? ca[c] : a, b = cb[c] > b ? cb[c] : b;                      \
        }                                                                                                            \
        *least = (U)a, *span = (U)((U)b - (U)a);                                                                     \
    }
/* tab[(U)(x[i] - least)] += 1 for i in [i0, i1) */
#define CNT_COUNT(NAME, T, U)                                                                                         \
    static void count_##NAME(const void *xv, size_t i0, size_t i1, uint64_t least, uint32_t *tab)                    \
    {                                                                                                                \
        const U *x = xv, l = (U)least;                                                                               \
        for (size_t i = i0; i < i1; i++) tab[(U)(x[i] - l)]++;                                                       \
    }
CNT_TYPES(CNT_RANGE)
CNT_TYPES(CNT_COUNT)

/* the nonzero counters of [v0, v1) in order from place o: the keys (least + v, U bits) to y, the counts to counts */
#define CNT_WRITE(ES, U)                                                                                              \
    static void write_block_##ES(const uint32_t *tab, size_t v0, size_t v1, size_t o, uint64_t least, void *y,      \
                                 uint64_t *counts)                                                                   \
    {                                                                                                                \
        U *yy = y;                                                                                                   \
        for (size_t v = v0; v < v1; v++)                                                                             \
            if (tab[v]) {                                                                                            \
                if (yy) yy[o] = (U)(least + v);                                                                      \
                if (counts) counts[o] = tab[v];                                                                      \
                o++;                                                                                                 \
            }                                                                                                        \
    }
CNT_WRITE(1, uint8_t)
CNT_WRITE(2, uint16_t)
CNT_WRITE(4, uint32_t)
CNT_WRITE(8, uint64_t)

typedef void (*range_fn)(const void *, size_t, size_t, int, uint64_t *, uint64_t *);
typedef void (*count_fn)(const void *, size_t, size_t, uint64_t, uint32_t *);

static int fns_of(gp_dtype_t dt, range_fn *r, count_fn *c)
{
    switch (dt) {
    case GP_U8: *r = range_u8, *c = count_u8; return 1;
    case GP_I8: *r = range_i8, *c = count_i8; return 1;
    case GP_U16: *r = range_u16, *c = count_u16; return 1;
    case GP_I16: *r = range_i16, *c = count_i16; return 1;
    case GP_U32: *r = range_u32, *c = count_u32; return 1;
    case GP_I32: *r = range_i32, *c = count_i32; return 1;
    case GP_U64: *r = range_u64, *c = count_u64; return 1;
    case GP_I64: *r = range_i64, *c = count_i64; return 1;
    default: return 0;
    }
}

int gp__unique_count_cpu(gp_dtype_t dt, size_t n, const void *x, void *y, uint64_t *counts, size_t *count,
                         gp_status_t *st)
{
    range_fn range;
    count_fn cnt;
    if (n < CNT_MIN || n > UINT32_MAX || !fns_of(dt, &range, &cnt)) return 0;
    const size_t es = gp_dtype_size(dt);
    const int par = gp__cpu_par(1, n * 16); /* ~16 bytes of traffic's time a key: reads, a table's add */
    const int tmax = par ? gp__omp_max_threads() : 1;
    uint64_t least, span;
    range(x, CNT_SAMPLE, n / CNT_SAMPLE, 0, &least, &span); /* a strided sample: its span is a floor of the keys' */
    if (span >= n || span >= (uint64_t)1 << CNT_MAX_BITS) return 0;
    range(x, n, 1, par, &least, &span);
    if (span >= n || span >= (uint64_t)1 << CNT_MAX_BITS) return 0;
    const size_t R = (size_t)span + 1;
    size_t T = (size_t)tmax < n / R ? (size_t)tmax : n / R; /* tables no larger than the keys in all */
    if (T < 1) T = 1;
    const size_t nb = (R + CNT_BLOCK - 1) / CNT_BLOCK;
    uint32_t *tab = malloc(T * R * sizeof *tab);
    size_t *bc = malloc((nb + 1) * sizeof *bc);
    if (!tab || !bc) {
        free(tab), free(bc);
        *st = gp__error(GP_ERR_OUT_OF_MEMORY, "gp_unique_sorted_sync: %zu bytes of counters", T * R * sizeof *tab);
        return 1;
    }
    int used = 1; /* the team that counted: its first `used` tables */
#pragma omp parallel num_threads((int)T) if (T > 1)
    {
#ifdef _OPENMP
        const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
#else
        const size_t nt = 1, t = 0;
#endif
#pragma omp single
        used = (int)nt;
        uint32_t *mine = tab + t * R;
        memset(mine, 0, R * sizeof *mine);
        cnt(x, n * t / nt, n * (t + 1) / nt, least, mine);
    }
    /* each block of values: the tables added into the first, its nonzero counters counted */
#pragma omp parallel for schedule(static) if (par && nb > 1)
    for (size_t b = 0; b < nb; b++) {
        const size_t v0 = b * CNT_BLOCK, v1 = v0 + CNT_BLOCK < R ? v0 + CNT_BLOCK : R;
        for (int t = 1; t < used; t++)
            for (size_t v = v0; v < v1; v++) tab[v] += tab[(size_t)t * R + v];
        size_t c = 0;
        for (size_t v = v0; v < v1; v++) c += tab[v] != 0;
        bc[b] = c;
    }
    size_t at = 0;
    for (size_t b = 0; b < nb; b++) {
        const size_t c = bc[b];
        bc[b] = at, at += c;
    }
    if (y || counts) {
#pragma omp parallel for schedule(static) if (par && nb > 1)
        for (size_t b = 0; b < nb; b++) {
            const size_t v0 = b * CNT_BLOCK, v1 = v0 + CNT_BLOCK < R ? v0 + CNT_BLOCK : R;
            switch (es) { /* the key's bits: least + v in the key's width */
            case 1: write_block_1(tab, v0, v1, bc[b], least, y, counts); break;
            case 2: write_block_2(tab, v0, v1, bc[b], least, y, counts); break;
            case 4: write_block_4(tab, v0, v1, bc[b], least, y, counts); break;
            default: write_block_8(tab, v0, v1, bc[b], least, y, counts); break;
            }
        }
    }
    free(tab), free(bc);
    *count = at;
    *st = GP_OK;
    return 1;
}
