/*
 * gpu_graph.c — capture and replay (gp_graph_*): every primitive that can be captured gives, replayed, the same bits as
 * the direct call (outputs poisoned before each run); nothing runs during the capture; a replay after direct calls that
 * grow and overwrite the context's own workspace is still right (the graph's scratch is its own); two launches in a
 * row agree (last-block counters reset); calls that wait, read back or allocate are refused inside a capture and leave
 * it usable; the errors of begin / end. Prints the per-call time of 100 small reductions direct and replayed (a
 * figure, not a check: the benchmark is `gpuprim bench graph`). Exit 77 without a GPU.
 */
#include "common.h"

#include <time.h>

enum { OUT_BYTES = 1 << 22 };

typedef struct bufs {
    gp_buffer_t x, y, z, off, out;  /* inputs (random), a scratch, segment offsets, the output under test */
    size_t n;                       /* elements of x and y (f32) */
    uint8_t *hx8;                   /* u8 view of x's first bytes for the u8 histogram */
} bufs_t;

typedef gp_status_t (*issue_fn)(gp_ctx_t *ctx, const bufs_t *b, gp_stream_t s);

static const double k_edges[] = {-1.0, -0.5, -0.1, 0.0, 0.01, 0.2, 0.7, 1.0};

static gp_matrix_t mat(void *p, size_t rows, size_t cols)
{
    gp_matrix_t m = {p, rows, cols, cols, GP_F32, GP_ROW_MAJOR};
    return m;
}

/* Each case writes its results into b->out (and only there, plus b->z as scratch where named). */
static gp_status_t c_triad(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    return gp_vec_triad(c, GP_F32, 1000003, 0.5, b->x.device, b->y.device, b->out.device, s);
}
static gp_status_t c_dot(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    return gp_vec_dot(c, GP_F32, b->n, b->x.device, b->y.device, b->out.device, s);
}
static gp_status_t c_reduce(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    gp_reduce_result_t *r = b->out.device;
    gp_status_t st = gp_reduce(c, GP_REDUCE_SUM, GP_F32, b->n, b->x.device, r, s);
    if (st == GP_OK) st = gp_reduce(c, GP_REDUCE_ARGMAX, GP_F32, b->n - 5, b->y.device, r + 1, s);
    if (st == GP_OK) st = gp_reduce(c, GP_REDUCE_MIN, GP_F32, 0, b->x.device, r + 2, s); /* the identity */
    if (st == GP_OK) st = gp_reduce_acc(c, GP_REDUCE_SUM, GP_F32, GP_F64, 77777, b->y.device, r + 3, s);
    return st;
}
static gp_status_t c_segmented(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    return gp_reduce_segmented(c, GP_REDUCE_SUM, GP_F32, b->n, b->x.device, 1000, b->off.device, b->out.device, s);
}
static gp_status_t c_ordered(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    gp_status_t st = gp_reduce_ordered(c, GP_ORDERED_MAT2, GP_F32, 250001, b->x.device, b->out.device, s);
    if (st == GP_OK) st = gp_reduce_ordered(c, GP_ORDERED_AFFINE, GP_F32, 0, b->x.device, (char *)b->out.device + 64, s);
    return st;
}
static gp_status_t c_histograms(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    uint64_t *o = b->out.device;
    gp_status_t st = gp_histogram_even(c, GP_F32, b->n, b->x.device, 1000, -1.0, 1.0, GP_U64, o, s);
    /* u8 with bins that are not the values: a slot table uploaded from the host */
    if (st == GP_OK) st = gp_histogram_even(c, GP_U8, b->n, b->x.device, 100, 0.0, 256.0, GP_U64, o + 2048, s);
    /* edges uploaded from the host */
    if (st == GP_OK) st = gp_histogram_range(c, GP_F32, b->n, b->y.device, 7, k_edges, GP_U64, o + 4096, s);
    return st;
}
static gp_status_t c_matrix(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    float *o = b->out.device;
    const gp_matrix_t src = mat(b->x.device, 1000, 777), dst = mat(o, 777, 1000);
    gp_status_t st = gp_matrix_transpose(c, &dst, &src, s);
    /* a split-K GEMM (few tiles, long K: scratch from the workspace) and an odd one */
    const gp_matrix_t a = mat(b->x.device, 64, 8192), bb = mat(b->y.device, 8192, 64), cc = mat(o + 800000, 64, 64);
    if (st == GP_OK) st = gp_gemm(c, GP_OP_N, GP_OP_N, 1.0, &a, &bb, 0.0, &cc, s);
    const gp_matrix_t a2 = mat(b->y.device, 300, 100), b2 = mat(b->x.device, 100, 201), c2 = mat(o + 810000, 300, 201);
    if (st == GP_OK) st = gp_gemm(c, GP_OP_N, GP_OP_N, 0.5, &a2, &b2, 0.0, &c2, s);
    return st;
}
static gp_status_t c_copies(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    char *o = b->out.device;
    gp_status_t st = gp_memcpy(c, o, b->x.device, 100003, s);
    if (st == GP_OK) st = gp_memset(c, o + 100003, 0x5a, 4097, s);
    if (st == GP_OK) st = gp_memcpy_kernel(c, o + 200000, b->y.device, 300001, s);
    return st;
}
/* Several families in one graph, the later reading what the earlier wrote. */
static gp_status_t c_chain(gp_ctx_t *c, const bufs_t *b, gp_stream_t s)
{
    float *o = b->out.device;
    gp_status_t st = gp_vec_triad(c, GP_F32, 500000, -2.0, b->x.device, b->y.device, o, s);
    if (st == GP_OK) st = gp_reduce(c, GP_REDUCE_MAX, GP_F32, 500000, o, (gp_reduce_result_t *)(o + 600000), s);
    if (st == GP_OK) st = gp_histogram_even(c, GP_F32, 500000, o, 333, -3.0, 3.0, GP_U32, o + 600064, s);
    if (st == GP_OK) st = gp_vec_dot(c, GP_F32, 500000, o, b->x.device, o + 601000, s);
    return st;
}

