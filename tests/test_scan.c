/*
 * test_scan.c — the scan's CPU reference (src/scan, docs/design/scan.md): integer scans equal a plain left fold exactly
 * (every op is associative there); float min / max equal it exactly too (first NaN, left on ties); float sums and
 * products are within a rounding bound of a long double prefix, and equal, bit for bit, an independent
 * re-implementation of the documented association order; serial = parallel, in place = out of place, exclusive =
 * the shifted inclusive, and a scan resumed from the carry of whole tiles = one pass. Sizes cross the tile edges.
 */
#include "scan_common.h"

#include "scan/scan_internal.h"

#include <float.h>
#include <time.h>

static const size_t k_sizes[] = {0, 1, 2, 15, 16, 17, 31, 4095, 4096, 4097, 3 * 4096 + 17, (1u << 20) + 3,
                                 (4u << 20) + 5}; /* the last crosses the CPU backend's parallel threshold (16 MiB) */
static const gp_dtype_t k_types[] = {GP_F32, GP_F64, GP_I32, GP_U32, GP_I64, GP_U64};
static const gp_reduce_op_t k_ops[] = {GP_REDUCE_SUM, GP_REDUCE_PROD, GP_REDUCE_MIN, GP_REDUCE_MAX,
                                       GP_REDUCE_AND,  GP_REDUCE_OR,   GP_REDUCE_XOR};

/* Element i of an array as unsigned bits / as long double. */
static uint64_t ubits(const void *p, gp_dtype_t dt, size_t i)
{
    if (dt == GP_I32 || dt == GP_U32 || dt == GP_F32) return ((const uint32_t *)p)[i];
    return ((const uint64_t *)p)[i];
}
static long double fval(const void *p, gp_dtype_t dt, size_t i)
{
    return dt == GP_F32 ? (long double)((const float *)p)[i] : (long double)((const double *)p)[i];
}

/* The plain left fold, for the ops that are exact in any order. */
static uint64_t fold_int(gp_reduce_op_t op, gp_dtype_t dt, uint64_t a, uint64_t b)
{
    const int s = dt == GP_I32 || dt == GP_I64, w32 = dt == GP_I32 || dt == GP_U32;
    uint64_t r = 0;
    switch (op) {
    case GP_REDUCE_SUM: r = a + b; break;
    case GP_REDUCE_PROD: r = a * b; break;
    case GP_REDUCE_AND: r = a & b; break;
    case GP_REDUCE_OR: r = a | b; break;
    case GP_REDUCE_XOR: r = a ^ b; break;
    default: {
        int less;
        if (w32) less = s ? (int32_t)b < (int32_t)a : (uint32_t)b < (uint32_t)a;
        else less = s ? (int64_t)b < (int64_t)a : b < a;
        const int take_b = op == GP_REDUCE_MIN ? less : (!less && a != b);
        r = take_b ? b : a;
    }
    }
    return w32 ? (uint32_t)r : r;
}
static double fold_fminmax(gp_reduce_op_t op, double a, double b)
{
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    return op == GP_REDUCE_MIN ? (b < a ? b : a) : (b > a ? b : a);
}

/* The documented order, written out independently (Kogge-Stone by whole steps), for f32 sums. */
static void spec_sum_f32(const float *x, size_t n, float *y)
{
    float carry = -0.0f;
    for (size_t t0 = 0; t0 < n; t0 += 4096) {
        float L[4096], R[256], S[256], T[256], G[8], H[8];
        for (int i = 0; i < 256; i++) {
            float acc = 0;
            for (int k = 0; k < 16; k++) {
                const size_t j = t0 + (size_t)i * 16 + (size_t)k;
                const float v = j < n ? x[j] : -0.0f;
                acc = k ? acc + v : v;
                L[i * 16 + k] = acc;
            }
            R[i] = acc;
        }
        memcpy(S, R, sizeof S);
        for (int d = 1; d < 32; d *= 2) {
            memcpy(T, S, sizeof T);
            for (int i = 0; i < 256; i++)
                if (i % 32 >= d) S[i] = T[i - d] + T[i];
        }
        for (int g = 0; g < 8; g++) G[g] = S[g * 32 + 31];
        for (int d = 1; d < 8; d *= 2) {
            memcpy(H, G, sizeof H);
            for (int g = d; g < 8; g++) G[g] = H[g - d] + H[g];
        }
        for (int i = 1; i < 256; i++) {
            const int g = i / 32, l = i % 32;
            const float E = g && l ? G[g - 1] + S[i - 1] : g ? G[g - 1] : S[i - 1];
            for (int k = 0; k < 16; k++) L[i * 16 + k] = E + L[i * 16 + k];
        }
        const size_t m = n - t0 < 4096 ? n - t0 : 4096;
        for (size_t j = 0; j < m; j++) y[t0 + j] = carry + L[j];
        carry = carry + L[m - 1];
    }
}

