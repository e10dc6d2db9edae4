/*
 * scan.cu — `gpuprim lab scan`: the primers' scans as numbered versions, each an inclusive u32 sum of the same n
 * words (integer sums are exact, so every version must equal the host's prefix sum exactly), timed side by side:
 *   01 serial       one GPU thread walks the array (capped at 2^20 elements)
 *   02 hillis-steele  a block scans 1024 elements in log2 steps over a double-buffered shared array (n log n adds),
 *                   then reduce-then-scan: the block totals scanned the same way (recursively), added back
 *   03 blelloch     work-efficient up-sweep / down-sweep over 2048 elements a block (2n adds), same three phases
 *   04 blelloch-pad the same with one padding word per 32 (no bank conflicts on the strided sweeps)
 *   05 warp-shuffle each warp scans with __shfl_up_sync, warp 0 scans the warp totals; same three phases
 *   06 chained      one pass: each block (in ticket order) waits for its predecessor's inclusive prefix — a serial
 *                   chain of inter-block waits
 *   07 look-back    gp_scan's look-back kernel (decoupled look-back, docs/design/scan.md)
 *   08 tile-engine  gp_scan's Hopper tile engine (copy-engine tiles, a producer and a look-back warp; sm_90, else
 *                   it falls back to 07); the library takes the one its tuning table names (marked *)
 * CUDA events, medians of --reps. The primers' claims are printed with a verdict.
 */
#include "lab_versions.h"
#include "scan/scan_internal.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* ---------------------------------------------------------------------------------------------- kernels */
__global__ void k_serial(const unsigned *x, unsigned *y, size_t n)
{
    unsigned acc = 0;
    for (size_t i = 0; i < n; i++) y[i] = acc += x[i];
}

/* Hillis-Steele: 1024 threads, one element each; sums[block] = the block's total (when sums != NULL). */
__global__ void __launch_bounds__(1024) k_hs(const unsigned *x, unsigned *y, size_t n, unsigned *sums)
{
    __shared__ unsigned buf[2][1024];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * 1024 + t;
    int out = 0;
    buf[0][t] = i < n ? x[i] : 0u;
    __syncthreads();
    for (unsigned off = 1; off < 1024; off <<= 1) {
        const int in = out;
        out ^= 1;
        buf[out][t] = t >= off ? buf[in][t] + buf[in][t - off] : buf[in][t];
        __syncthreads();
    }
    if (i < n) y[i] = buf[out][t];
    if (sums && t == 1023) sums[blockIdx.x] = buf[out][1023];
}

/* Blelloch: 1024 threads, two elements each (2048 a block); PAD inserts a word every 32 so the strided accesses of the
 * sweeps fall in different banks. The exclusive result plus the element is the inclusive one. */
template <bool PAD> __device__ __forceinline__ unsigned bx(unsigned k) { return PAD ? k + (k >> 5) : k; }
template <bool PAD>
__global__ void __launch_bounds__(1024) k_blelloch(const unsigned *x, unsigned *y, size_t n, unsigned *sums)
{
    __shared__ unsigned s[2048 + 2048 / 32];
    __shared__ unsigned total;
    const unsigned t = threadIdx.x, a = t, b = t + 1024;
    const size_t base = (size_t)blockIdx.x * 2048;
    const unsigned xa = base + a < n ? x[base + a] : 0u, xb = base + b < n ? x[base + b] : 0u;
    s[bx<PAD>(a)] = xa;
    s[bx<PAD>(b)] = xb;
    unsigned off = 1;
    for (unsigned d = 1024; d > 0; d >>= 1, off <<= 1) { /* up-sweep: partial sums in place */
        __syncthreads();
        if (t < d) s[bx<PAD>(off * (2 * t + 2) - 1)] += s[bx<PAD>(off * (2 * t + 1) - 1)];
    }
    __syncthreads();
    if (t == 0) {
        total = s[bx<PAD>(2047)];
        s[bx<PAD>(2047)] = 0;
    }
    for (unsigned d = 1; d < 2048; d <<= 1) { /* down-sweep: the exclusive prefixes */
        off >>= 1;
        __syncthreads();
        if (t < d) {
            const unsigned ai = bx<PAD>(off * (2 * t + 1) - 1), bi = bx<PAD>(off * (2 * t + 2) - 1), v = s[ai];
            s[ai] = s[bi];
            s[bi] += v;
        }
    }
    __syncthreads();
    if (base + a < n) y[base + a] = s[bx<PAD>(a)] + xa;
    if (base + b < n) y[base + b] = s[bx<PAD>(b)] + xb;
    if (sums && t == 0) sums[blockIdx.x] = total;
}