static const struct {
    const char *name;
    issue_fn issue;
} k_cases[] = {
    {"vec_triad", c_triad},       {"vec_dot", c_dot},           {"reduce (sum, argmax, n = 0, f64 acc)", c_reduce},
    {"reduce_segmented", c_segmented}, {"reduce_ordered (mat2, n = 0)", c_ordered},
    {"histograms (even f32, u8 table, range edges)", c_histograms}, {"transpose + gemm (split K, odd)", c_matrix},
    {"memcpy / memset / memcpy_kernel", c_copies}, {"a chain of families", c_chain},
};

/* A direct call that grows the context's workspace and writes over its start (a u8 slot table, then a big
 * reduction's partials): a graph that shared that memory would now read garbage. */
static void clobber_context_workspace(gp_ctx_t *ctx, const bufs_t *b, gp_stream_t s)
{
    OK(gp_histogram_even(ctx, GP_U8, 4096, b->x.device, 37, 3.0, 250.0, GP_U64, b->z.device, s));
    OK(gp_reduce_segmented(ctx, GP_REDUCE_MAX, GP_F32, b->n, b->y.device, 1000, b->off.device, b->z.device, s));
    OK(gp_reduce(ctx, GP_REDUCE_SUM, GP_F32, b->n, b->y.device, b->z.device, s));
    OK(gp_stream_sync(ctx, s));
}

