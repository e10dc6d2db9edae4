/*
 * histogram_kernels.cuh — the GPU histogram kernels (CUDA C++ templates, included by the histogram .cu files only).
 *
 * Two independent choices make a kernel:
 *   the binner (how a value becomes a slot; every one gives the bin rule of histogram_internal.h exactly):
 *     IDENT  u8 / u16 whose bins are the values themselves (lo = 0, width 1, all values inside): slot = v;
 *     INT    integer dtypes whose even bins have an integer width (and direct mode): slot = (v - lo) / width in
 *            integer arithmetic (a shift, or a multiply-high by a 64-bit reciprocal);
 *     F32    u8, u16, f32: the bin estimated in float with a proven error bound; a value whose estimate lies
 *            within that bound of an edge (and any value outside the range, NaN) is estimated again in double
 *            (F64), and takes the exact rule only if that too is near an edge;
 *     F64    any dtype: the same in double;
 *     RANGE  caller's edges: binary search (the exact rule itself); nearly even edges take F32 / F64 instead, their
 *            margin widened by the edges' distance from even ones (histogram.cu, range_deviation);
 *     LUT    u8 (bins not served by IDENT / INT) and u16 range mode: a table of the slot of every possible value,
 *            built on the host by the rule, read through the read-only cache.
 *   the counting strategy:
 *     GLOBAL   atomics on the global counts;
 *     BLOCK    one shared-memory histogram per block (the primers' privatization), added to the global counts at
 *              the end;
 *     WARP     one shared-memory histogram per warp (fewer same-address collisions), summed per block at the end;
 *     LANE     one column of 16-bit counters per lane (word (slot / 2) * 32 + lane: every lane in its own bank, so
 *              a warp's 32 updates never conflict, whatever the data); flushed before a counter can overflow;
 *     CLUSTER  the bins spread over the distributed shared memory of a thread-block cluster: the block of rank r
 *              holds slots [r * per, (r + 1) * per); every block adds into the owner's memory (map_shared_rank).
 *   GLOBAL, BLOCK, WARP and CLUSTER aggregate a warp whose 32 lanes all hold vectors of one slot (skewed data) into a
 *   single add, so one-bin input does not serialise 32 lanes on one counter.
 * Every kernel reads the input as 16-byte vectors (an unaligned head and the tail element by element), U vectors in
 * flight per thread, grid-stride.
 */
#ifndef GP_HISTOGRAM_KERNELS_CUH
#define GP_HISTOGRAM_KERNELS_CUH

#include "histogram_internal.h"

#include <cooperative_groups.h>
#include <stdint.h>
#include <type_traits>

