/*
 * scan_lb.cuh — the decoupled look-back scan of one tile, for a policy P (docs/design/scan.md has the association order;
 * scan_general.cu describes the steps and the descriptors). Included by scan_general.cu (the ordered and segmented
 * scans) and embedded as text for NVRTC (src/jit: user operators' scans), so both run the same code: it uses no
 * header, only CUDA built-ins and lookback.cuh (included or embedded before it), and the includer defines THREADS
 * (the runs per tile, 256).
 * A policy gives: V (the scan value), E (an element: EW words), R (elements per run), TILE, WT (words per run),
 * PITCH (WT | 1), WINDOWS (look-back windows before waiting on the oldest), SEG (head flags), comb, shfl_up, pad (a
 * value that changes no real element's), first (the exclusive scan's first output), make (E, head) -> V,
 * out (V) -> E, flag (V: its head bit) and load_cg (a published V, through L2). A SEG policy gives heads(heads, mine,
 * n, aux): bit k set where element mine + k starts a segment (lb_head_bytes reads a byte per element; the by-key
 * policies compare keys). A policy with EMIT (bykey.cu) takes the inclusive values itself — emit(w, base, cbase, hb,
 * mine, n, aux), base the heads before the tile (count(V)), cbase those before this thread in it — and y is not written.
 */

/* the head bits of elements mine .. mine + R - 1 from a byte per element (nonzero: a segment starts there) */
template <int R>
__device__ __forceinline__ unsigned lb_head_bytes(const unsigned char *heads, unsigned long long mine,
                                                  unsigned long long n)
{
    unsigned hb = 0;
    if (mine + R <= n && R == 16 && ((unsigned long long)(heads + mine) & 15) == 0) {
        const uint4 h = *reinterpret_cast<const uint4 *>(heads + mine);
        const unsigned q[4] = {h.x, h.y, h.z, h.w};
#pragma unroll
        for (int k = 0; k < 16; k++) hb |= ((q[k / 4] >> (8 * (k % 4))) & 0xffu ? 1u : 0u) << k;
    } else if (mine + R <= n && R == 8 && ((unsigned long long)(heads + mine) & 7) == 0) {
        const uint2 h = *reinterpret_cast<const uint2 *>(heads + mine);
        const unsigned q[2] = {h.x, h.y};
#pragma unroll
        for (int k = 0; k < 8; k++) hb |= ((q[k / 4] >> (8 * (k % 4))) & 0xffu ? 1u : 0u) << k;
    } else {
#pragma unroll
        for (int k = 0; k < R; k++)
            if (mine + k < n && heads[mine + k]) hb |= 1u << k;
    }
    return hb;
}

/* P::EMIT / P::PACKED where the policy declares them, else false (no header: NVRTC compiles this file too). PACKED:
 * the descriptors are LbPacked words of an 8-byte V, at agg, and the launcher clears them with the statuses. */
template <class P> __host__ __device__ constexpr auto lb_emits(int) -> decltype(P::EMIT, bool()) { return P::EMIT; }
template <class P> __host__ __device__ constexpr bool lb_emits(long) { return false; }
template <class P> __host__ __device__ constexpr auto lb_packed(int) -> decltype(P::PACKED, bool())
{
    return P::PACKED && sizeof(typename P::V) == 8;
}
template <class P> __host__ __device__ constexpr bool lb_packed(long) { return false; }
/* P::resets(v) where the policy declares it (lookback.cuh's lb_window: a value every fold ending in it returns
 * whole), else nothing resets */
template <class P> struct LbResets {
    template <class Q> static __device__ __forceinline__ auto ask(const typename Q::V &v, int) -> decltype(Q::resets(v))
    {
        return Q::resets(v);
    }
    template <class Q> static __device__ __forceinline__ bool ask(const typename Q::V &, long) { return false; }
    __device__ __forceinline__ bool operator()(const typename P::V &v) const { return ask<P>(v, 0); }
};
/* A thread's outputs from its L values v (prevL: the L before its run): C o L where the tile has a carry C (has),
 * exclusive shifted by one (thread 0 of tile 0 without a carry: the first value), segmented exclusive the first value
 * at every head (hb). */
template <class P>
__device__ __forceinline__ void lb_outputs(const typename P::V (&v)[P::R], const typename P::V &prevL,
                                           const typename P::V &C, bool has, int excl, unsigned hb,
                                           typename P::E (&eo)[P::R])
{
    constexpr int R = P::R;
    if (has) {
        if (!excl) {
#pragma unroll
            for (int k = 0; k < R; k++) eo[k] = P::out(P::comb(C, v[k]));
        } else {
#pragma unroll
            for (int k = R - 1; k > 0; k--) eo[k] = P::out(P::comb(C, v[k - 1]));
            eo[0] = threadIdx.x == 0 ? P::out(C) : P::out(P::comb(C, prevL));
        }
    } else {
        if (!excl) {
#pragma unroll
            for (int k = 0; k < R; k++) eo[k] = P::out(v[k]);
        } else {
#pragma unroll
            for (int k = R - 1; k > 0; k--) eo[k] = P::out(v[k - 1]);
            eo[0] = threadIdx.x == 0 ? P::first() : P::out(prevL);
        }
    }
    if (P::SEG && excl) {
#pragma unroll
        for (int k = 0; k < R; k++)
            if ((hb >> k) & 1u) eo[k] = P::first();
    }
}

