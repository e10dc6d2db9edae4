/*
 * segsort.cu — `gpuprim lab segsort`: ways to sort many short segments, as numbered versions of one ascending
 * segmented sort of n random u32 keys in segments of 1 .. M keys (M = --max-seg, default 128, at most 256; every
 * version must equal the CPU backend's gp_sort_segmented exactly), timed side by side (segsort_vNN_<idea>):
 *   01 one_array   one sort of (segment, key) as 64-bit keys (gp_sort): the segment's bits cost radix passes
 *   02 block       a block of 256 lanes per segment, a bitonic network over 256 slots in shared memory
 *   03 warp        a warp per segment, the network sized to the segment (the next power of two)
 *   04 bucketed    production gp_sort_segmented: segments bucketed by length, register networks for the short ones
 * CUDA events, medians of --reps. The primers' claims are printed with a verdict.
 */
#include "lab_versions.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int SLOTS = 256; /* the largest segment the networks take */

/* (segment, key) as one 64-bit key, and back */
__global__ void k_compose(const unsigned *x, const long long *off, size_t nseg, unsigned long long *w)
{
    for (size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x; s < nseg; s += (size_t)gridDim.x * blockDim.x)
        for (long long i = off[s]; i < off[s + 1]; i++) w[i] = (unsigned long long)s << 32 | x[i];
}
__global__ void k_low(const unsigned long long *w, size_t n, unsigned *y)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = (unsigned)w[i];
}

/* a bitonic network over s[0, P) by `lanes` lanes starting at lane, P a power of two; sync: the group's barrier */
template <typename Sync>
__device__ __forceinline__ void bitonic(unsigned *s, int P, int lane, int lanes, Sync sync)
{
    for (int k = 2; k <= P; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = lane; i < P; i += lanes) {
                const int l = i ^ j;
                if (l > i) {
                    const unsigned a = s[i], b = s[l];
                    if ((a > b) == ((i & k) == 0)) s[i] = b, s[l] = a;
                }
            }
            sync();
        }
}

struct BlockSync {
    __device__ void operator()() const { __syncthreads(); }
};
struct WarpSync {
    __device__ void operator()() const { __syncwarp(); }
};

/* 02: segment blockIdx.x by the block, 256 slots padded with the largest key */
__global__ void __launch_bounds__(256) k_block(const unsigned *x, const long long *off, unsigned *y)
{
    __shared__ unsigned s[SLOTS];
    const long long b = off[blockIdx.x], len = off[blockIdx.x + 1] - b;
    const int t = threadIdx.x;
    s[t] = t < len ? x[b + t] : 0xffffffffu;
    __syncthreads();
    bitonic(s, SLOTS, t, 256, BlockSync());
    if (t < len) y[b + t] = s[t];
}

/* 03: a warp per segment, its own slots, the network of the next power of two of its length */
__global__ void __launch_bounds__(256) k_warp(const unsigned *x, const long long *off, size_t nseg, unsigned *y)
{
    __shared__ unsigned s[8][SLOTS];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const size_t seg = (size_t)blockIdx.x * 8 + (size_t)w;
    if (seg >= nseg) return; /* the whole warp */
    const long long b = off[seg], len = off[seg + 1] - b;
    int P = 1;
    while (P < len) P <<= 1;
    unsigned *sw = s[w];
    for (int i = lane; i < P; i += 32) sw[i] = i < len ? x[b + i] : 0xffffffffu;
    __syncwarp();
    bitonic(sw, P, lane, 32, WarpSync());
    for (int i = lane; i < len; i += 32) y[b + i] = sw[i];
}

struct Lab {
    lab_run_t *r;
    size_t n, nseg;
    unsigned *x, *y;
    long long *off;
    unsigned long long *w, *w2; /* 01's composite keys and their sorted copy */
    cudaStream_t s;
};

unsigned grid_of(size_t work) { return (unsigned)((work + 255) / 256 < 65535 * 4 ? (work + 255) / 256 : 65535 * 4); }

