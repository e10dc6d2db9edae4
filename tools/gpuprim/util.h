/* util.h — what the CLI's verbs share: argument parsing helpers, reports (table / JSON / CSV), SVG bar charts. */
#ifndef GP_CLI_UTIL_H
#define GP_CLI_UTIL_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdio.h>

/* Exit codes of the CLI. */
enum {
    EXIT_OK = 0,
    EXIT_FAIL = 1,       /* the operation failed (message on stderr) */
    EXIT_USAGE = 2,      /* bad command line */
    EXIT_NO_GPU = 3,     /* no CUDA device present (the CPU backend answered where it could) */
    EXIT_NO_DRIVER = 4,  /* no usable CUDA driver (the CPU backend answered where it could) */
    EXIT_MISMATCH = 5    /* a verification failed (lab, demo) */
};

typedef enum { FMT_TABLE = 0, FMT_JSON, FMT_CSV } out_format_t;

/* Common options of the measuring verbs. device: GP_DEVICE_CPU, an ordinal, or -2 for "GPU 0 if present, else
 * CPU". */
typedef struct cli_common {
    int device;
    out_format_t fmt;
    const char *svg;
    int reps, warmup;
} cli_common_t;
#define DEVICE_AUTO (-2)

/* Parses "123", "4K", "64M", "1G", "2^28" (K/M/G are powers of 1024). Returns 0 on success. */
int parse_size(const char *s, size_t *out);
/* Tries the common options at argv[*i] (consuming a value if it takes one): 1 taken, 0 not ours, -1 bad value. */
int parse_common(int argc, char **argv, int *i, cli_common_t *c);
/* "cpu" or an ordinal. */
int parse_device(const char *s, int *device);
/* Opens the context the options ask for. With DEVICE_AUTO and no GPU: the CPU backend, and *why_cpu says why. */
gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len);
/* A one-line device description ("NVIDIA H200 (sm_90, 132 SMs), driver 13.0" or the CPU model). */
void describe_device(gp_ctx_t *ctx, char *out, size_t len);
void today(char *out, size_t len); /* YYYY-MM-DD */
double now_seconds(void);           /* a monotonic clock */
/* A gp_progress_fn for the data verbs: a bar on stderr when it is a terminal and the work has taken over a second
 * (bytes and MB/s when the total is unknown). Print a newline after the work if `shown`. */
typedef struct progress_bar {
    double t0;
    int shown;
} progress_bar_t;
void progress_bar(void *user, size_t done, size_t total);
/* open_context for the data verbs: prints the failure or the CPU fallback note with the verb's name; returns EXIT_OK or
 * the exit code (3 no GPU, 4 no driver, 1 otherwise). */
int open_context_verb(const char *verb, int device, gp_ctx_t **ctx);

/* ---------------------------------------------------------------------------------------------- reports */
#define REPORT_MAX_COLS 16
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
} report_t;

void report_init(report_t *r, const char *title, const char *const *cols, const int *numeric, int ncols);
void report_meta(report_t *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends a row; the cells are printf-formatted by the caller. Returns the row index, or -1 when out of memory. */
int report_row(report_t *r, const char *const *cells);
const char *report_cell(const report_t *r, int row, int col);
void report_print(const report_t *r, out_format_t fmt, FILE *f);
void report_free(report_t *r);
/* JSON string escaping into f. */
void json_string(FILE *f, const char *s);

/* A horizontal bar chart: one bar per label, with an optional dashed reference line (ref <= 0: none). */
int svg_bar_chart(const char *path, const char *title, const char *unit, const char *const *labels,
                  const double *values, int n, double ref, const char *ref_label);

#endif
