/*
 * group_run.h — the data verbs over a group of GPUs (`--devices`): the group the option names, and a file's even
 * split streamed into every member at once (the group itself: group_open, support.h) (one host thread and one gp_array_stream per member, each reading its
 * own range of the file).
 */
#ifndef GP_CLI_GROUP_RUN_H
#define GP_CLI_GROUP_RUN_H

#include "input.h"

/* Called for each chunk of member `member`'s range: elements [first, first + count) of the whole array (first
 * counted from the array's start), on the member's context and stream; from the member's own thread. */
typedef gp_status_t (*member_chunk_fn)(void *user, int member, const void *chunk, size_t count, size_t first,
                                       gp_stream_t stream);
/* Streams the input (a regular file of known length) split evenly over the group's members (gp_group_split with
 * the input's dtype), every member at once; granule as gp_array_stream's. Returns EXIT_OK or the exit code after
 * printing why (with the byte offset for a short file). */
int group_stream(const char *verb, gp_group_t *g, const input_t *in, size_t granule, member_chunk_fn fn, void *user);

#endif
