/*
 * pipeline.h — the one streaming core of the data verbs (reduce, histogram, scan, select, unique, rle, topk): the
 * input (input.h) read in chunks through a stage of the verb's on a context, with progress, errors that name the
 * input's own bytes, and a CPU head start: while a GPU context opens (gp_ctx_open_start) the stage runs on the CPU
 * backend ("lane" 0); when the context is up the stage hands its partial state to the GPU ("lane" 1) and the stream
 * goes on there. An input the CPU finishes first never waits for the driver. Outputs: output.h, written by the stage's
 * push.
 */
#ifndef GP_CLI_PIPELINE_H
#define GP_CLI_PIPELINE_H

#include "input.h"
#include "util.h"

enum { LANE_HEAD = 0, LANE_MAIN = 1 };

/* What a verb streams. Every callback gets the stage; a status other than GP_OK stops the run. */
typedef struct stage_ops {
    /* The stage's state on ctx for lane (buffers, the library's object). A head (lane 0) that cannot be bound (the
     * CPU backend lacks the op) is skipped: the run waits for the GPU instead. */
    gp_status_t (*bind)(void *stage, int lane, gp_ctx_t *ctx);
    /* Elements every chunk but the last holds a multiple of, on lane (after bind). NULL: 1. */
    size_t (*granule)(void *stage, int lane);
    /* One chunk, as gp_chunk_fn, on lane's context. */
    gp_status_t (*push)(void *stage, int lane, const void *x, size_t n, size_t first, gp_stream_t s);
    /* The head's partial state moved to lane 1 (bound). NULL: nothing to move. */
    gp_status_t (*handoff)(void *stage);
    /* Lane's state released (also after a failure; unbound lanes too). */
    void (*unbind)(void *stage, int lane);
    size_t chunk_bytes; /* 0: the library's default (16 MiB) */
    double out_ratio;   /* bytes the stage writes per byte it reads, at most (0: none): the writes bound a GPU too */
    /* A failure the stage says best itself (NULL, or 0 returned: the pipe says it); nonzero: said. */
    int (*explain)(void *stage, gp_status_t st);
} stage_ops_t;

typedef struct pipe {
    const char *verb, *path;
    int device;                 /* the device asked for (after --device auto's choice) */
    gp_ctx_opening_t *opening;  /* a GPU context still opening (NULL: none, or taken) */
    int deferred;               /* the default device, not opened yet: the head decides whether it is worth it */
    int cpu_only;               /* the CPU backend was asked for: the head's lane runs the whole input */
    int taken;                  /* pipe_wait gave the context to the verb */
    gp_ctx_t *cpu;              /* the head's CPU backend context */
    gp_ctx_t *ctx;              /* the context lane 1 runs on (NULL until opened) */
    double t0, ctx_secs;        /* the verb's start; seconds the context took to open */
    size_t head_elements;       /* elements the last run's head reduced on the CPU */
    size_t elements;            /* elements the last run streamed (both lanes) */
    int threads;                /* gp_stream_opts_t's */
    int map_pages;              /* 0: a CPU lane maps the file, a GPU lane preads; 1: both map; -1: both pread */
    size_t chunk_bytes;         /* overrides the stage's (0: the stage's) */
    struct arr_out *outs[2];    /* the stage's outputs (output.h; NULL: none): a failed run names their errors */
} pipe_t;

/* Prepares a pipe for in and device (a --device value after pick_device). head nonzero (and a device that may be a
 * GPU): the CPU starts on the input while the GPU context opens in the background; for the default device and an input
 * of known size the head first measures whether a GPU would pay for its start-up, and opens none when not. head 0:
 * the context is opened here. Returns EXIT_OK, or the exit code after printing why. */
int pipe_open(pipe_t *p, const char *verb, const input_t *in, int device, int head, double t0);
/* Streams in's elements (from f's position) through the stage. *lane: the lane whose state holds the result (bound;
 * the caller reads it, then calls the stage's unbind for both lanes). Returns EXIT_OK, or the exit code after
 * printing why (input errors from the array's first byte). */
int pipe_run(pipe_t *p, input_t *in, const stage_ops_t *ops, void *stage, int *lane);
/* The context lane runs on (lane 0: the CPU backend's). */
gp_ctx_t *pipe_lane_ctx(const pipe_t *p, int lane);
/* The GPU context itself, waiting for it to open (a verb that needs it before streaming). EXIT_OK or the exit code. */
int pipe_wait(pipe_t *p, gp_ctx_t **ctx);
/* Both lanes' state released (the stage's unbind): before pipe_close, whose contexts it used. */
void stage_end(const stage_ops_t *ops, void *stage);

/* The stage of a gp_reducer (reduce, and the histogram's range pass): red[lane] made by bind; the head's partial
 * tree moved by gp_reducer_transfer (the bits of one reducer). t_first: when lane 1's first chunk came. */
