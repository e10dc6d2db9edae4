/*
 * histogram_cpu.c — the CPU backend: OpenMP threads count into private 64-bit histograms merged at the end (or, when
 * threads x bins would take more than 64 MiB, into one shared histogram with atomic adds). The bin rule is
 * histogram_internal.h's, the GPU's.
 */
#include "histogram_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static double value(gp_dtype_t dt, const void *x, size_t i)
{
    switch (dt) {
    case GP_U8: return ((const uint8_t *)x)[i];
    case GP_U16: return ((const uint16_t *)x)[i];
    case GP_I32: return ((const int32_t *)x)[i];
    case GP_U32: return ((const uint32_t *)x)[i];
    case GP_F32: return ((const float *)x)[i];
    default: return ((const double *)x)[i];
    }
}

gp_status_t gp__hist_cpu(const gp__hist_spec_t *s, gp_dtype_t dtype, size_t n, const void *x, gp_dtype_t count_dtype,
                         void *counts)
{
    const size_t slots = s->nbins + 3;
    uint64_t *total = calloc(slots, sizeof *total);
    if (!total) return gp__error(GP_ERR_OUT_OF_MEMORY, "histogram (CPU): %zu counters", slots);
    const int threads = omp_get_max_threads();
    const int private_ok = (double)threads * (double)slots * 8.0 <= 64.0 * 1024 * 1024;
    if (private_ok && threads > 1 && n > 65536) {
        uint64_t *priv = calloc((size_t)threads * slots, sizeof *priv);
        if (!priv) {
            free(total);
            return gp__error(GP_ERR_OUT_OF_MEMORY, "histogram (CPU): %d x %zu counters", threads, slots);
        }
#pragma omp parallel num_threads(threads)
        {
            uint64_t *h = priv + (size_t)omp_get_thread_num() * slots;
#pragma omp for schedule(static)
            for (long long i = 0; i < (long long)n; i++) h[gp__hist_slot(s, value(dtype, x, (size_t)i))]++;
        }
        for (int t = 0; t < threads; t++)
            for (size_t b = 0; b < slots; b++) total[b] += priv[(size_t)t * slots + b];
        free(priv);
    } else if (threads > 1 && n > 65536) {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < (long long)n; i++) {
            const size_t b = gp__hist_slot(s, value(dtype, x, (size_t)i));
#pragma omp atomic
            total[b]++;
        }
    } else {
        for (size_t i = 0; i < n; i++) total[gp__hist_slot(s, value(dtype, x, i))]++;
    }
    if (count_dtype == GP_U64) {
        memcpy(counts, total, slots * sizeof *total);
    } else {
        for (size_t b = 0; b < slots; b++) ((uint32_t *)counts)[b] = (uint32_t)total[b]; /* wraps mod 2^32 */
    }
    free(total);
    return GP_OK;
}
