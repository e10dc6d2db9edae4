/*
 * select_tuning.h — the select family's tile engine (docs/design/scan.md, "Select on the tile engine"): the measured
 * defaults, each overridable with -D for experiments (CMake GP_SELECT_TUNE). The single-pass kernel's own knobs
 * (warps, look-back round trip, back-off) stay in select_lb.cuh, which NVRTC also compiles. None changes a result.
 */
#ifndef GP_SELECT_TUNING_H
#define GP_SELECT_TUNING_H

/* whether select, partition and unique take the engine (4- and 8-byte types; 2-byte ones and 1-byte ones never by
 * default). Measured on an H100 (2026-12-05, 2^28, `bench select` [block] / [engine]): select f32 850 -> 904 us
 * (slower; not yet profiled), partition f32 1478 -> 1348, unique i32 1083 -> 947 (CUB 938) */
#ifndef GP_SELECT_TE_AUTO_PRED
#define GP_SELECT_TE_AUTO_PRED 0
#endif
#ifndef GP_SELECT_TE_AUTO_PART
#define GP_SELECT_TE_AUTO_PART 1
#endif
#ifndef GP_SELECT_TE_AUTO_HEAD
#define GP_SELECT_TE_AUTO_HEAD 1
#endif
/* 1: the reducer warp leaves each lane's keep bits and each segment's count in shared memory, and the consumers rank
 * and compact from them without evaluating the predicate again, reading a neighbour's element or a barrier; an
 * experiment (-D through CMake GP_SELECT_TUNE), not yet run on a GPU */
#ifndef GP_SELECT_TE_MASKS
#define GP_SELECT_TE_MASKS 0
#endif
/* The consumers counting each tile one tile ahead of scanning it (tile_engine.cuh's te_run_ahead, as te_lb.cuh)
 * measured slower on an H100 (2026-12-06, 2^28): select f32 903.6 -> 1011.3 us, unique i32 947.0 -> 1183.8,
 * partition 1348.2 -> 1519.5: the predicate is cheap, and the consumers' extra pass and barrier cost more than the
 * reducer warp, which runs beside them. */
/* the ring's stages of 16 KiB and the blocks per SM the launch bounds ask for */
#ifndef GP_SELECT_TE_STAGES
#define GP_SELECT_TE_STAGES 6
#endif
#ifndef GP_SELECT_TE_MINB
#define GP_SELECT_TE_MINB 2
#endif
/* the smallest n the engine takes (forced) and the smallest the library gives it */
#ifndef GP_SELECT_TE_MIN_N
#define GP_SELECT_TE_MIN_N (1u << 16)
#endif
#ifndef GP_SELECT_TE_AUTO_MIN_N
#define GP_SELECT_TE_AUTO_MIN_N (1u << 21)
#endif

#endif
