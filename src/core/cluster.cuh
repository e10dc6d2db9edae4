/*
 * cluster.cuh — launching thread-block clusters (sm_90): the launch configuration of a 1-D grid of clusters, and how
 * many clusters of a size fit the device at once. Used by the histogram's CLUSTER strategy and the sort's one-cluster
 * path; host code only.
 */
#ifndef GP_CLUSTER_CUH
#define GP_CLUSTER_CUH

#include "internal.h"

#include <cuda_runtime.h>

/* cfg / at for a launch of grid blocks (a multiple of cluster) of threads each, in clusters of cluster blocks (cfg
 * keeps a pointer to at) */
static inline void gp__cluster_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *at, int cluster, size_t grid,
                                      int threads, size_t smem, cudaStream_t stream)
{
    *cfg = cudaLaunchConfig_t{};
    at->id = cudaLaunchAttributeClusterDimension;
    at->val.clusterDim.x = (unsigned)cluster, at->val.clusterDim.y = 1, at->val.clusterDim.z = 1;
    cfg->gridDim = dim3((unsigned)grid), cfg->blockDim = dim3((unsigned)threads);
    cfg->dynamicSmemBytes = smem, cfg->stream = stream, cfg->attrs = at, cfg->numAttrs = 1;
}

/* How many clusters of this size of kernel k fit the device at once (0: this size cannot run; sizes past 8 are
 * allowed on k first, which a device without them refuses). */
static inline gp_status_t gp__cluster_capacity(const void *k, int cluster, int threads, size_t smem,
                                               cudaStream_t stream, int *nclusters)
{
    *nclusters = 0;
    if (cluster > 8) {
        cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return GP_OK;
        }
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at;
    gp__cluster_config(&cfg, &at, cluster, (size_t)cluster, threads, smem, stream);
    cudaError_t e = cudaOccupancyMaxActiveClusters(nclusters, k, &cfg);
    if (e != cudaSuccess) { /* an unsupported size reads as "none fit" */
        (void)cudaGetLastError();
        *nclusters = 0;
    }
    return GP_OK;
}

#endif
