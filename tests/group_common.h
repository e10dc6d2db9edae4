/*
 * group_common.h — tests of the sharded primitives (src/group), shared by test_group.c (emulated groups on the CPU
 * backend), gpu_group.c (emulated groups on a GPU, NCCL groups) and gpu_group_mp.c (two processes).
 * The rule under test: a group's reduction has the bits of one context's gp_reduce over the whole array, for any
 * shard sizes (even split, random cuts, empty shards, a whole array on one rank, cuts one element off a tile edge,
 * more than 4096 tiles), every dtype and op; histograms equal one context's counts; i32 dots are exact.
 * Shards are views into one array in the members' memory (emulated members share a device), so no data is copied.
 */
#ifndef GP_TESTS_GROUP_COMMON_H
#define GP_TESTS_GROUP_COMMON_H

#include "reduce_common.h"

static int gc_quick; /* GP_TEST_QUICK (compute-sanitizer): fewer dtypes and sizes */
static const gp_dtype_t gc_dtypes[] = {GP_U8, GP_I8, GP_U16, GP_I16, GP_U32, GP_I32,
                                       GP_U64, GP_I64, GP_F16, GP_BF16, GP_F32, GP_F64};
#define GC_NDTYPES (sizeof gc_dtypes / sizeof gc_dtypes[0])

static inline size_t gc_tile(gp_dtype_t dt) { return 65536 / gp_dtype_size(dt); }

/* Random real-valued data of any dtype: floats of mixed sign and magnitude (no NaN), integers' random bits. */
static inline void gc_fill(void *x, gp_dtype_t dt, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tc_next();
        const double v = ((double)(r >> 11) * 0x1p-52 - 0.5) * (double)(1u << (r & 7));
        switch (dt) {
        case GP_F16: ((uint16_t *)x)[i] = (uint16_t)((r >> 63) << 15 | (uint64_t)(8 + (r >> 20) % 16) << 10 | (r >> 40) % 1024); break;
        case GP_BF16: {
            float f = (float)v;
            uint32_t b;
            memcpy(&b, &f, 4);
            ((uint16_t *)x)[i] = (uint16_t)(b >> 16);
            break;
        }
        case GP_F32: ((float *)x)[i] = (float)v; break;
        case GP_F64: ((double *)x)[i] = v; break;
        default: memcpy((char *)x + i * gp_dtype_size(dt), &r, gp_dtype_size(dt)); break;
        }
    }
}

/* Shard cuts (k + 1 values, cut[0] = 0, cut[k] = n) of a layout:
 *   0 the even split (gp_group_split), 1 random cuts (empty shards likely for small n), 2 all on the last rank,
 *   3 cuts one element after tile edges, 4 cuts one element before them. */
#define GC_NLAYOUTS 5
/* cut[1 .. k-1] in increasing order (cut[0] = 0 and cut[k] = n stay) */
static inline void gc_sort_cuts(size_t *cut, int k)
{
    for (int a = 1; a < k; a++)
        for (int b = a + 1; b < k; b++)
            if (cut[b] < cut[a]) {
                const size_t t = cut[a];
                cut[a] = cut[b];
                cut[b] = t;
            }
}
static inline void gc_cuts(const gp_group_t *g, gp_dtype_t dt, size_t n, int layout, size_t *cut)
{
    const int k = gp_group_size(g);
    const size_t E = gc_tile(dt), T = (n + E - 1) / E;
    cut[0] = 0;
    cut[k] = n;
    for (int r = 1; r < k; r++) {
        size_t c = 0, cnt = 0;
        switch (layout) {
        case 0: gp_group_split(g, dt, n, r, &c, &cnt); break;
        case 1: c = n ? tc_next() % (n + 1) : 0; break;
        case 2: c = 0; break;
        case 3: c = T ? (size_t)(tc_next() % T) * E + 1 : 0; break;
        default: c = T ? (size_t)(1 + tc_next() % T) * E - 1 : 0; break;
        }
        cut[r] = c > n ? n : c;
    }
    gc_sort_cuts(cut, k);
}

/* The group's reduction of x (xm: the array in the members' memory; xh: on the host) cut at cut[], against want
 * (one context's gp_reduce over the whole array), bit for bit. pieces: through gp_group_reducer_push in pieces that
 * end on tile edges instead of gp_group_reduce. */
static inline int gc_check_reduce(gp_group_t *g, gp_reduce_op_t op, gp_dtype_t dt, gp_dtype_t acc, const void *xm,
                                  size_t n, const size_t *cut, const gp_reduce_result_t *want, int pieces,
                                  const char *what)
{
    const int k = gp_group_local_count(g);
    const size_t es = gp_dtype_size(dt), E = gc_tile(dt);
    size_t counts[64];
    const void *shards[64];
    REQUIRE(k <= 64, "at most 64 members here");
    for (int i = 0; i < k; i++) {
        counts[i] = cut[i + 1] - cut[i];
        shards[i] = (const char *)xm + cut[i] * es;
    }
    gp_reduce_result_t got;
    memset(&got, 0xa5, sizeof got);
    if (!pieces) {
        OK(gp_group_reduce(g, op, dt, acc, counts, shards, &got));
    } else {
        gp_group_reducer_t *r = NULL;
        OK(gp_group_reducer_create(g, op, dt, acc, &r));
        if (!r) return 0;
        for (int i = k - 1; i >= 0; i--) { /* members in any order; each member's pieces in order */
            size_t at = cut[i];
            while (at < cut[i + 1]) {
                size_t end = (at / E + 1 + tc_next() % 3) * E; /* the next tile edges */
                if (end > cut[i + 1]) end = cut[i + 1];
                OK(gp_group_reducer_push(r, i, at, end - at, (const char *)xm + at * es, NULL));
                at = end;
            }
        }
        OK(gp_group_reducer_finish(r, &got));
        gp_group_reducer_destroy(r);
    }
    (void)n;
    const int ok = rc_same(&got, want);
    CHECK(ok, "%s: %s %s%s n=%zu over %d shards: the group's bits differ from one context's", what,
          gp_reduce_op_name(op), gp_dtype_name(dt), acc == GP_F64 ? " (f64 acc)" : "", n, k);
    if (!ok) {
        rc_print("group", &got);
        rc_print("one  ", want);
        for (int i = 0; i < k; i++) fprintf(stderr, "  shard %d: [%zu, %zu)\n", i, cut[i], cut[i + 1]);
    }
    return ok;
}

