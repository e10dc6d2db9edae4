/*
 * seg_policy.cuh — the segmented scans' policy for scan_lb.cuh: scan_ops.cuh's scalar op over (head, value) pairs,
 * (f, v) o (g, w) = (f | g, g ? w : v (+) w). Included inside the anonymous namespace of scan_general.cu (heads from
 * bytes) and bykey.cu (heads from keys), after scan_ops.cuh, lookback.cuh and scan_lb.cuh; THREADS defined.
 */
#ifndef GP_SEG_POLICY_CUH
#define GP_SEG_POLICY_CUH

/* Segmented scans: the scalar op of scan_ops.cuh over (head, value) pairs. An element is the value alone (the heads
 * come from their own bytes); R by the pair's bytes (8 -> 16, 16 -> 8). */
template <typename T, int OP> struct SegP {
    typedef Op<T, OP> O;
    struct E {
        T v;
    };
    struct V {
        T v;
        unsigned f;
    };
    static constexpr bool SEG = true, PACKED = true; /* packed where V is 8 bytes (4-byte T) */
    static constexpr int EW = (int)sizeof(T) / 4;
    static constexpr int R = sizeof(V) <= 8 ? 16 : 8;
    static constexpr int TILE = THREADS * R;
    static constexpr int WT = R * EW, PITCH = WT | 1;
    static constexpr int WINDOWS = 8;
    static __device__ __forceinline__ V comb(const V &a, const V &b)
    {
        V c;
        c.v = b.f ? b.v : O::comb(a.v, b.v);
        c.f = a.f | b.f;
        return c;
    }
    static __device__ __forceinline__ V pad() { return V{O::pad(), 0u}; }
    static __device__ __forceinline__ E first() { return E{O::first()}; }
    static __device__ __forceinline__ V make(const E &e, bool h) { return V{e.v, h ? 1u : 0u}; }
    static __device__ __forceinline__ E out(const V &v) { return E{v.v}; }
    static __device__ __forceinline__ bool flag(const V &v) { return v.f != 0; }
    /* an aggregate holding a head: comb(a, v) = v whatever a, so a look-back stops there (lb_window) */
    static __device__ __forceinline__ bool resets(const V &v) { return v.f != 0; }
    static __device__ __forceinline__ V shfl_up(const V &s, int d)
    {
        return V{__shfl_up_sync(0xffffffffu, s.v, d), __shfl_up_sync(0xffffffffu, s.f, d)};
    }
    static __device__ __forceinline__ V load_cg(const V *p) { return ldcg_value(p); }
    template <class A>
    static __device__ __forceinline__ unsigned heads(const unsigned char *h, size_t mine, size_t n, const A &)
    {
        return lb_head_bytes<R>(h, mine, n);
    }
};

/* The same with the heads as bits (gp_scan_segmented: element i starts a segment where bit i % 32 of 32-bit word
 * i / 32 is set), an eighth of the bytes to clear and read. A thread's first element is a multiple of R, which
 * divides 32, so its R bits are one aligned 16- or 8-bit piece; the words cover whole tiles (bits past n clear). */
template <typename T, int OP> struct SegBitsP : SegP<T, OP> {
    static constexpr bool TE_BITS = true; /* te_lb.cuh: the copy engine brings a tile's bits with its values */
    template <class A>
    static __device__ __forceinline__ unsigned heads(const unsigned char *h, size_t mine, size_t, const A &)
    {
        constexpr int R = SegP<T, OP>::R;
        static_assert(R == 16 || R == 8, "a run's head bits are one 16- or 8-bit piece");
        if constexpr (R == 16) return reinterpret_cast<const unsigned short *>(h)[mine / 16];
        else return h[mine / 8];
    }
};

#endif