static void test_cases(gp_ctx_t *ctx, const bufs_t *b, gp_stream_t s)
{
    unsigned char *ref = malloc(OUT_BYTES), *got = malloc(OUT_BYTES), *poison = malloc(OUT_BYTES);
    tc_poison(poison, OUT_BYTES);
    for (size_t k = 0; k < sizeof k_cases / sizeof k_cases[0]; k++) {
        const long before = tc_fail;
        /* direct */
        OK(gp_memset(ctx, b->out.device, 0xff, OUT_BYTES, s));
        OK(k_cases[k].issue(ctx, b, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, ref, b->out.device, OUT_BYTES));
        CHECK(memcmp(ref, poison, OUT_BYTES) != 0, "%s: the direct call wrote nothing", k_cases[k].name);
        /* captured: nothing runs until the launch */
        OK(gp_memset(ctx, b->out.device, 0xff, OUT_BYTES, s));
        OK(gp_stream_sync(ctx, s));
        gp_graph_t *g = NULL;
        OK(gp_graph_begin(ctx, s));
        OK(k_cases[k].issue(ctx, b, s));
        OK(gp_graph_end(ctx, &g));
        CHECK(g != NULL, "%s: no graph", k_cases[k].name);
        if (g == NULL) continue;
        OK(gp_memcpy_sync(ctx, got, b->out.device, OUT_BYTES));
        CHECK(memcmp(got, poison, OUT_BYTES) == 0, "%s: the capture ran something", k_cases[k].name);
        /* replay = direct, bit for bit */
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, got, b->out.device, OUT_BYTES));
        CHECK(memcmp(got, ref, OUT_BYTES) == 0, "%s: replay differs from the direct call", k_cases[k].name);
        /* direct calls that grow and overwrite the context's workspace, then two launches in a row */
        clobber_context_workspace(ctx, b, s);
        OK(gp_memset(ctx, b->out.device, 0xff, OUT_BYTES, s));
        OK(gp_graph_launch(g, s));
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, got, b->out.device, OUT_BYTES));
        CHECK(memcmp(got, ref, OUT_BYTES) == 0, "%s: replay after direct calls differs", k_cases[k].name);
        OK(gp_graph_destroy(g));
        printf("  %-48s %s\n", k_cases[k].name, tc_fail == before ? "ok" : "FAILED");
    }
    free(ref), free(got), free(poison);
}