/* Copies host data into the members' memory (device memory of member 0's device, or host memory). */
typedef struct gc_arr {
    gp_buffer_t buf;
    void *p; /* where the members read it */
} gc_arr_t;
static inline void gc_upload(gp_group_t *g, const void *xh, size_t bytes, gc_arr_t *a)
{
    gp_ctx_t *c = gp_group_ctx(g, 0);
    REQUIRE(gp_mem_alloc(c, GP_MEM_DEVICE, bytes, &a->buf) == GP_OK, "alloc %zu", bytes);
    a->p = a->buf.device ? a->buf.device : a->buf.host;
    if (bytes) REQUIRE(gp_memcpy_sync(c, a->p, xh, bytes) == GP_OK, "upload");
}

/* Every dtype x op x layout at sizes around the tile, against ref's gp_reduce (ref: a context of the members' kind). */
static inline void gc_test_reduce_all(gp_group_t *g, gp_ctx_t *ref, const char *what)
{
    long before = tc_fail;
    for (size_t d = 0; d < GC_NDTYPES; d++) {
        const gp_dtype_t dt = gc_dtypes[d];
        if (gc_quick && dt != GP_U8 && dt != GP_F16 && dt != GP_F32 && dt != GP_F64) continue;
        const size_t E = gc_tile(dt), es = gp_dtype_size(dt);
        const size_t sizes[] = {0, 1, 3 * E + E / 2, 33, E - 1, E + 1, 11 * E + 5};
        for (size_t si = 0; si < (gc_quick ? 3 : sizeof sizes / sizeof sizes[0]); si++) {
            const size_t n = sizes[si];
            void *xh = malloc(n * es + 16);
            gc_fill(xh, dt, n);
            gc_arr_t a;
            gc_upload(g, xh, n * es, &a);
            for (int op = 0; op < GP_REDUCE_OP_COUNT; op++) {
                if (gp_reduce_acc_dtype((gp_reduce_op_t)op, dt) == GP_DTYPE_COUNT) continue;
                gp_reduce_result_t want;
                OK(gp_reduce_sync(ref, (gp_reduce_op_t)op, dt, n, a.p, &want));
                for (int layout = 0; layout < GC_NLAYOUTS; layout++) {
                    size_t cut[65];
                    gc_cuts(g, dt, n, layout, cut);
                    gc_check_reduce(g, (gp_reduce_op_t)op, dt, GP_DTYPE_COUNT, a.p, n, cut, &want, layout & 1, what);
                }
            }
            if (rc_is_float(dt) && dt != GP_F64) { /* the f64 accumulator */
                gp_reduce_result_t want;
                OK(gp_reduce_acc_sync(ref, GP_REDUCE_SUM, dt, GP_F64, n, a.p, &want));
                size_t cut[65];
                gc_cuts(g, dt, n, 1, cut);
                gc_check_reduce(g, GP_REDUCE_SUM, dt, GP_F64, a.p, n, cut, &want, 0, what);
            }
            gp_mem_free(gp_group_ctx(g, 0), &a.buf);
            free(xh);
        }
    }
    printf("  %s: every dtype x op x 5 shard layouts, n up to 11 tiles: %s\n", what,
           tc_fail == before ? "ok" : "FAILED");
}

/* More than 4096 tiles (three tree levels): f32 sum and argmax with cuts inside level-1 groups. */
static inline void gc_test_reduce_deep(gp_group_t *g, gp_ctx_t *ref, size_t tiles, const char *what)
{
    long before = tc_fail;
    const gp_dtype_t dt = GP_F32;
    const size_t E = gc_tile(dt), n = tiles * E + 777;
    float *xh = malloc(n * sizeof *xh);
    gc_fill(xh, dt, n);
    gc_arr_t a;
    gc_upload(g, xh, n * sizeof *xh, &a);
    const gp_reduce_op_t ops[] = {GP_REDUCE_SUM, GP_REDUCE_ARGMAX};
    for (int o = 0; o < 2; o++) {
        gp_reduce_result_t want;
        OK(gp_reduce_sync(ref, ops[o], dt, n, a.p, &want));
        for (int layout = 0; layout < GC_NLAYOUTS; layout++) {
            size_t cut[65];
            gc_cuts(g, dt, n, layout, cut);
            gc_check_reduce(g, ops[o], dt, GP_DTYPE_COUNT, a.p, n, cut, &want, layout == 3, what);
        }
    }
    gp_mem_free(gp_group_ctx(g, 0), &a.buf);
    free(xh);
    printf("  %s: %zu tiles + 777 (three levels), sum and argmax, 5 layouts: %s\n", what, tiles,
           tc_fail == before ? "ok" : "FAILED");
}

/* Histograms: the group's counts equal one context's over the whole array; dot: i32 exact, floats close; vector
 * ops: the same bits as one context. */
