/*
 * tile_engine.cuh — the Hopper tile engine under the single-pass kernels (docs/design/scan.md, "The tile engine").
 * A persistent block of 256 consumer threads and three warps of their own roles shares a ring of STAGES tiles in
 * shared memory:
 *   - the producer owns the copy engine: it takes the next tile's ticket (lookback.cuh: tickets in start order) as
 *     soon as a stage is free and has the stage filled (tensor copy, `full` completes with its bytes); a stage is free
 *     once the consumers finished its tile (`done`) and the producer's store of it has read it out;
 *   - the reducer warp folds each tile as soon as it lands, in the association order the consumers will use, and
 *     publishes its aggregate (`agg`): a tile's aggregate is out while the tile still waits in the ring;
 *   - the look-back warp looks back from each aggregate, publishes the inclusive prefix and hands the carry to the
 *     consumers (`carry`);
 *   - the consumers scan a tile with its carry in one go, write the outputs into the stage and signal `done`.
 * So no consumer waits for a look-back that began when it finished the tile before: the look-back of a tile runs
 * while the tiles before it are scanned. The caller's lambdas do the family's work; the engine only moves tiles and
 * orders the roles. Requires sm_90 and tma.cuh; uses named barrier 1 for the consumers.
 */
#ifndef GP_TILE_ENGINE_CUH
#define GP_TILE_ENGINE_CUH

constexpr int TE_CONSUMERS = 256, TE_THREADS = TE_CONSUMERS + 96;
constexpr int TE_PRODUCER = TE_CONSUMERS / 32, TE_REDUCER = TE_PRODUCER + 1, TE_LOOKBACK = TE_PRODUCER + 2; /* warps */
constexpr unsigned TE_DONE = 0xffffffffu; /* a stage's tile number when the tickets ran out */

/* the consumers' barrier (named barrier 1; the other warps never take part) */
__device__ __forceinline__ void te_consumer_sync() { asm volatile("bar.sync 1, %0;" ::"n"(TE_CONSUMERS) : "memory"); }

template <int STAGES> struct TeRing {
    unsigned long long bar[4][STAGES]; /* full, done, agg, carry */
    unsigned tile[STAGES];
    __device__ unsigned full(int s) const { return smem_addr(&bar[0][s]); }
    __device__ unsigned done(int s) const { return smem_addr(&bar[1][s]); }
    __device__ unsigned agg(int s) const { return smem_addr(&bar[2][s]); }
    __device__ unsigned carry(int s) const { return smem_addr(&bar[3][s]); }
    /* thread 0, then every thread of the block passes a __syncthreads() before using the ring */
    __device__ void init()
    {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full(s), 1);
            mbar_init(done(s), TE_CONSUMERS); /* every consumer, after its own writes were fenced */
            mbar_init(agg(s), 1);
            mbar_init(carry(s), 1);
        }
        mbar_init_fence();
    }
};

/* The block's tiles in ring order, each once it landed: body(s, ph, t, i) — stage, its phase parity, tile number,
 * the block's tile count so far; returns when the tickets ran out. */
template <int STAGES, class Body> __device__ __forceinline__ void te_each_landed(TeRing<STAGES> &ring, Body body)
{
    for (unsigned i = 0;; i++) {
        const int s = (int)(i % STAGES);
        const unsigned ph = (i / STAGES) & 1u;
        mbar_wait(ring.full(s), ph);
        const unsigned t = ring.tile[s];
        if (t == TE_DONE) return;
        body(s, ph, t, i);
    }
}