namespace gph {

namespace cg = cooperative_groups;

enum Kind { K_IDENT = 0, K_INT, K_F32, K_F64, K_RANGE, K_LUT, K_COUNT };
enum { LANE_MAX_SLOTS = 288, LANE_ROWS = (LANE_MAX_SLOTS / 2 + 31) / 32 };

/* Everything a binner needs (host-built, passed by value). */
struct Binner {
    gp__hist_spec_t s; /* the exact rule (range: edges in device memory) */
    unsigned nb;       /* nbins */
    long long ilo;     /* INT: slot = (v - ilo) / width for 0 <= v - ilo < ispan */
    unsigned long long ispan, imagic; /* imagic = ceil(2^64 / width) when width is not a power of two, else 0 */
    int ishift;                       /* width = 2^ishift when imagic == 0 */
    float flo, fscale, fhalf;         /* F32 estimate (v - flo) * fscale; trusted when |fraction - 1/2| < fhalf */
    double dlo, dscale, dmargin;      /* (fhalf <= 1/2 - margin); F64: fraction in (margin, 1 - margin) */
    const unsigned *lut;              /* LUT: the slot of every u8 / u16 value (device memory) */
};

/* What every launch gets. */
struct Args {
    const void *x;
    size_t n;
    Binner b;
    unsigned long long *c64; /* the global counts: one of the two is set */
    unsigned *c32;
    unsigned per;                /* CLUSTER: slots per rank */
    unsigned long long per_magic; /* ceil(2^64 / per) */
};

constexpr unsigned SLOW = 0xffffffffu; /* the estimate is not trusted: take the exact rule */

/* The slot of x, or SLOW where only the exact rule can tell (F32 / F64 near an edge, outside the range, NaN). */
template <int K, typename T> __device__ __forceinline__ unsigned fast_slot(const Binner &B, T x)
{
    if constexpr (K == K_IDENT) {
        return (unsigned)x;
    } else if constexpr (K == K_INT) {
        if constexpr (sizeof(T) <= 2) {
            const int t = (int)x - (int)B.ilo;
            if ((unsigned)t >= (unsigned)B.ispan) return t < 0 ? B.nb : B.nb + 1;
            const unsigned d = (unsigned)t;
            return B.imagic ? (unsigned)__umul64hi(d, B.imagic) : d >> B.ishift;
        } else {
            const long long t = (long long)x - B.ilo;
            if ((unsigned long long)t >= B.ispan) return t < 0 ? B.nb : B.nb + 1;
            const unsigned long long d = (unsigned long long)t; /* < 2^32 */
            return B.imagic ? (unsigned)__umul64hi(d, B.imagic) : (unsigned)(d >> B.ishift);
        }
    } else if constexpr (K == K_F32) {
        const float e = ((float)x - B.flo) * B.fscale;
        const float t = __fadd_rd(e, 0x1.8p23f); /* floor(e) + 1.5 * 2^23 for 0 <= e < 2^22 */
        const unsigned b = __float_as_uint(t) - 0x4B400000u;
        const float fr = e - (t - 0x1.8p23f); /* e - floor(e), exact */
        return b < B.nb && fabsf(fr - 0.5f) < B.fhalf ? b : SLOW; /* margin < fr < 1 - margin */
    } else if constexpr (K == K_F64) {
        const double e = ((double)x - B.dlo) * B.dscale;
        const double t = __dadd_rd(e, 0x1.8p52);
        const unsigned long long b = (unsigned long long)__double_as_longlong(t) - 0x4338000000000000ull;
        const double fr = e - (t - 0x1.8p52);
        return b < B.nb && fr > B.dmargin && fr < 1.0 - B.dmargin ? (unsigned)b : SLOW;
    } else if constexpr (K == K_LUT) {
        return __ldg(B.lut + (unsigned)x);
    } else {
        return (unsigned)gp__hist_slot(&B.s, (double)x);
    }
}

/* Where the estimate is not trusted: F32 retries in double (its margin is ~2^29 times narrower), then the exact
 * rule. */
template <int K, typename T> __device__ __noinline__ unsigned slow_slot(const Binner &B, T x)
{
    if constexpr (K == K_F32) {
        const unsigned b = fast_slot<K_F64, T>(B, x);
        if (b != SLOW) return b;
    }
    return (unsigned)gp__hist_slot(&B.s, (double)x);
}

template <int K, typename T> __device__ __forceinline__ unsigned slot(const Binner &B, T x)
{
    const unsigned b = fast_slot<K, T>(B, x);
    if constexpr (K == K_F32 || K == K_F64)
        if (b == SLOW) return slow_slot<K, T>(B, x);
    return b;
}

/* Element i of a 16-byte vector. */
template <typename T> __device__ __forceinline__ T elem(const uint4 &v, int i)
{
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
    if constexpr (sizeof(T) == 1) return (T)((w[i >> 2] >> (8 * (i & 3))) & 0xffu);
    else if constexpr (sizeof(T) == 2) return (T)((w[i >> 1] >> (16 * (i & 1))) & 0xffffu);
    else if constexpr (std::is_same<T, float>::value) return __uint_as_float(w[i]);
    else if constexpr (sizeof(T) == 4) return (T)w[i];
    else {
        return __hiloint2double((int)w[2 * i + 1], (int)w[2 * i]);
    }
}

__device__ __forceinline__ void add_global(const Args &a, unsigned b, unsigned v)
{
    if (a.c64) atomicAdd(a.c64 + b, (unsigned long long)v);
    else atomicAdd(a.c32 + b, v);
}

/* Adds the VN slots of one vector through add(slot, count). agg: the whole warp is here (a full step); when its 32
 * lanes hold only one slot, one lane adds 32 * VN. */
template <int VN, bool AGG, typename Add>
__device__ __forceinline__ void add_vector(const unsigned (&b)[VN], bool full, Add &add)
{
    if constexpr (AGG) {
        if (full) {
            bool same = true;
#pragma unroll
            for (int i = 1; i < VN; i++) same &= b[i] == b[0];
            const unsigned b0 = __shfl_sync(0xffffffffu, b[0], 0);
            if (__all_sync(0xffffffffu, same && b[0] == b0)) {
                if ((threadIdx.x & 31) == 0) add(b0, 32u * VN);
                return;
            }
        }
    }
#pragma unroll
    for (int i = 0; i < VN; i++) add(b[i], 1u);
}

/* Are the elements of the vector all the same bits? */
template <typename T> __device__ __forceinline__ bool raw_same(const uint4 &v)
{
    if constexpr (sizeof(T) == 8) return v.x == v.z && v.y == v.w;
    else {
        const bool words = v.x == v.y && v.y == v.z && v.z == v.w;
        if constexpr (sizeof(T) == 4) return words;
        else if constexpr (sizeof(T) == 2) return words && v.x == __byte_perm(v.x, 0, 0x1010);
        else return words && v.x == __byte_perm(v.x, 0, 0x0000);
    }
}

/* The slots of one 16-byte vector, added through add (aggregated when AGG and the whole warp is here). */
template <int K, typename T, bool AGG, typename Add>
__device__ __forceinline__ void count_vector(const Binner &B, const uint4 &v, bool full, Add &add)
{
    constexpr int VN = 16 / (int)sizeof(T);
    unsigned b[VN];
    if (raw_same<T>(v)) { /* a run of one value (skewed data): one slot for the vector */
        const unsigned b0 = slot<K, T>(B, elem<T>(v, 0));
#pragma unroll
        for (int e = 0; e < VN; e++) b[e] = b0;
    } else {
        bool slow = false;
#pragma unroll
        for (int e = 0; e < VN; e++) {
            b[e] = fast_slot<K, T>(B, elem<T>(v, e));
            slow |= b[e] == SLOW;
        }
        if constexpr (K == K_F32 || K == K_F64) {
            if (slow) /* one divergent branch per vector, not per element */
#pragma unroll
                for (int e = 0; e < VN; e++)
                    if (b[e] == SLOW) b[e] = slow_slot<K, T>(B, elem<T>(v, e));
        } else {
            (void)slow;
        }
    }
    add_vector<VN, AGG>(b, full, add);
}

/* The input's split: an unaligned head (elements before the first 16-byte boundary), nv 16-byte vectors, a tail. */
template <typename T> struct Split {
    const T *x;
    size_t head, nv, tail0;
    __device__ __forceinline__ Split(const Args &a)
    {
        constexpr size_t VN = 16 / sizeof(T);
        x = (const T *)a.x;
        const size_t mis = ((uintptr_t)x & 15) / sizeof(T);
        head = mis ? (a.n < VN - mis ? a.n : VN - mis) : 0;
        nv = (a.n - head) / VN;
        tail0 = head + nv * VN;
    }
};

/* The walk over the input: head and tail elements one by one, then the 16-byte vectors grid-stride, U per thread
 * per step. step() runs after every step (block-uniform: every thread of the block runs the same number). */
template <int K, typename T, int U, bool AGG, typename Add, typename Step>
__device__ __forceinline__ void walk(const Args &a, Add &add, Step &step)
{
    constexpr int VN = 16 / (int)sizeof(T);
    const T *x = (const T *)a.x;
    const size_t n = a.n;
    const size_t mis = ((uintptr_t)x & 15) / sizeof(T);
    const size_t head = mis ? (n < (size_t)VN - mis ? n : (size_t)VN - mis) : 0;
    const size_t nv = (n - head) / VN, tail0 = head + nv * VN;
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < head) add(slot<K, T>(a.b, x[g]), 1u);
    if (g < n - tail0) add(slot<K, T>(a.b, x[tail0 + g]), 1u);
    const uint4 *xv = (const uint4 *)(x + head);
    const size_t chunk = (size_t)blockDim.x * U, stride = (size_t)gridDim.x * chunk;
    for (size_t base = (size_t)blockIdx.x * chunk; base < nv; base += stride) {
        const bool full = base + chunk <= nv;
        uint4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = base + (size_t)u * blockDim.x + threadIdx.x;
            if (full || i < nv) v[u] = __ldg(xv + i);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const size_t i = base + (size_t)u * blockDim.x + threadIdx.x;
            if (full || i < nv) count_vector<K, T, AGG>(a.b, v[u], full, add);
        }
        step();
    }
}

