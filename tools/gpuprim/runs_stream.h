/*
 * runs_stream.h — the streamed runs shared by `gpuprim unique --consecutive` (cmd_unique.c) and `gpuprim rle`
 * (cmd_rle.c): runs_stream.c.
 */
#ifndef GP_CLI_RUNS_STREAM_H
#define GP_CLI_RUNS_STREAM_H
#include "commands.h"

/* path's elements (dtype / offset / count as the input options give them) streamed: rle 0, the first of each run of
 * equal consecutive elements into out; rle 1, also each run's length (u64) into len. Prints the summary in c's format;
 * returns the exit code, after printing why where it is not EXIT_OK. */
int runs_stream(const char *verb, int rle, const char *path, cli_common_t *c, const char *dtype, const char *offset,
                const char *count, const char *out, const char *len);

#endif
