/*
 * select.cu — `gpuprim lab select`: ways to find the k smallest of n random u32 keys, as numbered versions of one
 * selection (the k smallest in ascending order; every version must equal the first k of the CPU backend's sort
 * exactly), timed side by side at several k (select_vNN_<idea>):
 *   01 sort_slice    sort all n (gp_sort), keep the first k: every key moves in every radix pass
 *   02 radix_select  per 8-bit digit, one counting read of all n (only keys sharing the digits chosen so far count)
 *                    and one pick: the k-th key T; one more read gathers the keys below T, T's ties fill the rest,
 *                    then the k are sorted
 *   03 radix_filter  the first digit counted over all n, then one read splits the keys: below the digit straight to
 *                    the output, in it to a candidate list; the other digits count and gather the candidates only
 *   04 sampled       production gp_topk: a bound from a sample, one read keeps the keys at or below it (about k),
 *                    the select and the ordering on those alone (docs/design/sort.md)
 * CUDA events, medians of --reps. The primers' claims are printed with a verdict at every k.
 */
#include "lab_versions.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int TT = 256;

struct Sel {         /* the selection so far, in device memory */
    unsigned prefix; /* the digits of T chosen so far, under mask */
    unsigned mask;
    unsigned want;  /* T's rank (from 1) among the keys sharing the prefix */
    unsigned nout;  /* keys appended to the output */
    unsigned ncand; /* keys appended to the candidates (03) */
};

__global__ void k_init(Sel *sel, unsigned k, unsigned *hist)
{
    if (threadIdx.x == 0) *sel = Sel{0, 0, k, 0, 0};
    hist[threadIdx.x] = 0;
}

/* the digit at shift of every key sharing the prefix, counted in shared memory, then added to hist; the keys are
 * x[0, *count) where count is given, else x[0, n) */
