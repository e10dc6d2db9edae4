/* gpu_lab_concurrency.c — every version of `gpuprim lab concurrency` runs and verifies its output on the GPU (--quick
 * sizes), through the topic table and the runner's interface, as the CLI runs it: every section present (a device
 * without persisting L2 or clusters says "skipped" for that section), no check other than "ok" / "skipped", the claims
 * and charts made. Exit 77 without a GPU. */
#include "lab.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    int count = 0;
    if (gp_device_count(&count) != GP_OK || count == 0) {
        printf("gpu_lab_concurrency: SKIPPED: no GPU\n");
        return 77;
    }
    const lab_topic_t *t = lab_topic_find("concurrency");
    lab_run_t *r = calloc(1, sizeof *r);
    if (!t || !r) return 1;
    r->topic = t;
    r->reps = 3;
    r->warmup = 1;
    r->svg = 1;
    for (int k = 0; t->opts[k].name; k++)
        if (strcmp(t->opts[k].name, "--quick") == 0) r->value[k] = "";
    if (gp_ctx_create(&r->cpu, GP_DEVICE_CPU) != GP_OK || gp_ctx_create(&r->gpu, 0) != GP_OK) {
        fprintf(stderr, "contexts: %s\n", gp_last_error());
        return 1;
    }
    const int rc = t->run(r);
    report_print_with(&r->report, &r->claims, "claims", FMT_TABLE, stdout);
    int fails = 0, col = -1;
    for (int c = 0; c < r->report.ncols; c++)
        if (strcmp(r->report.cols[c], "check") == 0) col = c;
    for (int i = 0; col >= 0 && i < r->report.nrows; i++) {
        const char *c = report_cell(&r->report, i, col);
        if (strcmp(c, "ok") != 0 && strcmp(c, "skipped") != 0) fails++;
    }
    int sections = 0;
    static const char *const secs[] = {"overlap", "kernels", "timers", "graphs", "persist", "managed", "dsm"};
    for (int s = 0; s < 7; s++)
        for (int i = 0; i < r->report.nrows; i++)
            if (strcmp(report_cell(&r->report, i, 0), secs[s]) == 0) {
                sections++;
                break;
            }
    const int ok = rc == EXIT_OK && r->failed == 0 && fails == 0 && col >= 0 && sections == 7 &&
                   r->report.nrows >= 30 && r->claims.nrows >= 8 && r->nchart >= 3;
    printf("gpu_lab_concurrency: rc %d, %d rows, %d sections, %d not ok, %d claims, %d charts: %s\n", rc,
           r->report.nrows, sections, fails, r->claims.nrows, r->nchart, ok ? "passed" : "FAILED");
    report_free(&r->report);
    report_free(&r->claims);
    gp_ctx_destroy(r->gpu);
    gp_ctx_destroy(r->cpu);
    free(r);
    return ok ? 0 : 1;
}
