/*
 * test_omp_teams.c — every CPU-backend primitive gives the plain run's bits whatever team OpenMP starts. A call may
 * get fewer threads than omp_get_max_threads() promises: inside the caller's own parallel region, under
 * OMP_THREAD_LIMIT, with OMP_DYNAMIC. Each family's calls (vector, reduce, scan, select, by-key, sort, search, merge,
 * top-k, unique, user operators, histogram, matrix, memory, file streaming, emulated groups) run on inputs past the
 * backend's parallel thresholds (GP_CPU_PAR_BYTES lowered for the purpose); their outputs are hashed. The plain run's hashes are the reference for:
 *   in this process  each case inside `#pragma omp parallel num_threads(2)`, nested regions off and on;
 *   child processes  this program re-run with OMP_THREAD_LIMIT=2 OMP_NUM_THREADS=16, OMP_DYNAMIC=true
 *                    OMP_NUM_THREADS=16, OMP_NUM_THREADS=1 and OMP_NUM_THREADS=3 (each also nested off and on),
 *                    since OpenMP reads those variables once, at start-up.
 * Usage: test_omp_teams (ctest; also under make asan). test_omp_teams --child SEED prints a child's hashes.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <omp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------------------------------------ hashing */
typedef struct {
    uint64_t h;
    int failed; /* a call did not return GP_OK: its status is in the hash, and the case is reported */
    char what[160];
} dg_t;

