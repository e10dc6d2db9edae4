/* startup_probe.c — where a GPU run's start-up goes, phase by phase. Built and run by
 * bench/tune/startup.sh on a machine with a GPU; prints one line per phase in milliseconds. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <time.h>

static double ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(void)
{
    double t = ms(), t0 = t;
    int n = 0;
#define PHASE(name, expr)                                                                                  \
    do {                                                                                                   \
        cudaError_t e = (expr);                                                                            \
        const double u = ms();                                                                             \
        printf("%-40s %8.2f ms%s%s\n", name, u - t, e ? "  error: " : "", e ? cudaGetErrorString(e) : ""); \
        t = u;                                                                                             \
    } while (0)
    PHASE("cudaGetDeviceCount (driver init)", cudaGetDeviceCount(&n));
    PHASE("cudaSetDevice + cudaFree(0) (context)", (cudaSetDevice(0), cudaFree(0)));
    void *h[3], *d[3];
    for (int i = 0; i < 3; i++) PHASE("cudaHostAlloc 16 MiB", cudaHostAlloc(&h[i], (size_t)16 << 20, 0));
    for (int i = 0; i < 3; i++) PHASE("cudaMalloc 16 MiB", cudaMalloc(&d[i], (size_t)16 << 20));
    cudaStream_t s[2];
    PHASE("2 x cudaStreamCreate", (cudaStreamCreate(&s[0]), cudaStreamCreate(&s[1])));
    PHASE("first H2D 16 MiB", cudaMemcpy(d[0], h[0], (size_t)16 << 20, cudaMemcpyHostToDevice));
    for (int i = 0; i < 3; i++) cudaFreeHost(h[i]), cudaFree(d[i]);
    PHASE("frees", cudaDeviceSynchronize());
    printf("%-40s %8.2f ms\n", "total", ms() - t0);
    return 0;
}