static void test_pair(gp_reduce_op_t op, gp_dtype_t dt)
{
    const size_t es = gp_dtype_size(dt);
    const size_t maxn = k_sizes[sizeof k_sizes / sizeof k_sizes[0] - 1];
    unsigned char *x = malloc(maxn * es + 8), *a = malloc(maxn * es + 8), *b = malloc(maxn * es + 8),
                  *e = malloc(maxn * es + 8), *ip = malloc(maxn * es + 8);
    const int is_float = dt == GP_F32 || dt == GP_F64;
    for (size_t si = 0; si < sizeof k_sizes / sizeof k_sizes[0]; si++) {
        const size_t n = k_sizes[si];
        scan_fill(x, n, dt, op);
        tc_poison(a, maxn * es), tc_poison(b, maxn * es), tc_poison(e, maxn * es);
        OK(gp__scan_cpu(op, dt, n, x, a, 0, NULL, NULL, 0));
        OK(gp__scan_cpu(op, dt, n, x, b, 0, NULL, NULL, 1));
        CHECK(memcmp(a, b, n * es) == 0, "%s %s n=%zu: parallel differs from serial", gp_reduce_op_name(op),
              gp_dtype_name(dt), n);
        /* the exact ops' sequential pass = the tiles' tree, bit for bit (NaN payloads too: both select an operand) */
        gp__scan_cpu_tiles_only = 1;
        OK(gp__scan_cpu(op, dt, n, x, b, 0, NULL, NULL, 1));
        gp__scan_cpu_tiles_only = 0;
        CHECK(memcmp(a, b, n * es) == 0, "%s %s n=%zu: differs from the tiles' order", gp_reduce_op_name(op),
              gp_dtype_name(dt), n);
        /* exclusive: the identity, then the shifted inclusive */
        OK(gp__scan_cpu(op, dt, n, x, e, 1, NULL, NULL, 1));
        CHECK(n == 0 || memcmp(e + es, a, (n - 1) * es) == 0, "%s %s n=%zu: exclusive is not the shifted inclusive",
              gp_reduce_op_name(op), gp_dtype_name(dt), n);
        /* in place */
        memcpy(ip, x, n * es);
        OK(gp__scan_cpu(op, dt, n, ip, ip, 0, NULL, NULL, 1));
        CHECK(memcmp(ip, a, n * es) == 0, "%s %s n=%zu: in place differs", gp_reduce_op_name(op), gp_dtype_name(dt), n);
        /* resumed from the carry of whole tiles: pieces of 2 tiles, then the rest */
        if (n > 2 * 4096) {
            unsigned char carry[8];
            OK(gp__scan_cpu(op, dt, 2 * 4096, x, b, 0, NULL, carry, 0));
            OK(gp__scan_cpu(op, dt, n - 2 * 4096, x + 2 * 4096 * es, b + 2 * 4096 * es, 0, carry, NULL, 1));
            CHECK(memcmp(a, b, n * es) == 0, "%s %s n=%zu: resumed differs from one pass", gp_reduce_op_name(op),
                  gp_dtype_name(dt), n);
            OK(gp__scan_cpu(op, dt, n - 2 * 4096, x + 2 * 4096 * es, b, 1, carry, NULL, 0));
            CHECK(memcmp(b, a + (2 * 4096 - 1) * es, es) == 0, "%s %s: a resumed exclusive starts at the carry",
                  gp_reduce_op_name(op), gp_dtype_name(dt));
        }
        /* against a left fold */
        size_t bad = 0;
        if (!is_float) {
            uint64_t acc = 0;
            for (size_t i = 0; i < n; i++) {
                acc = i ? fold_int(op, dt, acc, ubits(x, dt, i)) : ubits(x, dt, i);
                bad += acc != ubits(a, dt, i);
            }
        } else if (op == GP_REDUCE_MIN || op == GP_REDUCE_MAX) {
            double acc = 0;
            for (size_t i = 0; i < n; i++) {
                const double v = (double)fval(x, dt, i), got = (double)fval(a, dt, i);
                acc = i ? fold_fminmax(op, acc, v) : v;
                bad += !(isnan(acc) ? isnan(got) : acc == got && signbit(acc) == signbit(got));
            }
        } else {
            long double acc = 0, mag = 0;
            const double eps = dt == GP_F32 ? FLT_EPSILON : DBL_EPSILON;
            for (size_t i = 0; i < n; i++) {
                const long double v = fval(x, dt, i);
                acc = i ? (op == GP_REDUCE_SUM ? acc + v : acc * v) : v;
                mag = op == GP_REDUCE_SUM ? mag + fabsl(v) : fabsl(acc);
                const double tol = (op == GP_REDUCE_SUM ? 64.0 : 2.0 * (double)(i + 1)) * eps * (double)mag + 1e-300;
                bad += !(fabs((double)(fval(a, dt, i) - acc)) <= tol);
            }
        }
        CHECK(bad == 0, "%s %s n=%zu: %zu values off the left fold", gp_reduce_op_name(op), gp_dtype_name(dt), n, bad);
        if (op == GP_REDUCE_SUM && dt == GP_F32) {
            spec_sum_f32((const float *)x, n, (float *)b);
            CHECK(memcmp(a, b, n * es) == 0, "sum f32 n=%zu: differs from the documented order", n);
        }
    }
    free(x), free(a), free(b), free(e), free(ip);
}

/* gp_scanner on the CPU backend: pieces of whole tiles (one empty), then a partial last piece, give one pass's bits,
 * inclusive and exclusive; the total; the refusals; reset. */
