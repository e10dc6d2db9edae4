/*
 * concurrency.cu — `gpuprim lab concurrency`: the primers' concurrency model measured on this GPU, each version's
 * output checked, the primers' claim printed beside what was measured with a verdict. Sections:
 *   overlap   the chunked H2D -> kernel -> D2H pipeline on 1, 2, 4, 8 streams, pinned and pageable host memory,
 *             and a timeline (--svg) of one run built from events;
 *   kernels   N small kernels on one stream vs N streams; a short kernel behind a full-GPU backlog, at normal and
 *             at high stream priority;
 *   timers    what CUDA events and a host clock each measure, and the launch latency itself;
 *   graphs    a chain of K small kernels launched one by one vs captured once and replayed vs built from explicit
 *             nodes (K = 1 ... 1000), and a graph updated in place;
 *   persist   a hot buffer re-read between streaming passes over a larger one, without and with an L2 access
 *             policy window (gp_ctx_set_persisting_l2), over a sweep of hit ratios;
 *   managed   managed memory touched first by page faults vs prefetched vs copied explicitly; read-mostly advice;
 *             mapped (zero-copy) reads vs a copy for data read once;
 *   dsm       a neighbour exchange between the blocks of a cluster through distributed shared memory vs through
 *             global memory and a second kernel.
 * Host wall times are medians of --reps; GPU times are CUDA events, medians of --reps.
 */
#include "lab.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

namespace cg = cooperative_groups;

namespace {

/* ---------------------------------------------------------------------------------------------- kernels */
/* The pipeline's work: iters dependent FMAs per element; the host computes the same with fmaf (both round once). */
__host__ __device__ inline float work_fn(float x, int iters)
{
    float v = x;
    for (int k = 0; k < iters; k++) v = fmaf(v, 0.99993896484375f, 0.000030517578125f);
    return v;
}
__global__ void k_work(const float *in, float *out, size_t n, int iters)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = work_fn(in[i], iters);
}
/* One block spins for `cycles` SM clocks, then writes its mark. */
__global__ void k_spin(long long cycles, int *out, int idx)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    if (threadIdx.x == 0) atomicAdd(out + idx, idx + 1);
}
__global__ void k_empty() {}
__global__ void k_add(int *c, int v)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) *c += v;
}
/* Sums n words (exactly, in 64 bits) into *sum. */
__global__ void k_sum(const uint32_t *x, size_t n, unsigned long long *sum)
{
    unsigned long long s = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += x[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, s);
}
/* The exchange: block b's shared array holds xchg_val(b, i); each block outputs its neighbour's (b ^ 1) plus its own. */
__host__ __device__ inline int xchg_val(unsigned b, unsigned i) { return (int)(b * 7919u + i * 31u) & 0xffff; }
enum { XN = 4096 };
__global__ void __cluster_dims__(2, 1, 1) k_dsm(int *out)
{
    __shared__ int s[XN];
    cg::cluster_group cl = cg::this_cluster();
    for (unsigned i = threadIdx.x; i < XN; i += blockDim.x) s[i] = xchg_val(blockIdx.x, i);
    cl.sync();
    const int *peer = cl.map_shared_rank(s, (int)(cl.block_rank() ^ 1u));
    for (unsigned i = threadIdx.x; i < XN; i += blockDim.x) out[(size_t)blockIdx.x * XN + i] = peer[i] + s[i];
    cl.sync(); /* the neighbour may still read our array */
}
__global__ void k_xchg_write(int *g)
{
    for (unsigned i = threadIdx.x; i < XN; i += blockDim.x) g[(size_t)blockIdx.x * XN + i] = xchg_val(blockIdx.x, i);
}
__global__ void k_xchg_read(const int *g, int *out)
{
    for (unsigned i = threadIdx.x; i < XN; i += blockDim.x)
        out[(size_t)blockIdx.x * XN + i] = g[(size_t)(blockIdx.x ^ 1u) * XN + i] + g[(size_t)blockIdx.x * XN + i];
}

/* ---------------------------------------------------------------------------------------------- the run */
struct Lab {
    lab_run_t *r;
    int dev, sms, clock_khz, quick;
    int rc;
};

/* SM clock cycles in us microseconds at the device's peak clock (spinning kernels run at least that long). */
long long us_cycles(const Lab &L, double us) { return (long long)((double)L.clock_khz * us / 1000.0); }

double host_now()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool cuda_ok(Lab &L, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return true;
    fprintf(stderr, "gpuprim lab concurrency: %s: %s\n", what, cudaGetErrorString(e));
    (void)cudaGetLastError();
    L.rc = EXIT_FAIL;
    return false;
}
#define CK(expr) cuda_ok(L, (expr), #expr)

void row(Lab &L, const char *sec, const char *ver, const char *param, double us, double value, const char *unit,
         const char *check)
{
    char cus[32], cv[32];
    snprintf(cus, sizeof cus, "%.2f", us);
    snprintf(cv, sizeof cv, "%.4g", value);
    const char *cells[] = {sec, ver, param, cus, cv, unit, check};
    report_row(&L.r->report, cells);
}

const char *verdict(char *buf, size_t len, bool holds, const char *fmt, double v)
{
    char why[96];
    snprintf(why, sizeof why, fmt, v);
    snprintf(buf, len, "%s%s", holds ? "holds" : "does not hold here: ", holds ? "" : why);
    return buf;
}

/* ---------------------------------------------------------------------------------------------- overlap */
struct Pipe {
    size_t n, chunks;
    float *hin, *hout;   /* host, pinned or pageable */
    float *din, *dout;
    int iters;
};

