/*
 * sort.cu — `gpuprim lab sort`: the sorts a CUDA course teaches as numbered versions of one ascending sort of n random
 * u32 keys (every version must equal the host's sorted keys exactly), timed side by side (sort_vNN_<idea>):
 *   01 bitonic_global  Batcher's bitonic network, every compare-exchange step one launch over global memory
 *                      (n padded to a power of two with the largest key): O(n log^2 n) work
 *   02 bitonic_shared  the same network, the steps of stride < 2048 run in shared memory, one launch for them all
 *   03 odd_even_merge  Batcher's odd-even merge network (fewer compare-exchanges than bitonic, less regular)
 *   04 lsd_4bit        radix sort, three kernels a 4-bit digit: tile counts -> their scan (gp_scan) -> a stable
 *                      scatter ranked in the tile by warp matches (__match_any_sync): 8 passes
 *   05 lsd_8bit        the same with 8-bit digits: 4 passes, 16x the counters
 *   06 onesweep        production gp_sort: one counting pass, then one pass a digit with a decoupled look-back and
 *                      staged stores (docs/design/sort.md)
 * CUDA events, medians of --reps; the bitonic and odd-even versions include the copy of the keys they sort in place.
 * The primers' claims are printed with a verdict.
 */
#include "lab_versions.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* ---------------------------------------------------------------------------------------------- sorting networks */
__device__ __forceinline__ void cmpx(unsigned *a, size_t i, size_t l, bool up)
{
    const unsigned x = a[i], y = a[l];
    if ((x > y) == up) a[i] = y, a[l] = x;
}

/* one bitonic step (block size k, stride j) over N keys: thread t takes the pair (i, i + j) */
__global__ void k_bitonic_step(unsigned *a, size_t N, size_t k, size_t j)
{
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < N / 2; t += (size_t)gridDim.x * blockDim.x) {
        const size_t i = t / j * 2 * j + t % j;
        cmpx(a, i, i + j, (i & k) == 0);
    }
}

/* the steps of strides jmax .. 1 of block size k (kmax == 0) — or, kmax > 0, the whole network of block sizes
 * 2 .. kmax — on 2048 keys a block in shared memory */
__global__ void __launch_bounds__(1024) k_bitonic_shared(unsigned *a, size_t k, unsigned jmax, unsigned kmax)
{
    __shared__ unsigned s[2048];
    const size_t base = (size_t)blockIdx.x * 2048;
    const unsigned t = threadIdx.x;
    s[t] = a[base + t], s[t + 1024] = a[base + t + 1024];
    __syncthreads();
    for (unsigned kk = kmax ? 2 : 0; kk <= kmax; kk <<= 1) {
        const size_t K = kmax ? kk : k;
        for (unsigned j = kmax ? kk / 2 : jmax; j >= 1; j >>= 1) {
            const unsigned i = t / j * 2 * j + t % j;
            const unsigned x = s[i], y = s[i + j];
            if ((x > y) == (((base + i) & K) == 0)) s[i] = y, s[i + j] = x;
            __syncthreads();
        }
        if (!kmax) break;
    }
    a[base + t] = s[t], a[base + t + 1024] = s[t + 1024];
}

/* one step (p, k) of Batcher's odd-even merge sort: key x is compared with x + k when it is in the lower half of its
 * 2k-group (groups starting at k mod p) and both lie in the same 2p-block */
__global__ void k_oem_step(unsigned *a, size_t N, size_t p, size_t k)
{
    const size_t j0 = k % p;
    for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < N; x += (size_t)gridDim.x * blockDim.x)
        if (x >= j0 && (x - j0) % (2 * k) < k && x + k < N && x / (2 * p) == (x + k) / (2 * p)) cmpx(a, x, x + k, true);
}

/* ---------------------------------------------------------------------------------------------- three-kernel LSD */
constexpr int THREADS = 256, WARPS = THREADS / 32, ITEMS = 16, TILE = THREADS * ITEMS;

/* tile t's count of each digit value into counts[d * ntiles + t] */
template <int BITS>
__global__ void __launch_bounds__(THREADS) k_counts(const unsigned *keys, size_t n, int shift, unsigned *counts,
                                                    size_t ntiles)
{
    constexpr int R = 1 << BITS;
    __shared__ unsigned s_h[R];
    for (int d = threadIdx.x; d < R; d += THREADS) s_h[d] = 0;
    __syncthreads();
    const size_t t0 = (size_t)blockIdx.x * TILE;
    for (int i = threadIdx.x; i < TILE; i += THREADS)
        if (t0 + i < n) atomicAdd(&s_h[(keys[t0 + i] >> shift) & (R - 1)], 1u);
    __syncthreads();
    for (int d = threadIdx.x; d < R; d += THREADS) counts[(size_t)d * ntiles + blockIdx.x] = s_h[d];
}

