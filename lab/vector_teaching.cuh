/*
 * vector_teaching.cuh — the primers' vector versions production does not run, over src/vector/vector_kernels.cuh's
 * shared pieces: v01-v03 (one thread, one block, one thread per element), v05-v08 (16-byte vectors on a grid-stride
 * loop, with more in flight and streaming hints) and the dot v13 (v11 in v09's shape). Their EwOf / DotOf entries make
 * vec_version<NN> reach them; lab/vector_versions.cu includes this after vector_kernels.cuh.
 */
#ifndef GP_LAB_VECTOR_TEACHING_CUH
#define GP_LAB_VECTOR_TEACHING_CUH

#include "vector/vector_kernels.cuh"

namespace {

/* v01: the primers' add<<<1, 1>>>: one thread walks the whole array. Correct, and latency-bound: one load
 * outstanding at a time. Next: more threads. */
template <int OP, typename T>
__global__ void v01_single_thread(size_t n, T a, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ z)
{
    for (size_t i = 0; i < n; i++) ew_at<OP>(i, a, x, y, z);
}

/* v02: add<<<1, 256>>>: one block strides the array, so a warp's loads coalesce. Bound by one SM's bandwidth.
 * Next: use every SM. */
template <int OP, typename T>
__global__ void v02_single_block(size_t n, T a, const T *__restrict__ x, const T *__restrict__ y, T *__restrict__ z)
{
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) ew_at<OP>(i, a, x, y, z);
}

/* v03: one thread per element, ceil(n / 256) blocks, `if (i < n)`: the primers' final form. Fills the device but
 * pays a block launch per 256 elements and 4-byte accesses. Next: a grid sized from the device. */
template <int OP, typename T>
__global__ void v03_thread_per_element(size_t n, T a, const T *__restrict__ x, const T *__restrict__ y,
                                       T *__restrict__ z)
{
    size_t i = gtid();
    if (i < n) ew_at<OP>(i, a, x, y, z);
}

/* v05..v08 are one kernel with two knobs: U, the 16-byte vectors per input each thread has in flight before its
 * first store, and STREAMING, the evict-first cache hints (ld.global.cs / st.global.cs) for data used once.
 * v05: U = 1, plain: a quarter of v04's memory instructions (LDG.128 / STG.128).
 * v06: U = 4: more bytes in flight per thread (memory-level parallelism).
 * v07: U = 4 with streaming hints.  v08: U = 1 with streaming hints. */
template <typename V, bool STREAMING> __device__ __forceinline__ V ld16(const V *p)
{
    return STREAMING ? __ldcs(p) : *p;
}
template <typename V, bool STREAMING> __device__ __forceinline__ void st16(V *p, V v)
{
    if (STREAMING)
        __stcs(p, v);
    else
        *p = v;
}

template <int OP, typename T, int U, bool STREAMING>
__global__ void vec16_grid_stride(size_t n, size_t head, T a, const T *__restrict__ x, const T *__restrict__ y,
                                  T *__restrict__ z)
{
    typedef typename Vec16<T>::type V;
    constexpr size_t W = 16 / sizeof(T);
    const size_t nv = (n - head) / W, s = gstride();
    const V *xv = reinterpret_cast<const V *>(x + head), *yv = reinterpret_cast<const V *>(y + head);
    V *zv = reinterpret_cast<V *>(z + head);
    size_t i = gtid();
    if (U > 1) {
        for (; i + (U - 1) * s < nv; i += U * s) {
            V xr[U], yr[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                xr[u] = ld16<V, STREAMING>(xv + i + u * s);
                yr[u] = uses_y<OP>() ? ld16<V, STREAMING>(yv + i + u * s) : V();
            }
#pragma unroll
            for (int u = 0; u < U; u++) st16<V, STREAMING>(zv + i + u * s, ewv<OP>(xr[u], yr[u], a));
        }
    }
    for (; i < nv; i += s) {
        V yy = uses_y<OP>() ? ld16<V, STREAMING>(yv + i) : V();
        st16<V, STREAMING>(zv + i, ewv<OP>(ld16<V, STREAMING>(xv + i), yy, a));
    }
    head_tail<OP>(n, head, nv, a, x, y, z);
}

template <int OP, typename T> struct L01 {
    static void run(gp_ctx_t *, const gp__vec_args_t *a, cudaStream_t s)
    {
        v01_single_thread<OP, T><<<1, 1, 0, s>>>(a->n, alpha_as<T>(a->alpha), (const T *)a->x, (const T *)a->y,
                                                 (T *)a->z);
    }
};
template <int OP, typename T> struct L02 {
    static void run(gp_ctx_t *, const gp__vec_args_t *a, cudaStream_t s)
    {
        v02_single_block<OP, T><<<1, 256, 0, s>>>(a->n, alpha_as<T>(a->alpha), (const T *)a->x, (const T *)a->y,
                                                  (T *)a->z);
    }
};
template <int OP, typename T> struct L03 {
    static void run(gp_ctx_t *, const gp__vec_args_t *a, cudaStream_t s)
    {
        size_t blocks = (a->n + 255) / 256; /* < 2^31 - 1 for any n that fits a GPU (2^39 elements) */
        v03_thread_per_element<OP, T><<<(unsigned)blocks, 256, 0, s>>>(
            a->n, alpha_as<T>(a->alpha), (const T *)a->x, (const T *)a->y, (T *)a->z);
    }
};

