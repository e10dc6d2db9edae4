/* util.h — what the CLI's verbs share: option parsing, device choice, contexts, progress (reports, charts and the
 * bench harness are the lab's: lab/lab.h). */
#ifndef GP_CLI_UTIL_H
#define GP_CLI_UTIL_H

#include "lab.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Common options of the measuring verbs. device: GP_DEVICE_CPU, an ordinal, or -2 for "GPU 0 if present, else
 * CPU". */
typedef struct cli_common {
    int device;
    out_format_t fmt;
    const char *svg;
    int reps, warmup;
    unsigned given; /* COMMON_* bits: which common options the command line set */
} cli_common_t;
enum { COMMON_DEVICE = 1, COMMON_JSON = 2, COMMON_CSV = 4, COMMON_SVG = 8, COMMON_REPS = 16, COMMON_WARMUP = 32,
       COMMON_ALL = 63 };
/* A verb that takes only some common options refuses the others, one way for every verb: EXIT_USAGE after
 * "gpuprim VERB: OPTION does not apply to VERB (it takes ...)", else EXIT_OK. */
int common_only(const char *verb, const cli_common_t *c, unsigned allowed);
#define DEVICE_AUTO GP_DEVICE_DEFAULT
#define DEVICE_FASTEST (-100) /* --device auto: the backend estimated faster end to end for this input */

/* --device auto. A verb describes its work; the model estimates the wall time on the CPU backend (this machine's
 * threads) and on a GPU (its start-up, the input read at page-cache speed, the device time), and picks. Unknown sizes
 * (a pipe) compare the rates alone. The constants and where they were measured: tools/gpuprim/util.c. */
typedef enum { WORK_REDUCE_FAST, WORK_REDUCE_SLOW, WORK_ORDERED, WORK_HIST, WORK_HIST_WIDE, WORK_TRANSPOSE,
               WORK_GEMM, WORK_SCAN } work_kind_t;
typedef struct work {
    work_kind_t kind;
    double bytes; /* input bytes; < 0: unknown (a pipe) */
    double flops; /* GEMM: 2 m n k */
    int threads;  /* CPU threads to assume; 0: the CPU backend's */
} work_t;
/* Estimates in seconds (cpu_s, gpu_s); with a known size, the GPU's includes its start-up. */
void work_estimate(const work_t *w, double *cpu_s, double *gpu_s);
/* DEVICE_FASTEST: GP_DEVICE_CPU or DEVICE_AUTO by the estimate, said on stderr in one line (unless quiet); any other
 * device is returned as it is. */
int pick_device(const char *verb, int device, const work_t *w, int quiet);

/* Prints "gpuprim VERB: OPT: expected WHAT, got 'VAL'" and returns EXIT_USAGE. */
int bad_value(const char *verb, const char *opt, const char *what, const char *val);
/* nccl-tests' size sweep: -b MIN -e MAX [-f FACTOR]: sizes MIN, MIN*F, MIN*F^2, ... up to MAX (F > 1, default
 * given at init). A verb says what a size is (bytes, or a matrix side). */
typedef struct sweep {
    size_t b, e;
    double f;
    int given; /* -b or -e was on the command line */
} sweep_t;
/* Tries -b/-e/-f at argv[*i] (consuming the value): 1 taken, 0 not ours, -1 bad value (said, naming the verb). */
int parse_sweep(const char *verb, int argc, char **argv, int *i, sweep_t *s);
/* After the options: -b alone sweeps to the verb's default end (or is the one size, past it), -e alone likewise;
 * MIN <= MAX checked.
 * 0 ok, else EXIT_USAGE (said). */
int sweep_check(const char *verb, sweep_t *s);
/* The sizes in order, ending on MAX, at most max of them; returns the count. */
size_t sweep_sizes(const sweep_t *s, size_t *out, size_t max);

/* "cpu" or an ordinal. */
int parse_device(const char *s, int *device);

/* ---------------------------------------------------------------------------------------------- the option parser
 * One parser for every verb (cli_parse): the common options (taken, or refused in one way by common_only), the
 * nccl-tests sweep -b/-e/-f where a verb has one, the verb's own options from its table, positional arguments, and
 * -h/--help. Values are strings; the verb converts and checks them after (parse_size and friends, lab/lab.h). */
