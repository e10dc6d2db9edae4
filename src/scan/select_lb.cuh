/*
 * select_lb.cuh — the single pass of select / partition / unique for one tile (keep bits ranked by warp shuffles, a
 * decoupled look-back over the predecessors' kept counts, stores at the global rank), over a keep policy. Included by
 * select.cu (the built-in predicates, unique) and embedded as text for NVRTC (src/jit: gp_select_if, a user's
 * predicate), so both run the same code: it uses no header, only CUDA built-ins and lookback.cuh (included or
 * embedded before it). The includer may define the tuning knobs before it (CMake GP_SELECT_TUNE, select.cu only).
 */
/* The single pass's tuning table (docs/design/scan.md, "Tuning"; -D overrides for experiments, CMake GP_SELECT_TUNE):
 * warps per block, tiles its look-back requests per round trip (a multiple of 32), and a back-off between polls of a
 * descriptor not yet published (0: poll at once). */
#ifndef GP_SELECT_WARPS
#define GP_SELECT_WARPS 8
#endif
#ifndef GP_SELECT_LOOKBACK
#define GP_SELECT_LOOKBACK 32
#endif
#ifndef GP_SELECT_BACKOFF_NS
#define GP_SELECT_BACKOFF_NS 0
#endif
/* the blocks per SM the launch bounds ask for (a predicate's select, the rest; 1-byte types 4), and whether a tile is
 * taken by ticket (1) or is the block's index (0: blocks start in index order on NVIDIA's GPUs, not promised). H100,
 * select f32 2^28: 6 blocks 854 us, 8 blocks (32 registers) 784, and 20 us less without the ticket (docs/design/
 * scan.md, "Tuning") */
#ifndef GP_SELECT_MINB_PRED
#define GP_SELECT_MINB_PRED 8
#endif
#ifndef GP_SELECT_MINB
#define GP_SELECT_MINB 5
#endif
#ifndef GP_SELECT_TICKET
#define GP_SELECT_TICKET 1
#endif
/* whether a whole tile's keep bits are made apart from a last tile's, with no bounds test (a predicate's select at
 * 8 blocks per SM spilled 108 bytes a thread in the JIT's module without it, 4 with it) */
#ifndef GP_SELECT_FULL_MASKS
#define GP_SELECT_FULL_MASKS 1
#endif
/* rounds of one 16-byte vector a lane in the tiles of select, partition and unique's block kernel (run-length
 * encoding and the tile engine keep 4) */
#ifndef GP_SELECT_ROUNDS
#define GP_SELECT_ROUNDS 4
#endif
constexpr int SEL_THREADS = 32 * GP_SELECT_WARPS;

/* What the single pass keeps: MODE_PRED by the predicate, MODE_HEAD the first element of each run of equal ones,
 * MODE_RLE those and each run's length. */
enum { MODE_PRED, MODE_HEAD, MODE_RLE };

/* ---- the single pass (select, partition, unique): one block per tile of 8 warps x 4 rounds x 32 lanes x
 * one 16-byte vector, tiles in ticket order. Each warp holds a contiguous segment; a lane's keep bits per round are
 * counted into 16-bit fields of one 64-bit word (a round's warp total is at most 32 x 16), scanned across the warp by
 * shuffles; the 8 warp totals give the tile's aggregate; warp 0 looks back over the predecessors' descriptors (a count
 * is an integer sum: the window is summed in parallel, any order); then every kept element is stored at its global
 * rank (a warp's stores of one round fill a contiguous range). Descriptors: lookback.cuh's count words. */
constexpr int ROUNDS = 4, WARPS = GP_SELECT_WARPS, LOOKBACK = GP_SELECT_LOOKBACK;
/* the rounds of MODE's block kernel, and the bits of a round's count in a lane's packed word (10 beyond four rounds:
 * a round's warp total is at most 32 x 16) */
template <int MODE> __host__ __device__ constexpr int sel_rounds()
{
    return MODE == MODE_RLE ? ROUNDS : GP_SELECT_ROUNDS;
}
/* the elements of one tile of MODE's block kernel, and its tiles over n elements of S */
template <typename S, int MODE> __host__ __device__ constexpr size_t sel_tile()
{
    return (size_t)WARPS * 32 * sel_rounds<MODE>() * (16 / sizeof(S));
}
template <typename S, int MODE> __host__ __device__ constexpr size_t sel_tiles(size_t n)
{
    return (n + sel_tile<S, MODE>() - 1) / sel_tile<S, MODE>();
}
template <int R> __host__ __device__ constexpr int sel_fb() { return R <= 4 ? 16 : 10; }
template <int R> __device__ __forceinline__ unsigned sel_field(unsigned long long p, int r)
{
    static_assert(R * sel_fb<R>() <= 64, "a lane's round counts fit one word");
    return (unsigned)(p >> (sel_fb<R>() * r)) & ((1u << sel_fb<R>()) - 1);
}
/* blocks per SM the launch bounds ask for: per8 blocks of 8 warps, scaled to the block's warps; of MODE's block kernel
 * over S (PART: a partition's) */
