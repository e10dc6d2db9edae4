/* group_sort_phases.c — where gp_group_sort's and gp_group_reduce_segmented's time goes on a local group (a
 * device-run experiment, not a test): host wall-clock medians of each phase run alone on the same shards, against the
 * whole call; and the calls themselves with a timer at their phase marks (GP__PHASE, through the group's phase hook),
 * once with a wait for the members' streams at each mark (the phase's device time), once without (the host's).
 * Build (repository root, after a build into build-device; C, then linked by nvcc):
 *   gcc -std=c11 -O2 -fopenmp -Iinclude -Isrc -I/usr/local/cuda/include -c bench/tune/group_sort_phases.c -o /tmp/gsp.o &&
 *   nvcc /tmp/gsp.o build-device/libgpuprim.a -lcuda -Xcompiler -fopenmp -o /tmp/gsphases &&
 *   NCCL_NVLS_ENABLE=0 /tmp/gsphases [NDEV (all)] [SORT_N (2^30)]
 */
#define _POSIX_C_SOURCE 200809L
#include "group/group_internal.h"

#include "probe_clock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 9

/* the phase marks: each call's marks (name, time since the call began or the last mark) */
#define MAXPH 16
static int ph_sync, ph_n;
static double ph_last, ph_dt[MAXPH];
static const char *ph_name[MAXPH];
static void phase_mark(gp_group_t *g, const char *name)
{
    if (ph_sync) gp_group_sync(g);
    const double t = now();
    if (ph_n < MAXPH) ph_name[ph_n] = name, ph_dt[ph_n++] = (t - ph_last) * 1e6;
    ph_last = t;
}

/* call body REPS + 2 times, with and without the waits at the marks: each phase's median */
#define PHASES(label, body)                                                                                        \
    for (int sync_ = 1; sync_ >= 0; sync_--) {                                                                    \
        double d_[MAXPH][REPS], tot_[REPS];                                                                        \
        int np_ = 0;                                                                                               \
        ph_sync = sync_;                                                                                           \
        g->phase = phase_mark;                                                                                     \
        for (int i_ = 0; i_ < REPS + 2; i_++) {                                                                    \
            ph_n = 0;                                                                                              \
            const double a_ = ph_last = now();                                                                     \
            body;                                                                                                  \
            gp_group_sync(g);                                                                                      \
            if (i_ < 2) continue;                                                                                  \
            np_ = ph_n;                                                                                            \
            tot_[i_ - 2] = (now() - a_) * 1e6;                                                                     \
            for (int p_ = 0; p_ < ph_n; p_++) d_[p_][i_ - 2] = ph_dt[p_];                                          \
        }                                                                                                          \
        g->phase = NULL;                                                                                           \
        qsort(tot_, REPS, sizeof tot_[0], cmpd);                                                                   \
        printf("%s, %s: median %.1f us\n", label, sync_ ? "waiting at each mark" : "host marks only", tot_[REPS / 2]); \
        for (int p_ = 0; p_ < np_; p_++) {                                                                         \
            qsort(d_[p_], REPS, sizeof d_[p_][0], cmpd);                                                           \
            printf("    %-30s median %9.1f us  min %9.1f us\n", ph_name[p_], d_[p_][REPS / 2], d_[p_][0]);         \
        }                                                                                                          \
        fflush(stdout);                                                                                            \
    }
#define TIME(label, ...)                                                                                           \
    do {                                                                                                           \
        double t_[REPS];                                                                                           \
        for (int i_ = 0; i_ < REPS + 2; i_++) {                                                                    \
            double a_ = now();                                                                                     \
            __VA_ARGS__;                                                                                              \
            gp_group_sync(g);                                                                                      \
            if (i_ >= 2) t_[i_ - 2] = (now() - a_) * 1e6;                                                          \
        }                                                                                                          \
        qsort(t_, REPS, sizeof t_[0], cmpd);                                                                       \
        printf("%-58s median %9.1f us  min %9.1f us\n", label, t_[REPS / 2], t_[0]);                               \
        fflush(stdout);                                                                                            \
    } while (0)
