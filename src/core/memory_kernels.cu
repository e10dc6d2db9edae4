/*
 * memory_kernels.cu — copies done by the SMs (gp_memcpy_kernel) and the read-only bandwidth probe of the benches.
 * Units: bytes. Both kernels are grid-stride over a grid that fills the device once.
 */
#include "internal.h"
#include "half.h"

#include <stdint.h>

namespace {

/* Widest word both pointers can use: 16 bytes when src and dst share their offset mod 16, else 4, else 1. A head
 * of up to W-1 bytes brings both to a W-aligned address; the tail is the remainder. */
template <typename W>
__global__ void copy_words(unsigned char *__restrict__ dst, const unsigned char *__restrict__ src, size_t bytes,
                           size_t head)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t nw = (bytes - head) / sizeof(W);
    const W *s = reinterpret_cast<const W *>(src + head);
    W *d = reinterpret_cast<W *>(dst + head);
    for (size_t i = tid; i < nw; i += stride) d[i] = s[i];
    if (tid < head) dst[tid] = src[tid];
    const size_t tail0 = head + nw * sizeof(W);
    if (tid < bytes - tail0) dst[tail0 + tid] = src[tail0 + tid];
}

__global__ void read_words(const uint4 *__restrict__ src, size_t n, unsigned int *sink)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned int acc = 0;
    size_t i = tid;
    /* Four loads in flight per thread before their first use. */
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n; i += stride) {
        uint4 a = src[i];
        acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    /* Never true for random data in practice, but the compiler cannot drop the loads. */
    if (acc == 0x9e3779b9u) *sink = acc;
}

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Element i gets a value from a hash of (seed, i): floats uniform in [-1, 1) (f16 / bf16: rounded), i32 uniform in [-1024, 1023], u8 and
 * u32 uniform over all values. */
template <typename T> __device__ __forceinline__ T from_bits(unsigned long long h);
template <> __device__ __forceinline__ float from_bits<float>(unsigned long long h)
{
    return (float)((double)(h >> 40) * 0x1p-23 - 1.0);
}
template <> __device__ __forceinline__ double from_bits<double>(unsigned long long h)
{
    return (double)(h >> 11) * 0x1p-52 - 1.0;
}
template <> __device__ __forceinline__ int from_bits<int>(unsigned long long h) { return (int)(h >> 53) - 1024; }
/* u8 and u32: every bit pattern equally likely */
template <> __device__ __forceinline__ unsigned char from_bits<unsigned char>(unsigned long long h)
{
    return (unsigned char)(h >> 56);
}
template <> __device__ __forceinline__ unsigned from_bits<unsigned>(unsigned long long h) { return (unsigned)(h >> 32); }

/* f16 / bf16: the f32 value rounded to nearest even (half.h) */
struct F16b {
    unsigned short b;
};
struct BF16b {
    unsigned short b;
};
template <> __device__ __forceinline__ F16b from_bits<F16b>(unsigned long long h)
{
    return F16b{gp__f32_to_f16(from_bits<float>(h))};
}
template <> __device__ __forceinline__ BF16b from_bits<BF16b>(unsigned long long h)
{
    return BF16b{gp__f32_to_bf16(from_bits<float>(h))};
}

template <typename T> __global__ void fill_random(T *dst, size_t n, unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = from_bits<T>(splitmix64(seed * 0x2545f4914f6cdd1dull + i));
}

} // namespace

extern "C" gp_status_t gp__launch_fill_random(gp_ctx_t *ctx, void *dst, size_t n, gp_dtype_t dtype,
                                              unsigned long long seed, cudaStream_t stream)
{
    if (n == 0) return GP_OK;
    const unsigned grid = gp__fill_grid(ctx, 256);
    switch (dtype) {
    case GP_F32: fill_random<float><<<grid, 256, 0, stream>>>((float *)dst, n, seed); break;
    case GP_F64: fill_random<double><<<grid, 256, 0, stream>>>((double *)dst, n, seed); break;
    case GP_I32: fill_random<int><<<grid, 256, 0, stream>>>((int *)dst, n, seed); break;
    case GP_U8: fill_random<unsigned char><<<grid, 256, 0, stream>>>((unsigned char *)dst, n, seed); break;
    case GP_U32: fill_random<unsigned><<<grid, 256, 0, stream>>>((unsigned *)dst, n, seed); break;
    case GP_F16: fill_random<F16b><<<grid, 256, 0, stream>>>((F16b *)dst, n, seed); break;
    case GP_BF16: fill_random<BF16b><<<grid, 256, 0, stream>>>((BF16b *)dst, n, seed); break;
    default: return gp__error(GP_ERR_UNSUPPORTED, "fill_random: dtype %s", gp_dtype_name(dtype));
    }
    return GP_CHECK_LAUNCH("fill_random");
}

extern "C" gp_status_t gp__launch_copy_kernel(gp_ctx_t *ctx, void *dst, const void *src, size_t bytes,
                                              cudaStream_t stream)
{
    const int threads = 256;
    const unsigned grid = gp__fill_grid(ctx, threads);
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    unsigned char *dp = (unsigned char *)dst;
    const unsigned char *sp = (const unsigned char *)src;
    if ((d & 15) == (s & 15)) {
        size_t head = (16 - (d & 15)) & 15;
        if (head > bytes) head = bytes;
        copy_words<uint4><<<grid, threads, 0, stream>>>(dp, sp, bytes, head);
    } else if ((d & 3) == (s & 3)) {
        size_t head = (4 - (d & 3)) & 3;
        if (head > bytes) head = bytes;
        copy_words<unsigned int><<<grid, threads, 0, stream>>>(dp, sp, bytes, head);
    } else {
        copy_words<unsigned char><<<grid, threads, 0, stream>>>(dp, sp, bytes, 0);
    }
    return GP_CHECK_LAUNCH("gp_memcpy_kernel");
}

extern "C" gp_status_t gp__launch_read_kernel(gp_ctx_t *ctx, const void *src, size_t bytes, unsigned int *sink,
                                              cudaStream_t stream)
{
    if (((uintptr_t)src & 15) != 0 || (bytes & 15) != 0)
        return gp__error(GP_ERR_INVALID_ARG, "read kernel: src and bytes must be multiples of 16");
    const int threads = 256;
    read_words<<<gp__fill_grid(ctx, threads), threads, 0, stream>>>((const uint4 *)src, bytes / 16, sink);
    return GP_CHECK_LAUNCH("read_words");
}
