/*
 * lab.h — the lab room (static library gpuprim_lab, reached from `gpuprim lab` alone, never linked into libgpuprim):
 * the topics, one descriptor type (lab_topic_t) and one table (lab/topics.c), and what a topic's run gets from the
 * one runner (tools/gpuprim/cmd_lab.c). Topics time with the bench room's harness (bench.h) and report through
 * tools/support (support.h). No CUDA header needed.
 */
#ifndef GP_LAB_H
#define GP_LAB_H

#include "gpuprim.h"
#include "bench.h"   /* the harness the topics time with, the peers */
#include "support.h" /* reports, charts, option values */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------- topics */
/* An option a topic takes beyond the runner's own (-d, --reps, --warmup, --json, --csv, --svg, --list, --help). */
typedef struct lab_opt {
    const char *name; /* "--bins" */
    const char *arg;  /* what its value is ("N"); NULL: a flag */
    const char *help;
} lab_opt_t;
enum { LAB_MAX_OPTS = 8, LAB_MAX_CHARTS = 12 };

/* A line chart a topic fills point by point; the runner draws every chart of the run into --svg FILE. */
typedef line_chart_t lab_chart_t;

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
#ifdef __cplusplus
}
#endif
#endif
