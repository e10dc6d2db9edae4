/*
 * group_internal.h — what src/group shares between its files: the group (members, streams, transport) and the
 * two exchanges every sharded primitive is built from. A member is a context of this process; a rank is a member of
 * the whole group (local groups: member i is rank i; a rank group: one member, its rank). Transports:
 *   nccl      one NCCL communicator per member (NCCL loaded with dlopen: group.c);
 *   emulated  every member in this process on one device; the exchanges are host copies (same results, no NCCL).
 */
#ifndef GP_GROUP_INTERNAL_H
#define GP_GROUP_INTERNAL_H

#include "../core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP__GROUP_HSLOTS 2
struct gp_group {
    int nccl;              /* 1: NCCL communicators; 0: emulated */
    int size;              /* ranks */
    int nlocal;            /* members in this process */
    int rank0;             /* rank of member 0 (members are consecutive ranks) */
    int gpu;               /* members are GPU contexts (0: the CPU backend, emulated groups only) */
    int rank_path;         /* made by gp_group_create_rank: exchanges always go through NCCL */
    gp_ctx_t **ctx;        /* nlocal contexts, owned */
    cudaStream_t *stream;  /* nlocal non-blocking streams (NULL on the CPU backend) */
    cudaStream_t *cstream; /* nlocal more, for copies that overlap the members' kernels (work joined back into
                            * stream[i] before a call returns) */
    void **comm;           /* nlocal ncclComm_t (nccl) */
    struct gp_group_reducer *cached; /* gp_group_reduce's reducer, kept for the next call of the same kind */
    void **scr;            /* nlocal * GP__GROUP_SLOTS scratch buffers in the members' memory (gp__group_scratch) */
    size_t *scr_cap;
    void *hscr[GP__GROUP_HSLOTS];   /* host scratch (gp__group_host_scratch): pinned on GPU groups */
    size_t hscr_cap[GP__GROUP_HSLOTS];
    void (*phase)(gp_group_t *g, const char *name); /* NULL, or called at each phase mark (GP__PHASE) */
};
/* A phase boundary of a sharded call (gp_group_sort, gp_group_reduce_segmented): nothing unless a probe set the
 * group's hook (bench/tune/group_sort_phases.c times the phases through it). */
#define GP__PHASE(g, name)                                                                                         \
    do {                                                                                                           \
        if ((g)->phase) (g)->phase((g), (name));                                                                   \
    } while (0)
#define GP__GROUP_SLOTS 4 /* 0, 1: the primitives' own; 2, 3: gp__group_allgather_host's staging */

/* Validates a group argument ("fn: group is NULL"). */
GP_INTERNAL gp_status_t gp__group_check(const char *fn, const gp_group_t *g);
/* Every member's shard pointer / count array checked: counts non-NULL, a shard NULL only when its count is 0, the
 * byte size representable, alignment to the dtype. */
GP_INTERNAL gp_status_t gp__group_check_shards(const char *fn, const gp_group_t *g, gp_dtype_t dtype,
                                               const size_t *counts, const void *const *shards, const char *what);

/* All-gather: each member contributes `bytes` at send[i] (its own memory: device memory of a GPU member, host memory
 * of a CPU member) and receives every rank's contribution, rank after rank, at recv[i] (size * bytes). Enqueued on
 * the members' streams (nccl) or done at once (emulated: waits for the streams first). */
GP_INTERNAL gp_status_t gp__group_allgather(gp_group_t *g, const void *const *send, void *const *recv, size_t bytes);
/* The same for host values: local holds nlocal contributions of `bytes` (member after member), all receives size of
 * them in rank order (a device round trip through the transport when ranks live in other processes). Waits. */
GP_INTERNAL gp_status_t gp__group_allgather_host(gp_group_t *g, const void *local, void *all, size_t bytes);
/* In-place all-reduce sum of count values of dtype (GP_U32, GP_U64, GP_I64, GP_F32 or GP_F64) at buf[i]. */
GP_INTERNAL gp_status_t gp__group_allsum(gp_group_t *g, void *const *buf, size_t count, gp_dtype_t dtype);
/* Copies bytes of member `member`'s memory to host and waits for its stream. */
GP_INTERNAL gp_status_t gp__group_to_host(gp_group_t *g, int member, void *host, const void *src, size_t bytes);
/* Scratch of at least bytes in member memory, slot 0 or 1 (2 and 3 are gp__group_allgather_host's, so a primitive's
 * buffers live through its exchanges of host values), kept by the group for the next call (grown, never shrunk;
 * growing waits for the member's stream). Valid until the next gp__group_scratch of the same slot. */
GP_INTERNAL gp_status_t gp__group_scratch(gp_group_t *g, int member, int slot, size_t bytes, void **p);
/* Host scratch of at least bytes, slot 0 or 1, kept by the group (page-locked on GPU groups, so the copies to and
 * from the members run at full speed and the pages are not faulted in again on every call). Valid until the next
 * gp__group_host_scratch of the same slot; callers wait for their copies before returning. */
GP_INTERNAL gp_status_t gp__group_host_scratch(gp_group_t *g, int slot, size_t bytes, void **p);
/* All-to-all of byte counts that differ per pair: member i (rank r) sends sbytes[i * size + j] bytes from
 * send[i] + soff[i * size + j] to rank j and receives rbytes[i * size + q] bytes from rank q into recv[i] +
 * roff[i * size + q]. Enqueued on the members' streams (NCCL grouped send / receive, a rank's own part a copy);
 * emulated: copies between the members once their streams are done. */
GP_INTERNAL gp_status_t gp__group_alltoallv(gp_group_t *g, const void *const *send, const size_t *soff,
                                            const size_t *sbytes, void *const *recv, const size_t *roff,
                                            const size_t *rbytes);
/* group_sort.cu: out[q] = how many of the n sorted keys (device memory, gp_sort's order for descending) have a
 * radix key <= rq[q] (nq queries in device memory), one thread a query, on stream. */
GP_INTERNAL gp_status_t gp__group_sort_count_gpu(gp_dtype_t dtype, int descending, size_t n, const void *sorted, int nq,
                                                 const uint64_t *rq, uint64_t *out, cudaStream_t stream);
/* group_sort.cu: out[k] = base + k for k < n, ib-byte (4 or 8) unsigned values in device memory, on stream. */
GP_INTERNAL gp_status_t gp__group_sort_iota_gpu(size_t ib, size_t n, uint64_t base, void *out, cudaStream_t stream);
/* Member memory: device memory of its GPU (cudaMalloc) or host memory; free with gp__group_free. */
GP_INTERNAL gp_status_t gp__group_alloc(gp_group_t *g, int member, size_t bytes, void **p);
GP_INTERNAL void gp__group_free(gp_group_t *g, int member, void *p);

/* The family's GPU launchers (group_sort.cu), reached through this table: core/backend.h */
typedef struct gp__group_gpu_ops {
    __typeof__(gp__group_sort_count_gpu) *sort_count;
    __typeof__(gp__group_sort_iota_gpu) *sort_iota;
} gp__group_gpu_ops_t;
GP_INTERNAL extern const gp__group_gpu_ops_t gp__group_gpu_ops;

#ifdef __cplusplus
}
#endif
#endif
