/*
 * select_tuning.h — the select family's tile engine (docs/design/scan.md, "Select on the tile engine"): the measured
 * defaults, each overridable with -D for experiments (CMake GP_SELECT_TUNE). The single-pass kernel's own knobs
 * (warps, look-back round trip, back-off) stay in select_lb.cuh, which NVRTC also compiles. None changes a result.
 */
#ifndef GP_SELECT_TUNING_H
#define GP_SELECT_TUNING_H

/* whether select / partition / unique take the engine for elements of 2, 4 and 8 bytes (1-byte types never: see
 * select.cu); off until a device's bench select says the engine is the faster */
#ifndef GP_SELECT_TE_AUTO2
#define GP_SELECT_TE_AUTO2 0
#endif
#ifndef GP_SELECT_TE_AUTO4
#define GP_SELECT_TE_AUTO4 0
#endif
#ifndef GP_SELECT_TE_AUTO8
#define GP_SELECT_TE_AUTO8 0
#endif
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