static inline void gc_test_ops(gp_group_t *g, gp_ctx_t *ref, const char *what)
{
    long before = tc_fail;
    const int k = gp_group_local_count(g);
    const size_t n = 5 * gc_tile(GP_F32) + 1234;
    float *xh = malloc(n * 4), *yh = malloc(n * 4);
    int32_t *ih = malloc(n * 4), *jh = malloc(n * 4);
    tc_fill(xh, n, GP_F32);
    tc_fill(yh, n, GP_F32);
    tc_fill(ih, n, GP_I32);
    tc_fill(jh, n, GP_I32);
    xh[7] = NAN; /* counted as NaN by the histogram */
    gc_arr_t x, y, i1, j1, z, zr;
    gc_upload(g, xh, n * 4, &x);
    gc_upload(g, yh, n * 4, &y);
    gc_upload(g, ih, n * 4, &i1);
    gc_upload(g, jh, n * 4, &j1);
    gc_upload(g, xh, n * 4, &z);
    gc_upload(g, xh, n * 4, &zr);
    for (int layout = 0; layout < GC_NLAYOUTS; layout++) {
        size_t cut[65], counts[64];
        const void *xs[64], *ys[64], *is[64], *js[64];
        void *zs[64];
        gc_cuts(g, GP_F32, n, layout, cut);
        for (int m = 0; m < k; m++) {
            counts[m] = cut[m + 1] - cut[m];
            xs[m] = (const float *)x.p + cut[m];
            ys[m] = (const float *)y.p + cut[m];
            is[m] = (const int32_t *)i1.p + cut[m];
            js[m] = (const int32_t *)j1.p + cut[m];
            zs[m] = (float *)z.p + cut[m];
        }
        /* histogram: 65536 even bins over [-0.75, 0.75): below, above and NaN counted too */
        const gp_hist_bins_t bins = {GP_HIST_EVEN, 65536, -0.75, 0.75, NULL, 0, 0};
        const size_t nc = bins.nbins + 3;
        uint32_t *got = malloc(nc * 4), *want = malloc(nc * 4);
        gp_buffer_t wd;
        OK(gp_mem_alloc(ref, GP_MEM_DEVICE, nc * 4, &wd));
        void *wp = wd.device ? wd.device : wd.host;
        OK(gp_memset(ref, wp, 0, nc * 4, NULL));
        OK(gp_histogram_accumulate(ref, GP_F32, n, x.p, &bins, GP_U32, wp, NULL));
        OK(gp_memcpy_sync(ref, want, wp, nc * 4));
        gp_mem_free(ref, &wd);
        memset(got, 0xff, nc * 4);
        OK(gp_group_histogram(g, GP_F32, counts, xs, &bins, GP_U32, got));
        CHECK(memcmp(got, want, nc * 4) == 0, "%s: histogram layout %d differs from one context's", what, layout);
        free(got);
        free(want);
        /* dot */
        int64_t gi = 0, wi = 0;
        double gf = 0, wf = 0;
        OK(gp_group_dot(g, GP_I32, counts, is, js, &gi));
        OK(gp_vec_dot_sync(ref, GP_I32, n, i1.p, j1.p, &wi));
        CHECK(gi == wi, "%s: i32 dot %lld != %lld (layout %d)", what, (long long)gi, (long long)wi, layout);
        OK(gp_group_dot(g, GP_F32, counts, ys, ys, &gf)); /* x holds a NaN for the histogram */
        double exact = 0;
        for (size_t e = 0; e < n; e++) exact += (double)yh[e] * yh[e];
        CHECK(fabs(gf - exact) <= 1e-9 * (fabs(exact) + 1) + 1e-6, "%s: f32 dot %.17g vs %.17g", what, gf, exact);
        (void)wf;
        /* triad */
        OK(gp_group_vec(g, GP_GROUP_TRIAD, GP_F32, counts, 0.5, xs, ys, zs));
        OK(gp_group_sync(g));
        OK(gp_vec_triad(ref, GP_F32, n, 0.5, x.p, y.p, zr.p, NULL));
        float *a = malloc(n * 4), *b = malloc(n * 4);
        OK(gp_memcpy_sync(ref, a, z.p, n * 4));
        OK(gp_memcpy_sync(ref, b, zr.p, n * 4));
        CHECK(memcmp(a, b, n * 4) == 0, "%s: triad layout %d differs from one context's", what, layout);
        free(a);
        free(b);
    }
    gc_arr_t *all[] = {&x, &y, &i1, &j1, &z, &zr};
    for (int m = 0; m < 6; m++) gp_mem_free(gp_group_ctx(g, 0), &all[m]->buf);
    free(xh);
    free(yh);
    free(ih);
    free(jh);
    printf("  %s: histogram (65536 bins), dot i32 / f32, triad, 5 layouts: %s\n", what,
           tc_fail == before ? "ok" : "FAILED");
}

/* gp_group_split covers [0, n) in order with tile-aligned cuts differing by at most a tile; gp_group_scatter puts
 * the right elements on each member. */
static inline void gc_test_split(gp_group_t *g, const char *what)
{
    long before = tc_fail;
    const int k = gp_group_size(g);
    const size_t sizes[] = {0, 1, 16383, 16384, 16385, 5 * 16384 + 3, 1000003};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s], E = gc_tile(GP_F32);
        size_t at = 0, lo = (size_t)-1, hi = 0;
        for (int r = 0; r < k; r++) {
            size_t f = 99, c = 99;
            OK(gp_group_split(g, GP_F32, n, r, &f, &c));
            CHECK(f == at, "%s: split n=%zu rank %d starts at %zu, not %zu", what, n, r, f, at);
            CHECK(r == k - 1 || (f + c) % E == 0 || f + c == n, "%s: split n=%zu rank %d ends off a tile edge", what, n, r);
            at = f + c;
            const size_t t = (c + E - 1) / E;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
        CHECK(at == n && hi - lo <= 1, "%s: split n=%zu covers %zu, tiles %zu..%zu", what, n, at, lo, hi);
        float *xh = malloc(n * 4 + 4);
        tc_fill(xh, n, GP_F32);
        gp_buffer_t sh[64];
        OK(gp_group_scatter(g, GP_F32, n, xh, sh));
        for (int m = 0; m < gp_group_local_count(g); m++) {
            size_t f, c;
            gp_group_split(g, GP_F32, n, gp_group_rank(g, m), &f, &c);
            float *back = malloc(c * 4 + 4);
            if (c) OK(gp_memcpy_sync(gp_group_ctx(g, m), back, sh[m].device ? sh[m].device : sh[m].host, c * 4));
            CHECK(!c || memcmp(back, xh + f, c * 4) == 0, "%s: scatter n=%zu member %d", what, n, m);
            free(back);
        }
        gp_group_free_shards(g, sh);
        free(xh);
    }
    printf("  %s: split and scatter: %s\n", what, tc_fail == before ? "ok" : "FAILED");
}

