/*
 * bench.h — the bench room (bench/): the measuring harness every suite and lab topic times with, the suites of
 * `gpuprim bench` (one bench/suite_<family>.c each, listed in bench/suites.c), what they share, and the peers
 * (bench/peers/, loaded on first use).
 *   Harness: stream-ordered timing (CUDA events on a GPU, a monotonic clock on the CPU backend), warm-up, median and
 *   min of N, input sets rotated over more than twice the L2, and the ceilings measured in the same run (a
 *   device-to-device cudaMemcpy counting bytes read + written, and a read-only kernel). GB/s = 1e9 bytes per second.
 */
#ifndef GP_BENCH_H
#define GP_BENCH_H

#include "support.h"
#include "peers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------- harness */
typedef struct bench_stats {
    double median_ms, min_ms, max_ms;
    int reps;
} bench_stats_t;

/* The stats of reps times in milliseconds (ms sorted in place). */
void bench_stats_of(double *ms, int reps, bench_stats_t *out);

/* One timed repetition: rep counts from 0 over warm-up and timed runs, so fn can rotate its input sets. */
typedef gp_status_t (*bench_fn)(void *user, int rep, gp_stream_t stream);

/* Runs fn warmup + reps times and times each timed run alone. setup (may be NULL) runs before every run, outside
 * the timed region (e.g. migrating managed memory back to the host). */
gp_status_t bench_time(gp_ctx_t *ctx, bench_fn fn, bench_fn setup, void *user, int warmup, int reps,
                       gp_stream_t stream, bench_stats_t *out);

/* Two functions timed alternately (A B, B A, A B, ...: each run alone), so drift in clocks or temperature over the
 * run falls on both alike: the fair way to compare a primitive with its peer. */
gp_status_t bench_time_pair(gp_ctx_t *ctx, bench_fn a, bench_fn b, void *user, int warmup, int reps,
                            gp_stream_t stream, bench_stats_t *sa, bench_stats_t *sb);

/* How many input sets of set_bytes to rotate so that together they exceed 2x the L2 (1 when one set already does),
 * at most max_sets. */
int bench_rotation_sets(gp_ctx_t *ctx, size_t set_bytes, int max_sets);

typedef struct bench_ceilings {
    size_t bytes;        /* buffer size used */
    double d2d_gbs;      /* cudaMemcpy D2D (CPU: parallel memcpy), bytes read + written */
    double read_gbs;     /* read-only kernel (CPU: parallel read loop) */
} bench_ceilings_t;

gp_status_t bench_ceilings(gp_ctx_t *ctx, size_t bytes, int warmup, int reps, bench_ceilings_t *out);

static inline double bench_gbs(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }

/* The references the bandwidth verb holds gp_memcpy to: a plain cudaMemcpyAsync (cudaMemcpyDefault). */
gp_status_t bench_ref_memcpy(void *dst, const void *src, size_t bytes, gp_stream_t stream);
/* Two copies at once inside one timed region: bench_fork_begin makes a side stream wait for main's work so far and
 * returns it, bench_fork_end makes main wait for the side stream (so main's stop mark covers both). */
typedef struct bench_fork bench_fork_t;
gp_status_t bench_fork_create(bench_fork_t **fork);
gp_status_t bench_fork_begin(bench_fork_t *fork, gp_stream_t main, gp_stream_t *side);
gp_status_t bench_fork_end(bench_fork_t *fork, gp_stream_t main);
void bench_fork_destroy(bench_fork_t *fork);

