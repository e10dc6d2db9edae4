/*
 * reduce.cu — the production reduction: one launch of a persistent, balanced grid over the fixed tile tree of
 * reduce_internal.h, 16-byte loads where x is 16-byte aligned (scalar loads in the same element order otherwise),
 * and the primers' last-block guard: the block that finishes last folds the tile results level by level and writes
 * the gp_reduce_result_t. Templated over (op, dtype); the CPU backend (reduce_cpu.c) computes the same tree.
 */
#include "reduce_internal.h"

#include <cuda_fp16.h>

#include <stdint.h>
#include <type_traits>

namespace {

struct f16_t {
    unsigned short b;
};
struct bf16_t {
    unsigned short b;
};
/* The same bits read, accumulated in double (gp_reduce_acc with GP_F64). */
struct f16w_t {
    unsigned short b;
};
struct bf16w_t {
    unsigned short b;
};
struct f32w_t {
    float v;
};

/* The value domain of each dtype: integers widen to 64 bits, f16/bf16 to float. */
template <typename T> struct Val;
template <> struct Val<uint8_t> { typedef unsigned long long type; };
template <> struct Val<uint16_t> { typedef unsigned long long type; };
template <> struct Val<uint32_t> { typedef unsigned long long type; };
template <> struct Val<unsigned long long> { typedef unsigned long long type; };
template <> struct Val<int8_t> { typedef long long type; };
template <> struct Val<int16_t> { typedef long long type; };
template <> struct Val<int32_t> { typedef long long type; };
template <> struct Val<long long> { typedef long long type; };
template <> struct Val<f16_t> { typedef float type; };
template <> struct Val<bf16_t> { typedef float type; };
template <> struct Val<float> { typedef float type; };
template <> struct Val<double> { typedef double type; };
template <> struct Val<f16w_t> { typedef double type; };
template <> struct Val<bf16w_t> { typedef double type; };
template <> struct Val<f32w_t> { typedef double type; };

template <typename T> __device__ __forceinline__ typename Val<T>::type to_val(T x) { return (typename Val<T>::type)x; }
template <> __device__ __forceinline__ float to_val<f16_t>(f16_t x) { return __half2float(__ushort_as_half(x.b)); }
template <> __device__ __forceinline__ float to_val<bf16_t>(bf16_t x) { return __uint_as_float((unsigned)x.b << 16); }
template <> __device__ __forceinline__ double to_val<f16w_t>(f16w_t x) { return __half2float(__ushort_as_half(x.b)); }
template <> __device__ __forceinline__ double to_val<bf16w_t>(bf16w_t x)
{
    return __uint_as_float((unsigned)x.b << 16);
}
template <> __device__ __forceinline__ double to_val<f32w_t>(f32w_t x) { return x.v; }

/* The dtype's bits, zero-extended (and/or/xor). */
template <typename T> __device__ __forceinline__ unsigned long long bits_of(T x)
{
    if (sizeof(T) == 1) return *(const unsigned char *)&x;
    if (sizeof(T) == 2) return *(const unsigned short *)&x;
    if (sizeof(T) == 4) return *(const unsigned int *)&x;
    return *(const unsigned long long *)&x;
}

template <typename V> __device__ __forceinline__ bool is_nan(V v) { return v != v; }

template <typename V> struct Lim;
template <> struct Lim<float> {
    static __device__ float hi() { return __int_as_float(0x7f800000); }
    static __device__ float lo() { return __int_as_float((int)0xff800000u); }
};
template <> struct Lim<double> {
    static __device__ double hi() { return __longlong_as_double(0x7ff0000000000000ll); }
    static __device__ double lo() { return __longlong_as_double((long long)0xfff0000000000000ull); }
};
template <> struct Lim<long long> {
    static __device__ long long hi() { return 0x7fffffffffffffffll; }
    static __device__ long long lo() { return (long long)0x8000000000000000ull; }
};
template <> struct Lim<unsigned long long> {
    static __device__ unsigned long long hi() { return ~0ull; }
    static __device__ unsigned long long lo() { return 0ull; }
};

__host__ __device__ constexpr bool bitwise_op(int op) { return op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR; }
__host__ __device__ constexpr bool arg_op(int op) { return op == GP_REDUCE_ARGMIN || op == GP_REDUCE_ARGMAX; }

/* One reduction: the state type S, its identity, how an element enters it, how two combine, how they move. */
template <int OP, typename T> struct Red {
    typedef typename Val<T>::type V;
    /* Integer sums and products wrap in unsigned arithmetic; bitwise ops and counts work on 64-bit words. */
    static constexpr bool wordy = bitwise_op(OP) || OP == GP_REDUCE_COUNT_NONZERO ||
                                  ((OP == GP_REDUCE_SUM || OP == GP_REDUCE_PROD) && sizeof(V) == 8 &&
                                   (V)(-1) < (V)0 && (V)0.5 == (V)0);
    typedef typename std::conditional<bitwise_op(OP) || OP == GP_REDUCE_COUNT_NONZERO, unsigned long long,
                                      typename std::conditional<wordy, unsigned long long, V>::type>::type SV;
    struct S {
        SV v, v2;
        long long i;
    };

    static __device__ __forceinline__ S identity()
    {
        S s;
        s.i = 0x7fffffffffffffffll;
        s.v2 = 0;
        switch (OP) {
        case GP_REDUCE_SUM: s.v = std::is_floating_point<SV>::value ? (SV)-0.0 : (SV)0; break; /* -0.0 + x == x */
        case GP_REDUCE_PROD: s.v = (SV)1; break;
        case GP_REDUCE_MIN:
        case GP_REDUCE_ARGMIN: s.v = (SV)Lim<V>::hi(); break;
        case GP_REDUCE_MAX:
        case GP_REDUCE_ARGMAX: s.v = (SV)Lim<V>::lo(); break;
        case GP_REDUCE_MINMAX:
            s.v = (SV)Lim<V>::hi();
            s.v2 = (SV)Lim<V>::lo();
            break;
        default: s.v = 0;
        }
        if constexpr (OP == GP_REDUCE_AND) s.v = ~0ull;
        return s;
    }

    static __device__ __forceinline__ S make(T x, long long idx)
    {
        S s;
        s.i = idx;
        if (bitwise_op(OP)) {
            s.v = (SV)bits_of(x);
        } else if (OP == GP_REDUCE_COUNT_NONZERO) {
            s.v = to_val(x) != (V)0 ? 1 : 0;
        } else {
            s.v = (SV)to_val(x);
        }
        s.v2 = s.v;
        return s;
    }

    static __device__ __forceinline__ SV vmin(SV a, SV b) { return is_nan(a) ? a : is_nan(b) ? b : (b < a ? b : a); }
    static __device__ __forceinline__ SV vmax(SV a, SV b) { return is_nan(a) ? a : is_nan(b) ? b : (b > a ? b : a); }

    /* a holds lower lanes / indices, b higher. */
    static __device__ __forceinline__ S combine(S a, S b)
    {
        if constexpr (bitwise_op(OP)) {
            a.v = OP == GP_REDUCE_AND ? (a.v & b.v) : OP == GP_REDUCE_OR ? (a.v | b.v) : (a.v ^ b.v);
            return a;
        }
        switch (OP) {
        case GP_REDUCE_SUM:
        case GP_REDUCE_COUNT_NONZERO: a.v = a.v + b.v; return a;
        case GP_REDUCE_PROD: a.v = a.v * b.v; return a;
        case GP_REDUCE_MIN: a.v = vmin(a.v, b.v); return a;
        case GP_REDUCE_MAX: a.v = vmax(a.v, b.v); return a;
        case GP_REDUCE_MINMAX:
            a.v = vmin(a.v, b.v);
            a.v2 = vmax(a.v2, b.v2);
            return a;
        default: { /* argmin / argmax: NaN wins, then the extreme, then the smaller index */
            const bool an = is_nan(a.v), bn = is_nan(b.v);
            if (an != bn) return an ? a : b;
            if (!an) {
                if (OP == GP_REDUCE_ARGMIN ? b.v < a.v : b.v > a.v) return b;
                if (OP == GP_REDUCE_ARGMIN ? a.v < b.v : a.v > b.v) return a;
            }
            return b.i < a.i ? b : a;
        }
        }
    }

    static __device__ __forceinline__ S shfl_down(S s, int o)
    {
        S t;
        t.v = __shfl_down_sync(0xffffffffu, s.v, o);
        t.v2 = OP == GP_REDUCE_MINMAX ? __shfl_down_sync(0xffffffffu, s.v2, o) : t.v;
        t.i = arg_op(OP) ? __shfl_down_sync(0xffffffffu, s.i, o) : 0;
        return t;
    }

    /* Tile results live in 8-byte slots: v, then v2 (minmax) or the index (argmin/argmax). */
    static constexpr int SLOTS = (OP == GP_REDUCE_MINMAX || arg_op(OP)) ? 2 : 1;
    static __device__ __forceinline__ void put(unsigned long long *p, size_t k, const S &s)
    {
        unsigned long long w = 0;
        memcpy(&w, &s.v, sizeof s.v);
        p[SLOTS * k] = w;
        if (OP == GP_REDUCE_MINMAX) {
            w = 0;
            memcpy(&w, &s.v2, sizeof s.v2);
            p[2 * k + 1] = w;
        }
        if (arg_op(OP)) p[2 * k + 1] = (unsigned long long)s.i;
    }
    static __device__ __forceinline__ S get(const unsigned long long *p, size_t k)
    {
        S s;
        unsigned long long w = __ldcg(p + SLOTS * k);
        memcpy(&s.v, &w, sizeof s.v);
        s.v2 = s.v;
        s.i = 0;
        if (OP == GP_REDUCE_MINMAX) {
            w = __ldcg(p + 2 * k + 1);
            memcpy(&s.v2, &w, sizeof s.v2);
        }
        if (arg_op(OP)) s.i = (long long)__ldcg(p + 2 * k + 1);
        return s;
    }
};

/* The in-block tree of reduce_internal.h; the result is valid in thread 0. Every thread must call it. */
template <int OP, typename T> __device__ typename Red<OP, T>::S block_tree(typename Red<OP, T>::S s)
{
    typedef Red<OP, T> R;
    __shared__ typename R::S warp_res[GP__REDUCE_LANES / 32];
    for (int o = 16; o > 0; o >>= 1) s = R::combine(s, R::shfl_down(s, o));
    if ((threadIdx.x & 31) == 0) warp_res[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        typename R::S w[GP__REDUCE_LANES / 32];
#pragma unroll
        for (int i = 0; i < GP__REDUCE_LANES / 32; i++) w[i] = warp_res[i];
#pragma unroll
        for (int o = GP__REDUCE_LANES / 64; o > 0; o >>= 1)
#pragma unroll
            for (int i = 0; i < o; i++) w[i] = R::combine(w[i], w[i + o]);
        s = w[0];
    }
    __syncthreads();
    return s;
}

/* One group of the levels: lane l folds entries g*4096 + l + 256*j (j = 0..15, those below m) in order, then the
 * in-block tree. The result is valid in thread 0; every thread must call it. */
template <int OP, typename T>
__device__ __forceinline__ typename Red<OP, T>::S fold_group(const unsigned long long *src, size_t m, size_t g)
{
    typedef Red<OP, T> R;
    typename R::S s = R::identity();
#pragma unroll
    for (int j = 0; j < GP__REDUCE_VECS; j++) {
        const size_t e = g * GP__REDUCE_GROUP + (size_t)j * GP__REDUCE_LANES + threadIdx.x;
        if (e < m) s = R::combine(s, R::get(src, e));
    }
    return block_tree<OP, T>(s);
}

/* Tile results of x[0, n) into partials[0, ntiles); element indices count from idx0 (x is element idx0 of the
 * whole array). fold = 1: the last block then folds them level by level and writes *result (one-launch path);
 * fold = 0: the streaming path (gp_reducer), which folds with fold_groups. */
template <int OP, typename T>
__global__ void __launch_bounds__(GP__REDUCE_LANES)
    reduce_tiles(const T *__restrict__ x, size_t n, size_t ntiles, int aligned, unsigned long long *partials,
                 unsigned int *counter, gp_reduce_result_t *result, int acc_dtype, long long idx0, int fold)
{
    typedef Red<OP, T> R;
    typedef typename R::S S;
    constexpr int W = 16 / sizeof(T);
    constexpr size_t TILE = GP__REDUCE_TILE_BYTES / sizeof(T);
    const unsigned l = threadIdx.x;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* Launched as a programmatic dependent (gp_reduce on sm_90): wait here until the previous kernel on the stream
     * has finished and its writes are visible, and let the next such launch be scheduled while this one runs (it
     * waits at this line in turn). Without the launch attribute both are no-ops. */
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    S s = R::identity();
    for (size_t k = blockIdx.x; k < ntiles; k += gridDim.x) {
        s = R::identity();
        const size_t base = k * TILE;
        if (aligned && base + TILE <= n) {
            const uint4 *xv = reinterpret_cast<const uint4 *>(x + base);
#pragma unroll 4
            for (int j = 0; j < GP__REDUCE_VECS; j++) {
                const size_t v = l + (size_t)GP__REDUCE_LANES * j;
                const uint4 q = __ldcs(xv + v);
                const T *e = reinterpret_cast<const T *>(&q);
#pragma unroll
                for (int w = 0; w < W; w++) s = R::combine(s, R::make(e[w], idx0 + (long long)(base + v * W + w)));
            }
        } else {
            /* a partial tile (a short array's only one): its whole vectors loaded four at a time, then combined in
             * the full tile's order, element by element only where the data ends or is unaligned */
            static_assert(GP__REDUCE_VECS % 4 == 0, "groups of four vectors");
            const uint4 *xv = reinterpret_cast<const uint4 *>(x + base);
            for (int j0 = 0; j0 < GP__REDUCE_VECS && base + (size_t)GP__REDUCE_LANES * j0 * W < n; j0 += 4) {
                uint4 q[4];
#pragma unroll
                for (int u = 0; u < 4; u++)
                    if (aligned && base + (l + (size_t)GP__REDUCE_LANES * (j0 + u) + 1) * W <= n)
                        q[u] = __ldcs(xv + l + (size_t)GP__REDUCE_LANES * (j0 + u));
#pragma unroll
                for (int u = 0; u < 4; u++) {
                    const size_t v = l + (size_t)GP__REDUCE_LANES * (j0 + u), e0 = base + v * W;
                    if (aligned && e0 + W <= n) {
                        const T *e = reinterpret_cast<const T *>(&q[u]);
#pragma unroll
                        for (int w = 0; w < W; w++) s = R::combine(s, R::make(e[w], idx0 + (long long)(e0 + w)));
                    } else {
                        for (int w = 0; w < W; w++)
                            if (e0 + w < n) s = R::combine(s, R::make(x[e0 + w], idx0 + (long long)(e0 + w)));
                    }
                }
            }
        }
        s = block_tree<OP, T>(s);
        if (l == 0 && !(fold && ntiles == 1)) R::put(partials, k, s);
    }
    if (!fold) return;

    /* Last-block guard: publish, fence, take a ticket; the last block folds the tile results. A grid of one block
     * (n of one tile) is last by construction: no fence, no ticket. */
    __shared__ bool last;
    if (gridDim.x > 1) {
        if (l == 0) {
            __threadfence();
            last = atomicAdd(counter, 1u) == gridDim.x - 1;
        }
        __syncthreads();
        if (!last) return;
        __threadfence();
    }
    size_t m = ntiles; /* one tile: its result is still in thread 0's s (never stored) */
    while (m > 1) {
        const size_t groups = (m + GP__REDUCE_GROUP - 1) / GP__REDUCE_GROUP;
        for (size_t g = 0; g < groups; g++) {
            const S s = fold_group<OP, T>(partials, m, g); /* ends with a barrier: group g's reads are done */
            if (l == 0) R::put(partials, g, s);
            __syncthreads();
        }
        m = groups;
    }
    if (l == 0) {
        if (ntiles > 1) s = R::get(partials, 0);
        unsigned long long v = 0, v2 = 0;
        memcpy(&v, &s.v, sizeof s.v);
        if (OP == GP_REDUCE_MINMAX) memcpy(&v2, &s.v2, sizeof s.v2);
        result->value.u64 = v;
        result->value2.u64 = v2;
        result->index = arg_op(OP) ? s.i : -1;
        result->acc_dtype = acc_dtype;
        result->op = OP;
        if (gridDim.x > 1) *counter = 0;
    }
}

/* Block g folds group g of src[0, m) into dst[g] (one level of the tree, for gp_reducer). */
template <int OP, typename T>
__global__ void __launch_bounds__(GP__REDUCE_LANES)
    fold_groups(const unsigned long long *__restrict__ src, size_t m, unsigned long long *__restrict__ dst)
{
    typedef Red<OP, T> R;
    const typename R::S s = fold_group<OP, T>(src, m, blockIdx.x);
    if (threadIdx.x == 0) R::put(dst, blockIdx.x, s);
}

/* ------------------------------------------------------------------------------------------ segmented */
#define SEGQ_THREADS GP__REDUCE_LANES
#include "seg_queue.cuh"
/* The warp part of block_tree for one warp: the result is valid in lane 0. */
template <int OP, typename T> __device__ __forceinline__ typename Red<OP, T>::S warp_tree(typename Red<OP, T>::S s)
{
    typedef Red<OP, T> R;
    for (int o = 16; o > 0; o >>= 1) s = R::combine(s, R::shfl_down(s, o));
    return s;
}

/* The value written for a segment: the state's value in the accumulator type (f32 or 64-bit). */
template <int OP, typename T> __device__ __forceinline__ void seg_store(void *out, size_t i, const typename Red<OP, T>::S &s)
{
    typedef typename Red<OP, T>::SV SV;
    if (sizeof(SV) == 4) {
        ((SV *)out)[i] = s.v;
    } else {
        unsigned long long w = 0;
        memcpy(&w, &s.v, sizeof s.v);
        ((unsigned long long *)out)[i] = w;
    }
}

/* The identity written for an empty segment: the API's (sum +0, not the -0 the tree starts from). */
template <int OP, typename T> __device__ __forceinline__ typename Red<OP, T>::S seg_empty()
{
    typedef Red<OP, T> R;
    typedef typename R::V V;
    typename R::S s = R::identity();
    if (OP == GP_REDUCE_SUM) s.v = 0;
    if constexpr (!std::is_floating_point<V>::value) { /* the dtype's extremes, not the 64-bit accumulator's */
        constexpr unsigned long long bits = sizeof(T) == 8 ? ~0ull : (1ull << (8 * sizeof(T))) - 1;
        constexpr bool sgn = (V)(-1) < (V)0;
        const V hi = sgn ? (V)(bits >> 1) : (V)bits, lo = sgn ? -hi - 1 : (V)0;
        if (OP == GP_REDUCE_MIN) s.v = (typename R::SV)hi;
        if (OP == GP_REDUCE_MAX) s.v = (typename R::SV)lo;
        if (OP == GP_REDUCE_AND) s.v = bits;
    }
    return s;
}

/* The block path of a segment (or chunk) x[b, e): lane l folds the 16-byte groups l, l+256, l+512, ... (16 / sizeof(T)
 * elements each, counted from b) element by element in order, then the block tree (valid in thread 0). Where x + b
 * is 16-byte aligned the groups are single vector loads, four in flight per thread; otherwise scalar loads in the
 * same order. */
template <int OP, typename T>
__device__ __forceinline__ typename Red<OP, T>::S seg_block(const T *__restrict__ x, size_t b, size_t e)
{
    typedef Red<OP, T> R;
    constexpr int W = 16 / sizeof(T);
    constexpr size_t L = GP__REDUCE_LANES;
    typename R::S s = R::identity();
    const size_t nv = (e - b) / W; /* whole groups */
    size_t v = threadIdx.x;
    if (((uintptr_t)(x + b) & 15) == 0) {
        const uint4 *xv = reinterpret_cast<const uint4 *>(x + b);
        for (; v + 3 * L < nv; v += 4 * L) {
            uint4 q[4];
#pragma unroll
            for (int u = 0; u < 4; u++) q[u] = __ldcs(xv + v + u * L);
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const T *t = reinterpret_cast<const T *>(&q[u]);
#pragma unroll
                for (int w = 0; w < W; w++) s = R::combine(s, R::make(t[w], 0));
            }
        }
        for (; v < nv; v += L) {
            const uint4 q = __ldcs(xv + v);
            const T *t = reinterpret_cast<const T *>(&q);
#pragma unroll
            for (int w = 0; w < W; w++) s = R::combine(s, R::make(t[w], 0));
        }
    } else {
        for (; v < nv; v += L) {
            T t[W];
#pragma unroll
            for (int w = 0; w < W; w++) t[w] = x[b + v * W + w];
#pragma unroll
            for (int w = 0; w < W; w++) s = R::combine(s, R::make(t[w], 0));
        }
    }
    if (v == nv) /* the partial last group: this lane's turn */
        for (size_t i = b + v * W; i < e; i++) s = R::combine(s, R::make(x[i], 0));
    return block_tree<OP, T>(s);
}

