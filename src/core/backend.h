/*
 * backend.h — how the host code reaches a family's GPU launchers: through the family's table (`gp__<family>_gpu_ops`,
 * declared in its internal header, defined in its .c file), whose slots GP_GPU_SLOT fills. In a CPU-only build
 * (GP_CPU_ONLY: no .cu file compiled) every slot is NULL, so a new launcher touches its own family's folder alone.
 * A slot is called only for a GPU context, and a CPU-only build makes none (docs/ARCHITECTURE.md, "Backends").
 */
#ifndef GP_BACKEND_H
#define GP_BACKEND_H

#include "internal.h"

#ifdef GP_CPU_ONLY
#define GP_GPU_SLOT(fn) NULL
#else
#define GP_GPU_SLOT(fn) (fn)
#endif

/* The GPU end of a family's enqueue path (after enter, checks and the CPU backend): gp__gpu_stream gives the stream a
 * call's launches take — the caller's, or for a _sync call (sync != 0) the legacy stream, refused inside a capture
 * since it waits — and gp__gpu_wait, after them, waits for a _sync call's work (graph.c). */
GP_INTERNAL gp_status_t gp__gpu_stream(const gp_ctx_t *ctx, const char *fn, gp_stream_t stream, int sync,
                                       cudaStream_t *s);
GP_INTERNAL gp_status_t gp__gpu_wait(const char *fn, cudaStream_t s, int sync);

#endif