/* the stable scatter of tile t (offs: the counts scanned): a warp ranks its 32 x ITEMS keys 32 at a time in memory
 * order by warp matches and a per-warp counter per digit; the warps' counts scanned per digit give each warp's base */
template <int BITS>
__global__ void __launch_bounds__(THREADS) k_scatter(const unsigned *kin, unsigned *kout, size_t n, int shift,
                                                     const unsigned *offs, size_t ntiles)
{
    constexpr int R = 1 << BITS;
    __shared__ unsigned s_wc[WARPS][R];
    __shared__ unsigned s_base[R];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = lane; d < R; d += 32) s_wc[warp][d] = 0;
    __syncwarp();
    const size_t t = blockIdx.x, seg = t * TILE + (size_t)warp * 32 * ITEMS;
    unsigned key[ITEMS], rank[ITEMS];
    const unsigned lt = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const size_t e = seg + (size_t)k * 32 + lane;
        key[k] = e < n ? kin[e] : 0u;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const bool ok = seg + (size_t)k * 32 + lane < n;
        const unsigned d = ok ? (key[k] >> shift) & (R - 1) : (unsigned)R;
        const unsigned peers = __match_any_sync(0xffffffffu, d);
        rank[k] = ok ? s_wc[warp][d] + __popc(peers & lt) : 0u;
        __syncwarp();
        if (ok && (peers & lt) == 0) s_wc[warp][d] += __popc(peers);
        __syncwarp();
    }
    __syncthreads();
    for (int d = threadIdx.x; d < R; d += THREADS) {
        unsigned run = 0;
        for (int w = 0; w < WARPS; w++) {
            const unsigned c = s_wc[w][d];
            s_wc[w][d] = run;
            run += c;
        }
        s_base[d] = offs[(size_t)d * ntiles + t];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        const size_t e = seg + (size_t)k * 32 + lane;
        if (e < n) {
            const unsigned d = (key[k] >> shift) & (R - 1);
            kout[(size_t)s_base[d] + s_wc[warp][d] + rank[k]] = key[k];
        }
    }
}

/* ---------------------------------------------------------------------------------------------- versions */
struct Lab {
    lab_run_t *r;
    size_t n, N;          /* keys, and the networks' power of two (>= 2048) */
    unsigned *x, *y, *tmp; /* x: the input (N words, padded with 0xffffffff), y: the output (N), tmp: n */
    unsigned *counts;     /* 16 x (n / TILE + 1) for the 4-bit LSD; 256 x for the 8-bit */
    cudaStream_t s;
    int rc;
};

unsigned grid_of(size_t work) { return (unsigned)((work + 255) / 256 < 65535 * 4 ? (work + 255) / 256 : 65535 * 4); }

template <int BITS> cudaError_t lsd(Lab &L, size_t n)
{
    const size_t ntiles = (n + TILE - 1) / TILE, nc = ((size_t)1 << BITS) * ntiles;
    const int passes = 32 / BITS; /* even: pass 0 reads x, the last writes y */
    const unsigned *src = L.x;
    for (int p = 0; p < passes; p++) {
        unsigned *dst = p % 2 ? L.y : L.tmp;
        k_counts<BITS><<<(unsigned)ntiles, THREADS, 0, L.s>>>(src, n, p * BITS, L.counts, ntiles);
        if (gp_scan(L.r->gpu, GP_REDUCE_SUM, GP_U32, GP_SCAN_EXCLUSIVE, nc, L.counts, L.counts, (gp_stream_t)L.s) != GP_OK)
            return cudaErrorUnknown;
        k_scatter<BITS><<<(unsigned)ntiles, THREADS, 0, L.s>>>(src, dst, n, p * BITS, L.counts, ntiles);
        src = dst;
    }
    return cudaGetLastError();
}

