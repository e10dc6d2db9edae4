/*
 * backend.h — how the host code reaches a family's GPU launchers: through the family's table (`gp__<family>_gpu_ops`,
 * declared in its internal header, defined in its .c file), whose slots GP_GPU_SLOT fills. In a CPU-only build
 * (GP_CPU_ONLY: no .cu file compiled) every slot is NULL, so a new launcher touches its own family's folder alone.
 * A slot is called only for a GPU context, and a CPU-only build makes none (docs/ARCHITECTURE.md, "Backends").
 */
#ifndef GP_BACKEND_H
#define GP_BACKEND_H

#ifdef GP_CPU_ONLY
#define GP_GPU_SLOT(fn) NULL
#else
#define GP_GPU_SLOT(fn) (fn)
#endif

#endif
