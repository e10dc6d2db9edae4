/*
 * suites.c — the suites `gpuprim bench` runs (tools/gpuprim/cmd_bench.c), in the order its help lists them. A suite
 * is one bench/suite_<family>.c defining `const verb_t bench_suite_<name>` and one line here.
 */
#include "bench.h"

#define SUITES(X) X(vector) X(reduce) X(histogram) X(transpose) X(gemm) X(graph) X(scan) X(select) X(sort) X(jit) X(group)

#define DECLARE(name) extern const verb_t bench_suite_##name;
SUITES(DECLARE)
#define ENTRY(name) &bench_suite_##name,
const verb_t *const bench_suites[] = {SUITES(ENTRY) NULL};
const int bench_nsuites = sizeof bench_suites / sizeof bench_suites[0] - 1;
