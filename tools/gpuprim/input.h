/*
 * input.h — how the CLI's data verbs (reduce, histogram) open their input: a .npy file (recognised by its magic; the
 * dtype and count from its header), raw binary (--dtype, --offset, --count, like np.memmap) or standard input (a file
 * or a pipe; the sniffed bytes are given back). Errors are printed with the verb's name and the byte offset.
 */
#ifndef GP_CLI_INPUT_H
#define GP_CLI_INPUT_H

#include "util.h"

#include <stdio.h>

typedef struct prefixed {
    unsigned char bytes[6];
    size_t npre, pos;
    FILE *src;
} prefixed_t;

typedef struct input {
    const char *name;  /* the path, or "-" */
    FILE *f;           /* positioned at the first element */
    int owned;         /* f is to be closed */
    int npy;
    gp_array_desc_t d; /* d.count: GP_COUNT_ALL for raw standard input */
    size_t want;       /* elements to read (GP_COUNT_ALL: to the end) */
    prefixed_t pre;    /* standard input from a pipe: the sniffed bytes, replayed */
    FILE *src;         /* a FIFO or device opened by name, beneath f (closed by input_close) */
    void *mem;         /* input_c_order / input_convert: what f reads from (freed by input_close) */
    FILE *under;       /* input_convert: the FILE beneath the converting one */
    int under_owned;   /* under is to be closed */
    gp_dtype_t from;   /* input_convert: the dtype in the file */
    gp_array_desc_t fd; /* input_convert: the file's own description */
} input_t;

/* Returns EXIT_OK, or the exit code after printing why. */
int input_open(input_t *in, const char *verb, const char *path, int have_dtype, gp_dtype_t dtype, int have_offset,
               size_t offset, size_t count);
/* input_open from the data verbs' option values (NULL: not given): --dtype T, --offset BYTES, --count N. Returns
 * EXIT_OK, or the exit code after printing why (a bad value is EXIT_USAGE). */
int input_open_opts(input_t *in, const char *verb, const char *path, const char *o_dtype, const char *o_offset,
                    const char *o_count);
/* The input options of the data verbs, three entries of a verb's option table (support.h) landing in the members
 * dtype, offset and count of its struct T: input_open_opts reads them. */
#define INPUT_OPTIONS(T)                                                                                               \
    {"--dtype", OPT_DTYPE, "T", OPT_AT(T, dtype),                                                                      \
     "the elements' dtype: a raw input's (required there); a .npy's header must agree", NULL, NULL, NULL},             \
        {"--offset", OPT_COUNT, "BYTES", OPT_AT(T, offset),                                                            \
         "bytes of a raw input skipped before its first element (its own header)", NULL, NULL, NULL},                  \
        {"--count", OPT_COUNT, "N", OPT_AT(T, count), "elements read", "to the end", NULL, NULL}
/* A Fortran-order .npy of 2 or more dimensions read whole into memory and reordered into C order (NumPy flattens in
 * C order): for the verbs whose result depends on the order of the elements. in->d describes the reordered array.
 * Returns EXIT_OK, or the exit code after printing why. */
int input_c_order(input_t *in, const char *verb);
/* The elements converted to dtype as they are read (exactly where the target holds them: i8 / i16 -> i32, f16 / bf16
 * -> f32, i64 / u64 -> f64 as NumPy's astype does; to i32 saturated), for a primitive that takes fewer dtypes; in->d then describes the
 * converted stream, in->from the file's dtype. Returns EXIT_OK, or the exit code after printing why. */
int input_convert(input_t *in, const char *verb, gp_dtype_t dtype);
/* The bytes the verb will read, or -1 when unknown (a pipe read to its end). */
double input_bytes(const input_t *in);
void input_close(input_t *in);

#endif
