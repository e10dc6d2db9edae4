/*
 * io_internal.h — what the io family's readers share: a source that is read by several threads with pread when it
 * is a regular file, in order with fread otherwise (a pipe, a terminal, a converting stream).
 */
#ifndef GP_IO_INTERNAL_H
#define GP_IO_INTERNAL_H

#include "../core/internal.h"

#include <stdio.h>
#include <sys/types.h>

#define GP__IO_MAX_THREADS 64
/* a file's reader and writer threads unless the caller says (at most the processors): 16 threads filling one file's
 * shared mapping took one page fault per 4 KiB page and 0.8-1.2 s for 1 GiB on a 16-core host, 8 threads 0.09-0.13 s
 * (docs/design/io.md, "Writing a whole array") */
#define GP__IO_THREADS_DEFAULT 8
#define GP__IO_SLICE_MIN ((size_t)4 << 20) /* at least this many bytes per reader thread */

typedef struct gp__src {
    FILE *f;
    int fd;      /* >= 0: a regular file read with pread from pos */
    off_t pos;
    int threads; /* reader threads for a regular file, 1..GP__IO_MAX_THREADS */
    int err;     /* errno of a failed read */
    off_t size;  /* a regular file's size (0 otherwise) */
} gp__src_t;

/* The source of f from its current position; threads 0: up to 8 (the processors'). */
GP_INTERNAL void gp__src_open(gp__src_t *s, FILE *f, int threads);
/* Reads up to bytes into buf; returns the bytes read (fewer only at the end of the input or on error: s->err). */
GP_INTERNAL size_t gp__src_read(gp__src_t *s, void *buf, size_t bytes);
/* Leaves f just past what was read (a regular file; a stream is there already). */
GP_INTERNAL void gp__src_close(gp__src_t *s);
/* 1 on a big-endian host */
GP_INTERNAL int gp__host_big_endian(void);
/* n elements just read, as desc describes them, made host byte order and NumPy bools 0 / 1 */
GP_INTERNAL void gp__src_host_order(const gp_array_desc_t *desc, void *buf, size_t n);
/* Whether p (on a GPU context) is device memory, which only the copy engine reaches */
GP_INTERNAL int gp__io_is_device(gp_ctx_t *ctx, const void *p);
/* GP_ERR_FORMAT: the input ended at byte `at` after `done` of `want` elements (fn names the call) */
GP_INTERNAL gp_status_t gp__src_ends(const char *fn, size_t at, size_t done, size_t want);

#endif