static void dg_bytes(dg_t *d, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = d->h;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    d->h = h;
}
static void dg_u64(dg_t *d, uint64_t v) { dg_bytes(d, &v, sizeof v); }
/* a call's status: in the hash, and remembered with the call's text when it is not GP_OK */
#define ST(d, expr)                                                                                                 \
    do {                                                                                                            \
        const gp_status_t st_ = (expr);                                                                             \
        dg_u64((d), (uint64_t)st_);                                                                                 \
        if (st_ != GP_OK && !(d)->failed) {                                                                         \
            (d)->failed = 1;                                                                                        \
            snprintf((d)->what, sizeof (d)->what, "%s: %s (%s)", #expr, gp_status_string(st_), gp_last_error());   \
        }                                                                                                           \
    } while (0)

/* ------------------------------------------------------------------------------------------ inputs */
/* Sizes past every parallel threshold here (GP_CPU_PAR_BYTES is lowered to 64 KiB for this program and its
 * children; the sort's own thresholds are counts), and not a multiple of any tile. */
#define N (((size_t)1 << 18) + 4099)
#define N8 (((size_t)1 << 19) + 4101)
static float *g_f32;      /* uniform [-1, 1) */
static float *g_f32s;     /* sort keys: with NaNs of either sign and any payload, +-0, repeats */
static double *g_f64;
static int32_t *g_i32;
static uint32_t *g_u32;
static uint64_t *g_u64;
static uint16_t *g_u16, *g_f16;
static uint8_t *g_u8, *g_heads;
static int32_t *g_runs;   /* runs of equal keys, lengths 1 to 40 */
static int64_t *g_off;    /* segments of 0 to ~2000 elements, one of 70001, one of 100000 */
static size_t g_nseg;
static char g_file[256];

static void make_inputs(uint64_t seed)
{
    tc_state = seed;
    g_f32 = malloc(N * 4), g_f32s = malloc(N * 4), g_f64 = malloc(N * 8), g_i32 = malloc(N * 4);
    g_u32 = malloc(N * 4), g_u64 = malloc(N * 8), g_u16 = malloc(N * 4), g_f16 = malloc(N * 2), g_u8 = malloc(N8);
    g_heads = malloc(N), g_runs = malloc(N * 4), g_off = malloc((N + 2) * 8);
    REQUIRE(g_f32 && g_f32s && g_f64 && g_i32 && g_u32 && g_u64 && g_u16 && g_f16 && g_u8 && g_heads && g_runs && g_off,
            "inputs");
    tc_fill(g_f32, N, GP_F32);
    tc_fill(g_f64, N, GP_F64);
    tc_fill(g_i32, N, GP_I32);
    for (size_t i = 0; i < N; i++) {
        const uint64_t r = tc_next();
        g_u32[i] = (uint32_t)(r >> 32);
        g_u64[i] = r;
        g_u16[i] = (uint16_t)(r >> 7), g_u16[N + i] = (uint16_t)(r >> 23);
        g_f16[i] = gp_f32_to_f16(g_f32[i] * 8.0f);
        g_heads[i] = (r & 1023) == 0;
        float v = (float)((r >> 44) % 100000) * 0.001f - 50.0f; /* repeats */
        const unsigned k = (unsigned)(r & 4095);
        if (k < 3) { /* NaN of any sign and payload */
            const uint32_t b = 0x7f800001u | (uint32_t)(r >> 41 & 0x3fffff) | (k == 0 ? 0x80000000u : 0) |
                               (k == 1 ? 0x400000u : 0);
            memcpy(&v, &b, 4);
        } else if (k < 6) {
            v = k == 3 ? -0.0f : 0.0f;
        }
        g_f32s[i] = v;
    }
    for (size_t i = 0; i < N8; i++) g_u8[i] = (uint8_t)(tc_next() >> 56);
    for (size_t i = 0; i < N;) { /* runs */
        const size_t len = 1 + tc_next() % 40;
        const int32_t key = (int32_t)(tc_next() >> 40);
        for (size_t j = 0; j < len && i < N; j++) g_runs[i++] = key;
    }
    size_t k = 0, at = 0; /* segments */
    g_off[0] = 0;
    while (at < N && k < N) {
        size_t len = k == 40 ? 70001 : k == 90 ? 100000 : (size_t)(tc_next() % 2000);
        if (len > N - at) len = N - at;
        at += len;
        g_off[++k] = (int64_t)at;
    }
    g_nseg = k;
    /* the streamed file: the f32 inputs, raw */
    snprintf(g_file, sizeof g_file, "%s/gp_omp_teams_%ld.raw", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    FILE *f = fopen(g_file, "wb");
    REQUIRE(f && fwrite(g_f32, 4, N, f) == N && fclose(f) == 0, "writing %s", g_file);
}

static void free_inputs(void)
{
    free(g_f32), free(g_f32s), free(g_f64), free(g_i32), free(g_u32), free(g_u64), free(g_u16), free(g_f16);
    free(g_u8), free(g_heads), free(g_runs), free(g_off);
    unlink(g_file);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    REQUIRE(p != NULL, "malloc %zu", bytes);
    memset(p, 0xa5, bytes); /* never written by a call: the same bytes in every run */
    return p;
}

/* ------------------------------------------------------------------------------------------ the cases */
static void c_vector(gp_ctx_t *ctx, dg_t *d)
{
    static const gp_dtype_t dts[] = {GP_F32, GP_F64, GP_I32};
    const void *xs[] = {g_f32, g_f64, g_i32}, *ys[] = {g_f32s, g_f64 + 1, g_u32};
    for (int t = 0; t < 3; t++) {
        const size_t b = N * gp_dtype_size(dts[t]);
        unsigned char *y = xmalloc(b), *z = xmalloc(b);
        ST(d, gp_vec_copy(ctx, dts[t], N, xs[t], y, NULL));
        dg_bytes(d, y, b);
        ST(d, gp_vec_scale(ctx, dts[t], N, 3.0, xs[t], y, NULL));
        dg_bytes(d, y, b);
        ST(d, gp_vec_add(ctx, dts[t], N - 1, xs[t], ys[t], z, NULL));
        dg_bytes(d, z, b);
        ST(d, gp_vec_triad(ctx, dts[t], N - 1, -5.0, xs[t], ys[t], z, NULL));
        dg_bytes(d, z, b);
        unsigned char r[8] = {0};
        ST(d, gp_vec_dot_sync(ctx, dts[t], N - 1, xs[t], ys[t], r));
        dg_bytes(d, r, 8);
        free(y), free(z);
    }
}

static void c_reduce(gp_ctx_t *ctx, dg_t *d)
{
    static const gp_dtype_t dts[] = {GP_F32, GP_F64, GP_I32, GP_U8, GP_F16, GP_U64};
    const void *xs[] = {g_f32, g_f64, g_i32, g_u8, g_f16, g_u64};
    const size_t ns[] = {N, N, N, N8, N, N};
    for (int t = 0; t < 6; t++)
        for (int op = 0; op < GP_REDUCE_OP_COUNT; op++) {
            if (gp_reduce_acc_dtype((gp_reduce_op_t)op, dts[t]) == GP_DTYPE_COUNT) continue;
            gp_reduce_result_t r;
            memset(&r, 0, sizeof r);
            ST(d, gp_reduce_sync(ctx, (gp_reduce_op_t)op, dts[t], ns[t], xs[t], &r));
            dg_bytes(d, &r, sizeof r);
        }
    gp_reduce_result_t r;
    memset(&r, 0, sizeof r);
    ST(d, gp_reduce_acc_sync(ctx, GP_REDUCE_SUM, GP_F32, GP_F64, N, g_f32, &r));
    dg_bytes(d, &r, sizeof r);
    memset(&r, 0, sizeof r);
    ST(d, gp_reduce_sync(ctx, GP_REDUCE_MIN, GP_F32, N, g_f32s, &r)); /* with NaNs */
    dg_bytes(d, &r, sizeof r);
    memset(&r, 0, sizeof r);
    ST(d, gp_reduce_sync(ctx, GP_REDUCE_ARGMAX, GP_F32, N, g_f32s, &r));
    dg_bytes(d, &r, sizeof r);
    /* segmented */
    static const gp_reduce_op_t sops[] = {GP_REDUCE_SUM, GP_REDUCE_MAX, GP_REDUCE_COUNT_NONZERO};
    unsigned char *out = xmalloc(g_nseg * 8);
    for (int o = 0; o < 3; o++) {
        ST(d, gp_reduce_segmented(ctx, sops[o], GP_F32, N, g_f32, g_nseg, g_off, out, NULL));
        dg_bytes(d, out, g_nseg * 8);
        ST(d, gp_reduce_segmented(ctx, sops[o], GP_I32, N, g_i32, g_nseg, g_off, out, NULL));
        dg_bytes(d, out, g_nseg * 8);
    }
    free(out);
    /* ordered */
    double res[16];
    memset(res, 0, sizeof res);
    ST(d, gp_reduce_ordered_sync(ctx, GP_ORDERED_AFFINE, GP_F64, N / 2, g_f64, res));
    dg_bytes(d, res, sizeof res);
    ST(d, gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_F32, N / 4, g_f32, res));
    dg_bytes(d, res, sizeof res);
    ST(d, gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT4, GP_U32, N / 16, g_u32, res));
    dg_bytes(d, res, sizeof res);
    /* a reducer fed in pieces */
    gp_reducer_t *rd = NULL;
    ST(d, gp_reducer_create(ctx, GP_REDUCE_SUM, GP_F32, &rd));
    if (rd) {
        const size_t g = gp_reducer_granule(rd), a = g * 7, b = g * 3;
        ST(d, gp_reducer_push(rd, g_f32, a, NULL));
        ST(d, gp_reducer_push(rd, g_f32 + a, b, NULL));
        ST(d, gp_reducer_push(rd, g_f32 + a + b, N - a - b, NULL));
        memset(&r, 0, sizeof r);
        ST(d, gp_reducer_finish(rd, &r));
        dg_bytes(d, &r, sizeof r);
        ST(d, gp_reducer_destroy(rd));
    }
}

