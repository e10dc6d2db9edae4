/*
 * te_lb.cuh — scan_lb.cuh's policy scans on the tile engine (sm_90; docs/design/scan.md, "By key on the tile
 * engine"). The tiles, runs and every combine are lb_scan's, in its order, so the bits are its. The copy engine brings
 * the tile's words into a stage (a box of 128-byte rows, 128-byte swizzle: each thread's run is read as 16-byte vectors
 * without bank conflicts); the look-back warp folds the window (serially, in lane 0, as lb_scan) and publishes the
 * inclusive prefix. Who forms a tile's aggregate depends on the policy:
 *   - heads that arrive with the words — bits in device memory (P::TE_BITS: gp_scan_segmented's) or 4-byte keys
 *     (P::TE_KEYS: scans by key), brought in by the copy engine beside them: a reducer warp folds the tile as it lands
 *     (tile_engine.cuh's te_run), and the consumers scan it whole;
 *   - heads formed from other keys or bytes: tile_engine.cuh's te_run_ahead — a tile ahead of scanning it the
 *     consumers form every run's head bits (P::heads, once), each run's exclusive prefix in the tile and the tile's
 *     aggregate exactly as lb_scan forms its last element, and publish it; the scan then starts each run from its
 *     prefix.
 * The outputs go into the stage (the producer stores it; the elements past the last whole row by their threads) or to
 * P::emit (with the consumers' barrier). Policies with an 8-byte V (LbPacked descriptors), runs of whole 16-byte
 * vectors, no carries in or out. Included after tma.cuh, tile_engine.cuh, lookback.cuh and scan_lb.cuh; THREADS (the
 * consumers, 256) defined.
 */
#ifndef GP_TE_LB_CUH
#define GP_TE_LB_CUH

/* P::TE_BITS where the policy declares it (its heads: one bit an element in device memory, whole tiles of them, the
 * words 16-byte aligned), else false */
template <class P> __host__ __device__ constexpr auto lb_te_bits(int) -> decltype(P::TE_BITS, bool())
{
    return P::TE_BITS;
}
template <class P> __host__ __device__ constexpr bool lb_te_bits(long) { return false; }
/* P::TE_KEYS where the policy declares it (its heads: 4-byte keys compared, brought in beside the values; the policy
 * gives te_keys(aux), the keys or NULL where they do not qualify, and te_key_bits), else false */
template <class P> __host__ __device__ constexpr auto lb_te_keys(int) -> decltype(P::TE_KEYS, bool())
{
    return P::TE_KEYS;
}
template <class P> __host__ __device__ constexpr bool lb_te_keys(long) { return false; }

/* the policy's shape on the engine; STAGES stages of one tile's words (and of its head bits, TE_BITS, or keys,
 * TE_KEYS: a second ring of the same shape after the first) */
template <class P, int STAGES> struct TeLb {
    static constexpr int R = P::R, WT = P::WT, CH = WT * 4 / 16; /* a run's 16-byte chunks */
    static constexpr unsigned BYTES = (unsigned)P::TILE * P::EW * 4;
    static constexpr int ROWS = (int)(BYTES / 128);
    static constexpr int RE = 128 / (4 * P::EW); /* elements per 128-byte row */
    static constexpr bool BITS = lb_te_bits<P>(0);
    static constexpr unsigned HB = BITS ? (unsigned)P::TILE / 8 : 0; /* a tile's head bits, bytes */
    static constexpr bool KEYS = lb_te_keys<P>(0);
    static constexpr bool RED = BITS || KEYS; /* a reducer warp folds each tile as it lands (te_run) */
    static constexpr unsigned KBYTES = KEYS ? BYTES : 0; /* a tile's 4-byte keys */
    static constexpr size_t SMEM = (size_t)STAGES * (BYTES + KBYTES) + 1024;
    static constexpr bool FITS = sizeof(typename P::V) == 8 && WT * 4 % 16 == 0 && THREADS == TE_CONSUMERS &&
                                 ROWS <= 256 && (!BITS || (R == 16 && HB % 16 == 0)) &&
                                 (!KEYS || (P::EW == 1 && R == 16));
};

/* an 8-byte value from lane src (every lane of the warp) */
template <typename V> __device__ __forceinline__ V te_shfl8(const V &v, int src)
{
    static_assert(sizeof(V) == 8, "8-byte values");
    unsigned long long u;
    memcpy(&u, &v, 8);
    u = __shfl_sync(0xffffffffu, u, src);
    V r;
    memcpy(&r, &u, 8);
    return r;
}

/* the consumers' barrier as a policy's emit takes it */
struct TeConsumerSync {
    __device__ __forceinline__ void operator()() const { te_consumer_sync(); }
};

