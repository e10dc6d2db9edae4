/*
 * test_seeds.c — the tests' seeded generators (tests/ *_common.h) over hundreds of seeds: each writes into a buffer
 * of exactly the size its callers allocate (so AddressSanitizer, under make asan, sees a write past it), and what it
 * makes keeps its contract (offsets in order and in range, counts within their capacity). A generator that overflows
 * only for some seeds cannot hide behind the seed a test run happens to draw.
 * Usage: test_seeds (ctest); GP_TEST_SEEDS=N sets the seeds (default 300), GP_TEST_SEED the first.
 */
#define _GNU_SOURCE
#include "bykey_common.h"
#include "group_common.h"
#include "hist_common.h"
#include "ordered_common.h"
#include "scan_common.h"
#include "select_common.h"
#include "sortuop_common.h"

static const size_t k_sizes[] = {0, 1, 2, 3, 31, 33, 64, 100, 1025, 4097, 70001};
static const gp_dtype_t k_all[] = {GP_U8,  GP_I8,  GP_U16, GP_I16, GP_U32,  GP_I32,
                                   GP_U64, GP_I64, GP_F16, GP_BF16, GP_F32, GP_F64};

static void *exact(size_t bytes) { return malloc(bytes ? bytes : 1); }

/* offsets o[0..nseg]: nondecreasing, within [lo, hi] */
static int offsets_ok(const int64_t *o, size_t nseg, int64_t lo, int64_t hi)
{
    for (size_t i = 0; i <= nseg; i++)
        if (o[i] < lo || o[i] > hi || (i && o[i] < o[i - 1])) return 0;
    return 1;
}

static void fills(size_t n)
{
    for (size_t t = 0; t < sizeof k_all / sizeof k_all[0]; t++) {
        const gp_dtype_t dt = k_all[t];
        const size_t es = gp_dtype_size(dt);
        unsigned char *x = exact(n * es);
        tc_fill(x, n, dt);
        for (int mode = M_RANDOM; mode <= M_EQUAL; mode++) sort_fill(x, n, dt, mode);
        sel_fill(x, n, dt);
        sel_fill_runs(x, n, dt);
        su_fill(x, n, dt);
        bykey_fill(x, n, dt, 1 + n % 50);
        gc_fill_sortable(x, dt, n);
        if (dt != GP_F16 && dt != GP_BF16) gc_fill(x, dt, n);
        for (int op = 0; op < GP_REDUCE_OP_COUNT; op++)
            if (gp_reduce_acc_dtype((gp_reduce_op_t)op, dt) != GP_DTYPE_COUNT) rc_fill(x, dt, n, (gp_reduce_op_t)op);
        if (dt == GP_F32 || dt == GP_F64 || dt == GP_I32 || dt == GP_U32 || dt == GP_I64 || dt == GP_U64)
            for (int op = 0; op <= GP_REDUCE_MAX; op++) scan_fill(x, n, dt, (gp_reduce_op_t)op);
        if (dt == GP_U8 || dt == GP_U16 || dt == GP_I32 || dt == GP_U32 || dt == GP_F32 || dt == GP_F64) {
            double e[6] = {-3, -1, 0, 2, 5, 9};
            hc_fill(x, dt, n, 0, 200, 7, NULL, 0);
            hc_fill(x, dt, n, -3, 9, 5, e, (int)(n & 1));
        }
        free(x);
        /* runs of keys and their offsets: n + 1 values, as test_bykey allocates */
        x = exact(n * es);
        bykey_fill(x, n, dt, 1 + n % 7);
        int64_t *off = exact((n + 1) * 8);
        size_t runs = 0;
        bykey_runs(x, n, dt, off, &runs);
        CHECK(runs <= n && offsets_ok(off, runs, 0, (int64_t)n) && off[runs] == (int64_t)n,
              "bykey_runs %s n=%zu: %zu runs", gp_dtype_name(dt), n, runs);
        free(off), free(x);
    }
    for (int op = 0; op < GP_ORDERED_OP_COUNT; op++) {
        static const gp_dtype_t odts[] = {GP_F32, GP_F64, GP_U32};
        for (int t = 0; t < 3; t++) {
            if ((op == GP_ORDERED_AFFINE && odts[t] == GP_U32) || op >= GP_ORDERED_FIRST) continue;
            unsigned char *x = exact(n * gp_ordered_width((gp_ordered_op_t)op) * gp_dtype_size(odts[t]));
            oc_fill(x, (gp_ordered_op_t)op, odts[t], n);
            free(x);
        }
    }
}

static void segments(size_t n)
{
    /* seg_make: n + 2 offsets, as test_segsort and gpu_segsort allocate; short arrays many times a seed (their
     * count of empty segments is what a seed can push too far) */
    for (int rep = 0, reps = n <= 33 ? 200 : 1; rep < reps; rep++)
        for (int mix = 0; mix < SEG_MIXES; mix++) {
            int64_t *o = exact((n + 2) * 8);
            const size_t nseg = seg_make(o, n, mix);
            CHECK(nseg <= n + 1 && offsets_ok(o, nseg, 0, (int64_t)n) && (mix == SEG_ONE || o[nseg] == (int64_t)n),
                  "seg_make mix %d n=%zu: %zu segments", mix, n, nseg);
            free(o);
        }
    /* rc_seg_layout and gc_seg_offsets: cap offsets */
    static const size_t caps[] = {2, 3, 8, 64, 4097};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        const size_t cap = caps[c];
        for (int bad = 0; bad < 2; bad++) {
            int64_t *o = exact(cap * 8);
            const size_t nseg = rc_seg_layout(o, cap, n, bad);
            CHECK(nseg + 1 <= cap && (bad || offsets_ok(o, nseg, 0, (int64_t)n)), "rc_seg_layout cap %zu n=%zu bad %d: "
                  "%zu segments", cap, n, bad, nseg);
            free(o);
        }
        int64_t *o = exact(cap * 8);
        const size_t nseg = gc_seg_offsets(n, o, cap);
        CHECK(nseg + 1 <= cap && offsets_ok(o, nseg, 0, INT64_MAX), "gc_seg_offsets cap %zu n=%zu: %zu segments", cap, n,
              nseg);
        free(o);
    }
}

int main(void)
{
    (void)su_all, (void)sel_reference, (void)sel_runs_reference; /* the headers' checks, not used here */
    tc_seed("test_seeds");
    const char *s = getenv("GP_TEST_SEEDS");
    const long seeds = s && atol(s) > 0 ? atol(s) : 300;
    const uint64_t first = tc_state;
    for (long k = 0; k < seeds; k++) {
        const long before = tc_fail;
        for (size_t i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; i++) {
            tc_state = first + (uint64_t)k * 0x9e3779b97f4a7c15ull;
            if (tc_state == 0) tc_state = 1;
            if (k_sizes[i] <= 4097) fills(k_sizes[i]); /* the fills' writes follow n, not the seed */
            segments(k_sizes[i]);
        }
        if (tc_fail != before)
            fprintf(stderr, "  seed GP_TEST_SEED=0x%016llx failed\n",
                    (unsigned long long)(first + (uint64_t)k * 0x9e3779b97f4a7c15ull));
    }
    printf("  %ld seeds x %zu sizes\n", seeds, sizeof k_sizes / sizeof k_sizes[0]);
    return tc_finish("test_seeds");
}
