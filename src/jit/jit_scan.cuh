/*
 * jit_scan.cuh — a user operator's scan: the policy that runs scan_lb.cuh's look-back scan (the ordered scans' own
 * kernel) over the op's elements, and its kernel. Embedded by src/jit/uop.c after jit_kernels.cuh (GPJ_S, gpj_c,
 * gpj_id, gpj_shfl) and scan_lb.cuh. Elements are whole words (GPJ_ESZ % 4 == 0: the kernel stages words); values
 * (GPJ_S) are the elements' values (the launcher refuses f16 / bf16, whose float values are wider than their
 * words: scan_lb.cuh parks the in-tile values in the elements' own words during the look-back). Runs and look-back windows follow
 * the ordered scans' rules for the value's size (gp__oscan_run), so a user affine or matrix scan runs exactly as
 * gp_scan_ordered's, with the same bits.
 */
struct GPJ_SE {
    GPJ_IN c[GPJ_K];
};
template <typename V> __device__ __forceinline__ V gpj_shfl_up1(V v, int d)
{
    if (sizeof(V) < 4) return (V)__shfl_up_sync(0xffffffffu, (int)v, d);
    return __shfl_up_sync(0xffffffffu, v, d);
}
struct GPJ_SP {
    typedef GPJ_S V;
    typedef GPJ_SE E;
    static constexpr bool SEG = false;
    static constexpr int VB = (int)sizeof(GPJ_S);
    static constexpr int R = VB <= 8 ? 16 : VB <= 16 ? 8 : VB <= 32 ? 4 : VB <= 64 ? 2 : 1;
    static constexpr int TILE = THREADS * R;
    static constexpr int EW = (int)sizeof(GPJ_SE) / 4;
    static constexpr int WT = R * EW, PITCH = WT | 1;
    static constexpr int WINDOWS = 8192 / (32 * VB) < 1 ? 1 : 8192 / (32 * VB) > 8 ? 8 : 8192 / (32 * VB);
    static __device__ __forceinline__ V comb(const V &a, const V &b) { return gpj_c(a, b); }
    static __device__ __forceinline__ V shfl_up(const V &s, int d)
    {
        V o;
#pragma unroll
        for (int c = 0; c < GPJ_K; c++) o.v[c] = gpj_shfl_up1(s.v[c], d);
        return o;
    }
    static __device__ __forceinline__ V pad() { return gpj_id(); }
    static __device__ __forceinline__ V make(const E &e, bool)
    {
        V v;
#pragma unroll
        for (int c = 0; c < GPJ_K; c++) v.v[c] = gpj_in(e.c[c]);
        return v;
    }
    static __device__ __forceinline__ E out(const V &v)
    {
        E e;
#pragma unroll
        for (int c = 0; c < GPJ_K; c++) e.c[c] = gpj_back(v.v[c]);
        return e;
    }
    static __device__ __forceinline__ E first() { return out(gpj_id()); }
    static __device__ __forceinline__ bool flag(const V &) { return false; }
    static __device__ __forceinline__ V load_cg(const V *p) { return ldcg_value(p); }
};

extern "C" __global__ void __launch_bounds__(THREADS, sizeof(GPJ_S) <= 16 ? 4 : 1)
    gpj_scan(const GPJ_SE *x, GPJ_SE *y, const unsigned char *heads, size_t n, int excl, unsigned *ticket,
             unsigned *status, GPJ_S *agg, GPJ_S *incl, const GPJ_S *cin, GPJ_S *cout)
{
    lb_scan<GPJ_SP>(x, y, heads, n, excl, ticket, status, agg, incl, cin, cout);
}
