/* util.h — what the CLI's verbs share beyond tools/support (support.h): the --device auto model, progress bars and
 * spinners, scalars and elements as text or JSON. */
#ifndef GP_CLI_UTIL_H
#define GP_CLI_UTIL_H

#include "support.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --device auto. A verb describes its work; the model estimates the wall time on the CPU backend (this machine's
 * threads) and on a GPU (its start-up, the input read at page-cache speed, the device time), and picks. Unknown sizes
 * (a pipe) compare the rates alone. The constants and where they were measured: tools/gpuprim/device_auto.c. */
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
/* DEVICE_AUTO: GP_DEVICE_CPU or DEVICE_DEFAULT by the estimate, said on stderr in one line (unless quiet); any other
 * device is returned as it is. */
int pick_device(const char *verb, int device, const work_t *w, int quiet);

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
/* A new label for a running spinner (a verb's next phase: "sorting", "writing OUT"); nothing when none runs. */
void spinner_set(spinner_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Values for reports: a scalar of kind acc (GP_F32 / GP_F64 / GP_I64, else unsigned), or one element of dtype at p,
 * as text or as JSON (non-finite floats as "nan" / "inf" / "-inf" strings). */
void print_scalar(FILE *o, int32_t acc, gp_scalar_t v, int json);
void print_elem(FILE *o, gp_dtype_t dt, const void *p, int json);

#endif
