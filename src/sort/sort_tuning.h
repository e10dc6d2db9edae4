/*
 * sort_tuning.h — the radix sort's and top-k's tuning table (docs/design/sort.md): the measured defaults, each
 * overridable with -D for experiments (CMake GP_SORT_TUNE sets them on sort.cu and topk.cu). None changes the order:
 * every setting sorts to the same bits.
 */
#ifndef GP_SORT_TUNING_H
#define GP_SORT_TUNING_H

/* 1: rank a digit with the hardware's match instruction instead of eight ballots */
#ifndef GP_SORT_MATCH_ANY
#define GP_SORT_MATCH_ANY 0
#endif
/* the look-back words in flight */
#ifndef GP_SORT_LB_W
#define GP_SORT_LB_W 8
#endif
/* 1: the one-cluster path for small n (k_small): correct, slower than the passes, so 0 */
#ifndef GP_SORT_SMALL
#define GP_SORT_SMALL 0
#endif
/* the most elements sorted by counting ranks (k_rank: n^2 compares over every SM in one launch) instead of the
 * passes, for keys of up to 4 bytes and of 8 bytes (8 and 16 bytes of shared memory an element); 0: never */
#ifndef GP_SORT_RANK_MAX4
#define GP_SORT_RANK_MAX4 8192
#endif
#ifndef GP_SORT_RANK_MAX8
#define GP_SORT_RANK_MAX8 4096
#endif
/* the passes' shape for keys of up to 4 bytes and of 8 bytes: keys a thread, blocks an SM */
#ifndef GP_SORT_ITEMS4
#define GP_SORT_ITEMS4 24
#endif
#ifndef GP_SORT_MINB4
#define GP_SORT_MINB4 3
#endif
#ifndef GP_SORT_ITEMS8
#define GP_SORT_ITEMS8 16
#endif
#ifndef GP_SORT_MINB8
#define GP_SORT_MINB8 3
#endif
/* 1: on sm_90 the counting kernels and the passes launch as programmatic dependents of the kernel before them (each
 * may start while the one before drains, and waits for it before touching memory) — not yet measured */
#ifndef GP_SORT_PDL
#define GP_SORT_PDL 1
#endif

/* top-k (topk.cu): 1: its kernels launch as programmatic dependents of the kernel before them (sm_90); its filter's
 * 16-byte loads in flight a thread for 4-byte keys; 1: those loads as streaming (__ldcs) */
#ifndef GP_TOPK_PDL
#define GP_TOPK_PDL 1
#endif
#ifndef GP_TOPK_FL
#define GP_TOPK_FL 4
#endif
#ifndef GP_TOPK_LDCS
#define GP_TOPK_LDCS 0
#endif

#endif