static void c_scan(gp_ctx_t *ctx, dg_t *d)
{
    unsigned char *y = xmalloc(N * 8);
    ST(d, gp_scan(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, N, g_f32, y, NULL));
    dg_bytes(d, y, N * 4);
    ST(d, gp_scan(ctx, GP_REDUCE_SUM, GP_I32, GP_SCAN_EXCLUSIVE, N, g_i32, y, NULL));
    dg_bytes(d, y, N * 4);
    ST(d, gp_scan(ctx, GP_REDUCE_MAX, GP_F64, GP_SCAN_INCLUSIVE, N, g_f64, y, NULL));
    dg_bytes(d, y, N * 8);
    ST(d, gp_scan(ctx, GP_REDUCE_MIN, GP_F32, GP_SCAN_INCLUSIVE, N, g_f32s, y, NULL)); /* NaNs */
    dg_bytes(d, y, N * 4);
    ST(d, gp_scan(ctx, GP_REDUCE_XOR, GP_U8, GP_SCAN_INCLUSIVE, N8 / 2, g_u8, y, NULL));
    dg_bytes(d, y, N8 / 2);
    ST(d, gp_scan_acc(ctx, GP_REDUCE_SUM, GP_F32, GP_F64, GP_SCAN_EXCLUSIVE, N, g_f32, y, NULL));
    dg_bytes(d, y, N * 8);
    ST(d, gp_scan_ordered(ctx, GP_ORDERED_AFFINE, GP_F32, GP_SCAN_INCLUSIVE, N / 2, g_f32, y, NULL));
    dg_bytes(d, y, N * 4);
    ST(d, gp_scan_heads(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, N, g_f32, g_heads, y, NULL));
    dg_bytes(d, y, N * 4);
    ST(d, gp_scan_segmented(ctx, GP_REDUCE_MAX, GP_I32, GP_SCAN_EXCLUSIVE, N, g_i32, g_nseg, g_off, y, NULL));
    dg_bytes(d, y, N * 4);
    gp_scanner_t *s = NULL;
    ST(d, gp_scanner_create(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, &s));
    if (s) {
        const size_t a = (size_t)GP_SCAN_GRANULE * 33;
        ST(d, gp_scanner_push(s, a, g_f32, y, NULL));
        ST(d, gp_scanner_push(s, N - a, g_f32 + a, (float *)(void *)y + a, NULL));
        float tot = 0;
        ST(d, gp_scanner_total_sync(s, &tot));
        dg_bytes(d, &tot, 4);
        dg_bytes(d, y, N * 4);
        ST(d, gp_scanner_destroy(s));
    }
    free(y);
}

