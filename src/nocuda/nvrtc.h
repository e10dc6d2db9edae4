/* nvrtc.h (CPU-only build) — the types and constants of NVRTC that src/jit/jit_build.c names (NVRTC itself is
 * loaded at run time, and only for a GPU context, which a CPU-only build never has). */
#ifndef GP_NOCUDA_NVRTC_H
#define GP_NOCUDA_NVRTC_H
#include <stddef.h>
typedef enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_OUT_OF_MEMORY = 1, NVRTC_ERROR_COMPILATION = 6 } nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
#endif
