/*
 * jit_seg.cuh — a user binary op's segmented reduction: the policy that runs seg_queue.cuh's queue (the built-in
 * segmented reductions' own) over the op, and its kernel. Embedded by src/jit/uop.c after jit_kernels.cuh (GPJ_S,
 * gpj_c, gpj_id, gpj_get and the tree of GPJ_COMM) and seg_queue.cuh. The trees (docs/design/jit.md):
 *   commutative  gp_reduce_segmented's (docs/design/reduce.md): a warp up to 2048 elements (lane l folds l, l+32, ...,
 *                then the shuffle tree), the block up to 16384 (lane l folds the 16-byte groups l, l+256, ...), larger
 *                ones in chunks of 16384 whose values lane l folds l, l+256, ..., then the block tree; so `a + b`
 *                gives gp_reduce_segmented's sum bits on every non-empty segment.
 *   ordered      each segment exactly as gp_reduce_uop reduces it alone: tiles of 256 runs of GPJ_R elements (a
 *                segment of at most 32 runs by a warp, of one tile by the block, larger ones in chunks of one tile),
 *                the tile values folded in levels of 256 runs of GPJ_R.
 * An empty segment is the identity. Values are written as GPJ_S (gp_uop_value_bytes each).
 */
__device__ __forceinline__ void gpj_put(void *part, size_t c, const GPJ_S &s) { ((GPJ_S *)part)[c] = s; }
__device__ __forceinline__ void gpj_store(void *out, size_t i, const GPJ_S &s) { ((GPJ_S *)out)[i] = s; }