/* Refusals name the argument and write nothing. */
static inline void gc_test_errors(gp_group_t *g, const char *what)
{
    long before = tc_fail;
    gp_reduce_result_t res, poison;
    memset(&poison, 0x5a, sizeof poison);
    res = poison;
    const int k = gp_group_local_count(g);
    size_t counts[64];
    const void *shards[64];
    float buf[16];
    for (int i = 0; i < k; i++) counts[i] = 0, shards[i] = NULL;
    CHECK_ST(gp_group_reduce(NULL, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, counts, shards, &res), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_group_reduce(g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, NULL, shards, &res), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_group_reduce(g, GP_REDUCE_AND, GP_F32, GP_DTYPE_COUNT, counts, shards, &res), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_group_reduce(g, GP_REDUCE_MIN, GP_F32, GP_F64, counts, shards, &res), GP_ERR_UNSUPPORTED);
    counts[0] = 3;
    CHECK_ST(gp_group_reduce(g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, counts, shards, &res), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "shards[0]") != NULL, "names the shard: %s", gp_last_error());
    CHECK(memcmp(&res, &poison, sizeof res) == 0, "%s: a refused reduce wrote its result", what);
    counts[0] = 0;
    OK(gp_group_reduce(g, GP_REDUCE_MAX, GP_I16, GP_DTYPE_COUNT, counts, shards, &res)); /* n = 0: the identity */
    CHECK(res.value.i64 == -32768, "%s: max of nothing is %lld", what, (long long)res.value.i64);
    /* a reducer whose pieces leave a gap, or do not follow one another */
    gp_group_reducer_t *r = NULL;
    OK(gp_group_reducer_create(g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, &r));
    gp_buffer_t d;
    OK(gp_mem_alloc(gp_group_ctx(g, 0), GP_MEM_DEVICE, 2 * 16384 * 4, &d));
    void *p = d.device ? d.device : d.host;
    OK(gp_memset(gp_group_ctx(g, 0), p, 0, 2 * 16384 * 4, NULL));
    OK(gp_stream_sync(gp_group_ctx(g, 0), NULL)); /* the members' streams are not ordered after the legacy one */
    CHECK_ST(gp_group_reducer_push(r, k, 0, 1, p, NULL), GP_ERR_INVALID_ARG);
    OK(gp_group_reducer_push(r, 0, 0, 100, p, NULL));
    CHECK_ST(gp_group_reducer_push(r, 0, 100, 100, p, NULL), GP_ERR_INVALID_ARG); /* 100 is off a tile edge */
    res = poison;
    OK(gp_group_reducer_finish(r, &res)); /* [0, 100) alone is a whole array */
    CHECK(res.value.f32 == 0.0f && res.acc_dtype == GP_F32, "%s: the sum of 100 zeros is %g", what, res.value.f32);
    OK(gp_group_reducer_push(r, 0, 16384, 16384, p, NULL)); /* starts at 16384: nothing before it */
    res = poison;
    CHECK_ST(gp_group_reducer_finish(r, &res), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "start at 0") != NULL, "names the gap: %s", gp_last_error());
    CHECK(memcmp(&res, &poison, sizeof res) == 0, "%s: a refused finish wrote its result", what);
    if (k >= 2) {
        OK(gp_group_reducer_push(r, 0, 0, 16384, p, NULL));
        OK(gp_group_reducer_push(r, 1, 16385, 5, p, NULL)); /* element 16384 is nobody's */
        CHECK_ST(gp_group_reducer_finish(r, &res), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "follow one another") != NULL, "names the gap: %s", gp_last_error());
    }
    gp_group_reducer_destroy(r);
    gp_mem_free(gp_group_ctx(g, 0), &d);
    gp_hist_bins_t bins = {GP_HIST_EVEN, 0, 0, 1, NULL, 0, 0};
    uint32_t hc[8];
    CHECK_ST(gp_group_histogram(g, GP_F32, counts, shards, &bins, GP_U32, hc), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_group_vec(g, (gp_group_vec_op_t)9, GP_F32, counts, 1, shards, shards, (void *const *)shards),
             GP_ERR_INVALID_ARG);
    CHECK_ST(gp_group_split(g, GP_F32, 10, gp_group_size(g), counts, counts + 1), GP_ERR_INVALID_ARG);
    (void)buf;
    printf("  %s: refusals: %s\n", what, tc_fail == before ? "ok" : "FAILED");
}

/* Each member's shard in its own memory (its own GPU for NCCL groups): a copy of its slice of the host array. The
 * group's bits against want_ctx's gp_reduce over the host data (a CPU context: the contract says one GPU gives the
 * same bits), every op of a few dtypes, every layout; the histogram against the same context's counts. */
static inline void gc_test_copies(gp_group_t *g, gp_ctx_t *cpu, const char *what)
{
    long before = tc_fail;
    const int k = gp_group_local_count(g);
    const gp_dtype_t dts[] = {GP_U8, GP_I32, GP_F16, GP_F32, GP_F64};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        const gp_dtype_t dt = dts[d];
        const size_t E = gc_tile(dt), es = gp_dtype_size(dt);
        const size_t sizes[] = {0, 1, 3 * E + E / 2, 11 * E + 5};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const size_t n = sizes[si];
            char *xh = malloc(n * es + 16);
            gc_fill(xh, dt, n);
            for (int layout = 0; layout < GC_NLAYOUTS; layout++) {
                size_t cut[65], counts[64], all[65];
                gc_cuts(g, dt, n, layout, all);
                /* this process's members are ranks rank0 .. rank0 + k - 1 */
                const int r0 = gp_group_rank(g, 0);
                gp_buffer_t b[64];
                const void *shards[64];
                for (int m = 0; m < k; m++) {
                    cut[m] = all[r0 + m];
                    counts[m] = all[r0 + m + 1] - all[r0 + m];
                    OK(gp_mem_alloc(gp_group_ctx(g, m), GP_MEM_DEVICE, counts[m] * es, &b[m]));
                    shards[m] = b[m].device ? b[m].device : b[m].host;
                    if (counts[m]) OK(gp_memcpy_sync(gp_group_ctx(g, m), (void *)shards[m], xh + cut[m] * es, counts[m] * es));
                }
                for (int op = 0; op < GP_REDUCE_OP_COUNT; op++) {
                    if (gp_reduce_acc_dtype((gp_reduce_op_t)op, dt) == GP_DTYPE_COUNT) continue;
                    gp_reduce_result_t want, got;
                    OK(gp_reduce_sync(cpu, (gp_reduce_op_t)op, dt, n, xh, &want));
                    memset(&got, 0xa5, sizeof got);
                    OK(gp_group_reduce(g, (gp_reduce_op_t)op, dt, GP_DTYPE_COUNT, counts, shards, &got));
                    const int ok = rc_same(&got, &want);
                    CHECK(ok, "%s: %s %s n=%zu layout %d: the group's bits differ from one context's", what,
                          gp_reduce_op_name((gp_reduce_op_t)op), gp_dtype_name(dt), n, layout);
                    if (!ok) rc_print("group", &got), rc_print("one  ", &want);
                }
                if (dt == GP_F32 || dt == GP_I32 || dt == GP_U8) {
                    const gp_hist_bins_t bins = {dt == GP_F32 ? GP_HIST_EVEN : GP_HIST_DIRECT, dt == GP_F32 ? 65536 : 200,
                                                 -0.75, 0.75, NULL, 0, 0};
                    const size_t nc = bins.nbins + 3;
                    uint64_t *got = malloc(nc * 8), *want = malloc(nc * 8);
                    memset(want, 0, nc * 8);
                    OK(gp_histogram_accumulate(cpu, dt, n, xh, &bins, GP_U64, want, NULL));
                    memset(got, 0xff, nc * 8);
                    OK(gp_group_histogram(g, dt, counts, shards, &bins, GP_U64, got));
                    CHECK(memcmp(got, want, nc * 8) == 0, "%s: histogram %s n=%zu layout %d", what, gp_dtype_name(dt),
                          n, layout);
                    free(got);
                    free(want);
                }
                for (int m = 0; m < k; m++) gp_mem_free(gp_group_ctx(g, m), &b[m]);
            }
            free(xh);
        }
    }
    printf("  %s: shards copied to each member, 5 dtypes x every op x 5 layouts, histograms: %s\n", what,
           tc_fail == before ? "ok" : "FAILED");
}

