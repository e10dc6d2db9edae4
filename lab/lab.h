/*
 * lab.h — the lab's one header (static library gpuprim_lab, linked into the CLI and the tests, never into libgpuprim):
 *   - the measuring harness every `gpuprim bench` and `gpuprim lab` verb uses (lab/harness.c): stream-ordered timing
 *     (CUDA events on a GPU, a monotonic clock on the CPU backend), warm-up, median and min of N, input sets rotated
 *     over more than twice the L2, and the ceilings measured in the same run (a device-to-device cudaMemcpy counting
 *     bytes read + written, and a read-only kernel). GB/s = 1e9 bytes per second;
 *   - reports as a table, JSON or CSV, one-record results, SVG charts, files written whole or not at all
 *     (lab/report.c);
 *   - the lab's topics: one descriptor type (lab_topic_t), one table of topics (lab/topics.c), and what a topic's
 *     run gets from the one runner (the CLI's `gpuprim lab`, tools/gpuprim/cmd_lab.c).
 * Nothing here needs a CUDA header: the CLI builds on gpuprim.h and this file.
 */
#ifndef GP_LAB_H
#define GP_LAB_H

#include "gpuprim.h"
#include "peers.h" /* the peers the benches and labs measure against (bench/peers/, loaded on first use) */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of the CLI and of a lab topic's run. */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,       /* the operation failed (message on stderr) */
    EXIT_USAGE = 2,      /* bad command line */
    EXIT_NO_GPU = 3,     /* no CUDA device present (the CPU backend answered where it could) */
    EXIT_NO_DRIVER = 4,  /* no usable CUDA driver (the CPU backend answered where it could) */
    EXIT_MISMATCH = 5    /* a verification failed (lab, demo) */
};

typedef enum { FMT_TABLE = 0, FMT_JSON, FMT_CSV } out_format_t;

/* ---------------------------------------------------------------------------------------------- harness */

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

/* ---------------------------------------------------------------------------------------------- forcing */
/* What the benches force or read back of the library's own choices (lab/force.c), so that no verb needs an internal
 * header. Experimental: for the lab and the benches, not part of the library's API. */
/* gp_histogram_even as the library runs it, and what it ran as ("block/direct", "cluster4/direct", ... "cpu"). */
gp_status_t lab_histogram_even_plan(gp_ctx_t *ctx, gp_dtype_t dtype, size_t n, const void *x, size_t nbins, double lo,
                                    double hi, gp_dtype_t count_dtype, void *counts, gp_stream_t stream, char *ran_as,
                                    size_t len);
/* One GEMM kernel variant alone (GPU; variants as docs/MATRIX.md numbers them, 0: production's pick): row-major
 * packed C (m x n) = A (m x k) B (k x n), f32 or f64 (f64 = 1), device memory. */
gp_status_t lab_gemm_variant(gp_ctx_t *ctx, int f64, size_t m, size_t n, size_t k, const void *a, const void *b,
                             void *c, int variant, gp_stream_t stream);

/* ---------------------------------------------------------------------------------------------- option values */
/* Parses a whole non-negative count: "123", "4K", "1.5M", "1G", "2T", "2^28" (K/M/G/T are powers of 1024, an optional
 * "iB"/"B" may follow). Refuses signs, spaces, NaN, fractions that are not whole after the suffix, and overflow.
 * Returns 0 on success. */
int parse_size(const char *s, size_t *out);
/* A finite number ("1.5", "-2", "1e-3"): no NaN, infinity, leading space or trailing text. 0 on success. */
int parse_number(const char *s, double *out);
/* "a,b,c": numbers (parse_number's, or inf, +inf, -inf, nan) into *out (malloc'd); the count, or 0 (*out NULL) for an
 * empty or bad list. */
size_t parse_number_list(const char *s, double **out);
/* "R,C": two parse_size counts. 0 on success. */
int parse_pair(const char *s, size_t *a, size_t *b);
/* ---------------------------------------------------------------------------------------------- reports */
#define REPORT_MAX_COLS 24
#define REPORT_MAX_META 8
typedef struct report {
    const char *title;
    int ncols;
    const char *cols[REPORT_MAX_COLS];
    int numeric[REPORT_MAX_COLS];  /* JSON: unquoted (an empty cell becomes null) */
    int nmeta;
    char meta_key[REPORT_MAX_META][32];
    char meta_val[REPORT_MAX_META][256];
    int nrows, cap;
    char **cells;                  /* nrows * ncols strings */
    int flat;                      /* JSON: each row as one object on a line, no title or metadata (records) */
} report_t;