/* The bars of a bench's --svg chart: labels formatted as rows are measured (beyond BENCH_MAX_BARS: dropped). */
enum { BENCH_MAX_BARS = 64 };
typedef struct bench_bars {
    int n;
    const char *labels[BENCH_MAX_BARS];
    double values[BENCH_MAX_BARS];
    char text[BENCH_MAX_BARS][96];
} bench_bars_t;
void bench_bars_add(bench_bars_t *b, double value, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fills n elements of dtype (f32, f64, i32, u8, u32) at dst (device-accessible on a GPU context) with random values
 * (floats in [-1, 1), i32 in [-1024, 1023], u8 / u32 uniform over all values) derived from seed. */
gp_status_t bench_fill_random(gp_ctx_t *ctx, void *dst, size_t n, gp_dtype_t dtype, unsigned long long seed);

/* NumPy as the CPU backend's peer (bench/numpy_peer.c): the version of python3's NumPy, or NULL without one (said
 * once on stderr). bench_numpy_time: a NumPy statement over arrays saved from host memory (names[i] = data[i]:
 * counts[i] elements of dtypes[i], 1-D) and ours (fn over user, rep counting as bench_time's) timed alternately, one
 * call each a round, the order swapped every round (NumPy in one python3 process kept open, timing its own call), so
 * that a noisy host's slow spells fall on both: warm-up rounds, then reps; NumPy's median and min milliseconds, and
 * ours' stats of the same rounds in *ours. 0; -1: no peer (*ours untouched); -2: ours failed (gp_last_error). */
const char *bench_numpy_version(void);
int bench_numpy_time(gp_ctx_t *ctx, bench_fn fn, void *user, bench_stats_t *ours, const char *stmt, int narrays,
                     const char *const *names, const void *const *data, const gp_dtype_t *dtypes, const size_t *counts,
                     int warmup, int reps, double *median_ms, double *min_ms);
/* A CPU row's NumPy peer over one array x (n elements of dtype, host memory; sets > 1: each call on the next of that
 * many copies, as the bench rotates its inputs), timed alternately with ours as bench_numpy_time's: its median
 * milliseconds (0: none; -1: ours failed) and the peer's name, "NumPy <version> <what>", in name; and the report's
 * peer line, said once per suite. */
double bench_numpy_peer1(gp_ctx_t *ctx, bench_fn fn, void *user, bench_stats_t *ours, const char *stmt,
                         const char *what, const void *x, gp_dtype_t dtype, size_t n, int sets, int warmup, int reps,
                         char *name, size_t cap);
void bench_numpy_meta(report_t *r);

/* ---------------------------------------------------------------------------------------------- forcing */
/* What the benches force or read back of the library's own choices (bench/force.c), so that no verb needs an internal
 * header. Experimental: for the lab and the benches, not part of the library's API. */
/* gp_histogram_even as the library runs it, and what it ran as ("block/direct", "cluster4/direct", ... "cpu"). */
gp_status_t bench_histogram_even_plan(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins, double lo,
                                    double hi, gp_dtype_t count_dtype, void *counts, gp_stream_t stream, char *ran_as,
                                    size_t len);
/* The kernel gp_scan takes from here on, for the whole process: 0 the library's choice, 1 the look-back kernel, 2 the
 * tile engine (where it runs; docs/design/scan.md). */
void bench_scan_force_kernel(int kernel);
/* ---------------------------------------------------------------------------------------------- suites */
/* Every suite, in the order `gpuprim bench --help` lists them (bench/suites.c); a suite is one file defining its
 * verb_t and one line of that table. Each takes --json / --csv for its rows. */
extern const verb_t *const bench_suites[];
extern const int bench_nsuites;
/* What every suite starts and ends with (bench/common.c): the context, repetitions and report (EXIT_OK or an exit
 * code), and one result row (peer_ms <= 0: no peer). */
int bench_begin(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen);
/* bench_begin for a suite measured against a peer and checked on the CPU backend: also *n = 0 made the default (2^28
 * on a GPU, 2^22 on the CPU backend), the "peer" and "check" lines, the copy ceilings and, on a GPU, a CPU context
 * for the checks (*cpu, else NULL). EXIT_OK, or the exit code with everything released. */
int bench_begin_checked(const char *title, cli_common_t *c, const char *peer, const char *check, size_t *n,
                        gp_ctx_t **ctx, gp_ctx_t **cpu, report_t *r, bench_ceilings_t *ce, char *desc, size_t dlen);
/* The skewed segment mix of the segmented benches: half of n in one segment, then empty (40%), tiny (1-32, 45%),
 * medium (to 8192, 14%) and large (to 2^20, 1%) segments from a fixed generator, up to n. CSR offsets into off (cap
 * values at most); returns the segment count. */
/* Sampled rows (every m / 13 + 1) of two m x n row-major GEMM results C = A B in device memory, f32 or f64, inputs in
 * [-1, 1): both within the rounding bound of the exact product, so within twice it of each other (plus extra_tol).
 * The number of elements outside (n for a failed copy). */
size_t bench_gemm_differ(gp_ctx_t *ctx, int f64, size_t m, size_t n, size_t k, const void *c, const void *ref,
                         double extra_tol);
size_t bench_skewed_offsets(int64_t *off, size_t cap, size_t n);
int bench_begin_cols(const char *title, cli_common_t *c, gp_ctx_t **ctx, report_t *r, char *desc, size_t dlen,
                     const char *const *cols, const int *num, int ncols, const char *inputs);
void vec_row(report_t *r, const char *name, const char *dtype, size_t n, double bytes, const bench_stats_t *s,
             const bench_ceilings_t *ce, const char *peer_name, double peer_ms);

#ifdef __cplusplus
}
#endif
#endif
