/*
 * seg_queue.cuh — the work queue of the segmented reductions, for a policy P: the segments in items of
 * SEGQ_PER_ITEM, each small one by a warp, each medium one by the block, the large ones cut into chunks that any
 * block may take from a shared chunk table (docs/design/reduce.md). Included by reduce.cu (gp_reduce_segmented) and embedded
 * as text for NVRTC (src/jit: gp_reduce_segmented_uop), so both run the same queue: it uses no header, only CUDA
 * built-ins; the includer defines SEGQ_THREADS (the block size, 256).
 * A policy gives: E (an element), S (a segment's or chunk's value), WARP_MAX and CHUNK (elements: a segment of at most
 * WARP_MAX goes to a warp, of at most CHUNK to the block, larger ones in chunks of CHUNK) and the device functions
 *   warp_seg(x, b, e)          x[b, e) by the calling warp (valid in lane 0; b == e: an empty segment's value)
 *   block_seg(x, b, e)         x[b, e) by the block (valid in thread 0; every thread calls it)
 *   self(x, b, e)              a large segment by the block alone, with the queue path's bits (thread 0)
 *   fold_parts(part, base, m)  a large segment's m chunk values part[base, base + m) (thread 0; every thread)
 *   put(part, c, s), store(out, i, s)
 * The segment trees are the policy's; the queue only decides who computes what, so results never depend on timing.
 */
#define SEGQ_PER_ITEM 32

struct SegQueue { /* each word on its own 128-byte line: the fetches do not contend with the polls */
    unsigned long long seg_head, pad0[15];
    unsigned long long items_done, pad1[15];
    unsigned long long chunk_total, pad2[15];
    unsigned long long chunk_head, pad3[15];
};
static_assert(sizeof(SegQueue) == 512, "the launchers reserve 512 bytes for the queue");

/* Clamped bounds of segment i: 0 <= b <= e <= n. */
__device__ __forceinline__ void seg_bounds(const long long *off, size_t i, size_t n, size_t *b, size_t *e)
{
    long long lo = off[i], hi = off[i + 1];
    lo = lo < 0 ? 0 : lo > (long long)n ? (long long)n : lo;
    hi = hi < lo ? lo : hi > (long long)n ? (long long)n : hi;
    *b = (size_t)lo, *e = (size_t)hi;
}

/* The kernel body. Workspace: q (cleared), desc (2 x cap words, cleared: per chunk the segment + 1, 0 = not yet
 * written, and the chunk's index in its segment), part (cap values, P::put's layout), cnt (cap counters, cleared);
 * cap: chunk slots (2 n / CHUNK + 2 cover any non-overlapping offsets; when the table is full a block reduces its
 * large segments itself, P::self). Every thread of a block of SEGQ_THREADS calls it. */
