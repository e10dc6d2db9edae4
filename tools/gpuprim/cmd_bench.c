/*
 * cmd_bench.c — `gpuprim bench SUITE`: the runner of the bench room's suites (bench/suites.c), as `gpuprim lab` runs
 * the lab's topics: it hands the command line to the suite the first word names.
 */
#include "commands.h"
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static const verb_t *const *bench_subs(void) { return bench_suites; }

static int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        FILE *f = argc < 2 ? stderr : stdout;
        fprintf(f, "usage: gpuprim bench SUITE [options]   (gpuprim bench SUITE --help for its options; --json or --csv "
                   "for its rows)\n");
        for (int i = 0; i < bench_nsuites; i++)
            fprintf(f, "  %-10s %s\n", bench_suites[i]->name, bench_suites[i]->summary);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    for (int i = 0; i < bench_nsuites; i++)
        if (strcmp(argv[1], bench_suites[i]->name) == 0) return bench_suites[i]->run(argc - 1, argv + 1);
    fprintf(stderr, "gpuprim bench: unknown suite '%s' (known:", argv[1]);
    for (int i = 0; i < bench_nsuites; i++) fprintf(stderr, "%s %s", i ? "," : "", bench_suites[i]->name);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
}

const verb_t verb_bench = {"bench", "SUITE",
                           "a primitive against its peer (CUB, cuBLAS) and the ceilings, same run (gpuprim bench --help)",
                           NULL, cmd_bench, bench_subs};
