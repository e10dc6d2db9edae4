/*
 * memory.h — the memory-hierarchy lab's kernels (memory.cu) as the topic (memory.c) and the GPU test call them. Every
 * launcher returns 0 or a CUDA error code (lm_error names it) and runs on the given stream; pointers are device
 * memory. The value formulas are shared with the host so that every version's output is checked exactly.
 */
#ifndef GP_LAB_MEMORY_H
#define GP_LAB_MEMORY_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define LM_HD static __host__ __device__ __forceinline__
#else
#define LM_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Element i of the lab's input: an integer below 2^24, so every float sum of a few of them is exact. */
LM_HD uint32_t lm_hash(uint64_t i, uint32_t seed)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ull + seed;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
    z ^= z >> 29;
    return (uint32_t)(z >> 40);
}
/* The register-pressure kernel's per-thread job (R live words, ROUNDS rounds), the divergence kernel's two paths. */
enum { LM_REG_WORDS = 48, LM_REG_ROUNDS = 24 };
LM_HD uint32_t lm_path_a(uint32_t x, int iters)
{
    for (int k = 0; k < iters; k++) x = (x * 1664525u + 1013904223u) ^ (x >> 13);
    return x;
}
LM_HD uint32_t lm_path_b(uint32_t y, int iters)
{
    for (int k = 0; k < iters; k++) y = (y * 22695477u + 1u) ^ (y << 7);
    return y;
}

const char *lm_error(int err);
int lm_device_attrs(int *clock_khz, int *l2_bytes, int *smem_per_sm, int *sms);

/* coalescing: in[i] = lm_hash(i, seed) as float; out[i] = in[i * stride + offset]; checked on the device. */
int lm_fill(float *p, size_t n, uint32_t seed, gp_stream_t s);
int lm_fill_u32(uint32_t *p, size_t n, uint32_t seed, gp_stream_t s);
int lm_copy(float *out, const float *in, size_t n, int offset, int stride, int block, gp_stream_t s);
/* Counts i < n where out[i] != hash(i * stride + offset) into *bad (device, zeroed here). */
int lm_check_copy(const float *out, size_t n, long long offset, long long stride, uint32_t seed,
                  unsigned long long *bad, gp_stream_t s);
/* After one x += vx * dt step: counts i < n where x[i * xstride] != fma(hash(i*vm+va, vs), dt, hash(i*xm+xa, xs)). */
typedef struct lm_step_check {
    uint64_t xm, xa, vm, va;
    uint32_t xs, vs;
    float dt;
} lm_step_check_t;
int lm_check_step(const float *x, size_t n, size_t xstride, const lm_step_check_t *c, unsigned long long *bad,
                  gp_stream_t s);
/* Structs of 8 floats {x, y, z, w, vx, vy, vz, m} vs one array per field: x += vx * dt. */
int lm_aos_step(float *p, size_t n, float dt, gp_stream_t s);
int lm_soa_step(float *x, const float *vx, size_t n, float dt, gp_stream_t s);

/* Shared-memory banks: every thread sums `iters` words of WORD bytes (4, 8, 16) at lane * stride (+ a bank-neutral
 * step per iteration) from a 32 KiB table t[w] = w * 2654435761; out[thread] = the sum of its 32-bit lanes. */
/* The theory beside it (memory.c): wavefronts of one warp request, each 128-byte phase (32 lanes of 4 bytes, 16 of 8,
 * 8 of 16) taking as many as the most distinct words any bank holds. */
int lm_wavefronts(int word, int stride);
int lm_smem(uint32_t *out, int word, int stride, int iters, int grid, gp_stream_t s);

/* Constant vs read-only vs plain loads of a table (values lm_hash(i, 7)): each thread sums `iters` words at
 * (it * 97 + (divergent ? lane : 0)) mod LM_CONST_WINDOW (1 KiB, inside every cache on the way) — divergent: 32 neighbouring words, one line for a cache and 32
 * addresses for the constant cache. path: 0 __constant__, 1 __ldg, 2 plain loads. */
