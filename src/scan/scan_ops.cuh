/*
 * scan_ops.cuh — the scans' scalar operators for the CUDA files of src/scan (scan.cu, scan_general.cu): combine,
 * the padding identity (exact on both sides) and the exclusive scan's first value, per (type, op). Included only by
 * .cu files, inside their anonymous namespace.
 */
#ifndef GP_SCAN_OPS_CUH
#define GP_SCAN_OPS_CUH

enum { SUM, PROD, MIN, MAX, AND, OR, XOR };

template <typename T> struct Lim;
template <> struct Lim<int32_t> { static constexpr int32_t lo = INT32_MIN, hi = INT32_MAX; };
template <> struct Lim<uint32_t> { static constexpr uint32_t lo = 0, hi = UINT32_MAX; };
template <> struct Lim<int64_t> { static constexpr int64_t lo = INT64_MIN, hi = INT64_MAX; };
template <> struct Lim<uint64_t> { static constexpr uint64_t lo = 0, hi = UINT64_MAX; };

template <typename T> struct Unsigned { typedef T type; };
template <> struct Unsigned<int32_t> { typedef uint32_t type; };
template <> struct Unsigned<int64_t> { typedef uint64_t type; };

/* combine, padding identity (exact both sides), the exclusive scan's first value */
template <typename T, int OP> struct Op {
    typedef typename Unsigned<T>::type U;
    __device__ static T comb(T a, T b)
    {
        switch (OP) {
        case SUM: return (T)((U)a + (U)b);
        case PROD: return (T)((U)a * (U)b);
        case MIN: return b < a ? b : a;
        case MAX: return b > a ? b : a;
        case AND: return (T)(a & b);
        case OR: return (T)(a | b);
        default: return (T)(a ^ b);
        }
    }
    __device__ static T pad()
    {
        return OP == PROD ? (T)1 : OP == MIN ? Lim<T>::hi : OP == MAX ? Lim<T>::lo : OP == AND ? (T)~(U)0 : (T)0;
    }
    __device__ static T first() { return pad(); }
};
/* floats: explicitly rounded sums and products (no contraction); min / max keep the first NaN, the left on ties */
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
template <typename F, int OP> struct FloatOp {
    __device__ static F comb(F a, F b)
    {
        switch (OP) {
        case SUM: return add_rn(a, b);
        case PROD: return mul_rn(a, b);
        /* b when a is a number and b is NaN or beyond it: the first NaN wins, ties keep a (two compares, a select) */
        case MIN: return a == a && !(b >= a) ? b : a;
        default: return a == a && !(b <= a) ? b : a;
        }
    }
    __device__ static F pad()
    {
        return OP == SUM ? (F)-0.0 : OP == PROD ? (F)1 : OP == MIN ? (F)INFINITY : (F)-INFINITY;
    }
    __device__ static F first() { return OP == SUM ? (F)0 : pad(); }
};
template <int OP> struct Op<float, OP> : FloatOp<float, OP> {};
template <int OP> struct Op<double, OP> : FloatOp<double, OP> {};

#endif
