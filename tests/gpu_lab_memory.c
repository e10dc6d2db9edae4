/* gpu_lab_memory.c — every version of `gpuprim lab memory` runs and verifies its output on the GPU (--quick sizes),
 * through the topic table and the runner's interface, as the CLI runs it. Exit 77 without a GPU. */
#include "lab.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    int count = 0;
    if (gp_device_count(&count) != GP_OK || count == 0) {
        printf("gpu_lab_memory: SKIPPED: no GPU\n");
        return 77;
    }
    const lab_topic_t *t = lab_topic_find("memory");
    lab_run_t *r = calloc(1, sizeof *r);
    if (!t || !r) return 1;
    r->topic = t;
    r->reps = 2;
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
    for (int i = 0; col >= 0 && i < r->report.nrows; i++)
        if (strcmp(report_cell(&r->report, i, col), "ok") != 0) fails++;
    int sections = 0;
    static const char *const secs[] = {"coalescing", "banks", "constant", "texture", "registers", "divergence",
                                       "atomics", "staircase"};
    for (int s = 0; s < 8; s++)
        for (int i = 0; i < r->report.nrows; i++)
            if (strcmp(report_cell(&r->report, i, 0), secs[s]) == 0) {
                sections++;
                break;
            }
    int ok = rc == EXIT_OK && r->failed == 0 && fails == 0 && col >= 0 && sections == 8 && r->report.nrows > 150 &&
             r->claims.nrows >= 12 && r->nchart >= 7;
    printf("gpu_lab_memory: rc %d, %d rows, %d sections, %d not ok, %d claims, %d charts: %s\n", rc, r->report.nrows,
           sections, fails, r->claims.nrows, r->nchart, ok ? "passed" : "FAILED");
    report_free(&r->report);
    report_free(&r->claims);
    gp_ctx_destroy(r->gpu);
    gp_ctx_destroy(r->cpu);
    free(r);
    return ok ? 0 : 1;
}