#if GPJ_COMM
struct GPJ_SEGP {
    typedef GPJ_E E;
    typedef GPJ_S S;
    static constexpr size_t WARP_MAX = 2048, CHUNK = 16384;
    static __device__ __forceinline__ S warp_seg(const E *__restrict__ x, size_t b, size_t e)
    {
        S s = gpj_id();
        size_t i = b + (threadIdx.x & 31);
        for (; i + 7 * 32 < e; i += 8 * 32) { /* eight loads in flight per lane, folded in order */
            E t[8];
#pragma unroll
            for (int u = 0; u < 8; u++) t[u] = x[i + u * 32];
#pragma unroll
            for (int u = 0; u < 8; u++) s = gpj_c(s, gpj_make(&t[u]));
        }
        for (; i < e; i += 32) s = gpj_c(s, gpj_make(x + i));
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s = gpj_c(s, gpj_shfl_s(s, o));
        return s;
    }
    /* lane l folds the 16-byte groups l, l+256, ... counted from b (vectors where x + b is 16-byte aligned) */
    static __device__ __forceinline__ S block_seg(const E *__restrict__ x, size_t b, size_t e)
    {
        S s = gpj_id();
        const size_t nv = (e - b) / GPJ_W;
        size_t v = threadIdx.x;
        if (((unsigned long long)(x + b) & 15) == 0) {
            const uint4 *xv = reinterpret_cast<const uint4 *>(x + b);
            for (; v + 3 * GPJ_LANES < nv; v += 4 * GPJ_LANES) {
                uint4 q[4];
#pragma unroll
                for (int u = 0; u < 4; u++) q[u] = __ldcs(xv + v + u * GPJ_LANES);
#pragma unroll
                for (int u = 0; u < 4; u++) {
                    const E *t = reinterpret_cast<const E *>(&q[u]);
#pragma unroll
                    for (int w = 0; w < GPJ_W; w++) s = gpj_c(s, gpj_make(t + w));
                }
            }
            for (; v < nv; v += GPJ_LANES) {
                const uint4 q = __ldcs(xv + v);
                const E *t = reinterpret_cast<const E *>(&q);
#pragma unroll
                for (int w = 0; w < GPJ_W; w++) s = gpj_c(s, gpj_make(t + w));
            }
        } else {
            for (; v < nv; v += GPJ_LANES) {
                E t[GPJ_W];
#pragma unroll
                for (int w = 0; w < GPJ_W; w++) t[w] = x[b + v * GPJ_W + w];
#pragma unroll
                for (int w = 0; w < GPJ_W; w++) s = gpj_c(s, gpj_make(&t[w]));
            }
        }
        if (v == nv) /* the partial last group: this lane's turn */
            for (size_t i = b + v * GPJ_W; i < e; i++) s = gpj_c(s, gpj_make(x + i));
        return gpj_block_tree(s);
    }
    static __device__ S self(const E *__restrict__ x, size_t b, size_t e)
    {
        __shared__ S sh_r;
        S f = gpj_id();
        const size_t nch = (e - b + CHUNK - 1) / CHUNK;
        for (size_t k = 0; k < nch; k++) {
            const size_t cb = b + k * CHUNK;
            const S r = block_seg(x, cb, cb + CHUNK < e ? cb + CHUNK : e);
            if (threadIdx.x == 0) sh_r = r;
            __syncthreads();
            if (threadIdx.x == k % GPJ_LANES) f = gpj_c(f, sh_r);
            __syncthreads();
        }
        return gpj_block_tree(f);
    }
    static __device__ __forceinline__ S fold_parts(void *part, size_t base, size_t m)
    {
        S f = gpj_id();
        for (size_t k = threadIdx.x; k < m; k += GPJ_LANES) f = gpj_c(f, gpj_get((const GPJ_S *)part, base + k));
        return gpj_block_tree(f);
    }
    static __device__ __forceinline__ void put(void *part, size_t c, const S &s) { gpj_put(part, c, s); }
    static __device__ __forceinline__ void store(void *out, size_t i, const S &s) { gpj_store(out, i, s); }
};
#else
#define GPJ_SEG_LEVELS 6 /* tile-value levels a segment may need: 512^5 tiles are past any memory */
struct GPJ_SEGP {
    typedef GPJ_E E;
    typedef GPJ_S S;
    static constexpr size_t WARP_MAX = (size_t)32 * GPJ_R, CHUNK = GPJ_TILE;
    /* lane l's run x[b + l R, b + (l + 1) R) clipped to e (direct loads) */
    static __device__ __forceinline__ GPJ_O run(const E *__restrict__ x, size_t b, size_t e)
    {
        GPJ_O s;
        s.ok = 0;
        const size_t first = b + (size_t)threadIdx.x * GPJ_R;
        for (int j = 0; j < GPJ_R; j++)
            if (first + j < e) {
                GPJ_O v;
                v.ok = 1;
#pragma unroll
                for (int c = 0; c < GPJ_K; c++) v.s.v[c] = gpj_in(__ldg(&x[first + j].c[c]));
                s = gpj_oc(s, v);
            }
        return s;
    }
    /* a segment of at most 32 runs: the warp's up-sweep is the whole block fold (the other warps hold nothing) */
    static __device__ __forceinline__ S warp_seg(const E *__restrict__ x, size_t b, size_t e)
    {
        if (e == b) return gpj_id();
        const size_t lb = b - (size_t)(threadIdx.x & ~31u) * GPJ_R; /* runs counted from this warp's lane 0 */
        return gpj_warp_fold(run(x, lb, e)).s;
    }
    static __device__ __forceinline__ S block_seg(const E *__restrict__ x, size_t b, size_t e)
    {
        return gpj_block_fold(run(x, b, e)).s;
    }
    /* one level group: entries p[g TILE + l R, ... + R) by lane l, then the block fold */
    static __device__ __forceinline__ S group(const GPJ_S *p, size_t m, size_t g)
    {
        GPJ_O s;
        s.ok = 0;
        const size_t first = g * GPJ_TILE + (size_t)threadIdx.x * GPJ_R;
        for (int j = 0; j < GPJ_R; j++)
            if (first + j < m) {
                GPJ_O v;
                v.ok = 1;
                v.s = gpj_get(p, first + j);
                s = gpj_oc(s, v);
            }
        return gpj_block_fold(s).s;
    }
    /* gpj_reduce's levels, in place over the segment's own chunk slots */
    static __device__ S fold_parts(void *part, size_t base, size_t m)
    {
        GPJ_S *p = (GPJ_S *)part + base;
        while (m > 1) {
            const size_t groups = (m + GPJ_TILE - 1) / GPJ_TILE;
            for (size_t g = 0; g < groups; g++) {
                const S s = group(p, m, g); /* ends with a barrier: group g's reads are done */
                if (threadIdx.x == 0) p[g] = s;
                __syncthreads();
            }
            m = groups;
        }
        return gpj_get(p, 0);
    }
    /* The same levels with no chunk slots: each chunk value goes to the accumulator of the lane whose run holds it
     * (entry i of a level: lane (i mod TILE) / R), a finished group's fold to the next level. */
    static __device__ S self(const E *__restrict__ x, size_t b, size_t e)
    {
        __shared__ GPJ_S sh_v;
        size_t msz[GPJ_SEG_LEVELS], cnt[GPJ_SEG_LEVELS];
        GPJ_O acc[GPJ_SEG_LEVELS];
        int top = 0;
        msz[0] = (e - b + CHUNK - 1) / CHUNK;
        while (msz[top] > GPJ_TILE && top + 1 < GPJ_SEG_LEVELS) {
            msz[top + 1] = (msz[top] + GPJ_TILE - 1) / GPJ_TILE;
            top++;
        }
        for (int l = 0; l < GPJ_SEG_LEVELS; l++) acc[l].ok = 0, cnt[l] = 0;
        for (size_t k = 0; k < msz[0]; k++) {
            const size_t cb = b + k * CHUNK;
            S v = block_seg(x, cb, cb + CHUNK < e ? cb + CHUNK : e);
            for (int l = 0;; l++) {
                if (threadIdx.x == 0) sh_v = v;
                __syncthreads();
                const size_t i = cnt[l]++;
                if (threadIdx.x == (i % GPJ_TILE) / GPJ_R) {
                    GPJ_O t;
                    t.ok = 1;
                    t.s = sh_v;
                    acc[l] = gpj_oc(acc[l], t);
                }
                __syncthreads();
                if (l == top || ((i + 1) % GPJ_TILE != 0 && i + 1 != msz[l])) break;
                v = gpj_block_fold(acc[l]).s; /* the group is complete: on to the next level */
                acc[l].ok = 0;
            }
        }
        return gpj_block_fold(acc[top]).s;
    }
    static __device__ __forceinline__ void put(void *part, size_t c, const S &s) { gpj_put(part, c, s); }
    static __device__ __forceinline__ void store(void *out, size_t i, const S &s) { gpj_store(out, i, s); }
};
#endif

extern "C" __global__ void __launch_bounds__(GPJ_LANES)
    gpj_seg(const GPJ_E *__restrict__ x, size_t n, size_t nseg, const long long *__restrict__ off, void *out,
            SegQueue *q, unsigned long long *desc, void *part, unsigned *cnt, size_t cap)
{
    segq_run<GPJ_SEGP>(x, n, nseg, off, out, q, desc, part, cnt, cap);
}