/* Each local member's slice [all[r], all[r + 1]) of a host array, copied into the member's own memory. */
typedef struct gc_shards {
    int k;
    gp_buffer_t b[64];
    const void *p[64];
    size_t counts[64], first[64];
} gc_shards_t;
static inline void gc_shards_make(gp_group_t *g, const void *xh, size_t es, const size_t *all, gc_shards_t *s)
{
    s->k = gp_group_local_count(g);
    const int r0 = gp_group_rank(g, 0);
    for (int m = 0; m < s->k; m++) {
        s->first[m] = all[r0 + m];
        s->counts[m] = all[r0 + m + 1] - all[r0 + m];
        OK(gp_mem_alloc(gp_group_ctx(g, m), GP_MEM_DEVICE, s->counts[m] * es, &s->b[m]));
        s->p[m] = s->b[m].device ? s->b[m].device : s->b[m].host;
        if (s->counts[m])
            OK(gp_memcpy_sync(gp_group_ctx(g, m), (void *)s->p[m], (const char *)xh + s->first[m] * es, s->counts[m] * es));
    }
}
static inline void gc_shards_free(gp_group_t *g, gc_shards_t *s)
{
    for (int m = 0; m < s->k; m++) gp_mem_free(gp_group_ctx(g, m), &s->b[m]);
}
/* A context's own copy of host bytes (device memory on a GPU): run, read back, free. */
static inline void *gc_ref_upload(gp_ctx_t *ref, const void *h, size_t bytes, gp_buffer_t *b)
{
    REQUIRE(gp_mem_alloc(ref, GP_MEM_DEVICE, bytes, b) == GP_OK, "alloc %zu", bytes);
    void *p = b->device ? b->device : b->host;
    if (bytes) REQUIRE(gp_memcpy_sync(ref, p, h, bytes) == GP_OK, "upload");
    return p;
}

/* Scan cuts: every rank's shard but the last whole scan tiles (4096 elements). layout 0: the even split, 1: random
 * tile edges (empty shards likely), 2: all on the last rank. */
static inline void gc_scan_cuts(const gp_group_t *g, gp_dtype_t dt, size_t n, int layout, size_t *cut)
{
    const int k = gp_group_size(g);
    const size_t T = n / 4096;
    cut[0] = 0;
    cut[k] = n;
    for (int r = 1; r < k; r++) {
        size_t c = 0, cnt = 0;
        if (layout == 0) gp_group_split(g, dt, n, r, &c, &cnt);
        else if (layout == 1) c = (size_t)(tc_next() % (T + 1)) * 4096;
        cut[r] = c > n ? n : c;
    }
    gc_sort_cuts(cut, k);
}

/* gp_group_scan against ref's gp_scan_acc over the whole array, bit for bit: dtypes, ops and accumulators, inclusive
 * and exclusive, in place, three layouts; a shard off the tile grid is refused, nothing written. */
static inline void gc_test_scan(gp_group_t *g, gp_ctx_t *ref, const char *what)
{
    long before = tc_fail;
    const struct { gp_dtype_t dt; gp_reduce_op_t op; gp_dtype_t acc; } cases[] = {
        {GP_F32, GP_REDUCE_SUM, GP_F32}, {GP_F32, GP_REDUCE_MAX, GP_F32}, {GP_F16, GP_REDUCE_SUM, GP_F16},
        {GP_BF16, GP_REDUCE_SUM, GP_F32}, {GP_I8, GP_REDUCE_SUM, GP_I8}, {GP_I32, GP_REDUCE_XOR, GP_I32},
        {GP_F64, GP_REDUCE_SUM, GP_F64}, {GP_F32, GP_REDUCE_SUM, GP_F64}, {GP_U16, GP_REDUCE_SUM, GP_DTYPE_COUNT},
        {GP_U64, GP_REDUCE_MIN, GP_U64}, {GP_F64, GP_REDUCE_PROD, GP_F64}};
    const size_t sizes[] = {0, 1, 3 * 4096 + 17, 11 * 4096, 37 * 4096 + 4095, 70 * 4096 + 1};
    const int k = gp_group_size(g);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (gc_quick && c % 3) continue;
        const gp_dtype_t dt = cases[c].dt, out = gp_scan_out_dtype(cases[c].op, dt, cases[c].acc);
        REQUIRE(out != GP_DTYPE_COUNT, "scan case %zu", c);
        const size_t es = gp_dtype_size(dt), os = gp_dtype_size(out);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            if (gc_quick && si > 3) continue;
            const size_t n = sizes[si];
            char *xh = malloc(n * es + 16), *want = malloc(n * os + 16), *got = malloc(n * os + 16);
            gc_fill(xh, dt, n);
            if (cases[c].op == GP_REDUCE_PROD) /* products near 1: long chains stay finite */
                for (size_t i = 0; i < n; i++) ((double *)xh)[i] = 1.0 + ((double *)xh)[i] / 64;
            gp_buffer_t rx, ry;
            void *px = gc_ref_upload(ref, xh, n * es, &rx);
            REQUIRE(gp_mem_alloc(ref, GP_MEM_DEVICE, n * os, &ry) == GP_OK, "alloc");
            void *py = ry.device ? ry.device : ry.host;
            for (int kind = 0; kind < 2; kind++) {
                OK(gp_scan_acc(ref, cases[c].op, dt, cases[c].acc, (gp_scan_kind_t)kind, n, px, py, NULL));
                OK(gp_stream_sync(ref, NULL));
                if (n) OK(gp_memcpy_sync(ref, want, py, n * os));
                for (int layout = 0; layout < 3; layout++) {
                    size_t cut[65];
                    gc_scan_cuts(g, dt, n, layout, cut);
                    gc_shards_t xs, ys;
                    gc_shards_make(g, xh, es, cut, &xs);
                    const int inplace = out == dt && layout == 1;
                    if (!inplace) {
                        memset(got, 0x5a, n * os);
                        gc_shards_make(g, got, os, cut, &ys); /* poisoned outputs */
                    }
                    const void *const *yv = inplace ? xs.p : ys.p;
                    OK(gp_group_scan(g, cases[c].op, dt, cases[c].acc, (gp_scan_kind_t)kind, xs.counts, xs.p,
                                     (void *const *)yv));
                    int ok = 1;
                    for (int m = 0; m < xs.k; m++) {
                        if (!xs.counts[m]) continue;
                        OK(gp_memcpy_sync(gp_group_ctx(g, m), got, yv[m], xs.counts[m] * os));
                        if (memcmp(got, want + xs.first[m] * os, xs.counts[m] * os)) ok = 0;
                    }
                    CHECK(ok, "%s: scan %s %s acc %s %s n=%zu layout %d%s over %d ranks: bits differ from one "
                          "context's", what, gp_reduce_op_name(cases[c].op), gp_dtype_name(dt),
                          gp_dtype_name(out), kind ? "exclusive" : "inclusive", n, layout, inplace ? " in place" : "", k);
                    gc_shards_free(g, &xs);
                    if (!inplace) gc_shards_free(g, &ys);
                }
            }
            gp_mem_free(ref, &rx);
            gp_mem_free(ref, &ry);
            free(xh);
            free(want);
            free(got);
        }
    }
    if (k >= 2) { /* rank 0's shard off the tile grid: refused by every rank, nothing written */
        const size_t n = 3 * 4096;
        size_t cut[65];
        for (int r = 0; r <= k; r++) cut[r] = r == 0 ? 0 : r == 1 ? 4095 : n;
        float *xh = malloc(n * 4), *yh = malloc(n * 4);
        tc_fill(xh, n, GP_F32);
        memset(yh, 0x5a, n * 4);
        gc_shards_t xs, ys;
        gc_shards_make(g, xh, 4, cut, &xs);
        gc_shards_make(g, yh, 4, cut, &ys);
        CHECK_ST(gp_group_scan(g, GP_REDUCE_SUM, GP_F32, GP_F32, GP_SCAN_INCLUSIVE, xs.counts, xs.p,
                               (void *const *)ys.p), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "GP_SCAN_GRANULE") != NULL, "names the rule: %s", gp_last_error());
        for (int m = 0; m < ys.k; m++) {
            float *back = malloc(ys.counts[m] * 4 + 4);
            if (ys.counts[m]) OK(gp_memcpy_sync(gp_group_ctx(g, m), back, ys.p[m], ys.counts[m] * 4));
            CHECK(!ys.counts[m] || memcmp(back, yh, ys.counts[m] * 4) == 0, "%s: a refused scan wrote", what);
            free(back);
        }
        CHECK_ST(gp_group_scan(g, GP_REDUCE_SUM, GP_F32, GP_F32, (gp_scan_kind_t)7, xs.counts, xs.p,
                               (void *const *)ys.p), GP_ERR_INVALID_ARG);
        gc_shards_free(g, &xs);
        gc_shards_free(g, &ys);
        free(xh);
        free(yh);
    }
    printf("  %s: scans (%s), inclusive / exclusive, in place, 3 layouts: %s\n", what,
           gc_quick ? "4 cases" : "11 dtype x op x acc cases", tc_fail == before ? "ok" : "FAILED");
}

