/*
 * jit_internal.h — what src/jit shares: user operators (gp_uop_t), their compiled modules and the caches.
 *   uop.c        the public handle: checks, the module's source (preamble + embedded templates), create / destroy
 *   jit_build.c  NVRTC (dlopen) to a cubin, the system C compiler to a shared object, the disk cache
 *   jit_run.c    gp_reduce_uop, gp_reduce_segmented_uop, gp_transform, gp_transform_reduce, gp_scan_uop, gp_select_if
 *                on both backends, and the CPU backend's guard around user code
 *   jit_sort.c   gp_sort_uop (a comparison's merge sort) on both backends
 *   jit_imports.c what a compiled CPU operator may call, read from its ELF before it is loaded
 * A module is one compiled translation unit (a binary op's reduce kernel, a map's transform kernel, or a map and a
 * binary op fused for transform-reduce), kept in the context's list by its key until the context is destroyed.
 */
#ifndef GP_JIT_INTERNAL_H
#define GP_JIT_INTERNAL_H

#include "../core/internal.h"

#include <stdint.h>

#define GP__COUNTER_JIT 5
#define GP__JIT_MAX_ARITY 16

/* the embedded template texts (generated from jit_common.h, jit_kernels.cuh and jit_host.h at build time) */
GP_INTERNAL extern const char gp__jit_common_text[];
GP_INTERNAL extern const char gp__jit_kernels_text[];
GP_INTERNAL extern const char gp__jit_host_text[];
GP_INTERNAL extern const char gp__jit_scan_text[];
GP_INTERNAL extern const char gp__jit_lookback_text[];
GP_INTERNAL extern const char gp__jit_lb_text[];
GP_INTERNAL extern const char gp__jit_sel_text[];
GP_INTERNAL extern const char gp__jit_sellb_text[];
GP_INTERNAL extern const char gp__jit_segq_text[];
GP_INTERNAL extern const char gp__jit_seg_text[];
GP_INTERNAL extern const char gp__jit_sort_text[];

typedef struct gp__jit_mod {
    uint64_t key[2];
    int gpu;
    /* GPU */
    cudaLibrary_t lib;
    cudaKernel_t k_reduce, k_transform, k_scan, k_select, k_seg;
    cudaKernel_t k_bsort, k_part, k_merge; /* a comparison's sort (jit_sort.cuh) */
    unsigned long long sel_shape[2]; /* k_select's threads a block and elements a tile (jit_select.cuh) */
    int blocks_per_sm;               /* of k_reduce at 256 threads */
    size_t smem;       /* k_reduce's dynamic shared memory */
    /* CPU */
    void *so;
    void (*h_tiles)(const void *, size_t, size_t, size_t, void *);
    void (*h_fold)(const void *, size_t, size_t, size_t, void *);
    void (*h_ident)(void *);
    void (*h_map)(const void *, void *, size_t, size_t);
    void (*h_scan_tile)(const void *, size_t, void *, void *, void *);
    void (*h_scan_out)(const void *, size_t, const void *, int, void *);
    void (*h_comb)(const void *, const void *, void *);
    size_t (*h_count)(const void *, size_t, size_t);
    size_t (*h_select)(const void *, size_t, size_t, void *);
    int (*h_seg)(const void *, size_t, const long long *, size_t, size_t, void *);
    size_t (*h_split)(const void *, size_t, const void *, size_t, size_t);
    void (*h_merge)(const void *, const void *, size_t, const void *, const void *, size_t, size_t, void *, void *,
                    size_t);
    void (*h_sortrun)(void *, void *, size_t, size_t, void *, void *);
    size_t tile_elems, group_elems;
    struct gp__jit_mod *next;
} gp__jit_mod_t;

struct gp_uop {
    gp_ctx_t *ctx;
    gp_uop_kind_t kind;
    gp_dtype_t dtype, out_dtype;
    int arity, commutative;
    char *src, *identity;
    gp__jit_mod_t *mod; /* owned by the context's list */
    double build_s;
    int source; /* 0 compiled, 1 disk cache, 2 memory */
    /* maps: the transform-reduce module of the last binary op met (its source, identity, dtype) */
    char *tr_src, *tr_id;
    gp_dtype_t tr_dtype;
    gp__jit_mod_t *tr_mod;
    gp__jit_mod_t *scan_mod; /* binary ops on a GPU: the scan kernel's module, built on the first gp_scan_uop */
    gp__jit_mod_t *seg_mod;  /* binary ops on a GPU: the segmented kernel's module (first gp_reduce_segmented_uop) */
    gp__jit_mod_t *sort_mod[5]; /* comparisons on a GPU: the sort modules with values of 1, 2, 4, 8, 16 bytes */
};

/* A one-dimensional launch shape of x blocks or threads. */
static inline dim3 gp__jit_dim3(size_t x)
{
    dim3 d = {(unsigned)x, 1, 1};
    return d;
}

/* "binary op", "map", "predicate" or "comparison" (messages) */
GP_INTERNAL const char *gp__uop_kind_name(gp_uop_kind_t kind);

