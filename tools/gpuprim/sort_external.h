/*
 * sort_external.h — `gpuprim sort` of an input larger than the memory it may use (out of core): sorted runs of what
 * fits, written to one unlinked temporary file beside the output, then a merge of the runs streamed window by window
 * into the output. The result is the bits of one gp_sort of the whole input (stable, NumPy's order).
 * docs/design/sort.md, "Out of core".
 */
#ifndef GP_CLI_SORT_EXTERNAL_H
#define GP_CLI_SORT_EXTERNAL_H

#include "input.h"

typedef struct ext_sort {
    const char *verb, *path, *out; /* the input's and the output's names */
    input_t *in;                   /* positioned at its first element; 1-D (or flattened) keys */
    gp_ctx_t *ctx;                 /* the sorting context (a GPU, or the CPU backend) */
    size_t limit;                  /* bytes of memory the sort may use: device memory on a GPU, host memory else */
    double t0;                     /* the command's start (now_seconds) */
    out_format_t fmt;
} ext_sort_t;

/* The memory an in-memory sort of the input takes on ctx (input, output and workspace), or 0 when the input's length
 * is not known (a pipe). */
double ext_sort_need(gp_ctx_t *ctx, const input_t *in);
/* The memory a sort may use on ctx when no --mem-limit is given: nine tenths of the GPU's free memory, or half the
 * host's available memory on the CPU backend (0: unknown). */
size_t ext_sort_default_limit(gp_ctx_t *ctx);
/* Sorts e->in into e->out within e->limit, prints the summary record; returns EXIT_OK or the exit code after
 * printing why (nothing written then, and no temporary left: the runs' file is unlinked as soon as it is made). */
int ext_sort_run(const ext_sort_t *e);

#endif
