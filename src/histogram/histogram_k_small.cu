/* histogram_k_small.cu — the kernels for small bin counts (LANE, WARP) of every binner x dtype (histogram_kernels.cuh);
 * a separate translation unit so the histogram kernels compile in parallel. */
#include "histogram_kernels.cuh"
#include "histogram_pick.cuh"

namespace gph {

const void *kernel_small(int strategy, int kind, gp_dtype_t dt)
{
    if (strategy == GP__HS_LANE) { GPH_PICK(k_lane, GPH_COMMA 8 GPH_COMMA true) }
    if (strategy == GP__HS_LANE_RMW) { GPH_PICK(k_lane, GPH_COMMA 8 GPH_COMMA false) }
    if (strategy == GP__HS_WARP) { GPH_PICK(k_warp, GPH_COMMA 4) }
    return NULL;
}

} // namespace gph