/* Segment offsets over n elements with every kind of segment: empty, warp-sized, block-sized, exactly one chunk,
 * many chunks; starting after 0 and running past n (clamped). */
static inline size_t gc_seg_offsets(size_t n, int64_t *off, size_t cap)
{
    size_t m = 0;
    int64_t at = (int64_t)(tc_next() % 5);
    off[m++] = at;
    while (at < (int64_t)n + 3 && m < cap) {
        const uint64_t r = tc_next();
        int64_t len;
        switch (r % 8) {
        case 0: len = 0; break;
        case 1: case 2: len = 1 + (int64_t)(r >> 8) % 40; break;
        case 3: len = 2000 + (int64_t)(r >> 8) % 200; break;
        case 4: len = 10000 + (int64_t)(r >> 8) % 6385; break;
        case 5: len = 16384 + (int64_t)(r >> 8) % 2; break;
        default: len = 30000 + (int64_t)(r >> 8) % 60000; break;
        }
        at += len;
        off[m++] = at;
    }
    return m - 1;
}

/* gp_group_reduce_segmented against ref's gp_reduce_segmented over the whole array, bit for bit: ops and dtypes,
 * random cuts (anywhere), the even split, all on the last rank, cuts at chunk edges; decreasing offsets refused. */
static inline void gc_test_segmented(gp_group_t *g, gp_ctx_t *ref, const char *what)
{
    long before = tc_fail;
    const struct { gp_dtype_t dt; gp_reduce_op_t op; } cases[] = {
        {GP_F32, GP_REDUCE_SUM}, {GP_F64, GP_REDUCE_SUM}, {GP_I32, GP_REDUCE_SUM}, {GP_F16, GP_REDUCE_MAX},
        {GP_U8, GP_REDUCE_COUNT_NONZERO}, {GP_I64, GP_REDUCE_XOR}, {GP_BF16, GP_REDUCE_PROD}, {GP_F32, GP_REDUCE_MIN}};
    const int k = gp_group_size(g);
    const size_t sizes[] = {0, 1, 5000, 250000, 600001};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (gc_quick && c % 3) continue;
        const gp_dtype_t dt = cases[c].dt;
        const gp_reduce_op_t op = cases[c].op;
        const size_t es = gp_dtype_size(dt), vb = gp_dtype_size(gp_reduce_acc_dtype(op, dt));
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            if (gc_quick && si > 3) continue;
            const size_t n = sizes[si], cap = n / 2 + 64;
            char *xh = malloc(n * es + 16);
            gc_fill(xh, dt, n);
            if (op == GP_REDUCE_PROD) /* bf16 near 1 */
                for (size_t i = 0; i < n; i++) ((uint16_t *)xh)[i] = (uint16_t)(0x3f80 + (tc_next() % 64) - 32);
            int64_t *off = malloc((cap + 1) * sizeof *off);
            const size_t nseg = gc_seg_offsets(n, off, cap);
            unsigned char *want = malloc(nseg * vb + 8), *got = malloc(nseg * vb + 8);
            gp_buffer_t rx, ro, rw;
            void *px = gc_ref_upload(ref, xh, n * es, &rx), *po = gc_ref_upload(ref, off, (nseg + 1) * 8, &ro);
            REQUIRE(gp_mem_alloc(ref, GP_MEM_DEVICE, nseg * vb, &rw) == GP_OK, "alloc");
            void *pw = rw.device ? rw.device : rw.host;
            OK(gp_reduce_segmented(ref, op, dt, n, px, nseg, po, pw, NULL));
            OK(gp_stream_sync(ref, NULL));
            if (nseg) OK(gp_memcpy_sync(ref, want, pw, nseg * vb));
            for (int layout = 0; layout < 4; layout++) {
                size_t cut[65];
                if (layout < 3) {
                    gc_cuts(g, dt, n, layout == 0 ? 0 : layout == 1 ? 1 : 2, cut);
                } else { /* at chunk edges of the segments (and one element off them) */
                    cut[0] = 0;
                    cut[k] = n;
                    for (int r = 1; r < k; r++) {
                        const size_t s = nseg ? tc_next() % nseg : 0;
                        const size_t e = nseg ? (size_t)off[s] + 16384 * (tc_next() % 3) + (tc_next() % 3) - 1 : 0;
                        cut[r] = e > n ? n : e;
                    }
                    gc_sort_cuts(cut, k);
                }
                gc_shards_t xs;
                gc_shards_make(g, xh, es, cut, &xs);
                memset(got, 0x5a, nseg * vb);
                OK(gp_group_reduce_segmented(g, op, dt, xs.counts, xs.p, nseg, off, got));
                size_t bad = nseg;
                for (size_t s = 0; s < nseg && bad == nseg; s++)
                    if (memcmp(got + s * vb, want + s * vb, vb)) bad = s;
                CHECK(bad == nseg, "%s: segmented %s %s n=%zu nseg=%zu layout %d over %d ranks: segment %zu [%lld, "
                      "%lld) differs from one context's", what, gp_reduce_op_name(op), gp_dtype_name(dt), n, nseg,
                      layout, k, bad, bad < nseg ? (long long)off[bad] : 0LL, bad < nseg ? (long long)off[bad + 1] : 0LL);
                gc_shards_free(g, &xs);
            }
            gp_mem_free(ref, &rx);
            gp_mem_free(ref, &ro);
            gp_mem_free(ref, &rw);
            if (nseg >= 2) { /* decreasing offsets: refused, nothing written */
                const int64_t keep = off[1];
                off[1] = off[0] - 1;
                size_t cut[65];
                gc_cuts(g, dt, n, 0, cut);
                gc_shards_t xs;
                gc_shards_make(g, xh, es, cut, &xs);
                memset(got, 0x5a, nseg * vb);
                CHECK_ST(gp_group_reduce_segmented(g, op, dt, xs.counts, xs.p, nseg, off, got), GP_ERR_INVALID_ARG);
                CHECK(strstr(gp_last_error(), "offsets[1]") != NULL, "names the offset: %s", gp_last_error());
                size_t w = 0;
                for (size_t i = 0; i < nseg * vb; i++) w += got[i] != 0x5a;
                CHECK(w == 0, "%s: a refused segmented reduction wrote %zu bytes", what, w);
                CHECK_ST(gp_group_reduce_segmented(g, GP_REDUCE_ARGMAX, dt, xs.counts, xs.p, nseg, off, got),
                         GP_ERR_UNSUPPORTED);
                gc_shards_free(g, &xs);
                off[1] = keep;
            }
            free(xh);
            free(off);
            free(want);
            free(got);
        }
    }
    printf("  %s: segmented reductions (%s), segments of every length across shard and chunk edges, 4 layouts: %s\n",
           what, gc_quick ? "3 cases" : "8 dtype x op cases", tc_fail == before ? "ok" : "FAILED");
}

