/*
 * jit_kernels.cuh — the kernels of a user operator's module, compiled by NVRTC at run time (src/jit/uop.c embeds
 * this text after a generated preamble; it is never compiled by nvcc). The preamble defines:
 *   GPJ_K           components per element of the binary op (its value is GPJ_S: GPJ_K values of GPJ_T)
 *   GPJ_IN          the storage type of one input component; gpj_in(GPJ_IN) -> GPJ_T widens it (f16 / bf16 -> float)
 *   gpj_comb(a, b, r), gpj_ident(r)         the binary op (GPJ_BINARY)
 *   GPJ_XIN, GPJ_XT, GPJ_UT, GPJ_OUT; gpj_xin, gpj_map, gpj_out    the map (GPJ_MAP)
 *   GPJ_TR          transform-reduce: the tile tree's elements are gpj_map(gpj_xin(x[i])), x of GPJ_XIN
 *   GPJ_COMM        1: the tile tree of docs/design/reduce.md (gp_reduce's); 0: the ordered tree (gp_reduce_ordered's)
 * Kernels are extern "C" (looked up by name): gpj_reduce (either tree, last-block guard; not in a segmented module,
 * GPJ_SEGM, whose kernel is jit_seg.cuh's) and gpj_transform.
 */
#define GPJ_LANES 256
#define GPJ_VECS 16
/* Launched as a programmatic dependent (sm_90, as gp_reduce): wait for the previous kernel on the stream before
 * touching memory, and let the next such launch be scheduled meanwhile. No-ops without the launch attribute. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPJ_PDL()                                                                                                  \
    do {                                                                                                           \
        asm volatile("griddepcontrol.wait;" ::: "memory");                                                         \
        asm volatile("griddepcontrol.launch_dependents;" ::: "memory");                                            \
    } while (0)
#else
#define GPJ_PDL() ((void)0)
#endif

#if defined(GPJ_BINARY)
struct GPJ_S {
    GPJ_T v[GPJ_K];
};

__device__ __forceinline__ GPJ_S gpj_c(const GPJ_S &a, const GPJ_S &b)
{
    GPJ_S r;
    gpj_comb(a.v, b.v, r.v);
    return r;
}
__device__ __forceinline__ GPJ_S gpj_id()
{
    GPJ_S r;
    gpj_ident(r.v);
    return r;
}
template <typename V> __device__ __forceinline__ V gpj_shfl(V v, int o)
{
    if (sizeof(V) < 4) return (V)__shfl_down_sync(0xffffffffu, (int)v, o);
    return __shfl_down_sync(0xffffffffu, v, o);
}
__device__ __forceinline__ GPJ_S gpj_shfl_s(const GPJ_S &s, int o)
{
    GPJ_S t;
#pragma unroll
    for (int c = 0; c < GPJ_K; c++) t.v[c] = gpj_shfl(s.v[c], o);
    return t;
}
/* entries other blocks wrote (after their fence and ticket): loads that skip the L1 */
/* The primers' last-block guard: publish (fence), take a ticket; true in the block that finished last (all threads
 * call it; the entries the others wrote are visible to it after the second fence). */
__device__ __forceinline__ bool gpj_last_block(unsigned *counter)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}
__device__ __forceinline__ GPJ_S gpj_get(const GPJ_S *p, size_t k)
{
    const volatile GPJ_T *q = (const volatile GPJ_T *)(p + k);
    GPJ_S s;
#pragma unroll
    for (int c = 0; c < GPJ_K; c++) s.v[c] = q[c];
    return s;
}

#if defined(GPJ_SCAN)
/* a scan module: jit_scan.cuh follows (after scan_lb.cuh) */
#elif GPJ_COMM
/* ------------------------------------------------------------------ the tile tree (reduce_internal.h) */
#ifdef GPJ_TR
typedef GPJ_XIN GPJ_E; /* one input element */
__device__ __forceinline__ GPJ_S gpj_make(const GPJ_E *p)
{
    GPJ_S s;
    s.v[0] = gpj_map(gpj_xin(*p));
    return s;
}
#define GPJ_ES ((int)sizeof(GPJ_XIN))
#else
struct GPJ_E {
    GPJ_IN c[GPJ_K];
};
__device__ __forceinline__ GPJ_S gpj_make(const GPJ_E *p)
{
    GPJ_S s;
#pragma unroll
    for (int c = 0; c < GPJ_K; c++) s.v[c] = gpj_in(p->c[c]);
    return s;
}
#define GPJ_ES ((int)sizeof(GPJ_IN) * GPJ_K)
#endif
#define GPJ_W (16 / GPJ_ES)
#define GPJ_TILE ((size_t)GPJ_LANES * GPJ_VECS * GPJ_W)