/* One pipelined run over nstreams; events (4 per chunk) when ev != NULL. Returns the host wall seconds, < 0 on error. */
double pipe_run(Lab &L, Pipe &p, cudaStream_t *st, int nstreams, cudaEvent_t *ev, cudaEvent_t start)
{
    const size_t per = p.n / p.chunks;
    if (!CK(cudaDeviceSynchronize())) return -1;
    const double t0 = host_now();
    if (start && !CK(cudaEventRecord(start, st[0]))) return -1;
    for (size_t c = 0; c < p.chunks; c++) {
        cudaStream_t s = st[c % (size_t)nstreams];
        const size_t off = c * per, cnt = c + 1 == p.chunks ? p.n - off : per;
        if (ev) cudaEventRecord(ev[4 * c], s);
        cudaMemcpyAsync(p.din + off, p.hin + off, cnt * 4, cudaMemcpyHostToDevice, s);
        if (ev) cudaEventRecord(ev[4 * c + 1], s);
        k_work<<<(unsigned)((cnt + 255) / 256 < 65535 ? (cnt + 255) / 256 : 65535), 256, 0, s>>>(p.din + off, p.dout + off,
                                                                                                 cnt, p.iters);
        if (ev) cudaEventRecord(ev[4 * c + 2], s);
        cudaMemcpyAsync(p.hout + off, p.dout + off, cnt * 4, cudaMemcpyDeviceToHost, s);
        if (ev) cudaEventRecord(ev[4 * c + 3], s);
    }
    if (!CK(cudaDeviceSynchronize())) return -1;
    return host_now() - t0;
}

size_t pipe_check(const Pipe &p)
{
    size_t bad = 0;
    for (size_t i = 0; i < p.n; i += 4099) bad += p.hout[i] != work_fn(p.hin[i], p.iters);
    bad += p.hout[p.n - 1] != work_fn(p.hin[p.n - 1], p.iters);
    return bad;
}

void sec_overlap(Lab &L)
{
    lab_run_t *r = L.r;
    const size_t bytes = L.quick ? ((size_t)32 << 20) : ((size_t)256 << 20);
    Pipe p = {bytes / 4, 16, NULL, NULL, NULL, NULL, 1};
    float *pin_in = NULL, *pin_out = NULL, *pg_in = (float *)malloc(bytes), *pg_out = (float *)malloc(bytes);
    cudaStream_t st[8] = {};
    cudaEvent_t ev[64] = {}, start = NULL;
    bool ok = pg_in && pg_out && CK(cudaMallocHost(&pin_in, bytes)) && CK(cudaMallocHost(&pin_out, bytes)) &&
              CK(cudaMalloc(&p.din, bytes)) && CK(cudaMalloc(&p.dout, bytes)) && CK(cudaEventCreate(&start));
    for (int s = 0; ok && s < 8; s++) ok = CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    for (int e = 0; ok && e < 64; e++) ok = CK(cudaEventCreate(&ev[e]));
    if (ok) {
        for (size_t i = 0; i < p.n; i++) pin_in[i] = pg_in[i] = (float)((i * 2654435761u) % 1000003u) * 1e-6f;
        /* calibrate: the kernel of one chunk about as long as its copy */
        const size_t per = p.n / p.chunks;
        float ms_copy = 0, ms_k = 0;
        cudaEvent_t a = ev[0], b = ev[1];
        cudaMemcpyAsync(p.din, pin_in, per * 4, cudaMemcpyHostToDevice, st[0]); /* warm */
        cudaEventRecord(a, st[0]);
        cudaMemcpyAsync(p.din, pin_in, per * 4, cudaMemcpyHostToDevice, st[0]);
        cudaEventRecord(b, st[0]);
        ok = CK(cudaEventSynchronize(b)) && CK(cudaEventElapsedTime(&ms_copy, a, b));
        p.iters = 64;
        k_work<<<(unsigned)((per + 255) / 256), 256, 0, st[0]>>>(p.din, p.dout, per, p.iters);
        cudaEventRecord(a, st[0]);
        k_work<<<(unsigned)((per + 255) / 256), 256, 0, st[0]>>>(p.din, p.dout, per, p.iters);
        cudaEventRecord(b, st[0]);
        ok = ok && CK(cudaEventSynchronize(b)) && CK(cudaEventElapsedTime(&ms_k, a, b));
        if (ok && ms_k > 0) {
            const double it = 64.0 * ms_copy / ms_k;
            p.iters = it < 1 ? 1 : it > 200000 ? 200000 : (int)it;
        }
        report_meta(&r->report, "overlap", "%zu MiB in 16 chunks; kernel %d FMAs per element, calibrated to one chunk's "
                    "H2D copy (%.3f ms)", bytes >> 20, p.iters, (double)ms_copy);
    }
    static const int nstreams[] = {1, 2, 4, 8};
    double t_pin[4] = {0, 0, 0, 0}, t_pg[2] = {0, 0};
    lab_chart_t *ch = lab_chart(r, "overlap: chunked H2D -> kernel -> D2H", "streams", "ms per pass", 1);
    for (int v = 0; ok && v < 6; v++) {
        const bool pinned = v < 4;
        const int ns = pinned ? nstreams[v] : (v == 4 ? 1 : 4);
        p.hin = pinned ? pin_in : pg_in;
        p.hout = pinned ? pin_out : pg_out;
        double w[64];
        const int reps = r->reps < 64 ? r->reps : 64;
        for (int k = -1; k < reps && ok; k++) { /* one warm-up */
            memset(p.hout, 0xff, bytes);
            const double t = pipe_run(L, p, st, ns, NULL, NULL);
            ok = t >= 0;
            if (k >= 0) w[k] = t;
        }
        if (!ok) break;
        const double t = median(w, reps);
        const size_t bad = pipe_check(p);
        char ver[48], par[48], chk[64];
        snprintf(ver, sizeof ver, "%s", pinned ? "pinned" : "pageable");
        snprintf(par, sizeof par, "%d stream%s", ns, ns > 1 ? "s" : "");
        if (bad) snprintf(chk, sizeof chk, "FAIL: %zu wrong", bad), lab_fail(r, ver, "%s: %zu elements wrong", par, bad);
        else snprintf(chk, sizeof chk, "ok");
        row(L, "overlap", ver, par, t * 1e6, (double)bytes / t / 1e9, "GB/s of input through the pipeline", chk);
        if (pinned) t_pin[v] = t, lab_point(ch, "pinned", ns, t * 1e3);
        else t_pg[v - 4] = t, lab_point(ch, "pageable", ns, t * 1e3);
    }
    if (ok && L.r->svg) { /* the timeline of one pinned 4-stream run over 16 chunks, from events */
        p.hin = pin_in, p.hout = pin_out;
        if (pipe_run(L, p, st, 4, ev, start) >= 0) {
            lab_chart_t *tl = lab_chart(r, "overlap: one run on 4 streams (operations in flight)", "ms", "in flight", 0);
            static const char *const names[3] = {"H2D", "kernel", "D2H"};
            for (int type = 0; type < 3 && tl; type++) {
                double t_b[16], t_e[16];
                for (size_t c = 0; c < p.chunks; c++) {
                    float a = 0, b = 0;
                    cudaEventElapsedTime(&a, start, ev[4 * c + type]);
                    cudaEventElapsedTime(&b, start, ev[4 * c + type + 1]);
                    t_b[c] = a, t_e[c] = b;
                }
                /* boundaries in time order: the count of this type in flight, stepped */
                double pts[32];
                int np = 0;
                for (size_t c = 0; c < p.chunks; c++) pts[np++] = t_b[c], pts[np++] = t_e[c];
                qsort(pts, (size_t)np, sizeof *pts, cmp_d);
                int prev = 0;
                for (int k = 0; k < np; k++) {
                    int now = 0;
                    for (size_t c = 0; c < p.chunks; c++) now += t_b[c] <= pts[k] && pts[k] < t_e[c];
                    lab_point(tl, names[type], pts[k], prev);
                    lab_point(tl, names[type], pts[k], now);
                    prev = now;
                }
            }
        }
    }
    if (ok && t_pin[0] > 0) {
        char m[160], v[160];
        const double best = t_pin[2] < t_pin[3] ? t_pin[2] : t_pin[3];
        snprintf(m, sizeof m, "pinned: 1 stream %.2f ms, 4 streams %.2f ms, 8 streams %.2f ms (x%.2f)", t_pin[0] * 1e3,
                 t_pin[2] * 1e3, t_pin[3] * 1e3, t_pin[0] / best);
        lab_claim(r, "overlap", "with pinned memory and several streams, copies in both directions overlap kernels: "
                  "the pipeline approaches its slowest stage (here up to 3x faster than one stream)", m,
                  verdict(v, sizeof v, t_pin[0] / best >= 1.5, "only x%.2f", t_pin[0] / best));
        snprintf(m, sizeof m, "pageable: 1 stream %.2f ms, 4 streams %.2f ms (x%.2f)", t_pg[0] * 1e3, t_pg[1] * 1e3,
                 t_pg[0] / t_pg[1]);
        lab_claim(r, "overlap", "copies from pageable memory are staged by the host and do not overlap", m,
                  verdict(v, sizeof v, t_pg[0] / t_pg[1] < 1.25, "4 streams gained x%.2f", t_pg[0] / t_pg[1]));
    }
    for (int s = 0; s < 8; s++)
        if (st[s]) cudaStreamDestroy(st[s]);
    for (int e = 0; e < 64; e++)
        if (ev[e]) cudaEventDestroy(ev[e]);
    if (start) cudaEventDestroy(start);
    cudaFreeHost(pin_in), cudaFreeHost(pin_out), cudaFree(p.din), cudaFree(p.dout);
    free(pg_in), free(pg_out);
}

