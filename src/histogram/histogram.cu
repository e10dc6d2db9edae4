/*
 * histogram.cu — the GPU histogram launcher: builds the binner (the fastest exact way to find a value's bin for this
 * dtype and these bins), picks the counting strategy (histogram_kernels.cuh) by bin count and device, sizes the
 * grid from the occupancy, and launches. The kernels live in histogram_k_small.cu / histogram_k_large.cu.
 *
 * Automatic choice, by slots S = nbins + 3 (measured on the H200: docs/design/histogram.md):
 *   ident / int binner, 8 warps x S counters <= 64 KiB   WARP        (shared atomics are the limit; one-bin data
 *                                                                   aggregates best per warp)
 *   8-byte dtypes, S counters + the tile ring fit a block BLOCK_BULK (f64: the bytes in flight are the limit)
 *   S counters fit one block                              BLOCK       (opt-in shared memory up to the device limit)
 *   S counters fit a cluster of <= 16 blocks              CLUSTER     (the distributed shared memory)
 *   beyond                                                GLOBAL      (atomics on the L2-resident counts)
 * LANE (conflict-free per-lane columns) and LANE_RMW are lab versions: the columns' shared memory limits a block to
 * 12 warps, and that costs more than the bank conflicts they remove.
 */
#include "histogram_kernels.cuh"
#include "../core/cluster.cuh"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

namespace gph {
const void *kernel_small(int strategy, int kind, gp_dtype_t dt);
const void *kernel_large(int strategy, int kind, gp_dtype_t dt);
} // namespace gph

using namespace gph;