struct NoStep {
    __device__ __forceinline__ void operator()() const {}
};

/* ---- GLOBAL */
template <int K, typename T, int U> __global__ void __launch_bounds__(256) k_global(Args a)
{
    auto add = [&](unsigned b, unsigned v) { add_global(a, b, v); };
    NoStep step;
    walk<K, T, U, true>(a, add, step);
}

/* ---- BLOCK: one shared histogram of nbins + 3 counters per block */
template <int K, typename T, int U> __global__ void __launch_bounds__(512, 2) k_block(Args a)
{
    extern __shared__ unsigned h[];
    const unsigned S = a.b.nb + 3;
    for (unsigned i = threadIdx.x; i < S; i += blockDim.x) h[i] = 0;
    __syncthreads();
    auto add = [&](unsigned b, unsigned v) { atomicAdd(h + b, v); };
    NoStep step;
    walk<K, T, U, true>(a, add, step);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < S; i += blockDim.x)
        if (h[i]) add_global(a, i, h[i]);
}

/* ---- WARP: one shared histogram per warp, summed per block at the end */
template <int K, typename T, int U> __global__ void __launch_bounds__(256) k_warp(Args a)
{
    extern __shared__ unsigned h[];
    const unsigned S = a.b.nb + 3, warps = blockDim.x / 32;
    for (unsigned i = threadIdx.x; i < S * warps; i += blockDim.x) h[i] = 0;
    __syncthreads();
    unsigned *hw = h + (threadIdx.x / 32) * S;
    auto add = [&](unsigned b, unsigned v) { atomicAdd(hw + b, v); };
    NoStep step;
    walk<K, T, U, true>(a, add, step);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < S; i += blockDim.x) {
        unsigned t = 0;
        for (unsigned w = 0; w < warps; w++) t += h[w * S + i];
        if (t) add_global(a, i, t);
    }
}

