/*
 * memory.cu — the memory-hierarchy lab's kernels (lab/memory.h): coalescing, shared-memory banks, constant and
 * read-only paths, texture, registers and occupancy, divergence, atomics, the latency and bandwidth staircase. Each
 * kernel is the smallest one that shows its effect; the topic (memory.c) verifies every output exactly.
 */
#include "memory.h"

#include <cuda_runtime.h>

namespace {

__device__ __forceinline__ size_t gtid() { return (size_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t gthreads() { return (size_t)gridDim.x * blockDim.x; }

int launched() { return (int)cudaGetLastError(); }
unsigned grid_for(size_t n, int block)
{
    size_t g = (n + (size_t)block - 1) / (size_t)block;
    return (unsigned)(g < 1 ? 1 : g > 0x7fffffffu ? 0x7fffffffu : g);
}

__global__ void fill_f32(float *p, size_t n, uint32_t seed)
{
    for (size_t i = gtid(); i < n; i += gthreads()) p[i] = (float)lm_hash(i, seed);
}
__global__ void fill_u32(uint32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = gtid(); i < n; i += gthreads()) p[i] = lm_hash(i, seed) * 2654435761u + (uint32_t)i;
}

/* ---------------------------------------------------------------------------------------------- coalescing */
/* One element per thread, like the primers' offset and stride kernels. */
__global__ void copy_k(float *out, const float *in, size_t n, int offset, int stride)
{
    const size_t i = gtid();
    if (i < n) out[i] = in[i * (size_t)stride + (size_t)offset];
}
__global__ void check_copy_k(const float *out, size_t n, long long offset, long long stride, uint32_t seed,
                             unsigned long long *bad)
{
    unsigned long long b = 0;
    for (size_t i = gtid(); i < n; i += gthreads())
        b += out[i] != (float)lm_hash(i * (size_t)stride + (size_t)offset, seed);
    if (b) atomicAdd(bad, b);
}
__global__ void aos_k(float *p, size_t n, float dt)
{
    const size_t i = gtid();
    if (i < n) p[8 * i] = __fmaf_rn(p[8 * i + 4], dt, p[8 * i]);
}
__global__ void soa_k(float *x, const float *vx, size_t n, float dt)
{
    const size_t i = gtid();
    if (i < n) x[i] = __fmaf_rn(vx[i], dt, x[i]);
}

/* x[i * xstride] == fma(hash(i * vm + va, vs), dt, hash(i * xm + xa, xs)) after one step. */
__global__ void check_step_k(const float *x, size_t n, size_t xstride, lm_step_check_t c, unsigned long long *bad)
{
    unsigned long long b = 0;
    for (size_t i = gtid(); i < n; i += gthreads()) {
        const float x0 = (float)lm_hash(i * c.xm + c.xa, c.xs), v = (float)lm_hash(i * c.vm + c.va, c.vs);
        b += x[i * xstride] != __fmaf_rn(v, c.dt, x0);
    }
    if (b) atomicAdd(bad, b);
}

/* ---------------------------------------------------------------------------------------------- shared memory */
constexpr int SMEM_WORDS = 8192; /* 32 KiB */
template <int WORD> __global__ void __launch_bounds__(1024) smem_k(uint32_t *out, int stride, int iters)
{
    __shared__ uint4 tab4[SMEM_WORDS / 4];
    uint32_t *t = reinterpret_cast<uint32_t *>(tab4);
    for (int w = threadIdx.x; w < SMEM_WORDS; w += blockDim.x) t[w] = (uint32_t)w * 2654435761u;
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31;
    uint32_t acc = 0;
    /* A step of one full row of banks per iteration (128 bytes) keeps every lane on its banks. */
    constexpr uint32_t per_row = 128 / WORD, mask = SMEM_WORDS / (WORD / 4) - 1;
    const uint32_t base = lane * (uint32_t)stride;
#pragma unroll 8
    for (int it = 0; it < iters; it++) {
        const uint32_t w = (base + (uint32_t)it * per_row) & mask;
        if (WORD == 4) {
            acc += t[w];
        } else if (WORD == 8) {
            const uint2 v = reinterpret_cast<const uint2 *>(tab4)[w];
            acc += v.x + v.y;
        } else {
            const uint4 v = tab4[w];
            acc += v.x + v.y + v.z + v.w;
        }
    }
    out[gtid()] = acc;
}

/* ---------------------------------------------------------------------------------------------- constant */
constexpr int CONST_WORDS = 4096;
__constant__ uint32_t const_tab[CONST_WORDS];

template <int PATH, int DIVERGENT>
__global__ void const_k(uint32_t *out, const uint32_t *__restrict__ tab_ro, const uint32_t *tab, int iters)
{
    const uint32_t lane = threadIdx.x & 31, off = DIVERGENT ? lane : 0u;
    uint32_t acc = 0;
#pragma unroll 8
    for (int it = 0; it < iters; it++) {
        const uint32_t i = ((uint32_t)it * 97u + off) & (LM_CONST_WINDOW - 1);
        if (PATH == 0) acc += const_tab[i];
        else if (PATH == 1) acc += __ldg(tab_ro + i);
        else acc += tab[i];
    }
    out[gtid()] = acc;
}

/* ---------------------------------------------------------------------------------------------- texture */
template <int PATH>
__global__ void gather_k(float *out, const float *img, const float *__restrict__ img_ro, cudaTextureObject_t tex, int w,
                         int h)
{
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    int xs = x, ys = y;
    if (PATH != 3) lm_rotate(x, y, w, h, &xs, &ys);
    float acc = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            if (PATH == 2) {
                acc += tex2D<float>(tex, (float)(xs + dx) + 0.5f, (float)(ys + dy) + 0.5f); /* clamp addressing */
            } else {
                const int u = min(max(xs + dx, 0), w - 1), v = min(max(ys + dy, 0), h - 1);
                acc += PATH == 1 ? __ldg(img_ro + (size_t)v * w + u) : img[(size_t)v * w + u];
            }
        }
    out[(size_t)y * w + x] = acc;
}

/* ---------------------------------------------------------------------------------------------- registers */
/* LM_REG_WORDS words live across every round: the register cap decides whether they stay in registers. */
__device__ __forceinline__ uint32_t regs_job(const uint32_t *in, int threads, int t)
{
    uint32_t v[LM_REG_WORDS];
#pragma unroll
    for (int k = 0; k < LM_REG_WORDS; k++) v[k] = in[(size_t)k * threads + t];
#pragma unroll
    for (int r = 0; r < LM_REG_ROUNDS; r++)
#pragma unroll
        for (int k = 0; k < LM_REG_WORDS; k++)
            v[k] = v[k] * 2654435761u + (v[(k + 1) % LM_REG_WORDS] ^ (v[(k + 7) % LM_REG_WORDS] >> 3)) + (uint32_t)r;
    uint32_t acc = 0;
#pragma unroll
    for (int k = 0; k < LM_REG_WORDS; k++) acc ^= v[k] + (uint32_t)k;
    return acc;
}
template <int MINB> __global__ void __launch_bounds__(256, MINB) regs_k(uint32_t *out, const uint32_t *in, int threads)
{
    const int t = (int)gtid();
    if (t < threads) out[t] = regs_job(in, threads, t);
}
template <int MINB> const void *regs_fn() { return (const void *)regs_k<MINB>; }
const void *regs_kernel(int minb)
{
    switch (minb) {
    case 1: return regs_fn<1>();
    case 2: return regs_fn<2>();
    case 4: return regs_fn<4>();
    case 6: return regs_fn<6>();
    case 8: return regs_fn<8>();
    default: return nullptr;
    }
}

/* ---------------------------------------------------------------------------------------------- divergence */
template <int MODE> __global__ void diverge_k(uint32_t *out, int iters)
{
    const uint32_t t = (uint32_t)gtid(), lane = threadIdx.x & 31, warp = t >> 5;
    const uint32_t x = t * 2654435761u, y = t ^ 0x9e3779b9u;
    uint32_t r;
    if (MODE == 0) r = lm_path_a(x, iters);
    else if (MODE == 1) r = (lane & 1) ? lm_path_b(y, iters) : lm_path_a(x, iters);
    else if (MODE == 2) r = (warp & 1) ? lm_path_b(y, iters) : lm_path_a(x, iters);
    else {
        const uint32_t a = lm_path_a(x, iters), b = lm_path_b(y, iters);
        r = (lane & 1) ? b : a;
    }
    out[t] = r;
}

/* ---------------------------------------------------------------------------------------------- atomics */
__global__ void atom_global_k(uint32_t *c, size_t n, uint32_t mask)
{
    for (size_t i = gtid(); i < n; i += gthreads()) atomicAdd(&c[i & mask], 1u);
}
__global__ void atom_shared_k(uint32_t *c, size_t n, uint32_t mask)
{
    extern __shared__ uint32_t sc[];
    for (uint32_t a = threadIdx.x; a <= mask; a += blockDim.x) sc[a] = 0;
    __syncthreads();
    for (size_t i = gtid(); i < n; i += gthreads()) atomicAdd(&sc[i & mask], 1u);
    __syncthreads();
    for (uint32_t a = threadIdx.x; a <= mask; a += blockDim.x)
        if (sc[a]) atomicAdd(&c[a], sc[a]);
}
/* Lanes with the same address elect one leader that adds their count (__match_any_sync groups them). */
__global__ void atom_warp_k(uint32_t *c, size_t n, uint32_t mask)
{
    const size_t stride = gthreads();
    const size_t end = (n + 31) / 32 * 32; /* every lane runs the same trip count so the warp stays whole */
    for (size_t i = gtid(); i < end; i += stride) {
        const int valid = i < n;
        const uint32_t a = valid ? (uint32_t)(i & mask) : 0xffffffffu;
        const unsigned peers = __match_any_sync(0xffffffffu, a);
        const int leader = __ffs(peers) - 1;
        if (valid && (int)(threadIdx.x & 31) == leader) atomicAdd(&c[a], (uint32_t)__popc(peers));
    }
}

/* ---------------------------------------------------------------------------------------------- staircase */
__global__ void chain_k(uint32_t *chain, const uint32_t *cycle, size_t lines)
{
    for (size_t k = gtid(); k < lines; k += gthreads())
        chain[(size_t)cycle[k] * 32] = cycle[k + 1 < lines ? k + 1 : 0] * 32u;
}
__global__ void chase_k(const uint32_t *chain, int steps, uint32_t *end)
{
    uint32_t p = *end; /* where the last run stopped: every run walks lines it has not walked */
    for (int s = 0; s < steps; s++) p = chain[p];
    *end = p;
}
/* Block b reads words [b * per_block, (b + 1) * per_block) modulo the working set: every SM sweeps the whole set when
 * it is smaller than a block's share, so what each SM touches is the working set itself. */
__global__ void stream_read_k(const uint4 *buf, size_t mask, size_t per_block, uint32_t *sum)
{
    uint32_t acc = 0;
    const size_t base = (size_t)blockIdx.x * per_block;
#pragma unroll 4
    for (size_t j = threadIdx.x; j < per_block; j += blockDim.x) {
        const uint4 v = buf[(base + j) & mask];
        acc += v.x + v.y + v.z + v.w;
    }
    for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}
/* Passes over the working set one after another, the whole grid striding through each: past the L2, a pass finds
 * nothing of the last one cached. */
__global__ void stream_pass_k(const uint4 *buf, size_t mask, size_t loads, uint32_t *sum)
{
    uint32_t acc = 0;
#pragma unroll 4
    for (size_t i = gtid(); i < loads; i += gthreads()) {
        const uint4 v = buf[i & mask];
        acc += v.x + v.y + v.z + v.w;
    }
    for (int o = 16; o; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

} // namespace

extern "C" {

const char *lm_error(int err) { return cudaGetErrorString((cudaError_t)err); }

int lm_device_attrs(int *clock_khz, int *l2_bytes, int *smem_per_sm, int *sms)
{
    int dev = 0, e;
    if ((e = (int)cudaGetDevice(&dev)) != 0) return e;
    if ((e = (int)cudaDeviceGetAttribute(clock_khz, cudaDevAttrClockRate, dev)) != 0) return e;
    if ((e = (int)cudaDeviceGetAttribute(l2_bytes, cudaDevAttrL2CacheSize, dev)) != 0) return e;
    if ((e = (int)cudaDeviceGetAttribute(smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev)) != 0)
        return e;
    return (int)cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
}

int lm_fill(float *p, size_t n, uint32_t seed, gp_stream_t s)
{
    fill_f32<<<1024, 256, 0, (cudaStream_t)s>>>(p, n, seed);
    return launched();
}
int lm_fill_u32(uint32_t *p, size_t n, uint32_t seed, gp_stream_t s)
{
    fill_u32<<<1024, 256, 0, (cudaStream_t)s>>>(p, n, seed);
    return launched();
}
int lm_copy(float *out, const float *in, size_t n, int offset, int stride, int block, gp_stream_t s)
{
    if (n == 0) return 0;
    copy_k<<<grid_for(n, block), block, 0, (cudaStream_t)s>>>(out, in, n, offset, stride);
    return launched();
}
int lm_check_copy(const float *out, size_t n, long long offset, long long stride, uint32_t seed,
                  unsigned long long *bad, gp_stream_t s)
{
    int e = (int)cudaMemsetAsync(bad, 0, sizeof *bad, (cudaStream_t)s);
    if (e) return e;
    check_copy_k<<<1024, 256, 0, (cudaStream_t)s>>>(out, n, offset, stride, seed, bad);
    return launched();
}
int lm_check_step(const float *x, size_t n, size_t xstride, const lm_step_check_t *c, unsigned long long *bad,
                  gp_stream_t s)
{
    int e = (int)cudaMemsetAsync(bad, 0, sizeof *bad, (cudaStream_t)s);
    if (e) return e;
    check_step_k<<<1024, 256, 0, (cudaStream_t)s>>>(x, n, xstride, *c, bad);
    return launched();
}
int lm_aos_step(float *p, size_t n, float dt, gp_stream_t s)
{
    if (n == 0) return 0;
    aos_k<<<grid_for(n, 256), 256, 0, (cudaStream_t)s>>>(p, n, dt);
    return launched();
}
int lm_soa_step(float *x, const float *vx, size_t n, float dt, gp_stream_t s)
{
    if (n == 0) return 0;
    soa_k<<<grid_for(n, 256), 256, 0, (cudaStream_t)s>>>(x, vx, n, dt);
    return launched();
}

int lm_smem(uint32_t *out, int word, int stride, int iters, int grid, gp_stream_t s)
{
    cudaStream_t st = (cudaStream_t)s;
    if (word == 4) smem_k<4><<<grid, 1024, 0, st>>>(out, stride, iters);
    else if (word == 8) smem_k<8><<<grid, 1024, 0, st>>>(out, stride, iters);
    else if (word == 16) smem_k<16><<<grid, 1024, 0, st>>>(out, stride, iters);
    else return (int)cudaErrorInvalidValue;
    return launched();
}

int lm_const_upload(gp_stream_t s)
{
    static uint32_t h[CONST_WORDS];
    for (int i = 0; i < CONST_WORDS; i++) h[i] = lm_hash((uint64_t)i, 7);
    int e = (int)cudaMemcpyToSymbolAsync(const_tab, h, sizeof h, 0, cudaMemcpyHostToDevice, (cudaStream_t)s);
    return e ? e : (int)cudaStreamSynchronize((cudaStream_t)s);
}
int lm_const(uint32_t *out, const uint32_t *table, int path, int divergent, int iters, int grid, gp_stream_t s)
{
    cudaStream_t st = (cudaStream_t)s;
    const int k = path * 2 + (divergent != 0);
    switch (k) {
    case 0: const_k<0, 0><<<grid, 256, 0, st>>>(out, table, table, iters); break;
    case 1: const_k<0, 1><<<grid, 256, 0, st>>>(out, table, table, iters); break;
    case 2: const_k<1, 0><<<grid, 256, 0, st>>>(out, table, table, iters); break;
    case 3: const_k<1, 1><<<grid, 256, 0, st>>>(out, table, table, iters); break;
    case 4: const_k<2, 0><<<grid, 256, 0, st>>>(out, table, table, iters); break;
    case 5: const_k<2, 1><<<grid, 256, 0, st>>>(out, table, table, iters); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return launched();
}

int lm_tex_create(const float *img, int w, int h, unsigned long long *tex, void **array)
{
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    int e = (int)cudaMallocArray(&a, &fd, (size_t)w, (size_t)h);
    if (e) return e;
    e = (int)cudaMemcpy2DToArray(a, 0, 0, img, (size_t)w * sizeof(float), (size_t)w * sizeof(float), (size_t)h,
                                 cudaMemcpyDeviceToDevice);
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    cudaTextureObject_t t = 0;
    if (!e) e = (int)cudaCreateTextureObject(&t, &rd, &td, nullptr);
    if (e) {
        cudaFreeArray(a);
        return e;
    }
    *tex = (unsigned long long)t;
    *array = a;
    return 0;
}
void lm_tex_destroy(unsigned long long tex, void *array)
{
    if (tex) cudaDestroyTextureObject((cudaTextureObject_t)tex);
    if (array) cudaFreeArray((cudaArray_t)array);
}
int lm_gather(float *out, const float *img, unsigned long long tex, int w, int h, int path, gp_stream_t s)
{
    const dim3 b(32, 8), g((unsigned)((w + 31) / 32), (unsigned)((h + 7) / 8));
    cudaStream_t st = (cudaStream_t)s;
    const cudaTextureObject_t t = (cudaTextureObject_t)tex;
    switch (path) {
    case 0: gather_k<0><<<g, b, 0, st>>>(out, img, img, t, w, h); break;
    case 1: gather_k<1><<<g, b, 0, st>>>(out, img, img, t, w, h); break;
    case 2: gather_k<2><<<g, b, 0, st>>>(out, img, img, t, w, h); break;
    case 3: gather_k<3><<<g, b, 0, st>>>(out, img, img, t, w, h); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return launched();
}

int lm_regs(uint32_t *out, const uint32_t *in, int threads, int minb, gp_stream_t s)
{
    const void *k = regs_kernel(minb);
    if (!k || threads <= 0) return (int)cudaErrorInvalidValue;
    void *args[] = {&out, &in, &threads};
    return (int)cudaLaunchKernel(k, dim3(grid_for((size_t)threads, 256)), dim3(256), args, 0, (cudaStream_t)s);
}
int lm_regs_attr(int minb, int *regs, int *local_bytes, int *blocks_per_sm)
{
    const void *k = regs_kernel(minb);
    if (!k) return (int)cudaErrorInvalidValue;
    cudaFuncAttributes a;
    int e = (int)cudaFuncGetAttributes(&a, k);
    if (e) return e;
    *regs = a.numRegs;
    *local_bytes = (int)a.localSizeBytes;
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, 256, 0);
}
int lm_copy_occupancy(int block, int *blocks_per_sm)
{
    return (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, copy_k, block, 0);
}
uint32_t lm_regs_ref(const uint32_t *in, int threads, int t)
{
    uint32_t v[LM_REG_WORDS];
    for (int k = 0; k < LM_REG_WORDS; k++) v[k] = in[(size_t)k * threads + t];
    for (int r = 0; r < LM_REG_ROUNDS; r++) {
        /* in place, in k order, like the kernel's unrolled loop */
        for (int k = 0; k < LM_REG_WORDS; k++)
            v[k] = v[k] * 2654435761u + (v[(k + 1) % LM_REG_WORDS] ^ (v[(k + 7) % LM_REG_WORDS] >> 3)) + (uint32_t)r;
    }
    uint32_t acc = 0;
    for (int k = 0; k < LM_REG_WORDS; k++) acc ^= v[k] + (uint32_t)k;
    return acc;
}

int lm_diverge(uint32_t *out, int mode, int iters, int grid, gp_stream_t s)
{
    cudaStream_t st = (cudaStream_t)s;
    switch (mode) {
    case 0: diverge_k<0><<<grid, 256, 0, st>>>(out, iters); break;
    case 1: diverge_k<1><<<grid, 256, 0, st>>>(out, iters); break;
    case 2: diverge_k<2><<<grid, 256, 0, st>>>(out, iters); break;
    case 3: diverge_k<3><<<grid, 256, 0, st>>>(out, iters); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return launched();
}

int lm_atomics(uint32_t *counters, size_t n, int addresses, int mode, gp_stream_t s)
{
    cudaStream_t st = (cudaStream_t)s;
    if (addresses <= 0 || (addresses & (addresses - 1))) return (int)cudaErrorInvalidValue;
    const uint32_t mask = (uint32_t)addresses - 1;
    int e = (int)cudaMemsetAsync(counters, 0, (size_t)addresses * sizeof(uint32_t), st);
    if (e) return e;
    int dev = 0, sms = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const unsigned grid = (unsigned)sms * 8;
    if (mode == 0) atom_global_k<<<grid, 256, 0, st>>>(counters, n, mask);
    else if (mode == 1 && addresses <= 8192)
        atom_shared_k<<<grid, 256, (size_t)addresses * sizeof(uint32_t), st>>>(counters, n, mask);
    else if (mode == 2) atom_warp_k<<<grid, 256, 0, st>>>(counters, n, mask);
    else return (int)cudaErrorInvalidValue;
    return launched();
}

int lm_chain(uint32_t *chain, const uint32_t *cycle, size_t lines, gp_stream_t s)
{
    chain_k<<<1024, 256, 0, (cudaStream_t)s>>>(chain, cycle, lines);
    return launched();
}
int lm_chase(const uint32_t *chain, int steps, uint32_t *end, gp_stream_t s)
{
    chase_k<<<1, 1, 0, (cudaStream_t)s>>>(chain, steps, end);
    return launched();
}
int lm_stream_read(const uint32_t *buf, size_t words16, size_t loads, uint32_t *sum, int grid, int passes,
                   gp_stream_t s)
{
    if (words16 == 0 || (words16 & (words16 - 1))) return (int)cudaErrorInvalidValue;
    int e = (int)cudaMemsetAsync(sum, 0, sizeof *sum, (cudaStream_t)s);
    if (e) return e;
    if (passes) stream_pass_k<<<grid, 256, 0, (cudaStream_t)s>>>((const uint4 *)buf, words16 - 1, loads, sum);
    else stream_read_k<<<grid, 256, 0, (cudaStream_t)s>>>((const uint4 *)buf, words16 - 1, loads / (size_t)grid, sum);
    return launched();
}

} /* extern "C" */
