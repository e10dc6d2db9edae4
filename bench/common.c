/*
 * common.c — what every suite (bench/suite_*.c) starts and ends with: the context and report (bench_begin), the
 * shared result row (vec_row), the skewed segment mix of the segmented suites.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Formats one result row. peer_ms <= 0: no peer. */
void vec_row(report_t *r, const char *name, const char *dtype, size_t n, double bytes, const bench_stats_t *s,
                    const bench_ceilings_t *ce, const char *peer_name, double peer_ms)
{
    char cn[32], cmb[32], cmed[32], cmin[32], cg[32], cd[32], cr[32], cpu_[32], crat[32];
    double g = bench_gbs(bytes, s->median_ms);
    snprintf(cn, sizeof cn, "%zu", n);
    snprintf(cmb, sizeof cmb, "%.1f", bytes / 1e6);
    snprintf(cmed, sizeof cmed, "%.1f", s->median_ms * 1e3);
    snprintf(cmin, sizeof cmin, "%.1f", s->min_ms * 1e3);
    snprintf(cg, sizeof cg, "%.1f", g);
    snprintf(cd, sizeof cd, "%.1f", ce->d2d_gbs > 0 ? 100.0 * g / ce->d2d_gbs : 0.0);
    snprintf(cr, sizeof cr, "%.1f", ce->read_gbs > 0 ? 100.0 * g / ce->read_gbs : 0.0);
    cpu_[0] = crat[0] = 0;
    if (peer_ms > 0) {
        snprintf(cpu_, sizeof cpu_, "%.1f", peer_ms * 1e3);
        snprintf(crat, sizeof crat, "%.3f", peer_ms / s->median_ms);
    }
    const char *cells[] = {name, dtype, cn, cmb, cmed, cmin, cg, cd, cr, peer_ms > 0 ? peer_name : "", cpu_, crat};
    report_row(r, cells);
}

/* What every bench verb starts with: the context the options ask for (the CPU backend, with a note, where there is no
 * GPU), default repetitions, and the report with its shared columns and metadata. Returns EXIT_OK or an exit code. */
int bench_begin(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen)
{
    static const char *const cols[] = {"op", "dtype", "n", "MB", "median_us", "min_us", "GB/s", "%d2d", "%read",
                                       "peer", "peer_us", "ratio"};
    static const int num[] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1};
    return bench_begin_cols(title, c, ctx, r, desc, dlen, cols, num, 12, NULL);
}

/* The opening of a suite measured against a CUB peer and checked on the CPU backend: bench_begin, *n = 0 made the
 * default (2^28 on a GPU, 2^22 on the CPU backend), the peer and check lines, the copy ceilings, and on a GPU a CPU
 * context for the checks (*cpu, else NULL). Returns EXIT_OK, or the exit code with everything released. */
int bench_begin_checked(const char *title, cli_common_t *c, const char *peer, const char *check, size_t *n,
                        gp_ctx_t **ctx, gp_ctx_t **cpu, report_t *r, bench_ceilings_t *ce, char *desc, size_t dlen)
{
    *cpu = NULL;
    const int rc = bench_begin(title, c, ctx, r, desc, dlen);
    if (rc != EXIT_OK) return rc;
    const int gpu = gp_ctx_device(*ctx) != GP_DEVICE_CPU;
    if (*n == 0) *n = gpu ? (size_t)1 << 28 : (size_t)1 << 22;
    report_meta(r, "peer", "%s", gpu ? peer : "none on the CPU backend");
    report_meta(r, "check", "%s", gpu ? check : "the CPU backend");
    memset(ce, 0, sizeof *ce);
    if (bench_ceilings(*ctx, gpu ? (size_t)1 << 30 : (size_t)256 << 20, c->warmup, c->reps, ce) != GP_OK ||
        (gpu && gp_ctx_create(cpu, GP_DEVICE_CPU) != GP_OK)) {
        fprintf(stderr, "%s: %s\n", title, gp_last_error());
        report_free(r);
        gp_ctx_destroy(*ctx);
        *ctx = NULL;
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int bench_begin_cols(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen,
                     const char *const *cols, const int *num, int ncols, const char *inputs)
{
    char why[700];
    gp_status_t st = open_context(c->device, ctx, why, sizeof why);
    if (st != GP_OK) {
        fprintf(stderr, "%s: %s: %s\n", title, gp_status_string(st), gp_last_error());
        return st == GP_ERR_NO_DRIVER ? EXIT_NO_DRIVER : st == GP_ERR_NO_DEVICE ? EXIT_NO_GPU : EXIT_FAIL;
    }
    const int gpu = gp_ctx_device(*ctx) != GP_DEVICE_CPU;
    if (why[0]) note_cpu(title, why, "timing the CPU backend");
    if (c->reps < 0) c->reps = gpu ? 20 : 3;
    if (c->warmup < 0) c->warmup = gpu ? 3 : 1;
    report_init(r, title, cols, num, ncols);
    describe_device(*ctx, desc, dlen); /* the caller's copy, for its chart titles */
    report_meta_device(r, *ctx);
    report_meta(r, "timing", "median of %d after %d warm-up; %s", c->reps, c->warmup,
                inputs ? inputs : "inputs rotated over > 2x L2; GB/s = 1e9 B/s");
    return EXIT_OK;
}

size_t bench_skewed_offsets(int64_t *off, size_t cap, size_t n)
{
    uint64_t st = 0x9e3779b97f4a7c15ull;
    size_t k = 0, pos = n / 2;
    off[k++] = 0;
    off[k++] = (int64_t)pos;
    while (pos < n && k + 1 < cap) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        const unsigned kind = (unsigned)(st % 100);
        size_t L = kind < 40 ? 0 : kind < 85 ? 1 + (st >> 8) % 32 : kind < 99 ? 33 + (st >> 8) % 8160
                                                                               : 8193 + (st >> 8) % (1u << 20);
        if (L > n - pos) L = n - pos;
        pos += L;
        off[k++] = (int64_t)pos;
    }
    return k - 1;
}

size_t bench_gemm_differ(gp_ctx_t *ctx, int f64, size_t m, size_t n, size_t k, const void *c, const void *ref,
                         double extra_tol)
{
    const size_t es = f64 ? 8 : 4;
    const double u = f64 ? 0x1p-53 : 0x1p-24, tol = 2.0 * (4.0 * sqrt((double)k) + 8.0) * u * (double)k + extra_tol;
    char *x = malloc(n * es), *y = malloc(n * es);
    size_t bad = x && y ? 0 : n;
    for (size_t i = 0; i < m && x && y; i += m / 13 + 1) {
        if (gp_memcpy_sync(ctx, x, (const char *)c + i * n * es, n * es) != GP_OK ||
            gp_memcpy_sync(ctx, y, (const char *)ref + i * n * es, n * es) != GP_OK) {
            bad = n;
            break;
        }
        for (size_t q = 0; q < n; q++) {
            const double a = f64 ? ((double *)x)[q] : ((float *)x)[q], b = f64 ? ((double *)y)[q] : ((float *)y)[q];
            bad += !(fabs(a - b) <= tol);
        }
    }
    free(x), free(y);
    return bad;
}