namespace {

constexpr size_t MAX_SLOTS = ((size_t)1 << 31) - 1; /* kernels index slots with 32-bit unsigned */

int is_int(gp_dtype_t d) { return d == GP_U8 || d == GP_U16 || d == GP_I32 || d == GP_U32; }

/* The estimate's fields of b for even bins es (lo, hi, scale), their edges within `dev` bins of the even ones: F32
 * where its error bound allows, else F64 (whose margin may say "never trusted"). */
int estimate_binner(gp_dtype_t dt, const gp__hist_spec_t &es, double dev, Binner *b)
{
    const double M = fmax(fabs(es.lo), fabs(es.hi));
    const double dm = gp__hist_margin(&es, 0x1p-53) + dev;
    b->dlo = es.lo;
    b->dscale = es.scale;
    b->dmargin = dm < 1.0 / 64 ? dm : 2.0; /* 2: never trusted, every value takes the exact rule */
    const double fm = gp__hist_margin(&es, 0x1p-24) + dev;
    if ((dt == GP_U8 || dt == GP_U16 || dt == GP_F32) && fm < 1.0 / 64 && M < 1e30 && es.nbins < ((size_t)1 << 22)) {
        b->flo = (float)es.lo;
        b->fscale = (float)es.scale;
        /* |fr - 1/2| < fhalf with fhalf <= 1/2 - fm (rounded down): fr - 1/2 is exact for fr >= 1/4 and rounds
         * monotonically below, so fr <= fm is never accepted */
        float fh = (float)(0.5 - fm);
        if ((double)fh > 0.5 - fm) fh = nextafterf(fh, 0.0f);
        b->fhalf = fh;
        return K_F32; /* its uncertain values retry with the F64 fields above */
    }
    return K_F64;
}

/* Range bins whose edges are nearly even (NumPy's linspace edges, a closed last bin): how far, in bins, edge k lies
 * from k on the scale of the even bins over [edges[0], edges[nbins]], bounded from above; HUGE_VAL when they are not
 * near (the estimate would rarely be trusted). A value whose estimate lies farther than this (plus the estimate's
 * own error) from every even edge is between the same two range edges (docs/design/histogram.md). */
double range_deviation(const gp__hist_spec_t &s, gp__hist_spec_t *es)
{
    const size_t nb = s.nbins;
    const double lo = s.edges[0], hi = s.edges[nb], scale = (double)nb / (hi - lo);
    if (!(isfinite(lo) && isfinite(hi) && isfinite(scale) && scale > 0)) return HUGE_VAL;
    double dev = 0;
    for (size_t k = 0; k <= nb; k++) {
        const double d = fabs((s.edges[k] - lo) * scale - (double)k);
        if (!(d <= dev)) dev = d; /* NaN-safe */
        if (!(dev < 1.0 / 128)) return HUGE_VAL;
    }
    *es = gp__hist_spec_t{GP__HIST_EVEN, nb, lo, hi, scale, NULL};
    /* each step of that difference (and the scale itself) rounds: 8 ulps of (nbins + 1) bins cover them */
    return dev + 8 * 0x1p-53 * ((double)nb + 1);
}

/* Fills b (spec already in b->s) and returns its kind. */
int make_binner(gp_dtype_t dt, Binner *b)
{
    const gp__hist_spec_t &s = b->s;
    b->nb = (unsigned)s.nbins;
    const double nb = (double)s.nbins;
    if (s.mode == GP__HIST_RANGE) { /* estimated as even bins where the edges are nearly even; the search decides
                                     * the rest (b->s keeps the edges) */
        gp__hist_spec_t es;
        const double dev = dt == GP_U8 || dt == GP_U16 ? HUGE_VAL : range_deviation(s, &es);
        return dev < 1.0 / 64 ? estimate_binner(dt, es, dev, b) : K_RANGE;
    }
    /* integer widths: direct, or even bins over integer lo, hi with an integer width */
    if (is_int(dt)) {
        int ok = 0;
        double lo = 0, span = nb;
        if (s.mode == GP__HIST_DIRECT) {
            ok = 1;
        } else if (floor(s.lo) == s.lo && floor(s.hi) == s.hi && fabs(s.lo) <= 0x1p52 && fabs(s.hi) <= 0x1p52) {
            lo = s.lo, span = s.hi - s.lo;
            ok = span <= 0x1p32 && fmod(span, nb) == 0 && span * nb <= 0x1p53;
        }
        const int small = dt == GP_U8 || dt == GP_U16;
        if (ok && small && (fabs(lo) > 0x1p30 || span > 0x1p31)) ok = 0; /* 32-bit arithmetic in the kernel */
        if (ok) {
            const unsigned long long w = (unsigned long long)(span / nb);
            b->ilo = (long long)lo;
            b->ispan = (unsigned long long)span;
            b->imagic = 0;
            b->ishift = 0;
            if (w & (w - 1)) b->imagic = (~0ull) / w + 1; /* ceil(2^64 / w), w not a power of two */
            else
                while ((1ull << b->ishift) < w) b->ishift++;
            if (small && lo == 0 && w == 1 && span >= (dt == GP_U8 ? 256.0 : 65536.0)) return K_IDENT;
            return K_INT;
        }
    }
    /* even, estimated: error bounds of the estimate in bins (histogram_internal.h) */
    return estimate_binner(dt, s, 0.0, b);
}

const void *kernel_for(int strategy, int kind, gp_dtype_t dt)
{
    const void *k = kernel_small(strategy, kind, dt);
    return k ? k : kernel_large(strategy, kind, dt);
}

int threads_of(int strategy)
{
    switch (strategy) {
    case GP__HS_LANE:
    case GP__HS_LANE_RMW: return 128;
    case GP__HS_BLOCK:
    case GP__HS_BLOCK_BULK: return 512;
    case GP__HS_CLUSTER: return 1024;
    default: return 256;
    }
}
/* 16-byte vectors a thread takes per step */
int unroll_of(int strategy)
{
    return strategy == GP__HS_LANE || strategy == GP__HS_LANE_RMW ? 8 : strategy == GP__HS_BLOCK_BULK ? BULK_VPT : 4;
}

size_t smem_of(int strategy, size_t S, int cluster)
{
    switch (strategy) {
    case GP__HS_LANE:
    case GP__HS_LANE_RMW: return (S + 1) / 2 * 32 * 4 * (size_t)(threads_of(strategy) / 32);
    case GP__HS_WARP: return S * 4 * (size_t)(threads_of(strategy) / 32);
    case GP__HS_BLOCK: return S * 4;
    case GP__HS_BLOCK_BULK: return bulk_prefix_bytes(threads_of(strategy)) + S * 4;
    case GP__HS_CLUSTER: return (S + (size_t)cluster - 1) / (size_t)cluster * 4;
    default: return 0;
    }
}

/* Can the strategy hold S slots with `optin` bytes of shared memory per block? */
int fits(int strategy, size_t S, size_t optin, int cluster)
{
    if (strategy == GP__HS_GLOBAL) return 1;
    if ((strategy == GP__HS_LANE || strategy == GP__HS_LANE_RMW) && S > LANE_MAX_SLOTS) return 0;
    if (strategy == GP__HS_CLUSTER && (S + (size_t)cluster - 1) / (size_t)cluster < 2) return 0;
    return smem_of(strategy, S, cluster) <= optin;
}

gp_status_t set_smem(const void *k, size_t smem)
{
    if (smem <= 48 * 1024) return GP_OK;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    return e == cudaSuccess ? GP_OK : gp__cuda_error(e, "gp_histogram: opt-in shared memory", __FILE__, __LINE__);
}

} // namespace