/* Where a module's code came from (gp_uop_build_seconds). */
enum { GP__JIT_COMPILED = 0, GP__JIT_DISK = 1, GP__JIT_MEMORY = 2 };

/* The module of source text `src` for ctx (GPU: a cubin for its architecture; CPU: a shared object): from the
 * context's list, the disk cache, or a compile. `what` names the call for messages. */
GP_INTERNAL gp_status_t gp__jit_module(gp_ctx_t *ctx, const char *what, const char *src, size_t smem,
                                       gp__jit_mod_t **mod, int *source);
/* Dynamic shared memory of a binary op's reduce kernel: the ordered tree stages word-sized elements' tiles
 * (256 lanes x (run words | 1) words, as jit_kernels.cuh); 0 otherwise. */
GP_INTERNAL size_t gp__jit_ordered_smem(const gp_uop_t *op);

/* Builders (jit_build.c). arch "sm_90"; *cubin malloc'ed. The disk cache is consulted first (*source). */
GP_INTERNAL gp_status_t gp__jit_cubin(const char *what, const char *src, const char *arch, void **cubin,
                                      size_t *bytes, int *source);
/* A shared object built from C source, dlopen'ed (*so). */
GP_INTERNAL gp_status_t gp__jit_so(const char *what, const char *src, void **so, int *source);
/* The user's text, as the fuzz targets reach it: the identity's components (top-level commas split it; returns the
 * count, starts and lengths of the first max), the refusal of preprocessor tokens outside literals (uop.c), and the
 * compiler's log kept to the lines about the user's text, at their positions (jit_build.c; out always terminated). */
GP_INTERNAL int gp__jit_split_identity(const char *s, size_t *starts, size_t *lens, int max);
GP_INTERNAL gp_status_t gp__jit_check_text(const char *fn, const char *what, const char *t);
GP_INTERNAL void gp__jit_format_log(char *out, size_t size, const char *log, const char *drop);
/* 128-bit key of a byte string (two FNV-1a 64 streams). */
GP_INTERNAL void gp__jit_hash(const void *p, size_t n, uint64_t key[2]);

/* The module source of a uop (uop.c) for a GPU (gpu = 1) or the host compiler; op2: a binary op fused after the map
 * op (transform-reduce), else NULL. *out malloc'ed. */
GP_INTERNAL gp_status_t gp__jit_source(const gp_uop_t *op, const gp_uop_t *op2, int gpu, char **out);
/* The GPU source of a binary op's scan module (jit_scan.cuh over scan_lb.cuh). */
GP_INTERNAL gp_status_t gp__jit_scan_source(const gp_uop_t *op, char **out);
/* The GPU source of a binary op's segmented module (jit_seg.cuh over seg_queue.cuh). */
GP_INTERNAL gp_status_t gp__jit_seg_source(const gp_uop_t *op, char **out);
/* The GPU source of a comparison's sort module moving values of vb bytes (jit_sort.cuh; vb 0 is the op's own). */
GP_INTERNAL gp_status_t gp__jit_sort_source(const gp_uop_t *op, size_t vb, char **out);
/* Keys per lane of the sort kernels for keys of es bytes and values of vb (jit_sort.cuh's GPJ_IPT) */
GP_INTERNAL int gp__jit_sort_ipt(size_t es, size_t vb);
/* Lanes of the block sort (GPJ_BST): 512 where its tile fits static shared memory, else 256 */
GP_INTERNAL int gp__jit_sort_bst(size_t es, size_t vb);
/* Elements per lane's run in the ordered tree for elements of es bytes (64 words, as gp_reduce_ordered; the
 * templates' GPJ_R is the same rule) */
GP_INTERNAL size_t gp__jit_ordered_run(size_t es);
/* Elements per run of a user scan (the ordered scans' rule for a value of vbytes) */
GP_INTERNAL int gp__jit_scan_run(size_t vbytes);
/* GP_OK when every function the compiled CPU operator obj (n bytes of ELF) imports is one it may call
 * (jit_imports.c), else GP_ERR_COMPILE naming the first that is not. */
GP_INTERNAL gp_status_t gp__jit_check_imports(const char *what, const void *obj, size_t n);
/* The CPU backend's guard around user code (jit_run.c): a trap while run(arg) runs on this thread jumps back and
 * is recorded; traps_off restores the handlers and returns GP_ERR_USER_TRAP naming the signal, if one was met. */
typedef struct gp__jit_traps {
    int trap; /* the signal a guarded call met (0: none) */
} gp__jit_traps_t;
GP_INTERNAL void gp__jit_traps_on(gp__jit_traps_t *t);
GP_INTERNAL gp_status_t gp__jit_traps_off(gp__jit_traps_t *t, const char *fn);
GP_INTERNAL int gp__jit_guarded(gp__jit_traps_t *t, void (*run)(void *), void *arg);
/* Test hook: the GPU source of desc (which: 0 its module, 1 its scan module, 2 its segmented module, 3 a
 * comparison's sort module moving 16-byte values) compiled by
 * NVRTC for arch through the disk cache, without a device. */
GP_INTERNAL gp_status_t gp__uop_compile_test(const gp_uop_desc_t *desc, const char *arch, int which, int *source,
                                             double *seconds);

#endif