cudaError_t run_version(Lab &L, int id, size_t n)
{
    if (id <= 3) { /* the networks sort y in place: the padded keys first */
        cudaError_t e = cudaMemcpyAsync(L.y, L.x, L.N * 4, cudaMemcpyDeviceToDevice, L.s);
        if (e != cudaSuccess) return e;
    }
    const size_t N = L.N;
    switch (id) {
    case 1:
        for (size_t k = 2; k <= N; k <<= 1)
            for (size_t j = k / 2; j >= 1; j >>= 1) k_bitonic_step<<<grid_of(N / 2), 256, 0, L.s>>>(L.y, N, k, j);
        return cudaGetLastError();
    case 2:
        k_bitonic_shared<<<(unsigned)(N / 2048), 1024, 0, L.s>>>(L.y, 0, 0, 2048);
        for (size_t k = 4096; k <= N; k <<= 1) {
            for (size_t j = k / 2; j >= 2048; j >>= 1) k_bitonic_step<<<grid_of(N / 2), 256, 0, L.s>>>(L.y, N, k, j);
            k_bitonic_shared<<<(unsigned)(N / 2048), 1024, 0, L.s>>>(L.y, k, 1024, 0);
        }
        return cudaGetLastError();
    case 3:
        for (size_t p = 1; p < N; p <<= 1)
            for (size_t k = p; k >= 1; k >>= 1) k_oem_step<<<grid_of(N), 256, 0, L.s>>>(L.y, N, p, k);
        return cudaGetLastError();
    case 4: return lsd<4>(L, n);
    case 5: return lsd<8>(L, n);
    default:
        return gp_sort(L.r->gpu, GP_U32, n, L.x, L.y, NULL, (gp_stream_t)L.s) == GP_OK ? cudaSuccess
                                                                                   : cudaErrorUnknown;
    }
}

cudaError_t launch(void *L, int id, size_t n) { return run_version(*(Lab *)L, id, n); }

const lab_version_t k_versions[] = {
    {1, "sort_v01_bitonic_global", 1, "a sorting network: log2(n)(log2(n)+1)/2 launches of n/2 compare-exchanges",
     "n padded to a power of two", 0, 0, 0, NULL},
    {2, "sort_v02_bitonic_shared", 1, "the strides below 2048 in shared memory, one launch for them; long ones global",
     "n padded to a power of two", 0, 0, 0, NULL},
    {3, "sort_v03_odd_even_merge", 1, "Batcher's odd-even merge: fewer compare-exchanges, a less regular pattern",
     "n padded to a power of two", 0, 0, 0, NULL},
    {4, "sort_v04_lsd_4bit", 1, "radix: 8 passes of tile counts -> their scan -> a stable scatter ranked by warp matches",
     "", 0, 0, 0, NULL},
    {5, "sort_v05_lsd_8bit", 1, "the same in 4 passes of 8-bit digits; the scatter is not staged, the scan a pass",
     "", 0, 0, 0, NULL},
    {LAB_SORT_LIBRARY, "sort_v06_onesweep", 1, "gp_sort: a counting pass, then a pass a digit with a decoupled look-back "
     "and staged stores", "", 0, 0, 0, NULL},
};
const int k_nv = sizeof k_versions / sizeof k_versions[0];

