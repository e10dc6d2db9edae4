/*
 * bykey.cu — reduce and scan by key in one pass (docs/design/scan.md, "By key"): scan_lb.cuh's look-back scan over
 * (head, value) pairs whose heads come from the keys themselves — element i starts a run where i = 0 or its key
 * differs from key i-1 (gp_unique's equality) — so no run-length encoding, offsets or head bytes are made first.
 *   - scan by key: seg_policy.cuh's pairs, the heads from the keys: the bits of gp_scan_segmented over the runs;
 *   - reduce by key: the pair also counts its heads, (f, v) o (g, w) = (f + g, g ? w : v (+) w); a head writes its
 *     key at its run's index (the heads before it), a run's last element its inclusive value (the run's value in the
 *     segmented scan's order) and the last element the run count, which stays in device memory.
 * Keys are read per thread (its run and one key on each side), eight kinds of equality chosen at run time.
 */
#include "scan_internal.h"
#include "scan_tuning.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_fp16.h>

namespace {

constexpr int THREADS = GP__SCAN_RUNS;

#include "scan_ops.cuh"

#include "lookback.cuh"
#include "scan_lb.cuh"
#include "seg_policy.cuh"
#include "../core/tma.cuh"
#include "tile_engine.cuh"
#include "te_lb.cuh"

/* how keys compare: integers by their bits, floats by value (NaN equals nothing, -0 == +0); gp__eq_kind's numbers */
enum { KB1, KB2, KB4, KB8, KF16, KBF16, KF32, KF64 };

struct KeyAux {
    int kind, ks;        /* the keys' kind and bytes */
    const void *keys;
    void *keys_out;      /* reduce: each run's first key */
    void *values_out;    /* reduce: each run's value */
    unsigned long long *runs; /* reduce: the run count (may be NULL) */
};

template <typename K, int KIND> __device__ __forceinline__ bool keq(K a, K b)
{
    if constexpr (KIND == KF16) return __half2float(__ushort_as_half(a)) == __half2float(__ushort_as_half(b));
    else if constexpr (KIND == KBF16) return __uint_as_float((unsigned)a << 16) == __uint_as_float((unsigned)b << 16);
    else if constexpr (KIND == KF32) return __uint_as_float(a) == __uint_as_float(b);
    else if constexpr (KIND == KF64) return __longlong_as_double((long long)a) == __longlong_as_double((long long)b);
    else return a == b;
}

/* bits 0 .. R: bit k set where element mine + k starts a run (bit R: the element after this thread's run, set also
 * past the end, so the last element ends its run) */
template <typename K, int KIND, int R>
__device__ __forceinline__ unsigned key_heads(const K *keys, size_t mine, size_t n)
{
    K kv[R + 2]; /* keys mine - 1 .. mine + R */
    if (mine > 0 && mine + R < n) {
        kv[0] = keys[mine - 1];
        kv[R + 1] = keys[mine + R];
        if constexpr (R * sizeof(K) % 16 == 0) {
            if (((unsigned long long)(keys + mine) & 15) == 0) {
                uint4 q[R * sizeof(K) / 16];
#pragma unroll
                for (int j = 0; j < (int)(R * sizeof(K) / 16); j++) q[j] = __ldg(reinterpret_cast<const uint4 *>(keys + mine) + j);
                K mid[R];
                memcpy(mid, q, sizeof mid);
#pragma unroll
                for (int j = 0; j < R; j++) kv[j + 1] = mid[j];
            } else {
#pragma unroll
                for (int j = 0; j < R; j++) kv[j + 1] = keys[mine + j];
            }
        } else {
#pragma unroll
            for (int j = 0; j < R; j++) kv[j + 1] = keys[mine + j];
        }
    } else {
#pragma unroll
        for (int j = 0; j < R + 2; j++) kv[j] = mine + j >= 1 && mine + j - 1 < n ? keys[mine + j - 1] : K(0);
    }
    unsigned hb = 0;
#pragma unroll
    for (int k = 0; k <= R; k++) {
        const size_t i = mine + k;
        const bool h = i >= n ? k == R : i == 0 || !keq<K, KIND>(kv[k], kv[k + 1]);
        hb |= (h ? 1u : 0u) << k;
    }
    return hb;
}

/* The head bits (key_heads) of the run of R elements at mine, the key kind chosen at run time */
template <int R> __device__ __forceinline__ unsigned key_heads_any(const KeyAux &a, size_t mine, size_t n)
{
    switch (a.kind) {
    case KB1: return key_heads<uint8_t, KB1, R>((const uint8_t *)a.keys, mine, n);
    case KB2: return key_heads<uint16_t, KB2, R>((const uint16_t *)a.keys, mine, n);
    case KB4: return key_heads<uint32_t, KB4, R>((const uint32_t *)a.keys, mine, n);
    case KB8: return key_heads<uint64_t, KB8, R>((const uint64_t *)a.keys, mine, n);
    case KF16: return key_heads<uint16_t, KF16, R>((const uint16_t *)a.keys, mine, n);
    case KBF16: return key_heads<uint16_t, KBF16, R>((const uint16_t *)a.keys, mine, n);
    case KF32: return key_heads<uint32_t, KF32, R>((const uint32_t *)a.keys, mine, n);
    default: return key_heads<uint64_t, KF64, R>((const uint64_t *)a.keys, mine, n);
    }
}

/* a block's barrier as emit takes it (the tile engine passes its consumers' barrier) */
struct BlockSync {
    __device__ __forceinline__ void operator()() const { __syncthreads(); }
};

/* scan by key: the segmented scan's pairs, heads from the keys */
template <typename T, int OP> struct KeyScanP : SegP<T, OP> {
    static constexpr int R = SegP<T, OP>::R;
    static __device__ __forceinline__ unsigned heads(const unsigned char *, size_t mine, size_t n, const KeyAux &a)
    {
        return key_heads_any<R>(a, mine, n);
    }
    /* te_lb.cuh's reducer form: 4-byte keys (integers by their bits, f32 by value), 16-byte aligned, come in beside
     * the values; the run's head bits from its keys kv and the key before it (prev, where mine > 0) */
    static constexpr bool TE_KEYS = true;
    static __host__ __device__ const void *te_keys(const KeyAux &a)
    {
        return a.ks == 4 && (a.kind == KB4 || a.kind == KF32) && ((uintptr_t)a.keys & 15) == 0 ? a.keys : nullptr;
    }
    static __device__ __forceinline__ unsigned te_key_bits(const unsigned (&kv)[R], unsigned prev, size_t mine,
                                                           size_t n, const KeyAux &a)
    {
        unsigned hb = 0;
        if (a.kind == KF32) {
#pragma unroll
            for (int k = 0; k < R; k++)
                hb |= (mine + k < n && (mine + k == 0 || !keq<uint32_t, KF32>(k ? kv[k - 1] : prev, kv[k])) ? 1u : 0u)
                      << k;
        } else {
#pragma unroll
            for (int k = 0; k < R; k++)
                hb |= (mine + k < n && (mine + k == 0 || (k ? kv[k - 1] : prev) != kv[k]) ? 1u : 0u) << k;
        }
        return hb;
    }
};

/* reduce by key: the pairs count their heads (CT: 32 bits while n < 2^32); R as the segmented scan of T's */
template <typename T, int OP, typename CT> struct KeyRedP {
    typedef Op<T, OP> O;
    struct E {
        T v;
    };
    struct V {
        T v;
        CT c;
    };
    static constexpr bool SEG = true, EMIT = true, PACKED = true; /* packed where V is 8 bytes */
    static constexpr int EW = (int)sizeof(T) / 4;
    static constexpr int R = sizeof(T) == 4 ? 16 : 8;
    static constexpr int TILE = THREADS * R;
    static constexpr int WT = R * EW, PITCH = WT | 1;
    static constexpr int WINDOWS = 8;
    static __device__ __forceinline__ V comb(const V &a, const V &b)
    {
        V c;
        c.v = b.c ? b.v : O::comb(a.v, b.v);
        c.c = a.c + b.c;
        return c;
    }
    static __device__ __forceinline__ V pad() { return V{O::pad(), (CT)0}; }
    static __device__ __forceinline__ E first() { return E{O::first()}; }
    static __device__ __forceinline__ V make(const E &e, bool h) { return V{e.v, (CT)(h ? 1 : 0)}; }
    static __device__ __forceinline__ E out(const V &v) { return E{v.v}; }
    static __device__ __forceinline__ bool flag(const V &v) { return v.c != 0; }
    static __device__ __forceinline__ unsigned long long count(const V &v) { return (unsigned long long)v.c; }
    static __device__ __forceinline__ V shfl_up(const V &s, int d)
    {
        return V{__shfl_up_sync(0xffffffffu, s.v, d), __shfl_up_sync(0xffffffffu, s.c, d)};
    }
    static __device__ __forceinline__ V load_cg(const V *p) { return ldcg_value(p); }
    static __device__ __forceinline__ unsigned heads(const unsigned char *, size_t mine, size_t n, const KeyAux &a)
    {
        return key_heads_any<R>(a, mine, n);
    }
    /* Called by every thread of the block with its inclusive values w. The tile's outputs are contiguous — keys
     * [base, base + th) for its th heads, values [base - 1 + lo, base - 1 + hi] (slot 0: the run that began in an
     * earlier tile, if it ends here; slot th: the last run, if it ends here) — so they are staged in shared memory at
     * their slots and written coalesced, the values first (keys too many for the stage are written where they go).
     * The last element writes the run count. sync: the block's barrier (the consumers' on the tile engine). */
    template <class Sync = BlockSync>
    static __device__ __forceinline__ void emit(const V (&w)[R], unsigned long long base, unsigned long long cbase,
                                                unsigned hb, size_t mine, size_t n, const KeyAux &a, Sync sync = Sync())
    {
        constexpr unsigned STAGE = 24576;
        __shared__ __align__(16) unsigned char s_o[STAGE];
        __shared__ unsigned s_th, s_v0, s_vth;
        const unsigned cb = (unsigned)cbase, ks = (unsigned)a.ks;
        if (threadIdx.x == THREADS - 1) s_th = cb + (unsigned)__popc(hb & ((1u << R) - 1u));
        if (threadIdx.x == 0) s_v0 = s_vth = 0;
        sync();
        const unsigned th = s_th;
        const bool stage_keys = th * ks <= STAGE;
        T *const sv = reinterpret_cast<T *>(s_o); /* TILE + 1 values fit: 16 KiB + one */
#pragma unroll
        for (int k = 0; k < R; k++) { /* the values at the runs' ends: slot = the heads in the tile up to k */
            const size_t i = mine + k;
            if (i < n && (((hb >> (k + 1)) & 1u) || i == n - 1)) {
                const unsigned slot = cb + (unsigned)__popc(hb & ((2u << k) - 1u));
                sv[slot] = w[k].v;
                if (slot == 0) s_v0 = 1;
                if (slot == th) s_vth = 1;
                if (i == n - 1 && a.runs) *a.runs = base + slot;
            }
        }
        sync();
        const int lo = s_v0 ? 0 : 1, hi = s_vth ? (int)th : (int)th - 1; /* slot j is run base - 1 + j */
        for (int j = lo + (int)threadIdx.x; j <= hi; j += THREADS) static_cast<T *>(a.values_out)[base + j - 1] = sv[j];
        sync(); /* the stage again, for the keys (w is dead by now: fewer registers) */
#pragma unroll
        for (int k = 0; k < R; k++) { /* the keys: slot = the heads in the tile up to k, less one */
            const size_t i = mine + k;
            if (i < n && ((hb >> k) & 1u)) {
                const unsigned slot = cb + (unsigned)__popc(hb & ((2u << k) - 1u)) - 1;
                unsigned char *dst = stage_keys ? s_o + (size_t)slot * ks
                                                : static_cast<unsigned char *>(a.keys_out) + (base + slot) * ks;
                switch (ks) {
                case 1: *dst = static_cast<const uint8_t *>(a.keys)[i]; break;
                case 2: *reinterpret_cast<uint16_t *>(dst) = static_cast<const uint16_t *>(a.keys)[i]; break;
                case 4: *reinterpret_cast<uint32_t *>(dst) = static_cast<const uint32_t *>(a.keys)[i]; break;
                default: *reinterpret_cast<uint64_t *>(dst) = static_cast<const uint64_t *>(a.keys)[i]; break;
                }
            }
        }
        sync();
        if (stage_keys) {
            unsigned char *ko = static_cast<unsigned char *>(a.keys_out) + base * ks;
            switch (ks) {
            case 1:
                for (unsigned j = threadIdx.x; j < th; j += THREADS) ko[j] = s_o[j];
                break;
            case 2:
                for (unsigned j = threadIdx.x; j < th; j += THREADS)
                    reinterpret_cast<uint16_t *>(ko)[j] = reinterpret_cast<const uint16_t *>(s_o)[j];
                break;
            case 4:
                for (unsigned j = threadIdx.x; j < th; j += THREADS)
                    reinterpret_cast<uint32_t *>(ko)[j] = reinterpret_cast<const uint32_t *>(s_o)[j];
                break;
            default:
                for (unsigned j = threadIdx.x; j < th; j += THREADS)
                    reinterpret_cast<uint64_t *>(ko)[j] = reinterpret_cast<const uint64_t *>(s_o)[j];
                break;
            }
        }
    }
};

template <class P>
__global__ void __launch_bounds__(THREADS, sizeof(typename P::V) <= 16 ? 4 : 1)
    k_bykey(const typename P::E *x, typename P::E *y, size_t n, int excl, unsigned *ticket, unsigned *status,
            typename P::V *agg, typename P::V *incl, const KeyAux aux)
{
    lb_scan<P>(x, y, static_cast<const unsigned char *>(aux.keys), n, excl, ticket, status, agg, incl, nullptr,
               nullptr, aux);
}

template <class P>
gp_status_t launch(gp_ctx_t *ctx, const char *fn, size_t n, const void *x, void *y, int excl, const KeyAux &aux,
                   cudaStream_t s)
{
    typedef typename P::V V;
    const size_t ntiles = (n + P::TILE - 1) / P::TILE;
    if (ntiles > 0x7fffffffu) return gp__error(GP_ERR_UNSUPPORTED, "%s: %zu tiles (at most 2^31 - 1)", fn, ntiles);
    const size_t head = gp__lb_head_bytes(ntiles);
    void *ws = NULL;
    GP_TRY_RET(gp__workspace(ctx, gp__lb_bytes(ntiles, sizeof(V)), &ws));
    char *w = (char *)ws;
    cudaError_t e = cudaMemsetAsync(w, 0, lb_packed<P>(0) ? gp__lb_bytes(ntiles, sizeof(V)) : head, s);
    if (e != cudaSuccess) return gp__cuda_error(e, "clearing the tile statuses", __FILE__, __LINE__);
    int done = 0; /* on the tile engine where it takes the pass */
    GP_TRY_RET((te_lb_launch<P, KeyAux>(ctx, fn, GP_TE_LB_AUTO_BYKEY, n, x, y, nullptr, excl, aux, w, head, s, &done)));
    if (done) return GP_OK;
    k_bykey<P><<<(unsigned)ntiles, THREADS, 0, s>>>((const typename P::E *)x, (typename P::E *)y, n, excl,
                                                    (unsigned *)w, (unsigned *)(w + 16), (V *)(w + head),
                                                    (V *)(w + head) + ntiles, aux);
    return GP_CHECK_LAUNCH(fn);
}

template <typename T, int OP>
gp_status_t reduce_ct(gp_ctx_t *ctx, const char *fn, size_t n, const void *x, const KeyAux &a, cudaStream_t s)
{
    /* f32: 32-bit counts while every run index fits (GP_BYKEY_WIDE_COUNT=1 forces 64 bits: the tests reach them so) */
    if constexpr (sizeof(T) == 4) {
        const char *wide = getenv("GP_BYKEY_WIDE_COUNT");
        if (n <= 0xffffffffu && !(wide && wide[0] == '1'))
            return launch<KeyRedP<T, OP, unsigned>>(ctx, fn, n, x, NULL, 0, a, s);
    }
    return launch<KeyRedP<T, OP, unsigned long long>>(ctx, fn, n, x, NULL, 0, a, s);
}

template <typename T>
gp_status_t reduce_op(gp_ctx_t *ctx, const char *fn, gp_reduce_op_t op, size_t n, const void *x, const KeyAux &a,
                      cudaStream_t s)
{
    switch (op) {
    case GP_REDUCE_SUM: return reduce_ct<T, SUM>(ctx, fn, n, x, a, s);
    case GP_REDUCE_PROD: return reduce_ct<T, PROD>(ctx, fn, n, x, a, s);
    case GP_REDUCE_MIN: return reduce_ct<T, MIN>(ctx, fn, n, x, a, s);
    case GP_REDUCE_MAX: return reduce_ct<T, MAX>(ctx, fn, n, x, a, s);
    default: break;
    }
    if constexpr (sizeof(T) == 8 && (T)-1 > (T)0) {
        switch (op) {
        case GP_REDUCE_AND: return reduce_ct<T, AND>(ctx, fn, n, x, a, s);
        case GP_REDUCE_OR: return reduce_ct<T, OR>(ctx, fn, n, x, a, s);
        case GP_REDUCE_XOR: return reduce_ct<T, XOR>(ctx, fn, n, x, a, s);
        default: break;
        }
    }
    return gp__error(GP_ERR_UNSUPPORTED, "%s: %s in one pass", fn, gp_reduce_op_name(op));
}

template <typename T>
gp_status_t scan_op(gp_ctx_t *ctx, const char *fn, gp_reduce_op_t op, size_t n, const void *x, void *y, int excl,
                    const KeyAux &a, cudaStream_t s)
{
    switch (op) {
    case GP_REDUCE_SUM: return launch<KeyScanP<T, SUM>>(ctx, fn, n, x, y, excl, a, s);
    case GP_REDUCE_PROD: return launch<KeyScanP<T, PROD>>(ctx, fn, n, x, y, excl, a, s);
    case GP_REDUCE_MIN: return launch<KeyScanP<T, MIN>>(ctx, fn, n, x, y, excl, a, s);
    case GP_REDUCE_MAX: return launch<KeyScanP<T, MAX>>(ctx, fn, n, x, y, excl, a, s);
    default: break;
    }
    if constexpr ((T)0.5 == (T)0) {
        switch (op) {
        case GP_REDUCE_AND: return launch<KeyScanP<T, AND>>(ctx, fn, n, x, y, excl, a, s);
        case GP_REDUCE_OR: return launch<KeyScanP<T, OR>>(ctx, fn, n, x, y, excl, a, s);
        case GP_REDUCE_XOR: return launch<KeyScanP<T, XOR>>(ctx, fn, n, x, y, excl, a, s);
        default: break;
        }
    }
    return gp__error(GP_ERR_UNSUPPORTED, "%s: %s in one pass", fn, gp_reduce_op_name(op));
}

} // namespace