/* ---------------------------------------------------------------------------------------------- kernels */
void sec_kernels(Lab &L)
{
    lab_run_t *r = L.r;
    const int N = 8;
    const long long cycles = us_cycles(L, 50);
    int *d = NULL, h[64];
    cudaStream_t st[8] = {}, lo = NULL, hi = NULL, mid = NULL;
    bool ok = CK(cudaMalloc(&d, 64 * sizeof(int)));
    for (int s = 0; ok && s < N; s++) ok = CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    double t1 = 0, tn = 0;
    for (int mode = 0; ok && mode < 2; mode++) { /* 0: one stream, 1: N streams */
        double w[64];
        const int reps = r->reps < 64 ? r->reps : 64;
        for (int k = -1; k < reps && ok; k++) {
            ok = CK(cudaMemset(d, 0, 64 * sizeof(int))) && CK(cudaDeviceSynchronize());
            const double t0 = host_now();
            for (int i = 0; i < N; i++) k_spin<<<1, 32, 0, st[mode ? i : 0]>>>(cycles, d, i);
            ok = ok && CK(cudaDeviceSynchronize());
            if (k >= 0) w[k] = host_now() - t0;
        }
        if (!ok) break;
        ok = CK(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (int i = 0; i < N; i++) bad += h[i] != i + 1;
        const double t = median(w, reps);
        (mode ? tn : t1) = t;
        char par[32], chk[48];
        snprintf(par, sizeof par, "%d x 50 us", N);
        if (bad) snprintf(chk, sizeof chk, "FAIL: %zu marks", bad), lab_fail(r, "kernels", "%zu marks wrong", bad);
        else snprintf(chk, sizeof chk, "ok");
        row(L, "kernels", mode ? "8 streams" : "one stream", par, t * 1e6, t * 1e6 / N, "us per kernel", chk);
    }
    if (ok) {
        char m[128], v[128];
        snprintf(m, sizeof m, "one stream %.0f us, 8 streams %.0f us (x%.2f)", t1 * 1e6, tn * 1e6, t1 / tn);
        lab_claim(r, "kernels", "kernels on different streams run concurrently when resources allow (8 one-block "
                  "kernels: about 8x)", m, verdict(v, sizeof v, t1 / tn >= 4, "only x%.2f", t1 / tn));
    }
    /* priorities: a short kernel behind a backlog of blocks that fills the GPU several times over */
    int least = 0, greatest = 0;
    ok = ok && CK(cudaDeviceGetStreamPriorityRange(&least, &greatest)) &&
         CK(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least)) &&
         CK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, greatest)) &&
         CK(cudaStreamCreateWithPriority(&mid, cudaStreamNonBlocking, least));
    double lat[2] = {0, 0};
    cudaEvent_t a = NULL, b = NULL;
    int per_sm = 16;
    ok = ok && CK(cudaEventCreate(&a)) && CK(cudaEventCreate(&b)) &&
         CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, L.dev));
    const unsigned backlog = (unsigned)L.sms * (unsigned)per_sm * 8; /* 8 full waves of 20 us blocks */
    for (int mode = 0; ok && mode < 2; mode++) { /* 0: the short kernel at the backlog's priority, 1: at the highest */
        double w[64];
        const int reps = r->reps < 64 ? r->reps : 64;
        for (int k = -1; k < reps && ok; k++) {
            ok = CK(cudaMemset(d, 0, 64 * sizeof(int))) && CK(cudaDeviceSynchronize());
            k_spin<<<backlog, 32, 0, lo>>>(us_cycles(L, 20), d, 0); /* 20 us blocks */
            cudaStream_t s = mode ? hi : mid;
            cudaEventRecord(a, s);
            k_spin<<<1, 32, 0, s>>>(us_cycles(L, 5), d, 1);
            cudaEventRecord(b, s);
            float ms = 0;
            ok = CK(cudaEventSynchronize(b)) && CK(cudaEventElapsedTime(&ms, a, b)) && CK(cudaDeviceSynchronize());
            if (k >= 0) w[k] = ms * 1e-3;
        }
        if (!ok) break;
        ok = CK(cudaMemcpy(h, d, 2 * sizeof(int), cudaMemcpyDeviceToHost));
        const bool good = h[0] == (int)backlog && h[1] == 2;
        lat[mode] = median(w, reps);
        if (!good) lab_fail(r, "kernels", "priority marks %d %d", h[0], h[1]);
        row(L, "kernels", mode ? "high priority" : "same priority", "5 us kernel behind 8 waves of 20 us blocks",
            lat[mode] * 1e6, lat[mode] * 1e6, "us to completion", good ? "ok" : "FAIL");
    }
    if (ok) {
        char m[128], v[128];
        snprintf(m, sizeof m, "same priority %.0f us, high priority %.0f us (x%.1f); priorities %d (low) .. %d (high)",
                 lat[0] * 1e6, lat[1] * 1e6, lat[0] / lat[1], least, greatest);
        lab_claim(r, "kernels", "blocks of a higher-priority stream are scheduled before pending blocks of lower ones",
                  m, verdict(v, sizeof v, lat[0] / lat[1] >= 2, "only x%.1f", lat[0] / lat[1]));
    }
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    for (int s = 0; s < N; s++)
        if (st[s]) cudaStreamDestroy(st[s]);
    if (lo) cudaStreamDestroy(lo);
    if (hi) cudaStreamDestroy(hi);
    if (mid) cudaStreamDestroy(mid);
    cudaFree(d);
}