/* warp-shuffle tree in each warp, then the eight warp results pairwise; valid in thread 0; all threads call it */
__device__ GPJ_S gpj_block_tree(GPJ_S s)
{
    __shared__ GPJ_S warp_res[GPJ_LANES / 32];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s = gpj_c(s, gpj_shfl_s(s, o));
    if ((threadIdx.x & 31) == 0) warp_res[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        GPJ_S w[GPJ_LANES / 32];
#pragma unroll
        for (int i = 0; i < GPJ_LANES / 32; i++) w[i] = warp_res[i];
#pragma unroll
        for (int o = GPJ_LANES / 64; o > 0; o >>= 1)
#pragma unroll
            for (int i = 0; i < o; i++) w[i] = gpj_c(w[i], w[i + o]);
        s = w[0];
    }
    __syncthreads();
    return s;
}

#ifndef GPJ_SEGM /* a segmented module (jit_seg.cuh) has its own kernel */
extern "C" __global__ void __launch_bounds__(GPJ_LANES)
    gpj_reduce(const GPJ_E *__restrict__ x, size_t n, size_t ntiles, int aligned, GPJ_S *partials,
               unsigned *counter, GPJ_S *result)
{
    const unsigned l = threadIdx.x;
    GPJ_PDL();
    for (size_t k = blockIdx.x; k < ntiles; k += gridDim.x) {
        GPJ_S s = gpj_id();
        const size_t base = k * GPJ_TILE;
        if (aligned == 2 && base + GPJ_TILE <= n) {
            const uint4 *xv = reinterpret_cast<const uint4 *>(x + base);
#pragma unroll 4
            for (int j = 0; j < GPJ_VECS; j++) {
                const uint4 q = __ldcs(xv + l + (size_t)GPJ_LANES * j);
                const GPJ_E *e = reinterpret_cast<const GPJ_E *>(&q);
#pragma unroll
                for (int w = 0; w < GPJ_W; w++) s = gpj_c(s, gpj_make(e + w));
            }
        } else {
            for (int j = 0; j < GPJ_VECS; j++) {
                const size_t e0 = base + (l + (size_t)GPJ_LANES * j) * GPJ_W;
                for (int w = 0; w < GPJ_W; w++)
                    if (e0 + w < n) s = gpj_c(s, gpj_make(x + e0 + w));
            }
        }
        s = gpj_block_tree(s);
        if (l == 0) partials[k] = s;
    }
    if (!gpj_last_block(counter)) return;
    size_t m = ntiles;
    while (m > 1) { /* levels: groups of 4096 entries, lane l folding entries l, l+256, ... */
        const size_t groups = (m + GPJ_LANES * GPJ_VECS - 1) / (GPJ_LANES * GPJ_VECS);
        for (size_t g = 0; g < groups; g++) {
            GPJ_S s = gpj_id();
            for (int j = 0; j < GPJ_VECS; j++) {
                const size_t e = g * (GPJ_LANES * GPJ_VECS) + (size_t)j * GPJ_LANES + l;
                if (e < m) s = gpj_c(s, gpj_get(partials, e));
            }
            s = gpj_block_tree(s); /* ends with a barrier: group g's reads are done */
            if (l == 0) partials[g] = s;
            __syncthreads();
        }
        m = groups;
    }
    if (l == 0) {
        *result = ntiles ? gpj_get(partials, 0) : gpj_id();
        *counter = 0;
    }
}
#endif

#else
/* ------------------------------------------------------------------ the ordered tree (ordered.cu) */
struct GPJ_E {
    GPJ_IN c[GPJ_K];
};
#define GPJ_ES ((int)sizeof(GPJ_IN) * GPJ_K)
#define GPJ_R (256 / GPJ_ES > 0 ? 256 / GPJ_ES : 1) /* elements per lane's run: 64 words, as gp_reduce_ordered */
#define GPJ_TILE ((size_t)GPJ_LANES * GPJ_R)
struct GPJ_O {
    GPJ_S s;
    int ok; /* 0: no element (lanes past the end): combining with it returns the other side */
};
__device__ __forceinline__ GPJ_O gpj_oc(const GPJ_O &a, const GPJ_O &b)
{
    if (!b.ok) return a;
    if (!a.ok) return b;
    GPJ_O r;
    r.ok = 1;
    r.s = gpj_c(a.s, b.s);
    return r;
}
/* the warp's up-sweep: lane l, a multiple of 2o, takes s[l] o s[l+o] (the warp's fold lands in lane 0) */
__device__ __forceinline__ GPJ_O gpj_warp_fold(GPJ_O s)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        GPJ_O t;
        t.s = gpj_shfl_s(s.s, o);
        t.ok = __shfl_down_sync(0xffffffffu, s.ok, o);
        if ((lane & (2 * o - 1)) == 0) s = gpj_oc(s, t);
    }
    return s;
}
/* each warp's up-sweep, then thread 0 folds the warps left to right */
__device__ GPJ_O gpj_block_fold(GPJ_O s)
{
    __shared__ GPJ_O warp_res[GPJ_LANES / 32];
    const int lane = threadIdx.x & 31;
    s = gpj_warp_fold(s);
    if (lane == 0) warp_res[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < GPJ_LANES / 32; w++) s = gpj_oc(s, warp_res[w]);
    __syncthreads();
    return s;
}

