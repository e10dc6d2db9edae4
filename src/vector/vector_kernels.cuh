/*
 * vector_kernels.cuh — the vector kernels production runs and falls back to (v04 grid-stride, v09 one 16-byte vector
 * per thread, the dots v10 / v11 and v11's twin v12), as templates; version NN is vec_version<NN> at the end.
 * vector.cu instantiates the production ones (GP__VEC_PRODUCTION_EW, GP__VEC_PRODUCTION_DOT in vector_internal.h);
 * the primers' other versions are the lab's (lab/vector_teaching.cuh), which lab/vector_versions.cu instantiates with
 * these. Include once per .cu (an anonymous namespace).
 *
 * Elementwise ops: copy y = x, scale y = a*x, add z = x + y, triad z = x + a*y over f32, f64, i32.
 * Dot: sum x*y in double (f32, f64) or wrapping 64-bit integers (i32).
 * Units: elements; byte counts for GB/s are the caller's (see gp__vec_op_streams).
 */
#ifndef GP_VECTOR_KERNELS_CUH
#define GP_VECTOR_KERNELS_CUH

#include "vector_internal.h"

#include <stdint.h>

namespace {

/* ---------------------------------------------------------------------------------------------- element ops */
/* Integer arithmetic goes through unsigned so that overflow wraps (signed overflow is undefined in C++). */
__device__ __forceinline__ float add_(float a, float b) { return a + b; }
__device__ __forceinline__ double add_(double a, double b) { return a + b; }
__device__ __forceinline__ int add_(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ float mul_(float a, float b) { return a * b; }
__device__ __forceinline__ double mul_(double a, double b) { return a * b; }
__device__ __forceinline__ int mul_(int a, int b) { return (int)((unsigned)a * (unsigned)b); }

template <int OP, typename T> __device__ __forceinline__ T ew(T x, T y, T a)
{
    if (OP == GP__VEC_COPY) return x;
    if (OP == GP__VEC_SCALE) return mul_(a, x);
    if (OP == GP__VEC_ADD) return add_(x, y);
    return add_(x, mul_(a, y)); /* triad */
}
template <int OP> __host__ __device__ constexpr bool uses_y() { return OP == GP__VEC_ADD || OP == GP__VEC_TRIAD; }

/* 16-byte vectors of each dtype, and ew applied lane by lane. */
template <typename T> struct Vec16;
template <> struct Vec16<float> { typedef float4 type; };
template <> struct Vec16<double> { typedef double2 type; };
template <> struct Vec16<int> { typedef int4 type; };

template <int OP> __device__ __forceinline__ float4 ewv(float4 x, float4 y, float a)
{
    return make_float4(ew<OP>(x.x, y.x, a), ew<OP>(x.y, y.y, a), ew<OP>(x.z, y.z, a), ew<OP>(x.w, y.w, a));
}
template <int OP> __device__ __forceinline__ int4 ewv(int4 x, int4 y, int a)
{
    return make_int4(ew<OP>(x.x, y.x, a), ew<OP>(x.y, y.y, a), ew<OP>(x.z, y.z, a), ew<OP>(x.w, y.w, a));
}
template <int OP> __device__ __forceinline__ double2 ewv(double2 x, double2 y, double a)
{
    return make_double2(ew<OP>(x.x, y.x, a), ew<OP>(x.y, y.y, a));
}

__device__ __forceinline__ size_t gtid() { return (size_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t gstride() { return (size_t)gridDim.x * blockDim.x; }

/* One element at i: the scalar step every version shares (and the vector versions use for head and tail). */
template <int OP, typename T>
__device__ __forceinline__ void ew_at(size_t i, T a, const T *__restrict__ x, const T *__restrict__ y,
                                      T *__restrict__ z)
{
    z[i] = ew<OP>(x[i], uses_y<OP>() ? y[i] : T(0), a);
}

/* ---------------------------------------------------------------------------------------------- v04 */
/* v04: grid-stride loop over a grid that fills the SMs once (SMs x resident blocks). Next: wider accesses. */
template <int OP, typename T>
__global__ void v04_grid_stride(size_t n, T a, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ z)
{
    for (size_t i = gtid(); i < n; i += gstride()) ew_at<OP>(i, a, x, y, z);
}

/* ---------------------------------------------------------------------------------------------- v09 */
/* Vector kernels need x, y, z at the same offset mod 16; `head` scalar elements bring them to a 16-byte boundary,
 * the body moves 16-byte vectors, and a tail of fewer than 16 / sizeof(T) elements remains. */
template <int OP, typename T>
__device__ __forceinline__ void head_tail(size_t n, size_t head, size_t nv, T a, const T *__restrict__ x,
                                          const T *__restrict__ y, T *__restrict__ z)
{
    constexpr size_t W = 16 / sizeof(T);
    const size_t t = gtid(), tail0 = head + nv * W;
    if (t < head) ew_at<OP>(t, a, x, y, z);
    if (t < n - tail0) ew_at<OP>(tail0 + t, a, x, y, z);
}

/* v09: one 16-byte vector per thread and ceil(n / 4 / 256) blocks, no loop: v03's shape with v05's width. Tests
 * whether a persistent grid-stride loop or a flood of short blocks keeps DRAM busier. */
template <int OP, typename T>
__global__ void v09_vec16_per_thread(size_t n, size_t head, T a, const T *__restrict__ x, const T *__restrict__ y,
                                     T *__restrict__ z)
{
    typedef typename Vec16<T>::type V;
    constexpr size_t W = 16 / sizeof(T);
    const size_t nv = (n - head) / W, i = gtid();
    const V *xv = reinterpret_cast<const V *>(x + head), *yv = reinterpret_cast<const V *>(y + head);
    V *zv = reinterpret_cast<V *>(z + head);
    if (i < nv) {
        V yy = uses_y<OP>() ? yv[i] : V();
        zv[i] = ewv<OP>(xv[i], yy, a);
    }
    head_tail<OP>(n, head, nv, a, x, y, z);
}

/* ---------------------------------------------------------------------------------------------- launchers */
template <typename T> T alpha_as(double a) { return (T)a; }

/* Offset of the used pointers mod 16 if they all agree, else -1 (then the vector versions fall back to v04). */
template <int OP, typename T> int common_offset16(const gp__vec_args_t *a)
{
    unsigned ox = (uintptr_t)a->x & 15, oz = (uintptr_t)a->z & 15;
    if (ox != oz) return -1;
    if (uses_y<OP>() && ((uintptr_t)a->y & 15) != ox) return -1;
    return (int)ox;
}

template <int OP, typename T> struct L04 {
    static void run(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
    {
        v04_grid_stride<OP, T><<<gp__fill_grid(ctx, 256), 256, 0, s>>>(
            a->n, alpha_as<T>(a->alpha), (const T *)a->x, (const T *)a->y, (T *)a->z);
    }
};
template <int OP, typename T> size_t head_of(const gp__vec_args_t *a, int off)
{
    size_t head = ((16 - (size_t)off) & 15) / sizeof(T);
    return head < a->n ? head : a->n;
}
template <int OP, typename T> struct L09 {
    static void run(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
    {
        int off = common_offset16<OP, T>(a);
        if (off < 0) return L04<OP, T>::run(ctx, a, s);
        size_t head = head_of<OP, T>(a, off), nv = (a->n - head) / (16 / sizeof(T));
        size_t blocks = (nv + 255) / 256;
        if (blocks == 0) blocks = 1; /* head and tail still need threads */
        v09_vec16_per_thread<OP, T><<<(unsigned)blocks, 256, 0, s>>>(a->n, head, alpha_as<T>(a->alpha),
                                                                    (const T *)a->x, (const T *)a->y, (T *)a->z);
    }
};

template <template <int, typename> class L, typename T>
void dispatch_op(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
{
    switch (a->op) {
    case GP__VEC_COPY: L<GP__VEC_COPY, T>::run(ctx, a, s); break;
    case GP__VEC_SCALE: L<GP__VEC_SCALE, T>::run(ctx, a, s); break;
    case GP__VEC_ADD: L<GP__VEC_ADD, T>::run(ctx, a, s); break;
    case GP__VEC_TRIAD: L<GP__VEC_TRIAD, T>::run(ctx, a, s); break;
    default: break;
    }
}

template <template <int, typename> class L>
gp_status_t launch_ew(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s, const char *name)
{
    if (a->n == 0) return GP_OK;
    switch (a->dtype) {
    case GP_F32: dispatch_op<L, float>(ctx, a, s); break;
    case GP_F64: dispatch_op<L, double>(ctx, a, s); break;
    case GP_I32: dispatch_op<L, int>(ctx, a, s); break;
    default: return gp__error(GP_ERR_UNSUPPORTED, "%s: dtype %s", name, gp_dtype_name(a->dtype));
    }
    return GP_CHECK_LAUNCH(name);
}

/* ---------------------------------------------------------------------------------------------- dot */
template <typename T> struct Acc { typedef double type; };
template <> struct Acc<int> { typedef unsigned long long type; }; /* wraps mod 2^64, bits = int64 result */

__device__ __forceinline__ double prod_(float x, float y) { return (double)x * (double)y; }
__device__ __forceinline__ double prod_(double x, double y) { return x * y; }
__device__ __forceinline__ unsigned long long prod_(int x, int y)
{
    return (unsigned long long)((long long)x * (long long)y);
}

/* Block sum of v (blockDim.x a multiple of 32, at most 1024): shuffles within warps, then the first warp. */
template <typename A> __device__ A block_sum(A v)
{
    __shared__ A warp_sums[32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : A(0);
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads(); /* warp_sums may be reused by a following block_sum */
    return v;
}

/* v10: two kernels, the primers' multi-block reduction: each block reduces its grid-stride share in shared
 * memory (sequential addressing) and writes a partial; a second one-block kernel adds the partials. Next: two
 * launches and 4-byte loads. */
template <typename T>
__global__ void v10_dot_partials(size_t n, const T *__restrict__ x, const T *__restrict__ y,
                                 typename Acc<T>::type *partials)
{
    typedef typename Acc<T>::type A;
    __shared__ A sh[256];
    A acc = 0;
    for (size_t i = gtid(); i < n; i += gstride()) acc += prod_(x[i], y[i]);
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = sh[0];
}
template <typename A> __global__ void v10_dot_final(const A *partials, unsigned count, A *result)
{
    A acc = 0;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0) *result = acc;
}

/* Sum of the lane-wise products of two 16-byte vectors, in the accumulator type. */
template <typename T, typename A, typename V> __device__ __forceinline__ A dot16(V xv, V yv)
{
    const T *xe = reinterpret_cast<const T *>(&xv), *ye = reinterpret_cast<const T *>(&yv);
    A s = 0;
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(T)); k++) s += prod_(xe[k], ye[k]);
    return s;
}

/* The scalar head (before the first 16-byte boundary) and tail (after the last whole vector) of a dot. */
template <typename T, typename A>
__device__ __forceinline__ A dot_head_tail(size_t n, size_t head, size_t nv, const T *__restrict__ x,
                                           const T *__restrict__ y)
{
    const size_t t = gtid(), tail0 = head + nv * (16 / sizeof(T));
    A s = 0;
    if (t < head) s += prod_(x[t], y[t]);
    if (t < n - tail0) s += prod_(x[tail0 + t], y[tail0 + t]);
    return s;
}

/* The primers' last-block guard: thread 0 of each block publishes the block's sum and fences so the partial is
 * visible device-wide before its ticket; the block drawing the last ticket adds all partials in index order (a
 * fixed order for a fixed grid), writes the result and resets the counter for the next launch. Every thread of the
 * block calls it (it holds barriers). */
template <typename A>
__device__ void last_block_sum(A block_total, A *partials, unsigned int *counter, A *result)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    A total = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += __ldcg(partials + b);
    total = block_sum(total);
    if (threadIdx.x == 0) {
        *result = total;
        *counter = 0;
    }
}

/* v11 (U = 1) and v12 (U = 4): one launch. 16-byte loads with U vectors of each input in flight, warp-shuffle block
 * sums, and the primers' last-block guard: each block publishes its partial, fences, takes a ticket; the block that
 * draws the last ticket adds the partials in index order and resets the counter. Bound by DRAM bandwidth at large
 * n, by one launch at small n. */
template <typename T, int U>
__global__ void dot_single_pass(size_t n, size_t head, const T *__restrict__ x, const T *__restrict__ y,
                                    typename Acc<T>::type *partials, unsigned int *counter,
                                    typename Acc<T>::type *result)
{
    typedef typename Acc<T>::type A;
    typedef typename Vec16<T>::type V;
    constexpr size_t W = 16 / sizeof(T);
    const size_t nv = (n - head) / W, s = gstride(), t = gtid();
    const V *xv = reinterpret_cast<const V *>(x + head), *yv = reinterpret_cast<const V *>(y + head);
    A acc = 0;
    size_t i = t;
    for (; U > 1 && i + (U - 1) * s < nv; i += U * s) {
        V xr[U], yr[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            xr[u] = xv[i + u * s];
            yr[u] = yv[i + u * s];
        }
#pragma unroll
        for (int u = 0; u < U; u++) acc += dot16<T, A>(xr[u], yr[u]);
    }
    for (; i < nv; i += s) acc += dot16<T, A>(xv[i], yv[i]);
    acc += dot_head_tail<T, A>(n, head, nv, x, y);

    last_block_sum(block_sum(acc), partials, counter, result);
}

/* Dot workspace: partials at offset 64 (one 8-byte slot per block). */
inline gp_status_t dot_workspace(gp_ctx_t *ctx, unsigned grid, void **partials)
{
    void *ws = NULL;
    gp_status_t st = gp__workspace(ctx, 64 + (size_t)grid * 8, &ws);
    *partials = (char *)ws + 64;
    return st;
}

template <typename T> gp_status_t dot_v10(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
{
    typedef typename Acc<T>::type A;
    const unsigned grid = gp__fill_grid(ctx, 256);
    void *partials = NULL;
    gp_status_t st = dot_workspace(ctx, grid, &partials);
    if (st != GP_OK) return st;
    v10_dot_partials<T><<<grid, 256, 0, s>>>(a->n, (const T *)a->x, (const T *)a->y, (A *)partials);
    v10_dot_final<A><<<1, 1024, 0, s>>>((const A *)partials, grid, (A *)a->z);
    return GP_CHECK_LAUNCH("vector_v10_dot_two_kernel");
}

template <typename T, int U> gp_status_t dot_single(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
{
    typedef typename Acc<T>::type A;
    const unsigned grid = gp__fill_grid(ctx, 256);
    void *partials = NULL;
    gp_status_t st = dot_workspace(ctx, grid, &partials);
    if (st != GP_OK) return st;
    /* x and y at different offsets mod 16 fall back to v10's scalar loads. */
    unsigned ox = (uintptr_t)a->x & 15, oy = (uintptr_t)a->y & 15;
    if (ox != oy) return dot_v10<T>(ctx, a, s);
    size_t head = ((16 - (size_t)ox) & 15) / sizeof(T);
    if (head > a->n) head = a->n;
    dot_single_pass<T, U><<<grid, 256, 0, s>>>(a->n, head, (const T *)a->x, (const T *)a->y, (A *)partials,
                                               ctx->counters + GP__COUNTER_DOT, (A *)a->z);
    return GP_CHECK_LAUNCH(U == 1 ? "vector_v11_dot_single_pass" : "vector_v12_dot_single_pass_ilp");
}

/* ---------------------------------------------------------------------------------------------- versions */
/* Version NN as one entry point, vec_version<NN>(ctx, a, stream): here 04 and 09 elementwise (any of copy scale add
 * triad) and the dots 10-12, the ones production runs or falls back to and their template's twin; the teaching
 * versions' EwOf / DotOf are lab/vector_teaching.cuh's. Only the versions a .cu calls are instantiated there. */
template <int ID> struct EwOf;
constexpr const char *k_ew_names[10] = {"", "vector_v01_single_thread", "vector_v02_single_block",
                                        "vector_v03_thread_per_element", "vector_v04_grid_stride", "vector_v05_vec16",
                                        "vector_v06_vec16_ilp", "vector_v07_vec16_ilp_streaming",
                                        "vector_v08_vec16_streaming", "vector_v09_vec16_per_thread"};
template <> struct EwOf<4> { template <int OP, typename T> using L = L04<OP, T>; };
template <> struct EwOf<9> { template <int OP, typename T> using L = L09<OP, T>; };

template <int ID> struct DotOf;
template <> struct DotOf<10> { template <typename T> static gp_status_t run(gp_ctx_t *c, const gp__vec_args_t *a, cudaStream_t s) { return dot_v10<T>(c, a, s); } };
template <> struct DotOf<11> { template <typename T> static gp_status_t run(gp_ctx_t *c, const gp__vec_args_t *a, cudaStream_t s) { return dot_single<T, 1>(c, a, s); } };
template <> struct DotOf<12> { template <typename T> static gp_status_t run(gp_ctx_t *c, const gp__vec_args_t *a, cudaStream_t s) { return dot_single<T, 4>(c, a, s); } };

template <int ID> gp_status_t vec_version(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
{
    if constexpr (ID < 10) {
        return launch_ew<EwOf<ID>::template L>(ctx, a, s, k_ew_names[ID]);
    } else {
        /* n = 0: the identity, written like any result (every version handles every size). */
        if (a->n == 0) {
            cudaMemsetAsync(a->z, 0, 8, s);
            return GP_CHECK_LAUNCH("vector dot (n = 0)");
        }
        switch (a->dtype) {
        case GP_F32: return DotOf<ID>::template run<float>(ctx, a, s);
        case GP_F64: return DotOf<ID>::template run<double>(ctx, a, s);
        case GP_I32: return DotOf<ID>::template run<int>(ctx, a, s);
        default: return gp__error(GP_ERR_UNSUPPORTED, "vector dot: dtype %s", gp_dtype_name(a->dtype));
        }
    }
}

} // namespace

#endif