#define CK(x)                                                                                                      \
    do {                                                                                                           \
        if ((x) != GP_OK) { printf("%s: %s\n", #x, gp_last_error()); exit(1); }                                    \
    } while (0)

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    const int ndev = argc > 1 ? atoi(argv[1]) : 0;
    const size_t N = argc > 2 ? strtoull(argv[2], NULL, 0) : (size_t)1 << 30;
    gp_group_t *g = NULL;
    CK(gp_group_create_local(&g, ndev, NULL));
    const int R = gp_group_size(g);
    printf("group of %d (%s), %zu u32 keys\n", R, gp_group_transport(g), N);
    size_t cnt[16], F[17];
    F[0] = 0;
    for (int i = 0; i < R; i++) cnt[i] = N / R + ((size_t)i < N % R), F[i + 1] = F[i] + cnt[i];
    uint32_t *h = (uint32_t *)malloc(N * 4);
#pragma omp parallel for
    for (long long k = 0; k < (long long)N; k++) h[k] = (uint32_t)mix((uint64_t)k);
    void *keys[16], *out[16], *tmp[16], *one = NULL, *one_out = NULL;
    for (int i = 0; i < R; i++) {
        cudaSetDevice(gp_ctx_device(gp_group_ctx(g, i)));
        cudaMalloc(&keys[i], cnt[i] * 4), cudaMalloc(&out[i], cnt[i] * 4), cudaMalloc(&tmp[i], cnt[i] * 4);
        cudaMemcpy(keys[i], h + F[i], cnt[i] * 4, cudaMemcpyHostToDevice);
    }
    /* 1. the sort */
    TIME("gp_group_sort", CK(gp_group_sort(g, GP_U32, cnt, (const void *const *)keys, out, 0, NULL, NULL, 0)));
    PHASES("gp_group_sort's phases", CK(gp_group_sort(g, GP_U32, cnt, (const void *const *)keys, out, 0, NULL, NULL, 0)));
    TIME("local gp_sort on every member", for (int i = 0; i < R; i++)
             CK(gp_sort(gp_group_ctx(g, i), GP_U32, cnt[i], keys[i], tmp[i], NULL, gp_group_stream(g, i))));
    TIME("local gp_sort on member 0 alone",
         CK(gp_sort(gp_group_ctx(g, 0), GP_U32, cnt[0], keys[0], tmp[0], NULL, gp_group_stream(g, 0))));
    {   /* an even all-to-all: rank i's slice j (cnt[i] / R keys) to rank j */
        size_t so[256], sb[256], ro[256], rb[256];
        for (int i = 0; i < R; i++)
            for (int j = 0; j < R; j++) {
                const size_t k = (size_t)i * R + j;
                so[k] = cnt[i] / R * j * 4, sb[k] = cnt[i] / R * 4, ro[k] = cnt[i] / R * j * 4, rb[k] = cnt[j] / R * 4;
            }
        TIME("all-to-all (NCCL send/recv, even slices)", CK(gp__group_alltoallv(g, (const void *const *)tmp, so, sb, out, ro, rb)));
        if (g->nccl) {
            for (int j = 0; j < R; j++) { /* direct peer access (NCCL may have turned it on already) */
                cudaSetDevice(gp_ctx_device(gp_group_ctx(g, j)));
                for (int i = 0; i < R; i++)
                    if (i != j) cudaDeviceEnablePeerAccess(gp_ctx_device(gp_group_ctx(g, i)), 0);
            }
            cudaGetLastError();
            TIME("all-to-all (cudaMemcpyPeerAsync, receiver's stream)", for (int j = 0; j < R; j++) {
                cudaSetDevice(gp_ctx_device(gp_group_ctx(g, j)));
                for (int i = 0; i < R; i++) {
                    const size_t k = (size_t)i * R + j;
                    cudaMemcpyPeerAsync((char *)out[j] + ro[(size_t)j * R + i], gp_ctx_device(gp_group_ctx(g, j)),
                                        (char *)tmp[i] + so[k], gp_ctx_device(gp_group_ctx(g, i)), sb[k], g->stream[j]);
                }
            });
        }
    }
    {   /* the merges: log2(R) levels of pairwise merges of cnt / 2 each */
        int levels = 0;
        while ((1 << levels) < R) levels++;
        char label[80];
        snprintf(label, sizeof label, "merge: %d level(s) of 2 x n/2 on every member", levels);
        TIME(label, for (int l = 0; l < levels; l++) for (int i = 0; i < R; i++)
                 CK(gp_merge(gp_group_ctx(g, i), GP_U32, cnt[i] / 2, tmp[i], cnt[i] - cnt[i] / 2,
                             (uint32_t *)tmp[i] + cnt[i] / 2, out[i], 0, NULL, NULL, NULL, 0, gp_group_stream(g, i))));
    }
    {   /* one round of the split search as group_sort runs it: member after member, H2D, count, D2H + sync */
        const int nq = (R > 1 ? R - 1 : 1) * 128;
        uint64_t *q = (uint64_t *)malloc((size_t)nq * 8), *res = (uint64_t *)malloc((size_t)nq * 8);
        void *dq[16];
        for (int k = 0; k < nq; k++) q[k] = mix((uint64_t)k) >> 32;
        for (int i = 0; i < R; i++) CK(gp__group_scratch(g, i, 2, (size_t)nq * 16, &dq[i]));
        TIME("one split-search round (members in turn)", for (int i = 0; i < R; i++) {
            cudaSetDevice(gp_ctx_device(gp_group_ctx(g, i)));
            cudaMemcpyAsync(dq[i], q, (size_t)nq * 8, cudaMemcpyHostToDevice, g->stream[i]);
            CK(gp__group_gpu_ops.sort_count(GP_U32, 0, cnt[i], tmp[i], nq, (const uint64_t *)dq[i], (uint64_t *)dq[i] + nq, g->stream[i]));
            CK(gp__group_to_host(g, i, res, (uint64_t *)dq[i] + nq, (size_t)nq * 8));
        });
        free(q), free(res);
    }
    for (int i = 0; i < R; i++) cudaFree(keys[i]), cudaFree(out[i]), cudaFree(tmp[i]);
    /* the one-GPU sort of the whole */
    cudaSetDevice(gp_ctx_device(gp_group_ctx(g, 0)));
    if (cudaMalloc(&one, N * 4) == cudaSuccess && cudaMalloc(&one_out, N * 4) == cudaSuccess) {
        cudaMemcpy(one, h, N * 4, cudaMemcpyHostToDevice);
        TIME("gp_sort of the whole on member 0",
             CK(gp_sort(gp_group_ctx(g, 0), GP_U32, N, one, one_out, NULL, gp_group_stream(g, 0))));
    }
    cudaFree(one), cudaFree(one_out);
    free(h);

    /* 2. the segmented sum: 2^31 f32 in segments of 4096 */
    const size_t M = (size_t)1 << 31, S = 4096, nseg = M / S;
    size_t mc[16];
    void *x[16], *dout[16];
    int64_t *dof[16];
    int64_t *off = (int64_t *)malloc((nseg + 1) * 8), *pin = NULL;
    for (size_t s = 0; s <= nseg; s++) off[s] = (int64_t)(s * S);
    cudaMallocHost((void **)&pin, (nseg + 1) * 8);
    for (int i = 0; i < R; i++) {
        mc[i] = M / R;
        cudaSetDevice(gp_ctx_device(gp_group_ctx(g, i)));
        cudaMalloc(&x[i], mc[i] * 4), cudaMalloc((void **)&dof[i], (nseg / R + 2) * 8), cudaMalloc(&dout[i], (nseg / R + 2) * 8);
        cudaMemset(x[i], 0x3c, mc[i] * 4);
        for (size_t s = 0; s <= nseg / R; s++) pin[s] = (int64_t)(s * S);
        cudaMemcpy(dof[i], pin, (nseg / R + 1) * 8, cudaMemcpyHostToDevice);
    }
    float *res = (float *)malloc(nseg * 4);
    TIME("gp_group_reduce_segmented sum f32 2^31 / 4096", CK(gp_group_reduce_segmented(g, GP_REDUCE_SUM, GP_F32, mc,
                                                         (const void *const *)x, nseg, off, res)));
    PHASES("gp_group_reduce_segmented's phases", CK(gp_group_reduce_segmented(g, GP_REDUCE_SUM, GP_F32, mc,
                                                         (const void *const *)x, nseg, off, res)));
    TIME("per-member gp_reduce_segmented, device offsets", for (int i = 0; i < R; i++)
             CK(gp_reduce_segmented(gp_group_ctx(g, i), GP_REDUCE_SUM, GP_F32, mc[i], x[i], nseg / R, dof[i], dout[i],
                                    gp_group_stream(g, i))));
    TIME("... and each member's values to the host (pinned)", for (int i = 0; i < R; i++) {
        CK(gp_reduce_segmented(gp_group_ctx(g, i), GP_REDUCE_SUM, GP_F32, mc[i], x[i], nseg / R, dof[i], dout[i],
                               gp_group_stream(g, i)));
        cudaSetDevice(gp_ctx_device(gp_group_ctx(g, i)));
        cudaMemcpyAsync((char *)pin + (size_t)i * (nseg / R) * 4, dout[i], nseg / R * 4, cudaMemcpyDeviceToHost, g->stream[i]);
    });
    TIME("host staging of every member's offsets (one thread)", for (int i = 0; i < R; i++) {
        const size_t lo = nseg / R * i, fi = M / R * i;
        for (size_t s = 0; s <= nseg / R; s++) pin[s] = off[lo + s] - (int64_t)fi;
    });
    TIME("offsets H2D, every member (pinned)", for (int i = 0; i < R; i++) {
        cudaSetDevice(gp_ctx_device(gp_group_ctx(g, i)));
        cudaMemcpyAsync(dof[i], pin, (nseg / R + 1) * 8, cudaMemcpyHostToDevice, g->stream[i]);
    });
    cudaSetDevice(gp_ctx_device(gp_group_ctx(g, 0)));
    void *xo = NULL, *oo = NULL;
    if (cudaMalloc(&xo, M * 4) == cudaSuccess && cudaMalloc(&oo, (nseg + 1) * 8) == cudaSuccess) {
        cudaMemset(xo, 0x3c, M * 4);
        int64_t *do0 = NULL;
        cudaMalloc((void **)&do0, (nseg + 1) * 8);
        cudaMemcpy(do0, off, (nseg + 1) * 8, cudaMemcpyHostToDevice);
        TIME("one GPU gp_reduce_segmented, device offsets", CK(gp_reduce_segmented(gp_group_ctx(g, 0), GP_REDUCE_SUM,
                                                         GP_F32, M, xo, nseg, do0, oo, gp_group_stream(g, 0))));
        cudaFree(do0);
    }
    cudaFree(xo), cudaFree(oo);
    for (int i = 0; i < R; i++) cudaFree(x[i]), cudaFree(dof[i]), cudaFree(dout[i]);
    cudaFreeHost(pin), free(off), free(res);
    gp_group_destroy(g);
    return 0;
}