/* A large segment reduced by one block alone: chunk results k go to lane k % 256's fold in order, which is exactly
 * the queue path's fold — the same bits. Used when the chunk table is full (offsets that overlap). */
template <int OP, typename T>
__device__ typename Red<OP, T>::S seg_self(const T *__restrict__ x, size_t b, size_t e)
{
    typedef Red<OP, T> R;
    __shared__ typename R::S sh_r;
    typename R::S f = R::identity();
    const size_t nch = (e - b + GP__SEG_CHUNK - 1) / GP__SEG_CHUNK;
    for (size_t k = 0; k < nch; k++) {
        const size_t cb = b + k * GP__SEG_CHUNK;
        const typename R::S r = seg_block<OP, T>(x, cb, cb + GP__SEG_CHUNK < e ? cb + GP__SEG_CHUNK : e);
        if (threadIdx.x == 0) sh_r = r;
        __syncthreads();
        if (threadIdx.x == k % GP__REDUCE_LANES) f = R::combine(f, sh_r);
        __syncthreads();
    }
    return block_tree<OP, T>(f);
}

/* gp_reduce_segmented's policy for seg_queue.cuh: the tree of docs/design/reduce.md over Red<OP, T>. */
template <int OP, typename T> struct SegP {
    typedef Red<OP, T> R;
    typedef typename R::S S;
    typedef T E;
    static constexpr size_t WARP_MAX = GP__SEG_WARP_MAX, CHUNK = GP__SEG_CHUNK;
    /* lane l folds l, l+32, ... (eight loads in flight, folded in order), then the warp's shuffle tree */
    static __device__ __forceinline__ S warp_seg(const T *__restrict__ x, size_t b, size_t e)
    {
        S s = R::identity();
        if (e == b) s = seg_empty<OP, T>();
        size_t i = b + (threadIdx.x & 31);
        for (; i + 7 * 32 < e; i += 8 * 32) {
            T t[8];
#pragma unroll
            for (int u = 0; u < 8; u++) t[u] = x[i + u * 32];
#pragma unroll
            for (int u = 0; u < 8; u++) s = R::combine(s, R::make(t[u], 0));
        }
        for (; i < e; i += 32) s = R::combine(s, R::make(x[i], 0));
        return warp_tree<OP, T>(s);
    }
    static __device__ __forceinline__ S block_seg(const T *__restrict__ x, size_t b, size_t e)
    {
        return seg_block<OP, T>(x, b, e);
    }
    static __device__ __forceinline__ S self(const T *__restrict__ x, size_t b, size_t e)
    {
        return seg_self<OP, T>(x, b, e);
    }
    /* chunk values lane-strided (lane l folds l, l+256, ... in order), then the block tree */
    static __device__ __forceinline__ S fold_parts(void *part, size_t base, size_t m)
    {
        S f = R::identity();
        for (size_t k = threadIdx.x; k < m; k += GP__REDUCE_LANES)
            f = R::combine(f, R::get((const unsigned long long *)part, base + k));
        return block_tree<OP, T>(f);
    }
    static __device__ __forceinline__ void put(void *part, size_t c, const S &s)
    {
        R::put((unsigned long long *)part, c, s);
    }
    static __device__ __forceinline__ void store(void *out, size_t i, const S &s) { seg_store<OP, T>(out, i, s); }
};

