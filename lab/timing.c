/* timing.c — the timing and the one check every GPU topic with 32-bit outputs shares (lab_versions.h): CUDA events
 * around each run, the first timed run's output compared word by word with the reference, the median. */
#include "lab_versions.h"

#include <stdlib.h>

static int cmp_ms(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int lab_time_checked(lab_run_t *r, int id, const char *name, int reps, cudaStream_t s, lab_launch_fn launch,
                     void *ctx, uint32_t *out, size_t n, const uint32_t *ref, uint32_t *got, const char *what,
                     float *ms, int *bad)
{
    float t[64];
    cudaEvent_t e0 = NULL, e1 = NULL;
    int rc = -1;
    reps = reps < 1 ? 1 : reps > 64 ? 64 : reps;
    *bad = 0;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        fprintf(stderr, "gpuprim lab %s: %s: events: %s\n", r->topic->name, name,
                cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    for (int k = 0; k < r->warmup + reps; k++) {
        cudaError_t e = cudaMemsetAsync(out, 0xa5, n * 4, s);
        if (e == cudaSuccess) e = cudaEventRecord(e0, s);
        if (e == cudaSuccess) e = launch(ctx, id, n);
        if (e == cudaSuccess) e = cudaEventRecord(e1, s);
        if (e == cudaSuccess) e = cudaEventSynchronize(e1);
        if (e != cudaSuccess) {
            fprintf(stderr, "gpuprim lab %s: %s: %s\n", r->topic->name, name,
                    e == cudaErrorUnknown ? gp_last_error() : cudaGetErrorString(e));
            goto out;
        }
        if (k >= r->warmup) cudaEventElapsedTime(&t[k - r->warmup], e0, e1);
        if (k == r->warmup) { /* check one timed run's output */
            if (cudaMemcpy(got, out, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
                lab_fail(r, name, "copying its output back: %s", cudaGetErrorString(cudaGetLastError()));
                *bad = 1;
            }
            for (size_t i = 0; !*bad && i < n; i++)
                if (got[i] != ref[i]) {
                    lab_fail(r, name, "%s %zu: %u, want %u", what, i, got[i], ref[i]);
                    *bad = 1;
                }
        }
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_ms);
    *ms = t[reps / 2];
    rc = 0;
out:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return rc;
}
