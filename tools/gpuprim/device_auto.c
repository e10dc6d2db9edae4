/* device_auto.c — --device auto (util.h): the model that estimates a verb's wall time on the CPU backend and on a
 * GPU from its work, and pick_device, the one place -d auto is turned into a backend. */
#include "util.h"

#include <stdio.h>

/* The model behind --device auto: per-core CPU rates of the CPU backend, the GPU's start-up, page-cache reads;
 * the rates below and where they were measured: docs/design/io.md, "Tuning". */
#define EST_GPU_STARTUP 0.25
#define EST_READ_GBS 6.0
#define EST_H2D_GBS 20.0

void work_estimate(const work_t *w, double *cpu_s, double *gpu_s)
{
    gp_cpu_info_t ci;
    int threads = w->threads;
    if (threads <= 0) threads = gp_cpu_info(&ci) == GP_OK && ci.omp_max_threads > 0 ? ci.omp_max_threads : 1;
    double per_core = 10.0; /* GB/s */
    switch (w->kind) {
    case WORK_REDUCE_FAST: per_core = 10.0; break;
    case WORK_REDUCE_SLOW: per_core = 0.5; break;
    case WORK_ORDERED: per_core = 1.0; break;
    case WORK_HIST: per_core = 1.1; break;
    case WORK_HIST_WIDE: per_core = 0.1; break;
    case WORK_TRANSPOSE: per_core = 4.5; break;
    case WORK_GEMM: per_core = 0; break;
    case WORK_SCAN: per_core = 1.0; break; /* the tile pass twice over (aggregates, then outputs) */
    }
    const double b = w->bytes < 0 ? 1e9 : w->bytes; /* unknown: compare per GB, without start-up */
    const double cpu_dev = w->kind == WORK_GEMM ? w->flops / (85e9 * threads) : b / (per_core * 1e9 * threads);
    const double gpu_dev = w->kind == WORK_GEMM ? w->flops / 40e12 : 0;
    double cpu = b / (EST_READ_GBS * 1e9), gpu = cpu;
    if (w->kind == WORK_REDUCE_FAST || w->kind == WORK_REDUCE_SLOW || w->kind == WORK_ORDERED || w->kind == WORK_HIST ||
        w->kind == WORK_HIST_WIDE) {
        cpu = cpu > cpu_dev ? cpu : cpu_dev; /* the streamed CPU backend reduces as it reads (threads) */
        gpu += b / (EST_H2D_GBS * 1e9) * 0.1; /* copies overlap the reads: a tail */
    } else {
        cpu += cpu_dev;
        gpu += 2 * b / (EST_H2D_GBS * 1e9) + gpu_dev;
    }
    if (w->bytes >= 0) gpu += EST_GPU_STARTUP;
    *cpu_s = cpu, *gpu_s = gpu;
}

int pick_device(const char *verb, int device, const work_t *w, int quiet)
{
    if (device != DEVICE_AUTO) return device;
    double c, g;
    work_estimate(w, &c, &g);
    const int cpu = c <= g;
    if (!quiet) {
        if (w->bytes < 0)
            fprintf(stderr, "gpuprim %s: --device auto: the %s (input of unknown size: %.2f s/GB on the CPU, %.2f s/GB "
                    "on a GPU, estimated)\n", verb, cpu ? "CPU backend" : "GPU", c, g);
        else
            fprintf(stderr, "gpuprim %s: --device auto: the %s (estimated %.3f s on the CPU backend, %.3f s on a GPU "
                    "with its start-up)\n", verb, cpu ? "CPU backend" : "GPU", c, g);
    }
    return cpu ? GP_DEVICE_CPU : DEVICE_DEFAULT;
}