/* The engine's body, called by every thread of a block of TE_THREADS from a kernel holding the tensor maps of x and
 * y (y's unused by EMIT policies) and of the keys (TE_KEYS). ring0: C::SMEM - 1024 bytes of dynamic shared memory,
 * 1024-byte aligned. desc: the LbPacked words (2 a tile), ticket: lookback.cuh's. */
template <class P, int STAGES, class AUX>
__device__ __forceinline__ void te_lb_scan(const CUtensorMap *mx, const CUtensorMap *my, const CUtensorMap *mk,
                                           const typename P::E *x,
                                           typename P::E *y, const unsigned char *heads, size_t n, int excl,
                                           unsigned *ticket, unsigned long long *desc, const AUX &aux,
                                           unsigned char *ring0)
{
    typedef typename P::V V;
    typedef typename P::E E;
    typedef LbPacked<V> D;
    typedef TeLb<P, STAGES> C;
    constexpr int R = P::R, WARPS = THREADS / 32;
    static_assert(C::FITS, "an 8-byte V, runs of whole 16-byte vectors, 256 consumers");
    __shared__ TeRing<STAGES> ring;
    /* a consumer's own slots for the tiles it holds (i & 1): its run's head bits and exclusive prefix in the tile */
    __shared__ unsigned s_hb[2][THREADS];
    __shared__ V s_ex[2][THREADS];
    __shared__ V s_last[2][WARPS], s_red[2][WARPS], s_agg[STAGES], s_pre[STAGES];
    __shared__ V s_win[P::WINDOWS * 32];
    __shared__ __align__(16) unsigned short s_bits[STAGES][C::BITS ? THREADS : 1]; /* TE_BITS: a run's 16 a word */
    const size_t ntiles = (n + P::TILE - 1) / P::TILE, rows = n / C::RE, nfull = rows * C::RE;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const auto comb = [](const V &a, const V &b) { return P::comb(a, b); };
    const auto up = [](const V &a, int d) { return P::shfl_up(a, d); };
    if (threadIdx.x == 0) {
        ring.init();
        prefetch_tensor_map(mx);
        if (my) prefetch_tensor_map(my);
        if (C::KEYS) prefetch_tensor_map(mk);
    }
    __syncthreads();

    /* run j's R elements of the tile in stage s as the pairs the scan starts from (past the whole rows from x, past
     * n the pad) */
    const auto run_in = [&](int s, size_t t, unsigned j, unsigned hb, V *v) {
        uint4 w[C::CH];
#pragma unroll
        for (int c = 0; c < C::CH; c++)
            w[c] = *reinterpret_cast<const uint4 *>(ring0 + (size_t)s * C::BYTES + swizzle128(j * (C::WT * 4) + 16u * c));
        E ev[R];
        memcpy(ev, w, sizeof ev);
        const size_t mine = t * P::TILE + (size_t)j * R;
#pragma unroll
        for (int k = 0; k < R; k++)
            v[k] = mine + k >= n ? P::pad() : P::make(mine + k >= nfull ? x[mine + k] : ev[k], (hb >> k) & 1u);
    };
    const auto load = [&](int s, size_t t, unsigned bar) {
        const bool rows_in = t * C::ROWS < rows; /* else a tile of less than one row: its threads read it */
        if (rows_in || C::BITS) {
            mbar_arrive_tx(bar, (rows_in ? C::BYTES + C::KBYTES : 0u) + C::HB);
            if (rows_in) tma_load_2d(smem_addr(ring0 + (size_t)s * C::BYTES), mx, 0, (int)(t * C::ROWS), bar);
            if (rows_in && C::KEYS)
                tma_load_2d(smem_addr(ring0 + (size_t)(STAGES + s) * C::BYTES), mk, 0, (int)(t * C::ROWS), bar);
            if (C::BITS) bulk_load(smem_addr(&s_bits[s][0]), heads + t * C::HB, C::HB, bar); /* whole tiles of bits */
        } else {
            mbar_arrive(bar);
        }
    };
    const auto store = [&](int s, size_t t) {
        if (!lb_emits<P>(0) && t * C::ROWS < rows)
            tma_store_2d(my, 0, (int)(t * C::ROWS), smem_addr(ring0 + (size_t)s * C::BYTES));
    };
    const auto look = [&](int s, size_t t) {
        if (t == 0) return;
        const V A = s_agg[s];
        const int N = lb_window<P::WINDOWS, 0>(
            (long long)t, s_win, P::pad(), [&](size_t p, V *val) { return D::get(desc, p, val); }, LbResets<P>());
        if (lane == 0) { /* s_win[j] holds tile t-1-j: fold forward from the inclusive prefix, oldest first */
            const V pre = lb_fold_serial(s_win, N, comb);
            D::put(desc, t, LB_INCL, P::comb(pre, A));
            s_pre[s] = pre;
        }
    };
    /* lb_scan's steps up to the tile's last element, a tile ahead of the scan (te_run_ahead): each thread its run's
     * head bits and fold, each warp the scan of its runs' folds, every warp the 8 warp totals; each thread keeps its
     * head bits and exclusive prefix in the tile Ex for the scan; thread 255 publishes the aggregate, (Ex o fold) */
    const auto pre = [&](int s, size_t t, unsigned i) -> bool {
        const unsigned hb = P::heads(heads, t * P::TILE + (size_t)threadIdx.x * R, n, aux);
        s_hb[i & 1][threadIdx.x] = hb;
        V v[R];
        run_in(s, t, threadIdx.x, hb, v);
        V a = v[0];
#pragma unroll
        for (int k = 1; k < R; k++) a = P::comb(a, v[k]);
        const V S = lb_ks<32>(a, comb, up);
        if (lane == 31) s_red[i & 1][warp] = S;
        te_consumer_sync();
        const V g = lb_ks<WARPS>(lane < WARPS ? s_red[i & 1][lane] : P::pad(), comb, up);
        const V Gp = te_shfl8(g, (warp + 31) & 31), Sprev = P::shfl_up(S, 1);
        const V Ex = warp && lane ? P::comb(Gp, Sprev) : warp ? Gp : Sprev; /* thread 0: none */
        s_ex[i & 1][threadIdx.x] = Ex;
        if (threadIdx.x != THREADS - 1) return false;
        const V A = P::comb(Ex, a);
        s_agg[s] = A;
        D::put(desc, t, t == 0 ? LB_INCL : LB_AGG, A); /* tile 0: its aggregate is its inclusive prefix */
        return true;
    };
    /* the rest of lb_scan's steps from each run's inclusive values in the tile (v); the outputs into the stage (the
     * tail directly) or to emit */
    const auto finish = [&](int s, size_t t, unsigned i, unsigned hb, V (&v)[R]) {
        const size_t t0 = t * P::TILE, mine = t0 + (size_t)threadIdx.x * R;
        const bool has = t > 0;
        if constexpr (lb_emits<P>(0)) {
            const unsigned long long cbase = P::count(v[0]) - (hb & 1u);
            V w[R];
#pragma unroll
            for (int k = 0; k < R; k++) w[k] = has ? P::comb(s_pre[s], v[k]) : v[k];
            P::emit(w, has ? P::count(s_pre[s]) : 0ull, cbase, hb, mine, n, aux, TeConsumerSync());
        } else {
            E eo[R];
            V prevL = P::shfl_up(v[R - 1], 1);
            if (excl) {
                if (lane == 31) s_last[i & 1][warp] = v[R - 1];
                te_consumer_sync();
                if (lane == 0 && warp) prevL = s_last[i & 1][warp - 1];
            }
            lb_outputs<P>(v, prevL, s_pre[s], has, excl, hb, eo); /* s_pre[s] read only where has */
            if (t * C::ROWS < rows) {
                uint4 w[C::CH];
                memcpy(w, eo, sizeof eo);
#pragma unroll
                for (int c = 0; c < C::CH; c++)
                    *reinterpret_cast<uint4 *>(ring0 + (size_t)s * C::BYTES +
                                               swizzle128(threadIdx.x * (C::WT * 4) + 16u * c)) = w[c];
            }
            if (t0 + P::TILE > nfull)
#pragma unroll
                for (int k = 0; k < R; k++)
                    if (mine + k >= nfull && mine + k < n) y[mine + k] = eo[k];
        }
    };
    if constexpr (C::RED) {
        /* run j's head bits: TE_BITS from the stage's bits; TE_KEYS from its keys (and the key before the run: the
         * run before's last, or the tile before's from memory), past the whole rows from memory */
        const auto hbits = [&](int s, size_t t, unsigned j) -> unsigned {
            if constexpr (C::BITS) {
                return s_bits[s][j];
            } else {
                const unsigned *kg = static_cast<const unsigned *>(P::te_keys(aux));
                const unsigned char *ks = ring0 + (size_t)(STAGES + s) * C::BYTES;
                const size_t mine = t * P::TILE + (size_t)j * R;
                uint4 w[C::CH];
#pragma unroll
                for (int c = 0; c < C::CH; c++)
                    w[c] = *reinterpret_cast<const uint4 *>(ks + swizzle128(j * (C::WT * 4) + 16u * c));
                unsigned kv[R];
                memcpy(kv, w, sizeof kv);
                if (t * P::TILE + P::TILE > nfull)
#pragma unroll
                    for (int k = 0; k < R; k++)
                        if (mine + k >= nfull && mine + k < n) kv[k] = kg[mine + k];
                unsigned prev = 0;
                if (mine > 0)
                    prev = j == 0 || mine - 1 >= nfull
                               ? kg[mine - 1]
                               : *reinterpret_cast<const unsigned *>(ks + swizzle128((j * R - 1) * 4u));
                return P::te_key_bits(kv, prev, mine, n, aux);
            }
        };
        /* the tile's aggregate, combined as lb_scan combines its last element: lane l folds runs l, 32 + l, ...,
         * 224 + l (one of each consumer warp), scans each warp's run folds as that warp does, then the 8 warp totals;
         * the last element's L = (G_6 o S_30 of warp 7) o the last run's fold */
        const auto reduce = [&](int s, size_t t) {
            V g = P::pad(), S30 = P::pad(), Rl = P::pad();
#pragma unroll
            for (int w = 0; w < WARPS; w++) {
                const unsigned j = (unsigned)(w * 32 + lane);
                V v[R];
                run_in(s, t, j, hbits(s, t, j), v);
                V a = v[0];
#pragma unroll
                for (int k = 1; k < R; k++) a = P::comb(a, v[k]);
                const V Sx = lb_ks<32>(a, comb, up);
                const V tw = te_shfl8(Sx, 31);
                if (lane == w) g = tw;
                if (w == WARPS - 1) {
                    S30 = te_shfl8(Sx, 30);
                    Rl = te_shfl8(a, 31);
                }
            }
            g = lb_ks<WARPS>(g, comb, up);
            const V G = te_shfl8(g, WARPS - 2);
            if (lane == 0) {
                const V A = P::comb(P::comb(G, S30), Rl);
                s_agg[s] = A;
                D::put(desc, t, t == 0 ? LB_INCL : LB_AGG, A); /* tile 0: its aggregate is its inclusive prefix */
            }
        };
        /* lb_scan's tile scan: each run's inclusive values, the warp's scan of the run folds, every warp the 8 warp
         * totals (one barrier), each run combined with its prefix in the tile */
        const auto scan = [&](int s, size_t t, unsigned i) {
            const unsigned hb = hbits(s, t, threadIdx.x);
            V v[R];
            run_in(s, t, threadIdx.x, hb, v);
#pragma unroll
            for (int k = 1; k < R; k++) v[k] = P::comb(v[k - 1], v[k]);
            const V S = lb_ks<32>(v[R - 1], comb, up);
            if (lane == 31) s_red[i & 1][warp] = S;
            te_consumer_sync();
            const V g = lb_ks<WARPS>(lane < WARPS ? s_red[i & 1][lane] : P::pad(), comb, up);
            const V Gp = te_shfl8(g, (warp + 31) & 31), Sprev = P::shfl_up(S, 1);
            if (warp || lane) {
                const V Ex = warp && lane ? P::comb(Gp, Sprev) : warp ? Gp : Sprev;
#pragma unroll
                for (int k = 0; k < R; k++) v[k] = P::comb(Ex, v[k]);
            }
            finish(s, t, i, hb, v);
        };
        te_run<STAGES>(ring, ticket, ntiles, load, store, reduce, look, scan);
    } else {
        /* the scan from pre's head bits and prefix */
        const auto scan = [&](int s, size_t t, unsigned i) {
            const unsigned hb = s_hb[i & 1][threadIdx.x];
            V v[R];
            run_in(s, t, threadIdx.x, hb, v);
#pragma unroll
            for (int k = 1; k < R; k++) v[k] = P::comb(v[k - 1], v[k]);
            if (warp || lane) {
                const V Ex = s_ex[i & 1][threadIdx.x];
#pragma unroll
                for (int k = 0; k < R; k++) v[k] = P::comb(Ex, v[k]);
            }
            finish(s, t, i, hb, v);
        };
        te_run_ahead<STAGES>(ring, ticket, ntiles, load, store, pre, look, scan);
    }
}