template <class P>
__device__ __forceinline__ void segq_run(const typename P::E *__restrict__ x, size_t n, size_t nseg,
                                         const long long *__restrict__ off, void *out, SegQueue *q,
                                         unsigned long long *desc, void *part, unsigned *cnt, size_t cap)
{
    typedef typename P::S S;
    const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const size_t nitems = (nseg + SEGQ_PER_ITEM - 1) / SEGQ_PER_ITEM;
    __shared__ unsigned long long sh_item, sh_base, sh_total, sh_nch[SEGQ_PER_ITEM], sh_ex[SEGQ_PER_ITEM];
    __shared__ int sh_flag;

    /* Phase 1: segments, SEGQ_PER_ITEM per queue item. */
    for (;;) {
        if (tid == 0) sh_item = atomicAdd(&q->seg_head, 1ull);
        __syncthreads();
        const size_t item = sh_item;
        __syncthreads();
        if (item >= nitems) break;
        const size_t s0 = item * SEGQ_PER_ITEM, s1 = s0 + SEGQ_PER_ITEM < nseg ? s0 + SEGQ_PER_ITEM : nseg;
        for (size_t sg = s0 + warp; sg < s1; sg += SEGQ_THREADS / 32) { /* small: a warp each */
            size_t b, e;
            seg_bounds(off, sg, n, &b, &e);
            if (e - b > P::WARP_MAX) continue;
            const S s = P::warp_seg(x, b, e);
            if (lane == 0) P::store(out, sg, s);
        }
        for (size_t sg = s0; sg < s1; sg++) { /* medium: the block */
            size_t b, e;
            seg_bounds(off, sg, n, &b, &e);
            if (e - b <= P::WARP_MAX || e - b > P::CHUNK) continue;
            const S s = P::block_seg(x, b, e);
            if (tid == 0) P::store(out, sg, s);
        }
        /* large: the item's chunks go to the queue with one reservation (warp 0 scans the chunk counts) */
        if (warp == 0) {
            const size_t sg = s0 + lane;
            size_t nch = 0;
            if (sg < s1) {
                size_t b, e;
                seg_bounds(off, sg, n, &b, &e);
                if (e - b > P::CHUNK) nch = (e - b + P::CHUNK - 1) / P::CHUNK;
            }
            unsigned long long inc = nch;
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned long long t = __shfl_up_sync(0xffffffffu, inc, o);
                if (lane >= (unsigned)o) inc += t;
            }
            sh_nch[lane] = nch;
            sh_ex[lane] = inc - nch;
            if (lane == 31) {
                unsigned long long got = ~0ull;
                if (inc > 0) { /* reserve inc chunk slots unless the table is full */
                    unsigned long long old = atomicAdd(&q->chunk_total, 0ull);
                    while (old + inc <= cap) {
                        const unsigned long long prev = atomicCAS(&q->chunk_total, old, old + inc);
                        if (prev == old) {
                            got = old;
                            break;
                        }
                        old = prev;
                    }
                }
                sh_base = got;
                sh_total = inc;
            }
        }
        __syncthreads();
        {
            const unsigned long long base = sh_base, total = sh_total;
            if (total > 0 && base == ~0ull) { /* table full (overlapping offsets): the block does them itself */
                for (int t = 0; t < SEGQ_PER_ITEM; t++) {
                    if (sh_nch[t] == 0) continue;
                    size_t b, e;
                    seg_bounds(off, s0 + t, n, &b, &e);
                    const S s = P::self(x, b, e);
                    if (tid == 0) P::store(out, s0 + t, s);
                    __syncthreads();
                }
            } else if (total > 0) {
                for (unsigned long long i = tid; i < total; i += SEGQ_THREADS) {
                    int t = 0;
                    while (t + 1 < SEGQ_PER_ITEM && sh_ex[t + 1] <= i) t++;
                    desc[2 * (base + i) + 1] = i - sh_ex[t];
                }
                __threadfence();
                for (unsigned long long i = tid; i < total; i += SEGQ_THREADS) {
                    int t = 0;
                    while (t + 1 < SEGQ_PER_ITEM && sh_ex[t + 1] <= i) t++;
                    ((volatile unsigned long long *)desc)[2 * (base + i)] = s0 + t + 1; /* ready */
                }
            }
        }
        __syncthreads();
        if (tid == 0) {
            __threadfence();
            atomicAdd(&q->items_done, 1ull);
        }
    }

    /* Phase 2: chunks of large segments, fetched until every item is done and every chunk taken. */
    for (;;) {
        if (tid == 0) {
            const unsigned long long c = atomicAdd(&q->chunk_head, 1ull);
            int flag = 0;
            /* waiting blocks poll with plain (volatile) loads and back off: atomics here would queue behind the
             * producers' reservations on the same words */
            volatile unsigned long long *total = &q->chunk_total, *done = &q->items_done, *vd = desc;
            for (;;) {
                if (c < *total) {
                    while (vd[2 * c] == 0) __nanosleep(100);
                    flag = 1;
                    break;
                }
                if (*done == nitems) { /* no more reservations */
                    __threadfence();
                    if (c >= *total) break;
                    continue;
                }
                __nanosleep(500);
            }
            __threadfence();
            sh_item = c;
            sh_flag = flag;
        }
        __syncthreads();
        const size_t c = sh_item;
        const int have = sh_flag;
        __syncthreads();
        if (!have) break;
        const size_t sg = (size_t)__ldcg(&desc[2 * c]) - 1, ci = (size_t)__ldcg(&desc[2 * c + 1]), base = c - ci;
        size_t b, e;
        seg_bounds(off, sg, n, &b, &e);
        const size_t nch = (e - b + P::CHUNK - 1) / P::CHUNK, cb = b + ci * P::CHUNK;
        const S s = P::block_seg(x, cb, cb + P::CHUNK < e ? cb + P::CHUNK : e);
        if (tid == 0) {
            P::put(part, c, s);
            __threadfence();
            sh_flag = atomicAdd(&cnt[base], 1u) == nch - 1;
        }
        __syncthreads();
        if (sh_flag) { /* the segment's last chunk: fold its chunk values in order */
            __threadfence();
            const S f = P::fold_parts(part, base, nch);
            if (tid == 0) P::store(out, sg, f);
        }
        __syncthreads();
    }
}