/* The producer lane's loop (see te_run): a ticket for each stage as soon as it is free, the finished stages stored */
template <int STAGES, class Load, class Store>
__device__ __forceinline__ void te_produce(TeRing<STAGES> &ring, unsigned *ticket, size_t ntiles, Load load,
                                           Store store)
{
    /* the stage of the block's j-th tile, once finished: stored (the copy engine reads it out) */
    const auto out = [&](unsigned j) {
        const int s = (int)(j % STAGES);
        mbar_wait(ring.done(s), (j / STAGES) & 1u);
        store(s, (size_t)ring.tile[s]);
        bulk_commit();
    };
    unsigned i = 0;
    for (;; i++) {
        const int s = (int)(i % STAGES);
        if (i >= STAGES) {
            out(i - STAGES);
            bulk_wait_read<0>(); /* the stage read out: free for the next load */
        }
        const unsigned t = atomicAdd(ticket, 1u);
        if (t >= ntiles) {
            ring.tile[s] = TE_DONE;
            mbar_arrive(ring.full(s));
            break;
        }
        ring.tile[s] = t;
        load(s, (size_t)t, ring.full(s));
    }
    for (unsigned j = i >= STAGES - 1 ? i - (STAGES - 1) : 0; j < i; j++) out(j); /* the tiles still in the ring */
    bulk_wait_all();
}

/* the look-back warp's loop: each tile's carry once its aggregate is out */
template <int STAGES, class Look> __device__ __forceinline__ void te_look_each(TeRing<STAGES> &ring, Look look)
{
    te_each_landed(ring, [&](int s, unsigned ph, unsigned t, unsigned) {
        mbar_wait(ring.agg(s), ph);
        look(s, (size_t)t);
        __syncwarp();
        if ((threadIdx.x & 31) == 0) mbar_arrive(ring.carry(s));
    });
}

/* The block's roles (the i-th tile of this block, number t, sits in stage s = i % STAGES):
 *   load(s, t, bar)  producer lane: arrive on bar (the stage's `full`) expecting the bytes of the copies of tile t
 *                    into stage s it then starts (mbar_arrive_tx), or with none (mbar_arrive);
 *   store(s, t)      producer lane: the copies of the finished stage out (in the current bulk group), or none;
 *   reduce(s, t)     the reducer warp, all lanes, once the tile landed: its aggregate, left where look reads it;
 *   look(s, t)       the look-back warp, all lanes, after reduce: the carry into tile t, left where scan reads it;
 *   scan(s, t, i)    the 256 consumers, after look: the outputs, written into the stage for store (fenced for the
 *                    copy engine here) or directly.
 * ntiles: tickets at or past it end the block. A tile waits only for smaller tickets, and a ticket is taken only for
 * a stage freed by a smaller tile of the same block: no wait forms a cycle. */
template <int STAGES, class Load, class Store, class Reduce, class Look, class Scan>
__device__ __forceinline__ void te_run(TeRing<STAGES> &ring, unsigned *ticket, size_t ntiles, Load load, Store store,
                                       Reduce reduce, Look look, Scan scan)
{
    static_assert(STAGES >= 2, "a stage is refilled while the next is scanned: two stages at least");
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (warp == TE_PRODUCER) {
        if (lane == 0) te_produce(ring, ticket, ntiles, load, store);
        return;
    }
    if (warp == TE_REDUCER) {
        te_each_landed(ring, [&](int s, unsigned, unsigned t, unsigned) {
            reduce(s, (size_t)t);
            __syncwarp();
            if (lane == 0) mbar_arrive(ring.agg(s));
        });
        return;
    }
    if (warp == TE_LOOKBACK) {
        te_look_each(ring, look);
        return;
    }
    te_each_landed(ring, [&](int s, unsigned ph, unsigned t, unsigned i) { /* the consumers */
        mbar_wait(ring.carry(s), ph);
        scan(s, (size_t)t, i);
        fence_async_shared();
        mbar_arrive(ring.done(s));
    });
}