extern "C" gp_status_t gp__bykey_gpu(gp_ctx_t *ctx, const char *fn, gp_reduce_op_t op, gp_dtype_t key_dtype, size_t n,
                                     const void *keys, gp_dtype_t dtype, const void *values, void *keys_out, void *out,
                                     uint64_t *runs_dev, int job, cudaStream_t stream)
{
    const KeyAux a = {gp__eq_kind(key_dtype), (int)gp_dtype_size(key_dtype), keys, keys_out, out,
                      (unsigned long long *)runs_dev};
    if (job == GP__BYKEY_REDUCE) {
        const int bits = op == GP_REDUCE_AND || op == GP_REDUCE_OR || op == GP_REDUCE_XOR;
        switch (dtype) {
        case GP_F32: return reduce_op<float>(ctx, fn, op, n, values, a, stream);
        case GP_F64: return reduce_op<double>(ctx, fn, op, n, values, a, stream);
        case GP_I64:
            return bits ? reduce_op<uint64_t>(ctx, fn, op, n, values, a, stream)
                        : reduce_op<int64_t>(ctx, fn, op, n, values, a, stream);
        case GP_U64: return reduce_op<uint64_t>(ctx, fn, op, n, values, a, stream);
        default: return gp__error(GP_ERR_UNSUPPORTED, "%s: %s values in one pass", fn, gp_dtype_name(dtype));
        }
    }
    const int excl = job == GP__BYKEY_SCAN_EXCL;
    switch (dtype) {
    case GP_F32: return scan_op<float>(ctx, fn, op, n, values, out, excl, a, stream);
    case GP_F64: return scan_op<double>(ctx, fn, op, n, values, out, excl, a, stream);
    case GP_I32: return scan_op<int32_t>(ctx, fn, op, n, values, out, excl, a, stream);
    case GP_U32: return scan_op<uint32_t>(ctx, fn, op, n, values, out, excl, a, stream);
    case GP_I64: return scan_op<int64_t>(ctx, fn, op, n, values, out, excl, a, stream);
    case GP_U64: return scan_op<uint64_t>(ctx, fn, op, n, values, out, excl, a, stream);
    default: return gp__error(GP_ERR_UNSUPPORTED, "%s: %s values", fn, gp_dtype_name(dtype));
    }
}
