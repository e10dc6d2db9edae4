/*
 * cmd_bench.c — `gpuprim bench PRIMITIVE`: hands the command line to the primitive's bench (cmd_bench_<family>.c).
 */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

/* The suites, in the order the help lists them: one line each (commands.h). */
const verb_t bench_suites[] = {
    {"vector", "", "copy, scale, add, triad, dot against the D2D copy and cuBLAS axpy / dot", &spec_bench_vector, bench_vector},
    {"reduce", "", "gp_reduce against cub::DeviceReduce: sums, min / max, small n, ordered ops", &spec_bench_reduce, bench_reduce},
    {"histogram", "", "gp_histogram_even against cub::DeviceHistogram, 256 to 2^20 bins", &spec_bench_histogram, bench_histogram},
    {"transpose", "", "gp_matrix_transpose against cublasSgeam and the D2D copy", &spec_bench_transpose, bench_transpose},
    {"gemm", "", "gp_gemm (f32 f64, tf32 bf16 fp16) against cuBLAS", &spec_bench_gemm, bench_gemm},
    {"graph", "", "small calls one by one against the same calls in one CUDA graph", &spec_bench_graph, bench_graph},
    {"scan", "", "gp_scan against cub::DeviceScan and the D2D copy, ordered scans too", &spec_bench_scan, bench_scan},
    {"select", "", "gp_select / gp_partition / gp_unique against CUB's DeviceSelect", &spec_bench_select, bench_select},
    {"jit", "", "user operators (C compiled at run time) against the built-ins", &spec_bench_jit, bench_jit},
    {"group", "", "a group of GPUs (NCCL) against one GPU: all-reduce, reduce, histogram", &spec_bench_group, bench_group},
};
const int bench_nsuites = sizeof bench_suites / sizeof bench_suites[0];
enum { NSUITES = sizeof bench_suites / sizeof bench_suites[0] };

static void suites(FILE *f)
{
    for (int i = 0; i < NSUITES; i++) fprintf(f, "%s%s", i ? ", " : "", bench_suites[i].name);
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: gpuprim bench SUITE [options]   (gpuprim bench SUITE --help for its options)\n");
        for (int i = 0; i < NSUITES; i++) fprintf(f, "  %-10s %s\n", bench_suites[i].name, bench_suites[i].summary);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    for (int i = 0; i < NSUITES; i++)
        if (strcmp(argv[1], bench_suites[i].name) == 0) return bench_suites[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpuprim bench: unknown suite '%s' (known: ", argv[1]);
    suites(stderr);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
}
