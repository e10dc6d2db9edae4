/*
 * bench.h — the benchmark harness every `gpuprim bench` / `lab` verb uses: stream-ordered timing (CUDA events on a
 * GPU, a monotonic clock on the CPU backend), warm-up, median and min of N, input sets rotated over more than twice
 * the L2 so the cache is not what is measured, and the ceilings measured in the same run (a device-to-device
 * cudaMemcpy counting bytes read + written, and a read-only kernel). GB/s = 1e9 bytes per second.
 */
#ifndef GP_CLI_BENCH_H
#define GP_CLI_BENCH_H

#include "gpuprim.h"

typedef struct bench_stats {
    double median_ms, min_ms, max_ms;
    int reps;
} bench_stats_t;

/* One timed repetition: rep counts from 0 over warm-up and timed runs, so fn can rotate its input sets. */
typedef gp_status_t (*bench_fn)(void *user, int rep, gp_stream_t stream);

/* Runs fn warmup + reps times and times each timed run alone. setup (may be NULL) runs before every run, outside
 * the timed region (e.g. migrating managed memory back to the host). */
gp_status_t bench_time(gp_ctx_t *ctx, bench_fn fn, bench_fn setup, void *user, int warmup, int reps,
                       gp_stream_t stream, bench_stats_t *out);

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

#endif
