/*
 * histogram_cpu.c — the CPU backend: OpenMP threads count into private 64-bit histograms merged at the end (or, when
 * threads x bins would take more than 64 MiB, into one shared histogram with atomic adds). The bin rule is
 * histogram_internal.h's, the GPU's. Fast paths give the same slots as the rule:
 *   u8 / u16   a table of the slot of every possible value (the rule applied 256 / 65536 times);
 *   even bins  the bin estimated in double, trusted where its fraction is farther from an edge than the proven error
 *              bound (gp__hist_margin); other values (near an edge, outside the range, NaN) take the rule itself;
 *   range bins a guess as if the edges were even, moved by the edges themselves at most four bins, else the rule.
 */
#include "histogram_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    const gp__hist_spec_t *s;
    gp_dtype_t dt;
    const void *x;
    const size_t *lut; /* u8 / u16: slot of each value */
    double margin;     /* even: < 1/64 when the estimate is tried */
    double rscale;     /* range: bins / (last edge - first edge), the guess's scale (0: no guess) */
} job_t;

static inline __attribute__((always_inline)) size_t even_slot(const job_t *j, double v)
{
    const gp__hist_spec_t *s = j->s;
    if (s->mode == GP__HIST_RANGE) { /* a guess as if the edges were even (NumPy's spelled-out even edges are, to a
                                      * rounding), then the edges themselves decide: the bin binary search gives, or
                                      * that search itself where the guess is more than a few bins off */
        const size_t nb = s->nbins;
        const double *ed = s->edges;
        if (!(v >= ed[0]) || v >= ed[nb]) return gp__hist_slot(s, v);
        const double g = (v - ed[0]) * j->rscale;
        size_t b = g < (double)nb ? (size_t)g : nb - 1;
        for (int k = 0; k < 4; k++) {
            if (b > 0 && v < ed[b]) b--;
            else if (b + 1 < nb && v >= ed[b + 1]) b++;
            else return b;
        }
        return gp__hist_slot(s, v);
    }
    const double e = (v - s->lo) * s->scale;
    if (e >= 0 && e < (double)s->nbins) {
        const double f = (double)(int64_t)e, fr = e - f; /* floor (e >= 0, < 2^40): a truncating conversion */
        if (fr > j->margin && fr < 1 - j->margin) return (size_t)f;
    }
    return gp__hist_slot(s, v);
}

/* Slots of x[i0 .. i1) passed to ADD(slot): one loop per dtype and path. */
#define GP__HIST_LOOP(j, i0, i1, ADD)                                                                                  \
    do {                                                                                                               \
        if ((j)->lut) {                                                                                                \
            if ((j)->dt == GP_U8) {                                                                                    \
                const uint8_t *xx = (const uint8_t *)(j)->x;                                                           \
                for (size_t i = (i0); i < (i1); i++) ADD((j)->lut[xx[i]]);                                             \
            } else {                                                                                                   \
                const uint16_t *xx = (const uint16_t *)(j)->x;                                                         \
                for (size_t i = (i0); i < (i1); i++) ADD((j)->lut[xx[i]]);                                             \
            }                                                                                                          \
            break;                                                                                                     \
        }                                                                                                              \
        const int est = ((j)->s->mode == GP__HIST_EVEN && (j)->margin < 1.0 / 64) ||                                  \
                        ((j)->s->mode == GP__HIST_RANGE && (j)->rscale > 0);                                           \
        switch ((j)->dt) {                                                                                             \
        case GP_I32: {                                                                                                 \
            const int32_t *xx = (const int32_t *)(j)->x;                                                               \
            for (size_t i = (i0); i < (i1); i++)                                                                       \
                ADD(est ? even_slot((j), (double)xx[i]) : gp__hist_slot((j)->s, (double)xx[i]));                       \
            break;                                                                                                     \
        }                                                                                                              \
        case GP_U32: {                                                                                                 \
            const uint32_t *xx = (const uint32_t *)(j)->x;                                                             \
            for (size_t i = (i0); i < (i1); i++)                                                                       \
                ADD(est ? even_slot((j), (double)xx[i]) : gp__hist_slot((j)->s, (double)xx[i]));                       \
            break;                                                                                                     \
        }                                                                                                              \
        case GP_F32: {                                                                                                 \
            const float *xx = (const float *)(j)->x;                                                                   \
            for (size_t i = (i0); i < (i1); i++)                                                                       \
                ADD(est ? even_slot((j), (double)xx[i]) : gp__hist_slot((j)->s, (double)xx[i]));                       \
            break;                                                                                                     \
        }                                                                                                              \
        default: {                                                                                                     \
            const double *xx = (const double *)(j)->x;                                                                 \
            for (size_t i = (i0); i < (i1); i++) ADD(est ? even_slot((j), xx[i]) : gp__hist_slot((j)->s, xx[i]));     \
            break;                                                                                                     \
        }                                                                                                              \
        }                                                                                                              \
    } while (0)

