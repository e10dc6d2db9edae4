/*
 * support.h — what every command of the CLI, bench suite and lab topic shares (static library gpuprim_support,
 * tools/support/; never linked into libgpuprim): exit codes, the one option parser and the values of options, reports
 * and one-record results through one writer (table, JSON, CSV), output files written whole or not at all, SVG charts,
 * the contexts a command runs on and the device lines its reports start with. Needs gpuprim.h alone.
 */
#ifndef GP_SUPPORT_H
#define GP_SUPPORT_H

#include "gpuprim.h"

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
/* ---------------------------------------------------------------------------------------------- the option parser */
/* Common options of the measuring verbs. device: GP_DEVICE_CPU, an ordinal, DEVICE_DEFAULT (no -d: GPU 0 if present,
 * else the CPU backend) or DEVICE_AUTO (-d auto, for a verb whose spec has COMMON_AUTO: the backend pick_device
 * estimates faster for its input). */
typedef struct cli_common {
    int device;
    out_format_t fmt;
    const char *svg;
    int reps, warmup;
    unsigned given; /* COMMON_* bits: which common options the command line set */
} cli_common_t;
enum { COMMON_DEVICE = 1, COMMON_JSON = 2, COMMON_CSV = 4, COMMON_SVG = 8, COMMON_REPS = 16, COMMON_WARMUP = 32,
       COMMON_ALL = 63, COMMON_AUTO = 64 /* -d auto too */,
       COMMON_DATA = COMMON_DEVICE | COMMON_AUTO | COMMON_JSON | COMMON_CSV /* the data verbs' */ };
/* A verb that takes only some common options refuses the others, one way for every verb: EXIT_USAGE after
 * "gpuprim VERB: OPTION does not apply to VERB (it takes ...)", else EXIT_OK. */
int common_only(const char *verb, const cli_common_t *c, unsigned allowed);
#define DEVICE_DEFAULT GP_DEVICE_DEFAULT
#define DEVICE_AUTO (-100) /* -d auto: the backend estimated faster end to end for this input (pick_device) */

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

/* "cpu", "auto" or an ordinal: the one reading of -d/--device. */
int parse_device(const char *s, int *device);

/* ---------------------------------------------------------------------------------------------- the option parser
 * One table per verb, suite and topic is the truth about its options: cli_parse accepts what the table holds (the
 * common options it names in .common, the nccl-tests sweep -b/-e/-f where it has one, its own options, positional
 * arguments, -h/--help), cli_usage prints the help from it, `gpuprim completion` makes the shell completions and the
 * man page's options from it, and tests/test_cli_surface.sh checks each help against what the parser accepts. Values
 * are strings in the verb's own struct (OPT_AT); the verb converts and checks their ranges after (parse_size and
 * friends, lab/lab.h); an OPT_WORD's value is one of its words when cli_parse returns EXIT_OK. */
typedef enum {
    OPT_FLAG = 0, /* no value; set to the name it was given by */
    OPT_TEXT,     /* free text: an expression, a list */
    OPT_FILE,     /* a path (completes to files) */
    OPT_COUNT,    /* a whole count, parse_size's: 123, 4K, 1.5M, 2^20 */
    OPT_NUMBER,   /* a number */
    OPT_WORD,     /* one of its words (.words, else arg's alternatives "c|f"): refused otherwise */
    OPT_DTYPE     /* a dtype name (completes to them) */
} opt_kind_t;
typedef struct cli_opt {
    const char *names;     /* "--op", or alternatives "-o|--output" */
    opt_kind_t kind;
    const char *arg;       /* the value's name in the help and messages ("OUT", "c|f"); NULL for a flag */
    size_t at;             /* where the value lands: OPT_AT(the verb's struct, a const char * member) */
    const char *help;      /* what it does, for the help (wrapped there) */
    const char *def;       /* the default as the help says it (NULL: none to say) */
    const char *conflicts; /* "--a|--b": options it is not given with (refused at parse, named in the help) */
    const char *words;     /* OPT_WORD: the words it takes, space-separated (NULL: arg's alternatives); other kinds:
                              what completion offers (NULL: files for OPT_FILE, else nothing) */
} cli_opt_t;
/* The offset of member m of struct type T, which must be a const char *: a table entry's .at. */
#define OPT_AT(T, m) (offsetof(T, m) + 0 * sizeof(_Generic(((T *)0)->m, const char *: 1)))
typedef struct cli_spec {
    const char *verb;        /* messages say "gpuprim VERB: ..." */
    unsigned common;         /* the COMMON_* options it takes (the others are refused) */
    sweep_t *sweep;          /* -b/-e/-f land here (NULL: the verb has no sweep) */
    const cli_opt_t *opts;   /* its own options, ended by a NULL names (NULL: none) */
    int max_pos;             /* how many positional arguments (a file, "-" for stdin) it takes */
    const char *synopsis;    /* the usage line(s) after "gpuprim VERB ", '\n' between forms */
    const char *about;       /* what it does: prose, re-wrapped by the help, a blank line between paragraphs (an
                                option it names must be in .opts) */
    const char *sweep_unit;  /* what -b/-e sizes are ("bytes", "a matrix side"); with .sweep */
} cli_spec_t;
enum { CLI_HELP = -1 };
/* Parses argv[1..] into *c (its defaults set by the caller), the table's values into *vals (each OPT_AT member set
 * to NULL first) and pos[0 .. *npos). Returns EXIT_OK, CLI_HELP (the help printed; the verb returns EXIT_OK) or
 * EXIT_USAGE (said on stderr). */