template <int OP, typename T>
__global__ void __launch_bounds__(GP__REDUCE_LANES, 8) /* full occupancy: the warp path lives on it */
    reduce_segments(const T *__restrict__ x, size_t n, size_t nseg, const long long *__restrict__ off, void *out,
                    SegQueue *q, unsigned long long *desc, unsigned long long *part, unsigned *cnt, size_t cap)
{
    segq_run<SegP<OP, T>>(x, n, nseg, off, out, q, desc, part, cnt, cap);
}

/* What a dispatched call does: the whole reduction, tile results only, one fold level, or report the entry size. */
enum { MODE_FULL, MODE_TILES, MODE_FOLD, MODE_ENTRY, MODE_SEGMENTED };
struct Args {
    int mode;
    size_t n;
    const void *x;
    gp_reduce_result_t *result;
    int acc;
    cudaStream_t stream;
    long long idx0;
    void *dst;
    size_t *entry_bytes;
    size_t nseg;
    const long long *offsets;
    int wide; /* f16 / bf16 / f32 data accumulated in double */
};

template <int OP, typename T> gp_status_t launch(gp_ctx_t *ctx, const Args &a)
{
    typedef Red<OP, T> R;
    if (a.mode == MODE_ENTRY) {
        *a.entry_bytes = R::SLOTS * 8;
        return GP_OK;
    }
    if (a.mode == MODE_SEGMENTED) {
        if constexpr (R::SLOTS != 1) {
            return gp__error(GP_ERR_INTERNAL, "gp_reduce_segmented: op %d reached the launcher", OP);
        } else {
            /* workspace: the queue, then per chunk a descriptor (segment + 1, chunk index), a result, a counter */
            const size_t cap = 2 * (a.n / GP__SEG_CHUNK) + 2;
            void *ws = NULL;
            gp_status_t st = gp__workspace(ctx, sizeof(SegQueue) + cap * (16 + 8 + 4), &ws);
            if (st != GP_OK) return st;
            char *w = (char *)ws;
            SegQueue *q = (SegQueue *)w;
            unsigned long long *desc = (unsigned long long *)(w + sizeof(SegQueue)), *part = desc + 2 * cap;
            unsigned *cnt = (unsigned *)(part + cap);
            cudaError_t e = cudaMemsetAsync(ws, 0, sizeof(SegQueue) + cap * 16, a.stream);
            if (e == cudaSuccess) e = cudaMemsetAsync(cnt, 0, cap * 4, a.stream);
            if (e != cudaSuccess) return gp__cuda_error(e, "gp_reduce_segmented: clearing the queue", __FILE__, __LINE__);
            const size_t nitems = (a.nseg + SEGQ_PER_ITEM - 1) / SEGQ_PER_ITEM;
            size_t grid = gp__fill_grid(ctx, GP__REDUCE_LANES);
            const size_t work = nitems + a.n / GP__SEG_CHUNK;
            if (grid > work) grid = work ? work : 1;
            reduce_segments<OP, T><<<(unsigned)grid, GP__REDUCE_LANES, 0, a.stream>>>(
                (const T *)a.x, a.n, a.nseg, a.offsets, a.dst, q, desc, part, cnt, cap);
            return GP_CHECK_LAUNCH("gp_reduce_segmented");
        }
    }
    if (a.mode == MODE_FOLD) {
        const size_t groups = (a.n + GP__REDUCE_GROUP - 1) / GP__REDUCE_GROUP;
        fold_groups<OP, T><<<(unsigned)groups, GP__REDUCE_LANES, 0, a.stream>>>(
            (const unsigned long long *)a.x, a.n, (unsigned long long *)a.dst);
        return GP_CHECK_LAUNCH("gp_reducer (fold)");
    }
    const size_t tile = GP__REDUCE_TILE_BYTES / sizeof(T), ntiles = (a.n + tile - 1) / tile;
    /* A persistent grid that gives every block the same number of tiles (no straggler round). */
    const size_t fill = gp__fill_grid(ctx, GP__REDUCE_LANES), per = (ntiles + fill - 1) / fill;
    const unsigned grid = (unsigned)((ntiles + per - 1) / per);
    const int aligned = ((uintptr_t)a.x & 15) == 0;
    if (a.mode == MODE_TILES) {
        reduce_tiles<OP, T><<<grid, GP__REDUCE_LANES, 0, a.stream>>>(
            (const T *)a.x, a.n, ntiles, aligned, (unsigned long long *)a.dst, NULL, NULL, a.acc, a.idx0, 0);
        return GP_CHECK_LAUNCH("gp_reducer (tiles)");
    }
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, ntiles * R::SLOTS * 8 + 64, &ws);
    if (st != GP_OK) return st;
    /* On sm_90 a programmatic dependent launch: a chain of calls (a captured graph above all) overlaps each
     * kernel's launch with the previous one's tail; the kernel waits for the previous one before touching memory. */
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(GP__REDUCE_LANES);
    cfg.stream = a.stream;
    if (ctx->cc_major >= 9) {
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = at;
        cfg.numAttrs = 1;
    }
    const cudaError_t e = cudaLaunchKernelEx(&cfg, reduce_tiles<OP, T>, (const T *)a.x, a.n, ntiles, aligned,
                                             (unsigned long long *)ws, ctx->counters + GP__COUNTER_REDUCE, a.result,
                                             a.acc, 0LL, 1);
    if (e != cudaSuccess) return gp__cuda_error(e, "gp_reduce", __FILE__, __LINE__);
    return GP_CHECK_LAUNCH("gp_reduce");
}