cudaError_t run_version(Lab &L, int id)
{
    switch (id) {
    case 1:
        k_compose<<<grid_of(L.nseg), 256, 0, L.s>>>(L.x, L.off, L.nseg, L.w);
        if (gp_sort(L.r->gpu, GP_U64, L.n, L.w, L.w2, NULL, (gp_stream_t)L.s) != GP_OK) return cudaErrorUnknown;
        k_low<<<grid_of(L.n), 256, 0, L.s>>>(L.w2, L.n, L.y);
        return cudaGetLastError();
    case 2: k_block<<<(unsigned)L.nseg, 256, 0, L.s>>>(L.x, L.off, L.y); return cudaGetLastError();
    case 3: k_warp<<<(unsigned)((L.nseg + 7) / 8), 256, 0, L.s>>>(L.x, L.off, L.nseg, L.y); return cudaGetLastError();
    default:
        return gp_sort_segmented(L.r->gpu, GP_U32, L.n, L.x, L.y, 0, NULL, NULL, L.nseg, (const int64_t *)L.off, NULL,
                                 (gp_stream_t)L.s) == GP_OK
                   ? cudaSuccess
                   : cudaErrorUnknown;
    }
}

cudaError_t launch(void *L, int id, size_t) { return run_version(*(Lab *)L, id); }

const lab_version_t k_versions[] = {
    {1, "segsort_v01_one_array", 1, "one sort of (segment, key) as 64-bit keys: the segment's bits cost radix passes",
     "16 n bytes of composite keys", 0, 0, 0, NULL},
    {2, "segsort_v02_block", 1, "a block per segment, a 256-slot bitonic network in shared memory: short ones idle",
     "segments of at most 256", 0, 0, 0, NULL},
    {3, "segsort_v03_warp", 1, "a warp per segment, the network sized to the segment", "segments of at most 256", 0, 0,
     0, NULL},
    {LAB_SEGSORT_LIBRARY, "segsort_v04_bucketed", 1, "gp_sort_segmented: buckets by length, register networks for "
     "short segments, a census read back", "", 0, 0, 0, NULL},
};
const int k_nv = sizeof k_versions / sizeof k_versions[0];

