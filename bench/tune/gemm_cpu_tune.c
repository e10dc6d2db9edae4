/* gemm_cpu_tune.c — times the CPU backend's GEMM alone (gp__gemm_cpu, f32 NN, row-major) for the block sizes it was
 * compiled with (-DGP_GEMM_KC, -DGP_GEMM_MC); bench/tune/gemm_cpu_tune.sh builds one per choice and prints a table. */
#define _POSIX_C_SOURCE 200809L
#include "matrix/matrix_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        const size_t n = (size_t)atol(argv[a]);
        float *A = malloc(n * n * 4), *B = malloc(n * n * 4), *C = malloc(n * n * 4);
        for (size_t i = 0; i < n * n; i++) A[i] = (float)(i % 7) - 3, B[i] = (float)(i % 5) - 2, C[i] = 0;
        const gp__gemm_t g = {n, n, n, A, B, C, n, n, n, 1, 0, 1.0, 0.0};
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            const double t = now();
            gp__gemm_cpu(GP_F32, &g, 1);
            const double e = now() - t;
            if (e < best) best = e;
        }
        printf("KC %d MC %d n %zu: %.2f ms, %.0f GFLOP/s (%s)\n", GP_GEMM_KC, GP_GEMM_MC, n, best * 1e3,
               2.0 * (double)n * n * n / best / 1e9, gp__gemm_cpu_kernel_name());
        free(A), free(B), free(C);
    }
    return 0;
}