/* ---------------------------------------------------------------------------------------------- timers */
void sec_timers(Lab &L)
{
    lab_run_t *r = L.r;
    cudaStream_t s = NULL;
    cudaEvent_t a = NULL, b = NULL;
    int *d = NULL;
    bool ok = CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) && CK(cudaEventCreate(&a)) &&
              CK(cudaEventCreate(&b)) && CK(cudaMalloc(&d, 64 * sizeof(int)));
    if (!ok) return;
    const int reps = r->reps < 64 ? r->reps : 64;
    double issue[64], rt[64], ev_empty[64], ev_spin[64], host_spin[64];
    for (int k = -1; k < reps && ok; k++) {
        /* issue cost: 1000 launches without waiting */
        ok = CK(cudaStreamSynchronize(s));
        double t0 = host_now();
        for (int i = 0; i < 1000; i++) k_empty<<<1, 32, 0, s>>>();
        const double t_issue = (host_now() - t0) / 1000;
        ok = ok && CK(cudaStreamSynchronize(s));
        /* round trip: launch and wait */
        t0 = host_now();
        k_empty<<<1, 32, 0, s>>>();
        ok = ok && CK(cudaStreamSynchronize(s));
        const double t_rt = host_now() - t0;
        /* events around an empty kernel, and around 100 us of work (with a host clock around the same) */
        float ms_e = 0, ms_s = 0;
        cudaEventRecord(a, s);
        k_empty<<<1, 32, 0, s>>>();
        cudaEventRecord(b, s);
        ok = ok && CK(cudaEventSynchronize(b)) && CK(cudaEventElapsedTime(&ms_e, a, b));
        t0 = host_now();
        cudaEventRecord(a, s);
        k_spin<<<1, 32, 0, s>>>(us_cycles(L, 100), d, 0);
        cudaEventRecord(b, s);
        ok = ok && CK(cudaEventSynchronize(b));
        const double t_host = host_now() - t0;
        ok = ok && CK(cudaEventElapsedTime(&ms_s, a, b));
        if (k >= 0) issue[k] = t_issue, rt[k] = t_rt, ev_empty[k] = ms_e * 1e-3, ev_spin[k] = ms_s * 1e-3,
                    host_spin[k] = t_host;
    }
    if (ok) {
        const double mi = median(issue, reps), mr = median(rt, reps), me = median(ev_empty, reps),
                     ms = median(ev_spin, reps), mh = median(host_spin, reps);
        row(L, "timers", "host clock", "launch issue (1000 empty kernels)", mi * 1e6, mi * 1e6, "us per launch", "ok");
        row(L, "timers", "host clock", "launch + stream synchronize", mr * 1e6, mr * 1e6, "us", "ok");
        row(L, "timers", "events", "one empty kernel", me * 1e6, me * 1e6, "us", "ok");
        row(L, "timers", "events", "100 us of spinning", ms * 1e6, ms * 1e6, "us", ms > 90e-6 ? "ok" : "FAIL");
        row(L, "timers", "host clock", "the same 100 us, to the stop event", mh * 1e6, mh * 1e6, "us",
            mh >= ms ? "ok" : "FAIL");
        if (ms <= 90e-6) lab_fail(r, "timers", "the 100 us spin measured %.1f us", ms * 1e6);
        char m[192], v[128];
        snprintf(m, sizeof m, "100 us kernel: events %.1f us, host clock %.1f us; launch issue %.2f us, launch + "
                 "synchronize %.1f us", ms * 1e6, mh * 1e6, mi * 1e6, mr * 1e6);
        lab_claim(r, "timers", "events time the GPU's work on the stream; a host timer adds the launch and the wait",
                  m, verdict(v, sizeof v, mh > ms, "host %.1f us is not above the events'", mh * 1e6));
    }
    cudaEventDestroy(a), cudaEventDestroy(b), cudaStreamDestroy(s), cudaFree(d);
}