int segsort_run(lab_run_t *r)
{
    size_t n = lab_opt(r, "--quick") ? (size_t)1 << 18 : (size_t)1 << 24, maxseg = 128;
    const char *on = lab_opt(r, "-n"), *om = lab_opt(r, "--max-seg");
    if (on && (parse_size(on, &n) != 0 || n == 0 || n > ((size_t)1 << 28)))
        return lab_bad_value(r, "-n", "a key count 1 .. 2^28", on);
    if (om && (parse_size(om, &maxseg) != 0 || maxseg < 1 || maxseg > SLOTS))
        return lab_bad_value(r, "--max-seg", "a segment length 1 .. 256", om);
    if (r->gpu == NULL) return EXIT_NO_GPU;
    Lab L = {r, n, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    int rc = EXIT_OK;
    unsigned *h = (unsigned *)malloc(n * 4), *ref = (unsigned *)malloc(n * 4), *got = (unsigned *)malloc(n * 4);
    int64_t *off = (int64_t *)malloc((n + 1) * 8);
    if (!h || !ref || !got || !off) {
        fprintf(stderr, "gpuprim lab segsort: no host memory for %zu keys\n", n);
        rc = EXIT_FAIL;
        goto out;
    }
    {
        uint64_t st = 0x9e3779b97f4a7c15ull ^ n;
        size_t at = 0;
        off[0] = 0;
        while (at < n) { /* lengths uniform in 1 .. maxseg */
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            const size_t len = 1 + (size_t)(st >> 33) % maxseg;
            at += len < n - at ? len : n - at;
            off[++L.nseg] = (int64_t)at;
        }
        for (size_t i = 0; i < n; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            h[i] = (unsigned)(st >> 32);
        }
    }
    if (cudaSetDevice(gp_ctx_device(r->gpu)) != cudaSuccess || cudaMalloc(&L.x, n * 4) != cudaSuccess ||
        cudaMalloc(&L.y, n * 4) != cudaSuccess || cudaMalloc(&L.off, (L.nseg + 1) * 8) != cudaSuccess ||
        cudaMalloc(&L.w, n * 8) != cudaSuccess || cudaMalloc(&L.w2, n * 8) != cudaSuccess ||
        cudaStreamCreate(&L.s) != cudaSuccess || cudaMemcpy(L.x, h, n * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(L.off, off, (L.nseg + 1) * 8, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "gpuprim lab segsort: %zu keys: %s\n", n, cudaGetErrorString(cudaGetLastError()));
        rc = EXIT_FAIL;
        goto out;
    }
    if (gp_sort_segmented_sync(r->cpu, GP_U32, n, h, ref, 0, NULL, NULL, L.nseg, off, NULL) != GP_OK) {
        fprintf(stderr, "gpuprim lab segsort: the reference: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    {
        static const char *const cols[] = {"version", "name", "n", "segments", "median_us", "Gkeys/s", "check"};
        static const int num[] = {0, 0, 1, 1, 1, 1, 0};
        lab_begin(r, "gpuprim lab segsort", cols, num, 7);
        report_meta(&r->report, "work", "ascending sort of each of %zu segments (1 .. %zu random u32 keys; every "
                    "version must equal the CPU backend's gp_sort_segmented)", L.nseg, maxseg);
        report_meta(&r->report, "timing", "CUDA events, median of %d after %d warm-up", r->reps, r->warmup);
    }
    {
        float med[4] = {0};
        for (int v = 0; v < k_nv && rc == EXIT_OK; v++) {
            int bad = 0;
            if (lab_time_checked(r, k_versions[v].id, k_versions[v].name, r->reps, L.s, launch, &L, L.y, n, ref, got,
                                 "key", &med[v], &bad) != 0) {
                rc = EXIT_FAIL;
                break;
            }
            char cid[8], cn[24], cs[24], cus[24], cg[24];
            snprintf(cid, sizeof cid, "%02d%s", k_versions[v].id,
                     lab_is_production(LAB_T_SEGSORT, &k_versions[v]) ? "*" : "");
            snprintf(cn, sizeof cn, "%zu", n);
            snprintf(cs, sizeof cs, "%zu", L.nseg);
            snprintf(cus, sizeof cus, "%.1f", med[v] * 1e3);
            snprintf(cg, sizeof cg, "%.2f", (double)n / (med[v] * 1e-3) / 1e9);
            const char *cells[] = {cid, k_versions[v].name, cn, cs, cus, cg, bad ? "FAIL" : "ok"};
            report_row(&r->report, cells);
        }
        if (rc == EXIT_OK) { /* the primers' claims */
            char m[256];
            const float one = med[0], blk = med[1], wrp = med[2], lib = med[3];
            snprintf(m, sizeof m, "(segment, key) as one array %.1f us, bucketed %.1f us (x%.1f)", one * 1e3,
                     lib * 1e3, one / lib);
            lab_claim(r, "one array", "folding the segment into the key turns a segmented sort into one sort, at "
                      "the price of the segment's bits in every pass", m, lib < one ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "a block per segment %.1f us, a warp per segment %.1f us (x%.1f)", blk * 1e3,
                     wrp * 1e3, blk / wrp);
            lab_claim(r, "granularity", "a short segment wants a warp, not a block: the block's lanes idle and its "
                      "barriers cost", m, wrp < blk ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "a warp's network in shared memory %.1f us, the library's buckets %.1f us (x%.1f)",
                     wrp * 1e3, lib * 1e3, wrp / lib);
            lab_claim(r, "registers", "networks in registers exchanged by shuffles, chosen by the segment's length, "
                      "beat one shared-memory network for all", m, lib < wrp ? "holds" : "does not hold here");
        }
    }
out:
    if (L.s) cudaStreamDestroy(L.s);
    cudaFree(L.x), cudaFree(L.y), cudaFree(L.off), cudaFree(L.w), cudaFree(L.w2);
    free(h), free(ref), free(got), free(off);
    if (rc != EXIT_OK) return rc;
    return r->failed ? EXIT_MISMATCH : EXIT_OK;
}

void segsort_list(FILE *f) { lab_list_versions(f, LAB_T_SEGSORT, k_versions, k_nv); }

const lab_opt_t k_opts[] = {
    {"-n", "N", "keys (default 2^24)"},
    {"--max-seg", "M", "segments of 1 .. M keys, M <= 256 (default 128)"},
    {"--quick", NULL, "2^18 keys (the GPU test's smoke run)"},
    {NULL, NULL, NULL},
};

} // namespace

extern "C" {
extern const lab_topic_t lab_topic_segsort;
const lab_topic_t lab_topic_segsort = {
    "segsort",
    "segmented sorts: one array of (segment, key), a block per segment, a warp per segment, the library's buckets",
    "  ways to sort many short segments as versions of one u32 segmented sort, each checked exactly against the\n"
    "  CPU backend, timed with CUDA events (median of --reps, default 10), with the primers' claims and a verdict.",
    k_opts, 1, 0, 0, segsort_list, segsort_run,
};
}