__host__ __device__ constexpr int min_blocks(int per8) { return per8 * 8 / WARPS; }
template <typename S, int MODE, int PART> __host__ __device__ constexpr int sel_min_blocks()
{
    return min_blocks(sizeof(S) < 4 ? 4 : MODE == MODE_PRED && !PART ? GP_SELECT_MINB_PRED : GP_SELECT_MINB);
}

template <typename S> __device__ __forceinline__ S shfl_up1(S v)
{
    if constexpr (sizeof(S) < 4) return (S)__shfl_up_sync(0xffffffffu, (unsigned)v, 1);
    else return __shfl_up_sync(0xffffffffu, v, 1);
}
template <typename S> __device__ __forceinline__ S shfl_from(S v, int lane)
{
    if constexpr (sizeof(S) < 4) return (S)__shfl_sync(0xffffffffu, (unsigned)v, lane);
    else return __shfl_sync(0xffffffffu, v, lane);
}
/* element k of a 16-byte vector of S (k a constant after unrolling: a shift, no local memory) */
template <typename S> __device__ __forceinline__ S elem(const uint4 &w, int k)
{
    const unsigned u[4] = {w.x, w.y, w.z, w.w};
    S s;
    if constexpr (sizeof(S) == 8) {
        const unsigned long long b = (unsigned long long)u[2 * k + 1] << 32 | u[2 * k];
        memcpy(&s, &b, 8);
    } else if constexpr (sizeof(S) == 4) {
        memcpy(&s, &u[k], 4);
    } else if constexpr (sizeof(S) == 2) {
        const unsigned short b = (unsigned short)(u[k / 2] >> (16 * (k % 2)));
        memcpy(&s, &b, 2);
    } else {
        const unsigned char b = (unsigned char)(u[k / 4] >> (8 * (k % 4)));
        memcpy(&s, &b, 1);
    }
    return s;
}
/* element k of the (zeroed) vector w = s */
template <typename S> __device__ __forceinline__ void set_elem(uint4 &w, int k, S s)
{
    unsigned *u[4] = {&w.x, &w.y, &w.z, &w.w};
    if constexpr (sizeof(S) == 8) {
        unsigned long long b;
        memcpy(&b, &s, 8);
        *u[2 * k] = (unsigned)b;
        *u[2 * k + 1] = (unsigned)(b >> 32);
    } else if constexpr (sizeof(S) == 4) {
        memcpy(u[k], &s, 4);
    } else if constexpr (sizeof(S) == 2) {
        unsigned short b;
        memcpy(&b, &s, 2);
        *u[k / 2] |= (unsigned)b << (16 * (k % 2));
    } else {
        unsigned char b;
        memcpy(&b, &s, 1);
        *u[k / 4] |= (unsigned)b << (8 * (k % 4));
    }
}
/* The keep bits of one warp's segment (its lanes' vectors v[r]: elements base + (r * 32 + lane) * VEC + k), one word
 * per round (VEC <= 16 bits), and their counts packed sel_fb<R>() bits per round (returned). before: lane 0's element
 * before the segment (MODE_HEAD, MODE_RLE; unused at index 0). */
template <typename S, int MODE, int R = ROUNDS, bool FULL = false, class K>
__device__ __forceinline__ unsigned long long sel_masks(const uint4 *v, size_t base, size_t n, const K &keeper,
                                                        S before, unsigned *m)
{
    constexpr int VEC = 16 / (int)sizeof(S);
    const int lane = threadIdx.x & 31;
    unsigned long long packed = 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        const size_t i0 = base + (size_t)(r * 32 + lane) * VEC;
        S prev = (S)0;
        if constexpr (MODE != MODE_PRED) {
            const S up = shfl_up1(elem<S>(v[r], VEC - 1)), w31 = shfl_from(elem<S>(v[r > 0 ? r - 1 : 0], VEC - 1), 31);
            prev = lane ? up : r ? w31 : before;
        }
        m[r] = 0;
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const size_t i = i0 + k;
            const S e = elem<S>(v[r], k);
            bool keep;
            if constexpr (MODE != MODE_PRED) keep = i == 0 || !keeper.eq(e, k ? elem<S>(v[r], k - 1) : prev);
            else keep = keeper.keep(e, i, n);
            m[r] |= (unsigned)(keep && (FULL || i < n)) << k;
        }
        packed |= (unsigned long long)__popc(m[r]) << (sel_fb<R>() * r);
    }
    return packed;
}
/* The warp's ranks: off[r] = the kept elements of the segment before this lane's round r, returned the segment's
 * kept count. */
