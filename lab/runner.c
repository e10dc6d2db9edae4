/* runner.c — what a lab topic's run uses from the runner (lab/lab.h): its options, the report's head, charts,
 * failures. The runner itself (options, contexts, printing) is the CLI's `gpuprim lab` (tools/gpuprim/cmd_lab.c). */
#include "lab.h"

#include <stdarg.h>
#include <string.h>

const lab_topic_t *lab_topic_find(const char *name)
{
    for (int t = 0; lab_topics[t]; t++)
        if (strcmp(lab_topics[t]->name, name) == 0) return lab_topics[t];
    return NULL;
}

const char *lab_opt(const lab_run_t *r, const char *name)
{
    for (int k = 0; r->topic->opts && k < LAB_MAX_OPTS && r->topic->opts[k].name; k++)
        if (strcmp(r->topic->opts[k].name, name) == 0) return r->value[k];
    return NULL;
}

void lab_begin(lab_run_t *r, const char *title, const char *const *cols, const int *numeric, int ncols)
{
    report_free(&r->report);
    report_init(&r->report, title, cols, numeric, ncols);
    report_meta_device(&r->report, r->gpu ? r->gpu : r->cpu);
}

lab_chart_t *lab_chart(lab_run_t *r, const char *title, const char *xlabel, const char *ylabel, int logx)
{
    if (!r->svg || r->nchart >= LAB_MAX_CHARTS) return NULL;
    lab_chart_t *c = &r->chart[r->nchart++];
    memset(c, 0, sizeof *c);
    snprintf(c->title, sizeof c->title, "%s", title);
    snprintf(c->xlabel, sizeof c->xlabel, "%s", xlabel);
    snprintf(c->ylabel, sizeof c->ylabel, "%s", ylabel);
    c->logx = logx;
    return c;
}

void lab_point(lab_chart_t *c, const char *series, double x, double y)
{
    if (c == NULL) return;
    int s = 0;
    while (s < c->nseries && strcmp(c->series[s], series) != 0) s++;
    if (s == c->nseries) {
        if (s == CHART_MAX_SERIES) return;
        snprintf(c->series[s], sizeof c->series[0], "%s", series);
        c->nseries++;
    }
    if (c->npoints[s] == CHART_MAX_POINTS) return;
    c->x[s][c->npoints[s]] = x;
    c->y[s][c->npoints[s]++] = y;
}

int lab_bad_value(const lab_run_t *r, const char *opt, const char *what, const char *val)
{
    fprintf(stderr, "gpuprim lab %s: %s: expected %s, got '%s'\n", r->topic->name, opt, what, val ? val : "(nothing)");
    return EXIT_USAGE;
}

void lab_fail(lab_run_t *r, const char *version, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpuprim lab %s: %s FAILED verification: %s\n", r->topic->name, version, msg);
    r->failed++;
}

void lab_claim(lab_run_t *r, const char *section, const char *claim, const char *measured, const char *verdict)
{
    static const char *const cols[] = {"section", "the primers say", "measured here", "verdict"};
    if (r->claims.ncols == 0) report_init(&r->claims, "the primers' claims on this device", cols, NULL, 4);
    const char *cells[] = {section, claim, measured, verdict};
    report_row(&r->claims, cells);
}