/* te_run's roles with the aggregates formed by the consumers one tile ahead, for families whose fold of a tile is
 * more than one warp keeps up with (the by-key scans read every key for the head bits): before scanning the block's
 * i-th tile the consumers reduce its (i+1)-th once landed, so the next tile's look-back runs while this one is
 * scanned. The reducer warp has no work.
 *   pre(s, t, i)     the 256 consumers, once the block's i-th tile (number t) landed: its aggregate, left where look
 *                    reads it (and what scan takes of it: pre(i + 1) runs before scan(i)); returns true in the one
 *                    thread that published it, after its writes.
 * The consumers wait for tile i + 1 to land before scanning tile i: its stage was freed by tile i + 1 - STAGES. */
template <int STAGES, class Load, class Store, class Pre, class Look, class Scan>
__device__ __forceinline__ void te_run_ahead(TeRing<STAGES> &ring, unsigned *ticket, size_t ntiles, Load load,
                                             Store store, Pre pre, Look look, Scan scan)
{
    static_assert(STAGES >= 2, "tiles i and i + 1 held by the consumers: two stages at least");
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (warp == TE_PRODUCER) {
        if (lane == 0) te_produce(ring, ticket, ntiles, load, store);
        return;
    }
    if (warp == TE_REDUCER) return;
    if (warp == TE_LOOKBACK) {
        te_look_each(ring, look);
        return;
    }
    mbar_wait(ring.full(0), 0u);
    unsigned t = ring.tile[0];
    if (t == TE_DONE) return;
    if (pre(0, (size_t)t, 0u)) mbar_arrive(ring.agg(0));
    for (unsigned i = 0;; i++) {
        const int s = (int)(i % STAGES), s1 = (int)((i + 1) % STAGES);
        mbar_wait(ring.full(s1), ((i + 1) / STAGES) & 1u);
        const unsigned t1 = ring.tile[s1];
        if (t1 != TE_DONE && pre(s1, (size_t)t1, i + 1)) mbar_arrive(ring.agg(s1));
        mbar_wait(ring.carry(s), (i / STAGES) & 1u);
        scan(s, (size_t)t, i);
        fence_async_shared();
        mbar_arrive(ring.done(s));
        if (t1 == TE_DONE) return;
        t = t1;
    }
}

/* ---- host: an engine kernel's blocks per SM on ctx's device (its dynamic shared memory raised there, once per
 * device), 0 where the kernel holds no sm_90 code (a build for older devices, its PTX compiled for this one). One
 * TeShape per kernel instantiation, static in its launcher. */
struct TeShape {
    int per_sm;             /* the same on every sm_90 device (a benign race: every thread sets it alike) */
    unsigned char known[64]; /* devices seen; beyond 64, looked up on every launch */
};
inline cudaError_t te_shape_of(TeShape &sh, const gp_ctx_t *ctx, const void *kernel, size_t smem, int threads,
                               int *blocks)
{
    if (ctx->device >= 64 || !sh.known[ctx->device]) {
        cudaFuncAttributes a;
        cudaError_t e = cudaFuncGetAttributes(&a, kernel);
        int b = 0;
        if (e == cudaSuccess && a.ptxVersion >= 90) {
            e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
            if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, threads, smem);
        }
        if (e != cudaSuccess) return e;
        sh.per_sm = b;
        if (ctx->device < 64) sh.known[ctx->device] = 1;
    }
    *blocks = sh.per_sm;
    return cudaSuccess;
}

/* p as a 2D tensor of `rows` 128-byte rows of esize-byte elements, boxes of `box_rows` rows, 128-byte swizzle */
inline gp_status_t te_row_map(CUtensorMap *map, const void *p, size_t rows, unsigned esize, unsigned box_rows,
                              const char *fn)
{
    const cuuint64_t dims[2] = {128 / esize, rows}, strides[1] = {128};
    const cuuint32_t box[2] = {128 / esize, box_rows}, estr[2] = {1, 1};
    const CUresult r = tma_encoder()(map, esize == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_UINT64,
                                     2, const_cast<void *>(p), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gp__error(GP_ERR_INTERNAL, "%s: cuTensorMapEncodeTiled (%zu rows): error %d", fn, rows, (int)r);
    return GP_OK;
}

#endif
