/*
 * ordered_ops.cuh — the ordered operators' arithmetic on the GPU, shared by the ordered reductions (ordered.cu) and
 * the ordered scans (scan/scan_general.cu): c = a o b for matrix products (row-major D x D) and affine maps, every
 * product and sum rounded on its own (no FMA contraction), in the order the CPU backends use (reduce/ordered.c), so
 * the bits agree. Included only by .cu files, inside their anonymous namespace.
 */
#ifndef GP_ORDERED_OPS_CUH
#define GP_ORDERED_OPS_CUH

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ unsigned mul(unsigned a, unsigned b) { return a * b; }
__device__ __forceinline__ unsigned add(unsigned a, unsigned b) { return a + b; }

/* OP: GP_ORDERED_MAT2/3/4 or GP_ORDERED_AFFINE; a, b, c: its values (c not aliasing a or b) */
template <int OP, typename T> __device__ __forceinline__ void ord_combine(const T *a, const T *b, T *c)
{
    constexpr int D = OP == GP_ORDERED_MAT2 ? 2 : OP == GP_ORDERED_MAT3 ? 3 : OP == GP_ORDERED_MAT4 ? 4 : 0;
    if constexpr (OP == GP_ORDERED_AFFINE) { /* a applied first, then b: x -> b0 (a0 x + a1) + b1 */
        c[0] = mul(b[0], a[0]);
        c[1] = add(mul(b[0], a[1]), b[1]);
    } else {
#pragma unroll
        for (int i = 0; i < D; i++)
#pragma unroll
            for (int j = 0; j < D; j++) {
                T s = mul(a[i * D], b[j]);
#pragma unroll
                for (int k = 1; k < D; k++) s = add(s, mul(a[i * D + k], b[k * D + j]));
                c[i * D + j] = s;
            }
    }
}

#endif