/* ---- the kernel and its launch, for the families' launchers (bykey.cu, scan_general.cu; scan_tuning.h's knobs) */
template <class P> __host__ __device__ constexpr int te_lb_stages()
{
    return lb_emits<P>(0) ? GP_TE_LB_STAGES_EMIT : lb_te_keys<P>(0) ? GP_TE_LB_STAGES_KEYS : GP_TE_LB_STAGES;
}
template <class P> __host__ __device__ constexpr bool te_lb_fits() { return TeLb<P, te_lb_stages<P>()>::FITS; }

template <class P, class AUX>
__global__ void __launch_bounds__(TE_THREADS, GP_TE_LB_MINB)
    k_te_lb(const __grid_constant__ CUtensorMap mx, const __grid_constant__ CUtensorMap my,
            const __grid_constant__ CUtensorMap mk, const typename P::E *x,
            typename P::E *y, const unsigned char *heads, size_t n, int excl, unsigned *ticket,
            unsigned long long *desc, const AUX aux)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ unsigned char te_dyn[];
    unsigned char *const ring0 = te_dyn + ((1024u - (smem_addr(te_dyn) & 1023u)) & 1023u);
    te_lb_scan<P, te_lb_stages<P>()>(&mx, lb_emits<P>(0) ? nullptr : &my, &mk, x, y, heads, n, excl, ticket, desc,
                                     aux, ring0);