/* One tile of the scan, for a policy P. x, y: n elements of P::E; heads: n bytes (P::SEG). Called by every thread of
 * a block of THREADS from the kernel (a grid of one block per tile). */
template <class P, class AUX = int>
__device__ __forceinline__ void lb_scan(const typename P::E *x, typename P::E *y, const unsigned char *heads, size_t n,
                                        int excl, unsigned *ticket, unsigned *status, typename P::V *agg,
                                        typename P::V *incl, const typename P::V *cin, typename P::V *cout,
                                        const AUX &aux = AUX())
{
    typedef typename P::V V;
    typedef typename P::E E;
    constexpr int R = P::R, WT = P::WT, PITCH = P::PITCH, EW = P::EW;
    __shared__ unsigned s_w[THREADS * PITCH];
    __shared__ V s_g[THREADS / 32], s_last[THREADS / 32], s_win[P::WINDOWS * 32];
    __shared__ V s_agg, s_pre;
    const size_t t = lb_ticket(ticket), e0 = t * (size_t)P::TILE, w0 = e0 * EW, nw = n * (size_t)EW;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned *xw = reinterpret_cast<const unsigned *>(x);
    unsigned *yw = reinterpret_cast<unsigned *>(y);
    constexpr int TW = THREADS * WT, NCH = TW / 4, PER = (NCH + THREADS - 1) / THREADS;
    const size_t mine = e0 + (size_t)threadIdx.x * R; /* this thread's first element */

    /* 1. the tile's words, coalesced, into shared memory at the thread pitch (and this thread's head bytes) */
    unsigned hb = 0; /* bit k: element mine + k starts a segment */
    if constexpr (P::SEG) hb = P::heads(heads, mine, n, aux);
    if (w0 + TW <= nw && ((unsigned long long)(xw + w0) & 15) == 0) {
        const uint4 *p = reinterpret_cast<const uint4 *>(xw + w0);
        uint4 c[PER];
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = i * THREADS + threadIdx.x;
            if (NCH % THREADS == 0 || q < NCH) c[i] = p[q];
        }
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = i * THREADS + threadIdx.x;
            if (NCH % THREADS == 0 || q < NCH) {
                const int e = 4 * q;
                s_w[e + e / WT] = c[i].x;
                s_w[e + 1 + (e + 1) / WT] = c[i].y;
                s_w[e + 2 + (e + 2) / WT] = c[i].z;
                s_w[e + 3 + (e + 3) / WT] = c[i].w;
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < WT; i++) {
            const int e = i * THREADS + threadIdx.x;
            if (w0 + e < nw) s_w[e + e / WT] = xw[w0 + e];
        }
    }
    __syncthreads();
    V v[R];
    {
        unsigned wr[WT];
#pragma unroll
        for (int j = 0; j < WT; j++) wr[j] = s_w[threadIdx.x * PITCH + j];
        E ev[R];
        memcpy(ev, wr, sizeof ev);
#pragma unroll
        for (int k = 0; k < R; k++) v[k] = mine + k < n ? P::make(ev[k], (hb >> k) & 1u) : P::pad();
    }
    /* the run, the tile scan */
