/*
 * output.h — how the CLI's data verbs (scan, select) write an array they produce in pieces. The counterpart of
 * input.h.
 */
#ifndef GP_CLI_OUTPUT_H
#define GP_CLI_OUTPUT_H

#include "input.h"
#include "util.h"

#include <stdio.h>

/* An array written as it streams: OUT ending in .npy gets a .npy header reserved for any count and rewritten with the
 * real one at the end (so a pipe of unknown length works), anything else (also "-", standard output) raw elements;
 * written whole or not at all (out_open). The shape: 1-D, or arr_out_open_like's (the input's trailing dimensions
 * kept, the first one whatever the count makes it; a 0-d input stays 0-d), and NumPy bools stay bools. open and close
 * print why they fail (with the verb) and return an exit code; write returns 0 or -1 (errno kept for close). */
typedef struct arr_out {
    out_file_t o;
    FILE *f;
    int npy;
    gp_array_desc_t like; /* dtype, bool_values, ndim and shape[1..] of the output */
    size_t hbytes, count;
    int whole;            /* the header's count is `total` (a part of a bigger array: arr_out_open_part) */
    size_t total;
    int err;              /* errno of a failed write (set by the writer thread; read after arr_out_drain) */
    char why[256];        /* the library's message of a failed arr_out_put, else empty */
    struct arr_writer *w; /* the writer thread and its queue (NULL: writes happen in the caller) */
} arr_out_t;
int arr_out_open(arr_out_t *a, const char *verb, const char *path, gp_dtype_t dtype);
/* like->dtype, bool_values, ndim and shape (shape[0] ignored: the count decides it). */
int arr_out_open_like(arr_out_t *a, const char *verb, const char *path, const gp_array_desc_t *like);
/* One part of an array written by several processes (a launcher's ranks): raw elements, or with npy != 0 the .npy
 * header of the whole array of `total` elements first (the first part), so the parts concatenated in order are the
 * whole .npy. Written whole or not at all, as the others. */
int arr_out_open_part(arr_out_t *a, const char *verb, const char *path, const gp_array_desc_t *like, int npy,
                      size_t total);
int arr_out_write(arr_out_t *a, const void *data, size_t n);
/* The writes go to a thread of the output's own, in order, so that writing overlaps reading and computing:
 * arr_out_write copies the data (the caller may reuse it at once); arr_out_submit queues the caller's buffer itself,
 * which stays untouched until arr_out_release(a, buf) returns (double-buffered stages). arr_out_drain waits for every
 * queued write. A failed write is reported by the next call (-1, a->err). */
int arr_out_submit(arr_out_t *a, const void *buf, size_t n);
void arr_out_release(arr_out_t *a, const void *buf);
int arr_out_drain(arr_out_t *a);
/* n elements of ctx's memory (device memory on a GPU) written now, after what is queued: the library's writer
 * (gp_array_write), through a shared mapping filled by several threads where the output takes one. 0, or -1 with
 * a->err set and the library's message in a->why. */
int arr_out_put(arr_out_t *a, gp_ctx_t *ctx, const void *p, size_t n);
int arr_out_close(arr_out_t *a, const char *verb, int ok); /* ok = 0: remove it (returns EXIT_OK) */
/* The outputs of one run (rle's values and lengths, unique's four): all written, or none (every one finished, then
 * each committed; a commit that fails after others succeeded names those written). */
int arr_out_close_all(arr_out_t *const *a, int n, const char *verb);
int arr_out_close_pair(arr_out_t *a, arr_out_t *b, const char *verb);
/* Where a verb's summary line goes: stderr when its output is standard output ("-"), else stdout. */
FILE *summary_stream(const char *out_path);

/* Says why a streamed verb failed, "(nothing written)": an output's write error when a (or b, may be NULL) has one,
 * else the input's error (from its byte offset on a format error). Returns EXIT_FAIL. */
int stream_failed(const char *verb, const char *path, gp_status_t st, const arr_out_t *a, const arr_out_t *b);

/* The data verbs' one writer: the result as one record (lab.h's record_t), printed as --json / --csv (rec_print) or
 * as the table format's line, made from line: "{key}" is the field's value (a string unquoted), "{key:%.3f}" a
 * number in that printf format, anything else as it is. An unknown key prints "?". */
void rec_emit(const record_t *r, out_format_t fmt, const char *line, FILE *f);
/* The fields every streamed run ends its record with: seconds, gbps (bytes / seconds), cpu_head_elements, device. */
void rec_add_run(record_t *r, double secs, double bytes, size_t head_elements, const char *device);

#endif