/* Keys with ties across shards (a third repeat earlier keys) and, for floats, NaNs of random payload and sign and
 * zeros of either sign: the cases where the order of equal keys shows. */
static inline void gc_fill_sortable(void *x, gp_dtype_t dt, size_t n)
{
    const size_t es = gp_dtype_size(dt);
    gc_fill(x, dt, n);
    const int fl = dt == GP_F16 || dt == GP_BF16 || dt == GP_F32 || dt == GP_F64;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tc_next();
        if (i && r % 3 == 0) memcpy((char *)x + i * es, (char *)x + (size_t)(r >> 8) % i * es, es);
        else if (fl && r % 50 == 1) { /* a NaN: exponent all ones, a mantissa bit set, either sign */
            const int eb = dt == GP_F16 ? 5 : dt == GP_BF16 ? 8 : dt == GP_F32 ? 8 : 11, mb = (int)es * 8 - 1 - eb;
            uint64_t b = ((uint64_t)1 << eb) - 1;
            b = b << mb | ((r >> 16) & (((uint64_t)1 << mb) - 1)) | (uint64_t)1 << (mb - 1);
            b |= (r >> 40 & 1) << (es * 8 - 1);
            memcpy((char *)x + i * es, &b, es);
        } else if (fl && r % 50 == 2) {
            const uint64_t b = (r >> 40 & 1) << (es * 8 - 1);
            memcpy((char *)x + i * es, &b, es);
        }
    }
}

/* gp_group_sort against ref's gp_sort_pairs over the whole array, bit for bit: dtypes, ascending and descending,
 * values of 0, 4 and 16 bytes (each value its element's index, so the order of ties shows), every layout. */