#pragma unroll
    for (int k = 1; k < R; k++) v[k] = P::comb(v[k - 1], v[k]);
    const auto comb = [](const V &a, const V &b) { return P::comb(a, b); };
    const auto up = [](const V &a, int d) { return P::shfl_up(a, d); };
    const V S = lb_ks<32>(v[R - 1], comb, up);
    if (lane == 31) s_g[warp] = S;
    __syncthreads();
    if (warp == 0) {
        const V g = lb_ks<THREADS / 32>(lane < THREADS / 32 ? s_g[lane] : P::pad(), comb, up);
        if (lane < THREADS / 32) s_g[lane] = g;
    }
    const V Sprev = P::shfl_up(S, 1);
    __syncthreads();
    if (warp || lane) {
        const V Ex = warp && lane ? P::comb(s_g[warp - 1], Sprev) : warp ? s_g[warp - 1] : Sprev;
#pragma unroll
        for (int k = 0; k < R; k++) v[k] = P::comb(Ex, v[k]);
    }
    unsigned long long cbase = 0; /* EMIT: the heads before this thread's run in the tile */
    if constexpr (lb_emits<P>(0)) cbase = P::count(v[0]) - (hb & 1u);
    V prevL = P::shfl_up(v[R - 1], 1); /* the exclusive scan's first item of this thread */
    if (lane == 31) s_last[warp] = v[R - 1];
    if (threadIdx.x == THREADS - 1) s_agg = v[R - 1];
    __syncthreads();
    if (lane == 0 && warp) prevL = s_last[warp - 1];
    unsigned lf = 0; /* bit k: L_k's head flag (segmented) */
    { /* the L values wait in this thread's own words while warp 0 looks back */
        E ev[R];
#pragma unroll
        for (int k = 0; k < R; k++) {
            ev[k] = P::out(v[k]);
            lf |= (P::flag(v[k]) ? 1u : 0u) << k;
        }
        unsigned wr[WT];
        memcpy(wr, ev, sizeof ev);
#pragma unroll
        for (int j = 0; j < WT; j++) s_w[threadIdx.x * PITCH + j] = wr[j];
    }

    /* 2. publish the aggregate, look back, publish the inclusive prefix */
    /* PACKED (a value of 8 bytes): lookback.cuh's {status, value} words, 16 bytes a tile at agg (no fences); else a
     * status word and the two value arrays */
    typedef LbPacked<V> D;
    unsigned long long *const desc = reinterpret_cast<unsigned long long *>(agg);
    if (warp == 0 && t > 0) {
        const V A = s_agg;
        int N;
        if constexpr (lb_packed<P>(0)) {
            if (lane == 0) D::put(desc, t, LB_AGG, A);
            N = lb_window<P::WINDOWS, 0>(
                (long long)t, s_win, P::pad(), [&](size_t p, V *val) { return D::get(desc, p, val); }, LbResets<P>());
        } else {
            if (lane == 0) {
                agg[t] = A;
                st_release(status + t, LB_AGG);
            }
            N = lb_window<P::WINDOWS, 0>((long long)t, s_win, P::pad(), [&](size_t p, V *val) {
                const unsigned f = ld_acquire(status + p);
                if (f != LB_NONE) *val = P::load_cg(f == LB_INCL ? incl + p : agg + p);
                return f;
            }, LbResets<P>());
        }
        if (lane == 0) { /* s_win[j] holds tile t-1-j: fold forward from the inclusive prefix, oldest first */
            const V pre = lb_fold_serial(s_win, N, comb);
            if constexpr (lb_packed<P>(0)) {
                D::put(desc, t, LB_INCL, P::comb(pre, A));
            } else {
                incl[t] = P::comb(pre, A);
                st_release(status + t, LB_INCL);
            }
            s_pre = pre;
        }
    } else if (warp == 0 && lane == 0) { /* tile 0: its aggregate is its inclusive prefix, after a carry in (I_-1) */
        V I0 = s_agg;
        if (cin) {
            const V pre = *cin;
            I0 = P::comb(pre, s_agg);
            s_pre = pre;
        }
        if constexpr (lb_packed<P>(0)) {
            D::put(desc, 0, LB_INCL, I0);
        } else {
            incl[0] = I0;
            st_release(status, LB_INCL);
        }
    }
    __syncthreads();
    const bool has = t > 0 || cin != nullptr;

    /* 3. the outputs: C o L, exclusive shifted by one (tile 0: L itself, the first value first; segmented: the
     * first value at every head) */
    {
        unsigned wr[WT];
#pragma unroll
        for (int j = 0; j < WT; j++) wr[j] = s_w[threadIdx.x * PITCH + j];
        E ev[R];
        memcpy(ev, wr, sizeof ev);
#pragma unroll
        for (int k = 0; k < R; k++) v[k] = P::make(ev[k], (lf >> k) & 1u);
    }
    /* the carry out: the last element's inclusive value (not the padded tile end's, as in scan.cu) */
    if (cout && t == gridDim.x - 1 && threadIdx.x == (n - 1 - e0) / R) {
        V lv = v[0];
#pragma unroll
        for (int k = 1; k < R; k++)
            if ((size_t)k == (n - 1 - e0) % R) lv = v[k];
        *cout = has ? P::comb(s_pre, lv) : lv;
    }
    if constexpr (lb_emits<P>(0)) {
        V w[R];
#pragma unroll
        for (int k = 0; k < R; k++) w[k] = has ? P::comb(s_pre, v[k]) : v[k];
        P::emit(w, has ? P::count(s_pre) : 0ull, cbase, hb, mine, n, aux);
        return;
    }
    E eo[R];
    lb_outputs<P>(v, prevL, s_pre, has, excl, hb, eo);
    {
        unsigned wr[WT];
        memcpy(wr, eo, sizeof eo);
#pragma unroll
        for (int j = 0; j < WT; j++) s_w[threadIdx.x * PITCH + j] = wr[j];
    }
    __syncthreads();
    if (w0 + TW <= nw && ((unsigned long long)(yw + w0) & 15) == 0) {
        uint4 *p = reinterpret_cast<uint4 *>(yw + w0);
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = i * THREADS + threadIdx.x;
            if (NCH % THREADS == 0 || q < NCH) {
                const int e = 4 * q;
                p[q] = make_uint4(s_w[e + e / WT], s_w[e + 1 + (e + 1) / WT], s_w[e + 2 + (e + 2) / WT],
                                  s_w[e + 3 + (e + 3) / WT]);
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < WT; i++) {
            const int e = i * THREADS + threadIdx.x;
            if (w0 + e < nw) yw[w0 + e] = s_w[e + e / WT];
        }
    }
}