gp_status_t gp__hist_cpu(const gp__hist_spec_t *s, gp_dtype_t dtype, size_t n, const void *x, gp_dtype_t count_dtype,
                         void *counts, int accumulate)
{
    const size_t slots = s->nbins + 3;
    uint64_t *total = calloc(slots, sizeof *total);
    if (!total) return gp__error(GP_ERR_OUT_OF_MEMORY, "histogram (CPU): %zu counters", slots);
    job_t j = {s, dtype, x, NULL, 2.0, 0.0};
    if (s->mode == GP__HIST_RANGE && s->nbins > 0) {
        const double span = s->edges[s->nbins] - s->edges[0], r = (double)s->nbins / span;
        j.rscale = s->scale > 0 ? s->scale : isfinite(span) && span > 0 && isfinite(r) ? r : 0.0;
    }
    size_t *lut = NULL;
    if ((dtype == GP_U8 || dtype == GP_U16) && n > 4096) {
        const size_t nv = dtype == GP_U8 ? 256 : 65536;
        lut = malloc(nv * sizeof *lut);
        if (!lut) {
            free(total);
            return gp__error(GP_ERR_OUT_OF_MEMORY, "histogram (CPU): a table of %zu slots", nv);
        }
        for (size_t v = 0; v < nv; v++) lut[v] = gp__hist_slot(s, (double)v);
        j.lut = lut;
    } else if (s->mode == GP__HIST_EVEN) {
        j.margin = gp__hist_margin(s, 0x1p-53);
    }
    const int threads = omp_get_max_threads();
    const int private_ok = (double)threads * (double)slots * 8.0 <= 64.0 * 1024 * 1024;
    if (private_ok && threads > 1 && gp__cpu_par(1, n * gp_dtype_size(dtype))) {
        uint64_t *priv = calloc((size_t)threads * slots, sizeof *priv);
        if (!priv) {
            free(total), free(lut);
            return gp__error(GP_ERR_OUT_OF_MEMORY, "histogram (CPU): %d x %zu counters", threads, slots);
        }
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
            uint64_t *h = priv + (size_t)t * slots;
            const size_t i0 = n / (size_t)nt * (size_t)t + (n % (size_t)nt < (size_t)t ? n % (size_t)nt : (size_t)t);
            const size_t i1 = i0 + n / (size_t)nt + ((size_t)t < n % (size_t)nt);
#define GP__ADD_PRIV(b) h[(b)]++
            GP__HIST_LOOP(&j, i0, i1, GP__ADD_PRIV);
#undef GP__ADD_PRIV
        }
        for (int t = 0; t < threads; t++)
            for (size_t b = 0; b < slots; b++) total[b] += priv[(size_t)t * slots + b];
        free(priv);
    } else if (threads > 1 && gp__cpu_par(1, n * gp_dtype_size(dtype))) {
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
            const size_t i0 = n / (size_t)nt * (size_t)t + (n % (size_t)nt < (size_t)t ? n % (size_t)nt : (size_t)t);
            const size_t i1 = i0 + n / (size_t)nt + ((size_t)t < n % (size_t)nt);
#define GP__ADD_SHARED(b) __atomic_fetch_add(&total[(b)], 1, __ATOMIC_RELAXED)
            GP__HIST_LOOP(&j, i0, i1, GP__ADD_SHARED);
#undef GP__ADD_SHARED
        }
    } else {
        if (!j.lut && (dtype == GP_U8 || dtype == GP_U16)) {
            for (size_t i = 0; i < n; i++)
                total[gp__hist_slot(s, dtype == GP_U8 ? (double)((const uint8_t *)x)[i]
                                                      : (double)((const uint16_t *)x)[i])]++;
        } else {
#define GP__ADD_ONE(b) total[(b)]++
            GP__HIST_LOOP(&j, (size_t)0, n, GP__ADD_ONE);
#undef GP__ADD_ONE
        }
    }
    free(lut);
    if (count_dtype == GP_U64) {
        if (accumulate)
            for (size_t b = 0; b < slots; b++) ((uint64_t *)counts)[b] += total[b];
        else
            memcpy(counts, total, slots * sizeof *total);
    } else { /* wraps mod 2^32 */
        for (size_t b = 0; b < slots; b++)
            ((uint32_t *)counts)[b] = (uint32_t)total[b] + (accumulate ? ((uint32_t *)counts)[b] : 0u);
    }
    free(total);
    return GP_OK;
}