void report_init(report_t *r, const char *title, const char *const *cols, const int *numeric, int ncols);
void report_meta(report_t *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends a row; the cells are printf-formatted by the caller. Returns the row index, or -1 when out of memory. */
int report_row(report_t *r, const char *const *cells);
const char *report_cell(const report_t *r, int row, int col);
void report_print(const report_t *r, out_format_t fmt, FILE *f);
/* report_print with a second table (NULL or empty: none): JSON adds it as the array extra_key, CSV prints it after an
 * empty line, the table format lists its rows one cell per line. */
void report_print_with(const report_t *r, const report_t *extra, const char *extra_key, out_format_t fmt, FILE *f);
void report_free(report_t *r);
/* One result as named fields (the data verbs' --json / --csv): JSON prints one object on a line, CSV a header row
 * and one value row. raw fields are printed as they are in JSON (numbers, arrays, true/false), others as strings.
 * rec_print is the report writer's (a one-row report printed flat), so both escape and format cells one way. */
#define RECORD_MAX 24
typedef struct record {
    int n;
    char key[RECORD_MAX][24];
    char val[RECORD_MAX][512];
    int raw[RECORD_MAX];
} record_t;
void rec_add(record_t *r, const char *key, int raw, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rec_print(const record_t *r, out_format_t fmt, FILE *f);
/* JSON string escaping into f. */
void json_string(FILE *f, const char *s);

/* Output files are written whole or not at all (lab/outfile.c). out_open writes to a private temporary: for a path
 * (a symbolic link is followed to its target) "TARGET.tmp-PID-N" beside the target, renamed over it by out_close
 * (an existing file keeps its permission bits); for "-" (standard output), a FIFO or a character device, a file in
 * $TMPDIR (else /tmp) that out_close copies there and removes. A temporary is removed on SIGINT, SIGTERM, SIGHUP and
 * SIGPIPE too. out_open returns NULL on failure (errno-style reason in o->err). out_close(o, ok) = out_finish (every
 * byte flushed and the temporary closed) then out_commit; two outputs that must appear together are finished both,
 * then committed. Each returns 0 when it succeeded. */
typedef struct out_file {
    const char *path;  /* as given */
    char target[4096]; /* where the output goes: path with links followed ("-": standard output) */
    char tmp[4096];
    FILE *f;
    int err;
    int stream;        /* 1: target is standard output, a FIFO or a device, written by copying at commit */
    int keep_mode;     /* mode: the permission bits of the file replaced */
    unsigned mode;
    int slot;          /* its place in the signal handler's list (-1: none) */
} out_file_t;
FILE *out_open(out_file_t *o, const char *path);
int out_finish(out_file_t *o, int ok);
int out_commit(out_file_t *o);
int out_close(out_file_t *o, int ok);
/* Drops an output opened or finished but not committed. */
void out_discard(out_file_t *o);
/* path and other name the same file (after links; "-" is standard output), so two outputs of one run collide. */
int out_same_target(const char *path, const char *other);

/* A histogram as a column chart of any bin count: adjacent bins summed into at most 240 columns, a y axis with
 * round ticks, the range on the x axis (written whole or not at all; prints why on failure). */
int svg_histogram(const char *path, const char *title, double lo, double hi, const uint64_t *counts, size_t nbins);
/* A horizontal bar chart (written whole or not at all; prints why on failure): one bar per label, with an optional dashed reference line (ref <= 0: none). */
int svg_bar_chart(const char *path, const char *title, const char *unit, const char *const *labels,
                  const double *values, int n, double ref, const char *ref_label);
/* A one-line device description ("NVIDIA H200 (sm_90, 132 SMs), driver 13.0" or the CPU model). */
void describe_device(gp_ctx_t *ctx, char *out, size_t len);
void today(char *out, size_t len); /* YYYY-MM-DD */
/* A report's "device" (describe_device) and "date" (today) lines: every bench, lab and data report starts so. */
void report_meta_device(report_t *r, gp_ctx_t *ctx);

/* ---------------------------------------------------------------------------------------------- topics */
/* An option a topic takes beyond the runner's own (-d, --reps, --warmup, --json, --csv, --svg, --list, --help). */
typedef struct lab_opt {
    const char *name; /* "--bins" */
    const char *arg;  /* what its value is ("N"); NULL: a flag */
    const char *help;
} lab_opt_t;
enum { LAB_MAX_OPTS = 8, LAB_MAX_CHARTS = 12, LAB_MAX_SERIES = 6, LAB_MAX_POINTS = 64 };

/* A line chart a topic fills point by point; the runner draws every chart of the run into --svg FILE. */
typedef struct lab_chart {
    char title[96], xlabel[64], ylabel[64];
    int logx; /* x on a log2 axis */
    int nseries;
    char series[LAB_MAX_SERIES][48];
    int npoints[LAB_MAX_SERIES];
    double x[LAB_MAX_SERIES][LAB_MAX_POINTS], y[LAB_MAX_SERIES][LAB_MAX_POINTS];
} lab_chart_t;

typedef struct lab_topic lab_topic_t;
/* What the runner hands a topic's run: contexts open, options parsed, a report to fill. */
typedef struct lab_run {
    const lab_topic_t *topic;
    gp_ctx_t *cpu;           /* always open */
    gp_ctx_t *gpu;           /* NULL where there is no GPU, or -d cpu */
    int reps, warmup;
    int svg;                 /* --svg was given: fill charts */
    const char *value[LAB_MAX_OPTS]; /* per topic->opts entry: its value, "" for a given flag, NULL when absent */
    report_t report;         /* lab_begin sets title and columns; the runner prints it */
    report_t claims;         /* lab_claim rows: the primers' claims beside what this run measured */
    int nchart;
    lab_chart_t chart[LAB_MAX_CHARTS];
    int failed;              /* versions that failed verification (lab_fail counts them) */
} lab_run_t;

struct lab_topic {
    const char *name;    /* gpuprim lab NAME */
    const char *summary; /* one line for `gpuprim lab --list` */
    const char *help;    /* what it does and its defaults, for `gpuprim lab NAME --help` */
    const lab_opt_t *opts; /* its own options, ended by a NULL name (NULL: none) */
    int needs_gpu;       /* 1: nothing to measure on the CPU backend alone */
    int reps, warmup;    /* defaults of --reps / --warmup (0: the runner's, 10 and 2) */
    void (*list)(FILE *f); /* its versions, one per line, production marked */
    int (*run)(lab_run_t *r); /* verify and time every version into r->report; an EXIT_* code */
};
/* Every topic, in teaching order, NULL-terminated (lab/topics.c). */
extern const lab_topic_t *const lab_topics[];
const lab_topic_t *lab_topic_find(const char *name);

/* A topic option's value by name (NULL when not given). */
const char *lab_opt(const lab_run_t *r, const char *name);
/* Starts the report: title, columns, and the device and date lines. */
void lab_begin(lab_run_t *r, const char *title, const char *const *cols, const int *numeric, int ncols);
/* A chart to fill (NULL beyond LAB_MAX_CHARTS, or when no --svg was asked for: points then go nowhere). */
lab_chart_t *lab_chart(lab_run_t *r, const char *title, const char *xlabel, const char *ylabel, int logx);
void lab_point(lab_chart_t *c, const char *series, double x, double y);
/* The primers' claim, what this run measured, and the verdict ("holds", "does not hold here: ...") as a row of the
 * claims table printed after the results. */
void lab_claim(lab_run_t *r, const char *section, const char *claim, const char *measured, const char *verdict);
/* "gpuprim lab TOPIC: OPT: expected WHAT, got 'VAL'" on stderr; returns EXIT_USAGE (a topic's bad option value). */
int lab_bad_value(const lab_run_t *r, const char *opt, const char *what, const char *val);
/* Counts a failed verification and says what failed on stderr. */
void lab_fail(lab_run_t *r, const char *version, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Line charts stacked in one SVG file (written whole or not at all; prints why on failure). */
int svg_line_charts(const char *path, const char *title, const lab_chart_t *charts, int n);

#ifdef __cplusplus
}
#endif
#endif
