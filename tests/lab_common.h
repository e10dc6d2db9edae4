/* lab_common.h — what the GPU tests of lab topics share: run a topic through its table entry and the runner's
 * interface as the CLI does (--quick sizes, charts on), then check that every row verified ("ok", or "skipped" where a
 * device lacks a feature and says so), every section appeared, and enough claims and charts were made. */
#ifndef GP_TESTS_LAB_COMMON_H
#define GP_TESTS_LAB_COMMON_H

#include "lab.h"

#include <stdlib.h>
#include <string.h>

/* Returns the test's exit code: 0 passed, 1 failed, 77 no GPU. */
static int lab_topic_check(const char *name, const char *const *sections, int nsec, int min_rows, int min_claims,
                           int min_charts, int reps)
{
    int count = 0;
    if (gp_device_count(&count) != GP_OK || count == 0) {
        printf("gpu_lab_%s: SKIPPED: no GPU\n", name);
        return 77;
    }
    const lab_topic_t *t = lab_topic_find(name);
    lab_run_t *r = calloc(1, sizeof *r);
    if (!t || !r) return 1;
    r->topic = t;
    r->reps = reps;
    r->warmup = 1;
    r->svg = 1;
    for (int k = 0; t->opts && t->opts[k].name; k++)
        if (strcmp(t->opts[k].name, "--quick") == 0) r->value[k] = "";
    if (gp_ctx_create(&r->cpu, GP_DEVICE_CPU) != GP_OK || gp_ctx_create(&r->gpu, 0) != GP_OK) {
        fprintf(stderr, "contexts: %s\n", gp_last_error());
        return 1;
    }
    const int rc = t->run(r);
    report_print_with(&r->report, &r->claims, "claims", FMT_TABLE, stdout);
    int fails = 0, col = -1, seen = 0;
    for (int c = 0; c < r->report.ncols; c++)
        if (strcmp(r->report.cols[c], "check") == 0) col = c;
    for (int i = 0; col >= 0 && i < r->report.nrows; i++) {
        const char *c = report_cell(&r->report, i, col);
        if (strcmp(c, "ok") != 0 && strcmp(c, "skipped") != 0) fails++;
    }
    for (int s = 0; s < nsec; s++)
        for (int i = 0; i < r->report.nrows; i++)
            if (strcmp(report_cell(&r->report, i, 0), sections[s]) == 0) {
                seen++;
                break;
            }
    const int ok = rc == EXIT_OK && r->failed == 0 && fails == 0 && col >= 0 && seen == nsec &&
                   r->report.nrows >= min_rows && r->claims.nrows >= min_claims && r->nchart >= min_charts;
    printf("gpu_lab_%s: rc %d, %d rows, %d sections, %d not ok, %d claims, %d charts: %s\n", name, rc,
           r->report.nrows, seen, fails, r->claims.nrows, r->nchart, ok ? "passed" : "FAILED");
    report_free(&r->report);
    report_free(&r->claims);
    gp_ctx_destroy(r->gpu);
    gp_ctx_destroy(r->cpu);
    free(r);
    return ok ? 0 : 1;
}

#endif
