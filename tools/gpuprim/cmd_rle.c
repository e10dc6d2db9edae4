/*
 * cmd_rle.c — `gpuprim rle FILE|- -o VALUES --lengths LENGTHS`: run-length encoding, streamed chunk by chunk at any
 * size (runs_stream.c): each run of equal consecutive elements (by value: NaN equals nothing, -0 == +0) as its first
 * element and its length (u64).
 */
#define _POSIX_C_SOURCE 200809L
#include "commands.h"
#include "input.h"
#include "output.h"
#include "runs_stream.h"

#include <stdio.h>

typedef struct rle_opts {
    const char *dtype, *offset, *count, *out, *len;
} rle_opts_t;
#define AT(m) OPT_AT(rle_opts_t, m)
static const cli_opt_t opts_r[] = {
    {"-o|--output", OPT_FILE, "VALUES", AT(out), "each run's value (.npy or raw; - for stdout)", NULL, NULL, NULL},
    {"--lengths", OPT_FILE, "LENGTHS", AT(len), "each run's length (u64)", NULL, NULL, NULL},
    INPUT_OPTIONS(rle_opts_t),
    {NULL, 0, NULL, 0, NULL, NULL, NULL, NULL}};
static const cli_spec_t spec_rle = {
    "rle", COMMON_DATA, NULL, opts_r, 1, "FILE|- -o VALUES --lengths LENGTHS [options]",
    "Run-length encoding: each run of equal consecutive elements as its value and its length, streamed (any size).",
    NULL};

static int cmd_rle(int argc, char **argv)
{
    cli_common_t c = {DEVICE_DEFAULT, FMT_TABLE, NULL, 1, 0, 0};
    rle_opts_t opt;
    const char *path = NULL;
    int npos = 0;
    const int pr = cli_parse(&spec_rle, argc, argv, &c, &opt, &path, &npos);
    if (pr != EXIT_OK) return pr == CLI_HELP ? EXIT_OK : pr;
    if (!path || !opt.out || !opt.len) {
        fprintf(stderr, "gpuprim rle: %s\n", !path ? "no input (FILE or -)" : !opt.out ? "-o VALUES is required"
                                                                              : "--lengths LENGTHS is required");
        cli_usage(&spec_rle, stderr);
        return EXIT_USAGE;
    }
    if (out_same_target(opt.out, opt.len)) {
        fprintf(stderr, "gpuprim rle: -o %s and --lengths %s name the same file: give two\n", opt.out, opt.len);
        return EXIT_USAGE;
    }
    return runs_stream("rle", 1, path, &c, opt.dtype, opt.offset, opt.count, opt.out, opt.len);
}

const verb_t verb_rle = {"rle", "FILE|- -o VALUES --lengths LENGTHS", "run-length encoding, streamed",
                         &spec_rle, cmd_rle, NULL};
