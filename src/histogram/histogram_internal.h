/*
 * histogram_internal.h — what src/histogram shares between the API (histogram.c), the CPU backend
 * (histogram_cpu.c) and the GPU kernels (histogram.cu): the bin rule, written once for host and device, so both
 * backends put every value in the same bin.
 */
#ifndef GP_HISTOGRAM_INTERNAL_H
#define GP_HISTOGRAM_INTERNAL_H

#include "../core/internal.h"

#ifdef __CUDACC__
#define GP_HD __host__ __device__ __forceinline__
#else
#define GP_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { GP__HIST_EVEN = 0, GP__HIST_RANGE = 1, GP__HIST_DIRECT = 2 }; /* = gp_hist_mode_t */

/* What a bin lookup needs. counts[nbins], [nbins + 1], [nbins + 2]: below, above, NaN. */
typedef struct gp__hist_spec {
    int mode;
    size_t nbins;
    double lo, hi, scale; /* even: scale = nbins / (hi - lo) */
    const double *edges;  /* range: nbins + 1 increasing edges (memory the backend can read) */
} gp__hist_spec_t;

/* even: edge k = lo + (hi - lo) * k / nbins, in double, correctly rounded at each step (no fused operations). */
GP_HD double gp__hist_edge(const gp__hist_spec_t *s, size_t k)
{
    return s->lo + ((s->hi - s->lo) * (double)k) / (double)s->nbins;
}

/* The slot of value v (a double holding the element exactly): 0..nbins-1, or nbins (below), nbins + 1 (above),
 * nbins + 2 (NaN). */
GP_HD size_t gp__hist_slot(const gp__hist_spec_t *s, double v)
{
    const size_t nb = s->nbins;
    if (v != v) return nb + 2;
    if (s->mode == GP__HIST_DIRECT) {
        if (v < 0) return nb;
        if (v >= (double)nb) return nb + 1;
        return (size_t)v;
    }
    if (s->mode == GP__HIST_EVEN) {
        if (v < s->lo) return nb;
        if (v >= s->hi) return nb + 1;
        double e = (v - s->lo) * s->scale;
        size_t b = e < (double)nb ? (size_t)e : nb - 1;
        while (b > 0 && v < gp__hist_edge(s, b)) b--;             /* the estimate may be one off at an edge */
        while (b + 1 < nb && v >= gp__hist_edge(s, b + 1)) b++;
        return b;
    }
    /* range: the last edge <= v (binary search) */
    if (v < s->edges[0]) return nb;
    if (v >= s->edges[nb]) return nb + 1;
    size_t a = 0, z = nb; /* edges[a] <= v < edges[z] */
    while (z - a > 1) {
        const size_t m = a + (z - a) / 2;
        if (v < s->edges[m]) z = m;
        else a = m;
    }
    return a;
}

/* GPU counting strategies (histogram_kernels.cuh says what each does). */
enum {
    GP__HS_AUTO = -1,
    GP__HS_GLOBAL = 0,
    GP__HS_BLOCK,
    GP__HS_WARP,
    GP__HS_LANE,
    GP__HS_LANE_RMW,
    GP__HS_CLUSTER,
    GP__HS_BLOCK_BULK,
    GP__HS_COUNT
};
/* What a GPU histogram ran as (for the lab and bench reports). */
typedef struct gp__hist_plan {
    int strategy, kind, cluster, threads;
    unsigned grid;
    size_t smem;
} gp__hist_plan_t;
GP_INTERNAL const char *gp__hist_strategy_name(int strategy);
GP_INTERNAL const char *gp__hist_kind_name(int kind);

/* The even-bin estimate (v - lo) * scale computed in double is within this many bins of the exact coordinate of v
 * (the API's edges included), doubled for safety; its floor is the bin wherever its fraction is farther than this from
 * 0 and 1. >= 1/64: not worth trying (every value takes the exact rule). */
GP_HD double gp__hist_margin(const gp__hist_spec_t *s, double unit_roundoff)
{
    const double lo = s->lo < 0 ? -s->lo : s->lo, hi = s->hi < 0 ? -s->hi : s->hi, M = lo > hi ? lo : hi;
    const double edge_err = 0x1p-50 * (M + (s->hi - s->lo)) * s->scale;
    return 2 * (unit_roundoff * (1.1 * lo * s->scale + 3.1 * (double)s->nbins + 1) + edge_err);
}

/* Backends: counts (nbins + 3 entries of count_dtype, GP_U32 or GP_U64) are overwritten, or added to (accumulate). */
GP_INTERNAL gp_status_t gp__hist_cpu(const gp__hist_spec_t *s, gp_dtype_t dtype, size_t n, const void *x,
                                     gp_dtype_t count_dtype, void *counts, int accumulate);
/* The GPU backend (histogram.cu), its choices exposed: strategy GP__HS_AUTO or one to force (GP_ERR_UNSUPPORTED
 * when it cannot hold these bins), cluster 0 (automatic) or a cluster size for GP__HS_CLUSTER, accumulate: add to
 * counts instead of overwriting them. plan (may be NULL) receives what ran. */
GP_INTERNAL gp_status_t gp__hist_gpu_ex(gp_ctx_t *ctx, const gp__hist_spec_t *s, gp_dtype_t dtype, size_t n,
                                        const void *x, gp_dtype_t count_dtype, void *counts, cudaStream_t stream,
                                        int strategy, int cluster, int accumulate, gp__hist_plan_t *plan);

/* The family's GPU launchers (histogram.cu), reached through this table: core/backend.h */
typedef struct gp__hist_gpu_ops {
    __typeof__(gp__hist_gpu_ex) *run;
    __typeof__(gp__hist_strategy_name) *strategy_name;
    __typeof__(gp__hist_kind_name) *kind_name;
} gp__hist_gpu_ops_t;
GP_INTERNAL extern const gp__hist_gpu_ops_t gp__hist_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