__global__ void __launch_bounds__(TT) k_count(const unsigned *x, size_t n, const unsigned *count, const Sel *sel,
                                              int shift, unsigned *hist)
{
    __shared__ unsigned h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    const size_t m = count ? *count : n;
    const unsigned prefix = sel->prefix, mask = sel->mask;
    for (size_t i = (size_t)blockIdx.x * TT + threadIdx.x; i < m; i += (size_t)gridDim.x * TT) {
        const unsigned v = x[i];
        if ((v & mask) == prefix) atomicAdd(&h[(v >> shift) & 255u], 1u);
    }
    __syncthreads();
    if (h[threadIdx.x]) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

/* one thread: the digit where the wanted rank falls; the counts zeroed for the next digit */
__global__ void k_pick(Sel *sel, int shift, unsigned *hist)
{
    unsigned want = sel->want, below = 0, d = 0;
    while (below + hist[d] < want) below += hist[d++];
    sel->prefix |= d << shift, sel->mask |= 255u << shift, sel->want = want - below;
    for (int j = 0; j < 256; j++) hist[j] = 0;
}

/* a warp appends its lanes' takes at one reserved run of places (one atomic a warp, not a key); the warp's lanes
 * call it together */
__device__ __forceinline__ void append(bool take, unsigned v, unsigned *counter, unsigned *out)
{
    const unsigned m = __ballot_sync(0xffffffffu, take), lane = threadIdx.x & 31u;
    if (m == 0) return;
    const unsigned first = (unsigned)__ffs((int)m) - 1u;
    unsigned base = 0;
    if (lane == first) base = atomicAdd(counter, (unsigned)__popc(m));
    base = __shfl_sync(0xffffffffu, base, (int)first);
    if (take) out[base + (unsigned)__popc(m & ((1u << lane) - 1u))] = v;
}

/* 02, 03: every key below T (the full prefix) appended to out; the keys as in k_count. Whole warps step together
 * (the stride is a multiple of the block), so the ballot sees every lane. */
__global__ void __launch_bounds__(TT) k_gather(const unsigned *x, size_t n, const unsigned *count, Sel *sel,
                                               unsigned *out)
{
    const size_t m = count ? *count : n;
    const unsigned t = sel->prefix;
    for (size_t b = (size_t)blockIdx.x * TT; b < m; b += (size_t)gridDim.x * TT) {
        const size_t i = b + threadIdx.x;
        const unsigned v = i < m ? x[i] : 0u;
        append(i < m && v < t, v, &sel->nout, out);
    }
}

/* the last `want` places of the k are T's ties */
__global__ void k_ties(const Sel *sel, unsigned k, unsigned *out)
{
    for (unsigned i = k - sel->want + blockIdx.x * blockDim.x + threadIdx.x; i < k; i += gridDim.x * blockDim.x)
        out[i] = sel->prefix;
}

/* 03: after the first digit d: keys with a smaller top digit to out, those with d to the candidates */
__global__ void __launch_bounds__(TT) k_split(const unsigned *x, size_t n, Sel *sel, unsigned *out, unsigned *cand)
{
    const unsigned d = sel->prefix >> 24;
    for (size_t b = (size_t)blockIdx.x * TT; b < n; b += (size_t)gridDim.x * TT) {
        const size_t i = b + threadIdx.x;
        const unsigned v = i < n ? x[i] : 0xffffffffu;
        append(i < n && (v >> 24) < d, v, &sel->nout, out);
        append(i < n && (v >> 24) == d, v, &sel->ncand, cand);
    }
}

struct Lab {
    lab_run_t *r;
    size_t n;
    unsigned blocks; /* the reads' grid: enough blocks to fill the device */
    unsigned *x, *y, *tmp, *cand, *hist;
    Sel *sel;
    cudaStream_t s;
};

/* the selection's digits: 02 counts all n every digit; 03 counts the candidates after the first */
cudaError_t radix(Lab &L, size_t k, bool filter)
{
    k_init<<<1, 256, 0, L.s>>>(L.sel, (unsigned)k, L.hist);
    for (int shift = 24; shift >= 0; shift -= 8) {
        const bool cands = filter && shift < 24;
        k_count<<<L.blocks, TT, 0, L.s>>>(cands ? L.cand : L.x, L.n, cands ? &L.sel->ncand : nullptr, L.sel, shift,
                                          L.hist);
        k_pick<<<1, 1, 0, L.s>>>(L.sel, shift, L.hist);
        if (filter && shift == 24) k_split<<<L.blocks, TT, 0, L.s>>>(L.x, L.n, L.sel, L.tmp, L.cand);
    }
    k_gather<<<L.blocks, TT, 0, L.s>>>(filter ? L.cand : L.x, L.n, filter ? &L.sel->ncand : nullptr, L.sel, L.tmp);
    k_ties<<<(unsigned)((k + 255) / 256), 256, 0, L.s>>>(L.sel, (unsigned)k, L.tmp);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    return gp_sort(L.r->gpu, GP_U32, k, L.tmp, L.y, NULL, (gp_stream_t)L.s) == GP_OK ? cudaSuccess
                                                                                     : cudaErrorUnknown;
}

cudaError_t run_version(Lab &L, int id, size_t k)
{
    switch (id) {
    case 1:
        if (gp_sort(L.r->gpu, GP_U32, L.n, L.x, L.tmp, NULL, (gp_stream_t)L.s) != GP_OK) return cudaErrorUnknown;
        return cudaMemcpyAsync(L.y, L.tmp, k * 4, cudaMemcpyDeviceToDevice, L.s);
    case 2: return radix(L, k, false);
    case 3: return radix(L, k, true);
    default:
        return gp_topk(L.r->gpu, GP_U32, 1, L.n, L.x, k, 0, L.y, GP_U32, NULL, (gp_stream_t)L.s) == GP_OK
                   ? cudaSuccess
                   : cudaErrorUnknown;
    }
}

cudaError_t launch(void *L, int id, size_t k) { return run_version(*(Lab *)L, id, k); }

const lab_version_t k_versions[] = {
    {1, "select_v01_sort_slice", 1, "sort all n, keep the first k: every key moves in every radix pass", "", 0, 0, 0,
     NULL},
    {2, "select_v02_radix_select", 1, "a counting read of all n per 8-bit digit finds the k-th key; a read gathers "
     "the keys below it", "five reads of n", 0, 0, 0, NULL},
    {3, "select_v03_radix_filter", 1, "after the first digit only its keys (the candidates) are counted and gathered",
     "two reads of n", 0, 0, 0, NULL},
    {LAB_SELECT_LIBRARY, "select_v04_sampled", 1, "gp_topk: a sampled bound, one read keeps about k candidates, the "
     "select and the ordering on those", "", 0, 0, 0, NULL},
};
const int k_nv = sizeof k_versions / sizeof k_versions[0];

int select_run(lab_run_t *r)
{
    size_t n = lab_opt(r, "--quick") ? (size_t)1 << 18 : (size_t)1 << 24, ks[3] = {16, 1024, 65536};
    int nk = 3;
    const char *on = lab_opt(r, "-n"), *ok = lab_opt(r, "-k");
    if (on && (parse_size(on, &n) != 0 || n == 0 || n > ((size_t)1 << 28)))
        return lab_bad_value(r, "-n", "a key count 1 .. 2^28", on);
    if (ok && (parse_size(ok, &ks[0]) != 0 || ks[0] == 0 || ks[0] > n))
        return lab_bad_value(r, "-k", "a count 1 .. n", ok);
    if (ok) nk = 1;
    while (nk > 1 && ks[nk - 1] > n) nk--; /* the default ks that fit n */
    if (ks[0] > n) ks[0] = n;
    if (r->gpu == NULL) return EXIT_NO_GPU;
    Lab L = {r, n, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    int rc = EXIT_OK, sms = 0;
    unsigned *h = (unsigned *)malloc(n * 4), *ref = (unsigned *)malloc(n * 4), *got = (unsigned *)malloc(n * 4);
    if (!h || !ref || !got) {
        fprintf(stderr, "gpuprim lab select: no host memory for %zu keys\n", n);
        rc = EXIT_FAIL;
        goto out;
    }
    {
        uint64_t st = 0x9e3779b97f4a7c15ull ^ n;
        for (size_t i = 0; i < n; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            h[i] = (unsigned)(st >> 32);
        }
    }
    if (cudaSetDevice(gp_ctx_device(r->gpu)) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, gp_ctx_device(r->gpu)) != cudaSuccess ||
        cudaMalloc(&L.x, n * 4) != cudaSuccess || cudaMalloc(&L.y, n * 4) != cudaSuccess ||
        cudaMalloc(&L.tmp, n * 4) != cudaSuccess || cudaMalloc(&L.cand, n * 4) != cudaSuccess ||
        cudaMalloc(&L.hist, 256 * 4) != cudaSuccess || cudaMalloc(&L.sel, sizeof(Sel)) != cudaSuccess ||
        cudaStreamCreate(&L.s) != cudaSuccess || cudaMemcpy(L.x, h, n * 4, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "gpuprim lab select: %zu keys: %s\n", n, cudaGetErrorString(cudaGetLastError()));
        rc = EXIT_FAIL;
        goto out;
    }
    L.blocks = (unsigned)sms * 8;
    if (gp_sort_sync(r->cpu, GP_U32, n, h, ref, NULL) != GP_OK) {
        fprintf(stderr, "gpuprim lab select: the reference: %s\n", gp_last_error());
        rc = EXIT_FAIL;
        goto out;
    }
    {
        static const char *const cols[] = {"version", "name", "n", "k", "median_us", "Gkeys/s", "check"};
        static const int num[] = {0, 0, 1, 1, 1, 1, 0};
        lab_begin(r, "gpuprim lab select", cols, num, 7);
        report_meta(&r->report, "work", "the k smallest of %zu random u32 keys, ascending (every version must equal "
                    "the first k of the CPU backend's sort)", n);
        report_meta(&r->report, "timing", "CUDA events, median of %d after %d warm-up; Gkeys/s = n / time", r->reps,
                    r->warmup);
    }
    {
        float med[3][4] = {{0}};
        lab_chart_t *ch = lab_chart(r, "gpuprim lab select: time against k", "k", "median us", 1);
        for (int j = 0; j < nk && rc == EXIT_OK; j++)
            for (int v = 0; v < k_nv; v++) {
                int bad = 0;
                if (lab_time_checked(r, k_versions[v].id, k_versions[v].name, r->reps, L.s, launch, &L, L.y, ks[j],
                                     ref, got, "key", &med[j][v], &bad) != 0) {
                    rc = EXIT_FAIL;
                    break;
                }
                char cid[8], cn[24], ck[24], cus[24], cg[24];
                snprintf(cid, sizeof cid, "%02d%s", k_versions[v].id,
                         lab_is_production(LAB_T_SELECT, &k_versions[v]) ? "*" : "");
                snprintf(cn, sizeof cn, "%zu", n);
                snprintf(ck, sizeof ck, "%zu", ks[j]);
                snprintf(cus, sizeof cus, "%.1f", med[j][v] * 1e3);
                snprintf(cg, sizeof cg, "%.2f", (double)n / (med[j][v] * 1e-3) / 1e9);
                const char *cells[] = {cid, k_versions[v].name, cn, ck, cus, cg, bad ? "FAIL" : "ok"};
                report_row(&r->report, cells);
                lab_point(ch, k_versions[v].name, (double)ks[j], med[j][v] * 1e3);
            }
        if (rc == EXIT_OK) { /* the primers' claims, at every k */
            static const struct {
                int fast, slow;
                const char *section, *claim;
            } cl[] = {
                {1, 0, "selection", "finding the k smallest needs a few reads of the keys, not a sort of all of them"},
                {2, 1, "candidates", "once the first digit is chosen only its keys can hold the k-th: count and gather "
                 "those, not all n, for the remaining digits"},
                {3, 2, "sampling", "a bound from a sample lets one read keep about k candidates, so even the first "
                 "digit's count runs over those alone"},
            };
            for (int c = 0; c < 3; c++) {
                char m[256] = "", verdict[96] = "holds";
                size_t at = 0;
                for (int j = 0; j < nk; j++) {
                    const float f = med[j][cl[c].fast], s = med[j][cl[c].slow];
                    at += (size_t)snprintf(m + at, at < sizeof m ? sizeof m - at : 0, "%sk=%zu: %.1f vs %.1f us",
                                           j ? "; " : "", ks[j], f * 1e3, s * 1e3);
                    if (f >= s && strcmp(verdict, "holds") == 0)
                        snprintf(verdict, sizeof verdict, "does not hold here at k = %zu", ks[j]);
                }
                lab_claim(r, cl[c].section, cl[c].claim, m, verdict);
            }
        }
    }
out:
    if (L.s) cudaStreamDestroy(L.s);
    cudaFree(L.x), cudaFree(L.y), cudaFree(L.tmp), cudaFree(L.cand), cudaFree(L.hist), cudaFree(L.sel);
    free(h), free(ref), free(got);
    if (rc != EXIT_OK) return rc;
    return r->failed ? EXIT_MISMATCH : EXIT_OK;
}

void select_list(FILE *f) { lab_list_versions(f, LAB_T_SELECT, k_versions, k_nv); }

const lab_opt_t k_opts[] = {
    {"-n", "N", "keys (default 2^24)"},
    {"-k", "K", "one k, 1 .. n (default: 16, 1024 and 65536, those at most n)"},
    {"--quick", NULL, "2^18 keys (the GPU test's smoke run)"},
    {NULL, NULL, NULL},
};

} // namespace

extern "C" {
extern const lab_topic_t lab_topic_select;
const lab_topic_t lab_topic_select = {
    "select",
    "selection (top-k): sort and slice, radix select over all keys, over the candidates, from a sampled bound",
    "  ways to find the k smallest of n u32 keys as versions of one selection, each checked exactly against the\n"
    "  CPU backend's sort, timed with CUDA events (median of --reps, default 10) at k = 16, 1024, 65536, with the\n"
    "  primers' claims and a verdict at every k.",
    k_opts, 1, 0, 0, select_list, select_run,
};
}
