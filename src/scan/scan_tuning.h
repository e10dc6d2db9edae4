/*
 * scan_tuning.h — the scan's tuning table (docs/design/scan.md, "Tuning"): the measured defaults, each overridable
 * with -D for experiments (CMake GP_SCAN_TUNE sets them on scan.cu and scan.c). None changes the association order.
 */
#ifndef GP_SCAN_TUNING_H
#define GP_SCAN_TUNING_H

/* The look-back kernel: tiles per block for 4-byte accumulators (8-byte ones take one), blocks per SM the launch
 * bounds ask for (a block of two tiles, a block of one 4-byte tile, a block of one 8-byte tile) and a back-off between
 * polls of a descriptor not yet published (0: poll at once). A block of two tiles publishes each tile's descriptor
 * and forms each tile's carry as two tiles in two blocks would. */
#ifndef GP_SCAN_TILES4
#define GP_SCAN_TILES4 2
#endif
#ifndef GP_SCAN_MINB_2T
#define GP_SCAN_MINB_2T 4
#endif
#ifndef GP_SCAN_MINB4
#define GP_SCAN_MINB4 8
#endif
#ifndef GP_SCAN_MINB8
#define GP_SCAN_MINB8 4
#endif
#ifndef GP_SCAN_BACKOFF_NS
#define GP_SCAN_BACKOFF_NS 0
#endif

/* The tile engine (sm_90, tile_engine.cuh; "The tile engine"): whether the library's scans take it for 4- and 8-byte
 * types (where it can run), its ring's stages for each, the blocks per SM its launch bounds ask for, the smallest n
 * it takes (forced) and the smallest the library gives it. */
#ifndef GP_SCAN_TE_AUTO4
#define GP_SCAN_TE_AUTO4 1
#endif
#ifndef GP_SCAN_TE_AUTO8
#define GP_SCAN_TE_AUTO8 1
#endif
#ifndef GP_SCAN_TE_STAGES4
#define GP_SCAN_TE_STAGES4 6
#endif
#ifndef GP_SCAN_TE_STAGES8
#define GP_SCAN_TE_STAGES8 3
#endif
#ifndef GP_SCAN_TE_MINB4
#define GP_SCAN_TE_MINB4 2
#endif
#ifndef GP_SCAN_TE_MINB8
#define GP_SCAN_TE_MINB8 2
#endif
/* 1: the look-back warp folds float min / max windows by the ordered tree on the bits (comb_bits in scan.cu; the
 * same bits) instead of serially; an experiment, not yet run on a GPU */
#ifndef GP_SCAN_TE_FOLD_BITS
#define GP_SCAN_TE_FOLD_BITS 0
#endif
#ifndef GP_SCAN_TE_MIN_N
#define GP_SCAN_TE_MIN_N (1u << 16)
#endif
/* the smallest n the library gives the engine (H100, 2026-12-05: 2^20 f32 sum 15.3 µs against the look-back
 * kernel's 14.5; 2^28 777 against 902) */
#ifndef GP_SCAN_TE_AUTO_MIN_N
#define GP_SCAN_TE_AUTO_MIN_N (1u << 21)
#endif

/* The policy scans on the tile engine (te_lb.cuh; docs/design/scan.md, "By key on the tile engine"): whether the
 * library takes it for the by-key ops it runs (4-byte values) and for the segmented scans of 4-byte types, its stages
 * for scans and for reductions by key (whose emit stages 24 KiB of its own), the blocks per SM its launch bounds ask
 * for, the smallest n it takes (forced) and the smallest the library gives it. Off until a device measured them. */
#ifndef GP_TE_LB_AUTO_BYKEY
#define GP_TE_LB_AUTO_BYKEY 0
#endif
#ifndef GP_TE_LB_AUTO_SEG
#define GP_TE_LB_AUTO_SEG 0
#endif
/* gp_scan_segmented (head bits from offsets) on the engine's reducer form (te_lb.cuh, TE_BITS); the reducer form
 * (TE_BITS, and the 4-byte keys of TE_KEYS under scans by key) is not yet run on a GPU, so off */
#ifndef GP_TE_LB_AUTO_SEGBITS
#define GP_TE_LB_AUTO_SEGBITS 0
#endif
#ifndef GP_TE_LB_STAGES
#define GP_TE_LB_STAGES 6
#endif
/* scans by key of 4-byte keys (TE_KEYS): each stage holds the tile's keys too */
#ifndef GP_TE_LB_STAGES_KEYS
#define GP_TE_LB_STAGES_KEYS 3
#endif
#ifndef GP_TE_LB_STAGES_EMIT
#define GP_TE_LB_STAGES_EMIT 4
#endif
#ifndef GP_TE_LB_MINB
#define GP_TE_LB_MINB 2
#endif
#ifndef GP_TE_LB_MIN_N
#define GP_TE_LB_MIN_N (1u << 16)
#endif
#ifndef GP_TE_LB_AUTO_MIN_N
#define GP_TE_LB_AUTO_MIN_N (1u << 21)
#endif

#endif