template <typename T> gp_status_t by_op(gp_ctx_t *ctx, gp_reduce_op_t op, const Args &a)
{
    switch (op) {
    case GP_REDUCE_SUM: return launch<GP_REDUCE_SUM, T>(ctx, a);
    case GP_REDUCE_PROD: return launch<GP_REDUCE_PROD, T>(ctx, a);
    case GP_REDUCE_MIN: return launch<GP_REDUCE_MIN, T>(ctx, a);
    case GP_REDUCE_MAX: return launch<GP_REDUCE_MAX, T>(ctx, a);
    case GP_REDUCE_MINMAX: return launch<GP_REDUCE_MINMAX, T>(ctx, a);
    case GP_REDUCE_ARGMIN: return launch<GP_REDUCE_ARGMIN, T>(ctx, a);
    case GP_REDUCE_ARGMAX: return launch<GP_REDUCE_ARGMAX, T>(ctx, a);
    case GP_REDUCE_COUNT_NONZERO: return launch<GP_REDUCE_COUNT_NONZERO, T>(ctx, a);
    default: break;
    }
    if constexpr (!std::is_floating_point<typename Val<T>::type>::value) {
        switch (op) {
        case GP_REDUCE_AND: return launch<GP_REDUCE_AND, T>(ctx, a);
        case GP_REDUCE_OR: return launch<GP_REDUCE_OR, T>(ctx, a);
        case GP_REDUCE_XOR: return launch<GP_REDUCE_XOR, T>(ctx, a);
        default: break;
        }
    }
    return gp__error(GP_ERR_INTERNAL, "gp_reduce: op %d reached the launcher unsupported", (int)op);
}

