/*
 * tma.cuh — Hopper's asynchronous copies for the CUDA files of src/: shared-memory mbarriers, the bulk tensor copy
 * engine (cp.async.bulk.tensor: global -> shared completing on an mbarrier, shared -> global in bulk groups; plain
 * cp.async.bulk of contiguous bytes) and the host's tensor-map encoder, taken from the driver through the runtime.
 * Device parts are sm_90 instructions: callers guard them with __CUDA_ARCH__ >= 900 and check the device on the host.
 * Included inside an anonymous namespace.
 */
#ifndef GP_CORE_TMA_CUH
#define GP_CORE_TMA_CUH

#include <cuda.h>

/* the shared-memory address of a generic pointer, as the async instructions take it */
__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
/* after every mbar_init, before the barrier that publishes them: the inits visible to the copy engine */
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
/* wait until the phase of the given parity completed (acquire: what the arrivals released is visible) */
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n.reg .pred p;\nW_%=:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W_%=;\n}" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
/* one arrival (release: this thread's earlier writes are visible to the waiters) */
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/* one arrival that also expects `bytes` of copies completing on this barrier */
__device__ __forceinline__ void mbar_arrive_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

/* box {c0, c1} of a 2D tensor map into shared memory at dst, completing on bar (out-of-bounds elements read as 0) */
__device__ __forceinline__ void tma_load_2d(unsigned dst, const CUtensorMap *map, int c0, int c1, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
/* bytes (a multiple of 16) from global src to shared dst (both 16-byte aligned), completing on bar: the copy engine
 * without a tensor map */
__device__ __forceinline__ void bulk_load(unsigned dst, const void *src, unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"((unsigned long long)src), "r"(bytes), "r"(bar)
                 : "memory");
}
/* shared memory at src to box {c0, c1} of a 2D tensor map (elements out of bounds are not written), in this
 * thread's current bulk group */
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, int c0, int c1, unsigned src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     (unsigned long long)map),
                 "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
/* wait until at most N of this thread's bulk groups still read shared memory */
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
/* wait until all of this thread's bulk groups completed (their writes done) */
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
/* a thread's ordinary shared-memory writes, before a barrier after which the copy engine reads them */
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"((unsigned long long)map) : "memory");
}

/* 128-byte swizzle (CU_TENSOR_MAP_SWIZZLE_128B) of a byte offset in a 1024-byte-aligned box: the 16-byte chunk
 * index within each 128-byte row is XORed with the row's index mod 8 */
__device__ __forceinline__ unsigned swizzle128(unsigned off) { return off ^ (((off >> 7) & 7u) << 4); }

/* the driver's cuTensorMapEncodeTiled, through the runtime (the library links the runtime alone); NULL without it */
typedef CUresult (*gp_tma_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
inline gp_tma_encode_fn tma_encoder()
{
    static gp_tma_encode_fn encode = NULL;
    if (encode == NULL) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            encode = (gp_tma_encode_fn)fn;
    }
    return encode;
}

#endif
