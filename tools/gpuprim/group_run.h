/*
 * group_run.h — the data verbs over a group of GPUs (`--devices`): the group the option names, and a file's even
 * split streamed into every member at once (the group itself: group_open, support.h) (one host thread and one gp_array_stream per member, each reading its
 * own range of the file).
 */
#ifndef GP_CLI_GROUP_RUN_H
#define GP_CLI_GROUP_RUN_H

#include "input.h"

/* --devices and --ranks, two entries of a verb's option table (support.h) landing in the members devices and ranks
 * of its struct T; RANKS: what a rank does with the file, for the help. The verb checks them (group_open). */
#define GROUP_OPTIONS(T, RANKS)                                                                                        \
    {"--devices", OPT_TEXT, "SPEC", OPT_AT(T, devices),                                                                \
     "the input split over a group: all (every GPU, NCCL), 0,1,.. (those GPUs), cpu:K / gpu:K (K members emulated "   \
     "on the CPU backend / GPU 0, no NCCL); the same bits as one device",                                            \
     NULL, "--ranks", "all cpu:2 gpu:2 0,1"},                                                                          \
        {"--ranks", OPT_WORD, "env", OPT_AT(T, ranks),                                                                 \
         "this process is one rank of a group a launcher started (mpirun, srun, torchrun; docs/guide/cli.md): " RANKS, \
         NULL, NULL, NULL}
/* Called for each chunk of member `member`'s range: elements [first, first + count) of the whole array (first
 * counted from the array's start), on the member's context and stream; from the member's own thread. */
typedef gp_status_t (*member_chunk_fn)(void *user, int member, const void *chunk, size_t count, size_t first,
                                       gp_stream_t stream);
/* Streams the input (a regular file of known length) split evenly over the group's members (gp_group_split with
 * the input's dtype), every member at once; granule as gp_array_stream's. Returns EXIT_OK or the exit code after
 * printing why (with the byte offset for a short file). */
int group_stream(const char *verb, gp_group_t *g, const input_t *in, size_t granule, member_chunk_fn fn, void *user);

/* A verb's data held over a group (scan, sort, argsort with --devices / --ranks): each member's part of the input
 * (gp_group_split with the input's dtype: whole scan tiles and 64 KiB tiles before the last) read into its memory
 * (x), room for its part of the output (y, out_es bytes an element); the members' outputs then written in rank order.
 * Arrays of gp_group_local_count members. */
typedef struct group_data {
    gp_group_t *g;
    int k;
    size_t total;       /* elements of the whole input */
    size_t es;          /* bytes of an input element */
    size_t *first, *counts;
    gp_buffer_t *xb, *yb;
    const void **x;
    void **y;
} group_data_t;
/* Reads the input into the members (a regular file of known length, as group_stream). EXIT_OK or the exit code after
 * printing why (a member's memory named when it does not fit). */
int group_data_load(const char *verb, gp_group_t *g, const input_t *in, size_t out_es, group_data_t *d);
/* Writes the members' outputs (out_es-byte elements shaped as `like`): every rank in this process, OUT whole; one
 * rank r of a group of several processes, its part as OUT.r (rank 0's with OUT's .npy header for the whole, so
 * `cat OUT.0 OUT.1 ... > OUT` is one device's OUT). *written: the path written. Each written whole or not at all. */
int group_data_write(const char *verb, const group_data_t *d, const char *out, const gp_array_desc_t *like,
                     size_t out_es, char *written, size_t wlen);
void group_data_free(group_data_t *d);

#endif