int cli_parse(const cli_spec_t *spec, int argc, char **argv, cli_common_t *c, void *vals, const char **pos,
              int *npos);
/* The help, made from the spec: usage lines, the about text, then every option it takes (its own, the sweep's, the
 * common ones, -h) with its value, help, default and conflicts. */
void cli_usage(const cli_spec_t *spec, FILE *f);
/* Each option a spec takes, in the help's order, as (names, kind, arg, help): its own, the sweep's, the common ones.
 * fn returns nonzero to stop. For the completions, the man page and `gpuprim completion options`. */
typedef struct cli_opt_view {
    const char *names, *arg, *help, *def, *conflicts, *words;
    opt_kind_t kind;
} cli_opt_view_t;
void cli_each_option(const cli_spec_t *spec, int (*fn)(void *user, const cli_opt_view_t *o), void *user);
/* The words of an OPT_WORD view, space-separated, into buf (empty for other kinds). */
const char *cli_opt_words(const cli_opt_view_t *o, char *buf, size_t cap);
/* The words of a yes|no option (OPT_WORD with YES_NO_WORDS): 0 for no, false, 0; 1 for the others and for NULL
 * (not given: dflt). */
#define YES_NO_WORDS "yes no true false 1 0"
int opt_yes(const char *v, int dflt);
/* Tries the common options at argv[*i] (consuming a value if it takes one): 1 taken, 0 not ours, -1 bad value.
 * cli_parse's first step, exposed for the tests. */
int parse_common(int argc, char **argv, int *i, cli_common_t *c);
/* ---------------------------------------------------------------------------------------------- commands */
/* A command: one line of a table (the CLI's verbs, main.c; the bench's suites, bench/suites.c) from which dispatch,
 * help, did-you-mean and the shell completions are made. spec: its options (NULL: it parses its own, as lab and
 * bench do); subs: its sub-commands (bench's suites, lab's topics), NULL-terminated (NULL: none), whose names it
 * takes as its first argument. */
typedef struct verb {
    const char *name, *args, *summary;
    const cli_spec_t *spec;
    int (*run)(int argc, char **argv);
    const struct verb *const *(*subs)(void);
} verb_t;

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
/* A metadata line (key: value); a key given again replaces its value. */
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
 * $TMPDIR (else /tmp) that out_close copies there and removes. Temporaries "TARGET.tmp-PID-N" of the caller's whose
 * process no longer runs (killed with SIGKILL) are removed when the same target is next opened. A temporary is removed on SIGINT, SIGTERM, SIGHUP and
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
    int stage;         /* where it failed (out_stage_t) */
    unsigned long long copied; /* bytes a stream target took before a failure (its output is then incomplete) */
} out_file_t;
typedef enum { OUT_AT_NONE = 0, OUT_AT_TARGET, OUT_AT_TMP, OUT_AT_WRITE, OUT_AT_COMMIT, OUT_AT_COPY } out_stage_t;
FILE *out_open(out_file_t *o, const char *path);
/* Why o failed, as the end of a message after "cannot write PATH: ": the step, the reason, and what became of the
 * target ("nothing written", or for a stream the bytes it took before the failure). */
