/*
 * tile_engine.cuh — the Hopper tile engine under the single-pass kernels (docs/design/scan.md, "The tile engine").
 * A persistent block of 256 consumer threads, a producer warp and a look-back warp shares a ring of STAGES tiles in
 * shared memory:
 *   - the producer takes the next tile's ticket (lookback.cuh: tickets in start order) as soon as a stage is free and
 *     has the copy engine fill the stage (tensor copy, `full` completes with its bytes);
 *   - the consumers scan stage i's tile on their own (local), then finish tile i - 1 (fin) with the carry the
 *     look-back warp left for it, so the look-back of a tile runs beside the next tile's work, not behind a barrier;
 *     the finished stage goes back to global memory by the copy engine (store), then to the producer (`empty`);
 *   - the look-back warp takes each tile's aggregate when the consumers signal it (`agg`), looks back, publishes the
 *     inclusive prefix and hands the carry to the consumers (`carry`).
 * The caller's lambdas do the family's work; the engine only moves tiles and orders the roles. Requires sm_90 and
 * tma.cuh; uses named barrier 1 for the consumers.
 */
#ifndef GP_TILE_ENGINE_CUH
#define GP_TILE_ENGINE_CUH

constexpr int TE_CONSUMERS = 256, TE_THREADS = TE_CONSUMERS + 64;
constexpr unsigned TE_DONE = 0xffffffffu; /* a stage's tile number when the tickets ran out */

/* the consumers' barrier (named barrier 1; the producer and look-back warps never take part) */
__device__ __forceinline__ void te_consumer_sync() { asm volatile("bar.sync 1, %0;" ::"n"(TE_CONSUMERS) : "memory"); }

template <int STAGES> struct TeRing {
    unsigned long long bar[4][STAGES]; /* full, empty, agg, carry */
    unsigned tile[STAGES];
    __device__ unsigned full(int s) const { return smem_addr(&bar[0][s]); }
    __device__ unsigned empty(int s) const { return smem_addr(&bar[1][s]); }
    __device__ unsigned agg(int s) const { return smem_addr(&bar[2][s]); }
    __device__ unsigned carry(int s) const { return smem_addr(&bar[3][s]); }
    /* thread 0, then every thread of the block passes a __syncthreads() before using the ring */
    __device__ void init()
    {
        for (int s = 0; s < STAGES; s++)
            for (int k = 0; k < 4; k++) mbar_init(smem_addr(&bar[k][s]), 1);
        mbar_init_fence();
    }
};

/* The block's roles. load(s, t, bar) (producer lane, a stage free): arrive on bar (the stage's `full`), expecting
 * the bytes of the copies of tile t into stage s it then starts (mbar_arrive_tx), or with none (mbar_arrive). look(s, t) (the look-back warp, all
 * lanes, after the consumers signalled the aggregate): the carry into tile t, left where fin reads it. local(s, t, i)
 * and fin(s, t, i) (the 256 consumers): the i-th tile of this block, t, in stage s; the last consumer thread signals
 * `agg` after local, so what it wrote, or what the consumers wrote before a te_consumer_sync inside local, is what
 * look sees. fin's shared-memory writes to the stage are fenced for the copy engine and store(s, t) (consumer
 * thread 0, after a consumer barrier) starts the stage's copy out. ntiles: tickets at or past it end the block. */
template <int STAGES, class Load, class Look, class Local, class Fin, class Store>
__device__ __forceinline__ void te_run(TeRing<STAGES> &ring, unsigned *ticket, size_t ntiles, Load load, Look look,
                                       Local local, Fin fin, Store store)
{
    static_assert(STAGES >= 3, "a stage's store is released one tile late: three stages at least");
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (warp == TE_CONSUMERS / 32) { /* the producer */
        if (lane != 0) return;
        for (unsigned i = 0;; i++) {
            const int s = (int)(i % STAGES);
            if (i >= STAGES) mbar_wait(ring.empty(s), ((i / STAGES) + 1) & 1u);
            const unsigned t = atomicAdd(ticket, 1u);
            if (t >= ntiles) {
                ring.tile[s] = TE_DONE;
                mbar_arrive(ring.full(s));
                return;
            }
            ring.tile[s] = t;
            load(s, (size_t)t, ring.full(s));
        }
    }
    if (warp == TE_CONSUMERS / 32 + 1) { /* the look-back warp */
        for (unsigned i = 0;; i++) {
            const int s = (int)(i % STAGES);
            const unsigned ph = (i / STAGES) & 1u;
            mbar_wait(ring.full(s), ph);
            const unsigned t = ring.tile[s];
            if (t == TE_DONE) return;
            mbar_wait(ring.agg(s), ph);
            look(s, (size_t)t);
            __syncwarp();
            if (lane == 0) mbar_arrive(ring.carry(s));
        }
    }
    /* the consumers */
    int ps = -1, pstore = -1;
    unsigned pt = 0, pi = 0;
    const auto finish = [&](int s, unsigned t, unsigned i) {
        mbar_wait(ring.carry(s), (i / STAGES) & 1u);
        fin(s, (size_t)t, i);
        fence_async_shared();
        te_consumer_sync();
        if (threadIdx.x == 0) {
            store(s, (size_t)t);
            bulk_commit();
            bulk_wait_read<1>(); /* the stage stored before this one was read out: it goes back to the producer */
            if (pstore >= 0) mbar_arrive(ring.empty(pstore));
            pstore = s;
        }
    };
    for (unsigned i = 0;; i++) {
        const int s = (int)(i % STAGES);
        mbar_wait(ring.full(s), (i / STAGES) & 1u);
        const unsigned t = ring.tile[s];
        if (t == TE_DONE) break;
        local(s, (size_t)t, i);
        if (threadIdx.x == TE_CONSUMERS - 1) mbar_arrive(ring.agg(s));
        if (ps >= 0) finish(ps, pt, pi);
        ps = s, pt = t, pi = i;
    }
    if (ps >= 0) {
        te_consumer_sync(); /* the last tile's local writes, seen by every consumer (fin's neighbours' values) */
        finish(ps, pt, pi);
    }
    if (threadIdx.x == 0) {
        bulk_wait_all();
        if (pstore >= 0) mbar_arrive(ring.empty(pstore));
    }
}

#endif