enum { LM_CONST_WINDOW = 256 };
int lm_const_upload(gp_stream_t s);
int lm_const(uint32_t *out, const uint32_t *table, int path, int divergent, int iters, int grid, gp_stream_t s);

/* 2D gather: out[y][x] = the 3x3 sum around the source of (x, y) rotated about the centre (integer fixed point,
 * clamped), from a W x H float image. path: 0 plain, 1 __ldg, 2 texture object on a cudaArray, 3 unrotated plain
 * loads (the coalesced baseline). lm_tex_create copies img into a cudaArray and makes its texture object. */
int lm_tex_create(const float *img, int w, int h, unsigned long long *tex, void **array);
void lm_tex_destroy(unsigned long long tex, void *array);
int lm_gather(float *out, const float *img, unsigned long long tex, int w, int h, int path, gp_stream_t s);
LM_HD void lm_rotate(int x, int y, int w, int h, int *xs, int *ys)
{
    const int64_t C = 56756, S = 32768; /* cos 30, sin 30 in 16.16 */
    const int64_t cx = w / 2, cy = h / 2, dx = x - cx, dy = y - cy;
    int64_t u = ((dx * C - dy * S) >> 16) + cx, v = ((dx * S + dy * C) >> 16) + cy;
    *xs = (int)(u < 0 ? 0 : u >= w ? w - 1 : u);
    *ys = (int)(v < 0 ? 0 : v >= h ? h - 1 : v);
}

/* Registers: the same job built with __launch_bounds__(256, minb) for minb in {1, 2, 4, 6, 8}. out[t] for
 * t < threads from in[k * threads + t], k < LM_REG_WORDS. */
int lm_regs(uint32_t *out, const uint32_t *in, int threads, int minb, gp_stream_t s);
/* Registers, local (spill) bytes per thread and resident 256-thread blocks per SM of each build. */
int lm_regs_attr(int minb, int *regs, int *local_bytes, int *blocks_per_sm);
/* The block-size sweep's copy kernel: resident blocks per SM at `block` threads. */
int lm_copy_occupancy(int block, int *blocks_per_sm);
/* The host's reference of one thread of lm_regs. */
uint32_t lm_regs_ref(const uint32_t *in, int threads, int t);

/* Divergence: mode 0 every thread path a; 1 branch on lane parity; 2 branch on warp parity; 3 both paths computed,
 * one selected by lane parity (no branch). out[t] for t < grid * 256. */
int lm_diverge(uint32_t *out, int mode, int iters, int grid, gp_stream_t s);

/* Atomics: n increments onto counters[i % addresses]: 0 global atomicAdd, 1 shared counters per block flushed with
 * one global atomicAdd per counter (addresses <= 8192), 2 warp-aggregated (one atomic per warp and address run). */
int lm_atomics(uint32_t *counters, size_t n, int addresses, int mode, gp_stream_t s);

/* Staircase: chain[cycle[k] * 32] = cycle[k + 1] * 32 (the cycle's lines are 128 bytes apart). */
int lm_chain(uint32_t *chain, const uint32_t *cycle, size_t lines, gp_stream_t s);
/* Staircase: one thread follows chain for `steps` steps from *end (set it to 0 for a checked run) and writes where it
 * ends to *end, so that the next run goes on where this one stopped. */
int lm_chase(const uint32_t *chain, int steps, uint32_t *end, gp_stream_t s);
/* Reads 16-byte words of the first words16 (a power of two) of buf and adds every 32-bit lane into *sum (u32, zeroed
 * here). passes 0: (loads / grid) * grid words, block b the (loads / grid) from b * (loads / grid) on, modulo words16
 * — each SM sweeps the whole working set when it is small (what a cache level serves). passes 1: `loads` words (a
 * multiple of words16) in whole passes over the set, the grid striding through each (past the L2: device memory). */
int lm_stream_read(const uint32_t *buf, size_t words16, size_t loads, uint32_t *sum, int grid, int passes,
                   gp_stream_t s);

#ifdef __cplusplus
}
#endif
#endif
