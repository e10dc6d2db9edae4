/* group_phases.c — where gp_group_reduce's time goes on one GPU (a device-run experiment, not a test): host wall
 * clock medians of the pieces against gp_reduce_sync. Build (repository root, after a build into build-device; C,
 * then linked by nvcc):
 *   gcc -std=c11 -O2 -fopenmp -Iinclude -Isrc -I/usr/local/cuda/include -c bench/tune/group_phases.c -o /tmp/gph.o &&
 *   nvcc /tmp/gph.o build-device/libgpuprim.a -lcuda -Xcompiler -fopenmp -o /tmp/gphases
 */
#define _POSIX_C_SOURCE 200809L
#include "group/group_internal.h"
#include "reduce/reduce_internal.h"

#include "probe_clock.h"

#include <stdio.h>
#include <stdlib.h>
#define TIME(label, body)                                                                                          \
    do {                                                                                                           \
        double t_[21];                                                                                             \
        for (int i_ = 0; i_ < 24; i_++) {                                                                          \
            double a_ = now();                                                                                     \
            body;                                                                                                  \
            if (i_ >= 3) t_[i_ - 3] = (now() - a_) * 1e6;                                                          \
        }                                                                                                          \
        qsort(t_, 21, sizeof t_[0], cmpd);                                                                         \
        printf("%-44s n=%-11zu median %9.1f us  min %9.1f us\n", label, n, t_[10], t_[0]);                         \
    } while (0)

int main(void)
{
    gp_group_t *g = NULL;
    if (gp_group_create_local(&g, 0, NULL) != GP_OK) return printf("group: %s\n", gp_last_error()), 1;
    gp_ctx_t *c = gp_group_ctx(g, 0);
    cudaStream_t s = g->stream[0];
    const size_t ns[] = {(size_t)1 << 20, (size_t)1 << 26, (size_t)1 << 31};
    float *x = NULL;
    cudaMalloc((void **)&x, ns[2] * 4);
    cudaMemset(x, 0, ns[2] * 4);
    void *lvl = NULL, *l1 = NULL, *l2 = NULL, *pin = NULL;
    cudaMalloc(&lvl, 1 << 22);
    cudaMalloc(&l1, 1 << 16);
    cudaMalloc(&l2, 1 << 16);
    cudaMallocHost(&pin, 1 << 16);
    char *pageable = malloc(1 << 16);
    for (int q = 0; q < 3; q++) {
        const size_t n = ns[q], T = (n + 16383) / 16384;
        gp_reduce_result_t r;
        size_t cnt = n;
        const void *sh = x;
        TIME("gp_reduce_sync", gp_reduce_sync(c, GP_REDUCE_SUM, GP_F32, n, x, &r));
        TIME("tiles + sync", (gp__reduce_gpu_ops.tiles(c, GP_REDUCE_SUM, GP_F32, 0, n, x, 0, lvl, s), cudaStreamSynchronize(s)));
        TIME("tiles + 2 folds + sync", (gp__reduce_gpu_ops.tiles(c, GP_REDUCE_SUM, GP_F32, 0, n, x, 0, lvl, s),
                                        gp__reduce_gpu_ops.fold(c, GP_REDUCE_SUM, GP_F32, 0, T, lvl, l1, s),
                                        gp__reduce_gpu_ops.fold(c, GP_REDUCE_SUM, GP_F32, 0, (T + 4095) / 4096, l1, l2, s),
                                        cudaStreamSynchronize(s)));
        TIME("tiles + 2 folds + D2H pinned + sync", (gp__reduce_gpu_ops.tiles(c, GP_REDUCE_SUM, GP_F32, 0, n, x, 0, lvl, s),
                                        gp__reduce_gpu_ops.fold(c, GP_REDUCE_SUM, GP_F32, 0, T, lvl, l1, s),
                                        gp__reduce_gpu_ops.fold(c, GP_REDUCE_SUM, GP_F32, 0, (T + 4095) / 4096, l1, l2, s),
                                        cudaMemcpyAsync(pin, l2, 8, cudaMemcpyDeviceToHost, s), cudaStreamSynchronize(s)));
        TIME("... D2H pageable + sync", (gp__reduce_gpu_ops.tiles(c, GP_REDUCE_SUM, GP_F32, 0, n, x, 0, lvl, s),
                                        gp__reduce_gpu_ops.fold(c, GP_REDUCE_SUM, GP_F32, 0, T, lvl, l1, s),
                                        gp__reduce_gpu_ops.fold(c, GP_REDUCE_SUM, GP_F32, 0, (T + 4095) / 4096, l1, l2, s),
                                        cudaMemcpyAsync(pageable, l2, 8, cudaMemcpyDeviceToHost, s), cudaStreamSynchronize(s)));
        TIME("gp__group_allgather (nccl, 8 B) + sync", (gp__group_allgather(g, (const void *const *)&l2, &l1, 8), cudaStreamSynchronize(s)));
        TIME("gp_group_sync", gp_group_sync(g));
        TIME("gp_group_reduce", gp_group_reduce(g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, &cnt, &sh, &r));
        gp_group_reducer_t *red = NULL;
        gp_group_reducer_create(g, GP_REDUCE_SUM, GP_F32, GP_DTYPE_COUNT, &red);
        double tp[21], tf[21];
        for (int i = 0; i < 24; i++) {
            double a = now();
            gp_group_reducer_push(red, 0, 0, n, x, NULL);
            cudaStreamSynchronize(s);
            double b = now();
            gp_group_reducer_finish(red, &r);
            double e = now();
            if (i >= 3) tp[i - 3] = (b - a) * 1e6, tf[i - 3] = (e - b) * 1e6;
        }
        qsort(tp, 21, sizeof tp[0], cmpd);
        qsort(tf, 21, sizeof tf[0], cmpd);
        printf("%-44s n=%-11zu median %9.1f us  min %9.1f us\n", "reducer push + sync", n, tp[10], tp[0]);
        printf("%-44s n=%-11zu median %9.1f us  min %9.1f us\n", "reducer finish (after the sync)", n, tf[10], tf[0]);
        gp_group_reducer_destroy(red);
        TIME("gp_reduce_sync again (last)", gp_reduce_sync(c, GP_REDUCE_SUM, GP_F32, n, x, &r));
    }
    gp_group_destroy(g);
    return 0;
}