gp_status_t dispatch(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, const Args &a)
{
    switch (dtype) {
    case GP_U8: return by_op<uint8_t>(ctx, op, a);
    case GP_I8: return by_op<int8_t>(ctx, op, a);
    case GP_U16: return by_op<uint16_t>(ctx, op, a);
    case GP_I16: return by_op<int16_t>(ctx, op, a);
    case GP_U32: return by_op<uint32_t>(ctx, op, a);
    case GP_I32: return by_op<int32_t>(ctx, op, a);
    case GP_U64: return by_op<unsigned long long>(ctx, op, a);
    case GP_I64: return by_op<long long>(ctx, op, a);
    case GP_F16: return a.wide ? by_op<f16w_t>(ctx, op, a) : by_op<f16_t>(ctx, op, a);
    case GP_BF16: return a.wide ? by_op<bf16w_t>(ctx, op, a) : by_op<bf16_t>(ctx, op, a);
    case GP_F32: return a.wide ? by_op<f32w_t>(ctx, op, a) : by_op<float>(ctx, op, a);
    case GP_F64: return by_op<double>(ctx, op, a);
    default: return gp__error(GP_ERR_INVALID_ARG, "gp_reduce: dtype %d", (int)dtype);
    }
}

} // namespace

extern "C" gp_status_t gp__reduce_gpu(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n,
                                      const void *x, gp_reduce_result_t *result, cudaStream_t stream)
{
    const int acc = wide ? (int)GP_F64 : (int)gp_reduce_acc_dtype(op, dtype);
    Args a = {MODE_FULL, n, x, result, acc, stream, 0, NULL, NULL, 0, NULL, wide};
    return dispatch(ctx, op, dtype, a);
}