template <int R = ROUNDS> __device__ __forceinline__ unsigned sel_rank(unsigned long long packed, unsigned *off)
{
    const int lane = threadIdx.x & 31;
    unsigned long long incl = packed;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned long long o = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += o;
    }
    const unsigned long long wtot = __shfl_sync(0xffffffffu, incl, 31), excl = incl - packed;
    unsigned run = 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        off[r] = run + sel_field<R>(excl, r);
        run += sel_field<R>(wtot, r);
    }
    return run;
}
/* The warp's kept elements, compacted in order into its part of the stage (stage[0, run)), then (PART) its rejected
 * ones after them; RLE: each kept head's place in the tile into pos (seg0: the segment's first place). */
template <typename S, int PART, bool RLE, int R = ROUNDS>
__device__ __forceinline__ void sel_compact(const uint4 *v, const unsigned *m, const unsigned *off, unsigned run,
                                            S *stage, unsigned short *pos, int seg0)
{
    constexpr int VEC = 16 / (int)sizeof(S);
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int li0 = (r * 32 + lane) * VEC;
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const int rank = (int)off[r] + __popc(m[r] & ((1u << k) - 1));
            if (m[r] >> k & 1) {
                stage[rank] = elem<S>(v[r], k);
                if (RLE) pos[rank] = (unsigned short)(seg0 + li0 + k);
            } else if (PART) stage[run + li0 + k - rank] = elem<S>(v[r], k);
        }
    }
}

/* One tile of the single pass over elements S, for a keep policy K: K.prepare() (once per thread, before the
 * ticket), K.keep(e, i, n) (MODE_PRED: is element e at index i kept; i may be past n: the answer is then discarded,
 * but K must not read memory there) and K.eq(a, b) (MODE_HEAD, MODE_RLE: equal by value). PART: partition (the
 * rejected elements after the kept ones; *total = the kept count, known before this launch). MODE_RLE: lengths[r] =
 * run r's length; the descriptors are count-and-position pairs (a run's length needs where the run before the tile's
 * first head began); 2- to 8-byte S (the heads' positions are staged as 16 bits beside the values). Called by every
 * thread of a block of SEL_THREADS from the kernel (a grid of one block per tile). */
template <typename S, int MODE, int PART, class K>
__device__ __forceinline__ void sel_body(const S *x, size_t n, K keeper, S *y, unsigned *ticket,
                                         unsigned long long *desc, const unsigned long long *total,
                                         unsigned long long *count_out, unsigned long long *lengths = nullptr)
{
    constexpr int R = sel_rounds<MODE>(), VEC = 16 / (int)sizeof(S), SEG = 32 * R * VEC, TILE = WARPS * SEG;
    constexpr bool RLE = MODE == MODE_RLE;
    static_assert(!RLE || (sizeof(S) >= 2 && TILE <= 65536), "run-length encoding stages 16-bit positions");
    __shared__ unsigned s_wc[WARPS];
    __shared__ unsigned long long s_pre, s_hpre;
    __shared__ S s_stage[WARPS * SEG];
    __shared__ unsigned short s_pos[RLE ? WARPS * SEG : 1]; /* each staged head's place in the tile */
    keeper.prepare();
#if GP_SELECT_TICKET
    const size_t t = lb_ticket(ticket);
#else
    const size_t t = blockIdx.x;
    (void)ticket;
#endif
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t t0 = t * (size_t)TILE, base = t0 + (size_t)warp * SEG;

    /* the elements stay packed in their 16-byte vectors (one register per 4 bytes whatever the dtype); elem()
     * takes element k out with shifts once the loops are unrolled */
    uint4 v[R];
    if (t0 + TILE <= n && ((unsigned long long)(x + t0) & 15) == 0) {
#pragma unroll
        for (int r = 0; r < R; r++) v[r] = reinterpret_cast<const uint4 *>(x + base + r * 32 * VEC)[lane];
    } else {
#pragma unroll
        for (int r = 0; r < R; r++) {
            v[r] = make_uint4(0, 0, 0, 0);
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const size_t i = base + (size_t)(r * 32 + lane) * VEC + k;
                if (i < n) set_elem<S>(v[r], k, x[i]);
            }
        }
    }
    unsigned m[R], off[R];
    const S before = MODE != MODE_PRED && lane == 0 && base > 0 && base - 1 < n ? x[base - 1] : (S)0;