/* ---- LANE: per-lane columns of 16-bit counters (word (slot >> 1) * 32 + lane, half slot & 1) */
template <int K, typename T, int U, bool ATOMIC> __global__ void __launch_bounds__(128) k_lane(Args a)
{
    extern __shared__ unsigned h[];
    constexpr int VN = 16 / (int)sizeof(T);
    /* a lane adds at most U * VN per step and 2 before the first: flush before a 16-bit counter can pass 65535 */
    constexpr unsigned CAP = (65535u - 2u) / (unsigned)(U * VN);
    const unsigned S = a.b.nb + 3, R = (S + 1) / 2, warps = blockDim.x / 32, lane = threadIdx.x & 31;
    unsigned *region = h + (threadIdx.x / 32) * R * 32;
    unsigned *hl = region + lane;
    for (unsigned i = threadIdx.x; i < R * 32 * warps; i += blockDim.x) h[i] = 0;
    __syncthreads();
    auto add = [&](unsigned b, unsigned v) { /* v == 1: the walk does not aggregate here */
        unsigned *p = hl + ((b >> 1) << 5);
        const unsigned inc = v << ((b & 1) << 4);
        if constexpr (ATOMIC) atomicAdd(p, inc);
        else *p += inc; /* the lane's own word: no other thread touches it until the flush */
    };
    /* Sums the warps' columns into the global counts and clears them (every thread of the block calls it). */
    auto flush = [&]() {
        __syncwarp(); /* the lanes read each other's columns */
        unsigned lo[LANE_ROWS], hi[LANE_ROWS];
#pragma unroll
        for (int m = 0; m < LANE_ROWS; m++) {
            lo[m] = hi[m] = 0;
            const unsigned r = lane + 32u * m;
            if (r < R)
                for (unsigned j = 0; j < 32; j++) {
                    const unsigned w = region[r * 32 + ((j + lane) & 31)]; /* rotated: conflict-free */
                    lo[m] += w & 0xffffu;
                    hi[m] += w >> 16;
                }
        }
        __syncthreads();
#pragma unroll
        for (int m = 0; m < LANE_ROWS; m++) {
            const unsigned r = lane + 32u * m;
            if (r < R) {
                region[2 * r] = lo[m]; /* 2r + 1 < 2R <= 32R: inside the region */
                region[2 * r + 1] = hi[m];
            }
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < S; i += blockDim.x) {
            unsigned t = 0;
            for (unsigned w = 0; w < warps; w++) t += h[w * R * 32 + i];
            if (t) add_global(a, i, t);
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < R * 32 * warps; i += blockDim.x) h[i] = 0;
        __syncthreads();
    };
    unsigned steps = 0;
    auto step = [&]() {
        if (++steps == CAP) {
            flush();
            steps = 0;
        }
    };
    walk<K, T, U, false>(a, add, step);
    flush();
}

/* ---- BLOCK_BULK: BLOCK fed by the Hopper bulk-copy engine: tiles of the input stream into a ring of shared-memory
 * stages (cp.async.bulk, completion on an mbarrier per stage), so the bytes in flight no longer depend on registers. */
constexpr int BULK_STAGES = 4, BULK_VPT = 2; /* stages; 16-byte vectors per thread per tile */

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void bulk_load(unsigned dst, const void *src, unsigned bytes, unsigned bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void bulk_wait(unsigned bar, unsigned phase)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "r"(phase)
                     : "memory");
}