void out_describe(const out_file_t *o, int err, char *buf, size_t cap);
int out_finish(out_file_t *o, int ok);
int out_commit(out_file_t *o);
int out_close(out_file_t *o, int ok);
/* Drops an output opened or finished but not committed. */
void out_discard(out_file_t *o);
/* path and other name the same file (after links; "-" is standard output), so two outputs of one run collide. */
int out_same_target(const char *path, const char *other);
/* Whether an output named path is written as .npy: its name ends in .npy, in any case (.NPY too). */
int out_is_npy(const char *path);

/* ---------------------------------------------------------------------------------------------- charts */
/* A histogram as a column chart of any bin count: adjacent bins summed into at most 240 columns, a y axis with
 * round ticks, the range on the x axis (written whole or not at all; prints why on failure). */
int svg_histogram(const char *path, const char *title, double lo, double hi, const uint64_t *counts, size_t nbins);
/* A horizontal bar chart (written whole or not at all; prints why on failure): one bar per label, with an optional dashed reference line (ref <= 0: none). */
int svg_bar_chart(const char *path, const char *title, const char *unit, const char *const *labels,
                  const double *values, int n, double ref, const char *ref_label);
/* A line chart filled point by point (the lab's charts); svg_line_charts stacks several in one file. */
enum { CHART_MAX_SERIES = 6, CHART_MAX_POINTS = 64 };
typedef struct line_chart {
    char title[96], xlabel[64], ylabel[64];
    int logx; /* x on a log2 axis */
    int nseries;
    char series[CHART_MAX_SERIES][48];
    int npoints[CHART_MAX_SERIES];
    double x[CHART_MAX_SERIES][CHART_MAX_POINTS], y[CHART_MAX_SERIES][CHART_MAX_POINTS];
} line_chart_t;
/* Line charts stacked in one SVG file (written whole or not at all; prints why on failure). */
int svg_line_charts(const char *path, const char *title, const line_chart_t *charts, int n);

/* ---------------------------------------------------------------------------------------------- devices */
/* Why there is no GPU to use, in one short line: "no NVIDIA GPU/driver found" for a missing device or driver (the
 * common case, told once and plainly), else the GPU's own error. Returns buf. */
const char *gpu_absent_reason(gp_status_t st, char *buf, size_t len);
/* The CPU-fallback note, "WHO: WHY — DOING", printed once per process (a demo runs many verbs); who NULL: count it
 * as said. */
void note_cpu(const char *who, const char *why, const char *doing);
/* Opens the context the options ask for: GP_DEVICE_CPU, an ordinal or DEVICE_DEFAULT (DEVICE_AUTO is resolved
 * before, by pick_device: the one place -d auto is weighed). With DEVICE_DEFAULT and no GPU: the CPU backend, and
 * *why_cpu says why. */
gp_status_t open_context(int device, gp_ctx_t **ctx, char *why_cpu, size_t why_len);
double now_seconds(void); /* a monotonic clock */
/* open_context for the data verbs: prints the failure or the CPU fallback note with the verb's name; returns EXIT_OK or
 * the exit code (3 no GPU, 4 no driver, 1 otherwise). */
int open_context_verb(const char *verb, int device, gp_ctx_t **ctx);
/* open_context_verb's second half, for a context made elsewhere (gp_ctx_open_finish): the failure (st) or the CPU
 * fallback note said; the exit code. */
int context_opened(const char *verb, int device, gp_status_t st, const gp_ctx_t *ctx);

/* A one-line device description ("NVIDIA H200 (sm_90, 132 SMs), driver 13.0" or the CPU model). */
void describe_device(gp_ctx_t *ctx, char *out, size_t len);
void today(char *out, size_t len); /* YYYY-MM-DD */
/* A report's "device" (describe_device) and "date" (today) lines: every bench, lab and data report starts so. */
void report_meta_device(report_t *r, gp_ctx_t *ctx);

/* The group --devices names. SPEC: "all" (every GPU, NCCL), "0,1,..." (those GPUs, NCCL), "cpu:K" / "gpu:K" (K
 * emulated members on the CPU backend / on GPU 0: the same results without NCCL). Returns EXIT_OK or the exit code
 * after printing why. */
int group_open(const char *verb, const char *spec, gp_group_t **g);
/* The group --ranks names. SPEC: "env" (this process is one rank of a group a launcher started; rank, size, GPU and
 * meeting point from the environment: gp_group_create_from_env). Returns EXIT_OK or the exit code after printing why. */
int group_open_ranks(const char *verb, const char *spec, gp_group_t **g);
/* "2 GPUs (nccl: 0, 1)" and the like; a rank of a launcher's group: "rank 1 of 2 (nccl: GPU 1)". */
void group_describe(gp_group_t *g, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
