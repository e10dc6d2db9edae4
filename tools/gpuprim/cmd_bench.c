/*
 * cmd_bench.c — `gpuprim bench PRIMITIVE`: hands the command line to the primitive's bench (cmd_bench_<family>.c).
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

/* The suites, in the order the help lists them: one line each. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} k_suites[] = {{"vector", bench_vector}, {"reduce", bench_reduce}, {"histogram", bench_histogram},
                {"transpose", bench_transpose}, {"gemm", bench_gemm}, {"graph", bench_graph}, {"scan", bench_scan},
                {"select", bench_select}, {"jit", bench_jit}, {"group", bench_group}};
enum { NSUITES = sizeof k_suites / sizeof k_suites[0] };

static void suites(FILE *f)
{
    for (int i = 0; i < NSUITES; i++) fprintf(f, "%s%s", i ? ", " : "", k_suites[i].name);
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: gpuprim bench SUITE [options]   (gpuprim bench SUITE --help for its options)\n  suites: ");
        suites(f);
        fputc('\n', f);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    for (int i = 0; i < NSUITES; i++)
        if (strcmp(argv[1], k_suites[i].name) == 0) return k_suites[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpuprim bench: unknown suite '%s' (known: ", argv[1]);
    suites(stderr);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
}