/* ---------------------------------------------------------------------------------------------- graphs */
/* A k_add node of one 32-thread block; args = {&c, &v} (CUDA copies them when the node is made or set). */
cudaKernelNodeParams add_node(void **args)
{
    cudaKernelNodeParams kp = {};
    kp.func = (void *)k_add;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    return kp;
}

void sec_graphs(Lab &L)
{
    lab_run_t *r = L.r;
    cudaStream_t s = NULL;
    int *d = NULL;
    bool ok = CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) && CK(cudaMalloc(&d, sizeof(int)));
    if (!ok) return;
    static const int Ks[] = {1, 10, 100, 1000};
    const int nk = L.quick ? 3 : 4, reps = r->reps < 64 ? r->reps : 64;
    lab_chart_t *ch = lab_chart(r, "graphs: a chain of K small kernels", "K kernels", "us per kernel", 1);
    double per[3][4] = {};
    for (int ki = 0; ki < nk && ok; ki++) {
        const int K = Ks[ki];
        /* captured once */
        cudaGraph_t gc = NULL, ge = NULL;
        cudaGraphExec_t xc = NULL, xe = NULL;
        ok = CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; ok && i < K; i++) k_add<<<1, 32, 0, s>>>(d, 1);
        ok = ok && CK(cudaStreamEndCapture(s, &gc)) && CK(cudaGraphInstantiate(&xc, gc, 0));
        /* built from explicit nodes: a chain */
        ok = ok && CK(cudaGraphCreate(&ge, 0));
        cudaGraphNode_t prev = NULL, first = NULL;
        int one = 1;
        for (int i = 0; ok && i < K; i++) {
            void *args[] = {&d, &one};
            const cudaKernelNodeParams kp = add_node(args);
            cudaGraphNode_t node;
            ok = CK(cudaGraphAddKernelNode(&node, ge, prev ? &prev : NULL, prev ? 1 : 0, &kp));
            if (!first) first = node;
            prev = node;
        }
        ok = ok && CK(cudaGraphInstantiate(&xe, ge, 0));
        for (int mode = 0; ok && mode < 3; mode++) {
            double w[64];
            int got = 0;
            for (int k = -1; k < reps && ok; k++) {
                ok = CK(cudaMemsetAsync(d, 0, sizeof(int), s)) && CK(cudaStreamSynchronize(s));
                const double t0 = host_now();
                if (mode == 0)
                    for (int i = 0; i < K; i++) k_add<<<1, 32, 0, s>>>(d, 1);
                else
                    ok = ok && CK(cudaGraphLaunch(mode == 1 ? xc : xe, s));
                ok = ok && CK(cudaStreamSynchronize(s));
                if (k >= 0) w[k] = host_now() - t0;
            }
            ok = ok && CK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
            if (!ok) break;
            static const char *const names[] = {"stream launches", "captured graph", "explicit-node graph"};
            const double t = median(w, reps);
            per[mode][ki] = t / K;
            char par[32], chk[48];
            snprintf(par, sizeof par, "K = %d", K);
            if (got != K) snprintf(chk, sizeof chk, "FAIL: %d, not %d", got, K), lab_fail(r, names[mode], "K %d: %d", K, got);
            else snprintf(chk, sizeof chk, "ok");
            row(L, "graphs", names[mode], par, t * 1e6, t * 1e6 / K, "us per kernel", chk);
            lab_point(ch, names[mode], K, t * 1e6 / K);
        }
        /* update in place: the first node now adds 5 (kernel-node parameters of the instantiated graph) */
        if (ok && first) {
            int five = 5;
            void *args[] = {&d, &five};
            const cudaKernelNodeParams kp = add_node(args);
            const double t0 = host_now();
            ok = CK(cudaGraphExecKernelNodeSetParams(xe, first, &kp));
            const double tu = host_now() - t0;
            int got = 0;
            ok = ok && CK(cudaMemsetAsync(d, 0, sizeof(int), s)) && CK(cudaGraphLaunch(xe, s)) &&
                 CK(cudaStreamSynchronize(s)) && CK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
            char par[32];
            snprintf(par, sizeof par, "K = %d, node 1 adds 5", K);
            const bool good = got == K + 4;
            if (!good) lab_fail(r, "graph update", "K %d: %d, not %d", K, got, K + 4);
            if (ok) row(L, "graphs", "updated in place", par, tu * 1e6, tu * 1e6, "us to update", good ? "ok" : "FAIL");
        }
        if (xc) cudaGraphExecDestroy(xc);
        if (xe) cudaGraphExecDestroy(xe);
        if (gc) cudaGraphDestroy(gc);
        if (ge) cudaGraphDestroy(ge);
    }
    if (ok) {
        const int last = nk - 1;
        char m[160], v[128];
        snprintf(m, sizeof m, "K = %d: %.2f us per kernel launched one by one, %.2f replayed, %.2f from explicit nodes",
                 Ks[last], per[0][last] * 1e6, per[1][last] * 1e6, per[2][last] * 1e6);
        lab_claim(r, "graphs", "a graph launches a whole chain at once: per-kernel overhead falls well below a launch's",
                  m, verdict(v, sizeof v, per[0][last] / per[1][last] >= 2, "only x%.2f", per[0][last] / per[1][last]));
    }
    cudaStreamDestroy(s), cudaFree(d);
}