/* The inclusive scan of a block of 1024 by warp shuffles: valid in every thread; *tot = the block's total. */
__device__ __forceinline__ unsigned block_scan_shfl(unsigned v, unsigned *ws, unsigned *tot)
{
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    for (unsigned d = 1; d < 32; d <<= 1) {
        const unsigned o = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += o;
    }
    if (lane == 31) ws[w] = v;
    __syncthreads();
    if (w == 0) {
        unsigned s = ws[lane];
        for (unsigned d = 1; d < 32; d <<= 1) {
            const unsigned o = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += o;
        }
        ws[lane] = s;
    }
    __syncthreads();
    *tot = ws[31];
    return w ? v + ws[w - 1] : v;
}

__global__ void __launch_bounds__(1024) k_warp(const unsigned *x, unsigned *y, size_t n, unsigned *sums)
{
    __shared__ unsigned ws[32];
    const size_t i = (size_t)blockIdx.x * 1024 + threadIdx.x;
    unsigned tot;
    const unsigned v = block_scan_shfl(i < n ? x[i] : 0u, ws, &tot);
    if (i < n) y[i] = v;
    if (sums && threadIdx.x == 0) sums[blockIdx.x] = tot;
}

/* y[i] += the inclusive total of the blocks before i's (epb elements a block). */
__global__ void k_add(unsigned *y, size_t n, unsigned epb, const unsigned *incl)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const size_t b = i / epb;
        if (b) y[i] += incl[b - 1];
    }
}

/* Chained scan: tiles of 1024 in ticket order; tile t spins until tile t-1 has published its inclusive prefix. */
__global__ void __launch_bounds__(1024)
    k_chained(const unsigned *x, unsigned *y, size_t n, unsigned *ticket, volatile unsigned *flag, volatile unsigned *inc)
{
    __shared__ unsigned ws[32], tile, pre;
    if (threadIdx.x == 0) tile = atomicAdd(ticket, 1u);
    __syncthreads();
    const size_t t = tile, i = t * 1024 + threadIdx.x;
    unsigned tot;
    const unsigned v = block_scan_shfl(i < n ? x[i] : 0u, ws, &tot);
    if (threadIdx.x == 0) {
        unsigned p = 0;
        if (t) {
            while (flag[t - 1] == 0) {
            }
            __threadfence();
            p = inc[t - 1];
        }
        inc[t] = p + tot;
        __threadfence();
        flag[t] = 1;
        pre = p;
    }
    __syncthreads();
    if (i < n) y[i] = v + pre;
}

/* ---------------------------------------------------------------------------------------------- versions */
struct Lab {
    lab_run_t *r;
    size_t n;
    unsigned *x, *y, *ws; /* ws: block totals of every level, then the chained scan's ticket, flags, prefixes */
    size_t ws_words;
    cudaStream_t s;
    int rc;
};

typedef void (*block_kernel)(const unsigned *, unsigned *, size_t, unsigned *);

/* reduce-then-scan: the block scan, its totals scanned the same way (recursively), then added back. */
cudaError_t rts(block_kernel k, unsigned epb, const unsigned *x, unsigned *y, size_t n, unsigned *sums, cudaStream_t s)
{
    const size_t nb = (n + epb - 1) / epb;
    k<<<(unsigned)nb, 1024, 0, s>>>(x, y, n, nb > 1 ? sums : nullptr);
    if (nb == 1) return cudaGetLastError();
    cudaError_t e = rts(k, epb, sums, sums, nb, sums + nb, s); /* in place: the block reads all before writing */
    if (e != cudaSuccess) return e;
    k_add<<<(unsigned)((n + 255) / 256 < 65535 ? (n + 255) / 256 : 65535), 256, 0, s>>>(y, n, epb, sums);
    return cudaGetLastError();
}

cudaError_t run_version(Lab &L, int id, size_t n)
{
    switch (id) {
    case 1: k_serial<<<1, 1, 0, L.s>>>(L.x, L.y, n); return cudaGetLastError();
    case 2: return rts(k_hs, 1024, L.x, L.y, n, L.ws, L.s);
    case 3: return rts(k_blelloch<false>, 2048, L.x, L.y, n, L.ws, L.s);
    case 4: return rts(k_blelloch<true>, 2048, L.x, L.y, n, L.ws, L.s);
    case 5: return rts(k_warp, 1024, L.x, L.y, n, L.ws, L.s);
    case 6: {
        const size_t nt = (n + 1023) / 1024;
        unsigned *tk = L.ws, *fl = L.ws + 4, *inc = fl + nt;
        cudaError_t e = cudaMemsetAsync(tk, 0, (4 + nt) * sizeof(unsigned), L.s);
        if (e != cudaSuccess) return e;
        k_chained<<<(unsigned)nt, 1024, 0, L.s>>>(L.x, L.y, n, tk, fl, inc);
        return cudaGetLastError();
    }
    default: { /* gp_scan with its kernel forced, then the library's own choice again */
        gp__scan_force_kernel(id == 7 ? GP__SCAN_KERNEL_LOOKBACK : GP__SCAN_KERNEL_ENGINE);
        const gp_status_t st = gp_scan(L.r->gpu, GP_REDUCE_SUM, GP_U32, GP_SCAN_INCLUSIVE, n, L.x, L.y, (gp_stream_t)L.s);
        gp__scan_force_kernel(GP__SCAN_KERNEL_AUTO);
        return st == GP_OK ? cudaSuccess : cudaErrorUnknown;
    }
    }
}

