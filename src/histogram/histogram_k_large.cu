/* histogram_k_large.cu — the kernels for any bin count (GLOBAL, BLOCK, CLUSTER, BLOCK_BULK) of every binner x dtype
 * (histogram_kernels.cuh); a separate translation unit so the histogram kernels compile in parallel. */
#include "histogram_kernels.cuh"
#include "histogram_pick.cuh"

namespace gph {

const void *kernel_large(int strategy, int kind, gp_dtype_t dt)
{
    if (strategy == GP__HS_GLOBAL) { GPH_PICK(k_global, GPH_COMMA 4) }
    if (strategy == GP__HS_BLOCK) { GPH_PICK(k_block, GPH_COMMA 4) }
    if (strategy == GP__HS_CLUSTER) { GPH_PICK(k_cluster, GPH_COMMA 4) }
    if (strategy == GP__HS_BLOCK_BULK) { GPH_PICK(k_block_bulk, ) }
    return NULL;
}

} // namespace gph