/* ---------------------------------------------------------------------------------------------- persist */
void sec_persist(Lab &L)
{
    lab_run_t *r = L.r;
    gp_device_info_t info;
    if (gp_device_info(L.dev, &info) != GP_OK || info.persisting_l2_max_bytes <= 0) {
        row(L, "persist", "-", "no persisting L2 on this device", 0, 0, "", "skipped");
        return;
    }
    gp_stream_t s = NULL;
    if (gp_stream_create(r->gpu, &s) != GP_OK) {
        L.rc = EXIT_FAIL;
        return;
    }
    const size_t hot = (size_t)info.persisting_l2_max_bytes / 2 / 4 * 4;          /* half the set-aside */
    const size_t big = (size_t)info.l2_bytes * 8 / 4 * 4;                           /* 8x the L2 */
    uint32_t *dh = NULL, *db = NULL;
    unsigned long long *sum = NULL, got = 0, want = 0;
    uint32_t *hh = (uint32_t *)malloc(hot);
    cudaEvent_t a = NULL, b = NULL;
    bool ok = hh && CK(cudaMalloc(&dh, hot)) && CK(cudaMalloc(&db, big)) && CK(cudaMalloc(&sum, 8)) &&
              CK(cudaEventCreate(&a)) && CK(cudaEventCreate(&b)) && CK(cudaMemset(db, 1, big));
    if (ok) {
        for (size_t i = 0; i < hot / 4; i++) hh[i] = (uint32_t)(i * 2654435761u) >> 8, want += hh[i];
        ok = CK(cudaMemcpy(dh, hh, hot, cudaMemcpyHostToDevice));
    }
    report_meta(&r->report, "persist", "hot buffer %zu KiB (half the %d KiB set-aside the device allows), streaming "
                "buffer %zu MiB (8x the L2)", hot >> 10, info.persisting_l2_max_bytes >> 10, big >> 20);
    static const double ratios[] = {-1, 0.0, 0.25, 0.5, 0.75, 1.0};
    double t_none = 0, t_full = 0;
    lab_chart_t *ch = lab_chart(r, "persist: hot re-read after a streaming pass", "hit ratio", "us", 0);
    const int reps = r->reps < 64 ? r->reps : 64;
    for (int v = 0; ok && v < 6; v++) {
        const double hr = ratios[v];
        if (gp_ctx_set_persisting_l2(r->gpu, hr < 0 ? NULL : dh, hr < 0 ? 0 : hot, hr < 0 ? 0.0 : hr, s) != GP_OK) {
            /* a device or driver setting may forbid the set-aside (MIG, some virtual GPUs): say so, measure the rest */
            char why[160];
            snprintf(why, sizeof why, "window refused: %.120s", gp_last_error());
            row(L, "persist", "access policy window", why, 0, 0, "", "skipped");
            t_full = 0;
            break;
        }
        double w[64];
        for (int k = -1; k < reps && ok; k++) {
            unsigned long long *tmp = sum;
            k_sum<<<(unsigned)L.sms * 8, 256, 0, (cudaStream_t)s>>>(db, big / 4, tmp); /* the streaming pass */
            cudaMemsetAsync(sum, 0, 8, (cudaStream_t)s);
            cudaEventRecord(a, (cudaStream_t)s);
            k_sum<<<(unsigned)L.sms * 8, 256, 0, (cudaStream_t)s>>>(dh, hot / 4, sum); /* the hot re-read */
            cudaEventRecord(b, (cudaStream_t)s);
            float ms = 0;
            ok = CK(cudaEventSynchronize(b)) && CK(cudaEventElapsedTime(&ms, a, b));
            if (k >= 0) w[k] = ms * 1e-3;
        }
        ok = ok && CK(cudaMemcpy(&got, sum, 8, cudaMemcpyDeviceToHost));
        if (!ok) break;
        const double t = median(w, reps);
        if (hr < 0) t_none = t;
        if (hr == 1.0) t_full = t;
        char par[48];
        if (hr < 0) snprintf(par, sizeof par, "no window");
        else snprintf(par, sizeof par, "window, hit ratio %.2f", hr);
        const bool good = got == want;
        if (!good) lab_fail(r, "persist", "%s: sum %llu, not %llu", par, got, want);
        row(L, "persist", hr < 0 ? "plain" : "access policy window", par, t * 1e6, (double)hot / t / 1e9, "GB/s",
            good ? "ok" : "FAIL");
        if (hr >= 0) lab_point(ch, "window", hr, t * 1e6);
    }
    gp_ctx_set_persisting_l2(r->gpu, NULL, 0, 0.0, s);
    if (ok && t_full > 0) {
        char m[128], v[128];
        snprintf(m, sizeof m, "hot re-read %.1f us without a window, %.1f us with hit ratio 1 (x%.2f)", t_none * 1e6,
                 t_full * 1e6, t_none / t_full);
        lab_claim(r, "persist", "an access policy window keeps a reused buffer in the L2 across streaming traffic", m,
                  verdict(v, sizeof v, t_none / t_full >= 1.2, "only x%.2f", t_none / t_full));
    }
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    cudaFree(dh), cudaFree(db), cudaFree(sum), free(hh);
    gp_stream_destroy(r->gpu, s);
}

