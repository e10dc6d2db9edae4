/*
 * pdl.cuh — programmatic dependent launch (sm_90): a kernel launched so that it may begin while the stream's previous
 * kernel finishes, which waits (gp_pdl_wait) before it touches anything earlier work wrote, and lets the next such
 * launch begin (gp_pdl_trigger). Off the attribute (before sm_90) both are no-ops and the launch is an ordinary one.
 * docs/design/sort.md, "The GPU backend", says where it is used and what it saved.
 */
#ifndef GP_PDL_CUH
#define GP_PDL_CUH

#include "internal.h"

#include <cuda_runtime.h>

__device__ __forceinline__ void gp_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void gp_pdl_trigger()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* k<<<grid, threads, smem, s>>>(args...), as a programmatic dependent of the stream's previous kernel where ctx's
 * device has it (sm_90) */
template <typename... P, typename... A>
static inline cudaError_t gp__launch_pdl(const gp_ctx_t *ctx, void (*k)(P...), dim3 grid, unsigned threads, size_t smem,
                                         cudaStream_t s, A &&...args)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = grid, cfg.blockDim = dim3(threads), cfg.dynamicSmemBytes = smem, cfg.stream = s;
    if (ctx->cc_major >= 9) {
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = at, cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, k, static_cast<A &&>(args)...);
}

#endif