/* Shared memory of k_block_bulk: the stages, their barriers, then the histogram. */
__host__ __device__ constexpr size_t bulk_stage_bytes(int threads) { return (size_t)threads * BULK_VPT * 16; }
__host__ __device__ constexpr size_t bulk_prefix_bytes(int threads)
{
    return bulk_stage_bytes(threads) * BULK_STAGES + 8 * BULK_STAGES;
}

template <int K, typename T> __global__ void __launch_bounds__(512, 2) k_block_bulk(Args a)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned TV = blockDim.x * BULK_VPT; /* vectors per tile */
    const size_t stage_bytes = (size_t)TV * 16;
    unsigned long long *bars = (unsigned long long *)(smem + stage_bytes * BULK_STAGES);
    unsigned *h = (unsigned *)(bars + BULK_STAGES);
    const unsigned S = a.b.nb + 3;
    for (unsigned i = threadIdx.x; i < S; i += blockDim.x) h[i] = 0;
    const Split<T> sp(a);
    const uint4 *xv = (const uint4 *)(sp.x + sp.head);
    const size_t ntiles = (sp.nv + TV - 1) / TV;
    const unsigned stage0 = smem_addr(smem), bar0 = smem_addr(bars);
    auto issue = [&](size_t t, int st) { /* tile t into stage st (thread 0) */
        const size_t v0 = t * TV, nvt = sp.nv - v0 < TV ? sp.nv - v0 : TV;
        bulk_load(stage0 + (unsigned)(st * stage_bytes), xv + v0, (unsigned)(nvt * 16), bar0 + 8u * st);
    };
    if (threadIdx.x == 0) {
        for (int st = 0; st < BULK_STAGES; st++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0 + 8u * st) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int st = 0; st < BULK_STAGES; st++) {
            const size_t t = blockIdx.x + (size_t)st * gridDim.x;
            if (t < ntiles) issue(t, st);
        }
    auto add = [&](unsigned b, unsigned v) { atomicAdd(h + b, v); };
    const size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < sp.head) add(slot<K, T>(a.b, sp.x[g]), 1u);
    if (g < a.n - sp.tail0) add(slot<K, T>(a.b, sp.x[sp.tail0 + g]), 1u);
    unsigned k = 0;
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x, k++) {
        const int st = (int)(k % BULK_STAGES);
        bulk_wait(bar0 + 8u * st, (k / BULK_STAGES) & 1u);
        const size_t v0 = t * TV, nvt = sp.nv - v0 < TV ? sp.nv - v0 : TV;
        const bool full = nvt == TV;
        const uint4 *tile = (const uint4 *)(smem + st * stage_bytes);
#pragma unroll
        for (int u = 0; u < BULK_VPT; u++) {
            const unsigned i = u * blockDim.x + threadIdx.x;
            if (full || i < nvt) {
                const uint4 v = tile[i];
                count_vector<K, T, true>(a.b, v, full, add);
            }
        }
        __syncthreads(); /* every thread is done with this stage: refill it */
        if (threadIdx.x == 0) {
            const size_t tn = t + (size_t)BULK_STAGES * gridDim.x;
            if (tn < ntiles) {
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                issue(tn, st);
            }
        }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < S; i += blockDim.x)
        if (h[i]) add_global(a, i, h[i]);
}

/* ---- CLUSTER: the slots spread over the shared memory of the cluster's blocks; remote adds are
 * red.shared::cluster on 32-bit cluster-window addresses (mapa), no generic addressing. */
template <int K, typename T, int U> __global__ void __launch_bounds__(1024) k_cluster(Args a)
{
    extern __shared__ unsigned h[];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned per = a.per, S = a.b.nb + 3, rank = cl.block_rank();
    const unsigned base = (unsigned)__cvta_generic_to_shared(h);
    for (unsigned i = threadIdx.x; i < per; i += blockDim.x) h[i] = 0;
    cl.sync();
    auto add = [&](unsigned b, unsigned v) {
        const unsigned r = (unsigned)__umul64hi((unsigned long long)b, a.per_magic); /* b / per */
        unsigned remote;
        asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(base + 4u * (b - r * per)), "r"(r));
        asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(v) : "memory");
    };
    NoStep step;
    walk<K, T, U, true>(a, add, step);
    cl.sync(); /* every block's adds into this block are done (barrier.cluster: release / acquire) */
    for (unsigned i = threadIdx.x; i < per; i += blockDim.x) {
        const unsigned b = rank * per + i;
        if (b < S && h[i]) add_global(a, b, h[i]);
    }
}

} // namespace gph

#endif