int sort_run(lab_run_t *r)
{
    size_t n = lab_opt(r, "--quick") ? (size_t)1 << 18 : (size_t)1 << 24;
    const char *on = lab_opt(r, "-n");
    if (on && (parse_size(on, &n) != 0 || n == 0 || n > ((size_t)1 << 28)))
        return lab_bad_value(r, "-n", "a key count 1 .. 2^28", on);
    if (r->gpu == NULL) return EXIT_NO_GPU;
    Lab L = {r, n, 2048, nullptr, nullptr, nullptr, nullptr, nullptr, EXIT_OK};
    while (L.N < n) L.N <<= 1;
    const size_t nc = 256 * (n / TILE + 1);
    unsigned *h = (unsigned *)malloc(L.N * 4), *ref = (unsigned *)malloc(n * 4), *got = (unsigned *)malloc(n * 4);
    if (!h || !ref || !got || cudaSetDevice(gp_ctx_device(r->gpu)) != cudaSuccess ||
        cudaMalloc(&L.x, L.N * 4) != cudaSuccess || cudaMalloc(&L.y, L.N * 4) != cudaSuccess ||
        cudaMalloc(&L.tmp, n * 4) != cudaSuccess || cudaMalloc(&L.counts, nc * 4) != cudaSuccess ||
        cudaStreamCreate(&L.s) != cudaSuccess) {
        fprintf(stderr, "gpuprim lab sort: %zu keys: %s\n", n, cudaGetErrorString(cudaGetLastError()));
        L.rc = EXIT_FAIL;
        goto out;
    }
    {
        uint64_t st = 0x9e3779b97f4a7c15ull ^ n;
        for (size_t i = 0; i < L.N; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            h[i] = i < n ? (unsigned)(st >> 32) : 0xffffffffu; /* the networks' padding sorts last */
        }
        if (cudaMemcpy(L.x, h, L.N * 4, cudaMemcpyHostToDevice) != cudaSuccess ||
            gp_sort_sync(r->cpu, GP_U32, n, h, ref, NULL) != GP_OK) {
            fprintf(stderr, "gpuprim lab sort: the input and its reference: %s\n", gp_last_error());
            L.rc = EXIT_FAIL;
            goto out;
        }
    }
    {
        static const char *const cols[] = {"version", "name", "n", "median_us", "Gkeys/s", "check"};
        static const int num[] = {0, 0, 1, 1, 1, 0};
        lab_begin(r, "gpuprim lab sort", cols, num, 6);
        report_meta(&r->report, "work", "ascending sort of random u32 keys (every version must equal the host's)");
        report_meta(&r->report, "timing", "CUDA events, median of %d after %d warm-up; the networks (01-03) include "
                    "the copy of the %zu padded keys they sort in place", r->reps, r->warmup, L.N);
    }
    {
        float med[8] = {0};
        for (int v = 0; v < k_nv && L.rc == EXIT_OK; v++) {
            int bad = 0;
            if (lab_time_checked(r, k_versions[v].id, k_versions[v].name, r->reps, L.s, launch, &L, L.y, n, ref, got,
                                 "key", &med[v], &bad) != 0) {
                L.rc = EXIT_FAIL;
                break;
            }
            char cid[8], cn[24], cus[24], cg[24];
            snprintf(cid, sizeof cid, "%02d%s", k_versions[v].id,
                     lab_is_production(LAB_T_SORT, &k_versions[v]) ? "*" : "");
            snprintf(cn, sizeof cn, "%zu", n);
            snprintf(cus, sizeof cus, "%.1f", med[v] * 1e3);
            snprintf(cg, sizeof cg, "%.2f", (double)n / (med[v] * 1e-3) / 1e9);
            const char *cells[] = {cid, k_versions[v].name, cn, cus, cg, bad ? "FAIL" : "ok"};
            report_row(&r->report, cells);
        }
        if (L.rc == EXIT_OK) { /* the primers' claims */
            char m[256];
            const float bg = med[0], bs = med[1], oe = med[2], l4 = med[3], l8 = med[4], os = med[5];
            snprintf(m, sizeof m, "bitonic (shared) %.1f us, 8-bit LSD radix %.1f us (x%.1f)", bs * 1e3, l8 * 1e3,
                     bs / l8);
            lab_claim(r, "work", "radix sort's O(n passes) beats a sorting network's O(n log^2 n) at large n", m,
                      l8 < bs ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "global steps %.1f us, short strides in shared memory %.1f us (x%.2f)", bg * 1e3,
                     bs * 1e3, bg / bs);
            lab_claim(r, "shared memory", "running a network's short strides in shared memory speeds it up", m,
                      bs < bg ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "odd-even merge %.1f us, bitonic %.1f us", oe * 1e3, bg * 1e3);
            lab_claim(r, "networks", "odd-even merge sort does fewer compare-exchanges than bitonic, which does not "
                      "make it faster on a GPU (its pattern leaves lanes idle)", m,
                      oe >= bg ? "holds" : "does not hold here: odd-even merge is faster");
            snprintf(m, sizeof m, "4-bit digits (8 passes) %.1f us, 8-bit (4 passes) %.1f us (x%.2f)", l4 * 1e3,
                     l8 * 1e3, l4 / l8);
            lab_claim(r, "digit width", "wider digits mean fewer passes over the keys, while the counters still "
                      "fit in shared memory", m, l8 < l4 ? "holds" : "does not hold here");
            snprintf(m, sizeof m, "three kernels a digit %.1f us, Onesweep %.1f us (x%.2f)", l8 * 1e3, os * 1e3,
                     l8 / os);
            lab_claim(r, "look-back", "a look-back in the scatter pass (one pass a digit, staged stores) beats a "
                      "separate scan of the counts and an unstaged scatter", m,
                      os < l8 ? "holds" : "does not hold here");
        }
    }
out:
    if (L.s) cudaStreamDestroy(L.s);
    cudaFree(L.x), cudaFree(L.y), cudaFree(L.tmp), cudaFree(L.counts);
    free(h), free(ref), free(got);
    if (L.rc != EXIT_OK) return L.rc;
    return r->failed ? EXIT_MISMATCH : EXIT_OK;
}

void sort_list(FILE *f) { lab_list_versions(f, LAB_T_SORT, k_versions, k_nv); }

const lab_opt_t k_opts[] = {
    {"-n", "N", "keys (default 2^24; the networks pad to a power of two)"},
    {"--quick", NULL, "2^18 keys (the GPU test's smoke run)"},
    {NULL, NULL, NULL},
};

} // namespace

extern "C" {
extern const lab_topic_t lab_topic_sort;
const lab_topic_t lab_topic_sort = {
    "sort",
    "sorts: bitonic (global, shared), odd-even merge, three-kernel LSD (4-, 8-bit digits), Onesweep",
    "  the sorts of a CUDA course as versions of one ascending u32 sort, each checked exactly against the host,\n"
    "  timed with CUDA events (median of --reps, default 10), with the primers' claims and a verdict.",
    k_opts, 1, 0, 0, sort_list, sort_run,
};
}
