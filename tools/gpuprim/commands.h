/* commands.h — the CLI's verbs (one cmd_<verb>.c each). argv[0] is the verb. Each returns an exit code (util.h). */
#ifndef GP_CLI_COMMANDS_H
#define GP_CLI_COMMANDS_H

#include "bench.h"
#include "util.h"

int cmd_info(int argc, char **argv);
int cmd_bandwidth(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int bench_vector(int argc, char **argv); /* argv[0] = "vector" */
int bench_reduce(int argc, char **argv); /* argv[0] = "reduce" */
int cmd_lab(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_histogram(int argc, char **argv);

#endif