cudaError_t launch(void *L, int id, size_t n) { return run_version(*(Lab *)L, id, n); }

const struct {
    int id;
    const char *name, *teaches;
    size_t cap;
} k_versions[] = {
    {1, "serial", "one thread: the baseline every parallel scan must beat", (size_t)1 << 20},
    {2, "hillis-steele", "log2(1024) steps of n adds in shared memory; reduce-then-scan across blocks", 0},
    {3, "blelloch", "work-efficient up/down sweep (2n adds), strided accesses conflict in the banks", 0},
    {4, "blelloch-pad", "one padding word per 32 words: the sweeps' strides spread over the banks", 0},
    {5, "warp-shuffle", "registers and __shfl_up_sync instead of shared memory; warp totals by warp 0", 0},
    {6, "chained", "one pass, but each block waits for the one before it: a serial chain of latencies", 0},
    {7, "look-back", "gp_scan's look-back kernel: decoupled look-back, one pass, deterministic (docs/design/scan.md)", 0},
    {8, "tile-engine", "gp_scan's tile engine: copy-engine tiles, a producer and a look-back warp beside the scan", 0},
};
/* the version the library takes for this scan */
int production_id() { return gp__scan_auto_kernel(GP_U32) == GP__SCAN_KERNEL_ENGINE ? 8 : 7; }
const int k_nv = sizeof k_versions / sizeof k_versions[0];