template <int U, bool STREAMING> struct LVec {
    template <int OP, typename T> struct L {
        static void run(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
        {
            int off = common_offset16<OP, T>(a);
            if (off < 0) return L04<OP, T>::run(ctx, a, s);
            vec16_grid_stride<OP, T, U, STREAMING><<<gp__fill_grid(ctx, 256), 256, 0, s>>>(
                a->n, head_of<OP, T>(a, off), alpha_as<T>(a->alpha), (const T *)a->x, (const T *)a->y, (T *)a->z);
        }
    };
};
template <int OP, typename T> struct L05 : LVec<1, false>::L<OP, T> {};
template <int OP, typename T> struct L06 : LVec<4, false>::L<OP, T> {};
template <int OP, typename T> struct L07 : LVec<4, true>::L<OP, T> {};
template <int OP, typename T> struct L08 : LVec<1, true>::L<OP, T> {};

/* v13: v11 in v09's shape: block b reads the contiguous run of K * 256 vectors that starts at b * K * 256 (the
 * threads of a block stride it together, so loads coalesce), with ceil(nv / (K * 256)) short blocks instead of a
 * persistent grid. Same last-block guard; more partials (one per block) to add at the end. */
template <typename T, int K>
__global__ void dot_block_chunk(size_t n, size_t head, const T *__restrict__ x, const T *__restrict__ y,
                                typename Acc<T>::type *partials, unsigned int *counter, typename Acc<T>::type *result)
{
    typedef typename Acc<T>::type A;
    typedef typename Vec16<T>::type V;
    constexpr size_t W = 16 / sizeof(T);
    const size_t nv = (n - head) / W, t = gtid();
    const V *xv = reinterpret_cast<const V *>(x + head), *yv = reinterpret_cast<const V *>(y + head);
    A acc = 0;
    const size_t base = (size_t)blockIdx.x * K * blockDim.x + threadIdx.x;
#pragma unroll 4
    for (int k = 0; k < K; k++) {
        const size_t i = base + (size_t)k * blockDim.x;
        if (i < nv) acc += dot16<T, A>(xv[i], yv[i]);
    }
    acc += dot_head_tail<T, A>(n, head, nv, x, y);

    last_block_sum(block_sum(acc), partials, counter, result);
}

template <typename T> gp_status_t dot_chunked(gp_ctx_t *ctx, const gp__vec_args_t *a, cudaStream_t s)
{
    typedef typename Acc<T>::type A;
    constexpr int K = 16;
    unsigned ox = (uintptr_t)a->x & 15, oy = (uintptr_t)a->y & 15;
    if (ox != oy) return dot_v10<T>(ctx, a, s);
    size_t head = ((16 - (size_t)ox) & 15) / sizeof(T);
    if (head > a->n) head = a->n;
    const size_t nv = (a->n - head) / (16 / sizeof(T));
    size_t blocks = (nv + (size_t)K * 256 - 1) / ((size_t)K * 256);
    if (blocks == 0) blocks = 1;
    if (blocks > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "vector_v13_dot_block_chunk: n too large");
    void *partials = NULL;
    gp_status_t st = dot_workspace(ctx, (unsigned)blocks, &partials);
    if (st != GP_OK) return st;
    dot_block_chunk<T, K><<<(unsigned)blocks, 256, 0, s>>>(a->n, head, (const T *)a->x, (const T *)a->y,
                                                          (A *)partials, ctx->counters + GP__COUNTER_DOT, (A *)a->z);
    return GP_CHECK_LAUNCH("vector_v13_dot_block_chunk");
}

template <> struct EwOf<1> { template <int OP, typename T> using L = L01<OP, T>; };
template <> struct EwOf<2> { template <int OP, typename T> using L = L02<OP, T>; };
template <> struct EwOf<3> { template <int OP, typename T> using L = L03<OP, T>; };
template <> struct EwOf<5> { template <int OP, typename T> using L = L05<OP, T>; };
template <> struct EwOf<6> { template <int OP, typename T> using L = L06<OP, T>; };
template <> struct EwOf<7> { template <int OP, typename T> using L = L07<OP, T>; };
template <> struct EwOf<8> { template <int OP, typename T> using L = L08<OP, T>; };
template <> struct DotOf<13> { template <typename T> static gp_status_t run(gp_ctx_t *c, const gp__vec_args_t *a, cudaStream_t s) { return dot_chunked<T>(c, a, s); } };

} // namespace

#endif