#if GP_SELECT_FULL_MASKS /* a whole tile's keep bits with no bounds test: fewer live registers (spills) */
    const unsigned run = sel_rank<R>(t0 + TILE <= n ? sel_masks<S, MODE, R, true>(v, base, n, keeper, before, m)
                                                    : sel_masks<S, MODE, R>(v, base, n, keeper, before, m), off);
#else
    const unsigned run = sel_rank<R>(sel_masks<S, MODE, R>(v, base, n, keeper, before, m), off);
#endif
    if (lane == 0) s_wc[warp] = run;
    /* compacted into the warp's part of the stage — so the stores after the look-back are contiguous runs, 32 lanes
     * side by side */
    S *const stage = s_stage + warp * SEG;
    sel_compact<S, PART, RLE, R>(v, m, off, run, stage, s_pos + (RLE ? warp * SEG : 0), warp * SEG);
    __syncthreads();
    unsigned wpre = 0, A = 0;
    int first = -1, last = -1, next = -1; /* RLE: the tile's first and last heads' places, the next head after this
                                             warp's in the tile (-1: none) */
#pragma unroll
    for (int j = 0; j < WARPS; j++) {
        const unsigned c = s_wc[j];
        wpre += j < warp ? c : 0u;
        A += c;
        if (RLE && c) {
            if (first < 0) first = s_pos[j * SEG];
            if (j > warp && next < 0) next = s_pos[j * SEG];
            last = s_pos[j * SEG + c - 1];
        }
    }

    /* the look-back: P = the kept count of all tiles before this one (RLE: and H = where the last run before the tile
     * began, + 1) */
    if (warp == 0) {
        const LbCount a = {A, last >= 0 ? t0 + (size_t)last + 1 : 0};
        LbCount P = {0, 0};
        if (t == 0) {
            if (lane == 0) lb_count_put<RLE>(desc, 0, LB_INCL, a);
        } else {
            if (lane == 0) lb_count_put<RLE>(desc, t, LB_AGG, a);
            P = lb_count_lookback<LOOKBACK, GP_SELECT_BACKOFF_NS, RLE>(desc, (long long)t);
            if (lane == 0) lb_count_put<RLE>(desc, t, LB_INCL, LbCount{P.c + a.c, a.h > P.h ? a.h : P.h});
        }
        if (lane == 0) {
            s_pre = P.c;
            s_hpre = P.h;
            if (count_out && t == gridDim.x - 1) *count_out = P.c + A;
        }
    }
    __syncthreads();
    const size_t P = (size_t)s_pre + wpre; /* the warp's first kept element's rank */
    for (unsigned j = lane; j < run; j += 32) y[P + j] = stage[j];
    if constexpr (RLE) {
        /* a run's length where its next head is in this tile; the run before the tile's first head, from where it
         * began (H); the last tile the last run */
        const unsigned short *pos = s_pos + warp * SEG;
        for (unsigned j = lane; j < run; j += 32) {
            const int nx = j + 1 < run ? (int)pos[j + 1] : next;
            if (nx >= 0) lengths[P + j] = (unsigned long long)(nx - (int)pos[j]);
        }
        if (threadIdx.x == 0) {
            const size_t H = (size_t)s_hpre;
            if (t > 0 && first >= 0) lengths[s_pre - 1] = t0 + (size_t)first - (H - 1);
            if (t == gridDim.x - 1) lengths[s_pre + A - 1] = n - (last >= 0 ? t0 + (size_t)last : H - 1);
        }
    }
    if (PART) {
        /* the rejected ones: after all kept (tot), at their rank among the rejected (base - P before the warp's) */
        const size_t valid = base < n ? (n - base < (size_t)SEG ? n - base : (size_t)SEG) : 0;
        S *yr = y + ((size_t)*total + base - P);
        for (size_t j = lane; j < valid - run; j += 32) yr[j] = stage[run + j];
    }
}

