/*
 * cmd_bench.c — `gpuprim bench PRIMITIVE`: hands the command line to the primitive's bench (cmd_bench_<family>.c).
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 2 ? stderr : stdout, "usage: gpuprim bench vector|reduce|histogram|transpose|gemm|graph|scan|select|jit|group [options]   (--help after it)\n");
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "vector") == 0) return bench_vector(argc - 1, argv + 1);
    if (strcmp(argv[1], "reduce") == 0) return bench_reduce(argc - 1, argv + 1);
    if (strcmp(argv[1], "histogram") == 0) return bench_histogram(argc - 1, argv + 1);
    if (strcmp(argv[1], "transpose") == 0) return bench_transpose(argc - 1, argv + 1);
    if (strcmp(argv[1], "gemm") == 0) return bench_gemm(argc - 1, argv + 1);
    if (strcmp(argv[1], "graph") == 0) return bench_graph(argc - 1, argv + 1);
    if (strcmp(argv[1], "scan") == 0) return bench_scan(argc - 1, argv + 1);
    if (strcmp(argv[1], "select") == 0) return bench_select(argc - 1, argv + 1);
    if (strcmp(argv[1], "jit") == 0) return bench_jit(argc - 1, argv + 1);
    if (strcmp(argv[1], "group") == 0) return bench_group(argc - 1, argv + 1);
    fprintf(stderr, "gpuprim bench: unknown primitive '%s' (known: vector, reduce, histogram, transpose, gemm, graph, scan, select, jit, group)\n", argv[1]);
    return EXIT_USAGE;
}