/* ---------------------------------------------------------------------------------------------- managed */
void sec_managed(Lab &L)
{
    lab_run_t *r = L.r;
    gp_ctx_t *g = r->gpu;
    const size_t bytes = L.quick ? ((size_t)32 << 20) : ((size_t)256 << 20), n = bytes / 4;
    gp_buffer_t man = {}, mapped = {}, pinned = {}, dev = {};
    unsigned long long *sum = NULL, got = 0, want = 0;
    cudaStream_t s = NULL;
    cudaEvent_t a = NULL, b = NULL;
    bool ok = gp_mem_alloc(g, GP_MEM_MANAGED, bytes, &man) == GP_OK && gp_mem_alloc(g, GP_MEM_MAPPED, bytes, &mapped) ==
              GP_OK && gp_mem_alloc(g, GP_MEM_PINNED, bytes, &pinned) == GP_OK &&
              gp_mem_alloc(g, GP_MEM_DEVICE, bytes, &dev) == GP_OK;
    if (!ok) {
        fprintf(stderr, "gpuprim lab concurrency: managed: %s\n", gp_last_error());
        L.rc = EXIT_FAIL;
    }
    ok = ok && CK(cudaMalloc(&sum, 8)) && CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) &&
         CK(cudaEventCreate(&a)) && CK(cudaEventCreate(&b));
    if (!ok) goto out;
    {
        uint32_t *hm = (uint32_t *)man.host, *hp = (uint32_t *)pinned.host, *hmap = (uint32_t *)mapped.host;
        for (size_t i = 0; i < n; i++) hp[i] = hmap[i] = (uint32_t)(i * 40503u) >> 4, want += hp[i];
        static const char *const names[] = {"page faults (first touch on the GPU)", "prefetch, then the kernel",
                                            "explicit copy, then the kernel", "mapped (zero-copy) read",
                                            "read-mostly: GPU then host read, advised", "the same, not advised"};
        double t[6] = {};
        const int reps = r->reps < 16 ? r->reps : 16;
        for (int v = 0; v < 6 && ok; v++) {
            double w[16];
            if (v == 4 && gp_mem_advise(g, &man, 0, bytes, GP_ADVISE_READ_MOSTLY) != GP_OK) ok = false;
            if (v == 5 && gp_mem_advise(g, &man, 0, bytes, GP_ADVISE_UNSET_READ_MOSTLY) != GP_OK) ok = false;
            for (int k = -1; k < reps && ok; k++) {
                if (v <= 1 || v >= 4) { /* the host writes the managed buffer: its pages are the host's again */
                    ok = CK(cudaDeviceSynchronize());
                    for (size_t i = 0; i < n; i++) hm[i] = hp[i];
                }
                ok = ok && CK(cudaMemsetAsync(sum, 0, 8, s)) && CK(cudaStreamSynchronize(s));
                const double t0 = host_now();
                const uint32_t *src = hm;
                if (v == 1 && gp_mem_prefetch(g, &man, 0, bytes, 0, s) != GP_OK) ok = false;
                if (v == 2) ok = ok && CK(cudaMemcpyAsync(dev.device, hp, bytes, cudaMemcpyHostToDevice, s)),
                            src = (const uint32_t *)dev.device;
                if (v == 3) src = (const uint32_t *)mapped.device;
                k_sum<<<(unsigned)L.sms * 8, 256, 0, s>>>(src, n, sum);
                ok = ok && CK(cudaStreamSynchronize(s));
                if (v >= 4) { /* the host reads it all back */
                    volatile unsigned long long hs = 0;
                    for (size_t i = 0; i < n; i += 1024) hs += hm[i];
                    (void)hs;
                }
                if (k >= 0) w[k] = host_now() - t0;
            }
            ok = ok && CK(cudaMemcpy(&got, sum, 8, cudaMemcpyDeviceToHost));
            if (!ok) break;
            t[v] = median(w, reps);
            const bool good = got == want;
            if (!good) lab_fail(r, names[v], "sum %llu, not %llu", got, want);
            char par[32];
            snprintf(par, sizeof par, "%zu MiB read once", bytes >> 20);
            row(L, "managed", names[v], par, t[v] * 1e6, (double)bytes / t[v] / 1e9, "GB/s", good ? "ok" : "FAIL");
        }
        if (ok) {
            char m[192], v[128];
            snprintf(m, sizeof m, "page faults %.1f ms, prefetch %.1f ms, explicit copy %.1f ms", t[0] * 1e3, t[1] * 1e3,
                     t[2] * 1e3);
            lab_claim(r, "managed", "migrating managed memory by page faults is slower than prefetching it in bulk",
                      m, verdict(v, sizeof v, t[0] > 1.2 * t[1], "faults x%.2f of prefetch", t[0] / t[1]));
            snprintf(m, sizeof m, "mapped read %.1f ms, copy then read %.1f ms", t[3] * 1e3, t[2] * 1e3);
            lab_claim(r, "managed", "for data read once, zero-copy mapped reads avoid the copy and cost about the same "
                      "bus time", m, verdict(v, sizeof v, t[3] <= 1.3 * t[2], "mapped x%.2f of the copy", t[3] / t[2]));
            snprintf(m, sizeof m, "GPU read then host read: advised %.1f ms, not advised %.1f ms", t[4] * 1e3,
                     t[5] * 1e3);
            lab_claim(r, "managed", "read-mostly advice lets the GPU and the host each read their own copy", m,
                      verdict(v, sizeof v, t[4] <= t[5], "advised x%.2f of not advised", t[4] / t[5]));
        }
    }
out:
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    if (s) cudaStreamDestroy(s);
    cudaFree(sum);
    gp_mem_free(g, &man), gp_mem_free(g, &mapped), gp_mem_free(g, &pinned), gp_mem_free(g, &dev);
}