const char *gp__hist_strategy_name(int s)
{
    static const char *const names[GP__HS_COUNT] = {"global", "block", "warp", "lane", "lane_rmw", "cluster",
                                                    "block_bulk"};
    return s >= 0 && s < GP__HS_COUNT ? names[s] : "auto";
}

const char *gp__hist_kind_name(int k)
{
    static const char *const names[K_COUNT] = {"ident", "int", "f32", "f64", "range", "lut"};
    return k >= 0 && k < K_COUNT ? names[k] : "?";
}

gp_status_t gp__hist_gpu_ex(gp_ctx_t *ctx, const gp__hist_spec_t *spec, gp_dtype_t dtype, size_t n, const void *x,
                            gp_dtype_t count_dtype, void *counts, cudaStream_t stream, int strategy, int cluster,
                            int accumulate, gp__hist_plan_t *plan)
{
    const size_t S = spec->nbins + 3;
    if (S > MAX_SLOTS)
        return gp__error(GP_ERR_UNSUPPORTED, "gp_histogram: nbins = %zu; the GPU backend counts up to 2^31 - 4 bins",
                         spec->nbins);
    Binner b = {};
    b.s = *spec;
    int kind = make_binner(dtype, &b);
    /* u8 (bins that are not the values or integer widths) and u16 range mode: a table of every value's slot */
    if ((dtype == GP_U8 && kind != K_IDENT && kind != K_INT) || (dtype == GP_U16 && spec->mode == GP__HIST_RANGE)) {
        const size_t nv = dtype == GP_U8 ? 256 : 65536;
        unsigned *t = (unsigned *)malloc(nv * sizeof *t);
        if (!t) return gp__error(GP_ERR_OUT_OF_MEMORY, "gp_histogram: a table of %zu slots", nv);
        for (size_t v = 0; v < nv; v++) t[v] = (unsigned)gp__hist_slot(&b.s, (double)v);
        void *ws = NULL;
        gp_status_t st = gp__workspace(ctx, nv * sizeof *t, &ws);
        /* staged before the call returns (or into the graph's own pinned block while capturing): t may go */
        if (st == GP_OK) st = gp__upload(ctx, ws, t, nv * sizeof *t, stream);
        free(t);
        if (st != GP_OK) return st;
        b.lut = (const unsigned *)ws;
        kind = K_LUT;
    } else if (spec->mode == GP__HIST_RANGE) { /* the edges to device memory (the context workspace) */
        void *ws = NULL;
        gp_status_t st = gp__workspace(ctx, (b.s.nbins + 1) * sizeof(double), &ws);
        if (st != GP_OK) return st;
        st = gp__upload(ctx, ws, b.s.edges, (b.s.nbins + 1) * sizeof(double), stream);
        if (st != GP_OK) return st;
        b.s.edges = (const double *)ws;
    }
    int optin_i = 0;
    cudaError_t e = cudaDeviceGetAttribute(&optin_i, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram: device attributes", __FILE__, __LINE__);
    const size_t optin = (size_t)optin_i;

    /* the strategy */
    if (strategy < GP__HS_AUTO || strategy >= GP__HS_COUNT)
        return gp__error(GP_ERR_INVALID_ARG, "gp_histogram: strategy %d", strategy);
    if (strategy == GP__HS_CLUSTER && cluster != 0 && (cluster < 2 || cluster > 16))
        return gp__error(GP_ERR_INVALID_ARG, "gp_histogram: cluster size %d (2 .. 16)", cluster);
    int st_ = strategy;
    if (st_ == GP__HS_AUTO) {
        /* measured (docs/design/histogram.md): per-warp histograms where the binner is cheap (ident, int: the shared
         * atomics are the limit, and one-bin data aggregates best per warp), per-block ones elsewhere */
        if (smem_of(GP__HS_WARP, S, 0) <= 64 * 1024 && (kind == K_IDENT || kind == K_INT)) st_ = GP__HS_WARP;
        else if (gp_dtype_size(dtype) == 8 && fits(GP__HS_BLOCK_BULK, S, optin, 0)) st_ = GP__HS_BLOCK_BULK;
        else if (fits(GP__HS_BLOCK, S, optin, 0)) st_ = GP__HS_BLOCK;
        else st_ = GP__HS_CLUSTER; /* falls to GLOBAL below when no cluster holds them */
    }
    const void *k = NULL;
    int threads = threads_of(st_), ncl = 0;
    if (st_ == GP__HS_CLUSTER) {
        k = kernel_for(GP__HS_CLUSTER, kind, dtype);
        int c = cluster ? cluster : 2;
        for (; c <= (cluster ? cluster : 16); c *= 2) {
            if (!fits(GP__HS_CLUSTER, S, optin, c)) {
                if (cluster) break;
                continue;
            }
            gp_status_t st = set_smem(k, smem_of(GP__HS_CLUSTER, S, c));
            if (st != GP_OK) return st;
            st = gp__cluster_capacity(k, c, threads, smem_of(GP__HS_CLUSTER, S, c), stream, &ncl);
            if (st != GP_OK) return st;
            if (ncl > 0) break;
            if (cluster) break;
        }
        if (ncl > 0) {
            cluster = c;
        } else if (strategy == GP__HS_CLUSTER) {
            return gp__error(GP_ERR_UNSUPPORTED,
                             "gp_histogram: no cluster%s holds %zu counters (%zu bytes of shared memory per block)",
                             cluster ? " of that size" : " of 2 .. 16 blocks", S, optin);
        } else {
            st_ = GP__HS_GLOBAL, threads = threads_of(st_);
        }
    } else if (!fits(st_, S, optin, 0)) {
        return gp__error(GP_ERR_UNSUPPORTED, "gp_histogram: the %s strategy cannot hold %zu counters",
                         gp__hist_strategy_name(st_), S);
    }
    if (st_ != GP__HS_CLUSTER) cluster = 1, k = kernel_for(st_, kind, dtype);
    if (k == NULL)
        return gp__error(GP_ERR_INTERNAL, "gp_histogram: no kernel for %s / %s / %s", gp__hist_strategy_name(st_),
                         gp__hist_kind_name(kind), gp_dtype_name(dtype));
    const size_t smem = smem_of(st_, S, cluster);
    gp_status_t st = set_smem(k, smem);
    if (st != GP_OK) return st;

    /* the grid: the device full (occupancy), no more blocks than the data needs */
    const size_t es = gp_dtype_size(dtype), per_block = (size_t)threads * (size_t)unroll_of(st_) * (16 / es);
    size_t need = (n + per_block - 1) / per_block;
    if (need < 1) need = 1;
    size_t grid;
    if (st_ == GP__HS_CLUSTER) {
        size_t cl = (need + (size_t)cluster - 1) / (size_t)cluster;
        grid = ((size_t)ncl < cl ? (size_t)ncl : cl) * (size_t)cluster;
    } else {
        int per_sm = 0;
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram: occupancy", __FILE__, __LINE__);
        if (per_sm < 1) per_sm = 1;
        grid = (size_t)per_sm * (size_t)ctx->sm_count;
        if (grid > need) grid = need;
    }
    if (plan) *plan = gp__hist_plan_t{st_, kind, cluster, threads, (unsigned)grid, smem};

    if (!accumulate) {
        e = cudaMemsetAsync(counts, 0, S * gp_dtype_size(count_dtype), stream);
        if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram: clearing the counts", __FILE__, __LINE__);
    }
    if (n == 0) return GP_OK;

    /* 32-bit shared counters: no block may count 2^32 values in one launch, so very large inputs go in pieces */
    const size_t piece =
        st_ == GP__HS_GLOBAL || st_ == GP__HS_LANE || st_ == GP__HS_LANE_RMW ? n : grid * ((size_t)1 << 30);
    Args a = {};
    a.b = b;
    a.c64 = count_dtype == GP_U64 ? (unsigned long long *)counts : NULL;
    a.c32 = count_dtype == GP_U32 ? (unsigned *)counts : NULL;
    if (st_ == GP__HS_CLUSTER) {
        a.per = (unsigned)((S + (size_t)cluster - 1) / (size_t)cluster);
        a.per_magic = (~0ull) / a.per + 1; /* ceil(2^64 / per) (per >= 2; exact quotients for slots < 2^32) */
    }
    for (size_t off = 0; off < n; off += piece) {
        a.x = (const char *)x + off * es;
        a.n = n - off < piece ? n - off : piece;
        void *args[] = {&a};
        if (st_ == GP__HS_CLUSTER) {
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute at;
            gp__cluster_config(&cfg, &at, cluster, grid, threads, smem, stream);
            e = cudaLaunchKernelExC(&cfg, k, args);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram (cluster)", __FILE__, __LINE__);
        } else {
            e = cudaLaunchKernel(k, dim3((unsigned)grid), dim3((unsigned)threads), args, smem, stream);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_histogram", __FILE__, __LINE__);
        }
        st = GP_CHECK_LAUNCH("gp_histogram");
        if (st != GP_OK) return st;
    }
    return GP_OK;
}