typedef struct reduce_stage {
    gp_reduce_op_t op;
    gp_dtype_t dtype, acc; /* acc: GP_DTYPE_COUNT for the default */
    gp_reducer_t *red[2];
    double t_first;
} reduce_stage_t;
extern const stage_ops_t reduce_stage_ops;

/* The whole input held in g's buffer on ctx (the caller's context, kept; device memory on a GPU, host memory on the
 * CPU backend), read by the library's loader (gp_array_read; gp_array_load for a pipe of unknown length, the buffer
 * doubling as it fills): the verbs that hold their input (sort, searchsorted, topk, ...), the ordered reductions and
 * user operators. EXIT_OK, or the exit code after printing why (g's buffer freed). */
typedef struct gather {
    gp_ctx_t *ctx;
    gp_buffer_t buf;
    size_t es, have; /* element size, elements gathered */
} gather_t;
int gather_held(const char *verb, input_t *in, gp_ctx_t *ctx, double t0, gather_t *g);
/* Two inputs held in memory (searchsorted, merge, groupby): refuses both on standard input, an output naming either,
 * and (same_dtype) two dtypes (names: how the usage calls them); opens both (o_dtype: a raw input's). EXIT_OK with
 * both open, else the exit code after printing why (neither open). */
int held_pair_open(const char *verb, const char *const names[2], const char *const pos[2], const char *out,
                   const char *o_dtype, int same_dtype, input_t in[2]);
/* One input held on the device pick_device chooses for its bytes: p opened, *ctx its context, g the input held
 * (freed by the caller, also on failure). EXIT_OK, or the exit code after printing why. */
int held_gather(const char *verb, int device, input_t *in, pipe_t *p, gp_ctx_t **ctx, gather_t *g, double t0);
/* The pair on device (after pick_device's choice for their bytes): p opened, *ctx its context, g[i] each input held
 * (freed by the caller, also on failure). EXIT_OK, or the exit code after printing why. */
int held_pair_gather(const char *verb, int device, input_t in[2], pipe_t *p, gp_ctx_t **ctx, gather_t g[2], double t0);
/* One output written whole from ctx's memory (n elements of es bytes at p; like: its dtype and shape), or removed:
 * EXIT_OK, or the exit code after printing why. */
int held_write(const char *verb, gp_ctx_t *ctx, const char *path, const gp_array_desc_t *like, const void *p, size_t n,
               size_t es);
/* A look at an output's elements on the host as they are written, in order, in pieces (host: n elements, the first
 * being element `first` of the output): nonzero stops the write, and the output is removed. */
typedef int (*out_check_fn)(void *user, const void *host, size_t n, size_t first);
/* held_write with check seeing every element (the exit code EXIT_FAIL when it stops the write; it says why) */
int held_write_checked(const char *verb, gp_ctx_t *ctx, const char *path, const gp_array_desc_t *like, const void *p,
                       size_t n, size_t es, out_check_fn check, void *user);
/* Two outputs written whole from ctx's memory, both or neither (arr_out_close_pair): a (na elements of esa bytes at pa,
 * shaped as la) to path_a, b likewise. EXIT_OK, or the exit code after printing why. */
int held_write_pair(const char *verb, gp_ctx_t *ctx, const char *path_a, const gp_array_desc_t *la, const void *pa,
                    size_t na, size_t esa, const char *path_b, const gp_array_desc_t *lb, const void *pb, size_t nb,
                    size_t esb);
/* Several outputs written whole from ctx's memory, all or none (arr_out_close_all): o[i].n elements of o[i].es bytes at
 * o[i].p, shaped as o[i].like, to o[i].path. EXIT_OK, or the exit code after printing why. */
#define HELD_OUTS_MAX 4
typedef struct held_out {
    const char *path;
    const gp_array_desc_t *like;
    const void *p;
    size_t n, es;
} held_out_t;
int held_write_all(const char *verb, gp_ctx_t *ctx, int n, const held_out_t *o);
/* The memory the held verbs use on ctx: pageable host memory on the CPU backend, else device memory (buf_at reads it) */
gp_mem_kind_t held_kind(gp_ctx_t *ctx);
/* b's address on ctx: host memory on the CPU backend, else device memory */
void *buf_at(gp_ctx_t *ctx, const gp_buffer_t *b);
/* n elements of es bytes at p on ctx to an open output: without check, written now by arr_out_put (the library's
 * writer: several threads into a mapping of the output); with check, piece by piece, each shown to check first
 * (through pinned host copies on a GPU; host memory queued as it is, so it must stay until the output is closed):
 * 0, -1 (a failure), or -2 (check stopped it) */
int out_write_ctx(gp_ctx_t *ctx, struct arr_out *a, const void *p, size_t n, size_t es, out_check_fn check, void *user);

/* Releases the contexts; a context still opening is left to finish on its own (main then leaves with _exit). */
void pipe_close(pipe_t *p);

#endif