/* Inside a capture every call that waits, reads back or allocates says so, and the capture stays usable. */
static void test_refusals(gp_ctx_t *ctx, const bufs_t *b, gp_stream_t s)
{
    gp_reduce_result_t host_r;
    double host_d;
    char pageable[64];
    gp_buffer_t buf = {0};
    gp_reducer_t *red = NULL;
    gp_timer_t *t = NULL;
    gp_stream_t s2 = NULL;
    OK(gp_timer_create(ctx, &t));
    OK(gp_memset(ctx, b->out.device, 0xff, OUT_BYTES, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_graph_begin(ctx, s));
    CHECK_ST(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, 1000, b->x.device, &host_r), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "gp_reduce_sync") && strstr(gp_last_error(), "capture"), "names the call: %s",
          gp_last_error());
    CHECK_ST(gp_vec_dot_sync(ctx, GP_F32, 1000, b->x.device, b->y.device, &host_d), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reduce_ordered_sync(ctx, GP_ORDERED_MAT2, GP_F32, 1000, b->x.device, pageable), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_stream_sync(ctx, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_memcpy_sync(ctx, pageable, b->x.device, 64), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_memcpy(ctx, b->out.device, pageable, 64, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_memset(ctx, pageable, 0, 64, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_mem_alloc(ctx, GP_MEM_DEVICE, 1024, &buf), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_reducer_create(ctx, GP_REDUCE_SUM, GP_F32, &red), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_timer_start(t, s), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_stream_create(ctx, &s2), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_graph_begin(ctx, s), GP_ERR_INVALID_ARG); /* already capturing */
    /* the capture is intact: a call after the refusals is recorded and replays right */
    OK(gp_reduce(ctx, GP_REDUCE_SUM, GP_F32, b->n, b->x.device, b->out.device, s));
    gp_graph_t *g = NULL;
    OK(gp_graph_end(ctx, &g));
    CHECK(g != NULL, "a graph after refusals");
    gp_reduce_result_t want, got;
    OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, b->n, b->x.device, &want));
    if (g) {
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        OK(gp_memcpy_sync(ctx, &got, b->out.device, sizeof got));
        CHECK(memcmp(&got.value, &want.value, sizeof want.value) == 0, "replay after refusals: %g vs %g",
              (double)got.value.f32, (double)want.value.f32);
    }
    OK(gp_graph_destroy(g));
    OK(gp_timer_destroy(t));
    /* errors of begin / end / launch */
    CHECK_ST(gp_graph_begin(ctx, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_graph_end(ctx, &g), GP_ERR_INVALID_ARG);
    CHECK(g == NULL, "no graph from an end without a begin");
    CHECK_ST(gp_graph_end(ctx, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_graph_launch(NULL, s), GP_ERR_INVALID_ARG);
    OK(gp_graph_destroy(NULL));
    /* a capture abandoned by destroying its context releases everything (no error, no leak under the sanitizer) */
    gp_ctx_t *c2 = NULL;
    gp_stream_t s3 = NULL;
    OK(gp_ctx_create(&c2, gp_ctx_device(ctx)));
    OK(gp_stream_create(c2, &s3));
    OK(gp_graph_begin(c2, s3));
    OK(gp_reduce(c2, GP_REDUCE_SUM, GP_F32, 1000, b->x.device, b->z.device, s3));
    OK(gp_ctx_destroy(c2));
    printf("  %-48s %s\n", "refusals and errors", "done");
}

/* The persisting-L2 window: a hot buffer kept for one stream changes no result; its errors. */
static void test_persisting_l2(gp_ctx_t *ctx, const bufs_t *b, gp_stream_t s)
{
    gp_device_info_t info;
    OK(gp_device_info(gp_ctx_device(ctx), &info));
    gp_reduce_result_t want, got;
    OK(gp_reduce_sync(ctx, GP_REDUCE_SUM, GP_F32, b->n, b->x.device, &want));
    const gp_status_t st = gp_ctx_set_persisting_l2(ctx, b->x.device, (size_t)4 << 20, 1.0, s);
    if (info.persisting_l2_max_bytes <= 0) {
        CHECK(st == GP_ERR_UNSUPPORTED, "no persisting L2 on this device: %s", gp_status_string(st));
        return;
    }
    OK(st);
    for (int k = 0; k < 3; k++) OK(gp_reduce(ctx, GP_REDUCE_SUM, GP_F32, b->n, b->x.device, b->out.device, s));
    OK(gp_stream_sync(ctx, s));
    OK(gp_memcpy_sync(ctx, &got, b->out.device, sizeof got));
    CHECK(memcmp(&got.value, &want.value, sizeof want.value) == 0, "sum with a persisting window");
    /* larger than the set-aside: allowed (the hit ratio is lowered) */
    OK(gp_ctx_set_persisting_l2(ctx, b->y.device, b->n * 4, 1.0, s));
    CHECK_ST(gp_ctx_set_persisting_l2(ctx, b->x.device, 4096, 1.0, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_ctx_set_persisting_l2(ctx, b->x.device, 4096, -0.1, s), GP_ERR_INVALID_ARG);
    gp_graph_t *g = NULL;
    OK(gp_graph_begin(ctx, s));
    CHECK_ST(gp_ctx_set_persisting_l2(ctx, b->x.device, 4096, 1.0, s), GP_ERR_UNSUPPORTED);
    OK(gp_graph_end(ctx, &g));
    OK(gp_graph_destroy(g));
    OK(gp_ctx_set_persisting_l2(ctx, NULL, 0, 0.0, s)); /* cleared */
    printf("  %-48s %s (set-aside up to %d bytes)\n", "persisting L2 window", "done", info.persisting_l2_max_bytes);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 100 reductions of 4096 elements, issued directly and replayed from one graph: wall time per call (printed). */
static void print_small_reductions(gp_ctx_t *ctx, const bufs_t *b, gp_stream_t s)
{
    gp_reduce_result_t *r = b->out.device;
    gp_graph_t *g = NULL;
    OK(gp_graph_begin(ctx, s));
    for (int i = 0; i < 100; i++) OK(gp_reduce(ctx, GP_REDUCE_SUM, GP_F32, 4096, (float *)b->x.device + 4096 * i, r + i, s));
    OK(gp_graph_end(ctx, &g));
    if (g == NULL) return;
    double best_d = 1e9, best_g = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        OK(gp_stream_sync(ctx, s));
        double t0 = now_s();
        for (int i = 0; i < 100; i++) gp_reduce(ctx, GP_REDUCE_SUM, GP_F32, 4096, (float *)b->x.device + 4096 * i, r + i, s);
        OK(gp_stream_sync(ctx, s));
        double t1 = now_s();
        OK(gp_graph_launch(g, s));
        OK(gp_stream_sync(ctx, s));
        double t2 = now_s();
        best_d = t1 - t0 < best_d ? t1 - t0 : best_d;
        best_g = t2 - t1 < best_g ? t2 - t1 : best_g;
    }
    printf("  100 x gp_reduce(n = 4096): direct %.2f us per call, graph %.2f us per call (%.2fx)\n", best_d * 1e4,
           best_g * 1e4, best_g > 0 ? best_d / best_g : 0.0);
    OK(gp_graph_destroy(g));
}

int main(void)
{
    tc_require_gpu("gpu_graph");
    tc_seed("gpu_graph");
    gp_ctx_t *ctx = NULL;
    REQUIRE(gp_ctx_create(&ctx, 0) == GP_OK, "GPU context");
    gp_stream_t s = NULL;
    OK(gp_stream_create(ctx, &s));
    bufs_t b;
    memset(&b, 0, sizeof b);
    b.n = (size_t)3 << 20;
    float *hx = malloc(b.n * 4), *hy = malloc(b.n * 4);
    int64_t off[1001];
    tc_fill(hx, b.n, GP_F32);
    tc_fill(hy, b.n, GP_F32);
    for (int i = 0; i <= 1000; i++) off[i] = i == 1000 ? (int64_t)b.n : (int64_t)(tc_next() % b.n);
    for (int i = 1; i < 1000; i++) /* sorted, with some empty segments */
        for (int j = i; j > 0 && off[j - 1] > off[j]; j--) {
            int64_t t = off[j];
            off[j] = off[j - 1], off[j - 1] = t;
        }
    off[0] = 0;
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, b.n * 4, &b.x) == GP_OK, "x");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, b.n * 4, &b.y) == GP_OK, "y");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, (size_t)1 << 20, &b.z) == GP_OK, "z");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, sizeof off, &b.off) == GP_OK, "offsets");
    REQUIRE(gp_mem_alloc(ctx, GP_MEM_DEVICE, OUT_BYTES, &b.out) == GP_OK, "out");
    OK(gp_memcpy_sync(ctx, b.x.device, hx, b.n * 4));
    OK(gp_memcpy_sync(ctx, b.y.device, hy, b.n * 4));
    OK(gp_memcpy_sync(ctx, b.off.device, off, sizeof off));
    test_cases(ctx, &b, s);
    test_refusals(ctx, &b, s);
    test_persisting_l2(ctx, &b, s);
    print_small_reductions(ctx, &b, s);
    gp_mem_free(ctx, &b.x), gp_mem_free(ctx, &b.y), gp_mem_free(ctx, &b.z), gp_mem_free(ctx, &b.off);
    gp_mem_free(ctx, &b.out);
    OK(gp_stream_destroy(ctx, s));
    OK(gp_ctx_destroy(ctx));
    free(hx), free(hy);
    return tc_finish("gpu_graph");
}