static void test_scanner(gp_ctx_t *ctx)
{
    const size_t n = 5 * GP_SCAN_GRANULE + 77, pieces[] = {GP_SCAN_GRANULE, 2 * GP_SCAN_GRANULE, 0, GP_SCAN_GRANULE,
                                                            GP_SCAN_GRANULE + 77};
    unsigned char *x = malloc(n * 8), *a = malloc(n * 8), *b = malloc(n * 8), *inc = malloc(n * 8);
    for (size_t pi = 0; pi < SCANNER_PAIRS; pi++) {
        const gp_dtype_t dt = k_scanner_pairs[pi].dt;
        const gp_reduce_op_t op = k_scanner_pairs[pi].op;
        const size_t es = gp_dtype_size(dt);
        scan_fill(x, n, dt, op);
        OK(gp_scan(ctx, op, dt, GP_SCAN_INCLUSIVE, n, x, inc, NULL));
        for (int kind = 0; kind < 2; kind++) {
            OK(gp_scan(ctx, op, dt, (gp_scan_kind_t)kind, n, x, a, NULL));
            gp_scanner_t *sc = NULL;
            OK(gp_scanner_create(ctx, op, dt, (gp_scan_kind_t)kind, &sc));
            tc_poison(b, n * es);
            size_t off = 0;
            for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
                OK(gp_scanner_push(sc, pieces[k], x + off * es, b + off * es, NULL));
                off += pieces[k];
            }
            CHECK(off == n && gp_scanner_count(sc) == n, "the pieces cover the array");
            CHECK(memcmp(a, b, n * es) == 0, "scanner %s %s kind %d: pieces differ from one pass",
                  gp_reduce_op_name(op), gp_dtype_name(dt), kind);
            unsigned char tot[8];
            OK(gp_scanner_total_sync(sc, tot));
            CHECK(memcmp(tot, inc + (n - 1) * es, es) == 0, "scanner %s %s kind %d: total is not the last "
                  "inclusive value", gp_reduce_op_name(op), gp_dtype_name(dt), kind);
            /* the array ended with a partial piece: another push is refused, naming the granule */
            CHECK_ST(gp_scanner_push(sc, 1, x, b, NULL), GP_ERR_INVALID_ARG);
            CHECK(strstr(gp_last_error(), "GP_SCAN_GRANULE") != NULL, "names the granule: %s", gp_last_error());
            /* reset: a new array, here in place */
            gp_scanner_reset(sc);
            memcpy(b, x, n * es);
            OK(gp_scanner_push(sc, 3 * GP_SCAN_GRANULE, b, b, NULL));
            OK(gp_scanner_push(sc, n - 3 * GP_SCAN_GRANULE, b + 3 * GP_SCAN_GRANULE * es,
                               b + 3 * GP_SCAN_GRANULE * es, NULL));
            CHECK(memcmp(a, b, n * es) == 0, "scanner %s %s kind %d: after reset, in place, differs",
                  gp_reduce_op_name(op), gp_dtype_name(dt), kind);
            gp_scanner_destroy(sc);
        }
    }
    gp_scanner_t *sc = NULL;
    float f = -1;
    OK(gp_scanner_create(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, &sc));
    OK(gp_scanner_total_sync(sc, &f));
    CHECK(f == 0.0f && !signbit(f), "an empty sum's total is +0: %g", (double)f);
    CHECK_ST(gp_scanner_push(sc, 8, (char *)x + 1, b, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scanner_push(sc, 8, NULL, b, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scanner_total_sync(sc, NULL), GP_ERR_INVALID_ARG);
    gp_scanner_destroy(sc);
    OK(gp_scanner_create(ctx, GP_REDUCE_MIN, GP_F64, GP_SCAN_EXCLUSIVE, &sc));
    double d = 0;
    OK(gp_scanner_total_sync(sc, &d));
    CHECK(isinf(d) && d > 0, "an empty min's total is +inf: %g", d);
    gp_scanner_destroy(sc);
    CHECK_ST(gp_scanner_create(ctx, GP_REDUCE_AND, GP_F32, GP_SCAN_INCLUSIVE, &sc), GP_ERR_UNSUPPORTED);
    CHECK(sc == NULL, "a refused create leaves NULL");
    CHECK_ST(gp_scanner_create(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, NULL), GP_ERR_INVALID_ARG);
    gp_scanner_destroy(NULL);
    free(x), free(a), free(b), free(inc);
}

/* gp_scanner_transfer between two CPU contexts mid-array (the CLI's head start, CPU to CPU on a machine with no GPU):
 * one pass's bits, every pair and kind, with the hand-over after 0, 1 and 3 tiles; the refusals. And a context opened
 * in the background (gp_ctx_open_*), taken and abandoned. */
static void test_scanner_transfer(gp_ctx_t *ctx)
{
    gp_ctx_t *other = NULL;
    OK(gp_ctx_create(&other, GP_DEVICE_CPU));
    const size_t n = 4 * GP_SCAN_GRANULE + 99, splits[] = {0, GP_SCAN_GRANULE, 3 * GP_SCAN_GRANULE};
    unsigned char *x = malloc(n * 8), *a = malloc(n * 8), *b = malloc(n * 8);
    for (size_t pi = 0; pi < SCANNER_PAIRS; pi++) {
        const gp_dtype_t dt = k_scanner_pairs[pi].dt;
        const gp_reduce_op_t op = k_scanner_pairs[pi].op;
        const size_t es = gp_dtype_size(dt);
        scan_fill(x, n, dt, op);
        for (int kind = 0; kind < 2; kind++)
            for (size_t si = 0; si < sizeof splits / sizeof splits[0]; si++) {
                const size_t h = splits[si];
                OK(gp_scan(ctx, op, dt, (gp_scan_kind_t)kind, n, x, a, NULL));
                gp_scanner_t *s1 = NULL, *s2 = NULL;
                OK(gp_scanner_create(ctx, op, dt, (gp_scan_kind_t)kind, &s1));
                OK(gp_scanner_create(other, op, dt, (gp_scan_kind_t)kind, &s2));
                tc_poison(b, n * es);
                OK(gp_scanner_push(s1, h, x, b, NULL));
                OK(gp_scanner_transfer(s2, s1));
                CHECK(gp_scanner_count(s1) == 0 && gp_scanner_count(s2) == h, "the transfer moves the count");
                OK(gp_scanner_push(s2, n - h, x + h * es, b + h * es, NULL));
                CHECK(memcmp(a, b, n * es) == 0, "transfer %s %s kind %d after %zu: differs from one pass",
                      gp_reduce_op_name(op), gp_dtype_name(dt), kind, h);
                CHECK_ST(gp_scanner_transfer(s2, s1), GP_ERR_INVALID_ARG); /* dst has begun */
                gp_scanner_destroy(s1), gp_scanner_destroy(s2);
            }
    }
    gp_scanner_t *p = NULL, *q = NULL;
    OK(gp_scanner_create(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, &p));
    OK(gp_scanner_create(ctx, GP_REDUCE_MAX, GP_F32, GP_SCAN_INCLUSIVE, &q));
    CHECK_ST(gp_scanner_transfer(q, p), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "differ") != NULL, "names the difference: %s", gp_last_error());
    CHECK_ST(gp_scanner_transfer(p, p), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scanner_transfer(NULL, p), GP_ERR_INVALID_ARG);
    gp_scanner_destroy(p), gp_scanner_destroy(q);
    free(x), free(a), free(b);
    OK(gp_ctx_destroy(other));

    gp_ctx_opening_t *o = NULL;
    gp_ctx_t *c = NULL;
    OK(gp_ctx_open_start(GP_DEVICE_CPU, &o));
    OK(gp_ctx_open_finish(o, &c));
    CHECK(c != NULL && gp_ctx_device(c) == GP_DEVICE_CPU, "a CPU context opened in the background");
    OK(gp_ctx_destroy(c));
    OK(gp_ctx_open_start(GP_DEVICE_DEFAULT, &o)); /* GPU 0, else the CPU backend: either way a context */
    OK(gp_ctx_open_finish(o, &c));
    CHECK(c != NULL, "the default device opened in the background");
    OK(gp_ctx_destroy(c));
    OK(gp_ctx_open_start(GP_DEVICE_CPU, &o));
    OK(gp_ctx_open_abandon(o)); /* the thread destroys what it makes */
    for (int k = 0; k < 2000 && gp_ctx_opens_pending(); k++) {
        const struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK(gp_ctx_opens_pending() == 0, "an abandoned opening finishes on its own");
    CHECK_ST(gp_ctx_open_start(-7, &o), GP_ERR_INVALID_ARG);
    CHECK(o == NULL, "a refused start leaves NULL");
    CHECK_ST(gp_ctx_open_start(GP_DEVICE_CPU, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_ctx_open_finish(NULL, &c), GP_ERR_INVALID_ARG);
    CHECK(gp_ctx_open_ready(NULL) && gp_ctx_open_stop(NULL), "no opening is ready");
    OK(gp_ctx_open_abandon(NULL));
}

/* Segmented scans on the CPU backend: every op x dtype, head patterns (none, sparse, dense, all), sizes across the
 * run and tile edges. Each segment against its own left fold (exact for the integer ops and float min / max; float sums
 * and products within a rounding bound); exclusive = the first value at heads, else the inclusive value before;
 * offsets = the same heads; in place; no heads on a 4-byte type = gp_scan's bits (the same tree). */
static void test_segmented(gp_ctx_t *ctx)
{
    static const size_t sizes[] = {1, 2, 17, 2047, 2048, 2049, 4095, 4096, 4097, 3 * 4096 + 5, 70001};
    const size_t maxn = 70001;
    unsigned char *x = malloc(maxn * 8), *y = malloc(maxn * 8), *ye = malloc(maxn * 8), *yo = malloc(maxn * 8),
                  *yp = malloc(maxn * 8), *h = malloc(maxn);
    int64_t *off = malloc((maxn + 2) * sizeof *off);
    for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; t++)
        for (size_t o = 0; o < sizeof k_ops / sizeof k_ops[0]; o++) {
            const gp_dtype_t dt = k_types[t];
            const gp_reduce_op_t op = k_ops[o];
            if (!gp__scan_supported(op, dt)) continue;
            const size_t es = gp_dtype_size(dt);
            const int isf = dt == GP_F32 || dt == GP_F64;
            const long before = tc_fail;
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (int pat = 0; pat < 4; pat++) { /* none, 1 in 300, 1 in 2, all */
                    const size_t n = sizes[si];
                    scan_fill(x, n, dt, op);
                    size_t nseg = 0;
                    off[0] = 0;
                    for (size_t i = 0; i < n; i++) {
                        h[i] = pat == 3 || (pat == 1 && tc_next() % 300 == 0) || (pat == 2 && (tc_next() & 1));
                        if (h[i] && i) off[++nseg] = (int64_t)i;
                    }
                    off[++nseg] = (int64_t)n;
                    tc_poison(y, n * es), tc_poison(ye, n * es), tc_poison(yo, n * es);
                    OK(gp_scan_heads(ctx, op, dt, GP_SCAN_INCLUSIVE, n, x, h, y, NULL));
                    OK(gp_scan_heads(ctx, op, dt, GP_SCAN_EXCLUSIVE, n, x, h, ye, NULL));
                    OK(gp_scan_segmented(ctx, op, dt, GP_SCAN_INCLUSIVE, n, x, nseg, off, yo, NULL));
                    /* (offsets mark 0 and each head; element 0 starts a segment either way) */
                    CHECK(memcmp(y, yo, n * es) == 0, "%s %s n=%zu pattern %d: offsets != heads", gp_reduce_op_name(op),
                          gp_dtype_name(dt), n, pat);
                    size_t bad = 0, badx = 0, first = 0;
                    uint64_t acc = 0;
                    long double accf = 0, mag = 0;
                    double accm = 0;
                    for (size_t i = 0; i < n; i++) {
                        const int head = i == 0 || h[i];
                        if (!isf) acc = head ? ubits(x, dt, i) : fold_int(op, dt, acc, ubits(x, dt, i));
                        else if (op == GP_REDUCE_MIN || op == GP_REDUCE_MAX)
                            accm = head ? (double)fval(x, dt, i) : fold_fminmax(op, accm, (double)fval(x, dt, i));
                        else {
                            const long double v = fval(x, dt, i);
                            accf = head ? v : op == GP_REDUCE_SUM ? accf + v : accf * v;
                            mag = head ? fabsl(v) : mag + fabsl(v);
                        }
                        int okv;
                        if (!isf) okv = ubits(y, dt, i) == acc;
                        else if (op == GP_REDUCE_MIN || op == GP_REDUCE_MAX) {
                            const double g = (double)fval(y, dt, i);
                            okv = (isnan(g) && isnan(accm)) || (g == accm && signbit(g) == signbit(accm));
                        } else {
                            const long double eps = dt == GP_F32 ? 0x1p-24L : 0x1p-53L;
                            const long double bound = 64 * eps * (op == GP_REDUCE_SUM ? mag + 1 : fabsl(accf) * 40);
                            okv = fabsl(fval(y, dt, i) - accf) <= bound;
                        }
                        if (!okv && !bad++) first = i;
                        /* exclusive: first value at heads, else the inclusive value before (bits) */
                        if (!head || i == 0) {
                            if (i > 0 && memcmp(ye + i * es, y + (i - 1) * es, es) != 0) badx++;
                        }
                    }
                    CHECK(bad == 0, "%s %s n=%zu pattern %d: %zu off the segment fold, first at %zu",
                          gp_reduce_op_name(op), gp_dtype_name(dt), n, pat, bad, first);
                    CHECK(badx == 0, "%s %s n=%zu pattern %d: exclusive: %zu differ", gp_reduce_op_name(op),
                          gp_dtype_name(dt), n, pat, badx);
                    /* the exclusive first values: at 0 and at every head */
                    {
                        unsigned char f[8];
                        OK(gp__scan_cpu(op, dt, 1, x, f, 1, NULL, NULL, 0)); /* y[0] of an exclusive scan */
                        size_t badf = 0;
                        for (size_t i = 0; i < n; i++)
                            if ((i == 0 || h[i]) && memcmp(ye + i * es, f, es) != 0) badf++;
                        CHECK(badf == 0, "%s %s n=%zu pattern %d: %zu heads without the first value",
                              gp_reduce_op_name(op), gp_dtype_name(dt), n, pat, badf);
                    }
                    if (pat == 0 && es == 4) { /* no heads: gp_scan's tree */
                        OK(gp__scan_cpu(op, dt, n, x, yp, 0, NULL, NULL, 1));
                        CHECK(memcmp(yp, y, n * es) == 0, "%s %s n=%zu: no heads != gp_scan", gp_reduce_op_name(op),
                              gp_dtype_name(dt), n);
                    }
                    if (pat == 1) { /* in place */
                        memcpy(yp, x, n * es);
                        OK(gp_scan_heads(ctx, op, dt, GP_SCAN_INCLUSIVE, n, yp, h, yp, NULL));
                        CHECK(memcmp(yp, y, n * es) == 0, "%s %s n=%zu: in place", gp_reduce_op_name(op),
                              gp_dtype_name(dt), n);
                    }
                }
            printf("  segmented %-5s %-4s %s\n", gp_reduce_op_name(op), gp_dtype_name(dt),
                   tc_fail == before ? "ok" : "FAILED");
        }
    /* offsets: any order, repeats and values outside [0, n) */
    {
        const size_t n = 10000;
        float *xf = (float *)x, *a = (float *)y, *b = (float *)yo;
        scan_fill(xf, n, GP_F32, GP_REDUCE_SUM);
        memset(h, 0, n);
        const int64_t o2[] = {9000, -5, 300, 300, 20000, 4096, 0, 7777};
        for (size_t i = 0; i < 8; i++)
            if (o2[i] >= 0 && o2[i] < (int64_t)n) h[o2[i]] = 1;
        OK(gp_scan_heads(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, xf, h, a, NULL));
        OK(gp_scan_segmented(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, n, xf, 7, o2, b, NULL));
        CHECK(memcmp(a, b, n * 4) == 0, "unsorted offsets = their heads");
        CHECK(a[300] == xf[300] && a[7777] == xf[7777], "a head restarts: %g %g", (double)a[300], (double)xf[300]);
    }
    float f[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t hh[8] = {0};
    CHECK_ST(gp_scan_heads(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, 8, f, NULL, f, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "heads") != NULL, "names heads: %s", gp_last_error());
    CHECK_ST(gp_scan_segmented(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, 8, f, 2, NULL, f, NULL),
             GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "offsets") != NULL, "names offsets: %s", gp_last_error());
    CHECK_ST(gp_scan_heads(ctx, GP_REDUCE_SUM, GP_F16, GP_SCAN_INCLUSIVE, 8, f, hh, f, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan_heads(ctx, GP_REDUCE_AND, GP_F32, GP_SCAN_INCLUSIVE, 8, f, hh, f, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan_heads(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, 4, f, hh, f + 1, NULL), GP_ERR_INVALID_ARG);
    OK(gp_scan_heads(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, 0, NULL, NULL, NULL, NULL));
    OK(gp_scan_segmented(ctx, GP_REDUCE_SUM, GP_F32, GP_SCAN_INCLUSIVE, 0, NULL, 0, NULL, NULL, NULL));
    free(x), free(y), free(ye), free(yo), free(yp), free(h), free(off);
}

/* f32 -> f16 / bf16 rounding: the nearest representable value, ties to the even one, overflow to inf, NaN kept */
static double dec16(gp_dtype_t dt, uint16_t b) { return dt == GP_F16 ? gp_f16_to_f32(b) : gp_bf16_to_f32(b); }
static void test_round16(void)
{
    for (int d = 0; d < 2; d++) {
        const gp_dtype_t dt = d ? GP_BF16 : GP_F16;
        size_t bad = 0;
        for (long i = 0; i < 2000000; i++) {
            uint32_t u = (uint32_t)tc_next();
            if (i < 1000) u = (uint32_t)i << 13 | (i & 1 ? 0x80000000u : 0); /* subnormal / tiny region */
            if (i >= 1000 && i < 2000) u = 0x477fe000u + (uint32_t)(i - 1000) * 8; /* around f16's overflow */
            float f;
            memcpy(&f, &u, 4);
            const uint16_t r = dt == GP_F16 ? gp__f32_to_f16(f) : gp__f32_to_bf16(f);
            const double g = dec16(dt, r);
            if (isnan(f)) {
                bad += !isnan(g);
                continue;
            }
            if (isinf(g) && !isinf(f)) { /* overflow: f at or past the midpoint to the next binade */
                const double top = dt == GP_F16 ? 65520.0 : 3.3961775292304e38;
                bad += fabs((double)f) < top * (1 - 1e-12);
                continue;
            }
            /* no neighbour is nearer; on a tie the even one */
            const uint16_t up = (uint16_t)(r + 1), dn = (uint16_t)(r - 1);
            const double e = fabs(g - (double)f), eu = fabs(dec16(dt, up) - (double)f), ed = fabs(dec16(dt, dn) - (double)f);
            const int okv = (isnan(eu) || e < eu || (e == eu && !(r & 1))) && (isnan(ed) || (r & 0x7fff) == 0 ||
                                                                                e < ed || (e == ed && !(r & 1)));
            if (!okv && bad++ < 3) printf("  %s of %a: %a (bits %04x)\n", gp_dtype_name(dt), (double)f, g, r);
        }
        CHECK(bad == 0, "%s rounding: %zu wrong", gp_dtype_name(dt), bad);
    }
}

/* The narrow dtypes and the accumulator choice on the CPU backend: every output against a serial fold (exact for the
 * integers and float min / max; float sums and products within rounding), exclusive = shifted, refusals. */
static void test_narrow_acc(gp_ctx_t *ctx)
{
    static const gp_dtype_t small[] = {GP_U8, GP_I8, GP_U16, GP_I16};
    const size_t ns[] = {1, 17, 4097, 3 * 4096 + 5, (size_t)2048 * 4096 + 4099}; /* the last crosses a CPU chunk */
    const size_t maxn = (size_t)2048 * 4096 + 4099;
    unsigned char *x = malloc(maxn * 2), *y = malloc(maxn * 8), *ye = malloc(maxn * 8);
    for (size_t d = 0; d < 4; d++)
        for (size_t o = 0; o < sizeof k_ops / sizeof k_ops[0]; o++) {
            const gp_dtype_t dt = small[d];
            const gp_reduce_op_t op = k_ops[o];
            const size_t es = gp_dtype_size(dt);
            const int sg = dt == GP_I8 || dt == GP_I16;
            const uint64_t mask = es == 1 ? 0xffu : 0xffffu;
            for (int wide = 0; wide < 2; wide++) {
                if (wide && op != GP_REDUCE_SUM && op != GP_REDUCE_PROD) continue;
                const gp_dtype_t acc = wide ? (sg ? GP_I64 : GP_U64) : dt;
                const size_t os = gp_dtype_size(acc);
                for (size_t si = 0; si < 5; si++) {
                    const size_t n = ns[si];
                    if (si == 4 && (o > 1 || d > 1)) continue;
                    tc_fill(x, n, dt);
                    if (op == GP_REDUCE_PROD) /* mostly odd factors, so products do not vanish */
                        for (size_t i = 0; i < n * es; i += es) x[i] |= 1;
                    tc_poison(y, n * os);
                    OK(gp_scan_acc(ctx, op, dt, acc, GP_SCAN_INCLUSIVE, n, x, y, NULL));
                    OK(gp_scan_acc(ctx, op, dt, acc, GP_SCAN_EXCLUSIVE, n, x, ye, NULL));
                    uint64_t a = 0;
                    size_t bad = 0, badx = 0;
                    for (size_t i = 0; i < n; i++) {
                        const uint64_t v = es == 1 ? (sg ? (uint64_t)(int64_t)((int8_t *)x)[i] : x[i])
                                                   : (sg ? (uint64_t)(int64_t)((int16_t *)x)[i] : ((uint16_t *)x)[i]);
                        a = i == 0 ? v : fold_int(op, sg ? GP_I64 : GP_U64, a, v);
                        const uint64_t want = wide ? a : (a & mask);
                        const uint64_t got = os == 8 ? ((uint64_t *)y)[i] : os == 2 ? ((uint16_t *)y)[i] : y[i];
                        bad += got != want;
                        if (i && memcmp(ye + i * os, y + (i - 1) * os, os) != 0) badx++;
                    }
                    CHECK(bad == 0 && badx == 0, "%s %s acc %s n=%zu: %zu wrong, %zu exclusive wrong",
                          gp_reduce_op_name(op), gp_dtype_name(dt), gp_dtype_name(acc), n, bad, badx);
                }
            }
        }
    /* f16 / bf16: sum prod min max, written in the dtype, in f32, and sums in f64 */
    static const gp_reduce_op_t fops[] = {GP_REDUCE_SUM, GP_REDUCE_PROD, GP_REDUCE_MIN, GP_REDUCE_MAX};
    for (int d = 0; d < 3; d++)
        for (size_t o = 0; o < 4; o++)
            for (int ac = 0; ac < 3; ac++) { /* the dtype, f32, f64 */
                const gp_dtype_t dt = d == 0 ? GP_F16 : d == 1 ? GP_BF16 : GP_F32;
                const gp_reduce_op_t op = fops[o];
                if (dt == GP_F32 && ac != 2) continue;
                if (ac == 2 && op != GP_REDUCE_SUM && op != GP_REDUCE_PROD) continue;
                const gp_dtype_t acc = ac == 0 ? dt : ac == 1 ? GP_F32 : GP_F64;
                const size_t n = 3 * 4096 + 5, es = gp_dtype_size(dt), os = gp_dtype_size(acc);
                for (size_t i = 0; i < n; i++) {
                    const double u = (double)(tc_next() >> 11) * 0x1p-53;
                    const float f = op == GP_REDUCE_PROD ? (float)(1.0 + (u - 0.5) * 1e-3) : (float)(2 * u - 1);
                    if (dt == GP_F32) ((float *)x)[i] = f;
                    else ((uint16_t *)x)[i] = dt == GP_F16 ? gp__f32_to_f16(f) : gp__f32_to_bf16(f);
                }
                OK(gp_scan_acc(ctx, op, dt, acc, GP_SCAN_INCLUSIVE, n, x, y, NULL));
                CHECK(gp_scan_out_dtype(op, dt, acc) == (ac == 0 ? dt : acc), "out dtype");
                long double a = 0, mag = 0;
                size_t bad = 0;
                for (size_t i = 0; i < n; i++) {
                    const long double v = dt == GP_F32 ? ((float *)x)[i] : dec16(dt, ((uint16_t *)x)[i]);
                    a = i == 0 ? v : op == GP_REDUCE_SUM ? a + v : op == GP_REDUCE_PROD ? a * v
                                   : op == GP_REDUCE_MIN ? (v < a ? v : a) : (v > a ? v : a);
                    mag = i == 0 ? fabsl(v) : mag + fabsl(v);
                    const long double g = os == 2 ? dec16(dt, ((uint16_t *)y)[i]) : os == 4 ? ((float *)y)[i]
                                                                                             : ((double *)y)[i];
                    /* rounding: the accumulator's along the way, the output's once */
                    const long double ea = (acc == GP_F64 ? 0x1p-52L : 0x1p-23L) * 64 *
                                           (op == GP_REDUCE_SUM ? mag + 1 : fabsl(a) * 40);
                    const long double eo = os == 2 ? fabsl(a) * (dt == GP_F16 ? 0x1p-11L : 0x1p-8L) + 0x1p-24L : 0;
                    if (op == GP_REDUCE_MIN || op == GP_REDUCE_MAX ? g != a : fabsl(g - a) > ea + eo) bad++;
                }
                CHECK(bad == 0, "%s %s acc %s: %zu off the fold", gp_reduce_op_name(op), gp_dtype_name(dt),
                      gp_dtype_name(acc), bad);
                (void)es;
            }
    /* the scanner over narrow dtypes / accumulators: pieces of whole tiles = one gp_scan_acc pass, total = the last */
    {
        const size_t n = 9 * 4096 + 77, cuts[] = {0, 4096, 5 * 4096, n};
        tc_fill(x, n, GP_U16);
        gp_scanner_t *sc = NULL;
        OK(gp_scanner_create_acc(ctx, GP_REDUCE_SUM, GP_U16, GP_U64, GP_SCAN_EXCLUSIVE, &sc));
        CHECK(gp_scanner_out_dtype(sc) == GP_U64, "scanner out dtype");
        for (int k = 0; k < 3; k++)
            OK(gp_scanner_push(sc, cuts[k + 1] - cuts[k], (uint16_t *)x + cuts[k], (uint64_t *)y + cuts[k], NULL));
        uint64_t tot = 0;
        OK(gp_scanner_total_sync(sc, &tot));
        OK(gp_scan_acc(ctx, GP_REDUCE_SUM, GP_U16, GP_U64, GP_SCAN_EXCLUSIVE, n, x, ye, NULL));
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) want += ((uint16_t *)x)[i];
        CHECK(memcmp(y, ye, n * 8) == 0 && tot == want, "scanner u16 -> u64: %llu vs %llu", (unsigned long long)tot,
              (unsigned long long)want);
        gp_scanner_destroy(sc);
        for (size_t i = 0; i < n; i++) /* f16 values in [-1, 1) */
            ((uint16_t *)x)[i] = gp__f32_to_f16((float)((double)(tc_next() >> 11) * 0x1p-52 - 1.0));
        OK(gp_scanner_create(ctx, GP_REDUCE_SUM, GP_F16, GP_SCAN_INCLUSIVE, &sc));
        for (int k = 0; k < 3; k++)
            OK(gp_scanner_push(sc, cuts[k + 1] - cuts[k], (uint16_t *)x + cuts[k], (uint16_t *)y + cuts[k], NULL));
        uint16_t t16 = 0;
        OK(gp_scanner_total_sync(sc, &t16));
        OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F16, GP_SCAN_INCLUSIVE, n, x, ye, NULL));
        CHECK(memcmp(y, ye, n * 2) == 0 && t16 == ((uint16_t *)ye)[n - 1], "scanner f16 = one pass");
        gp_scanner_destroy(sc);
    }
    /* defaults and refusals */
    CHECK(gp_scan_out_dtype(GP_REDUCE_SUM, GP_U8, GP_DTYPE_COUNT) == GP_U64 &&
              gp_scan_out_dtype(GP_REDUCE_MAX, GP_U8, GP_DTYPE_COUNT) == GP_U8 &&
              gp_scan_out_dtype(GP_REDUCE_SUM, GP_F16, GP_DTYPE_COUNT) == GP_F32 &&
              gp_scan_out_dtype(GP_REDUCE_MAX, GP_BF16, GP_DTYPE_COUNT) == GP_F32 &&
              gp_scan_out_dtype(GP_REDUCE_SUM, GP_F16, GP_F16) == GP_F16 &&
              gp_scan_out_dtype(GP_REDUCE_SUM, GP_F64, GP_DTYPE_COUNT) == GP_F64,
          "default accumulators");
    CHECK_ST(gp_scan_acc(ctx, GP_REDUCE_MIN, GP_F32, GP_F64, GP_SCAN_INCLUSIVE, 4, x, y, NULL), GP_ERR_UNSUPPORTED);
    CHECK(strstr(gp_last_error(), "choices") != NULL, "names the choices: %s", gp_last_error());
    CHECK_ST(gp_scan_acc(ctx, GP_REDUCE_SUM, GP_U8, GP_I64, GP_SCAN_INCLUSIVE, 4, x, y, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan_acc(ctx, GP_REDUCE_SUM, GP_U8, GP_U64, GP_SCAN_INCLUSIVE, 4, x, x, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "overlap") != NULL, "widening in place refused: %s", gp_last_error());
    CHECK_ST(gp_scan_acc(ctx, GP_REDUCE_SUM, GP_U8, GP_U64, GP_SCAN_INCLUSIVE, 4, x, y + 1, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_XOR, GP_BF16, GP_SCAN_INCLUSIVE, 4, x, y, NULL), GP_ERR_UNSUPPORTED);
    OK(gp_scan(ctx, GP_REDUCE_XOR, GP_U8, GP_SCAN_INCLUSIVE, 4, x, x, NULL)); /* narrow in place */
    free(x), free(y), free(ye);
    printf("  narrow dtypes and accumulators: done\n");
}

int main(void)
{
    tc_seed("test_scan");
    for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; t++)
        for (size_t o = 0; o < sizeof k_ops / sizeof k_ops[0]; o++)
            if (gp__scan_supported(k_ops[o], k_types[t])) test_pair(k_ops[o], k_types[t]);
    CHECK(!gp__scan_supported(GP_REDUCE_SUM, GP_F16) && !gp__scan_supported(GP_REDUCE_AND, GP_F32) &&
              !gp__scan_supported(GP_REDUCE_ARGMAX, GP_I32), "unsupported pairs");
    float one = 1, out = 0;
    CHECK_ST(gp__scan_cpu(GP_REDUCE_AND, GP_F32, 1, &one, &out, 0, NULL, NULL, 0), GP_ERR_UNSUPPORTED);
    /* the exclusive float sum starts at +0.0, and n = 0 hands its carry through */
    float xs[3] = {-0.0f, -0.0f, 2.0f}, ys[3];
    OK(gp__scan_cpu(GP_REDUCE_SUM, GP_F32, 3, xs, ys, 1, NULL, NULL, 0));
    CHECK(ys[0] == 0.0f && !signbit(ys[0]) && signbit(ys[1]) && signbit(ys[2]), "exclusive -0 sums: %g %g %g",
          (double)ys[0], (double)ys[1], (double)ys[2]);
    float cin = 5, cout = 0;
    OK(gp__scan_cpu(GP_REDUCE_SUM, GP_F32, 0, xs, ys, 0, &cin, &cout, 0));
    CHECK(cout == 5, "n = 0 passes the carry: %g", (double)cout);
    /* the public call on the CPU backend: the reference's bits, and its refusals naming the argument */
    gp_ctx_t *ctx = NULL;
    OK(gp_ctx_create(&ctx, GP_DEVICE_CPU));
    const size_t n = 3 * 4096 + 5;
    double *hx = malloc(n * 8), *ha = malloc(n * 8), *hb = malloc(n * 8);
    scan_fill(hx, n, GP_F64, GP_REDUCE_SUM);
    OK(gp__scan_cpu(GP_REDUCE_SUM, GP_F64, n, hx, ha, 1, NULL, NULL, 0));
    OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_EXCLUSIVE, n, hx, hb, NULL));
    CHECK(memcmp(ha, hb, n * 8) == 0, "gp_scan on the CPU = the reference");
    CHECK_ST(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, n, hx, hx + 1, NULL), GP_ERR_INVALID_ARG);
    CHECK(strstr(gp_last_error(), "overlap") != NULL, "names the overlap: %s", gp_last_error());
    CHECK_ST(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, n, NULL, hb, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, n, (char *)hx + 1, hb, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_MINMAX, GP_F64, GP_SCAN_INCLUSIVE, n, hx, hb, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_AND, GP_F16, GP_SCAN_INCLUSIVE, n, hx, hb, NULL), GP_ERR_UNSUPPORTED);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, (gp_scan_kind_t)2, n, hx, hb, NULL), GP_ERR_INVALID_ARG);
    CHECK_ST(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, (size_t)1 << 62, hx, hb, NULL), GP_ERR_OVERFLOW);
    OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, 0, NULL, NULL, NULL));
    OK(gp_scan(ctx, GP_REDUCE_SUM, GP_F64, GP_SCAN_INCLUSIVE, n, hb, hb, NULL)); /* in place */
    test_scanner(ctx);
    test_scanner_transfer(ctx);
    test_segmented(ctx);
    test_round16();
    test_narrow_acc(ctx);
    OK(gp_ctx_destroy(ctx));
    free(hx), free(ha), free(hb);
    return tc_finish("test_scan");
}