#if GPJ_ESZ % 4 == 0
/* (the launcher computes the same size: gp__jit_ordered_smem in jit_run.c) */
/* Word-sized elements: the tile is staged through shared memory (dynamic, GPJ_LANES * GPJ_PITCH words) with coalesced
 * loads — 16-byte vectors for a whole aligned tile, words otherwise — each lane's run of RW words at an odd pitch, so
 * the lanes' reads of their runs fall in different banks (as gp_reduce_ordered stages its tiles). */
#define GPJ_RW (GPJ_R * GPJ_ES / 4)
#define GPJ_PITCH (GPJ_RW | 1)
/* component c of element j of this lane's run, from its words */
__device__ __forceinline__ GPJ_IN gpj_sget(const unsigned *run, int j, int c)
{
    const int b = j * GPJ_ES + c * (int)sizeof(GPJ_IN); /* byte offset in the run */
    GPJ_IN v;
    if (sizeof(GPJ_IN) == 8) {
        const unsigned long long w = (unsigned long long)run[b / 4] | (unsigned long long)run[b / 4 + 1] << 32;
        memcpy(&v, &w, 8);
    } else if (sizeof(GPJ_IN) == 4) {
        memcpy(&v, &run[b / 4], 4);
    } else {
        const unsigned w = run[b / 4] >> (8 * (b % 4));
        if (sizeof(GPJ_IN) == 2) {
            const unsigned short h = (unsigned short)w;
            memcpy(&v, &h, 2);
        } else {
            const unsigned char h = (unsigned char)w;
            memcpy(&v, &h, 1);
        }
    }
    return v;
}
#endif

/* Tile results by direct loads of each lane's run (any element size, any alignment). */
__device__ void gpj_tiles_direct(const GPJ_E *__restrict__ x, size_t n, size_t ntiles, GPJ_S *partials)
{
    const unsigned l = threadIdx.x;
    for (size_t k = blockIdx.x; k < ntiles; k += gridDim.x) {
        GPJ_O s;
        s.ok = 0;
        const size_t first = k * GPJ_TILE + (size_t)l * GPJ_R;
        for (int j = 0; j < GPJ_R; j++) {
            if (first + j < n) {
                GPJ_O e;
                e.ok = 1;
#pragma unroll
                for (int c = 0; c < GPJ_K; c++) e.s.v[c] = gpj_in(__ldg(&x[first + j].c[c]));
                s = gpj_oc(s, e);
            }
        }
        s = gpj_block_fold(s);
        if (l == 0) partials[k] = s.s;
    }
}