/* ---------------------------------------------------------------------------------------------- dsm */
void sec_dsm(Lab &L)
{
    lab_run_t *r = L.r;
    gp_device_info_t info;
    if (gp_device_info(L.dev, &info) != GP_OK || !info.cluster_launch) {
        row(L, "dsm", "-", "no thread-block clusters on this device", 0, 0, "", "skipped");
        return;
    }
    const unsigned blocks = (unsigned)L.sms * 16; /* an even count: clusters of 2 */
    const size_t n = (size_t)blocks * XN;
    int *out = NULL, *g = NULL, *h = (int *)malloc(n * sizeof(int));
    cudaStream_t s = NULL;
    cudaEvent_t a = NULL, b = NULL;
    bool ok = h && CK(cudaMalloc(&out, n * 4)) && CK(cudaMalloc(&g, n * 4)) &&
              CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) && CK(cudaEventCreate(&a)) &&
              CK(cudaEventCreate(&b));
    double t[2] = {0, 0};
    const int reps = r->reps < 64 ? r->reps : 64;
    for (int v = 0; v < 2 && ok; v++) {
        double w[64];
        for (int k = -1; k < reps && ok; k++) {
            ok = CK(cudaMemsetAsync(out, 0xff, n * 4, s));
            cudaEventRecord(a, s);
            if (v == 0) {
                k_dsm<<<blocks, 256, 0, s>>>(out);
            } else {
                k_xchg_write<<<blocks, 256, 0, s>>>(g);
                k_xchg_read<<<blocks, 256, 0, s>>>(g, out);
            }
            cudaEventRecord(b, s);
            float ms = 0;
            ok = ok && CK(cudaGetLastError()) && CK(cudaEventSynchronize(b)) && CK(cudaEventElapsedTime(&ms, a, b));
            if (k >= 0) w[k] = ms * 1e-3;
        }
        ok = ok && CK(cudaMemcpy(h, out, n * 4, cudaMemcpyDeviceToHost));
        if (!ok) break;
        size_t bad = 0;
        for (unsigned blk = 0; blk < blocks; blk++)
            for (unsigned i = 0; i < XN; i++)
                bad += h[(size_t)blk * XN + i] != xchg_val(blk ^ 1u, i) + xchg_val(blk, i);
        t[v] = median(w, reps);
        char par[48], chk[48];
        snprintf(par, sizeof par, "%u blocks x %d ints", blocks, XN);
        if (bad) snprintf(chk, sizeof chk, "FAIL: %zu wrong", bad), lab_fail(r, "dsm", "%zu values wrong", bad);
        else snprintf(chk, sizeof chk, "ok");
        row(L, "dsm", v ? "global memory, two kernels" : "distributed shared memory (cluster of 2)", par, t[v] * 1e6,
            (double)n * 4 / t[v] / 1e9, "GB/s exchanged", chk);
    }
    if (ok) {
        char m[128], v[128];
        snprintf(m, sizeof m, "DSM %.1f us, global + second kernel %.1f us (x%.2f)", t[0] * 1e6, t[1] * 1e6, t[1] / t[0]);
        lab_claim(r, "dsm", "blocks of a cluster read each other's shared memory directly, without a round trip through "
                  "global memory and a second launch", m, verdict(v, sizeof v, t[0] < t[1], "x%.2f", t[1] / t[0]));
    }
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    if (s) cudaStreamDestroy(s);
    cudaFree(out), cudaFree(g), free(h);
}

const char *const k_sections[] = {"overlap", "kernels", "timers", "graphs", "persist", "managed", "dsm"};
enum { NSEC = 7 };

int concurrency_run(lab_run_t *r)
{
    unsigned secs = (1u << NSEC) - 1;
    const char *only = lab_opt(r, "--only");
    if (only) {
        secs = 0;
        for (const char *p = only; *p;) {
            const size_t len = strcspn(p, ",");
            int found = 0;
            for (int k = 0; k < NSEC; k++)
                if (strlen(k_sections[k]) == len && strncmp(p, k_sections[k], len) == 0) secs |= 1u << k, found = 1;
            if (!found)
                return lab_bad_value(r, "--only", "sections among overlap, kernels, timers, graphs, persist, managed, dsm",
                                     only);
            p += len + (p[len] == ',');
        }
    }
    if (r->gpu == NULL) return EXIT_NO_GPU;
    Lab L = {r, gp_ctx_device(r->gpu), 0, 0, lab_opt(r, "--quick") != NULL, EXIT_OK};
    if (cudaSetDevice(L.dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&L.sms, cudaDevAttrMultiProcessorCount, L.dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&L.clock_khz, cudaDevAttrClockRate, L.dev) != cudaSuccess) {
        fprintf(stderr, "gpuprim lab concurrency: device attributes: %s\n", cudaGetErrorString(cudaGetLastError()));
        return EXIT_FAIL;
    }
    static const char *const cols[] = {"section", "version", "parameter", "median_us", "value", "unit", "check"};
    static const int num[] = {0, 0, 0, 1, 1, 0, 0};
    lab_begin(r, "gpuprim lab concurrency", cols, num, 7);
    report_meta(&r->report, "timing", "medians of %d runs; host clock for wall times, CUDA events for GPU times", r->reps);
    void (*const fns[NSEC])(Lab &) = {sec_overlap, sec_kernels, sec_timers, sec_graphs, sec_persist, sec_managed,
                                       sec_dsm};
    for (int k = 0; k < NSEC && L.rc == EXIT_OK; k++)
        if (secs & (1u << k)) fns[k](L);
    if (L.rc != EXIT_OK) return L.rc;
    return r->failed ? EXIT_MISMATCH : EXIT_OK;
}

void concurrency_list(FILE *f)
{
    static const char *const what[NSEC] = {
        "chunked H2D -> kernel -> D2H on 1, 2, 4, 8 streams, pinned and pageable; a timeline from events (--svg)",
        "8 small kernels on one stream vs 8 streams; a short kernel behind a backlog, normal vs high priority",
        "CUDA events vs a host clock; launch issue cost and launch-to-completion latency",
        "K = 1 .. 1000 kernels: stream launches vs a captured graph vs explicit nodes; a graph updated in place",
        "a hot buffer re-read between streaming passes, without and with an L2 access policy window (hit ratios)",
        "managed memory by page faults vs prefetch vs explicit copy; mapped zero-copy; read-mostly advice",
        "a neighbour exchange through distributed shared memory (clusters of 2) vs global memory",
    };
    for (int k = 0; k < NSEC; k++) fprintf(f, "%-8s %s\n", k_sections[k], what[k]);
}

const lab_opt_t k_opts[] = {
    {"--only", "LIST", "sections, comma-separated: overlap kernels timers graphs persist managed dsm"},
    {"--quick", NULL, "small sizes (the GPU test's smoke run)"},
    {NULL, NULL, NULL},
};

} // namespace

extern "C" {
extern const lab_topic_t lab_topic_concurrency;
const lab_topic_t lab_topic_concurrency = {
    "concurrency",
    "streams, overlap, priorities, events, graphs, the L2 persisting window, managed memory, clusters",
    "  each claim of the primers' concurrency model measured on this GPU, every version's output checked; medians\n"
    "  of --reps (default 10). About a minute on an H100 (the managed section migrates 256 MiB per run).",
    k_opts, 1, 0, 0, concurrency_list, concurrency_run,
};
}