extern "C" gp_status_t gp__reduce_gpu_tiles(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t n,
                                            const void *x, long long idx0, void *dst, cudaStream_t stream)
{
    Args a = {MODE_TILES, n, x, NULL, 0, stream, idx0, dst, NULL, 0, NULL, wide};
    return dispatch(ctx, op, dtype, a);
}

extern "C" gp_status_t gp__reduce_gpu_fold(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, int wide, size_t m,
                                           const void *src, void *dst, cudaStream_t stream)
{
    Args a = {MODE_FOLD, m, src, NULL, 0, stream, 0, dst, NULL, 0, NULL, wide};
    return dispatch(ctx, op, dtype, a);
}

extern "C" size_t gp__reduce_gpu_entry_bytes(gp_reduce_op_t op, gp_dtype_t dtype, int wide)
{
    size_t b = 0;
    Args a = {MODE_ENTRY, 0, NULL, NULL, 0, NULL, 0, NULL, &b, 0, NULL, wide};
    (void)dispatch(NULL, op, dtype, a);
    return b;
}

extern "C" gp_status_t gp__reduce_gpu_segmented(gp_ctx_t *ctx, gp_reduce_op_t op, gp_dtype_t dtype, size_t n,
                                                const void *x, size_t nseg, const long long *offsets, void *out,
                                                cudaStream_t stream)
{
    Args a = {MODE_SEGMENTED, n, x, NULL, 0, stream, 0, out, NULL, nseg, offsets, 0};
    return dispatch(ctx, op, dtype, a);
}