int scan_run(lab_run_t *r)
{
    size_t n = lab_opt(r, "--quick") ? (size_t)1 << 18 : (size_t)1 << 24;
    const char *on = lab_opt(r, "-n");
    if (on && (parse_size(on, &n) != 0 || n == 0 || n > ((size_t)1 << 30)))
        return lab_bad_value(r, "-n", "an element count 1 .. 2^30", on);
    if (r->gpu == NULL) return EXIT_NO_GPU;
    Lab L = {r, n, nullptr, nullptr, nullptr, 0, nullptr, EXIT_OK};
    /* block totals: n/1024 + n/1024^2 + ... < n/1023 + 64, and the chained scan's 4 + 2 n/1024 words */
    L.ws_words = 2 * (n / 1000) + 256;
    unsigned *h = (unsigned *)malloc(n * 4), *ref = (unsigned *)malloc(n * 4), *got = (unsigned *)malloc(n * 4);
    if (!h || !ref || !got || cudaSetDevice(gp_ctx_device(r->gpu)) != cudaSuccess ||
        cudaMalloc(&L.x, n * 4) != cudaSuccess || cudaMalloc(&L.y, n * 4) != cudaSuccess ||
        cudaMalloc(&L.ws, L.ws_words * 4) != cudaSuccess || cudaStreamCreate(&L.s) != cudaSuccess) {
        fprintf(stderr, "gpuprim lab scan: %zu elements: %s\n", n, cudaGetErrorString(cudaGetLastError()));
        L.rc = EXIT_FAIL;
        goto out;
    }
    {
        uint64_t st = 0x9e3779b97f4a7c15ull ^ n;
        unsigned acc = 0;
        for (size_t i = 0; i < n; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            h[i] = (unsigned)(st >> 33);
            ref[i] = acc += h[i];
        }
        if (cudaMemcpy(L.x, h, n * 4, cudaMemcpyHostToDevice) != cudaSuccess) L.rc = EXIT_FAIL;
    }
    {
        static const char *const cols[] = {"version", "name", "n", "median_us", "GB/s", "check"};
        static const int num[] = {0, 0, 1, 1, 1, 0};
        lab_begin(r, "gpuprim lab scan", cols, num, 6);
        report_meta(&r->report, "work", "inclusive u32 sum (exact: every version must equal the host's prefix sum)");
        report_meta(&r->report, "timing", "CUDA events, median of %d after %d warm-up; GB/s = 8 bytes per element",
                    r->reps, r->warmup);
    }
    {
        float med[16] = {0};
        for (int v = 0; v < k_nv && L.rc == EXIT_OK; v++) {
            const size_t m = k_versions[v].cap && k_versions[v].cap < n ? k_versions[v].cap : n;
            const int reps = k_versions[v].id == 1 ? 3 : r->reps;
            int bad = 0;
            if (lab_time_checked(r, k_versions[v].id, k_versions[v].name, reps, L.s, launch, &L, L.y, m, ref, got,
                                 "element", &med[v], &bad) != 0) {
                L.rc = EXIT_FAIL;
                break;
            }
            char cid[8], cn[24], cus[24], cg[24];
            snprintf(cid, sizeof cid, "%02d%s", k_versions[v].id, k_versions[v].id == production_id() ? "*" : "");
            snprintf(cn, sizeof cn, "%zu", m);
            snprintf(cus, sizeof cus, "%.1f", med[v] * 1e3);
            snprintf(cg, sizeof cg, "%.1f", 8.0 * (double)m / (med[v] * 1e-3) / 1e9);
            const char *cells[] = {cid, k_versions[v].name, cn, cus, cg, bad ? "FAIL" : "ok"};
            report_row(&r->report, cells);
        }
        if (L.rc == EXIT_OK) { /* the primers' claims */
            char m[256];
            const float hs = med[1], bl = med[2], pad = med[3], wa = med[4], ch = med[5], lb = med[6], te = med[7];
            snprintf(m, sizeof m, "Hillis-Steele %.1f us, Blelloch %.1f us (x%.2f)", hs * 1e3, bl * 1e3, hs / bl);
            lab_claim(r, "work", "the work-efficient (Blelloch) scan beats Hillis-Steele's n log n additions", m,
                      bl < hs ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "Blelloch %.1f us, padded %.1f us (x%.2f)", bl * 1e3, pad * 1e3, bl / pad);
            lab_claim(r, "banks", "padding removes the Blelloch sweeps' bank conflicts and speeds the block scan", m,
                      pad < bl ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "warp shuffle %.1f us, best shared-memory scan %.1f us", wa * 1e3,
                     (pad < hs ? pad : hs) * 1e3);
            lab_claim(r, "shuffle", "warp shuffles beat shared-memory block scans", m,
                      wa < (pad < hs ? pad : hs) ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "chained %.1f us, decoupled look-back %.1f us (x%.1f)", ch * 1e3, lb * 1e3, ch / lb);
            lab_claim(r, "single pass", "a chained single pass is bound by its serial inter-block waits; decoupled "
                      "look-back removes the chain", m, lb < ch ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "reduce-then-scan (warp shuffle) %.1f us, look-back %.1f us", wa * 1e3, lb * 1e3);
            lab_claim(r, "passes", "one pass (read n, write n) beats reduce-then-scan's extra passes", m,
                      lb < wa ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "look-back kernel %.1f us, tile engine %.1f us (x%.2f)", lb * 1e3, te * 1e3, lb / te);
            lab_claim(r, "async copies", "tiles the copy engine brings in, with the look-back beside the scan, beat "
                      "loads through registers behind a block barrier", m, te < lb ? "holds" : "does not hold here");
        }
    }
out:
    if (L.s) cudaStreamDestroy(L.s);
    cudaFree(L.x), cudaFree(L.y), cudaFree(L.ws);
    free(h), free(ref), free(got);
    if (L.rc != EXIT_OK) return L.rc;
    return r->failed ? EXIT_MISMATCH : EXIT_OK;
}

void scan_list(FILE *f)
{
    for (int v = 0; v < k_nv; v++)
        fprintf(f, "%02d %-14s %s%s\n", k_versions[v].id, k_versions[v].name, k_versions[v].teaches,
                k_versions[v].id == production_id() ? "  <- production" : "");
}

const lab_opt_t k_opts[] = {
    {"-n", "N", "elements (default 2^24; the serial version at most 2^20)"},
    {"--quick", NULL, "2^18 elements (the GPU test's smoke run)"},
    {NULL, NULL, NULL},
};

} // namespace

extern "C" {
extern const lab_topic_t lab_topic_scan;
const lab_topic_t lab_topic_scan = {
    "scan",
    "prefix sums: serial, Hillis-Steele, Blelloch (plain, padded), warp shuffle, chained, decoupled look-back, tile engine",
    "  the primers' scans as versions of one inclusive u32 sum, each checked exactly against the host, timed\n"
    "  with CUDA events (median of --reps, default 10), with the primers' claims and a verdict.",
    k_opts, 1, 0, 0, scan_list, scan_run,
};
}