static inline void gc_test_sort(gp_group_t *g, gp_ctx_t *ref, const char *what)
{
    long before = tc_fail;
    const gp_dtype_t dts[] = {GP_F32, GP_U8, GP_I16, GP_F64, GP_U64, GP_F16, GP_I32, GP_BF16};
    const size_t sizes[] = {0, 1, 7, 1000, 65537, 300001}, vbs[] = {0, 4, 16, 1, 8, 2};
    const int k = gp_group_size(g);
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        if (gc_quick && d > 2) continue;
        const gp_dtype_t dt = dts[d];
        const size_t es = gp_dtype_size(dt);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            if (gc_quick && si > 4) continue;
            const size_t n = sizes[si];
            for (int desc = 0; desc < 2; desc++) {
                const size_t vb = vbs[(d + si + (size_t)desc) % 6];
                char *xh = malloc(n * es + 16), *vh = malloc(n * vb + 16), *want = malloc(n * es + 16);
                char *wantv = malloc(n * vb + 16), *got = malloc(n * (es > vb ? es : vb) + 16);
                gc_fill_sortable(xh, dt, n);
                for (size_t i = 0; i < n * vb; i++) vh[i] = (char)((i / vb) >> (8 * (i % vb % 8)));
                gp_buffer_t rx, rv, ry, rw;
                void *px = gc_ref_upload(ref, xh, n * es, &rx), *pv = gc_ref_upload(ref, vh, n * vb, &rv);
                REQUIRE(gp_mem_alloc(ref, GP_MEM_DEVICE, n * es, &ry) == GP_OK && gp_mem_alloc(ref, GP_MEM_DEVICE, n * vb, &rw) == GP_OK, "alloc");
                void *py = ry.device ? ry.device : ry.host, *pw = rw.device ? rw.device : rw.host;
                const gp_sort_opts_t so = {desc, 0, 0};
                if (n) {
                    if (vb) OK(gp_sort_pairs_sync(ref, dt, n, px, py, vb, pv, pw, &so));
                    else OK(gp_sort_sync(ref, dt, n, px, py, &so));
                    OK(gp_memcpy_sync(ref, want, py, n * es));
                    if (vb) OK(gp_memcpy_sync(ref, wantv, pw, n * vb));
                }
                for (int layout = 0; layout < GC_NLAYOUTS; layout++) {
                    if (gc_quick && layout > 1) continue;
                    size_t cut[65];
                    gc_cuts(g, dt, n, layout, cut);
                    gc_shards_t xs, vs, ys, ws;
                    memset(got, 0x5a, n * (es > vb ? es : vb));
                    gc_shards_make(g, xh, es, cut, &xs);
                    gc_shards_make(g, vh, vb, cut, &vs);
                    gc_shards_make(g, got, es, cut, &ys); /* poisoned outputs */
                    gc_shards_make(g, got, vb, cut, &ws);
                    OK(gp_group_sort(g, dt, xs.counts, xs.p, (void *const *)ys.p, vb, vb ? vs.p : NULL,
                                     vb ? (void *const *)ws.p : NULL, desc));
                    int ok = 1, okv = 1;
                    for (int m = 0; m < xs.k; m++) {
                        if (!xs.counts[m]) continue;
                        OK(gp_memcpy_sync(gp_group_ctx(g, m), got, ys.p[m], xs.counts[m] * es));
                        if (memcmp(got, want + xs.first[m] * es, xs.counts[m] * es)) ok = 0;
                        if (!vb) continue;
                        OK(gp_memcpy_sync(gp_group_ctx(g, m), got, ws.p[m], xs.counts[m] * vb));
                        if (memcmp(got, wantv + xs.first[m] * vb, xs.counts[m] * vb)) okv = 0;
                    }
                    CHECK(ok && okv, "%s: group sort %s%s n=%zu values %zu layout %d over %d ranks: %s differ from one "
                          "context's sort", what, gp_dtype_name(dt), desc ? " descending" : "", n, vb, layout, k,
                          ok ? "values" : "keys");
                    gc_shards_free(g, &ys), gc_shards_free(g, &ws);
                    if (vb == 0 || vb == 2) { /* the argsort of the same shards against one context's gp_argsort:
                                                * u32 or u64 by layout */
                        const gp_dtype_t it = layout % 2 ? GP_U32 : GP_U64;
                        const size_t ib = gp_dtype_size(it);
                        char *wanti = malloc(n * ib + 16), *goti = malloc(n * ib + 16);
                        gp_buffer_t ri;
                        REQUIRE(gp_mem_alloc(ref, GP_MEM_DEVICE, n * ib, &ri) == GP_OK, "alloc");
                        if (n) {
                            OK(gp_argsort_sync(ref, dt, n, px, it, ri.device ? ri.device : ri.host, &so));
                            OK(gp_memcpy_sync(ref, wanti, ri.device ? ri.device : ri.host, n * ib));
                        }
                        memset(goti, 0x5a, n * ib);
                        gc_shards_t is;
                        gc_shards_make(g, goti, ib, cut, &is); /* poisoned */
                        OK(gp_group_argsort(g, dt, xs.counts, xs.p, it, (void *const *)is.p, desc));
                        int oki = 1;
                        for (int m = 0; m < xs.k; m++) {
                            if (!xs.counts[m]) continue;
                            OK(gp_memcpy_sync(gp_group_ctx(g, m), goti, is.p[m], xs.counts[m] * ib));
                            if (memcmp(goti, wanti + xs.first[m] * ib, xs.counts[m] * ib)) oki = 0;
                        }
                        CHECK(oki, "%s: group argsort %s%s n=%zu -> %s layout %d over %d ranks differs from one "
                              "context's argsort", what, gp_dtype_name(dt), desc ? " descending" : "", n,
                              gp_dtype_name(it), layout, k);
                        gc_shards_free(g, &is);
                        gp_mem_free(ref, &ri);
                        free(wanti), free(goti);
                    }
                    gc_shards_free(g, &xs), gc_shards_free(g, &vs);
                }
                gp_mem_free(ref, &rx), gp_mem_free(ref, &rv), gp_mem_free(ref, &ry), gp_mem_free(ref, &rw);
                free(xh), free(vh), free(want), free(wantv), free(got);
            }
        }
    }
    /* refusals before any exchange: a bad value size (every rank alike); outputs over the inputs (a member's own
     * check: only where every rank is in this process, as another process's ranks would go on to the exchange) */
    {
        gc_shards_t xs;
        size_t cut[65];
        char xh[64] = {0};
        for (int r = 0; r <= k; r++) cut[r] = (size_t)r * 64 / (size_t)k;
        gc_shards_make(g, xh, 1, cut, &xs);
        if (gp_group_local_count(g) == k)
            CHECK_ST(gp_group_sort(g, GP_U8, xs.counts, xs.p, (void *const *)xs.p, 0, NULL, NULL, 0),
                     GP_ERR_INVALID_ARG);
        CHECK_ST(gp_group_sort(g, GP_U8, xs.counts, xs.p, (void *const *)xs.p, 3, xs.p, (void *const *)xs.p, 0),
                 GP_ERR_INVALID_ARG);
        CHECK_ST(gp_group_sort(NULL, GP_U8, xs.counts, xs.p, (void *const *)xs.p, 0, NULL, NULL, 0), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_group_argsort(g, GP_U8, xs.counts, xs.p, GP_I32, (void *const *)xs.p, 0), GP_ERR_INVALID_ARG);
        CHECK(strstr(gp_last_error(), "index_dtype") != NULL, "argsort names index_dtype: %s", gp_last_error());
        CHECK_ST(gp_group_argsort(g, GP_U8, xs.counts, xs.p, GP_U64, NULL, 0), GP_ERR_INVALID_ARG);
        CHECK_ST(gp_group_sort(g, GP_U8, xs.counts, xs.p, NULL, 0, NULL, NULL, 0), GP_ERR_INVALID_ARG);
        gc_shards_free(g, &xs);
    }
    printf("  %s: sorts and argsorts (%s, ascending and descending, values 0 / 1 / 2 / 4 / 8 / 16 B, %s): %s\n", what,
           gc_quick ? "3 dtypes" : "8 dtypes with NaN payloads, +-0 and ties", gc_quick ? "2 layouts" : "5 layouts",
           tc_fail == before ? "ok" : "FAILED");
}

/* The suite every group runs against a context of its members' kind (views into one array: the members share it). */
static inline void gc_run_suite(gp_group_t *g, gp_ctx_t *ref, const char *what)
{
    gc_test_reduce_all(g, ref, what);
    gc_test_ops(g, ref, what);
    gc_test_split(g, what);
    gc_test_errors(g, what);
    gc_test_scan(g, ref, what);
    gc_test_segmented(g, ref, what);
    gc_test_sort(g, ref, what);
}

#endif