#else
    static_assert(te_lb_fits<P>(), "the engine is sm_90 code: empty here");
#endif
}

/* The pass on the engine where it takes it: *done = 1 once launched, 0 where it does not take it (the caller runs
 * lb_scan's kernel). autow: the tuning table's choice for this family; forced through gp__scan_force_kernel. Takes
 * sm_90 with the kernel's sm_90 code, x and y 16-byte aligned (y NULL for emit), n from the least it takes, rows a
 * tensor map addresses; TE_BITS: the bits 16-byte aligned; TE_KEYS: keys the policy takes (P::te_keys). w: lb_scan's
 * packed workspace, cleared (the ticket at w, the descriptors at w + head). */
template <class P, class AUX>
gp_status_t te_lb_launch(gp_ctx_t *ctx, const char *fn, bool autow, size_t n, const void *x, void *y,
                         const unsigned char *heads, int excl, const AUX &aux, char *w, size_t head, cudaStream_t s,
                         int *done)
{
    *done = 0;
    if constexpr (te_lb_fits<P>()) {
        typedef TeLb<P, te_lb_stages<P>()> C;
        const gp__scan_kernel_t k = gp__scan_forced_kernel();
        const bool want = k == GP__SCAN_KERNEL_ENGINE || (k == GP__SCAN_KERNEL_AUTO && autow);
        const size_t least = k == GP__SCAN_KERNEL_ENGINE ? GP_TE_LB_MIN_N : GP_TE_LB_AUTO_MIN_N;
        if (!want || ctx->cc_major < 9 || n < least || n / C::RE > 0x7fffffffu || ((uintptr_t)x & 15) != 0 ||
            ((uintptr_t)y & 15) != 0 || (C::BITS && ((uintptr_t)heads & 15) != 0) || tma_encoder() == NULL)
            return GP_OK;
        const void *keys = nullptr;
        if constexpr (C::KEYS) {
            if ((keys = P::te_keys(aux)) == nullptr) return GP_OK;
        }
        static TeShape sh;
        int per_sm = 0;
        const cudaError_t e = te_shape_of(sh, ctx, (const void *)k_te_lb<P, AUX>, C::SMEM, TE_THREADS, &per_sm);
        if (e != cudaSuccess) return gp__cuda_error(e, "the tile engine's launch shape", __FILE__, __LINE__);
        if (per_sm == 0) return GP_OK;
        const size_t rows = n / C::RE, ntiles = (n + P::TILE - 1) / P::TILE, fit = (size_t)ctx->sm_count * per_sm;
        CUtensorMap mx, my, mk;
        memset(&my, 0, sizeof my);
        memset(&mk, 0, sizeof mk);
        GP_TRY_RET(te_row_map(&mx, x, rows, 4, C::ROWS, fn));
        if (!lb_emits<P>(0)) GP_TRY_RET(te_row_map(&my, y, rows, 4, C::ROWS, fn));
        if (keys) GP_TRY_RET(te_row_map(&mk, keys, rows, 4, C::ROWS, fn));
        k_te_lb<P, AUX><<<(unsigned)(ntiles < fit ? ntiles : fit), TE_THREADS, C::SMEM, s>>>(
            mx, my, mk, (const typename P::E *)x, (typename P::E *)y, heads, n, excl, (unsigned *)w,
            (unsigned long long *)(w + head), aux);
        *done = 1;
        return GP_CHECK_LAUNCH(fn);
    }
    (void)ctx, (void)fn, (void)autow, (void)n, (void)x, (void)y, (void)heads, (void)excl, (void)aux, (void)w;
    (void)head, (void)s;
    return GP_OK;
}

#endif
