/*
 * group_run.h — the data verbs over a group of GPUs (`--devices`): the group the option names, and a file's even
 * split streamed into every member at once (one host thread and one gp_array_stream per member, each reading its
 * own range of the file).
 */
#ifndef GP_CLI_GROUP_RUN_H
#define GP_CLI_GROUP_RUN_H

#include "input.h"

/* SPEC: "all" (every GPU, NCCL), "0,1,..." (those GPUs, NCCL), "cpu:K" / "gpu:K" (K emulated members on the CPU
 * backend / on GPU 0: the same results without NCCL). Returns EXIT_OK or the exit code after printing why. */
int group_open(const char *verb, const char *spec, gp_group_t **g);
/* "2 GPUs (nccl: 0, 1)" and the like. */
void group_describe(gp_group_t *g, char *buf, size_t len);
/* Called for each chunk of member `member`'s range: elements [first, first + count) of the whole array (first
 * counted from the array's start), on the member's context and stream; from the member's own thread. */
typedef gp_status_t (*member_chunk_fn)(void *user, int member, const void *chunk, size_t count, size_t first,
                                       gp_stream_t stream);
/* Streams the input (a regular file of known length) split evenly over the group's members (gp_group_split with
 * the input's dtype), every member at once; granule as gp_array_stream's. Returns EXIT_OK or the exit code after
 * printing why (with the byte offset for a short file). */
int group_stream(const char *verb, gp_group_t *g, const input_t *in, size_t granule, member_chunk_fn fn, void *user);

#endif