#if GPJ_ESZ % 4 == 0
/* Tile results through shared memory (x 4-byte aligned; vec: 16-byte aligned, whole tiles loaded as vectors). */
__device__ void gpj_tiles_staged(const GPJ_E *__restrict__ x, size_t n, size_t ntiles, int vec, GPJ_S *partials)
{
    extern __shared__ unsigned smem[];
    const unsigned l = threadIdx.x;
    const size_t TW = (size_t)GPJ_LANES * GPJ_RW, nw = n * (GPJ_ES / 4); /* words per tile, in x */
    const unsigned *xw = reinterpret_cast<const unsigned *>(x);
    /* software pipeline (as gp_reduce_ordered): the next tile's vectors are in flight, in registers, while this
     * tile is folded from shared memory */
    constexpr int NV = (GPJ_RW + 3) / 4; /* 16-byte vectors per thread per tile (TW / 4 / LANES, rounded up) */
    uint4 q[NV];
    bool have = vec && blockIdx.x < ntiles && nw - blockIdx.x * TW >= TW;
    if (have) {
        const uint4 *xv = reinterpret_cast<const uint4 *>(xw + blockIdx.x * TW);
#pragma unroll
        for (int i = 0; i < NV; i++)
            if (l + (size_t)i * GPJ_LANES < TW / 4) q[i] = __ldcs(xv + l + (size_t)i * GPJ_LANES);
    }
    for (size_t k = blockIdx.x; k < ntiles; k += gridDim.x) {
        if (have) {
#pragma unroll
            for (int i = 0; i < NV; i++) {
                const size_t v = l + (size_t)i * GPJ_LANES, w = 4 * v;
                if (v < TW / 4) {
                    smem[(w + 0) / GPJ_RW * GPJ_PITCH + (w + 0) % GPJ_RW] = q[i].x;
                    smem[(w + 1) / GPJ_RW * GPJ_PITCH + (w + 1) % GPJ_RW] = q[i].y;
                    smem[(w + 2) / GPJ_RW * GPJ_PITCH + (w + 2) % GPJ_RW] = q[i].z;
                    smem[(w + 3) / GPJ_RW * GPJ_PITCH + (w + 3) % GPJ_RW] = q[i].w;
                }
            }
        } else {
            const size_t avail = nw - k * TW < TW ? nw - k * TW : TW;
            for (size_t w = l; w < avail; w += GPJ_LANES)
                smem[w / GPJ_RW * GPJ_PITCH + w % GPJ_RW] = __ldcs(xw + k * TW + w);
        }
        const size_t kn = k + gridDim.x;
        have = vec && kn < ntiles && nw - kn * TW >= TW;
        if (have) {
            const uint4 *xv = reinterpret_cast<const uint4 *>(xw + kn * TW);
#pragma unroll
            for (int i = 0; i < NV; i++)
                if (l + (size_t)i * GPJ_LANES < TW / 4) q[i] = __ldcs(xv + l + (size_t)i * GPJ_LANES);
        }
        __syncthreads();
        GPJ_O s;
        s.ok = 0;
        const size_t first = k * GPJ_TILE + (size_t)l * GPJ_R;
        const unsigned *run = smem + l * GPJ_PITCH;
        for (int j = 0; j < GPJ_R; j++) {
            if (first + j < n) {
                GPJ_O e;
                e.ok = 1;
#pragma unroll
                for (int c = 0; c < GPJ_K; c++) e.s.v[c] = gpj_in(gpj_sget(run, j, c));
                s = gpj_oc(s, e);
            }
        }
        s = gpj_block_fold(s); /* its barriers also end this tile's reads of smem */
        if (l == 0) partials[k] = s.s;
    }
}
#endif

/* aligned: 2 x is 16-byte aligned, 1 4-byte aligned, 0 neither */
#ifndef GPJ_SEGM /* a segmented module (jit_seg.cuh) has its own kernel */
extern "C" __global__ void __launch_bounds__(GPJ_LANES)
    gpj_reduce(const GPJ_E *__restrict__ x, size_t n, size_t ntiles, int aligned, GPJ_S *partials,
               unsigned *counter, GPJ_S *result)
{
    const unsigned l = threadIdx.x;
    GPJ_PDL();
#if GPJ_ESZ % 4 == 0
    if (aligned)
        gpj_tiles_staged(x, n, ntiles, aligned == 2, partials);
    else
#endif
        gpj_tiles_direct(x, n, ntiles, partials);
    if (!gpj_last_block(counter)) return;
    size_t m = ntiles;
    while (m > 1) { /* levels: groups of 256 x R entries, lane l folding its run of R */
        const size_t groups = (m + GPJ_TILE - 1) / GPJ_TILE;
        for (size_t g = 0; g < groups; g++) {
            GPJ_O s;
            s.ok = 0;
            const size_t first = g * GPJ_TILE + (size_t)l * GPJ_R;
            for (int j = 0; j < GPJ_R; j++)
                if (first + j < m) {
                    GPJ_O e;
                    e.ok = 1;
                    e.s = gpj_get(partials, first + j);
                    s = gpj_oc(s, e);
                }
            s = gpj_block_fold(s);
            if (l == 0) partials[g] = s.s;
            __syncthreads();
        }
        m = groups;
    }
    if (l == 0) {
        *result = ntiles ? gpj_get(partials, 0) : gpj_id();
        *counter = 0;
    }
}
#endif
#endif
#endif /* GPJ_BINARY */

#if defined(GPJ_MAP) && !defined(GPJ_TR)
/* y[i] = map(x[i]): four elements per thread per step, grid-stride */
extern "C" __global__ void __launch_bounds__(GPJ_LANES) gpj_transform(const GPJ_XIN *x, GPJ_OUT *y,
                                                                      size_t n)
{
    const size_t stride = (size_t)gridDim.x * GPJ_LANES * 4;
    for (size_t i = (size_t)blockIdx.x * GPJ_LANES * 4 + threadIdx.x; i < n; i += stride) {
        GPJ_XIN v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (i + (size_t)u * GPJ_LANES < n) v[u] = __ldcs(x + i + (size_t)u * GPJ_LANES);
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (i + (size_t)u * GPJ_LANES < n) y[i + (size_t)u * GPJ_LANES] = gpj_out(gpj_map(gpj_xin(v[u])));
    }
}
#endif
