/* merge_items.c — which outputs a thread (GP_MERGE_ITEMS) the GPU merge should take: the variants merge_items.sh
 * builds (k_merge of src/sort/merge.cu at several tile shapes) timed side by side in one process on two sorted
 * halves of u32 keys, against a D2D copy of the same bytes; each variant's output compared with the CPU backend's
 * gp_merge. Built and run by merge_items.sh; the variants' names and shapes come from it (-DVARIANTS). */
#define _POSIX_C_SOURCE 200809L
#include "sort/sort_internal.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef gp_status_t (*merge_fn)(gp_ctx_t *, gp_dtype_t, size_t, const void *, size_t, const void *, void *, size_t,
                                const void *, const void *, void *, int, cudaStream_t);
#define V(name, label) gp_status_t name(gp_ctx_t *, gp_dtype_t, size_t, const void *, size_t, const void *, void *, \
                                        size_t, const void *, const void *, void *, int, cudaStream_t);
VARIANTS
#undef V
#define V(name, label) {label, name},
static const struct {
    const char *label;
    merge_fn f;
} g_v[] = {VARIANTS};
#undef V
enum { NV = sizeof g_v / sizeof g_v[0], REPS = 15 };

static int cmp_f(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
static float median(float *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_f);
    return t[n / 2];
}

int main(int argc, char **argv)
{
    const size_t n = (size_t)1 << (argc > 1 ? atoi(argv[1]) : 28), na = n / 2, nb = n - na;
    unsigned *h = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    if (!h || !want || !got) return 1;
    unsigned long long z = 88172645463325252ull;
    unsigned acc = 0; /* each half sorted by construction: sums of random steps of 0..31 */
    for (size_t i = 0; i < n; i++) {
        if (i == na) acc = 0;
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        acc += (unsigned)(z >> 59);
        h[i] = acc;
    }
    gp_ctx_t *cpu, *gpu;
    if (gp_ctx_create(&cpu, GP_DEVICE_CPU) != GP_OK || gp_ctx_create(&gpu, 0) != GP_OK ||
        gp_merge_sync(cpu, GP_U32, na, h, nb, h + na, want, 0, NULL, NULL, NULL, 0) != GP_OK) {
        fprintf(stderr, "merge_items: %s\n", gp_last_error());
        return 1;
    }
    unsigned *d, *o;
    cudaMalloc((void **)&d, n * 4), cudaMalloc((void **)&o, n * 4);
    cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice);
    for (int v = 0; v < NV; v++) {
        cudaMemset(o, 0xa5, n * 4);
        if (g_v[v].f(gpu, GP_U32, na, d, nb, d + na, o, 0, NULL, NULL, NULL, 0, 0) != GP_OK) {
            fprintf(stderr, "merge_items: %s: %s\n", g_v[v].label, gp_last_error());
            return 1;
        }
        cudaMemcpy(got, o, n * 4, cudaMemcpyDeviceToHost);
        printf("%-28s %s\n", g_v[v].label,
               memcmp(got, want, n * 4) ? "DIFFERS from the CPU backend" : "= the CPU backend");
    }
    static float ms[NV][REPS], cp[REPS];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    for (int r = 0; r < REPS; r++)
        for (int k = 0; k < NV; k++) { /* a different variant first each round */
            const int v = (k + r) % NV;
            cudaEventRecord(e0, 0);
            g_v[v].f(gpu, GP_U32, na, d, nb, d + na, o, 0, NULL, NULL, NULL, 0, 0);
            cudaEventRecord(e1, 0);
            cudaEventSynchronize(e1);
            cudaEventElapsedTime(&ms[v][r], e0, e1);
        }
    for (int r = 0; r < REPS; r++) {
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(o, d, n * 4, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&cp[r], e0, e1);
    }
    const float c = median(cp, REPS);
    printf("n = %zu u32 (two sorted halves); D2D copy of the same bytes %.1f us (median of %d)\n", n, 1e3 * c, REPS);
    for (int v = 0; v < NV; v++) {
        const float m = median(ms[v], REPS);
        printf("%-28s median %8.1f us  min %8.1f  %5.1f%% of the copy\n", g_v[v].label, 1e3 * m, 1e3 * ms[v][0],
               100.0 * c / m);
    }
    gp_ctx_destroy(gpu), gp_ctx_destroy(cpu);
    return 0;
}