static void c_select(gp_ctx_t *ctx, dg_t *d)
{
    unsigned char *y = xmalloc(N * 8), *v = xmalloc(N * 8);
    uint64_t *len = xmalloc(N * 8);
    size_t c = 0;
    gp_pred_t p = {GP_PRED_GT, 0.25, 0, NULL};
    ST(d, gp_select_sync(ctx, GP_F32, N, g_f32s, &p, y, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4);
    p.kind = GP_PRED_IN, p.a = -10, p.b = 7;
    ST(d, gp_partition_sync(ctx, GP_I32, N, g_i32, &p, y, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4);
    p.kind = GP_PRED_FLAGS, p.flags = g_heads;
    ST(d, gp_select_sync(ctx, GP_F64, N, g_f64, &p, y, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 8);
    ST(d, gp_unique_sync(ctx, GP_I32, N, g_runs, y, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4);
    ST(d, gp_run_length_encode_sync(ctx, GP_I32, N, g_runs, y, len, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4), dg_bytes(d, len, N * 8);
    ST(d, gp_reduce_by_key_sync(ctx, GP_REDUCE_SUM, GP_I32, N, g_runs, GP_F32, g_f32, y, v, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4), dg_bytes(d, v, N * 8);
    ST(d, gp_scan_by_key_sync(ctx, GP_REDUCE_SUM, GP_I32, N, g_runs, GP_F64, GP_SCAN_EXCLUSIVE, g_f64, v));
    dg_bytes(d, v, N * 8);
    free(y), free(v), free(len);
}

static void c_sort(gp_ctx_t *ctx, dg_t *d)
{
    unsigned char *y = xmalloc(N * 8), *v = xmalloc(N * 8), *w = xmalloc(N * 8), *z = xmalloc(N * 8);
    ST(d, gp_sort_sync(ctx, GP_F32, N, g_f32s, y, NULL));
    dg_bytes(d, y, N * 4);
    gp_sort_opts_t desc = {1, 0, 0}, bits = {0, 3, 29};
    ST(d, gp_sort_sync(ctx, GP_U64, N, g_u64, y, &desc));
    dg_bytes(d, y, N * 8);
    ST(d, gp_sort_sync(ctx, GP_U32, N, g_u32, y, &bits));
    dg_bytes(d, y, N * 4);
    ST(d, gp_sort_pairs_sync(ctx, GP_F32, N, g_f32s, y, 4, g_u32, v, &desc));
    dg_bytes(d, y, N * 4), dg_bytes(d, v, N * 4);
    ST(d, gp_sort_sync(ctx, GP_U8, N8, g_u8, z, NULL));
    dg_bytes(d, z, N8 < N * 8 ? N8 : N * 8);
    ST(d, gp_argsort_sync(ctx, GP_F32, N, g_f32s, GP_U32, v, NULL));
    dg_bytes(d, v, N * 4);
    ST(d, gp_argsort_sync(ctx, GP_I32, N, g_runs, GP_U64, v, &desc));
    dg_bytes(d, v, N * 8);
    /* segmented: segments of every length up to 200000 */
    ST(d, gp_sort_segmented_sync(ctx, GP_F32, N, g_f32s, y, 8, g_u64, v, g_nseg, g_off, NULL));
    dg_bytes(d, y, N * 4), dg_bytes(d, v, N * 8);
    /* searchsorted over the sorted keys */
    ST(d, gp_sort_sync(ctx, GP_F32, N, g_f32s, w, NULL));
    ST(d, gp_searchsorted_sync(ctx, GP_F32, N, w, N, g_f32, 0, GP_I64, v));
    dg_bytes(d, v, N * 8);
    ST(d, gp_searchsorted_sync(ctx, GP_F32, N, w, N, g_f32s, 1, GP_U32, v));
    dg_bytes(d, v, N * 4);
    /* merge of the sorted halves of w (values: positions) */
    ST(d, gp_sort_sync(ctx, GP_F32, N / 2, g_f32s, w, NULL));
    ST(d, gp_sort_sync(ctx, GP_F32, N - N / 2, g_f32s + N / 2, (float *)(void *)w + N / 2, NULL));
    ST(d, gp_merge_sync(ctx, GP_F32, N / 2, w, N - N / 2, (float *)(void *)w + N / 2, y, 4, g_u32, g_u32 + N / 2, v, 0));
    dg_bytes(d, y, N * 4), dg_bytes(d, v, N * 4);
    /* top-k: two long rows (each row's sort inside the rows' loop), and many short ones */
    ST(d, gp_topk_sync(ctx, GP_F32, 2, 100000, g_f32s, 65536, 0, y, GP_I64, v));
    dg_bytes(d, y, 2 * 65536 * 4), dg_bytes(d, v, 2 * 65536 * 8);
    ST(d, gp_topk_sync(ctx, GP_F32, 64, N / 64, g_f32s, 1000, 1, y, GP_U32, v));
    dg_bytes(d, y, 64 * 1000 * 4), dg_bytes(d, v, 64 * 1000 * 4);
    ST(d, gp_topk_sync(ctx, GP_U64, 1, N, g_u64, 200000, 1, y, GP_U64, v));
    dg_bytes(d, y, 200000 * 8), dg_bytes(d, v, 200000 * 8);
    /* short rows (their stable argsort's first k) and a short sort: no team of their own */
    ST(d, gp_topk_sync(ctx, GP_F32, 32, 1000, g_f32s, 100, 1, y, GP_I64, v));
    dg_bytes(d, y, 32 * 100 * 4), dg_bytes(d, v, 32 * 100 * 8);
    ST(d, gp_topk_sync(ctx, GP_F32, 1, 3001, g_f32s, 3001, 0, y, GP_U32, v));
    dg_bytes(d, y, 3001 * 4), dg_bytes(d, v, 3001 * 4);
    ST(d, gp_sort_sync(ctx, GP_F32, 3001, g_f32s, y, &desc));
    dg_bytes(d, y, 3001 * 4);
    /* np.unique with every output */
    size_t c = 0;
    uint64_t *counts = xmalloc(N * 8);
    ST(d, gp_unique_sorted_sync(ctx, GP_F32, N, g_f32s, y, GP_I64, v, w, counts, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4), dg_bytes(d, v, N * 8), dg_bytes(d, w, N * 8), dg_bytes(d, counts, N * 8);
    /* integer keys and counts alone, in a range narrower than their number: counted by the team's tables */
    ST(d, gp_unique_sorted_sync(ctx, GP_U16, N, g_u16, y, GP_U32, NULL, NULL, counts, &c));
    dg_u64(d, c), dg_bytes(d, y, c * 2), dg_bytes(d, counts, c * 8);
    free(y), free(v), free(w), free(z), free(counts);
}

static gp_uop_t *uop(gp_ctx_t *ctx, dg_t *d, gp_uop_kind_t kind, gp_dtype_t dt, int arity, gp_dtype_t out,
                     const char *src, const char *identity, int commutative)
{
    gp_uop_desc_t u;
    memset(&u, 0, sizeof u);
    u.kind = kind, u.dtype = dt, u.arity = arity, u.out_dtype = out, u.src = src, u.identity = identity;
    u.commutative = commutative;
    gp_uop_t *op = NULL;
    ST(d, gp_uop_create(ctx, &u, &op));
    return op;
}

static void c_uop(gp_ctx_t *ctx, dg_t *d)
{
    gp_uop_t *sum = uop(ctx, d, GP_UOP_BINARY, GP_F64, 1, GP_F64, "a + b", "-0.0", 1);
    gp_uop_t *aff = uop(ctx, d, GP_UOP_BINARY, GP_F32, 2, GP_F32, "r[0] = a[0] * b[0]; r[1] = a[1] * b[0] + b[1];",
                        "1, 0", 0);
    gp_uop_t *map = uop(ctx, d, GP_UOP_MAP, GP_F32, 1, GP_F64, "x * 2.0 + 1.0", NULL, 0);
    gp_uop_t *pred = uop(ctx, d, GP_UOP_PRED, GP_F32, 1, GP_F32, "x > 0.25f", NULL, 0);
    gp_uop_t *less = uop(ctx, d, GP_UOP_LESS, GP_F32, 1, GP_F32, "a < b || (a == a && b != b)", NULL, 0);
    if (!sum || !aff || !map || !pred || !less) goto done;
    unsigned char *y = xmalloc(N * 8), *v = xmalloc(N * 8), r[16] = {0};
    ST(d, gp_reduce_uop_sync(ctx, sum, N, g_f64, r));
    dg_bytes(d, r, 8);
    ST(d, gp_reduce_uop_sync(ctx, aff, N / 2, g_f32, r));
    dg_bytes(d, r, 8);
    ST(d, gp_reduce_segmented_uop(ctx, sum, N, g_f64, g_nseg, g_off, y, NULL));
    dg_bytes(d, y, g_nseg * 8);
    ST(d, gp_reduce_segmented_uop(ctx, aff, N / 2, g_f32, g_nseg / 2, g_off, y, NULL));
    dg_bytes(d, y, g_nseg / 2 * 8);
    ST(d, gp_transform(ctx, map, N, g_f32, y, NULL));
    dg_bytes(d, y, N * 8);
    ST(d, gp_transform_reduce_sync(ctx, map, sum, N, g_f32, r));
    dg_bytes(d, r, 8);
    ST(d, gp_scan_uop(ctx, sum, GP_SCAN_EXCLUSIVE, N, g_f64, y, NULL));
    dg_bytes(d, y, N * 8);
    ST(d, gp_scan_uop(ctx, aff, GP_SCAN_INCLUSIVE, N / 2, g_f32, y, NULL));
    dg_bytes(d, y, N * 4);
    size_t c = 0;
    ST(d, gp_select_if_sync(ctx, pred, N, g_f32s, y, &c));
    dg_u64(d, c), dg_bytes(d, y, N * 4);
    ST(d, gp_sort_uop_sync(ctx, less, N, g_f32s, y, 4, g_u32, v));
    dg_bytes(d, y, N * 4), dg_bytes(d, v, N * 4);
    free(y), free(v);
done:
    gp_uop_destroy(sum), gp_uop_destroy(aff), gp_uop_destroy(map), gp_uop_destroy(pred), gp_uop_destroy(less);
}

static void c_histogram(gp_ctx_t *ctx, dg_t *d)
{
    uint64_t *c = xmalloc(((size_t)65536 + 3) * 8);
    ST(d, gp_histogram_even(ctx, GP_F32, N, g_f32s, 1000, -40.0, 40.0, GP_U64, c, NULL));
    dg_bytes(d, c, 1003 * 8);
    ST(d, gp_histogram_even(ctx, GP_F64, N, g_f64, 65536, -1.0, 1.0, GP_U32, c, NULL)); /* past the private tables */
    dg_bytes(d, c, 65539 * 4);
    double e[101];
    for (int i = 0; i <= 100; i++) e[i] = -1.0 + 0.02 * i * (1.0 + 0.001 * (i % 7));
    ST(d, gp_histogram_range(ctx, GP_F32, N, g_f32, 100, e, GP_U64, c, NULL));
    dg_bytes(d, c, 103 * 8);
    ST(d, gp_histogram_direct(ctx, GP_U16, 2 * N, g_u16, 60000, GP_U64, c, NULL));
    dg_bytes(d, c, 60003 * 8);
    ST(d, gp_histogram_direct(ctx, GP_U8, N8, g_u8, 200, GP_U32, c, NULL));
    dg_bytes(d, c, 203 * 4);
    gp_hist_bins_t b = {GP_HIST_EVEN, 77, -1.0, 1.0, NULL, 1, 1};
    memset(c, 0, 80 * 8);
    ST(d, gp_histogram_accumulate(ctx, GP_F32, N, g_f32, &b, GP_U64, c, NULL));
    ST(d, gp_histogram_accumulate(ctx, GP_F32, N, g_f32s, &b, GP_U64, c, NULL));
    dg_bytes(d, c, 80 * 8);
    free(c);
}

static void c_matrix(gp_ctx_t *ctx, dg_t *d)
{
    /* transpose and add past the thresholds */
    const size_t R = 331, C = 741;
    float *t = xmalloc(R * C * 4);
    gp_matrix_t src = {g_f32, R, C, C, GP_F32, GP_ROW_MAJOR}, dst = {t, C, R, R, GP_F32, GP_ROW_MAJOR};
    ST(d, gp_matrix_transpose(ctx, &dst, &src, NULL));
    dg_bytes(d, t, R * C * 4);
    gp_matrix_t a = {g_f64, R, C, C, GP_F64, GP_ROW_MAJOR}, b = {g_f64 + 5, R, C, R, GP_F64, GP_COL_MAJOR};
    double *s = xmalloc(R * C * 8);
    gp_matrix_t c = {s, R, C, C + 3, GP_F64, GP_ROW_MAJOR};
    free(t);
    free(s);
    s = xmalloc((R * (C + 3)) * 8);
    c.data = s;
    ST(d, gp_matrix_add(ctx, 0.5, &a, -2.0, &b, &c, NULL));
    dg_bytes(d, s, R * (C + 3) * 8);
    free(s);
    /* GEMM in every precision */
    const size_t m = 101, n = 133, k = 217;
    unsigned char *o = xmalloc((size_t)1 << 20);
    for (int dt = 0; dt < 2; dt++) {
        const gp_dtype_t T = dt ? GP_F64 : GP_F32;
        const void *base = dt ? (const void *)g_f64 : (const void *)g_f32;
        gp_matrix_t A = {(void *)base, m, k, k, T, GP_ROW_MAJOR};
        gp_matrix_t B = {(char *)base + 4096, n, k, k, T, GP_ROW_MAJOR}; /* used transposed */
        gp_matrix_t Cm = {o, m, n, m, T, GP_COL_MAJOR};
        ST(d, gp_gemm(ctx, GP_OP_N, GP_OP_T, 1.5, &A, &B, 0.0, &Cm, NULL));
        dg_bytes(d, o, m * n * gp_dtype_size(T));
    }
    uint16_t *h = xmalloc((m + n) * k * 2);
    for (size_t i = 0; i < (m + n) * k; i++) h[i] = gp_f32_to_bf16(g_f32[i]);
    gp_matrix_t A = {h, m, k, k, GP_BF16, GP_ROW_MAJOR}, B = {h + m * k, k, n, n, GP_BF16, GP_ROW_MAJOR};
    gp_matrix_t Cm = {o, m, n, n, GP_F32, GP_ROW_MAJOR};
    ST(d, gp_gemm_ex(ctx, GP_GEMM_BF16, GP_OP_N, GP_OP_N, 1.0, &A, &B, 0.0, &Cm, NULL));
    dg_bytes(d, o, m * n * 4);
    gp_matrix_t A32 = {g_f32, 64, 96, 96, GP_F32, GP_ROW_MAJOR}, B32 = {g_f32 + 9, 96, 80, 80, GP_F32, GP_ROW_MAJOR};
    gp_matrix_t C32 = {o, 64, 80, 80, GP_F32, GP_ROW_MAJOR};
    ST(d, gp_gemm_batched(ctx, GP_GEMM_TF32, GP_OP_N, GP_OP_N, 1.0, &A32, 64 * 96, &B32, 96 * 80, 0.0, &C32, 64 * 80,
                          30, NULL));
    dg_bytes(d, o, 30 * 64 * 80 * 4);
    free(h), free(o);
}

static void c_memory(gp_ctx_t *ctx, dg_t *d)
{
    unsigned char *y = xmalloc(N * 4);
    ST(d, gp_memcpy_sync(ctx, y, g_f32, N * 4));
    dg_bytes(d, y, N * 4);
    ST(d, gp_memcpy_2d(ctx, y, 1000, g_u8, 999, 901, 500, NULL));
    dg_bytes(d, y, 1000 * 500);
    ST(d, gp_memcpy_3d(ctx, y, 500, 70, g_u8, 499, 71, 497, 61, 14, NULL));
    dg_bytes(d, y, (size_t)500 * 70 * 14);
    free(y);
}

typedef struct {
    dg_t *d;
} sink_t;
static gp_status_t sink(void *user, const void *chunk, size_t count, size_t first, gp_stream_t stream)
{
    (void)stream;
    dg_t *d = ((sink_t *)user)->d;
    dg_u64(d, first), dg_u64(d, count), dg_bytes(d, chunk, count * 4);
    return GP_OK;
}

static void c_files(gp_ctx_t *ctx, dg_t *d)
{
    gp_array_desc_t desc;
    ST(d, gp_raw_inspect(g_file, GP_F32, 0, GP_COUNT_ALL, &desc));
    for (int threads = 0; threads <= 5; threads += 5) {
        FILE *f = fopen(g_file, "rb");
        if (!f) {
            ST(d, GP_ERR_IO);
            return;
        }
        gp_stream_opts_t o;
        memset(&o, 0, sizeof o);
        o.chunk_bytes = (size_t)300 << 10;
        o.threads = threads;
        sink_t s = {d};
        ST(d, gp_array_stream(ctx, f, &desc, GP_COUNT_ALL, 1024, &o, sink, &s));
        fseek(f, 0, SEEK_SET); /* the mapped pages in place, populated by however many threads the team has */
        o.map_pages = 1;
        ST(d, gp_array_stream(ctx, f, &desc, GP_COUNT_ALL, 1024, &o, sink, &s));
        o.map_pages = 0;
        /* the loader: slices read by however many threads the team has, each once */
        gp_buffer_t b;
        size_t got = 0;
        fseek(f, 0, SEEK_SET);
        ST(d, gp_array_load(ctx, f, &desc, GP_COUNT_ALL, GP_MEM_DEVICE, &o, &b, &got));
        dg_u64(d, got), dg_bytes(d, b.host, got * 4);
        gp_mem_free(ctx, &b);
        fclose(f);
    }
}

static void c_group(gp_ctx_t *ctx, dg_t *d)
{
    (void)ctx;
    gp_group_t *g = NULL;
    ST(d, gp_group_create_emulated(&g, 3, GP_DEVICE_CPU));
    if (!g) return;
    size_t cnt[3];
    const void *x32[3], *x64[3], *xs[3], *xu[3];
    void *y[3], *v[3];
    unsigned char *yb = xmalloc(N * 8), *vb = xmalloc(N * 8);
    for (int r = 0; r < 3; r++) {
        size_t first = 0;
        ST(d, gp_group_split(g, GP_F32, N, r, &first, &cnt[r]));
        x32[r] = g_f32 + first, x64[r] = g_f64 + first, xs[r] = g_f32s + first, xu[r] = g_u32 + first;
        y[r] = yb + first * 8, v[r] = vb + first * 8;
    }
    gp_reduce_result_t res;
    memset(&res, 0, sizeof res);
    ST(d, gp_group_reduce(g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, cnt, x32, &res));
    dg_bytes(d, &res, sizeof res);
    ST(d, gp_group_reduce(g, GP_REDUCE_ARGMIN, GP_F64, GP_DTYPE_COUNT, cnt, x64, &res));
    dg_bytes(d, &res, sizeof res);
    ST(d, gp_group_scan(g, GP_REDUCE_SUM, GP_F32, GP_F32, GP_SCAN_INCLUSIVE, cnt, x32, y));
    for (int r = 0; r < 3; r++) dg_bytes(d, y[r], cnt[r] * 4);
    ST(d, gp_group_sort(g, GP_F32, cnt, xs, y, 4, xu, v, 0));
    for (int r = 0; r < 3; r++) dg_bytes(d, y[r], cnt[r] * 4), dg_bytes(d, v[r], cnt[r] * 4);
    ST(d, gp_group_argsort(g, GP_F32, cnt, xs, GP_U64, v, 1));
    for (int r = 0; r < 3; r++) dg_bytes(d, v[r], cnt[r] * 8);
    unsigned char *out = xmalloc(g_nseg * 8);
    ST(d, gp_group_reduce_segmented(g, GP_REDUCE_SUM, GP_F32, cnt, x32, g_nseg, g_off, out));
    dg_bytes(d, out, g_nseg * 8);
    free(out);
    uint64_t hc[103];
    gp_hist_bins_t b = {GP_HIST_EVEN, 100, -1.0, 1.0, NULL, 0, 0};
    ST(d, gp_group_histogram(g, GP_F32, cnt, x32, &b, GP_U64, hc));
    dg_bytes(d, hc, sizeof hc);
    double dot = 0;
    ST(d, gp_group_dot(g, GP_F32, cnt, x32, xs, &dot));
    dg_bytes(d, &dot, 8);
    free(yb), free(vb);
    ST(d, gp_group_destroy(g));
}

typedef struct {
    const char *name;
    void (*run)(gp_ctx_t *ctx, dg_t *d);
} case_t;
static const case_t k_cases[] = {
    {"vector", c_vector}, {"reduce", c_reduce}, {"scan", c_scan},       {"select", c_select},
    {"sort", c_sort},     {"uop", c_uop},       {"histogram", c_histogram}, {"matrix", c_matrix},
    {"memory", c_memory}, {"files", c_files},   {"group", c_group},
};
#define NCASES ((int)(sizeof k_cases / sizeof k_cases[0]))

/* every case on a CPU context of this thread: hashes[c], and a failed case's call in why[c] */
static void run_all(uint64_t *hashes, char (*why)[160])
{
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, GP_DEVICE_CPU) == GP_OK, "CPU context");
    for (int c = 0; c < NCASES; c++) {
        dg_t d = {0xcbf29ce484222325ull, 0, ""};
        const double t0 = omp_get_wtime();
        k_cases[c].run(ctx, &d);
        if (getenv("GP_TEST_VERBOSE")) fprintf(stderr, "    %s %.3f s\n", k_cases[c].name, omp_get_wtime() - t0);
        hashes[c] = d.h;
        snprintf(why[c], 160, "%s", d.failed ? d.what : "");
    }
    gp_ctx_destroy(ctx);
}

/* the cases inside the caller's own parallel region of two threads: nested regions off (levels 1: every call's
 * team is one thread while omp_get_max_threads() says more) or on (levels 2: teams of what is left) */
static int run_nested(int levels, uint64_t (*out)[NCASES], char (*why)[NCASES][160])
{
    const int saved = omp_get_max_active_levels();
    omp_set_max_active_levels(levels);
    int started = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        started = omp_get_num_threads();
        run_all(out[omp_get_thread_num()], why[omp_get_thread_num()]);
    }
    omp_set_max_active_levels(saved);
    return started;
}

static void print_hashes(const char *mode, const uint64_t *h, char (*why)[160])
{
    for (int c = 0; c < NCASES; c++)
        printf("H %s %s %016llx %s\n", mode, k_cases[c].name, (unsigned long long)h[c], why[c]);
}

static int child(uint64_t seed)
{
    make_inputs(seed);
    uint64_t plain[NCASES], nested[2][NCASES];
    char wp[NCASES][160], wn[2][NCASES][160];
    printf("T max_threads %d thread_limit %d dynamic %d\n", omp_get_max_threads(), omp_get_thread_limit(),
           omp_get_dynamic());
    run_all(plain, wp);
    print_hashes("plain", plain, wp);
    for (int levels = 1; levels <= 2; levels++) {
        const int k = run_nested(levels, nested, wn);
        for (int t = 0; t < k; t++) {
            char mode[32];
            snprintf(mode, sizeof mode, "nested%d.%d", levels, t);
            print_hashes(mode, nested[t], wn[t]);
        }
    }
    free_inputs();
    fflush(stdout);
    return 0;
}

static void compare(const char *where, const char *mode, const char *name, uint64_t got, uint64_t want,
                    const char *why)
{
    CHECK(got == want, "%s, %s: %s gives other bits than the plain run (%016llx, plain %016llx)%s%s", where, mode, name,
          (unsigned long long)got, (unsigned long long)want, why[0] ? ": " : "", why);
}

/* this program as a child with OMP_* replaced by env (each "NAME=VALUE"), its hashes compared to ref */
static void run_child(uint64_t seed, const char *const *env, int nenv, const uint64_t *ref)
{
    char where[200] = "";
    for (int i = 0; i < nenv; i++) snprintf(where + strlen(where), sizeof where - strlen(where), "%s%s", i ? " " : "", env[i]);
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = calloc(ne + (size_t)nenv + 1, sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "OMP_", 4) != 0) envp[k++] = environ[i];
    for (int i = 0; i < nenv; i++) envp[k++] = (char *)env[i];
    envp[k] = NULL;
    char self[4096], sseed[32];
    const ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(l > 0, "readlink /proc/self/exe");
    self[l] = 0;
    snprintf(sseed, sizeof sseed, "0x%llx", (unsigned long long)seed);
    char *argv[] = {self, "--child", sseed, NULL};
    int fds[2];
    REQUIRE(pipe(fds) == 0, "pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    const int e = posix_spawn(&pid, self, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    free(envp);
    REQUIRE(e == 0, "spawning %s: %s", self, strerror(e));
    FILE *f = fdopen(fds[0], "r");
    char line[512];
    int seen = 0;
    while (f && fgets(line, sizeof line, f)) {
        char mode[32], name[32], why[300] = "";
        unsigned long long h;
        if (line[0] == 'T') {
            printf("  %s: %s", where, line + 2);
            continue;
        }
        if (sscanf(line, "H %31s %31s %llx %299[^\n]", mode, name, &h, why) < 3) continue;
        for (int c = 0; c < NCASES; c++)
            if (strcmp(name, k_cases[c].name) == 0) compare(where, mode, name, h, ref[c], why), seen++;
    }
    if (f) fclose(f);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: the child ended with %s %d", where,
          WIFEXITED(status) ? "status" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    CHECK(seen >= 3 * NCASES, "%s: %d hashes came back (at least %d expected)", where, seen, 3 * NCASES);
}

int main(int argc, char **argv)
{
    setenv("GP_CPU_PAR_BYTES", "64k", 1); /* before the library reads it; the children inherit it */
    if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(strtoull(argv[2], NULL, 0));
    tc_seed("test_omp_teams");
    const uint64_t seed = tc_state;
    make_inputs(seed);
    uint64_t ref[NCASES], nested[2][NCASES];
    char why[NCASES][160], wn[2][NCASES][160];
    run_all(ref, why);
    for (int c = 0; c < NCASES; c++) CHECK(why[c][0] == 0, "plain run, %s: %s", k_cases[c].name, why[c]);
    printf("  plain: %d cases, omp_get_max_threads() = %d\n", NCASES, omp_get_max_threads());
    for (int levels = 1; levels <= 2; levels++) {
        const int k = run_nested(levels, nested, wn);
        char mode[64];
        snprintf(mode, sizeof mode, "inside a parallel region of %d, max active levels %d", k, levels);
        for (int t = 0; t < k; t++)
            for (int c = 0; c < NCASES; c++) compare("this process", mode, k_cases[c].name, nested[t][c], ref[c], wn[t][c]);
        printf("  %s: compared\n", mode);
    }
    free_inputs();
    static const char *const e1[] = {"OMP_THREAD_LIMIT=2", "OMP_NUM_THREADS=16"};
    static const char *const e2[] = {"OMP_DYNAMIC=true", "OMP_NUM_THREADS=16"};
    static const char *const e3[] = {"OMP_NUM_THREADS=1"};
    static const char *const e4[] = {"OMP_NUM_THREADS=3"};
    static const char *const e5[] = {"OMP_THREAD_LIMIT=3", "OMP_NUM_THREADS=8,8", "OMP_MAX_ACTIVE_LEVELS=3"};
    run_child(seed, e1, 2, ref);
    run_child(seed, e2, 2, ref);
    run_child(seed, e3, 1, ref);
    run_child(seed, e4, 1, ref);
    run_child(seed, e5, 3, ref);
    return tc_finish("test_omp_teams");
}