typedef struct cli_opt {
    const char *names;  /* "--op", or alternatives "-n|--count" */
    const char *arg;    /* its value's name in messages ("OP"); NULL: a flag */
    const char **value; /* set to the value (a flag: to its first name) when given; the last one wins */
} cli_opt_t;
typedef struct cli_spec {
    const char *verb;       /* messages say "gpuprim VERB: ..." */
    unsigned common;        /* the COMMON_* options it takes (the others are refused) */
    sweep_t *sweep;         /* -b/-e/-f land here (NULL: the verb has no sweep) */
    const cli_opt_t *opts;  /* its own options, ended by a NULL names (NULL: none) */
    int max_pos;            /* how many positional arguments (a file, "-" for stdin) it takes */
    void (*usage)(FILE *f); /* -h/--help prints it on stdout; a usage error names --help */
} cli_spec_t;
enum { CLI_HELP = -1 };
/* Parses argv[1..] into *c (its defaults set by the caller), the table's values and pos[0 .. *npos). Returns EXIT_OK,
 * CLI_HELP (usage printed; the verb returns EXIT_OK) or EXIT_USAGE (said on stderr). */
int cli_parse(const cli_spec_t *spec, int argc, char **argv, cli_common_t *c, const char **pos, int *npos);
/* Tries the common options at argv[*i] (consuming a value if it takes one): 1 taken, 0 not ours, -1 bad value.
 * cli_parse's first step, exposed for the lab runner's topic options and the tests. */
int parse_common(int argc, char **argv, int *i, cli_common_t *c);
/* Why there is no GPU to use, in one short line: "no NVIDIA GPU/driver found" for a missing device or driver (the
 * common case, told once and plainly), else the GPU's own error. Returns buf. */
const char *gpu_absent_reason(gp_status_t st, char *buf, size_t len);
/* The CPU-fallback note, "WHO: WHY — DOING", printed once per process (a demo runs many verbs); who NULL: count it
 * as said. */
void note_cpu(const char *who, const char *why, const char *doing);
/* Opens the context the options ask for. With DEVICE_AUTO and no GPU: the CPU backend, and *why_cpu says why. */
gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len);
double now_seconds(void);           /* a monotonic clock */
/* A gp_progress_fn for the data verbs: a bar on stderr when it is a terminal and the work has taken over a second
 * (bytes and MB/s when the total is unknown). Print a newline after the work if `shown`. */
typedef struct progress_bar {
    double t0;
    int shown;
} progress_bar_t;
void progress_bar(void *user, size_t done, size_t total);
/* Seconds of work before a bar or spinner shows: 1, or GPUPRIM_PROGRESS_AFTER (a number >= 0) from the environment. */
double progress_after(void);
/* A spinner with the elapsed time on stderr, for work that reports no steps (a GEMM, a transpose): a thread draws it
 * once the work has taken progress_after() seconds, only when stderr is a terminal; spinner_stop clears the line. */
typedef struct spinner {
    void *impl;
} spinner_t;
void spinner_start(spinner_t *s, const char *what);
void spinner_stop(spinner_t *s);
/* open_context for the data verbs: prints the failure or the CPU fallback note with the verb's name; returns EXIT_OK or
 * the exit code (3 no GPU, 4 no driver, 1 otherwise). */
int open_context_verb(const char *verb, int device, gp_ctx_t **ctx);
/* open_context_verb's second half, for a context made elsewhere (gp_ctx_open_finish): the failure (st) or the CPU
 * fallback note said; the exit code. */
int context_opened(const char *verb, int device, gp_status_t st, const gp_ctx_t *ctx);

/* Values for reports: a scalar of kind acc (GP_F32 / GP_F64 / GP_I64, else unsigned), or one element of dtype at p,
 * as text or as JSON (non-finite floats as "nan" / "inf" / "-inf" strings). */
void print_scalar(FILE *o, int32_t acc, gp_scalar_t v, int json);
void print_elem(FILE *o, gp_dtype_t dt, const void *p, int json);

#endif
